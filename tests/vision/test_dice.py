"""Dice read from rendered photos (vision/dice.py): values right, unreadable said as None, no die on an empty table,
an oblique view counts only the top face, touching dice apart, places in table mm. Small frames (640 x 360)."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.pose import estimate_pose
from vision.dice import dice_on_table, options_for_table, read_dice
from vision.markers import detect_markers
from vision.synthetic import PlacedDie, RenderOptions, render_table
from vision.synthetic_dice import DIE_COLOURS, SURFACES, dice_camera, dice_scene

WIDTH = 200.0  # mm of table in view: about 2.9 px per mm at 640 x 360, a 16 mm die about 40 px
MILD = RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, jpeg_quality=90, seed=3)


def _table(dice, surface="felt", tilt=0.0, width=WIDTH, pieces=0, options=MILD, resolution=(640, 360)):
    scene = replace(dice_scene(np.random.default_rng(1), 0, width_mm=width, surface=surface, pieces=pieces),
                    dice=tuple(dice))
    camera = dice_camera(resolution, width_mm=width, tilt_deg=tilt)
    frame, truth = render_table(scene, camera, options)
    return frame, truth, camera, scene


def _die(x, y, value, colours=0, side=16.0, turn=0.0):
    body, pips = DIE_COLOURS[colours]
    return PlacedDie(x, y, side, value, turn, body, pips)


def _match(readings, truth_die):
    near = [r for r in readings if np.hypot(r.centre_px[0] - truth_die.centre_px[0],
                                            r.centre_px[1] - truth_die.centre_px[1]) < truth_die.side_px / 3]
    assert len(near) <= 1, "one die read twice"
    return near[0] if near else None


@pytest.mark.parametrize("colours", [0, 1, 2, 3])  # white/black, cream/red, red/white, blue/white
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
