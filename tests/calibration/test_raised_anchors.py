"""Raised anchors (issue 17): anchors glued on blocks, their faces `z_mm` above the cloth, register the table."""

from dataclasses import replace

import numpy as np
import pytest

from calibration.layout import TableLayout, layout_to_toml, load_layout
from calibration.registration import LENS_HISTORY, TableRegistration
from vision.pieces import read_table
from vision.synthetic import RenderOptions, VirtualCamera, random_scene, render_table, standard_layout

RAISED = (55.0, 50.0, 60.0, 52.0)  # the four corner anchors on blocks; the edge midpoints flat


def _errors(frame, scene, truth, layout: TableLayout, camera):
    reading = read_table(frame, TableRegistration(layout, camera, refine_lens=False), scene.roster)
    assert reading.pose is not None
    truth_by_id = {t.piece_id: t for t in truth.pieces if t.visible}
    errs = [np.hypot(p.x_mm - truth_by_id[p.piece].x_mm, p.y_mm - truth_by_id[p.piece].y_mm)
            for p in reading.pieces if p.piece in truth_by_id]
    assert len(errs) >= 0.9 * len(truth_by_id)
    return reading.pose, np.array(errs)


@pytest.fixture(scope="module")
def raised_table():
    layout = standard_layout(raised_mm=RAISED)
    scene = random_scene(layout, 30, np.random.default_rng(5))
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (1920, 1080), 1700.0, 20.0)
    frame, truth = render_table(scene, cam, RenderOptions(blur_sigma_px=0.8, noise_sigma=2.0, seed=4))
    return layout, scene, cam, frame, truth


def test_a_table_with_anchors_on_blocks_is_located_as_exactly_as_a_flat_one(raised_table):
    layout, scene, cam, frame, truth = raised_table
    pose, errs = _errors(frame, scene, truth, layout, cam.intrinsics)
    assert set(pose.anchors) == set(range(8)) and pose.reprojection_px < 0.5
    assert np.percentile(errs, 95) < 1.0 and errs.max() < 2.0


def test_the_height_matters_a_raised_anchor_read_as_flat_throws_the_pose_off(raised_table):
    layout, scene, cam, frame, truth = raised_table
    flat = replace(layout, anchors=tuple(replace(a, z_mm=0.0) for a in layout.anchors))
    reading = read_table(frame, TableRegistration(flat, cam.intrinsics, refine_lens=False), scene.roster)
    # read as flat, the blocks' anchors disagree with the flat ones by the parallax of 5 cm: either they are
    # dropped as misfits, or the pose bends to them and misses by pixels
    assert reading.pose is None or set(reading.pose.anchors) != set(range(8)) or reading.pose.reprojection_px > 2.0


def test_z_mm_is_read_and_written_back(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(layout_to_toml(standard_layout(raised_mm=(55.0, 0.0, 60.0))))
    layout = load_layout(path)
    assert [a.z_mm for a in layout.anchors][:4] == [55.0, 0.0, 60.0, 0.0]
    assert layout == standard_layout(raised_mm=(55.0, 0.0, 60.0))


def test_a_stream_pools_the_lens_from_raised_anchors_and_starts_again_after_a_bump():
    layout = standard_layout(raised_mm=RAISED)
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (3840, 2160), 1700.0, 15.0)
    true = cam.intrinsics
    k, d = true.camera_matrix.copy(), true.dist_coeffs.copy()
    k[0, 0] *= 1.003
    k[1, 1] *= 1.003
    k[0, 2] += 2.0
    d[0] += 0.005
    registration = TableRegistration(layout, replace(true, camera_matrix=k, dist_coeffs=d))
    rng = np.random.default_rng(1)
    frames = 0
    # a frame's estimate is pooled only when the pose fits at least as well with it, until LENS_HISTORY are
    while len(registration.lens_history) < LENS_HISTORY and frames < 100:
        registration.update({a.id: cam.project(a.corners_mm()) + rng.normal(0, 0.05, (4, 2)) for a in layout.anchors})
        frames += 1
    lens = registration.lens
    assert len(registration.lens_history) == LENS_HISTORY and registration.k1_history == []
    assert abs(lens.camera_matrix[0, 0] / true.camera_matrix[0, 0] - 1) < 0.001
    assert abs(lens.camera_matrix[0, 2] - true.camera_matrix[0, 2]) < 1.0
    assert abs(lens.dist_coeffs[0] - true.dist_coeffs[0]) < 0.001
    assert registration.pose.reprojection_px < 0.1
    # a bump moves the camera: a new pose, and the pooling starts again from the lens it had (issue 17: "pools the
    # evidence over frames while the camera stays put, and starts again after a bump")
    moved = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (3840, 2160), 1650.0, 17.0).pose
    bumped = VirtualCamera(true, moved)  # the same lens, elsewhere
    registration.update({a.id: bumped.project(a.corners_mm()) for a in layout.anchors})
    assert registration.fresh and len(registration.lens_history) <= 1
    np.testing.assert_allclose(registration.pose.camera_centre_mm, bumped.pose.camera_centre_mm, atol=5.0)
    for _ in range(LENS_HISTORY):
        registration.update({a.id: bumped.project(a.corners_mm()) + rng.normal(0, 0.05, (4, 2))
                             for a in layout.anchors})
    again = registration.lens  # pooled anew, as good as before the bump
    assert abs(again.camera_matrix[0, 0] / true.camera_matrix[0, 0] - 1) < 0.001
    assert abs(again.dist_coeffs[0] - lens.dist_coeffs[0]) < 0.001


def test_on_a_flat_table_a_stream_refines_k1_alone():
    layout = standard_layout()
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (3840, 2160), 1700.0, 15.0)
    d = cam.intrinsics.dist_coeffs.copy()
    d[0] += 0.005
    registration = TableRegistration(layout, replace(cam.intrinsics, dist_coeffs=d))
    for _ in range(3):
        registration.update({a.id: cam.project(a.corners_mm()) for a in layout.anchors})
    assert registration.lens_history == [] and 1 <= len(registration.k1_history) <= 3
    np.testing.assert_array_equal(registration.lens.camera_matrix, cam.intrinsics.camera_matrix)
    assert abs(registration.lens.dist_coeffs[0] - cam.intrinsics.dist_coeffs[0]) < 0.001
