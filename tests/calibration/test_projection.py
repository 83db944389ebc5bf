"""Pixel <-> table at a height, and table registration from anchors, on exact projected geometry."""

from dataclasses import replace

import numpy as np
import pytest

from calibration.layout import Anchor, TableLayout
from calibration.projection import pixels_to_table, table_to_pixels
from calibration.registration import TableRegistration, estimate_pose
from tests.conftest import camera_over_table
from vision.synthetic import VirtualCamera, standard_layout


def _layout():
    anchors = [
        Anchor(i, x, y, 50.0)
        for i, (x, y) in enumerate([(40, 40), (1200, 40), (2360, 40), (2360, 1160), (1200, 1160), (40, 1160)])
    ]
    return TableLayout(2400.0, 1200.0, "DICT_4X4_250", tuple(anchors))


def _anchor_px(layout, cam, pose, noise_px=0.0, rng=None):
    seen = {}
    for a in layout.anchors:
        px = table_to_pixels(a.corners_mm(), cam, pose)
        if noise_px:
            px = px + rng.normal(0, noise_px, px.shape)
        seen[a.id] = px
    return seen


@pytest.mark.parametrize("tilt", [0.0, 25.0])
@pytest.mark.parametrize("height", [0.0, 3.0, 25.0, 50.0])
def test_pixel_ray_meets_the_plane_at_the_given_height(tilt, height):
    cam, pose = camera_over_table(tilt)
    rng = np.random.default_rng(1)
    pts = np.column_stack([rng.uniform(0, 2400, 50), rng.uniform(0, 1200, 50), np.full(50, height)])
    back = pixels_to_table(table_to_pixels(pts, cam, pose), cam, pose, height)
    np.testing.assert_allclose(back, pts[:, :2], atol=1e-6)


def test_ignoring_the_height_misplaces_a_raised_marker_by_parallax():
    cam, pose = camera_over_table(15.0)
    corner = np.array([[2380.0, 1180.0, 25.0]])
    on_cloth = pixels_to_table(table_to_pixels(corner, cam, pose), cam, pose, 0.0)
    error = np.linalg.norm(on_cloth[0] - corner[0, :2])
    assert 10.0 < error < 40.0  # what a z = 0 homography would do


def test_pose_from_anchors_is_exact_without_noise():
    cam, pose = camera_over_table(20.0)
    layout = _layout()
    got = estimate_pose(_anchor_px(layout, cam, pose), layout, cam)
    assert got.anchors == tuple(range(6))
    assert got.reprojection_px < 1e-6
    np.testing.assert_allclose(got.camera_centre_mm, pose.camera_centre_mm, atol=1e-3)


def test_pose_with_corner_noise_places_points_within_a_fraction_of_a_millimetre():
    cam, pose = camera_over_table(25.0)
    layout = _layout()
    got = estimate_pose(_anchor_px(layout, cam, pose, 0.15, np.random.default_rng(3)), layout, cam)
    assert 0.05 < got.reprojection_px < 0.3
    pts = np.array([[100.0, 100.0, 25.0], [2300.0, 1100.0, 50.0], [1200.0, 600.0, 3.0]])
    back = pixels_to_table(table_to_pixels(pts, cam, pose), cam, got, pts[:, 2])
    assert np.abs(back - pts[:, :2]).max() < 0.5


def test_a_misread_anchor_is_left_out():
    cam, pose = camera_over_table(10.0)
    layout = _layout()
    seen = _anchor_px(layout, cam, pose)
    seen[4] = seen[4] + 25.0  # a hand pushed it, or a misread
    got = estimate_pose(seen, layout, cam)
    assert 4 not in got.anchors and len(got.anchors) == 5
    assert got.reprojection_px < 1e-3


def test_two_anchors_suffice_and_one_does_not():
    cam, pose = camera_over_table(10.0)
    layout = _layout()
    seen = _anchor_px(layout, cam, pose)
    assert estimate_pose({0: seen[0], 3: seen[3]}, layout, cam) is not None
    assert estimate_pose({0: seen[0]}, layout, cam) is None
    assert estimate_pose({0: seen[0], 99: seen[3]}, layout, cam) is None  # 99 is not an anchor


def test_registration_keeps_the_last_good_pose_and_heals_after_a_bump():
    cam, pose = camera_over_table(10.0)
    layout = _layout()
    reg = TableRegistration(layout, cam)
    first = reg.update(_anchor_px(layout, cam, pose))
    assert reg.fresh and first is not None
    assert reg.update({}) is first and not reg.fresh
    _, bumped = camera_over_table(14.0)
    healed = reg.update(_anchor_px(layout, cam, bumped))
    assert reg.fresh
    np.testing.assert_allclose(healed.camera_centre_mm, bumped.camera_centre_mm, atol=1e-3)


def _with_k1(cam, k1):
    d = cam.dist_coeffs.copy()
    d[0] = k1
    return type(cam)(cam.image_size, cam.camera_matrix, d, cam.rms_px)


def test_registration_refines_a_miscalibrated_k1_from_six_anchors():
    """The anchors spread over the table reveal a k1 the lens calibration got wrong; pieces then land right."""
    true_cam, pose = camera_over_table(15.0)
    layout = _layout()
    seen = _anchor_px(layout, true_cam, pose)
    believed = _with_k1(true_cam, true_cam.dist_coeffs[0] + 0.01)
    reg = TableRegistration(layout, believed)
    got = reg.update(seen)
    assert reg.lens.dist_coeffs[0] == pytest.approx(true_cam.dist_coeffs[0], abs=1e-4)
    corner = np.array([[2350.0, 1150.0, 50.0]])
    px = table_to_pixels(corner, true_cam, pose)
    refined = pixels_to_table(px, reg.lens, got, 50.0)[0]
    unrefined = pixels_to_table(px, believed, estimate_pose(seen, layout, believed), 50.0)[0]
    assert np.abs(refined - corner[0, :2]).max() < 0.05
    assert np.abs(unrefined - corner[0, :2]).max() > 0.5  # what the wrong k1 alone would cost


def test_k1_is_left_alone_with_few_anchors_or_when_asked():
    true_cam, pose = camera_over_table(15.0)
    layout = _layout()
    seen = _anchor_px(layout, true_cam, pose)
    believed = _with_k1(true_cam, true_cam.dist_coeffs[0] + 0.01)
    few = TableRegistration(layout, believed)
    few.update({i: seen[i] for i in (0, 1, 2, 3)})
    assert few.lens is believed
    off = TableRegistration(layout, believed, refine_lens=False)
    off.update(seen)
    assert off.lens is believed


def test_a_symmetric_view_where_ippe_answers_nan_still_gives_a_pose():
    # found through the lens uncertainty: OpenCV's IPPE returns NaN (and success) for this synthetic table seen
    # square-on with fy nudged by 1.5 px; registration falls back to SQPnP
    layout = standard_layout()
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (3840, 2160), 1700.0, 15.0)
    anchors = {a.id: cam.project(a.corners_mm()) for a in layout.anchors}
    k = cam.intrinsics.camera_matrix.copy()
    k[1, 1] += 1.5
    got = estimate_pose(anchors, layout, replace(cam.intrinsics, camera_matrix=k))
    assert got is not None and np.all(np.isfinite(got.rvec)) and got.reprojection_px < 1.0
    np.testing.assert_allclose(got.camera_centre_mm, cam.pose.camera_centre_mm, atol=5.0)
