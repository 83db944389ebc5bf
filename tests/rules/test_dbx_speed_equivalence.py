"""The fast DBX geometry (float arithmetic, bounding-box early outs, cached corners, laid-out reachable steps) gives
exactly the answers of the straightforward numpy versions it replaced (kept here as `_reference` functions)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dbx import geom
from rules.dbx.contact import contact
from rules.dbx.model import base_size, corners, moved, position_from_dict
from rules.dbx.movement import allowance, reachable
from rules.dbx.options import DEFAULT
from rules.dbx.sight import impassable_under

EPS = geom.EPS


def same(a, b) -> bool:
    """Equal answers: booleans and counts exactly, distances to the last bits of a float (numpy's own releases
    differ there: 32.462694834216485 against 32.46269483421649)."""
    if isinstance(a, float | np.floating) or isinstance(b, float | np.floating):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-9)
    return a == b

# ---------------------------------------------------------------- the reference versions (as before the speed-up)


def point_segment_reference(p, a, b) -> float:
    p, a, b = (np.asarray(v, float) for v in (p, a, b))
    ab = b - a
    n = float(ab @ ab)
    t = 0.0 if n < EPS else min(1.0, max(0.0, float((p - a) @ ab) / n))
    return float(np.hypot(*(a + t * ab - p)))


def _orient(a, b, c) -> float:
    return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


def segments_cross_reference(a, b, c, d) -> bool:
    o1, o2, o3, o4 = _orient(a, b, c), _orient(a, b, d), _orient(c, d, a), _orient(c, d, b)
    if o1 * o2 < -EPS * EPS and o3 * o4 < -EPS * EPS and min(abs(o1), abs(o2), abs(o3), abs(o4)) > EPS:
        return True
    ps = point_segment_reference
    return min(ps(c, a, b), ps(d, a, b), ps(a, c, d), ps(b, c, d)) < 1e-7


def segment_segment_reference(a, b, c, d) -> float:
    if segments_cross_reference(a, b, c, d):
        return 0.0
    ps = point_segment_reference
    return min(ps(c, a, b), ps(d, a, b), ps(a, c, d), ps(b, c, d))


def point_in_polygon_reference(p, poly) -> bool:
    x, y = float(p[0]), float(p[1])
    inside = False
    for a, b in geom.edges(poly):
        if point_segment_reference((x, y), a, b) < 1e-7:
            return True
        if (a[1] > y) != (b[1] > y):
            xi = a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
            if xi > x:
                inside = not inside
    return inside


def segment_polygon_reference(a, b, poly) -> float:
    if point_in_polygon_reference(a, poly) or point_in_polygon_reference(b, poly):
        return 0.0
    return min(segment_segment_reference(a, b, p, q) for p, q in geom.edges(poly))


def polygon_distance_reference(p, q) -> float:
    if point_in_polygon_reference(p[0], q) or point_in_polygon_reference(q[0], p):
        return 0.0
    return min(segment_segment_reference(a, b, c, d) for a, b in geom.edges(p) for c, d in geom.edges(q))


def polygon_area_overlap_reference(rect, poly, tol: float = 0.0) -> bool:
    if tol <= 0:
        return polygon_distance_reference(rect, poly) == 0.0
    return polygon_distance_reference(geom.shrink(rect, tol), poly) == 0.0


def _strictly_inside_reference(p, poly) -> bool:
    if min(point_segment_reference(p, a, b) for a, b in geom.edges(poly)) < 1e-6:
        return False
    return point_in_polygon_reference(p, poly)


def segment_through_polygon_reference(a, b, poly) -> bool:
    pts = [0.0, 1.0]
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    for p, q in geom.edges(poly):
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
        if _strictly_inside_reference(a + d * (t0 + t1) / 2, poly):
            return True
    return False


def polyline_cross_reference(a, b, line) -> bool:
    return any(segments_cross_reference(a, b, line[i], line[i + 1]) for i in range(len(line) - 1))


def boundary_distance_reference(p, poly) -> float:
    return min(point_segment_reference(p, a, b) for a, b in geom.edges(poly))


def reachable_reference(pos, pid: str, opts=DEFAULT, n: int = 48) -> list[tuple[float, float]]:
    p = pos.piece(pid)
    allow, _ = allowance(pos, p, opts)
    reach = pos.scale.mm(allow)
    others = [corners(q, pos.scale) for q in pos.pieces if q.id != pid]
    out = []
    for ang in np.linspace(0, 360, n, endpoint=False):
        d = np.array([np.sin(np.radians(ang)), np.cos(np.radians(ang))])
        step = max(1.0, reach / 40)
        r = 0.0
        while r + step <= reach + 1e-9:
            q = moved(p, p.x_mm + d[0] * (r + step), p.y_mm + d[1] * (r + step))
            rq = geom.rectangle(q.x_mm, q.y_mm, q.heading_deg, *_size(q, pos))
            if any(geom.penetration(rq, o) > opts.tolerance_mm for o in others) or impassable_under(pos, rq, opts):
                break
            r += step
        out.append((p.x_mm + d[0] * r, p.y_mm + d[1] * r))
    return out


def _size(q, pos):
    return base_size(q, pos.scale)


# ---------------------------------------------------------------- random inputs

coord = st.floats(-60, 60, allow_nan=False, width=64)
snap = st.sampled_from([0.0, 20.0, -20.0, 40.0, 15.0, 10.0])
xy = st.one_of(coord, snap)
point = st.tuples(xy, xy)


@st.composite
def rect(draw):
    x, y = draw(xy), draw(xy)
    h = draw(st.one_of(st.sampled_from([0.0, 90.0, 180.0, 270.0, 45.0]), st.floats(0, 360, width=64)))
    w, d = draw(st.sampled_from([(40.0, 15.0), (40.0, 20.0), (20.0, 40.0), (40.0, 30.0)]))
    return geom.rectangle(x, y, h, w, d)


@st.composite
def polygon(draw):
    kind = draw(st.sampled_from(["rect", "oval", "tri", "concave"]))
    if kind == "rect":
        return draw(rect())
    if kind == "oval":
        return geom.oval(draw(xy), draw(xy), draw(st.floats(5, 50)), draw(st.floats(5, 50)), draw(st.floats(0, 360)))
    if kind == "tri":
        return np.array([draw(point), draw(point), draw(point)], float)
    cx, cy = draw(xy), draw(xy)
    return np.array([[cx, cy], [cx + 40, cy], [cx + 40, cy + 40], [cx + 20, cy + 10], [cx, cy + 40]], float)


# ---------------------------------------------------------------- geometry


@settings(max_examples=300, deadline=None)
@given(point, point, point, point)
def test_segments_and_points(p, a, b, c):
    assert same(geom.point_segment(p, a, b), point_segment_reference(p, a, b))
    assert same(geom.segments_cross(p, a, b, c), segments_cross_reference(p, a, b, c))
    assert same(geom.segment_segment(p, a, b, c), segment_segment_reference(p, a, b, c))


@settings(max_examples=300, deadline=None)
@given(polygon(), polygon(), point, point, st.sampled_from([0.0, 0.5, 1.0, 2.0]))
def test_polygons(p, q, a, b, tol):
    assert same(geom.point_in_polygon(a, q), point_in_polygon_reference(a, q))
    assert same(geom.point_in_polygon(q[1], q), point_in_polygon_reference(q[1], q))
    assert same(geom.segment_polygon(a, b, q), segment_polygon_reference(a, b, q))
    assert same(geom.polygon_distance(p, q), polygon_distance_reference(p, q))
    assert geom.polygon_apart(p, q, tol) == (polygon_distance_reference(p, q) > tol)
    assert same(geom.segment_through_polygon(a, b, q), segment_through_polygon_reference(a, b, q))
    assert same(geom.segment_through_polygon(p[0], q[2], q), segment_through_polygon_reference(p[0], q[2], q))
    assert same(geom.polyline_cross(a, b, q), polyline_cross_reference(a, b, q))
    assert same(geom.boundary_distance(a, q), boundary_distance_reference(a, q))
    assert same(geom.point_polyline(a, q), min(point_segment_reference(a, q[i], q[i + 1]) for i in range(len(q) - 1)))


@settings(max_examples=300, deadline=None)
@given(rect(), rect(), polygon(), st.sampled_from([0.0, 0.5, 1.0]))
def test_rectangles(r1, r2, poly, tol):
    assert geom.overlaps(r1, r2, tol) == (geom.penetration(r1, r2) > tol)
    assert same(geom.polygon_area_overlap(r1, poly, tol), polygon_area_overlap_reference(r1, poly, tol))


# ---------------------------------------------------------------- positions

TYPES = ["Li", "Jä", "Kü", "Hu", "Art", "Gen", "Pl", "Ck"]


@st.composite
def position(draw):
    n = draw(st.integers(2, 6))
    pieces = []
    for i in range(n):
        x = draw(st.one_of(st.sampled_from([260.0, 280.0, 300.0, 320.0, 340.0]), st.floats(220, 380)))
        y = draw(st.one_of(st.sampled_from([200.0, 215.0, 220.0, 230.0, 240.0]), st.floats(160, 280)))
        h = draw(st.one_of(st.sampled_from([0.0, 90.0, 180.0, 270.0]), st.floats(0, 359)))
        side, kind = draw(st.sampled_from(["blue", "red"])), draw(st.sampled_from(TYPES))
        pieces.append({"id": f"p{i}", "side": side, "type": kind, "x_mm": x, "y_mm": y, "heading_deg": h})
    terrain = [{"id": "w1", "type": "wood", "polygon": geom.oval(300, 300, 50, 30).round(2).tolist()},
               {"id": "h1", "type": "gentle_hill", "polygon": geom.oval(260, 160, 60, 35).round(2).tolist()}]
    if draw(st.booleans()):
        terrain.append({"id": "x1", "type": "waterway", "line": [[200, 250], [400, 260]], "width_mm": 20})
    return position_from_dict({"system": "dbx", "terrain": terrain, "pieces": pieces}, "hypothesis")


def contact_reference(pos, a, b, opts=DEFAULT):
    """The old order: penetration first, then the distance (the early out must not change the answer)."""
    ra, rb = corners(a, pos.scale), corners(b, pos.scale)
    if polygon_distance_reference(ra, rb) > opts.tolerance_mm:
        return None
    return geom.penetration(ra, rb) > opts.tolerance_mm


@settings(max_examples=60, deadline=None)
@given(position())
def test_contacts_corners_and_reach(pos):
    for p in pos.pieces:
        w, d = _size(p, pos)
        assert np.array_equal(corners(p, pos.scale), geom.rectangle(p.x_mm, p.y_mm, p.heading_deg, w, d))
        for q in pos.pieces:
            if q.id != p.id:
                c = contact(pos, p, q)
                ref = contact_reference(pos, p, q)
                assert (c.kind is None) == (ref is None)
                if ref is not None:
                    assert c.intersect == ref
    p = pos.pieces[0]
    got = reachable(pos, p.id, n=12)
    ref = reachable_reference(pos, p.id, n=12)
    assert len(got) == len(ref)
    for g, r in zip(got, ref, strict=True):
        assert same(float(g[0]), float(r[0])) and same(float(g[1]), float(r[1])), (g, r)
    assert all(math.isfinite(v) for g in got for v in g)
