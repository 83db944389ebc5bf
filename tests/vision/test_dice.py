"""Dice read from rendered photos (vision/dice.py): values right, unreadable said as None, no die on an empty table,
an oblique view counts only the top face, touching dice apart, places in table mm. Small frames (640 x 360)."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.pose import estimate_pose
from tests.vision.dice_util import die as _die
from tests.vision.dice_util import match as _match
from vision.dice import DiceOptions, dice_on_table, options_for_table, read_dice
from vision.markers import detect_markers
from vision.synthetic import RenderOptions, render_table
from vision.synthetic_dice import DIE_COLOURS, SURFACES, dice_camera, dice_scene

WIDTH = 200.0  # mm of table in view: about 2.9 px per mm at 640 x 360, a 16 mm die about 40 px
MILD = RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, jpeg_quality=90, seed=3)


def _table(dice, surface="felt", tilt=0.0, width=WIDTH, pieces=0, options=MILD, resolution=(640, 360)):
    scene = replace(dice_scene(np.random.default_rng(1), 0, width_mm=width, surface=surface, pieces=pieces),
                    dice=tuple(dice))
    camera = dice_camera(resolution, width_mm=width, tilt_deg=tilt)
    frame, truth = render_table(scene, camera, options)
    return frame, truth, camera, scene


# 12-20 mm dice at about 2.9 px per mm, as a camera and layout give them (`options_for_table`): black dice are read by
# their faint rims, looked for at the sizes dice have
SIZED = DiceOptions(min_side_px=0.6 * 12.0 * 2.9, max_side_px=1.3 * 20.0 * 2.9)
BLACK = len(DIE_COLOURS) - 1  # black with white pips
assert DIE_COLOURS[BLACK][0] < (60, 60, 60) and DIE_COLOURS[BLACK][1] > (200, 200, 200)


@pytest.mark.parametrize("colours", [0, 1, 2, 3, 8])  # white/black, cream/red, red/white, blue/white, purple/white
def test_every_value_is_read_from_above(colours):
    dice = [_die(55.0 + 30.0 * (v % 3), 40.0 + 32.0 * (v // 3), v + 1, colours, turn=17.0 * v) for v in range(6)]
    frame, truth, _, _ = _table(dice)
    readings = read_dice(frame)
    assert len(readings) == 6
    for t in truth.dice:
        r = _match(readings, t)
        assert r is not None and r.value == t.value, (t, r)
        assert r.confidence >= 0.5
        assert abs(r.side_px - t.side_px) < 0.25 * t.side_px


def test_touching_dice_are_read_apart():
    dice = [_die(70.0 + 16.0 * i, 56.0, v, colours=1, turn=90.0) for i, v in enumerate((6, 2, 5, 3))]
    frame, truth, _, _ = _table(dice, surface="planks")
    readings = read_dice(frame)
    assert sorted(r.value for r in readings) == [2, 3, 5, 6]
    for t in truth.dice:
        assert _match(readings, t).value == t.value


@pytest.mark.parametrize("surface", ["planks", "map"])
def test_black_dice_are_read(surface):
    # a black face's rim and side faces are a few grey levels off its top
    dice = [_die(55.0 + 30.0 * (v % 3), 40.0 + 32.0 * (v // 3), v + 1, BLACK, turn=17.0 * v) for v in range(6)]
    frame, truth, _, _ = _table(dice, surface=surface)
    readings = read_dice(frame, SIZED)
    assert len(readings) == 6
    for t in truth.dice:
        r = _match(readings, t)
        assert r is not None and r.value == t.value, (t, r)
        assert abs(r.side_px - t.side_px) < 0.25 * t.side_px


def test_touching_black_dice_are_read_apart():
    # black faces' rims and side faces are a few grey levels off their tops: the rims between them must still part them
    dice = [_die(60.0 + 17.0 * i, 56.0, v, colours=BLACK, side=17.0, turn=35.0) for i, v in enumerate((4, 1, 6, 2))]
    frame, truth, _, _ = _table(dice, surface="map")
    readings = read_dice(frame, SIZED)
    assert len(readings) == 4
    for t in truth.dice:
        assert _match(readings, t).value == t.value


def test_a_die_of_the_cloths_brightness_is_read():
    # a purple die on the green cloth: of nearly the cloth's grey, not of its colour; tilted, its side faces in view
    grey = np.array([0.114, 0.587, 0.299])
    assert abs(float(grey @ DIE_COLOURS[8][0]) - 105.0) < 15.0
    dice = [_die(70.0 + 30.0 * i, 56.0, v, colours=8, side=16.0, turn=20.0 * i) for i, v in enumerate((3, 5, 6))]
    frame, truth, _, _ = _table(dice, surface="cloth", tilt=20.0)
    readings = read_dice(frame, SIZED)
    assert len(readings) == 3
    for t in truth.dice:
        r = _match(readings, t)
        assert r is not None and r.value == t.value
        assert abs(r.side_px - t.side_px) < 0.25 * t.side_px


@pytest.mark.parametrize("colours", [0, BLACK])
def test_an_oblique_view_counts_the_top_face_only_black_or_white(colours):
    # the side faces of a tilted die (their pips foreshortened) are no dice of their own
    dice = [_die(60.0 + 40.0 * i, 56.0, v, colours=colours, side=18.0, turn=25.0 * i) for i, v in enumerate((1, 3, 5))]
    frame, truth, _, _ = _table(dice, tilt=30.0, surface="planks")
    readings = read_dice(frame, SIZED)
    assert [_match(readings, t).value for t in truth.dice] == [1, 3, 5]
    assert len(readings) == 3


def test_an_oblique_view_counts_the_top_face_only():
    # a die showing 1 seen from 30 degrees: its side faces (2, 3, 5, 4 pips) are in view and must not count
    dice = [_die(80.0, 56.0, 1, colours=0, side=18.0, turn=10.0), _die(125.0, 56.0, 2, colours=2, side=18.0)]
    frame, truth, _, _ = _table(dice, tilt=30.0)
    readings = read_dice(frame)
    assert [_match(readings, t).value for t in truth.dice] == [1, 2]
    assert len(readings) == 2  # no side face read as a die of its own


def test_a_face_no_die_has_is_unreadable_not_guessed():
    frame, truth, _, _ = _table([_die(100.0, 56.0, 2, colours=0, side=18.0)])
    t = truth.dice[0]
    # a third pip in the corner the diagonal leaves out: three corners, no face of a die looks like that
    assert [r.value for r in read_dice(frame)] == [2]
    radius, offset = 0.085 * t.side_px, 0.26 * t.side_px
    blank = [(sx, sy) for sx in (-1, 1) for sy in (-1, 1)
             if frame[int(round(t.centre_px[1] + sy * offset)), int(round(t.centre_px[0] + sx * offset))].mean() > 150]
    sx, sy = blank[0]
    cv2.circle(frame, (int(round(t.centre_px[0] + sx * offset)), int(round(t.centre_px[1] + sy * offset))),
               int(round(radius)), (30, 28, 26), -1, cv2.LINE_AA)
    readings = read_dice(frame)
    assert len(readings) == 1 and readings[0].value is None


@pytest.mark.parametrize("surface", SURFACES)
def test_an_empty_table_gives_no_die(surface):
    # bases with their markers beside the tray and the anchors around it: none is a die
    frame, _, _, _ = _table([], surface=surface, width=320.0, pieces=3, resolution=(960, 540),
                            options=RenderOptions(blur_sigma_px=0.7, noise_sigma=3.0, jpeg_quality=85,
                                                  uneven_light=0.3, seed=5))
    assert read_dice(frame) == []


def test_dice_placed_in_table_mm_through_the_camera():
    dice = [_die(70.0, 45.0, 4, side=14.0, turn=30.0), _die(130.0, 70.0, 6, colours=3, side=19.0)]
    frame, truth, camera, scene = _table(dice, tilt=20.0, surface="map")
    markers = detect_markers(frame, scene.layout.dictionary)
    anchors = {m.id: m.corners for m in markers if m.id in scene.layout.anchor_ids}
    pose = estimate_pose(anchors, scene.layout, camera.intrinsics)
    assert pose is not None
    options = options_for_table(camera.intrinsics, pose, scene.layout.width_mm, scene.layout.depth_mm)
    readings = read_dice(frame, options)
    assert sorted(r.value for r in readings) == [4, 6]
    placed = dice_on_table(readings, camera.intrinsics, pose)
    for t in truth.dice:
        i = readings.index(_match(readings, t))
        x, y, side = placed[i]
        assert np.hypot(x - t.x_mm, y - t.y_mm) < 1.5
        assert abs(side - t.side_mm) < 2.0


def test_a_region_keeps_the_dice_within_it():
    dice = [_die(60.0, 56.0, 3, side=16.0), _die(100.0, 56.0, 5, colours=2, side=16.0), _die(140.0, 56.0, 6, side=16.0)]
    frame, truth, _, _ = _table(dice)
    everywhere = read_dice(frame)
    assert sorted(r.value for r in everywhere) == [3, 5, 6]
    # a tray round the middle die only, in frame px: the others are left out, the middle one read as before
    c, s = np.array(truth.dice[1].centre_px), truth.dice[1].side_px
    tray = np.array([c + (-s, -s), c + (s, -s), c + (s, s), c + (-s, s)])
    inside = read_dice(frame, region=tray)
    assert [r.value for r in inside] == [5]
    before = _match(everywhere, truth.dice[1])
    assert np.hypot(*np.subtract(inside[0].centre_px, before.centre_px)) < 1.0
    assert abs(inside[0].side_px - before.side_px) < 0.05 * before.side_px
    far = np.array([[1.0, 1.0], [30.0, 1.0], [30.0, 30.0]])
    assert read_dice(frame, region=far) == []
    with pytest.raises(ValueError, match="3 corners"):
        read_dice(frame, region=np.array([[0.0, 0.0], [10.0, 10.0]]))
