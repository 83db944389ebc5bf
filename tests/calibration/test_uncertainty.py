"""A located point's uncertainty in mm from the lens's standard deviations (issue 17)."""

from dataclasses import replace

import numpy as np

import calibration.uncertainty as unc
from calibration.projection import pixels_to_table
from calibration.registration import estimate_pose
from calibration.uncertainty import UncertaintyMaps, _moved, error_map, lens_uncertainty_mm
from vision.synthetic import VirtualCamera, standard_layout

STD = np.array([1.5, 1.5, 1.2, 1.2, 0.002, 0.004, 0.0002, 0.0002, 0.003])


def _table():
    layout = standard_layout()
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (3840, 2160), 1700.0, 15.0)
    anchors = {a.id: cam.project(a.corners_mm()) for a in layout.anchors}
    points = np.array([[1200.0, 600.0, 25.0], [300.0, 250.0, 3.0], [2300.0, 1100.0, 50.0]])
    return layout, cam, anchors, cam.project(points), points[:, 2]


def test_the_uncertainty_matches_the_spread_of_lenses_drawn_from_the_standard_deviations():
    layout, cam, anchors, pixels, heights = _table()
    lens = replace(cam.intrinsics, std_devs=STD)
    predicted = lens_uncertainty_mm(anchors, layout, lens, pixels, heights)
    truth = pixels_to_table(pixels, lens, estimate_pose(anchors, layout, lens), heights)
    rng = np.random.default_rng(0)
    squares = []
    for _ in range(300):
        drawn = lens
        for i, s in enumerate(STD):
            drawn = _moved(drawn, i, rng.normal(0, s))
        pose = estimate_pose(anchors, layout, drawn)
        squares.append(np.sum((pixels_to_table(pixels, drawn, pose, heights) - truth) ** 2, axis=1))
    observed = np.sqrt(np.mean(squares, axis=0))
    assert np.all(predicted > 0.01)
    np.testing.assert_allclose(predicted, observed, rtol=0.25)


def test_a_surer_lens_gives_a_smaller_uncertainty_and_none_without_standard_deviations():
    layout, cam, anchors, pixels, heights = _table()
    wide = lens_uncertainty_mm(anchors, layout, replace(cam.intrinsics, std_devs=STD), pixels, heights)
    narrow = lens_uncertainty_mm(anchors, layout, replace(cam.intrinsics, std_devs=STD / 4), pixels, heights)
    np.testing.assert_allclose(narrow, wide / 4, rtol=0.05)
    assert lens_uncertainty_mm(anchors, layout, cam.intrinsics, pixels, heights) is None


def test_the_error_map_samples_the_table_as_the_per_point_uncertainty_does():
    layout, cam, anchors, _, _ = _table()
    lens = replace(cam.intrinsics, std_devs=STD)
    emap = error_map(anchors, layout, lens, cols=8, rows=4)
    assert emap.shape == (4, 8) and np.all(np.isfinite(emap)) and np.all(emap > 0)
    # cell (row 1, col 5) is the point at its centre, as lens_uncertainty_mm gives it
    x, y = (5 + 0.5) * layout.width_mm / 8, (1 + 0.5) * layout.depth_mm / 4
    one = lens_uncertainty_mm(anchors, layout, lens, cam.project(np.array([[x, y, 0.0]])), 0.0)
    assert abs(emap[1, 5] - one[0]) < 1e-6
    assert error_map(anchors, layout, cam.intrinsics) is None  # no standard deviations: no map
    assert error_map({}, layout, lens) is None  # no anchors: no pose, no map


def test_the_live_maps_give_each_piece_the_per_point_uncertainty_and_are_made_again_only_when_the_camera_moves():
    layout, cam, anchors, _, _ = _table()
    lens = replace(cam.intrinsics, std_devs=STD)
    pose = estimate_pose(anchors, layout, lens)
    rng = np.random.default_rng(4)
    xy = rng.uniform([50, 50], [layout.width_mm - 50, layout.depth_mm - 50], (40, 2))
    heights = rng.choice([3.0, 25.0, 50.0], 40)
    maps = UncertaintyMaps(layout)
    live = maps.sigma_mm(anchors, lens, pose, xy, heights)
    pixels = cam.project(np.column_stack([xy, heights]))
    exact = lens_uncertainty_mm(anchors, layout, lens, pixels, heights)
    np.testing.assert_allclose(live, exact, rtol=0.05, atol=0.005)
    made = dict(maps._maps)
    assert set(made) == {3.0, 25.0, 50.0}
    nudged = replace(pose, tvec=np.asarray(pose.tvec, float) + [1.0, 0.0, 0.0])  # a 1 mm tremble: the same maps
    maps.sigma_mm(anchors, lens, nudged, xy, heights)
    assert all(maps._maps[h] is made[h] for h in made)
    moved = replace(pose, tvec=np.asarray(pose.tvec, float) + [60.0, 0.0, 0.0])  # a knocked camera: new maps
    maps.sigma_mm(anchors, lens, moved, xy, heights)
    assert all(maps._maps[h] is not made[h] for h in made)
    assert maps.sigma_mm(anchors, cam.intrinsics, pose, xy, heights) is None  # no std_devs: unknown


def test_the_live_maps_refit_the_lens_once_for_every_height(monkeypatch):
    layout, cam, anchors, _, _ = _table()
    lens = replace(cam.intrinsics, std_devs=STD)
    pose = estimate_pose(anchors, layout, lens)
    fits = []
    monkeypatch.setattr(unc, "estimate_pose", lambda *a, **k: fits.append(1) or estimate_pose(*a, **k))
    xy = np.array([[300.0, 300.0], [900.0, 500.0], [1500.0, 200.0]])
    unc.UncertaintyMaps(layout).sigma_mm(anchors, lens, pose, xy, np.array([3.0, 25.0, 50.0]))
    assert len(fits) == 1 + int(np.count_nonzero(STD))  # the pose, and one refit per lens value: not per height
