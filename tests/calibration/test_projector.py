"""The projector's map (calibration/projector.py): fitted from marker corners on the cloth and on a raised surface,
following the table, its file and its errors."""

import json

import cv2
import numpy as np
import pytest

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.projector import (
    ProjectorModel,
    RaisedSurface,
    detect_pattern,
    fit_projector,
    height_function,
    landing_error_mm,
    load_projector,
    marker_pattern,
    save_projector,
    table_grid,
)
from common.errors import InputError

SIZE = (1280, 800)


def _projector(cx=690.0, cy=330.0, f=600.0, k1=0.0) -> ProjectorModel:
    """A projector 1.5 m over a 2400 x 1200 table, tipped and turned, its optical centre off the image centre."""
    rot = cv2.Rodrigues(np.array([np.pi, 0.0, 0.0]))[0]  # looking straight down
    turn = cv2.Rodrigues(np.array([0.1, -0.05, 0.3]))[0]
    rot = turn @ rot
    centre = np.array([1200.0, 600.0, 1500.0])
    t = -rot @ centre
    k = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])
    pose = CameraPose(cv2.Rodrigues(rot)[0].ravel(), t)
    return ProjectorModel(CameraIntrinsics(SIZE, k, np.array([k1, 0, 0, 0, 0.0])), pose, pose)


def _correspondences(true: ProjectorModel, heights=(0.0,), noise_px=0.0, seed=0):
    """Projector pixels on a grid and where their light lands on the table, at each of `heights` (a band of the
    image each)."""
    rng = np.random.default_rng(seed)
    xs, ys = np.meshgrid(np.linspace(40, SIZE[0] - 40, 20), np.linspace(40, SIZE[1] - 40, 12))
    px = np.column_stack([xs.ravel(), ys.ravel()])
    band = np.arange(len(px)) % len(heights)
    z = np.asarray(heights, float)[band]
    xy = true.to_table(px, z)
    obj = np.column_stack([xy, z])
    return obj, px + rng.normal(0, noise_px, px.shape)


def test_fit_on_cloth_and_raised_surface_recovers_the_map_at_every_height():
    true = _projector(k1=0.02)
    obj, px = _correspondences(true, heights=(0.0, 40.0), noise_px=0.05)
    model = fit_projector(obj, px, SIZE, true.camera_pose)
    grid = table_grid(2400, 1200, 50)
    for z in (0.0, 40.0, 20.0, 80.0):
        err = landing_error_mm(model, true, grid, z)
        assert err.max() < 0.5, (z, err.max())
    assert model.heights_mm == (0.0, 40.0)
    assert model.rms_mm < 0.2
    assert abs(model.intrinsics.camera_matrix[0, 2] - 690.0) < 15  # the optical centre is found, not assumed


def test_fit_on_the_cloth_alone_is_exact_there():
    true = _projector()
    obj, px = _correspondences(true)
    model = fit_projector(obj, px, SIZE, true.camera_pose)
    err = landing_error_mm(model, true, table_grid(2400, 1200, 50), 0.0)
    assert err.max() < 0.05


def test_outliers_are_dropped():
    true = _projector()
    obj, px = _correspondences(true, heights=(0.0, 40.0))
    px[:6] += 25.0  # six corners misread
    model = fit_projector(obj, px, SIZE, true.camera_pose)
    assert model.points == len(px) - 6
    assert landing_error_mm(model, true, table_grid(2400, 1200, 100), 0.0).max() < 0.05


def test_too_few_points_is_an_error():
    true = _projector()
    obj, px = _correspondences(true)
    with pytest.raises(ValueError, match="at least"):
        fit_projector(obj[:8], px[:8], SIZE, true.camera_pose)


@pytest.mark.parametrize("from_cloth_only", [False, True])
def test_the_map_follows_the_table_when_the_camera_registers_it_moved(from_cloth_only):
    true = _projector()
    cam0 = CameraPose(np.array([np.pi, 0.0, 0.0]), np.array([-1200.0, 600.0, 1700.0]))
    if from_cloth_only:  # the homography model
        obj, px = _correspondences(true)
        model = fit_projector(obj, px, SIZE, cam0)
        assert model.homography is not None
    else:
        model = ProjectorModel(true.intrinsics, true.pose, cam0)
    # the table slides 30 mm east and turns 2 degrees: in the new table frame a point p was at M p before
    a = np.radians(2.0)
    m_rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1.0]])
    m_t = np.array([30.0, 0.0, 0.0])
    # camera: x_cam = R0 (M p + t) + t0 = (R0 M) p + (R0 t + t0)
    r0 = cam0.rotation
    cam1 = CameraPose(cv2.Rodrigues(r0 @ m_rot)[0].ravel(), r0 @ m_t + cam0.tvec)
    moved = model.following(cam1)
    grid = table_grid(2400, 1200, 200)
    pts = np.column_stack([grid, np.zeros(len(grid))])
    before = model.to_pixels(pts @ m_rot.T + m_t)
    np.testing.assert_allclose(moved.to_pixels(pts), before, atol=1e-4)


def test_pattern_corners_are_where_the_markers_are_drawn():
    pattern = marker_pattern(SIZE)
    seen = detect_pattern(pattern.image)
    assert set(seen) == set(pattern.corners_px)
    for mid, c in seen.items():
        np.testing.assert_allclose(c, pattern.corners_px[mid], atol=0.3)


def test_shifted_patterns_keep_inside_the_image():
    pattern = marker_pattern(SIZE, shift=(0.5, 0.5))
    allc = np.concatenate(list(pattern.corners_px.values()))
    assert allc.min() >= -0.5 and allc[:, 0].max() <= SIZE[0] - 0.5 and allc[:, 1].max() <= SIZE[1] - 0.5


def test_height_function_puts_points_on_the_first_surface_holding_them():
    hill = RaisedSurface(np.array([[0, 0], [100, 0], [100, 100], [0, 100.0]]), 40.0)
    board = RaisedSurface(np.array([[50, 50], [200, 50], [200, 200], [50, 200.0]]), 12.0)
    z = height_function([hill, board])(np.array([[10, 10], [150, 150], [60, 60], [300, 300.0]]))
    assert z.tolist() == [40.0, 12.0, 40.0, 0.0]


def test_file_round_trip(tmp_path):
    true = _projector()
    obj, px = _correspondences(true, heights=(0.0, 40.0))
    model = fit_projector(obj, px, SIZE, true.camera_pose, screen=1)
    path = tmp_path / "projector.json"
    save_projector(model, path)
    back = load_projector(path)
    assert back.screen == 1 and back.heights_mm == model.heights_mm and back.points == model.points
    pts = np.array([[100.0, 200.0, 0.0], [2000.0, 1000.0, 40.0]])
    np.testing.assert_allclose(back.to_pixels(pts), model.to_pixels(pts), atol=1e-9)


@pytest.mark.parametrize("change, words", [
    ({"rvec": [1, 2]}, "'rvec' must be 3 finite numbers"),
    ({"tvec": [0, 0, "x"]}, "'tvec' must be 3 finite numbers"),
    ({"rms_mm": -1}, "'rms_mm'"),
    ({"screen": "one"}, "'screen'"),
    ({"camera_matrix": [[0, 0, 1], [0, 0, 1], [0, 0, 1]]}, "camera_matrix"),
    ({"colour": 3}, "colour"),
])
def test_a_damaged_file_is_a_one_line_error(tmp_path, change, words):
    true = _projector()
    path = tmp_path / "p.json"
    save_projector(true, path)
    data = json.loads(path.read_text())
    data.update(change)
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as exc:
        load_projector(path)
    msg = str(exc.value)
    assert words in msg and str(path) in msg and "\n" not in msg


def test_missing_or_not_json(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_projector(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(InputError, match="not a projector file"):
        load_projector(bad)
