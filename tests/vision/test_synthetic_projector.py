"""The synthetic table lit by a projector (vision/synthetic.py `ProjectedLight`): the light lands where the projector
sends it, on the cloth and on raised terrain at its height, brightness and focus as given, and a dark projector
changes nothing."""

import cv2
import numpy as np
import pytest

from calibration.projector import marker_pattern
from fieldglass.projector_setup import simulated_table
from vision.synthetic import ProjectedLight, RenderOptions, render_table
from vision.synthetic_projector import true_projector


@pytest.fixture(scope="module")
def table():
    return simulated_table(resolution=(960, 540))


def _spot(table, xy, z, brightness=1.0, blur=0.0):
    """The frame lit by one bright disc sent to table point `xy` at height `z`, and the centroid of its light."""
    truth = true_projector(table.projector, table.camera.pose)
    w, h = table.projector.image_size
    img = np.zeros((h, w), np.uint8)
    px = truth.to_pixels(np.array([xy], float), z)[0]
    cv2.circle(img, (int(round(px[0] * 16)), int(round(px[1] * 16))), 64, 255, -1, cv2.LINE_AA, shift=4)
    dark, _ = render_table(table.scene, table.camera)
    lit, _ = render_table(table.scene, table.camera, RenderOptions(projection=ProjectedLight(
        table.projector, img, brightness, blur)))
    diff = cv2.cvtColor(cv2.absdiff(lit, dark), cv2.COLOR_BGR2GRAY).astype(float)
    ys, xs = np.nonzero(diff > 3)
    wts = diff[ys, xs]
    return diff, np.array([(wts * xs).sum(), (wts * ys).sum()]) / wts.sum()


def test_light_lands_where_it_is_sent_on_the_cloth_and_on_the_hill(table):
    for xy, z in (((1300.0, 250.0), 0.0), ((2000.0, 900.0), 0.0), ((800.0, 600.0), 40.0)):
        if z > 0:
            assert table.raised.holds(np.array([xy]))[0]
        _, centre = _spot(table, xy, z)
        want = table.camera.project(np.array([[*xy, z]]))[0]
        assert np.linalg.norm(centre - want) < 0.25, (xy, z, centre, want)


def test_sent_at_the_wrong_height_it_lands_elsewhere(table):
    # light meant for the hill's top thrown as if for the cloth misses it: the parallax the calibration must model
    _, centre = _spot(table, (800.0, 600.0), 0.0)
    want = table.camera.project(np.array([[800.0, 600.0, 40.0]]))[0]
    assert np.linalg.norm(centre - want) > 1.0


def test_brightness_and_blur(table):
    weak, _ = _spot(table, (1300.0, 250.0), 0.0, brightness=0.5)
    strong, _ = _spot(table, (1300.0, 250.0), 0.0, brightness=1.5)
    assert strong.max() > 2 * weak.max()
    sharp, _ = _spot(table, (1300.0, 250.0), 0.0)
    blurred, _ = _spot(table, (1300.0, 250.0), 0.0, blur=3.0)
    assert (blurred > 3).sum() > (sharp > 3).sum() and blurred.max() < sharp.max()


def test_a_dark_projector_changes_nothing(table):
    w, h = table.projector.image_size
    plain, _ = render_table(table.scene, table.camera)
    dark, _ = render_table(table.scene, table.camera, RenderOptions(projection=ProjectedLight(
        table.projector, np.zeros((h, w), np.uint8))))
    assert np.array_equal(plain, dark)
    lit, _ = render_table(table.scene, table.camera, RenderOptions(projection=ProjectedLight(
        table.projector, marker_pattern((w, h)).image)))
    assert not np.array_equal(plain, lit)
