"""Recording a game filmed by a rig (`fieldglass record --rig RIG.toml`): one capture worker per camera, the frames
paired by time, each instant read as one table (vision/rig_stream.py `RigStreamReader`) and recorded by the same
recorder as one camera's frames (fieldglass/recording.py).

Pairing: a video or a folder of frames gives frame i of each camera at the same instant (every frame is kept, the
workers wait for the slowest); a live camera or stream gives its newest frame (older ones are dropped). A camera
whose frames stop (its video ended early, a frame unreadable, a camera unplugged, no frame for `stall_s`) is left
out of the instants from then on and said once in one line; the others go on. The recording ends when every
camera has ended.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.rig import Rig, load_rig
from common.errors import InputError
from common.outfiles import check_not_input
from fieldglass.recording import (
    FrameStream,
    GameRecorder,
    RecordingPlan,
    RecordReader,
    load_inputs,
    open_frames,
    options_and_players,
    system_meta,
)
from fieldglass.setup import load_setup
from rules.system import game_system
from vision.rig_stream import RigFrame, RigStreamReader
from vision.tracking import TrackerConfig

STALL_S = 2.0
"""Seconds a camera may give no frame before it is called stalled (and left out until it gives one again)."""

_END = object()


def rig_sources(rig: Rig, rig_path: str | Path, given: Sequence[str] | None) -> list[str]:
    """Each camera's source in the rig's order: the `--source` options given (one per camera, in the rig file's
    order), else the rig file's `source` keys (a file or folder named relative to the rig file)."""
    names = ", ".join(rig.names)
    if given:
        if len(given) != len(rig.cameras):
            raise InputError(f"--rig: {len(rig.cameras)} camera(s) ({names}) but {len(given)} --source; give one "
                             "--source per camera in the rig file's order, or none to use the rig file's sources")
        return list(given)
    lacking = [c.name for c in rig.cameras if c.source is None]
    if lacking:
        raise InputError(f"{rig_path}: camera {', '.join(lacking)} has no 'source' (give it in the rig file, or "
                         "one --source per camera)")
    folder = Path(rig_path).parent
    out = []
    for cam in rig.cameras:
        spec = str(cam.source)
        if not isinstance(cam.source, int) and "://" not in spec and not Path(spec).is_absolute():
            spec = str(folder / spec)
        out.append(spec)
    return out


@dataclass(frozen=True)
class RigShot:
    """One instant of the rig: each camera's frame (None: none from it), in the rig's order, and its time (s)."""

    images: tuple[np.ndarray | None, ...]
    t: float

    def picture(self) -> np.ndarray | None:
        """The image kept with an event: the first camera's that has one."""
        return next((im for im in self.images if im is not None), None)


class CaptureWorker:
    """One camera's frames read on a thread of their own into a queue: every frame of a file (the reader waits for
    room), only the newest of a live camera."""

    def __init__(self, name: str, stream: FrameStream, live: bool, depth: int = 4):
        self.name, self.live = name, live
        self.queue: queue.Queue = queue.Queue(maxsize=1 if live else depth)
        self.stop = threading.Event()
        self.why = "its source ended"
        self.thread = threading.Thread(target=self._run, args=(stream,), name=f"capture {name}", daemon=True)
        self.thread.start()

    def _run(self, stream: FrameStream) -> None:
        try:
            for item in stream.frames:
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


def paired(workers: Sequence[CaptureWorker], report: Callable[[str], None], stall_s: float = STALL_S
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


def _others(workers: Sequence[CaptureWorker], gone: set[str]) -> str:
    left = [w.name for w in workers if w.name not in gone]
    return f"recording goes on with {', '.join(left)}" if left else "no camera left"


def rig_frames(names: Sequence[str], sources: Sequence[str], fps: float | None, frames: int | None,
               report: Callable[[str], None] = lambda text: print(text, file=sys.stderr, flush=True),
               stall_s: float = STALL_S) -> Callable[[int], tuple[Iterator, int | None]]:
    """frames(start) for a RecordingPlan: the paired instants of every camera's source from frame `start` on, and
    their number (the longest of the cameras' when known)."""

    def open_all(start: int):
        streams = [open_frames(src, fps, start, frames) for src in sources]
        totals = [s.total for s in streams]
        workers = [CaptureWorker(name, s, _is_live(src)) for name, s, src in zip(names, streams, sources, strict=True)]

        def instants():
            try:
                yield from paired(workers, report, stall_s)
            finally:
                for w in workers:
                    w.close()

        return instants(), (max(totals) if all(n is not None for n in totals) else None)

    return open_all


def _is_live(spec: str) -> bool:
    return spec.isdigit() or "://" in spec


class RigRecordReader:
    """RigShot -> the fused TableReading the recorder tracks (None when no camera gave a frame), each camera read
    as a record reads one camera (fieldglass/recording.py `RecordReader`); the last RigFrame is kept (`last`)."""

    def __init__(self, layout, roster, rig: Rig, tracker: TrackerConfig | None = None):
        self.rig = RigStreamReader(layout, roster, [(c.name, c.intrinsics) for c in rig.cameras],
                                   lambda registration, ros: RecordReader(registration, ros), tracker)
        self.last: RigFrame | None = None

    def read(self, shot: RigShot):
        if all(im is None for im in shot.images):
            return None
        self.last = self.rig.read(shot.images, shot.t)
        return self.last.reading


def rig_meta(rig: Rig, sources: Sequence[str]) -> dict:
    """What a record of a rig keeps of it: each camera's name, source and lens."""
    return {"cameras": [{"name": c.name, "source": src, "calibration": c.intrinsics.to_json()}
                        for c, src in zip(rig.cameras, sources, strict=True)]}


def rig_plan(args) -> RecordingPlan:
    """What `fieldglass record --rig RIG.toml` records, for every registered system: the set-up as one camera's
    record reads it (the lens files are the rig's), each camera's frames (its --source, else the rig file's), the
    fused reading of each instant and the one recorder (no tracker lens: the rig's reading says which pieces a
    camera saw lifted)."""
    rig = load_rig(args.rig)
    sources = rig_sources(rig, args.rig, args.sources)
    check_not_input(args.out, [*sources, *(c.intrinsics_path for c in rig.cameras)])
    for spec in sources:
        if spec in ("synthetic", "scripted"):
            raise InputError(f"--rig: --source {spec} is one rendered camera; a rig records videos, folders of "
                             "frames or cameras")
    game = game_system(args.system)
    opts, players = options_and_players(args)
    board = getattr(args, "board", None) if game.table == "board" else None
    setup = load_setup(args.system, str(args.rig), str(rig.cameras[0].intrinsics_path), args.layout, args.roster,
                       getattr(args, "game", None), board, getattr(args, "options", None))
    kept = None if game.table == "grid" else setup
    meta = system_meta(args.system, setup.layout, setup.roster, None, opts, players, str(args.rig), kept, board)
    meta["rig"] = rig_meta(rig, sources)
    config = TrackerConfig(settle_s=args.settle, missing_after_s=args.missing_after)
    reader = RigRecordReader(setup.layout, setup.roster, rig, config)

    def start(record, tracker_config, on_event):
        return GameRecorder.start(record, None, tracker_config, None, on_event=on_event)

    return RecordingPlan(meta, rig_frames(rig.names, sources, args.fps, args.frames), reader.read,
                         load_inputs(args.inputs), start, picture=RigShot.picture)


__all__ = ["STALL_S", "CaptureWorker", "RigRecordReader", "RigShot", "paired", "rig_frames", "rig_meta", "rig_plan",
           "rig_sources"]
