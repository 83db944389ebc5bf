"""A game record's game at one moment, as the record's system places it: the one recorder (fieldglass/recording.py)
and the one replay (fieldglass/replay_session.py) of every system ask its `LiveRules` (rules/live.py) through
`RecordedGame`, the `s` of the live rules' record hooks, as the live session is the `s` of their live ones.

`RecordedGame(meta).at(state, events).position` is the rules engine's position after `events` (a record's, up to
a moment; `state` the BoardState they built): the system's `restore` sets the game state the camera cannot see
from the record, and its one placement (`position`) places the committed places exactly as the live dashboard
placed them. What depends on the kind of table is chosen by `GameSystem.table`, never by the system's name: a grid
needs the layout's grid, a printed board the board the record keeps (`board_meta`, `board_from_meta`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from calibration.grid import Grid
from calibration.layout import TableLayout, parse_layout
from common.errors import InputError
from fieldglass.surfaces import locate as locate_on_surfaces
from fieldglass.surfaces import recorded_pose
from rules.board import Placement, parse_board
from rules.live import GameState, LiveRules
from rules.system import UMPIRE, default_system, game_system, table_system
from vision.roster import Piece, Roster

"""The system of a record whose metadata names none: records were of that one game before they named theirs."""


def system_of(meta: Mapping) -> str:
    """The name of a record's system."""
    return meta.get("system") or default_system()


def layout_from_meta(meta: dict) -> TableLayout:
    """The table layout a record keeps (its TOML, or for older records the size and grid alone)."""
    lay = meta.get("layout") or {}
    text = lay.get("toml")
    if text:
        try:
            return parse_layout(tomllib.loads(text), "the record's layout")
        except (tomllib.TOMLDecodeError, InputError):
            pass
    g = lay.get("grid")
    grid = None if not g else Grid(float(g["origin_x_mm"]), float(g["origin_y_mm"]), float(g["field_mm"]),
                                   int(g["cols"]), int(g["rows"]))
    return TableLayout(float(lay.get("width_mm") or 1200.0), float(lay.get("depth_mm") or 600.0), "DICT_4X4_250",
                       (), grid)


def roster_from_meta(meta: dict) -> Roster:
    """The roster a record keeps: the pieces as the session tracked them (a system of several markers per unit: its
    units)."""
    pieces = []
    for p in meta.get("roster") or []:
        pieces.append(Piece(str(p["id"]), int(p.get("marker", -1)), str(p.get("side", "")), str(p.get("type", "")),
                            tuple(p.get("base_mm", (40.0, 30.0))), float(p.get("marker_mm", 20.0)),
                            float(p.get("marker_height_mm", 0.0)), tuple(p.get("marker_offset_mm", (0.0, 0.0))),
                            str(p.get("short") or "")))
    return Roster("DICT_4X4_250", tuple(pieces))


def record_system(meta: dict):
    """The rules adapter of the record's system with the record's rules options (the recorder's and the replay's)."""
    return table_system(system_of(meta), meta.get("rules_options") or None)


def board_meta(board_path: str | None) -> dict:
    """What a record of a game on a printed board keeps of the board: the demo board by name, any other as its TOML
    text."""
    if board_path is None or board_path == "demo":
        return {"demo": True}
    try:
        return {"toml": Path(board_path).read_text(encoding="utf-8"), "name": Path(board_path).name}
    except OSError as exc:
        raise InputError(f"{board_path}: cannot read the board ({exc.strerror or exc})") from None


def board_from_meta(meta: dict):
    """The printed board a record keeps (None when it keeps none, or one that cannot be read)."""
    b = meta.get("board")
    if not b:
        return None
    if b == "demo" or (isinstance(b, dict) and b.get("demo")):  # the record's system's own demo board
        live = game_system(system_of(meta), "the record").live
        table = live.demo() if live is not None else None
        return table.board if table is not None else None
    try:
        return parse_board(tomllib.loads(b["toml"]), "the record's board")
    except (tomllib.TOMLDecodeError, KeyError, TypeError, InputError):
        return None


def game_over(meta: Mapping, events: Iterable) -> bool:
    """Whether the game had ended by the moment after `events` (the timeline up to the moment shown): one of them
    carries `game_winner` (the recorder writes it on the event that ended the game) or the metadata says
    `game_over`; with `game_over_seq` too, only from that event on."""
    done = [ev for ev in events if not getattr(ev, "undone", False)]
    if any((ev.data or {}).get("game_winner") for ev in done):
        return True
    if not meta.get("game_over"):
        return False
    at = meta.get("game_over_seq")
    return at is None or any(ev.seq >= int(at) for ev in done)


_UNSET = object()


class RecordedGame:
    """A record's game at one moment (`at`), for the live rules' hooks: the record's system, adapter, roster,
    layout, sides and (on a printed board) board; the game state and committed places at the moment; `position`.

    `system` is the rules adapter (default: the record's system with its rules options), `roster` the tracked
    roster (default: the record's), `settle_s` the recording's settle time (a system reading its markers over time
    uses it)."""

    def __init__(self, meta: dict, system=None, roster: Roster | None = None, settle_s: float = 1.0):
        self.meta = meta
        self.game = game_system(system_of(meta), "the record's system")
        self.system = system or record_system(meta)
        self.roster = roster or roster_from_meta(meta)
        self.layout = layout_from_meta(meta)
        self.board = board_from_meta(meta) if self.game.table == "board" else None
        self.sides = list(self.game.sides) or list(dict.fromkeys(p.side for p in self.roster.pieces))
        self.ground = self.system.empty_ground()
        self.live: LiveRules = (self.game.live or LiveRules)(self.system, None)
        # the other surfaces (a battle board beside a map): their boards, and their poses as recorded at the moment
        self.surface_boards: dict[str, Any] = dict(self.live.surface_boards(self.board)) \
            if self.board is not None and self.live.surfaces else {}
        self.surface_poses: dict[str, Any] = {}
        self.settle_s = settle_s
        self.viewer = UMPIRE
        self.to_table = None  # a record keeps a board's places in table mm: the board is the table
        self.state = GameState()
        self.record_state = None
        self.kept: dict = {}  # the system's summary of the events so far (its live rules' `keep`)
        self.active: str | None = None  # the side the last turn event made active
        self.piece_states: dict[str, dict] = {}  # what players set that the camera cannot see, latest by piece
        self.places: dict[str, Any] = {}
        self.notes: list[str] = []
        self._position: Any = _UNSET

    def at(self, state, events: Iterable) -> RecordedGame:
        """The moment after `events` (a record's, in order; undone ones are skipped), `state` the BoardState they
        built: what the game keeps of them is made again from the first."""
        self.kept, self.active, self.piece_states, self.surface_poses = {}, None, {}, {}
        for e in events:
            self.add(e)
        return self.moment(state)

    def add(self, event) -> RecordedGame:
        """One more event of the record (after those already added; an undone one is skipped) folded into what
        the game keeps of its history: the side a turn made active, the pieces' states players set, each other
        surface's last pose, and the system's own summary (`LiveRules.keep`). Nothing keeps the event itself, so
        a recorder adding each event it writes holds the same memory after four hours as after four minutes. Call
        `moment` with the state they built before asking the position again."""
        if getattr(event, "undone", False):
            return self
        data = event.data or {}
        if event.type == "turn" and data.get("active"):
            self.active = str(data["active"])
        elif event.type == "piece_state" and event.piece:
            self.piece_states.setdefault(event.piece, {})[str(data.get("key"))] = data.get("value")
        pose = recorded_pose(event)
        if pose is not None:
            self.surface_poses[pose[0]] = pose[1]
        self.live.keep(self, self.kept, event)
        self._position = _UNSET
        return self

    def moment(self, state) -> RecordedGame:
        """The moment after the events added so far, `state` the BoardState they built."""
        self.record_state = state
        self.places = {pid: p for pid, p in state.pieces.items() if p.on_table}
        self.state = GameState(turn=max(1, int(state.turn)),
                               active=self.active or (self.sides[0] if self.sides else ""),
                               removed={pid for pid, p in state.pieces.items() if p.status == "removed"})
        self._position = _UNSET
        return self

    @property
    def position(self):
        """The rules engine's position at the moment, placed by the system's one placement (InputError when the
        record cannot place it: the reason)."""
        if self._position is _UNSET:
            if self.game.table == "grid" and self.layout.grid is None:
                raise InputError("the layout has no [grid]: the rules engine needs fields")
            if self.game.table == "board" and self.board is None:
                raise InputError(f"this record keeps no board: the {self.live.noun}s' areas are unknown")
            self.live.restore(self)
            for pid, values in self.piece_states.items():  # what players set, as the game panel sets it
                self.state.states.setdefault(pid, {}).update(values)
            self._position, self.notes = self.live.position(self)[:2]
        return self._position

    # ---- what the live rules' hooks may ask, as of the live session

    def committed_places(self) -> dict[str, Any]:
        return self.places

    def locate(self, x_mm: float, y_mm: float) -> Placement:
        """Where a table point lies on the record's board (the board is the table) or, on a table of several
        surfaces, on the surface whose recorded pose at the moment holds it (fieldglass/surfaces.py `locate`)."""
        if self.board is None:
            return Placement(None, None, False, "this system has no printed board")
        main = self.live.surfaces[0] if self.live.surfaces else ""
        return locate_on_surfaces(x_mm, y_mm, self.board, (x_mm, y_mm), main, self.surface_boards,
                                  self.surface_pose)

    def surface_pose(self, name: str):
        """A surface's pose on the table as last recorded by the moment (calibration/board.py BoardPose: board mm
        -> table mm), None while none was recorded."""
        return self.surface_poses.get(name)

    def surface_to_table(self, name: str):
        """Board mm of a surface -> table mm (the main surface is the table: None); None while it has no pose."""
        pose = self.surface_pose(name) if name in self.surface_boards else None
        return pose.board_to_table if pose is not None else None

    def to_board(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        return x_mm, y_mm

    def in_position(self, pid: str | None) -> bool:
        pos = self.position
        return pid is not None and pos is not None and pid in pos.by_id

    def log(self, text: str) -> None:
        self.state.log.append(text)


__all__ = ["RecordedGame", "board_from_meta", "board_meta", "game_over", "layout_from_meta",
           "record_system", "roster_from_meta", "system_of"]
