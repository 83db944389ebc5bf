"""Coalitions' part of the live session (rules/live.py): General pawns located on the map's Territories like
Marengo's blocks on areas.

The session registers the map as a printed board (rules/coalitions/board.py: the demo map's cells, or a board file
whose area ids are the map's Territory ids) and locates a table point on it (`s.locate`). Each roster piece is one
General pawn: its `side` a Power (name or short code), its `type` "general" or a special General's name (§8.9).
`coalitions_position` places every pawn in the Territory its marker lies in (on a border or in an Impassable
Territory it is left out with a note, not guessed; a pawn not on the map is off-map): it is the one placement of
Coalitions, used live, by the recorder and by the replay. What the camera cannot see (round and turn, statuses,
Morale, IP, Money, cards, the Troops under each pawn (§13.2), Garrisons, Fortresses, the Generals not in the roster)
is the game: the engine's position, replaced by the position after each resolution the players apply. The moves a
resolution orders wait as `GeneralMove`s until the map shows them.

Nothing is hidden in the position (cards are entered when played): no player views.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from common.errors import InputError
from rules.board import board_to_toml
from rules.board_picture import on_table
from rules.coalitions import turn
from rules.coalitions.board import map_point
from rules.coalitions.demo import demo as demo_table
from rules.coalitions.model import (
    ABBR,
    POWERS,
    SYSTEM,
    CoalitionsPosition,
    General,
    freeze,
    position_from_dict,
    position_to_dict,
)
from rules.live import ActionInput, DemoTable, GameState, LiveRules, PendingChange, Start, in_play
from rules.picture import Area, Item, Label, Scene, ScenePiece, base_items, pending_items, points

CHOICES = ActionInput("choices", "choices", "choices",
                      "cards.GEN=4,4 support.GEN=defender agree=yes to.GEN=T ... (as for fieldglass resolve --choice)")
POWER_CODES = {code: power for power, code in ABBR.items()}


def power_of(side: str) -> str | None:
    """The Power a roster side names (its name or short code, any case), None when it names none."""
    s = side.strip().lower()
    return s if s in POWERS else POWER_CODES.get(s)


@dataclass
class GeneralMove(PendingChange):
    """A General the rules moved (`at` a Territory, None: off-map beside the board), shown until the camera sees it."""

    at: str | None = None

    def describe(self) -> str:
        return f"move {self.piece} to {self.at}" if self.at else f"take {self.piece} off the map (beside the board)"


def empty_game(source: str = "dashboard") -> CoalitionsPosition:
    """The game a session starts from without a position file: the demo map, round 1, no Generals but the camera's."""
    return position_from_dict({"system": SYSTEM, "board": "demo"}, source)


def coalitions_position(places, roster, system, state: GameState, game: CoalitionsPosition, locate):
    """The engine's position from where each pawn stands: the one placement of Coalitions, used live, by the recorder
    and by the replay. `places`: pawn id -> anything with x_mm, y_mm; `locate(x, y)` names the Territory there;
    `state` holds each pawn's Power and Troops (the camera cannot count them), the moves the rules ordered (pending
    until the map shows them: the pawn counts where the rules put it); `game` the rest. A roster pawn not on the map
    is off-map (§2.2); one on a border or in an Impassable Territory is not guessed: it stays where the game has it,
    with a note; Generals of the game that no roster pawn stands for keep the game's place.
    Returns (position, notes, placements)."""
    s = game.draft()
    placements, notes = {}, []
    playing, bad = in_play(roster.pieces, state, system, "a General (general, napoleon, wellington, ...)")
    notes += bad
    for rp, st, typ, pend in playing:
        power = st.get("power") or power_of(rp.side)
        if power is None:
            notes.append(f"{rp.id}: side {rp.side!r} is no Power ({' '.join(POWERS)}) - not placed")
            continue
        at = None
        if pend is not None:
            at = pend.at
        elif rp.id in places:
            pl = locate(places[rp.id].x_mm, places[rp.id].y_mm)
            placements[rp.id] = pl
            at, why = _territory_at(s.europe, pl)
            if at is None:
                kept = s.generals[rp.id].at if rp.id in s.generals else None
                notes.append(f"{rp.id}: {why} - not placed (kept where the game has it: {kept or 'off-map'})")
                continue
        troops = int(st.get("troops", 0)) if at else 0
        special = None if typ == "general" else typ
        s.generals[rp.id] = General(rp.id, power, at, troops, special)
    return freeze(s), notes, placements


def _territory_at(europe, placement) -> tuple[str | None, str]:
    if placement.area is None or placement.on_border:
        return None, placement.note or "not in a Territory"
    if placement.area not in europe.territories:
        return None, f"area {placement.area} is no Territory of the map"
    if europe.territories[placement.area].kind == "impassable":
        return None, f"{placement.area} is Impassable (§3.2)"
    return placement.area, ""


class CoalitionsLive(LiveRules):
    """General pawns located on the map's Territories; the engine's resolutions replace the game and move pawns
    through pending `GeneralMove`s."""

    inputs = (CHOICES,)
    noun = "General"
    target_headers = ("target", "territory", "steps", "move", "-", "-", "attack", "margin", "-", "note")
    state_headers = ("General", "Power", "type", "Territory", "facing", "troops", "bases", "markers", "seen",
                     "waiting for")
    target_hint = "a Territory (move, battle), a Minor (bid) or the Arbiter (start_movement)"

    def __init__(self, system, setup) -> None:
        super().__init__(system, setup)
        self.game: CoalitionsPosition | None = None
        self.placements: dict[str, Any] = {}

    # ---- the set-up

    @classmethod
    def demo(cls, board=None) -> DemoTable:
        return demo_table(board)

    @classmethod
    def start_from(cls, system, position, terrain=(), table=None) -> Start:
        """The position file's game (`Setup.game`): statuses, tracks, Troops, Garrisons, the other Generals."""
        return Start(game=position)

    @classmethod
    def setup_roster(cls, system, roster, tables, start, source) -> dict:
        """Every pawn's side a Power (or its short code) and its type a General, else InputError."""
        for rp in roster.pieces:
            if power_of(rp.side) is None:
                raise InputError(f"{source}: piece {rp.id!r}: side {rp.side!r} is no Power (one of {' '.join(POWERS)}"
                                 f", or {' '.join(sorted(POWER_CODES))})")
            if system.piece_type(rp.type) is None:
                raise InputError(f"{source}: piece {rp.id!r}: type {rp.type!r} is no General (general, or a special "
                                 "General: napoleon, wellington, schwarzenberg, blucher, kutuzov, grand_vizier)")
        return {}

    # ---- start and readings

    def start(self, s) -> None:
        """The set-up's game (else `empty_game`); each pawn's Power and Troops from the game's General of its id."""
        self.game = getattr(self.setup, "game", None) or empty_game()
        st0 = self.game.state
        s.state.turn, s.state.active = st0.round, "britain"
        for rp in s.roster.pieces:
            st = s.state.states.setdefault(rp.id, {})
            g = st0.generals.get(rp.id)
            st.setdefault("type", (g.special or "general") if g is not None else s.system.piece_type(rp.type))
            st.setdefault("power", g.power if g is not None else power_of(rp.side))
            st.setdefault("troops", g.troops if g is not None else 0)

    def position(self, s):
        pos, notes, self.placements = coalitions_position(s.committed_places(), s.roster, s.system, s.state,
                                                          self.game, s.locate)
        return pos, notes

    def placed_as(self, s, pose, change) -> bool:
        pl = s.locate(pose.x_mm, pose.y_mm)
        if change.at is None:
            return pl.area is None
        return pl.area == change.at and not pl.on_border

    # ---- the game state

    def check_state(self, s, pid: str, key: str, value: Any) -> tuple[str, str, Any]:
        """A pawn's Troops (the camera cannot count them, §13.2) or Power."""
        if s.roster.piece(pid) is None:
            raise InputError(f"no General {pid!r} in the roster")
        if key not in ("troops", "power"):
            raise InputError(f"a Coalitions General has no {key} (troops, power)")
        return pid, key, s.system.check_state("", key, value)

    def set_turn(self, s, turn_no: int, active: str | None) -> None:
        s.state.turn = max(1, int(turn_no))
        if active in POWERS:
            s.state.active = active

    def next_phase(self, s) -> None:
        """The action turn ends (engine: turn.end_turn, §4.1): the Wheel turns, or a new round begins."""
        res = turn.end_turn(s.position, self.system.opts)
        for ch in self._take(s, res.after):
            s.log(f"waiting for the map: {ch.describe()}")
        for line in res.lines:
            s.log(line)

    def apply(self, s, outcome) -> list[PendingChange]:
        res = outcome.resolution
        s.log(f"{res.action}: {outcome.lines[0] if outcome.lines else ''}")
        return self._take(s, res.after)

    def _take(self, s, after: CoalitionsPosition) -> list[PendingChange]:
        """Adopt the engine's position: the game now, each pawn's Troops; moves pending until the map matches."""
        pending: list[PendingChange] = []
        roster_ids = {rp.id for rp in s.roster.pieces}
        for gid, g in s.position.state.generals.items():
            q = after.state.generals.get(gid)
            if q is None or gid not in roster_ids:
                continue
            s.state.states.setdefault(gid, {}).update(troops=q.troops, power=q.power)
            if q.at != g.at:
                ch = GeneralMove(gid, at=q.at)
                s.state.pending[gid] = ch
                pending.append(ch)
        self.game = after
        s.state.turn = after.state.round
        return pending

    # ---- what a viewer sees

    def title(self, s) -> str | None:
        sel = s.selected
        if sel is None:
            return None
        g = s.position.state.generals.get(sel)
        if g is None:
            return f"{sel}: not placed (on a border or not a General)"
        ov = s.selection_overlay()
        reach = f": may move to {', '.join(ov.moves)}" if ov is not None and ov.moves else ""
        return f"<b>{g.id}</b> {g.power} {g.special or 'General'}, {g.troops} Troops in {g.at or 'off-map'}{reach}"

    def describe(self, s) -> list[str]:
        """The round, every Power's action this turn, every pawn with where it stands."""
        pos = s.position
        st = pos.state
        lines = [f"  round {st.round}, turn {st.turn}: " + "; ".join(f"{p} {a}" for p, a in turn.schedule(st).items()),
                 f"  {'General':<10}{'Power':<9}{'troops':<8}{'at':<22}{'status':<10}"]
        for v in s.true_views():
            g = st.generals.get(v.piece.id)
            at = (g.at or "off-map") if g is not None else "not placed"
            lines.append(f"  {v.piece.id:<10}{g.power if g else '?':<9}{g.troops if g else '-'!s:<8}{at:<22}"
                         f"{v.status:<10}")
        lines += [f"  note: {n}" for n in s.notes]
        return lines

    def context(self, s) -> dict:
        return {"placements": self.placements}

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        return picture(scene, getattr(s, "board", None))

    def actors(self, s) -> tuple[str, ...]:
        """The Powers act themselves (start a movement, taxation, declare, bid...: §4, §9): the combat panel offers
        them besides the Generals."""
        return POWERS

    # ---- the game record

    def record_meta(self, meta: dict) -> dict:
        """The starting game (the position file's form); the map's board as its TOML text."""
        board = getattr(self.setup, "board", None)
        if board is not None and (meta.get("board") or {}).get("demo"):
            meta["board"] = {"toml": board_to_toml(board), "name": board.name}
        game = getattr(self.setup, "game", None)
        if game is not None:
            meta["game"] = position_to_dict(game)
        return meta

    def restore(self, s) -> None:
        """The game at a recorded moment: the engine's state kept by the last event that made one, else the record's
        starting game; each pawn's Power and Troops from it."""
        kept = next((e.data["engine"] for e in reversed(s.recorded) if not e.undone
                     and isinstance(e.data.get("engine"), dict)), None)
        if kept is not None:
            game = position_from_dict(kept, "the record's engine state")
        elif s.meta.get("game"):
            game = position_from_dict(s.meta["game"], "the record's game")
        else:
            game = empty_game("the record")
        self.game = game
        state = GameState(turn=game.state.round, active="britain", removed=set(s.state.removed))
        for rp in s.roster.pieces:
            g = game.state.generals.get(rp.id)
            state.states[rp.id] = {"type": s.system.piece_type(rp.type), "power": power_of(rp.side),
                                   "troops": g.troops if g is not None else 0}
        s.state = state

    def record_turn(self, s, inp: dict) -> dict:
        """The action turn ends (engine: turn.end_turn), with the engine's state after; the record counts action
        turns from the game's start (six a round)."""
        res = turn.end_turn(s.position, self.system.opts)
        q = res.after.state
        data = {"turn": (q.round - 1) * 6 + q.turn, "active": "britain", "phase": f"round {q.round}, turn {q.turn}",
                "lines": list(res.lines), "engine": position_to_dict(res.after)}
        if q.winner:
            data["game_winner"] = " and ".join(q.winner)
        return data

    def record_combat(self, s, inp: dict) -> dict:
        """An action resolved by the engine on the recorded position: its changes and the engine's state after."""
        pos = s.position
        frame = inp.get("frame")
        action, attacker, target = inp.get("action"), inp.get("attacker"), inp.get("target")
        if not isinstance(attacker, str) or not attacker:
            raise InputError(f"combat at frame {frame}: {attacker!r}: name the acting General(s) or Power")
        outcome = s.system.resolve(pos, action, attacker, target,
                                   choices={str(k): str(v) for k, v in (inp.get("choices") or {}).items()})
        changes = [{**ch, "piece": ch["general"]} if "general" in ch else dict(ch) for ch in outcome.changes]
        pieces = [p for p in attacker.split(",") if p in pos.by_id]
        data = {"action": action, "pieces": pieces, "target": target, "changes": changes, "lines": outcome.lines,
                "dice": [], "summary": outcome.lines[0] if outcome.lines else str(action),
                "engine": position_to_dict(outcome.after)}
        winner = outcome.after.state.winner
        if winner:
            data["game_winner"] = " and ".join(winner)
        return data


# ---------------------------------------------------------------------------------------------- the picture

POWER_TONES = {"britain": "#d83a3a", "france": "#3a5fd8", "austria": "#f2f2f2", "prussia": "#303030",
               "russia": "#3a9a4a", "ottoman": "#f08a24"}
"""The Powers' colours (§1): Great Britain red, France blue, Austria white, Prussia black, Russia green, the
Ottoman Empire orange."""


def picture(scene: Scene, board) -> tuple[Item, ...]:
    """The map: each Territory filled in its controller's colour (§3.2; Impassable in red outline), its name; the
    selected General's Territory and where it may move; every pawn in its Power's colour with its Troops; the moves
    the rules ordered that the map does not show yet."""
    pos = scene.position
    if pos is None or board is None:
        return ()
    st = pos.state
    out: list[Item] = []
    for tid, area in board.areas.items():
        poly = (points(on_table(area.polygon, scene.to_table)),)
        terr = st.europe.territories.get(tid)
        if terr is None:
            continue
        ctrl = st.controller(tid)
        tip = f"{terr.name}: {terr.kind}, value {terr.value}, controlled by {ctrl or 'nobody'}" + \
            (f", a {st.garrisons[tid]} Garrison" if tid in st.garrisons else "") + \
            (" with a Fortress" if tid in st.fortresses else "")
        tone = "impassable" if terr.kind == "impassable" else POWER_TONES.get(ctrl or "", "area")
        out.append(Area("coalitions-territory", poly, tone, 0.2 if ctrl else 0.0, width=1.0, edge_tone="area",
                        tip=tip, layer=3, data=(tid,)))
        at = on_table([area.centre], scene.to_table)[0]
        out.append(Label("coalitions-name", tuple(at), terr.name, "muted", 6.0, False, (-18.0, -14.0), layer=5))
    sel = scene.selection
    if sel is not None:
        for tid in sel.moves:
            if tid in board.areas:
                out.append(Area("coalitions-reach", (points(on_table(board.areas[tid].polygon, scene.to_table)),),
                                "reach", 0.25, tip=f"{sel.piece} may move to {tid} (§5.3)", layer=4, data=(tid,)))
    for p in scene.pieces:
        out += _pawn(p, scene, board)
    return tuple(out)


def _pawn(p: ScenePiece, scene: Scene, board) -> list[Item]:
    if p.pose is None:
        return []
    st = scene.position.state
    g = st.generals.get(p.id)
    tone = POWER_TONES.get(g.power if g else "", f"side:{p.side_index}")
    tip = f"{p.label}: " + (f"{g.power} {g.special or 'General'}, {g.troops} Troops in {g.at or 'off-map'}" if g
                            else "not placed")
    label = f"{p.label} ({g.troops})" if g else f"{p.label} ?"
    out = [it for it in base_items(p, scene, "coalitions-pawn", tip, label, fill=0.7, pen_tone="outline")
           if it.kind != "facing"]  # a pawn faces nowhere (§3.5)
    out = [Area(it.kind, it.polygons, tone, it.fill, it.pen, it.width, it.edge_tone, tip=it.tip, layer=7,
                piece=it.piece, z_mm=it.z_mm) if isinstance(it, Area) else it for it in out]
    ch = p.pending
    if ch is not None and getattr(ch, "at", None) in board.areas:
        gx, gy = on_table([map_point(st.europe, ch.at)], scene.to_table)[0]
        out += [it for it in pending_items(p, scene, (gx, gy, 0.0), f"→ {ch.describe()}", ch.describe())
                if it.kind != "pending-move"]
    elif ch is not None:
        out += pending_items(p, scene, None, "off-map", ch.describe())
    return out


__all__ = ["CoalitionsLive", "GeneralMove", "coalitions_position", "empty_game", "picture", "power_of"]
