"""Coalitions' game-state panels and its after-action report, as plain data (rules/live.py `Panel`, `ReportTerms`):
the Wheel of War and who does what this action turn (§4.2), the tracks and the treasury (§9.1, §9.5), the statuses
and the two Coalitions (§9.2), the moves the camera saw before they were resolved with the engine's proposal
(§13.3), the battles the Movement under way has triggered with their eligible supporters and card allowances
(§8.1-§8.4), and the secret choices made before their reveal (§13.2), each Power seeing only its own. Every number
is the engine's (turn.py, economy.py, battle.py, adapter.py `infer_kind`). The report's terms close the module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common.errors import InputError
from rules.coalitions import battle, economy, turn
from rules.coalitions.adapter import infer_kind, seen_from
from rules.coalitions.battle import SIDES
from rules.coalitions.camera import marker_kind
from rules.coalitions.model import ACTIONS, POWERS, STATUSES, CoalitionsPosition
from rules.coalitions.options import DEFAULT
from rules.live import Panel, PanelAction, ReportTerms
from rules.system import UMPIRE

DIRECT = ("drill", "taxation", "influence")
"""The actions that take nothing but the Power (the others ask choices: Leadership's option, Mobilisation's
purchases, the Arbiter)."""
TURNS_A_ROUND = len(ACTIONS)
"""A record counts action turns from the game's start: six a round (§4.1)."""


def wheel_panel(pos: CoalitionsPosition) -> Panel:
    """The Wheel: round, action turn, phase, and for each Power the action its symbol is over (§4.2) and who acts
    for it (a Minor's controller, §9.6); Movement comes last (§4.1)."""
    s = pos.state
    rows = []
    for action in ACTIONS:
        over = [p for p in POWERS if turn.action_of(s, p) == action]
        doing = turn.powers_doing(s, action)
        rows.append((action, ", ".join(over) or "-", ", ".join(doing) or "nobody (an uncontrolled Minor, §9.6)"))
    lines = (f"round {s.round}, action turn {s.turn} of {TURNS_A_ROUND}, phase {s.phase}",
             "dial order: " + " ".join(s.dial))
    acts = tuple(PanelAction(f"{p}: {a}", a, p) for p in POWERS if (a := turn.action_of(s, p)) in DIRECT
                 and p in turn.powers_doing(s, a))
    return Panel("wheel", "the Wheel of War", lines, ("action", "symbol over it", "performed by"), tuple(rows),
                 acts)


def tracks_panel(pos: CoalitionsPosition) -> Panel:
    """Morale, IP (Influence), Money, Battle cards in hand and the taxes each Power would raise now."""
    s = pos.state
    rows = []
    for p in POWERS:
        try:
            tax = str(economy.tax_value(s, p).get("total", ""))
        except InputError as e:
            tax = str(e)
        rows.append((p, str(s.morale.get(p, 0)), str(s.influence.get(p, 0)), str(s.money.get(p, 0)),
                     f"{s.hands.get(p, 0)}/{economy.hand_limit(p)}", tax))
    return Panel("tracks", "tracks and treasury", (f"Battle card deck: {s.deck if s.deck is not None else '?'}",),
                 ("Power", "Morale", "IP", "Money", "cards", "taxes now"), tuple(rows))


def diplomacy_panel(pos: CoalitionsPosition) -> Panel:
    """The statuses and the two Coalitions (§9.2), the Minors and their controllers (§9.6)."""
    s = pos.state
    by = {st: [p for p in POWERS if s.status(p) == st] for st in STATUSES}
    lines = (f"British Coalition: {', '.join(by['british'])}", f"French Coalition: {', '.join(by['french'])}",
             f"Neutral: {', '.join(by['neutral']) or '-'}; Expansionist: {', '.join(by['expansionist']) or '-'}")
    rows = tuple((m, c or "uncontrolled") for m, c in sorted(s.minors.items()))
    return Panel("diplomacy", "statuses and Coalitions", lines, ("Minor", "controlled by") if rows else (), rows)


def battles_panel(pos: CoalitionsPosition) -> Panel:
    """The battles the Movement under way has triggered (§8.1), each with its sides, base Strength, card slots per
    General (§8.4) and the Generals eligible to support either side (§8.3); an action per battle for the combat
    panel (the piles are entered there, `cards.GEN=4,4`)."""
    s = pos.state
    mv = s.movement
    if mv is None:
        return Panel("battles", "battles", ("no Movement under way",))
    lines = [f"{mv.power} moves (Arbiter {mv.arbiter or 'none'}), Move Turn {mv.played} of {mv.granted}"]
    rows, acts = [], []
    for tid in mv.battles:
        try:
            pv = battle.preview(s, tid, mv.power)
        except InputError as e:
            lines.append(f"{tid}: {e}")
            continue
        for side in SIDES:
            gens = ", ".join(f"{g} ({pv['card_slots'][g]} cards)" for g in pv["sides"][side])
            if side == "defender" and pv["garrison"]:
                gens += f"{', ' if gens else ''}{pv['garrison']} Garrison"
            rows.append((tid, side, gens, str(pv["base"][side]), ", ".join(pv["support_candidates"][side]) or "-"))
        acts.append(PanelAction(f"battle in {tid}", "battle", mv.power, tid))
    if not mv.battles:
        lines.append("no battle waiting")
    return Panel("battles", "battles", tuple(lines), ("Territory", "side", "Generals", "Strength", "may support"),
                 tuple(rows), tuple(acts))


def moves_panel(pos: CoalitionsPosition, seen: Mapping[str, tuple[str | None, str | None]], opts=None) -> Panel:
    """The pawns the camera sees away from where the game has them (two snapshots, §13.3 steps 2-3): for each the
    move the engine proposes (March, then Strategic, then Sea: the first that fits, §5.3) and, when several fit, one
    action per kind for the player to choose; each fills the combat panel with the move from its start
    (`from.GEN=`), to be resolved (consents and Garrisons added as choices, §13.2)."""
    rows, acts = [], []
    mv = pos.state.movement
    for gid, (start, end) in sorted(seen.items()):
        if end is None:
            rows.append((gid, start or "off-map", "off-map", "-", "taken off the map: not a move (§5.3)"))
            continue
        there = seen_from(pos, {gid: start or "off"})
        try:
            kind, path, others = infer_kind(there, gid, end, opts or DEFAULT)
        except InputError as e:
            rows.append((gid, start or "off-map", end, "-", str(e)))
            continue
        rows.append((gid, start or "off-map", end, kind, f"also {', '.join(others)}" if others else
                     f"by {' '.join(path)}"))
        for k in (kind, *others):
            acts.append(PanelAction(f"{gid}: {start} -> {end} ({k})", "move", gid, end,
                                    ((f"from.{gid}", start or "off"), (f"kind.{gid}", k)),
                                    mv is not None, "" if mv is not None else "no Movement under way (§5.1)"))
    lines = ("the camera sees these pawns away from the game: confirm each move" if rows else
             "every pawn stands where the game has it",)
    return Panel("moves", "moves seen", lines, ("General", "from", "to", "proposed", "note"), tuple(rows), tuple(acts))


def secrets_panel(pos: CoalitionsPosition, secrets: Mapping[str, Mapping[str, Any]], viewer: str) -> Panel:
    """The secret choices made before their reveal (§9.3 statuses, §9.6 bids; §13.2): a Power's own player view
    shows its choices, every other Power's view only that one was made; the umpire's view shows them all and the
    reveal as an action (`declare` / `bid` with the entered choices) for the combat panel."""
    s = pos.state
    sees_all = viewer == UMPIRE
    rows = []
    for p in POWERS:
        mine = secrets.get(p, {})
        shown = sees_all or viewer == p
        status = (mine.get("status") if shown else "chosen") if "status" in mine else "-"
        bids = ", ".join(f"{m} {n if shown else '?'}" for m, n in sorted(mine.get("bids", {}).items())) or "-"
        rows.append((p, status, bids))
    lines = [f"phase {s.phase}: " + ("choose each status in your own view (choose status=...), then reveal"
                                     if s.phase == "diplomacy" else "statuses are chosen in the Diplomacy phase")]
    acts = []
    statuses = tuple((f"status.{p}", str(v["status"])) for p, v in sorted(secrets.items()) if "status" in v)
    if sees_all and statuses:
        acts.append(PanelAction("reveal the statuses", "declare", "any", "", statuses))
    for minor in sorted({m for v in secrets.values() for m in v.get("bids", {})}):
        bids = tuple((f"bid.{p}", str(v["bids"][minor])) for p, v in sorted(secrets.items())
                     if minor in v.get("bids", {}))
        if sees_all:
            acts.append(PanelAction(f"reveal the bids for {minor}", "bid", "any", minor, bids))
    if not sees_all:
        lines.append(f"{viewer}'s view: the other Powers' choices are hidden until the reveal (§13.2)")
    return Panel("secrets", "secret choices", tuple(lines), ("Power", "status", "bids"), tuple(rows), tuple(acts))


def panels(pos: CoalitionsPosition | None, secrets: Mapping[str, Mapping[str, Any]] | None = None,
           viewer: str = UMPIRE, seen: Mapping[str, tuple[str | None, str | None]] | None = None,
           opts=None) -> tuple[Panel, ...]:
    """Every panel for the session's position `pos`; `secrets` and `viewer` for the secret choices, `seen` the
    pawns the camera sees away from the game (General id -> (game's Territory, seen Territory); None off-map)."""
    if pos is None:
        return ()
    return (wheel_panel(pos), tracks_panel(pos), diplomacy_panel(pos), moves_panel(pos, seen or {}, opts),
            battles_panel(pos), secrets_panel(pos, pos.state.secrets if secrets is None else secrets, viewer))


# ---------------------------------------------------------------------------------------------- the report


def turn_title(record_turn: int) -> str:
    """A record's turn number (action turns from the start, six a round) as round and action turn."""
    if record_turn <= 0:
        return "Set-up"
    return f"Round {(record_turn - 1) // TURNS_A_ROUND + 1}, action turn {(record_turn - 1) % TURNS_A_ROUND + 1}"


def _marker_line(pid: str, kind: str, side: str, area: str | None) -> str:
    """A marker moved, as the game says it: a track marker to its value, a disc to its zone, the dial's turn."""
    where = str(area or "off the board")
    if kind in ("morale", "influence") and where.startswith(f"{kind}-"):
        return f"{side}'s {kind.capitalize()} marker moved to {where.split('-', 1)[1]} ({pid})"
    if kind == "status" and where.startswith("status-"):
        return f"{side}'s status disc moved to {where.split('-', 1)[1]} ({pid})"
    if kind == "wheel":
        return f"the Wheel of War's dial turned ({pid})"
    return f"{side + ' ' if side else ''}{kind} {pid} moved to {where}"


def _combat_line(data: Mapping[str, Any]) -> str:
    action = str(data.get("action") or "")
    return f"{action.replace('_', ' ')}: {data.get('summary') or ''}"


def report_terms(meta: Mapping[str, Any], events) -> ReportTerms:
    """A Coalitions record's report in the game's terms: each turn headed by its round and action turn, each
    resolution by its action and the engine's first line, and sections of the battles (with their result), the
    status changes (declare, §9.3) and the other actions (§9.5)."""
    titles: dict[int, str] = {}
    lines: dict[int, str] = {}
    battles, statuses, actions = [], [], []
    game = meta.get("game") or {}
    first = (int(game.get("round", 1)) - 1) * TURNS_A_ROUND + int(game.get("turn", 1))
    kinds = {str(p.get("id")): (marker_kind(str(p.get("type", ""))), str(p.get("side", "")))
             for p in meta.get("roster") or () if isinstance(p, Mapping)}
    for e in events:
        # before the first turn event: the game's starting round and action turn (the record's turn 0)
        titles.setdefault(int(e.turn or 0), turn_title(int(e.turn or 0) or first))
        if e.type == "move" and (kinds.get(str(e.piece)) or (None,))[0]:
            lines[e.seq] = _marker_line(str(e.piece), *kinds[str(e.piece)], e.data.get("area"))
            continue
        if e.type == "turn":
            lines[e.seq] = f"{turn_title(int(e.data.get('turn') or 0))} begins: " + \
                "; ".join(str(x) for x in e.data.get("lines", ())[:1])
            continue
        if e.type != "combat":
            continue
        text = _combat_line(e.data)
        lines[e.seq] = text
        action = e.data.get("action")
        if action == "battle":
            won = next((str(x) for x in e.data.get("lines", ()) if " wins " in str(x) or "tie" in str(x)), "")
            battles.append(f"{turn_title(int(e.turn or 0) or first)}: {text}" + (f"; {won}" if won else ""))
        elif action == "choose":
            continue  # the reveal says what was chosen
        elif action in ("declare", "bid"):
            statuses.append(f"{turn_title(int(e.turn or 0) or first)}: {text}")
        else:
            actions.append(f"{turn_title(int(e.turn or 0) or first)}: {text}")
    sections = (("Battles", tuple(battles) or ("none",)), ("Status changes and bids", tuple(statuses) or ("none",)),
                ("Actions", tuple(actions) or ("none",)))
    return ReportTerms(titles, lines, sections, losses=False)


__all__ = ["panels", "report_terms", "turn_title"]
