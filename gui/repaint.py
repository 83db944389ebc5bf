"""How fast the dashboard shows frames: the real main window fed processed frames on a clock, its repaints counted.

`measure_repaint` hands the window one `FrameResult` after another as the capture worker would (the vision work is
done beforehand: this measures the dashboard alone) and counts, from the live view's own `painted` signal, the
frames that reached the screen and the time from each frame's hand-over to the repaint that showed it. Used by
`fieldglass bench dashboard` (fieldglass/benchmarks/dashboard.py), which prints the figures; no test times it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer

from gui.app import MainWindow, application, busiest_piece
from gui.worker import FrameResult
from vision.rectify import display_bgra


@dataclass
class RepaintRun:
    """One run: `offered` frames handed over in `seconds`, `shown` of them painted by the live view (a frame
    replaced by the next one before a repaint is never shown), `latency_ms` from each shown frame's hand-over to
    its repaint, `show_ms` the window's own work per frame (image, session, overlays, panels), `paints` the live
    and board views' repaints, `updates` the overlay items made or redrawn, `cpu_s` the GUI thread's CPU time
    (on a shared machine the wall-clock figures depend on the other jobs; this one much less)."""

    fps: float | None
    seconds: float = 0.0
    offered: int = 0
    shown: int = 0
    latency_ms: list[float] = field(default_factory=list)
    show_ms: list[float] = field(default_factory=list)
    paints: tuple[int, int] = (0, 0)
    updates: int = 0
    cpu_s: float = 0.0  # the GUI thread's CPU time over the run (time.thread_time): what a free core would need

    @property
    def cpu_ms_per_frame(self) -> float:
        return 1000.0 * self.cpu_s / self.shown if self.shown else float("nan")

    @property
    def shown_fps(self) -> float:
        return self.shown / self.seconds if self.seconds else 0.0


class _Driver:
    """Hands the window the next frame: on a timer at `fps`, or (fps None) as soon as the last one was painted."""

    def __init__(self, window: MainWindow, results: Sequence[FrameResult], fps: float | None, seconds: float):
        self.window, self.results, self.seconds = window, list(results), float(seconds)
        self.run = RepaintRun(fps)
        self.pending: float | None = None
        self.loop = QEventLoop()
        self.t0 = 0.0
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self.offer)

    def offer(self) -> None:
        now = time.perf_counter()
        if now - self.t0 >= self.seconds:
            self.timer.stop()
            self.loop.quit()
            return
        r = self.results[self.run.offered % len(self.results)]
        r = replace(r, number=self.run.offered, arrived=now)
        self.run.offered += 1
        self.pending = now
        self.window.show_result(r)
        self.run.show_ms.append((time.perf_counter() - now) * 1000.0)

    def painted(self, t: float) -> None:
        if self.pending is None:
            return
        self.run.latency_ms.append((t - self.pending) * 1000.0)
        self.run.shown += 1
        self.pending = None
        if self.run.fps is None:
            QTimer.singleShot(0, self.offer)

    def go(self) -> RepaintRun:
        w = self.window
        paints0 = (w.live_view.paints, w.board_view.paints)
        updates0 = w.live_view.updates + w.board_view.updates
        w.live_view.painted.connect(self.painted)
        self.t0 = time.perf_counter()
        cpu0 = time.thread_time()
        if self.run.fps is None:
            QTimer.singleShot(0, self.offer)
            self.timer.start(50)  # only to end the run on time
            self.timer.timeout.disconnect(self.offer)
            self.timer.timeout.connect(self._maybe_end)
        else:
            self.timer.start(max(1, round(1000.0 / self.run.fps)))
        self.loop.exec()
        self.run.seconds = time.perf_counter() - self.t0
        self.run.cpu_s = time.thread_time() - cpu0
        w.live_view.painted.disconnect(self.painted)
        self.run.paints = (w.live_view.paints - paints0[0], w.board_view.paints - paints0[1])
        self.run.updates = w.live_view.updates + w.board_view.updates - updates0
        return self.run

    def _maybe_end(self) -> None:
        if time.perf_counter() - self.t0 >= self.seconds:
            self.timer.stop()
            self.loop.quit()


def open_bench_window(setup, size: tuple[int, int], settings_dir: str | Path) -> MainWindow:
    """The dashboard on `setup`, shown at `size`, with a settings file of its own (the user's is left alone)."""
    application()
    settings = QSettings(str(Path(settings_dir) / "gui.ini"), QSettings.Format.IniFormat)
    window = MainWindow(setup, settings=settings)
    window.resize(*size)
    window.show()
    return window


def measure_repaint(window: MainWindow, results: Sequence[FrameResult], fps: float | None, seconds: float,
                    select: bool = True) -> RepaintRun:
    """Feed `results` round and round to the window for `seconds`, at `fps` (None: each as soon as the last one is
    on screen), the busiest piece selected (its targets drawn) when `select`; the figures of the run."""
    app = application()
    window.show_result(replace(results[0], arrived=0.0))
    if select:
        pid = busiest_piece(window.session)
        if pid:
            window.session.select(pid)
    for _ in range(3):  # settle: the first frame's overlays made, the window laid out
        app.processEvents()
    return _Driver(window, results, fps, seconds).go()


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, float), q)) if len(values) else float("nan")


def platform_name() -> str:
    return application().platformName()


def frame_results(frames: Sequence[tuple], board_mm_per_px: float, window: MainWindow | None = None
                  ) -> list[FrameResult]:
    """[(frame, reading, lens, board)] read beforehand -> the capture worker's results: made for `window`'s views'
    sizes as the worker makes them (`display_px`), or full size."""
    live = window.live_view.display_px() if window is not None else None
    board_px = window.board_view.display_px() if window is not None else None
    return [FrameResult(n, frame, reading, lens, board, board_mm_per_px, 0.0, 0.0, shown=display_bgra(frame, live),
                        board_shown=display_bgra(board, board_px))
            for n, (frame, reading, lens, board) in enumerate(frames)]


def flush() -> None:
    """Let Qt finish what it has queued (a closed window's last events)."""
    application().processEvents()
