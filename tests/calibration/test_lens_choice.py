"""Issue 26: the lens refined from the table is used where it is measurably better (`choose_lens`): each anchor
predicted from the others closer than with the camera file's lens, enough anchors, spread, plausible values."""

from dataclasses import replace

import numpy as np

from calibration.lens import (
    REFINE_MAX_HELD_OUT,
    REFINE_MIN_ANCHORS,
    choose_lens,
    refine_lens,
)
from fieldglass.benchmarks.lens import RAISED_MM
from tests.calibration.test_lens import _exact_table, _off


def _focal_error(camera, truth) -> float:
    return abs(camera.camera_matrix[0, 0] / truth.camera_matrix[0, 0] - 1)


def test_a_lens_off_as_a_users_calibration_is_refined_and_says_so():
    layout, cam, anchors, markers = _exact_table(())
    given = _off(cam.intrinsics)
    choice = choose_lens(anchors, layout, given, markers)
    assert choice.refined and choice.camera is not given
    before, after = choice.held_out_px
    assert after <= REFINE_MAX_HELD_OUT * before and after < 0.5 * before
    assert abs(choice.camera.dist_coeffs[0] - cam.intrinsics.dist_coeffs[0]) < 0.5 * 0.005
    line = choice.describe("cam.json")
    assert line.startswith("lens: cam.json refined from 8 anchors and 60 piece markers on the table (k1")
    assert "reprojection" in line and "each anchor predicted from the others" in line


def test_raised_anchors_refine_the_focal_length_by_default():
    layout, cam, anchors, markers = _exact_table(RAISED_MM)
    given = _off(cam.intrinsics)
    choice = choose_lens(anchors, layout, given, markers)
    assert choice.refined and "focal" in choice.fit.refined
    assert _focal_error(choice.camera, cam.intrinsics) < 0.3 * _focal_error(given, cam.intrinsics)


def test_a_true_lens_is_kept_since_refining_it_does_not_help():
    layout, cam, anchors, markers = _exact_table((), seed=5)
    choice = choose_lens(anchors, layout, cam.intrinsics, markers)
    assert not choice.refined and choice.camera is cam.intrinsics
    assert choice.reason.startswith("refining it did not help: each anchor predicted from the others")
    assert choice.held_out_px[1] > REFINE_MAX_HELD_OUT * choice.held_out_px[0]
    assert choice.describe("cam.json").startswith("lens: cam.json as calibrated (refining it did not help")


def test_too_few_anchors_keep_the_camera_files_lens_and_say_why():
    layout, cam, anchors, markers = _exact_table(())
    given = _off(cam.intrinsics)
    three = {i: anchors[i] for i in (0, 1, 2)}
    assert refine_lens(three, layout, given, markers) is not None  # a fit there is; it cannot be checked
    choice = choose_lens(three, layout, given, markers)
    assert not choice.refined and choice.camera is given
    assert f"3 anchor(s) on the table in view, {REFINE_MIN_ANCHORS} needed to check each" in choice.reason
    assert not choice.tried
    assert choose_lens({0: anchors[0]}, layout, given, markers).reason.startswith("no table pose")


def test_anchors_at_one_end_of_the_table_do_not_refine_it():
    layout, cam, anchors, markers = _exact_table(())
    west = {i: anchors[i] for i in (0, 3, 7, 4, 6)}  # x from the west edge to the middle: 48 % of the width
    choice = choose_lens(west, layout, _off(cam.intrinsics), markers)
    assert not choice.refined and not choice.tried and "span 48 % of the table, 50 % needed" in choice.reason


def test_a_lens_far_beyond_a_calibrations_error_is_refused_as_another_camera():
    layout, cam, anchors, markers = _exact_table(RAISED_MM)
    wrong = _off(cam.intrinsics, focal=0.025, centre=(0.0, 0.0), k1=0.0)  # 6 prior deviations
    choice = choose_lens(anchors, layout, wrong, markers)
    assert not choice.refined and choice.camera is wrong and choice.tried
    assert "would move the focal length by" in choice.reason and "check the camera file" in choice.reason


def test_without_the_check_the_refined_lens_is_used_and_the_files_deviations_are_kept():
    layout, cam, anchors, markers = _exact_table((), seed=5)
    std = np.array([2.0, 2.0, 1.5, 1.5, 0.003, 0.006, 0.0003, 0.0003, 0.005])
    true = replace(cam.intrinsics, std_devs=std)
    forced = choose_lens(anchors, layout, true, markers, check=False)
    assert forced.refined and forced.held_out_px is None and forced.reason == "used without the check"
    np.testing.assert_array_equal(forced.camera.std_devs, std)
    refined = choose_lens(anchors, layout, replace(_off(cam.intrinsics), std_devs=std), markers)
    assert refined.refined and refined.camera.std_devs is std
    json = refined.to_json("cam.json")
    assert json["refined"] and json["values"][0] == "k1" and json["anchors"] == 8 and json["pieces"] == 60
    assert json["held_out_px"][1] < json["held_out_px"][0]
