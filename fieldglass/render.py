"""Render a system's picture (rules/picture.py) into an image with OpenCV, for the PNG and MP4 exports: the same
items the dashboard draws with Qt (gui/picture.py), so a view and an export never disagree.

`to_px(xy)` maps (N, 2) table mm to (N, 2) image pixels (x right, y down); `live` items keep their table point (an
export is a top-down board view, where every item lies on the cloth).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import cv2
import numpy as np

from rules.picture import ALIGN, Area, Dot, Item, Label, LabelLayout, Line, place_labels, rgb

ToPx = Callable[[np.ndarray], np.ndarray]
DASH_PX = {"dash": (10, 6), "dot": (2, 5), "dashdot": (10, 4)}


def _bgr(tone: str) -> tuple[int, int, int]:
    r, g, b = rgb(tone)
    return b, g, r


def _dashed(img: np.ndarray, pts: np.ndarray, colour, width: int, pen: str, closed: bool = False) -> None:
    """A polyline in a pen of dashes (OpenCV draws only solid lines)."""
    if closed:
        pts = np.vstack([pts, pts[:1]])
    on, off = DASH_PX[pen]
    for a, b in zip(pts[:-1], pts[1:], strict=True):
        length = float(np.hypot(*(b - a)))
        if length < 1e-6:
            continue
        d = (b - a) / length
        s = 0.0
        while s < length:
            e = min(s + on, length)
            p, q = a + d * s, a + d * e
            cv2.line(img, (int(round(p[0])), int(round(p[1]))), (int(round(q[0])), int(round(q[1]))), colour, width,
                     cv2.LINE_AA)
            s = e + off


def _stroke(img, pts: np.ndarray, colour, width: float, pen: str, closed: bool) -> None:
    w = max(1, int(round(width)))
    if pen == "none":
        return
    if pen in DASH_PX:
        _dashed(img, pts, colour, w, pen, closed)
    else:
        cv2.polylines(img, [np.round(pts).astype(np.int32)], closed, colour, w, cv2.LINE_AA)


def _area(img: np.ndarray, it: Area, to_px: ToPx) -> None:
    polys = [to_px(np.asarray(p, float)) for p in it.polygons if len(p) >= 3]
    if not polys:
        return
    if it.fill > 0:
        layer = img.copy()
        cv2.fillPoly(layer, [np.round(p).astype(np.int32) for p in polys], _bgr(it.tone), cv2.LINE_AA)
        alpha = min(1.0, it.fill * (0.5 if it.pattern == "hatch" else 1.0))
        cv2.addWeighted(layer, alpha, img, 1.0 - alpha, 0.0, dst=img)
    for p in polys:
        _stroke(img, p, _bgr(it.edge_tone or it.tone), it.width, it.pen, True)


FONT = cv2.FONT_HERSHEY_SIMPLEX
PAD_X, PAD_Y = 2, 2


def _font(size: float, bold: bool) -> tuple[float, int]:
    """OpenCV's scale and thickness for a label of `size` points (about 11 px high at 7 points)."""
    return 0.4 * size / 7.0, 2 if bold else 1


def _line_px(size: float, bold: bool) -> int:
    scale, thick = _font(size, bold)
    (_, h), base = cv2.getTextSize("Ag", FONT, scale, thick)
    return h + base


def measure(text: str, size: float, bold: bool) -> tuple[float, float]:
    """A label's plate in image px, a line of text under the other (rules.picture.place_labels' `measure`)."""
    scale, thick = _font(size, bold)
    lines = text.split("\n")
    w = max(cv2.getTextSize(line, FONT, scale, thick)[0][0] for line in lines)
    return w + 2 * PAD_X, _line_px(size, bold) * len(lines) + 2 * PAD_Y


def _label(img: np.ndarray, it: Label, to_px: ToPx) -> None:
    """A placed label (its top-left at `at` + `offset_px`): a dark plate, its text, its leader line."""
    if it.screen:
        return  # screen-fixed captions belong to the live view
    fx, fy = ALIGN.get(it.align, (0.0, 0.0))
    w, h = measure(it.text, it.size, it.bold)
    x, y = to_px(np.asarray([it.at], float))[0] + np.asarray(it.offset_px, float) - (fx * w, fy * h)
    x0, y0 = int(round(x)), int(round(y))
    if it.leader_px is not None:
        lx0, ly0, lx1, ly1 = it.leader_px
        cv2.line(img, (int(round(x + lx0)), int(round(y + ly0))), (int(round(x + lx1)), int(round(y + ly1))),
                 (230, 230, 230), 1, cv2.LINE_AA)
    plate = img[max(0, y0):max(0, y0 + int(h)), max(0, x0):max(0, x0 + int(w))]
    plate[:] = (plate * 0.4).astype(np.uint8)  # the dashboard's plate: black at 60 %
    scale, thick = _font(it.size, it.bold)
    (_, th), _ = cv2.getTextSize("Ag", FONT, scale, thick)
    step = _line_px(it.size, it.bold)
    for k, line in enumerate(it.text.split("\n")):
        cv2.putText(img, line, (x0 + PAD_X, y0 + PAD_Y + th + k * step), FONT, scale, _bgr(it.tone), thick,
                    cv2.LINE_AA)


def draw(img: np.ndarray, picture: Iterable[Item], to_px: ToPx, obstacles=(), layout: LabelLayout | None = None,
         view_key=None) -> np.ndarray:
    """Draw every item of `picture` into the BGR image `img` (in place, in layer order), its labels placed first
    (rules.picture.place_labels: none over another, over a piece or off the image; `obstacles` what else they keep
    clear of; `layout` kept from one frame to the next, so a video's labels keep their places); returns `img`."""
    h, w = img.shape[:2]
    picture = place_labels(picture, lambda xy, z=0.0: to_px(np.asarray(xy, float)), measure, (0, 0, w, h), obstacles,
                           layout=layout, view_key=view_key)
    for it in sorted(picture, key=lambda it: it.layer):
        if isinstance(it, Area):
            _area(img, it, to_px)
        elif isinstance(it, Line):
            for path in it.paths:
                _stroke(img, to_px(np.asarray(path, float)), _bgr(it.tone), it.width, it.pen, False)
        elif isinstance(it, Dot):
            x, y = to_px(np.asarray([it.at], float))[0]
            centre = (int(round(x)), int(round(y)))
            cv2.circle(img, centre, int(round(it.radius_px)), _bgr(it.tone), -1, cv2.LINE_AA)
            cv2.circle(img, centre, int(round(it.radius_px)), _bgr("outline"), 1, cv2.LINE_AA)
        elif isinstance(it, Label):
            _label(img, it, to_px)
    return img
