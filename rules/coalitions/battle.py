"""Battles (§8): a deterministic comparison of Strength plus Battle cards. No dice.

Step 1 sums the Strength on the battle Territory (§8.2); step 2 the support declarations (§8.3); step 3 the cards,
given per General as the values of its pile (the camera cannot see them, §13.2); step 4 the result (§8.6): Troop
losses, the loser's Generals to their Capital or off-map, the winner's Garrison, IP, card draws, Morale; special
Generals (§8.9) when the game uses them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from common.errors import InputError
from rules.coalitions.diplomacy import allied, can_attack, nearest_controlled, powers_on
from rules.coalitions.economy import add_morale, draw_cards, gain_ip
from rules.coalitions.model import (
    MAX_TROOPS,
    POWERS,
    CoalitionsPosition,
    General,
    Log,
    Result,
    State,
    names,
    state_of,
)
from rules.coalitions.options import DEFAULT, Options

SIDES = ("attacker", "defender")


@dataclass
class Sides:
    """Who fights a battle on `territory`: the Generals on it per side, the Garrison (it defends), the supporters."""

    territory: str
    attacker: str
    direct: dict[str, list[str]] = field(default_factory=lambda: {"attacker": [], "defender": []})
    support: dict[str, list[str]] = field(default_factory=lambda: {"attacker": [], "defender": []})
    garrison: str | None = None

    def side_of(self, gid: str) -> str | None:
        return next((k for k in SIDES if gid in self.direct[k] or gid in self.support[k]), None)

    def generals(self, side: str) -> list[str]:
        return self.direct[side] + self.support[side]

    def powers(self, s: State, side: str, direct_only: bool = False) -> list[str]:
        gids = self.direct[side] if direct_only else self.generals(side)
        ps = {s.general(g).power for g in gids}
        if side == "defender" and self.garrison:
            ps.add(self.garrison)
        return [p for p in POWERS if p in ps]


def sides(pos: CoalitionsPosition | State, tid: str, attacker: str, support: Mapping[str, str] | None = None,
          busy: Sequence[str] = ()) -> Sides:
    """The two sides on `tid` (§8.1): the attacker and its allies there; every other Power there defends (allies
    jointly). `support` maps supporting Generals to "attacker" or "defender" (checked, §8.3); `busy`: Generals that
    already supported this Move Turn."""
    s = state_of(pos)
    s.europe.territory(tid, "battle")
    sd = Sides(tid, attacker)
    for g in sorted(s.generals_at(tid), key=lambda g: g.id):
        sd.direct["attacker" if allied(s, attacker, g.power) else "defender"].append(g.id)
    gar = s.garrisons.get(tid)
    if gar is not None and not allied(s, attacker, gar):
        sd.garrison = gar
    if not sd.direct["attacker"]:
        raise InputError(f"battle in {tid}: no {attacker} General or ally is there (§8.1)")
    defenders = sd.powers(s, "defender")
    if not defenders:
        raise InputError(f"battle in {tid}: nobody there fights {attacker} (§8.1)")
    if any(not allied(s, a, b) for a in defenders for b in defenders):
        raise InputError(f"battle in {tid}: {names(defenders)} are not allies; Powers that are not allies never "
                         "share a Territory (§3.6, §9.4)")
    for p in defenders:
        if not can_attack(s, attacker, p, tid):
            raise InputError(f"battle in {tid}: {attacker} may not attack {p} there (§9.2)")
    for gid, side in (support or {}).items():
        s.general(gid, f"support.{gid}")
        if side not in SIDES:
            raise InputError(f"support.{gid}={side}: attacker or defender")
        why = support_reasons(s, sd, gid, side, busy)
        if why:
            raise InputError(f"support.{gid}: {why}")
        sd.support[side].append(gid)
    return sd


def _leaders(s: State, sd: Sides, side: str) -> list[str]:
    return [sd.attacker] if side == "attacker" else sd.powers(s, "defender", direct_only=True)


def support_reasons(s: State, sd: Sides, gid: str, side: str, busy: Sequence[str] = ()) -> str | None:
    """Why a General may not support `side` (None: it may, §8.3): it needs Troops, a Territory adjacent to the battle
    (British Troops also along a direct Sea Route, E13), the same Power or an ally of that side, and must be in no
    battle and support no other one."""
    g = s.general(gid)
    if g.at is None or g.at == sd.territory:
        return f"{gid} is {'off-map' if g.at is None else 'in the battle'}"
    if g.troops < 1:
        return f"{gid} has no Troops; a General without Troops cannot support (§8.3)"
    by_sea = g.power == "britain" and sd.territory in s.europe.routes[g.at]
    if not s.europe.adjacent(g.at, sd.territory) and not by_sea:
        return f"{g.at} is not adjacent to {sd.territory}" + (" nor joined by a direct Sea Route" if g.power ==
                                                              "britain" else "") + " (§8.3)"
    if not any(allied(s, g.power, p) for p in _leaders(s, sd, side)):
        return f"{g.power} is not an ally of the {side} (§8.3)"
    if gid in busy or (s.movement and g.at in s.movement.battles):
        return f"{gid} is in another battle or supports one already this Move Turn (§8.3)"
    return None


def play_order(pos: CoalitionsPosition | State, sd: Sides) -> list[str]:
    """The order in which the Powers play a card each round of play (§8.4): the attacking Power, the defending
    Powers, the Powers supporting the attacker, those supporting the defender (a Power may come twice). The rounds
    repeat until every Power has passed; passing is final."""
    s = state_of(pos)
    order = [sd.attacker, *sd.powers(s, "defender", direct_only=True)]
    for side in SIDES:
        order += [p for p in POWERS if any(s.general(g).power == p for g in sd.support[side])]
    return order


def base_strength(s: State, sd: Sides, side: str) -> int:
    """Step 1 (§8.2): 1 per General and per Troop on the battle Territory; the Garrison 1, 4 with a Fortress.
    Supporters add none."""
    n = sum(1 + s.general(g).troops for g in sd.direct[side])
    if side == "defender" and sd.garrison:
        n += 4 if sd.territory in s.fortresses else 1
    return n


def card_allowance(s: State, sd: Sides, gid: str) -> int:
    """One card per Troop of a General in the battle or supporting (§8.4); Schwarzenberg one more per other Power
    supporting his side (§8.9)."""
    g = s.general(gid)
    n = g.troops
    side = sd.side_of(gid)
    if g.special == "schwarzenberg" and side and gid in sd.direct[side]:
        n += len({s.general(o).power for o in sd.support[side]} - {g.power})
    return n


def pile_value(pile: Sequence[int], controlled: bool, opts: Options = DEFAULT, pairs: bool = True) -> int:
    """A pile's Strength (§8.5): the face values; each "2" +3 on a Territory its player controls (A10); +1 per pair
    of "4"s in the pile (A12)."""
    total = sum(pile)
    if controlled:
        total += opts.card2_bonus * pile.count(2)
    if pairs:
        total += pile.count(4) // 2
    return total


def _wellington(s: State, sd: Sides, side: str) -> tuple[int, str | None]:
    """Wellington supporting from an adjacent Territory (not across a Sea Route): 1 + his Troops (§8.9)."""
    for gid in sd.support[side]:
        g = s.general(gid)
        if g.special == "wellington" and s.europe.adjacent(g.at, sd.territory):
            return 1 + g.troops, gid
    return 0, None


def strength(pos: CoalitionsPosition | State, sd: Sides, cards: Mapping[str, Sequence[int]], opts: Options = DEFAULT
             ) -> dict:
    """Each side's final Strength (§8.6): base + card values + abilities + Wellington; itemised."""
    s = state_of(pos)
    out = {}
    ctrl = s.controller(sd.territory)
    for side in SIDES:
        items = [(base_strength(s, sd, side), "Generals, Troops and Garrison on the Territory (§8.2)")]
        all_fours = 0
        for gid in sd.generals(side):
            pile = list(cards.get(gid, ()))
            if not pile:
                continue
            power = s.general(gid).power
            mine = ctrl == power if opts.card2_control == "power" else ctrl is not None and allied(s, power, ctrl)
            items.append((pile_value(pile, mine, opts, opts.card4_pairs == "pile"),
                          f"{gid}'s cards {'+'.join(map(str, pile))} (§8.5)"))
            all_fours += pile.count(4)
        if opts.card4_pairs == "side" and all_fours >= 2:
            items.append((all_fours // 2, "pairs of \"4\" across the side (A12)"))
        w, wid = _wellington(s, sd, side)
        if w:
            items.append((w, f"Wellington ({wid}) supports: 1 + his Troops (§8.9)"))
        out[side] = {"total": sum(v for v, _ in items), "items": [[v, why] for v, why in items]}
    return out


def _check_cards(s: State, sd: Sides, cards: Mapping[str, Sequence[int]]) -> dict[str, int]:
    """Cards per General within its allowance; per Power within its Morale (1 card allowed at Morale 0) and its hand
    when the hand is known (§8.4). Returns the cards per Power."""
    per_power: dict[str, int] = {}
    for gid, pile in cards.items():
        s.general(gid, f"cards.{gid}")
        if sd.side_of(gid) is None:
            raise InputError(f"cards.{gid}: {gid} takes no part in the battle in {sd.territory}")
        for v in pile:
            if not isinstance(v, int) or not 0 <= v <= 9:
                raise InputError(f"cards.{gid}: card values are whole numbers 0..9, not {v!r}")
        cap = card_allowance(s, sd, gid)
        if len(pile) > cap:
            raise InputError(f"cards.{gid}: {len(pile)} cards; {gid} may play {cap} (one per Troop, §8.4)")
        p = s.general(gid).power
        per_power[p] = per_power.get(p, 0) + len(pile)
    for p, n in per_power.items():
        limit = max(1, s.morale_of(p))
        if n > limit:
            raise InputError(f"cards: {p} plays {n} cards with {s.morale_of(p)} Morale (1 Morale a card; 1 card at "
                             "0, §8.4)")
        if p in s.hands and n > s.hands[p]:
            raise InputError(f"cards: {p} plays {n} cards and holds {s.hands[p]} (§8.4)")
    return per_power


# ---------------------------------------------------------------------------------------------- resolving (§8.6)


def fight(pos: CoalitionsPosition, tid: str, attacker: str | None = None, support: Mapping[str, str] | None = None,
          cards: Mapping[str, Sequence[int]] | None = None, ch: Mapping[str, str] | None = None,
          opts: Options = DEFAULT) -> Result:
    """Resolve the battle in `tid` (§8): `attacker` defaults to the moving Power; `support` general -> side; `cards`
    general -> the values of its pile; `ch` the choices: `to.ID=capital|off|TERRITORY` for a defeated General,
    `retreat=TERRITORY|off` for a tied attacker, `garrison=no` to leave no Garrison, `kutuzov=TERRITORY` for his
    withdrawal, `vizier=TERRITORY` for the Grand Vizier."""
    s = pos.draft()
    ch = dict(ch or {})
    cards = {k: list(v) for k, v in (cards or {}).items()}
    log = Log()
    m = s.movement
    attacker = attacker or (m.power if m else None)
    if attacker is None:
        raise InputError(f"battle in {tid}: who attacks? (no Movement under way; give --attacker)")
    if m and m.battles and tid not in m.battles:
        raise InputError(f"battle in {tid}: the battles due are in {names(m.battles)} (§8.1)")
    sd = sides(s, tid, attacker, support, m.supported if m else ())
    log.say(f"battle in {tid}: {names(sd.powers(s, 'attacker'))} attack {names(sd.powers(s, 'defender'))} (§8.1)")
    _temporary_control(s, sd, log)
    if "kutuzov" in ch:
        _kutuzov(s, sd, log, ch["kutuzov"])
    if not sd.direct["defender"] and not sd.garrison:
        log.say(f"no defender is left in {tid}: {attacker} takes it unopposed, no IP (A15)")
        _winner_garrison(s, sd, log, ch)
        return _done(s, sd, log, "attacker", {})
    per_power = _check_cards(s, sd, cards)
    start_morale = {p: s.morale_of(p) for p in per_power}
    st = strength(s, sd, cards, opts)
    a, d = st["attacker"]["total"], st["defender"]["total"]
    for side in SIDES:
        log.say(f"{side}: " + " + ".join(f"{v} ({why})" for v, why in st[side]["items"]) + f" = {st[side]['total']}")
    for p, n in per_power.items():
        add_morale(s, p, -n, opts)
        if p in s.hands:
            s.hands[p] -= n
        log.say(f"{p} plays {n} card(s): -{start_morale[p] - s.morale_of(p)} Morale (§8.4)", power=p, cards=n)
    won = "attacker" if a > d else "defender" if d > a else None
    for gid in sd.generals("attacker") + sd.generals("defender"):
        g = s.general(gid)
        if g.troops:
            g.troops -= 1
    log.say("every General that took part, supporters included, loses 1 Troop (§8.6)")
    if won is None:
        _tie(s, sd, log, ch, opts)
    else:
        _result(s, sd, log, won, cards, ch, opts)
    for p in per_power:
        if per_power[p]:
            draw_cards(s, p, 1)
    if per_power:
        log.say(f"{names([p for p in per_power if per_power[p]])} draw 1 Battle card each (§8.6)")
    return _done(s, sd, log, won or "tie", st)


def _done(s: State, sd: Sides, log: Log, won: str, st: dict) -> Result:
    m = s.movement
    if m and sd.territory in m.battles:
        m.battles.remove(sd.territory)
        m.supported += sd.support["attacker"] + sd.support["defender"]
    return log.result("battle", s, territory=sd.territory, winner=won, strength=st,
                      sides={k: sd.generals(k) for k in SIDES}, garrison=sd.garrison)


def _temporary_control(s: State, sd: Sides, log: Log) -> None:
    """An uncontrolled Minor attacked is played by Britain, or by France when a British-Coalition Power attacks
    (§9.6); its win gives nobody IP."""
    for p in sd.powers(s, "defender"):
        if s.is_minor(p) and s.minors[p] is None:
            ctrl = "france" if s.status(sd.attacker) == "british" else "britain"
            log.say(f"{p} is an uncontrolled Minor: {ctrl} plays its cards in this battle (§9.6)")


def _kutuzov(s: State, sd: Sides, log: Log, to: str) -> None:
    """Kutuzov defending may withdraw right after Step 1 to an adjacent Territory with no enemy pieces, losing only
    1 Troop (§8.9); the battle goes on against whoever is left (A15)."""
    k = next((s.general(g) for g in sd.direct["defender"] if s.general(g).special == "kutuzov"), None)
    if k is None:
        raise InputError("kutuzov: Kutuzov is not among the defenders (§8.9)")
    if not s.europe.adjacent(sd.territory, to) or any(not allied(s, k.power, p) for p in powers_on(s, to)):
        raise InputError(f"kutuzov={to}: an adjacent Territory with no enemy Generals or Garrisons (§8.9)")
    k.troops = max(0, k.troops - 1)
    k.at = to
    sd.direct["defender"].remove(k.id)
    log.say(f"Kutuzov ({k.id}) withdraws to {to}, losing 1 Troop (§8.9)", general=k.id, to=to)


def _tie(s: State, sd: Sides, log: Log, ch: Mapping[str, str], opts: Options) -> None:
    """A tie (§8.6): the defenders stay; the attacking Generals retreat to the nearest Territory their Power controls
    (the attacker's choice) or off-map, losing their Troops."""
    log.say("the Strengths are equal: the defenders stay, the attacker retreats (§8.6)")
    for gid in sd.direct["attacker"]:
        _retreat(s, log, gid, ch.get(f"retreat.{gid}", ch.get("retreat")), opts)


def _retreat(s: State, log: Log, gid: str, choice: str | None, opts: Options) -> None:
    g = s.general(gid)
    near = nearest_controlled(s, g.power, g.at, opts, exclude=gid)
    if choice is None:
        choice = near[0] if near else "off"
        if len(near) > 1:
            log.notes.append(f"{gid}: {names(near)} are equally near; took {choice} (retreat.{gid}=...)")
    if choice == "off":
        log.say(f"{gid} goes off-map; its Troops are lost (§8.6)", general=gid, to=None)
        g.at, g.troops = None, 0
        return
    if choice not in near:
        raise InputError(f"retreat.{gid}={choice}: the nearest {g.power}-controlled Territories are {names(near)} "
                         "(or off)")
    log.say(f"{gid} retreats {g.at} -> {choice} with {g.troops} Troop(s) (§8.6)", general=gid, to=choice)
    g.at = choice


def _result(s: State, sd: Sides, log: Log, won: str, cards: Mapping[str, Sequence[int]], ch: Mapping[str, str],
            opts: Options) -> None:
    lost = "defender" if won == "attacker" else "attacker"
    log.say(f"the {won} wins (§8.6)")
    beaten = [s.general(g) for g in sd.direct[lost]]
    _award_ip(s, sd, log, won, beaten)
    _card5(s, sd, log, lost, cards, opts)
    for g in beaten:
        _defeated(s, log, g, ch, opts)
    if lost == "defender" and sd.garrison:
        del s.garrisons[sd.territory]
        log.say(f"{sd.garrison}'s Garrison in {sd.territory} is removed (§8.6)", garrison=sd.territory, removed=True)
    if won == "attacker":
        _winner_garrison(s, sd, log, ch)


def _award_ip(s: State, sd: Sides, log: Log, won: str, beaten: Sequence[General]) -> None:
    """IP (§8.6): each Power of the winning side, supporters too, 1 per defeated General; Powers directly in the
    battle and in the British Coalition 1 more per French General beaten (not a Minor, §9.6); a lone Garrison
    gives none. A Minor's IP go to its controller (E12)."""
    if not beaten:
        log.say("only a Garrison was beaten: no IP (§8.6)")
        return
    french = sum(1 for g in beaten if g.power == "france")
    direct = set(sd.powers(s, won, direct_only=True))
    for p in sd.powers(s, won):
        n = len(beaten)
        if p in direct and s.status(p) == "british" and not s.is_minor(p):
            n += french
        gain_ip(s, log, p, n, f"{len(beaten)} General(s) defeated" + (f", {french} French (§8.6)" if n > len(beaten)
                                                                       else " (§8.6)"))


def _card5(s: State, sd: Sides, log: Log, lost: str, cards: Mapping[str, Sequence[int]], opts: Options) -> None:
    """A loser who played a "5" loses 1 more Morale per card it played (A11; option: per "5")."""
    for p in sd.powers(s, lost):
        piles = [list(cards.get(g, ())) for g in sd.generals(lost) if s.general(g).power == p]
        fives = sum(pile.count(5) for pile in piles)
        if not fives:
            continue
        n = sum(len(pile) for pile in piles) if opts.card5_penalty == "per_card" else fives
        add_morale(s, p, -n, opts)
        log.say(f"{p} lost with a \"5\": -{n} more Morale (§8.5, A11)", power=p, morale=-n)


def _defeated(s: State, log: Log, g: General, ch: Mapping[str, str], opts: Options) -> None:
    """A losing General on the battle Territory (§8.6, §8.9): loses all its Troops (Blücher at most 2 in all, A14) and
    goes to its Capital (not if a General of its Power is there, A16, or the Capital is not its) or off-map;
    Blücher may go to an adjacent Territory free of enemies; the Grand Vizier to an Ottoman Territory with 1 Troop."""
    before = g.troops + 1  # the universal -1 is already taken
    if g.special == "blucher":
        g.troops = max(0, before - opts.blucher_max_loss)
    else:
        g.troops = 0
    choice = ch.get(f"to.{g.id}")
    if g.special == "grand_vizier":
        _vizier(s, log, g, ch.get("vizier") or choice)
        return
    capital = s.europe.capital(g.power)
    here = g.at
    # the Capital is the battle's Territory: the winners stand there, so it is no refuge (off-map instead)
    blocked = capital is None or capital == here or s.controller(capital) != g.power or any(
        o.power == g.power and o.id != g.id and (opts.capital_blocked_by_any_general or o.special)
        for o in s.generals_at(capital))
    if choice is None:
        choice = "off" if blocked else "capital"
    if choice == "capital":
        if blocked:
            raise InputError(f"to.{g.id}=capital: {capital or 'no Capital'} is not open to it (another General, "
                             "or not controlled, A16); off-map")
        g.at = capital
    elif choice == "off":
        g.at, g.troops = None, 0
    elif g.special == "blucher" and s.europe.adjacent(here, choice) and all(
            allied(s, g.power, p) for p in powers_on(s, choice)):
        g.at = choice
    else:
        raise InputError(f"to.{g.id}={choice}: a defeated General goes to its Capital or off-map (§8.6)")
    if g.at is None:
        g.troops = 0
    log.say(f"{g.id} ({g.power}) is defeated: {g.troops} Troop(s) left, goes to {g.at or 'off-map'} (§8.6)",
            general=g.id, to=g.at, troops=g.troops)


def _vizier(s: State, log: Log, g: General, to: str | None) -> None:
    ok = sorted(t for t in s.europe.territories if s.controller(t) == "ottoman" and t != g.at
                and not any(o.power == "ottoman" for o in s.generals_at(t)))
    if to is None:
        to = ok[0] if ok else "off"
    if to == "off" or not ok:
        g.at, g.troops = None, 0
    elif to not in ok:
        raise InputError(f"vizier={to}: an Ottoman-controlled Territory with no Ottoman General: {names(ok)} (§8.9)")
    else:
        g.at, g.troops = to, 1
    log.say(f"the Grand Vizier ({g.id}) is placed in {g.at or 'off-map'} with {g.troops} Troop (§8.9)",
            general=g.id, to=g.at)


def _winner_garrison(s: State, sd: Sides, log: Log, ch: Mapping[str, str]) -> None:
    """The winning attacker may flip one Troop to a Garrison and take the Territory (§8.6; after its -1, A13)."""
    if ch.get("garrison", "yes") == "no" or sd.territory in s.garrisons:
        return
    g = next((s.general(x) for x in sd.direct["attacker"] if s.general(x).power == sd.attacker
              and s.general(x).troops), None)
    terr = s.europe.territories[sd.territory]
    if g is None or (terr.is_home and terr.home != g.power and allied(s, g.power, terr.home)):
        return
    g.troops -= 1
    s.garrisons[sd.territory] = g.power
    log.say(f"{g.id} flips a Troop to a Garrison: {g.power} controls {sd.territory} (§8.6, A13)",
            garrison=sd.territory, power=g.power)


def preview(pos: CoalitionsPosition | State, tid: str, attacker: str, support: Mapping[str, str] | None = None,
            opts: Options = DEFAULT) -> dict:
    """What a battle looks like before the cards: both sides, base Strength, card slots per General, eligible
    supporters (for analyze and the dashboard)."""
    s = state_of(pos)
    sd = sides(s, tid, attacker, support)
    cands = {side: [g.id for g in sorted(s.generals.values(), key=lambda g: g.id)
                    if g.id not in sd.generals("attacker") + sd.generals("defender")
                    and support_reasons(s, sd, g.id, side) is None] for side in SIDES}
    return {"territory": tid, "attacker": attacker, "sides": {k: sd.generals(k) for k in SIDES},
            "garrison": sd.garrison, "base": {k: base_strength(s, sd, k) for k in SIDES},
            "card_slots": {g: card_allowance(s, sd, g) for k in SIDES for g in sd.generals(k)},
            "support_candidates": cands, "play_order": play_order(s, sd), "max_troops": MAX_TROOPS}
