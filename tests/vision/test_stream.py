"""Markers over a stream: tracked between full scans, as exact as a full scan, new pieces picked up."""

from dataclasses import replace

import numpy as np
import pytest

from vision.markers import detect_markers, track_markers
from vision.stream import StreamDetector
from vision.synthetic import RenderOptions, VirtualCamera, demo_scene, render_table

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
