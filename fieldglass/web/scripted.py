"""A scripted game of any registered system, recorded through the real recorder (`GameRecorder`: the tracker, the
players' inputs, one transaction per event) with the camera replaced by the true places of the system's synthetic
table: for the web tests and `fieldglass bench web`, which need a record growing as a real one does.

Round 0: every piece appears, a turn begins, the first piece advances 60 mm, a note and a bookmark are written, a
second turn begins and the last piece moves 40 mm. Each further round: a turn begins and one piece moves 30 mm
(forward, then back). No system is named: each comes from the registry."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from calibration.camera import CameraPose
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, system_meta
from fieldglass.setup import load_setup
from rules.system import default_system, game_system, system_names
from vision.pieces import PiecePose, TableReading
from vision.tracking import TrackerConfig

POSE = CameraPose(np.zeros(3), np.array([0.0, 0.0, 1000.0]), 0.1, (0, 1))
PLAYERS = ("Anna Berger", "Ben Carter")
FRAMES_PER_STEP = 8  # 1.6 s of game time at 5 frames a second: every moved piece settles (settle_s 1.0)


def live_systems() -> list[str]:
    """Every registered system that has live rules (a table the recorder can follow), the default system first (the
    one a test or a benchmark of a single system takes: its plain turns are always allowed)."""
    default = default_system()
    names = [name for name in system_names() if game_system(name).live is not None]
    return sorted(names, key=lambda n: n != default)


def script(places: dict[str, list[float]], rounds: int = 1) -> Iterator[tuple[str, object]]:
    """The game, step by step: ("places", {id: [x_mm, y_mm, heading_deg]}) for the camera to see, or ("input",
    a player's input)."""
    yield "places", places
    yield "input", {"type": "turn"}
    ids = list(places)
    places[ids[0]][0] += 60.0
    yield "places", places
    yield "input", {"type": "note", "piece": ids[0], "text": "a bold advance", "by": "tester"}
    yield "input", {"type": "bookmark", "label": "look here"}
    yield "input", {"type": "turn"}
    places[ids[-1]][1] += 40.0
    yield "places", places
    for r in range(1, rounds):
        yield "input", {"type": "turn"}
        places[ids[r % len(ids)]][0] += 30.0 if (r // len(ids)) % 2 == 0 else -30.0
        yield "places", places


def record_scripted(system: str, path: Path, rounds: int = 1, between: Callable[[], None] | None = None) -> Path:
    """Record `system`'s scripted game into `path` (replacing it); `between()` is called after each step's events
    are committed (a live test watches the file grow, a benchmark paces the game)."""
    setup = load_setup(system, "synthetic")
    markers = {p.id: p.marker for p in setup.roster.pieces}
    places = {pp.piece.id: [pp.x_mm, pp.y_mm, pp.heading_deg] for pp in setup.scene.placements}
    meta = system_meta(system, setup.layout, setup.roster, players=list(PLAYERS), source="scripted", setup=setup)
    rec = Record.create(path, meta, overwrite=True)
    recorder = GameRecorder.start(rec, setup.roster, TrackerConfig(settle_s=1.0))
    t, frame = 0.0, 0
    try:
        for kind, what in script(places, rounds):
            if kind == "places":
                for _ in range(FRAMES_PER_STEP):
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
