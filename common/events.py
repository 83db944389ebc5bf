"""Plain callback lists: the data model emits, a view connects. No GUI toolkit is imported here (napari style)."""

from __future__ import annotations

from collections.abc import Callable


class Signal:
    """A list of callbacks: `connect(fn)`, `emit(*args)`. The GUI connects; the model never imports Qt."""

    def __init__(self) -> None:
        self._callbacks: list[Callable] = []

    def connect(self, fn: Callable) -> None:
        self._callbacks.append(fn)

    def disconnect(self, fn: Callable) -> None:
        if fn in self._callbacks:
            self._callbacks.remove(fn)

    def emit(self, *args) -> None:
        for fn in list(self._callbacks):
            fn(*args)


class Signals:
    """A named group of signals: `Signals("reading", "position").position.connect(fn)`."""

    def __init__(self, *names: str) -> None:
        for name in names:
            setattr(self, name, Signal())
