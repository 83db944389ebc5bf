"""The tactical battle (digest §3.3, §4.2, §6, §7.1, §8.1-§8.9) as pure functions of a position with a battle.

Every action takes the position, checks it against the rules (InputError naming the rule when it is not allowed),
and returns a `Result`: the position after, the lines to show (each rule cited), every roll with its raw sum beside
its modified total and the itemised modifiers, and notes where a filled-in table cell or an ambiguity's reading
was used. Sides are "A" (the attacker, who moved in) and "B" (the defender).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from common.dice import Dice
from common.errors import InputError
from rules.nie.model import (
    A_LINE,
    A_RESERVE,
    A_ROUT,
    ARTILLERY,
    B_LINE,
    B_RESERVE,
    B_ROUT,
    CAVALRY,
    INFANTRY,
    LEADER,
    MIDDLE,
    MINOR,
    PHASES,
    UNIT_TYPES,
    Battle,
    BattleUnit,
    NiePosition,
    Unit,
    Zone,
    parse_zone,
    ports_to_leave,
    position_to_dict,
    with_changes,
    zones,
)
from rules.nie.options import DEFAULT, Options

PHASE_BASE = {"cavalry": CAVALRY, "artillery": ARTILLERY, "infantry": INFANTRY, "leader": LEADER}
SHORT = {INFANTRY: "inf", CAVALRY: "cav", ARTILLERY: "art", LEADER: "leader"}


@dataclass
class Result:
    """One resolved action: the position after, what happened (rules cited), every roll, notes on readings."""

    action: str
    position: NiePosition
    lines: list[str] = field(default_factory=list)
    rolls: list[dict] = field(default_factory=list)
    changes: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)

    @property
    def after(self) -> NiePosition:
        return self.position

    def to_json(self) -> dict:
        return {"action": self.action, "lines": self.lines, "rolls": self.rolls, "changes": self.changes,
                "notes": self.notes, **self.data}


def roll_2d6(dice: Dice, mods: list[tuple[int, str]], what: str) -> dict:
    """2d6 with the raw sum kept beside the modified total (the raw 11/12 kills leaders, §8.3)."""
    a, b = dice.d6(), dice.d6()
    total = a + b + sum(m for m, _ in mods)
    return {"what": what, "dice": [a, b], "raw": a + b, "modifiers": [[m, why] for m, why in mods], "total": total}


def roll_d6(dice: Dice, what: str) -> dict:
    v = dice.d6()
    return {"what": what, "dice": [v], "raw": v, "modifiers": [], "total": v}


# ---------------------------------------------------------------------------------------------- the board (§3.3)


def side_of(b: Battle, unit: Unit) -> str:
    s = b.side_of_nation(unit.nation)
    if s is None:
        raise InputError(f"{unit.id}: its nation {unit.nation} fights on neither side of the battle")
    return s


def own_rout(side: str) -> Zone:
    return Zone(A_ROUT if side == "A" else B_ROUT)


def own_reserve(side: str) -> Zone:
    return Zone(A_RESERVE if side == "A" else B_RESERVE)


def line_row(side: str) -> int:
    return A_LINE if side == "A" else B_LINE


def adjacent(a: Zone, b: Zone, major: bool, sideways: bool = True) -> bool:
    """Orthogonal neighbours on the board (§3.3 [R-TACMOVE]): forward, back and (with `sideways`) within a row;
    never diagonal. The full-width reserve touches all its owner's line zones (A24); the rout zone touches
    nothing (left only by a rally, §5.5/A5)."""
    if a == b or a.row in (A_ROUT, B_ROUT) or b.row in (A_ROUT, B_ROUT):
        return False
    if a.col is None or b.col is None:  # a reserve and a line zone of its own side
        other = b if a.col is None else a
        res = a if a.col is None else b
        return res.col is None and other.col is not None and (
            (res.row == A_RESERVE and other.row == A_LINE) or (res.row == B_RESERVE and other.row == B_LINE))
    if a.row == b.row:
        return sideways and major and abs(a.col - b.col) == 1
    return a.col == b.col and abs(a.row - b.row) == 1


def frontal_distance(shooter: Zone, target: Zone, side: str) -> int | None:
    """Zones straight ahead toward the enemy, same column (§6 [R-FRONT], E3); None if diagonal, sideways, behind,
    or either zone is a reserve or rout zone."""
    if shooter.col is None or target.col is None or shooter.col != target.col:
        return None
    d = (target.row - shooter.row) if side == "A" else (shooter.row - target.row)
    return d if d > 0 else None


def units_in(b: Battle, units: Mapping[str, Unit], zone: Zone, side: str | None = None) -> list[str]:
    return [uid for uid, bu in b.units.items() if bu.zone == zone and (side is None or side_of(b, units[uid]) == side)]


def enemy_adjacent(b: Battle, units: Mapping[str, Unit], zone: Zone, side: str, opts: Options) -> bool:
    """A zone next to one holding enemy units (the zone-of-control rule, §3.3; A18 sideways)."""
    other = "B" if side == "A" else "A"
    return any(adjacent(zone, bu.zone, b.major, opts.zoc_sideways) for uid, bu in b.units.items()
               if side_of(b, units[uid]) == other)


def combined_arms(b: Battle, units: Mapping[str, Unit], zone: Zone, side: str) -> bool:
    """At least one infantry, one cavalry and one artillery of the side in the zone (§8.4; A23 subtypes count)."""
    bases = {units[uid].kind.base for uid in units_in(b, units, zone, side)}
    return {INFANTRY, CAVALRY, ARTILLERY} <= bases


def leaders_in(b: Battle, units: Mapping[str, Unit], zone: Zone, side: str) -> list[str]:
    return sorted(uid for uid in units_in(b, units, zone, side) if units[uid].kind.base == LEADER)


def battle_size(pos: NiePosition, region: str, attackers, defenders) -> dict:
    """§8.2 [R-BATTLETYPE]: a major battle when both sides have at least 6 army units (leaders excluded), else a
    skirmish."""
    counts = {"A": 0, "B": 0}
    for u in pos.units_at(region):
        if u.kind.army:
            if u.nation in attackers:
                counts["A"] += 1
            elif u.nation in defenders:
                counts["B"] += 1
    return {"major": counts["A"] >= 6 and counts["B"] >= 6, "army_units": counts}


def line_gaps(pos: NiePosition, b: Battle, side: str) -> list[str]:
    """The columns of `side`'s battle line it no longer holds: no army unit in its own line zone nor in the middle
    zone of that column (§8.7 [R-BATTLEEND]; leaders, reserve and rout do not count)."""
    gaps = []
    for col in ((0, 1, 2) if b.major else (1,)):
        held = any(pos.units[uid].kind.army and side_of(b, pos.units[uid]) == side and bu.zone.col == col
                   and bu.zone.row in (line_row(side), MIDDLE) for uid, bu in b.units.items())
        if not held:
            gaps.append(Zone(line_row(side), col).name(b.major))
    return gaps


# ---------------------------------------------------------------------------------------------- set-up and phases


def start(pos: NiePosition, region: str, attackers: list[str], came_from: Mapping[str, str] | None = None,
          amphibious: bool = False) -> Result:
    """A battle flagged in `region` (§4.1b): attackers are the nations that moved in, defenders every nation
    present at war with one of them; its size by §8.2. Units still have to be deployed (`deploy`)."""
    if pos.battle is not None and pos.battle.phase != "over":
        raise InputError(f"a battle in {pos.battle.region} is still being fought")
    pos.europe.region(region, "battle")
    present = {u.nation for u in pos.units_at(region) if u.kind.base != "naval"}
    defenders = sorted(n for n in present if n not in attackers and any(pos.at_war(n, a) for a in attackers))
    if not defenders:
        raise InputError(f"{region}: no units of a nation at war with {', '.join(attackers)} there: no battle")
    size = battle_size(pos, region, attackers, defenders)
    b = Battle(region, list(attackers), defenders, size["major"], amphibious, came_from=dict(came_from or {}))
    kind = "major battle" if b.major else "skirmish"
    lines = [f"battle in {region}: {', '.join(attackers)} (A) attack {', '.join(defenders)} (B); army units "
             f"{size['army_units']['A']} vs {size['army_units']['B']}: {kind} (§8.2)"]
    if amphibious:
        lines.append("amphibious landing: the defenders get +2 on all fire and charge rolls (§5.2)")
    return Result("start_battle", with_changes(pos, battle=b), lines, data={"major": b.major, **size})


def deploy(pos: NiePosition, placements: Mapping[str, str], side: str | None = None) -> Result:
    """The hidden set-up (§4.2 step 1): each side puts every one of its units in the region into its line zone(s)
    or its reserve, at least one unit in each line zone; `side` ("A" or "B") deploys one side behind the screen
    (`view` withholds it from the other), None both at once. When both have deployed the screen is removed and
    the cavalry phase of round 1 begins, attacker first."""
    b = pos.battle_copy()
    if b.phase != "setup":
        raise InputError("deploy: the battle is already set up")
    sides = ("A", "B") if side is None else (side,)
    if side is not None and side not in ("A", "B"):
        raise InputError(f"deploy: side {side!r}: A (attacker) or B (defender)")
    for s in sides:
        if s in b.deployed:
            raise InputError(f"deploy: side {s} has already deployed")
    fighting = [u for u in pos.units_at(b.region) if b.side_of_nation(u.nation) in sides and u.kind.base != "naval"]
    missing = [u.id for u in fighting if u.id not in placements]
    if missing:
        raise InputError(f"deploy: no zone for {', '.join(missing)}")
    for uid, zname in placements.items():
        u = pos.unit(uid)
        if u.at != b.region:
            raise InputError(f"deploy: {uid} is not in {b.region}")
        s = side_of(b, u)
        if s not in sides:
            raise InputError(f"deploy: {uid} belongs to side {s}, which deploys behind its own screen")
        z = parse_zone(zname, b.major, f"deploy {uid}")
        if not (z.row == line_row(s) or z == own_reserve(s)):
            raise InputError(f"deploy {uid}: set up in your own line zone(s) or reserve (§4.2), not {zname}")
        b.units[uid] = BattleUnit(z)
    for s in sides:
        for col in ((0, 1, 2) if b.major else (1,)):
            z = Zone(line_row(s), col)
            if not units_in(b, pos.units, z, s):
                raise InputError(f"deploy: {z.name(b.major)} needs at least one unit (§4.2)")
        b.deployed.append(s)
    lines = [f"side {s} deployed behind the screen (§4.2)" for s in sides]
    if set(b.deployed) == {"A", "B"}:
        b.phase, b.acting, b.round = "cavalry", "A", 1
        lines.append("set-up done, screen removed: round 1, cavalry phase, attacker first (§4.2)")
    return Result("deploy", with_changes(pos, battle=b), lines)


def position_view(pos: NiePosition, viewer: str) -> dict:
    """The position as `viewer` (a nation or "umpire") may see it (rules/system.py `GameSystem.view`): while the
    battle is being set up behind the screen (§4.2), each side's placements are withheld from everyone but that
    side; nothing else in these rules is hidden (PP, PAP and the diplomacy table are open)."""
    out = position_to_dict(pos)
    b = pos.battle
    if b is None or b.phase != "setup" or viewer == "umpire":
        return out
    mine = b.side_of_nation(viewer)
    out["battle"]["units"] = {uid: z for uid, z in out["battle"]["units"].items()
                              if side_of(b, pos.units[uid]) == mine}
    return out


def end_phase(pos: NiePosition, opts: Options = DEFAULT) -> Result:
    """The acting side ends its part of the phase (§4.2 step 2): attacker then defender in each of the cavalry,
    artillery, infantry and leader phases; after the defender's leader phase the round ends (stalemate count,
    §8.7/A16)."""
    b = pos.battle_copy()
    if b.phase not in PHASES:
        raise InputError(f"end_phase: the battle is in its {b.phase} phase")
    lines = []
    if b.acting == "A":
        b.acting = "B"
    else:
        i = PHASES.index(b.phase)
        b.acting = "A"
        if i + 1 < len(PHASES):
            b.phase = PHASES[i + 1]
        else:
            b.quiet_rounds = 0 if b.middle_activity else b.quiet_rounds + 1
            b.middle_activity = False
            lines.append(f"round {b.round} ends; rounds without fire into or moves into the middle: "
                         f"{b.quiet_rounds} (§8.7 stalemate, A16)")
            b.round += 1
            b.phase = "cavalry"
            if b.quiet_rounds >= opts.stalemate_rounds:
                _finish(b, "A", f"stalemate: {b.quiet_rounds} full rounds without fire into or moves into the "
                        "middle zones: the defender wins, the attacker retreats (§8.7)")
                b.retreated = "A"
                lines.append(b.end_reason)
    for bu in b.units.values():
        bu.used = 0
    if b.phase in PHASES:
        lines.append(f"round {b.round}, {b.phase} phase: {'attacker' if b.acting == 'A' else 'defender'} acts")
    return Result("end_phase", with_changes(pos, battle=b), lines)


def _finish(b: Battle, loser: str, reason: str) -> None:
    b.loser, b.end_reason, b.phase = loser, reason, "pursuit"
    for bu in b.units.values():
        bu.used = 0


def _acting(pos: NiePosition, b: Battle, uid: str, base: str | None = None) -> Unit:
    """The unit may act now: its side's turn in its type's phase, combat actions left (§4.2, §8.1)."""
    if b.phase not in PHASES:
        raise InputError(f"{uid}: no combat actions in the battle's {b.phase} phase")
    u = pos.unit(uid)
    if uid not in b.units:
        raise InputError(f"{uid}: not on the battle board")
    side = side_of(b, u)
    if side != b.acting:
        raise InputError(f"{uid}: it is the {'attacker' if b.acting == 'A' else 'defender'}'s turn (§4.2)")
    if u.kind.base != PHASE_BASE[b.phase]:
        raise InputError(f"{uid}: a {u.kind.name} acts in the {u.kind.base} phase, not the {b.phase} phase (§4.2)")
    if base is not None and u.kind.base != base:
        raise InputError(f"{uid}: only {base} may do that")
    bu = b.units[uid]
    if bu.zone.row in (A_ROUT, B_ROUT):
        raise InputError(f"{uid}: units in the rout zone cannot act (§3.3)")
    if bu.used >= u.kind.actions:
        raise InputError(f"{uid}: no combat action left this phase ({u.kind.actions}, §8.1)")
    return u


def _remove(pos: NiePosition, b: Battle, units: dict[str, Unit], uid: str, how: str) -> dict:
    u = units.pop(uid)
    b.units.pop(uid, None)
    b.eliminated.append({"id": uid, "nation": u.nation, "type": u.type, "how": how})
    return {"unit": uid, "eliminated": True, "why": how}


def _rout(b: Battle, units: Mapping[str, Unit], uid: str, why: str) -> dict:
    side = side_of(b, units[uid])
    b.units[uid].zone = own_rout(side)
    b.units[uid].square = False
    return {"unit": uid, "zone": own_rout(side).name(b.major), "why": why}


def _check_end(pos: NiePosition, b: Battle, lines: list[str]) -> None:
    """§8.7 (B): the battle ends at once when a side's battle line is broken."""
    if b.phase not in PHASES:
        return
    for side in (b.acting, "B" if b.acting == "A" else "A"):
        gaps = line_gaps(pos, b, side)
        if gaps:
            who = "attacker" if side == "A" else "defender"
            _finish(b, side, f"the {who}'s battle line is broken ({', '.join(gaps)} empty of army units): the "
                    f"{who} loses (§8.7)")
            lines.append(b.end_reason)
            return


def _result(action: str, pos: NiePosition, b: Battle, units: dict[str, Unit], lines, rolls, changes, notes,
            **data) -> Result:
    after = with_changes(pos, units=units, battle=b)
    _check_end(after, b, lines)
    b.log.append({"action": action, "lines": list(lines), "rolls": list(rolls)})
    return Result(action, after, lines, rolls, changes, notes, data)


# ---------------------------------------------------------------------------------------------- movement (§5.5)


def move_reasons(pos: NiePosition, uid: str, dest: Zone, opts: Options = DEFAULT) -> list[str]:
    """Why `uid` may not move into `dest` now (empty: it may), §5.5 [R-TACMOVE]."""
    b = _on_board(pos, uid)
    u = pos.unit(uid)
    bu = b.units[uid]
    side = side_of(b, u)
    out = []
    if bu.zone.row in (A_ROUT, B_ROUT):
        out.append("units in the rout zone leave it only by being rallied (§5.5, A5)")
    if dest.side not in (None, side):
        out.append("the enemy's own zones are closed")
    if not adjacent(bu.zone, dest, b.major, True):
        out.append(f"{dest.name(b.major)} is not an orthogonal neighbour of {bu.zone.name(b.major)} (no diagonal "
                   "moves, §5.5)")
    if dest.row in (A_ROUT, B_ROUT):
        out.append("no unit moves into a rout zone")
    if bu.square:
        out.append("infantry in square may not move (§8.5)")
    other = "B" if side == "A" else "A"
    if not opts.enter_enemy_zone and units_in(b, pos.units, dest, other):
        out.append(f"{dest.name(b.major)} holds enemy units (A17)")
    if enemy_adjacent(b, pos.units, bu.zone, side, opts) and enemy_adjacent(b, pos.units, dest, side, opts):
        out.append("zone of control: from a zone next to the enemy into another zone next to the enemy (§3.3)")
    return out


def move(pos: NiePosition, uid: str, dest: str, opts: Options = DEFAULT) -> Result:
    """One combat action: into one adjacent zone (§5.5)."""
    b = pos.battle_copy()
    u = _acting(pos, b, uid)
    z = parse_zone(dest, b.major, f"move {uid}")
    reasons = move_reasons(pos, uid, z, opts)
    if reasons:
        raise InputError(f"move {uid} to {dest}: " + "; ".join(reasons))
    frm = b.units[uid].zone.name(b.major)
    b.units[uid].zone = z
    b.units[uid].used += 1
    if z.row == MIDDLE:
        b.middle_activity = True
    units = dict(pos.units)
    return _result("move", pos, b, units, [f"{uid} ({u.kind.name}) moves {frm} -> {dest} (§5.5)"], [],
                   [{"unit": uid, "zone": dest}], [])


def leave_square(pos: NiePosition, uid: str, opts: Options = DEFAULT) -> Result:
    """Leaving square costs one combat action in an infantry phase (§8.5)."""
    b = pos.battle_copy()
    _acting(pos, b, uid, INFANTRY)
    if not b.units[uid].square:
        raise InputError(f"{uid}: not in square")
    b.units[uid].square = False
    b.units[uid].used += 1
    return _result("leave_square", pos, b, dict(pos.units), [f"{uid} leaves square (1 combat action, §8.5)"], [],
                   [{"unit": uid, "square": False}], [])


# ---------------------------------------------------------------------------------------------- fire (§8.3)


def _on_board(pos: NiePosition, *uids: str) -> Battle:
    b = pos.battle
    if b is None:
        raise InputError("the position has no battle (\"battle\": {...})")
    for uid in uids:
        pos.unit(uid)
        if uid not in b.units:
            raise InputError(f"{uid}: not on the battle board")
    return b


def _target_checks(pos: NiePosition, b: Battle, uid: str, target: str, max_range: int) -> tuple[int, str]:
    u, t = pos.unit(uid), pos.unit(target)
    side, tside = side_of(b, u), side_of(b, t)
    if side == tside:
        raise InputError(f"{target}: not an enemy of {uid}")
    if t.kind.base == LEADER:
        raise InputError(f"{target}: a leader cannot be the direct target of an attack (§6, §8.6)")
    tz = b.units[target].zone
    if tz.row in (A_RESERVE, B_RESERVE, A_ROUT, B_ROUT):
        raise InputError(f"{target}: units in the reserve (or rout) zone cannot be attacked (§3.3, §6)")
    d = frontal_distance(b.units[uid].zone, tz, side)
    if d is None:
        raise InputError(f"{uid} -> {target}: attacks only straight ahead in the same column, never diagonally "
                         "or sideways (§6, E3)")
    if d > max_range:
        raise InputError(f"{uid} -> {target}: {d} zones away, range {max_range} (§7.1)")
    if d == 2:
        between = Zone(b.units[uid].zone.row + (1 if side == "A" else -1), tz.col)
        if units_in(b, pos.units, between):
            raise InputError(f"{uid} -> {target}: long fire needs an empty zone between ({between.name(b.major)} "
                             "holds units, §6)")
    return d, side


def fire_target_number(shooter: Unit, target: Unit, distance: int, opts: Options) -> tuple[int, str | None, str]:
    """The fire table's number (§8.3; A1 cells from the options)."""
    fb, tb = SHORT[shooter.kind.base], SHORT[target.kind.base]
    key = f"fire_{fb}_{tb}" + (f"_{distance}" if fb == "art" else "")
    value, note = opts.cell(key, f"fire table {shooter.kind.base} -> {target.kind.base}")
    return value, note, key


def fire_modifiers(pos: NiePosition, b: Battle, uid: str, target: str) -> list[tuple[int, str]]:
    """§8.3 fire modifiers, itemised."""
    u = pos.unit(uid)
    mods = []
    if u.kind.fire_mod:
        mods.append((u.kind.fire_mod, f"{u.kind.name} firing (§8.1)"))
    if u.kind.base == INFANTRY and b.units[uid].square:
        mods.append((-1, "infantry firing from square (§8.5)"))
    if b.units[target].square:
        if u.kind.base == INFANTRY:
            mods.append((1, "infantry firing at a square (§8.5)"))
        elif u.kind.base == ARTILLERY:
            mods.append((2, "artillery firing at a square (§8.5)"))
    if b.amphibious and side_of(b, u) == "B":
        mods.append((2, "defender of an amphibious landing (§5.2)"))
    return mods


def fire_preview(pos: NiePosition, uid: str, target: str, opts: Options = DEFAULT) -> dict:
    """Whether `uid` may fire at `target` and the number it needs (no dice)."""
    b = _on_board(pos, uid, target)
    u, t = pos.unit(uid), pos.unit(target)
    if u.kind.base not in (INFANTRY, ARTILLERY):
        raise InputError(f"{uid}: {u.kind.name} cannot fire (§7.1)")
    d, _ = _target_checks(pos, b, uid, target, 2 if u.kind.base == ARTILLERY else 1)
    if (opts.protected_artillery_blocks_fire and t.kind.base == ARTILLERY
            and _protected(pos, b, target)):
        raise InputError(f"{target}: artillery protected by its own infantry or cavalry cannot be fired at (A6 "
                         "option protected_artillery_blocks_fire)")
    need, note, key = fire_target_number(u, t, d, opts)
    mods = fire_modifiers(pos, b, uid, target)
    return {"distance": d, "table": need, "table_cell": key, "modifiers": mods,
            "needs_raw": need - sum(m for m, _ in mods), "note": note}


def fire(pos: NiePosition, uid: str, target: str, dice: Dice, opts: Options = DEFAULT,
         leader: str | None = None) -> Result:
    """Fire (§8.3 [R-FIRE]): 2d6 + modifiers >= the table number hits; the hit's 1d6: <= the type's elimination
    range eliminates, else the target routs; a raw 11/12 kills one leader of the target's side in its zone."""
    b = pos.battle_copy()
    u = _acting(pos, b, uid)
    pv = fire_preview(pos, uid, target, opts)
    t = pos.unit(target)
    units = dict(pos.units)
    tz = b.units[target].zone
    tside = side_of(b, t)
    r = roll_2d6(dice, pv["modifiers"], f"{uid} fires at {target}")
    r["threshold"] = pv["table"]
    r["hit"] = r["total"] >= pv["table"]
    b.units[uid].used += 1
    if tz.row == MIDDLE:
        b.middle_activity = True
    rolls, changes, notes = [r], [], [pv["note"]] if pv["note"] else []
    mods = "".join(f" {m:+d} {why}" for m, why in pv["modifiers"])
    lines = [f"{uid} ({u.kind.name}) fires at {target} ({t.kind.name}) {pv['distance']} zone(s): needs "
             f"{pv['table']} (§8.3){mods}; rolled {r['dice'][0]}+{r['dice'][1]} = raw {r['raw']}, total "
             f"{r['total']}: {'HIT' if r['hit'] else 'miss'}"]
    if r["hit"]:
        e = roll_d6(dice, f"hit effect on {target}")
        rolls.append(e)
        if e["raw"] <= t.kind.fire_elim:
            changes.append(_remove(pos, b, units, target, f"fire by {uid}"))
            lines.append(f"  effect {e['raw']} (1-{t.kind.fire_elim} eliminates a {t.kind.name}): {target} "
                         "eliminated (§8.3)")
        else:
            changes.append(_rout(b, units, target, f"fire by {uid}"))
            lines.append(f"  effect {e['raw']}: {target} goes to the rout zone (§8.3)")
    _leader_casualty(pos, b, units, r, tz, tside, leader, lines, changes)
    return _result("fire", pos, b, units, lines, rolls, changes, notes, hit=r["hit"])


def _leader_casualty(pos, b, units, roll, zone, side, chosen, lines, changes) -> None:
    """A raw 11 or 12 against a unit in a leader's zone eliminates one leader there (§8.3 step 5, §8.6)."""
    if roll["raw"] < 11:
        return
    ldrs = leaders_in(b, units, zone, side)
    if not ldrs:
        lines.append(f"  raw {roll['raw']}: no leader in {zone.name(b.major)}, none is lost (§8.6)")
        return
    if chosen is not None and chosen not in ldrs:
        raise InputError(f"leader={chosen}: not a leader in {zone.name(b.major)} ({', '.join(ldrs)}); the raw "
                         f"{roll['raw']} eliminates one of them (§8.3, §8.6)")
    victim = chosen if chosen is not None else ldrs[0]
    changes.append(_remove(pos, b, units, victim, f"raw {roll['raw']} against its zone"))
    lines.append(f"  raw {roll['raw']}: leader {victim} in {zone.name(b.major)} is eliminated (§8.3, §8.6)")


# ---------------------------------------------------------------------------------------------- charge (§8.4, §8.5)


def _protected(pos: NiePosition, b: Battle, art: str) -> bool:
    t = pos.unit(art)
    side = side_of(b, t)
    return any(pos.units[o].kind.base in (INFANTRY, CAVALRY) for o in units_in(b, pos.units, b.units[art].zone, side)
               if o != art)


def charge_modifiers(pos: NiePosition, b: Battle, uid: str, other: str, attacking: bool,
                     opts: Options) -> tuple[list[tuple[int, str]], list[str]]:
    """One side's charge modifiers (§8.4 table and additional modifiers, §8.5 square, §5.2 amphibious)."""
    u, o = pos.unit(uid), pos.unit(other)
    side = side_of(b, u)
    zone = b.units[uid].zone
    mods, notes = [], []
    if attacking:
        key = f"charge_{SHORT[u.kind.base]}_{SHORT[o.kind.base]}"
        value, note = opts.cell(key, f"charge table {u.kind.base} -> {o.kind.base}")
        if value:
            mods.append((value, f"{u.kind.base} charging {o.kind.base} (charge table, §8.4)"))
        if note:
            notes.append(note)
    if leaders_in(b, pos.units, zone, side):
        mods.append((1, "own leader in the zone (§8.6)"))
    if combined_arms(b, pos.units, zone, side):
        mods.append((1, "combined arms in the zone (§8.4)"))
    if u.kind.charge_mod and (attacking or u.kind.base != CAVALRY or opts.heavy_irregular_mod_defending):
        a11 = not attacking and u.kind.base == CAVALRY
        mods.append((u.kind.charge_mod, f"{u.kind.name} (§8.1{', A11' if a11 else ''})"))
    if attacking and u.kind.base == CAVALRY and b.units[other].square:
        mods.append((-3, "cavalry charging a square (§8.5)"))
    if b.amphibious and side == "B":
        mods.append((2, "defender of an amphibious landing (§5.2)"))
    return mods, notes


def charge_preview(pos: NiePosition, uid: str, target: str, opts: Options = DEFAULT) -> dict:
    """Whether `uid` may charge `target`, both sides' modifiers and the target's possible reactions (no dice)."""
    b = _on_board(pos, uid, target)
    u, t = pos.unit(uid), pos.unit(target)
    if u.kind.base not in (INFANTRY, CAVALRY):
        raise InputError(f"{uid}: {u.kind.name} cannot charge (§7.1)")
    if b.units[uid].square:
        raise InputError(f"{uid}: infantry in square may not charge (§8.5)")
    _target_checks(pos, b, uid, target, 1)
    if t.kind.base == ARTILLERY and _protected(pos, b, target):
        raise InputError(f"{target}: artillery may not be charged while own infantry or cavalry share its zone "
                         "(§8.4)")
    att, n1 = charge_modifiers(pos, b, uid, target, True, opts)
    dfn, n2 = charge_modifiers(pos, b, target, uid, False, opts)
    return {"attacker_modifiers": att, "defender_modifiers": dfn, "notes": n1 + n2,
            "may_form_square": u.kind.base == CAVALRY and t.kind.base == INFANTRY and not b.units[target].square,
            "may_evade": u.kind.base == INFANTRY and t.kind.base == CAVALRY}


def charge(pos: NiePosition, uid: str, target: str, dice: Dice, opts: Options = DEFAULT, square: bool = False,
           abort: bool = False, evade: bool = False, leader: str | None = None) -> Result:
    """A charge (§8.4 [R-CHARGE]): the target's reaction first (square against cavalry, §8.5, militia may fail it
    A10; cavalry may evade infantry), the cavalry may then abort (its action is spent); else both roll 2d6 +
    modifiers, the higher wins: the loser routs on a difference of 1-2, is eliminated on 3+ (elite infantry 4+);
    the loser may be the attacker (A7); a tie follows the option charge_tie (A8). The attacker's raw 11/12 kills a
    defending leader in the target zone (A12)."""
    b = pos.battle_copy()
    u = _acting(pos, b, uid)
    pv = charge_preview(pos, uid, target, opts)
    t = pos.unit(target)
    units = dict(pos.units)
    side, tside = side_of(b, u), side_of(b, t)
    b.units[uid].used += 1
    lines, rolls, changes, notes = [], [], [], []
    lines.append(f"{uid} ({u.kind.name}) charges {target} ({t.kind.name}) (§8.4)")
    if square:
        _form_square(b, target, t, pv, dice, opts, lines, rolls, changes)
    if abort:
        if not (u.kind.base == CAVALRY and b.units[target].square):
            raise InputError(f"{uid}: only cavalry may abort, when its target forms square (§8.4)")
        lines.append(f"  {uid} aborts the charge; its combat action is spent (§8.4)")
        return _result("charge", pos, b, units, lines, rolls, changes, notes, aborted=True)
    if evade:
        if not pv["may_evade"]:
            raise InputError(f"{target}: only cavalry charged by infantry may evade (§8.4)")
        b.units[target].zone = own_reserve(tside)
        lines.append(f"  {target} evades into its reserve zone: no melee (§8.4)")
        changes.append({"unit": target, "zone": own_reserve(tside).name(b.major), "why": "evades"})
        return _result("charge", pos, b, units, lines, rolls, changes, notes, evaded=True)
    amods, n1 = charge_modifiers(pos, b, uid, target, True, opts)
    dmods, n2 = charge_modifiers(pos, b, target, uid, False, opts)
    notes += n1 + n2
    ra = roll_2d6(dice, amods, f"{uid} charges")
    rd = roll_2d6(dice, dmods, f"{target} defends")
    rolls += [ra, rd]
    diff = ra["total"] - rd["total"]
    lines.append(f"  attacker {_charge_roll_text(ra)}; defender {_charge_roll_text(rd)}")
    winner = _charge_losses(pos, b, units, uid, target, diff, opts, lines, changes, notes)
    _leader_casualty(pos, b, units, ra, pos.battle.units[target].zone, tside, leader, lines, changes)
    if opts.defender_roll_kills_leader and uid in pos.battle.units:
        _leader_casualty(pos, b, units, rd, pos.battle.units[uid].zone, side, None, lines, changes)
    return _result("charge", pos, b, units, lines, rolls, changes, notes, winner=winner, difference=diff)


def _form_square(b: Battle, target: str, t: Unit, pv: dict, dice: Dice, opts: Options, lines: list, rolls: list,
                 changes: list) -> None:
    """The target's reaction to a cavalry charge: it forms square (§8.5); militia roll for it and may fail (A10)."""
    if not pv["may_form_square"]:
        raise InputError(f"{target}: square only against a cavalry charge by unformed infantry (§8.5)")
    if t.type == "militia":
        r = roll_d6(dice, f"militia {target} forms square")
        r["threshold"] = opts.militia_square_fail_max
        rolls.append(r)
        if r["raw"] <= opts.militia_square_fail_max:
            lines.append(f"  militia square roll {r['raw']} (1-{opts.militia_square_fail_max} fails, A10): the "
                         "square fails")
        else:
            b.units[target].square = True
            lines.append(f"  militia square roll {r['raw']}: {target} forms square (§8.5)")
    else:
        b.units[target].square = True
        lines.append(f"  {target} forms square (§8.5)")
    changes.append({"unit": target, "square": b.units[target].square})


def _charge_roll_text(r: dict) -> str:
    ms = "".join(f" {m:+d} {why}" for m, why in r["modifiers"])
    return f"{r['dice'][0]}+{r['dice'][1]} = raw {r['raw']}{ms} = {r['total']}"


def _charge_losses(pos: NiePosition, b: Battle, units: dict, uid: str, target: str, diff: int, opts: Options,
                   lines: list, changes: list, notes: list) -> str | None:
    """The charge's loser routs on a difference of 1-2, is eliminated on 3+ (elite infantry 4+; A7); a tie follows
    the option charge_tie (A8). Returns the winner (None on a tie)."""
    if diff == 0:
        tie = opts.charge_tie
        lines.append(f"  tie: the rules do not say (A8); option charge_tie = {tie}")
        notes.append(f"charge tie resolved by the option charge_tie = {tie} (A8)")
        losers = {"no_effect": [], "both_rout": [uid, target], "attacker_routs": [uid],
                  "defender_routs": [target]}[tie]
        for lo in losers:
            changes.append(_rout(b, units, lo, "charge tie (A8)"))
        return None
    loser, winner = (target, uid) if diff > 0 else (uid, target)
    lu = units[loser]
    margin = abs(diff)
    if margin >= lu.kind.charge_elim:
        changes.append(_remove(pos, b, units, loser, f"lost a charge by {margin}"))
        lines.append(f"  {winner} wins by {margin}: {loser} eliminated (3+, elite infantry 4+; §8.4, A7)")
    else:
        changes.append(_rout(b, units, loser, f"lost a charge by {margin}"))
        lines.append(f"  {winner} wins by {margin}: {loser} goes to the rout zone (§8.4)")
    return winner


# ---------------------------------------------------------------------------------------------- rally (§8.6)


def rally(pos: NiePosition, leader: str, unit: str | None, dice: Dice, opts: Options = DEFAULT) -> Result:
    """A leader in its reserve zone spends an action to rally (§8.6 [R-RALLY]): 2d6 >= the unit's rally number
    (8, elite 7, militia and irregular cavalry 9) brings it from the rout zone to the reserve (A13: named first)."""
    b = pos.battle_copy()
    _acting(pos, b, leader, LEADER)
    side = side_of(b, pos.unit(leader))
    if b.units[leader].zone != own_reserve(side):
        raise InputError(f"{leader}: only a leader in its reserve zone may rally (§8.6)")
    routed = [uid for uid in units_in(b, pos.units, own_rout(side), side)]
    if not routed:
        raise InputError(f"{leader}: no unit of its side in the rout zone")
    if unit is None and opts.rally_name_before_roll:
        raise InputError("rally: name the unit before the roll (A13; option rally_name_before_roll)")
    if unit is not None and unit not in routed:
        raise InputError(f"rally: {unit} is not in its side's rout zone")
    b.units[leader].used += 1
    target = pos.unit(unit).kind.rally if unit else min(pos.units[u].kind.rally for u in routed)
    r = roll_2d6(dice, [], f"{leader} rallies {unit or 'a routed unit'}")
    r["threshold"] = target
    lines = [f"{leader} rallies {unit or 'a routed unit'}: needs {target} (§8.6); rolled "
             f"{r['dice'][0]}+{r['dice'][1]} = {r['raw']}"]
    changes = []
    chosen = unit
    if unit is None:
        able = sorted(u for u in routed if pos.units[u].kind.rally <= r["raw"])
        chosen = able[0] if able else None
    if chosen is not None and r["raw"] >= pos.unit(chosen).kind.rally:
        b.units[chosen].zone = own_reserve(side)
        changes.append({"unit": chosen, "zone": own_reserve(side).name(b.major), "why": "rallied"})
        lines.append(f"  {chosen} rallies into the reserve zone")
    else:
        lines.append("  the rally fails")
    return _result("rally", pos, b, dict(pos.units), lines, [r], changes, [], rallied=bool(changes))


# ---------------------------------------------------------------------------------------------- retreat, pursuit


def retreat(pos: NiePosition, side: str) -> Result:
    """Voluntary retreat (§8.7 [R-RETREAT]): after the first complete round, in one of the side's own phases,
    before it has acted in that phase; the retreating side loses and is pursued."""
    b = pos.battle_copy()
    if b.phase not in PHASES:
        raise InputError(f"retreat: the battle is in its {b.phase} phase")
    if b.round < 2:
        raise InputError("retreat: only after the first complete combat round (§8.7)")
    if b.acting != side:
        raise InputError("retreat: declare it in one of your own phases (§8.7)")
    if any(bu.used for uid, bu in b.units.items() if side_of(b, pos.units[uid]) == side):
        raise InputError("retreat: declare it before any combat action in the phase (§8.7)")
    who = "attacker" if side == "A" else "defender"
    _finish(b, side, f"the {who} retreats voluntarily and loses (§8.7)")
    b.retreated = side
    return _result("retreat", pos, b, dict(pos.units), [b.end_reason], [], [], [])


def pursuit_state(pos: NiePosition, opts: Options = DEFAULT) -> dict:
    """Who may pursue and whom (§8.8 [R-PURSUIT]): every winning infantry and cavalry unit outside its rout zone
    that has not pursued; the targets are the loser's units (A22: rout zone too); while the loser has cavalry
    outside its rout zone only cavalry pursue, and that screening cavalry is the only target."""
    b = pos.battle
    if b is None or b.phase != "pursuit":
        raise InputError("pursuit: the battle has not ended")
    loser = b.loser
    winner = "B" if loser == "A" else "A"
    lu = [uid for uid in b.units if side_of(b, pos.units[uid]) == loser]
    screen = [uid for uid in lu if pos.units[uid].kind.base == CAVALRY and b.units[uid].zone != own_rout(loser)]
    pursuers = [uid for uid, bu in b.units.items() if side_of(b, pos.units[uid]) == winner
                and pos.units[uid].kind.base in (INFANTRY, CAVALRY) and bu.zone != own_rout(winner) and not bu.used
                and (not screen or pos.units[uid].kind.base == CAVALRY)]
    targets = screen if screen else [uid for uid in lu if opts.pursue_rout_zone
                                     or b.units[uid].zone != own_rout(loser)]
    return {"winner": winner, "loser": loser, "pursuers": sorted(pursuers), "targets": sorted(targets),
            "screen": sorted(screen)}


def pursue(pos: NiePosition, pursuer: str, target: str, dice: Dice, opts: Options = DEFAULT) -> Result:
    """One pursuer's 1d6 against one loser's unit: >= the pursuit table's number eliminates it (§8.8)."""
    st = pursuit_state(pos, opts)
    if pursuer not in st["pursuers"]:
        raise InputError(f"pursue: {pursuer} may not pursue (winning infantry/cavalry outside the rout zone, once; "
                         "only cavalry against a cavalry screen; §8.8)")
    if target not in st["targets"]:
        extra = " (the screening cavalry first)" if st["screen"] else ""
        raise InputError(f"pursue: {target} is not a pursuit target{extra} (§8.8)")
    b = pos.battle_copy()
    p, t = pos.unit(pursuer), pos.unit(target)
    key = f"pursuit_{SHORT[p.kind.base]}_{SHORT[t.kind.base]}"
    need, note = opts.cell(key, f"pursuit table {p.kind.base} -> {t.kind.base}")
    r = roll_d6(dice, f"{pursuer} pursues {target}")
    r["threshold"] = need
    b.units[pursuer].used = 1
    units = dict(pos.units)
    lines = [f"{pursuer} ({p.kind.name}) pursues {target} ({t.kind.name}): needs {need} (§8.8); rolled {r['raw']}"]
    changes = []
    if r["raw"] >= need:
        changes.append(_remove(pos, b, units, target, f"pursued by {pursuer}"))
        lines.append(f"  {target} eliminated")
    else:
        lines.append("  escapes")
    return _result("pursue", pos, b, units, lines, [r], changes, [note] if note else [])


def losses(b: Battle, opts: Options = DEFAULT) -> dict[str, dict[str, int]]:
    """Units eliminated in this battle per nation and type."""
    out: dict[str, dict[str, int]] = {}
    for e in b.eliminated:
        base = UNIT_TYPES[e["type"]].base
        out.setdefault(e["nation"], {}).setdefault(base, 0)
        out[e["nation"]][base] += 1
    return out


def c_test_due(b: Battle, opts: Options = DEFAULT) -> list[str]:
    """Nations that must roll against their C value after this battle (§9.10 [R-CVALUE], A14): `c_test_losses` or
    more units eliminated (leaders counted unless the option says not; a lost battle needed if it says so)."""
    due = []
    for nation, by in losses(b, opts).items():
        if nation == MINOR:
            continue
        n = sum(v for k, v in by.items() if opts.c_test_counts_leaders or k != LEADER)
        lost = (nation in b.attacker and b.loser == "A") or (nation in b.defender and b.loser == "B")
        if n >= opts.c_test_losses and (lost or not opts.c_test_requires_lost_battle):
            due.append(nation)
    return sorted(due)


def retreat_options(pos: NiePosition, uid: str) -> list[str]:
    """Where a loser's unit may retreat (§8.9 [R-RETREATMAP]): an attacker back to the region it came from; a
    defender to an adjacent region without enemy troops that no attacker came from; none: eliminated."""
    b = pos.battle
    u = pos.unit(uid)
    side = side_of(b, u)
    if side == "A":
        back = b.came_from.get(uid)
        if back is None and pos.resisting.get(b.region) == u.nation:
            # the annexer's units were already there when the minor resisted; the digest does not say where they
            # go: like a defender, to a neighbour free of enemy troops (engine reading)
            return [rid for rid in sorted(pos.europe.region(b.region).neighbours)
                    if not any(o.kind.army and pos.at_war(u.nation, o.nation) for o in pos.units_at(rid))]
        if back is None:
            raise InputError(f"{uid}: the region it came from is not recorded (battle.came_from); §8.9 sends a "
                             "losing attacker back there")
        return [back]
    came = set(b.came_from.values())
    out = []
    for rid in sorted(pos.europe.region(b.region).neighbours):
        if rid in came:
            continue
        if any(o.kind.army and pos.at_war(u.nation, o.nation) for o in pos.units_at(rid)):
            continue
        out.append(rid)
    return out


def _check_retreat_choices(b: Battle, units: Mapping[str, Unit], retreats: Mapping[str, str]) -> None:
    """Every `retreat.ID=` choice names a unit of the losing side that retreats (§8.9), not one silently ignored."""
    retreating = sorted(uid for uid in b.units if side_of(b, units[uid]) == b.loser and units[uid].nation != MINOR)
    stray = [uid for uid in retreats if uid != "*" and uid not in retreating]
    if stray:
        raise InputError(f"end_battle: retreat.{stray[0]}: not a unit of the losing side that retreats (§8.9); "
                         f"those retreating: {', '.join(retreating) or 'none'}")


def end_battle(pos: NiePosition, retreats: Mapping[str, str] | None = None, opts: Options = DEFAULT) -> Result:
    """After pursuit (§8.8, §8.9): the winner's routed units rejoin, every surviving loser unit retreats to a legal
    region (or is eliminated when it has none), the losses are totalled, the C-value tests due are named (§9.10) and
    the winner of a major battle gains 1 PAP (§9.7)."""
    b = pos.battle_copy()
    if b.phase != "pursuit":
        raise InputError("end_battle: the battle has not ended (or is over)")
    retreats = dict(retreats or {})
    loser = b.loser
    units = dict(pos.units)
    _check_retreat_choices(b, units, retreats)
    lines, changes = [], []
    for uid in sorted(b.units):
        u = units[uid]
        if side_of(b, u) != loser or u.nation == MINOR:
            continue
        opts_ = retreat_options(pos, uid)
        if not opts_:
            changes.append(_remove(pos, b, units, uid, "no legal retreat (§8.9)"))
            lines.append(f"{uid}: no legal retreat: eliminated (§8.9)")
            continue
        dest = retreats.get(uid) or retreats.get("*") or (opts_[0] if len(opts_) == 1 else None)
        if dest not in opts_:
            raise InputError(f"end_battle: {uid} retreats to one of {', '.join(opts_)} (§8.9): "
                             f"--choice retreat.{uid}=REGION or retreat.*=REGION")
        units[uid] = Unit(u.id, u.side, u.type, dest)
        changes.append({"unit": uid, "at": dest, "why": "retreat (§8.9)"})
        lines.append(f"{uid} retreats to {dest} (§8.9)")
    winner = "B" if loser == "A" else "A"
    lines.append(f"the {'attacker' if winner == 'A' else 'defender'}'s routed units rejoin the army (§8.8)")
    owners, resisting = dict(pos.owners), dict(pos.resisting)
    annexer = resisting.pop(b.region, None)
    if annexer is not None and MINOR in (*b.attacker, *b.defender):
        minor_lost = (MINOR in b.attacker) == (loser == "A")
        for uid in [uid for uid, u in units.items() if u.nation == MINOR and u.at == b.region]:
            units.pop(uid)
            b.units.pop(uid, None)
            changes.append({"unit": uid, "removed": True, "why": "light-blue army removed (§9.8, A19)"})
        if minor_lost:
            owners[b.region] = annexer
            lines.append(f"{b.region} lost its first battle: {annexer} places its control marker (§9.8); the "
                         "light-blue survivors are removed (engine reading)")
        else:
            lines.append(f"{b.region} won: its light-blue army is removed and {annexer}'s annexation fails (A19)")
    pap = dict(pos.pap)
    winners = b.attacker if winner == "A" else b.defender
    if b.major:
        for n in winners:
            if n in pos.players or not pos.players:
                pap[n] = pap.get(n, 0) + 1
        lines.append(f"winning a major battle: +1 PAP to {', '.join(winners)} (§9.7)")
    leave = ports_to_leave(with_changes(pos, units=units))
    for port, ships in leave.items():
        lines.append(f"{port} is held by enemy troops: {', '.join(ships)} must move to an adjacent sea area (§5.3)")
    due = c_test_due(b, opts)
    for n in due:
        lines.append(f"{n} lost {opts.c_test_losses}+ units: it must roll 2d6 against its C value now (§9.10)")
    b.phase = "over"
    b.units = {}
    after = with_changes(pos, units=units, battle=b, pap=pap, owners=owners, resisting=resisting)
    return Result("end_battle", after, lines, [], changes, [],
                  {"losses": losses(b, opts), "c_tests": due, "winner": winner, "ports_to_leave": leave})


def zone_names(major: bool) -> list[str]:
    return [z.name(major) for z in zones(major)]
