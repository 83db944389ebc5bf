"""Strategic movement on the map of Europe (digest §5.1-§5.4, §8.10) as pure functions of a position.

Land moves of 1 or 2 regions with entry rights and stopping on the enemy (§5.1), amphibious moves with transport
interception and the landing militia (§5.2, §5.4b), naval moves and ports (§5.3), squadron interception (§5.4a),
sea battles (§8.10), and the battles the movement causes (§4.1b).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from common.dice import Dice
from common.errors import InputError
from rules.nie.battle import Result, roll_2d6, roll_d6
from rules.nie.model import LEADER, NATIONS, NAVAL, NiePosition, Unit, ports_to_leave, with_changes
from rules.nie.options import DEFAULT, Options
from rules.nie.politics import capital_tests

SEA_LOSS = ((0, 0), (1, 1), (2, 1), (3, 2), (4, 2))
"""§8.10 [R-SEABATTLE]: difference -> squadrons the loser loses; 5 or more: 3."""


def sea_loss(diff: int) -> int:
    diff = abs(diff)
    return 3 if diff >= 5 else SEA_LOSS[diff][1]


def _ids(pos: NiePosition, uids: Sequence[str]) -> list[Unit]:
    if not uids:
        raise InputError("name at least one unit")
    units = [pos.unit(u) for u in uids]
    for u in units:
        if pos.inactive(u.nation):
            raise InputError(f"{u.id}: {u.nation} is a neutral Great Nation, inactive until it joins an alliance or "
                             "is attacked (§9.6)")
    return units


def _no_move_in_production(pos: NiePosition, what: str) -> None:
    """§4.1: the production round follows the month's player turns; nobody moves in it (it ends with end_turn)."""
    if pos.production is not None:
        raise InputError(f"{what}: the production round is under way ({pos.active}'s production turn): no movement "
                         "until it ends (§4.1)")


def militia_may_leave(nation: str, year: int) -> bool:
    """§5.1/§8.1: militia stay in their homeland except Prussian militia after 1809 and Ottoman militia."""
    return nation == "ottoman" or (nation == "prussia" and year > 1809)


def entry_reasons(pos: NiePosition, nation: str, region: str) -> list[str]:
    """Why `nation`'s land units may not enter `region` (§5.1): a neutral minor is open; a region owned or occupied
    by another nation needs an alliance, a right of passage or a war."""
    r = pos.europe.region(region)
    others = {u.nation for u in pos.units_at(region) if u.kind.base != NAVAL and u.nation != nation}
    owner = pos.owner(region)
    if owner is not None and owner != nation:
        others.add(owner)
    out = []
    for o in sorted(others):
        if o in ("minor",):
            continue
        if pos.allied(nation, o) or pos.at_war(nation, o) or (nation, o) in pos.passage:
            continue
        out.append(f"{r.name} is owned or occupied by {o}: needs an alliance, a right of passage or a war (§5.1)")
    return out


def hostile_land(pos: NiePosition, nation: str, region: str) -> list[str]:
    return sorted(u.id for u in pos.units_at(region) if u.kind.base != NAVAL and pos.at_war(nation, u.nation))


def land_move(pos: NiePosition, uids: Sequence[str], path: Sequence[str], opts: Options = DEFAULT) -> Result:
    """Land units move together along `path` (the regions entered, in order): 1 region for infantry and artillery,
    2 for cavalry and leaders, each step to a neighbour, only where they may enter, stopping in a region with enemy
    land units (a battle follows); militia stay home (§5.1 [R-LANDMOVE], A9)."""
    units = _ids(pos, uids)
    _no_move_in_production(pos, "land move")
    if not path:
        raise InputError("land move: give the path (the regions entered, in order)")
    start = {u.at for u in units}
    if len(start) != 1:
        raise InputError("land move: units moving together start in one region")
    lines = []
    reasons = _land_units_reasons(pos, units, path) + _land_path_reasons(pos, units, path, next(iter(start)))
    if reasons:
        raise InputError("land move: " + "; ".join(dict.fromkeys(reasons)))
    here = path[-1]
    new = dict(pos.units)
    for u in units:
        new[u.id] = Unit(u.id, u.side, u.type, here)
    lines.append(f"{', '.join(u.id for u in units)} move {next(iter(start))} -> {' -> '.join(path)} (§5.1)")
    after = with_changes(pos, units=new, moved=pos.moved | {u.id for u in units})
    fights = battles(after)
    data = {"battles": fights, "c_tests": capital_tests(pos, after), "ports_to_leave": ports_to_leave(after)}
    for port, ships in data["ports_to_leave"].items():
        lines.append(f"{port} is held by enemy troops: {', '.join(ships)} must move to an adjacent sea area (§5.3)")
    for n in data["c_tests"]:
        lines.append(f"enemy troops occupy {n}'s capital: {n} rolls against its C value now (§9.10, A25)")
    if here in fights:
        lines.append(f"{here}: enemy land units: the move stops, a battle follows after all movement (§4.1, §5.1)")
    return Result("land_move", after, lines, [], [{"unit": u.id, "at": here} for u in units], [], data)


def _land_units_reasons(pos: NiePosition, units: list[Unit], path: Sequence[str]) -> list[str]:
    """Why these units may not move this far together: not allies, a squadron, too slow, moved already."""
    nation = units[0].nation
    reasons = []
    for u in units:
        if u.nation != nation and not pos.allied(u.nation, nation):
            reasons.append(f"{u.id}: allies move together, not {u.nation} with {nation} (§9.6)")
        if u.kind.base == NAVAL:
            reasons.append(f"{u.id}: a squadron moves at sea (§5.3)")
        elif len(path) > u.kind.move:
            reasons.append(f"{u.id}: a {u.kind.name} moves {u.kind.move} region(s) per turn, not {len(path)} (§5.1)")
    for u in units:
        if u.id in pos.moved:
            reasons.append(f"{u.id}: already moved this month (§4.1; allies: in one of their turns)")
    return reasons


def _land_path_reasons(pos: NiePosition, units: list[Unit], path: Sequence[str], here: str) -> list[str]:
    """Why the path from `here` is not theirs: not neighbours, a region they may not enter, militia leaving home,
    going on through enemy land units."""
    reasons = []
    for i, step in enumerate(path):
        pos.europe.region(step, "land move")
        if not pos.europe.adjacent(here, step):
            reasons.append(f"{here} -> {step}: not neighbouring regions (§5.1)")
        for u in units:
            reasons += [f"{u.id}: {why}" for why in entry_reasons(pos, u.nation, step)]
            if u.type == "militia" and not militia_may_leave(u.nation, pos.year):
                if pos.europe.region(step).home != u.nation:
                    reasons.append(f"{u.id}: militia may not leave its homeland (§5.1, A9)")
        if i < len(path) - 1 and any(hostile_land(pos, u.nation, step) for u in units):
            reasons.append(f"{step} holds enemy land units: the move must stop there (§5.1)")
        here = step
    return reasons


def battles(pos: NiePosition) -> list[str]:
    """Regions where land units of nations at war stand together: a tactical battle is due (§4.1b)."""
    out = []
    for rid in pos.europe.regions:
        nations = {u.nation for u in pos.units_at(rid) if u.kind.base != NAVAL}
        if any(pos.at_war(a, b) for a in nations for b in nations if a < b):
            out.append(rid)
    return out


def squadrons(pos: NiePosition, where: str, nations) -> list[str]:
    return sorted(u.id for u in pos.units_at(where) if u.kind.base == NAVAL and u.nation in nations)


def friends(pos: NiePosition, nation: str) -> set[str]:
    return {n for n in NATIONS if pos.allied(nation, n)}


def enemies(pos: NiePosition, nation: str) -> set[str]:
    return {n for n in NATIONS if pos.at_war(nation, n)}


def transport_rate(enemy: int, own: int) -> int:
    """§5.4b: enemy squadrons minus the active player's and his allies', never less than 1."""
    return max(1, enemy - own)


def _sea_route(pos: NiePosition, start: str, route: Sequence[str], target: str) -> list[str]:
    reasons = []
    s, t = pos.europe.region(start), pos.europe.region(target)
    if not s.port:
        reasons.append(f"{start}: amphibious moves start in a port region (anchor, §5.2)")
    if not t.port:
        reasons.append(f"{target}: not a coastal region of the map (§5.2)")
    if not route:
        reasons.append("give the sea route (the sea areas passed, in order)")
        return reasons
    for sea in route:
        pos.europe.sea(sea, "sea route")
    if route[0] not in s.port:
        reasons.append(f"{route[0]}: not a sea area touching {start}'s anchor (§3.2)")
    for a, b in zip(route, route[1:], strict=False):
        sa = pos.europe.seas[a]
        if b not in sa.neighbours | sa.straits:
            reasons.append(f"{a} -> {b}: not neighbouring sea areas")
    if route[-1] not in t.port:
        reasons.append(f"{route[-1]}: not a sea area next to {target} (§5.2)")
    return reasons


def amphibious(pos: NiePosition, uids: Sequence[str], route: Sequence[str], target: str, dice: Dice,
               opts: Options = DEFAULT) -> Result:
    """An amphibious move (§5.2 [R-AMPHIB]): from a port region along a sea route to a coastal region; own or
    allied squadrons in the sea area next to the target at least as many as the army figures carried (leaders
    free); in each sea area holding enemy squadrons every transported unit rolls 1d6 and is eliminated on <= the
    interception rate (§5.4b); landing in an enemy homeland region not in revolt brings 3 militia of that nation;
    enemy units there mean a battle with the defender's +2."""
    units = _ids(pos, uids)
    _no_move_in_production(pos, "amphibious move")
    starts = {u.at for u in units}
    if len(starts) != 1:
        raise InputError("amphibious move: the units start in one region")
    start = next(iter(starts))
    nation = units[0].nation
    reasons = _sea_route(pos, start, route, target) + _carried_reasons(pos, units, nation, target)
    reasons += [f"{target}: {why}" for why in entry_reasons(pos, nation, target)]
    carriers = squadrons(pos, route[-1], friends(pos, nation)) if route else []
    army = [u for u in units if u.kind.base != LEADER]
    if route and len(carriers) < len(army):
        reasons.append(f"{route[-1]}: {len(carriers)} own or allied squadron(s) next to {target}, {len(army)} army "
                       "figure(s) carried (leaders ride free, §5.2)")
    if reasons:
        raise InputError("amphibious move: " + "; ".join(dict.fromkeys(reasons)))
    new = dict(pos.units)
    lines = [f"{', '.join(u.id for u in units)} ship from {start} via {' -> '.join(route)} to {target} (§5.2); "
             f"{len(carriers)} squadron(s) in {route[-1]} carry {len(army)} army figure(s)"]
    rolls, changes = [], []
    alive = list(units)
    for sea in route:
        alive = _cross_sea(pos, sea, alive, nation, dice, new, lines, rolls, changes)
    for u in alive:
        new[u.id] = Unit(u.id, u.side, u.type, target)
        changes.append({"unit": u.id, "at": target})
    treg = pos.europe.region(target)
    if alive and treg.home and pos.at_war(nation, treg.home) and target not in pos.uprisings:
        _place_homeland_militia(treg.home, target, new, changes, lines)
    after = with_changes(pos, units=new, moved=pos.moved | {u.id for u in alive})
    fight = bool(alive) and bool(hostile_land(after, nation, target))
    if fight:
        lines.append(f"{target}: enemy units: a battle follows; the defenders get +2 on every fire and charge roll "
                     "(§5.2)")
    return Result("amphibious", after, lines, rolls, changes, [],
                  {"landed": [u.id for u in alive], "battle": fight, "amphibious_battle": fight})


def _carried_reasons(pos: NiePosition, units: list[Unit], nation: str, target: str) -> list[str]:
    """Why these units may not be carried: moved already, a squadron, not allied, militia leaving home."""
    reasons = []
    for u in units:
        if u.id in pos.moved:
            reasons.append(f"{u.id}: already moved this month (§4.1; allies: in one of their turns)")
        if u.kind.base == NAVAL:
            reasons.append(f"{u.id}: squadrons carry, they are not carried")
        elif u.nation != nation and not pos.allied(u.nation, nation):
            reasons.append(f"{u.id}: not {nation} or an ally")
        elif u.type == "militia" and not militia_may_leave(u.nation, pos.year) \
                and pos.europe.region(target).home != u.nation:
            reasons.append(f"{u.id}: militia may not leave its homeland (§5.1, A9)")
    return reasons


def _cross_sea(pos: NiePosition, sea: str, alive: list[Unit], nation: str, dice: Dice, new: dict, lines: list,
               rolls: list, changes: list) -> list[Unit]:
    """The carried units cross one sea area: where enemy squadrons are, each rolls 1d6 and is eliminated on <= the
    interception rate (§5.4b). Returns the survivors (all of them where no enemy squadron is)."""
    foe = squadrons(pos, sea, enemies(pos, nation))
    if not foe or not alive:
        return alive
    own = squadrons(pos, sea, friends(pos, nation))
    rate = transport_rate(len(foe), len(own))
    lines.append(f"{sea}: {len(foe)} enemy vs {len(own)} own squadron(s): interception rate "
                 f"{max(0, len(foe) - len(own))}{' -> 1 (minimum)' if len(foe) - len(own) < 1 else ''} (§5.4b)")
    survivors = []
    for u in alive:
        r = roll_d6(dice, f"{u.id} crosses {sea}")
        r["threshold"] = rate
        rolls.append(r)
        if r["raw"] > rate:
            survivors.append(u)
            lines.append(f"  {u.id}: {r['raw']} > {rate}: safe")
        else:
            new.pop(u.id)
            changes.append({"unit": u.id, "eliminated": True, "why": f"intercepted in {sea}"})
            lines.append(f"  {u.id}: {r['raw']} <= {rate}: intercepted and eliminated (§5.4b)")
    return survivors


def _place_homeland_militia(home: str, target: str, new: dict, changes: list, lines: list) -> None:
    """Landing in an enemy homeland region not in revolt: 3 militia of that nation are placed there (§5.2)."""
    n = 1
    for _ in range(3):
        while f"{home}-militia-{target}-{n}" in new:
            n += 1
        mid = f"{home}-militia-{target}-{n}"
        new[mid] = Unit(mid, home, "militia", target)
        changes.append({"unit": mid, "at": target, "placed": True, "why": "landing in an enemy homeland (§5.2)"})
    lines.append(f"landing in {home}'s homeland region {target}: 3 {home} militia are placed (§5.2)")


def naval_move(pos: NiePosition, uids: Sequence[str], path: Sequence[str]) -> Result:
    """Squadrons move through any number of sea areas (§5.3 [R-NAVAL]); a port ("port:REGION") may be entered only
    when the region is owned by the nation or an ally; the move stops where enemy squadrons are met (interception,
    §5.4a) and a squadron in a port leaves it into a sea area its anchor touches."""
    units = _ids(pos, uids)
    _no_move_in_production(pos, "naval move")
    if any(u.kind.base != NAVAL for u in units):
        raise InputError("naval move: only squadrons move at sea (§5.3)")
    starts = {u.at for u in units}
    if len(starts) != 1 or not path:
        raise InputError("naval move: squadrons start together and need a path")
    nation = units[0].nation
    here = next(iter(starts))
    reasons, lines = [], []
    fought = [u.id for u in units if u.id in pos.moved]
    if fought and not (len(path) == 1 and path[0].startswith("port:")):
        reasons.append(f"{', '.join(fought)}: after a sea battle squadrons move no further this round, except into "
                       "an adjacent own port (§5.3)")
    for i, step in enumerate(path):
        ok = _sea_step(pos, here, step)
        if ok:
            reasons.append(ok)
        if step.startswith("port:"):
            owner = pos.owner(step[5:])
            if owner is None or not pos.allied(nation, owner):
                reasons.append(f"{step}: squadrons enter only own or allied ports (§5.3)")
        elif i < len(path) - 1 and squadrons(pos, step, enemies(pos, nation)):
            reasons.append(f"{step}: enemy squadrons there: interception is rolled before moving on (§5.4)")
        here = step
    if reasons:
        raise InputError("naval move: " + "; ".join(dict.fromkeys(reasons)))
    new = dict(pos.units)
    for u in units:
        new[u.id] = Unit(u.id, u.side, u.type, here)
    lines.append(f"{', '.join(u.id for u in units)} sail {next(iter(starts))} -> {' -> '.join(path)} (§5.3)")
    contact = squadrons(pos, here, enemies(pos, nation)) if not here.startswith("port:") else []
    if contact:
        lines.append(f"{here}: enemy squadrons {', '.join(contact)}: interception (§5.4a)")
    return Result("naval_move", with_changes(pos, units=new), lines, [], [{"unit": u.id, "at": here} for u in units],
                  [], {"contact": contact})


def _sea_step(pos: NiePosition, a: str, b: str) -> str | None:
    eu = pos.europe
    if a.startswith("port:"):
        region = eu.region(a[5:], "port")
        return None if b in region.port else f"{a} -> {b}: the port's anchor does not touch {b} (§3.2)"
    if b.startswith("port:"):
        region = eu.region(b[5:], "port")
        return None if a in region.port else f"{a} -> {b}: the port's anchor does not touch {a} (§3.2)"
    sa = eu.sea(a)
    eu.sea(b)
    return None if b in sa.neighbours | sa.straits else f"{a} -> {b}: not neighbouring sea areas"


def interception(die: int | None, left_port: bool = False, strait: bool = False,
                 wants: tuple[bool, bool] = (True, False)) -> dict:
    """§5.4a: both sides want a sea battle: it is fought; neither: none; one: the reluctant squadrons are caught on
    5-6, or 3-6 just after leaving a port (next to it) or when passing a strait (A20: the active player rolls;
    `die` is None when no roll is needed)."""
    if all(wants) or not any(wants):
        return {"need": None, "roll": None, "caught": all(wants),
                "why": "both want a battle (§5.4a)" if all(wants) else "neither wants a battle (§5.4a)"}
    if die is None:
        raise InputError("interception: one side wants a battle, the other does not: roll 1d6 (§5.4a)")
    need = 3 if (left_port or strait) else 5
    return {"need": need, "roll": die, "caught": die >= need,
            "why": "left a port / a strait: 3-6 (§5.4a)" if need == 3 else "5-6 (§5.4a)"}


def is_strait(pos: NiePosition, a: str, b: str) -> bool:
    return a in pos.europe.seas and b in pos.europe.seas[a].straits


def sea_battle(pos: NiePosition, where: str, side_a: Sequence[str], side_b: Sequence[str], dice: Dice,
               port_defender: str | None = None, lose: Mapping[str, Sequence[str]] | None = None) -> Result:
    """A sea battle (§8.10 [R-SEABATTLE]): each side rolls 2d6 + its and its allies' squadrons there (at most 2
    squadrons attack a given port per turn, §5.3: `_port_attackers`); +2 for a defender in port, +1 for a fleet at
    least half British, -1 at least half Ottoman; the lower total loses 0/1/1/2/2/3 squadrons for a difference of
    0/1/2/3/4/5+."""
    port = where.startswith("port:")
    sides = {"A": list(side_a), "B": list(side_b)}
    ships = {k: _sea_battle_ships(pos, where, k, ns) for k, ns in sides.items()}
    attacked: tuple[str, ...] = ()
    if port:
        ships["A"], attacked = _port_attackers(pos, where, ships["A"], list((lose or {}).get("attackers", [])))
    rolls, lines = {}, []
    for k in ("A", "B"):
        nations = [pos.unit(s).nation for s in ships[k]]
        mods = [(len(ships[k]), f"{len(ships[k])} squadron(s) (§8.10)")]
        if port and k == "B":
            mods.append((2, "defender in port (§5.3, §8.10)"))
        if nations.count("britain") * 2 >= len(nations):
            mods.append((1, "British fleet (§8.10)"))
        if nations.count("ottoman") * 2 >= len(nations):
            mods.append((-1, "Ottoman fleet (§8.10)"))
        rolls[k] = roll_2d6(dice, mods, f"side {k} in the sea battle")
        ms = "".join(f" {m:+d} {why}" for m, why in mods)
        lines.append(f"side {k} ({', '.join(sides[k])}): {rolls[k]['dice'][0]}+{rolls[k]['dice'][1]} = raw "
                     f"{rolls[k]['raw']}{ms} = {rolls[k]['total']}")
    diff = rolls["A"]["total"] - rolls["B"]["total"]
    new = dict(pos.units)
    changes = []
    if diff == 0:
        lines.append("difference 0: no losses (§8.10)")
        loser = None
    else:
        loser = "B" if diff > 0 else "A"
        n = min(sea_loss(diff), len(ships[loser]))
        chosen = list((lose or {}).get(loser, []))
        if chosen and (len(chosen) != n or not set(chosen) <= set(ships[loser])):
            raise InputError(f"sea battle: side {loser} loses {n} of {', '.join(ships[loser])}")
        gone = chosen or ships[loser][:n]
        for s in gone:
            new.pop(s)
            changes.append({"unit": s, "eliminated": True, "why": "sea battle"})
        lines.append(f"difference {abs(diff)}: side {loser} loses {n} squadron(s): {', '.join(gone) or 'none'} "
                     "(§8.10); the squadrons stop, they may still enter adjacent own ports (§5.3)")
    fought = {s for k in ("A", "B") for s in ships[k] if s in new}
    after = with_changes(pos, units=new, moved=pos.moved | fought)
    data = {"loser": loser, "difference": diff}
    if port:
        after = with_changes(after, port_attacks={**pos.port_attacks, where: attacked})
        data["port_attackers"] = list(ships["A"])
        lines.append(f"{where} attacked this turn by {', '.join(attacked)} ({len(attacked)} of at most "
                     f"{PORT_ATTACKERS}, §5.3)")
    return Result("sea_battle", after, lines, [rolls["A"], rolls["B"]], changes, [], data)


def _sea_battle_ships(pos: NiePosition, where: str, side: str, nations: Sequence[str]) -> list[str]:
    """A side's squadrons in a sea battle: those in the sea area; against a port (side A) those in the sea areas its
    anchor touches, which may not enter it (§5.3)."""
    if where.startswith("port:") and side == "A":
        if squadrons(pos, where, nations):
            raise InputError(f"{where}: attacking squadrons may not enter the port (§5.3)")
        ships = [sq for sea in pos.europe.region(where[5:], "port").port for sq in squadrons(pos, sea, nations)]
    else:
        ships = squadrons(pos, where, nations)
    if not ships:
        raise InputError(f"sea battle in {where}: side {side} ({', '.join(nations)}) has no squadrons there")
    return ships


PORT_ATTACKERS = 2
"""§5.3: "At most 2 squadrons may attack a given port per turn"."""


def _port_attackers(pos: NiePosition, port: str, ready: list[str], chosen: list[str]) -> tuple[list[str],
                                                                                                tuple[str, ...]]:
    """The squadrons attacking `port` (§5.3): `chosen` (the `attackers=` choice) or, when none is named, every
    squadron `ready` in the sea areas next to it; at most 2 squadrons attack a given port in a player turn, those that
    attacked it earlier this turn counted (the position's `port_attacks`; one squadron attacking again is still one
    squadron). Returns the attackers and every squadron that has attacked the port this turn with them."""
    before = tuple(pos.port_attacks.get(port, ()))
    bad = [sq for sq in chosen if sq not in ready]
    if bad:
        raise InputError(f"sea battle on {port}: attackers={bad[0]} is not a squadron of the attacking side next to "
                         f"the port ({', '.join(ready)}, §5.3)")
    attackers = list(dict.fromkeys(chosen)) or ready
    total = tuple(dict.fromkeys((*before, *attackers)))
    if len(total) > PORT_ATTACKERS:
        earlier = f" ({', '.join(before)} attacked it earlier this turn)" if before else ""
        room = PORT_ATTACKERS - len(before)
        how = (f"name at most {room} of {', '.join(ready)} with attackers=ID,ID" if room > 0
               else "no other squadron may attack it this turn")
        raise InputError(f"sea battle on {port}: at most {PORT_ATTACKERS} squadrons may attack a given port per turn "
                         f"(§5.3), {len(total)} would{earlier}: {how}")
    return attackers, total


