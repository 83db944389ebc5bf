"""The capture worker: source -> marker detection -> table pose -> piece poses, in its own thread.

The worker keeps only the newest result. It signals `ready` at most once until the GUI has taken the result
(`take()`), so signals never queue up behind a slow GUI: a frame finished while the GUI is busy simply replaces the
one not yet shown. A live camera is read (and its JPEG frames decoded, in a pool of threads with an MJPG camera
on Linux: vision/sources.py) by a separate grabber thread, so decoding and processing overlap; between them a
`FrameQueue` of two frames drops the oldest frame when processing falls behind and counts it (`FrameResult.dropped`,
with the frames the decoding pool had no thread for), so the detector never works on a stale frame and nothing queues
without bound. A camera or video is read by `LiveReader`: markers re-detected only where the
picture changed (vision/stream.py); unrelated photos get a full scan each.

`setup` is duck-typed (the wiring's `fieldglass.session.Setup`): `source` (its name), `camera` (CameraIntrinsics or
None when the source brings its own), `layout` (TableLayout) and `roster` (Roster). The board view's image comes
from `vision.rectify.BoardRectifier`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QThread, Signal

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.registration import TableRegistration
from common.errors import InputError
from vision.dice import DIE_SIZES_MM, READABLE_FACE_PX
from vision.dice_watch import DiceThrow, DiceWatch, dice_sight
from vision.markers import detect_qr
from vision.pieces import TableReading, camera_for_frame, read_table
from vision.reconnect import CameraWatch, reconnecting
from vision.rectify import BoardRectifier, display_bgra
from vision.sources import FrameQueue, ImageSource
from vision.stream import LiveReader
from vision.table_lens import StreamLens

CARD_EVERY = 15
"""Look for QR unit cards in every 15th frame."""


@dataclass
class CameraFrame:
    """One camera of a rig at one instant: its frame (None: none from it), the lens and table pose it was read
    with (None: not registered), its state ("reading", "unregistered", "no frame") and the pieces it holds hidden
    under a hand."""

    name: str
    frame: np.ndarray | None
    camera: CameraIntrinsics | None
    pose: CameraPose | None
    status: str
    hidden: tuple[str, ...] = ()
    shown: np.ndarray | None = None  # the frame as BGRA for the screen, made in the worker's thread


@dataclass
class FrameResult:
    """One processed frame, everything the GUI draws from it."""

    number: int
    frame: np.ndarray  # BGR
    reading: TableReading
    camera: CameraIntrinsics
    board: np.ndarray | None  # rectified top-down view, BGR
    board_mm_per_px: float
    fps: float
    process_ms: float
    cards: tuple[str, ...] = ()  # payloads of the QR codes read in this frame (unit cards)
    latency_ms: float = 0.0  # from the frame's arrival (grabbed and decoded) to this result
    dropped: int = 0  # frames of a live camera dropped so far because processing was busy
    arrived: float = 0.0  # time.perf_counter() when the frame arrived: the dashboard measures frame -> screen
    shown: np.ndarray | None = None  # the frame as BGRA, made here for the screen (None: the view converts `frame`)
    board_shown: np.ndarray | None = None  # the same of `board`
    views: tuple[CameraFrame, ...] = ()  # a rig: every camera's own frame (then `frame` is the first camera's)
    t: float | None = None  # the frame's time in seconds, where its source gives one (None: the window's clock)
    lens_note: str = ""  # which lens the frame was read with ("lens: cam.json refined from ..."; vision/table_lens.py)
    throw: DiceThrow | None = None  # the dice of a throw that settled at this frame (vision/dice_watch.py)


class FrameRate:
    """Frames per second, smoothed (an exponential average, 0.2 of each new frame) over the moments frames were
    finished."""

    def __init__(self) -> None:
        self.fps = 0.0
        self._last: float | None = None

    def tick(self, t: float) -> float:
        """A frame finished at `t` (seconds, time.perf_counter()); the smoothed rate."""
        if self._last is not None:
            inst = 1.0 / max(t - self._last, 1e-6)
            self.fps = inst if self.fps == 0.0 else 0.8 * self.fps + 0.2 * inst
        self._last = t
        return self.fps


class Latest:
    """A one-item mailbox: `put` replaces, `take` empties. Thread-safe, Qt-free."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._item = None

    def put(self, item) -> None:
        with self._lock:
            self._item = item

    def take(self):
        with self._lock:
            item, self._item = self._item, None
            return item

    def peek(self):
        with self._lock:
            return self._item


class _Grabber(threading.Thread):
    """Reads (and decodes) a live source as fast as it delivers into a FrameQueue: (number, frame, arrival time
    from time.perf_counter)."""

    def __init__(self, source, size: int = 2):
        super().__init__(daemon=True, name="fieldglass-grabber")
        self.source = source
        self.frames = FrameQueue(size)
        self.done = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        try:
            for number, frame in self.source:
                self.frames.put((number, frame, time.perf_counter()))
                if self.done.is_set():
                    break
        except InputError as exc:
            self.error = str(exc)
        except Exception as exc:  # a driver error must not kill the dashboard
            self.error = f"camera error: {exc}"
        finally:
            self.done.set()
            self.frames.close()


class PublishingWorker(QThread):
    """A thread that publishes only its newest result: `ready()` when one can be taken (at most once until the GUI
    has taken it), `take()` to take it; `status(state, text)` for its source (state "connected", "ended", "lost"
    or "error"). The capture workers of one camera and of a rig are such threads."""

    ready = Signal()
    status = Signal(str, str)
    notice = Signal(str)  # a line for the status bar that is not the camera's state (the dice watch stopped...)

    def __init__(self, board_mm_per_px: float, max_frames: int | None, parent=None):
        super().__init__(parent)
        self.board_mm_per_px = float(board_mm_per_px)
        self.max_frames = max_frames
        self.results = Latest()
        self.throws = Latest()  # the newest settled throw of dice not yet taken by the GUI
        self._signalled = threading.Event()
        self.processed = 0
        self.last_result: FrameResult | None = None
        # The screen pixels (width, height) the live and the board view show a whole frame in, set by the GUI (None:
        # full size): the frame is made that small here, once, instead of scaled down by the view at every repaint
        self.display_px: tuple[int, int] | None = None
        self.board_display_px: tuple[int, int] | None = None
        self.camera_display_px: dict[str, tuple[int, int] | None] = {}  # a rig: each camera's view, by name
        self.dice_watch: DiceWatch | None = None
        self._dice_checked = False  # the camera's view of the dice said once

    def take(self) -> FrameResult | None:
        """The newest result (None if already taken); lets the worker signal again. A throw of dice read with a
        result the GUI never took (a newer one replaced it) comes with the newest."""
        item = self.results.take()
        self._signalled.clear()
        throw = self.throws.take()
        if item is not None and throw is not None:
            item.throw = throw
        elif throw is not None:
            self.throws.put(throw)
        return item

    def _publish(self, result: FrameResult) -> bool:
        """Keep `result` as the newest; signal the GUI unless it has not taken the last signalled one yet. False
        once `max_frames` have been published (the worker stops)."""
        self.results.put(result)
        self.last_result = result
        self.processed += 1
        if not self._signalled.is_set():
            self._signalled.set()
            self.ready.emit()
        return self.max_frames is None or self.processed < self.max_frames

    def _watch_dice(self, setup) -> None:
        """Watch for thrown dice (the layout's tray, else the whole table off the bases), read in a thread of the
        watch's own."""
        lay = setup.layout
        self.dice_watch = DiceWatch(lay.width_mm, lay.depth_mm, lay.dice_tray_mm,
                                    base_mm={p.id: p.base_mm for p in setup.roster.pieces}, background=True)

    def _dice(self, frame: np.ndarray, number: int, arrived: float, lens, pose, pieces=(),
              markers=()) -> DiceThrow | None:
        """The throw that settled at this frame (seen through `lens` at table `pose`), if dice are watched; a camera
        too coarse for the dice says so once (the figures `fieldglass check-setup` gives: `dice_sight`) and stops
        the watch."""
        watch = self.dice_watch
        if watch is None:
            return None
        throw = watch.feed(frame, arrived, number, lens, pose, pieces, markers)
        if not self._dice_checked and pose is not None:
            self._dice_checked = True
            where = "tray" if not watch.whole_table else "table"
            sight = dice_sight(watch.tray, lens, pose)
            if sight.reads_none:
                self.dice_watch = None
                watch.close()
                self.notice.emit(f"dice: a {DIE_SIZES_MM[1]:g} mm die is {sight.large_face_px:.0f} px across where "
                                 f"the {where} is farthest, too small to count its pips (at least "
                                 f"{READABLE_FACE_PX:.0f} px): type the dice, or see 'fieldglass plan' for a camera "
                                 "that reads them")
                return None
            if not sight.reads_all:
                self.notice.emit(f"dice: dice of {sight.smallest_mm:.0f} mm and larger are read where the {where} is "
                                 "farthest; smaller ones are not")
        return throw

    def _stop_dice(self) -> None:
        if self.dice_watch is not None:
            self.dice_watch.close()

    def _failed(self, name: str, exc: Exception) -> None:
        """Say what broke, never a traceback in the GUI: an InputError as it is, anything else with its kind."""
        text = str(exc) if isinstance(exc, InputError) else f"{name}: {type(exc).__name__}: {exc}"
        self.status.emit("error", text)


class CaptureWorker(PublishingWorker):
    """Runs the vision pipeline on every frame it can and publishes the newest result."""

    def __init__(self, setup, source, *, live: bool = False, board_mm_per_px: float = 2.0,
                 max_frames: int | None = None, dice: bool = False, parent=None):
        """`dice`: watch for thrown dice (the layout's tray, else the whole table off the bases) and hand each
        settled throw with its frame's result."""
        super().__init__(board_mm_per_px, max_frames, parent)
        self.setup = setup
        if dice:
            self._watch_dice(setup)
        self.source = source
        self.live = live
        self.registration: TableRegistration | None = None
        self.stream_lens: StreamLens | None = None
        self._scaled: tuple | None = None  # (frame size, the camera file's lens at it)
        self.rectifier = BoardRectifier(setup.layout)
        self.reader: LiveReader | None = None
        self.queue: FrameQueue | None = None  # a live camera's frames on their way to processing

    # ---- GUI side

    def stop(self) -> None:
        self.requestInterruption()
        close = getattr(self.source, "close", None)
        if self.isRunning():
            self.wait(3000)
        if self.stream_lens is not None:
            self.stream_lens.close()
        self._stop_dice()
        if close:
            try:
                close()
            except Exception:
                pass

    # ---- worker side

    def _camera(self, frame: np.ndarray) -> CameraIntrinsics:
        if self.setup.camera is None:
            cam = getattr(self.source, "camera", None)
            if cam is None:
                raise InputError(f"{self.setup.source}: needs --camera CAM.json")
            return cam.intrinsics
        key = (self.setup.camera, frame.shape[:2])
        if self._scaled is None or self._scaled[0] is not key[0] or self._scaled[1] != key[1]:
            # one lens object per camera file and frame size: the registration (and its chosen lens) is kept
            self._scaled = (*key, camera_for_frame(self.setup.camera, frame, self.setup.source))
        return self._scaled[2]

    def _frames(self):
        """(number, frame, arrival time) of every frame to process; a camera that is unplugged and can reconnect is
        tried again with back-off (vision/reconnect.py), one that delivers nothing for a while is said to have
        stalled."""
        source = reconnecting(self.source, self.status.emit, self.isInterruptionRequested)
        if not self.live:
            for number, frame in source:
                yield number, frame, time.perf_counter()
            return
        grabber = _Grabber(source)
        self.queue = grabber.frames
        grabber.start()
        watch = CameraWatch()
        try:
            while not self.isInterruptionRequested():
                item = grabber.frames.get(timeout=0.1)
                change = watch.poll(time.monotonic()) if item is None else watch.frame(time.monotonic())
                if change:
                    self.status.emit(change, f"{self.setup.source}: camera {change}")
                if item is None:
                    if grabber.done.is_set() and not len(grabber.frames):
                        if grabber.error:
                            raise InputError(grabber.error)
                        return
                    continue
                yield item
        finally:
            grabber.done.set()

    def run(self) -> None:
        name = self.setup.source
        self.status.emit("connected", f"{name}: connected")
        rate = FrameRate()
        try:
            for number, frame, arrived in self._frames():
                if self.isInterruptionRequested():
                    return
                t0 = time.perf_counter()
                mmpp = self.board_mm_per_px  # read once: the GUI may change it meanwhile
                reading, lens, board, cards = self._read_frame(frame, mmpp)
                throw = self._dice(frame, number, arrived, lens, reading.pose, reading.pieces, reading.markers)
                if throw is not None:
                    self.throws.put(throw)
                t1 = time.perf_counter()
                dropped = self.queue.dropped if self.queue is not None else 0
                dropped += getattr(self.source, "decode_dropped", 0)  # (a camera's JPEGs with no thread to decode)
                result = FrameResult(number, frame, reading, lens, board, mmpp, rate.tick(t1), (t1 - t0) * 1000,
                                     cards, (t1 - arrived) * 1000, dropped, arrived,
                                     display_bgra(frame, self.display_px), display_bgra(board, self.board_display_px),
                                     lens_note=self.stream_lens.note)
                if not self._publish(result):
                    break
        except Exception as exc:  # a driver's or a reader's error becomes a message, never a traceback
            self._failed(name, exc)
            return
        if getattr(self.source, "lost", False):
            self.status.emit("lost", f"{name}: camera connection lost")
        elif not self.isInterruptionRequested():
            self.status.emit("ended", f"{name}: no more frames (showing the last one)")

    def _read_frame(self, frame: np.ndarray, mmpp: float):
        """The table in one frame: (its reading, the lens the pose was fitted with, the board rectified at `mmpp`
        mm per pixel or None, the QR cards' payloads). Unrelated photos get a full scan each; a camera or a video
        goes through LiveReader (markers re-detected where the picture changed)."""
        camera = self._camera(frame)
        if self.registration is None or self.registration.camera is not camera:
            pose = self.registration.pose if self.registration else None
            self.registration = TableRegistration(self.setup.layout, camera, pose=pose, refine_lens=False)
            self.reader = LiveReader(self.registration, self.setup.roster)
            if self.stream_lens is not None:
                self.stream_lens.close()
            # the lens refined from the table where measurably better (issue 26), chosen in a thread for a camera
            self.stream_lens = StreamLens(self.registration, self.setup.roster,
                                          enabled=getattr(self.setup, "refine_lens", True), background=self.live,
                                          name=_camera_name(self.setup))
        if isinstance(self.source, ImageSource):
            reading = read_table(frame, self.registration, self.setup.roster)
        else:
            reading = self.reader.read(frame)
        again = self.stream_lens.after(reading)
        if again is not None:  # a lens chosen now: the frame's pieces placed again with it
            reading = again
            self.reader.adopt(again)
        # QR unit cards: read now and then, not every frame (a 4K frame costs about 0.3 s).
        cards = ()
        if self.processed % CARD_EVERY == 0:
            cards = tuple(q.payload for q in detect_qr(frame))
        board = None
        lens = self.registration.lens  # the camera the pose was fitted with (k1 refined from anchors)
        if reading.pose is not None:
            board = self.rectifier.rectify(frame, lens, reading.pose, mmpp)
        return reading, lens, board, cards


def _camera_name(setup) -> str:
    """The camera file's name for the lens line ("cam.json"), or the source's own camera."""
    name = (getattr(setup, "names", None) or {}).get("camera")
    return Path(name).name if name else "the source's camera"
