"""Render any system's picture (rules/picture.py) on a TableView: one QGraphicsItem per item, through the view's
table-mm mapper (the camera projection at the item's height on the live view, the rectified board on the board view).

Item data: PIECE_KEY holds the piece a click selects, KIND_KEY the item's kind (for tests, tooltips and toggles),
keys 2.. the item's own `data` values. This module knows no game system: colours come from the shared palette.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen, QPolygonF, QTransform
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsItem, QGraphicsPathItem, QGraphicsPolygonItem

from rules.picture import Area, Dot, Item, Label, Line, rgb

PIECE_KEY = 0  # QGraphicsItem.data key holding a piece id
KIND_KEY = 1  # data key naming the overlay kind (for tests and tooltips)

PENS = {"solid": Qt.PenStyle.SolidLine, "dash": Qt.PenStyle.DashLine, "dot": Qt.PenStyle.DotLine,
        "dashdot": Qt.PenStyle.DashDotLine, "none": Qt.PenStyle.NoPen}


def _densify(xy: np.ndarray, step: float, closed: bool = False) -> np.ndarray:
    xy = np.asarray(xy, float)
    if step <= 0 or len(xy) < 2:
        return xy
    if closed:
        xy = np.vstack([xy, xy[:1]])
    out = []
    for a, b in zip(xy[:-1], xy[1:], strict=True):
        n = max(1, int(math.ceil(np.hypot(*(b - a)) / step)))
        out.append(a + (b - a) * np.linspace(0, 1, n, endpoint=False)[:, None])
    out.append(xy[-1:])
    pts = np.vstack(out)
    return pts[:-1] if closed else pts


def _polygon(mapper, xy: np.ndarray, z: float = 0.0) -> QPolygonF:
    pts = mapper.points(_densify(xy, mapper.densify_mm, closed=True), z)
    return QPolygonF([QPointF(float(x), float(y)) for x, y in pts])


def _path_lines(mapper, segments, z: float = 0.0) -> QPainterPath:
    path = QPainterPath()
    for seg in segments:
        pts = mapper.points(_densify(np.asarray(seg, float), mapper.densify_mm), z)
        if len(pts) < 2 or not np.all(np.isfinite(pts)):
            continue
        path.moveTo(_qp(pts[0]))
        for x, y in pts[1:]:
            path.lineTo(float(x), float(y))
    return path


def _qp(pt) -> QPointF:
    """A QPointF from a numpy pair (numpy scalars must not reach Qt: shiboken mis-counts their references)."""
    return QPointF(float(pt[0]), float(pt[1]))


def _pen(colour: QColor, width: float = 2.0, style=Qt.PenStyle.SolidLine) -> QPen:
    pen = QPen(colour, width, style)
    pen.setCosmetic(True)
    return pen



def colour(tone: str, alpha: float = 1.0) -> QColor:
    r, g, b = rgb(tone)
    return QColor(r, g, b, max(0, min(255, round(255 * alpha))))


def _mark(item: QGraphicsItem, it) -> None:
    if it.piece is not None:
        item.setData(PIECE_KEY, it.piece)
    for k, v in enumerate(getattr(it, "data", ()), start=2):
        item.setData(k, v)
    if it.tip:
        item.setToolTip(it.tip)


def _area(view, it: Area) -> QGraphicsItem:
    if len(it.polygons) == 1:  # one polygon: a polygon item (its outline can be read back)
        item = QGraphicsPolygonItem(_polygon(view.mapper, np.asarray(it.polygons[0], float), it.z_mm))
    else:
        path = QPainterPath()
        for poly in it.polygons:
            path.addPolygon(_polygon(view.mapper, np.asarray(poly, float), it.z_mm))
        item = QGraphicsPathItem(path)
    if it.fill > 0:
        style = Qt.BrushStyle.BDiagPattern if it.pattern == "hatch" else Qt.BrushStyle.SolidPattern
        item.setBrush(QBrush(colour(it.tone, it.fill), style))
    if it.pen == "none":
        item.setPen(Qt.PenStyle.NoPen)
    else:
        item.setPen(_pen(colour(it.edge_tone or it.tone, 0.9 if it.fill else 1.0), it.width, PENS[it.pen]))
    return item


def _line(view, it: Line) -> QGraphicsItem:
    item = QGraphicsPathItem(_path_lines(view.mapper, [np.asarray(p, float) for p in it.paths], it.z_mm))
    item.setPen(_pen(colour(it.tone), it.width, PENS[it.pen]))
    return item


def _dot(view, it: Dot) -> QGraphicsItem:
    r = it.radius_px
    at = view.mapper.points(np.asarray([it.at], float), it.z_mm)[0]
    item = QGraphicsEllipseItem(-r, -r, 2 * r, 2 * r)
    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
    item.setPos(float(at[0]), float(at[1]))
    item.setPen(_pen(colour("outline"), 1.5))
    item.setBrush(QBrush(colour(it.tone)))
    return item


def draw(view, picture: Iterable[Item]) -> None:
    """Add every item of `picture` to the view's overlay (the caller clears it first)."""
    for it in picture:
        if isinstance(it, Label):
            if it.screen:
                at = np.asarray(it.at, float)
                rect = view.sceneRect()
                at = np.array([rect.left() + at[0], rect.top() + at[1]])
            else:
                at = view.mapper.points(np.asarray([it.at], float), it.z_mm)[0]
            if not np.all(np.isfinite(at)):
                continue
            plate = view._text(it.text, at, colour(it.tone), it.layer, it.kind, bold=it.bold, size=it.size)
            if it.offset_px != (0.0, 0.0):
                plate.setTransform(QTransform.fromTranslate(*it.offset_px))  # screen pixels
            if it.piece is not None:
                plate.setData(PIECE_KEY, it.piece)
            if it.tip:
                plate.setToolTip(it.tip)
            continue
        if isinstance(it, Area):
            item = _area(view, it)
        elif isinstance(it, Line):
            item = _line(view, it)
        else:
            item = _dot(view, it)
        _mark(item, it)
        view._add(item, it.layer, it.kind)
