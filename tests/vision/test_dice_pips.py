"""The pip-first dice reader (vision/dice_pips.py) on rendered photos: every value read, an oblique view counts the
top face only, touching dice apart, a side face seen edge-on is no die, and markers, printed text, a lone dot on the
cloth or an empty table give no die. Small frames (640 x 360, about 2.9 px per mm); the real photos' figures are
`fieldglass bench dice --real --reader pips`."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from fieldglass.benchmarks.dice_real import DEFAULT_DIR, load_truth, photo_options
from tests.vision.dice_util import die as _die
from tests.vision.dice_util import match as _match
from vision.dice import DiceOptions
from vision.dice_pips import read_dice_pips
from vision.sources import read_image
from vision.synthetic import RenderOptions, render_table
from vision.synthetic_dice import SURFACES, dice_camera, dice_scene

WIDTH = 200.0  # mm of table in view
MILD = RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, jpeg_quality=90, seed=3)
# 12-20 mm dice at about 2.9 px per mm, as a camera and layout give them
OPTIONS = DiceOptions(min_side_px=0.6 * 12 * 2.9, max_side_px=1.3 * 20 * 2.9)


def _table(dice, surface="felt", tilt=0.0, pieces=0, options=MILD, width=WIDTH, resolution=(640, 360)):
    scene = replace(dice_scene(np.random.default_rng(1), 0, width_mm=width, surface=surface, pieces=pieces),
                    dice=tuple(dice))
    camera = dice_camera(resolution, width_mm=width, tilt_deg=tilt)
    return render_table(scene, camera, options)


@pytest.mark.parametrize("colours", [0, 1, 2, 3])  # white/black, cream/red, red/white, blue/white
def test_every_value_is_read_from_above(colours):
    dice = [_die(55.0 + 30.0 * (v % 3), 40.0 + 32.0 * (v // 3), v + 1, colours, turn=17.0 * v) for v in range(6)]
    frame, truth = _table(dice)
    readings = read_dice_pips(frame, OPTIONS)
    assert len(readings) == 6
    for t in truth.dice:
        r = _match(readings, t)
        assert r is not None and r.value == t.value, (t, r)
        assert 0.5 <= r.confidence <= 1.0
        assert abs(r.side_px - t.side_px) < 0.35 * t.side_px


def test_an_oblique_view_counts_the_top_face_only():
    # seen from 30 degrees: the side faces' pips are in view and must not count, nor make a die of their own
    dice = [_die(70.0, 56.0, 1, colours=0, side=18.0, turn=10.0), _die(110.0, 56.0, 5, colours=0, side=18.0),
            _die(150.0, 56.0, 2, colours=2, side=18.0, turn=30.0)]
    frame, truth = _table(dice, tilt=30.0)
    readings = read_dice_pips(frame, OPTIONS)
    assert [_match(readings, t) and _match(readings, t).value for t in truth.dice] == [1, 5, 2]
    assert len(readings) == 3


def test_touching_dice_are_read_apart():
    dice = [_die(70.0 + 16.0 * i, 56.0, v, colours=1, turn=90.0) for i, v in enumerate((6, 2, 5, 3))]
    frame, truth = _table(dice, surface="planks")
    readings = read_dice_pips(frame, OPTIONS)
    assert sorted(r.value for r in readings) == [2, 3, 5, 6]
    for t in truth.dice:
        assert _match(readings, t).value == t.value


def _pale_card(frame, centre, size):
    x, y = centre
    cv2.rectangle(frame, (x - size, y - size), (x + size, y + size), (235, 238, 240), -1)


def test_a_side_face_seen_edge_on_is_no_die():
    # a die's face of 4 foreshortened to a third of its height (as a side face far from the camera's axis):
    # the pattern fits once squashed, but a face seen that obliquely is no top face
    frame, _ = _table([])
    _pale_card(frame, (320, 180), 30)
    for dx in (-9, 9):
        for dy in (-3, 3):
            cv2.ellipse(frame, (320 + dx, 180 + dy), (4, 1), 0, 0, 360, (25, 25, 25), -1, cv2.LINE_AA)
    assert read_dice_pips(frame, OPTIONS) == []
    # the same card with round pips is read: the test above fails for the elongation, not for the card
    frame, _ = _table([])
    _pale_card(frame, (320, 180), 22)
    for dx in (-9, 9):
        for dy in (-9, 9):
            cv2.circle(frame, (320 + dx, 180 + dy), 4, (25, 25, 25), -1, cv2.LINE_AA)
    assert [r.value for r in read_dice_pips(frame, OPTIONS)] == [4]


@pytest.mark.parametrize("surface", SURFACES)
def test_an_empty_table_with_markers_gives_no_die(surface):
    # bases with their printed markers beside the tray, anchors round it (320 mm at 960 px: the same scale)
    frame, _ = _table([], surface=surface, pieces=3, width=320.0, resolution=(960, 540),
                      options=RenderOptions(blur_sigma_px=0.7, noise_sigma=3.0, jpeg_quality=85, uneven_light=0.3,
                                            seed=5))
    assert read_dice_pips(frame, OPTIONS) == []


def test_printed_text_and_a_lone_dot_give_no_die():
    frame, _ = _table([], surface="cloth")
    cv2.rectangle(frame, (40, 40), (340, 160), (240, 240, 240), -1)  # a sheet of paper with print on it
    cv2.putText(frame, "Roll 2d6: o o 5 6", (50, 90), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 20), 2, cv2.LINE_AA)
    cv2.putText(frame, ". : .: ::", (50, 140), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 20), 2, cv2.LINE_AA)
    # a dark dot of a pip's size on the open paper (a knot, a stain, a printed town): no face round it
    cv2.circle(frame, (300, 130), 5, (20, 20, 20), -1, cv2.LINE_AA)
    # and on the open cloth
    cv2.circle(frame, (500, 260), 5, (240, 240, 240), -1, cv2.LINE_AA)
    assert read_dice_pips(frame, OPTIONS) == []


def test_a_face_no_die_has_is_not_given_a_value():
    frame, truth = _table([_die(100.0, 56.0, 2, colours=0, side=18.0)])
    t = truth.dice[0]
    assert [r.value for r in read_dice_pips(frame, OPTIONS)] == [2]
    # a third pip in a corner the diagonal leaves out: no face of a die looks like that
    offset = 0.26 * t.side_px
    blank = [(sx, sy) for sx in (-1, 1) for sy in (-1, 1)
             if frame[int(round(t.centre_px[1] + sy * offset)), int(round(t.centre_px[0] + sx * offset))].mean() > 150]
    sx, sy = blank[0]
    cv2.circle(frame, (int(round(t.centre_px[0] + sx * offset)), int(round(t.centre_px[1] + sy * offset))),
               int(round(0.085 * t.side_px)), (30, 28, 26), -1, cv2.LINE_AA)
    assert all(r.value is None for r in read_dice_pips(frame, OPTIONS))


def test_grey_and_colour_images_read_alike():
    frame, _ = _table([_die(80.0, 56.0, 3, colours=0), _die(120.0, 56.0, 6, colours=0)])
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert [r.value for r in read_dice_pips(grey, OPTIONS)] == [r.value for r in read_dice_pips(frame, OPTIONS)]


def test_the_real_photos_of_an_empty_table_give_no_die():
    # tests/data/dice_real: wood, a cable and its ferrite, a USB hub with a printed label
    photos = load_truth(DEFAULT_DIR)
    empty = [p for p in photos if not p.dice]
    assert empty
    for p in empty:
        assert read_dice_pips(read_image(str(p.file)), photo_options(p, photos)) == [], p.file.name
