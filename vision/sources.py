"""Frame sources: a camera, a video file or stream URL, image files (or a glob), and the synthetic table.

Every source yields (frame_number, BGR uint8 frame) and ends when it has no more frames.
`open_source` turns the text a user types after `--source` into a source.
"""

from __future__ import annotations

import glob
import threading
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from common.errors import InputError
from common.imagehead import image_problem
from vision.decode import FrameDecoder, is_jpeg
from vision.synthetic import SyntheticSource, demo_scene

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm"}


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file; InputError naming the file when it is missing or not an image."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: file not found")
    if path.is_dir():
        raise InputError(f"{path}: is a folder, expected an image")
    try:
        problem = image_problem(path)  # from the header, before decoding a byte
    except OSError as exc:
        raise InputError(f"{path}: cannot read the image ({exc.strerror or exc})") from None
    if problem:
        raise InputError(f"{path}: {problem}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise InputError(f"{path}: not an image OpenCV can read")
    return image


def expand_paths(patterns: list[str]) -> list[str]:
    """Expand globs the shell did not (on Windows, or quoted); a pattern with no match is kept to fail by name."""
    out: list[str] = []
    for p in patterns:
        matches = sorted(glob.glob(p)) if any(ch in p for ch in "*?[") else []
        out.extend(matches or [p])
    return out


class ImageSource:
    """Still images, in order; a glob is expanded."""

    def __init__(self, patterns: list[str]):
        self.paths = expand_paths(patterns)
        self.name = ", ".join(self.paths[:3]) + (" ..." if len(self.paths) > 3 else "")

    def __iter__(self) -> Iterator[tuple[int, np.ndarray]]:
        for n, p in enumerate(self.paths):
            yield n, read_image(p)

    def close(self) -> None:
        pass


MJPG = cv2.VideoWriter_fourcc(*"MJPG")


def _quiet_capture(spec: int | str) -> cv2.VideoCapture:
    """cv2.VideoCapture(spec) without OpenCV's log of every backend it tried (a missing camera is said once, in our
    own words, by the caller)."""
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(spec)
    finally:
        cv2.utils.logging.setLogLevel(level)


def undecoded_mjpg(capture: cv2.VideoCapture) -> bool:
    """Ask a camera for MJPG, its frames handed over undecoded (to be decoded on every core, vision/decode.py):
    True when it agreed. Only with OpenCV's V4L2 backend (Linux), the one that hands a JPEG frame over as it came
    (a one-row buffer) when CAP_PROP_CONVERT_RGB is off; other backends ignore that property or hand over raw
    pixels in their own layout, and are left to decode as they do."""
    if capture.getBackendName() != "V4L2":
        return False
    capture.set(cv2.CAP_PROP_FOURCC, MJPG)  # a USB camera sends 1080p and 4K at 30 fps only as MJPG
    if int(capture.get(cv2.CAP_PROP_FOURCC)) != MJPG:
        return False
    return bool(capture.set(cv2.CAP_PROP_CONVERT_RGB, 0))


class VideoSource:
    """Anything cv2.VideoCapture opens: a camera index, a video file, a stream URL.

    A camera (an index) on Linux is asked for MJPG with its JPEG frames handed over undecoded (`undecoded_mjpg`),
    and they are decoded in a pool of threads, one per core (`FrameDecoder`: a 4K JPEG takes about a frame's
    interval on one core), and handed out in order; `decode_dropped` counts those it had no thread for. A buffer that is
    not a JPEG after all makes the source turn the backend's conversion back on (that frame skipped); frames that
    come decoded are used as they come."""

    def __init__(self, spec: int | str):
        self.spec = spec
        self.name = f"camera {spec}" if isinstance(spec, int) else str(spec)
        if not self._open():
            what = "cannot open the camera" if isinstance(spec, int) else "cannot open as a video or stream"
            raise InputError(f"{self.name}: {what}")
        self.lost = False
        self.decoder = FrameDecoder()

    def _open(self) -> bool:
        """Open the capture: True when it opened (a camera is then asked for its JPEGs undecoded)."""
        self.capture = _quiet_capture(self.spec)
        opened = self.capture.isOpened()
        self.raw_jpeg = opened and isinstance(self.spec, int) and undecoded_mjpg(self.capture)
        return opened

    @property
    def decode_dropped(self) -> int:
        """Frames dropped undecoded (every decoding thread busy)."""
        return self.decoder.dropped

    def _buffers(self) -> Iterator[tuple[int, np.ndarray]]:
        """(number, frame or undecoded JPEG) as the capture hands them over."""
        n = 0
        while True:
            ok, frame = self.capture.read()
            if not ok or frame is None:
                # A camera that stops delivering has been unplugged; a file has simply ended.
                self.lost = isinstance(self.spec, int)
                return
            if self.raw_jpeg and not is_jpeg(frame):  # not MJPG after all: the backend converts again
                self.raw_jpeg = False
                self.capture.set(cv2.CAP_PROP_CONVERT_RGB, 1)
                continue  # (this one is in the driver's own layout)
            yield n, frame
            n += 1

    def __iter__(self) -> Iterator[tuple[int, np.ndarray]]:
        if not self.raw_jpeg:  # decoded by the backend: read in the caller's thread, as it comes
            yield from self._buffers()
            return
        yield from self.decoder.decoded(self._buffers())

    def reconnect(self) -> bool:
        """Open a lost camera again (unplugged and plugged back in): True when it is back. The capture worker calls
        it with back-off (vision/reconnect.py); a file that ended is not lost and is never reopened."""
        self.capture.release()
        self.lost = not self._open()
        return not self.lost

    def close(self) -> None:
        self.capture.release()


def is_live(spec: str) -> bool:
    """Whether a source spec names a live camera (an index such as '0') or a stream URL: frames come on the
    camera's clock and may be dropped, unlike a file's."""
    return spec.isdigit() or "://" in spec


def image_folder(path: Path) -> list[str]:
    """The images in a folder, in name order (a video exported as frames); InputError when it holds none."""
    files = sorted(str(p) for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise InputError(f"{path}: the folder holds no images")
    return files


def open_source(spec: str, frames: int | None = None):
    """The source a user means by `spec`: 'synthetic', a camera index ('0'), a URL, image files or a glob, a folder
    of images, or a video file. `frames` limits a synthetic source (it is endless otherwise)."""
    if spec == "synthetic":
        return SyntheticSource(demo_scene(), frames=frames)
    if spec.isdigit():
        return VideoSource(int(spec))
    if "://" in spec:
        return VideoSource(spec)
    if Path(spec).is_dir():  # a folder of frames (a video exported as images)
        return ImageSource(image_folder(Path(spec)))
    paths = expand_paths([spec])
    if any(ch in spec for ch in "*?[") or Path(spec).suffix.lower() in IMAGE_SUFFIXES:
        return ImageSource(paths)
    if not Path(spec).exists():
        raise InputError(f"{spec}: file not found (a source is 'synthetic', a camera index, a file, a glob or a URL)")
    return VideoSource(spec)


class FrameQueue:
    """Frames between a camera (or its decoder) and the processing, at most `size` of them: when a frame arrives
    and the queue is full the oldest waiting one is dropped and counted, so processing always gets the newest
    frames and never falls further behind than `size` frames. Thread-safe; `close()` ends `get`."""

    def __init__(self, size: int = 2):
        if size < 1:
            raise ValueError("a frame queue holds at least one frame")
        self._items: deque = deque()
        self._size = size
        self._cond = threading.Condition()
        self.dropped = 0  # frames dropped because processing was busy
        self.put_count = 0
        self.closed = False

    def put(self, item) -> None:
        with self._cond:
            if len(self._items) >= self._size:
                self._items.popleft()
                self.dropped += 1
            self._items.append(item)
            self.put_count += 1
            self._cond.notify()

    def get(self, timeout: float | None = None):
        """The oldest waiting frame; None when the queue is closed and empty, or after `timeout` seconds."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._items or self.closed, timeout):
                return None
            return self._items.popleft() if self._items else None

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def __len__(self) -> int:
        with self._cond:
            return len(self._items)
