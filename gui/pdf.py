"""PDF pages at exact paper size, drawn with Qt (QPdfWriter + QPainter) from plain page descriptions.

fieldglass/printing.py lays the pages out (marker sheets, anchor sheets, calibration boards, unit cards) and hands
them here; this module only draws. A PDF page is the paper itself (A4 210 x 297 mm or US Letter 215.9 x 279.4 mm,
no PDF margins), so every millimetre of the description is a millimetre on paper printed at 100 %.

A page is duck-typed: `landscape` (bool) and `items`, each item named by its `kind`, all lengths in page mm (origin
at the paper's top-left corner, x to the right, y down):

* "image": `x_mm`, `y_mm`, `w_mm`, `h_mm` (the box) and `image`, a 2-D uint8 grey array (0 = black) drawn over the
  box without smoothing, so that one image pixel is one marker or QR module with sharp edges;
* "rect": `x_mm`, `y_mm`, `w_mm`, `h_mm`, `line_mm` (outline width, 0 for none), `fill` (grey 0..255 or None),
  `dashed` (a cutting line);
* "polygon": `points` ((x, y) mm ...), filled with grey `fill`, no outline;
* "line": from (`x0`, `y0`) to (`x1`, `y1`) mm, `line_mm` wide;
* "text": `text` whose baseline starts at (`x_mm`, `y_mm`), `pt` points, `align` "left", "centre" or "right",
  `bold`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PySide6.QtCore import QMarginsF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QApplication

from common.errors import InputError

PDF_DPI = 1200  # QPdfWriter's resolution: the unit of its device coordinates
PAGE_SIZES = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}


def _qt_app() -> QApplication:
    """A Qt application for fonts (QApplication so that the GUI and its tests can share it); offscreen without a
    display."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return QApplication.instance() or QApplication(sys.argv[:1] or ["fieldglass"])


def _qimage(gray: np.ndarray) -> QImage:
    gray = np.ascontiguousarray(gray, dtype=np.uint8)
    h, w = gray.shape
    return QImage(gray.data, w, h, w, QImage.Format.Format_Grayscale8).copy()


def render_pdf(pages: Sequence, paper: str, path: str | Path, title: str = "Fieldglass") -> None:
    """Draw `pages` (see the module's docstring) into the PDF file `path` on `paper` ("a4" or "letter"), each page
    portrait or landscape as it says. An image array shared by several items is embedded once. InputError (one
    line) when the file cannot be written."""
    _qt_app()
    writer = QPdfWriter(str(path))
    writer.setResolution(PDF_DPI)
    writer.setCreator("Fieldglass")
    writer.setTitle(title)
    size = QPageSize(PAGE_SIZES[paper])
    if pages:
        writer.setPageLayout(_page_layout(size, pages[0]))
    painter = QPainter()
    if not painter.begin(writer):
        raise InputError(f"{path}: cannot write the PDF")
    k = PDF_DPI / 25.4  # device units per mm
    images: dict[int, tuple[np.ndarray, QImage]] = {}  # id(array) -> (the array, kept alive; its QImage)
    try:
        for index, page in enumerate(pages):
            if index:
                writer.setPageLayout(_page_layout(size, page))
                writer.newPage()
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            for item in page.items:
                draw = _DRAW.get(item.kind)
                if draw is None:
                    raise ValueError(f"page item of unknown kind {item.kind!r}")
                draw(painter, item, k, images)
    finally:
        painter.end()


def _page_layout(size: QPageSize, page) -> QPageLayout:
    """The paper, portrait or landscape as `page` says, without margins."""
    orient = QPageLayout.Orientation.Landscape if page.landscape else QPageLayout.Orientation.Portrait
    return QPageLayout(size, orient, QMarginsF(0, 0, 0, 0), QPageLayout.Unit.Millimeter)


# One function per page item kind: (painter, item, device units per mm, the images already converted by id)


def _draw_image(painter: QPainter, item, k: float, images: dict) -> None:
    key = id(item.image)
    if key not in images:
        images[key] = (item.image, _qimage(item.image))
    rect = QRectF(item.x_mm * k, item.y_mm * k, item.w_mm * k, item.h_mm * k)
    painter.drawImage(rect, images[key][1])


def _draw_rect(painter: QPainter, item, k: float, images: dict) -> None:
    if item.line_mm > 0:
        pen = QPen(QColor(0, 0, 0), item.line_mm * k)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        if item.dashed:
            pen.setDashPattern([8.0, 5.0])
        painter.setPen(pen)
    else:
        painter.setPen(Qt.PenStyle.NoPen)
    if item.fill is None:
        painter.setBrush(Qt.BrushStyle.NoBrush)
    else:
        painter.setBrush(QBrush(QColor(item.fill, item.fill, item.fill)))
    painter.drawRect(QRectF(item.x_mm * k, item.y_mm * k, item.w_mm * k, item.h_mm * k))


def _draw_polygon(painter: QPainter, item, k: float, images: dict) -> None:
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QBrush(QColor(item.fill, item.fill, item.fill)))
    painter.drawPolygon(QPolygonF([QPointF(x * k, y * k) for x, y in item.points]))


def _draw_line(painter: QPainter, item, k: float, images: dict) -> None:
    painter.setPen(QPen(QColor(0, 0, 0), item.line_mm * k))
    painter.drawLine(QPointF(item.x0 * k, item.y0 * k), QPointF(item.x1 * k, item.y1 * k))


def _draw_text(painter: QPainter, item, k: float, images: dict) -> None:
    font = QFont("DejaVu Sans")
    font.setStyleHint(QFont.StyleHint.SansSerif)
    font.setPointSizeF(item.pt)
    font.setBold(item.bold)
    painter.setFont(font)
    painter.setPen(QColor(0, 0, 0))
    x, y = item.x_mm * k, item.y_mm * k
    if item.align != "left":
        width = painter.fontMetrics().horizontalAdvance(item.text)
        x -= width / 2 if item.align == "centre" else width
    painter.drawText(QPointF(x, y), item.text)


_DRAW = {"image": _draw_image, "rect": _draw_rect, "polygon": _draw_polygon, "line": _draw_line, "text": _draw_text}


__all__ = ["PDF_DPI", "render_pdf"]
