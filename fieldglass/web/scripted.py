"""A scripted game of any registered system, recorded through the real recorder (`GameRecorder`: the tracker, the
players' inputs, one transaction per event) with the camera replaced by the true places of the system's synthetic
table: for the web tests and `fieldglass bench web`, which need a record growing as a real one does.

Round 0: every piece appears, a turn begins, the first piece advances 60 mm, a note and a bookmark are written, a
second turn begins and the last piece moves 40 mm. Each further round: a turn begins and one piece moves 30 mm
(forward, then back). No system is named: each comes from the registry. The script itself is
fieldglass/scripted_feed.py's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fieldglass.record import Record
from fieldglass.recording import GameRecorder
from fieldglass.scripted_feed import (
    FRAME_S,
    FRAMES_PER_STEP,
    PLAYERS,
    POSE,
    TRACKER,
    live_systems,
    script,
    scripted_feed,
)

__all__ = ["FRAMES_PER_STEP", "PLAYERS", "POSE", "live_systems", "record_scripted", "script"]


def record_scripted(system: str, path: Path, rounds: int = 1, between: Callable[[], None] | None = None) -> Path:
    """Record `system`'s scripted game into `path` (replacing it); `between()` is called after each step's events
    are committed - a step's frames, or one input (a live test watches the file grow, a benchmark paces the game)."""
    feed = scripted_feed(system, rounds)
    rec = Record.create(path, feed.meta, overwrite=True)
    try:
        recorder = GameRecorder.start(rec, None, TRACKER)
        for step in feed.steps():
            if step[0] == "input":
                recorder.apply(step[2], step[1] * FRAME_S, step[1])
            else:
                recorder.feed(step[3], step[2], step[1])
            if between is not None and (step[0] == "input" or step[1] % FRAMES_PER_STEP == FRAMES_PER_STEP - 1):
                between()
    finally:
        rec.close()
    return path
