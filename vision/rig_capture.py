"""A rig's cameras captured at once: one capture thread per camera, their frames paired into instants.

Pairing: a video or a folder of frames gives frame i of each camera at the same instant (every frame is kept, the
captures wait for the slowest); a live camera or stream gives its newest frame (older ones are dropped). A camera
whose frames stop (its video ended early, a frame unreadable, a camera unplugged, no frame for `stall_s`) is left
out of the instants from then on and said once in one line; the others go on. Used by `fieldglass record --rig`
(fieldglass/rig_recording.py) and the dashboard over a rig (gui/rig_worker.py). No Qt, no clock of its own beyond
the stall timeout.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from common.errors import InputError
from vision.reconnect import STALL_S  # a camera this long without a frame is stalled (and left out till it gives one)

_END = object()


@dataclass(frozen=True)
class RigShot:
    """One instant of the rig: each camera's frame (None: none from it), in the rig's order, and its time (s)."""

    images: tuple[np.ndarray | None, ...]
    t: float

    def picture(self) -> np.ndarray | None:
        """The image kept with an event: the first camera's that has one."""
        return next((im for im in self.images if im is not None), None)


class CameraCapture:
    """One camera's frames (number, time s, image) read on a thread of their own into a queue: every frame of a
    file (the reader waits for room), only the newest of a live camera."""

    def __init__(self, name: str, frames: Iterable[tuple[int, float, np.ndarray]], live: bool, depth: int = 4):
        self.name, self.live = name, live
        self.queue: queue.Queue = queue.Queue(maxsize=1 if live else depth)
        self.stop = threading.Event()
        self.why = "its source ended"
        self.thread = threading.Thread(target=self._run, args=(frames,), name=f"capture {name}", daemon=True)
        self.thread.start()

    def _run(self, frames: Iterable[tuple[int, float, np.ndarray]]) -> None:
        try:
            for item in frames:
                if not self._put(item):
                    return
        except (InputError, OSError) as exc:  # an unreadable frame: this camera drops out, the others go on
            self.why = str(exc)
        self._put(_END)

    def _put(self, item) -> bool:
        while not self.stop.is_set():
            if self.live and item is not _END:
                try:
                    self.queue.get_nowait()  # a live camera: the newest frame only
                except queue.Empty:
                    pass
            try:
                self.queue.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def take(self, timeout: float):
        """The next frame (i, t, image), _END when the camera has ended, None when none came within `timeout`."""
        try:
            return self.queue.get(timeout=timeout) if timeout > 0 else self.queue.get_nowait()
        except queue.Empty:
            return None

    def close(self) -> None:
        self.stop.set()


def paired(workers: Sequence[CameraCapture], report: Callable[[str], None], stall_s: float = STALL_S
           ) -> Iterator[tuple[int, float, RigShot]]:
    """The rig's instants: (frame number, t, RigShot) with one frame per camera that gave one. Each camera that
    ends while others go on, or stalls, is reported once (`report`, one line), and again when a stalled one is
    back; cameras that all end together (the videos' end) are not."""
    ended: set[str] = set()
    stalled: set[str] = set()
    last = (-1, 0.0)
    while len(ended) < len(workers):
        items, ending = [], []
        for w in workers:
            got = None if w.name in ended else w.take(0.0 if w.name in stalled else stall_s)
            if got is _END:
                ended.add(w.name)
                stalled.discard(w.name)
                ending.append(w)
                got = None
            elif got is None and w.name not in ended and w.name not in stalled:
                stalled.add(w.name)
                report(f"{w.name}: no frame for {stall_s:g} s after frame {last[0]} (stalled); "
                       f"{_others(workers, ended | stalled)}")
            elif got is not None and w.name in stalled:
                stalled.discard(w.name)
                report(f"{w.name}: frames again from frame {got[0]}")
            items.append(got)
        present = [x for x in items if x is not None]
        if present or stalled:
            for w in ending:
                report(f"{w.name}: no frame after frame {last[0]} ({w.why}); {_others(workers, ended)}")
        if not present:
            if stalled and len(ended) < len(workers):
                time.sleep(0.05)  # every camera that has not ended is stalled: wait for one
            continue
        i, t = present[0][0], present[0][1]
        last = (i, t)
        yield i, t, RigShot(tuple(x[2] if x is not None else None for x in items), t)


def _others(workers: Sequence[CameraCapture], gone: set[str]) -> str:
    left = [w.name for w in workers if w.name not in gone]
    return f"going on with {', '.join(left)}" if left else "no camera left"
