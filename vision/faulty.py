"""A frame source that fails on cue: it stalls, disconnects and comes back, wrapping any source (the synthetic
table, a folder of frames, a list of readings). For the tests and demonstrations of a camera that fails: the capture
worker's reconnect with back-off (vision/reconnect.py) and the tracker that counts no time without frames.

`Fault(at, kind, ...)`: before the wrapped source's `at`-th item, "stall" waits `seconds` (with the given `sleep`,
a fake clock in tests) and goes on; "disconnect" ends the iteration with `lost` set, as an unplugged camera ends
(vision/sources.py `VideoSource`); `reconnect()` then fails `refusals` times before the camera is back, and the next
iteration goes on with the item it stopped before."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from common.errors import InputError

FAULT_KINDS = ("stall", "disconnect")


@dataclass(frozen=True)
class Fault:
    """One failure: before item `at` (counted from 0 over the wrapped source), a stall of `seconds` or a disconnect
    that `refusals` reconnect attempts find still gone."""

    at: int
    kind: str
    seconds: float = 0.0
    refusals: int = 0

    def __post_init__(self):
        if self.kind not in FAULT_KINDS:
            raise InputError(f"fault at item {self.at}: unknown kind {self.kind!r} (stall or disconnect)")
        if self.at < 0 or self.seconds < 0 or self.refusals < 0:
            raise InputError(f"fault at item {self.at}: negative item, seconds or refusals")


class FaultySource:
    """`source`'s items with `faults` struck on cue. Iterate it again after a disconnect and `reconnect()`."""

    def __init__(self, source: Iterable, faults: Iterable[Fault], sleep: Callable[[float], None] = time.sleep,
                 name: str = "faulty camera"):
        self.source = source
        self.name = name
        self.faults = {f.at: f for f in faults}
        self.sleep = sleep
        self.lost = False
        self.attempts = 0  # reconnect attempts made
        self._items: Iterator | None = None
        self._n = 0  # index of the next item
        self._held = None  # the item a disconnect stopped before
        self._refusals = 0

    def __getattr__(self, name: str):
        # anything else is the wrapped source's (the synthetic table brings its own `camera`)
        if name == "source":
            raise AttributeError(name)
        return getattr(self.source, name)

    def __iter__(self) -> Iterator:
        if self.lost:
            return  # unplugged: nothing until it is reconnected
        if self._items is None:
            self._items = iter(self.source)
        while True:
            if self._held is None:
                try:
                    self._held = next(self._items)
                except StopIteration:
                    return
                fault = self.faults.get(self._n)
                if fault is not None and fault.kind == "stall":
                    self.sleep(fault.seconds)
                elif fault is not None:
                    self.lost, self._refusals = True, fault.refusals
                    return
            item, self._held = self._held, None
            self._n += 1
            yield item

    def reconnect(self) -> bool:
        """One attempt to reach the camera again: True when it is back."""
        self.attempts += 1
        if self._refusals > 0:
            self._refusals -= 1
            return False
        self.lost = False
        return True

    def close(self) -> None:
        close = getattr(self.source, "close", None)
        if close is not None:
            close()
