"""Top-down board diagrams of a record's states, drawn with OpenCV (no Qt): the table, its grid, the pieces as
their bases in side colours with a mark on the front edge, moves as arrows, combats as red lines."""

from __future__ import annotations

import math

import cv2
import numpy as np

from fieldglass.record.state import BoardState

SIDE_COLOURS = {"FR": (170, 90, 40), "AU": (225, 225, 225), "GB": (40, 40, 190), "RU": (50, 110, 40),
                "PR": (70, 50, 40)}
CLOTH = (88, 128, 104)
GRID = (110, 150, 126)
ARROW = (0, 215, 255)
FIRE = (40, 40, 230)


def side_colour(side: str) -> tuple[int, int, int]:
    c = SIDE_COLOURS.get(side.upper())
    if c:
        return c
    v = [70 + (b * 37) % 150 for b in side.encode().ljust(3, b"x")[:3]]
    return (v[0], v[1], v[2])


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
        self._background = self._draw_background()

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
            if f * self.scale >= 18:
                from common.fields import column_letters

                for c in range(int(g["cols"])):
                    x, _ = self.ipx(ox + (c + 0.5) * f, 0)
                    cv2.putText(img, column_letters(c), (x - 5, h - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.35,
                                (200, 200, 200), 1, cv2.LINE_AA)
                for r in range(int(g["rows"])):
                    _, y = self.ipx(0, oy + (r + 0.5) * f)
                    cv2.putText(img, str(r + 1), (3, y + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (200, 200, 200), 1,
                                cv2.LINE_AA)
        return img

    def draw(self, state: BoardState, moves=(), combats=(), title: str = "", heat: np.ndarray | None = None
             ) -> np.ndarray:
        """The board with `state`'s pieces, `moves` as arrows ((x0, y0), (x1, y1)) and `combats` as red lines."""
        img = self._background.copy()
        if heat is not None:
            self._heat(img, heat)
        for p in state.on_table():
            self._piece(img, p)
        for (a, b) in moves:
            cv2.arrowedLine(img, self.ipx(*a), self.ipx(*b), ARROW, 2, cv2.LINE_AA, tipLength=0.25)
        for (a, b) in combats:
            cv2.line(img, self.ipx(*a), self.ipx(*b), FIRE, 2, cv2.LINE_AA)
            cv2.drawMarker(img, self.ipx(*b), FIRE, cv2.MARKER_STAR, 14, 2)
        if title:
            cv2.putText(img, title, (self.margin, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (235, 235, 235), 1,
                        cv2.LINE_AA)
        return img

    def _piece(self, img: np.ndarray, p) -> None:
        bw, bd = self.bases.get(p.id, (40.0, 30.0))
        h = math.radians(p.heading_deg or 0.0)
        fwd = np.array([math.sin(h), math.cos(h)])
        right = np.array([math.cos(h), -math.sin(h)])
        c = np.array([p.x_mm, p.y_mm])
        corners = [c - right * bw / 2 + fwd * bd / 2, c + right * bw / 2 + fwd * bd / 2,
                   c + right * bw / 2 - fwd * bd / 2, c - right * bw / 2 - fwd * bd / 2]
        pts = np.array([self.px(*q) for q in corners], np.float32)
        colour = side_colour(p.side)
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
