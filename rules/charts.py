"""Charts in the drawing language (rules/picture.py): a grouped bar chart with its axes, ticks, title, axis titles
with their units and a key, as plain items any renderer draws (fieldglass/render.py for the stats PNG), so a chart
speaks the same tones and labels as the board above it.

Chart coordinates are pixels of the chart's own box, x right and y up from its bottom-left corner
(`to_px` below turns them into image rows)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rules.picture import Area, Item, Label, Line

TICK_STEPS = (1, 2, 5)


def nice_ticks(top: float, most: int = 5) -> list[float]:
    """0 and round steps (1, 2, 5 x 10^n) up to at least `top`, at most `most` + 1 of them."""
    top = max(float(top), 1.0)
    for exp in range(0, 12):
        for s in TICK_STEPS:
            step = s * 10 ** exp
            n = math.ceil(top / step)
            if n <= most:
                return [step * i for i in range(n + 1)]
    return [0.0, top]


def bar_chart(size: tuple[float, float], groups: Sequence[str], series: Sequence[str],
              values: Sequence[Sequence[float]], tones: Sequence[str], title: str, y_title: str,
              x_title: str) -> list[Item]:
    """A grouped bar chart in a box of `size` (width, height) px: one group of bars per `groups` entry (the x
    axis, named `x_title`), one bar per `series` in its tone (values[g][s], on the y axis named `y_title` with its
    unit), the series' key at the top right, `title` at the top."""
    w, h = size
    left, right, bottom, top = 56.0, 16.0, 48.0, 56.0
    plot_w, plot_h = w - left - right, h - bottom - top
    peak = max([v for row in values for v in row] + [0.0])
    ticks = nice_ticks(peak)
    scale = plot_h / (ticks[-1] or 1.0)
    out: list[Item] = [
        Label("chart-title", (left, h - 4.0), title, "text", 8.0, True, fixed=True, priority=200, tip=title),
        Line("chart-axis", (((left, bottom + plot_h), (left, bottom), (left + plot_w, bottom)),), "grid", width=1.5),
        Label("chart-axis-title", (8.0, bottom + plot_h + 12.0), y_title, "muted", 7.0, fixed=True, priority=150,
              align="bottom-left"),
        Label("chart-axis-title", (left + plot_w / 2, 4.0), x_title, "muted", 7.0, fixed=True, priority=150,
              align="bottom"),
    ]
    for t in ticks:
        y = bottom + t * scale
        out.append(Line("chart-grid", (((left, y), (left + plot_w, y)),), "muted", "dot" if t else "solid", 1.0))
        out.append(Label("chart-tick", (left - 6.0, y), f"{t:g}", "muted", 7.0, align="right", fixed=True,
                         priority=140))
    n = max(len(groups), 1)
    slot = plot_w / n
    bar = max(3.0, min(40.0, slot * 0.8 / max(len(series), 1)))
    for g, name in enumerate(groups):
        x0 = left + g * slot + (slot - bar * len(series)) / 2
        for s, tone in enumerate(tones):
            v = float(values[g][s]) if s < len(values[g]) else 0.0
            if v <= 0:
                continue
            xa, xb = x0 + s * bar + 1, x0 + (s + 1) * bar - 1
            out.append(Area("chart-bar", (((xa, bottom), (xb, bottom), (xb, bottom + v * scale),
                                           (xa, bottom + v * scale)),), tone, 0.9, width=1.0, edge_tone="outline",
                            tip=f"{series[s]}, {name}: {v:g} {y_title}"))
        out.append(Label("chart-group", (left + (g + 0.5) * slot, bottom - 4.0), name, "muted", 7.0, align="top",
                         fixed=True, priority=130))
    for s, (name, tone) in enumerate(zip(series, tones, strict=True)):
        y = h - 14.0 - 16.0 * s
        x = w - right - 110.0
        out.append(Area("chart-key", (((x, y - 9), (x + 10, y - 9), (x + 10, y + 1), (x, y + 1)),), tone, 0.9,
                        width=1.0, edge_tone="outline"))
        out.append(Label("chart-key", (x + 14.0, y - 4.0), name, "text", 7.0, fixed=True, priority=120,
                         align="left"))
    return out


def to_px(height: float):
    """Chart coordinates (y up) -> the chart image's pixels (y down), for fieldglass.render.draw."""
    def f(xy):
        xy = np.asarray(xy, float).reshape(-1, 2)
        return np.column_stack([xy[:, 0], height - xy[:, 1]])
    return f
