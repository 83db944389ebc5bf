"""The Movement action (§5): the Arbiter and the Move Turns it grants (§5.2), March, Sea and Strategic moves (§5.3)
with the entry bans (§5.4), Garrisons placed on the way (§5.5), Napoleon's Move (§5.6) and the battles a Move Turn
causes (§8.1). Distances are steps on the map graph (§7): no measuring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from common.errors import InputError
from rules.coalitions.diplomacy import allied, at_war, can_attack, powers_on
from rules.coalitions.economy import add_morale, hand_limits, once_a_round
from rules.coalitions.model import (
    POWERS,
    CoalitionsPosition,
    Log,
    Movement,
    Result,
    State,
    known_power,
    names,
    state_of,
)
from rules.coalitions.options import DEFAULT, Options

MOVE_KINDS = ("march", "sea", "strategic", "orient")
ARBITER_PAY = {1: 1, 2: 2, 3: 3}
"""Morale the Arbiter gains for allowing the 1st, 2nd and 3rd Move Turn (§5.2): 6 for all three."""
SEA_ROUTES_MAX = 3
STRATEGIC_MAX = 3


@dataclass
class Move:
    """One General's move in a Move Turn: its kind and the Territories entered in order (the last is where it ends);
    `garrisons`: the Territories it left or entered where it flips a Troop to a Garrison (§5.5)."""

    general: str
    kind: str
    path: list[str]
    garrisons: list[str] = field(default_factory=list)
    consent: bool = False
    """Britain's consent to a non-British Sea Move, or the ally's to a Strategic Move through its Territory."""


# ---------------------------------------------------------------------------------------------- the Arbiter (§5.2)


def eligible_arbiters(pos: CoalitionsPosition | State, power: str, opts: Options = DEFAULT) -> list[str]:
    """The Powers `power` may choose as Arbiter (§5.2, E15): not itself or a Power of its Coalition (a Minor it
    controls counts as an ally), not one at the Morale maximum, not an uncontrolled Minor."""
    s = state_of(pos)
    return [p for p in POWERS if p != power and not allied(s, power, p) and s.morale_of(p) < opts.morale_max
            and not (s.is_minor(p) and s.minors[p] is None)]


def max_move_turns(pos: CoalitionsPosition | State, arbiter: str | None, opts: Options = DEFAULT) -> int:
    """How many Move Turns an Arbiter with its present Morale can allow (§5.2, E6): it may not go above the maximum;
    no Arbiter: one."""
    if arbiter is None:
        return 1
    m = state_of(pos).morale_of(arbiter)
    turns = 0
    for k in (1, 2, 3):
        if m + ARBITER_PAY[k] > opts.morale_max and k > 1:
            break
        m += ARBITER_PAY[k]
        turns = k
    return turns


def start_movement(pos: CoalitionsPosition, power: str, arbiter: str | None = None, disband: Sequence[str] = (),
                   napoleon: bool = False, opts: Options = DEFAULT) -> Result:
    """Begin a Movement action (§5.1): choose the Arbiter (compulsory when one is eligible, +1 Morale at once), disband
    any own Garrisons (control goes back to the Home owner or to nobody). `napoleon`: Napoleon's Move inside
    France's Leadership, no Arbiter (§5.6). L'Empereur: one Move Turn, France +1 Morale as if Arbiter (§9.8)."""
    s = pos.draft()
    log = Log()
    if s.movement is not None:
        raise InputError(f"movement: {s.movement.power}'s Movement is still under way")
    if s.is_minor(power) and s.minors[power] is None:
        raise InputError(f"movement: {power} is an uncontrolled Minor and takes no actions (§9.6)")
    once_a_round(s, known_power(power, "movement"), "napoleon" if napoleon else "movement")
    if napoleon:
        _napoleon_check(s, power)
        s.movement = Movement(power, None, 1, 0, napoleon=True)
        log.say("Napoleon's Move: one Move Turn of any kind with Napoleon, no Arbiter (§5.6)")
        return log.result("start_movement", s)
    for tid in disband:
        s.europe.territory(tid, "disband")
        if s.garrisons.get(tid) != power:
            raise InputError(f"disband: no {power} Garrison in {tid} (§5.1)")
        del s.garrisons[tid]
        log.say(f"{power} disbands its Garrison in {tid}; {tid} is now controlled by {s.controller(tid) or 'nobody'}"
                " (§5.1)", disband=tid)
    if s.mode == "lempereur" and power != "france":
        gained = add_morale(s, "france", 1, opts)
        s.movement = Movement(power, None, 1, 0)
        log.say(f"L'Empereur: {power} gets one Move Turn; France +{gained} Morale as if Arbiter (§9.8)")
        return log.result("start_movement", s)
    eligible = eligible_arbiters(s, power, opts)
    if arbiter is not None:
        known_power(arbiter, "movement: the Arbiter (--target)")
    if arbiter is None and eligible:
        raise InputError(f"movement: choose an Arbiter (compulsory, §5.2) among {names(eligible)}")
    if arbiter is not None and arbiter not in eligible:
        raise InputError(f"movement: {arbiter} may not be {power}'s Arbiter (§5.2); eligible: {names(eligible)}")
    s.movement = Movement(power, arbiter, 1, 0)
    if arbiter is None:
        log.say(f"{power} has no eligible Arbiter: only one Move Turn (§5.2)")
    else:
        add_morale(s, arbiter, ARBITER_PAY[1], opts)
        log.say(f"{power} chooses {arbiter} as Arbiter: {arbiter} +1 Morale, now {s.morale_of(arbiter)} (§5.2)",
                power=arbiter, morale=1)
    return log.result("start_movement", s, arbiters=eligible)


def _napoleon_check(s: State, power: str) -> None:
    if power != "france" or s.mode != "competitive":
        raise InputError("Napoleon's Move is France's, inside its Leadership, and not in L'Empereur (§5.6, §9.8)")
    if not any(g.special == "napoleon" and g.at for g in s.generals.values()):
        raise InputError("Napoleon's Move: General Napoleon is not on the board (§5.6)")


def ask_turn(pos: CoalitionsPosition, agree: bool, opts: Options = DEFAULT) -> Result:
    """The mover asks for another Move Turn (§5.2): the Arbiter agrees (+2 Morale for the 2nd, +3 for the 3rd) or
    refuses, which ends the Movement (no other Arbiter may be asked). Refused outright: no Arbiter, a 4th turn, or
    a turn that would take the Arbiter above the maximum (E6)."""
    s = pos.draft()
    log = Log()
    m = _movement(s)
    if m.played < m.granted or m.battles:
        raise InputError("ask_turn: play the granted Move Turn and resolve its battles first (§5.1)")
    nxt = m.granted + 1
    if m.arbiter is None or nxt > 3:
        raise InputError(f"ask_turn: {m.power} may have no Move Turn {nxt} (§5.1, §5.2)")
    if s.morale_of(m.arbiter) + ARBITER_PAY[nxt] > opts.morale_max:
        raise InputError(f"ask_turn: {m.arbiter} has {s.morale_of(m.arbiter)} Morale; +{ARBITER_PAY[nxt]} would pass "
                         f"{opts.morale_max}, so no Move Turn {nxt} (§5.2, E6)")
    if not agree:
        log.say(f"{m.arbiter} refuses Move Turn {nxt}: {m.power}'s Movement ends (§5.1)")
        s.movement = None
        hand_limits(s, log)
        return log.result("ask_turn", s)
    add_morale(s, m.arbiter, ARBITER_PAY[nxt], opts)
    m.granted = nxt
    log.say(f"{m.arbiter} allows Move Turn {nxt}: +{ARBITER_PAY[nxt]} Morale, now {s.morale_of(m.arbiter)} (§5.2)",
            power=m.arbiter, morale=ARBITER_PAY[nxt])
    return log.result("ask_turn", s)


def end_movement(pos: CoalitionsPosition) -> Result:
    s = pos.draft()
    m = _movement(s)
    if m.battles:
        raise InputError(f"end_movement: battles still to fight in {names(m.battles)} (§5.1)")
    log = Log()
    log.say(f"{m.power}'s Movement ends after {m.played} Move Turn(s) (§5.1)")
    s.movement = None
    hand_limits(s, log)  # at the end of every action (§9.5)
    return log.result("end_movement", s)


def _movement(s: State) -> Movement:
    if s.movement is None:
        raise InputError("no Movement action is under way (start_movement first, §5.1)")
    return s.movement


# ---------------------------------------------------------------------------------------------- where a General may go


def entry_reasons(pos: CoalitionsPosition | State, power: str, tid: str, opts: Options = DEFAULT) -> list[str]:
    """Why `power`'s General may not end a move in `tid` (empty: it may, perhaps with a battle): Impassable (§3.2),
    a Neutral Power's Home of another Power, a Neutral mover outside its own control (§5.4), the 1792 Spain ban
    (§5.4), pieces there it may neither share a Territory with nor attack (§9.2, §9.4)."""
    s = state_of(pos)
    terr = s.europe.territory(tid)
    out = []
    if terr.kind == "impassable":
        out.append(f"{tid} is Impassable (§3.2)")
    if terr.is_home and terr.home != power and s.status(terr.home) == "neutral":
        out.append(f"{tid} is a Home Territory of {terr.home}, which is Neutral (§5.4)")
    if s.status(power) == "neutral" and s.controller(tid) != power:
        out.append(f"{power} is Neutral and does not control {tid} (§5.4)")
    if terr.spain and not s.spain_open and power != "france":
        out.append(f"{tid} is Spanish and Spain is still closed to all but France (1792, §5.4)")
    for p in powers_on(s, tid):
        if not allied(s, power, p) and not can_attack(s, power, p, tid):
            out.append(f"{p}'s pieces in {tid} may neither be joined nor attacked by {power} (§9.2)")
    return out


def _enemies(s: State, power: str, tid: str) -> list[str]:
    return [p for p in powers_on(s, tid) if not allied(s, power, p)]


def path_reasons(s: State, mv: Move, opts: Options = DEFAULT) -> list[str]:
    """Why a move is not allowed (empty: allowed), for its kind (§5.3)."""
    g = s.general(mv.general)
    if g.at is None:
        return [f"{g.id} is off-map"]
    if mv.kind not in MOVE_KINDS:
        return [f"move kind {mv.kind!r}: one of {' '.join(MOVE_KINDS)}"]
    if not mv.path:
        return [f"{g.id}: a move needs a destination"]
    for tid in mv.path:
        s.europe.territory(tid, f"{g.id}: path")
    check = {"march": _march, "sea": _sea, "strategic": _strategic, "orient": _orient}[mv.kind]
    out = check(s, g.power, g.at, mv, opts)
    return out + entry_reasons(s, g.power, mv.path[-1], opts)


def _march(s: State, power: str, start: str, mv: Move, opts: Options) -> list[str]:
    if len(mv.path) != 1 or not s.europe.adjacent(start, mv.path[0]):
        return [f"a March goes to 1 adjacent Territory; {start} -> {'-'.join(mv.path)} is not one (§5.3)"]
    return []


def _sea(s: State, power: str, start: str, mv: Move, opts: Options) -> list[str]:
    """Sea Move (§5.3): Britain or a British-Coalition Power (Britain's consent), from a port along at most 3 Sea
    Routes; ports passed through do not matter (E3)."""
    out = []
    if s.status(power) != "british":
        out.append(f"only Britain and the British Coalition move by sea; {power} is {s.status(power)} (§5.3)")
    elif s.major_of(power) != "britain" and not mv.consent:
        out.append(f"a {power} Sea Move needs Britain's consent (consent=yes, §5.3)")
    if not s.europe.territories[start].port:
        out.append(f"a Sea Move starts in a port; {start} is not one (§5.3)")
    if len(mv.path) > SEA_ROUTES_MAX:
        out.append(f"a Sea Move follows at most {SEA_ROUTES_MAX} Sea Routes (§5.3)")
    here = start
    for tid in mv.path:
        if tid not in s.europe.routes[here]:
            out.append(f"no Sea Route {here}-{tid} (§3.2)")
            break
        here = tid
    return out


def _strategic(s: State, power: str, start: str, mv: Move, opts: Options) -> list[str]:
    """Strategic Move (§5.3, A9): up to 3 steps, every Territory entered (the destination too) controlled by the Power
    or an ally (the ally's consent), none holding enemy pieces: it never attacks."""
    out = []
    if len(mv.path) > STRATEGIC_MAX:
        out.append(f"a Strategic Move passes at most {STRATEGIC_MAX} Territories (§5.3)")
    here = start
    for i, tid in enumerate(mv.path):
        if not s.europe.adjacent(here, tid):
            out.append(f"{here} and {tid} share no border (§5.3)")
            break
        ctrl = s.controller(tid)
        if ctrl is None or not allied(s, power, ctrl):
            out.append(f"{tid} is not controlled by {power} or an ally (§5.3, A9)")
        elif ctrl != power and s.major_of(ctrl) != s.major_of(power) and not mv.consent:
            out.append(f"{tid} is {ctrl}'s: passing needs its consent (consent=yes, §5.4)")
        enemies = _enemies(s, power, tid)
        last = i == len(mv.path) - 1
        if enemies and (last or not opts.strategic_through_enemy_general):
            out.append(f"{tid} holds {names(enemies)}'s pieces: a Strategic Move does not attack (A9)")
        here = tid
    return out


def _orient(s: State, power: str, start: str, mv: Move, opts: Options) -> list[str]:
    """1792, the Armée d'Orient card (§5.4): once a game, a French General that starts in Provence goes to Egypt,
    if no British General is in Patrimonium St. Petri or Napoli."""
    out = []
    if power != "france" or not s.armee_dorient:
        out.append("only France, holding the Armée d'Orient card (1792), moves Provence -> Egypt (§5.4)")
    if start != "provence" or mv.path != ["egypt"]:
        out.append("the Armée d'Orient goes from Provence straight to Egypt (§5.4)")
    if any(g.power == "britain" for t in ("patrimonium", "napoli") for g in s.generals_at(t)):
        out.append("a British General is in Patrimonium St. Petri or Napoli (§5.4)")
    return out


def destinations(pos: CoalitionsPosition | State, gid: str, opts: Options = DEFAULT) -> dict[str, list[str]]:
    """Where a General may end one move of each kind (March and Sea with consent assumed; Strategic one step at a
    time through friendly Territories), for analyze and the dashboard."""
    s = state_of(pos)
    g = s.general(gid)
    if g.at is None:
        return {k: [] for k in ("march", "sea", "strategic")}
    march = [t for t in sorted(s.europe.land[g.at]) if not path_reasons(s, Move(gid, "march", [t]), opts)]
    sea = [t for t, p in sorted(_sea_paths(s, g.at).items())
           if not path_reasons(s, Move(gid, "sea", p, consent=True), opts)]
    strat = [t for t, p in sorted(_strategic_paths(s, g.power, g.at, opts).items())
             if not path_reasons(s, Move(gid, "strategic", p, consent=True), opts)]
    return {"march": march, "sea": sea, "strategic": strat}


def _sea_paths(s: State, start: str) -> dict[str, list[str]]:
    paths: dict[str, list[str]] = {}
    frontier = [(start, [])]
    for _ in range(SEA_ROUTES_MAX):
        nxt = []
        for here, p in frontier:
            for t in sorted(s.europe.routes[here]):
                if t != start and t not in paths:
                    paths[t] = p + [t]
                    nxt.append((t, p + [t]))
        frontier = nxt
    return paths


def _strategic_paths(s: State, power: str, start: str, opts: Options) -> dict[str, list[str]]:
    paths: dict[str, list[str]] = {}
    frontier = [(start, [])]
    for _ in range(STRATEGIC_MAX):
        nxt = []
        for here, p in frontier:
            for t in sorted(s.europe.land[here]):
                ctrl = s.controller(t)
                if t == start or t in paths or ctrl is None or not allied(s, power, ctrl):
                    continue
                paths[t] = p + [t]
                if not _enemies(s, power, t) or opts.strategic_through_enemy_general:
                    nxt.append((t, p + [t]))
        frontier = nxt
    return paths


def shortest_path(pos: CoalitionsPosition | State, gid: str, kind: str, dest: str, opts: Options = DEFAULT
                  ) -> list[str]:
    """The path a move of `kind` would take to `dest` (the camera sees only the start and the end)."""
    s = state_of(pos)
    g = s.general(gid)
    if g.at is None:
        raise InputError(f"{gid} is off-map")
    if kind in ("march", "orient"):
        return [dest]
    paths = _sea_paths(s, g.at) if kind == "sea" else _strategic_paths(s, g.power, g.at, opts)
    if dest not in paths:
        raise InputError(f"{gid}: no {kind} path {g.at} -> {dest} (§5.3)")
    return paths[dest]


# ---------------------------------------------------------------------------------------------- a Move Turn


def move_turn(pos: CoalitionsPosition, moves: Sequence[Move], stay_garrisons: Mapping[str, str] | None = None,
              opts: Options = DEFAULT) -> Result:
    """One Move Turn (§5.1, §5.3): each General of the moving Power makes at most one move; Garrisons are left on the
    way (§5.5); no two of its Generals end on one Territory (§3.6); the Territories where it entered enemy pieces
    become battles (§8.1), fought before the next Move Turn. `stay_garrisons`: general -> its own Home Territory
    where it stands and flips a Troop (§5.5)."""
    s = pos.draft()
    log = Log()
    m = _movement(s)
    if m.played >= m.granted or m.battles:
        raise InputError(f"move: {m.power} has no Move Turn left now (granted {m.granted}, played {m.played}; "
                         "ask_turn for another, §5.2)")
    seen = set()
    for mv in moves:
        g = s.general(mv.general)
        if g.power != m.power:
            raise InputError(f"move: {g.id} is {g.power}'s, not {m.power}'s")
        if g.id in seen:
            raise InputError(f"move: {g.id} makes one move per Move Turn (§5.3)")
        seen.add(g.id)
        if m.napoleon and g.special != "napoleon":
            raise InputError(f"move: Napoleon's Move moves Napoleon only, not {g.id} (§5.6)")
        why = path_reasons(s, mv, opts)
        if why:
            raise InputError(f"move {g.id} ({mv.kind} {g.at} -> {'-'.join(mv.path)}): {why[0]}")
    start = {mv.general: s.general(mv.general).at for mv in moves}
    for mv in moves:
        _apply_move(s, log, mv, start[mv.general], opts)
    for gid, tid in (stay_garrisons or {}).items():
        _stay_garrison(s, log, m.power, gid, tid)
    _check_stacking(s, m.power)
    m.played += 1
    m.battles = _battles(s, m.power, [mv.general for mv in moves])
    m.supported = []
    m.entered = {mv.general: start[mv.general] for mv in moves if s.general(mv.general).at in m.battles}
    if "egypt" in m.battles and any(mv.kind == "orient" for mv in moves):
        s.armee_dorient = False
    _open_spain(s, log, moves, start, opts)
    for b in m.battles:
        log.say(f"battle in {b}: {m.power} against {names(_enemies(s, m.power, b))} (§8.1)", battle=b)
    return log.result("move", s, battles=list(m.battles))


def _apply_move(s: State, log: Log, mv: Move, start: str, opts: Options) -> None:
    g = s.general(mv.general)
    passed = [start, *mv.path]
    dest = mv.path[-1]
    for tid in mv.garrisons:
        if tid not in passed:
            raise InputError(f"garrison {g.id}@{tid}: a General garrisons only Territories it leaves or enters (§5.5)")
    g.at = dest
    log.say(f"{g.id} ({g.power}, {g.troops} Troops) {mv.kind}: {start} -> {'-'.join(mv.path)} (§5.3)",
            general=g.id, kind=mv.kind, to=dest)
    for tid in mv.garrisons:
        _place_garrison(s, log, g.id, tid, battle=bool(_enemies(s, g.power, tid)))


def _place_garrison(s: State, log: Log, gid: str, tid: str, battle: bool = False) -> None:
    """Flip one of a General's Troops to a Garrison (§5.5): it needs a Troop, no Garrison there yet, not an ally's Home
    (a controlled Minor's too), nothing hostile there; the Territory becomes the Power's."""
    g = s.general(gid)
    terr = s.europe.territories[tid]
    if g.troops < 1:
        raise InputError(f"garrison {gid}@{tid}: a General with no Troops places no Garrison (§5.5)")
    if tid in s.garrisons:
        raise InputError(f"garrison {gid}@{tid}: one Garrison per Territory (§3.6)")
    if terr.is_home and terr.home != g.power and allied(s, g.power, terr.home):
        raise InputError(f"garrison {gid}@{tid}: not on an ally's Home Territory (§5.5)")
    if battle:
        raise InputError(f"garrison {gid}@{tid}: enemies are there; a Garrison follows a won battle (§5.5)")
    g.troops -= 1
    s.garrisons[tid] = g.power
    log.say(f"{gid} leaves a Garrison in {tid}: {g.power} controls it (§5.5)", garrison=tid, power=g.power)


def _stay_garrison(s: State, log: Log, power: str, gid: str, tid: str) -> None:
    g = s.general(gid)
    terr = s.europe.territory(tid, f"garrison {gid}")
    if g.power != power or g.at != tid or not (terr.is_home and terr.home == power):
        raise InputError(f"garrison {gid}@{tid}: a General standing still garrisons only its own Home (§5.5)")
    _place_garrison(s, log, gid, tid)


def _check_stacking(s: State, power: str) -> None:
    """A Power may not end a Move Turn with two of its Generals on one Territory (§3.6)."""
    where: dict[str, str] = {}
    for g in sorted(s.generals.values(), key=lambda g: g.id):
        if g.power != power or g.at is None:
            continue
        if g.at in where:
            raise InputError(f"move: {where[g.at]} and {g.id} would end on {g.at}; a Power may not end a Move Turn "
                             "with two Generals on one Territory (§3.6)")
        where[g.at] = g.id


def _battles(s: State, power: str, moved: Sequence[str]) -> list[str]:
    out = []
    for gid in moved:
        tid = s.general(gid).at
        if tid and tid not in out and any(at_war(s, power, p) or can_attack(s, power, p, tid)
                                          for p in _enemies(s, power, tid)):
            out.append(tid)
    return out


def _open_spain(s: State, log: Log, moves: Sequence[Move], start: Mapping[str, str], opts: Options) -> None:
    """1792 (§5.4): Spain opens when a French General enters it through Navarra or Catalonia, or when any Power has
    `spain_influence` IP."""
    if s.spain_open:
        return
    entered = any(s.general(mv.general).power == "france" and not s.europe.territories[start[mv.general]].spain
                  and mv.path[0] in ("navarra", "catalonia") for mv in moves)
    if entered or max(s.influence.values(), default=0) >= opts.spain_influence:
        s.spain_open = True
        log.say("Spain is open to every Power from now on (1792, §5.4)", spain_open=True)
