"""The parts of a record's reader that follow a trembling camera (vision/record_reader.py): the base's cells read in
the frame through the anchors' map, and the map itself, followed through the anchors nearest the picture's corners
and through the others when a hand hides those."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.markers import detect_markers
from vision.record_reader import RecordChanges, _cells, _cells_through, _mapped, _spread
from vision.scripted import scripted_game
from vision.stream import ChangeConfig


@pytest.fixture(scope="module")
def still_frame():
    game = scripted_game()
    _, _, frame = next(game.render(stop=1, tremble=False, light=False, bump_at=1 << 30))
    return game, frame


def _shifted(frame: np.ndarray, affine: np.ndarray) -> np.ndarray:
    """The picture moved by `affine` (base px -> frame px)."""
    h, w = frame.shape[:2]
    return cv2.warpAffine(frame, affine, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _turn(dx: float, dy: float, deg: float, size=(1280, 720)) -> np.ndarray:
    m = cv2.getRotationMatrix2D(((size[0] - 1) / 2, (size[1] - 1) / 2), deg, 1.0)
    m[:, 2] += (dx, dy)
    return m


def test_the_cells_read_through_the_map_are_the_cells_of_the_frame_warped_back(still_frame):
    _, frame = still_frame
    affine = _turn(2.6, -1.7, 0.15)
    moved = _shifted(frame, affine)
    h, w = moved.shape[:2]
    back = cv2.warpAffine(moved, affine, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
    inner = (slice(2, -2), slice(2, -2))  # the borders replicate differently
    diff = np.abs(_cells_through(moved, affine, 8) - _cells(back, 8))[inner]
    assert diff.mean() < 0.5 and diff.max() <= 10  # the change threshold is 16 grey levels
    # and the base's own cells: what a frame shaken by a few px is compared with
    assert np.abs(_cells_through(moved, affine, 8) - _cells(frame, 8))[inner].max() < 16
    # not so through a map a px off
    off = affine + [[0, 0, 1.0], [0, 0, 0]]
    assert np.abs(_cells_through(moved, off, 8) - _cells(frame, 8))[inner].max() >= 16


def test_the_anchors_nearest_the_pictures_corners_are_followed_first():
    centres = [(100, 80), (640, 60), (1180, 90), (90, 640), (650, 660), (1190, 630), (640, 360)]
    anchors = [np.array([[x - 20, y - 20], [x + 20, y - 20], [x + 20, y + 20], [x - 20, y + 20]], float)
               for x, y in centres]
    assert _spread(anchors) == [0, 2, 3, 5]
    assert _spread(anchors[:2]) == [0, 1]  # too few to pick from: all


def _reader(game, frame) -> RecordChanges:
    reader = RecordChanges(game.roster.dictionary, anchor_ids=game.layout.anchor_ids)
    reader.detect(frame)  # the first frame: a full scan, the base
    reader.steady = True
    return reader


def test_a_trembling_camera_is_followed_through_its_anchors(still_frame):
    game, frame = still_frame
    reader = _reader(game, frame)
    truth = _turn(1.4, -0.9, 0.05)
    markers = reader.detect(_shifted(frame, truth))
    assert reader.last.kind == "still"  # compared through the map: nothing changed, nothing read again
    assert (np.abs(reader._map - truth) < [[2e-4, 2e-4, 0.08]] * 2).all(), reader._map - truth
    assert [m.id for m in markers] == [m.id for m in reader.known]


def test_anchors_hidden_near_the_corners_are_made_up_by_the_others(still_frame):
    game, frame = still_frame
    reader = _reader(game, frame)
    anchors = [m for m in reader.known if m.id in game.layout.anchor_ids]
    first = _spread([m.corners for m in anchors])
    assert len(anchors) > len(first) == 4
    truth = _turn(-1.1, 0.7, -0.04)
    moved = _shifted(frame, truth)
    for k in first[:2]:  # hands over two of the four: too few corners left to fit the map
        x0, y0 = (np.floor(anchors[k].corners.min(axis=0)) - 6).astype(int)
        x1, y1 = (np.ceil(anchors[k].corners.max(axis=0)) + 8).astype(int)
        moved[y0:y1, x0:x1] = (150, 120, 110)
    reader.detect(moved)
    assert reader._map is not None and reader.last.kind != "full"
    assert (np.abs(reader._map - truth) < [[2e-4, 2e-4, 0.08]] * 2).all(), reader._map - truth


def test_hands_over_half_the_anchors_of_a_followed_camera_get_a_full_scan_of_the_frame(still_frame):
    game, frame = still_frame
    reader = _reader(game, frame)
    anchors = [m for m in reader.known if m.id in game.layout.anchor_ids]
    moved = _shifted(frame, _turn(1.2, 0.8, 0.03))
    for k in _spread([m.corners for m in anchors]):  # the map comes from the others, but these four changed
        x0, y0 = (np.floor(anchors[k].corners.min(axis=0)) - 6).astype(int)
        x1, y1 = (np.ceil(anchors[k].corners.max(axis=0)) + 8).astype(int)
        moved[y0:y1, x0:x1] = (150, 120, 110)
    markers = reader.detect(moved)
    assert reader.last.kind == "full" and reader._map is None  # a new base: the frame as it came
    plain = {m.id: m.corners for m in detect_markers(moved, game.roster.dictionary)}
    assert {m.id: m.corners for m in markers}.keys() == plain.keys()
    assert all(np.allclose(m.corners, plain[m.id]) for m in markers)


def test_a_followed_camera_waiting_for_a_hand_tracks_the_markers_in_the_frame_brought_back(still_frame):
    game, frame = still_frame
    reader = RecordChanges(game.roster.dictionary, ChangeConfig(settle=True, refresh_every=1 << 30),
                           game.layout.anchor_ids)
    reader.detect(frame)
    reader.steady = True
    truth = _turn(6.0, -4.0, 0.0)  # more than a bit: a marker is not found again where it stood in base px
    moved = _shifted(frame, truth)
    reader.detect(moved)
    piece = next(m for m in reader.known if m.id not in game.layout.anchor_ids)
    x0, y0 = (np.floor(_mapped(piece.corners, truth).min(axis=0)) - 3).astype(int)
    x1, y1 = (np.ceil(_mapped(piece.corners, truth).max(axis=0)) + 4).astype(int)
    lit = moved.copy()
    lit[y0:y1, x0:x1] = np.clip(lit[y0:y1, x0:x1].astype(int) * 13 // 10 + 25, 0, 255)  # a flash on it alone
    markers = reader.detect(lit)
    assert reader.last.kind == "moving"  # changed since the last frame: waited for, its markers tracked
    assert piece.id in {m.id for m in markers}  # still there, found in the frame brought back to base px
