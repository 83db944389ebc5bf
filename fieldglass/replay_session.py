"""The replay viewer's model, free of Qt: a game record (`fieldglass.record.Replay`) seen at one moment.

`ReplaySession` holds the moment shown (`index`: the position after the first `index` events of the timeline) and
answers what the viewer draws there, in the same shapes as the live `fieldglass.session.Session` so the dashboard's
board view can draw it: `layout`, `roster`, `sides`, `ground`, `board` (a printed board), `position` (the rules
engine's position, built from the record's committed state by the live session's placement of the record's system:
fieldglass/recorded.py), `piece_views()`, `selection_overlay()`, `picture()`.
One replay for every system: every rules answer (a piece's fire lines, every pair's lines: `LiveRules.pair_lines`)
comes from the rules engine through `rules.system` and the system's adapter and live rules, and so does what a
viewer may not see (`LiveRules.hidden_ids`, `replay_views`); the viewer only draws them.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

from common.clock import clock
from common.errors import InputError
from common.events import Signal
from common.fields import field_name, parse_field
from fieldglass.record import BoardState, Event, Record, Replay, TimelineMarker, combat_label
from fieldglass.record.board import CLOTH
from fieldglass.record.export import summary
from fieldglass.recorded import (  # noqa: F401 - the record's layout, roster and rules, read here before
    RecordedGame,
    game_over,
    layout_from_meta,
    record_system,
    roster_from_meta,
)
from fieldglass.session import PieceView, build_scene
from fieldglass.surfaces import recorded_pose
from rules.system import PUBLIC, UMPIRE, SelectionOverlay
from vision.pieces import PiecePose


@dataclass(frozen=True)
class PhaseMark:
    turn: int
    phase: str
    index: int  # the timeline index of the event that began it


@dataclass(frozen=True)
class PairLine:
    """A line along which `piece` may fire at (kind "fire") or attack (kind "melee") `target`, field to field."""

    piece: str
    target: str
    start: tuple[int, int]
    end: tuple[int, int]
    kind: str


@dataclass(frozen=True)
class NoteView:
    event: Event
    index: int
    at_mm: tuple[float, float] | None  # the piece it was written about, where it stood; None: the whole table
    current: bool  # written at the moment shown


class ReplaySession:
    """One record on a timeline with a cursor. Events (callbacks, no Qt): `moved(index)`, `selection(sel, second)`,
    `events_changed()` (the undone events shown or hidden)."""

    cloth_bgr = CLOTH  # the table's colour in `fieldglass export` pictures: the viewer's board matches them

    def __init__(self, record: Record, include_undone: bool = False):
        self.record = record
        self.meta = record.meta
        self.game = RecordedGame(self.meta)  # the record's game at a moment, as its system's live rules place it
        self.layout = self.game.layout
        self.roster = self.game.roster
        self.system = self.game.system
        self.ground = self.system.empty_ground()
        self.sides = self.game.sides
        self.reading = None  # a replay has no camera reading: the board view draws no anchors
        self.include_undone = include_undone
        self.replay = Replay(record, include_undone=include_undone)
        self.index = 0
        self._poses_memo: tuple | None = None  # (timeline, its length, `_pose_changes`)
        self.selected: str | None = None
        self.second: str | None = None
        self.problems: list[str] = []
        self.to_table = None  # a record keeps board positions in table mm
        self.live = self.game.live
        self.board = self.game.board  # a printed board the record keeps (its areas are drawn)
        self.viewer = PUBLIC
        self.viewers = (PUBLIC, *self.live.viewers, UMPIRE)
        """Who may watch: anyone, each side of a system with hidden information, the umpire (everything)."""
        self.aliases: dict[str, str] = {}
        self._position_cache: dict[int, Any] = {}
        self._lines_cache: dict[int, list[PairLine]] = {}
        self._overlay_cache: dict[tuple[int, str], SelectionOverlay | None] = {}
        self.events = type("Events", (), {})()
        for name in ("moved", "selection", "events_changed"):
            setattr(self.events, name, Signal())

    # ---- the timeline

    def __len__(self) -> int:
        return len(self.replay)

    @property
    def duration(self) -> float:
        return self.replay.duration

    @property
    def timeline(self) -> list[Event]:
        return self.replay.events

    def markers(self) -> list[TimelineMarker]:
        return self.replay.markers()

    def current_event(self) -> Event | None:
        """The event whose result is shown (None at the start, before any)."""
        return self.replay.events[self.index - 1] if self.index else None

    @property
    def t(self) -> float:
        e = self.current_event()
        return e.t if e is not None else 0.0

    def seek(self, index: int) -> int:
        index = max(0, min(int(index), len(self.replay)))
        if index != self.index:
            self.index = index
            self.events.moved.emit(index)
        return index

    def seek_time(self, t: float) -> int:
        return self.seek(self.replay.index_at(t))

    def seek_seq(self, seq: int) -> int:
        """Show the position after the event `seq` (an undone one is shown only with the undone events)."""
        for i, e in enumerate(self.replay.events):
            if e.seq == seq:
                return self.seek(i + 1)
        seqs = [e.seq for e in self.record.events()]
        if seq in seqs:
            raise InputError(f"event {seq} was undone: show the undone events to go to it")
        span = f"{seqs[0]}..{seqs[-1]}" if seqs else "none"
        raise InputError(f"no event {seq} in the record (its events: {span})")

    def index_of(self, seq: int) -> int:
        """The timeline index of event `seq` (the position *before* it is state(index_of(seq)))."""
        for i, e in enumerate(self.replay.events):
            if e.seq == seq:
                return i
        raise InputError(f"no event {seq} on the timeline")

    def step(self, n: int = 1) -> int:
        return self.seek(self.index + n)

    def to_start(self) -> int:
        return self.seek(0)

    def to_end(self) -> int:
        return self.seek(len(self.replay))

    def turns(self) -> list[int]:
        return self.replay.turns()

    def turn_index(self, turn: int) -> int:
        """The index showing the start of `turn` (just after its turn event; turn 0, the set-up: the start)."""
        starts = self.replay.turn_starts()
        if turn in starts:
            return starts[turn] + 1
        for i, e in enumerate(self.replay.events):
            if e.turn >= turn and not e.undone:
                return i + 1
        raise InputError(f"no turn {turn} in the record (turns {' '.join(map(str, self.turns())) or 'none'})")

    def jump_turn(self, turn: int) -> int:
        return self.seek(0 if turn <= 0 and turn not in self.replay.turn_starts() else self.turn_index(turn))

    def phases(self) -> list[PhaseMark]:
        """Every phase as it began: a turn event with a phase, or a phase event."""
        out = []
        for i, e in enumerate(self.replay.events):
            if e.undone:
                continue
            if e.type == "turn" and e.data.get("phase"):
                out.append(PhaseMark(int(e.data.get("turn", e.turn)), str(e.data["phase"]), i))
            elif e.type == "phase":
                out.append(PhaseMark(e.turn, str(e.data.get("phase")), i))
        return out

    def jump_phase(self, turn: int, phase: str) -> int:
        for m in self.phases():
            if m.turn == turn and m.phase == phase:
                return self.seek(m.index + 1)
        raise InputError(f"no phase {phase!r} in turn {turn}")

    def set_include_undone(self, on: bool) -> None:
        """Show or hide undone events, keeping the moment shown (the nearest standing event)."""
        if bool(on) == self.include_undone:
            return
        cur = self.current_event()
        self.include_undone = bool(on)
        self.replay = Replay(self.record, include_undone=self.include_undone)
        self._position_cache.clear()
        self._lines_cache.clear()
        self._overlay_cache.clear()
        index = 0
        if cur is not None:
            for i, e in enumerate(self.replay.events):
                if e.seq <= cur.seq:
                    index = i + 1
        self.index = index
        self.events.events_changed.emit()
        self.events.moved.emit(index)

    # ---- the state at the moment shown

    def state(self, index: int | None = None) -> BoardState:
        return self.replay.position_at(self.index if index is None else index)

    def position_at(self, index: int):
        """The rules engine's position after the first `index` events (None when the record's pieces or layout
        cannot make one: the reason is in `problems`), placed by the live session's function of the record's
        system, as the recorder places it."""
        if index not in self._position_cache:
            try:
                pos = self.game.at(self.replay.position_at(index), self.timeline[:index]).position
            except InputError as exc:
                if str(exc) not in self.problems:
                    self.problems.append(str(exc))
                pos = None
            if len(self._position_cache) > 256:
                self._position_cache.clear()
            self._position_cache[index] = pos
        return self._position_cache[index]

    @property
    def position(self):
        return self.position_at(self.index)

    @property
    def surface_boards(self) -> dict[str, Any]:
        """The boards of the table's other surfaces (a battle board beside a map), by name."""
        return self.game.surface_boards

    def surface_pose(self, name: str):
        """A surface's pose on the table as recorded by the moment shown (calibration/board.py BoardPose), None
        while none was recorded."""
        changes = self._pose_changes()
        indexes, poses = changes.get(name, ((), ()))
        k = bisect.bisect_left(indexes, self.index)  # the last change among the first `index` events
        return poses[k - 1] if k else None

    def _pose_changes(self) -> dict[str, tuple[list[int], list]]:
        """Each surface's recorded poses with their timeline indexes, read once per timeline (a view asks for a
        surface's pose at every redraw; scanning the timeline each time made a long record's replay crawl)."""
        timeline = self.timeline
        memo = self._poses_memo
        if memo is None or memo[0] is not timeline or memo[1] != len(timeline):
            changes: dict[str, tuple[list[int], list]] = {}
            for i, e in enumerate(timeline):
                change = recorded_pose(e)
                if change is not None:
                    indexes, poses = changes.setdefault(change[0], ([], []))
                    indexes.append(i)
                    poses.append(change[1])
            memo = self._poses_memo = (timeline, len(timeline), changes)
        return memo[2]

    def surface_to_table(self, name: str):
        """Board mm of a surface -> table mm at the moment shown; None while it has no recorded pose."""
        pose = self.surface_pose(name) if name in self.surface_boards else None
        return pose.board_to_table if pose is not None else None

    def set_viewer(self, viewer: str) -> None:
        """Who watches the replay: "public", a side of a system with hidden information, or "umpire" (the system's
        `LiveRules.replay_views`)."""
        if viewer not in self.viewers:
            raise InputError(f"view: {', '.join(self.viewers[:-1])} or {self.viewers[-1]}, not {viewer!r}")
        self.viewer = viewer
        self.aliases = {}
        self.events.moved.emit(self.index)

    def piece_views(self) -> list[PieceView]:
        """The pieces on the table at the moment shown (a missing piece as 'occluded': dashed, where it was)."""
        st = self.state()
        pos = self.position
        out = []
        for rp in self.roster.pieces:
            p = st.pieces.get(rp.id)
            if p is None or not p.on_table:
                continue
            engine = pos.by_id.get(rp.id) if pos is not None else None
            pose = PiecePose(rp.id, rp.marker, float(p.x_mm), float(p.y_mm), float(p.heading_deg or 0.0), p.facing,
                             None, p.cell, None)
            state = (self.system.piece_state(engine) if engine is not None else
                     {"bases": p.bases, "markers": tuple(p.markers), "formation": p.formation})
            ptype = engine.type if engine is not None else self.system.piece_type(rp.type)
            out.append(PieceView(rp, pose, "occluded" if p.status == "missing" else "seen", ptype, state))
        done = self.timeline[: self.index]  # what the viewer may see of them there: the system says
        out, self.aliases = self.live.replay_views(self, out, done, game_over(self.meta, done))
        return out

    def picture(self, live: bool = False, labels: bool = True) -> tuple:
        """The system's picture of the moment shown (rules/picture.py), as the live dashboard draws it."""
        return self.live.picture(self, build_scene(self, live, labels))

    # ---- selection and fire lines (from the rules engine)

    def in_position(self, pid: str | None) -> bool:
        pos = self.position
        return pid is not None and pos is not None and pid in pos.by_id

    def select(self, pid: str | None, second: bool = False) -> None:
        pid = self.aliases.get(pid, pid) if pid is not None else pid
        if pid is not None and self.roster.piece(pid) is None:
            raise InputError(f"no piece {pid!r} in the roster")
        if second and self.selected is not None and pid != self.selected:
            self.second = pid
        else:
            self.selected, self.second = pid, None
        self.events.selection.emit(self.selected, self.second)

    def clear_selection(self) -> None:
        self.select(None)

    def selection_overlay(self) -> SelectionOverlay | None:
        """The selected piece's arc, ranges and fire lines at the moment shown (the engine's `selection`)."""
        pid = self.selected
        if not self.in_position(pid):
            return None
        key = (self.index, pid)
        if key not in self._overlay_cache:
            if len(self._overlay_cache) > 256:
                self._overlay_cache.clear()
            self._overlay_cache[key] = self.system.selection(self.position, pid)
        return self._overlay_cache[key]

    def targets(self):
        return self.system.targets(self.position, self.selected) if self.in_position(self.selected) else []

    def fire_lines(self, index: int | None = None) -> list[PairLine]:
        """Every line along which a piece may fire at (or attack) an enemy at the moment shown: the system's
        `pair_lines` over the position (the engine's pair analysis), one line per allowed ordered pair (kind fire or
        melee)."""
        index = self.index if index is None else index
        if index not in self._lines_cache:
            pos = self.position_at(index)
            lines = [PairLine(*ln) for ln in self.live.pair_lines(self, pos)] if pos is not None else []
            if len(self._lines_cache) > 256:
                self._lines_cache.clear()
            self._lines_cache[index] = lines
        return self._lines_cache[index]

    # ---- what the moment shows besides the pieces

    def _latest(self, kind: str, passing: tuple[str, ...]) -> Event | None:
        """The latest event of `kind` at or before the moment shown, if only events of the `passing` kinds (and
        undone ones) came after it."""
        for i in range(self.index - 1, -1, -1):
            e = self.replay.events[i]
            if e.undone:
                continue
            if e.type == kind:
                return e
            if e.type not in passing:
                return None
        return None

    def combat_shown(self) -> tuple[str, str, tuple[int, int], tuple[int, int], Event] | None:
        """The combat just resolved (the current event, or the last one with only its consequences, notes and
        bookmarks since): attacker, target and their fields as recorded."""
        e = self._latest("combat", ("note", "bookmark", "marker", "formation", "removed", "missing", "kept",
                                        "surface"))
        if e is None:
            return None
        pieces, fields = e.data.get("pieces") or [], e.data.get("fields") or {}
        if len(pieces) != 2 or not all(p in fields for p in pieces):
            return None
        try:
            return pieces[0], pieces[1], parse_field(fields[pieces[0]]), parse_field(fields[pieces[1]]), e
        except InputError:
            return None

    def move_shown(self) -> tuple[tuple[float, float], tuple[float, float], Event] | None:
        """The move just committed (the current event, or the last one with only notes and bookmarks since): from and
        to, table mm."""
        e = self._latest("move", ("note", "bookmark", "surface"))
        if e is None:
            return None
        a, b = e.data.get("from") or {}, e.data.get("to") or {}
        if "x_mm" not in a or "x_mm" not in b:
            return None
        return (float(a["x_mm"]), float(a["y_mm"])), (float(b["x_mm"]), float(b["y_mm"])), e

    def notes_shown(self) -> list[NoteView]:
        """The notes written in the turn shown, up to the moment shown, each at the piece it names (where that
        piece stood when it was written) or over the whole table."""
        cur = self.current_event()
        if cur is None:
            return []
        out = []
        for i in range(self.index):
            e = self.replay.events[i]
            if e.type != "note" or e.undone or e.turn != cur.turn:
                continue
            at = None
            if e.piece:
                p = self.replay.position_at(i + 1).pieces.get(e.piece)
                if p is not None and p.x_mm is not None:
                    at = (float(p.x_mm), float(p.y_mm))
            out.append(NoteView(e, i, at, i == self.index - 1))
        return out

    def thumbnail(self) -> tuple[int, str, bytes] | None:
        """The latest table photo (turns and combats) at or before the moment shown."""
        cur = self.current_event()
        if cur is None:
            return None
        best = None
        for s, kind, jpeg in self.record.thumbnails():
            if s <= cur.seq and kind != "dice":
                best = (s, kind, jpeg)
        return best

    def dice_photo(self) -> bytes | None:
        """The picture of the throw the camera read for the event shown (a combat with `dice_read`), else None."""
        cur = self.current_event()
        if cur is None or "dice_read" not in cur.data:
            return None
        return self.replay.thumbnail_for(cur.seq, "dice")

    # ---- text (the headless command, tooltips)

    def headline(self, e: Event) -> str:
        """One line for the viewer's caption: a combat's label (action, pieces, winner, effect), else the event's
        description."""
        return combat_label(e) if e.type == "combat" else self.describe_event(e)

    def describe_event(self, e: Event) -> str:
        text = summary(e, self.layout.grid is not None)
        for pid in self.hidden_at(e):
            text = text.replace(pid, self._anonymous(pid))
        return text

    def _anonymous(self, pid: str) -> str:
        """A hidden piece as the replay names it: its side's colour only ("FR block")."""
        return f"{self.roster.piece(pid).side} {self.live.noun}"

    def hidden_at(self, e: Event | None = None) -> list[str]:
        """The pieces whose identity the rules had not revealed to the viewer up to event `e` (None: the moment
        shown), longest id first (the system's `hidden_ids`); none once the game has ended or for the umpire."""
        if self.viewer == UMPIRE or not self.live.viewers:  # a system without player views hides nothing
            return []
        upto = self.timeline[: self.index] if e is None else [x for x in self.timeline if x.seq <= e.seq]
        if game_over(self.meta, upto) or self.game_over_now():
            return []
        return self.live.hidden_ids(self, upto)

    def game_over_now(self) -> bool:
        """Whether the game had ended by the moment shown (then every event names its pieces)."""
        return game_over(self.meta, self.timeline[: self.index])

    def public_name(self, pid: str, e: Event | None = None) -> str:
        """A piece id as the replay may show it at event `e` (a hidden piece: its side's colour only)."""
        return self._anonymous(pid) if pid in self.hidden_at(e) else pid

    def timeline_summary(self) -> list[str]:
        evs = self.record.events()
        undone = sum(1 for e in evs if e.undone)
        kinds: dict[str, int] = {}
        for e in evs:
            if not e.undone:
                kinds[e.type] = kinds.get(e.type, 0) + 1
        turns = [t for t in self.turns() if t > 0]
        meta = self.meta
        lines = [f"{self.record.path.name}: {meta.get('system', '?')} game, {len(evs)} events"
                 + (f" ({undone} undone)" if undone else "")
                 + f", {clock(self.duration)} of game time, "
                 + (f"turns {turns[0]}-{turns[-1]}" if len(turns) > 1 else f"turn {turns[0]}" if turns else "no turns")
                 + (f", players {', '.join(meta['players'])}" if meta.get("players") else "")]
        lines.append("  " + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())))
        lines.append("timeline:")
        for m in self.markers():
            lines.append(f"  {clock(m.t):>7}  seq {m.seq:<4} {m.kind:<9} {m.label}")
        return lines

    def position_lines(self) -> list[str]:
        e = self.current_event()
        st = self.state()
        if e is None:
            head = "at the start (before any event)"
        else:
            head = (f"after event {e.seq} of {len(self.record.events())} at {clock(e.t)}, turn {st.turn}"
                    + (f" {st.phase}" if st.phase else "") + f": {self.describe_event(e)}"
                    + (" [undone]" if e.undone else ""))
        lines = [head, f"  {'piece':<10}{'side':<6}{'type':<15}{'field':<6}{'facing':<7}{'status':<9}"
                       f"{'bases':<6}markers"]
        hidden = set(self.hidden_at())  # the pieces this viewer may not name yet
        for p in st.pieces.values():
            if p.status == "unplaced":
                continue
            if p.id in hidden:
                lines.append(f"  {self._anonymous(p.id):<10}{p.side:<6}{'?':<15}{'-':<6}{'-':<7}{p.status:<9}{'?':<6}-")
                continue
            lines.append(f"  {p.id:<10}{p.side:<6}{p.type:<15}{(p.cell or '-'):<6}{(p.facing or '-'):<7}"
                         f"{p.status:<9}{p.bases:<6}{'+'.join(p.markers) or '-'}")
        lines.append("fire lines (rules engine):")
        fl = self.fire_lines()
        for ln in fl:
            lines.append(f"  {ln.piece} {field_name(*ln.start)} -> {ln.target} {field_name(*ln.end)} ({ln.kind})")
        if not fl:
            lines.append("  none")
        for n in self.notes_shown():
            lines.append(f"note at {clock(n.event.t)}{' by ' + n.event.data['by'] if n.event.data.get('by') else ''}"
                         f": {n.event.data.get('text', '')}")
        for p in self.problems:
            lines.append(f"warning: {p}")
        return lines

