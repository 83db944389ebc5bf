"""Napoleon in Europe's part of the live session (rules/live.py): figures on the strategic map, located to its regions
and sea areas like Marengo's blocks to areas, and on the battle board, located to the battle's zones.

The session (fieldglass/session.py) registers the map as a printed board (rules/nie/board.py: the demo map's cells,
or a board file whose area ids are the map's region and sea ids) and locates a table point on it (`s.locate`). Each
roster piece is one figure: its roster `type` word is a unit kind (rules/nie/model.py TYPE_WORDS), its `side` a Great
Nation (or a short code, `NATION_CODES`). `nie_position` places every figure in the area its marker point lies in
(a squadron in a port region is in its port, `port:REGION`; a land figure at sea or a figure on a border is left out
with a note, not guessed): it is the one placement of NiE, used live, by the recorder and by the replay. What the
camera cannot see (date, turn order, players, relations, PP and PAP, owners, uprisings, the figures that moved this
month, a battle) is the game: the engine's position without units, replaced by the position after each resolution
the players apply. The moves and removals a resolution orders wait as `FigureMove`s until the map shows them.

The battle board is the table's second surface (`surfaces`, §13.3: registered from its own anchors every frame, so it
may be moved): a figure standing on it is in the current battle's region, in the zone it is seen in (§3.3).

Nothing on the strategic map is hidden (§4.2 hides only a battle's set-up, which has no player view yet): no player
views.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from common.errors import InputError
from rules.board import board_to_toml
from rules.live import DICE, ActionInput, DemoTable, GameState, LiveRules, PendingChange, Start, in_play
from rules.nie import panels as nie_panels
from rules.nie import turn
from rules.nie.board import battle_board
from rules.nie.demo import demo as demo_table
from rules.nie.model import (
    NATIONS,
    NAVAL,
    SYSTEM,
    UNIT_TYPES,
    NiePosition,
    Unit,
    parse_zone,
    position_from_dict,
    position_to_dict,
    with_changes,
)
from rules.nie.picture import battle_items, picture
from rules.picture import Item, Scene

CHOICES = ActionInput("choices", "choices", "choices",
                      "path=R1,R2 route=SEA,SEA buy=inf:2 place=REGION ... (as for fieldglass resolve --choice)")

NATION_CODES = {"fr": "france", "gb": "britain", "pr": "prussia", "ru": "russia", "ot": "ottoman", "au": "austria",
                "sp": "spain", "es": "spain", "tr": "ottoman"}
"""Short roster sides for the nations, besides their names."""


def nation_of(side: str) -> str | None:
    """The Great Nation a roster side names (its name or short code, any case), None when it names none."""
    s = side.strip().lower()
    return s if s in NATIONS else NATION_CODES.get(s)


@dataclass
class FigureMove(PendingChange):
    """A figure the rules moved (`at`: a region, a sea area or `port:REGION`) or removed, shown until the camera
    sees it there."""

    at: str | None = None

    def describe(self) -> str:
        if self.removed:
            return f"take {self.piece} off the map"
        return f"move {self.piece} to {self.at}"


def empty_game(source: str = "dashboard") -> NiePosition:
    """The game a session or a record starts from without a position file: the demo map, January 1805, France to
    move, no players, no relations, no units (they come from the camera)."""
    return position_from_dict({"system": SYSTEM, "board": "demo"}, source)


def without_units(pos: NiePosition) -> NiePosition:
    """The game the camera cannot see: the position without its units (a battle's zones are kept)."""
    return with_changes(pos, units={})


def area_at(europe, placement, unit_type: str) -> tuple[str | None, str]:
    """Where a figure located at `placement` (rules.board.Placement) stands for the engine: a region, a sea area or
    (a squadron in a port region) `port:REGION`; (None, why) when it cannot stand there."""
    if placement.area is None or placement.on_border:
        return None, placement.note or "not in an area"
    area = placement.area
    naval = UNIT_TYPES[unit_type].base == NAVAL
    if area in europe.seas:
        return (area, "") if naval else (None, f"a land figure in sea area {area} (armies cross by amphibious move)")
    if area not in europe.regions:
        return None, f"area {area} is no region or sea area of the map {europe.source}"
    if not naval:
        return area, ""
    if europe.regions[area].port:
        return f"port:{area}", ""
    return None, f"a squadron in {area}, a region without a port"


BATTLE = "battle"
"""The battle board's surface (`NieLive.surfaces`: the strategic map first)."""


def on_battle_board(battle, placement, pid: str, nation: str) -> tuple[Any, str]:
    """The zone of the current battle (rules/nie/model.py `Zone`) a figure located on the battle board stands in;
    (None, why) when it cannot stand there: no battle, on a border, not one of the battle's units, or in a zone of
    the other side."""
    if battle is None:
        return None, "on the battle board, but there is no battle"
    if placement.area is None or placement.on_border:
        return None, f"on the battle board, {placement.note or 'in no zone'}"
    if pid not in battle.units:
        return None, f"on the battle board, but not in the battle in {battle.region}"
    try:
        zone = parse_zone(placement.area, battle.major, f"{pid} on the battle board")
    except InputError as exc:
        return None, str(exc)
    if zone.side not in (None, battle.side_of_nation(nation)):
        return None, f"in zone {placement.area} of the other side"
    return zone, ""


def _battle_seen(battle, units: list[Unit], zones_seen: dict, notes: list[str]):
    """The game's battle with each figure seen on the battle board in the zone it stands in; None (noted) while
    one of its units is neither on the battle board nor on the map."""
    if battle is None:
        return None
    missing = sorted(set(battle.units) - {u.id for u in units})
    if missing:  # the engine's battle needs every unit of it
        notes.append(f"the battle in {battle.region} is left out until its figures are on the map or the battle "
                     f"board: {', '.join(missing)} missing")
        return None
    if not zones_seen:
        return battle
    return replace(battle, units={uid: replace(bu, zone=zones_seen.get(uid, bu.zone))
                                  for uid, bu in battle.units.items()})


def _locate_figure(pl, rp, typ: str, nation: str, game: NiePosition, zones_seen: dict) -> tuple[str | None, str]:
    """Where a figure located at `pl` stands for the engine: on the battle board, the battle's region (its zone
    kept in `zones_seen`); on the map, its area (`area_at`)."""
    if pl.surface != BATTLE:
        return area_at(game.europe, pl, typ)
    zone, why = on_battle_board(game.battle, pl, rp.id, nation)
    if zone is None:
        return None, why
    zones_seen[rp.id] = zone
    return game.battle.region, ""


def nie_position(places, roster, system, state: GameState, game: NiePosition, locate):
    """The engine's position from where each figure stands: the one placement of Napoleon in Europe, used live
    (`NieLive.position`), by the recorder (fieldglass/recording.py) and by the replay (the record hooks below).

    `places`: figure id -> anything with x_mm, y_mm (a tracking Place, a record's PieceState); `locate(x, y)` names
    the surface and the area there (rules.board.Placement: on the battle board a zone of the current battle, on
    the map a region or sea area); `state` (rules.live.GameState) holds each figure's type and nation (else its
    roster type and side), the figures the rules removed and the moves they ordered (pending until the map shows
    them: the figure counts where the rules put it); `game` the game without units. A figure on the battle board
    stands in the battle's region, in the zone it is seen in; a battle of the game whose units are neither on the
    map nor on the battle board is left out of the position (noted). Returns (position, notes, placements)."""
    units, placements, zones_seen = [], {}, {}
    playing, notes = in_play(roster.pieces, state, system, "a NiE unit kind (infantry, cavalry, squadron, ...)")
    for rp, st, typ, pend in playing:
        nation = st.get("nation") or nation_of(rp.side)
        if nation is None:
            notes.append(f"{rp.id}: side {rp.side!r} is no Great Nation ({' '.join(NATIONS)}) - not placed")
            continue
        if pend is not None and not pend.removed:
            at = pend.at
        elif rp.id in places:
            pl = locate(places[rp.id].x_mm, places[rp.id].y_mm)
            placements[rp.id] = pl
            at, why = _locate_figure(pl, rp, typ, nation, game, zones_seen)
            if at is None:
                notes.append(f"{rp.id}: {why} - not placed")
                continue
        else:
            continue
        units.append(Unit(rp.id, nation, typ, at))
    battle = _battle_seen(game.battle, units, zones_seen, notes)
    pos = with_changes(game, units={u.id: u for u in units}, round=max(state.turn, 1),
                       active=state.active if state.active in NATIONS else game.active, battle=battle)
    return pos, notes, placements


class NieLive(LiveRules):
    """Figures located on the strategic map's regions and sea areas; the engine's resolutions replace the game and
    move or remove figures through pending `FigureMove`s.

    Besides the hooks: `game` (the engine's position without units: everything the camera cannot see) and
    `placements` (where each figure was located in the last position: rules.board.Placement)."""

    inputs = (DICE, CHOICES)
    noun = "figure"
    surfaces = ("map", BATTLE)
    target_headers = ("target", "zone", "zones", "action", "fire", "needs", "charge", "net", "frontal", "note")
    state_headers = ("figure", "nation", "type", "region", "facing", "formation", "bases", "markers", "seen",
                     "waiting for")
    target_hint = "a region (land_move, amphibious, annex...), a nation (declare_war...) or an enemy figure"

    def __init__(self, system, setup) -> None:
        super().__init__(system, setup)
        self.game: NiePosition | None = None
        self.placements: dict[str, Any] = {}

    # ---- the set-up

    @classmethod
    def demo(cls, board=None) -> DemoTable:
        """The demo figures on the demo map, or on the board given (rules/nie/demo.py)."""
        return demo_table(board)

    @classmethod
    def surface_boards(cls, board) -> dict:
        """The battle board beside the map (data/battle_board_demo.toml, INVENTED: the zones of §3.3)."""
        return {BATTLE: battle_board()}

    @classmethod
    def start_from(cls, system, position, terrain=(), table=None) -> Start:
        """The position file's game (`Setup.game`): date, turn order, players, relations, PP, owners..."""
        return Start(game=position)

    @classmethod
    def setup_roster(cls, system, roster, tables, start, source) -> dict:
        """Every figure's side a Great Nation (or its short code) and its type a unit kind, else InputError."""
        for rp in roster.pieces:
            if nation_of(rp.side) is None:
                raise InputError(f"{source}: piece {rp.id!r}: side {rp.side!r} is no Great Nation (one of "
                                 f"{' '.join(NATIONS)}, or {' '.join(sorted(NATION_CODES))})")
            if system.piece_type(rp.type) is None:
                raise InputError(f"{source}: piece {rp.id!r}: type {rp.type!r} is no NiE unit kind (one of "
                                 f"{' '.join(UNIT_TYPES)}, or a word such as infantry, cavalry, squadron)")
        return {}

    # ---- start and readings

    def start(self, s) -> None:
        """The set-up's game (else `empty_game`); each figure's type and nation from the position's unit of its id,
        else from its roster type and side."""
        game = getattr(self.setup, "game", None) or empty_game()
        self.game = without_units(game)
        s.state.turn, s.state.active = self.game.round, self.game.active
        for rp in s.roster.pieces:
            st = s.state.states.setdefault(rp.id, {})
            u = game.units.get(rp.id)
            st.setdefault("type", u.type if u is not None else s.system.piece_type(rp.type))
            st.setdefault("nation", u.nation if u is not None else nation_of(rp.side))

    def position(self, s):
        pos, notes, self.placements = nie_position(s.committed_places(), s.roster, s.system, s.state, self.game,
                                                   s.locate)
        return pos, notes

    def placed_as(self, s, pose, change) -> bool:
        """In the area (a squadron: in the port's region) the rules moved the figure to."""
        pl = s.locate(pose.x_mm, pose.y_mm)
        want = (change.at or "").removeprefix("port:")
        return pl.area == want and not pl.on_border

    # ---- the game state

    def check_state(self, s, pid: str, key: str, value: Any) -> tuple[str, str, Any]:
        """A figure's type or nation (the game panel); a NiE figure on the map has no other state."""
        if s.roster.piece(pid) is None:
            raise InputError(f"no figure {pid!r} in the roster")
        if key not in ("type", "nation"):
            raise InputError(f"a NiE figure on the map has no {key} (type, nation)")
        return pid, key, s.system.check_state("", key, value)

    def set_turn(self, s, turn_no: int, active: str | None) -> None:
        s.state.turn = max(1, int(turn_no))
        if active in NATIONS:
            s.state.active = active

    def next_phase(self, s) -> None:
        """The active nation's turn ends (engine: turn.end_turn, §4.1): the next nation, or the next month."""
        res = turn.end_turn(s.position)
        for ch in self._take(s, res.after):
            s.log(f"waiting for the map: {ch.describe()}")
        for line in res.lines:
            s.log(line)

    def apply(self, s, outcome) -> list[PendingChange]:
        res = outcome.resolution
        s.log(f"{res.action}: {outcome.lines[0] if outcome.lines else ''}")
        return self._take(s, res.after)

    def _take(self, s, after: NiePosition) -> list[PendingChange]:
        """Adopt the engine's position: the game now, each figure's type and nation; moves and removals pending until
        the map matches; a unit the engine placed that no roster figure stands for (a purchase) is named."""
        pending: list[PendingChange] = []
        for u in s.position.units.values():
            q = after.units.get(u.id)
            if q is None:
                s.state.removed.add(u.id)
                ch = FigureMove(u.id, removed=True)
            else:
                s.state.states.setdefault(u.id, {}).update(type=q.type, nation=q.nation)
                if q.at == u.at:
                    continue
                ch = FigureMove(u.id, at=q.at)
            s.state.pending[u.id] = ch
            pending.append(ch)
        for q in after.units.values():
            if q.id not in s.position.units:
                s.log(f"{q.id}: a new {q.nation} {q.kind.name} in {q.at}: put a figure there and add it to the roster")
        left_out = s.position.battle is None and after.battle is None  # a battle the placement left out stays
        self.game = with_changes(without_units(after), battle=self.game.battle if left_out else after.battle)
        s.state.turn, s.state.active = after.round, after.active
        return pending

    # ---- what a viewer sees

    def title(self, s) -> str | None:
        sel = s.selected
        if sel is None:
            return None
        if not s.in_position(sel):
            return f"{sel}: not on the map now (not seen, on a border, at sea on land, or removed)"
        u = s.position.unit(sel)
        ov = s.selection_overlay()
        reach = f": a land move reaches {', '.join(ov.moves)}" if ov is not None and ov.moves else ""
        return f"<b>{u.id}</b> {u.nation} {u.kind.name} in {u.at}{reach}"

    def describe(self, s) -> list[str]:
        """The date and the nation to move, every figure with where it stands, the selection's reach."""
        pos = s.position
        lines = [f"  {pos.year}-{pos.month:02d}, round {pos.round}, {pos.active} to move, view: {s.viewer}",
                 f"  {'figure':<12}{'nation':<9}{'type':<8}{'at':<26}{'status':<10}"]
        for v in s.true_views():
            pid = v.piece.id
            u = pos.units.get(pid)
            pl = self.placements.get(pid)
            at = u.at if u else (f"? {pl.note}" if pl and (pl.on_border or pl.area is None) else
                                 (pl.area if pl else "-"))
            if u is not None and pl is not None and pl.surface == BATTLE:
                at = f"{u.at}, zone {pl.area}"
            st = s.state.states.get(pid, {})
            lines.append(f"  {pid:<12}{st.get('nation') or '?':<9}{v.type or '?':<8}{at:<26}{v.status:<10}")
        lines += [f"  note: {n}" for n in s.notes]
        sel = s.selection_overlay()
        if sel is not None:
            lines.append(f"selected {sel.piece} in {sel.where}: a land move reaches "
                         f"{', '.join(sel.moves) or 'no region'}")
        return lines

    def context(self, s) -> dict:
        return {"placements": self.placements}

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        """The map picture on the session's (or the replay's) board, and the battle board's zones through its own
        pose while it is registered."""
        out = picture(scene, getattr(s, "board", None))
        boards = getattr(s, "surface_boards", None) or {}
        if BATTLE in boards and scene.position is not None:
            out += tuple(battle_items(scene, boards[BATTLE], s.surface_to_table(BATTLE)))
        return out

    # ---- the game record

    def record_meta(self, meta: dict) -> dict:
        """The starting game (the position file's form, without units but its battle's); the map's board as its TOML
        text (a record's `{"demo": true}` board is the generic demo board, not this map's cells)."""
        board = getattr(self.setup, "board", None)
        if board is not None and (meta.get("board") or {}).get("demo"):
            meta["board"] = {"toml": board_to_toml(board), "name": board.name}
        game = getattr(self.setup, "game", None)
        if game is not None:  # a battle's units stay, so that its battle reads back (a battle names its units)
            fighting = set(game.battle.units) if game.battle is not None else set()
            meta["game"] = position_to_dict(with_changes(game, units={u: q for u, q in game.units.items()
                                                                      if u in fighting}))
        return meta

    def restore(self, s) -> None:
        """The game at a recorded moment: the engine's state kept by the last event that made one (else the
        record's starting game), each figure's type and nation from its roster type and side."""
        kept = next((e.data["engine"] for e in reversed(s.recorded) if not e.undone
                     and isinstance(e.data.get("engine"), dict)), None)
        if kept is not None:
            game = position_from_dict(kept, "the record's engine state")
        elif s.meta.get("game"):
            game = position_from_dict(s.meta["game"], "the record's game")
        else:
            game = empty_game("the record")
        self.game = without_units(game)
        state = GameState(turn=game.round, active=game.active, removed=set(s.state.removed))
        for rp in s.roster.pieces:
            state.states[rp.id] = {"type": s.system.piece_type(rp.type), "nation": nation_of(rp.side)}
        s.state = state

    def record_turn(self, s, inp: dict) -> dict:
        """The active nation's turn ends (engine: turn.end_turn), with the engine's state after."""
        res = turn.end_turn(s.position)
        q = res.after
        return {"turn": q.round, "active": q.active, "phase": f"{q.active} to move", "lines": list(res.lines),
                "engine": position_to_dict(q)}

    def record_combat(self, s, inp: dict) -> dict:
        """An action resolved by the engine on the recorded position: its changes (each with `piece`) and the engine's
        state after (its units too: a replay places the figures from the camera, `restore` keeps the rest)."""
        pos = s.position
        frame = inp.get("frame")
        action, attacker, target = inp.get("action"), inp.get("attacker"), inp.get("target")
        if not isinstance(attacker, str) or not attacker:
            raise InputError(f"combat at frame {frame}: {attacker!r}: name the acting figure(s) or nation")
        outcome = s.system.resolve(pos, action, attacker, target, dice=list(inp.get("dice") or []),
                                   seed=inp.get("seed"),
                                   choices={str(k): str(v) for k, v in (inp.get("choices") or {}).items()})
        changes = [{**ch, "piece": ch["unit"]} if "unit" in ch else dict(ch) for ch in outcome.changes]
        pieces = [p for p in (*attacker.split(","), *((target,) if target in pos.units else ())) if p in pos.units]
        data = {"action": action, "pieces": pieces, "target": target, "changes": changes, "lines": outcome.lines,
                "dice": list(outcome.rolled), "summary": outcome.lines[0] if outcome.lines else str(action),
                "engine": position_to_dict(outcome.after)}
        if outcome.seed is not None:
            data["seed"] = outcome.seed
        return data

    # ---- the game-state panels and the report (rules/nie/panels.py)

    def actors(self, s) -> tuple[str, ...]:
        return nie_panels.ACTORS

    def panels(self, s) -> tuple:
        return nie_panels.panels(s.position if s.position is not None else self.game, self.system.opts)

    @classmethod
    def report_terms(cls, meta, events):
        return nie_panels.report_terms(meta, events)


__all__ = ["BATTLE", "FigureMove", "NieLive", "area_at", "empty_game", "nation_of", "nie_position", "on_battle_board",
           "without_units"]
