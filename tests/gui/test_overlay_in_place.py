"""The views update their overlays in place (issue 14, "a dashboard that keeps up"): a new frame with one piece moved
touches only that piece's QGraphicsItems, the others stay the very same objects; a piece gone takes its items with
it; the grid and terrain are drawn once; an unchanged picture redraws nothing. Behaviour, not timing: the repaint
rate is reported by `fieldglass bench dashboard`."""

from __future__ import annotations

import os
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtGui import QPixmap  # noqa: E402

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from fieldglass.setup import load_setup  # noqa: E402
from gui.app import MainWindow  # noqa: E402
from gui.picture import KIND_KEY, PIECE_KEY  # noqa: E402
from gui.views import BoardMapper, TableView, frame_pixmap  # noqa: E402
from rules.picture import Area, Dot, Label, Line  # noqa: E402
from tests.gui.helpers import pump  # noqa: E402
from vision.rectify import display_bgra  # noqa: E402


def _piece(pid: str, x: float, y: float) -> list:
    sq = ((x - 10, y - 10), (x + 10, y - 10), (x + 10, y + 10), (x - 10, y + 10))
    return [Area("piece:seen", (sq,), "side:0", piece=pid), Line("facing", (((x, y), (x, y + 20)),), "side:0",
                                                                 piece=pid),
            Label("label", (x - 10, y - 14), pid, piece=pid), Dot("contact", (x, y + 10), "clear", piece=pid)]


class _Session:
    """What a TableView reads of a session: a layout without a grid, no reading, and a picture we set."""

    def __init__(self):
        self.layout = SimpleNamespace(grid=None, anchors=(), width_mm=1000.0, depth_mm=600.0)
        self.reading = None
        self.ground = None
        self.pic: tuple = ()
        self.asked = 0

    def picture(self, live: bool = False, labels: bool = True) -> tuple:
        self.asked += 1
        return self.pic


@pytest.fixture
def view(qtbot):
    v = TableView("board")
    qtbot.addWidget(v)
    v.session = _Session()
    v.mapper = BoardMapper(v.session.layout, 1.0, 0.0)
    return v


def _by_piece(view) -> dict[str, list]:
    out: dict[str, list] = {}
    for key, item in view.kept_items().items():
        if len(key) == 4:
            out.setdefault(key[1], []).append(item)
    return out


def test_a_moved_piece_redraws_only_its_own_items(view):
    view.session.pic = tuple(_piece("a", 100, 100) + _piece("b", 300, 100) + _piece("c", 500, 300))
    view.redraw()
    first = _by_piece(view)
    assert {k: len(v) for k, v in first.items()} == {"a": 4, "b": 4, "c": 4}
    a_outline = first["a"][0].polygon().boundingRect()
    b_outline = first["b"][0].polygon().boundingRect()
    updates = view.updates

    view.session.pic = tuple(_piece("a", 160, 100) + _piece("b", 300, 100) + _piece("c", 500, 300))
    view.redraw()
    second = _by_piece(view)
    for pid in "abc":  # every item kept: the same QGraphicsItem objects, in the scene
        assert all(x is y for x, y in zip(first[pid], second[pid], strict=True))
        assert all(it.scene() is view.scene() for it in second[pid])
    assert view.updates - updates == 4  # the moved piece's four items, no other
    assert second["a"][0].polygon().boundingRect().center().x() == pytest.approx(a_outline.center().x() + 60)
    assert second["b"][0].polygon().boundingRect() == b_outline
    assert second["a"][3].pos().x() == pytest.approx(160)  # the dot moved with it
    assert {it.data(PIECE_KEY) for it in view.items_of("piece:seen")} == {"a", "b", "c"}


def test_a_piece_gone_takes_its_items_and_a_new_one_adds_only_its_own(view):
    view.session.pic = tuple(_piece("a", 100, 100) + _piece("b", 300, 100))
    view.redraw()
    b_items = _by_piece(view)["b"]
    a_items = _by_piece(view)["a"]
    view.session.pic = tuple(_piece("a", 100, 100) + _piece("d", 700, 100))
    updates = view.updates
    view.redraw()
    now = _by_piece(view)
    assert set(now) == {"a", "d"}
    assert all(it.scene() is None for it in b_items)  # removed from the scene
    assert not [it for it in view.scene().items() if it.data(PIECE_KEY) == "b"]
    assert all(x is y for x, y in zip(a_items, now["a"], strict=True))
    assert view.updates - updates == 4  # d's items, made once


def test_a_picture_laid_out_otherwise_is_keyed_anew_and_the_very_same_items_are_left_alone(view):
    a, b = _piece("a", 100, 100), _piece("b", 300, 100)
    view.session.pic = tuple(a + b)
    view.redraw()
    items, updates = view.kept_items(), view.updates
    # as many items, but b's label became a second facing line: the keys follow the shapes, not the places
    b2 = [b[0], b[1], Line("facing", (((300, 100), (320, 100)),), "side:0", piece="b"), b[3]]
    view.session.pic = tuple(a + b2)
    view.redraw()
    now = view.kept_items()
    assert ("label", "b", 0, "label") not in now and ("facing", "b", 1, "line") in now
    assert items[("label", "b", 0, "label")].scene() is None
    assert all(now[k] is items[k] for k in items if k != ("label", "b", 0, "label"))
    assert view.updates - updates == 1  # the new line made; the others the very same items, untouched
    # and back: laid out as before, b's label made again, nothing else touched
    view.session.pic = tuple(a + b)
    view.redraw()
    assert set(view.kept_items()) == set(items) and view.updates - updates == 2


def test_an_unchanged_picture_redraws_nothing_and_a_changed_look_redraws_in_place(view):
    view.session.pic = tuple(_piece("a", 100, 100))
    view.redraw()
    updates, items = view.updates, view.kept_items()
    view.redraw()
    view.redraw()
    assert view.updates == updates and view.kept_items() == items
    # the same piece selected: outline white and thicker, the same item
    sel = replace(view.session.pic[0], edge_tone="selected", width=4.0)
    view.session.pic = (sel, *view.session.pic[1:])
    view.redraw()
    assert view.updates == updates + 1
    outline = view.kept_items()[("piece:seen", "a", 0, "area")]
    assert outline is items[("piece:seen", "a", 0, "area")] and outline.pen().widthF() == 4.0
    # a label's text changes on the same plate
    lab = replace(view.session.pic[2], text="a (3 SP)")
    view.session.pic = (*view.session.pic[:2], lab, view.session.pic[3])
    view.redraw()
    plate = view.kept_items()[("label", "a", 0, "label")]
    assert plate is items[("label", "a", 0, "label")] and plate.childItems()[0].text() == "a (3 SP)"
    assert plate.data(KIND_KEY) == "label" and plate.data(PIECE_KEY) == "a"


def test_a_new_projection_redraws_every_item_on_the_same_objects(view):
    view.session.pic = tuple(_piece("a", 100, 100) + _piece("b", 300, 100))
    view.redraw()
    items, updates = view.kept_items(), view.updates
    x0 = items[("contact", "a", 0, "dot")].pos().x()
    view.mapper = BoardMapper(view.session.layout, 2.0, 0.0)  # the board scale changed: every item re-projected
    view.redraw()
    assert view.kept_items() == items and view.updates - updates == 8
    assert items[("contact", "a", 0, "dot")].pos().x() == pytest.approx(x0 / 2)
    view.mapper = BoardMapper(view.session.layout, 2.0, 0.0)  # a new mapper projecting alike: nothing to redraw
    view.redraw()
    assert view.updates - updates == 8


def test_the_frame_pixmap_shows_the_frame():
    frame = np.zeros((4, 6, 3), np.uint8)
    frame[1, 2] = (255, 0, 0)  # blue in BGR
    pix = frame_pixmap(frame[:, :, :])
    assert isinstance(pix, QPixmap) and (pix.width(), pix.height()) == (6, 4)
    c = pix.toImage().pixelColor(2, 1)
    assert (c.red(), c.green(), c.blue()) == (0, 0, 255)
    sub = frame_pixmap(frame[1:3, 1:4])  # a strided view of a larger frame
    c = sub.toImage().pixelColor(1, 0)
    assert (sub.width(), sub.height(), c.blue()) == (3, 2, 255)
    bgra = display_bgra(frame)  # what the capture worker hands over: shown as it is
    c = frame_pixmap(bgra).toImage().pixelColor(2, 1)
    assert bgra.shape == (4, 6, 4) and (c.red(), c.green(), c.blue()) == (0, 0, 255)


def test_a_view_keeps_the_frame_its_pixmap_shows(view):
    frame = np.full((4, 6, 4), 255, np.uint8)
    frame[0, 0, :3] = (0, 200, 0)
    view.set_frame(frame)
    del frame
    c = view.pixmap.pixmap().toImage().pixelColor(0, 0)
    assert (c.red(), c.green(), c.blue()) == (0, 200, 0) and view._frame is not None


def test_a_frame_made_for_the_screen_is_shown_pixel_for_pixel_over_the_whole_frame_s_scene(view):
    frame = np.zeros((1080, 1920, 3), np.uint8)
    frame[500:580, 900:1020] = (0, 0, 255)
    view.resize(700, 420)
    view.show()
    view.set_frame(display_bgra(frame))  # full size first: the view fits it and says how big it shows it
    fit = view.display_px()
    small = display_bgra(frame, fit)
    s = min(fit[0] / 1920, fit[1] / 1080)
    assert small.shape[:2] == (round(1080 * s), round(1920 * s)) and small.shape[1] <= fit[0]
    assert display_bgra(frame, (1900, 1070)).shape[:2] == (1080, 1920)  # hardly smaller: shown as it is
    view.set_frame(small, (1920, 1080))
    rect = view.sceneRect()
    assert (rect.width(), rect.height()) == (1920.0, 1080.0)  # overlays keep the camera frame's pixels
    assert view.transform().m11() * view.pixmap.scale() == pytest.approx(1.0)  # a plain copy to the screen
    centre = view.pixmap.mapToScene(small.shape[1] / 2, small.shape[0] / 2)
    assert (centre.x(), centre.y()) == (pytest.approx(960.0, abs=2), pytest.approx(540.0, abs=2))
    view.zoom(2.0)  # the user zooms in: every pixel may be wanted again
    assert view.display_px() is None
    view.set_frame(display_bgra(frame), (1920, 1080))
    assert view.pixmap.scale() == 1.0 and view.sceneRect().width() == 1920.0


def _outline(items):
    return [it for it in items if str(it.data(KIND_KEY)).startswith("piece:")][0]


def test_the_dashboard_keeps_every_other_pieces_items_when_one_moves(qapp, tmp_path):
    settings = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(load_setup("wiener", "synthetic"), settings=settings, source_options={"resolution": (1280, 720)})
    try:
        win.resize(1366, 768)
        win.show()
        win.start(frames=1)
        pump(qapp, lambda: win.worker is not None and win.worker.isFinished() and win.last_result is not None)
        win.stop()
        result = win.last_result
        static = list(win.live_view._static)
        before = {v.name: _by_piece(v) for v in (win.live_view, win.board_view)}
        moved = result.reading.pieces[0]
        was = {v.name: _outline(before[v.name][moved.piece]).boundingRect() for v in (win.live_view, win.board_view)}
        pieces = (replace(moved, x_mm=moved.x_mm + 60.0),) + result.reading.pieces[1:]  # one field east
        for n in range(1, 4):  # a few frames: the session may wait for a move to settle
            win.show_result(replace(result, number=result.number + n, reading=replace(result.reading, pieces=pieces)))
            qapp.processEvents()
        for v in (win.live_view, win.board_view):
            after = _by_piece(v)
            assert set(after) == set(before[v.name])
            for pid, items in after.items():
                if pid != moved.piece:
                    assert all(x is y for x, y in zip(before[v.name][pid], items, strict=True)), pid
            outline = _outline(after[moved.piece])
            assert outline is _outline(before[v.name][moved.piece])  # the same item, moved a field east
            assert outline.boundingRect().center().x() > was[v.name].center().x() + 10
        assert all(a is b for a, b in zip(static, win.live_view._static, strict=True))  # the grid drawn once
        assert win.screen_latency_ms is not None and win.screen_latency_ms > 0  # measured when painted
        # a still table: the same reading again - the new image is shown, nothing else is redrawn or asked
        asked = []
        pictures = win.session.pictures
        win.session.pictures = lambda *w: asked.append(w) or pictures(*w)
        last = win.last_result
        kept = win.live_view.kept_items()
        paints = win.live_view.paints
        for n in range(1, 3):
            win.show_result(replace(last, number=last.number + n, frame=last.frame.copy()))
            qapp.processEvents()
        assert asked == [] and win.live_view.kept_items() == kept and win.last_result.number == last.number + 2
        assert win.live_view.paints > paints and win.live_view._frame is not None
        # the selection changed: drawn again at once
        win.session.select(moved.piece)
        qapp.processEvents()
        assert asked
    finally:
        win.stop()
        win.close()
