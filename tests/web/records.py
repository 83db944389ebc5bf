"""Records of a short game of any registered system, made through the real recorder (`GameRecorder`: the tracker,
the players' inputs, one transaction per event) with the camera replaced by the true places of the system's
synthetic table: every piece appears, a turn begins, the first piece advances 60 mm, a note and a bookmark are
written, a second turn begins and the last piece moves 40 mm. No system is named: each comes from the registry."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from calibration.camera import CameraPose
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, system_meta
from fieldglass.setup import load_setup
from rules.system import game_system, system_names
from vision.pieces import PiecePose, TableReading
from vision.tracking import TrackerConfig

POSE = CameraPose(np.zeros(3), np.array([0.0, 0.0, 1000.0]), 0.1, (0, 1))


def live_systems() -> list[str]:
    """Every registered system that has live rules (a table the recorder can follow)."""
    return [name for name in system_names() if game_system(name).live is not None]


def script(system: str) -> Iterator[tuple[str, object]]:
    """The game, step by step: ("places", {id: [x, y, heading]}) to show the camera, or ("input", dict)."""
    setup = load_setup(system, "synthetic")
    places = {pp.piece.id: [pp.x_mm, pp.y_mm, pp.heading_deg] for pp in setup.scene.placements}
    yield "places", places
    yield "input", {"type": "turn"}
    first, last = next(iter(places)), list(places)[-1]
    places[first][0] += 60.0
    yield "places", places
    yield "input", {"type": "note", "piece": first, "text": "a bold advance", "by": "tester"}
    yield "input", {"type": "bookmark", "label": "look here"}
    yield "input", {"type": "turn"}
    places[last][1] += 40.0
    yield "places", places


def make_record(system: str, path: Path, between: Callable[[], None] | None = None) -> Path:
    """Record `system`'s short game into `path`; `between()` is called after each committed step (a live test
    watches the file grow)."""
    setup = load_setup(system, "synthetic")
    markers = {p.id: p.marker for p in setup.roster.pieces}
    rec = Record.create(path, system_meta(system, setup.layout, setup.roster, setup=setup), overwrite=True)
    recorder = GameRecorder.start(rec, setup.roster, TrackerConfig(settle_s=1.0))
    t, frame = 0.0, 0
    try:
        for kind, what in script(system):
            if kind == "places":
                for _ in range(8):  # long enough for every piece to settle (settle_s 1.0 at 5 frames a second)
                    poses = tuple(PiecePose(pid, markers[pid], x, y, h) for pid, (x, y, h) in what.items())
                    recorder.feed(TableReading(POSE, poses, (), ()), t, frame)
                    t, frame = t + 0.2, frame + 1
            else:
                recorder.apply(what, t, frame)
            if between is not None:
                between()
    finally:
        rec.close()
    return path
