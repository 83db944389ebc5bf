"""Plane geometry for the free-measured table (§3): rectangles, polygons, closest distances, intersections.

Points are (x, y) in table mm; a heading is a compass bearing in degrees (0 = +y, 90 = +x). Pure numpy.
"""

from __future__ import annotations

import math

import numpy as np

EPS = 1e-9


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
    p, a, b = (np.asarray(v, float) for v in (p, a, b))
    ab = b - a
    n = float(ab @ ab)
    t = 0.0 if n < EPS else min(1.0, max(0.0, float((p - a) @ ab) / n))
    return float(np.hypot(*(a + t * ab - p)))


def _orient(a, b, c) -> float:
    return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


def segments_cross(a, b, c, d) -> bool:
    """Closed segments ab and cd share a point."""
    o1, o2, o3, o4 = _orient(a, b, c), _orient(a, b, d), _orient(c, d, a), _orient(c, d, b)
    if o1 * o2 < -EPS * EPS and o3 * o4 < -EPS * EPS and min(abs(o1), abs(o2), abs(o3), abs(o4)) > EPS:
        return True
    return min(point_segment(c, a, b), point_segment(d, a, b), point_segment(a, c, d), point_segment(b, c, d)) < 1e-7


def segment_segment(a, b, c, d) -> float:
    if segments_cross(a, b, c, d):
        return 0.0
    return min(point_segment(c, a, b), point_segment(d, a, b), point_segment(a, c, d), point_segment(b, c, d))


def edges(poly: np.ndarray):
    n = len(poly)
    return [(poly[i], poly[(i + 1) % n]) for i in range(n)]


def point_in_polygon(p, poly: np.ndarray) -> bool:
    """Even-odd rule; points on the boundary count as inside."""
    x, y = float(p[0]), float(p[1])
    inside = False
    for a, b in edges(poly):
        if point_segment((x, y), a, b) < 1e-7:
            return True
        if (a[1] > y) != (b[1] > y):
            xi = a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
            if xi > x:
                inside = not inside
    return inside


def segment_polygon(a, b, poly: np.ndarray) -> float:
    """Closest distance from segment ab to a polygon's area (0 when it touches or lies inside)."""
    if point_in_polygon(a, poly) or point_in_polygon(b, poly):
        return 0.0
    return min(segment_segment(a, b, p, q) for p, q in edges(poly))


def polygon_distance(p: np.ndarray, q: np.ndarray) -> float:
    """Closest distance between two polygons' areas: 0 when they touch or overlap."""
    if point_in_polygon(p[0], q) or point_in_polygon(q[0], p):
        return 0.0
    return min(segment_segment(a, b, c, d) for a, b in edges(p) for c, d in edges(q))


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
    """Convex polygons overlap by more than tol."""
    return penetration(p, q) > tol


def polygon_area_overlap(rect: np.ndarray, poly: np.ndarray, tol: float = 0.0) -> bool:
    """A (convex) rectangle reaches more than `tol` into a possibly concave polygon."""
    if tol <= 0:
        return polygon_distance(rect, poly) == 0.0
    shrunk = shrink(rect, tol)
    return polygon_distance(shrunk, poly) == 0.0


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


def segment_through_polygon(a, b, poly: np.ndarray) -> bool:
    """The segment ab passes through the polygon's interior (touching the outline is not enough)."""
    pts = [0.0, 1.0]
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    for p, q in edges(poly):
        e = q - p
        den = d[0] * e[1] - d[1] * e[0]
        if abs(den) < EPS:
            continue
        t = ((p[0] - a[0]) * e[1] - (p[1] - a[1]) * e[0]) / den
        s = ((p[0] - a[0]) * d[1] - (p[1] - a[1]) * d[0]) / den
        if -EPS <= t <= 1 + EPS and -EPS <= s <= 1 + EPS:
            pts.append(min(1.0, max(0.0, t)))
    pts = sorted(pts)
    for t0, t1 in zip(pts, pts[1:], strict=False):
        if t1 - t0 < 1e-6:
            continue
        mid = a + d * (t0 + t1) / 2
        if _strictly_inside(mid, poly):
            return True
    return False


def _strictly_inside(p, poly) -> bool:
    if min(point_segment(p, a, b) for a, b in edges(poly)) < 1e-6:
        return False
    return point_in_polygon(p, poly)


def polyline_cross(a, b, line: np.ndarray) -> bool:
    """The segment ab meets the polyline."""
    return any(segments_cross(a, b, line[i], line[i + 1]) for i in range(len(line) - 1))


def point_polyline(p, line: np.ndarray) -> float:
    if len(line) == 1:
        return float(np.hypot(*(np.asarray(p) - line[0])))
    return min(point_segment(p, line[i], line[i + 1]) for i in range(len(line) - 1))


def boundary_distance(p, poly: np.ndarray) -> float:
    return min(point_segment(p, a, b) for a, b in edges(poly))


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
