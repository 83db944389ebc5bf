"""Group moves as a whole (§5.2, §5.4): straight ahead, wheeling about a front corner, sideways to conform, and
columns following their leading element.

A group move is given as the path of one member (the leader: for a column its front element) with its facing
at each waypoint; the other members keep their places relative to it (a line) or follow its trail (a column).
Which elements move together is the player's choice (§3.3 groups are temporary and may break up), so a group
move is asked for explicitly, never assumed from the elements touching.
"""

from __future__ import annotations

import math

import numpy as np

from fieldglass.errors import InputError
from rules.dbx import geom
from rules.dbx.contact import contact, distance_mm, enemies, grouped_how, groups
from rules.dbx.model import DbxPiece, DbxPosition, corners, moved
from rules.dbx.movement import allowance, corner_travel, end_problems, pip_cost, second_move
from rules.dbx.options import DEFAULT, Options
from rules.dbx.sight import front_in_river, in_bad_going, on_road

_SKIRMISHERS = ("Jä", "Pl")  # §5.2 "Jäger or skirmishers may also move as a group through bad going"


def group_members(pos: DbxPosition, leader: str, spec: str) -> list[str]:
    """`all` = the leader's whole §3.3 group; otherwise the listed ids (the leader is added)."""
    pos.piece(leader)
    if spec.strip() == "all":
        return next(g for g in groups(pos) + [[leader]] if leader in g)
    ids = [s.strip() for s in spec.split(",") if s.strip()]
    for i in ids:
        pos.piece(i)
    return list(dict.fromkeys([leader] + ids))


def _connected(pos: DbxPosition, members: list[DbxPiece], opts: Options) -> bool:
    seen, todo = {members[0].id}, [members[0]]
    while todo:
        a = todo.pop()
        for b in members:
            if b.id not in seen and grouped_how(pos, a, b, opts):
                seen.add(b.id)
                todo.append(b)
    return len(seen) == len(members)


def _column_order(pos: DbxPosition, members: list[DbxPiece], opts: Options) -> list[DbxPiece] | None:
    """§5.2 a column 1 element wide, front element first; None when the group is not one."""
    if any(grouped_how(pos, a, b, opts) == "side" for a in members for b in members if a.id != b.id):
        return None
    behind = {a.id: b for a in members for b in members if a.id != b.id and grouped_how(pos, a, b, opts) == "behind"}
    heads = [m for m in members if not any(b.id == m.id for b in behind.values())]
    if len(heads) != 1:
        return None
    out = [heads[0]]
    while out[-1].id in behind:
        out.append(behind[out[-1].id])
    return out if len(out) == len(members) else None


def _front_corners(pos: DbxPosition, members: list[DbxPiece], opts: Options) -> tuple[np.ndarray, np.ndarray]:
    """The group's outer front corners: the front rank's left end and right end."""
    fwd, right = geom.directions(members[0].heading_deg)
    rects = {m.id: corners(m, pos.scale) for m in members}
    front = max(float(r[0] @ fwd) for r in rects.values())
    rank = [r for r in rects.values() if float(r[0] @ fwd) >= front - opts.tolerance_mm]
    left = min((r[0] for r in rank), key=lambda c: float(c @ right))
    rgt = max((r[1] for r in rank), key=lambda c: float(c @ right))
    return left, rgt


def _rotate(v: np.ndarray, deg: float) -> np.ndarray:
    """Turn a vector clockwise by deg (compass sense)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([c * v[0] + s * v[1], -s * v[0] + c * v[1]])


def _apply(p: DbxPiece, pivot: np.ndarray, deg: float, shift: np.ndarray) -> DbxPiece:
    c = pivot + _rotate(np.array([p.x_mm, p.y_mm]) - pivot, deg) + shift
    return moved(p, float(c[0]), float(c[1]), p.heading_deg + deg)


def _line_legs(pos: DbxPosition, members: list[DbxPiece], legs: list[DbxPiece], opts: Options):
    """§5.2 a line group: each leg straight ahead, a wheel about a front corner, or sideways up to 1/2 BB to line up
    with an enemy front within 1 BB. Returns every member's poses, corner travel (mm) and the manoeuvres."""
    bb, tol = pos.scale.bb_mm, opts.tolerance_mm
    poses = {m.id: [m] for m in members}
    travel = {m.id: np.zeros(4) for m in members}
    names, problems = [], []
    for a, b in zip(legs, legs[1:], strict=False):
        now = [poses[m.id][-1] for m in members]
        deg = (b.heading_deg - a.heading_deg + 180.0) % 360.0 - 180.0
        fwd, right = geom.directions(a.heading_deg)
        if abs(deg) < 0.5:
            d = np.array([b.x_mm - a.x_mm, b.y_mm - a.y_mm])
            ahead, side = float(d @ fwd), float(d @ right)
            if abs(side) <= tol and ahead >= -tol:
                names.append(f"straight ahead {pos.scale.paces(ahead):.0f} paces")
            elif abs(side) <= bb / 2 + tol and abs(ahead) <= tol and _enemy_front_near(pos, now, opts):
                names.append(f"sideways {pos.scale.paces(abs(side)):.0f} paces to line up with the enemy")
            else:
                problems.append("a group moves only straight ahead or wheels about a front corner; sideways only "
                                "up to 1/2 BB to line up with an enemy front within 1 BB (§5.2)")
                names.append("not a group manoeuvre")
            for m in now:
                nxt = moved(m, m.x_mm + d[0], m.y_mm + d[1])
                poses[m.id].append(nxt)
                travel[m.id] = travel[m.id] + float(np.hypot(*d))
            continue
        # a wheel: one outer front corner of the group stays where it is (§5.2 "wheel about a front corner")
        left, rgt = _front_corners(pos, now, opts)
        lead_now = next(m for m in now if m.id == legs[0].id)
        pivot = None
        for name, c in (("left", left), ("right", rgt)):
            rel = c - np.array([lead_now.x_mm, lead_now.y_mm])
            moved_c = np.array([b.x_mm, b.y_mm]) + _rotate(rel, deg)
            if float(np.hypot(*(moved_c - c))) <= 2 * tol:
                pivot = (name, c)
                break
        if pivot is None:
            problems.append("a group wheels only about one of its front corners (§5.2)")
            names.append("not a group manoeuvre")
            shift = np.array([b.x_mm, b.y_mm]) - (np.array([lead_now.x_mm, lead_now.y_mm]))
            centre = np.array([lead_now.x_mm, lead_now.y_mm])
            for m in now:
                nxt = _apply(m, centre, deg, shift)
                poses[m.id].append(nxt)
                travel[m.id] = travel[m.id] + corner_travel([m, nxt], pos.scale)
            continue
        side, c = pivot
        names.append(f"wheels {abs(deg):.0f} degrees about its front-{side} corner")
        for m in now:
            nxt = _apply(m, c, deg, np.zeros(2))
            poses[m.id].append(nxt)
            radii = np.hypot(*(corners(m, pos.scale) - c).T)
            travel[m.id] = travel[m.id] + radii * math.radians(abs(deg))  # §5.4 corners travel along arcs
    return poses, travel, names, problems


def _enemy_front_near(pos: DbxPosition, members: list[DbxPiece], opts: Options) -> bool:
    """§5.2 an enemy front within 1 BB of the group's front (facing it)."""
    after = pos.with_pieces([next((m for m in members if m.id == q.id), q) for q in pos.pieces])
    for m in members:
        for e in enemies(after, m):
            if geom.angle_diff(m.heading_deg, e.heading_deg + 180.0) <= 45.0 and \
                    distance_mm(after, m, e) <= pos.scale.bb_mm + opts.tolerance_mm:
                return True
    return False


def _point_at(trail: list[np.ndarray], s: float) -> tuple[np.ndarray, np.ndarray]:
    """The point at arc length s along a polyline and the direction of its segment there."""
    for a, b in zip(trail, trail[1:], strict=False):
        n = float(np.hypot(*(b - a)))
        if n < 1e-9:
            continue
        if s <= n + 1e-9:
            return a + (b - a) * (s / n), (b - a) / n
        s -= n
    a, b = trail[-2], trail[-1]
    return b, (b - a) / max(float(np.hypot(*(b - a))), 1e-9)


def _column_legs(pos: DbxPosition, column: list[DbxPiece], legs: list[DbxPiece]):
    """§5.2 a column: the followers follow the leading element along its trail (each wheeling where it wheeled)."""
    lead = column[0]
    trail = [np.array([m.x_mm, m.y_mm]) for m in reversed(column)] + [np.array([q.x_mm, q.y_mm]) for q in legs[1:]]
    at = {}
    s = 0.0
    for m, nxt in zip(reversed(column), list(reversed(column))[1:] + [None], strict=False):
        at[m.id] = s
        if nxt is not None:
            s += float(np.hypot(nxt.x_mm - m.x_mm, nxt.y_mm - m.y_mm))
    run = sum(float(np.hypot(*(b - a))) for a, b in zip(trail[len(column) - 1:], trail[len(column):], strict=False))
    poses, travel = {}, {}
    for m in column:
        if m.id == lead.id:
            seq = list(legs)
        else:
            seq = [m]
            for k in range(1, 21):
                pt, u = _point_at(trail, at[m.id] + run * k / 20)
                seq.append(moved(m, float(pt[0]), float(pt[1]), geom.heading_of(u) if run > 1e-9 else m.heading_deg))
        poses[m.id] = seq
        travel[m.id] = corner_travel(seq, pos.scale)
    return poses, travel, ["the column follows its leading element"], []


def check_group_move(pos: DbxPosition, ids: list[str], leader: str, path: list[tuple[float, float]],
                     headings: list[float | None], opts: Options = DEFAULT) -> dict:
    """§5.2 / §5.4 a group's move as a whole, given by the leader's centre waypoints and facings (None = as
    before): manoeuvres, the corner that travels farthest, the slowest member's allowance, 1 PIP, problems."""
    if not path:
        raise InputError(f"move of {leader}: give at least one waypoint x,y")
    members = [pos.piece(i) for i in ids]
    if len(members) < 2:
        raise InputError(f"group move of {leader}: a group has at least two elements (§3.3)")
    if not _connected(pos, members, opts):
        raise InputError(f"group {','.join(ids)}: not one group (full edge contact, same facing) (§3.3)")
    lead = pos.piece(leader)
    column = _column_order(pos, members, opts)
    if column is not None and column[0].id != leader:
        raise InputError(f"group move of {leader}: a column follows its leading element {column[0].id} (§5.2)")
    legs, h = [lead], lead.heading_deg
    for (x, y), hh in zip(path, list(headings) + [None] * (len(path) - len(headings)), strict=False):
        h = h if hh is None else hh
        legs.append(moved(lead, x, y, h))
    problems: list[str] = []
    for m in members:  # §5.2 no member may start in melee contact with an enemy
        for e in enemies(pos, m):
            if contact(pos, e, m, opts).kind in ("front", "flank", "rear") or \
                    contact(pos, m, e, opts).kind in ("front", "flank", "rear"):
                problems.append(f"{m.id} starts in melee contact with {e.id}: no group move (§5.2)")
                break
    if column is not None:
        poses, travel, names, probs = _column_legs(pos, column, legs)
    else:
        poses, travel, names, probs = _line_legs(pos, members, legs, opts)
    problems += probs
    after = pos.with_pieces([poses[q.id][-1] if q.id in poses else q for q in pos.pieces])
    # §5.3 the group moves at its slowest member's rate; §5.4 no corner beyond the allowance
    allows = {m.id: allowance(pos, m, opts) for m in members}
    slow = min(members, key=lambda m: allows[m.id][0])
    allow, allow_why = allows[slow.id]
    far = max(float(t.max()) for t in travel.values())
    if far > pos.scale.mm(allow) + opts.tolerance_mm:
        problems.append(f"a corner travels {pos.scale.paces(far):.0f} paces, more than {allow} ({slow.id}) (§5.4)")
    # §5.2 column only along roads, through bad going, across a river that is not shallow
    why_column = _column_only(pos, members, poses, lead, opts)
    if why_column and column is None:
        problems.append(f"{why_column}: a group moves there only as a column 1 element wide (§5.2)")
    for m in members:
        bent = frozenset(x.id for x in members if x.id != m.id) if column is not None else frozenset()
        problems += [f"{m.id}: {x}" for x in end_problems(pos, m, poses[m.id], after, opts, bent)]
        if m.moves >= 1:
            ok, why = second_move(pos, m, poses[m.id][-1], opts)
            if not ok:
                problems.append(f"{m.id}: {why}")
    costs = {m.id: pip_cost(pos, m, opts) for m in members}  # §5.1 1 PIP for the group, extras if any member has
    worst = max(members, key=lambda m: costs[m.id][0])
    front = max(float(max(t[0], t[1])) for t in travel.values())
    still = any(set(ids) <= set(g) for g in groups(after, opts))
    return {"group": list(ids), "leader": leader, "formation": "column" if column is not None else "line",
            "manoeuvres": names, "front_corner_paces": round(pos.scale.paces(front), 1),
            "corner_paces": {k: [round(pos.scale.paces(float(x)), 1) for x in t] for k, t in travel.items()},
            "allowance_paces": allow, "allowance_reason": f"{slow.id}: {allow_why}",
            "pip_cost": costs[worst.id][0], "pip_reasons": costs[worst.id][1],
            "still_a_group": still, "legal": not problems, "problems": problems,
            "ends": {k: {"x_mm": round(v[-1].x_mm, 2), "y_mm": round(v[-1].y_mm, 2),
                         "heading_deg": round(v[-1].heading_deg, 2)} for k, v in poses.items()}}


def _column_only(pos: DbxPosition, members: list[DbxPiece], poses: dict, lead: DbxPiece, opts: Options) -> str:
    """§5.2 why this group move must be made as a column ("" when it need not)."""
    end = poses[lead.id][-1]
    after = pos.with_pieces([poses[q.id][-1] if q.id in poses else q for q in pos.pieces])
    if on_road(pos, lead) and on_road(after, end):
        return "along a road"
    skirmishers = all(m.type in _SKIRMISHERS for m in members)
    frozen = pos.game.weather in ("E", "snow")
    for m in members:
        for q in poses[m.id]:
            view = pos.with_pieces([q if x.id == m.id else x for x in pos.pieces])
            if not skirmishers and in_bad_going(view, q, opts):
                return f"{m.id} in bad going"
            if pos.game.river != "shallow" and not frozen and front_in_river(view, q):
                return f"{m.id} crosses a river that is not shallow"
    return ""


def apply_group_move(pos: DbxPosition, result: dict) -> DbxPosition:
    """The position after a checked legal group move; each member has made one more tactical move (§5.5)."""
    from dataclasses import replace

    ends = result["ends"]
    out = []
    for q in pos.pieces:
        if q.id in ends:
            e = ends[q.id]
            q = replace(moved(q, e["x_mm"], e["y_mm"], e["heading_deg"]), moves=q.moves + 1)
        out.append(q)
    return pos.with_pieces(out)
