"""Marengo overlays drawn over a board view (offscreen Qt)."""

from __future__ import annotations

from gui.overlays_marengo import draw_marengo
from gui.views import TableView
from rules.board import load_demo_board
from tests.rules.marengo_util import blk, mk


class _Flat:
    densify_mm = 0.0

    def points(self, xy, z=0.0):
        return xy


def test_board_overlay_shows_areas_approaches_roads_and_reach(qtbot):
    view = TableView("board")
    qtbot.addWidget(view)
    board = load_demo_board()
    p = mk(blk("a", "AU", "cavalry", 2, "3"), blk("f", "FR", "infantry", 2, "5"), round=2)
    draw_marengo(view, _Flat(), board, None, p, "a")
    assert len(view.items_of("marengo-approach")) == 36 and view.items_of("marengo-road")
    assert len([i for i in view.items_of("marengo-area") if i.toolTip().startswith("area")]) == 11
    assert view.items_of("marengo-select") and view.items_of("marengo-attack") and view.items_of("marengo-reach")
