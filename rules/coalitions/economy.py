"""The actions of the Wheel other than Movement (§9.5): Drill, Taxation & Trade, Leadership & Subsidies,
Mobilisation, Expand Influence; the hand limit; Influence and victory (§9.1).

Money, Morale and IP are whole numbers; Morale stays within 0..`morale_max` (§8.8, A1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from common.errors import InputError
from rules.coalitions.model import (
    DEFAULT_HAND_LIMIT,
    FORTRESSES,
    HAND_LIMIT,
    MAX_TROOPS,
    POWERS,
    TOKENS,
    WIN_IP,
    CoalitionsPosition,
    Log,
    Result,
    State,
    known_power,
    names,
    state_of,
)
from rules.coalitions.options import DEFAULT, Options

COSTS = {"troop": 1, "card": 1, "morale": 1, "fortress": 5}
"""Mobilisation prices in Money (§9.5)."""


# ---------------------------------------------------------------------------------------------- small shared steps


def add_morale(s: State, power: str, n: int, opts: Options = DEFAULT) -> int:
    """Morale changed by `n`, kept within 0..morale_max (§8.8, A1); returns the change actually made."""
    before = s.morale_of(power)
    s.morale[power] = max(0, min(opts.morale_max, before + n))
    return s.morale[power] - before


def gain_ip(s: State, log: Log, power: str, n: int, why: str) -> None:
    """IP to a Power; a Minor's go to its controller and an uncontrolled Minor's to nobody (§9.6). Reaching 25 wins at
    once (§9.1); in L'Empereur France reaching 25 beats the players (§9.8)."""
    if n <= 0:
        return
    to = s.major_of(power)
    if s.is_minor(to):
        log.say(f"{power} is an uncontrolled Minor: nobody gains its {n} IP (§9.6)")
        return
    s.influence[to] = s.influence.get(to, 0) + n
    via = f" (for its Minor {power})" if to != power else ""
    log.say(f"{to} +{n} IP{via}: {why}; now {s.influence[to]}", power=to, influence=n)
    if s.influence[to] >= WIN_IP and not s.winner and (s.mode == "competitive" or to == "france"):
        s.winner = [to]
        log.say(f"{to} reaches {WIN_IP} Influence and wins at once (§9.1" + (", §9.8)" if s.mode != "competitive"
                                                                              else ")"), winner=to)


def draw_cards(s: State, power: str, n: int) -> None:
    s.hands[power] = s.hands.get(power, 0) + n
    if s.deck is not None:
        s.deck = max(0, s.deck - n)  # an empty deck is reshuffled from the discards (§9.5)


def hand_limit(power: str) -> int:
    return HAND_LIMIT.get(power, DEFAULT_HAND_LIMIT)


def hand_limits(s: State, log: Log) -> None:
    """At the end of every action: France keeps at most 10 Battle cards, every other Power 6 (§9.5)."""
    for p in POWERS:
        over = s.hands.get(p, 0) - hand_limit(p)
        if over > 0:
            s.hands[p] -= over
            log.say(f"{p} discards {over} Battle card(s) down to its hand limit {hand_limit(p)} (§9.5)", power=p,
                    discard=over)


def _acting(s: State, power: str, what: str) -> None:
    known_power(power, what)
    if s.is_minor(power) and s.minors[power] is None:
        raise InputError(f"{what}: {power} is an uncontrolled Minor and takes no actions (§9.6)")
    once_a_round(s, power, what)


def once_a_round(s: State, power: str, action: str) -> None:
    """§4.2: every Power does every action of the Wheel once per round (a Power catching up may do it off its
    place, with a note, but never twice); recorded in the draft's `done` (cleared as a round begins). L'Empereur's
    automa acts by its own rules (§9.8) and is not counted."""
    if s.mode != "competitive" and power == "france":
        return
    done = s.done.setdefault(power, [])
    if action in done:
        raise InputError(f"{action}: {power} has already done it this round (round {s.round}; every action once per "
                         "round, §4.2)")
    done.append(action)


# ---------------------------------------------------------------------------------------------- the actions (§9.5)


def drill(pos: CoalitionsPosition, power: str) -> Result:
    """Drill (§9.5): draw 1 Battle card, then discard 1 (perhaps the one just drawn): the hand keeps its size."""
    s = pos.draft()
    _acting(s, power, "drill")
    log = Log()
    draw_cards(s, power, 1)
    s.hands[power] -= 1
    log.say(f"{power} drills: draws 1 Battle card and discards 1 (§9.5)", power=power)
    hand_limits(s, log)
    return log.result("drill", s)


def tax_value(pos: CoalitionsPosition | State, power: str) -> dict:
    """Taxation income (§9.5): the values of the Power's controlled own Home Territories, Uncontested Territories and
    Contested Territories without its stripe; doubled for a Neutral Power. Britain adds Trade: the ports not
    controlled by a Power at War with it, i.e. all ports minus those held by Expansionist or French-Coalition
    Powers (A8)."""
    s = state_of(pos)
    items = []
    for tid, t in sorted(s.europe.territories.items()):
        if s.controller(tid) != power:
            continue
        if (t.is_home and t.home == power) or t.kind == "uncontested" or (t.kind == "contested"
                                                                         and power not in t.stripes):
            items.append((tid, t.value))
    base = sum(v for _, v in items)
    neutral = s.status(power) == "neutral"
    out = {"territories": dict(items), "tax": base * (2 if neutral else 1), "neutral_double": neutral}
    if power == "britain":
        ports = s.europe.ports()
        hostile = [t for t in ports if (c := s.controller(t)) and s.status(c) in ("expansionist", "french")]
        out["trade"] = len(ports) - len(hostile)
        out["hostile_ports"] = hostile
    out["total"] = out["tax"] + out.get("trade", 0)
    return out


def taxation(pos: CoalitionsPosition, power: str) -> Result:
    s = pos.draft()
    _acting(s, power, "taxation")
    log = Log()
    tv = tax_value(s, power)
    s.money[power] = s.money.get(power, 0) + tv["total"]
    log.say(f"{power} collects {tv['tax']} Money in taxes from {names(tv['territories'])}"
            + (" (doubled: Neutral)" if tv["neutral_double"] else "") + " (§9.5)", power=power, money=tv["tax"])
    if "trade" in tv:
        log.say(f"britain trades: {tv['trade']} Money, the ports not held by its enemies (§9.5, A8)",
                power=power, money=tv["trade"])
    hand_limits(s, log)
    return log.result("taxation", s, income=tv)


def leadership(pos: CoalitionsPosition, power: str, option: str, place: Mapping[str, str] | None = None,
               remove: Sequence[str] = ()) -> Result:
    """Leadership (§9.5), one of: `place` off-map Generals on Territories the Power controls (no Troops, not beside
    another of its Generals, A32) or `remove` Generals from the board (not both); `draw` 1 Battle card; `morale` +1."""
    s = pos.draft()
    _acting(s, power, "leadership")
    log = Log()
    if option == "generals":
        if place and remove:
            raise InputError("leadership: place Generals or take them off, not both (§9.5)")
        for gid, tid in (place or {}).items():
            _place_general(s, log, power, gid, tid)
        for gid in remove:
            g = s.general(gid, "leadership: remove")
            if g.power != power or g.at is None:
                raise InputError(f"leadership: {gid} is not a {power} General on the board")
            log.say(f"{gid} leaves {g.at} for off-map; its {g.troops} Troop(s) go to the supply (§9.5)", general=gid,
                    to=None)
            g.at, g.troops = None, 0
    elif option == "draw":
        draw_cards(s, power, 1)
        log.say(f"{power} draws 1 Battle card (Leadership, §9.5)", power=power, cards=1)
    elif option == "morale":
        add_morale(s, power, 1)
        log.say(f"{power} +1 Morale (Leadership, §9.5)", power=power, morale=1)
    else:
        raise InputError(f"leadership: option must be generals, draw or morale, not {option!r}")
    hand_limits(s, log)
    return log.result("leadership", s)


def _place_general(s: State, log: Log, power: str, gid: str, tid: str) -> None:
    g = s.general(gid, f"leadership: place.{gid}")
    s.europe.territory(tid, f"leadership: place.{gid}")
    if g.power != power or g.at is not None:
        raise InputError(f"leadership: {gid} is not an off-map {power} General")
    s.europe.territory(tid, f"leadership: {gid}")
    if s.controller(tid) != power:
        raise InputError(f"leadership: {tid} is not controlled by {power} (§9.5)")
    if any(o.power == power for o in s.generals_at(tid)):
        raise InputError(f"leadership: another {power} General is in {tid} (A32)")
    if any(o.power != power for o in s.generals_at(tid)):
        raise InputError(f"leadership: another Power's General stands in {tid}")
    g.at = tid
    log.say(f"{gid} enters the board in {tid} with no Troops (§9.5, A32)", general=gid, to=tid)


def subsidies(pos: CoalitionsPosition, offers: Mapping[str, int], accepted: Sequence[str]) -> Result:
    """Britain's Subsidies beside its Leadership (§9.5): Money to British-Coalition Powers; for each that accepts,
    1 IP per 3 Money, at most 1 IP a Power; none for a Minor or in L'Empereur (§9.8)."""
    s = pos.draft()
    log = Log()
    once_a_round(s, "britain", "subsidies")
    for p in [*offers, *accepted]:
        known_power(p, "subsidies: offer" if p in offers else "subsidies: accepted")
    for p, n in offers.items():
        if p == "britain" or s.status(p) != "british":
            raise InputError(f"subsidies: {p} is not in the British Coalition (§9.2)")
        if not isinstance(n, int) or n < 1:
            raise InputError(f"subsidies: {p}: a whole amount of Money ≥ 1, not {n!r}")
    for p in accepted:
        if p not in offers:
            raise InputError(f"subsidies: {p} accepted nothing offered")
    total = sum(offers[p] for p in accepted)
    if total > s.money.get("britain", 0):
        raise InputError(f"subsidies: {total} Money offered and accepted; Britain has {s.money.get('britain', 0)}")
    for p in accepted:
        s.money["britain"] -= offers[p]
        s.money[p] = s.money.get(p, 0) + offers[p]
        log.say(f"britain subsidises {p} with {offers[p]} Money (§9.5)", power=p, money=offers[p])
        ip = min(1, offers[p] // 3)
        if s.is_minor(p) or s.mode != "competitive":
            ip = 0
        gain_ip(s, log, "britain", ip, f"a subsidy to {p} (§9.5)")
    return log.result("subsidies", s)


def mobilisation(pos: CoalitionsPosition, power: str, troops: Mapping[str, int] | None = None, cards: int = 0,
                 morale: int = 0, fortresses: Sequence[str] = (), opts: Options = DEFAULT) -> Result:
    """Mobilisation (§9.5): Troops (1 each, under the Power's Generals on the map, at most 3 each), Battle cards (1),
    Morale (1), Fortresses (5, on a Territory with its own Garrison, one each, 6 in all); 1 free card per off-map
    General. Every Power but Britain then returns its unspent Money (corruption)."""
    s = pos.draft()
    _acting(s, power, "mobilisation")
    log = Log()
    troops = dict(troops or {})
    for gid in troops:
        s.general(gid, f"mobilisation: troops.{gid}")
    for tid in fortresses:
        s.europe.territory(tid, "mobilisation: fortress")
    cost = (sum(troops.values()) * COSTS["troop"] + cards * COSTS["card"] + morale * COSTS["morale"]
            + len(fortresses) * COSTS["fortress"])
    if cost > s.money.get(power, 0):
        raise InputError(f"mobilisation: the purchases cost {cost} Money; {power} has {s.money.get(power, 0)} (§9.5)")
    for gid, n in troops.items():
        g = s.general(gid)
        if g.power != power or g.at is None:
            raise InputError(f"mobilisation: {gid} is not a {power} General on the map (§9.5)")
        if n < 0 or g.troops + n > MAX_TROOPS:
            raise InputError(f"mobilisation: {gid} has {g.troops} Troops; at most {MAX_TROOPS} (§3.6)")
        g.troops += n
    if s.troops_in_use(power) > TOKENS[power]:
        raise InputError(f"mobilisation: {power} has only {TOKENS[power]} Troop tokens (§2.1)")
    for tid in fortresses:
        if s.garrisons.get(tid) != power or tid in s.fortresses:
            raise InputError(f"mobilisation: a Fortress needs a {power} Garrison and no Fortress in {tid} (§9.5)")
        s.fortresses.add(tid)
    if len(s.fortresses) > FORTRESSES:
        raise InputError(f"mobilisation: only {FORTRESSES} Fortresses exist (§2.1)")
    s.money[power] = s.money.get(power, 0) - cost
    add_morale(s, power, morale, opts)
    off = sum(1 for g in s.generals.values() if g.power == power and g.at is None)
    draw_cards(s, power, cards + off)
    log.say(f"{power} spends {cost} Money: {sum(troops.values())} Troop(s), {cards} card(s), {morale} Morale, "
            f"{len(fortresses)} Fortress(es); draws {off} card(s) for its off-map Generals (§9.5)", power=power,
            money=-cost)
    if power != "britain" and s.money.get(power, 0):
        log.say(f"{power} returns {s.money[power]} unspent Money (corruption, §9.5)", power=power,
                money=-s.money[power])
        s.money[power] = 0
    hand_limits(s, log)
    return log.result("mobilisation", s)


def influence_value(pos: CoalitionsPosition | State, power: str) -> dict:
    """Expand Influence (§9.5): the values of the controlled Contested Territories with the Power's stripe and of the
    controlled Home Territories of other Powers (A30: the printed value)."""
    s = state_of(pos)
    striped = {t: s.europe.territories[t].value for t in sorted(s.europe.territories)
               if s.controller(t) == power and power in s.europe.territories[t].stripes}
    homes = {t: s.europe.territories[t].value for t in sorted(s.europe.territories)
             if s.controller(t) == power and s.europe.territories[t].is_home
             and s.europe.territories[t].home != power}
    return {"striped": striped, "homes": homes, "ip": sum(striped.values()) + sum(homes.values())}


def expand_influence(pos: CoalitionsPosition, power: str) -> Result:
    """Expand Influence (§9.5); allowed without the Capital; Minors do not perform it (§9.6). In L'Empereur the
    Grand Coalition takes Money for its striped Territories instead, France IP for the blue-striped (§9.8)."""
    s = pos.draft()
    _acting(s, power, "influence")
    log = Log()
    if s.is_minor(power):
        raise InputError(f"influence: {power} is a Minor Power and does not Expand Influence (§9.6)")
    iv = influence_value(s, power)
    if s.mode == "lempereur" and power != "france":
        money = sum(iv["striped"].values())
        s.money[power] = s.money.get(power, 0) + money
        log.say(f"{power} takes {money} Money for its striped Territories instead of IP (§9.8)", power=power,
                money=money)
    elif s.mode == "lempereur":
        gain_ip(s, log, power, sum(iv["striped"].values()), "blue-striped Contested Territories (§9.8)")
    else:
        gain_ip(s, log, power, iv["ip"], f"Expand Influence from {names([*iv['striped'], *iv['homes']])} (§9.5)")
    hand_limits(s, log)
    return log.result("influence", s, value=iv)


# ---------------------------------------------------------------------------------------------- victory (§9.1)


def contested_value(s: State, power: str) -> int:
    return sum(t.value for tid, t in s.europe.territories.items()
               if t.kind == "contested" and s.controller(tid) == power)


def ranking(s: State) -> list[str]:
    """The Major Powers by IP, then controlled Contested value, then Morale (§9.1 tie-breaks); Minors cannot win."""
    majors = [p for p in POWERS if not s.is_minor(p)]
    return sorted(majors, key=lambda p: (-s.influence.get(p, 0), -contested_value(s, p), -s.morale_of(p),
                                         POWERS.index(p)))


def paris_check(s: State, log: Log, opts: Options = DEFAULT) -> None:
    """The end-of-round Paris check (§9.1): a non-French General in Paris ends the game; each Power with a General
    there gains 6 IP, 9 if it is in the British Coalition (A3); most IP wins, ties by Contested value then Morale,
    still equal: shared."""
    powers = [p for p in POWERS if p != "france" and any(g.power == p for g in s.generals_at("paris"))]
    if not powers or "paris" not in s.europe.territories:
        return
    for p in powers if opts.paris_bonus_every_power else powers[:1]:
        bonus = opts.paris_bonus_british if s.status(p) == "british" else opts.paris_bonus
        gain_ip(s, log, p, bonus, "a General in Paris at the end of the round (§9.1, A3)")
    order = ranking(s)
    top = order[0]
    key = (s.influence.get(top, 0), contested_value(s, top), s.morale_of(top))
    s.winner = [p for p in order if (s.influence.get(p, 0), contested_value(s, p), s.morale_of(p)) == key]
    log.say(f"a non-French General holds Paris at the end of the round: the game ends; {' and '.join(s.winner)} "
            "win(s) (§9.1)", winner=s.winner)
