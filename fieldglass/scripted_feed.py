"""The scripted game (`script`: every piece appears, turns, moves, a note and a bookmark) as a stream the recorder
reads, frame by frame, with the camera replaced by the pieces' true places: for the fault-injection tests (a recorder
killed and resumed at any moment), `fieldglass bench soak` (hours of play in minutes) and the web tests' records
(fieldglass/web/scripted.py). No frame is rendered, so a game of thousands of frames costs seconds; the recorder, the
tracker and the record are the real ones.

A step is ("frame", i, t, reading) or ("input", i, input): an input belongs to frame `i` and is applied after that
frame's reading, as `fieldglass record --inputs` applies them; every input has an `_id`, so that a resumed
recording skips the ones already in the record. t is in seconds of game time (5 frames a second)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from calibration.camera import CameraPose
from fieldglass.recording import HEARTBEAT_S, GameRecorder, system_meta
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


FRAME_S = 0.2
"""Seconds of game time between two frames (5 frames a second)."""

TRACKER = TrackerConfig(settle_s=1.0)


@dataclass
class ScriptedFeed:
    """One system's scripted game: the record's metadata and the steps of `rounds` rounds."""

    system: str
    meta: dict
    markers: dict[str, int]
    places: dict[str, list[float]]
    rounds: int

    def steps(self) -> Iterator[tuple]:
        """("frame", i, t, reading) and ("input", i, input) in the order a recorder meets them."""
        frame, n_input = -1, 0
        places = {pid: list(p) for pid, p in self.places.items()}
        for kind, what in script(places, self.rounds):
            if kind == "places":
                for _ in range(FRAMES_PER_STEP):
                    frame += 1
                    poses = tuple(PiecePose(pid, self.markers[pid], x, y, h) for pid, (x, y, h) in what.items())
                    yield "frame", frame, frame * FRAME_S, TableReading(POSE, poses, (), ())
            else:
                n_input += 1
                yield "input", max(frame, 0), {**what, "_id": f"in{n_input}"}


def scripted_feed(system: str | None = None, rounds: int = 1) -> ScriptedFeed:
    """The scripted game of `system` (default: the first system with live rules) over `rounds` rounds."""
    system = system or live_systems()[0]
    setup = load_setup(system, "synthetic")
    meta = system_meta(system, setup.layout, setup.roster, players=list(PLAYERS), source="scripted", setup=setup)
    return ScriptedFeed(system, meta, {p.id: p.marker for p in setup.roster.pieces},
                        {pp.piece.id: [pp.x_mm, pp.y_mm, pp.heading_deg] for pp in setup.scene.placements}, rounds)


def play(recorder: GameRecorder, steps, start: int = 0, stop=None) -> int | None:
    """Feed `steps` from frame `start` on into `recorder`, with a heartbeat as `record_stream` writes it: after a
    frame and its inputs, once a second of game time (a resume starts after the last one). `stop(k)` is asked before
    the k-th step played; when it says True the play stops there and its k is returned (None: played to the end)."""
    last_beat = -HEARTBEAT_S
    last = None  # (frame, t) of the last frame fed: its heartbeat is due once its inputs are applied
    k = 0
    for step in steps:
        if step[1] < start:
            continue
        if stop is not None and stop(k):
            return k
        k += 1
        if step[0] == "input":
            recorder.apply(step[2], step[1] * FRAME_S, step[1])
            continue
        if last is not None and last[1] - last_beat >= HEARTBEAT_S:
            recorder.heartbeat(*last)
            last_beat = last[1]
        _, i, t, reading = step
        recorder.feed(reading, t, i)
        last = (i, t)
    if last is not None:
        recorder.heartbeat(*last)
    return None
