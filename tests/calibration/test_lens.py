"""The lens refined from one photo of the table (issue 17): anchors and piece markers as the calibration object."""

from dataclasses import replace

import numpy as np
import pytest

import calibration.lens as lens_module
from calibration.camera import CameraIntrinsics
from calibration.layout import square_corners_mm
from calibration.lens import (
    K2_MIN_REACH,
    MIN_RELIEF_MM,
    LensPriors,
    MarkerSighting,
    radial_reach,
    refine_lens,
    relief_mm,
)
from calibration.registration import TableRegistration
from fieldglass.benchmarks.lens import RAISED_MM, perturbed
from fieldglass.table_lens import detect_table_markers, refine_from_markers, sightings
from vision.pieces import read_table
from vision.synthetic import RenderOptions, VirtualCamera, random_scene, render_table, standard_layout

NOISE_PX = 0.05


def _off(camera: CameraIntrinsics, focal=0.003, centre=(2.0, -2.0), k1=0.005) -> CameraIntrinsics:
    k = camera.camera_matrix.copy()
    k[0, 0] *= 1 + focal
    k[1, 1] *= 1 + focal
    k[0, 2] += centre[0]
    k[1, 2] += centre[1]
    d = camera.dist_coeffs.copy()
    d[0] += k1
    return CameraIntrinsics(camera.image_size, k, d)


def _exact_table(raised, n_pieces=60, seed=2, tilt=20.0):
    """Anchor and marker corners projected exactly (no rendering) with NOISE_PX of corner noise (a 50 mm anchor
    at 4K is found to a few hundredths of a pixel); 20 mm markers at heights 3, 25 and 50 mm strewn over the table."""
    rng = np.random.default_rng(seed)
    layout = standard_layout(raised_mm=raised)
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (3840, 2160), 1700.0, tilt)
    anchors = {a.id: cam.project(a.corners_mm()) + rng.normal(0, NOISE_PX, (4, 2)) for a in layout.anchors}
    markers = []
    for _ in range(n_pieces):
        x, y = rng.uniform(100, 2300), rng.uniform(100, 1100)
        h = float(rng.choice((3.0, 25.0, 50.0)))
        corners = square_corners_mm(x, y, 20.0, rng.uniform(0, 360), h)
        markers.append(MarkerSighting(cam.project(corners) + rng.normal(0, NOISE_PX, (4, 2)), 20.0, h))
    return layout, cam, anchors, markers


def test_raised_anchors_give_the_relief_that_frees_the_focal_length():
    assert relief_mm(standard_layout(raised_mm=RAISED_MM), range(8)) == 60.0 >= MIN_RELIEF_MM
    assert relief_mm(standard_layout(), range(8)) == 0.0


def test_on_raised_anchors_the_focal_length_centre_and_k1_move_to_the_truth():
    layout, cam, anchors, markers = _exact_table(RAISED_MM)
    true, given = cam.intrinsics, _off(cam.intrinsics)
    fit = refine_lens(anchors, layout, given, markers)
    assert fit.refined == ("k1", "focal", "centre") and fit.pieces == len(markers)
    f_true = true.camera_matrix[0, 0]
    assert abs(fit.camera.camera_matrix[0, 0] / f_true - 1) < 0.3 * 0.003
    assert np.abs(fit.camera.camera_matrix[:2, 2] - true.camera_matrix[:2, 2]).max() < 1.0
    assert abs(fit.camera.dist_coeffs[0] - true.dist_coeffs[0]) < 0.3 * 0.005
    assert fit.after_px < fit.before_px and fit.after_px < 0.2


def test_on_a_flat_table_the_camera_files_focal_length_and_centre_are_kept():
    layout, cam, anchors, markers = _exact_table(())
    given = _off(cam.intrinsics)
    fit = refine_lens(anchors, layout, given, markers)
    assert fit.refined[0] == "k1" and not {"focal", "centre"} & set(fit.refined)
    np.testing.assert_array_equal(fit.camera.camera_matrix, given.camera_matrix)
    assert abs(fit.camera.dist_coeffs[0] - cam.intrinsics.dist_coeffs[0]) < 0.5 * 0.005


def test_a_true_lens_stays_where_it_is():
    layout, cam, anchors, markers = _exact_table(RAISED_MM, seed=4)
    fit = refine_lens(anchors, layout, cam.intrinsics, markers)
    assert abs(fit.camera.camera_matrix[0, 0] / cam.intrinsics.camera_matrix[0, 0] - 1) < 0.0005
    assert abs(fit.camera.dist_coeffs[0] - cam.intrinsics.dist_coeffs[0]) < 0.001


def test_a_misread_marker_is_left_out_of_the_fit():
    layout, cam, anchors, markers = _exact_table(RAISED_MM, n_pieces=30)
    markers[3] = replace(markers[3], corners_px=markers[3].corners_px + np.array([[6.0, 0], [0, 0], [0, 0], [0, 0]]))
    fit = refine_lens(anchors, layout, _off(cam.intrinsics), markers)
    assert fit.pieces == len(markers) - 1
    assert abs(fit.camera.camera_matrix[0, 0] / cam.intrinsics.camera_matrix[0, 0] - 1) < 0.001


def test_without_anchors_there_is_no_fit():
    layout, cam, anchors, markers = _exact_table(RAISED_MM, n_pieces=5)
    assert refine_lens({0: anchors[0]}, layout, cam.intrinsics, markers) is None


@pytest.fixture(scope="module")
def rendered_raised_table():
    layout = standard_layout(raised_mm=RAISED_MM)
    rng = np.random.default_rng(7)
    scene = random_scene(layout, 60, rng)
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (1920, 1080), 1700.0, 15.0)
    frame, _ = render_table(scene, cam, RenderOptions(blur_sigma_px=0.8, noise_sigma=2.5, jpeg_quality=90, seed=2))
    return layout, scene, cam, frame, rng


def test_on_a_rendered_raised_table_refinement_moves_a_perturbed_focal_length_toward_the_truth(rendered_raised_table):
    layout, scene, cam, frame, rng = rendered_raised_table
    markers = detect_table_markers(frame, layout, scene.roster)
    anchors, pieces = sightings(markers, layout, scene.roster)
    assert len(anchors) == 8 and len(pieces) >= 50
    given = perturbed(cam.intrinsics, rng)
    fit = refine_from_markers(markers, layout, scene.roster, given)
    f_true = cam.intrinsics.camera_matrix[0, 0]
    before = abs(given.camera_matrix[0, 0] / f_true - 1)
    after = abs(fit.camera.camera_matrix[0, 0] / f_true - 1)
    assert after < 0.5 * before
    assert abs(fit.camera.dist_coeffs[0] - cam.intrinsics.dist_coeffs[0]) < 0.5 * 0.005


def test_the_priors_widen_to_a_loose_camera_files_standard_deviations_and_never_narrow():
    layout, cam, _, _ = _exact_table((), n_pieces=0)
    k = cam.intrinsics.camera_matrix
    loose = replace(cam.intrinsics, std_devs=np.array([0.01 * k[0, 0], 0.01 * k[1, 1], 20, 20, 0.02, 0, 0, 0, 0]))
    tight = replace(cam.intrinsics, std_devs=np.full(9, 1e-6))
    assert LensPriors.for_camera(tight) == LensPriors() == LensPriors.for_camera(cam.intrinsics)
    wide = LensPriors.for_camera(loose)
    assert wide.focal == pytest.approx(0.01) and wide.centre == pytest.approx(20 / 3840) and wide.k1 == 0.02


def test_a_loose_calibration_is_let_move_further_toward_the_truth():
    layout, cam, anchors, markers = _exact_table(RAISED_MM)
    given = _off(cam.intrinsics, focal=0.012, centre=(0.0, 0.0), k1=0.0)
    f_true = cam.intrinsics.camera_matrix[0, 0]
    k = given.camera_matrix
    loose = replace(given, std_devs=np.array([0.01 * k[0, 0], 0.01 * k[1, 1], 4, 4, 0.008, 0, 0, 0, 0]))
    held = refine_lens(anchors, layout, given, markers).camera.camera_matrix[0, 0] / f_true - 1
    freed = refine_lens(anchors, layout, loose, markers).camera.camera_matrix[0, 0] / f_true - 1
    assert abs(freed) < abs(held) < 0.012


# ---------------------------------------------------------------- k2, where the data supports it


def _k2_off(camera: CameraIntrinsics, k2: float) -> CameraIntrinsics:
    d = camera.dist_coeffs.copy()
    d[1] += k2
    return CameraIntrinsics(camera.image_size, camera.camera_matrix.copy(), d)


def test_the_radial_reach_says_how_far_toward_the_image_corners_the_corners_lie():
    layout = standard_layout()
    for margin, far in ((60.0, True), (600.0, False)):
        cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (1920, 1080), 1700.0, margin_mm=margin)
        pts = np.concatenate([cam.project(a.corners_mm()) for a in layout.anchors])
        reach = radial_reach(pts, cam.intrinsics)
        assert reach.shape == (4,) and np.all((reach >= K2_MIN_REACH) == far), (margin, reach)
    assert np.all(radial_reach(np.array([[959.5, 539.5]]), cam.intrinsics) == 0.0)


def test_with_poor_radial_coverage_the_camera_files_k2_is_kept():
    """The table in the middle of the frame (600 mm of floor around it): k2 cannot be told from k1 there."""
    rng = np.random.default_rng(5)
    layout = standard_layout()
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (3840, 2160), 1700.0, margin_mm=600.0)
    anchors = {a.id: cam.project(a.corners_mm()) + rng.normal(0, NOISE_PX, (4, 2)) for a in layout.anchors}
    markers = [MarkerSighting(cam.project(square_corners_mm(x, y, 20.0, 0.0, 3.0)) + rng.normal(0, NOISE_PX, (4, 2)),
                              20.0, 3.0) for x, y in rng.uniform((100, 100), (2300, 1100), (40, 2))]
    given = _k2_off(cam.intrinsics, 0.01)
    fit = refine_lens(anchors, layout, given, markers)
    assert "k2" not in fit.refined and fit.camera.dist_coeffs[1] == given.dist_coeffs[1]


@pytest.fixture(scope="module")
def rendered_flat_table():
    layout = standard_layout()
    rng = np.random.default_rng(11)
    scene = random_scene(layout, 80, rng)
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (1920, 1080), 1700.0, 15.0)
    frame, truth = render_table(scene, cam, RenderOptions(blur_sigma_px=0.8, noise_sigma=2.5, jpeg_quality=90,
                                                          seed=3))
    return layout, scene, cam, frame, truth, rng


def _centre_errors_mm(frame, layout, scene, truth, camera, markers) -> np.ndarray:
    reading = read_table(frame, TableRegistration(layout, camera, refine_lens=False), scene.roster, markers)
    true = {t.piece_id: t for t in truth.pieces if t.visible}
    return np.array([np.hypot(p.x_mm - true[p.piece].x_mm, p.y_mm - true[p.piece].y_mm)
                     for p in reading.pieces if p.piece in true])


def test_on_a_rendered_table_a_perturbed_k2_moves_toward_the_truth_and_the_errors_drop(rendered_flat_table,
                                                                                      monkeypatch):
    layout, scene, cam, frame, truth, rng = rendered_flat_table
    markers = detect_table_markers(frame, layout, scene.roster)
    given = _k2_off(perturbed(cam.intrinsics, rng), 0.01)
    k2_true = cam.intrinsics.dist_coeffs[1]
    fit = refine_from_markers(markers, layout, scene.roster, given)
    assert "k2" in fit.refined
    assert abs(fit.camera.dist_coeffs[1] - k2_true) < 0.5 * abs(given.dist_coeffs[1] - k2_true)
    monkeypatch.setattr(lens_module, "K2_MIN_GAIN", np.inf)  # the same fit with the camera file's k2 kept
    k1_only = refine_from_markers(markers, layout, scene.roster, given)
    assert "k2" not in k1_only.refined
    with_k2 = _centre_errors_mm(frame, layout, scene, truth, fit.camera, markers)
    without = _centre_errors_mm(frame, layout, scene, truth, k1_only.camera, markers)
    assert len(with_k2) == len(without) >= 60
    assert np.percentile(with_k2, 95) < 0.8 * np.percentile(without, 95)
    assert with_k2.max() < without.max()
