"""A progress bar on stderr for long work; quiet when stderr is not a terminal, except for a final line."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], total: int, label: str, stream=None) -> Iterator[T]:
    """Yield `items`, drawing `label [####....] k/total  elapsed` as they pass."""
    stream = stream or sys.stderr
    live = getattr(stream, "isatty", lambda: False)()
    start = time.perf_counter()
    done = 0
    for item in items:
        yield item
        done += 1
        if live:
            filled = int(24 * done / max(total, 1))
            bar = "#" * filled + "." * (24 - filled)
            stream.write(f"\r{label} [{bar}] {done}/{total}  {time.perf_counter() - start:5.1f} s")
            stream.flush()
    if live:
        stream.write("\n")
    else:
        stream.write(f"{label}: {done}/{total} in {time.perf_counter() - start:.1f} s\n")
    stream.flush()
