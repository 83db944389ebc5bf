"""Issue 28's done-when for the dashboard: every system's demo table, a Wiener brigade in line (12 bases shoulder to
shoulder) and Napoleon in Europe's map with every region named, in a 1920 x 1080 and a 1366 x 768 window, the busiest
piece selected: every label's box in screen pixels (its plate, as Qt maps it onto each view's viewport) overlaps no
other label, no piece's outline and no anchor, and lies inside its view; the selected piece's label is there."""

from __future__ import annotations

import itertools
import os
from dataclasses import replace

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from fieldglass.setup import load_setup  # noqa: E402
from gui.app import busiest_piece  # noqa: E402
from rules.labels import Shape, inside, overlaps  # noqa: E402
from rules.picture import Area, Label  # noqa: E402
from rules.system import game_systems  # noqa: E402
from tests.gui.helpers import open_window, refresh  # noqa: E402
from vision.synthetic import PlacedPiece  # noqa: E402

SIZES = ((1920, 1080), (1366, 768))
TOLERANCE_PX = 0.75  # Qt rounds an item's place to whole pixels


def _box(rect) -> tuple[float, float, float, float]:
    return rect.left(), rect.top(), rect.right(), rect.bottom()


def on_screen(view) -> tuple[list, list, list]:
    """(label boxes with their text, piece outlines, anchor outlines), in the view's viewport pixels."""
    t = view.viewportTransform()
    labels, outlines, anchors = [], [], []
    kept = view.kept_items()
    for key, item in kept.items():
        if key[-1] == "label" and item.isVisible():
            text = item.childItems()[0].text()
            labels.append((text, key, _box(item.deviceTransform(t).mapRect(item.rect()))))
        elif key[0] == "anchor":
            anchors.append(Shape([(p.x(), p.y()) for p in t.map(item.polygon())]))
    _, items, keys = view.drawn_picture
    for it, key in zip(items, keys, strict=True):
        if isinstance(it, Area) and it.body:
            poly = t.map(kept[key].polygon())
            outlines.append((it.piece, Shape([(p.x(), p.y()) for p in poly])))
    return labels, outlines, anchors


def check_view(view, selected: str | None) -> int:
    """Fails naming the first label that overlaps something or leaves the view; returns the labels shown."""
    labels, outlines, anchors = on_screen(view)
    vp = view.viewport().rect()
    bounds = (-TOLERANCE_PX, -TOLERANCE_PX, vp.width() + TOLERANCE_PX, vp.height() + TOLERANCE_PX)
    for (ta, _, a), (tb, _, b) in itertools.combinations(labels, 2):
        assert not overlaps(a, b, -TOLERANCE_PX), f"{view.name}: label {ta!r} over label {tb!r}"
    for text, _, box in labels:
        assert inside(box, bounds), f"{view.name}: label {text!r} {box} out of the view {vp.width()}x{vp.height()}"
        for pid, shape in outlines:
            assert not shape.hits(box, -TOLERANCE_PX), f"{view.name}: label {text!r} over {pid}'s outline"
        for shape in anchors:
            assert not shape.hits(box, -TOLERANCE_PX), f"{view.name}: label {text!r} over an anchor"
    if selected is not None and any(pid == selected for pid, _ in outlines):
        assert any(key[:2] == ("label", selected) for _, key, _ in labels), f"{view.name}: {selected} unnamed"
    return len(labels)


def check_window(qapp, win, select: str | None = None) -> dict[str, int]:
    s = win.session
    pid = select or busiest_piece(s)
    if pid:
        s.select(pid)
    refresh(qapp, win)
    shown = {}
    for view in win.views:
        if view.isVisible() and view.mapper is not None:
            shown[view.name] = check_view(view, pid)
    return shown


def window(qapp, setup, tmp_path, size):
    return open_window(qapp, setup, tmp_path, resolution=(1280, 720), size=size, frames=1)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("system", sorted(game_systems()))
def test_every_systems_demo_table_has_its_labels_clear(qapp, tmp_path, system, size):
    win = window(qapp, load_setup(system, "synthetic"), tmp_path, size)
    try:
        shown = check_window(qapp, win)
        assert shown and all(n > 0 for n in shown.values()), shown
    finally:
        win.stop()
        win.close()


def brigade_in_line(setup):
    """The Wiener demo with twelve Austrian bases shoulder to shoulder in one line facing the French."""
    austrians = [p for p in setup.roster.pieces if p.side == setup.roster.pieces[-1].side][:12]
    assert len(austrians) == 12
    x0 = 900.0
    placed, x = [], x0
    for p in austrians:
        placed.append(PlacedPiece(p, x + p.base_mm[0] / 2, 810.0, 180.0))
        x += p.base_mm[0]
    others = [pl for pl in setup.scene.placements if pl.piece not in austrians]
    return replace(setup, scene=replace(setup.scene, placements=(*others, *placed))), austrians


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_wiener_brigade_in_line_names_its_bases_clear_of_each_other(qapp, tmp_path, size):
    setup, line = brigade_in_line(load_setup("wiener", "synthetic"))
    win = window(qapp, setup, tmp_path, size)
    try:
        shown = check_window(qapp, win, select=line[5].id)
        assert all(n >= 12 for n in shown.values()), shown  # room for the line's names, shortened or led out
    finally:
        win.stop()
        win.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_napoleon_in_europes_map_names_its_regions_clear_of_each_other(qapp, tmp_path, size):
    win = window(qapp, load_setup("nie", "synthetic"), tmp_path, size)
    try:
        check_window(qapp, win)
        names = [it for it in win.board_view.drawn_picture[1] if isinstance(it, Label) and it.kind == "nie-area-name"]
        regions = win.session.position.europe.regions
        central = {"bavaria", "saxony", "bohemia", "brandenburg", "hanover", "rhineland", "austria", "silesia"}
        named = {it.tip for it in names}
        assert {regions[r].name for r in central if r in regions} <= named  # central Europe: every region named
    finally:
        win.stop()
        win.close()
