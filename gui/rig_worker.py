"""The capture worker of a rig (several cameras over one table), in its own thread.

One capture thread per camera (vision/rig_capture.py `CameraCapture`: every frame of a file, only the newest of a
live camera) feeds the worker the cameras' frames paired into instants; each instant is read as one table
(vision/rig_stream.py `RigStreamReader`: each camera registered from the anchors it sees, the views fused, a piece
any camera sees under a hand held occluded) and published like one camera's `FrameResult`, with every camera's own
frame and state in `views` and one board view of the whole table composed from all of them. A camera that stalls
or ends is said once (`note`) and the others go on; the rig has ended when every camera has. With `dice`, thrown
dice are watched through one camera, the one that reads them and sees the tray (else the table) largest
(`dice_camera`): two cameras reading one throw would throw it twice. While that camera is not registered another
that reads the dice takes its place.

`setup` is duck-typed as for `CaptureWorker` (`layout`, `roster`, `source`); `cameras` gives (name, intrinsics,
frame source) per camera in the rig's order, each source iterable as (number, BGR frame) with an optional
`close()`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence

import numpy as np
from PySide6.QtCore import Signal

from calibration.camera import CameraIntrinsics
from calibration.projection import table_to_pixels
from gui.worker import CameraFrame, FrameRate, FrameResult, PublishingWorker
from vision.dice_watch import dice_sight, tray_px_per_mm
from vision.reconnect import reconnecting
from vision.rectify import BoardRectifier, composite, display_bgra
from vision.rig_capture import STALL_S, CameraCapture, paired
from vision.rig_stream import RigFrame, RigStreamReader


def _timed(source, stop: threading.Event, report) -> Iterator[tuple[int, float, np.ndarray]]:
    """(number, arrival time from time.perf_counter, frame) of a source's frames until `stop`; a camera that is
    unplugged and can reconnect is tried again with back-off (vision/reconnect.py), each change said by `report`."""
    for number, frame in reconnecting(source, lambda state, text: report(text), stop.is_set):
        if stop.is_set():
            return
        yield number, time.perf_counter(), frame


class RigCaptureWorker(PublishingWorker):
    """Reads every camera of a rig at once and publishes the newest fused result (the `CaptureWorker` interface:
    `ready`, `status`, `take()`, `stop()`, `last_result`, `processed`, `board_mm_per_px`).

    Signals: `ready()` when a result can be taken; `status(state, text)` for the rig as a whole ("connected",
    "ended", "error"); `note(text)` for one camera that stalled, came back or ended while the others go on."""

    note = Signal(str)

    def __init__(self, setup, cameras: Sequence[tuple[str, CameraIntrinsics, object]], *, live: Sequence[bool],
                 board_mm_per_px: float = 2.0, max_frames: int | None = None, stall_s: float = STALL_S,
                 dice: bool = False, parent=None):
        super().__init__(board_mm_per_px, max_frames, parent)
        self.dice_camera: str | None = None  # the camera the dice are watched through, once one is registered
        self._dice_registered: set[str] = set()  # the cameras registered at some instant
        if dice:
            self._watch_dice(setup)
        self.setup = setup
        self.cameras = list(cameras)
        self.live = list(live)
        self.stall_s = stall_s
        self._stop = threading.Event()
        self.rectifiers = [BoardRectifier(setup.layout) for _ in self.cameras]
        self.reader = RigStreamReader(setup.layout, setup.roster, [(name, intr) for name, intr, _ in self.cameras])
        self.notes: list[str] = []

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _, _ in self.cameras)

    # ---- GUI side

    def stop(self) -> None:
        self._stop.set()
        self.requestInterruption()
        if self.isRunning():
            self.wait(5000)
        self._stop_dice()
        for _, _, source in self.cameras:
            close = getattr(source, "close", None)
            if close:
                try:
                    close()
                except Exception:
                    pass

    # ---- worker side

    def _note(self, text: str) -> None:
        self.notes.append(text)
        self.note.emit(text)

    def run(self) -> None:
        what = f"rig ({', '.join(self.names)})"
        self.status.emit("connected", f"{what}: connected")
        captures = [CameraCapture(name, _timed(source, self._stop, self._note), live)
                    for (name, _, source), live in zip(self.cameras, self.live, strict=True)]
        rate = FrameRate()
        try:
            for number, t, shot in paired(captures, self._note, self.stall_s):
                if self.isInterruptionRequested():
                    return
                t0 = time.perf_counter()
                mmpp = self.board_mm_per_px
                rig = self.reader.read(shot.images, t)
                result = self._result(number, rig, shot.images, mmpp, t)
                throw = self._rig_dice(rig, shot.images, number, t)
                if throw is not None:
                    self.throws.put(throw)
                t1 = time.perf_counter()
                result.fps, result.process_ms, result.latency_ms = rate.tick(t1), (t1 - t0) * 1000, (t1 - t) * 1000
                if not self._publish(result):
                    break
        except Exception as exc:  # a driver's or a reader's error becomes a message, never a traceback
            self._failed(what, exc)
            return
        finally:
            for c in captures:
                c.close()
        if not self.isInterruptionRequested():
            self.status.emit("ended", f"{what}: no more frames (showing the last ones)")

    def _rig_dice(self, rig: RigFrame, images, number: int, t: float):
        """The throw that settled at this instant, watched through `dice_camera`: chosen (`choose_dice_camera`) of
        the registered cameras that read dice there (`dice_sight`) at the first instant one is registered, and again
        at an instant it is not (a hand over its anchors, a knock) while another is. The watch then starts afresh on
        the new camera (its frames are no motion against the old one's) and says what it reads there. Waited for:
        a lost camera with no other to take its place, and, while none reads, the cameras not yet registered (the
        first to register may be a coarse one); once every camera has been registered and none reads the dice, the
        watch says so and stops."""
        if self.dice_watch is None:
            return None
        shapes = {name: image.shape for name, image in zip(self.names, images, strict=True) if image is not None}
        views = {v.name: v for v in rig.views if v.reading.pose is not None and v.name in shapes}
        if self.dice_camera not in views:
            self._dice_registered.update(views)
            tray = self.dice_watch.tray
            readers = [v for v in views.values() if not dice_sight(tray, v.camera, v.reading.pose).reads_none]
            if readers:
                chosen = choose_dice_camera(tray, readers, shapes)
            elif self.dice_camera is None and len(self._dice_registered) == len(self.names):
                chosen = choose_dice_camera(tray, list(views.values()), shapes)  # none reads: said, and stopped
            else:
                chosen = None  # a camera that may read them is waited for
            if chosen is not None and self.dice_camera is not None:
                self.dice_watch.restart()
                self._dice_checked = False  # what the new camera reads of the dice, said as for the first
                self.notice.emit(f"dice: watched through {chosen} now ({self.dice_camera} is not registered)")
            if chosen is not None:
                self.dice_camera = chosen
        view = views.get(self.dice_camera)
        if view is None:
            return None
        image = images[self.names.index(view.name)]
        return self._dice(image, number, t, view.camera, view.reading.pose, rig.reading.pieces, view.reading.markers)

    def _result(self, number: int, rig: RigFrame, images, mmpp: float, arrived: float) -> FrameResult:
        """The instant as the dashboard draws it: the fused reading, each camera's frame, lens, pose and state, and
        the board composed from every registered camera's top-down view (the first camera's where several see)."""
        views, boards = [], []
        read = {v.name: v for v in rig.views}
        for (name, _, _), image, rectifier in zip(self.cameras, images, self.rectifiers, strict=True):
            view = read.get(name)
            pose = view.reading.pose if view is not None else None
            lens = view.camera if view is not None else None
            views.append(CameraFrame(name, image, lens, pose, rig.status.get(name, ""), rig.hidden.get(name, ()),
                                     display_bgra(image, self.camera_display_px.get(name))))
            if pose is not None and image is not None:
                boards.append((rectifier.rectify(image, lens, pose, mmpp), rectifier.coverage(image.shape)))
            else:
                boards.append(None)
        first = next((v for v in views if v.pose is not None), None) or next(v for v in views if v.frame is not None)
        camera = first.camera or next(intr for name, intr, _ in self.cameras if name == first.name)
        board = composite(boards)
        return FrameResult(number, first.frame, rig.reading, camera, board, mmpp, 0.0, 0.0, arrived=arrived,
                           board_shown=display_bgra(board, self.board_display_px), views=tuple(views))


def choose_dice_camera(tray_mm, views, shapes: dict) -> str | None:
    """The camera of the registered `views` (vision.rig.CameraView) that sees the dice tray (a polygon, table mm)
    best: of those that hold it whole in their frame (`shapes`: name -> frame shape), else of all, the one where a
    die is largest where the tray is farthest from it. None while no camera is registered."""
    best = None
    for v in views:
        h, w = shapes[v.name][:2]
        corners = table_to_pixels(np.column_stack([tray_mm, np.zeros(len(tray_mm))]), v.camera, v.reading.pose)
        whole = bool(np.all((corners >= 0) & (corners < (w, h))))
        score = (whole, float(tray_px_per_mm(tray_mm, v.camera, v.reading.pose).min()))
        if best is None or score > best[0]:
            best = (score, v.name)
    return None if best is None else best[1]
