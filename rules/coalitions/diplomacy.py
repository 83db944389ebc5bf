"""Diplomacy: who is allied with and at War with whom (§9.2), the status declaration (§9.3), the board update after
status changes (§9.4), Minor Powers and their bidding (§9.6), and the map distances the updates need (§3.4).

Every function takes a `State` or a `CoalitionsPosition`; actions return a `Result` with the position after.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from common.errors import InputError
from rules.coalitions.model import (
    CHOOSERS,
    MAX_TROOPS,
    POWERS,
    STATUSES,
    CoalitionsPosition,
    Log,
    Result,
    State,
    known_power,
    names,
    state_of,
)
from rules.coalitions.options import DEFAULT, Options

# ---------------------------------------------------------------------------------------------- relations (§9.2)


def allied(pos: CoalitionsPosition | State, a: str, b: str) -> bool:
    """Allies (§9.2, §9.6): the same Power, members of one Coalition, or Powers controlled by the same player (a
    Minor and its controller, two Minors of one controller)."""
    s = state_of(pos)
    if a == b or s.major_of(a) == s.major_of(b):
        return True
    sa, sb = s.status(a), s.status(b)
    return sa == sb and sa in ("british", "french")


def at_war(pos: CoalitionsPosition | State, a: str, b: str) -> bool:
    """The §9.2 table: the two Coalitions are at War, both with every Expansionist, Expansionists with each other;
    a Neutral Power is at War with nobody. Britain and France are always at War."""
    s = state_of(pos)
    if allied(s, a, b):
        return False
    sa, sb = s.status(a), s.status(b)
    if "neutral" in (sa, sb):
        return False
    return sa != sb or sa == "expansionist"


def relation(pos: CoalitionsPosition | State, a: str, b: str) -> str:
    s = state_of(pos)
    if allied(s, a, b):
        return "allied"
    return "war" if at_war(s, a, b) else "peace"


def can_attack(pos: CoalitionsPosition | State, attacker: str, defender: str, tid: str) -> bool:
    """May `attacker` fight `defender`'s pieces on `tid` (§9.2 with its footnote, §9.4): at War, or the defender is
    Neutral and `tid` is not one of its Home Territories; never an ally."""
    s = state_of(pos)
    if allied(s, attacker, defender):
        return False
    if at_war(s, attacker, defender):
        return True
    terr = s.europe.territories[tid]
    return s.status(defender) == "neutral" and not (terr.is_home and terr.home == defender)


def powers_on(s: State, tid: str) -> list[str]:
    """The Powers with a General or the Garrison on a Territory, in the Power Order."""
    here = {g.power for g in s.generals_at(tid)}
    if tid in s.garrisons:
        here.add(s.garrisons[tid])
    return [p for p in POWERS if p in here]


def strength_on(s: State, power: str, tid: str) -> int:
    """A Power's Strength on a Territory (§8.2): 1 per General and per Troop, a Garrison 1 (4 with a Fortress)."""
    n = sum(1 + g.troops for g in s.generals_at(tid) if g.power == power)
    if s.garrisons.get(tid) == power:
        n += 4 if tid in s.fortresses else 1
    return n


# ---------------------------------------------------------------------------------------------- distances (§3.4)


def distances(s: State, start: str, sea: bool = False, avoid_enemy_of: str | None = None) -> dict[str, int]:
    """Steps from `start` on the land graph (and the sea routes when `sea`), never into Impassable Territories;
    `avoid_enemy_of`: do not pass through Territories where that Power's enemies stand (A17's other reading)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        nxt = set(s.europe.land[here]) | (set(s.europe.routes[here]) if sea else set())
        for t in sorted(nxt):
            if t in dist or s.europe.territories[t].kind == "impassable":
                continue
            dist[t] = dist[here] + 1
            if avoid_enemy_of and any(at_war(s, avoid_enemy_of, p) for p in powers_on(s, t)):
                continue
            queue.append(t)
    return dist


def nearest_controlled(s: State, power: str, start: str, opts: Options = DEFAULT,
                       exclude: str | None = None) -> list[str]:
    """The nearest Territories controlled by `power` with no other General of its own (§8.6, §9.4; E9, E11) and
    no piece of a Power it is not allied with (they may not share it, §9.4): the shortest path on the map (A17: land;
    sea routes too for British-Coalition Powers), ties for the player."""
    sea = opts.nearest_sea == "always" or (opts.nearest_sea == "british" and s.status(power) == "british")
    dist = distances(s, start, sea, None if opts.nearest_through_enemy else power)
    own = [t for t, d in dist.items() if d > 0 and s.controller(t) == power
           and not any(g.power == power and g.id != exclude for g in s.generals_at(t))
           and all(allied(s, power, q) for q in powers_on(s, t))]
    if not own:
        return []
    best = min(dist[t] for t in own)
    return sorted(t for t in own if dist[t] == best)


def send_away(s: State, log: Log, gid: str, choice: str | None, opts: Options, why: str) -> None:
    """A General leaving a Territory it may not stay on: to the nearest own-controlled Territory (the player's
    `choice` among equals) with its Troops, or off-map losing them (§8.6, §9.4)."""
    g = s.general(gid)
    options = nearest_controlled(s, g.power, g.at, opts, exclude=gid) if g.at else []
    if choice in (None, "") and len(options) == 1:
        choice = options[0]
    elif choice in (None, "") and options:
        choice = options[0]
        log.notes.append(f"{gid}: {names(options)} are equally near; took {choice} (choose with to.{gid}=...)")
    if choice in (None, "", "off") or not options:
        log.say(f"{gid} ({g.power}) leaves {g.at} off-map with its {g.troops} Troop(s) lost ({why})",
                general=gid, to=None, troops=0)
        g.at, g.troops = None, 0
        return
    if choice not in options:
        raise InputError(f"to.{gid}={choice}: the nearest {g.power}-controlled Territories are {names(options)} "
                         "(or off)")
    log.say(f"{gid} ({g.power}) goes {g.at} -> {choice} with {g.troops} Troop(s) ({why})", general=gid, to=choice)
    g.at = choice


def garrison_to_troop(s: State, log: Log, tid: str, why: str, prefer: str | None = None, only_here: bool = False
                      ) -> None:
    """A removed Garrison becomes a Troop under one of its Power's Generals (the one there first; `only_here`: that
    one only, Case 2's "its General"), else 1 Money (§9.4 cases 1-3)."""
    power = s.garrisons.pop(tid)
    cands = [g for g in s.generals.values() if g.power == power and g.at is not None and g.troops < MAX_TROOPS
             and (g.at == tid or not only_here)]
    cands.sort(key=lambda g: (g.id != prefer, g.at != tid, g.id))
    if cands:
        cands[0].troops += 1
        log.say(f"{power}'s Garrison in {tid} becomes a Troop under {cands[0].id} ({why})", garrison=tid,
                to_general=cands[0].id)
    else:
        s.money[power] = s.money.get(power, 0) + 1
        log.say(f"{power}'s Garrison in {tid} is exchanged for 1 Money: no General can take it ({why})",
                garrison=tid, money=1)


# ---------------------------------------------------------------------------------------------- board update (§9.4)


def board_update(s: State, log: Log, ch: Mapping[str, str], opts: Options = DEFAULT) -> None:
    """Bring the board in line with the statuses (§9.4): Case 1 and 3 first (peace on a Home Territory, a Neutral
    Power's pieces abroad), then Case 2 wherever pieces of Powers that are not allies share a Territory."""
    _home_peace(s, log, ch, opts)
    _neutral_abroad(s, log, ch, opts)
    for tid in sorted(s.europe.territories):
        _co_location(s, log, tid, ch, opts)


def _home_peace(s: State, log: Log, ch: Mapping[str, str], opts: Options) -> None:
    """Case 1 (§9.4): a Power's pieces on the Home Territory of a Power it is not at War with. Garrisons turn into
    Troops; Generals stay when the two are allies and the controller agrees (`stay.ID=no` refuses), else leave."""
    for tid, terr in sorted(s.europe.territories.items()):
        if not terr.is_home:
            continue
        owner = terr.home
        gar = s.garrisons.get(tid)
        if gar and gar != owner and not at_war(s, gar, owner):
            garrison_to_troop(s, log, tid, f"§9.4: at peace with {owner}, whose Home it is")
        for g in list(s.generals_at(tid)):
            if g.power == owner or at_war(s, g.power, owner):
                continue
            same_player = s.major_of(g.power) == s.major_of(owner)  # E10: one player controls both
            stays = same_player or (allied(s, g.power, owner) and s.status(owner) != "neutral")
            if stays and ch.get(f"stay.{g.id}", "yes") != "no":
                continue
            send_away(s, log, g.id, ch.get(f"to.{g.id}"), opts, f"§9.4: {owner}'s Home and {owner} is not at War")


def _neutral_abroad(s: State, log: Log, ch: Mapping[str, str], opts: Options) -> None:
    """Case 3 (§9.4): a Neutral Power's pieces on another Power's Home Territory leave (Garrison -> Troop), so do
    its Generals on uncontrolled Territories; its Garrisons on other Territories stay."""
    for p in POWERS:
        if s.status(p) != "neutral":
            continue
        for tid, owner in list(s.garrisons.items()):
            terr = s.europe.territories[tid]
            if owner == p and terr.is_home and terr.home != p:
                garrison_to_troop(s, log, tid, f"§9.4 case 3: {p} is Neutral")
        for g in sorted((g for g in s.generals.values() if g.power == p and g.at), key=lambda g: g.id):
            terr = s.europe.territories[g.at]
            abroad = terr.is_home and terr.home != p
            if abroad or s.controller(g.at) is None:
                send_away(s, log, g.id, ch.get(f"to.{g.id}"), opts, f"§9.4 case 3: {p} is Neutral")


def _co_location(s: State, log: Log, tid: str, ch: Mapping[str, str], opts: Options) -> None:
    """Case 2 (§9.4): pieces of two Powers that are not allies on one Territory. The stronger stays; equal Strength:
    the Garrison's Power; no Garrison: rock-paper-scissors (`rps.TERRITORY=POWER`, the winner). The weaker's
    Garrison becomes a Troop, its Generals leave."""
    while True:
        here = powers_on(s, tid)
        pair = next(((a, b) for i, a in enumerate(here) for b in here[i + 1:] if not allied(s, a, b)), None)
        if pair is None:
            return
        a, b = pair
        sa, sb = strength_on(s, a, tid), strength_on(s, b, tid)
        gar = s.garrisons.get(tid)
        if sa != sb:
            weaker, how = (b if sa > sb else a), f"Strength {sa} : {sb}"
        elif gar in (a, b):
            weaker, how = (b if gar == a else a), f"Strength {sa} : {sb}, the Garrison's side counts as stronger"
        else:
            won = ch.get(f"rps.{tid}")
            if won not in (a, b):
                raise InputError(f"{tid}: {a} and {b} have equal Strength {sa} and no Garrison: give the "
                                 f"rock-paper-scissors winner with --choice rps.{tid}=POWER (§9.4)")
            weaker, how = (b if won == a else a), f"Strength {sa} : {sb}, {won} won rock-paper-scissors"
        log.say(f"{tid}: {a} and {b} may not share it; {weaker} is weaker ({how}, §9.4 case 2)")
        first = next((g.id for g in s.generals_at(tid) if g.power == weaker), None)
        if s.garrisons.get(tid) == weaker:
            garrison_to_troop(s, log, tid, "§9.4 case 2", prefer=first, only_here=True)
        for g in [g for g in s.generals_at(tid) if g.power == weaker]:
            send_away(s, log, g.id, ch.get(f"to.{g.id}"), opts, "§9.4 case 2")


# ---------------------------------------------------------------------------------------------- declaration (§9.3)


def declare(pos: CoalitionsPosition, chosen: Mapping[str, str], expelled: Mapping[str, str] | None = None,
            ch: Mapping[str, str] | None = None, opts: Options = DEFAULT) -> Result:
    """The Diplomacy phase's reveal (§9.3): each status-choosing Major's secret token, then Britain's and France's
    expulsions with the expelled Power's new status (A6), then the board update (§9.4). Controlled Minors follow
    their controller (§9.6). A4: the rule restricting a Power without its Capital is missing from the text."""
    s = pos.draft()
    log = Log()
    if s.round == 1:
        raise InputError("declare: the first round has no Diplomacy phase (§4.1, §9.7)")
    if s.phase != "diplomacy":
        raise InputError("declare: statuses change only in the Diplomacy phase at a round's start (§9.2)")
    for p in [*chosen, *(expelled or {})]:
        known_power(p, f"declare: {'status' if p in chosen else 'expel'}.{p}")
    chosen = _revealed(s, log, "status", dict(chosen), "declare", "status")
    for p, st in chosen.items():
        if p not in CHOOSERS:
            raise InputError(f"declare: {p} chooses no status (Britain and France lead their Coalitions, §9.2)")
        if s.minors.get(p):
            raise InputError(f"declare: {p} is a controlled Minor; it follows {s.minors[p]} (§9.6)")
        if st not in STATUSES:
            raise InputError(f"declare: {p}: one of {' '.join(STATUSES)}, not {st!r}")
    before = {p: s.status(p) for p in POWERS}
    for p, st in chosen.items():
        s.statuses[p] = st
        capital = s.europe.capital(p)
        if capital and s.controller(capital) != p and st != before[p]:
            log.notes.append(f"{p} changes status without its Capital {capital}: the text's restriction is missing "
                             "(A4), none applied")
    for p, new in (expelled or {}).items():
        _expel(s, log, p, new, opts)
    for p in POWERS:
        if s.status(p) != before[p]:
            log.say(f"{p}: {before[p]} -> {s.status(p)} (§9.3)", power=p, status=s.status(p))
    s.phase = "action"
    for p in list(s.secrets):  # every status token is face up now (§9.3)
        s.secrets[p].pop("status", None)
    s.secrets = {p: v for p, v in s.secrets.items() if v}
    board_update(s, log, ch or {}, opts)
    return log.result("declare", s, statuses={p: s.status(p) for p in POWERS})


def choose(pos: CoalitionsPosition, power: str, status: str | None = None, bids: Mapping[str, int] | None = None
           ) -> Result:
    """A secret choice made before its reveal (§9.3 the status token placed face down, §9.6 a closed-fist bid of
    Morale; §13.2: entered by hand, hidden from the other Powers until revealed): checked as the reveal will check
    it and kept sealed in the position (`State.secrets`, its file's "secrets") until `declare` or `bid` reveals it; a
    later choice of the same kind replaces it. The lines say that a choice was made, never what it is;
    `data["secret"]` holds it for the player's own view."""
    s = pos.draft()
    log = Log()
    known_power(power, "choose")
    secret: dict = {}
    if status is not None:
        if power not in CHOOSERS:
            raise InputError(f"choose: {power} chooses no status (Britain and France lead their Coalitions, §9.2)")
        if s.minors.get(power):
            raise InputError(f"choose: {power} is a controlled Minor; it follows {s.minors[power]} (§9.6)")
        if status not in STATUSES:
            raise InputError(f"choose: status: one of {' '.join(STATUSES)}, not {status!r}")
        if s.round == 1 or s.phase != "diplomacy":
            raise InputError("choose: a status is chosen only in the Diplomacy phase, from round 2 (§4.1, §9.2)")
        secret["status"] = status
        log.say(f"{power} has chosen its status: secret until the reveal (§9.3)", power=power)
    for minor, n in (bids or {}).items():
        known_power(minor, f"choose: bid.{minor}")
        if minor not in s.minors:
            raise InputError(f"choose: bid.{minor}: {minor} is not a Minor Power in this game (§9.6)")
        if power in s.minors:
            raise InputError(f"choose: bid.{minor}: {power} is a Minor Power; only the Major Powers bid (§9.6)")
        if not 0 <= n <= s.morale.get(power, 0):
            raise InputError(f"choose: bid.{minor}={n}: {power} may bid 0 to its Morale {s.morale.get(power, 0)} "
                             "(§9.6)")
        secret.setdefault("bids", {})[minor] = n
        log.say(f"{power} has made its bid for {minor}: secret until the reveal (§9.6)", power=power)
    if not secret:
        raise InputError("choose: give status=STATUS or bid.MINOR=N")
    mine = s.secrets.setdefault(power, {})
    if "status" in secret:
        mine["status"] = secret["status"]
    if "bids" in secret:
        mine["bids"] = {**mine.get("bids", {}), **secret["bids"]}
    return log.result("choose", s, power=power, secret=secret)


def _revealed(s: State, log: Log, kind: str, given: dict, action: str, key: str, minor: str | None = None) -> dict:
    """The choices a reveal (§9.3 statuses, §9.6 the bids for `minor`) turns face up: the sealed ones of the
    position (`State.secrets`) with those `given` at the reveal; a given choice that differs from the Power's sealed
    one is refused (the token is already down). Says which were sealed."""
    sealed = {}
    for p, mine in s.secrets.items():
        if kind == "status" and "status" in mine:
            sealed[p] = mine["status"]
        elif kind == "bid" and minor in mine.get("bids", {}):
            sealed[p] = mine["bids"][minor]
    for p, v in given.items():
        if p in sealed and sealed[p] != v:
            raise InputError(f"{action}: {key}.{p}={v}: {p}'s sealed choice is another; a sealed choice is revealed "
                             "as it was made (§9.3, §9.6)")
    if sealed:
        log.say(f"revealed sealed {'status tokens' if kind == 'status' else f'bids for {minor}'}: "
                + ", ".join(f"{p} {v}" for p, v in sealed.items()) + (" (§9.3)" if kind == "status" else " (§9.6)"))
    return {**sealed, **given}


def _expel(s: State, log: Log, power: str, new: str, opts: Options) -> None:
    """Britain or France expels a member of its Coalition, only in the Diplomacy phase (§9.2); A6: the expelled Power
    becomes Neutral or Expansionist (option "any": also the other Coalition). A controlled Minor is expelled only
    with its controller."""
    st = s.status(power)
    if power not in CHOOSERS or st not in ("british", "french"):
        raise InputError(f"expel.{power}: only a member of a Coalition may be expelled (§9.2)")
    if s.minors.get(power):
        raise InputError(f"expel.{power}: a controlled Minor leaves only with its controller (§9.6)")
    allowed = ("neutral", "expansionist") + (("british", "french") if opts.expelled_may_join == "any" else ())
    if new not in allowed or new == st:
        picks = ", ".join(a for a in allowed if a != st)
        raise InputError(f"expel.{power}={new}: the expelled Power picks one of {picks} (A6)")
    s.statuses[power] = new
    leader = "britain" if st == "british" else "france"
    log.say(f"{leader} expels {power} from its Coalition; {power} becomes {new} (§9.2, A6)", expelled=power)


# ---------------------------------------------------------------------------------------------- Minor Powers (§9.6)


def minor_powers(players: int, choice: str = "russia") -> tuple[str, ...]:
    """Which Powers are Minor for 3-6 players (§9.6); with 3, `choice` names Russia or Austria as the third."""
    if players == 6:
        return ()
    if players == 5:
        return ("ottoman",)
    if players == 4:
        return ("prussia", "ottoman")
    if players == 3:
        if choice not in ("russia", "austria"):
            raise InputError(f"minors: with 3 players Russia or Austria is Minor too, not {choice!r} (§9.6)")
        return tuple(p for p in POWERS if p in (choice, "prussia", "ottoman"))
    raise InputError(f"players: 3 to 6 in the competitive game, not {players} (§9.6)")


def bid(pos: CoalitionsPosition, minor: str, bids: Mapping[str, int], ch: Mapping[str, str] | None = None,
        opts: Options = DEFAULT) -> Result:
    """Bidding for a Minor when its symbol reaches Drill (§9.6): the highest bid of Morale wins, ties (all zeros too)
    go by the Power Order, only the winner pays. A Minor without its Capital goes to whoever controls the Capital
    (or that Minor's controller) with no bidding. Its status follows the new controller; then the board update."""
    s = pos.draft()
    log = Log()
    known_power(minor, "bid: --target (the Minor)")
    if minor not in s.minors:
        raise InputError(f"bid: {minor} is not a Minor Power in this game ({names(s.minors)}, §9.6)")
    majors = [p for p in POWERS if p not in s.minors]
    for p in bids:
        known_power(p, f"bid: bid.{p}")
    bids = _revealed(s, log, "bid", dict(bids), "bid", "bid", minor)
    for mine in s.secrets.values():  # every fist for this Minor is open now (§9.6)
        mine.get("bids", {}).pop(minor, None)
        if not mine.get("bids"):
            mine.pop("bids", None)
    s.secrets = {p: v for p, v in s.secrets.items() if v}
    capital = s.europe.capital(minor)
    holder = s.controller(capital) if capital else minor
    if holder != minor and holder is not None:
        winner = s.major_of(holder)
        log.say(f"{minor} does not control its Capital {capital}: no bidding, it goes to {winner} (§9.6 item 5)")
    else:
        for p, n in bids.items():
            if p not in majors:
                raise InputError(f"bid.{p}: only the Major Powers bid (§9.6)")
            if not isinstance(n, int) or n < 0 or n > s.morale_of(p):
                raise InputError(f"bid.{p}={n}: 0 up to its Morale {s.morale_of(p)} (§9.6)")
        best = max([bids.get(p, 0) for p in majors] or [0])
        winner = next(p for p in majors if bids.get(p, 0) == best)
        s.morale[winner] = s.morale_of(winner) - best
        log.say(f"{winner} wins {minor} with {best} Morale (ties by the Power Order, §9.6); pays {best}",
                power=winner, morale=-best)
    old = s.minors[minor]
    if old and old != winner:
        log.say(f"{old} hands {minor}'s off-map Generals, Battle cards and Money to {winner} (§9.6 item 7)")
    s.minors[minor] = winner
    log.say(f"{minor}'s status disc goes under {winner}'s: {minor} is now {s.status(minor)} (§9.6 item 6)",
            minor=minor, controller=winner)
    board_update(s, log, ch or {}, opts)
    return log.result("bid", s, controller=winner, minor=minor)
