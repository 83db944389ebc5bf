"""The projector's window (gui/projector.py), offscreen: the pictures drawn through the projector's map, bright on
black, dark over bases and anchors, the categories toggled, the map following a moved table, and the dashboard
drawing it on every refresh with the View menu's Projector entries."""

import numpy as np
import pytest

pytest.importorskip("PySide6")

from calibration.camera import CameraPose  # noqa: E402
from calibration.projector import ProjectorModel  # noqa: E402
from fieldglass.projector_setup import simulated_table  # noqa: E402
from fieldglass.setup import load_setup  # noqa: E402
from gui.projector import CATEGORIES, ProjectorWindow, attach_projector, category  # noqa: E402
from rules.picture import Area, Dot, Label, Line, sector  # noqa: E402
from tests.gui.helpers import SHOTS, open_window, pump, refresh  # noqa: E402
from vision.keep_out import footprint  # noqa: E402
from vision.synthetic_projector import true_projector  # noqa: E402


@pytest.fixture(scope="module")
def model() -> ProjectorModel:
    table = simulated_table()
    return true_projector(table.projector, table.camera.pose)


def _lit(win: ProjectorWindow, xy, z=0.0) -> int:
    frame = win.frame_array()
    x, y = np.round(win.model.to_pixels(np.array([xy], float), z)[0]).astype(int)
    return int(frame[y - 1:y + 2, x - 1:x + 2].max())


PICTURE = (
    Area("arc", (tuple(map(tuple, sector((600.0, 600.0), 150.0, 90.0, 45.0))),), "arc", fill=0.4),
    Line("fire-line", (((600.0, 600.0), (1100.0, 600.0)),), "fire", width=3.0),
    Dot("contact", (1500.0, 300.0), "contact-front", radius_px=5.0),
    Label("label", (600.0, 800.0), "3 LE"),
    Area("terrain:wood", (((100.0, 100.0), (300.0, 100.0), (300.0, 300.0)),), "terrain"),  # never projected
)


def test_pictures_are_drawn_through_the_map_and_kept_off_bases(qapp, model):
    win = ProjectorWindow(model)
    base = footprint(900.0, 600.0, 90.0, (40.0, 30.0))
    win.show_picture(PICTURE, [(base, 25.0)])
    assert win.frame_array().shape == (model.image_size[1], model.image_size[0], 3)
    assert _lit(win, (700.0, 620.0)) > 80  # inside the arc: its fill, dimmer than its edge
    edge = sector((600.0, 600.0), 150.0, 90.0, 45.0)[len(sector((600.0, 600.0), 150.0, 90.0, 45.0)) // 2]
    assert _lit(win, tuple(edge)) > 200
    assert _lit(win, (1050.0, 600.0)) > 200  # on the fire line
    assert _lit(win, (900.0, 600.0)) == 0 and _lit(win, (900.0, 600.0), 25.0) == 0  # the base and its marker: dark
    assert _lit(win, (1500.0, 300.0)) > 200  # the contact's dot
    assert _lit(win, (200.0, 150.0)) == 0 and _lit(win, (2000.0, 1000.0)) == 0  # terrain is not projected
    assert {category(it) for it in win.drawn_items} == {"arc", "fire lines", "zones"}  # labels off by default
    win.set_shown("fire lines", False)
    assert _lit(win, (1050.0, 600.0)) == 0 and _lit(win, (700.0, 620.0)) > 80
    win.set_shown("labels", True)
    assert any(isinstance(it, Label) for it in win.drawn_items)
    win.close()


def test_kinds_fall_into_the_categories():
    assert category(Area("dbx-fire-zone", (), "zone")) == "ranges"
    assert category(Area("nie-zone", (), "zone")) == "zones"
    assert category(Line("dbx-target-line", (), "fire")) == "fire lines"
    assert category(Area("dbx-reach", (), "reach")) == "reach"
    assert category(Line("facing", (), "arc")) == "arc"
    assert category(Label("x", (0.0, 0.0), "t")) == "labels"
    assert category(Area("piece:seen", (), "selected")) is None


def test_the_projected_image_follows_the_table_when_the_camera_registers_it_moved(qapp, model):
    win = ProjectorWindow(model)
    dot = (Dot("contact", (1200.0, 600.0), "contact-front", radius_px=4.0),)
    win.show_picture(dot)
    before = win.frame_array()
    win.follow(CameraPose(model.camera_pose.rvec, np.asarray(model.camera_pose.tvec) + [0.5, 0.0, 0.0]))
    assert win.model is model  # half a mm of registration noise: nothing moves
    # the table slid 80 mm east under the rig: in the camera's axes (x along the table) its origin moved by +80 mm
    r = model.camera_pose.rotation
    moved = CameraPose(model.camera_pose.rvec, np.asarray(model.camera_pose.tvec) + r @ [80.0, 0.0, 0.0])
    win.follow(moved)
    win.show_picture(dot)
    after = win.frame_array()
    x0 = np.argwhere(before.max(axis=2) > 0)[:, 1].mean()
    x1 = np.argwhere(after.max(axis=2) > 0)[:, 1].mean()
    y0 = np.argwhere(before.max(axis=2) > 0)[:, 0].mean()
    y1 = np.argwhere(after.max(axis=2) > 0)[:, 0].mean()
    want = model.to_pixels(np.array([[1280.0, 600.0]]))[0] - model.to_pixels(np.array([[1200.0, 600.0]]))[0]
    np.testing.assert_allclose([x1 - x0, y1 - y0], want, atol=1.0)  # the dot moved 80 mm east with the table
    win.close()


def test_the_dashboard_draws_the_projector_on_every_refresh(qapp, model, tmp_path):
    win = open_window(qapp, load_setup("wiener", "synthetic"), tmp_path, frames=2)
    try:
        projector = attach_projector(win, model, show=False)
        assert win.projector is projector and len(win.projector_actions) == len(CATEGORIES)
        win.session.select("fr-1-1")
        refresh(qapp, win)
        drawn = projector.frames
        assert drawn >= 1 and projector.drawn_items
        cats = {category(it) for it in projector.drawn_items}
        assert "arc" in cats or "ranges" in cats
        frame = projector.frame_array()
        assert frame.max() > 200 and (frame.max(axis=2) == 0).mean() > 0.5  # bright on black
        # the selected piece's own base stays dark
        sel = next(p for p in win.session.reading.pieces if p.piece == "fr-1-1")
        assert _lit(projector, (sel.x_mm, sel.y_mm)) == 0
        # View > Projector toggles what is drawn, on the next picture at once
        ranges = win.projector_actions[CATEGORIES.index("ranges")]
        ranges.setChecked(not ranges.isChecked())
        assert projector.shown["ranges"] == ranges.isChecked() and projector.frames == drawn + 1
        ranges.setChecked(not ranges.isChecked())
        win.start(frames=2)  # two more frames: the projector redrawn with the views
        pump(qapp, lambda: win.worker.isFinished())
        refresh(qapp, win)
        assert projector.frames > drawn + 2
        SHOTS.mkdir(parents=True, exist_ok=True)
        projector.save_frame(SHOTS / "projector.png")
    finally:
        win.stop()
        win.close()
