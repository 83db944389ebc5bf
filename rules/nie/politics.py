"""Production, purchase, diplomacy, political actions, uprisings, the C-value test, victory and the game's end
(digest §9.1-§9.10) as pure functions of a position.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from common.dice import Dice
from common.errors import InputError
from rules.nie.battle import Result, roll_2d6, roll_d6
from rules.nie.model import (
    ARTILLERY,
    CAVALRY,
    INFANTRY,
    LEADER,
    MINOR,
    NATIONS,
    NAVAL,
    UNIT_TYPES,
    Congress,
    NiePosition,
    Unit,
    with_changes,
)
from rules.nie.options import DEFAULT, Options

GAME_LENGTHS = {"short": 12, "long": 24}
"""§9.2: suggested rounds (medium: the option medium_game_rounds, A4)."""


# ---------------------------------------------------------------------------------------------- game end (§9.2)


def end_number(round_no: int, first_round: int) -> int:
    """§9.2 sudden death: the end number is 12 at the first rolled round and falls by 1 each round."""
    return 12 - (round_no - first_round)


def sudden_death(dice: Dice, round_no: int, first_round: int) -> dict:
    """Roll 2d6 at the end of the month: the game ends on >= the end number (§9.2 [R-END], E1)."""
    if round_no < first_round:
        raise InputError(f"sudden death: rolls start at round {first_round}, this is round {round_no}")
    r = roll_2d6(dice, [], "sudden death")
    need = end_number(round_no, first_round)
    r["threshold"] = need
    return {"roll": r, "end_number": need, "ends": r["raw"] >= need}


def game_rounds(length: str, opts: Options = DEFAULT) -> int:
    if length == "medium":
        return opts.medium_game_rounds
    if length not in GAME_LENGTHS:
        raise InputError(f"game length {length!r}: short, medium or long")
    return GAME_LENGTHS[length]


# ---------------------------------------------------------------------------------------------- C value (§9.10)


def c_value(pos: NiePosition, nation: str, opts: Options = DEFAULT) -> int:
    if nation in pos.c_values:
        return pos.c_values[nation]
    v = getattr(opts, f"c_{nation}")
    if not v:
        raise InputError(f"{nation}: its C value (Belastungswert) is scenario data not in the rules: give "
                         f"\"c_values\" in the position or c_{nation} in the options")
    return v


def c_test(pos: NiePosition, nation: str, dice: Dice, opts: Options = DEFAULT) -> dict:
    """§9.10 [R-CVALUE]: 2d6 greater than the C value: the nation loses the war and must sue for peace."""
    c = c_value(pos, nation, opts)
    r = roll_2d6(dice, [], f"{nation} C-value test")
    r["threshold"] = c
    return {"roll": r, "c_value": c, "sues_for_peace": r["raw"] > c}


# ---------------------------------------------------------------------------------------------- production (§9.4)


def occupied_by_enemy(pos: NiePosition, region: str, nation: str) -> bool:
    return any(u.kind.army and pos.at_war(nation, u.nation) for u in pos.units_at(region))


def region_value(pos: NiePosition, region: str, nation: str, opts: Options = DEFAULT) -> tuple[int, str | None]:
    """PP of one owned region (§9.4): 2; North Africa 1; any Ottoman region 1 except Constantinople 2; a capital its
    own value (A2, options; A27 the value belongs to the region)."""
    r = pos.europe.region(region)
    if r.capital:
        v, note = opts.cell(f"capital_pp_{region}", f"capital {r.name}")
        return v, note
    if nation == "ottoman" or r.north_africa:
        return 1, None
    return 2, None


def production_points(pos: NiePosition, nation: str, opts: Options = DEFAULT) -> dict:
    """§9.4 [R-PP]: the PP of every region the nation owns, except those occupied by enemy troops or in uprising;
    none for an inactive neutral Great Nation (§9.6)."""
    total, rows, notes = 0, [], []
    if pos.inactive(nation):
        return {"nation": nation, "pp": 0, "regions": [], "notes": [f"{nation} is an inactive neutral Great Nation: "
                                                                    "no PP (§9.6)"]}
    for rid in pos.europe.regions:
        if pos.owner(rid) != nation:
            continue
        if rid in pos.uprisings:
            rows.append((rid, 0, "uprising (§9.9)"))
            continue
        if occupied_by_enemy(pos, rid, nation):
            rows.append((rid, 0, "occupied by enemy troops (§9.3)"))
            continue
        v, note = region_value(pos, rid, nation, opts)
        if note:
            notes.append(note)
        rows.append((rid, v, ""))
        total += v
    return {"nation": nation, "pp": total, "regions": rows, "notes": notes}


def production_turn_reasons(pos: NiePosition, nation: str, what: str) -> list[str]:
    """Why `nation` may not `what` now (§4.1 step 4, §9.5): units and PAP are bought in the production round, each
    nation in its own production turn, in turn order (the position's `active` is the nation whose turn it is)."""
    pr = pos.production
    if pr is None:
        return [f"{what} only in a production round (it follows the March, June, September and December rounds; "
                f"end_turn opens it, §4.1)"]
    if nation not in pr.nations:
        return [f"{nation} has no production turn in this production round ({', '.join(pr.nations)}, §4.1)"]
    if pos.active != nation:
        return [f"it is {pos.active}'s production turn; {nation}'s comes in turn order ({', '.join(pr.nations)}, "
                "§4.1)"]
    return []


def pp_available(pos: NiePosition, nation: str, opts: Options = DEFAULT) -> int:
    """The PP `nation` may spend now: its saved PP, plus its income when it is its production turn and it has not
    totalled yet (its purchase totals first, §4.1 step 4)."""
    saved = pos.pp.get(nation, 0)
    pr = pos.production
    if pr is None or nation in pr.totalled or production_turn_reasons(pos, nation, "totalled"):
        return saved
    return saved + production_points(pos, nation, opts)["pp"]


def total_production(pos: NiePosition, nation: str, opts: Options = DEFAULT) -> Result:
    """§4.1 step 4.1, §9.4: in its production turn a nation totals its PP: its income from the regions it owns (not
    occupied by enemy troops, not in uprising) is added to the PP it saved, once a production round. At any other
    time the income is only reported."""
    pp = production_points(pos, nation, opts)
    saved = pos.pp.get(nation, 0)
    rows = [f"  {r}: {v}{' - ' + w if w else ''}" for r, v, w in pp["regions"]]
    data = {"nation": nation, "pp": pp["pp"], "saved": saved, "added": False, "after": saved}
    why = production_turn_reasons(pos, nation, "PP are totalled")
    pr = pos.production
    if not why and nation in pr.totalled:
        why = [f"{nation} has totalled its PP this production round already (+{pr.totalled[nation]}, §4.1)"]
    if why:
        lines = [f"{nation}: {pp['pp']} PP income (§9.4); not added: {why[0]}"] + rows
        return Result("production", pos, lines, notes=pp["notes"], data=data)
    total = saved + pp["pp"]
    new_pp = {**pos.pp, nation: total}
    after = with_changes(pos, pp=new_pp, production=replace(pr, totalled={**pr.totalled, nation: pp["pp"]}))
    lines = [f"{nation} totals its PP: {saved} saved + {pp['pp']} income = {total} PP (§4.1, §9.4)"] + rows
    return Result("production", after, lines, notes=pp["notes"],
                  changes=[{"nation": nation, "pp": total, "income": pp["pp"]}],
                  data={**data, "added": True, "after": total})


def _totalled(pos: NiePosition, nation: str, opts: Options) -> tuple[NiePosition, list[str], list[str]]:
    """The position with `nation`'s PP totalled if it has not yet this production round (step 1 comes before the
    purchases, §4.1 step 4), the lines and notes saying so."""
    pr = pos.production
    if pr is None or nation in pr.totalled or production_turn_reasons(pos, nation, "totalled"):
        return pos, [], []
    res = total_production(pos, nation, opts)
    return res.position, res.lines[:1], res.notes


def placement_regions(pos: NiePosition, nation: str) -> list[str]:
    """§9.5: own homeland regions not owned by another nation, not occupied by foreign troops, not in uprising."""
    out = []
    for rid in pos.europe.homeland(nation):
        if pos.owner(rid) != nation or rid in pos.uprisings:
            continue
        if any(u.nation != nation and u.kind.base != NAVAL for u in pos.units_at(rid)):
            continue
        out.append(rid)
    return out


def unit_cost(key: str, opts: Options = DEFAULT) -> int:
    return opts.heavy_cavalry_cost if key == "hcav" else UNIT_TYPES[key].cost


def built_this_round(pos: NiePosition, nation: str) -> Mapping[str, int]:
    """The units `nation` has bought in the production round under way ({} outside one)."""
    return pos.production.built.get(nation, {}) if pos.production is not None else {}


def purchase_reasons(pos: NiePosition, nation: str, basket: Mapping[str, int], opts: Options = DEFAULT) -> list[str]:
    """Why a production round's purchase is not allowed (§9.5 [R-BUILD]): its own production turn (§4.1), its cost,
    elite infantry 2:1 and Britain's 2 land units counted over everything it bought this production round (not only
    this purchase), irregular cavalry Russia and Ottomans only, the Ottoman build list, militia (A9), a place to put
    them."""
    out = production_turn_reasons(pos, nation, "units are bought")
    if pos.inactive(nation):
        out.append(f"{nation} is an inactive neutral Great Nation: no new units (§9.6)")
    for k, n in basket.items():
        if k not in UNIT_TYPES:
            raise InputError(f"purchase: unknown unit type {k!r} ({' '.join(UNIT_TYPES)})")
        if not isinstance(n, int) or n < 0:
            raise InputError(f"purchase: {k}: {n!r} is not a count")
    out += _round_reasons(pos, nation, basket, opts)
    if basket.get("icav", 0) and nation not in ("russia", "ottoman"):
        out.append("only Russia and the Ottoman Empire build irregular cavalry (§8.1)")
    if nation == "ottoman":
        bad = [k for k, n in basket.items() if n and k not in ("militia", "icav", "leader", "ship")]
        if bad:
            out.append(f"the Ottoman Empire builds only militia, irregular cavalry and leaders, not {', '.join(bad)} "
                       "(§9.5)")
    if basket.get("militia", 0) and opts.militia_restriction == "build" and not (
            nation == "ottoman" or (nation == "prussia" and pos.year > 1809)):
        out.append("militia are built only by Prussia after 1809 and the Ottoman Empire (A9 option "
                   "militia_restriction)")
    land = sum(n for k, n in basket.items() if UNIT_TYPES[k].base != NAVAL)
    places = placement_regions(pos, nation)
    if land and not places:
        out.append(f"{nation} has no homeland region to place new units in (§9.5)")
    if basket.get("ship", 0) and not [r for r in places if pos.europe.regions[r].port]:
        out.append(f"{nation} has no homeland port to build squadrons in (§5.3, §9.5)")
    return out


def _round_reasons(pos: NiePosition, nation: str, basket: Mapping[str, int], opts: Options) -> list[str]:
    """The purchase's cost against the PP the nation may spend, and the limits counted over the whole production
    round (`production.built`): 2 normal infantry for each elite built in the same production phase (§8.1), Great
    Britain's 2 new land units a production round (§9.5)."""
    out = []
    cost = sum(unit_cost(k, opts) * n for k, n in basket.items())
    try:
        have = pp_available(pos, nation, opts)
    except InputError as exc:  # its income cannot be totalled (a lost capital value, A2): the purchase waits
        out.append(f"its PP cannot be totalled: {exc}")
        have = pos.pp.get(nation, 0)
    if cost > have:
        out.append(f"costs {cost} PP, {nation} has {have} (§9.5)")
    built = built_this_round(pos, nation)
    if basket.get("elite", 0):
        elite, inf = built.get("elite", 0) + basket["elite"], built.get("inf", 0) + basket.get("inf", 0)
        if inf < 2 * elite:
            out.append(f"each elite infantry needs two normal infantry built in the same production phase (§8.1): "
                       f"{elite} elite need {2 * elite} infantry, {inf} bought this round with this purchase")
    land = sum(n for k, n in basket.items() if UNIT_TYPES[k].base != NAVAL)
    before = sum(n for k, n in built.items() if UNIT_TYPES[k].base != NAVAL)
    limit = opts.gb_land_units_per_production
    if nation == "britain" and land and before + land > limit:
        out.append(f"Great Britain builds at most {limit} land units per production round (§9.5): {before} bought "
                   f"this round, {land} more asked")
    return out


def purchase(pos: NiePosition, nation: str, basket: Mapping[str, int], where: Mapping[str, str],
             opts: Options = DEFAULT) -> Result:
    """Buy and place units in the nation's production turn (§4.1 step 4, §9.5): its PP totalled first if it has not
    yet (step 1), the units kept in the production round's record (its per-round limits); `where` maps each type to a
    placement region (squadrons: a port region)."""
    reasons = purchase_reasons(pos, nation, basket, opts)
    places = placement_regions(pos, nation)
    for k, n in basket.items():
        if not n:
            continue
        at = where.get(k) or where.get("*")
        if at not in places:
            reasons.append(f"{k}: place in one of {', '.join(places) or 'no region'} (§9.5)")
        elif k == "ship" and not pos.europe.regions[at].port:
            reasons.append(f"ship: {at} is not a port (§5.3)")
    if reasons:
        raise InputError("purchase: " + "; ".join(reasons))
    pos, lines, notes = _totalled(pos, nation, opts)
    new = dict(pos.units)
    changes = []
    for k, n in basket.items():
        at = where.get(k) or where.get("*")
        for _ in range(n):
            i = 1
            while f"{nation}-{k}-{i}" in new:
                i += 1
            uid = f"{nation}-{k}-{i}"
            new[uid] = Unit(uid, nation, k, f"port:{at}" if k == "ship" else at)
            changes.append({"unit": uid, "placed": True, "at": new[uid].at})
        if n:
            lines.append(f"{n} {UNIT_TYPES[k].name} at {at} ({unit_cost(k, opts)} PP each)")
    cost = sum(unit_cost(k, opts) * n for k, n in basket.items())
    pp = dict(pos.pp)
    pp[nation] = pp.get(nation, 0) - cost
    lines.append(f"{nation} pays {cost} PP, {pp[nation]} left (§9.5)")
    pr = pos.production
    built = dict(built_this_round(pos, nation))
    for k, n in basket.items():
        if n:
            built[k] = built.get(k, 0) + n
    after = with_changes(pos, units=new, pp=pp, production=replace(pr, built={**pr.built, nation: built}))
    return Result("purchase", after, lines, [], changes, notes, {"cost": cost, "pp": pp[nation], "built": built})


def buy_pap(pos: NiePosition, nation: str, n: int, opts: Options = DEFAULT) -> Result:
    """§9.5/§9.7: 1 PAP for every 10 PP, in the nation's own production turn (its PP totalled first, §4.1)."""
    why = production_turn_reasons(pos, nation, "PAP are bought")
    if why:
        raise InputError(f"buy PAP: {why[0]}")
    have = pp_available(pos, nation, opts)
    if n < 1 or have < 10 * n:
        raise InputError(f"buy PAP: {n} PAP cost {10 * n} PP, {nation} has {have} (§9.5)")
    pos, lines, notes = _totalled(pos, nation, opts)
    pp, pap = dict(pos.pp), dict(pos.pap)
    pp[nation] -= 10 * n
    pap[nation] = pap.get(nation, 0) + n
    lines.append(f"{nation} buys {n} PAP for {10 * n} PP, {pp[nation]} PP left (§9.7)")
    return Result("buy_pap", with_changes(pos, pp=pp, pap=pap), lines, notes=notes,
                  data={"pp": pp[nation], "pap": pap[nation]})


def give_pp(pos: NiePosition, giver: str, receiver: str, n: int) -> Result:
    """§9.4: only Great Britain may give PP to other players; PP and PAP are otherwise not traded."""
    if giver != "britain":
        raise InputError(f"{giver}: only Great Britain may give PP to other players (§9.4)")
    if receiver == giver or receiver not in NATIONS:
        raise InputError(f"give PP: {receiver!r} is not another Great Nation")
    if n < 1 or pos.pp.get(giver, 0) < n:
        raise InputError(f"give PP: {n} PP, Britain has {pos.pp.get(giver, 0)}")
    pp = dict(pos.pp)
    pp[giver] -= n
    pp[receiver] = pp.get(receiver, 0) + n
    return Result("give_pp", with_changes(pos, pp=pp), [f"Great Britain gives {receiver} {n} PP (§9.4)"])


# ---------------------------------------------------------------------------------------------- diplomacy (§9.6-9.8)


def _pay(pos: NiePosition, nation: str, cost: float, what: str) -> dict:
    have = pos.pap.get(nation, 0)
    if have < cost:
        raise InputError(f"{what}: costs {cost:g} PAP, {nation} has {have} (§9.8)")
    pap = dict(pos.pap)
    pap[nation] = have - cost
    if float(pap[nation]).is_integer():
        pap[nation] = int(pap[nation])
    return pap


def _set_relation(pos: NiePosition, a: str, b: str, status: str | None) -> tuple:
    key = frozenset((a, b))
    rel = [(k, v) for k, v in pos.relations if k != key]
    if status and status != "neutral":
        rel.append((key, status))
    return tuple(rel)


def declare_war(pos: NiePosition, actor: str, target: str, dice: Dice | None = None,
                controllers: list[str] | None = None) -> Result:
    """§9.8: 1 PAP; the order of declarations is kept (first declarer on top); a victor may not declare war on the
    loser during the 12-round truce. War on a neutral Great Nation (not in `players`) hands it to a player at once
    (§9.6): one of the player nations already at war with the aggressor (a die picks among several) joins it in
    alliance; else one of the `controllers` who declare war on the aggressor now (each pays 1 PAP; a die picks);
    else the player nation whose capital is closest (fewest land borders on the map file) controls it, not allied."""
    if pos.at_war(actor, target):
        raise InputError(f"{actor} is already at war with {target}")
    for victor, loser, until in pos.truces:
        if victor == actor and loser == target and pos.round <= until:
            raise InputError(f"{actor} may not declare war on {target} before round {until + 1} (truce, §9.8)")
    pap = _pay(pos, actor, 1, "declare war")
    decl = {k: tuple(v) for k, v in pos.declarations.items()}
    decl[target] = (*decl.get(target, ()), actor)
    after = with_changes(pos, pap=pap, relations=_set_relation(pos, actor, target, "war"), declarations=decl)
    lines = [f"{actor} declares war on {target} (1 PAP, §9.8); declarers on {target}: {', '.join(decl[target])}"]
    rolls: list[dict] = []
    data: dict = {}
    if pos.players and target not in pos.players:
        after, more, rolls, data = _neutral_attacked(after, actor, target, dice or Dice(), controllers or [])
        lines += more
    return Result("declare_war", after, lines, rolls, data=data)


def _pick(options: list[str], dice: Dice, what: str, rolls: list[dict]) -> str:
    """One of `options` at random with 1d6 (re-rolled above a multiple of their number)."""
    if len(options) == 1:
        return options[0]
    if len(options) > 6:
        raise InputError(f"{what}: more than 6 candidates")
    top = 6 - 6 % len(options)
    while True:
        r = roll_d6(dice, what)
        rolls.append(r)
        if r["raw"] <= top:
            return options[(r["raw"] - 1) % len(options)]


def land_distance(pos: NiePosition, a: str, b: str) -> int | None:
    """Borders crossed between two regions on the map file (breadth-first), None if unconnected by land."""
    seen, frontier, d = {a}, [a], 0
    while frontier:
        if b in frontier:
            return d
        nxt = []
        for r in frontier:
            for n in pos.europe.regions[r].neighbours:
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        frontier, d = nxt, d + 1
    return None


def _neutral_attacked(pos: NiePosition, actor: str, target: str, dice: Dice, controllers: list[str]):
    players = [n for n in NATIONS if n in pos.players and n not in (actor, target)]
    at_war = [n for n in players if pos.at_war(n, actor)]
    rolls: list[dict] = []
    lines = [f"{target} is a neutral Great Nation: a player takes control of it now (§9.6)"]
    ctl = dict(pos.players)
    if at_war:
        chosen = _pick(at_war, dice, f"who controls {target}", rolls)
        rel = pos.relations
        for n in at_war:
            rel = _set_relation(with_changes(pos, relations=rel), n, target, "allied")
        ctl[target] = pos.players[chosen]
        lines.append(f"{target} joins the alliance against {actor} ({', '.join(at_war)}); {chosen}'s player "
                     "controls it")
        return with_changes(pos, relations=rel, players=ctl), lines, rolls, {"controller": chosen, "allied": True}
    bad = [c for c in controllers if c not in players]
    if bad:
        raise InputError(f"declare war: {', '.join(bad)} cannot take control of {target} (player nations other "
                         f"than {actor})")
    if controllers:
        after = pos
        for c in controllers:
            after = declare_war(after, c, actor).position
        chosen = _pick(controllers, dice, f"who controls {target}", rolls)
        ctl[target] = pos.players[chosen]
        after = with_changes(after, players=ctl, relations=_set_relation(after, chosen, target, "allied"))
        lines.append(f"{', '.join(controllers)} declare war on {actor} at once; {chosen}'s player controls {target}")
        return after, lines, rolls, {"controller": chosen, "allied": True}
    caps = pos.europe.capitals(target)
    dist = {}
    for n in players:
        ds = [land_distance(pos, c, t) for c in pos.europe.capitals(n) for t in caps]
        ds = [d for d in ds if d is not None]
        if ds:
            dist[n] = min(ds)
    if not dist:
        lines.append("nobody declares war and no capital is connected by land: name the controller (§9.6)")
        return pos, lines, rolls, {"controller": None}
    best = min(dist.values())
    near = [n for n, d in dist.items() if d == best]
    if len(near) > 1:
        lines.append(f"nobody declares war; capitals equally close ({', '.join(near)}, {best} borders): the "
                     "players decide (§9.6)")
        return pos, lines, rolls, {"controller": None, "closest": near}
    ctl[target] = pos.players[near[0]]
    lines.append(f"nobody declares war: {near[0]}, whose capital is closest ({best} borders on the map file), "
                 f"controls {target}, not allied; control ends with the war (§9.6)")
    return with_changes(pos, players=ctl), lines, rolls, {"controller": near[0], "allied": False}


def sue_for_peace(pos: NiePosition, loser: str, opts: Options = DEFAULT) -> Result:
    """§9.8: every war of the loser ends (neutral); the loser loses 2 PAP (A21 floor 0), the first declarer gains
    2, the second 1; a 12-round truce for the victors; the congress opens (kept in the position): the victors in
    order of declaration (first declarer first; the nations the loser itself declared war on after them, in turn
    order: a reading, the digest orders only the declarers)."""
    foes = [n for n in NATIONS if pos.at_war(loser, n)]
    if not foes:
        raise InputError(f"{loser} is at war with nobody")
    pap = dict(pos.pap)
    left = pap.get(loser, 0) - 2
    pap[loser] = max(0, left) if opts.pap_floor_zero else left
    order = [n for n in pos.declarations.get(loser, ()) if n in foes]
    for n, gain in zip(order, (2, 1), strict=False):
        pap[n] = pap.get(n, 0) + gain
    victors = order + [n for n in foes if n not in order]
    gone = {frozenset((loser, f)) for f in foes}
    rel = tuple((k, v) for k, v in pos.relations if k not in gone)
    decl = {k: v for k, v in pos.declarations.items() if k != loser}
    truces = (*pos.truces, *((f, loser, pos.round + 12) for f in foes))
    after = with_changes(pos, pap=pap, relations=rel, declarations=decl, truces=truces, sued=pos.sued | {loser})
    after, congress_lines = _open_congress(after, loser, victors)
    lines = [f"{loser} sues for peace: at peace (neutral) with {', '.join(foes)} (§9.8)",
             f"PAP: {loser} -2{' (not below 0, A21)' if left < 0 and opts.pap_floor_zero else ''}"
             + "".join(f", {n} +{g}" for n, g in zip(order, (2, 1), strict=False)) + " (§9.7)",
             f"truce: the victors may not declare war on {loser} until after round {pos.round + 12} (§9.8)",
             *congress_lines]
    data = {"congress_order": victors, "congress": _congress_data(after, loser)}
    if pos.historical:
        data["historical_result"] = historical_result(after, set(after.sued),
                                                      {n for n in NATIONS if pos.allied("france", n)})
        if data["historical_result"]:
            lines.append(f"historical game: {data['historical_result']} win(s) (§9.1)")
    return Result("sue_for_peace", after, lines, data=data)


def minor_army(dice: Dice) -> dict:
    """A minor nation's army (§9.8): 1d6 infantry 1-4 (5-6 re-rolled); 1d6 cavalry 1-3 -> 1, 4-6 -> 2; 1d6
    artillery 1-3 -> 0, 4-6 -> 1."""
    rolls = []
    while True:
        v = dice.d6()
        rolls.append(v)
        if v <= 4:
            inf = v
            break
    c, a = dice.d6(), dice.d6()
    return {"inf": inf, "cav": 1 if c <= 3 else 2, "art": 0 if a <= 3 else 1, "rolls": rolls + [c, a]}


def annex_minor(pos: NiePosition, nation: str, region: str, dice: Dice, give_to: str | None = None) -> Result:
    """Annex a neutral minor nation (§9.8): 1 PAP, at least one own military unit there, in one's own turn; 1d6 +1
    with 4-6 units there, +2 with 7+, +1 next to an owned region, -1 if any Great Nation is at war with the annexer:
    5+ joins peacefully, else it resists with its army (rolled: §9.8)."""
    r = pos.europe.region(region)
    if r.home is not None or pos.owner(region) is not None:
        raise InputError(f"{region}: not a neutral minor nation (§9.8)")
    if region in pos.resisting:
        raise InputError(f"{region}: already resisting {pos.resisting[region]}'s annexation")
    mine = [u for u in pos.units_at(region) if u.nation == nation and u.kind.base != NAVAL]
    if not mine:
        raise InputError(f"{region}: {nation} needs at least one military unit there (§9.8)")
    if pos.active != nation:
        raise InputError(f"annexing a minor is done in the annexer's own turn (§4.1); active: {pos.active}")
    pap = _pay(pos, nation, 1, "annex a minor nation")
    mods = []
    if 4 <= len(mine) <= 6:
        mods.append((1, "4-6 military units there"))
    elif len(mine) >= 7:
        mods.append((2, "7 or more military units there"))
    if any(pos.owner(n) == nation for n in r.neighbours):
        mods.append((1, "next to a region the annexer owns"))
    at_war = [n for n in NATIONS if pos.at_war(nation, n)]
    if at_war:
        mods.append((-1, "a Great Nation is at war with the annexer"))
    v = roll_d6(dice, f"{nation} annexes {region}")
    v["modifiers"] = [[m, w] for m, w in mods]
    v["total"] = v["raw"] + sum(m for m, _ in mods)
    v["threshold"] = 5
    lines = [f"{nation} annexes {region} (1 PAP): 1d6 {v['raw']}" + "".join(f" {m:+d} {w}" for m, w in mods)
             + f" = {v['total']} (5+ joins, §9.8)"]
    if v["total"] >= 5:
        owners = dict(pos.owners)
        owners[region] = nation
        lines.append(f"{region} joins {nation} peacefully: control marker placed (§9.3)")
        return Result("annex_minor", with_changes(pos, pap=pap, owners=owners), lines, [v], [], [], {"joined": True})
    army = minor_army(dice)
    lines.append(f"{region} resists with {army['inf']} infantry, {army['cav']} cavalry, {army['art']} artillery "
                 f"(rolls {army['rolls']}, §9.8)")
    rolls = [v]
    owners, resisting = dict(pos.owners), dict(pos.resisting)
    if at_war:
        players = [n for n in at_war if not pos.players or n in pos.players] or at_war
        chosen = give_to if give_to in players else _pick(players, dice, f"who gets {region}", rolls)
        owners[region] = chosen
        army_nation = chosen
        lines.append(f"{region} is given to {chosen}, at war with {nation}, as by a free diplomatic offensive: "
                     "it owns the region and its army; a battle follows (§9.8)")
    else:
        army_nation = MINOR
        resisting[region] = nation
        lines.append("nobody is at war with the annexer: light-blue figures fight for the minor; if it loses its "
                     "first battle the annexer owns it, if it wins they are removed and the annexation fails "
                     "(§9.8, A19)")
    new = dict(pos.units)
    changes = _place_army(new, army_nation, region, army)
    after = with_changes(pos, pap=pap, owners=owners, resisting=resisting, units=new)
    return Result("annex_minor", after, lines, rolls, changes, [],
                  {"joined": False, "army": army, "army_nation": army_nation, "battle": True})


def _place_army(new: dict, nation: str, region: str, army: dict) -> list[dict]:
    changes = []
    for key, n in (("inf", army["inf"]), ("cav", army["cav"]), ("art", army["art"])):
        for _ in range(n):
            i = 1
            while f"{nation}-{key}-{region}-{i}" in new:
                i += 1
            uid = f"{nation}-{key}-{region}-{i}"
            new[uid] = Unit(uid, nation, key, region)
            changes.append({"unit": uid, "placed": True, "at": region})
    return changes


def diplomatic_offensive_minor(pos: NiePosition, nation: str, region: str, dice: Dice) -> Result:
    """§9.8: 2 PAP, 2d6: 9+ (8+ with a leader stationed there) makes a neutral minor nation the player's: he owns
    it and gets its army (rolled) in his own colour."""
    r = pos.europe.region(region)
    if r.home is not None or pos.owner(region) is not None:
        raise InputError(f"{region}: not a neutral minor nation (§9.8)")
    pap = _pay(pos, nation, 2, "diplomatic offensive")
    leader = any(u.nation == nation and u.kind.base == LEADER for u in pos.units_at(region))
    need = 8 if leader else 9
    roll = roll_2d6(dice, [], f"{nation} diplomatic offensive on {region}")
    roll["threshold"] = need
    lines = [f"{nation} diplomatic offensive on {region} (2 PAP): needs {need}{' (leader there)' if leader else ''}; "
             f"rolled {roll['raw']} (§9.8)"]
    if roll["raw"] < need:
        lines.append("no effect beyond the 2 PAP")
        return Result("diplomacy", with_changes(pos, pap=pap), lines, [roll], [], [], {"success": False})
    army = minor_army(dice)
    owners = dict(pos.owners)
    owners[region] = nation
    new = dict(pos.units)
    changes = _place_army(new, nation, region, army)
    lines.append(f"success: {nation} owns {region} and gets {army['inf']} inf, {army['cav']} cav, {army['art']} art "
                 f"(rolls {army['rolls']})")
    return Result("diplomacy", with_changes(pos, pap=pap, owners=owners, units=new), lines, [roll], changes, [],
                  {"success": True, "army": army})


def diplomatic_offer(pos: NiePosition, actor: str, target: str, accepted: bool, third: str | None = None) -> Result:
    """§9.8 diplomatic offensive against another player nation: 2 PAP, lost either way; if the target accepts, one
    step on the diplomacy table: neutral -> allied with the actor, or (with `third`) its alliance with a third
    nation -> neutral."""
    if target not in pos.players or actor == target:
        raise InputError(f"{target}: not another player nation (a neutral Great Nation is rolled for, §9.8)")
    if third is None and pos.relation(actor, target) != "neutral":
        raise InputError(f"{actor} and {target} are {pos.relation(actor, target)}, not neutral (§9.8)")
    if third is not None and pos.relation(target, third) != "allied":
        raise InputError(f"{target} is not allied with {third} (§9.8)")
    pap = _pay(pos, actor, 2, "diplomatic offensive")
    after = with_changes(pos, pap=pap)
    what = f"neutral toward {third}" if third else f"allied with {actor}"
    lines = [f"{actor} offers {target} to become {what} (2 PAP, §9.8): " + ("accepted" if accepted else "refused")]
    if accepted:
        rel = _set_relation(pos, target, third, None) if third else _set_relation(pos, actor, target, "allied")
        after = with_changes(after, relations=rel)
    return Result("diplomacy", after, lines, data={"accepted": accepted})


def diplomatic_offensive_neutral(pos: NiePosition, nation: str, target: str, dice: Dice) -> Result:
    """§9.8: 2 PAP, 2d6 <= the scenario's diplomacy value (actor on the left, target on top) gives control of a
    neutral Great Nation, marked as an alliance."""
    if target in pos.players:
        raise InputError(f"{target} is a player nation: an offer is made and accepted or refused (§9.8)")
    value = pos.diplomacy_values.get(nation, {}).get(target)
    if not value:
        raise InputError(f"{nation} -> {target}: the diplomacy value is scenario data not in the rules: give "
                         "\"diplomacy_values\" in the position")
    pap = _pay(pos, nation, 2, "diplomatic offensive")
    roll = roll_2d6(dice, [], f"{nation} diplomatic offensive on {target}")
    roll["threshold"] = value
    ok = roll["raw"] <= value
    lines = [f"{nation} diplomatic offensive on neutral {target} (2 PAP): needs <= {value}; rolled {roll['raw']}: "
             + ("success: allied, under its control (§9.6)" if ok else "fails")]
    after = with_changes(pos, pap=pap)
    if ok:
        players = dict(pos.players)
        players[target] = pos.players.get(nation, nation)
        after = with_changes(after, relations=_set_relation(pos, nation, target, "allied"), players=players)
    return Result("diplomacy", after, lines, [roll], [], [], {"success": ok})


# ---------------------------------------------------------------------------------------------- uprisings (§9.9)


def cause_uprising(pos: NiePosition, nation: str, region: str) -> Result:
    """§9.9: 1 PAP places an uprising marker in a non-homeland region, or in Ireland, Vendée or Don Basin."""
    r = pos.europe.region(region)
    if r.home is not None and not r.uprising_homeland:
        raise InputError(f"{region}: a homeland region (only Ireland, Vendée and Don Basin may rise, §9.9)")
    if region in pos.uprisings:
        raise InputError(f"{region}: already in uprising")
    pap = _pay(pos, nation, 1, "cause uprising")
    return Result("cause_uprising", with_changes(pos, pap=pap, uprisings=pos.uprisings | {region}),
                  [f"{nation} causes an uprising in {region} (1 PAP, §9.9): no PP for its owner"])


def suppress_uprising(pos: NiePosition, region: str, dice: Dice, lose: str | None = None) -> Result:
    """§9.9: at the end of each of the owner's turns with units there, 2d6 <= its military units there removes the
    marker; otherwise the owner loses one unit there (his choice). One roll a region a turn, in the owner's own turn
    (the position's `suppressed` keeps the regions rolled for this turn)."""
    if region not in pos.uprisings:
        raise InputError(f"{region}: no uprising there")
    owner = pos.owner(region)
    if pos.active != owner:
        raise InputError(f"{region}: its owner {owner} rolls to suppress the uprising at the end of its own turn; "
                         f"this is {pos.active}'s (§9.9)")
    if region in pos.suppressed:
        raise InputError(f"{region}: {owner} has rolled to suppress this uprising this turn already; it rolls again "
                         "at the end of its next turn (§9.9)")
    mine = sorted(u.id for u in pos.units_at(region) if u.nation == owner and u.kind.base in
                  (INFANTRY, CAVALRY, ARTILLERY, LEADER))
    if not mine:
        raise InputError(f"{region}: its owner {owner} has no units there to suppress the uprising (§9.9)")
    r = roll_2d6(dice, [], f"suppress the uprising in {region}")
    r["threshold"] = len(mine)
    rolled = pos.suppressed | {region}
    if r["raw"] <= len(mine):
        return Result("suppress_uprising", with_changes(pos, uprisings=pos.uprisings - {region}, suppressed=rolled),
                      [f"{region}: rolled {r['raw']} <= {len(mine)} units: the uprising is suppressed (§9.9)"], [r])
    if lose is not None and lose not in mine:
        raise InputError(f"suppress: lose={lose}: not one of {owner}'s units in {region} ({', '.join(mine)}, §9.9)")
    victim = lose if lose in mine else mine[0]
    new = dict(pos.units)
    new.pop(victim)
    return Result("suppress_uprising", with_changes(pos, units=new, suppressed=rolled),
                  [f"{region}: rolled {r['raw']} > {len(mine)} units: {owner} loses {victim} (§9.9)"], [r],
                  [{"unit": victim, "eliminated": True, "why": "uprising"}])


# ---------------------------------------------------------------------------------------------- victory (§9.1)

LEVELS = {1: "Total Victory", 2: "Major Victory", 3: "Minor Victory", 4: "Survival", 5: "Defeat",
          6: "Annihilation"}


def regions_owned(pos: NiePosition) -> dict[str, int]:
    out = {n: 0 for n in NATIONS}
    for rid in pos.europe.regions:
        o = pos.owner(rid)
        if o in out:
            out[o] += 1
    return out


def fleets(pos: NiePosition) -> dict[str, int]:
    out = {n: 0 for n in NATIONS}
    for u in pos.units.values():
        if u.kind.base == NAVAL and u.nation in out:
            out[u.nation] += 1
    return out


def victory_level(pos: NiePosition, nation: str) -> dict:
    """§9.1 [R-VICTORY], unhistorical game: levels 1-6 tested from best to worst; regions = owned (control markers
    plus un-annexed homeland); Great Britain's own column uses its fleet."""
    owned = regions_owned(pos)
    home = pos.europe.homeland(nation)
    own_home = sum(1 for r in home if pos.owner(r) == nation)
    all_home = own_home == len(home)
    others = sorted((v for n, v in owned.items() if n != nation), reverse=True)
    fl = fleets(pos)
    ofl = sorted((v for n, v in fl.items() if n != nation), reverse=True)
    fleet_big = fl[nation] > sum(ofl[:2])
    mine = owned[nation]
    rank = 1 + sum(1 for v in others if v > mine)
    if nation == "britain":
        non_home = {n: sum(1 for r in pos.europe.regions if pos.owner(r) == n and pos.europe.regions[r].home != n)
                    for n in NATIONS if n != nation}
        checks = [(1, all_home and fleet_big and mine > others[0]),
                  (2, all_home and fleet_big and max(non_home.values()) <= 8),
                  (3, all_home and fleet_big)]
    else:
        checks = [(1, all_home and mine > sum(others[:2])), (2, all_home and mine > others[0]),
                  (3, all_home and rank in (2, 3))]
    checks += [(4, all_home), (5, own_home > 0)]
    level = next((lv for lv, ok in checks if ok), 6)
    return {"nation": nation, "level": level, "name": LEVELS[level], "regions": mine, "homeland": f"{own_home}/"
            f"{len(home)}", "fleet": fl[nation]}


def player_result(pos: NiePosition, player: str) -> dict:
    """§9.1 "Victory with more than one nation", unhistorical game: a player is judged by his own nation's level
    (the first he controlled) and by every nation he gained since, even one he lost again. A Major or Total Victory
    of his own nation is "dirty" when a gained nation ends in Defeat or Annihilation (levels 5-6), else "clean"
    (his own nation only, or every gained one at least at Survival); Total Victory plus a Minor Victory or better
    (level 3 or better: the digest's "plus Minor Victory" read as at least) for a gained nation is the "ultimate"
    result."""
    nations = pos.controlled.get(player) or tuple(n for n, p in pos.players.items() if p == player)
    if not nations:
        raise InputError(f"{player!r} is no player of this game ({', '.join(sorted(set(pos.players.values())))})")
    own, gained = nations[0], nations[1:]
    levels = {n: victory_level(pos, n) for n in nations}
    mine = levels[own]["level"]
    result = levels[own]["name"]
    if gained and mine <= 2:
        dirty = any(levels[n]["level"] >= 5 for n in gained)
        result += " (dirty)" if dirty else " (clean)"
        if mine == 1 and any(levels[n]["level"] <= 3 for n in gained):
            result = "ultimate result: " + result
    return {"player": player, "own": own, "gained": list(gained), "levels": levels, "result": result}


def historical_result(pos: NiePosition, sued: set[str], french_alliance: set[str]) -> str | None:
    """§9.1 historical game: France sues for peace -> its opponents win; every nation of the anti-French alliance
    has sued -> France wins; else None (the game goes on)."""
    if "france" in sued:
        return "anti-French alliance"
    anti = {n for n in NATIONS if n not in french_alliance}
    if anti and anti <= sued:
        return "France"
    return None


# ---------------------------------------------------------------------------------------------- more political actions


def congress_cost(pos: NiePosition, victor: str, loser: str) -> float | None:
    """The cheapest thing `victor` may still do at the congress after `loser`'s war (§9.8), in PAP: liberate a
    region (½), annex one of the loser's non-homeland regions (1) or a homeland region (2; its capital only when no
    other homeland region is left); None when nothing is left or the victor cannot pay for any."""
    costs = [cost for _, cost in congress_regions(pos, loser)]
    if liberable(pos, loser):
        costs.append(0.5)
    affordable = [c for c in costs if c <= pos.pap.get(victor, 0)]
    return min(affordable) if affordable else None


def congress_regions(pos: NiePosition, loser: str) -> list[tuple[str, int]]:
    """The loser's regions a victor may annex at the congress now, with their PAP cost (§9.8): 1 for a region it
    owns outside its homeland, 2 for a homeland region, the capital only after all other homeland regions."""
    owned = [rid for rid in pos.europe.regions if pos.owner(rid) == loser]
    home = [rid for rid in owned if pos.europe.regions[rid].home == loser]
    out = [(rid, 1) for rid in owned if rid not in home]
    rest = [rid for rid in home if not pos.europe.regions[rid].capital]
    return out + [(rid, 2) for rid in home if rid in rest or not rest]


def liberable(pos: NiePosition, loser: str) -> list[str]:
    """The regions a victor may liberate at the congress (§9.8): those the loser holds by a control marker."""
    return sorted(rid for rid, n in pos.owners.items() if n == loser)


def _congress_data(pos: NiePosition, loser: str) -> dict | None:
    c = pos.congress(loser)
    return None if c is None else {"loser": c.loser, "victors": list(c.victors), "turn": c.turn,
                                   "passed": [v for v in c.victors if v in c.passed]}


def _open_congress(pos: NiePosition, loser: str, victors: list[str]) -> tuple[NiePosition, list[str]]:
    """The congress after `loser`'s war (§9.8), opened on the first victor who can pay for anything."""
    others = tuple(c for c in pos.congresses if c.loser != loser)
    c = Congress(loser, tuple(victors), victors[-1])
    turn, passed, lines = _congress_next(pos, c, victors[-1], frozenset())
    head = (f"congress (§9.8): {', '.join(victors)} annex one region per turn in that order (first declarer first) "
            "until none wants to or can afford to")
    if turn is None:
        return with_changes(pos, congresses=others), [head, *lines, "nobody can annex anything: the congress is over"]
    return (with_changes(pos, congresses=(*others, Congress(loser, tuple(victors), turn, passed))),
            [head, *lines, f"congress: {turn}'s turn (congress_annex, liberate or congress_pass)"])


def _congress_next(pos: NiePosition, c: Congress, last: str, passed: frozenset[str]
                   ) -> tuple[str | None, frozenset[str], list[str]]:
    """The next victor after `last` to take a congress turn (§9.8): the victors in their order, each skipped (as
    passing) when it cannot pay for anything; None when every victor has passed since the last annexation."""
    lines = []
    i = c.victors.index(last)
    for k in range(1, len(c.victors) + 1):
        if passed >= set(c.victors):
            break
        v = c.victors[(i + k) % len(c.victors)]
        if congress_cost(pos, v, c.loser) is None:
            if v not in passed:
                lines.append(f"congress: {v} can afford nothing more (PAP {pos.pap.get(v, 0)}): it passes")
            passed = passed | {v}
            continue
        return v, passed, lines
    return None, passed, lines


def _congress_turn(pos: NiePosition, victor: str, loser: str, what: str) -> Congress:
    """The congress after `loser`'s war, checked to be `victor`'s turn (§9.8)."""
    c = pos.congress(loser)
    if c is None:
        open_ = ", ".join(f"after {x.loser}'s war ({x.turn}'s turn)" for x in pos.congresses) or "none"
        raise InputError(f"{what}: no congress after {loser!r}'s war is under way; congresses: {open_} (a congress "
                         "follows a nation's suing for peace, §9.8)")
    if victor not in c.victors:
        raise InputError(f"{what}: {victor!r} is not a victor of {loser}'s war ({', '.join(c.victors)}, §9.8)")
    if victor != c.turn:
        raise InputError(f"{what}: it is {c.turn}'s turn at the congress; the victors take turns in the order they "
                         f"declared war ({', '.join(c.victors)}), one region a turn (§9.8)")
    return c


def _congress_done(before: NiePosition, after: NiePosition, c: Congress, victor: str, acted: bool
                   ) -> tuple[NiePosition, list[str]]:
    """The congress after `victor`'s turn: the next victor's turn, or its end (§9.8)."""
    passed = frozenset() if acted else c.passed | {victor}
    turn, passed, lines = _congress_next(after, c, victor, passed)
    others = tuple(x for x in after.congresses if x.loser != c.loser)
    if turn is None:
        lines.append(f"the congress after {c.loser}'s war is over: no victor wants to or can afford to annex (§9.8)")
        return with_changes(after, congresses=others), lines
    lines.append(f"congress: {turn}'s turn (§9.8)")
    return with_changes(after, congresses=(*others, replace(c, turn=turn, passed=passed))), lines


def congress_annex(pos: NiePosition, victor: str, loser: str, region: str) -> Result:
    """The congress after a war (§9.8): in its turn (the victors in order of declaration) a victor annexes one region
    of the loser: 1 PAP for a non-homeland region it owns, 2 PAP for a homeland region, the capital only after all
    its other homeland regions; then the next victor's turn."""
    c = _congress_turn(pos, victor, loser, "annex at the congress")
    r = pos.europe.region(region)
    if pos.owner(region) != loser:
        raise InputError(f"{region}: not owned by {loser} (§9.8)")
    homeland = r.home == loser
    if homeland and r.capital:
        rest = [x for x in pos.europe.homeland(loser) if x != region and pos.owner(x) == loser
                and not pos.europe.regions[x].capital]
        if rest:
            raise InputError(f"{region}: the capital is annexed only after all other homeland regions "
                             f"({', '.join(rest)} remain, §9.8)")
    cost = 2 if homeland else 1
    pap = _pay(pos, victor, cost, "annex at the congress")
    owners = dict(pos.owners)
    owners[region] = victor
    after, more = _congress_done(pos, with_changes(pos, pap=pap, owners=owners), c, victor, True)
    return Result("congress_annex", after,
                  [f"{victor} annexes {loser}'s {'homeland ' if homeland else ''}region {region} ({cost} PAP, §9.8)",
                   *more], data={"congress": _congress_data(after, loser)})


def congress_pass(pos: NiePosition, victor: str, loser: str) -> Result:
    """A victor passes its congress turn (§9.8): the congress goes on until no victor wants to annex (all pass in
    turn since the last annexation) or can afford to."""
    c = _congress_turn(pos, victor, loser, "pass at the congress")
    after, more = _congress_done(pos, pos, c, victor, False)
    return Result("congress_pass", after, [f"{victor} passes at the congress after {loser}'s war (§9.8)", *more],
                  data={"congress": _congress_data(after, loser)})


def liberate(pos: NiePosition, victor: str, regions: list[str], loser: str | None = None) -> Result:
    """§9.8: only a winner, during the congress after defeating the owner, in its congress turn: ½ PAP per region (1
    PAP frees 2), control markers removed; a minor is independent again, a homeland region returns to its own
    nation. The loser is the regions' owner unless named."""
    if not regions:
        raise InputError("liberate: name the regions")
    for rid in regions:
        pos.europe.region(rid, "liberate")
        if rid not in pos.owners:
            raise InputError(f"{rid}: carries no control marker to remove (§9.8)")
    owners_of = sorted({pos.owners[rid] for rid in regions})
    loser = loser or owners_of[0]
    c = _congress_turn(pos, victor, loser, "liberate")
    if owners_of != [loser]:
        raise InputError(f"liberate: {', '.join(r for r in regions if pos.owners[r] != loser)} not held by {loser}: "
                         "a victor liberates regions of the nation it defeated (§9.8)")
    pap = _pay(pos, victor, len(regions) / 2, "liberate")
    owners = {k: v for k, v in pos.owners.items() if k not in regions}
    after, more = _congress_done(pos, with_changes(pos, pap=pap, owners=owners), c, victor, True)
    return Result("liberate", after,
                  [f"{victor} liberates {', '.join(regions)} ({len(regions) / 2:g} PAP, §9.8)", *more],
                  data={"congress": _congress_data(after, loser)})


def armistice(pos: NiePosition, a: str, b: str) -> Result:
    """§9.8: both pay 1 PAP and their war ends with no winner; other wars go on."""
    if not pos.at_war(a, b):
        raise InputError(f"{a} and {b} are not at war")
    pap = _pay(pos, a, 1, "armistice")
    pap = _pay(with_changes(pos, pap=pap), b, 1, "armistice")
    decl = {k: tuple(x for x in v if not ({k, x} == {a, b})) for k, v in pos.declarations.items()}
    return Result("armistice", with_changes(pos, pap=pap, relations=_set_relation(pos, a, b, None),
                                            declarations=decl),
                  [f"armistice between {a} and {b} (1 PAP each, §9.8): neutral, no winner"])


def break_alliance(pos: NiePosition, actor: str, partner: str) -> Result:
    """§9.8: 1 PAP; allied -> neutral; troops sharing regions with the ex-partner must leave (listed), unless war is
    declared at once or passage granted."""
    if pos.relation(actor, partner) != "allied" or actor == partner:
        raise InputError(f"{actor} and {partner} are not allied")
    pap = _pay(pos, actor, 1, "break an alliance")
    shared = sorted({u.at for u in pos.units.values() if u.nation == actor and u.kind.base != NAVAL
                     and any(o.nation == partner and o.kind.base != NAVAL for o in pos.units_at(u.at))})
    after = with_changes(pos, pap=pap, relations=_set_relation(pos, actor, partner, None))
    lines = [f"{actor} breaks its alliance with {partner} (1 PAP, §9.8)"]
    if shared:
        lines.append(f"troops sharing {', '.join(shared)} must leave at once unless war is declared or passage "
                     "granted; still together at the end of the turn, they fight (§9.8)")
    return Result("break_alliance", after, lines, data={"must_leave": shared})


def passage(pos: NiePosition, host: str, guest: str, grant: bool) -> Result:
    """§9.8 right of passage (free): granted, the guest moves through the host's regions without combat; revoked,
    the guest's units must leave at once."""
    ps = set(pos.passage)
    (ps.add if grant else ps.discard)((guest, host))
    lines = [f"{host} {'grants' if grant else 'revokes'} {guest} right of passage (§9.8)"]
    leave = []
    if not grant:
        leave = sorted({u.at for u in pos.units.values() if u.nation == guest and u.kind.base != NAVAL
                        and u.at in pos.europe.regions and (pos.owner(u.at) == host
                                                            or any(o.nation == host for o in pos.units_at(u.at)))})
        if leave:
            lines.append(f"{guest}'s units in {', '.join(leave)} must leave at once (§9.8)")
    return Result("passage", with_changes(pos, passage=frozenset(ps)), lines, data={"must_leave": leave})


def capital_tests(before: NiePosition, after: NiePosition) -> list[str]:
    """§9.10, A25: nations whose capital enemy units occupy now but did not before must roll against their C
    value (once, when the occupation begins)."""
    due = []
    for n in NATIONS:
        for cap in after.europe.capitals(n):
            if after.owner(cap) != n:
                continue
            if occupied_by_enemy(after, cap, n) and not occupied_by_enemy(before, cap, n):
                if not any(u.nation == n and u.kind.army for u in after.units_at(cap)):
                    due.append(n)
    return sorted(set(due))
