"""Movement (§5): move distances by type and going, measuring a move, PIP costs, second moves, interpenetration,
moving into contact and zones of control, rivers, squares, the Li <-> 2 Jäger exchange."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from common.errors import InputError
from rules.dbx import geom
from rules.dbx.contact import (
    aligned_opposite,
    angle_tol_deg,
    contact,
    distance_mm,
    enemies,
    friends,
    front_enemies,
    grouped_how,
    in_zoc,
    same_facing,
    zoc_screened,
)
from rules.dbx.model import DbxPiece, DbxPosition, base_size, corners, moved
from rules.dbx.options import DEFAULT, Options
from rules.dbx.sight import (
    features_under,
    front_in_river,
    impassable_under,
    in_bad_going,
    on_road,
    out_of_sight,
)
from rules.dbx.tables import GEN_FAR, GEN_NEAR, GENERAL_HIDES, IMPASSABLE, MOUNTED, RIVER_MOVE, SQUARE_MOVE

# §11 A4 the text list [L208-L218], the alternative to the table
_TEXT_MOVES = {"LR": 500, "Hu": 500, "Ul": 500, "Gen": 500, "Re": 400, "Km": 400, "DrK": 400, "Kü": 400,
               "Art": 300, "El": 300, "Hi": 300, "Jä": 300, "Pl": 300}


def allowance(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> tuple[int, str]:
    """§5.3 the move distance in paces for where the element stands now, and why."""
    ut = p.ut
    if p.type == "Camp":
        return 0, "the camp never moves (§2.2)"
    if p.square:
        return SQUARE_MOVE, "a square moves 100 paces (§5.11)"
    if front_in_river(pos, p) and pos.game.river != "shallow" and pos.game.weather not in ("E", "snow"):
        return RIVER_MOVE, "front edge in a river that is not a trickle: 100 paces (§5.3)"
    bad = in_bad_going(pos, p, opts)
    # §9.2 / §11 A8 snow drifts' "zufällige Bewegungsgeschwindigkeit" [L127]: the rulebook gives no mechanism, so
    # snow only makes the whole table bad going (sight.py); no random movement is rolled.
    if opts.move_distances == "text":  # A4 alternative
        if on_road(pos, p):
            return (500 if p.type in ("LR", "Hu", "Ul", "Gen") else 400), "along a road (text list, A4)"
        if bad:
            return (100 if p.type == "Art" else (200 if ut.cls == MOUNTED else _TEXT_MOVES.get(p.type, 200))), \
                "bad going (text list, A4)"
        return _TEXT_MOVES.get(p.type, 200), "good going (text list, A4)"
    if on_road(pos, p) and not bad:
        return ut.mv_road, f"{ut.name} along a road (§5.3)"
    if bad:
        return ut.mv_bad, f"{ut.name} in bad going (§5.3)"
    return ut.mv_good, f"{ut.name} in good going (§5.3)"


def general_of(pos: DbxPosition, p: DbxPiece) -> DbxPiece | None:
    gens = [g for g in pos.pieces if g.type == "Gen" and g.side == p.side]
    if p.command:
        gens = [g for g in gens if g.command == p.command or g.id == p.command]
    return gens[0] if gens else None


def pip_cost(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> tuple[int, list[str]]:
    """§5.1 1 PIP per element or group move, +1 for each extra condition (A1), none in the side's first bound."""
    why = ["1 PIP per tactical move (§5.1)"]
    cost = 1
    if opts.extra_pip_costs == "none" or p.side in pos.game.first_bound:
        return cost, why
    if opts.extra_pips_open_terrain_only and features_under(pos, p, opts):
        return cost, why
    if p.type == "El" or p.horde:
        cost += 1
        why.append("+1 elephants or hordes (§5.1)")
    if p.type != "Gen":
        g = general_of(pos, p)
        if g is None:
            cost += 1
            why.append("+1 its general has been removed (§5.1)")
        else:
            d = pos.scale.paces(distance_mm(pos, p, g))
            if d > GEN_FAR:
                cost += 1
                why.append(f"+1 more than 1200 paces from its general ({d:.0f}) (§5.1)")
            elif d > GEN_NEAR and out_of_sight(pos, p, g, opts):
                cost += 1
                why.append(f"+1 more than 600 paces from its general ({d:.0f}) and out of sight (§5.1)")
            hides = [t.id for t in features_under(pos, g, opts) if t.type in GENERAL_HIDES]
            if hides and out_of_sight(pos, p, g, opts):
                cost += 1
                why.append(f"+1 its general is inside {hides[0]} where they cannot see him (§5.1)")
    return cost, why


def corner_travel(before: list[DbxPiece], scale) -> np.ndarray:
    """§5.4 how far each of the 4 corners travels along a sequence of poses."""
    cs = [corners(p, scale) for p in before]
    return sum((np.hypot(*(b - a).T) for a, b in zip(cs, cs[1:], strict=False)), np.zeros(4))


def interpenetrates(mover: DbxPiece, friend: DbxPiece, pos: DbxPosition, opts: Options = DEFAULT) -> tuple[bool, str]:
    """§5.6 may the mover pass through this friend?"""
    if mover.type == "DrI":
        return True, "mounted infantry dragoons pass through all friends (§5.6)"
    if mover.ut.cls == MOUNTED and friend.type == "DrI":
        return True, "mounted pass through mounted-infantry dragoons (§5.6)"
    facing_ok = same_facing(pos, mover, friend, opts) or aligned_opposite(pos, mover, friend, opts)
    if (mover.ut.light or mover.type == "Art" or friend.ut.light or friend.type == "Art") and facing_ok:
        return True, "light troops and artillery pass or are passed facing the same or opposite way (§5.6)"
    if mover.ut.light and friend.type == "Art":
        return True, "light troops pass through artillery (§5.6)"
    return False, f"{mover.id} may not pass through {friend.id} (§5.6)"


def second_move(pos: DbxPosition, p: DbxPiece, end: DbxPiece, opts: Options = DEFAULT) -> tuple[bool, str]:
    """§5.5 who may move again in the same bound."""
    after = pos.with_pieces([end if q.id == p.id else q for q in pos.pieces])
    bb = pos.scale.bb_mm
    if p.type in ("LR", "Hu", "Ul"):
        far = all(distance_mm(pos, p, e) > bb for e in enemies(pos, p)) and all(
            distance_mm(after, end, e) > bb for e in enemies(after, end))
        return far, "light cavalry: starts and ends more than 1 BB from the enemy (§5.5)" if far else \
            "light cavalry may move again only starting and ending more than 1 BB from enemies (§5.5)"
    if p.type in ("Pl", "Jä"):
        ok = opts.skirmisher_second_move == "every" or p.side in pos.game.first_bound
        return ok, ("skirmishers in their 1st bound (§5.5, A13)" if ok
                    else "skirmishers move again only in their 1st bound (§5.5, A13)")
    if p.type == "St":
        cs = [contact(after, end, e, opts) for e in enemies(after, end)]
        if any(c.kind in ("front", "flank", "rear", "overlap") for c in cs):
            return True, "tribal warriors ending in contact or overlap (§5.5)"
        return False, "tribal warriors move again only into contact, overlap or rear support (§5.5)"
    if on_road(pos, p) and on_road(after, end):
        if any(contact(after, end, e, opts).kind for e in enemies(after, end)):
            return False, "a road move may not end in contact with the enemy (§5.5)"
        return True, "single elements and columns along a road (§5.5)"
    return False, f"{p.ut.name} may not move twice in a bound (§5.5)"


def check_move(pos: DbxPosition, pid: str, path: list[tuple[float, float]], heading: float | None,
               opts: Options = DEFAULT) -> dict:
    """§5 a single element's tactical move along centre waypoints, ending at `heading`: distance, cost, problems."""
    p = pos.piece(pid)
    if not path:
        raise InputError(f"move of {pid}: give at least one waypoint x,y")
    poses = [p] + [moved(p, x, y) for x, y in path]
    poses[-1] = moved(p, *path[-1], heading if heading is not None else p.heading_deg)
    travel = corner_travel(poses, pos.scale)
    front = float(max(travel[0], travel[1]))  # §5.4 the front corner travelling farthest
    allow, allow_why = allowance(pos, p, opts)
    problems: list[str] = []
    end = poses[-1]
    after = pos.with_pieces([end if q.id == pid else q for q in pos.pieces])
    free = free_move(pos, p, after, end, opts)
    if not free and float(travel.max()) > pos.scale.mm(allow) + opts.tolerance_mm:
        problems.append(f"a corner travels {pos.scale.paces(float(travel.max())):.0f} paces, more than {allow} (§5.4)")
    problems += end_problems(pos, p, poses, after, opts)
    problems += _withdrawal_problems(pos, p, end, travel, allow, opts)
    if p.moves >= 1:
        ok, why = second_move(pos, p, end, opts)
        if not ok:
            problems.append(why)
    cost, cost_why = pip_cost(pos, p, opts)
    out = {"piece": pid, "front_corner_paces": round(pos.scale.paces(front), 1),
           "corner_paces": [round(pos.scale.paces(float(t)), 1) for t in travel],
           "allowance_paces": allow, "allowance_reason": allow_why, "pip_cost": cost, "pip_reasons": cost_why,
           "legal": not problems, "problems": problems,
           "end": {"x_mm": round(end.x_mm, 2), "y_mm": round(end.y_mm, 2), "heading_deg": round(end.heading_deg, 2)}}
    if free:
        out["free_move"] = free
    return out


def free_move(pos: DbxPosition, p: DbxPiece, after: DbxPosition, end: DbxPiece, opts: Options = DEFAULT) -> str:
    """§5.4 moves that are not measured: an overlapping element pivoting 90 degrees to attack frontally the flank of
    the enemy it overlapped when that enemy is already in melee; an element moving out of its camp to end just
    outside it, in base contact with it. "" when the move is measured."""
    tol = opts.tolerance_mm
    if abs(geom.angle_diff(end.heading_deg, p.heading_deg) - 90.0) <= angle_tol_deg(pos.scale, opts):
        for e in enemies(pos, p):
            if contact(pos, p, e, opts).kind == "overlap" and front_enemies(pos, e, opts) \
                    and contact(after, end, after.piece(e.id), opts).kind == "flank":
                return f"pivots 90 degrees from overlapping {e.id} onto its flank: not measured (§5.4)"
    rect = corners(end, pos.scale)
    for c in pos.pieces:
        if c.type == "Camp" and c.side == p.side:
            rc = corners(c, pos.scale)
            if geom.penetration(corners(p, pos.scale), rc) > tol and geom.penetration(rect, rc) <= tol \
                    and geom.polygon_distance(rect, rc) <= tol:
                return f"moves out of its camp {c.id} to just outside it: not measured (§5.4)"
    return ""


def _end_place_problems(pos: DbxPosition, p: DbxPiece, end: DbxPiece, after: DbxPosition, rect: np.ndarray,
                        opts: Options) -> list[str]:
    """Off the table, in impassable terrain (§3.7), a square out of good going (§5.11)."""
    problems = []
    if (rect[:, 0].min() < -opts.tolerance_mm or rect[:, 1].min() < -opts.tolerance_mm
            or rect[:, 0].max() > pos.width_mm + opts.tolerance_mm
            or rect[:, 1].max() > pos.depth_mm + opts.tolerance_mm):
        problems.append("ends off the table")
    imp = impassable_under(pos, rect, opts)
    if imp:
        problems.append(f"ends in impassable terrain {imp[0]} (§3.7)")
    if p.square and in_bad_going(after, end, opts):
        problems.append("a square may never leave good going (§5.11)")
    return problems


def _through_others(pos: DbxPosition, p: DbxPiece, poses: list[DbxPiece], after: DbxPosition, rect: np.ndarray,
                    column: frozenset[str], opts: Options) -> list[str]:
    """§3.6 no stacking; §5.6 passing through friends (and never through enemies)."""
    problems = []
    moving = {q.id for q in after.pieces if pos.by_id.get(q.id) != q}
    for q in after.pieces:
        if q.id == p.id or q.id in column:
            continue
        if geom.penetration(rect, corners(q, pos.scale)) > opts.tolerance_mm:
            problems.append(f"ends on top of {q.id} (§3.6)")
            continue
        if q.id in moving:
            continue
        rq = corners(q, pos.scale)
        crossed = any(geom.penetration(corners(b, pos.scale), rq) > opts.tolerance_mm for b in poses[1:-1]) or \
            _swept(poses, rq, pos, opts)
        if crossed and distance_mm(pos, p, q) > opts.tolerance_mm:
            if q.side != p.side:
                problems.append(f"passes through enemy {q.id} (§5.4)")
            else:
                ok, why = interpenetrates(p, q, pos, opts)
                if not ok:
                    problems.append(why)
    return problems


def _withdraws_straight_back(p: DbxPiece, end: DbxPiece, opts: Options) -> bool:
    fwd, _ = geom.directions(p.heading_deg)
    step = np.array([end.x_mm - p.x_mm, end.y_mm - p.y_mm])
    return geom.angle_diff(end.heading_deg, p.heading_deg) < 1.0 and float(step @ fwd) < 0 and \
        abs(float(fwd[0] * step[1] - fwd[1] * step[0])) <= opts.tolerance_mm


def _contact_and_zoc(pos: DbxPosition, p: DbxPiece, end: DbxPiece, after: DbxPosition, opts: Options) -> list[str]:
    """§5.7 contact it may not make; §3.4 zones of control."""
    problems = []
    for e in enemies(after, end):
        c = contact(after, end, e, opts)
        if c.kind in ("front", "flank", "rear", "overlap", "corner") and not p.ut.can_contact \
                and distance_mm(pos, p, e) > opts.tolerance_mm:
            problems.append(f"{p.ut.name} may not move into contact with {e.id} (§5.7)")
        e0 = pos.piece(e.id)
        started_in = in_zoc(pos, p, e0, opts) and not zoc_screened(pos, p, e0, opts)
        ends_in = in_zoc(after, end, e, opts) and not zoc_screened(after, end, e, opts)  # §3.4 own element between
        facing_it = aligned_opposite(after, end, e, opts)
        if ends_in and not c.kind and not started_in and not facing_it:
            problems.append(f"ends in {e.id}'s zone of control without facing it parallel and opposite (§3.4)")
        # §3.4 / E6 inside a zone of control only: contact, turning to face, or withdrawing straight back
        if started_in and not c.kind and not facing_it and not _withdraws_straight_back(p, end, opts):
            problems.append(f"in {e.id}'s zone of control it may only contact it, turn to face it or withdraw "
                            "straight back (§3.4)")
    return problems


def end_problems(pos: DbxPosition, p: DbxPiece, poses: list[DbxPiece], after: DbxPosition,
                 opts: Options = DEFAULT, column: frozenset[str] = frozenset()) -> list[str]:
    """Where one element's move (poses from start to end) may not go: off the table, impassable terrain, onto or
    through others (§3.6, §5.6), into contact it may not make (§5.7), zones of control (§3.4). `after` holds every
    piece where it ends (the other members of a moving group too); `column`: the fellow members of a column, whose
    bases may still cross where the column bends along its leader's trail (§5.2)."""
    end = poses[-1]
    rect = corners(end, pos.scale)
    return (_end_place_problems(pos, p, end, after, rect, opts)
            + _through_others(pos, p, poses, after, rect, column, opts)
            + _contact_and_zoc(pos, p, end, after, opts))


def _withdrawal_problems(pos: DbxPosition, p: DbxPiece, end: DbxPiece, travel, allow: int,
                         opts: Options) -> list[str]:
    """§5.8 leaving a melee: only from a simple front-to-front contact with flanks and rear free; front kept toward the
    enemy, no change of direction, the full move distance, not ending in an enemy zone of control."""
    engaged = [e for e in enemies(pos, p) if contact(pos, e, p, opts).kind == "front"]
    if not engaged:
        return []
    out = []
    others = [e for e in enemies(pos, p) if contact(pos, e, p, opts).kind in ("flank", "rear", "overlap")]
    if others:
        out.append(f"may not withdraw: {others[0].id} is on its flank or rear (§5.8)")
    if geom.angle_diff(end.heading_deg, p.heading_deg) > 1.0:
        out.append("a withdrawal keeps its front toward the enemy (§5.8)")
    fwd, _ = geom.directions(p.heading_deg)
    step = np.array([end.x_mm - p.x_mm, end.y_mm - p.y_mm])
    if float(step @ fwd) >= 0 or abs(float(fwd[0] * step[1] - fwd[1] * step[0])) > opts.tolerance_mm:
        out.append("a withdrawal goes straight back (§5.8)")
    if float(travel.max()) < pos.scale.mm(allow) - opts.tolerance_mm:
        out.append(f"a withdrawal moves the full {allow} paces (§5.8)")
    after = pos.with_pieces([end if q.id == p.id else q for q in pos.pieces])
    zoc = [e.id for e in enemies(after, end) if in_zoc(after, end, e, opts)]
    if zoc:
        out.append(f"a withdrawal may not end in {zoc[0]}'s zone of control (§5.8)")
    return out


def _swept(poses: list[DbxPiece], rq: np.ndarray, pos: DbxPosition, opts: Options) -> bool:
    """Some intermediate spot on a straight leg overlaps the rectangle (sampled every few mm)."""
    for a, b in zip(poses, poses[1:], strict=False):
        n = max(2, int(np.hypot(b.x_mm - a.x_mm, b.y_mm - a.y_mm) / 3.0))
        for t in np.linspace(0, 1, n)[1:-1]:
            dh = (b.heading_deg - a.heading_deg + 180.0) % 360.0 - 180.0
            q = moved(a, a.x_mm + t * (b.x_mm - a.x_mm), a.y_mm + t * (b.y_mm - a.y_mm), a.heading_deg + t * dh)
            if geom.penetration(corners(q, pos.scale), rq) > opts.tolerance_mm:
                return True
    return False


def reachable(pos: DbxPosition, pid: str, opts: Options = DEFAULT, n: int = 48) -> list[tuple[float, float]]:
    """§5.3 / §5.4 the area the base centre can reach in one straight move keeping its facing (a ring of points),
    stopping short of other bases and impassable terrain (the dashboard's move allowance).

    Along each bearing the base steps out by reach / 40 (at least 1 mm) until a step would overlap another base by
    more than the tolerance or touch impassable terrain. All steps of a bearing are laid out at once (the same
    arithmetic as geom.rectangle); only bases whose bounding box meets a step's box are tested exactly."""
    p = pos.piece(pid)
    allow, _ = allowance(pos, p, opts)
    reach = pos.scale.mm(allow)
    tol = opts.tolerance_mm
    others = [corners(q, pos.scale) for q in pos.pieces if q.id != pid]
    oboxes = np.array([[o[:, 0].min(), o[:, 1].min(), o[:, 0].max(), o[:, 1].max()] for o in others]).reshape(-1, 4)
    weather = pos.game.weather
    walls = [t for t in pos.terrain if (t.type in IMPASSABLE and weather != "snow")
             or (t.type == "steep_hill" and weather == "E")]
    w, dep = base_size(p, pos.scale)
    fwd, right = geom.directions(p.heading_deg)
    f, rt = fwd * dep / 2.0, right * w / 2.0
    step = max(1.0, reach / 40)
    rs = []  # the distances tried, accumulated exactly as r += step
    r = 0.0
    while r + step <= reach + 1e-9:
        rs.append(r + step)
        r += step
    rs_arr = np.array(rs, float)
    margin = 1e-6
    out = []
    for ang in np.linspace(0, 360, n, endpoint=False):
        d = np.array([np.sin(np.radians(ang)), np.cos(np.radians(ang))])
        lo = 0.0
        if rs:
            cx = p.x_mm + d[0] * rs_arr
            cy = p.y_mm + d[1] * rs_arr
            c = np.stack([cx, cy], axis=1)  # as moved() + geom.rectangle: c + f - r, c + f + r, c - f + r, c - f - r
            rects = np.stack([c + f - rt, c + f + rt, c - f + rt, c - f - rt], axis=1)
            lo_xy = rects.min(axis=1)
            hi_xy = rects.max(axis=1)
            if len(others):
                gap = np.maximum.reduce([lo_xy[:, None, 0] - oboxes[None, :, 2],
                                         oboxes[None, :, 0] - hi_xy[:, None, 0],
                                         lo_xy[:, None, 1] - oboxes[None, :, 3],
                                         oboxes[None, :, 1] - hi_xy[:, None, 1]])
                near = gap <= margin
            else:
                near = np.zeros((len(rs), 0), bool)
            for k in range(len(rs)):
                rq = rects[k]
                hit = any(geom.penetration(rq, others[j]) > tol for j in np.flatnonzero(near[k]))
                if hit or (walls and impassable_under(pos, rq, opts)):
                    break
                lo = rs[k]
        out.append((p.x_mm + d[0] * lo, p.y_mm + d[1] * lo))
    return out


# ---------------------------------------------------------------- rivers, squares, exchanges (§5.9-§5.11)


def form_square(pos: DbxPosition, pid: str, partner: str | None = None, markers: int | None = None,
                opts: Options = DEFAULT) -> DbxPosition:
    """§5.11 1 PIP: a 1-element square stays put (1 marker); a 2-element square puts the partner back to back."""
    p = pos.piece(pid)
    if p.ut.cls == MOUNTED or p.type in ("Art", "Gen", "Camp"):
        raise InputError(f"{pid}: only foot form squares (§5.11)")
    if any(contact(pos, e, p, opts).kind for e in enemies(pos, p)):
        raise InputError(f"{pid}: cannot form a square in contact with the enemy (§5.11)")
    if partner is None:
        new = [replace(q, square=markers or 1) if q.id == pid else q for q in pos.pieces]
        return pos.with_pieces(new)
    f = pos.piece(partner)
    if f.side != p.side:
        raise InputError(f"{partner}: not a friend of {pid}")
    fwd, _ = geom.directions(p.heading_deg)

    _, d1 = base_size(p, pos.scale)
    _, d2 = base_size(f, pos.scale)
    c = np.array([p.x_mm, p.y_mm]) - fwd * (d1 + d2) / 2
    m = markers or 2
    if not 2 <= m <= 5:
        raise InputError(f"{pid}: a square of two bases carries 2 to 5 markers (§5.11)")
    new = []
    for q in pos.pieces:
        if q.id == pid:
            q = replace(q, square=m)
        elif q.id == partner:
            q = moved(q, c[0], c[1], p.heading_deg + 180.0, square=m)
        new.append(q)
    return pos.with_pieces(new)


def swap_line_jaeger(pos: DbxPosition, pid: str, new_id: str | None = None, opts: Options = DEFAULT) -> DbxPosition:
    """§5.10 (optional, 1 PIP per element): a Li becomes 2 Jäger (one in its place, one beside it), or 2 Jäger in
    base contact become 1 Li; never in contact with the enemy before or after."""
    p = pos.piece(pid)
    if any(contact(pos, e, p, opts).kind for e in enemies(pos, p)):
        raise InputError(f"{pid}: no exchange in contact with the enemy (§5.10)")
    _, right = geom.directions(p.heading_deg)
    if p.type == "Li":
        jid = new_id or f"{pid}-b"
        if jid in pos.by_id:
            raise InputError(f"{jid}: already on the table")
        first = replace(p, type="Jä", code="Jä", quality="")
        c = np.array([p.x_mm, p.y_mm]) + right * pos.scale.bb_mm
        second = moved(replace(first, id=jid), c[0], c[1])
        after = pos.with_pieces([first if q.id == pid else q for q in pos.pieces] + [second])
        for q in pos.pieces:
            if q.id != pid and geom.penetration(corners(second, pos.scale), corners(q, pos.scale)) > opts.tolerance_mm:
                raise InputError(f"{pid}: no room for the second Jäger beside it ({q.id} is there) (§5.10)")
        if any(contact(after, second, e, opts).kind for e in enemies(after, second)):
            raise InputError(f"{pid}: the second Jäger would touch the enemy (§5.10)")
        return after
    if p.type == "Jä":
        mates = [q for q in friends(pos, p) if q.type == "Jä" and distance_mm(pos, p, q) <= opts.tolerance_mm]
        if new_id:
            mates = [q for q in mates if q.id == new_id]
        if not mates:
            raise InputError(f"{pid}: needs a second Jäger element in base contact to become line infantry (§5.10)")
        li = replace(p, type="Li", code="Li")
        return pos.with_pieces([li if q.id == pid else q for q in pos.pieces if q.id != mates[0].id])
    raise InputError(f"{pid}: only line infantry and Jäger exchange (§5.10)")


def turn_to_face(pos: DbxPosition, pid: str, attacker: str, opts: Options = DEFAULT) -> DbxPosition:
    """§3.5 / A9 a flank- or rear-contacted element turns to face its attacker at the end of the movement phase.
    §3.5 [L289] when the attacker's front meets the flanks of 2 enemies one behind the other, both turn and the
    front one stays in front (in contact with the attacker, the other directly behind it)."""
    p, a = pos.piece(pid), pos.piece(attacker)
    c = contact(pos, a, p, opts)
    if c.kind not in ("flank", "rear"):
        raise InputError(f"{attacker} is not in flank or rear contact with {pid} (§3.5)")
    pair: list[DbxPiece] = [p]
    if opts.contact_turns == "mover":
        p, a = a, p
    elif c.kind == "flank":
        for d in enemies(pos, a):
            how = grouped_how(pos, p, d, opts) if d.id != p.id else None
            if how in ("ahead", "behind") and contact(pos, a, d, opts).kind == "flank":
                pair = [p, d] if how == "behind" else [d, p]  # front element first
                break

    fwd, _ = geom.directions(a.heading_deg)
    _, da = base_size(a, pos.scale)
    new, at = {}, np.array([a.x_mm, a.y_mm]) + fwd * da / 2
    for q in (pair if opts.contact_turns != "mover" else [p]):
        _, dq = base_size(q, pos.scale)
        ctr = at + fwd * dq / 2
        new[q.id] = moved(q, ctr[0], ctr[1], a.heading_deg + 180.0)
        at = at + fwd * dq
    return pos.with_pieces([new.get(q.id, q) for q in pos.pieces])
