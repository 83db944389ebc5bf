"""A game recorded from the dashboard: the one recorder (`GameRecorder`) on the dashboard's own readings and its
players' actions, in a thread of its own.

The dashboard hands each frame's reading it shows (`frame`) and each action a player makes (`input`: the same
dicts as a line of an inputs file, fieldglass/inputs.py) in the order it meets them; the recorder thread applies
them in that order, so a game played at the dashboard leaves the record `fieldglass record --inputs` makes of the
same readings and inputs. Nothing here blocks the window: it only puts work on a queue, and reads back what the
recorder said (`notices`, `status`). Every event is written in its own transaction as `fieldglass record` writes
it, so a dashboard killed mid-game reopens (`open_table_recording(..., resume=True)`) with every event it had
committed and the tracker's unsettled state.

Qt-free: the GUI observes it (gui/app.py polls `notices` on a timer).
"""

from __future__ import annotations

import math
import queue
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from common.errors import InputError
from common.fields import AMBIGUOUS_EDGE_MM
from common.files import read_toml
from fieldglass.record import Event, Record
from fieldglass.record.export import summary
from fieldglass.recording import HEARTBEAT_S, GameRecorder, drop_if_empty, open_record, system_meta
from vision.tracking import TrackerConfig

_STOP = object()
SWAP_WINDOW_S = 5.0
"""Two alike pieces' moves this close in time, each onto the other's place, make a question."""
SWAP_MM = 15.0
BACKLOG_FRAMES = 30
"""Frames waiting for the recorder beyond which their images (kept for the events' thumbnails) are let go."""


def _near(a, b) -> bool:
    """Two places of events within SWAP_MM (the tracker's move threshold and a little jitter)."""
    return (isinstance(a, dict) and isinstance(b, dict)
            and math.hypot(float(a["x_mm"]) - float(b["x_mm"]), float(a["y_mm"]) - float(b["y_mm"])) <= SWAP_MM)
PLACE_EVENTS = ("move", "appeared")


@dataclass(frozen=True)
class Question:
    """What the recorder cannot decide and asks the players, without stopping the game: `text`, and the answers
    as (label, the input it makes or None for "as recorded")."""

    key: str
    text: str
    answers: tuple[tuple[str, dict | None], ...]


@dataclass(frozen=True)
class RecordingStatus:
    """What the status bar says of a recording: its file, the events it holds, the last committed move, the pieces
    reported missing (waiting for a player), the error that stopped it (if any) and the last event of any kind."""

    path: Path
    events: int
    last: str
    missing: tuple[str, ...] = ()
    stopped: str | None = None
    ruled_winner: str | None = None  # the side the rules made the winner (an event that ended the game)
    over: bool = False  # the game has ended (by the rules or an `end` input)
    latest: str = ""  # the last event of any kind (a combat, a note, an undo...)


@dataclass
class Notice:
    """One thing the recorder thread said, for the GUI thread: `kind` "event" (an event written), "undone" /
    "redone" (the events an undo or a redo took back or wrote again, with the recorder's committed places after it),
    "question" (a Question) or "error" (an input the rules refused, a record that cannot be written)."""

    kind: str
    events: tuple[Event, ...] = ()
    text: str = ""
    question: Question | None = None
    places: tuple = ()  # (committed places, states, placed by hand) of the recorder's tracker, after an undo or redo
    game: tuple = ()  # a resumed record: (GameState, the system's own game state) at its last event
    inputs: tuple[str, ...] = ()  # the input ids of the events (an undone player's action)


@dataclass
class TableRecording:
    """The recorder thread over a record it opens itself (SQLite's connection belongs to the thread that made it):
    `opener()` returns (record, recorder, the first frame number, the time offset) and runs in that thread; a
    resumed record's frames and times go on after those it holds."""

    path: Path
    opener: object
    record: Record | None = None
    recorder: GameRecorder | None = None
    start_frame: int = 0
    t_offset: float = 0.0
    _queue: queue.Queue = field(default_factory=queue.Queue)
    _notices: deque = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _thread: threading.Thread | None = None
    _frame: int | None = None  # the last frame handed in (the record's numbering)
    _t: float = 0.0
    _count: int = 0
    _last: str = ""  # the last committed move
    _latest: str = ""  # the last event of any kind
    sent: list = field(default_factory=list)  # every input handed in, with its frame: an inputs file of the game
    _missing: dict = field(default_factory=dict)
    _stopped: str | None = None
    _closed: bool = False
    _first: bool = True
    _beat_t: float = -math.inf
    _last_fed: tuple[int, float] | None = None
    _recent_moves: list = field(default_factory=list)
    _grid: bool = False
    _ruled: str | None = None
    _over: bool = False

    def __post_init__(self) -> None:
        opened = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            try:
                self._open()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
                failure.append(exc)
                opened.set()
                return
            opened.set()
            self._run()

        self._thread = threading.Thread(target=run, name="fieldglass-recorder", daemon=True)
        self._thread.start()
        opened.wait()
        if failure:
            self._closed = True
            raise failure[0]

    def _open(self) -> None:
        self.record, self.recorder, self.start_frame, self.t_offset = self.opener()
        self._grid = self.recorder.game.layout.grid is not None
        events = self.record.events(clean=True)
        self._count = len(events)
        for e in events:
            self._note_missing(e)
            if e.type in PLACE_EVENTS:
                self._last = summary(e, self._grid)
            self._latest = summary(e, self._grid)
        self.recorder.on_event = self._written
        self._read_meta()
        if self.start_frame:  # a resumed record: the dashboard goes on from its game
            moment = self.recorder.now()
            try:
                _ = moment.position  # the system's restore: its own state at the moment
                game = (moment.state, moment.live.game_state())
            except InputError:
                game = ()
            self._say(Notice("resumed", places=self._places(), game=game,
                             text=f"{self.path}: resumed with {self._count} events"))

    def _read_meta(self) -> None:
        meta = self.record.meta
        with self._lock:
            self._over = bool(meta.get("game_over"))
            self._ruled = meta.get("winner") if meta.get("game_over") and not meta.get("ended_seq") else None

    # ---- the GUI's side: never blocks

    def frame(self, reading, t: float, number: int, image=None, camera=None) -> None:
        """A frame's reading the dashboard shows, at `t` seconds of its clock, its `number`-th frame; `camera` the
        intrinsics it was read with (a source bringing its own camera, the synthetic table: the set-up has none)."""
        if self._closed:
            return
        self._frame, self._t = self.start_frame + int(number), self.t_offset + float(t)
        if self._queue.qsize() > BACKLOG_FRAMES:
            image = None  # behind: the thumbnails go first, never the readings (a frame's image is megabytes)
        self._queue.put(("frame", reading, self._t, self._frame, image, camera))

    def input(self, inp: dict) -> str:
        """A player's action (an input dict), applied after the last frame handed in; returns its id. A combat's
        `_dice_photo` (the JPEG of the throw the camera read) is kept as its picture, not as an input's key."""
        if self._closed:
            raise InputError(f"{self.path}: the recording is stopped")
        inp = dict(inp)
        photo = inp.pop("_dice_photo", None)
        inp.setdefault("_id", f"gui-{uuid.uuid4().hex[:12]}")
        inp["frame"] = self._frame if self._frame is not None else max(self.start_frame - 1, 0)
        self.sent.append(inp)
        self._queue.put(("input", inp, photo))
        return inp["_id"]

    def undo(self, count: int = 1) -> str:
        return self.input({"type": "undo", "count": count})

    def redo(self, count: int = 1) -> str:
        return self.input({"type": "redo", "count": count})

    @property
    def new(self) -> bool:
        """A record this recording started (not a resumed one)."""
        return not self.start_frame and not self._count

    def camera_gap(self) -> None:
        """The camera is gone until its next frame (that time is not counted)."""
        self._queue.put(("gap",))

    def notices(self) -> list[Notice]:
        """What the recorder said since the last call."""
        with self._lock:
            out = list(self._notices)
            self._notices.clear()
        return out

    def status(self) -> RecordingStatus:
        with self._lock:
            return RecordingStatus(self.path, self._count, self._last, tuple(sorted(self._missing)), self._stopped,
                                   self._ruled, self._over, self._latest)

    def flush(self, timeout_s: float = 30.0) -> None:
        """Wait until everything handed in is written (tests, and a clean stop)."""
        t0 = time.monotonic()
        while self._queue.unfinished_tasks and time.monotonic() - t0 < timeout_s:
            time.sleep(0.005)

    def close(self) -> RecordingStatus:
        """Write what is queued, the last heartbeat, and close the record (one file: its side file copied in)."""
        if self._closed:
            return self.status()
        self._closed = True
        self._queue.put((_STOP,))
        if self._thread is not None:
            self._thread.join(60.0)
        return self.status()

    # ---- the recorder thread

    def _say(self, notice: Notice) -> None:
        with self._lock:
            self._notices.append(notice)

    def _written(self, ev: Event) -> None:
        grid = self._grid
        with self._lock:
            self._count += 1
            self._note_missing(ev)
            if ev.type in PLACE_EVENTS:
                self._last = summary(ev, grid)
            if ev.type != "surface":
                self._latest = summary(ev, grid)
        if ev.type in ("combat", "turn", "end"):
            self._read_meta()
        self._say(Notice("event", (ev,)))
        for question in (self._edge_question(ev), self._swap_question(ev)):
            if question is not None:
                self._say(Notice("question", question=question))

    def _note_missing(self, ev: Event) -> None:
        if ev.type == "missing" and ev.piece:
            self._missing[ev.piece] = ev.data.get("at")
        elif ev.piece and ev.type in ("removed", "kept", "move", "appeared"):
            self._missing.pop(ev.piece, None)

    def _edge_question(self, ev: Event) -> Question | None:
        """A move the camera committed to a place on a field's edge: which field? (A base stands in one field; a
        centre within AMBIGUOUS_EDGE_MM of an edge cannot be told for sure.)"""
        grid = self.recorder.game.layout.grid
        # a move only: at the set-up the views mark every piece on an edge ("?"); a question each would flood
        to = ev.data.get("to") if ev.type == "move" else None
        if grid is None or not isinstance(to, dict) or ev.data.get("by_hand") or not ev.piece:
            return None
        x, y = float(to["x_mm"]), float(to["y_mm"])
        if grid.edge_distance_mm(x, y) >= AMBIGUOUS_EDGE_MM:
            return None
        here = grid.name_at(x, y)
        step = AMBIGUOUS_EDGE_MM
        near = []
        for dx, dy in ((step, 0), (-step, 0), (0, step), (0, -step)):
            other = grid.name_at(x + dx, y + dy)
            if other and other != here and other not in near:
                near.append(other)
        if not here or not near:
            return None
        answers = ((f"{here} (as read)", None),
                   *((other, {"type": "place", "piece": ev.piece, "field": other, "by": "player"}) for other in near))
        return Question(f"edge:{ev.seq}", f"{ev.piece} stands on the edge of {here} and {', '.join(near)}: which "
                        "field?", answers)

    def _swap_question(self, ev: Event) -> Question | None:
        """Two alike pieces (the same side and type) that changed places within a few seconds: meant, or picked up
        the wrong way? The camera reads their markers right either way; the players say which they meant."""
        if ev.type != "move" or not ev.piece or ev.data.get("by_hand") or ev.data.get("redo_of"):
            return None
        recent = [m for m in self._recent_moves if ev.t - m.t <= SWAP_WINDOW_S and m.piece != ev.piece]
        self._recent_moves = [*recent, ev][-8:]
        roster = self.recorder.roster
        me = roster.piece(ev.piece)
        for other in recent:
            them = roster.piece(other.piece)
            if them is None or me is None or (them.side, them.type) != (me.side, me.type):
                continue
            if _near(ev.data.get("to"), other.data.get("from")) and _near(ev.data.get("from"), other.data.get("to")):
                back = [{"type": "place", "piece": e.piece, "x_mm": e.data["from"]["x_mm"],
                         "y_mm": e.data["from"]["y_mm"], "heading_deg": e.data["from"].get("heading_deg"),
                         "by": "player"} for e in (other, ev)]
                return Question(f"swap:{ev.seq}", f"{other.piece} and {ev.piece} (alike: {me.side} {me.type}) "
                                "changed places: meant?", (("Yes, as read", None), ("No: each keeps its place", back)))
        return None

    def _places(self) -> tuple:
        tr = self.recorder.tracker
        by_hand = {pid: t.seen_at for pid, t in tr.tracks.items() if t.by_hand}
        return dict(tr.committed()), tr.states(), by_hand

    def export_after_game(self, formats: tuple[str, ...] = ("report", "html")) -> list[tuple[str, str]]:
        """The report and the HTML replay of this record, once it is closed (`export_after_game`)."""
        return export_after_game(self.path, formats)

    def push_to_archive(self, url: str) -> str:
        return push_to_archive(self.path, url)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item[0] is _STOP:
                    self._finish()
                    return
                if self._stopped is not None:
                    continue  # a recording that could not be written takes nothing more
                self._step(item)
            except InputError as exc:
                self._say(Notice("error", text=str(exc)))
                if item[0] == "frame":  # the record itself refused (a full disk): nothing more is written
                    with self._lock:
                        self._stopped = str(exc)
            except Exception as exc:  # noqa: BLE001 - said in the window, never a traceback; the record keeps all
                with self._lock:
                    self._stopped = f"{self.path}: recording stopped ({type(exc).__name__}: {exc}); every event " \
                                    "before it is kept (File > Resume record goes on)"
                self._say(Notice("error", text=self._stopped))
            finally:
                self._queue.task_done()

    def _finish(self) -> None:
        """The last heartbeat, and the record closed (one file); a record that got no event is not left behind."""
        rec = self.recorder
        try:
            if self._last_fed is not None and self._stopped is None:
                rec.heartbeat(*self._last_fed)
        finally:
            if self._count == 0 and rec.written == 0:
                drop_if_empty(self.record, self.path)  # nothing recorded: no empty record to block the next one
            self.record.close()

    def _step(self, item) -> None:
        rec = self.recorder
        kind = item[0]
        if kind == "gap":
            rec.camera_gap()
            return
        if kind == "frame":
            _, reading, t, number, image, camera = item
            if camera is not None:
                rec.use_camera(camera)
            if self._first and self.start_frame:
                rec.camera_gap()  # a resumed record: the time the dashboard was away is not counted
            self._first = False
            if self._last_fed is not None and self._last_fed[1] - self._beat_t >= HEARTBEAT_S:
                rec.heartbeat(*self._last_fed)  # after a frame and its inputs, as `record_stream` beats
                self._beat_t = self._last_fed[1]
            rec.feed(reading, t, number, image)
            self._last_fed = (number, t)
            return
        inp, photo = item[1], item[2]
        t = self._last_fed[1] if self._last_fed is not None else self.t_offset
        events = rec.apply(inp, t, inp["frame"], dice_photo=photo)
        what = inp.get("type")
        if what in ("undo", "redo"):
            if what == "undo":
                with self._lock:
                    self._count -= len(events)
                    for e in events:
                        if e.piece:
                            self._missing.pop(e.piece, None)
                    for p in rec.record.state().pieces.values():
                        if p.status == "missing":
                            self._missing.setdefault(p.id, None)
                    self._latest = f"undone: {', '.join(summary(e) for e in events) or 'nothing'}"
            key = "input" if what == "undo" else "redoes_input"
            ids = tuple(dict.fromkeys(str(e.data[key]) for e in events if e.data.get(key)))
            self._say(Notice("undone" if what == "undo" else "redone", tuple(events), places=self._places(),
                             inputs=ids))


def recording_meta(setup, players: list[str] | None = None) -> dict:
    """The metadata a record of the dashboard's set-up starts with: the one of `fieldglass record` (its system's
    `record_meta` from the set-up, the board, the rules options)."""
    opts = read_toml(setup.options, "rules options file") if getattr(setup, "options", None) else {}
    board_file = (getattr(setup, "names", None) or {}).get("board")
    board_path = board_file if board_file and Path(board_file).suffix == ".toml" else None
    return system_meta(setup.system, setup.layout, setup.roster, getattr(setup, "camera", None), opts,
                       players or [], str(setup.source), setup, board_path)


def open_table_recording(setup, path: str | Path, resume: bool = False, settle_s: float = 1.0,
                         missing_after_s: float = 10.0, players: list[str] | None = None) -> TableRecording:
    """The dashboard's recording of `setup` into `path`: a new record (never over an existing file: InputError
    says to resume it or choose another name) or, with `resume`, the existing one checked as `fieldglass record
    --resume` checks it (the same system, roster, layout, board, start and options)."""
    path = Path(path)
    if not resume and path.exists():
        raise InputError(f"{path}: a record already exists (resume it, or choose another name)")
    meta = recording_meta(setup, players)

    def opener():
        record, start = open_record(path, meta, resume=resume)
        try:
            config = TrackerConfig(settle_s=settle_s, missing_after_s=missing_after_s)
            recorder = GameRecorder.start(record, None, config, getattr(setup, "camera", None))
        except InputError:
            if not resume:
                drop_if_empty(record, path)
            record.close()
            raise
        if not resume:
            return record, recorder, 0, 0.0
        # the dashboard's frames and clock go on after the record's last frame and time
        last = record.events()[-1:]
        t_offset = max([float(record.progress.get("t", 0.0)), *(e.t for e in last)]) + 1.0
        return record, recorder, start + 1, t_offset

    return TableRecording(path, opener)


def export_after_game(path: str | Path, formats: tuple[str, ...] = ("report", "html")) -> list[tuple[str, str]]:
    """The files a finished game offers (`fieldglass export`, in a child process so the dashboard stays free):
    [(format, the line it printed or its error)]."""
    out = []
    src = Path(path)
    for fmt in formats:
        target = src.with_name(f"{src.stem}-report.txt") if fmt == "report" else src.with_suffix(f".{fmt}")
        proc = subprocess.run([sys.executable, "-m", "fieldglass", "export", str(src), "--format", fmt, "--out",
                               str(target)], capture_output=True, text=True, timeout=600)
        text = (proc.stdout.strip() or proc.stderr.strip()).splitlines()
        out.append((fmt, str(target) if proc.returncode == 0 else (text[-1] if text else "failed")))
    return out


def push_to_archive(path: str | Path, url: str) -> str:
    """`fieldglass archive push` of the finished game: the line it printed (the archive id) or its error."""
    proc = subprocess.run([sys.executable, "-m", "fieldglass", "archive", "push", str(path), "--db", url],
                          capture_output=True, text=True, timeout=600)
    lines = (proc.stdout.strip() or proc.stderr.strip()).splitlines()
    return lines[-1] if lines else ("pushed" if proc.returncode == 0 else "failed")


__all__ = ["Notice", "Question", "RecordingStatus", "TableRecording", "export_after_game", "open_table_recording",
           "push_to_archive", "recording_meta"]
