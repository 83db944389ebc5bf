"""Recording a game filmed by a rig (`fieldglass record --rig RIG.toml`): one capture worker per camera, the frames
paired by time, each instant read as one table (vision/rig_stream.py `RigStreamReader`) and recorded by the same
recorder as one camera's frames (fieldglass/recording.py).

Pairing and stalls are vision/rig_capture.py's (frame i of each file, a live camera's newest; a camera whose frames
stop is said once and the others go on). The recording ends when every camera has ended.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from calibration.rig import Rig, load_rig
from common.errors import InputError
from common.outfiles import check_not_input
from fieldglass.inputs import load_inputs
from fieldglass.recording import (
    GameRecorder,
    RecordingPlan,
    RecordReader,
    open_frames,
    options_and_players,
    system_meta,
)
from fieldglass.setup import load_setup
from rules.system import game_system
from vision.rig_capture import STALL_S, CameraCapture, RigShot, paired
from vision.rig_stream import RigFrame, RigStreamReader
from vision.sources import is_live
from vision.tracking import TrackerConfig


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


def rig_frames(names: Sequence[str], sources: Sequence[str], fps: float | None, frames: int | None,
               report: Callable[[str], None] = lambda text: print(text, file=sys.stderr, flush=True),
               stall_s: float = STALL_S) -> Callable[[int], tuple[Iterator, int | None]]:
    """frames(start) for a RecordingPlan: the paired instants of every camera's source from frame `start` on, and
    their number (the longest of the cameras' when known)."""

    def open_all(start: int):
        # each camera's capture is a thread of its own already: no second decode thread behind it
        streams = [open_frames(src, fps, start, frames, prefetch=False) for src in sources]
        totals = [s.total for s in streams]
        workers = [CameraCapture(name, s.frames, is_live(src))
                   for name, s, src in zip(names, streams, sources, strict=True)]

        def instants():
            try:
                yield from paired(workers, report, stall_s)
            finally:
                for w in workers:
                    w.close()

        return instants(), (max(totals) if all(n is not None for n in totals) else None)

    return open_all


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
                         load_inputs(args.inputs), start,
                         picture=RigShot.picture)


__all__ = ["RigRecordReader", "rig_frames", "rig_meta", "rig_plan", "rig_sources"]
