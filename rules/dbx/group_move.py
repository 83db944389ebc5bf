"""Group moves as a whole (§5.2, §5.4): straight ahead, wheeling about a front corner, sideways to conform, and
columns following their leading element.

A group move is given as the path of one member (the leader: for a column its front element) with its facing
at each waypoint; the other members keep their places relative to it (a line) or follow its trail (a column).
Which elements move together is the player's choice (§3.3 groups are temporary and may break up), so a group
move is asked for explicitly, never assumed from the elements touching.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from common.choices import split_ids
from common.errors import InputError
from rules.dbx import geom
from rules.dbx.contact import contact, distance_mm, enemies, grouped_how, groups
from rules.dbx.model import DbxPiece, DbxPosition, corners, moved
from rules.dbx.movement import allowance, corner_travel, end_problems, pip_cost, second_move, turn_to_face
from rules.dbx.options import DEFAULT, Options
from rules.dbx.sight import front_in_river, in_bad_going, on_road
from rules.dbx.tables import BAD_GOING

_SKIRMISHERS = ("Jä", "Pl")  # §5.2 "Jäger or skirmishers may also move as a group through bad going"


def group_members(pos: DbxPosition, leader: str, spec: str) -> list[str]:
    """`all` = the leader's whole §3.3 group; otherwise the listed ids (the leader is added)."""
    pos.piece(leader)
    if spec.strip() == "all":
        return next(g for g in groups(pos) + [[leader]] if leader in g)
    ids = split_ids(spec)
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
    problems += _group_contact_problems(after, members, opts)
    turns = _turns_to_face(after, members, opts)
    costs = {m.id: pip_cost(pos, m, opts) for m in members}  # §5.1 1 PIP for the group, extras if any member has
    worst = max(members, key=lambda m: costs[m.id][0])
    front = max(float(max(t[0], t[1])) for t in travel.values())
    still = any(set(ids) <= set(g) for g in groups(after, opts))
    return {"group": list(ids), "leader": leader, "formation": "column" if column is not None else "line",
            "manoeuvres": names, "front_corner_paces": round(pos.scale.paces(front), 1),
            "corner_paces": {k: [round(pos.scale.paces(float(x)), 1) for x in t] for k, t in travel.items()},
            "allowance_paces": allow, "allowance_reason": f"{slow.id}: {allow_why}",
            "pip_cost": costs[worst.id][0], "pip_reasons": costs[worst.id][1],
            "still_a_group": still, "legal": not problems, "problems": problems, "turns_to_face": turns,
            "ends": {k: {"x_mm": round(v[-1].x_mm, 2), "y_mm": round(v[-1].y_mm, 2),
                         "heading_deg": round(v[-1].heading_deg, 2)} for k, v in poses.items()}}


_LIGHT_CAVALRY = ("LR", "Hu", "Ul")  # A3 hussars and uhlans count as light cavalry


def _group_contact_problems(after: DbxPosition, members: list[DbxPiece], opts: Options) -> list[str]:
    """§5.7 a group moving into contact: at least one member touches the enemy with its full front on the enemy's
    front or rear edge; otherwise only as an overlap of an enemy already in melee."""
    ids = {m.id for m in members}
    touching, full, overlaps_only = [], False, True
    for m in members:
        me = after.piece(m.id)
        for e in enemies(after, me):
            c = contact(after, me, e, opts)
            if not c.kind:
                continue
            touching.append(e.id)
            if c.kind in ("front", "rear") and c.valid:
                full = True
            if c.kind != "overlap" or not any(contact(after, f, e, opts).kind in ("front", "flank", "rear")
                                              for f in enemies(after, e) if f.id not in ids):
                overlaps_only = False
    if touching and not full and not overlaps_only:
        return [f"the group touches {', '.join(dict.fromkeys(touching))} but no member meets an enemy with its full "
                "front on the enemy's front or rear edge (§5.7)"]
    return []


def _turns_to_face(after: DbxPosition, members: list[DbxPiece], opts: Options) -> list[dict]:
    """§5.7 Jäger in normal terrain and light cavalry contacted by an enemy group turn to face it at once, unless
    they are part of a group of their own."""
    out, seen = [], set()
    grouped = {i for g in groups(after, opts) if len(g) > 1 for i in g}
    for m in members:
        me = after.piece(m.id)
        for e in enemies(after, me):
            if e.id in seen or e.id in grouped:
                continue
            jaeger = e.type == "Jä" and not in_bad_going(after, e, opts)
            if not (jaeger or e.type in _LIGHT_CAVALRY):
                continue
            c = contact(after, me, e, opts)
            if c.kind in ("flank", "rear"):
                seen.add(e.id)
                out.append({"piece": e.id, "toward": me.id, "contact": c.kind,
                            "rule": "Jäger in normal terrain and light cavalry turn to face an enemy group (§5.7)"})
    return out


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


def _obstacles_beside(pos: DbxPosition, ids: set[str], end: DbxPiece, width: float, length: float,
                      opts: Options) -> tuple[list[str], list[str]]:
    """§5.2 what stands to the left and to the right of a 1-element-wide column: troops, bad going, rivers and
    waterways inside the strips between the column and the frontage the group had (width), over `length` from the
    column's rear to beyond its front. Returns (left ids, right ids)."""
    bb = pos.scale.bb_mm
    fwd, right = geom.directions(end.heading_deg)
    half = max(width / 2.0, bb / 2.0 + 1.0)
    front = np.array([end.x_mm, end.y_mm]) + fwd * (base_depth(pos, end) / 2.0)
    out = ([], [])
    for k, sgn in enumerate((-1.0, 1.0)):
        a, b = right * sgn * (bb / 2.0 + opts.tolerance_mm), right * sgn * half
        strip = np.array([front + fwd * bb + a, front + fwd * bb + b, front - fwd * length + b,
                          front - fwd * length + a])
        for q in pos.pieces:
            if q.id not in ids and geom.overlaps(strip, corners(q, pos.scale), opts.tolerance_mm):
                out[k].append(q.id)
        for t in pos.terrain:
            if (t.type in BAD_GOING or t.type in ("river", "waterway", "fortress")) and t.touches_rect(strip):
                out[k].append(t.id)
    return out


def base_depth(pos: DbxPosition, p: DbxPiece) -> float:
    r = corners(p, pos.scale)
    return float(np.hypot(*(r[0] - r[3])))


def _column_change_kind(before_col, after_col) -> tuple[str, list[str]]:
    """§5.2 / E4 forming a column, leaving one or neither (and why the latter two are no group move)."""
    if before_col is not None and after_col is None:
        return "leaving a column", ["widening a column's front again is no group manoeuvre: single-element moves, "
                                    "1 PIP each (§5.2, E4)"]
    if before_col is None and after_col is not None:
        return "forming a column", []
    return "no change of formation", ["the group neither forms nor leaves a 1-element-wide column (§5.2)"]


def _members_in_melee(pos: DbxPosition, members: list[DbxPiece], opts: Options) -> list[str]:
    """§5.2 no member may start in melee contact with an enemy."""
    problems = []
    for m in members:
        for e in enemies(pos, m):
            if contact(pos, e, m, opts).kind in ("front", "flank", "rear") or \
                    contact(pos, m, e, opts).kind in ("front", "flank", "rear"):
                problems.append(f"{m.id} starts in melee contact with {e.id}: no group move (§5.2)")
                break
    return problems


def _column_member_moves(pos: DbxPosition, after: DbxPosition, members: list[DbxPiece], new: dict[str, DbxPiece],
                         ids: list[str], ends: dict, opts: Options) -> tuple[dict[str, list[float]], list[str]]:
    """§5.4 each member's corner travel (paces) and what is wrong with its move: beyond its distance, ending
    behind its start (E2), or the end problems of any single move."""
    fwd, _ = geom.directions(members[0].heading_deg)
    corner_paces = {}
    problems: list[str] = []
    for m in members:
        end = new[m.id]
        travel = corner_travel([m, end], pos.scale)
        corner_paces[m.id] = [round(pos.scale.paces(float(x)), 1) for x in travel]
        allow, why = allowance(pos, m, opts)
        if float(travel.max()) > pos.scale.mm(allow) + opts.tolerance_mm:  # §5.4 each within its distance (E2)
            problems.append(f"{m.id}: a corner travels {pos.scale.paces(float(travel.max())):.0f} paces, more than "
                            f"{allow} ({why}) (§5.4)")
        back = float(np.array([end.x_mm - m.x_mm, end.y_mm - m.y_mm]) @ fwd)
        if back < -opts.tolerance_mm:  # §5.4 / E2 no element may end behind its original starting position
            problems.append(f"{m.id} ends {pos.scale.paces(-back):.0f} paces behind its original starting position "
                            "(§5.4)")
        if m.id in ends:
            problems += [f"{m.id}: {x}" for x in end_problems(pos, m, [m, end], after, opts,
                                                               frozenset(i for i in ids if i != m.id))]
    return corner_paces, problems


def _column_purpose(pos: DbxPosition, after: DbxPosition, members: list[DbxPiece], head: DbxPiece, ids: list[str],
                    opts: Options) -> tuple[str, list[str]]:
    """§5.2 a group forms a column only to pass a gap of at least 1 element width, or to file onto a road."""
    _, right = geom.directions(members[0].heading_deg)
    rights = [float(np.array([p.x_mm, p.y_mm]) @ right) for p in members]
    width = max(rights) - min(rights) + pos.scale.bb_mm
    if on_road(after, head):
        return "files onto a road", []
    length = base_depth(pos, head) * len(members) + pos.scale.mm(allowance(pos, head, opts)[0])
    left, rgt = _obstacles_beside(after, set(ids), head, width, length, opts)
    if left and rgt:
        return f"passes the gap between {left[0]} and {rgt[0]}", []
    return "", ["a group forms a column only to pass a gap between 2 terrain pieces or troops or to file onto a road "
                "(§5.2)"]


def check_column_change(pos: DbxPosition, ids: list[str], ends: dict[str, tuple[float, float, float]],
                        opts: Options = DEFAULT) -> dict:
    """§5.2 / §5.4 forming a 1-element-wide column within one group move (E2, E4), or leaving one.

    `ends` gives each member's end pose (x_mm, y_mm, heading_deg); members not listed stay put. Forming is one
    group move for 1 PIP when the elements are one group before and after (E4), the group was not a column and
    ends as one, no member starts in melee (§5.2), each member stays within its move distance measured by its
    corners (§5.4), **no element ends behind its original starting position** (§5.4, E2), and the column files
    onto a road or passes a gap (troops or terrain on both sides, narrower than the group's frontage) (§5.2).
    Leaving a column (widening the front again) is no group manoeuvre: it needs single-element moves, 1 PIP each
    (§5.2 "no other group body-moves or realignments", E4 "several PIPs")."""
    members = [pos.piece(i) for i in ids]
    if len(members) < 2:
        raise InputError("a column change needs a group of at least two elements (§3.3)")
    for k in ends:
        if k not in ids:
            raise InputError(f"{k}: not a member of the group {','.join(ids)}")
    if not _connected(pos, members, opts):
        raise InputError(f"group {','.join(ids)}: not one group (full edge contact, same facing) (§3.3)")
    new = {m.id: moved(m, *ends[m.id]) if m.id in ends else m for m in members}
    after = pos.with_pieces([new.get(q.id, q) for q in pos.pieces])
    finals = [new[m.id] for m in members]
    problems: list[str] = []
    before_col = _column_order(pos, members, opts)
    after_col = _column_order(after, finals, opts) if _connected(after, finals, opts) else None
    if not _connected(after, finals, opts):
        problems.append("the elements do not form one group at the end: not one group move (§5.2, E4)")
    moving = [m for m in members if new[m.id] != m]
    kind, why_not = _column_change_kind(before_col, after_col)
    problems += why_not
    problems += _members_in_melee(pos, members, opts)
    corner_paces, bad_moves = _column_member_moves(pos, after, members, new, ids, ends, opts)
    problems += bad_moves
    purpose = ""
    if kind == "forming a column":
        purpose, no_purpose = _column_purpose(pos, after, members, new[after_col[0].id], ids, opts)
        problems += no_purpose
    costs = {m.id: pip_cost(pos, m, opts) for m in members}
    worst = max(members, key=lambda m: costs[m.id][0])
    group_ok = not problems
    return {"group": list(ids), "change": kind, "purpose": purpose, "legal": group_ok, "problems": problems,
            "formation_after": "column" if after_col is not None else "line",
            "corner_paces": corner_paces,
            "pip_cost": costs[worst.id][0] if kind != "leaving a column" else len(moving),
            "pip_reasons": costs[worst.id][1] if kind != "leaving a column" else
            [f"{len(moving)} single-element moves (§5.2, E4)"],
            "ends": {m.id: {"x_mm": round(new[m.id].x_mm, 2), "y_mm": round(new[m.id].y_mm, 2),
                            "heading_deg": round(new[m.id].heading_deg, 2)} for m in members}}


def apply_group_move(pos: DbxPosition, result: dict) -> DbxPosition:
    """The position after a checked legal group move; each member has made one more tactical move (§5.5)."""
    ends = result["ends"]
    out = []
    for q in pos.pieces:
        if q.id in ends:
            e = ends[q.id]
            q = replace(moved(q, e["x_mm"], e["y_mm"], e["heading_deg"]), moves=q.moves + 1)
        out.append(q)
    after = pos.with_pieces(out)
    for t in result.get("turns_to_face", ()):  # §5.7 the contacted Jäger / light cavalry turn at once
        after = turn_to_face(after, t["piece"], t["toward"])
    return after
