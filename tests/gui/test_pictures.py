"""Systems' pictures (rules/picture.py) and their Qt rendering (gui/picture.py), without a session."""

from __future__ import annotations

import numpy as np

from gui import picture as qt_picture
from gui.views import TableView
from rules.board_picture import board_items
from rules.marengo.adapter import MarengoSystem
from rules.marengo.model import load_demo_board
from rules.marengo.picture import selection_items
from rules.picture import Area, Dot, Label, Line, check, rgb
from tests.rules.marengo_util import blk, mk


class _Flat:
    densify_mm = 0.0

    def points(self, xy, z=0.0):
        return xy


def test_a_board_is_drawn_with_its_areas_approaches_and_roads():
    board = load_demo_board()
    items = board_items(board)
    check(items)
    kinds = [it.kind for it in items]
    assert kinds.count("approach") == 36 and "road" in kinds
    assert len([it for it in items if isinstance(it, Area) and it.tip.startswith("area")]) == 11
    turned = board_items(board, lambda xy: xy + 1000.0)  # a board lying elsewhere on the table
    assert turned[0].polygons[0][0] == (items[0].polygons[0][0][0] + 1000.0, items[0].polygons[0][0][1] + 1000.0)


def test_marengo_selection_shows_reach_and_attacks_and_qt_draws_every_item(qtbot):
    board = load_demo_board()
    p = mk(blk("a", "AU", "cavalry", 2, "3"), blk("f", "FR", "infantry", 2, "5"), round=2)
    sel = MarengoSystem().selection(p, "a")
    items = selection_items(sel, board, None)
    check(items)
    kinds = {it.kind for it in items}
    assert {"marengo-select", "marengo-attack", "marengo-reach"} <= kinds
    view = TableView("board")
    qtbot.addWidget(view)
    view.mapper = _Flat()
    qt_picture.draw(view, board_items(board) + items)
    assert len(view.items_of("approach")) == 36 and view.items_of("marengo-attack")
    attack = view.items_of("marengo-attack")[0]
    assert attack.data(2) in board.areas  # the item's own data reach the view


def test_tones_pens_and_dots_are_checked():
    assert rgb("side:7") == rgb("side:0") and rgb("#102030") == (16, 32, 48) and rgb("terrain:lava") == rgb("terrain")
    bad = [Line("x", (((0, 0), (1, 1)),), "no-such-tone")]
    try:
        check(bad)
    except ValueError as exc:
        assert "unknown tone 'no-such-tone'" in str(exc)
    else:
        raise AssertionError("an unknown tone must be refused")
    check([Dot("d", (0, 0), "clear"), Label("l", (0, 0), "text")])


def test_densify_keeps_every_corner_and_puts_points_at_most_a_step_apart():
    rng = np.random.default_rng(3)
    for k in range(200):
        xy = rng.uniform(0, 400, (int(rng.integers(2, 7)), 2))
        if k % 5 == 0:
            xy[1] = xy[0]  # a segment of no length
        for closed in (False, True):
            pts = qt_picture._densify(xy, 30.0, closed)
            ring = np.vstack([pts, pts[:1]]) if closed else pts
            assert np.all(np.hypot(*np.diff(ring, axis=0).T) <= 30.0 + 1e-9)
            assert np.all(pts[0] == xy[0])
            at = 0
            for c in xy[1:]:  # each corner after the first, in order, each a point
                at += 1 + int(np.flatnonzero(np.all(pts[at + 1:] == c, axis=1))[0])
            assert closed or at == len(pts) - 1
    assert qt_picture._densify(np.array([[0.0, 0.0], [100.0, 0.0]]), 0.0).shape == (2, 2)  # no step: as given
