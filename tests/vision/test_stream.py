"""Markers over a stream: tracked between full scans, as exact as a full scan, new pieces picked up; read again
only where the picture changed, with the same events as full scans; the frame queue between camera and
processing."""

from dataclasses import replace

import numpy as np
import pytest

from calibration.registration import TableRegistration
from vision.markers import detect_markers, track_markers
from vision.pieces import read_table
from vision.scripted import scripted_game
from vision.sources import FrameQueue
from vision.stream import ChangeConfig, ChangeDetector, LiveReader, StreamDetector, find_near, rebase_markers
from vision.synthetic import RenderOptions, VirtualCamera, demo_scene, render_table
from vision.tracking import Tracker, TrackerConfig

OPTIONS = RenderOptions(blur_sigma_px=0.8, noise_sigma=2.5)


@pytest.fixture(scope="module")
def camera():
    return VirtualCamera.looking_at_table(2400, 1200, (1920, 1080), 1700.0, 15.0)


def _frames(camera, steps=6, shift_mm=1.5):
    """The demo table with one piece sliding east a little each frame; from frame 3 on, a piece is added."""
    scene = demo_scene()
    first, *rest = scene.placements
    newcomer = rest.pop()
    for k in range(steps):
        moved = replace(first, x_mm=first.x_mm + k * shift_mm)
        placements = (moved, *rest) + ((newcomer,) if k >= 3 else ())
        yield k, render_table(replace(scene, placements=placements), camera, replace(OPTIONS, seed=k))


def _corner_errors(found, truth):
    by_marker = {t.marker: t for t in truth.pieces if t.visible}
    return np.array([np.abs(m.corners - by_marker[m.id].marker_corners_px).max() for m in found if m.id in by_marker])


def test_tracking_follows_a_moving_piece_as_exactly_as_a_full_scan(camera):
    stream = StreamDetector("DICT_4X4_250", full_every=100)
    sliding = demo_scene().placements[0].piece.marker
    for k, (frame, truth) in _frames(camera):
        found = stream.detect(frame)
        assert stream.last_was_full == (k == 0)
        full = detect_markers(frame)
        if k < 3:
            assert [m.id for m in found] == [m.id for m in full]
        assert sliding in [m.id for m in found]
        tracked, scanned = _corner_errors(found, truth), _corner_errors(full, truth)
        assert tracked.mean() <= scanned.mean() + 0.05 and tracked.max() < 0.75


def test_a_new_piece_is_found_by_the_next_full_scan(camera):
    stream = StreamDetector("DICT_4X4_250", full_every=5)
    newcomer = demo_scene().placements[-1].piece.marker
    seen = []
    for _, (frame, _truth) in _frames(camera):
        seen.append(newcomer in [m.id for m in stream.detect(frame)])
    assert seen == [False, False, False, False, False, True]  # frames 0 and 5 are full scans


def test_a_hidden_marker_is_not_invented(camera):
    (frame, truth), = [f for _, f in _frames(camera, steps=1)]
    previous = detect_markers(frame)
    blank = np.full_like(frame, 90)
    assert track_markers(blank, previous) == []
    tracked = track_markers(frame, previous)
    assert [m.id for m in tracked] == [m.id for m in previous]


# ---------------------------------------------------------------------------------------------- change-driven


@pytest.fixture(scope="module")
def steady_game():
    """The scripted game's first 46 frames with the camera on a steady tripod and even light: pieces still, a
    hand reaching in, fr-i-1 slid to F4 and au-c-1 lifted to M7, the tripod knocked at frame 40."""
    game = scripted_game()
    return game, list(game.render(stop=46, tremble=False, light=False, bump_at=BUMP))


BUMP = 40


def _run(game, frames, live: bool, config: ChangeConfig | None = None):
    registration = TableRegistration(game.layout, game.camera().intrinsics)
    reader = LiveReader(registration, game.roster, config)
    tracker = Tracker(game.roster, TrackerConfig(missing_after_s=3.0), game.camera().intrinsics)
    events, works, readings = [], [], []
    for i, t, frame in frames:
        reading = reader.read(frame) if live else read_table(frame, registration, game.roster)
        works.append(reader.work)
        readings.append(reading)
        events += [(e.type, e.piece, e.frame, e.data()) for e in tracker.update(reading, t, i)]
    return events, works, readings


def _what(events):  # the event, its piece, frame, field and facing
    return [(k, piece, n, d.get("to", {}).get("cell"), d.get("to", {}).get("facing")) for k, piece, n, d in events]


def test_change_driven_reading_commits_the_same_events_as_full_scans(steady_game):
    game, frames = steady_game
    full, _, _ = _run(game, frames, live=False)
    live, works, _ = _run(game, frames, live=True, config=ChangeConfig(settle=False))  # every change read at once
    assert _what(live) == _what(full)
    for (*_, a), (*_, b) in zip(live, full, strict=True):  # at the same places, within the noise of a frame
        if "to" in a:
            assert abs(a["to"]["x_mm"] - b["to"]["x_mm"]) < 0.5 and abs(a["to"]["y_mm"] - b["to"]["y_mm"]) < 0.5
            assert abs((a["to"]["heading_deg"] - b["to"]["heading_deg"] + 180) % 360 - 180) < 1.0
    assert [(e[1], e[3]["to"]["cell"]) for e in live if e[0] == "move"] == [("fr-i-1", "F4"), ("au-c-1", "M7")]
    kinds = [w.kind for w in works]
    # a full scan at the start only; the knocked tripod re-registered from the markers' neighbourhoods;
    # otherwise only the changed regions (or nothing)
    assert kinds[0] == "full" and kinds[BUMP] == "bump" and kinds.count("full") == 1
    assert "still" in kinds and "regions" in kinds
    assert max(w.share for w in works if w.kind != "full") < 0.35


def test_waiting_for_a_hand_to_settle_commits_the_same_moves_at_most_a_frame_later(steady_game):
    game, frames = steady_game
    full, _, _ = _run(game, frames, live=False)
    live, works, _ = _run(game, frames, live=True)  # the default: a region in motion is read once it settles
    assert [e[:2] + e[3:] for e in _what(live)] == [e[:2] + e[3:] for e in _what(full)]
    assert all(0 <= a[2] - b[2] <= 1 for a, b in zip(live, full, strict=True))
    kinds = [w.kind for w in works]
    assert "moving" in kinds  # frames with a hand in motion: nothing read, the markers around it hidden
    hand = [w for w, spec in zip(works, game.frames, strict=False) if spec.hand is not None]
    assert sum(w.kind == "moving" for w in hand) >= len(hand) // 3


def test_a_still_frame_reads_nothing_again_and_a_hand_only_its_region(steady_game):
    game, frames = steady_game
    # no background scan; every change read at once
    detector = ChangeDetector(game.layout.dictionary, ChangeConfig(refresh_every=10**6, settle=False))
    first = detector.detect(frames[0][2])
    assert detector.last.kind == "full"
    again = detector.detect(frames[1][2])  # the same table, fresh sensor noise
    assert detector.last.kind == "still" and again is first
    hand = next(i for i, spec in enumerate(game.frames) if spec.hand is not None and spec.hand[2] == 1.0)
    found = detector.detect(frames[hand][2])
    assert detector.last.kind == "regions" and 0 < detector.last.share < 0.3  # the arm: a fifth of the view
    full = detect_markers(frames[hand][2], game.layout.dictionary)
    assert [m.id for m in found] == [m.id for m in full]  # the hand hides what it hides, nothing more
    for a, b in zip(found, full, strict=True):
        assert np.abs(a.corners - b.corners).max() < 0.1


def test_a_knocked_camera_is_registered_again_and_the_pieces_stay_put(steady_game):
    game, frames = steady_game
    _, works, readings = _run(game, frames, live=True)
    before, after = readings[BUMP - 1], readings[BUMP]
    assert works[BUMP].kind == "bump" and works[BUMP].share < 0.35  # no full scan: the markers' neighbourhoods
    assert works[BUMP + 1].kind != "full"  # the next frame is compared with the knocked view
    assert np.abs(np.asarray(after.pose.tvec) - np.asarray(before.pose.tvec)).max() > 0.5  # mm: a new pose
    places = {p.piece: (p.x_mm, p.y_mm) for p in before.pieces}
    assert {p.piece for p in after.pieces} == set(places)
    for p in after.pieces:
        assert np.hypot(p.x_mm - places[p.piece][0], p.y_mm - places[p.piece][1]) < 1.5


def test_a_knocked_camera_without_a_full_scan_reads_what_a_full_scan_reads(steady_game):
    game, frames = steady_game
    reader = LiveReader(TableRegistration(game.layout, game.camera().intrinsics), game.roster)
    for _, _, frame in frames[BUMP - 2:BUMP + 1]:
        reading = reader.read(frame)
    assert reader.work.kind == "bump"
    knocked = frames[BUMP][2]
    full = detect_markers(knocked, game.layout.dictionary)
    assert [m.id for m in reading.markers] == [m.id for m in full]  # every marker found again, none invented
    for a, b in zip(reading.markers, full, strict=True):
        assert np.abs(a.corners - b.corners).max() < 0.15  # measured again from the edges (from another start)
    scanned = read_table(knocked, TableRegistration(game.layout, game.camera().intrinsics), game.roster)
    places = {p.piece: (p.x_mm, p.y_mm) for p in scanned.pieces}
    assert {p.piece for p in reading.pieces} == set(places)
    for p in reading.pieces:
        assert np.hypot(p.x_mm - places[p.piece][0], p.y_mm - places[p.piece][1]) < 0.3


def test_a_camera_moving_at_two_frames_in_a_row_gets_a_full_scan(steady_game):
    game, frames = steady_game
    reader = LiveReader(TableRegistration(game.layout, game.camera().intrinsics), game.roster,
                        ChangeConfig(refresh_every=10**6))  # no background scan
    still, knocked = frames[BUMP - 1][2], frames[BUMP][2]
    kinds = []
    for frame in (still, still, knocked, still, knocked):  # knocked, and back, and knocked again: shaking
        reader.read(frame)
        kinds.append(reader.work.kind)
    assert kinds == ["full", "still", "bump", "full", "full"]


def test_a_knock_whose_anchors_are_not_found_again_gets_a_full_scan(steady_game):
    game, frames = steady_game
    registration = TableRegistration(game.layout, game.camera().intrinsics)
    reader = LiveReader(registration, game.roster)
    reader.read(frames[BUMP - 1][2])
    blank = np.full_like(frames[BUMP][2], 90)
    assert rebase_markers(blank, reader.detector.known, registration, game.roster) is None
    reading = reader.read(blank)  # every anchor's cells changed at once: looked like a knock
    assert reader.work.kind == "full" and reading.pieces == ()


def test_markers_are_found_near_where_they_were_and_only_those(steady_game):
    game, frames = steady_game
    frame = frames[BUMP - 1][2]
    markers = detect_markers(frame, game.layout.dictionary)
    moved = np.roll(frame, (9, -13), axis=(0, 1))  # 13 px left, 9 px down
    wanted = [m for m in markers if m.id in game.layout.anchor_ids]
    found, share = find_near(moved, wanted, game.layout.dictionary, 1.0)
    assert [m.id for m in found] == sorted(m.id for m in wanted) and 0 < share < 0.35  # not the whole frame
    by_id = {m.id: m for m in wanted}
    for m in found:
        assert np.abs(m.corners - (by_id[m.id].corners + (-13, 9))).max() < 0.05
    assert find_near(moved, wanted, game.layout.dictionary, 0.1)[0] == []  # not within a tenth of a side


def test_the_frame_queue_drops_the_oldest_frames_and_counts_them():
    queue = FrameQueue(2)
    for n in range(5):
        queue.put(n)
    assert queue.dropped == 3 and len(queue) == 2
    assert [queue.get(timeout=0), queue.get(timeout=0)] == [3, 4]  # the newest, oldest first
    assert queue.get(timeout=0) is None  # empty: nothing after the timeout
    queue.put(5)
    queue.close()
    assert queue.get() == 5 and queue.get() is None  # closed: what is left, then the end
