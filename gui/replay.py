"""The replay viewer: a recorded game (`.fgr`) on the dashboard's board view, with media-player controls.

`ReplayWindow` observes a Qt-free replay session (`fieldglass.replay_session.ReplaySession`, the record's `Replay`
model with a cursor, built by the wiring, fieldglass/commands/replay.py, and duck-typed here); the position at every
moment comes from the record, every fire line from the rules engine through the session. This module only lays them
out: the board view (the dashboard's `TableView` with the replay's own overlays:
every allowed fire line, the combat just resolved, the move just made, the notes where they were written), a
timeline with turns, phases, combats, bookmarks and notes marked on it and a draggable playhead, the event list
(a Qt table model, synchronised both ways), jump-to-turn / phase boxes and play at 0.5x-8x.
"""

from __future__ import annotations

import html
import math
import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import QElapsedTimer, QModelIndex, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QFont, QImage, QKeySequence, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QSplitter,
    QStyle,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from common.clock import clock
from common.errors import InputError
from common.fields import field_name
from common.text import MAX_LABEL, shorten
from gui.models import ListTableModel
from gui.panels import SystemPanel
from gui.picture import _path_lines, _pen, _polygon, _qp
from gui.qtapp import application
from gui.views import BLOCKED, SIDE_COLOURS, BoardMapper, TableView, numpy_to_qimage, save_widget_png
from rules.picture import NOTE_PRIORITY, Label, rectangle

MARGIN_MM = 40.0  # room above the table for the caption, below it for the notes on the whole table
TICK_MS = 40
SHORTCUTS = """\
Space             play / pause          Left / Right   step back / forward one event
Home / End        the start / the end   PgUp / PgDn    previous / next turn
[ / ]             slower / faster       U              show undone events (greyed)
L                 every fire line on or off          Esc  clear the selection
click a piece     its arc, ranges and fire lines     Ctrl+S  screenshot
"""

MARK_COLOURS = {
    "turn": QColor(245, 245, 245),
    "phase": QColor(110, 200, 255),
    "combat": QColor(255, 70, 70),
    "bookmark": QColor(255, 205, 40),
    "note": QColor(120, 235, 140),
}
MOVE = QColor(255, 215, 0)
COMBAT = QColor(255, 60, 60)
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0)
"""The play speeds offered, times game time."""


def board_background(layout, mm_per_px: float, margin_mm: float, cloth_bgr: tuple[int, int, int]) -> np.ndarray:
    """The table cloth (`cloth_bgr`) on a dark surround, sized for `BoardMapper(layout, mm_per_px, margin_mm)`
    (BGR; `layout` in table mm, the margin in mm on every side)."""
    w = int(math.ceil((layout.width_mm + 2 * margin_mm) / mm_per_px))
    h = int(math.ceil((layout.depth_mm + 2 * margin_mm) / mm_per_px))
    img = np.full((h, w, 3), 38, np.uint8)
    x0, y0 = int(round(margin_mm / mm_per_px)), int(round(margin_mm / mm_per_px))
    x1 = int(round((layout.width_mm + margin_mm) / mm_per_px))
    y1 = int(round((layout.depth_mm + margin_mm) / mm_per_px))
    img[y0:y1, x0:x1] = cloth_bgr
    return img


# ---------------------------------------------------------------------------------------------- the board


class ReplayBoardView(TableView):
    """The dashboard's board view over a replay: pieces and the selected piece's overlay as on the live dashboard,
    plus the replay's own overlays (kinds: pair-line, combat-line, combat-ghost, move-arrow, move-ghost, note,
    caption)."""

    def __init__(self, session, parent=None):
        super().__init__("replay-board", parent)
        self.session = session
        self.show_pair_lines = True
        lay = session.layout
        self.mm_per_px = max(lay.width_mm, lay.depth_mm) / 1400.0
        self.mapper = BoardMapper(lay, self.mm_per_px, MARGIN_MM)
        # the session's cloth colour: the board looks as in `fieldglass export`'s pictures
        self.set_image(numpy_to_qimage(board_background(lay, self.mm_per_px, MARGIN_MM, session.cloth_bgr)))

    def _draw_anchors(self) -> None:
        """A replay has no camera: no anchors, no pose quality."""

    def placed(self, pic: tuple) -> tuple:
        """The picture with the replay's own labels (the combat's result, the notes written at a piece), placed
        with the pieces' by the one placer: none over another or over a piece."""
        return super().placed((*pic, *self._replay_labels()))

    def _replay_labels(self) -> list[Label]:
        s, out = self.session, []
        grid = s.layout.grid
        shown = s.combat_shown() if grid is not None else None
        if shown is not None:
            attacker, target, fa, ft, e = shown
            d = e.data
            text = f"{d.get('action', 'combat')}: {attacker} → {target}: {d.get('winner') or '-'} wins"
            removed = [c["piece"] for c in d.get("changes", []) if c.get("removed")]
            if removed:
                text += f", {', '.join(removed)} removed"
            (ax, ay), (bx, by) = grid.field_centre(*fa), grid.field_centre(*ft)
            out.append(Label("combat-label", ((ax + bx) / 2, (ay + by) / 2), text, "#ffaaaa", 8.5, True, (8.0, 0.0),
                             tip=s.describe_event(e), layer=9, priority=NOTE_PRIORITY + 5,
                             short=f"{d.get('action', 'combat')}: {d.get('winner') or '-'} wins", align="left"))
        for n in s.notes_shown():
            if n.at_mm is None:
                continue  # over the whole table: listed in the view's corner
            d = n.event.data
            text = shorten(f"✎ {clock(n.event.t)}{' ' + d['by'] if d.get('by') else ''}: {d.get('text', '')}",
                           MAX_LABEL)
            out.append(Label("note", tuple(map(float, n.at_mm)), text, "#96ffaa" if n.current else "#c8e1c8",
                             9.0, n.current, (10.0, 10.0), tip=text, layer=9.5, priority=NOTE_PRIORITY))
        return out

    def redraw(self, pic: tuple | None = None) -> None:
        super().redraw(pic)
        s = self.session
        if s is None or self.mapper is None:
            return
        grid = s.layout.grid
        if grid is not None:
            if self.show_pair_lines:
                self._draw_pair_lines(grid)
            self._draw_combat(grid)
        self._draw_move()
        self._draw_notes()
        self._draw_caption()

    def _side_colour(self, pid: str) -> QColor:
        rp = self.session.roster.piece(pid)
        sides = {side: i for i, side in enumerate(self.session.sides)}
        return QColor(SIDE_COLOURS[sides.get(rp.side if rp else "", 0) % len(SIDE_COLOURS)])

    def _draw_pair_lines(self, grid) -> None:
        for ln in self.session.fire_lines():
            a = np.array([grid.field_centre(*ln.start)])
            b = np.array([grid.field_centre(*ln.end)])
            item = self._line_item(np.vstack([a, b]))
            colour = self._side_colour(ln.piece)
            colour.setAlpha(170)
            style = Qt.PenStyle.DashLine if ln.kind == "melee" else Qt.PenStyle.SolidLine
            item.setPen(_pen(colour, 1.6, style))
            verb = "may fire at" if ln.kind == "fire" else "may attack"
            item.setToolTip(f"{ln.piece} ({field_name(*ln.start)}) {verb} {ln.target} ({field_name(*ln.end)})")
            self._add(item, 4.8, "pair-line")

    def _line_item(self, seg: np.ndarray):
        return QGraphicsPathItem(_path_lines(self.mapper, [seg]))

    def _ghost(self, pid: str, x: float, y: float, heading: float, colour: QColor, kind: str, tip: str) -> None:
        rp = self.session.roster.piece(pid)
        base = rp.base_mm if rp is not None else (40.0, 30.0)
        item = QGraphicsPolygonItem(_polygon(self.mapper, rectangle(x, y, heading, base)))
        item.setPen(_pen(colour, 2.0, Qt.PenStyle.DotLine))
        item.setBrush(Qt.BrushStyle.NoBrush)
        item.setToolTip(tip)
        self._add(item, 5.8, kind)

    def _draw_combat(self, grid) -> None:
        shown = self.session.combat_shown()
        if shown is None:
            return
        attacker, target, fa, ft, e = shown
        a, b = np.array(grid.field_centre(*fa)), np.array(grid.field_centre(*ft))
        item = self._line_item(np.vstack([a, b]))
        item.setPen(_pen(COMBAT, 4.0))
        item.setToolTip(self.session.describe_event(e))
        self._add(item, 7.5, "combat-line")
        # a burst at the target
        pb = self.mapper.points(np.array([b]))[0]
        burst = QPainterPath()
        r = 14.0 / self.mm_per_px
        for k in range(8):
            ang = k * math.pi / 4
            burst.moveTo(_qp(pb))
            burst.lineTo(QPointF(float(pb[0] + r * math.cos(ang)), float(pb[1] + r * math.sin(ang))))
        star = QGraphicsPathItem(burst)
        star.setPen(_pen(COMBAT, 2.5))
        self._add(star, 7.6, "combat-line")
        before = self.session.state(self.session.index_of(e.seq))
        for pid in (attacker, target):
            p = before.pieces.get(pid)
            after = self.session.state().pieces.get(pid)
            if p is not None and p.x_mm is not None and after is not None and after.status == "removed":
                self._ghost(pid, p.x_mm, p.y_mm, p.heading_deg or 0.0, BLOCKED, "combat-ghost",
                            f"{pid}: removed by this {e.data.get('action', 'combat')}")

    def _draw_move(self) -> None:
        shown = self.session.move_shown()
        if shown is None:
            return
        a, b, e = shown
        frm = e.data.get("from") or {}
        self._ghost(e.piece, a[0], a[1], float(frm.get("heading_deg") or 0.0), MOVE, "move-ghost",
                    f"{self.session.public_name(e.piece, e)} stood here before the move")
        pts = self.mapper.points(np.array([a, b]))
        d = pts[1] - pts[0]
        n = float(np.hypot(*d))
        path = QPainterPath()
        path.moveTo(_qp(pts[0]))
        path.lineTo(_qp(pts[1]))
        if n > 1e-6:
            u = d / n
            w = np.array([-u[1], u[0]])
            head = min(14.0, n / 3)
            path.moveTo(_qp(pts[1] - u * head + w * head * 0.5))
            path.lineTo(_qp(pts[1]))
            path.lineTo(_qp(pts[1] - u * head - w * head * 0.5))
        item = QGraphicsPathItem(path)
        item.setPen(_pen(MOVE, 3.0))
        item.setToolTip(self.session.describe_event(e))
        self._add(item, 7.4, "move-arrow")

    def _draw_notes(self) -> None:
        rect = self.sceneRect()
        general = [n for n in self.session.notes_shown() if n.at_mm is None]
        k = 1.0 / max(self.transform().m11(), 1e-6)  # scene units per screen pixel: the labels keep their size
        y = rect.bottom() - (4 + 21 * len(general)) * k
        for n in general:  # (a note written at a piece is one of the picture's labels: `_replay_labels`)
            d = n.event.data
            text = shorten(f"✎ {clock(n.event.t)}{' ' + d['by'] if d.get('by') else ''}: {d.get('text', '')}",
                           MAX_LABEL)
            colour = QColor(150, 255, 170) if n.current else QColor(200, 225, 200)
            item = self._text(text, np.array([rect.left() + 6 * k, y]), colour, 9.5, "note", bold=n.current, size=9.0)
            item.setData(3, n.event.seq)
            y += 21 * k

    def _draw_caption(self) -> None:
        s = self.session
        st = s.state()
        e = s.current_event()
        if e is None:
            text = f"start · {len(s)} events · {clock(s.duration)}"
        else:
            text = (f"turn {st.turn}{' · ' + st.phase if st.phase else ''} · {clock(e.t)} · event {s.index}/{len(s)}"
                    f" (seq {e.seq}){' · UNDONE' if e.undone else ''}: "
                    f"{s.headline(e)}")
        if len(text) > 120:
            text = text[:119] + "…"
        rect = self.sceneRect()
        self._text(text, np.array([rect.left() + 6, rect.top() + 6]), QColor(255, 255, 255), 9.5, "caption",
                   bold=True, size=9.5)


# ---------------------------------------------------------------------------------------------- the timeline


class TimelineWidget(QWidget):
    """Game time left to right: turns as bands, every event a tick (undone ones faint), turn, phase, combat,
    bookmark and note marks, and the playhead. Press or drag anywhere to scrub: `scrubbed(t)`."""

    scrubbed = Signal(float)
    LEFT, RIGHT = 12, 12
    BAR_TOP, BAR_H = 24, 22

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("timeline")
        self.setMinimumHeight(72)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.markers = []
        self.ticks: list[tuple[float, bool]] = []
        self.turns: list[tuple[int, float, float]] = []
        self.duration = 1.0
        self.t = 0.0
        self.dragging = False

    def sizeHint(self) -> QSize:
        return QSize(800, 76)

    def set_session(self, session) -> None:
        evs = session.timeline
        self.duration = max(session.duration, 1e-3)
        self.markers = session.markers()
        self.ticks = [(e.t, e.undone) for e in evs]
        starts = [(int(m.label.split()[-1]) if m.label.split()[-1].isdigit() else 0, m.t)
                  for m in self.markers if m.kind == "turn"]
        self.turns = [(n, t0, starts[i + 1][1] if i + 1 < len(starts) else self.duration)
                      for i, (n, t0) in enumerate(starts)]
        self.update()

    def set_time(self, t: float) -> None:
        self.t = max(0.0, min(float(t), self.duration))
        self.update()

    def x_for(self, t: float) -> float:
        w = max(1, self.width() - self.LEFT - self.RIGHT)
        return self.LEFT + w * max(0.0, min(t, self.duration)) / self.duration

    def t_for(self, x: float) -> float:
        w = max(1, self.width() - self.LEFT - self.RIGHT)
        return max(0.0, min(self.duration, (x - self.LEFT) / w * self.duration))

    def marker_at(self, x: float, tol: float = 5.0):
        best, bd = None, tol
        for m in self.markers:
            d = abs(self.x_for(m.t) - x)
            if d <= bd:
                best, bd = m, d
        return best

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor(34, 36, 40))
        top, h = self.BAR_TOP, self.BAR_H
        bar = QRectF(self.LEFT, top, self.width() - self.LEFT - self.RIGHT, h)
        p.fillRect(bar, QColor(58, 62, 70))
        font = QFont()
        font.setPointSizeF(7.5)
        p.setFont(font)
        self._paint_turns(p, top, h)
        # every event a small tick
        for t, undone in self.ticks:
            x = self.x_for(t)
            p.setPen(QPen(QColor(150, 150, 150, 70) if undone else QColor(205, 205, 205, 170), 1))
            p.drawLine(QPointF(x, top + h - 7), QPointF(x, top + h))
        for m in self.markers:
            self._paint_marker(p, m, top, h)
        self._paint_playhead(p, top, h)
        p.setPen(QColor(235, 235, 235))
        p.drawText(QPointF(self.width() - self.RIGHT - 110, self.height() - 4),
                   f"{clock(self.t)} / {clock(self.duration)}")
        p.end()

    def _paint_turns(self, p: QPainter, top: float, h: float) -> None:
        """Each turn a band in alternating shades, labelled above the bar."""
        for i, (n, t0, t1) in enumerate(self.turns):
            band = QRectF(self.x_for(t0), top, max(1.0, self.x_for(t1) - self.x_for(t0)), h)
            p.fillRect(band, QColor(78, 92, 110) if i % 2 == 0 else QColor(68, 80, 96))
            p.setPen(QColor(230, 230, 230))
            p.drawText(QPointF(band.left() + 4, top - 12), f"turn {n}")

    def _paint_marker(self, p: QPainter, m, top: float, h: float) -> None:
        """A turn across the bar, a phase inside it and labelled below, a combat a diamond, a bookmark a flag,
        a note a dot below the bar."""
        x = self.x_for(m.t)
        c = MARK_COLOURS.get(m.kind, QColor(200, 200, 200))
        p.setPen(QPen(c, 2 if m.kind == "turn" else 1.5))
        p.setBrush(c)
        if m.kind == "turn":
            p.drawLine(QPointF(x, top - 4), QPointF(x, top + h + 4))
        elif m.kind == "phase":
            p.drawLine(QPointF(x, top), QPointF(x, top + h))
            p.drawText(QPointF(x + 3, top + h + 13), m.label)
        elif m.kind == "combat":
            d = 6.0
            y = top + h / 2
            p.drawPath(_closed_path((x, y - d), (x + d, y), (x, y + d), (x - d, y)))
        elif m.kind == "bookmark":
            p.drawPath(_closed_path((x, top - 10), (x + 9, top - 6), (x, top - 2)))
            p.drawLine(QPointF(x, top - 10), QPointF(x, top + h))
        elif m.kind == "note":
            p.drawEllipse(QPointF(x, top + h + 6), 3.5, 3.5)

    def _paint_playhead(self, p: QPainter, top: float, h: float) -> None:
        x = self.x_for(self.t)
        head = QColor(255, 150, 40)
        p.setPen(QPen(head, 2))
        p.drawLine(QPointF(x, top - 6), QPointF(x, top + h + 10))
        p.setBrush(head)
        p.drawPath(_closed_path((x - 6, top - 10), (x + 6, top - 10), (x, top - 2)))

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.dragging = True
            self.scrubbed.emit(self.t_for(event.position().x()))
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        x = event.position().x()
        if self.dragging:
            self.scrubbed.emit(self.t_for(x))
            return
        m = self.marker_at(x)
        self.setToolTip(f"{clock(m.t)} {m.kind}: {m.label}" if m is not None else f"{clock(self.t_for(x))}")

    def mouseReleaseEvent(self, event) -> None:
        if self.dragging and event.button() == Qt.MouseButton.LeftButton:
            self.dragging = False
            self.scrubbed.emit(self.t_for(event.position().x()))
        super().mouseReleaseEvent(event)


def _closed_path(*points: tuple[float, float]) -> QPainterPath:
    """A closed polygon through `points` (widget pixels)."""
    path = QPainterPath()
    path.moveTo(*points[0])
    for pt in points[1:]:
        path.lineTo(*pt)
    path.closeSubpath()
    return path


# ---------------------------------------------------------------------------------------------- the event list


class EventsModel(ListTableModel):
    """The replay's events in order (undone ones greyed and in italics when shown); the current one in bold."""

    HEADERS = ("seq", "time", "turn", "phase", "event", "piece", "what")
    BACKGROUNDS = {"combat": QColor(255, 222, 222), "turn": QColor(222, 230, 245), "phase": QColor(230, 240, 250),
                   "note": QColor(222, 245, 225), "bookmark": QColor(255, 243, 205),
                   "removed": QColor(245, 228, 228), "missing": QColor(250, 238, 220)}

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.rows: list = []  # the session's events shown, in order
        self.texts: list[str] = []
        self.current = -1
        self.refresh()

    def refresh(self) -> None:
        self.beginResetModel()
        self.rows = list(self.session.timeline)
        self.texts = [self.session.describe_event(e) for e in self.rows]
        self.current = self.session.index - 1
        self.endResetModel()

    def retext(self) -> None:
        """The events' texts again, rows kept (a replay crossing the end of the game names every hidden piece)."""
        self.texts = [self.session.describe_event(e) for e in self.rows]
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(self.HEADERS) - 1))

    def set_current(self, row: int) -> None:
        old, self.current = self.current, row
        for r in (old, row):
            if 0 <= r < len(self.rows):
                self.dataChanged.emit(self.index(r, 0), self.index(r, len(self.HEADERS) - 1))

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        e = self.rows[r]
        if role == Qt.ItemDataRole.DisplayRole:
            return (e.seq, clock(e.t), e.turn, e.phase or "", e.type + (" (undone)" if e.undone else ""),
                    self.session.public_name(e.piece, e) if e.piece else "", self.texts[r])[c]
        if role == Qt.ItemDataRole.ForegroundRole and e.undone:
            return QBrush(QColor(150, 150, 150))
        if role == Qt.ItemDataRole.BackgroundRole and not e.undone and e.type in self.BACKGROUNDS:
            return QBrush(self.BACKGROUNDS[e.type])
        if role == Qt.ItemDataRole.FontRole and (e.undone or r == self.current):
            f = QFont()
            f.setItalic(e.undone)
            f.setBold(r == self.current)
            return f
        if role == Qt.ItemDataRole.ToolTipRole:  # a cell its column cuts: read whole here
            whole = (str(e.seq), clock(e.t), str(e.turn), e.phase or "", e.type,
                     self.session.public_name(e.piece, e) if e.piece else "", self.texts[r])[c]
            return whole + (" (undone: not part of the game)" if e.undone else "")
        if role == Qt.ItemDataRole.UserRole:
            return e.seq
        return None


# ---------------------------------------------------------------------------------------------- the window


class ReplayWindow(QMainWindow):
    """The viewer over `session`, a replay session the wiring built (it owns the record: closing the window does not
    close it)."""

    def __init__(self, session):
        super().__init__()
        self.session = session
        self.record = record = session.record
        s = self.session
        self.setWindowTitle(f"Fieldglass replay — {record.path.name} — {record.meta.get('system', '?')}")
        self.cursor_t = 0.0
        self.speed = 1.0
        self.playing = False
        self._syncing = False
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self.clock = QElapsedTimer()

        self._build_board()
        self._build_events_table()
        self._build_details()
        self._build_split()
        self.timeline = TimelineWidget()
        self.timeline.set_session(s)
        self.timeline.scrubbed.connect(self.scrub)
        bar = self._build_controls()
        central = QWidget()
        cl = QVBoxLayout(central)
        cl.setContentsMargins(4, 4, 4, 4)
        cl.addWidget(self.split, 1)
        cl.addWidget(self.timeline, 0)
        cl.addLayout(bar)
        self.setCentralWidget(central)
        self._build_actions()
        self._fill_boxes()
        self.resize(1500, 900)
        self.board.setFocus()
        self._refresh()

    # ---- building the window

    def _build_board(self) -> None:
        """The board view: a click selects a piece through the session, whose selection redraws it."""
        s = self.session
        self.board = ReplayBoardView(s)
        self.board.pieceClicked.connect(lambda pid, add: s.select(pid, add))
        self.board.backgroundClicked.connect(s.clear_selection)
        self.board.hovered.connect(lambda text: self.statusBar().showMessage(text, 3000))
        s.events.selection.connect(lambda *_: self._refresh_board())

    def _build_events_table(self) -> None:
        """The event list: one row per event, choosing a row moves the cursor there."""
        self.model = EventsModel(self.session)
        self.table = QTableView()
        self.table.setObjectName("events")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(20)
        hh = self.table.horizontalHeader()
        hh.setStretchLastSection(True)
        self._fit_event_columns()
        self.model.modelReset.connect(self._fit_event_columns)
        hh.setSectionResizeMode(6, QHeaderView.ResizeMode.Stretch)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setWordWrap(False)
        self.table.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.table.selectionModel().currentRowChanged.connect(self._row_chosen)

    def _fit_event_columns(self) -> None:
        """Each column but the last as wide as its widest cell (a piece's name was cut at a fixed 52 px), at most
        160 px; the event's text stretches over the rest."""
        fm = self.table.fontMetrics()
        for col in range(len(self.model.HEADERS) - 1):
            texts = [str(self.model.HEADERS[col])] + [str(self.model.data(self.model.index(r, col)))
                                                      for r in range(self.model.rowCount())]
            self.table.setColumnWidth(col, min(160, max(fm.horizontalAdvance(t) for t in texts) + 14))

    def _build_details(self) -> None:
        """The current event's details and the table photo nearest before it."""
        self.details = QLabel()
        self.details.setObjectName("details")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.details.setMinimumHeight(90)
        self.thumb = QLabel()
        self.thumb.setObjectName("thumbnail")
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.thumb.setMinimumHeight(100)

    def _build_split(self) -> None:
        """The board on the left; the event list, details and photo on the right."""
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        self.system_panels: dict[str, SystemPanel] = {}
        self.panel_tabs = QTabWidget()
        self.panel_tabs.setObjectName("system-panels")
        self.panel_tabs.addTab(self.table, "Events")
        rl.addWidget(self.panel_tabs, 3)
        rl.addWidget(self.details, 0)
        rl.addWidget(self.thumb, 0)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.addWidget(self.board)
        self.split.addWidget(right)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setSizes([900, 600])

    def _build_controls(self) -> QHBoxLayout:
        """The bar under the timeline: transport buttons, speed, jump to turn and phase, the toggles, the viewer
        (Marengo) and the cursor's position. None of them takes the keyboard focus from the board."""
        bar = QHBoxLayout()
        self._build_transport(bar)
        self._build_speed_box(bar)
        bar.addSpacing(12)
        self._build_jump_boxes(bar)
        bar.addSpacing(12)
        self._build_toggles(bar)
        self._build_viewer_box(bar)
        bar.addStretch(1)
        self.position_label = QLabel()
        self.position_label.setObjectName("position-label")
        bar.addWidget(self.position_label)
        return bar

    def _build_transport(self, bar: QHBoxLayout) -> None:
        self.buttons = {}
        style = self.style()
        for key, icon, tip, slot in (
                ("start", QStyle.StandardPixmap.SP_MediaSkipBackward, "to the start (Home)", self.to_start),
                ("back", QStyle.StandardPixmap.SP_MediaSeekBackward, "step back one event (Left)", self.step_back),
                ("play", QStyle.StandardPixmap.SP_MediaPlay, "play / pause (Space)", self.toggle_play),
                ("forward", QStyle.StandardPixmap.SP_MediaSeekForward, "step forward one event (Right)",
                 self.step_forward),
                ("end", QStyle.StandardPixmap.SP_MediaSkipForward, "to the end (End)", self.to_end)):
            b = QToolButton()
            b.setObjectName(f"btn-{key}")
            b.setIcon(style.standardIcon(icon))
            b.setToolTip(tip)
            b.setIconSize(QSize(22, 22))
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            b.clicked.connect(slot)
            bar.addWidget(b)
            self.buttons[key] = b

    def _build_speed_box(self, bar: QHBoxLayout) -> None:
        self.speed_box = QComboBox()
        self.speed_box.setObjectName("speed")
        for v in SPEEDS:
            self.speed_box.addItem(f"{v:g}x", v)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.currentIndexChanged.connect(lambda i: self.set_speed(SPEEDS[i]))
        self.speed_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        bar.addWidget(QLabel("speed"))
        bar.addWidget(self.speed_box)

    def _build_jump_boxes(self, bar: QHBoxLayout) -> None:
        """Jump to a turn or a phase (filled by _fill_boxes)."""
        self.turn_box = QComboBox()
        self.turn_box.setObjectName("turn")
        self.turn_box.activated.connect(lambda i: self.jump_turn(self.turn_box.itemData(i)))
        self.phase_box = QComboBox()
        self.phase_box.setObjectName("phase")
        self.phase_box.activated.connect(lambda i: self.jump_phase(*self.phase_box.itemData(i)))
        for box in (self.turn_box, self.phase_box):
            box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        bar.addWidget(QLabel("turn"))
        bar.addWidget(self.turn_box)
        bar.addWidget(QLabel("phase"))
        bar.addWidget(self.phase_box)

    def _build_toggles(self, bar: QHBoxLayout) -> None:
        """Show the undone events; show every fire line."""
        self.undone_box = QCheckBox("undone events")
        self.undone_box.setObjectName("show-undone")
        self.undone_box.setToolTip("show the events a player took back, greyed (U)")
        self.undone_box.setChecked(bool(self.session.include_undone))
        self.undone_box.toggled.connect(self.set_show_undone)
        self.lines_box = QCheckBox("all fire lines")
        self.lines_box.setObjectName("all-lines")
        self.lines_box.setToolTip("every line along which a piece may fire or attack, from the rules engine (L)")
        self.lines_box.setChecked(True)
        self.lines_box.toggled.connect(self.set_pair_lines)
        for w in (self.undone_box, self.lines_box):
            w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            bar.addWidget(w)

    def _build_viewer_box(self, bar: QHBoxLayout) -> None:
        """Who watches a record of a system with hidden information (its player views, LiveRules.replay_views);
        in the bar only for such a system."""
        self.viewer_box = QComboBox()
        self.viewer_box.setObjectName("viewer")
        self.viewer_box.addItems(list(self.session.viewers))
        self.viewer_box.setToolTip("who watches: the opponent's blocks stay hidden until the rules reveal them or "
                                   "the game ends (umpire: everything)")
        self.viewer_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.viewer_box.currentTextChanged.connect(self.set_viewer)
        if self.session.live.viewers:  # a system with player views (hidden information)
            bar.addSpacing(12)
            bar.addWidget(QLabel("view"))
            bar.addWidget(self.viewer_box)

    # ---- actions and shortcuts

    def _build_actions(self) -> None:
        menu = self.menuBar().addMenu("&Replay")
        self.actions_by_name = {}
        for name, text, keys, slot in (
                ("play", "Play / pause", ["Space"], self.toggle_play),
                ("back", "Step back", ["Left"], self.step_back),
                ("forward", "Step forward", ["Right"], self.step_forward),
                ("start", "To the start", ["Home"], self.to_start),
                ("end", "To the end", ["End"], self.to_end),
                ("prev-turn", "Previous turn", ["PgUp"], lambda: self.step_turn(-1)),
                ("next-turn", "Next turn", ["PgDown"], lambda: self.step_turn(1)),
                ("slower", "Slower", ["["], lambda: self.change_speed(-1)),
                ("faster", "Faster", ["]"], lambda: self.change_speed(1)),
                ("undone", "Show undone events", ["U"], lambda: self.undone_box.toggle()),
                ("lines", "All fire lines", ["L"], lambda: self.lines_box.toggle()),
                ("clear", "Clear the selection", ["Esc"], self.session.clear_selection),
                ("fit", "Fit the board", ["F"], self.board.fit),
                ("screenshot", "Save a screenshot", ["Ctrl+S"], self.ask_screenshot),
                ("close", "Close", ["Ctrl+Q", "Ctrl+W"], self.close)):
            act = QAction(text, self)
            act.setShortcuts([QKeySequence(k) for k in keys])
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            act.triggered.connect(slot)
            self.addAction(act)
            menu.addAction(act)
            self.actions_by_name[name] = act
        help_menu = self.menuBar().addMenu("&Help")
        keys = QAction("Keyboard shortcuts", self)
        keys.triggered.connect(lambda: self.statusBar().showMessage(SHORTCUTS.replace("\n", "  "), 20000))
        help_menu.addAction(keys)

    def _fill_boxes(self) -> None:
        s = self.session
        self.turn_box.clear()
        for t in s.turns():
            self.turn_box.addItem("set-up" if t == 0 else f"turn {t}", t)
        self.phase_box.clear()
        for m in s.phases():
            self.phase_box.addItem(f"turn {m.turn} · {m.phase}", (m.turn, m.phase))

    # ---- navigation (every move of the cursor goes through go)

    def time_of(self, index: int) -> float:
        return self.session.timeline[index - 1].t if index > 0 else 0.0

    def go(self, index: int, t: float | None = None) -> None:
        index = max(0, min(int(index), len(self.session)))
        self.cursor_t = self.time_of(index) if t is None else float(t)
        self.session.seek(index)
        over = self.session.game_over_now()
        if over != getattr(self, "_game_over_shown", False):
            self._game_over_shown = over
            self.model.retext()
        self._refresh()

    def to_start(self) -> None:
        self.pause()
        self.go(0)

    def to_end(self) -> None:
        self.pause()
        self.go(len(self.session))

    def step_back(self) -> None:
        self.pause()
        self.go(self.session.index - 1)

    def step_forward(self) -> None:
        self.pause()
        self.go(self.session.index + 1)

    def scrub(self, t: float) -> None:
        self.pause()
        self.go(self.session.replay.index_at(t), t)

    def jump_turn(self, turn) -> None:
        if turn is None:
            return
        self.pause()
        try:
            self.go(0 if turn == 0 else self.session.turn_index(int(turn)))
        except InputError as exc:
            self.statusBar().showMessage(str(exc), 5000)

    def jump_phase(self, turn: int, phase: str) -> None:
        self.pause()
        for m in self.session.phases():
            if m.turn == turn and m.phase == phase:
                self.go(m.index + 1)
                return
        self.statusBar().showMessage(f"no phase {phase} in turn {turn}", 5000)

    def step_turn(self, step: int) -> None:
        turns = [t for t in self.session.turns()]
        if not turns:
            return
        cur = self.session.state().turn
        i = turns.index(cur) if cur in turns else 0
        start = self.session.turn_index(cur) if cur in self.session.replay.turn_starts() else 0
        if step < 0 and self.session.index > start:
            self.jump_turn(cur)  # back to the start of this turn first
            return
        j = max(0, min(len(turns) - 1, i + step))
        self.jump_turn(turns[j])

    # ---- playing

    def set_speed(self, v: float) -> None:
        self.speed = float(v)
        i = SPEEDS.index(self.speed) if self.speed in SPEEDS else -1
        if i >= 0 and self.speed_box.currentIndex() != i:
            self.speed_box.setCurrentIndex(i)
        self._update_labels()

    def change_speed(self, step: int) -> None:
        i = SPEEDS.index(self.speed) if self.speed in SPEEDS else 1
        self.set_speed(SPEEDS[max(0, min(len(SPEEDS) - 1, i + step))])

    def toggle_play(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def play(self) -> None:
        if self.session.index >= len(self.session):
            self.go(0)
        self.playing = True
        self.buttons["play"].setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause))
        self.clock.start()
        self.timer.start()
        self._update_labels()

    def pause(self) -> None:
        if not self.playing:
            return
        self.playing = False
        self.timer.stop()
        self.buttons["play"].setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self._update_labels()

    def tick(self, dt: float | None = None) -> None:
        """Advance the playhead by `dt` seconds of wall time (measured when None) times the speed."""
        if dt is None:
            dt = min(self.clock.restart() / 1000.0, 0.25)
        s = self.session
        t = self.cursor_t + dt * self.speed
        if t >= s.duration:
            self.go(len(s), s.duration)
            self.pause()
            return
        index = s.replay.index_at(t)
        self.cursor_t = t
        if index != s.index:
            s.seek(index)
            self._refresh()
        else:
            self.timeline.set_time(t)
            self._update_labels()

    # ---- toggles

    def set_show_undone(self, on: bool) -> None:
        s = self.session
        s.set_include_undone(on)
        self.model.refresh()
        self.timeline.set_session(s)
        self._fill_boxes()
        self.go(s.index)

    def set_viewer(self, viewer: str) -> None:
        """Replay as the public, a side (a system with hidden information) or the umpire sees it."""
        if self.viewer_box.currentText() != viewer:
            self.viewer_box.setCurrentText(viewer)  # comes back here through the signal
            return
        self.session.set_viewer(viewer)
        self.model.refresh()
        self.go(self.session.index)

    def set_pair_lines(self, on: bool) -> None:
        self.board.show_pair_lines = bool(on)
        self._refresh_board()

    # ---- showing the moment

    def _refresh_board(self) -> None:
        self.board.redraw()

    def _refresh(self) -> None:
        self.board.redraw()
        self.timeline.set_time(self.cursor_t)
        self._follow_row()
        self._sync_boxes()
        self._update_details()
        self._update_labels()
        self._refresh_system_panels()

    def _refresh_system_panels(self) -> None:
        """The system's own game-state panels (rules.live.Panel) at the replay's moment, each a tab beside the events
        (read only: their actions belong to the live dashboard)."""
        try:
            panels = self.session.live.panels(self.session)
        except InputError:  # a moment the record cannot place: the events say why
            return
        for panel in panels:
            widget = self.system_panels.get(panel.key)
            if widget is None:
                widget = self.system_panels[panel.key] = SystemPanel(panel.key, read_only=True)
                self.panel_tabs.addTab(widget, panel.title)
            widget.show_panel(panel)

    def _follow_row(self) -> None:
        row = self.session.index - 1
        self._syncing = True
        try:
            self.model.set_current(row)
            sm = self.table.selectionModel()
            if row < 0:
                sm.clear()
            else:
                idx = self.model.index(row, 0)
                sm.setCurrentIndex(idx, sm.SelectionFlag.ClearAndSelect | sm.SelectionFlag.Rows)
                self.table.scrollTo(idx, QAbstractItemView.ScrollHint.EnsureVisible)
        finally:
            self._syncing = False

    def _row_chosen(self, current: QModelIndex, previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        self.pause()
        self.go(current.row() + 1)

    def current_row(self) -> int:
        idx = self.table.selectionModel().currentIndex()
        return idx.row() if idx.isValid() else -1

    def _sync_boxes(self) -> None:
        st = self.session.state()
        i = self.turn_box.findData(st.turn)
        if i >= 0:
            self.turn_box.setCurrentIndex(i)
        best = -1
        for k, m in enumerate(self.session.phases()):
            if m.index < self.session.index:
                best = k
        if best >= 0:
            self.phase_box.setCurrentIndex(best)

    def _update_labels(self) -> None:
        s = self.session
        st = s.state()
        state = "playing" if self.playing else "paused"
        self.position_label.setText(
            f"event {s.index}/{len(s)} · {state} {self.speed:g}x")
        self.position_label.setToolTip(f"turn {st.turn}{' ' + st.phase if st.phase else ''}")

    def _update_details(self) -> None:
        s = self.session
        e = s.current_event()
        if e is None:
            text = (f"<b>start</b>: {len(s)} events over {clock(s.duration)}; press Space to play, ←/→ to step, "
                    "or choose an event")
        else:
            head = f"<b>event {e.seq}</b> · {clock(e.t)} · turn {e.turn}{' ' + e.phase if e.phase else ''}"
            if e.frame is not None:
                head += f" · frame {e.frame}"
            if e.undone:
                head += " · <i>undone</i>"
            body = s.describe_event(e)
            parts = [html.escape(p) for p in (body.split("; ") if e.type == "combat" else [body])]
            text = head + "<br>" + "<br>".join(parts)
        for n in s.notes_shown():
            d = n.event.data
            who = f" ({html.escape(shorten(d['by'], 80))})" if d.get("by") else ""
            text += (f"<br><span style='color:#1a7f37'>✎ note {clock(n.event.t)}{who}"
                     f"{' at ' + html.escape(s.public_name(n.event.piece, n.event)) if n.event.piece else ''}: "
                     f"{html.escape(shorten(d.get('text', ''), MAX_LABEL))}</span>")
        if s.problems:
            text += "<br><span style='color:#b00'>" + html.escape("; ".join(s.problems)) + "</span>"
        self.details.setText(text)
        dice = s.dice_photo()
        th = s.thumbnail() if dice is None else (s.current_event().seq, "dice", dice)
        if th is None:
            self.thumb.clear()
            self.thumb.setText("no table photo yet")
        else:
            seq, kind, jpeg = th
            img = QImage.fromData(jpeg, "JPG")
            if img.isNull():
                self.thumb.setText(f"table photo at event {seq}: unreadable")
            else:
                pm = QPixmap.fromImage(img)
                if pm.height() > 150 or pm.width() > 320:
                    pm = pm.scaled(320, 150, Qt.AspectRatioMode.KeepAspectRatio,
                                   Qt.TransformationMode.SmoothTransformation)
                self.thumb.setPixmap(pm)
                self.thumb.setToolTip(f"the dice the camera read for event {seq}, numbered in the order they were "
                                      "taken" if kind == "dice" else f"the table at event {seq} ({kind})")

    # ---- screenshots

    def ask_screenshot(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save screenshot", "replay.png", "PNG (*.png)")
        if path:
            self.save_screenshot(path)

    def save_screenshot(self, path: str | Path) -> Path:
        return save_widget_png(self, path)

    def closeEvent(self, event) -> None:
        self.pause()
        super().closeEvent(event)


# ---------------------------------------------------------------------------------------------- fieldglass replay


def show_replay(session, *, headless: bool, reason: str = "", at: int | None = None, select: str | None = None,
                screenshot: str | Path = "out/replay.png") -> int:
    """`fieldglass replay`'s window on `session` (built by fieldglass/commands/replay.py, which also closes its
    record): open at event `at` (seq; default the start, headless the end) with `select` selected. Headless (`reason`
    says why): print the timeline and the position, save a screenshot and return 0; else run until the window
    closes and return the event loop's code. A bad `at` or `select` raises InputError (one line)."""
    app = application()
    window = ReplayWindow(session)
    s = session
    try:
        if at is not None:
            s.seek_seq(int(at))
            window.go(s.index)
        elif headless:
            window.go(len(s))
        if select:
            s.select(select)
    except InputError:
        window.close()
        raise
    if headless:
        print(f"{reason}: running headless with QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM')}")
        window.resize(1600, 950)
        window.show()
        app.processEvents()
        window.board.fit()
        window._refresh()
        app.processEvents()
        print("\n".join(s.timeline_summary()))
        print("\n".join(s.position_lines()))
        if s.selected and s.in_position(s.selected):
            for r in s.targets():
                if r.fire or r.melee:
                    print(f"selected {s.selected} -> {r.target} {r.field} {r.distance} LE {r.weapon or 'melee'}")
        shot = window.save_screenshot(screenshot)
        print(f"screenshot: {shot}")
        window.close()
        return 0
    window.show()
    return int(app.exec())
