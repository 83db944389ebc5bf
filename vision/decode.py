"""A camera's JPEG frames decoded on every core, handed out in the order they came.

An MJPG camera (most USB cameras at 1080p and 4K) sends each frame as a JPEG; decoding a 4K one takes about 30 ms
on one core, nearly a frame's interval at 30 fps, so one decoding thread is the bottleneck. `FrameDecoder` decodes
in a pool of threads (`cv2.imdecode` releases the GIL), several frames at once, and hands them out in order. What
is waiting for a free decoding thread is bounded: when more buffers than `waiting` wait, the oldest of them is
dropped (not decoded) and counted, so a decoder that falls behind never queues without bound and never delays the
newest frame for an older one. A frame that is not a JPEG buffer (a backend that decoded it already) is passed on
as it comes, in its place in the order.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

import cv2
import numpy as np

from common.imagehead import JPEG_START

Tag = TypeVar("Tag")
_END = object()


def is_jpeg(data: Any) -> bool:
    """Whether `data` is an undecoded JPEG: bytes, or a flat or one-row uint8 array (what OpenCV's V4L2 backend
    returns with CAP_PROP_CONVERT_RGB off), starting with the JPEG's FF D8."""
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data[:2]) == JPEG_START
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.size < 2:
        return False
    if data.ndim > 2 or (data.ndim == 2 and 1 not in data.shape):
        return False
    flat = data.reshape(-1)
    return int(flat[0]) == 0xFF and int(flat[1]) == 0xD8


def decode_jpeg(data: bytes | np.ndarray) -> np.ndarray | None:
    """The BGR uint8 frame of a JPEG buffer; None when it is corrupt (a USB transfer cut short)."""
    buffer = np.frombuffer(data, np.uint8) if isinstance(data, bytes | bytearray | memoryview) else data.reshape(-1)
    return cv2.imdecode(buffer, cv2.IMREAD_COLOR)


class FrameDecoder:
    """`decoded(items)`: (tag, JPEG buffer or frame) in, (tag, BGR frame) out in the same order, the JPEGs decoded
    in `workers` threads (default: one per core). At most `waiting` buffers wait for a free thread: the oldest
    waiting one is dropped when another comes (`dropped` counts them); a corrupt JPEG is skipped (`corrupt`)."""

    def __init__(self, workers: int | None = None, waiting: int = 1,
                 decode: Callable[[Any], np.ndarray | None] = decode_jpeg):
        if waiting < 0:
            raise ValueError("a frame decoder cannot keep a negative number of frames waiting")
        self.workers = max(1, workers or os.cpu_count() or 2)
        self.waiting = waiting
        self.decode = decode
        self.dropped = 0  # JPEGs dropped before decoding: every thread was busy and `waiting` waited already
        self.corrupt = 0  # JPEGs that did not decode

    def decoded(self, items: Iterable[tuple[Tag, Any]]) -> Iterator[tuple[Tag, np.ndarray]]:
        """The frames of `items`, in order. `items` is read in a thread of its own (a camera's read blocks until
        its next frame), one item ahead of what was handed out; its errors are raised here."""
        source = iter(items)
        reader = ThreadPoolExecutor(1, thread_name_prefix="fieldglass-read")
        pool = ThreadPoolExecutor(self.workers, thread_name_prefix="fieldglass-decode")
        pending: deque[tuple[Tag, Future]] = deque()  # in the order they came
        ahead: Future | None = reader.submit(next, source, _END)
        try:
            while ahead is not None or pending:
                if pending and pending[0][1].done():
                    tag, done = pending.popleft()
                    frame = done.result()
                    if frame is None:
                        self.corrupt += 1
                    else:
                        yield tag, frame
                    continue
                wait([f for f in (ahead, pending[0][1] if pending else None) if f is not None],
                     return_when=FIRST_COMPLETED)
                if ahead is not None and ahead.done():
                    item = ahead.result()
                    ahead = None if item is _END else reader.submit(next, source, _END)
                    if item is not _END:
                        self._add(pending, pool, *item)
        finally:
            for _, f in pending:
                f.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            reader.shutdown(wait=True)  # the read under way ends (a frame's interval) before the source is closed

    def _add(self, pending: deque, pool: ThreadPoolExecutor, tag: Any, data: Any) -> None:
        """`data` decoded in the pool (a JPEG) or passed on as it is, after the oldest waiting JPEGs beyond
        `waiting` were dropped."""
        if is_jpeg(data):
            pending.append((tag, pool.submit(self.decode, data)))
        else:
            done: Future = Future()
            done.set_result(data)
            pending.append((tag, done))
        # The pool starts its JPEGs in the order they came, `workers` at a time: those beyond the first `workers`
        # not yet decoded wait for a thread (counted so, not by `running()`: a thread picks a new one up a moment
        # after it is submitted).
        queued = [entry for entry in pending if not entry[1].done()][self.workers:]
        for entry in queued[:max(0, len(queued) - self.waiting)]:
            if entry[1].cancel():  # (it may have started meanwhile: then it is decoded and handed out)
                pending.remove(entry)
                self.dropped += 1
