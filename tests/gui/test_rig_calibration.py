"""The rig calibration wizard (offscreen): a tab per camera registered from its rendered photo, with the anchors it
found coloured by whether another camera sees them, and the overlap tab. Screenshots:
out/screenshots/rig-calibration-*.png."""

from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QGraphicsPolygonItem  # noqa: E402

from gui.rig_calibration import ALONE, SHARED, UNSEEN, RigCalibrationWizard  # noqa: E402
from tests.gui.helpers import SHOTS  # noqa: E402
from vision.synthetic import RenderOptions, random_scene, render_table, standard_layout  # noqa: E402
from vision.synthetic_rig import cameras_along_table  # noqa: E402


@pytest.fixture(scope="module")
def photos():
    layout = standard_layout()
    scene = random_scene(layout, 20, np.random.default_rng(5))
    cams = cameras_along_table(2400.0, 1200.0, ("west", "east"), 800.0, (1280, 720), 1150.0)
    frames = [render_table(scene, cam, RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, seed=i))[0]
              for i, cam in enumerate(cams.values())]
    return layout, list(cams), frames, [c.intrinsics for c in cams.values()]


def _polygons(view):
    return [i for i in view.scene().items() if isinstance(i, QGraphicsPolygonItem)]


def test_a_tab_per_camera_and_the_overlap(qtbot, photos):
    layout, names, frames, lenses = photos
    wiz = RigCalibrationWizard(layout, names, frames, lenses)
    qtbot.addWidget(wiz)
    wiz.show()
    assert [wiz.tabs.tabText(i) for i in range(wiz.tabs.count())] == ["1 west", "2 east", "3 Overlap"]
    west_text = wiz.camera_texts[0].text()
    assert "west: sees anchors 0, 3, 4, 6, 7; registered from" in west_text
    assert "shared with east: 4, 6" in west_text and "seen by this camera only: 0, 3, 7" in west_text
    # Each camera's photo: one outline per anchor found, green where shared, orange where only it sees it.
    outlines = _polygons(wiz.camera_views[0])
    assert len(outlines) == 5
    assert sorted(p.pen().color().name() for p in outlines) == sorted([SHARED.name()] * 2 + [ALONE.name()] * 3)
    # The overlap: both views on the table, the middle anchors shared, none unseen; the summary below.
    assert [name for name, _ in wiz.view_items] == ["west", "east"]
    assert {i for i, c in wiz.anchor_colours.items() if c == SHARED} == {4, 6}
    assert UNSEEN not in wiz.anchor_colours.values()
    assert "shared anchors: 4 (west, east); 6 (west, east)" in wiz.overlap_text.toPlainText()
    SHOTS.mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(["west", "east", "overlap"]):
        wiz.tabs.setCurrentIndex(i)
        qtbot.wait(10)
        shot = wiz.save_screenshot(SHOTS / f"rig-calibration-{name}.png")
        assert cv2.imread(str(shot)).std() > 10  # a picture, not a blank window


def test_registering_a_camera_again_from_a_photo_without_anchors_says_what_to_fix(qtbot, photos, tmp_path):
    layout, names, frames, lenses = photos
    wiz = RigCalibrationWizard(layout, names, frames, lenses)
    qtbot.addWidget(wiz)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((360, 640, 3), 90, np.uint8))  # half size: the lens is rescaled to it
    assert wiz.set_photo(1, blank)
    assert "east: sees anchors none; NOT registered" in wiz.camera_texts[1].text()
    assert "color: #c33" in wiz.camera_texts[1].styleSheet()
    assert [name for name, _ in wiz.view_items] == ["west"]
    assert wiz.anchor_colours[4] == ALONE and wiz.anchor_colours[1] == UNSEEN
    assert "problem: east: only 0 anchor(s) seen" in wiz.overlap_text.toPlainText()
    wrong = tmp_path / "square.png"
    cv2.imwrite(str(wrong), np.full((500, 500, 3), 90, np.uint8))
    assert not wiz.set_photo(0, wrong)
    assert "another shape" in wiz.camera_texts[0].text()
