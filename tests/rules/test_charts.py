"""Charts in the drawing language (rules/charts.py): a bar chart has its axes, round ticks from 0, a title, axis
titles with units, a key, and bars as tall as their values; drawn by the exports' renderer they land in their
tones with no label over another."""

from __future__ import annotations

import itertools

import numpy as np

from fieldglass import render
from rules.charts import bar_chart, nice_ticks, to_px
from rules.labels import overlaps
from rules.picture import Area, Label, Line, rgb


def test_ticks_are_round_steps_from_zero_up_to_the_peak():
    assert nice_ticks(0) == [0, 1]
    assert nice_ticks(3) == [0, 1, 2, 3]
    assert nice_ticks(7) == [0, 2, 4, 6, 8]
    assert nice_ticks(23) == [0, 5, 10, 15, 20, 25]
    assert nice_ticks(140)[-1] >= 140 and len(nice_ticks(140)) <= 7


def test_a_bar_chart_has_axes_titles_units_a_key_and_bars_to_scale():
    items = bar_chart((600, 260), ["turn 1", "turn 2"], ["AU", "FR"], [[3, 1], [0, 6]], ["#f0d040", "#4060f0"],
                      "bases lost per turn", "bases lost (bases)", "turn")
    texts = {it.kind: [] for it in items}
    for it in items:
        texts[it.kind].append(getattr(it, "text", None))
    assert texts["chart-title"] == ["bases lost per turn"]
    assert set(texts["chart-axis-title"]) == {"bases lost (bases)", "turn"}
    assert texts["chart-tick"] == ["0", "2", "4", "6"] and texts["chart-group"] == ["turn 1", "turn 2"]
    assert texts["chart-key"].count("AU") == 1 and texts["chart-key"].count("FR") == 1
    assert any(isinstance(it, Line) and it.kind == "chart-axis" for it in items)
    bars = [it for it in items if isinstance(it, Area) and it.kind == "chart-bar"]
    assert len(bars) == 3  # a zero draws no bar
    heights = {it.tip.split(":")[0]: it.polygons[0][2][1] - it.polygons[0][0][1] for it in bars}
    assert heights["FR, turn 2"] == 2 * heights["AU, turn 1"]  # 6 against 3


def test_drawn_by_the_renderer_the_bars_land_in_their_tones_and_no_label_covers_another():
    w, h = 600, 260
    items = bar_chart((w, h), ["turn 1"], ["AU"], [[4]], ["#f0d040"], "bases lost per turn", "bases lost (bases)",
                      "turn")
    img = np.full((h, w, 3), 40, np.uint8)
    render.draw(img, items, to_px(h))
    bar = next(it for it in items if it.kind == "chart-bar")
    (x0, y0), (x1, _), (_, y1) = bar.polygons[0][0], bar.polygons[0][1], bar.polygons[0][2]
    px = img[int(h - (y0 + y1) / 2), int((x0 + x1) / 2)]
    r, g, b = rgb("#f0d040")
    assert np.abs(px.astype(int) - [b, g, r]).max() < 40
    boxes = []
    for it in items:
        if isinstance(it, Label):
            ww, hh = render.measure(it.text, it.size, it.bold)
            from rules.picture import ALIGN  # noqa: PLC0415
            fx, fy = ALIGN[it.align]
            x, y = to_px(h)([it.at])[0] + it.offset_px - (fx * ww, fy * hh)
            boxes.append((it.text, (x, y, x + ww, y + hh)))
    for (a, ba), (b_, bb) in itertools.combinations(boxes, 2):
        assert not overlaps(ba, bb), (a, b_)
