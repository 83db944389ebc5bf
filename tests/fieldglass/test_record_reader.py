"""A record's reader (fieldglass/recording.py `RecordReader`, vision/record_reader.py `RecordChanges`): the same
pieces and committed events as a full scan of every frame, with a still camera and with a trembling one, while
reading far less than every frame in full."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.registration import TableRegistration
from fieldglass.recording import PLAIN_FRAMES, TREMBLE_FULLS, RecordReader
from vision.pieces import read_table
from vision.scripted import scripted_game
from vision.tracking import Tracker, TrackerConfig

FRAMES = 46  # the pieces still, a hand reaching in, fr-i-1 slid to F4 and au-c-1 lifted to M7
BUMP = 40  # the tripod knocked (3 px, 0.2 degrees)


@pytest.fixture(scope="module")
def game():
    return scripted_game()


def _record(game, frames, full: bool):
    """(events, readings, reader's work kinds) over the frames: every frame scanned in full, or the record's reader."""
    registration = TableRegistration(game.layout, game.camera().intrinsics)
    reader = RecordReader(registration, game.roster)
    tracker = Tracker(game.roster, TrackerConfig(missing_after_s=3.0), game.camera().intrinsics)
    events, readings, kinds = [], [], []
    for i, t, frame in frames:
        reading = read_table(frame, registration, game.roster) if full else reader.read(frame)
        kinds.append(None if full else reader.work.kind)
        readings.append(reading)
        events += [(e.type, e.piece, e.frame, e.data()) for e in tracker.update(reading, t, i)]
    return events, readings, kinds


def _what(events):  # the event, its piece, frame, field and facing
    return [(k, piece, n, d.get("to", {}).get("cell"), d.get("to", {}).get("facing")) for k, piece, n, d in events]


def _same_places(a, b, mm: float) -> None:
    for ra, rb in zip(a, b, strict=True):
        pa, pb = {p.piece: p for p in ra.pieces}, {p.piece: p for p in rb.pieces}
        assert pa.keys() == pb.keys()
        for pid, p in pa.items():
            assert np.hypot(p.x_mm - pb[pid].x_mm, p.y_mm - pb[pid].y_mm) < mm


def _check(game, frames, most_full: int):
    full, full_readings, _ = _record(game, frames, full=True)
    read, readings, kinds = _record(game, frames, full=False)
    assert _what(read) == _what(full)
    assert [(e[1], e[3]["to"]["cell"]) for e in read if e[0] == "move"] == [("fr-i-1", "F4"), ("au-c-1", "M7")]
    _same_places(readings, full_readings, 0.5)
    assert kinds[0] == "full" and kinds.count("full") <= most_full
    assert "regions" in kinds and "still" in kinds
    return kinds


def test_a_still_camera_is_read_only_where_the_picture_changed(game):
    frames = list(game.render(stop=FRAMES, tremble=False, light=False, bump_at=BUMP))
    kinds = _check(game, frames, most_full=3)
    # the knocked tripod: followed through its anchors from then on (RecordChanges._bumped), not scanned in full
    assert kinds[BUMP] != "full" and kinds.count("full") == 1


def test_a_trembling_camera_is_followed_through_its_anchors_not_scanned_in_full(game):
    frames = list(game.render(stop=FRAMES, tremble=True, light=False, bump_at=BUMP))
    kinds = _check(game, frames, most_full=TREMBLE_FULLS[1] + 2)
    # followed from the first frame whose anchors moved, the knock included: the first frame's is the only full scan
    assert kinds.count("full") == 1


def test_a_dimming_light_under_a_trembling_camera_needs_no_full_scans(game):
    # the second turn: fr-c-1 lifted to E5 while a cloud dims the light to 0.6 and back, au-i-2 slid to L6
    frames = list(game.render(start=74, stop=114, tremble=True, light=True, bump_at=1 << 30))
    assert min(game.gain(i) for i, _, _ in frames) < 0.7
    full, full_readings, _ = _record(game, frames, full=True)
    read, readings, kinds = _record(game, frames, full=False)
    assert _what(read) == _what(full)
    assert [(e[1], e[3]["to"]["cell"]) for e in read if e[0] == "move"] == [("fr-c-1", "E5"), ("au-i-2", "L6")]
    _same_places(readings, full_readings, 0.5)
    assert kinds[TREMBLE_FULLS[0]:].count("full") <= 3  # (every frame of the cloud, without following the light)


def test_a_camera_that_goes_on_trembling_is_followed_on(game):
    frames = list(game.render(stop=TREMBLE_FULLS[0] + PLAIN_FRAMES + 12, tremble=True, light=False, bump_at=1 << 30))
    events, _, kinds = _record(game, frames, full=False)
    assert kinds[TREMBLE_FULLS[0]:].count("full") == 0  # not read as they are again after PLAIN_FRAMES
    assert [(e[1], e[3]["to"]["cell"]) for e in events if e[0] == "move"] == [("fr-i-1", "F4"), ("au-c-1", "M7")]
