"""How two bases stand to each other (§3.3-§3.6): distance, contact type, overlaps, zone of control, groups.

Every test allows `opts.tolerance_mm`: edges and corners closer than that touch, bases overlapping less than that
do not overlap. Corners are ordered front-left, front-right, rear-right, rear-left (geom.rectangle).

§13 "let the user confirm borderline contacts": a piece the camera measured carries `uncertainty_mm` (one standard
deviation, rules/position.py). A contact whose measured gaps and offsets lie within UNCERTAIN_SIGMAS standard
deviations of the pair (in quadrature) of the tolerance, that is, whose kind or validity would change with the
tolerance that much narrower or wider, is `uncertain`: it is still classified as measured, and flagged rather than
silently taken. Without an uncertainty (a position file, a record) every contact is as it was.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from rules.dbx import geom
from rules.dbx.model import DbxPiece, DbxPosition, Scale, base_size, corners
from rules.dbx.options import DEFAULT, Options

UNCERTAIN_SIGMAS = 2.0
"""A contact is uncertain when the tolerance moved by this many standard deviations of the pair's measure (95 %)
would classify it otherwise (§13)."""

CONTACT_UNCERTAIN = "contact uncertain: the camera's measure is within its uncertainty of the tolerance, confirm it"

EDGE_NAMES = ("front", "right", "rear", "left")  # edge i runs from corner i to corner i+1
CONTACT_OF_EDGE = {"front": "front", "right": "flank", "rear": "rear", "left": "flank"}


def angle_tol_deg(scale: Scale, opts: Options) -> float:
    """Two facings are 'the same' when the far corner of a base width is off by no more than the tolerance."""
    return math.degrees(math.atan2(2.0 * opts.tolerance_mm, scale.bb_mm)) + 0.5


def distance_mm(pos: DbxPosition, a: DbxPiece, b: DbxPiece) -> float:
    """§3 shortest distance between two base rectangles (0 when they touch or overlap)."""
    return geom.polygon_distance(corners(a, pos.scale), corners(b, pos.scale))


def _line_dist(p, a, b) -> float:
    """Signed-free perpendicular distance of p from the infinite line ab."""
    d = b - a
    n = float(np.hypot(*d))
    return abs(float(d[0] * (p[1] - a[1]) - d[1] * (p[0] - a[0]))) / n


def _extent_overlap(p0, p1, a, b) -> float:
    """Length by which segment p0p1 projected on ab overlaps ab."""
    d = b - a
    n = float(np.hypot(*d))
    u = d / n
    s0, s1 = sorted((float((p0 - a) @ u), float((p1 - a) @ u)))
    return min(s1, n) - max(s0, 0.0)


def _on_edge(seg0, seg1, a, b, tol: float) -> bool:
    """Segment seg0-seg1 lies along the edge a-b (both ends within tol of its line, overlapping it by > tol)."""
    return _line_dist(seg0, a, b) <= tol and _line_dist(seg1, a, b) <= tol and _extent_overlap(seg0, seg1, a, b) > tol


@dataclass(frozen=True)
class Contact:
    """How the acting element's front meets the target (§3.5)."""

    kind: str | None  # "front", "flank", "rear", "corner", "overlap" or None when apart
    edge: str | None = None  # the target's edge: front/left/right/rear (for an overlap: the target's side)
    valid: bool = False  # §3.5 a legal melee contact: full front to front, or a front corner at the target's corner
    aligned: bool = False  # corners meet exactly (within tolerance)
    intersect: bool = False  # §3.6 the bases overlap each other (an error)
    detail: str = ""
    uncertain: bool = False  # §13 within the pieces' measuring uncertainty of the tolerance: for the user to confirm


def pair_sigma_mm(a: DbxPiece, b: DbxPiece) -> float:
    """One standard deviation (mm) of the measured offset between a and b: their uncertainties in quadrature (an
    unknown one counts 0)."""
    return math.hypot(a.uncertainty_mm or 0.0, b.uncertainty_mm or 0.0)


def contact(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT) -> Contact:
    """§3.5 the target's edge that a's front edge touches; "overlap" for the overlap position; "corner" for any
    other touching; None when apart. §13 `uncertain` when the tolerance UNCERTAIN_SIGMAS standard deviations of the
    pair's measure (`pair_sigma_mm`) narrower or wider classifies it otherwise (kind, edge or validity)."""
    c = _contact(pos, a, b, opts.tolerance_mm)
    reach = UNCERTAIN_SIGMAS * pair_sigma_mm(a, b)
    if reach <= 0.0:
        return c
    key = (c.kind, c.edge, c.valid)
    for tol in (max(0.0, opts.tolerance_mm - reach), opts.tolerance_mm + reach):
        o = _contact(pos, a, b, tol)
        if (o.kind, o.edge, o.valid) != key:
            return replace(c, uncertain=True)
    return c


def _contact(pos: DbxPosition, a: DbxPiece, b: DbxPiece, tol: float) -> Contact:
    """§3.5 the contact of a's front on b with the tolerance `tol` (mm)."""
    ra, rb = corners(a, pos.scale), corners(b, pos.scale)
    if geom.polygon_apart(ra, rb, tol):  # polygon_distance > tol, early out on the bounding boxes
        return Contact(None)
    inter = geom.penetration(ra, rb) > tol
    fa = (ra[0], ra[1])
    fwd_a, _ = geom.directions(a.heading_deg)
    fwd_b, right_b = geom.directions(b.heading_deg)
    normals = {"front": fwd_b, "right": right_b, "rear": -fwd_b, "left": -right_b}
    for i, name in enumerate(EDGE_NAMES):
        e0, e1 = rb[i], rb[(i + 1) % 4]
        if float(fwd_a @ normals[name]) > -0.95:  # a must face into this edge
            continue
        if not _on_edge(fa[0], fa[1], e0, e1, tol):
            continue
        kind = CONTACT_OF_EDGE[name]
        if name == "front":  # §3.5 exactly front edge to front edge, full width
            aligned = _near(ra[0], rb[1], tol) and _near(ra[1], rb[0], tol)
            valid = aligned
        elif name == "rear":
            aligned = _near(ra[0], rb[3], tol) and _near(ra[1], rb[2], tol)
            valid = aligned
        else:  # §3.5 / E9 flank: a front corner of the attacker at a front corner of the target
            aligned = any(_near(c, k, tol) for c in fa for k in (rb[0], rb[1]))
            valid = aligned
        return Contact(kind, name, valid, aligned, inter)
    if _overlapping(ra, rb, a, b, tol):
        side = "left" if float((ra.mean(axis=0) - rb.mean(axis=0)) @ right_b) < 0 else "right"
        return Contact("overlap", side, False, True, inter)
    return Contact("corner", None, False, False, inter)


def _near(p, q, tol: float) -> bool:
    return float(np.hypot(*(p - q))) <= tol


def _overlapping(ra, rb, a: DbxPiece, b: DbxPiece, tol: float) -> bool:
    """§3.5 / A10 overlap: side by side facing opposite ways, front corner to front corner along one front line;
    or flank edge along flank edge ("opposing elements whose flanks touch always overlap")."""
    fwd_a, _ = geom.directions(a.heading_deg)
    fwd_b, _ = geom.directions(b.heading_deg)
    if float(fwd_a @ fwd_b) < -0.95:
        on_line = _line_dist(ra[0], rb[0], rb[1]) <= tol and _line_dist(ra[1], rb[0], rb[1]) <= tol
        corner = any(_near(c, k, tol) for c in (ra[0], ra[1]) for k in (rb[0], rb[1]))
        if on_line and corner and _extent_overlap(ra[0], ra[1], rb[0], rb[1]) <= tol:
            return True
    if abs(float(fwd_a @ fwd_b)) > 0.95:
        for fa in ((ra[1], ra[2]), (ra[3], ra[0])):
            for fb in ((rb[1], rb[2]), (rb[3], rb[0])):
                if _on_edge(fa[0], fa[1], fb[0], fb[1], tol):
                    return True
    return False


def touching(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT) -> bool:
    return distance_mm(pos, a, b) <= opts.tolerance_mm


def enemies(pos: DbxPosition, a: DbxPiece) -> list[DbxPiece]:
    return [p for p in pos.pieces if p.side != a.side]


def friends(pos: DbxPosition, a: DbxPiece) -> list[DbxPiece]:
    return [p for p in pos.pieces if p.side == a.side and p.id != a.id]


def front_enemies(pos: DbxPosition, a: DbxPiece, opts: Options = DEFAULT) -> list[DbxPiece]:
    """Enemies in front-to-front contact with a (either one's front on the other's front)."""
    out = []
    for e in enemies(pos, a):
        c = contact(pos, e, a, opts)
        if c.kind == "front":
            out.append(e)
    return out


def in_melee(pos: DbxPosition, a: DbxPiece, opts: Options = DEFAULT) -> bool:
    """§6.12 in melee front to front."""
    return bool(front_enemies(pos, a, opts))


def overlaps_on(pos: DbxPosition, b: DbxPiece, opts: Options = DEFAULT) -> list[tuple[DbxPiece, Contact]]:
    """Enemies overlapping b or in flank/rear contact with it, each with b's side; §3.5 one per flank counts."""
    out = []
    for e in enemies(pos, b):
        c = contact(pos, e, b, opts)
        if c.kind == "overlap":
            if b.square and e.ut.cls == "mounted":  # §3.5 / §8.7 mounted cannot overlap a square
                continue
            if not opts.overlap_while_engaged and in_melee(pos, e, opts):  # A10 literal reading
                continue
            out.append((e, c))
        elif c.kind in ("flank", "rear") and c.valid:
            out.append((e, c))
    return out


def zoc_rect(pos: DbxPosition, b: DbxPiece, opts: Options = DEFAULT) -> np.ndarray:
    """§3.4 / A29 the zone of control: 1 BB deep in front of b's front edge, as wide as that edge (or widened)."""
    w, d = base_size(b, pos.scale)
    bb = pos.scale.bb_mm
    width = w + (2 * bb if opts.zoc_extent == "widened" else 0.0)
    fwd, _ = geom.directions(b.heading_deg)
    cx, cy = np.array([b.x_mm, b.y_mm]) + fwd * (d / 2 + bb / 2)
    return geom.rectangle(cx, cy, b.heading_deg, width, bb)


def in_zoc(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT) -> bool:
    """§3.4 a stands in b's zone of control (reaches more than the tolerance into it)."""
    if b.type in ("Camp",):
        return False
    return geom.overlaps(corners(a, pos.scale), zoc_rect(pos, b, opts), opts.tolerance_mm)


def zoc_screened(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT) -> bool:
    """§3.4 a, inside enemy b's zone of control, "is separated from that enemy by one of its own elements": every
    straight line from a's part of the zone to b's front edge passes through a friend of a."""
    zr = zoc_rect(pos, b, opts)
    ra = corners(a, pos.scale)
    pts = [q for q in geom.sample_rect(geom.shrink(ra, opts.tolerance_mm)) if geom.point_in_polygon(q, zr)]
    pts = pts or [q for q in geom.sample_rect(zr) if geom.point_in_polygon(q, ra)]
    if not pts:
        return False
    rb = corners(b, pos.scale)
    fwd, _ = geom.directions(b.heading_deg)
    screens = [corners(f, pos.scale) for f in friends(pos, a)]
    for q in pts:
        foot = q - fwd * float((q - rb[0]) @ fwd)  # straight back to the line of b's front edge
        if not any(geom.segment_through_polygon(q, foot, r) for r in screens):
            return False
    return True


def aligned_opposite(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT) -> bool:
    """§3.4 an intruder in a zone of control must stand parallel and opposite the enemy."""
    return geom.angle_diff(a.heading_deg, (b.heading_deg + 180.0) % 360.0) <= angle_tol_deg(pos.scale, opts)


def same_facing(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT) -> bool:
    return geom.angle_diff(a.heading_deg, b.heading_deg) <= angle_tol_deg(pos.scale, opts)


def grouped_how(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT) -> str | None:
    """§3.3 how a and b are grouped: "side" (side edge to side edge), "behind" (b's front on a's rear edge),
    "ahead" (a's front on b's rear edge), or None; always the same facing."""
    if a.side != b.side or not same_facing(pos, a, b, opts):
        return None
    tol = opts.tolerance_mm
    ra, rb = corners(a, pos.scale), corners(b, pos.scale)

    def meet(p, q, r, s):
        return _near(p, q, tol) and _near(r, s, tol)

    if meet(ra[1], rb[0], ra[2], rb[3]) or meet(ra[0], rb[1], ra[3], rb[2]):
        return "side"
    if meet(rb[0], ra[3], rb[1], ra[2]):
        return "behind"
    if meet(ra[0], rb[3], ra[1], rb[2]):
        return "ahead"
    return None


def grouped(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT) -> bool:
    """§3.3 full edge contact (side to side, or front to rear) and the same facing."""
    return grouped_how(pos, a, b, opts) is not None


def groups(pos: DbxPosition, opts: Options = DEFAULT) -> list[list[str]]:
    """§3.3 the groups of a position (connected by full edge contact with the same facing), largest first."""
    ids = [p.id for p in pos.pieces if p.type not in ("Camp",)]
    parent = {i: i for i in ids}

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    ps = [pos.by_id[i] for i in ids]
    for i, a in enumerate(ps):
        for b in ps[i + 1:]:
            if grouped(pos, a, b, opts):
                parent[find(a.id)] = find(b.id)
    out: dict[str, list[str]] = {}
    for i in ids:
        out.setdefault(find(i), []).append(i)
    return sorted(out.values(), key=lambda g: (-len(g), g[0]))


def group_of(pos: DbxPosition, a: DbxPiece, opts: Options = DEFAULT) -> list[str]:
    for g in groups(pos, opts):
        if a.id in g:
            return g
    return [a.id]


def directly_behind(pos: DbxPosition, a: DbxPiece, opts: Options = DEFAULT) -> DbxPiece | None:
    """The friend whose front edge is on a's rear edge, same facing, full width (§8.3 / §8.4 rear support)."""
    tol = opts.tolerance_mm
    ra = corners(a, pos.scale)
    for f in friends(pos, a):
        rf = corners(f, pos.scale)
        if same_facing(pos, a, f, opts) and _near(rf[0], ra[3], tol) and _near(rf[1], ra[2], tol):
            return f
    return None


def flank_touching(pos: DbxPosition, a: DbxPiece, f: DbxPiece, opts: Options = DEFAULT) -> bool:
    """f stands against one of a's side edges (any of its edges along a's flank)."""
    tol = opts.tolerance_mm
    ra, rf = corners(a, pos.scale), corners(f, pos.scale)
    for s0, s1 in ((ra[1], ra[2]), (ra[3], ra[0])):
        for i in range(4):
            if _on_edge(rf[i], rf[(i + 1) % 4], s0, s1, tol) or _on_edge(s0, s1, rf[i], rf[(i + 1) % 4], tol):
                return True
    return False


def behind_line(pos: DbxPosition, a: DbxPiece, t: DbxPiece, opts: Options = DEFAULT) -> bool:
    """§6.7 / §8.3 flank fire: a lies entirely behind the line of t's front edge."""
    rt = corners(t, pos.scale)
    fwd, _ = geom.directions(t.heading_deg)
    ra = corners(a, pos.scale)
    return bool(np.all((ra - rt[0]) @ fwd < opts.tolerance_mm))


def flank_or_rear_attackers(pos: DbxPosition, b: DbxPiece, opts: Options = DEFAULT) -> list[tuple[DbxPiece, str]]:
    out = []
    for e in enemies(pos, b):
        c = contact(pos, e, b, opts)
        if c.kind in ("flank", "rear"):
            out.append((e, c.kind))
    return out
