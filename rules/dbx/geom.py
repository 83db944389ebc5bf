"""Plane geometry for the free-measured table (§3): rectangles, polygons, closest distances, intersections.

Points are (x, y) in table mm; a heading is a compass bearing in degrees (0 = +y, 90 = +x). Pure numpy.
"""

from __future__ import annotations

import math

import numpy as np

EPS = 1e-9
_hypot = np.hypot  # numpy's (libm) hypot on floats: the same bits as the numpy-vector code it replaces
_BOX_MARGIN = 1e-6  # bounding boxes further apart than this cannot touch within any of the 1e-7 tests below


def _pts(poly) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (poly.tolist() if isinstance(poly, np.ndarray) else poly)]


def _box(pts) -> tuple[float, float, float, float]:
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def _box_gap(b1, b2) -> float:
    """How far apart two bounding boxes are along x or y (<= 0 when they overlap)."""
    return max(b1[0] - b2[2], b2[0] - b1[2], b1[1] - b2[3], b2[1] - b1[3])


def _ps(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """point_segment on floats (the same operations in the same order)."""
    abx, aby = bx - ax, by - ay
    n = abx * abx + aby * aby
    if n < EPS:
        t = 0.0
    else:
        t = min(1.0, max(0.0, ((px - ax) * abx + (py - ay) * aby) / n))
    return float(_hypot(ax + t * abx - px, ay + t * aby - py))


def directions(heading_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """(forward, right) unit vectors of a compass heading."""
    h = math.radians(heading_deg)
    return np.array([math.sin(h), math.cos(h)]), np.array([math.cos(h), -math.sin(h)])


def rectangle(x: float, y: float, heading_deg: float, width: float, depth: float) -> np.ndarray:
    """Corners of a base in the order front-left, front-right, rear-right, rear-left (§3.2)."""
    fwd, right = directions(heading_deg)
    c = np.array([x, y], float)
    f, r = fwd * depth / 2.0, right * width / 2.0
    return np.array([c + f - r, c + f + r, c - f + r, c - f - r])


def heading_of(v) -> float:
    """The compass bearing of a direction vector."""
    return math.degrees(math.atan2(v[0], v[1])) % 360.0


def angle_diff(a: float, b: float) -> float:
    """Smallest absolute difference of two bearings, 0..180."""
    d = (a - b) % 360.0
    return min(d, 360.0 - d)


def point_segment(p, a, b) -> float:
    return _ps(float(p[0]), float(p[1]), float(a[0]), float(a[1]), float(b[0]), float(b[1]))


def _orient(a, b, c) -> float:
    return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


def _cross(a, b, c, d) -> bool:
    """segments_cross on float pairs."""
    ax, ay = a
    bx, by = b
    cx, cy = c
    dx, dy = d
    o1 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    o2 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax)
    o3 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
    o4 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
    if o1 * o2 < -EPS * EPS and o3 * o4 < -EPS * EPS and min(abs(o1), abs(o2), abs(o3), abs(o4)) > EPS:
        return True
    return min(_ps(cx, cy, ax, ay, bx, by), _ps(dx, dy, ax, ay, bx, by), _ps(ax, ay, cx, cy, dx, dy),
               _ps(bx, by, cx, cy, dx, dy)) < 1e-7


def _segseg(a, b, c, d) -> float:
    """segment_segment on float pairs."""
    if _cross(a, b, c, d):
        return 0.0
    ax, ay = a
    bx, by = b
    cx, cy = c
    dx, dy = d
    return min(_ps(cx, cy, ax, ay, bx, by), _ps(dx, dy, ax, ay, bx, by), _ps(ax, ay, cx, cy, dx, dy),
               _ps(bx, by, cx, cy, dx, dy))


def segments_cross(a, b, c, d) -> bool:
    """Closed segments ab and cd share a point."""
    return _cross((float(a[0]), float(a[1])), (float(b[0]), float(b[1])), (float(c[0]), float(c[1])),
                  (float(d[0]), float(d[1])))


def segment_segment(a, b, c, d) -> float:
    return _segseg((float(a[0]), float(a[1])), (float(b[0]), float(b[1])), (float(c[0]), float(c[1])),
                   (float(d[0]), float(d[1])))


def edges(poly: np.ndarray):
    n = len(poly)
    return [(poly[i], poly[(i + 1) % n]) for i in range(n)]


def _edges(pts):
    return list(zip(pts, pts[1:] + pts[:1], strict=True))


def _pip(x: float, y: float, pts, box=None) -> bool:
    """point_in_polygon on floats; a point outside the bounding box (by more than the boundary tolerance) is out."""
    if box is None:
        box = _box(pts)
    if x < box[0] - _BOX_MARGIN or x > box[2] + _BOX_MARGIN or y < box[1] - _BOX_MARGIN or y > box[3] + _BOX_MARGIN:
        return False
    inside = False
    for (ax, ay), (bx, by) in _edges(pts):
        if _ps(x, y, ax, ay, bx, by) < 1e-7:
            return True
        if (ay > y) != (by > y):
            xi = ax + (y - ay) * (bx - ax) / (by - ay)
            if xi > x:
                inside = not inside
    return inside


def point_in_polygon(p, poly: np.ndarray) -> bool:
    """Even-odd rule; points on the boundary count as inside."""
    return _pip(float(p[0]), float(p[1]), _pts(poly))


def segment_polygon(a, b, poly: np.ndarray) -> float:
    """Closest distance from segment ab to a polygon's area (0 when it touches or lies inside)."""
    pts = _pts(poly)
    box = _box(pts)
    a, b = (float(a[0]), float(a[1])), (float(b[0]), float(b[1]))
    if _pip(a[0], a[1], pts, box) or _pip(b[0], b[1], pts, box):
        return 0.0
    return min(_segseg(a, b, p, q) for p, q in _edges(pts))


def _poly_dist(p, q) -> float:
    if _pip(p[0][0], p[0][1], q) or _pip(q[0][0], q[0][1], p):
        return 0.0
    ep = _edges(p)
    return min(_segseg(a, b, c, d) for a, b in ep for c, d in _edges(q))


def polygon_distance(p: np.ndarray, q: np.ndarray) -> float:
    """Closest distance between two polygons' areas: 0 when they touch or overlap."""
    return _poly_dist(_pts(p), _pts(q))


def polygon_apart(p: np.ndarray, q: np.ndarray, d: float) -> bool:
    """polygon_distance(p, q) > d, answered from the bounding boxes when they are further apart than d."""
    pp, qq = _pts(p), _pts(q)
    if _box_gap(_box(pp), _box(qq)) > d + _BOX_MARGIN:
        return True
    return _poly_dist(pp, qq) > d


def penetration(p: np.ndarray, q: np.ndarray) -> float:
    """How deep two convex polygons overlap (separating-axis minimum overlap; <= 0 when apart)."""
    best = math.inf
    for poly in (p, q):
        for a, b in edges(poly):
            n = np.array([-(b[1] - a[1]), b[0] - a[0]], float)
            ln = float(np.hypot(*n))
            if ln < EPS:
                continue
            n /= ln
            pp, qq = p @ n, q @ n
            best = min(best, min(pp.max(), qq.max()) - max(pp.min(), qq.min()))
    return float(best)


def overlaps(p: np.ndarray, q: np.ndarray, tol: float = 0.0) -> bool:
    """Convex polygons overlap by more than tol (tol >= 0: bounding boxes apart never overlap)."""
    if tol >= 0 and _box_gap(_box(_pts(p)), _box(_pts(q))) > _BOX_MARGIN:
        return False
    return penetration(p, q) > tol


def polygon_area_overlap(rect: np.ndarray, poly: np.ndarray, tol: float = 0.0) -> bool:
    """A (convex) rectangle reaches more than `tol` into a possibly concave polygon."""
    pp = _pts(poly)
    if tol <= 0:
        rr = _pts(rect)
    else:
        rr = _pts(shrink(rect, tol))
    if _box_gap(_box(rr), _box(pp)) > _BOX_MARGIN:
        return False
    return _poly_dist(rr, pp) == 0.0


def shrink(rect: np.ndarray, d: float) -> np.ndarray:
    """A rectangle (corners FL FR RR RL) shrunk by d on every side (never below a point)."""
    c = rect.mean(axis=0)
    out = []
    for i, p in enumerate(rect):
        a, b = rect[(i - 1) % 4], rect[(i + 1) % 4]
        u1, u2 = _unit(a - p), _unit(b - p)
        la, lb = float(np.hypot(*(a - p))), float(np.hypot(*(b - p)))
        out.append(p + u1 * min(d, la / 2) + u2 * min(d, lb / 2))
    return np.array(out) if out else c


def _unit(v) -> np.ndarray:
    n = float(np.hypot(*v))
    return np.asarray(v, float) / n if n > EPS else np.zeros(2)


def segment_through_polygon(a, b, poly: np.ndarray, box=None) -> bool:
    """The segment ab passes through the polygon's interior (touching the outline is not enough)."""
    pts_ = poly if isinstance(poly, list) else _pts(poly)
    if box is None:
        box = _box(pts_)
    ax, ay, bx, by = float(a[0]), float(a[1]), float(b[0]), float(b[1])
    if (max(ax, bx) < box[0] - _BOX_MARGIN or min(ax, bx) > box[2] + _BOX_MARGIN
            or max(ay, by) < box[1] - _BOX_MARGIN or min(ay, by) > box[3] + _BOX_MARGIN):
        return False  # every midpoint tested below lies on ab, outside the polygon's box
    ts = [0.0, 1.0]
    d0, d1 = bx - ax, by - ay
    for (px, py), (qx, qy) in _edges(pts_):
        e0, e1 = qx - px, qy - py
        den = d0 * e1 - d1 * e0
        if abs(den) < EPS:
            continue
        t = ((px - ax) * e1 - (py - ay) * e0) / den
        s = ((px - ax) * d1 - (py - ay) * d0) / den
        if -EPS <= t <= 1 + EPS and -EPS <= s <= 1 + EPS:
            ts.append(min(1.0, max(0.0, t)))
    ts = sorted(ts)
    for t0, t1 in zip(ts, ts[1:], strict=False):
        if t1 - t0 < 1e-6:
            continue
        if _strictly_in(ax + d0 * (t0 + t1) / 2, ay + d1 * (t0 + t1) / 2, pts_, box):  # as a + d * (t0 + t1) / 2
            return True
    return False


def _strictly_in(x: float, y: float, pts, box) -> bool:
    if x < box[0] - _BOX_MARGIN or x > box[2] + _BOX_MARGIN or y < box[1] - _BOX_MARGIN or y > box[3] + _BOX_MARGIN:
        return False
    if min(_ps(x, y, ax, ay, bx, by) for (ax, ay), (bx, by) in _edges(pts)) < 1e-6:
        return False
    return _pip(x, y, pts, box)


def _strictly_inside(p, poly) -> bool:
    pts_ = _pts(poly)
    return _strictly_in(float(p[0]), float(p[1]), pts_, _box(pts_))


def polyline_cross(a, b, line: np.ndarray) -> bool:
    """The segment ab meets the polyline."""
    a, b = (float(a[0]), float(a[1])), (float(b[0]), float(b[1]))
    pts_ = _pts(line)
    return any(_cross(a, b, pts_[i], pts_[i + 1]) for i in range(len(pts_) - 1))


def point_polyline(p, line: np.ndarray) -> float:
    if len(line) == 1:
        return float(np.hypot(*(np.asarray(p) - line[0])))
    x, y = float(p[0]), float(p[1])
    pts_ = _pts(line)
    return min(_ps(x, y, *pts_[i], *pts_[i + 1]) for i in range(len(pts_) - 1))


def boundary_distance(p, poly: np.ndarray) -> float:
    x, y = float(p[0]), float(p[1])
    return min(_ps(x, y, ax, ay, bx, by) for (ax, ay), (bx, by) in _edges(_pts(poly)))


def buffer_polyline(line: np.ndarray, width: float) -> list[np.ndarray]:
    """A polyline `width` wide as convex parts: one rectangle per segment and an octagon at each joint."""
    parts = []
    h = width / 2.0
    for i in range(len(line) - 1):
        a, b = line[i], line[i + 1]
        u = _unit(b - a)
        n = np.array([-u[1], u[0]]) * h
        parts.append(np.array([a + n, b + n, b - n, a - n]))
    for p in line[1:-1]:
        ang = np.linspace(0, 2 * np.pi, 8, endpoint=False)
        parts.append(np.stack([p[0] + h * np.cos(ang), p[1] + h * np.sin(ang)], axis=1))
    return parts


def oval(cx: float, cy: float, a: float, b: float, rotation_deg: float = 0.0, n: int = 24) -> np.ndarray:
    """An ellipse polygon with semi-axes a (along the rotation bearing's right) and b."""
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    fwd, right = directions(rotation_deg)
    return np.array([cx, cy]) + np.outer(a * np.cos(t), right) + np.outer(b * np.sin(t), fwd)


def sample_segment(a, b, n: int = 5) -> np.ndarray:
    t = np.linspace(0.0, 1.0, n)[:, None]
    return np.asarray(a, float) * (1 - t) + np.asarray(b, float) * t


def sample_rect(rect: np.ndarray) -> np.ndarray:
    """Corners, edge midpoints and centre."""
    mids = (rect + np.roll(rect, -1, axis=0)) / 2
    return np.vstack([rect, mids, rect.mean(axis=0)[None]])
