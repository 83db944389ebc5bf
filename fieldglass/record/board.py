"""Top-down board diagrams of a record's states, drawn with OpenCV (no Qt): the table, its grid, the pieces as
their bases in side colours with a mark on the front edge, moves as arrows, combats as red lines.

A side's colour is the one the live views draw it in (rules/picture.py's tones: the system's own colour of the
side, else `side:N` by its index among the record's sides), so a diagram and the dashboard agree."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from common.errors import InputError
from fieldglass import render
from fieldglass.record.state import BoardState
from fieldglass.recorded import system_of
from rules.picture import LabelLayout, grid_labels, rectangle, rgb
from rules.system import game_system

CLOTH = (88, 128, 104)
GRID = (110, 150, 126)


def side_colours(meta: dict) -> dict[str, tuple[int, int, int]]:
    """Side -> BGR for a record's sides: the tone its system draws the side in (GameSystem.side_tone), `side:N` by
    the order of the record's roster for a system that is not installed."""
    roster_sides = list(dict.fromkeys(str(p.get("side", "")) for p in meta.get("roster") or []))
    try:
        game = game_system(system_of(meta))
    except InputError:
        game = None
    sides = list(game.sides) if game is not None and game.sides else roster_sides
    out = {}
    for side in [*sides, *(s for s in roster_sides if s not in sides)]:
        tone = game.side_tone(side, len(out)) if game is not None else f"side:{len(out)}"
        r, g, b = rgb(tone)
        out[side] = (b, g, r)
    return out


def side_colour(side: str, colours: dict[str, tuple[int, int, int]] | None = None) -> tuple[int, int, int]:
    """A side's BGR: from `colours` (side_colours), else the side tone of its name's first letters."""
    if colours and side in colours:
        return colours[side]
    r, g, b = rgb(f"side:{sum(side.encode())}")
    return (b, g, r)


class Board:
    """Draws states of one record; `width_px` is the table's width in the picture."""

    def __init__(self, meta: dict, width_px: int = 960, margin_px: int = 24):
        lay = meta.get("layout") or {}
        self.width_mm = float(lay.get("width_mm") or 1200.0)
        self.depth_mm = float(lay.get("depth_mm") or 600.0)
        self.grid = lay.get("grid")
        self.scale = (width_px - 2 * margin_px) / self.width_mm
        self.margin = margin_px
        self.size = (int(round(self.width_mm * self.scale)) + 2 * margin_px,
                     int(round(self.depth_mm * self.scale)) + 2 * margin_px + 28)
        self.bases = {p["id"]: tuple(p.get("base_mm", (40, 30))) for p in meta.get("roster", [])}
        self.colours = side_colours(meta)
        self._background = self._draw_background()
        self.layout = LabelLayout()  # where the labels went, so that a video's keep their places

    def colour(self, side: str) -> tuple[int, int, int]:
        """A side's BGR in this record's diagrams."""
        return side_colour(side, self.colours)

    def px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Table mm -> picture px (north up)."""
        return self.margin + x_mm * self.scale, self.margin + 28 + (self.depth_mm - y_mm) * self.scale

    def ipx(self, x_mm: float, y_mm: float) -> tuple[int, int]:
        x, y = self.px(x_mm, y_mm)
        return int(round(x)), int(round(y))

    def _draw_background(self) -> np.ndarray:
        w, h = self.size
        img = np.full((h, w, 3), 40, np.uint8)
        cv2.rectangle(img, self.ipx(0, self.depth_mm), self.ipx(self.width_mm, 0), CLOTH, -1)
        g = self.grid
        if g:
            f, ox, oy = float(g["field_mm"]), float(g["origin_x_mm"]), float(g["origin_y_mm"])
            for c in range(int(g["cols"]) + 1):
                cv2.line(img, self.ipx(ox + c * f, oy), self.ipx(ox + c * f, oy + g["rows"] * f), GRID, 1)
            for r in range(int(g["rows"]) + 1):
                cv2.line(img, self.ipx(ox, oy + r * f), self.ipx(ox + g["cols"] * f, oy + r * f), GRID, 1)
        return img

    def grid_labels(self) -> list:
        """The grid's letters and numbers along its edges (rules.picture.grid_labels), none without a grid."""
        g = self.grid
        if not g:
            return []
        grid = SimpleNamespace(**{k: float(g[k]) for k in ("cols", "rows", "field_mm", "origin_x_mm", "origin_y_mm")})
        return grid_labels(grid, float(g["field_mm"]) * self.scale)

    def to_px(self, xy: np.ndarray) -> np.ndarray:
        """(N, 2) table mm -> (N, 2) picture px."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        return np.column_stack([self.margin + xy[:, 0] * self.scale,
                                self.margin + 28 + (self.depth_mm - xy[:, 1]) * self.scale])

    def draw(self, state: BoardState, title: str = "", heat: np.ndarray | None = None, picture=None,
             marks=()) -> np.ndarray:
        """The board with `state`'s pieces and `marks` over them (fieldglass/record/marks.py: moves as arrows,
        combats as lines), the grid's letters and numbers along its edges.

        `picture`: the record's system's picture of the moment (rules/picture.py, as the dashboard and the replay
        draw it), drawn instead of plain bases, so a view and an export never disagree."""
        img = self._background.copy()
        if heat is not None:
            self._heat(img, heat)
        if picture is None:
            for p in state.on_table():
                self._piece(img, p)
        render.draw(img, (*(picture or ()), *marks, *self.grid_labels()), self.to_px, layout=self.layout,
                    view_key=self.size)
        if title:
            cv2.putText(img, title, (self.margin, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (235, 235, 235), 1,
                        cv2.LINE_AA)
        return img

    def _piece(self, img: np.ndarray, p) -> None:
        bw, bd = self.bases.get(p.id, (40.0, 30.0))
        pts = self.to_px(rectangle(p.x_mm, p.y_mm, p.heading_deg or 0.0, (bw, bd))).astype(np.float32)
        colour = side_colour(p.side, self.colours)
        if p.status == "missing":
            cv2.polylines(img, [np.round(pts).astype(np.int32)], True, colour, 1, cv2.LINE_AA)
        else:
            cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)
        cv2.line(img, tuple(np.round(pts[0]).astype(int)), tuple(np.round(pts[1]).astype(int)), (20, 20, 20), 2,
                 cv2.LINE_AA)
        if self.scale * bw >= 24:
            x, y = self.ipx(p.x_mm, p.y_mm - bd / 2 - 12 / max(self.scale, 1e-6))
            cv2.putText(img, p.id, (x - 4 * len(p.id), y), cv2.FONT_HERSHEY_SIMPLEX, 0.33, (245, 245, 245), 1,
                        cv2.LINE_AA)

    def _heat(self, img: np.ndarray, heat: np.ndarray) -> None:
        """Colour the grid's fields by `heat` (rows, cols), 0..max."""
        g = self.grid
        if not g or heat.max() <= 0:
            return
        f, ox, oy = float(g["field_mm"]), float(g["origin_x_mm"]), float(g["origin_y_mm"])
        norm = (heat / heat.max() * 255).astype(np.uint8)
        colours = cv2.applyColorMap(norm.reshape(-1, 1), cv2.COLORMAP_INFERNO).reshape(heat.shape + (3,))
        overlay = img.copy()
        for r, c in zip(*np.nonzero(heat), strict=True):
            cv2.rectangle(overlay, self.ipx(ox + c * f, oy + (r + 1) * f), self.ipx(ox + (c + 1) * f, oy + r * f),
                          tuple(int(v) for v in colours[r, c]), -1)
        cv2.addWeighted(overlay, 0.7, img, 0.3, 0, dst=img)
