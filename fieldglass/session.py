"""The dashboard's data model, free of Qt: what the camera read, the game state it cannot see, the selection.

Napari style: `Session` knows nothing of any GUI; a view connects to its events (plain callbacks) and redraws.
One `Session` serves every game system: the system's `LiveRules` (rules/live.py) turns the committed places and
the game state into its engine's position; every rules answer then comes from the engine through its adapter
(rules/system.py), and every picture from its `picture` hook (rules/picture.py).

A system on a printed board (`GameSystem.table == "board"`) gets the set-up's board (a rules.board.Board): either the
board is the table (its anchors register the camera), or it lies on a table registered by the layout and is found
from its own anchors every frame (calibration/board.py); `to_table`, `to_board` and `locate` (area and position of a
table point) serve the system's hooks.

The set-up a session is made from (`Setup`, `load_setup`: the files, or the synthetic table and the system's demo)
is fieldglass/setup.py's.
"""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from calibration.board import BoardRegistration
from calibration.uncertainty import UncertaintyMaps
from common.errors import InputError
from common.events import Signals
from common.fields import AMBIGUOUS_EDGE_MM, field_ambiguous
from fieldglass.boards import board_layout
from fieldglass.inputs import place_from_input
from fieldglass.printing import parse_card_payload
from fieldglass.surfaces import SurfaceRegistry
from fieldglass.surfaces import locate as locate_on_surfaces
from rules.board import Placement
from rules.live import GameState, LiveRules, PendingChange, plain
from rules.picture import Scene, ScenePiece, dice_read_items, dice_tray_items
from rules.system import UMPIRE, CombatOutcome, SelectionOverlay, TargetRow, game_system, table_system
from vision.pieces import PiecePose, TableReading
from vision.roster import Piece
from vision.tracking import Place, Tracker, TrackerConfig

if TYPE_CHECKING:  # the set-up module makes sessions: a type only, no import at run time
    from fieldglass.setup import Setup


Field = tuple[int, int]

__all__ = ["AMBIGUOUS_EDGE_MM", "PieceView", "Session", "build_scene"]


# ---------------------------------------------------------------------------------------------- game state


@dataclass(frozen=True)
class PieceView:
    """One roster piece as the dashboard shows it. `status`: seen, ambiguous (near a field edge), occluded (not in
    this frame; its last pose is kept), unseen (never seen), removed (taken off by the rules)."""

    piece: Piece
    pose: PiecePose | None
    status: str
    type: str | None
    state: Mapping[str, Any]
    pending: PendingChange | None = None
    label: str = ""  # what the current viewer calls it (a hidden block: an anonymous label); "" = its id
    hidden: bool = False  # its identity is hidden from the current viewer


# ---------------------------------------------------------------------------------------------- the session


class Session:
    """The one live model behind the dashboard, for every game system: readings in, position, selection and game
    state out, with signals. The system's part is its `LiveRules` (rules/live.py, `self.live`): where pieces stand
    for the engine, what a resolution changes, what a viewer may see, what to draw.

    Signals: `reading` (a new reading), `position` (the rules position changed), `selection` (selection changed),
    `state` (the game state changed), `message` (text for the status bar), `camera` (the camera's state changed:
    `camera_state`, one of vision/reconnect.py's CAMERA_STATES, and a line for the status bar), `action` (a
    player's action changed the game: the input dict a recorder writes, fieldglass/inputs.py, with its `_id`),
    `dice` (a throw of dice settled on the table: its DiceThrow)."""

    def __init__(self, setup: Setup, system=None, settle_s: float = 1.0):
        self.setup = setup
        game = game_system(setup.system)
        self.system = system or table_system(setup.system, getattr(setup, "options", None))
        self.live: LiveRules = (game.live or LiveRules)(self.system, setup)
        # a system on a printed board: the set-up's board, registered from its own anchors when it lies on a table
        # registered apart (else the board is the table and table mm are board mm)
        self.board = getattr(setup, "board", None) if game.table == "board" else None
        self.board_registration = None
        if self.board is not None and not getattr(setup, "board_on_table", True) and setup.camera is not None:
            self.board_registration = BoardRegistration(board_layout(self.board), setup.camera)
        # the other surfaces (LiveRules.surfaces[1:]): each lies on the table and is found from its own anchors
        self.camera = getattr(setup, "camera", None)
        self.surface_registry = SurfaceRegistry(getattr(setup, "surfaces", None) if self.board is not None
                                                else None, self.camera)
        self.surface_boards: dict[str, Any] = self.surface_registry.boards
        self.layout = setup.layout
        self.uncertainty = UncertaintyMaps(setup.layout)
        self.roster = self.live.tracked_roster(setup.roster)
        self.marker_heights = {p.id: p.marker_height_mm for p in self.roster.pieces}
        self.ground = setup.ground or self.system.empty_ground()
        self.sides = list(game.sides) or list(dict.fromkeys(p.side for p in setup.roster.pieces))
        self.viewer = UMPIRE
        self.viewers = (UMPIRE, *self.live.viewers)
        self.state = GameState(active=self.sides[0] if self.sides else "")
        self.state.states = {k: dict(v) for k, v in setup.initial_states.items()}
        self.reading: TableReading | None = None
        self.last_seen: dict[str, PiecePose] = {}
        # Rules answers refer to the committed state: a piece in a hand or sliding across the table keeps its
        # committed place until it has settled at the new one (vision/tracking.py).
        self.tracker = Tracker(self.roster, TrackerConfig(settle_s=settle_s))
        self.frames = 0
        # None: every roster piece plays. A set: only these, each unit joining when its card is shown.
        self.in_game: set[str] | None = set() if setup.join_by_cards else None
        self.position = None
        self.notes: list[str] = []
        self.selected: str | None = None
        self.second: str | None = None
        self._cache: dict[str, Any] = {}
        self._views: list[PieceView] | None = None  # piece_views() held for one instant (`one_instant`)
        self._holding = False
        self.choices: dict[str, str] = {}  # the KEY=VALUE choices typed in the combat panel, for systems taking them
        self.camera_state = "connected"
        self.events = Signals("reading", "position", "selection", "state", "message", "camera", "action", "dice")
        # where the dashboard reads thrown dice, drawn on the views (the layout's [dice_tray]; a system without dice:
        # none)
        self.dice_tray_mm = getattr(setup.layout, "dice_tray_mm", None) if self.live.uses_dice else None
        self.dice_read: tuple = ()  # the last throw's dice as read, (x_mm, y_mm, value), drawn till a combat is applied
        self._resolved: dict[int, dict] = {}  # id(outcome) -> the combat input that resolved it (`apply`)
        self._history: dict[str, tuple] = {}  # a player's action's id -> (the game before it, after it): undo
        self.live.start(self)
        self._rebuild(force=True)

    # ---- readings

    def update_reading(self, reading: TableReading, t: float | None = None, camera=None) -> None:
        """A new reading at time `t` (seconds; default: now); `camera` the intrinsics it was read with (a source
        bringing its own camera: the other surfaces are registered with it)."""
        if camera is not None:
            self.camera = camera
        if self.board_registration is not None and reading.pose is not None:
            anchors = {a.id for a in self.board.anchors}
            self.board_registration.update({m.id: m.corners for m in reading.markers if m.id in anchors},
                                           reading.pose)
        self._register_surfaces(reading)
        reading = self._with_uncertainty(reading)
        reading = self.live.read(self, reading)
        self.reading = reading
        for p in reading.pieces:
            self.last_seen[p.piece] = p
        self.tracker.update(reading, time.monotonic() if t is None else t, self.frames)
        self.frames += 1
        self._settle_pending(reading)
        self.events.reading.emit(reading)
        self._rebuild()

    def _with_uncertainty(self, reading: TableReading) -> TableReading:
        """Each piece's place with its expected error from the lens's standard deviations (issue 17; none when the
        camera file gives none): a piece whose doubt reaches its field's edge is shown ambiguous, and a system that
        judges by a tolerance (a contact) can tell a sure case from a borderline one."""
        cam = self.camera
        if cam is None or cam.std_devs is None or reading.pose is None or not reading.pieces:
            return reading
        anchor_ids = self.layout.anchor_ids
        anchors = {m.id: m.corners for m in reading.markers if m.id in anchor_ids}
        if len(anchors) < 2:
            return reading
        xy = np.array([(p.x_mm, p.y_mm) for p in reading.pieces], float)
        heights = np.array([self.marker_heights.get(p.piece, 0.0) for p in reading.pieces], float)
        sigma = self.uncertainty.sigma_mm(anchors, cam, reading.pose, xy, heights)
        if sigma is None:
            return reading
        return replace(reading, pieces=tuple(replace(p, uncertainty_mm=float(s))
                                             for p, s in zip(reading.pieces, sigma, strict=True)))

    def camera_status(self, state: str, text: str) -> None:
        """The camera's state from the capture worker (connected, stalled, lost, reconnecting, ended, error): shown,
        and while the camera is not connected the tracker counts no time, so its absence makes no piece missing and
        commits no move."""
        if state != "connected":
            self.tracker.camera_gap()
        self.camera_state = state
        self.events.camera.emit(state, text)
        self.events.message.emit(text)

    def _register_surfaces(self, reading: TableReading) -> None:
        """Each other surface's pose from its own anchors in this reading (kept while they are hidden): a surface
        moved or bumped is found again by the same update."""
        self.surface_registry.update(reading, self.camera)

    def _settle_pending(self, reading: TableReading) -> None:
        """Clear the pending changes the camera now sees done: a removed piece gone, a moved one at its place.

        A moved piece counts once the tracker has committed it there (settled), not when a frame first shows it
        there: the rules answer from committed places, so clearing earlier would put it back at its old place."""
        seen = {p.piece for p in reading.pieces}
        places = self.committed_places()
        done = []
        for pid, ch in self.state.pending.items():
            place = places.get(pid)
            gone = ch.removed and pid not in seen
            placed = not ch.removed and place is not None and self._placed_as(place, ch)
            if gone or placed:
                done.append(pid)
        for pid in done:
            ch = self.state.pending.pop(pid)
            self._log(f"the table matches: {ch.describe()} done")
        if done:
            self.events.state.emit()

    def _placed_as(self, pose, change) -> bool:
        """Whether a piece seen at `pose` stands where a pending change wants it; each system says what counts."""
        return self.live.placed_as(self, pose, change)

    def join_card(self, payload: str) -> str | None:
        """A QR code seen on the table: if it is a unit card (`fieldglass print cards`), its pieces join the game.
        Returns what happened in words, or None when the code is not a unit card."""
        card = parse_card_payload(payload)
        if card is None:
            return None
        unit, members = card
        known = {p.id for p in self.roster.pieces}
        ids = [pid for pid, _ in members if pid in known]
        unknown = [pid for pid, _ in members if pid not in known]
        if self.in_game is None or set(ids) <= self.in_game:
            text = f"unit {unit}: already in the game"
        else:
            self.in_game.update(ids)
            text = f"unit {unit} joins the game: {', '.join(ids)}"
            self._log(text)
            self.events.state.emit()
            self._rebuild()
        if unknown:
            text += f" (not in the roster: {', '.join(unknown)})"
        self.events.message.emit(text)
        return text

    # ---- a printed board

    @property
    def board_pose(self):
        """The board's pose on the table (calibration/board.py BoardPose), None while it is not registered or when
        the board is the table."""
        return self.board_registration.pose if self.board_registration is not None else None

    @property
    def to_table(self):
        """Board mm -> table mm through the board's registered pose; None where the board is the table (or there
        is no board)."""
        pose = self.board_pose
        return pose.board_to_table if pose is not None else None

    def to_board(self, x_mm: float, y_mm: float) -> tuple[float, float] | None:
        """Table mm (the marker point at its height, as the pipeline measured it) -> board mm; None while a board
        lying on the table is not registered."""
        if self.board_registration is None:
            return x_mm, y_mm
        if self.board_pose is None:
            return None
        p = self.board_pose.table_to_board([(x_mm, y_mm)])[0]
        return float(p[0]), float(p[1])

    def surface_pose(self, name: str):
        """The pose on the table of a surface besides the main board (calibration/board.py BoardPose), None while
        it is not registered."""
        return self.surface_registry.pose(name)

    def surface_to_table(self, name: str):
        """Board mm of a surface -> table mm (the main surface: `to_table`); None while it is not registered."""
        if name not in self.surface_boards:
            return self.to_table
        pose = self.surface_pose(name)
        return pose.board_to_table if pose is not None else None

    def locate(self, x_mm: float, y_mm: float) -> Placement:
        """Where a table point lies on the board: area and position (rules.board.Board.locate; on a border:
        flagged, not guessed). With several surfaces: on the first other surface whose registered board holds the
        point, else on the main board, else off every surface (`Placement.surface` names it)."""
        if self.board is None:
            return Placement(None, None, False, "this system has no printed board")
        main = self.live.surfaces[0] if self.live.surfaces else ""
        return locate_on_surfaces(x_mm, y_mm, self.board, self.to_board(x_mm, y_mm), main, self.surface_boards,
                                  self.surface_pose)

    def plays(self, pid: str) -> bool:
        return self.in_game is None or pid in self.in_game

    def committed_places(self) -> dict[str, Place]:
        """Where the rules see each piece: its committed place, or, until its first placement has settled, where
        it was first seen (so a table being set up is answered at once)."""
        out = {}
        for pid, track in self.tracker.tracks.items():
            if track.state == "removed" or not self.plays(pid):
                continue
            place = track.place if track.place is not None else track.seen_now
            if place is not None:
                out[pid] = place
        return out

    def _rebuild(self, force: bool = False) -> None:
        pos, notes = self.live.position(self)
        self.notes = notes
        if force or pos != self.position:
            self.position = pos
            self._cache.clear()
            self.events.position.emit(pos)

    # ---- what the views draw

    def piece_views(self) -> list[PieceView]:
        """Every roster piece in play as the current viewer may see it (a piece the system's `look` withholds from
        this viewer altogether, None, is left out: e.g. behind a battle's set-up screen). Within `one_instant` the
        same list each time (do not change it)."""
        if self._views is not None:
            return self._views
        views = [w for w in (self.live.look(self, v) for v in self.true_views()) if w is not None]
        if self._holding:
            self._views = views
        return views

    @contextmanager
    def one_instant(self) -> Iterator[None]:
        """Within: the pieces are read once (`piece_views`) however often they are asked for. The dashboard
        redraws one frame inside it: both views' pictures and every panel ask for them, and nothing changes the
        session meanwhile (issue 14: the window's work per frame)."""
        outer = self._holding
        self._holding = True
        try:
            yield
        finally:
            self._holding = outer
            if not outer:
                self._views = None

    def true_views(self) -> list[PieceView]:
        """Every roster piece in play as it is (the umpire's view)."""
        seen = {p.piece: p for p in self.reading.pieces} if self.reading else {}
        out = []
        for rp in self.roster.pieces:
            if not self.plays(rp.id):
                continue
            st = self.state.states.get(rp.id, {})
            ptype = st.get("type") or self.system.piece_type(rp.type)
            pend = self.state.pending.get(rp.id)
            if rp.id in seen:
                pose = seen[rp.id]
                edge = getattr(pose, "edge_mm", None)
                status = "ambiguous" if field_ambiguous(edge, getattr(pose, "uncertainty_mm", None)) else "seen"
            elif rp.id in self.last_seen:
                pose, status = self.last_seen[rp.id], "occluded"
            else:
                pose, status = None, "unseen"
            if rp.id in self.state.removed and pend is None:
                status = "removed"
            engine = self.position.by_id.get(rp.id) if self.position is not None else None
            full = self.system.piece_state(engine) if engine is not None else dict(st)
            out.append(PieceView(rp, pose, status, ptype, full, pend, rp.id))
        return out

    def scene(self, live: bool = False, labels: bool = True) -> Scene:
        """What the system draws from: the position, the pieces as the viewer may see them, the selection. `live`:
        over the camera image (items at their marker heights)."""
        return build_scene(self, live, labels, self.live.context(self))

    def picture(self, live: bool = False, labels: bool = True) -> tuple:
        """Everything to draw, in the drawing language of rules/picture.py (table mm); the dice tray too."""
        return (*self.live.picture(self, self.scene(live, labels)), *self._dice_items())

    def pictures(self, *wanted: tuple[bool, bool]) -> list[tuple]:
        """`picture(live, labels)` for each (live, labels) asked, the pieces read once for all of them (the
        dashboard's live and board views ask at the same moment, on every frame)."""
        base = self.scene()
        return [(*self.live.picture(self, replace(base, live=live, labels=labels)), *self._dice_items())
                for live, labels in wanted]

    def _dice_items(self) -> tuple:
        """The dice tray, and the last throw's dice with the values read (till a combat applies)."""
        return (*dice_tray_items(self.dice_tray_mm), *dice_read_items(self.dice_read))

    def counts(self) -> tuple[int, int]:
        """(pieces seen in the last frame, pieces expected: the roster less those the rules removed)."""
        seen = len(self.reading.pieces) if self.reading else 0
        return seen, len(self.roster.pieces) - len(self.state.removed)

    def set_viewer(self, viewer: str) -> None:
        """Whose view the dashboard shows: "umpire" (everything) or a player's (hidden information withheld)."""
        self.viewer = self.live.check_viewer(viewer)
        self._cache.clear()
        self._log(f"view: {'umpire (everything)' if viewer == UMPIRE else f'{viewer} player'}")
        self.events.state.emit()

    def title(self) -> str | None:
        """The selection panel's line about the selection, when the system gives one."""
        return self.live.title(self)

    def panels(self) -> tuple:
        """The system's game-state panels for the current position (rules.live.Panel; none for most systems)."""
        return self.live.panels(self)

    def actors(self) -> tuple[str, ...]:
        """Names besides the pieces that may act in an action (a strategic game's nations; none for most systems)."""
        return self.live.actors(self)

    def describe_lines(self) -> list[str]:
        """The headless printout of the system's table (empty: the dashboard's generic one)."""
        return self.live.describe(self)

    def piece_names(self) -> list[str]:
        """The pieces in the position as the current viewer may name them (a hidden block: its anonymous label)."""
        ids = [p.id for p in self.position.pieces] if self.position is not None else []
        return [self.visible_id(pid) for pid in ids]

    def visible_id(self, pid: str) -> str:
        return self.live.visible_id(self, pid)

    def piece_id(self, name: str | None) -> str | None:
        """The roster id a name means (an anonymous label -> its piece); the name itself when it is an id."""
        if not name or self.roster.piece(name) is not None:
            return name
        return self.live.resolve_id(self, name) or name

    def hidden(self, pid: str | None) -> bool:
        """Whether the current viewer may not know this piece (it knows it only by another name, an anonymous
        label): its rules answers would tell its identity."""
        return bool(pid) and self.visible_id(pid) != pid

    # ---- selection

    def select(self, pid: str | None, second: bool = False) -> None:
        if pid is not None and self.roster.piece(pid) is None:
            name, pid = pid, self.live.resolve_id(self, pid)
            if pid is None:
                self._name_area(name)
                return
            if self.roster.piece(pid) is None:
                raise InputError(f"no {self.live.noun} {pid!r} in the roster")
        if second and self.selected is not None and pid != self.selected:
            self.second = pid
        else:
            self.selected, self.second = pid, None
        self.events.selection.emit(self.selected, self.second)

    def _name_area(self, name: str) -> None:
        """A click or name of an area of a surface: say which."""
        for surface, brd in (("", self.board), *self.surface_boards.items()):
            if brd is not None and name in brd.areas:
                where = f" on the {surface}" if surface else ""
                self.events.message.emit(f"area {name}{where}: {brd.areas[name].name}")
                return

    def clear_selection(self) -> None:
        self.select(None)

    def _cached(self, key: str, fn: Callable):
        if key not in self._cache:
            try:
                self._cache[key] = fn()
            except InputError as exc:
                self.events.message.emit(str(exc))
                self._cache[key] = None
        return self._cache[key]

    def in_position(self, pid: str | None) -> bool:
        return pid is not None and self.position is not None and pid in self.position.by_id

    def selection_overlay(self) -> SelectionOverlay | None:
        pid = self.selected
        if not self.in_position(pid) or self.hidden(pid):  # a hidden piece's reach would tell what it is
            return None
        return self._cached(f"sel:{pid}", lambda: self.system.selection(self.position, pid))

    def targets(self) -> list[TargetRow]:
        """The selected piece's targets, each named as the viewer may name it (none for a hidden piece)."""
        pid = self.selected
        if not self.in_position(pid) or self.hidden(pid):
            return []
        rows = self._cached(f"tgt:{pid}", lambda: self.system.targets(self.position, pid)) or []
        return [replace(r, target=self.visible_id(r.target)) if self.hidden(r.target) else r for r in rows]

    def pair(self) -> tuple[dict, list[str]] | None:
        """The pair's analysis and text; a hidden piece's lines and data withheld, its id replaced by its label."""
        a, b = self.selected, self.second
        if not (self.in_position(a) and self.in_position(b)):
            return None
        if self.position.piece(a).side == self.position.piece(b).side:
            out = {}, [f"{a} and {b} are on the same side: no combat between them"]
        else:
            out = self._cached(f"pair:{a}:{b}", lambda: self.system.pair(self.position, a, b))
        if out is None:
            return None
        data, lines = out
        for pid in (a, b):
            if self.hidden(pid):  # what the rules say of the pair stays; the hidden piece's identity goes
                label = self.visible_id(pid)
                lines = [ln.replace(pid, label) for ln in lines if not ln.startswith(f"{pid}:")]
                data = {}
        return data, lines

    # ---- game state

    def set_piece_state(self, pid: str, key: str, value: Any) -> None:
        """Set a marker list, formation, bases, flag or type the camera cannot see; InputError if not allowed. `pid`
        may be the name the viewer knows the piece by (a hidden block's label): the system checks the roster id, as
        the recorder does with the input this makes."""
        before = self._game_copy()
        pid, key, value = self.live.check_state(self, self.piece_id(pid), key, value)
        self.state.states.setdefault(pid, {})[key] = value
        self._log(f"{pid}: {key} set to {_text(value)}")
        if key == "markers":
            inp = {"type": "marker", "piece": pid, "markers": [str(m) for m in (value or ())]}
        elif key == "formation":
            inp = {"type": "formation", "piece": pid, "formation": value}
        else:
            inp = {"type": "state", "piece": pid, "key": key, "value": plain(value)}
        self._acted(inp, before)

    def set_turn(self, turn: int, active: str | None = None) -> None:
        before = self._game_copy()
        self.live.set_turn(self, turn, active)
        self._acted({"type": "turn", "turn": int(self.state.turn), "active": self.state.active}, before)

    def next_phase(self) -> None:
        before = self._game_copy()
        self.live.next_phase(self)
        self._acted({"type": "turn", "turn": int(self.state.turn), "active": self.state.active}, before)

    # ---- a player's actions: each an input for the record (fieldglass/inputs.py), each undoable

    def _game_copy(self) -> tuple:
        """The game as players changed it (the state without its log, the system's own), for an undo."""
        return _state_copy(self.state), self.live.game_state()

    def _acted(self, inp: dict, before: tuple | None) -> dict:
        """A player's action done: its input said (`action`), the game before and after it kept for an undo."""
        inp = {**inp, "_id": inp.get("_id") or f"gui-{uuid.uuid4().hex[:12]}"}
        if before is not None:
            self._history[inp["_id"]] = (before, self._game_copy())
            while len(self._history) > UNDO_DEPTH:
                self._history.pop(next(iter(self._history)))
        self.events.action.emit(inp)
        self.events.state.emit()
        self._rebuild()
        return inp

    def record_start(self) -> dict | None:
        """The input a record begun now starts with (the system's `record_start`: the turn and side, or none)."""
        return self.live.record_start(self)

    def note(self, text: str, piece: str | None = None, by: str | None = None) -> dict:
        """A player's note (about a piece): in the log and the record."""
        self._log(f"note: {text}")
        inp = {"type": "note", "text": str(text), "by": by}
        if piece:
            inp["piece"] = piece
        return self._acted(inp, None)

    def bookmark(self, label: str = "bookmark") -> dict:
        self._log(f"bookmark: {label}")
        return self._acted({"type": "bookmark", "label": str(label)}, None)

    def place_piece(self, pid: str, field: str | None = None, x_mm: float | None = None, y_mm: float | None = None,
                    heading_deg: float | None = None, by: str = "player") -> dict:
        """Put a piece where a player says: a misread place corrected (its field, or table mm), or a piece the camera
        cannot see placed by hand. The rules answer from there until the camera sees it at that place or moved on
        (vision/tracking.py `place_by_hand`). InputError for a field off the grid or a place off the table."""
        pid = self.piece_id(pid)
        if pid is None or self.roster.piece(pid) is None:
            raise InputError(f"no {self.live.noun} {pid!r} in the roster")
        inp: dict[str, Any] = {"type": "place", "piece": pid, "by": by}
        if field is not None:
            inp["field"] = str(field).strip().upper()
        else:
            inp["x_mm"], inp["y_mm"] = float(x_mm), float(y_mm)
        if heading_deg is not None:
            inp["heading_deg"] = float(heading_deg)
        track = self.tracker.tracks[pid]
        if track.state == "removed":
            raise InputError(f"{pid} was removed from the game")
        before = self._game_copy()
        place = place_from_input(inp, self.layout, track.place)
        self.tracker.place_by_hand(pid, place, track.seen_now)
        where = place.cell or f"({place.x_mm:.0f}, {place.y_mm:.0f}) mm"
        self._log(f"{pid} placed at {where} by {by}")
        return self._acted(inp, before)

    def confirm_missing(self, pid: str, removed: bool, by: str = "player") -> dict:
        """A player's answer to a piece reported missing: taken off the table, or still there."""
        before = self._game_copy()
        self.tracker.confirm(pid, removed, by)
        self._log(f"{pid}: {'removed' if removed else 'still on the table'} ({by})")
        return self._acted({"type": "confirm", "piece": pid, "removed": bool(removed), "by": by}, before)

    def end_game(self, winner: str | None, text: str = "", by: str = "players") -> dict:
        """The end of the game, with the winner the rules or the players name (None: a draw)."""
        self._log(f"end of the game: {winner + ' wins' if winner else 'a draw'}" + (f" ({text})" if text else ""))
        return self._acted({"type": "end", "winner": winner, "text": text, "by": by}, None)

    def undone(self, inputs: tuple[str, ...], places: tuple = ()) -> None:
        """The record took back events (an undo): the players' actions among them are undone here too (the game as
        before the earliest of them), and the pieces go back to the places the record commits (`places`:
        committed places, states and pieces placed by hand, as the recorder's tracker has them)."""
        kept = [self._history[i] for i in inputs if i in self._history]
        if kept:
            self._set_game(kept[0][0])
        self._sync_places(places)

    def redone(self, inputs: tuple[str, ...], places: tuple = ()) -> None:
        """The record wrote undone events again (a redo): the game as after the last player's action among them."""
        kept = [self._history[i] for i in inputs if i in self._history]
        if kept:
            self._set_game(kept[-1][1])
        self._sync_places(places)

    def resumed(self, game: tuple, places: tuple) -> None:
        """A resumed record: the game goes on from its last event (`game`: the record's GameState and the system's
        own state at that moment, as its record hooks rebuild it) with the pieces at the places it commits."""
        if game:
            state, own = game
            self.state.turn, self.state.active = int(state.turn), state.active or self.state.active
            self.state.removed = set(state.removed)
            self.state.states = copy.deepcopy(dict(state.states))
            mine = vars(self.live)
            self.live.set_game_state({k: v for k, v in own.items() if v is not None and k in mine})
            self._log(f"resumed at turn {self.state.turn}")
        self._sync_places(places)

    def _set_game(self, game: tuple) -> None:
        state, own = game
        log = self.state.log
        self.state = _state_copy(state)
        self.state.log = log
        self.live.set_game_state(own)

    def _sync_places(self, places: tuple) -> None:
        if places:
            committed, states, by_hand = places
            self.tracker.restore(dict(committed), dict(states), dict(by_hand))
        self._cache.clear()
        self.events.state.emit()
        self._rebuild(force=True)

    # ---- combat

    def _choice_kw(self) -> dict:
        return {"choices": self.choices} if any(i.kind == "choices" for i in self.live.inputs) else {}

    def supporter_candidates(self, attacker: str, target: str, action: str) -> list[str]:
        attacker, target = self.piece_id(attacker), self.piece_id(target)
        if not (self.in_position(attacker) and self.in_position(target)):
            return []
        return self.system.supporter_candidates(self.position, attacker, target, action)

    def _single(self, action: str) -> bool:
        return action in getattr(self.system, "single_piece_actions", ())

    def combat_modifiers(self, attacker: str, target: str, action: str, supporters=()):
        attacker, target = self.piece_id(attacker), self.piece_id(target)
        self._need(attacker, *(() if self._single(action) else (target,)))
        return self.system.combat_modifiers(self.position, attacker, target, action, supporters, **self._choice_kw())

    def dice_thrown(self, throw) -> None:
        """A throw of dice the camera read has settled (vision/dice_watch.py DiceThrow): said to the views (`dice`),
        which offer its values to the selected action; the live view marks each die with the value read."""
        self.dice_read = tuple((x, y, v) for (x, y), v in zip(throw.table_mm, throw.values, strict=True))
        self.events.dice.emit(throw)

    def dice_wanted(self, action: str, attacker: str | None, target: str | None) -> tuple[str, ...] | None:
        """Whose each die of a throw is for this action (the system's `dice_wanted`: None, as many as thrown; (),
        none)."""
        return self.live.dice_wanted(self, action, self.piece_id(attacker), self.piece_id(target))

    def resolve(self, action: str, attacker: str, target: str, dice_read: dict | None = None,
                dice_photo: bytes | None = None, **kw) -> CombatOutcome:
        """Resolve an action on the current position with the engine; InputError when the rules forbid it. On a
        printed board an action's target is an area (a block names its own, or none is needed): the engine judges
        it, the session needs only the attacker. `dice_read`: the dice a throw the camera read gave ({"values":
        [...], "taken": True when the dice resolved are those, False when a player typed over them, "throws": their
        numbers}), kept with the combat's input for the record, and `dice_photo` its picture (JPEG)."""
        attacker, target = self.piece_id(attacker), self.piece_id(target)
        self._need(attacker, *(() if self._single(action) or self.board is not None else (target,)))
        kw = {**self._choice_kw(), **kw}
        outcome = self.system.resolve(self.position, action, attacker, target, **kw)
        inp = {"type": "combat", "action": action, "attacker": attacker, "target": target,
               **{k: plain(v) for k, v in kw.items() if v is not None}}
        if outcome.seed is not None:
            inp["seed"] = outcome.seed
        inp["supporters"] = [str(p) for p in inp.get("supporters") or ()]
        if dice_read is not None:
            inp["dice_read"] = plain(dice_read)
            if dice_photo:
                inp["_dice_photo"] = dice_photo  # not an input's key: the recorder keeps it as the combat's picture
        self._resolved = {id(outcome): inp}  # the last resolution is the one a player may apply
        return outcome

    def _need(self, *pids: str) -> None:
        actors = self.actors()
        for pid in pids:
            if self.board is not None and pid in self.board.areas:
                continue  # an area of the board, named as an action's target
            if pid in actors:
                continue  # a name the system lets act besides its pieces (a nation)
            if not self.in_position(pid):
                if self.board is not None:
                    raise InputError(f"{pid!r} is not on the board (not seen, on a border, or removed)")
                raise InputError(f"{pid!r} is not on the table (not seen by the camera, or removed)")

    def apply(self, outcome: CombatOutcome) -> list[PendingChange]:
        """Apply a resolution to the game state (the system's `apply`): what the camera cannot see at once; moves
        and removals become pending changes shown on the table until the physical pieces match."""
        before = self._game_copy()
        pending = self.live.apply(self, outcome)
        self.dice_read = ()  # the throw is used: its dice no longer marked
        for ch in pending:
            self._log(f"waiting for the {'board' if self.board is not None else 'table'}: {ch.describe()}")
        inp = self._resolved.pop(id(outcome), None)
        if inp is not None:
            self._acted(inp, before)
        else:
            self.events.state.emit()
            self._rebuild()
        return pending

    def log(self, text: str) -> None:
        """Add a line to the game log (with the turn) and show it in the status bar."""
        self.state.log.append(f"turn {self.state.turn}: {text}")
        self.events.message.emit(text)

    _log = log


def build_scene(model, live: bool = False, labels: bool = True, context=None) -> Scene:
    """The scene of a live session or a replay (anything with piece_views(), sides, selected, second,
    selection_overlay(), position, layout, ground, viewer and to_table); `context` is the system's own."""
    sides = {side: i for i, side in enumerate(model.sides)}
    pieces = []
    for v in model.piece_views():
        pose = v.pose
        at = None if pose is None else (float(pose.x_mm), float(pose.y_mm), float(pose.heading_deg))
        rp = v.piece
        pieces.append(ScenePiece(rp.id, v.label or rp.id, rp.side, sides.get(rp.side, 0), v.type, rp.type,
                                 tuple(rp.base_mm), rp.marker_height_mm, at, v.status, v.state, v.pending, v.hidden,
                                 getattr(pose, "cell", None), getattr(pose, "edge_mm", None),
                                 getattr(rp, "short", "") if not v.hidden else ""))
    return Scene(model.position, tuple(pieces), model.selected, model.second, model.selection_overlay(), labels,
                 live, model.layout.grid, model.ground, model.viewer, model.to_table, context)


UNDO_DEPTH = 200
"""The players' actions an undo can go back over (each keeps a copy of the game before and after it)."""


def _state_copy(state: GameState) -> GameState:
    """A copy of the game state without its log (the log is history: an undo adds to it)."""
    return copy.deepcopy(replace(state, log=[]))


def _text(v: Any) -> str:
    if isinstance(v, tuple | list):
        return "+".join(map(str, v)) or "none"
    return str(v)
