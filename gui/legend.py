"""View > Legend: every mark the table views draw now, each with a sample drawn as the views draw it and what it
means (rules.picture.LEGEND and the system's own `LiveRules.legend`). No game system is named here: the entries are
plain data of the drawing language."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from gui.picture import PENS, colour
from rules.picture import SAMPLE_H, SAMPLE_W, Area, Dot, Label, LegendEntry, Line

SCALE = 1.5  # sample units -> icon px


def _pt(p) -> QPointF:
    return QPointF(float(p[0]) * SCALE, (SAMPLE_H - float(p[1])) * SCALE)


def sample_pixmap(entry: LegendEntry) -> QPixmap:
    """The entry's sample, drawn on the views' dark ground."""
    pix = QPixmap(round(SAMPLE_W * SCALE), round(SAMPLE_H * SCALE))
    pix.fill(QColor(60, 75, 60))
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    for it in entry.sample:
        if isinstance(it, Area):
            style = Qt.BrushStyle.BDiagPattern if it.pattern == "hatch" else Qt.BrushStyle.SolidPattern
            p.setBrush(QBrush(colour(it.tone, it.fill), style) if it.fill > 0 else Qt.BrushStyle.NoBrush)
            p.setPen(Qt.PenStyle.NoPen if it.pen == "none" else
                     QPen(colour(it.edge_tone or it.tone), it.width, PENS[it.pen]))
            for poly in it.polygons:
                p.drawPolygon(QPolygonF([_pt(q) for q in poly]))
        elif isinstance(it, Line):
            p.setPen(QPen(colour(it.tone), it.width, PENS[it.pen]))
            p.setBrush(Qt.BrushStyle.NoBrush)
            for path in it.paths:
                p.drawPolyline(QPolygonF([_pt(q) for q in path]))
        elif isinstance(it, Dot):
            p.setPen(QPen(colour("outline"), 1.5))
            p.setBrush(colour(it.tone))
            p.drawEllipse(_pt(it.at), it.radius_px, it.radius_px)
        elif isinstance(it, Label):
            font = QFont()
            font.setPointSizeF(it.size)
            font.setBold(it.bold)
            p.setFont(font)
            at = _pt(it.at)
            rect = p.fontMetrics().boundingRect(it.text)
            p.fillRect(int(at.x()) - 2, int(at.y()) - rect.height(), rect.width() + 4, rect.height() + 3,
                       QColor(0, 0, 0, 150))
            p.setPen(colour(it.tone))
            p.drawText(at, it.text)
    p.end()
    return pix


class LegendPanel(QWidget):
    """The marks on the table now, each with its sample and its meaning."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.keys: tuple[str, ...] = ()
        self.note = QLabel("What each mark on the table views means (the marks drawn now).")
        self.note.setWordWrap(True)
        self.list = QListWidget()
        self.list.setIconSize(QSize(round(SAMPLE_W * SCALE), round(SAMPLE_H * SCALE)))
        self.list.setWordWrap(True)
        self.list.setSpacing(2)
        self.list.setSelectionMode(QListWidget.SelectionMode.NoSelection)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.note)
        lay.addWidget(self.list, 1)

    def show_entries(self, entries: list[LegendEntry]) -> None:
        """List `entries` (unchanged entries: nothing redrawn)."""
        keys = tuple(e.key for e in entries)
        if keys == self.keys:
            return
        self.keys = keys
        self.list.clear()
        for e in entries:
            item = QListWidgetItem(QIcon(sample_pixmap(e)), e.text)
            item.setData(Qt.ItemDataRole.UserRole, e.key)
            item.setToolTip(e.text)
            self.list.addItem(item)

    def texts(self) -> dict[str, str]:
        """key -> text of the entries shown (for tests)."""
        return {self.list.item(i).data(Qt.ItemDataRole.UserRole): self.list.item(i).text()
                for i in range(self.list.count())}
