"""The round and the Wheel of War (§4.1, §4.2): which Power performs which action in each of the six action turns,
the turn of the dial, the end of a round (the Paris check, §9.1) and the Diplomacy phase that opens the next.
"""

from __future__ import annotations

from common.errors import InputError
from rules.coalitions import economy
from rules.coalitions.model import ACTIONS, POWERS, CoalitionsPosition, Log, Result, State, known_power, state_of
from rules.coalitions.options import DEFAULT, Options


def action_of(pos: CoalitionsPosition | State, power: str, turn: int | None = None) -> str:
    """The action a Power's symbol sits above in an action turn (§4.2): `dial` is the symbols' order with Britain
    first, Britain is over Drill in turn 1 and every turn moves each symbol from action n to n+1 (E2)."""
    s = state_of(pos)
    known_power(power, "action")
    t = s.turn if turn is None else turn
    return ACTIONS[(s.dial.index(power) - s.dial.index("britain") + t - 1) % len(ACTIONS)]


def powers_doing(pos: CoalitionsPosition | State, action: str, turn: int | None = None) -> list[str]:
    """Who performs `action` this turn: the Power whose symbol is over it, a Minor's controller for it (§9.6); an
    uncontrolled Minor takes no action (§9.6)."""
    s = state_of(pos)
    if action not in ACTIONS:
        raise InputError(f"{action!r} is not an action of the Wheel (one of {' '.join(ACTIONS)})")
    return [p for p in POWERS if action_of(s, p, turn) == action and not (s.is_minor(p) and s.minors[p] is None)]


def schedule(pos: CoalitionsPosition | State) -> dict[str, str]:
    """Every Power's action this turn. Movement is resolved after all others, Napoleon's Move (France's Leadership)
    after all other actions but before Russia's Movement (§4.1)."""
    s = state_of(pos)
    return {p: action_of(s, p) for p in POWERS}


def end_turn(pos: CoalitionsPosition, opts: Options = DEFAULT) -> Result:
    """The action turn ends (§4.1): hand limits are checked (France 10, the rest 6, §9.5), the dial turns one space
    clockwise; after the sixth turn Britain is back over Drill: the Paris check (§9.1) ends the game or a new round
    begins with its Diplomacy phase."""
    s = pos.draft()
    log = Log()
    if s.movement is not None:
        raise InputError("end_turn: the Movement action is still under way (end it with end_movement, §5.1)")
    if s.phase == "diplomacy":
        raise InputError("end_turn: the Diplomacy phase comes first (declare the statuses, §4.1)")
    economy.hand_limits(s, log)
    if s.mode == "lempereur" and any(g.power != "france" for g in s.generals_at("paris")):
        s.winner = [p for p in POWERS if p != "france"]
        log.say("a Grand Coalition General is in Paris at the end of the turn: the players win (§9.8)",
                winner=s.winner)
        return log.result("end_turn", s, winner=s.winner)
    if s.turn < len(ACTIONS):
        s.turn += 1
        log.say(f"the Wheel turns: action turn {s.turn} of round {s.round} (§4.2)", turn=s.turn)
        _bids_due(s, log)
        return log.result("end_turn", s, schedule=schedule(s))
    if s.mode == "competitive":
        economy.paris_check(s, log, opts)
    if s.winner:
        return log.result("end_turn", s, winner=s.winner)
    s.round += 1
    s.turn = 1
    s.done = {}  # a new round: every Power does every action once more (§4.2)
    s.phase = "diplomacy" if s.mode == "competitive" else "action"
    log.say(f"round {s.round} begins" + (" with its Diplomacy phase (§4.1)" if s.phase == "diplomacy" else ""),
            round=s.round)
    _bids_due(s, log)
    return log.result("end_turn", s, schedule=schedule(s))


def _bids_due(s: State, log: Log) -> None:
    """A Minor whose symbol arrives on Drill is bid for before any action of the turn (§9.6)."""
    for m in s.minors:
        if action_of(s, m) == "drill":
            log.say(f"{m}'s symbol is on Drill: bid for its control before this turn's actions (§9.6)", bid_due=m)
