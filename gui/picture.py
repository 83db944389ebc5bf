"""Render any system's picture (rules/picture.py) on a TableView: one QGraphicsItem per item, through the view's
table-mm mapper (the camera projection at the item's height on the live view, the rectified board on the board view).

Item data: PIECE_KEY holds the piece a click selects, KIND_KEY the item's kind (for tests, tooltips and toggles),
keys 2.. the item's own `data` values. This module knows no game system: colours come from the shared palette.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainterPath, QPen, QPolygonF, QTransform
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
)

from rules.picture import ALIGN, Area, Dot, Item, Label, Line, rgb

PIECE_KEY = 0  # QGraphicsItem.data key holding a piece id
KIND_KEY = 1  # data key naming the overlay kind (for tests and tooltips)

PENS = {"solid": Qt.PenStyle.SolidLine, "dash": Qt.PenStyle.DashLine, "dot": Qt.PenStyle.DotLine,
        "dashdot": Qt.PenStyle.DashDotLine, "none": Qt.PenStyle.NoPen}


def _densify(xy: np.ndarray, step: float, closed: bool = False) -> np.ndarray:
    """The polyline `xy` with points put in along each segment at most `step` apart (a straight line in table mm
    bends through the lens); `closed`: the segment back to the first point too. All at once, no loop per segment:
    a moved piece's outline is densified on every frame."""
    xy = np.asarray(xy, float)
    if step <= 0 or len(xy) < 2:
        return xy
    if closed:
        xy = np.vstack([xy, xy[:1]])
    start, d = xy[:-1], np.diff(xy, axis=0)
    n = np.maximum(1, np.ceil(np.hypot(d[:, 0], d[:, 1]) / step)).astype(int)  # points per segment, its start first
    seg = np.repeat(np.arange(len(n)), n)
    t = (np.arange(len(seg)) - np.repeat(np.cumsum(n) - n, n)) / n[seg]
    pts = start[seg] + d[seg] * t[:, None]
    return pts if closed else np.vstack([pts, xy[-1:]])


def _polygon(mapper, xy: np.ndarray, z: float = 0.0) -> QPolygonF:
    pts = mapper.points(_densify(xy, mapper.densify_mm, closed=True), z)
    return QPolygonF([QPointF(x, y) for x, y in pts.tolist()])  # Python floats: no numpy scalar reaches Qt


def _path_lines(mapper, segments, z: float = 0.0) -> QPainterPath:
    """Each segment (a polyline in table mm) an open subpath, all projected at once; a segment with a point behind
    the camera is left out."""
    path = QPainterPath()
    dense = [d for d in (_densify(np.asarray(seg, float), mapper.densify_mm) for seg in segments) if len(d) >= 2]
    if not dense:
        return path
    pts = mapper.points(np.vstack(dense), z)
    ends = np.cumsum([len(d) for d in dense])
    for part in np.split(pts, ends[:-1]):
        if np.all(np.isfinite(part)):
            path.addPolygon(QPolygonF([QPointF(x, y) for x, y in part.tolist()]))
    return path


def _qp(pt) -> QPointF:
    """A QPointF from a numpy pair (numpy scalars must not reach Qt: shiboken mis-counts their references)."""
    return QPointF(float(pt[0]), float(pt[1]))


def _pen(colour: QColor, width: float = 2.0, style=Qt.PenStyle.SolidLine) -> QPen:
    pen = QPen(colour, width, style)
    pen.setCosmetic(True)
    return pen



@functools.lru_cache(maxsize=1024)
def colour(tone: str, alpha: float = 1.0) -> QColor:
    """The QColor of a palette tone at `alpha` (0..1); made once per tone and alpha: do not change it."""
    r, g, b = rgb(tone)
    return QColor(r, g, b, max(0, min(255, round(255 * alpha))))


CACHE = QGraphicsItem.CacheMode.DeviceCoordinateCache
"""Every overlay item is painted once into a pixmap of its own and blitted on each repaint until it changes: the
camera image changes every frame, so the whole view is repainted every frame, and antialiased paths and text
cost several times what the blit does (issue 14's 30 fps at 1080p with 100 pieces)."""


def same(a, b) -> bool:
    """a == b, False where numpy arrays make == ambiguous (an item's data may hold one)."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (ValueError, TypeError):
        return False


PAD_X, PAD_Y = 2.0, 1.0
"""A label's plate around its text, screen px on either side."""


def label_plate() -> QGraphicsRectItem:
    """A dark plate of constant screen size holding one text item (see `set_label`), its top-left at its position."""
    plate = QGraphicsRectItem()
    plate.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
    plate.setBrush(QColor(0, 0, 0, 150))
    plate.setPen(Qt.PenStyle.NoPen)
    text = QGraphicsSimpleTextItem(plate)
    text.setCacheMode(CACHE)
    text.setPos(PAD_X, PAD_Y)
    return plate


_MEASURE: list[QGraphicsSimpleTextItem] = []  # one text item to measure with, made once there is an application
_SIZES: dict[tuple[str, float, bool], tuple[float, float]] = {}


def measure(text: str, size: float, bold: bool) -> tuple[float, float]:
    """The screen px (width, height) of a label's plate with `text` (rules.picture.place_labels' `measure`)."""
    key = (text, size, bold)
    got = _SIZES.get(key)
    if got is None:
        if len(_SIZES) > 50000:
            _SIZES.clear()
        if not _MEASURE:
            _MEASURE.append(QGraphicsSimpleTextItem())
        m = _MEASURE[0]
        m.setFont(_font(size, bold))
        m.setText(text)
        r = m.boundingRect()
        got = _SIZES[key] = (r.width() + 2 * PAD_X, r.height() + 2 * PAD_Y)
    return got


_FONTS: dict[tuple[float, bool], QFont] = {}


def label_font(size: float, bold: bool) -> QFont:
    """The labels' font (made once a size)."""
    return _font(size, bold)


def _font(size: float, bold: bool) -> QFont:
    """The label font of `size` points, bold or not (made once)."""
    font = _FONTS.get((size, bold))
    if font is None:
        font = _FONTS[(size, bold)] = QFont()
        font.setPointSizeF(size)
        font.setBold(bold)
    return font


def plate_text(plate: QGraphicsRectItem) -> QGraphicsSimpleTextItem:
    """The text item of a `label_plate` (its leader line, if any, is a child too)."""
    return next(k for k in plate.childItems() if isinstance(k, QGraphicsSimpleTextItem))


def set_label(plate: QGraphicsRectItem, text: str, at, colour: QColor, bold: bool, size: float) -> None:
    """Write `text` on a `label_plate`, its top-left at the scene point `at`."""
    item = plate_text(plate)
    if item.text() != text:
        item.setText(text)
    if item.brush().color() != colour:
        item.setBrush(colour)
    font = _font(size, bold)
    if item.font() != font:  # a new font lays the text out again: only when it changed
        item.setFont(font)
    r = item.boundingRect()
    plate.setRect(QRectF(0.0, 0.0, r.width() + 2 * PAD_X, r.height() + 2 * PAD_Y))
    plate.setPos(float(at[0]), float(at[1]))
    plate.setToolTip(text)


def set_leader(plate: QGraphicsRectItem, leader) -> None:
    """The plate's leader line ((x0, y0, x1, y1) px from its top-left: from what it names to its edge), or none."""
    kids = plate.childItems()
    line = next((k for k in kids if isinstance(k, QGraphicsLineItem)), None)
    if leader is None:
        if line is not None:
            line.setVisible(False)
        return
    if line is None:
        line = QGraphicsLineItem(plate)
        line.setPen(_pen(QColor(255, 245, 200, 230), 1.5))
    line.setLine(*(float(v) for v in leader))
    line.setVisible(True)


def _mark(item: QGraphicsItem, it) -> None:
    """The item's piece, kind, layer, tooltip and own data values (stale ones from an earlier redraw cleared)."""
    item.setData(PIECE_KEY, it.piece)
    item.setData(KIND_KEY, it.kind)
    item.setZValue(it.layer)
    data = getattr(it, "data", ())
    for k, v in enumerate(data, start=2):
        item.setData(k, v)
    k = 2 + len(data)
    while item.data(k) is not None:
        item.setData(k, None)
        k += 1
    if it.tip or not isinstance(it, Label):
        item.setToolTip(it.tip)


def _set_area(view, item, it: Area) -> None:
    if isinstance(item, QGraphicsPolygonItem):  # one polygon: a polygon item (its outline can be read back)
        item.setPolygon(_polygon(view.mapper, np.asarray(it.polygons[0], float), it.z_mm))
    else:
        path = QPainterPath()
        for poly in it.polygons:
            path.addPolygon(_polygon(view.mapper, np.asarray(poly, float), it.z_mm))
        item.setPath(path)
    if it.fill > 0:
        style = Qt.BrushStyle.BDiagPattern if it.pattern == "hatch" else Qt.BrushStyle.SolidPattern
        item.setBrush(QBrush(colour(it.tone, it.fill), style))
    else:
        item.setBrush(Qt.BrushStyle.NoBrush)
    if it.pen == "none":
        item.setPen(Qt.PenStyle.NoPen)
    else:
        item.setPen(_pen(colour(it.edge_tone or it.tone, 0.9 if it.fill else 1.0), it.width, PENS[it.pen]))


def _set_line(view, item, it: Line) -> None:
    item.setPath(_path_lines(view.mapper, [np.asarray(p, float) for p in it.paths], it.z_mm))
    item.setPen(_pen(colour(it.tone), it.width, PENS[it.pen]))


def _set_dot(view, item, it: Dot) -> None:
    r = it.radius_px
    at = view.mapper.points(np.asarray([it.at], float), it.z_mm)[0]
    item.setRect(-r, -r, 2 * r, 2 * r)
    item.setPos(float(at[0]), float(at[1]))
    item.setPen(_pen(colour("outline"), 1.5))
    item.setBrush(QBrush(colour(it.tone)))


def _set_label(view, plate, it: Label) -> None:
    if it.screen:
        rect = view.sceneRect()
        at = np.array([rect.left() + it.at[0], rect.top() + it.at[1]], float)
    else:
        at = view.mapper.points(np.asarray([it.at], float), it.z_mm)[0]
    if not np.all(np.isfinite(at)):  # behind the camera: nothing to show
        plate.setVisible(False)
        return
    plate.setVisible(True)
    fx, fy = ALIGN.get(it.align, (0.0, 0.0))  # placed labels (rules.picture.place_labels) are top-left
    set_label(plate, it.text, at, colour(it.tone), it.bold, it.size)
    r = plate.rect()
    plate.setTransform(QTransform.fromTranslate(it.offset_px[0] - fx * r.width(), it.offset_px[1] - fy * r.height()))
    set_leader(plate, it.leader_px)
    if it.tip:
        plate.setToolTip(it.tip)


def _dot_item() -> QGraphicsEllipseItem:
    item = QGraphicsEllipseItem()
    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
    return item


SHAPES = {"label": (label_plate, _set_label), "area": (QGraphicsPolygonItem, _set_area),
          "areas": (QGraphicsPathItem, _set_area), "line": (QGraphicsPathItem, _set_line), "dot": (_dot_item, _set_dot)}
"""Each kind of picture item: how its QGraphicsItem is made, and drawn (again) from the item."""


def _shape(it: Item) -> str:
    if isinstance(it, Label):
        return "label"
    if isinstance(it, Area):
        return "area" if len(it.polygons) == 1 else "areas"
    return "line" if isinstance(it, Line) else "dot"


def draw(view, picture: Iterable[Item], projection=None) -> None:
    """Show every item of `picture` on the view, each kept under the key (kind, piece, n, shape) - n counting the
    piece's items of that kind - so that the next picture updates it in place: an item equal to the last one drawn
    under its key on the same `projection` (the view's mapper key) is left alone, a changed one is drawn again on
    the same QGraphicsItem. The view removes the keys a redraw did not keep.

    A picture equal to the last one drawn on the same projection draws nothing. One laid out like it (as many
    items, each of the same kind, piece and shape at the same place: what a frame with a piece moved gives) keeps
    the last one's keys, and only the items that are not the very same objects are looked at (rules.picture hands
    back unchanged pieces' items)."""
    items = tuple(picture)
    kept, seen = view.kept_slots(), view.seen_keys()
    last = view.drawn_picture
    keys = None
    if last is not None and last[0] == projection and all(map(kept.__contains__, last[2])):
        before = last[1]
        if same(before, items):
            seen.update(last[2])  # the very same picture on the same projection: nothing to redraw
            return
        if len(before) == len(items):
            changed = [i for i, (a, b) in enumerate(zip(items, before, strict=True)) if a is not b]
            if all(_base(items[i]) == _base(before[i]) for i in changed):
                keys = last[2]
                seen.update(keys)
    if keys is None:
        keys = _keys(items)
        changed = range(len(items))
    for i in changed:
        it, key = items[i], keys[i]
        slot = kept.get(key)
        if slot is not None and slot[1][1] is it and slot[1][0] == projection:
            seen.add(key)  # the very same item: nothing to do
            continue
        make, apply = SHAPES[key[3]]

        def redraw(item, it=it, apply=apply):
            apply(view, item, it)
            _mark(item, it)

        view.keep(key, (projection, it), make, redraw)
    view.drawn_picture = (projection, items, keys)


def _base(it: Item) -> tuple:
    return it.kind, it.piece, _shape(it)


def _keys(items: Sequence[Item]) -> list[tuple]:
    """Each item's key (kind, piece, n, shape), n counting the items before it with the same kind, piece and shape."""
    counts: dict[tuple, int] = {}
    out = []
    for it in items:
        base = _base(it)
        n = counts.get(base, 0)
        counts[base] = n + 1
        out.append((base[0], base[1], n, base[2]))
    return out
