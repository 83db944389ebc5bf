"""Registering each camera of a rendered rig from its own photo: the anchors each sees, the shared ones, the views."""

import cv2
import numpy as np
import pytest

from vision.rig_registration import register_rig
from vision.synthetic import RenderOptions, random_scene, render_table, standard_layout
from vision.synthetic_rig import cameras_along_table


@pytest.fixture(scope="module")
def rig():
    layout = standard_layout()
    scene = random_scene(layout, 20, np.random.default_rng(3))
    photos, truths = [], {}
    cams = cameras_along_table(2400.0, 1200.0, ("west", "east"), 800.0, (1280, 720), 1150.0)
    for i, (name, cam) in enumerate(cams.items()):
        frame, truth = render_table(scene, cam, RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, seed=i))
        photos.append((name, frame, cam.intrinsics))
        truths[name] = truth
    return layout, photos, truths


def _inside(outline: np.ndarray, x: float, y: float) -> bool:
    return cv2.pointPolygonTest(outline.astype(np.float32).reshape(-1, 1, 2), (x, y), False) > 0


def test_each_camera_sees_its_anchors_and_the_middle_ones_are_shared(rig):
    layout, photos, truths = rig
    summary = register_rig(photos, layout)
    for cam in summary.cameras:
        visible = {i for i, v in truths[cam.name].anchor_visible.items() if v}
        assert set(cam.seen) == visible and cam.registered and cam.pose.reprojection_px < 0.5
    assert summary.shared() == {4: ("west", "east"), 6: ("west", "east")}
    assert summary.pairs() == [("west", "east", (4, 6))]
    assert summary.problems() == []
    lines = summary.lines()
    assert lines[0].startswith("west: sees anchors 0, 3, 4, 6, 7; registered from") and \
        lines[-1] == "shared anchors: 4 (west, east); 6 (west, east)"
    west, east = (c.view_mm for c in summary.cameras)
    assert _inside(west, 1200, 600) and _inside(east, 1200, 600)  # the overlap
    assert _inside(west, 100, 600) and not _inside(east, 100, 600)
    assert _inside(east, 2300, 600) and not _inside(west, 2300, 600)


def test_a_camera_without_anchors_is_not_registered_and_nothing_is_shared(rig):
    layout, photos, _ = rig
    blank = np.full_like(photos[1][1], 90)
    summary = register_rig([photos[0], (photos[1][0], blank, photos[1][2])], layout)
    east = summary.cameras[1]
    assert not east.registered and east.seen == () and len(east.view_mm) == 0
    assert summary.shared() == {}
    problems = summary.problems()
    assert "east: only 0 anchor(s) seen, not registered (at least 2 needed)" in problems
    assert any(p.startswith("west: shares 0 anchor(s)") for p in problems)
    data = summary.to_json()
    assert data["cameras"][1] == {"name": "east", "anchors": [], "registered": False, "used": [],
                                  "reprojection_px": None}
    assert data["pairs"] == [{"cameras": ["west", "east"], "anchors": []}] and data["problems"] == problems
