"""The dashboard's data model, free of Qt: what the camera read, the game state it cannot see, the selection.

Napari style: `Session` knows nothing of any GUI; a view connects to its events (plain callbacks) and redraws.
`position_from_reading` turns one camera reading plus the roster and the game state into the rules engine's
position; every rules answer then comes from the engine through its system's adapter (rules/system.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from calibration.camera import CameraIntrinsics
from calibration.layout import TableLayout
from common.errors import InputError
from common.events import Signals
from common.fields import field_name, parse_field
from rules.system import CombatOutcome, PieceSpec, SelectionOverlay, TargetRow, table_system
from vision.pieces import PiecePose, TableReading
from vision.roster import Piece, Roster
from vision.tracking import Place, Tracker, TrackerConfig

AMBIGUOUS_EDGE_MM = 5.0
"""A base centre closer than this to a field edge stands ambiguously: the camera cannot be sure of its field."""

Field = tuple[int, int]


# ---------------------------------------------------------------------------------------------- set-up


@dataclass(frozen=True)
class Setup:
    """Everything a session needs besides frames: the files, or the synthetic table's own camera and demo files.

    `camera` is None when the source brings its own (the synthetic table); `ground` is the rules system's terrain
    (fields, edges), `terrain` the synthetic table's templates (for drawing)."""

    source: str
    camera: CameraIntrinsics | None
    layout: TableLayout
    roster: Roster
    system: str = "wiener"
    ground: Mapping | None = None
    initial_states: Mapping[str, dict] = field(default_factory=dict)
    terrain: tuple = ()
    names: Mapping[str, str] = field(default_factory=dict)  # what each file was, for the title and messages
    join_by_cards: bool = False  # start with no unit in the game; each joins when its QR card is shown

    def make_session(self) -> Session:
        """The live model for this set-up (a system's own Setup makes its own Session subclass): the dashboard
        (gui/app.py) is handed the set-up and calls this, so it never imports the model."""
        return Session(self)


def load_setup(source: str, camera: str | None = None, layout: str | None = None, roster: str | None = None,
               system: str = "wiener", game: str | None = None) -> Setup:
    """Read the files a session needs; InputError (one line, naming the file) on any problem.

    With `source == "synthetic"` missing files default to the synthetic table's own camera and the demo files."""
    from calibration.camera import load_camera
    from calibration.layout import load_layout
    from vision.roster import load_roster

    sys_ = table_system(system)
    terrain: tuple = ()
    names = {"source": source}
    if source == "synthetic":
        from vision.synthetic import demo_files, demo_scene

        scene = demo_scene()
        lay_path, ros_path = demo_files()
        layout = layout or str(lay_path)
        roster = roster or str(ros_path)
        terrain = tuple(scene.terrain)
    missing = [n for n, v in (("--layout", layout), ("--roster", roster)) if not v]
    if camera is None and source != "synthetic":
        missing.insert(0, "--camera")
    if missing:
        raise InputError(f"source {source!r} needs {' and '.join(missing)} (only --source synthetic brings its own)")
    cam = load_camera(camera) if camera else None
    lay = load_layout(layout)
    ros = load_roster(roster)
    if lay.grid is None:
        raise InputError(f"{layout}: the layout has no [grid]; the {system} rules need a square grid")
    names.update(camera=str(camera or "synthetic camera"), layout=str(layout), roster=str(roster))
    ground = None
    states: dict[str, dict] = {}
    if game:
        from rules import position as positions

        pos = positions.load(game)
        if pos.system != system:
            raise InputError(f"{game}: a {pos.system!r} position, but --system is {system!r}")
        if (pos.cols, pos.rows) != (lay.grid.cols, lay.grid.rows):
            raise InputError(f"{game}: grid {pos.cols}x{pos.rows} differs from the layout's "
                             f"{lay.grid.cols}x{lay.grid.rows}")
        ground = sys_.ground_from_position(pos)
        states = {p.id: sys_.piece_state(p) for p in pos.pieces}
        names["game"] = str(game)
    elif terrain:
        ground = sys_.ground_from_terrain(terrain, lay.grid)
    return Setup(source, cam, lay, ros, system, ground, states, terrain, names)


# ---------------------------------------------------------------------------------------------- game state


@dataclass
class PendingChange:
    """A change the rules made that the physical pieces do not show yet: move `piece` to `field` facing `facing`,
    or take it off the table (`removed`). Shown on the table view until the camera sees the pieces match."""

    piece: str
    field: Field | None = None
    facing: str | None = None
    removed: bool = False
    why: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.removed:
            return f"take {self.piece} off the table"
        return f"move {self.piece} to {field_name(*self.field)} facing {self.facing}"


@dataclass
class GameState:
    """What the camera cannot see: turn, active side, each piece's state (markers, formation, bases, flags...),
    pieces taken off by the rules, and changes waiting for the physical pieces to match."""

    turn: int = 1
    active: str = ""
    states: dict[str, dict] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    pending: dict[str, PendingChange] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)


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


def position_from_reading(
    reading: TableReading | None,
    roster: Roster,
    layout: TableLayout,
    system,
    state: GameState | None = None,
    ground: Mapping | None = None,
    last_seen: Mapping[str, PiecePose] | None = None,
):
    """The rules engine's position from a camera reading and the roster, plus the game state the camera cannot see.

    Each seen piece stands in the field and facing the camera measured; a piece hidden in this frame keeps its last
    pose (`last_seen`). The rest is `grid_position`'s. Returns (position, notes). `system` is a
    `rules.system.TableSystem` adapter or its name."""
    grid = layout.grid
    if grid is None:
        raise InputError("the layout has no [grid]: the rules need a square grid")
    poses = dict(last_seen or {})
    if reading is not None:
        poses.update({p.piece: p for p in reading.pieces})
    return grid_position(poses, roster.pieces, grid.cols, grid.rows, system, state, ground)


def grid_position(places: Mapping[str, Any], pieces, cols: int, rows: int, system, state: GameState | None = None,
                  ground: Mapping | None = None):
    """Where each piece stands (`places`: piece id -> anything with `cell` and `facing`, a PiecePose, a tracking
    Place or a record's PieceState) as the engine's position on a square grid: the one placement of a grid system,
    used live (`Session`), by the recorder and by the replay (fieldglass/recording.py `wiener_position`).

    `pieces` are the roster's (id, side, type); the type is the game state's, else the roster's words read by the
    system. A pending change (a flight the rules ordered) places a piece where the rules say until the camera sees
    it there; pieces the rules removed are left out. Returns (position, notes), notes naming every piece left out
    and why."""
    if isinstance(system, str):
        system = table_system(system)
    state = state or GameState()
    specs, notes = [], []
    for rp in pieces:
        if rp.id in state.removed:
            continue
        st = state.states.get(rp.id, {})
        ptype = st.get("type") or system.piece_type(rp.type)
        if ptype is None:
            notes.append(f"{rp.id}: roster type {rp.type!r} is not a {system.name} type "
                         f"({' '.join(system.types)}); set its type in the game state")
            continue
        pend = state.pending.get(rp.id)
        pose = places.get(rp.id)
        if pend is not None and pend.field is not None:
            specs.append(PieceSpec(rp.id, rp.side, ptype, pend.field, pend.facing))
            continue
        if pose is None:
            continue
        if pose.cell is None or pose.facing is None:
            notes.append(f"{rp.id}: off the grid")
            continue
        specs.append(PieceSpec(rp.id, rp.side, ptype, parse_field(pose.cell), pose.facing))
    pos = system.make_position(cols, rows, specs, state.states, ground)
    return pos, notes


# ---------------------------------------------------------------------------------------------- the session


class Session:
    """The live model behind the dashboard: readings in, position, selection and game state out, with events.

    Events: `reading` (a new reading), `position` (the rules position changed), `selection` (selection changed),
    `state` (the game state changed), `message` (text for the status bar)."""

    def __init__(self, setup: Setup, system=None, settle_s: float = 1.0):
        self.setup = setup
        self.system = system or table_system(setup.system)
        self.layout = setup.layout
        self.roster = setup.roster
        self.ground = setup.ground or self.system.empty_ground()
        self.sides = list(dict.fromkeys(p.side for p in setup.roster.pieces))
        self.state = GameState(active=self.sides[0] if self.sides else "")
        self.state.states = {k: dict(v) for k, v in setup.initial_states.items()}
        self.reading: TableReading | None = None
        self.last_seen: dict[str, PiecePose] = {}
        # Rules answers refer to the committed state: a piece in a hand or sliding across the table keeps its
        # committed place until it has settled at the new one (vision/tracking.py).
        self.tracker = Tracker(setup.roster, TrackerConfig(settle_s=settle_s))
        self.frames = 0
        # None: every roster piece plays. A set: only these, each unit joining when its card is shown.
        self.in_game: set[str] | None = set() if setup.join_by_cards else None
        self.position = None
        self.notes: list[str] = []
        self.selected: str | None = None
        self.second: str | None = None
        self._cache: dict[str, Any] = {}
        self.events = Signals("reading", "position", "selection", "state", "message")
        self._rebuild(force=True)

    # ---- readings

    def update_reading(self, reading: TableReading, t: float | None = None) -> None:
        """A new reading at time `t` (seconds; default: now)."""
        self.reading = reading
        for p in reading.pieces:
            self.last_seen[p.piece] = p
        self.tracker.update(reading, time.monotonic() if t is None else t, self.frames)
        self.frames += 1
        self._settle_pending(reading)
        self.events.reading.emit(reading)
        self._rebuild()

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
        return pose.cell == field_name(*change.field) and pose.facing == change.facing

    def join_card(self, payload: str) -> str | None:
        """A QR code seen on the table: if it is a unit card (`fieldglass print cards`), its pieces join the game.
        Returns what happened in words, or None when the code is not a unit card."""
        from fieldglass.printing import parse_card_payload

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
        pos, notes = position_from_reading(None, self.roster, self.layout, self.system, self.state,
                                           self.ground, self.committed_places())
        self.notes = notes
        if force or pos != self.position:
            self.position = pos
            self._cache.clear()
            self.events.position.emit(pos)

    # ---- what the views draw

    def piece_views(self) -> list[PieceView]:
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
                status = "ambiguous" if pose.edge_mm is not None and pose.edge_mm < AMBIGUOUS_EDGE_MM else "seen"
            elif rp.id in self.last_seen:
                pose, status = self.last_seen[rp.id], "occluded"
            else:
                pose, status = None, "unseen"
            if rp.id in self.state.removed and pend is None:
                status = "removed"
            engine = self.position.by_id.get(rp.id) if self.position is not None else None
            full = self.system.piece_state(engine) if engine is not None else dict(st)
            out.append(PieceView(rp, pose, status, ptype, full, pend))
        return out

    def counts(self) -> tuple[int, int]:
        """(pieces seen in the last frame, pieces expected: the roster less those the rules removed)."""
        seen = len(self.reading.pieces) if self.reading else 0
        return seen, len(self.roster.pieces) - len(self.state.removed)

    # ---- selection

    def select(self, pid: str | None, second: bool = False) -> None:
        if pid is not None and self.roster.piece(pid) is None:
            raise InputError(f"no piece {pid!r} in the roster")
        if second and self.selected is not None and pid != self.selected:
            self.second = pid
        else:
            self.selected, self.second = pid, None
        self.events.selection.emit(self.selected, self.second)

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
        if not self.in_position(pid):
            return None
        return self._cached(f"sel:{pid}", lambda: self.system.selection(self.position, pid))

    def targets(self) -> list[TargetRow]:
        pid = self.selected
        if not self.in_position(pid):
            return []
        return self._cached(f"tgt:{pid}", lambda: self.system.targets(self.position, pid)) or []

    def pair(self) -> tuple[dict, list[str]] | None:
        a, b = self.selected, self.second
        if not (self.in_position(a) and self.in_position(b)):
            return None
        if self.position.piece(a).side == self.position.piece(b).side:
            return {}, [f"{a} and {b} are on the same side: no combat between them"]
        return self._cached(f"pair:{a}:{b}", lambda: self.system.pair(self.position, a, b))

    # ---- game state

    def set_piece_state(self, pid: str, key: str, value: Any) -> None:
        """Set a marker list, formation, bases, flag or type the camera cannot see; InputError if not allowed."""
        rp = self.roster.piece(pid)
        if rp is None:
            raise InputError(f"no piece {pid!r} in the roster")
        st = self.state.states.setdefault(pid, {})
        ptype = st.get("type") or self.system.piece_type(rp.type) or ""
        value = self.system.check_state(ptype if key != "type" else "", key, value)
        st[key] = value
        if key == "type":
            st.pop("formation", None)
        self._log(f"{pid}: {key} set to {_text(value)}")
        self.events.state.emit()
        self._rebuild()

    def set_turn(self, turn: int, active: str | None = None) -> None:
        self.state.turn = max(1, int(turn))
        if active is not None:
            self.state.active = active
        self.events.state.emit()

    def next_phase(self) -> None:
        turn, active = self.system.next_phase(self.state.turn, self.state.active, self.sides)
        reset = self.system.phase_reset()
        for rp in self.roster.pieces:
            if rp.side == active:
                st = self.state.states.setdefault(rp.id, {})
                for k, v in reset.items():
                    if st.get(k):
                        st[k] = v
        self.state.turn, self.state.active = turn, active
        self._log(f"turn {turn}: {active} active")
        self.events.state.emit()
        self._rebuild()

    # ---- combat

    def supporter_candidates(self, attacker: str, target: str, action: str) -> list[str]:
        if not (self.in_position(attacker) and self.in_position(target)):
            return []
        return self.system.supporter_candidates(self.position, attacker, target, action)

    def _single(self, action: str) -> bool:
        return action in getattr(self.system, "single_piece_actions", ())

    def combat_modifiers(self, attacker: str, target: str, action: str, supporters=()):
        self._need(attacker, *(() if self._single(action) else (target,)))
        return self.system.combat_modifiers(self.position, attacker, target, action, supporters)

    def resolve(self, action: str, attacker: str, target: str, **kw) -> CombatOutcome:
        """Resolve an action on the current position with the engine; InputError when the rules forbid it."""
        self._need(attacker, *(() if self._single(action) else (target,)))
        return self.system.resolve(self.position, action, attacker, target, **kw)

    def _need(self, *pids: str) -> None:
        for pid in pids:
            if not self.in_position(pid):
                raise InputError(f"{pid!r} is not on the table (not seen by the camera, or removed)")

    def apply(self, outcome: CombatOutcome) -> list[PendingChange]:
        """Apply a resolution to the game state: markers, bases, formation and flags at once; moves and removals
        become pending changes shown on the table until the physical pieces match."""
        before, after = outcome.resolution.before, outcome.after
        why = {c["piece"]: tuple(c.get("why", [])) for c in outcome.changes}
        pending = []
        for p in before.pieces:
            q = after.by_id.get(p.id)
            if q is None:
                self.state.removed.add(p.id)
                ch = PendingChange(p.id, removed=True, why=why.get(p.id, ()))
            else:
                self.state.states.setdefault(p.id, {}).update(self.system.piece_state(q))
                if (q.field, q.facing) == (p.field, p.facing):
                    continue
                ch = PendingChange(p.id, q.field, q.facing, why=why.get(p.id, ()))
            self.state.pending[p.id] = ch
            pending.append(ch)
        res = outcome.resolution
        who = " → ".join(d["piece"] for d in (res.attacker, res.defender) if d)
        self._log(f"{res.action} {who}: winner {res.winner}, effect {res.effect}")
        for c in outcome.changes:
            what = ", ".join(f"{k} {'+'.join(v) if isinstance(v, list) else v}" for k, v in c.items()
                             if k not in ("piece", "why"))
            self._log(f"{c['piece']}: {what}")
        for ch in pending:
            self._log(f"waiting for the table: {ch.describe()}")
        self.events.state.emit()
        self._rebuild()
        return pending

    def _log(self, text: str) -> None:
        self.state.log.append(f"turn {self.state.turn}: {text}")
        self.events.message.emit(text)


def _text(v: Any) -> str:
    if isinstance(v, tuple | list):
        return "+".join(map(str, v)) or "none"
    return str(v)
