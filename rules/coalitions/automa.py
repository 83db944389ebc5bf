"""L'Empereur, the French automa (§9.8), as far as the text defines it: Napoleon cards (the card's Territories are
given: the 12 cards' contents are not in the text), where the attacking French Generals come from (priorities a-g),
Race to Paris (A-E), France's Mobilisation, the automa's battles (France draws cards until a stop condition) and the
players' victory with a General in Paris.

The Napoleon cards' lists and the Battle deck's composition (A31) must come from the physical cards: the drawn
card values are given in order, and "France can no longer win" is the players' word (`hopeless=yes`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from common.errors import InputError
from rules.coalitions.diplomacy import distances, powers_on, send_away
from rules.coalitions.economy import add_morale, draw_cards, gain_ip
from rules.coalitions.model import MAX_TROOPS, POWERS, CoalitionsPosition, Log, Result, State, names, state_of
from rules.coalitions.options import DEFAULT, Options
from rules.coalitions.scenarios import FRENCH_HOMES_ORDER

GRAND_COALITION = tuple(p for p in POWERS if p != "france")


def _need_automa(s: State) -> None:
    if s.mode != "lempereur":
        raise InputError("L'Empereur only: the position's mode is not lempereur (§9.8)")


def lowest_morale(pos: CoalitionsPosition | State) -> list[str]:
    s = state_of(pos)
    low = min(s.morale_of(p) for p in GRAND_COALITION)
    return [p for p in GRAND_COALITION if s.morale_of(p) == low]


def race_due(pos: CoalitionsPosition | State) -> list[str]:
    """The French Home Territories with a Grand Coalition General on them, in the Race-to-Paris priority (§9.8)."""
    s = state_of(pos)
    homes = [t for t in FRENCH_HOMES_ORDER + ("paris",) if t in s.europe.territories]
    return [t for t in homes if any(g.power != "france" for g in s.generals_at(t))]


# ---------------------------------------------------------------------------------------------- sourcing (§9.8)


def _french_on(s: State, kind: Callable[[str], bool], used: set[str], target: str) -> list[tuple]:
    """French Generals on the board on Territories of a kind, keyed nearest to the target, then lowest value (A21)."""
    dist = distances(s, target)
    out = []
    for g in s.generals.values():
        if g.power == "france" and g.at and g.at != target and g.id not in used and kind(g.at):
            t = s.europe.territories[g.at]
            out.append((dist.get(g.at, 99), t.value, g.at, g.id))
    return sorted(out)


def source_general(pos: CoalitionsPosition | State, target: str, used: Sequence[str] = (), race: bool = False
                   ) -> tuple[str | None, str, list[str]]:
    """The French General to send to `target` (§9.8): (id, the priority letter, the equally good others for the
    players). Napoleon card: a off-map, b nearest French Home but Paris, c Paris, d Uncontested, e Contested without
    a French claim, f a Grand Coalition Home, g Contested with a French claim. Race to Paris: A off-map,
    B Uncontested, C unclaimed Contested, D Grand Coalition Home, E claimed Contested."""
    s = state_of(pos)
    taken = set(used)
    terr = s.europe.territories

    def home_fr(t):
        return terr[t].is_home and terr[t].home == "france" and t != "paris"

    def unc(t):
        return terr[t].kind == "uncontested"

    def unclaimed(t):
        return terr[t].kind == "contested" and "france" not in terr[t].stripes

    def gc_home(t):
        return terr[t].is_home and terr[t].home != "france"

    def claimed(t):
        return terr[t].kind == "contested" and "france" in terr[t].stripes

    off = sorted(g.id for g in s.generals.values() if g.power == "france" and g.at is None and g.id not in taken)
    if off:
        return off[0], "A" if race else "a", off[1:]
    kinds = ([("B", unc), ("C", unclaimed), ("D", gc_home), ("E", claimed)] if race else
             [("b", home_fr), ("c", lambda t: t == "paris"), ("d", unc), ("e", unclaimed), ("f", gc_home),
              ("g", claimed)])
    for letter, kind in kinds:
        found = _french_on(s, kind, taken, target)
        if found:
            best = found[0][:2]
            return found[0][3], letter, [f[3] for f in found[1:] if f[:2] == best]
    return None, "-", []


def _send(s: State, log: Log, target: str, used: set[str], ch: Mapping[str, str], race: bool) -> str | None:
    """Put a French General with 3 Troops on `target` (or top up the one there); returns the battle Territory."""
    here = next((g for g in s.generals_at(target) if g.power == "france"), None)
    if here is None:
        gid, letter, ties = source_general(s, target, sorted(used), race)
        gid = ch.get(f"from.{target}", gid)
        if gid is None:
            log.say(f"no French General is left to send to {target} (§9.8)")
            return None
        if ties:
            log.notes.append(f"{target}: {gid} and {names(ties)} are equally good sources; the players choose "
                             f"(from.{target}=ID)")
        here = s.general(gid)
        log.say(f"{gid} comes from {here.at or 'off-map'} (priority {letter}) to {target} (§9.8)", general=gid,
                to=target)
        here.at = target
    used.add(here.id)
    if here.troops < MAX_TROOPS:
        log.say(f"{here.id} is topped up to {MAX_TROOPS} Troops from the French supply (§9.8)")
        here.troops = MAX_TROOPS
    if any(p != "france" for p in powers_on(s, target)):
        return target
    if target not in s.garrisons:
        here.troops -= 1
        s.garrisons[target] = "france"
        log.say(f"{target} is empty: {here.id} flips a Troop to a French Garrison (§9.8)", garrison=target)
    return None


# ---------------------------------------------------------------------------------------------- activations


def napoleon_card(pos: CoalitionsPosition, attacked: Sequence[str], uncoloured: Sequence[str] = (),
                  ch: Mapping[str, str] | None = None, opts: Options = DEFAULT) -> Result:
    """France plays a Napoleon card on Drill, Leadership or Movement (§9.8): +1 Morale to the Grand Coalition Power
    with the lowest Morale (`lowest=POWER` on ties), then for each listed Territory: a French Garrison there gives
    its value in IP, else a French General attacks it (A19: uncoloured Territories only give IP unless the option
    says attack). Returns the battles in the card's order. Race to Paris replaces it when due."""
    s = pos.draft()
    ch = dict(ch or {})
    _need_automa(s)
    log = Log()
    if race_due(s):
        raise InputError(f"a Grand Coalition General is on {names(race_due(s))}: Race to Paris instead (§9.8)")
    low = lowest_morale(s)
    pick = ch.get("lowest", low[0])
    if pick not in low:
        raise InputError(f"lowest={pick}: the lowest Morale is {names(low)}'s (§9.8)")
    add_morale(s, pick, 1, opts)
    log.say(f"{pick} (lowest Morale) +1 Morale (§9.8)", power=pick, morale=1)
    battles = []
    used: set[str] = set()
    for tid in [*attacked, *uncoloured]:
        s.europe.territory(tid, "napoleon card")
        if s.garrisons.get(tid) == "france":
            gain_ip(s, log, "france", s.europe.territories[tid].value, f"a French Garrison in {tid} (§9.8, E14)")
            continue
        if tid in uncoloured and opts.napoleon_uncoloured == "ip_only":
            continue
        b = _send(s, log, tid, used, ch, race=False)
        if b:
            battles.append(b)
    return log.result("napoleon_card", s, battles=battles)


def race_to_paris(pos: CoalitionsPosition, ch: Mapping[str, str] | None = None) -> Result:
    """Race to Paris (§9.8): three French Generals with 3 Troops each, one in Paris, one on the attacked French Home,
    one on a Territory adjacent to it (the priority Lorraine, Picardie, Provence, Normandie & Bretagne, Languedoc,
    Aquitaine among several); one already there is topped up instead."""
    s = pos.draft()
    ch = dict(ch or {})
    _need_automa(s)
    log = Log()
    due = [t for t in race_due(s) if t != "paris"]
    if not due and not race_due(s):
        raise InputError("Race to Paris: no Grand Coalition General is on a French Home Territory (§9.8)")
    home = due[0] if due else "paris"
    near = sorted(s.europe.land[home], key=lambda t: (FRENCH_HOMES_ORDER.index(t) if t in FRENCH_HOMES_ORDER
                                                       else len(FRENCH_HOMES_ORDER), t))
    near = [t for t in near if t != "paris" and s.europe.territories[t].kind != "impassable"]
    adjacent = ch.get("adjacent", near[0] if near else None)
    targets = list(dict.fromkeys(t for t in ("paris", home, adjacent) if t))
    log.say(f"Race to Paris: French Generals to {names(targets)} (§9.8)")
    used: set[str] = set()
    battles = [b for t in targets if (b := _send(s, log, t, used, ch, race=True))]
    return log.result("race_to_paris", s, battles=battles)


def mobilise_france(pos: CoalitionsPosition, order: Sequence[str] = (), opts: Options = DEFAULT) -> Result:
    """France's Mobilisation (§9.8): Troops to every French General on the board up to 3 (the players' `order` when
    Money runs short), the rest of the Money buys Morale."""
    s = pos.draft()
    _need_automa(s)
    log = Log()
    gens = [s.general(g) for g in order] or sorted((g for g in s.generals.values() if g.power == "france" and g.at),
                                                   key=lambda g: g.id)
    for g in gens:
        n = min(MAX_TROOPS - g.troops, s.money.get("france", 0))
        if n > 0:
            g.troops += n
            s.money["france"] -= n
            log.say(f"{g.id} +{n} Troop(s) (§9.8)", general=g.id, troops=n)
    spent = add_morale(s, "france", s.money.get("france", 0), opts)
    s.money["france"] = 0
    log.say(f"France buys {spent} Morale with the rest of its Money (§9.8)")
    return log.result("mobilise_france", s)


# ---------------------------------------------------------------------------------------------- battles (§9.8)


def napoleon_draws(coalition: int, france: int, drawn: Sequence[int], morale: int, slots: int,
                   hopeless_after: int | None = None) -> int:
    """How many of the drawn cards (in order) Napoleon takes (§9.8): one at a time, 1 French Morale each, until France
    is stronger, has 0 Morale, every French Troop has drawn a card, or (the players' word) cannot win any more."""
    taken = 0
    for v in drawn:
        if france > coalition or morale == 0 or taken == slots or taken == hopeless_after:
            break
        france += v
        morale -= 1
        taken += 1
    return taken


def automa_battle(pos: CoalitionsPosition, tid: str, coalition_cards: Mapping[str, Sequence[int]],
                  drawn: Sequence[int], support: Sequence[str] = (), french_support: Sequence[str] = (),
                  ch: Mapping[str, str] | None = None, opts: Options = DEFAULT) -> Result:
    """An L'Empereur battle (§9.8): Strength of Generals and Troops (Garrisons too, A20), the Coalition's cards face up
    (no abilities) for 1 Morale each, then Napoleon draws from `drawn` until a stop condition; Troops are lost as in
    the standard rules. France winning as attacker garrisons and gains 1 IP; a French General losing goes off-map
    with its Troops and the French Garrison there. A tie: the standard rules (§8.6)."""
    s = pos.draft()
    ch = dict(ch or {})
    _need_automa(s)
    log = Log()
    fr = [g for g in s.generals_at(tid) if g.power == "france"]
    gc = [g for g in s.generals_at(tid) if g.power != "france"]
    gar = s.garrisons.get(tid)
    if not (fr or gar == "france") or not (gc or (gar and gar != "france")):
        raise InputError(f"automa battle in {tid}: France and the Grand Coalition must both be there (§9.8)")
    gar_str = (4 if tid in s.fortresses else 1) if gar and opts.lempereur_garrisons_count else 0
    base = {"france": sum(1 + g.troops for g in fr) + (gar_str if gar == "france" else 0),
            "coalition": sum(1 + g.troops for g in gc) + (gar_str if gar and gar != "france" else 0)}
    played = {}
    for gid, pile in coalition_cards.items():
        g = s.general(gid)
        if g.power == "france" or (g.at != tid and gid not in support) or len(pile) > g.troops:
            raise InputError(f"cards.{gid}: a Grand Coalition General in or supporting the battle, 1 card a Troop")
        played[g.power] = played.get(g.power, 0) + len(pile)
    for p, n in played.items():
        if n > max(1, s.morale_of(p)):
            raise InputError(f"cards: {p} plays {n} cards with {s.morale_of(p)} Morale (§8.4)")
        add_morale(s, p, -n, opts)
        if p in s.hands:
            s.hands[p] = max(0, s.hands[p] - n)
    coalition = base["coalition"] + sum(sum(v) for v in coalition_cards.values())
    slots = sum(g.troops for g in fr) + sum(s.general(g).troops for g in french_support)
    hopeless = int(ch["hopeless"]) if "hopeless" in ch else None
    took = napoleon_draws(coalition, base["france"], drawn, s.morale_of("france"), slots, hopeless)
    france = base["france"] + sum(drawn[:took])
    add_morale(s, "france", -took, opts)
    log.say(f"Grand Coalition {coalition} (base {base['coalition']}); France {france} (base {base['france']}, "
            f"{took} card(s) drawn: {'+'.join(map(str, drawn[:took])) or 'none'}) (§9.8)")
    for p in played:
        draw_cards(s, p, 1)
    for g in [*fr, *gc, *(s.general(x) for x in [*support, *french_support])]:
        g.troops = max(0, g.troops - 1)
    attacker_fr = ch.get("attacker", "france") == "france"
    if france == coalition:
        log.say("a tie: the defenders stay, the attacker retreats (§8.6)")
        for g in fr if attacker_fr else gc:
            send_away(s, log, g.id, ch.get(f"retreat.{g.id}"), opts, "a tie, §8.6")
    elif france > coalition:
        _france_wins(s, log, tid, fr, gc, attacker_fr)
    else:
        _france_loses(s, log, tid, fr)
    return log.result("automa_battle", s, territory=tid, france=france, coalition=coalition, drawn=took)


def _france_wins(s: State, log: Log, tid: str, fr, gc, attacker_fr: bool) -> None:
    for g in gc:
        capital = s.europe.capital(g.power)
        open_capital = capital and s.controller(capital) == g.power and not any(
            o.power == g.power for o in s.generals_at(capital))
        g.at, g.troops = (capital, 0) if open_capital else (None, 0)
        log.say(f"{g.id} is defeated: to {g.at or 'off-map'} (§8.6)", general=g.id, to=g.at)
    if s.garrisons.get(tid) not in (None, "france"):
        del s.garrisons[tid]
    if attacker_fr:
        g = next((g for g in fr if g.troops), None)
        if g and tid not in s.garrisons:
            g.troops -= 1
            s.garrisons[tid] = "france"
            log.say(f"{g.id} leaves a French Garrison in {tid} (§9.8)", garrison=tid)
        gain_ip(s, log, "france", 1, "Napoleon wins as attacker (§9.8)")


def _france_loses(s: State, log: Log, tid: str, fr) -> None:
    for g in fr:
        g.at, g.troops = None, 0
        log.say(f"{g.id} loses: off-map with all its Troops (§9.8)", general=g.id, to=None)
    if s.garrisons.get(tid) == "france":
        del s.garrisons[tid]
        log.say(f"the French Garrison in {tid} goes off-map too (§9.8)", garrison=tid, removed=True)


def players_win(pos: CoalitionsPosition | State) -> bool:
    """The players win when a non-French General is in Paris at the end of a turn, after any battle (§9.8)."""
    s = state_of(pos)
    return any(g.power != "france" for g in s.generals_at("paris"))
