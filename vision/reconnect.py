"""A camera that fails: its state from when its frames arrive, and reconnecting with back-off. Pure (no Qt, no
clock of its own: times and the sleep are given), so the policy is tested without a camera or a GUI; the capture
worker (gui/worker.py) runs it.

States: ``connected`` (frames arrive), ``stalled`` (no frame for `stall_s` seconds; the source has not said it is
gone), ``lost`` (the source ended as an unplugged camera ends), ``reconnecting`` (an attempt failed; the next one
after a longer wait). While the camera is not connected the tracker counts no time (vision/tracking.py
`Tracker.camera_gap`): no piece is reported missing and no move committed because the camera was gone."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

STALL_S = 2.0
"""Seconds without a frame before a camera that has not ended is called stalled."""

CAMERA_STATES = ("connected", "stalled", "lost", "reconnecting")


def backoff_delays(first_s: float = 0.5, factor: float = 2.0, most_s: float = 8.0) -> Iterator[float]:
    """Seconds to wait before each reconnect attempt: 0.5, 1, 2, 4, 8, 8, ... (endless: a camera plugged back in
    after an hour is still found, without trying it hundreds of times a minute)."""
    delay = first_s
    while True:
        yield min(delay, most_s)
        delay *= factor


@dataclass
class CameraWatch:
    """Says when the camera's state changes, from the times its frames arrive (seconds, any clock)."""

    stall_s: float = STALL_S
    state: str = "connected"
    last_frame_t: float | None = None

    def frame(self, t: float) -> str | None:
        """A frame arrived at `t`: "connected" when that is news (after a stall or a loss), else None."""
        self.last_frame_t = t
        return self._to("connected")

    def poll(self, t: float) -> str | None:
        """No frame at `t`: "stalled" once no frame has come for `stall_s`, else None."""
        if self.state == "connected" and self.last_frame_t is not None and t - self.last_frame_t >= self.stall_s:
            return self._to("stalled")
        return None

    def _to(self, state: str) -> str | None:
        if state == self.state:
            return None
        self.state = state
        return state


def reconnecting(source, report: Callable[[str, str], None], stop: Callable[[], bool],
                 sleep: Callable[[float], None] = time.sleep, delays: Iterator[float] | None = None) -> Iterator:
    """The items of `source`; when it ends lost (`source.lost`, an unplugged camera) and can `reconnect()` (True
    when it is back), it is tried again after each of `delays` (default `backoff_delays()`) until it is back or
    `stop()`; `report(state, text)` says each change. A source that simply ends (a file) ends the items."""
    name = getattr(source, "name", "camera")
    while True:
        yield from source
        if not getattr(source, "lost", False) or not hasattr(source, "reconnect") or stop():
            return
        report("lost", f"{name}: camera connection lost; reconnecting")
        for attempt, delay in enumerate(delays if delays is not None else backoff_delays(), 1):
            sleep(delay)
            if stop():
                return
            if source.reconnect():
                break
            report("reconnecting", f"{name}: not back after {attempt} attempt(s); trying again")
        report("connected", f"{name}: connected again")
