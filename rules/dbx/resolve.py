"""Resolving combat and its reaction moves (§8.2-§8.9), victory and demoralisation (§9.3, §9.6).

Each action returns a `Resolution`: both sides' dice and totals, the outcome from the results table, the
geometric consequences as `changes` (recoil, flight, destruction, pushes, pursuit, misfire recoils) and the
position after.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from common.dice import Dice
from common.errors import InputError
from rules.dbx import geom
from rules.dbx.combat import (
    Side,
    fire_eligible_supporters,
    fire_sides,
    melee_check,
    melee_side,
    outcome,
)
from rules.dbx.contact import aligned_opposite, contact, directly_behind, front_enemies, same_facing
from rules.dbx.model import DbxPiece, DbxPosition, base_size, corners, moved, position_to_dict
from rules.dbx.movement import allowance, interpenetrates, turn_to_face
from rules.dbx.options import DEFAULT, Options
from rules.dbx.sight import (
    bad_going_features,
    camp_phase,
    fire_range,
    fire_target_check,
    impassable_under,
    in_bad_going,
    range_mm,
)
from rules.dbx.tables import MOUNTED, river_type, torrent_crossing


def _pose(p: DbxPiece) -> dict:
    return {"x_mm": round(p.x_mm, 2), "y_mm": round(p.y_mm, 2), "heading_deg": round(p.heading_deg, 2)}


class _State:
    """The pieces while an action is applied; ends as a new position."""

    def __init__(self, pos: DbxPosition, opts: Options):
        self.base = pos
        self.opts = opts
        self.pieces: dict[str, DbxPiece] = {p.id: p for p in pos.pieces}
        self.changes: list[dict] = []
        self.game = pos.game

    def view(self) -> DbxPosition:
        return replace(self.base, pieces=tuple(self.pieces.values()), game=self.game)

    def set(self, p: DbxPiece, change: str, text: str) -> None:
        old = self.pieces[p.id]
        self.pieces[p.id] = p
        self.changes.append({"piece": p.id, "change": change, "from": _pose(old), "to": _pose(p), "text": text})

    def remove(self, pid: str, change: str, text: str) -> None:
        p = self.pieces.pop(pid)
        self.changes.append({"piece": pid, "change": change, "from": _pose(p), "text": text})
        if p.type == "Gen" and not self.opts.general_counts_as_lost:
            return
        lost = dict(self.game.lost)
        for key in {p.side, p.command} - {""}:
            lost[key] = lost.get(key, 0) + 1
        if p.type == "Camp":
            self.game = replace(self.game, camp_sacked=tuple(sorted(set(self.game.camp_sacked) | {p.side})))
            lost[p.side] = lost.get(p.side, 0) - 1  # counted through camp_sacked (§9.6, A21)
        self.game = replace(self.game, lost=tuple(sorted(lost.items())))


@dataclass
class Resolution:
    action: str
    attacker: str
    target: str | None
    sides: dict = field(default_factory=dict)
    outcome: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    dice: list[int] = field(default_factory=list)
    seed: int | None = None
    changes: list[dict] = field(default_factory=list)
    after: DbxPosition | None = None
    victory: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        out = {"action": self.action, "attacker": self.attacker, "target": self.target, "dice": self.dice,
               "seed": self.seed}
        out.update(self.sides)
        out["outcome"] = self.outcome
        out["notes"] = self.notes
        out["changes"] = self.changes
        out["victory"] = self.victory
        out["position"] = position_to_dict(self.after) if self.after is not None else None
        return out


def roll_pair(dice: Dice) -> tuple[int, int]:
    """§8.2 / §8.4 each side rolls 1D6, the acting element first."""
    return dice.d6(), dice.d6()


def _side_dict(s: Side, die: int) -> dict:
    return {"id": s.piece.id, "die": die, "factor": s.cf, "modifiers": [m.as_dict() for m in s.modifiers],
            "net_modifier": s.net, "total": s.total(die)}


# ---------------------------------------------------------------- reaction moves (§8.6)


def _blocked_by(st: _State, mover: DbxPiece, rect: np.ndarray, exclude: set[str]) -> list[DbxPiece]:
    tol = st.opts.tolerance_mm
    return [q for q in st.pieces.values() if q.id not in exclude and q.id != mover.id
            and geom.penetration(rect, corners(q, st.base.scale)) > tol]


def _off_table(st: _State, rect: np.ndarray) -> bool:
    t = st.opts.tolerance_mm
    return bool(rect[:, 0].min() < -t or rect[:, 1].min() < -t or rect[:, 0].max() > st.base.width_mm + t
                or rect[:, 1].max() > st.base.depth_mm + t)


def _swept_rect(p: DbxPiece, scale, u: np.ndarray, dist: float) -> np.ndarray:
    """The area a base sweeps moving straight by dist along u (u along its own axis)."""
    w, d = base_size(p, scale)
    fwd, _ = geom.directions(p.heading_deg)
    along = abs(float(u @ fwd)) > 0.5
    c = np.array([p.x_mm, p.y_mm]) + u * dist / 2
    if along:
        return geom.rectangle(c[0], c[1], p.heading_deg, w, d + dist)
    return geom.rectangle(c[0], c[1], p.heading_deg, w + dist, d)


def _push(st: _State, p: DbxPiece, u: np.ndarray, dist: float, why: str, depth: int = 0) -> bool:
    """Move p by dist along u, pushing friends that may be pushed (§8.6); False (and nothing moved) if it cannot."""
    snapshot = (dict(st.pieces), list(st.changes), st.game)
    ok = _push_inner(st, p, u, dist, why, depth)
    if not ok:
        st.pieces, st.changes, st.game = snapshot
    return ok


def _push_inner(st: _State, p: DbxPiece, u: np.ndarray, dist: float, why: str, depth: int,
                label: str = "recoil") -> bool:
    scale, opts = st.base.scale, st.opts
    end = moved(p, p.x_mm + u[0] * dist, p.y_mm + u[1] * dist)
    rect = corners(end, scale)
    if impassable_under(st.base, rect, opts) or depth > 6:
        return False
    swept = _swept_rect(p, scale, u, dist)
    for q in _blocked_by(st, p, swept, set()):
        if q.side != p.side:
            return False  # §8.6 it would meet enemy elements
        if q.type == "Art" or (p.ut.cls == MOUNTED and q.type != "Li") or p.type == "DrI":
            rq = corners(q, scale)
            if geom.penetration(rect, rq) <= opts.tolerance_mm:
                continue  # §5.6 / §8.6 passes through
            if depth < 6:  # it cannot stop on the friend: it goes on until just beyond it
                extra = _clearance(end, rq, u, scale, 0.0)
                return _push_inner(st, p, u, dist + extra + 0.01, why + " through " + q.id, depth + 1, label)
        if same_facing(st.base, p, q, opts) or aligned_opposite(st.base, p, q, opts) or q.ut.light:
            need = _clearance(q, rect, u, scale, 0.0)
            if need > 0 and not _push_inner(st, q, u, need, f"pushed back by {p.id} (§8.6)", depth + 1, "pushed"):
                return False
        else:
            return False  # friends it can neither pass through nor push back (e.g. a bent column, E3)
    st.set(end, label, why)
    return True


def _clearance(q: DbxPiece, rect: np.ndarray, u: np.ndarray, scale, tol: float) -> float:
    lo, hi = 0.0, 200.0
    if geom.penetration(corners(q, scale), rect) <= tol:
        return 0.0
    for _ in range(30):
        mid = (lo + hi) / 2
        q2 = moved(q, q.x_mm + u[0] * mid, q.y_mm + u[1] * mid)
        if geom.penetration(corners(q2, scale), rect) <= tol:
            hi = mid
        else:
            lo = mid
    return hi


def recoil(st: _State, pid: str, why: str = "recoils 1 base depth (§8.6)") -> str:
    """§8.6 back one own base depth without turning; pushes or passes friends; destroyed when it cannot."""
    p = st.pieces[pid]
    _, d = base_size(p, st.base.scale)
    fwd, _ = geom.directions(p.heading_deg)
    u = -fwd
    end_rect = corners(moved(p, p.x_mm + u[0] * d, p.y_mm + u[1] * d), st.base.scale)
    if _off_table(st, end_rect):
        st.remove(pid, "lost", "recoils off the table edge and is lost (§8.6)")
        return "lost"
    if _push(st, p, u, d, why):
        return "recoil"
    st.remove(pid, "destroyed", "cannot recoil (enemy, impassable terrain or friends in the way): destroyed (§8.6)")
    return "destroyed"


def _flee_passable(st: _State, p: DbxPiece, q: DbxPiece) -> bool:
    if q.side != p.side:
        return False
    if p.ut.cls == MOUNTED and q.type != "Li":  # §5.6 mounted may recoil through friends except line infantry
        return True
    return interpenetrates(p, q, st.base, st.opts)[0]


def flee(st: _State, pid: str) -> str:
    """§8.6 back one base depth, turn 180 degrees, then the full move distance; swerving only to avoid friends it
    cannot pass, enemies or impassable terrain (not rivers). Off the table: lost. No way out: destroyed."""
    p = st.pieces[pid]
    _, d = base_size(p, st.base.scale)
    allow, _ = allowance(st.view(), p, st.opts)
    back = geom.heading_of(-geom.directions(p.heading_deg)[0])
    total = d + st.base.scale.mm(allow)
    text = f"flees {st.base.scale.paces(total):.0f} paces: 1 base depth, turns 180, full move (§8.6)"
    return _run(st, p, back, total, p.heading_deg + 180.0, text, "flee")


def _run(st: _State, p: DbxPiece, heading: float, total: float, end_heading: float, text: str, change: str) -> str:
    """Move p straight along `heading` by `total` mm, ending facing `end_heading`, swerving up to the option's limit
    only around what it cannot pass (§8.6); lost off the table, destroyed when there is no way."""
    pid = p.id
    scale, opts = st.base.scale, st.opts
    swerves = [0.0]
    for k in range(5, int(opts.flee_max_swerve_deg) + 1, 5):
        swerves += [float(k), float(-k)]
    for sw in swerves:
        h = (heading + sw) % 360.0
        u = geom.directions(h)[0]
        ok, lost_at = True, None
        n = max(2, int(total / 2.0))
        for t in np.linspace(0, total, n)[1:]:
            q = moved(p, p.x_mm + u[0] * t, p.y_mm + u[1] * t, end_heading)
            r = corners(q, scale)
            if _off_table(st, r):
                lost_at = q
                break
            if impassable_under(st.base, r, opts):
                ok = False
                break
            if any(not _flee_passable(st, p, b) for b in _blocked_by(st, p, r, set())):
                ok = False
                break
        if not ok:
            continue
        if lost_at is not None:
            st.remove(pid, "lost", f"flees off the table edge and is lost (§8.6){_sw(sw)}")
            return "lost"
        end = moved(p, p.x_mm + u[0] * total, p.y_mm + u[1] * total, end_heading)
        if _blocked_by(st, p, corners(end, scale), set()):
            continue
        st.set(end, change, f"{text}{_sw(sw)}")
        return change
    st.remove(pid, "destroyed", "cannot flee past friends, enemies or impassable terrain and is destroyed (§8.6)")
    return "destroyed"


def _sw(sw: float) -> str:
    return f", swerving {sw:+.0f} degrees" if sw else ""


def impetuous(p: DbxPiece, opts: Options) -> bool:
    """§8.6 cuirassiers, English mounted, clansmen, tribal warriors, guerrillas pursue."""
    return p.ut.impetuous or (p.english and p.ut.cls == MOUNTED and opts.english_mounted_impetuous
                              and p.type not in ("Gen",))


def pursue(st: _State, pid: str) -> None:
    """§8.6 advance 1 own base depth as far as possible; not into bad going (except marsh) or off the board;
    tribal warriors ignore terrain."""
    p = st.pieces.get(pid)
    if p is None or not impetuous(p, st.opts):
        return
    scale, opts = st.base.scale, st.opts
    _, d = base_size(p, scale)
    u = geom.directions(p.heading_deg)[0]
    best = 0.0
    for t in np.linspace(0, d, max(2, int(d / 0.5)) + 1)[1:]:
        q = moved(p, p.x_mm + u[0] * t, p.y_mm + u[1] * t)
        r = corners(q, scale)
        if _off_table(st, r) or _blocked_by(st, p, r, set()) or impassable_under(st.base, r, opts):
            break
        if p.type != "St":
            view = st.view().with_pieces([q if x.id == pid else x for x in st.pieces.values()])
            bad = [b for b in bad_going_features(view, q, opts)
                   if b.startswith("weather") or st.base.terrain_by_id[b].type != "marsh"]
            if bad and not in_bad_going(st.view(), p, opts):
                break
        best = t
    if best > 0.05:
        q = moved(p, p.x_mm + u[0] * best, p.y_mm + u[1] * best)
        st.set(q, "pursue", f"pursues {scale.paces(best):.0f} paces (impetuous advance, §8.6)")


def apply_result(st: _State, pid: str, result: str) -> str:
    if result == "recoil":
        return recoil(st, pid)
    if result == "flee":
        return flee(st, pid)
    if result == "destroyed":
        st.remove(pid, "destroyed", "destroyed (§8.5)")
        return "destroyed"
    return "none"


def misfire(st: _State, target: DbxPiece, shooter: DbxPiece) -> None:
    """§8.3 friends within 1 BB wholly or partly behind a target that flees, recoils or is destroyed, and in the
    shooter's range or in base contact with it, recoil 1 own base depth."""
    scale, opts = st.base.scale, st.opts
    w, d = base_size(target, scale)
    fwd, _ = geom.directions(target.heading_deg)
    c = np.array([target.x_mm, target.y_mm]) - fwd * (d / 2 + scale.bb_mm / 2)
    zone = geom.rectangle(c[0], c[1], target.heading_deg, w, scale.bb_mm)
    r, _ = fire_range(st.base, shooter, opts)
    for f in [q for q in st.base.pieces if q.side == target.side and q.id != target.id]:
        if f.id not in st.pieces:
            continue
        rf = corners(f, scale)
        if geom.penetration(zone, rf) <= opts.tolerance_mm:
            continue
        in_range = range_mm(st.base, shooter, f) <= scale.mm(r) + opts.tolerance_mm
        touching = geom.polygon_distance(rf, corners(target, scale)) <= opts.tolerance_mm
        if in_range or touching:
            res = recoil(st, f.id, "misfire: recoils 1 base depth (§8.3)")
            st.changes[-1]["change"] = "misfire_" + res if res != "recoil" else "misfire_recoil"


# ---------------------------------------------------------------- actions


def resolve_fire(pos: DbxPosition, shooter_id: str, target_id: str, dice: Dice, supporters: list[str] = (),
                 opts: Options = DEFAULT) -> Resolution:
    """§8.2 one fire combat: both roll; the lower total suffers (a shooter not shot back ignores adverse results)."""
    a, t = pos.piece(shooter_id), pos.piece(target_id)
    if a.side == t.side:
        raise InputError(f"{shooter_id} and {target_id} are on the same side")
    ok, why = fire_target_check(pos, a, t, opts)
    if not ok:
        raise InputError(f"{shooter_id} may not shoot at {target_id}: {why}")
    sup = fire_eligible_supporters(pos, t, a, list(supporters), opts)
    sa, stt, back = fire_sides(pos, a, t, sup, opts)
    da, dt = roll_pair(dice)
    ta, tt = sa.total(da), stt.total(dt)
    res = Resolution("fire", a.id, t.id, dice=list(dice.rolled), seed=dice.seed if dice.generated else None)
    res.sides = {"attacker_side": _side_dict(sa, da), "target_side": _side_dict(stt, dt)}
    st = _State(pos, opts)
    for camp, returning in ((a, False), (t, True)):  # §8.8 3 own + 3 enemy fire phases of ammunition
        if camp.type == "Camp" and (not returning or back):
            key = "ammo_own" if camp_phase(pos, camp, returning) == "own" else "ammo_enemy"
            st.pieces[camp.id] = replace(camp, **{key: getattr(camp, key) + 1})
    if a.type == "Ck":
        st.pieces[a.id] = replace(st.pieces[a.id], saved_pips=max(0, a.saved_pips - opts.clansmen_pips_to_shoot))
    if tt < ta:
        loser, winner, lt, wt = t, a, tt, ta
    elif ta < tt:
        loser, winner, lt, wt = a, t, ta, tt
    else:
        loser = None
    if loser is None:
        res.outcome = {"loser": None, "result": "none", "rule": "equal totals: no effect (§8.5, A3)"}
    elif loser.id == a.id and (not back or opts.fire_exchange == "two"):
        res.outcome = {"loser": a.id, "result": "none",
                       "rule": "a shooter not being shot back at ignores all adverse results (§8.2)"}
    else:
        result, rule = outcome(pos, loser, winner, "fire", lt, wt, opts)
        done = apply_result(st, loser.id, result)
        res.outcome = {"loser": loser.id, "result": result, "applied": done, "rule": rule}
        if loser.id == t.id and done != "none":
            misfire(st, t, a)
    res.after = st.view()
    res.changes = st.changes
    res.victory = victory(res.after, opts)
    return res


def resolve_melee(pos: DbxPosition, attacker_id: str, target_id: str, dice: Dice,
                  opts: Options = DEFAULT) -> Resolution:
    """§8.4 one melee: flank-contacted targets turn first (§3.5); the lower total suffers; impetuous winners pursue."""
    a, b = pos.piece(attacker_id), pos.piece(target_id)
    if a.side == b.side:
        raise InputError(f"{attacker_id} and {target_id} are on the same side")
    chk = melee_check(pos, a, b, opts)
    if not chk["allowed"]:
        raise InputError(f"{attacker_id} may not fight {target_id} in melee: {chk['reason']}")
    notes = []
    c = contact(pos, a, b, opts)
    if c.kind in ("flank", "rear") and not front_enemies(pos, b, opts):
        pos = turn_to_face(pos, b.id, a.id, opts)
        notes.append(f"{b.id} turned to face {a.id} at the end of the movement phase (§3.5)")
        a, b = pos.piece(attacker_id), pos.piece(target_id)
    sa, sb = melee_side(pos, a, b, opts), melee_side(pos, b, a, opts)
    da, db = roll_pair(dice)
    ta, tb = sa.total(da), sb.total(db)
    res = Resolution("melee", a.id, b.id, dice=list(dice.rolled), seed=dice.seed if dice.generated else None)
    res.notes = notes
    res.sides = {"attacker_side": _side_dict(sa, da), "target_side": _side_dict(sb, db)}
    st = _State(pos, opts)
    if ta == tb:
        res.outcome = {"loser": None, "result": "none", "rule": "equal totals: no effect, still in contact (§8.5, A3)"}
    else:
        loser, winner = (b, a) if tb < ta else (a, b)
        lt, wt = min(ta, tb), max(ta, tb)
        result, rule = outcome(pos, loser, winner, "melee", lt, wt, opts)
        done = apply_result(st, loser.id, result)
        res.outcome = {"loser": loser.id, "result": result, "applied": done, "rule": rule}
        if done != "none":
            pursue(st, winner.id)
    res.after = st.view()
    res.changes = st.changes
    res.victory = victory(res.after, opts)
    return res


def resolve_river(pos: DbxPosition, pid: str, dice: Dice, opts: Options = DEFAULT) -> Resolution:
    """§5.9 the first off-road crossing attempt decides the river type; a torrent then needs 3+ for each attempt."""
    pos.piece(pid)
    g = pos.game
    res = Resolution("river", pid, None, seed=dice.seed)
    if g.crossing_stopped:
        raise InputError(f"{pid}: no more river crossings anywhere this bound (a torrent crossing failed) (§5.9)")
    notes = []
    if not g.river:
        die = dice.d6()
        kind = river_type(die)
        g = replace(g, river=kind)
        notes.append(f"river type roll {die}: {kind} for the whole game (§5.9)")
    allowed = True
    if g.river == "torrent":
        die = dice.d6()
        allowed = torrent_crossing(die)
        notes.append(f"torrent crossing roll {die}: {'crosses' if allowed else 'stops at the bank; PIP spent'} (§5.9)")
        if not allowed:
            g = replace(g, crossing_stopped=True)
    res.outcome = {"loser": None, "result": "crosses" if allowed else "stopped", "river": g.river,
                   "rule": "§5.9 rivers"}
    res.notes = notes
    res.dice = list(dice.rolled)
    res.seed = dice.seed if dice.generated else None
    res.after = replace(pos, game=g)
    res.victory = victory(res.after, opts)
    return res


def resolve_simple(pos: DbxPosition, action: str, after: DbxPosition, attacker: str, target: str | None,
                   note: str, opts: Options = DEFAULT) -> Resolution:
    """A rule action without dice (square, swap, turn): the changes are the pieces that moved, appeared or went."""
    res = Resolution(action, attacker, target)
    before = pos.by_id
    for p in after.pieces:
        old = before.get(p.id)
        if old is None:
            res.changes.append({"piece": p.id, "change": "placed", "to": _pose(p), "text": note})
        elif old != p:
            res.changes.append({"piece": p.id, "change": action, "from": _pose(old), "to": _pose(p), "text": note})
    for pid, old in before.items():
        if pid not in after.by_id:
            res.changes.append({"piece": pid, "change": "removed", "from": _pose(old), "text": note})
    res.outcome = {"loser": None, "result": action, "rule": note}
    res.after = after
    res.victory = victory(after, opts)
    return res


# ---------------------------------------------------------------- victory and demoralisation (§9.3, §9.6)


def _start(pos: DbxPosition, key: str, is_side: bool) -> int:
    start = dict(pos.game.start)
    if key in start:
        return start[key]
    now = [p for p in pos.pieces if (p.side if is_side else p.command) == key and p.type != "Camp"]
    if not dict(pos.game.lost) and not start:
        return len(now)
    return len(now) + dict(pos.game.lost).get(key, 0)


def demoralised(pos: DbxPosition, opts: Options = DEFAULT) -> list[str]:
    """§9.6 commands that lost their general or a third of their starting strength (plus those given)."""
    out = set(pos.game.demoralised)
    lost = dict(pos.game.lost)
    for cmd in sorted({p.command for p in pos.pieces if p.command}):
        gens = [p for p in pos.pieces if p.type == "Gen" and (p.command == cmd or p.id == cmd)]
        if not gens:
            out.add(cmd)
        elif 3 * lost.get(cmd, 0) >= _start(pos, cmd, False) > 0:
            out.add(cmd)
    return sorted(out)


_EDGE_HEADING = {"south": 180.0, "east": 90.0, "north": 0.0, "west": 270.0}  # setup.EDGES: south = y 0


def own_edge(pos: DbxPosition, side: str) -> str:
    """A side's base edge when the position does not say: the table edge behind its elements' average facing."""
    fw = [geom.directions(p.heading_deg)[0] for p in pos.pieces if p.side == side and p.type != "Camp"]
    if not fw:
        raise InputError(f"side {side!r}: no elements to find its base edge; give --choice edge=")
    back = -np.mean(fw, axis=0)
    if abs(back[1]) >= abs(back[0]):
        return "south" if back[1] < 0 else "north"
    return "west" if back[0] < 0 else "east"


def _in_or_supporting_melee(pos: DbxPosition, p: DbxPiece, opts: Options) -> str:
    """§9.6 why p stays: in melee, or supporting a friend in melee (rear support or overlapping its enemy)."""
    for e in (q for q in pos.pieces if q.side != p.side):
        if contact(pos, e, p, opts).kind in ("front", "flank", "rear") or \
                contact(pos, p, e, opts).kind in ("front", "flank", "rear"):
            return f"in melee with {e.id}"
        if contact(pos, p, e, opts).kind == "overlap" and front_enemies(pos, e, opts):
            return f"overlapping {e.id} in melee"
    for f in (q for q in pos.pieces if q.side == p.side and q.id != p.id):
        if front_enemies(pos, f, opts) and directly_behind(pos, f, opts) is not None \
                and directly_behind(pos, f, opts).id == p.id:
            return f"supporting {f.id} in melee from behind"
    return ""


def demoralised_flight(pos: DbxPosition, pid: str, held: list[str] = (), edge: str | None = None,
                       opts: Options = DEFAULT) -> Resolution:
    """§9.6 the compulsory flight of a demoralised command: every element not in melee, not supporting friends in
    melee and not held with PIPs turns (no recoil first) and flees its full move straight toward its own base edge;
    off the table it is lost (§8.6). `pid` names any element of the command; `held` are the player's choice."""
    p = pos.piece(pid)
    cmd = p.command or p.side
    if cmd not in demoralised(pos, opts):
        raise InputError(f"{pid}: its command {cmd} is not demoralised (§9.6)")
    edge = edge or own_edge(pos, p.side)
    if edge not in _EDGE_HEADING:
        raise InputError(f"--choice edge={edge}: one of {' '.join(_EDGE_HEADING)}")
    heading = _EDGE_HEADING[edge]
    st = _State(pos, opts)
    res = Resolution("rout", pid, None)
    mine = [q for q in pos.pieces if q.side == p.side and (q.command or q.side) == cmd and q.type != "Camp"]
    u = geom.directions(heading)[0]
    mine.sort(key=lambda q: -float(np.array([q.x_mm, q.y_mm]) @ u))  # nearest its base edge first
    for q in mine:
        if q.id in held:
            res.notes.append(f"{q.id} is held with a PIP (§9.6)")
            continue
        why = _in_or_supporting_melee(pos, q, opts)
        if why:
            res.notes.append(f"{q.id} stays: {why} (§9.6)")
            continue
        cur = st.pieces.get(q.id)
        if cur is None:
            continue
        allow, _ = allowance(st.view(), cur, opts)
        turned = moved(cur, cur.x_mm, cur.y_mm, heading)
        text = (f"demoralised: turns toward the {edge} edge and flees {allow} paces (§9.6)")
        _run(st, turned, heading, st.base.scale.mm(allow), heading, text, "flee")
    res.outcome = {"loser": None, "result": "rout", "command": cmd, "edge": edge,
                   "rule": "§9.6 demoralised: elements not in or supporting a melee and not held flee"}
    res.after = st.view()
    res.changes = st.changes
    res.victory = victory(res.after, opts)
    return res


def victory(pos: DbxPosition, opts: Options = DEFAULT) -> dict:
    """§9.3 (A2) standard game: lost >= 1/3 of its elements and more than the enemy; §9.6 big battles: more than
    half lost (camp sacked = 2) or 2 commands demoralised."""
    sides = sorted({p.side for p in pos.pieces} | {k for k, _ in pos.game.start if not _is_command(pos, k)}
                   | {k for k, _ in pos.game.lost if not _is_command(pos, k)})
    lost = dict(pos.game.lost)
    out: dict = {"sides": {}, "loser": None}
    for s in sides:
        n = lost.get(s, 0)
        if s in pos.game.camp_sacked and (pos.game.big_battle or opts.camp_counts_in_standard_game):
            n += 2
        start = _start(pos, s, True)
        out["sides"][s] = {"lost": n, "start": start}
    for s in sides:
        me = out["sides"][s]
        others = [out["sides"][o]["lost"] for o in sides if o != s]
        more = all(me["lost"] > o for o in others)
        third = 3 * me["lost"] >= me["start"] > 0
        if pos.game.big_battle:
            cmds = [c for c in demoralised(pos, opts) if any(p.command == c and p.side == s for p in pos.pieces)]
            lose = 2 * me["lost"] > me["start"] or len(cmds) >= 2
            me["demoralised_commands"] = cmds
        elif opts.victory_rule == "and":
            lose = third and more
        else:
            lose = third or more
        me["has_lost"] = lose
        if lose and out["loser"] is None:
            out["loser"] = s
    out["rule"] = "§9.6 big battle" if pos.game.big_battle else f"§9.3 ({opts.victory_rule}, A2)"
    return out


def _is_command(pos: DbxPosition, key: str) -> bool:
    return any(p.command == key for p in pos.pieces)

