"""View > Legend (issue 28): every mark the views draw now is explained, with a sample drawn in its own colours -
the "?" of a piece near a field's edge, dashed and dash-dotted outlines, grey pieces, the lines' colours, shaded
ranges; a mark not on the table is not listed. And the window: the system's own panels share one dock with a
chooser, no column is headed "-", the views get most of the width."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtGui import QColor  # noqa: E402

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from fieldglass.setup import load_setup  # noqa: E402
from gui.app import busiest_piece  # noqa: E402
from gui.legend import sample_pixmap  # noqa: E402
from rules.picture import LEGEND, rgb  # noqa: E402
from rules.wiener.picture import LEGEND as WIENER_LEGEND  # noqa: E402
from tests.gui.helpers import open_window, refresh  # noqa: E402


@pytest.fixture()
def wiener(qapp, tmp_path):
    win = open_window(qapp, load_setup("wiener", "synthetic"), tmp_path, size=(1920, 1080))
    yield win
    win.stop()
    win.close()


def test_the_legend_explains_the_marks_on_the_table_now(qapp, wiener):
    win = wiener
    assert not win.docks["legend"].isVisible()
    win.session.select(busiest_piece(win.session))
    refresh(qapp, win)
    win.show_panel("legend")  # View > Legend (F12)
    refresh(qapp, win)
    shown = win.legend.texts()
    # the selected piece, its fire lines and its shaded ranges, pieces near a field's edge ("?", dash-dotted)
    for key in ("selected", "seen", "ambiguous", "edge", "fire-line", "grid"):
        assert key in shown, (key, sorted(shown))
    assert "?" in shown["edge"] and "field" in shown["edge"]
    assert "second" not in shown  # no second piece chosen: not on the table, not listed
    win.session.select(next(p.id for p in win.session.position.pieces if p.id != win.session.selected), second=True)
    refresh(qapp, win)
    win.update_legend()
    assert "second" in win.legend.texts()


def test_a_legend_sample_is_drawn_in_the_marks_own_colour(qapp):
    entry = next(e for e in WIENER_LEGEND if e.key == "fire-line")
    img = sample_pixmap(entry).toImage()
    mid = QColor(img.pixel(img.width() // 2, img.height() // 2))
    assert abs(mid.green() - rgb("clear")[1]) < 40 and mid.red() < 120  # the green of a clear line
    assert {e.key for e in LEGEND} >= {"occluded", "ambiguous", "selected", "pending", "leader", "short"}


def test_the_system_panels_share_one_dock_and_the_views_get_most_of_the_width(qapp, tmp_path):
    from rules.coalitions import GAME  # noqa: PLC0415
    from rules.system import register, unregister  # noqa: PLC0415

    register(GAME)
    win = open_window(qapp, load_setup("coalitions", "synthetic"), tmp_path, size=(1366, 768))
    try:
        refresh(qapp, win)
        chooser = win.system_chooser
        assert chooser.keys == list(win.system_panels) and len(chooser.keys) == 6
        assert win.docks["system"].widget() is chooser
        assert not [k for k in win.docks if k.startswith("system-")]  # no dock, no tab, per panel
        views = win.split.width()
        assert views > 0.65 * win.width(), (views, win.width())
        table = win.selection_panel.table
        headers = [table.model().headerData(c, _h()) for c in range(table.model().columnCount())]
        shown = [h for c, h in enumerate(headers) if not table.isColumnHidden(c)]
        assert "-" not in shown and "" not in shown and "-" in headers
        for dock in win.docks.values():  # every panel may be closed and floated
            features = dock.features()
            assert features & dock.DockWidgetFeature.DockWidgetClosable
            assert features & dock.DockWidgetFeature.DockWidgetFloatable
    finally:
        win.stop()
        win.close()
        unregister("coalitions")


def _h():
    from PySide6.QtCore import Qt  # noqa: PLC0415

    return Qt.Orientation.Horizontal
