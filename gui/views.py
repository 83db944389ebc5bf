"""The live camera view and the rectified board view: the frame as a pixmap, every overlay a QGraphicsItem above it.

Both views draw the same overlays from the session through a `Mapper` (table mm -> scene coordinates): the live
view through the camera (lens distortion and marker heights included), the board view through a plain scale.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QImage,
    QPainter,
    QPainterPath,
    QPixmap,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
)

from calibration.projection import pixels_to_table, table_to_pixels
from common.errors import InputError
from common.fields import facing_bearing, field_name
from gui import picture
from gui.picture import KIND_KEY, PIECE_KEY, _path_lines, _pen, _polygon, _qp

SIDE_COLOURS = [QColor(80, 160, 255), QColor(255, 235, 120), QColor(255, 120, 200), QColor(140, 255, 160)]
SHADE_COLOURS = {
    "artillery": QColor(255, 170, 40, 60),
    "small_arms": QColor(80, 200, 255, 70),
    "melee": QColor(255, 80, 80, 80),
    "neighbour": QColor(255, 255, 255, 0),
    "side": QColor(200, 120, 255, 90),
}
TERRAIN_COLOURS = {"wood": QColor(30, 120, 40, 70), "town": QColor(170, 90, 40, 80), "water": QColor(40, 90, 220, 80),
                   "church": QColor(170, 90, 40, 80), "swamp": QColor(80, 110, 60, 80),
                   "mountain": QColor(120, 120, 120, 90), "road": QColor(200, 180, 120, 60)}
CLEAR = QColor(40, 230, 90)
BLOCKED = QColor(255, 50, 50)
PENDING = QColor(0, 230, 255)


def save_widget_png(widget, path) -> Path:
    """Save what `widget` shows as a PNG at `path` (folders made as needed); InputError if it cannot be written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not widget.grab().save(str(path), "PNG"):
        raise InputError(f"{path}: cannot write the screenshot")
    return path


def numpy_to_qimage(bgr: np.ndarray) -> QImage:
    """A BGR uint8 frame as a QImage that owns its pixels."""
    h, w = bgr.shape[:2]
    rgb = np.ascontiguousarray(bgr[..., ::-1])
    return QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()


# ---------------------------------------------------------------------------------------------- mappers


class LiveMapper:
    """Table mm -> camera frame pixels (scene: pixel centres at +0.5, the pixmap's convention)."""

    densify_mm = 30.0

    def __init__(self, camera, pose):
        self.camera, self.pose = camera, pose

    def points(self, xy: np.ndarray, z: float = 0.0) -> np.ndarray:
        xy = np.asarray(xy, float).reshape(-1, 2)
        if len(xy) == 0:
            return np.zeros((0, 2))
        pts = np.column_stack([xy, np.full(len(xy), float(z))])
        return table_to_pixels(pts, self.camera, self.pose) + 0.5

    def to_table(self, x: float, y: float) -> tuple[float, float] | None:
        p = pixels_to_table(np.array([[x - 0.5, y - 0.5]]), self.camera, self.pose, 0.0)[0]
        return None if not np.all(np.isfinite(p)) else (float(p[0]), float(p[1]))

    def mm_per_scene(self, x: float, y: float) -> float:
        a, b = self.points(np.array([[x, y], [x + 10.0, y]]))
        return 10.0 / max(float(np.hypot(*(b - a))), 1e-6)


class BoardMapper:
    """Table mm -> rectified board pixels, north (+y) up."""

    densify_mm = 0.0

    def __init__(self, layout, mm_per_px: float, margin_mm: float):
        self.layout, self.s, self.m = layout, float(mm_per_px), float(margin_mm)

    def points(self, xy: np.ndarray, z: float = 0.0) -> np.ndarray:
        xy = np.asarray(xy, float).reshape(-1, 2)
        return np.column_stack([(xy[:, 0] + self.m) / self.s, (self.layout.depth_mm + self.m - xy[:, 1]) / self.s])

    def to_table(self, x: float, y: float) -> tuple[float, float]:
        return x * self.s - self.m, self.layout.depth_mm + self.m - y * self.s

    def mm_per_scene(self, x: float, y: float) -> float:
        return self.s


def _field_square(grid, f, inset: float = 0.0) -> np.ndarray:
    x0 = grid.origin_x_mm + f[0] * grid.field_mm + inset
    y0 = grid.origin_y_mm + f[1] * grid.field_mm + inset
    s = grid.field_mm - 2 * inset
    return np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]])


def base_corners(x: float, y: float, heading_deg: float, base_mm) -> np.ndarray:
    w, d = base_mm
    h = math.radians(heading_deg)
    fwd = np.array([math.sin(h), math.cos(h)])
    right = np.array([math.cos(h), -math.sin(h)])
    c = np.array([x, y])
    return np.array([c + sx * w / 2 * right + sy * d / 2 * fwd for sx, sy in ((-1, 1), (1, 1), (1, -1), (-1, -1))])


# ---------------------------------------------------------------------------------------------- the view


class TableView(QGraphicsView):
    """A zoomable view of the table with overlays. Emits `pieceClicked(id, additive)` and `hovered(text)`."""

    pieceClicked = Signal(str, bool)
    backgroundClicked = Signal()
    hovered = Signal(str)

    def __init__(self, name: str, parent=None):
        super().__init__(parent)
        self.name = name
        self.setObjectName(name)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setMouseTracking(True)
        self.setBackgroundBrush(QColor(30, 30, 34))
        self.pixmap = QGraphicsPixmapItem()
        self.pixmap.setZValue(0)
        self.scene().addItem(self.pixmap)
        self.overlay: list[QGraphicsItem] = []
        self.mapper = None
        self.session = None
        self.show_grid = True
        self.show_labels = True
        self._fitted = False
        self._user_zoom = False
        self._hover_field = QGraphicsPolygonItem()
        self._hover_field.setPen(_pen(QColor(255, 255, 255), 2))
        self._hover_field.setZValue(9)
        self._hover_text = QGraphicsSimpleTextItem()
        self._hover_text.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self._hover_text.setBrush(QColor(255, 255, 255))
        self._hover_text.setZValue(10)
        font = QFont()
        font.setBold(True)
        self._hover_text.setFont(font)
        for it in (self._hover_field, self._hover_text):
            it.setVisible(False)
            self.scene().addItem(it)
        self.empty_text = QGraphicsSimpleTextItem("waiting for the first frame ...")
        self.empty_text.setBrush(QColor(220, 220, 220))
        self.scene().addItem(self.empty_text)

    # ---- content

    def set_image(self, image: QImage | None) -> None:
        if image is None:
            return
        first = self.pixmap.pixmap().isNull() or self.pixmap.pixmap().size() != image.size()
        self.pixmap.setPixmap(QPixmap.fromImage(image))
        self.empty_text.setVisible(False)
        self.scene().setSceneRect(QRectF(self.pixmap.boundingRect()))
        if first or not self._user_zoom:
            self.fit()

    def set_message(self, text: str) -> None:
        self.empty_text.setText(text)
        self.empty_text.setVisible(True)

    def fit(self) -> None:
        if not self.pixmap.pixmap().isNull():
            self.fitInView(self.pixmap, Qt.AspectRatioMode.KeepAspectRatio)
            self._user_zoom = False

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self._user_zoom:
            self.fit()

    def wheelEvent(self, event) -> None:
        factor = 1.25 if event.angleDelta().y() > 0 else 0.8
        self.scale(factor, factor)
        self._user_zoom = True

    def zoom(self, factor: float) -> None:
        self.scale(factor, factor)
        self._user_zoom = True

    # ---- picking and hover

    def piece_at(self, pos) -> str | None:
        for it in self.items(pos):
            pid = it.data(PIECE_KEY)
            while pid is None and it.parentItem() is not None:
                it = it.parentItem()
                pid = it.data(PIECE_KEY)
            if pid:
                return str(pid)
        return None

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            pid = self.piece_at(event.position().toPoint())
            if pid is not None:
                mods = event.modifiers()
                additive = bool(mods & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier))
                self.pieceClicked.emit(pid, additive)
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        if self.piece_at(event.position().toPoint()) is None:
            self.backgroundClicked.emit()
        super().mouseDoubleClickEvent(event)

    def mouseMoveEvent(self, event) -> None:
        super().mouseMoveEvent(event)
        self.hover_at(self.mapToScene(event.position().toPoint()))

    def hover_at(self, p: QPointF) -> str | None:
        """Outline and name the grid field under a scene point; returns the field name (None off the grid)."""
        s = self.session
        if s is None or self.mapper is None or s.layout.grid is None:
            return None
        mm = self.mapper.to_table(p.x(), p.y())
        grid = s.layout.grid
        cell = grid.field_at(*mm) if mm is not None else None
        if cell is None:
            self._hover_field.setVisible(False)
            self._hover_text.setVisible(False)
            return None
        name = field_name(*cell)
        text = name
        ground = s.ground.get("fields", {}).get(cell) if isinstance(s.ground, dict) else None
        if ground is not None:
            bits = [ground.terrain] if ground.terrain != "open" else []
            if ground.height:
                bits.append(f"height {ground.height}")
            text += f" ({', '.join(bits)})" if bits else ""
        occupants = s.position.occupants.get(cell, ()) if s.position is not None else ()
        if occupants:
            text += ": " + ", ".join(q.id for q in occupants)
        self._hover_field.setPolygon(_polygon(self.mapper, _field_square(grid, cell)))
        self._hover_field.setVisible(True)
        self._hover_text.setText(text)
        self._hover_text.setPos(p + QPointF(8, 8) * 1.0)
        self._hover_text.setVisible(True)
        self.hovered.emit(f"field {text}  ({mm[0]:.0f}, {mm[1]:.0f} mm)")
        return name

    # ---- overlays

    def clear_overlay(self) -> None:
        sc = self.scene()
        for it in self.overlay:
            sc.removeItem(it)
        self.overlay = []

    def _add(self, item: QGraphicsItem, z: float, kind: str) -> QGraphicsItem:
        item.setZValue(z)
        item.setData(KIND_KEY, kind)
        self.scene().addItem(item)
        self.overlay.append(item)
        return item

    def _text(self, text: str, at: np.ndarray, colour: QColor, z: float, kind: str, bold=False, size=8.0):
        """A label of constant screen size on a dark plate, its top-left at the scene point `at`."""
        plate = QGraphicsRectItem()
        plate.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        plate.setBrush(QColor(0, 0, 0, 150))
        plate.setPen(Qt.PenStyle.NoPen)
        item = QGraphicsSimpleTextItem(text, plate)
        item.setBrush(colour)
        font = QFont()
        font.setPointSizeF(size)
        font.setBold(bold)
        item.setFont(font)
        r = item.boundingRect()
        plate.setRect(QRectF(-2, -1, r.width() + 4, r.height() + 2))
        plate.setPos(float(at[0]), float(at[1]))
        plate.setToolTip(text)
        return self._add(plate, z, kind)

    def items_of(self, kind: str) -> list[QGraphicsItem]:
        return [it for it in self.overlay if it.data(KIND_KEY) == kind]

    def redraw(self) -> None:
        """Rebuild every overlay from the session (cheap: a few hundred items)."""
        self.clear_overlay()
        s = self.session
        if s is None or self.mapper is None:
            return
        grid = s.layout.grid
        if self.show_grid and grid is not None:
            self._draw_ground(grid)
            self._draw_grid(grid)
        self._draw_anchors()
        picture.draw(self, s.picture(live=isinstance(self.mapper, LiveMapper), labels=self.show_labels))

    def _draw_ground(self, grid) -> None:
        s = self.session
        fields = s.ground.get("fields", {}) if isinstance(s.ground, dict) else {}
        paths: dict[str, QPainterPath] = {}
        for f, st in fields.items():
            key = st.terrain if st.terrain != "open" else ("height" if st.height else None)
            if key is None:
                continue
            paths.setdefault(key, QPainterPath()).addPolygon(_polygon(self.mapper, _field_square(grid, f)))
        for key, path in paths.items():
            item = QGraphicsPathItem(path)
            colour = TERRAIN_COLOURS.get(key, QColor(160, 140, 90, 70))
            item.setBrush(colour)
            item.setPen(Qt.PenStyle.NoPen)
            if key == "height":
                item.setBrush(QBrush(QColor(200, 170, 90, 150), Qt.BrushStyle.BDiagPattern))
            self._add(item, 1, f"terrain:{key}")

    def _draw_grid(self, grid) -> None:
        xs = grid.origin_x_mm + grid.field_mm * np.arange(grid.cols + 1)
        ys = grid.origin_y_mm + grid.field_mm * np.arange(grid.rows + 1)
        segs = [[(x, ys[0]), (x, ys[-1])] for x in xs] + [[(xs[0], y), (xs[-1], y)] for y in ys]
        item = QGraphicsPathItem(_path_lines(self.mapper, segs))
        item.setPen(_pen(QColor(255, 255, 255, 70), 1.0))
        self._add(item, 2, "grid")
        if self.show_labels:
            step = 5
            for c in range(0, grid.cols, step):
                at = self.mapper.points(np.array([grid.field_centre(c, 0)]))[0]
                self._text(field_name(c, 0), at, QColor(230, 230, 230, 180), 2, "grid-label")
            for r in range(step - 1, grid.rows, step):
                at = self.mapper.points(np.array([grid.field_centre(0, r)]))[0]
                self._text(field_name(0, r), at, QColor(230, 230, 230, 180), 2, "grid-label")

    def _draw_anchors(self) -> None:
        s = self.session
        reading = s.reading
        used = set(reading.pose.anchors) if reading is not None and reading.pose is not None else set()
        seen = {m.id for m in reading.markers} if reading is not None else set()
        for a in s.layout.anchors:
            if a.id in used:
                colour, style, state = QColor(0, 220, 120), Qt.PenStyle.SolidLine, "used"
            elif a.id in seen:
                colour, style, state = QColor(255, 170, 0), Qt.PenStyle.SolidLine, "seen, not used"
            else:
                colour, style, state = QColor(255, 60, 60), Qt.PenStyle.DashLine, "not seen"
            poly = QGraphicsPolygonItem(_polygon(self.mapper, a.corners_mm()[:, :2]))
            poly.setPen(_pen(colour, 2, style))
            poly.setToolTip(f"anchor {a.id}: {state}")
            self._add(poly, 3, "anchor")
        if reading is not None:
            if reading.pose is None:
                text = "no table pose: fewer than 2 anchors seen"
            else:
                fresh = "" if len(used) else " (kept)"
                text = (f"pose from {len(used)}/{len(s.layout.anchors)} anchors, "
                        f"reprojection {reading.pose.reprojection_px:.2f} px{fresh}")
            rect = self.sceneRect()
            self._text(text, np.array([rect.left() + 6, rect.top() + 4]), QColor(255, 255, 255), 8, "pose-quality",
                       size=9.0)

    def _draw_selection(self, overlay, grid) -> None:
        for shade in overlay.shades:
            path = QPainterPath()
            for f in shade.fields:
                path.addPolygon(_polygon(self.mapper, _field_square(grid, f, 1.5)))
            item = QGraphicsPathItem(path)
            colour = SHADE_COLOURS.get(shade.kind, QColor(255, 255, 255, 50))
            item.setBrush(colour)
            if shade.kind in ("neighbour", "side"):
                edge = QColor(255, 255, 255, 160) if shade.kind == "neighbour" else QColor(200, 120, 255, 230)
                dotted = Qt.PenStyle.DotLine if shade.kind == "neighbour" else Qt.PenStyle.SolidLine
                item.setPen(_pen(edge, 1.5, dotted))
            else:
                item.setPen(Qt.PenStyle.NoPen)
            item.setToolTip(f"{shade.label}: {len(shade.fields)} fields")
            self._add(item, 1.5 if shade.kind not in ("neighbour", "side") else 4.5, f"shade:{shade.kind}")
        arc = overlay.arc
        if arc is not None and not arc.all_round:
            cx, cy = grid.field_centre(*arc.field)
            r = (arc.reach + 0.5) * grid.field_mm
            pts = [(cx, cy)]
            for b in np.linspace(arc.bearing_deg - arc.half_deg, arc.bearing_deg + arc.half_deg, 24):
                pts.append((cx + r * math.sin(math.radians(b)), cy + r * math.cos(math.radians(b))))
            item = QGraphicsPolygonItem(_polygon(self.mapper, np.array(pts)))
            item.setPen(_pen(QColor(255, 255, 255, 200), 1.5, Qt.PenStyle.DashLine))
            item.setBrush(Qt.BrushStyle.NoBrush)
            item.setToolTip("front arc: facing ±45° (§3.6)")
            self._add(item, 4, "arc")
        for line in overlay.lines:
            a = np.array([grid.field_centre(*line.start)])
            b = np.array([grid.field_centre(*line.end)])
            path = _path_lines(self.mapper, [np.vstack([a, b])])
            item = QGraphicsPathItem(path)
            colour = CLEAR if line.clear else BLOCKED
            style = Qt.PenStyle.DashLine if line.kind == "melee" else Qt.PenStyle.SolidLine
            item.setPen(_pen(colour, 2.5 if line.clear else 2.0, style))
            item.setToolTip(f"{line.kind} line to {line.target}" + (f": {line.reason}" if line.reason else ""))
            item.setData(PIECE_KEY, None)
            self._add(item, 5, "fire-line" if line.clear else "blocked-line")
            item.setData(2, line.target)
            for f in line.blockers:
                sq = _field_square(grid, f, 6.0)
                cross = QPainterPath()
                p = self.mapper.points(sq)
                cross.addPolygon(QPolygonF([_qp(p[0]), _qp(p[2])]))
                cross.addPolygon(QPolygonF([_qp(p[1]), _qp(p[3])]))
                mark = QGraphicsPathItem(cross)
                mark.setPen(_pen(BLOCKED, 2.5))
                box = QGraphicsPolygonItem(_polygon(self.mapper, _field_square(grid, f, 2.0)))
                box.setPen(_pen(BLOCKED, 2.0))
                box.setBrush(QColor(255, 40, 40, 60))
                box.setToolTip(f"blocks the line to {line.target}: {line.reason}")
                self._add(box, 5.5, "blocker")
                self._add(mark, 5.6, "blocker-cross")

    def _draw_pieces(self) -> None:
        """Each piece seen (or to be taken off): its base, facing arrow, label and any change waiting for it."""
        s = self.session
        sides = {side: i for i, side in enumerate(s.sides)}
        live = isinstance(self.mapper, LiveMapper)
        grid = s.layout.grid
        for v in s.piece_views():
            if v.pose is None or v.status == "removed" and v.pending is None:
                continue
            rp, pose = v.piece, v.pose
            z = rp.marker_height_mm if live else 0.0
            colour = QColor(SIDE_COLOURS[sides.get(rp.side, 0) % len(SIDE_COLOURS)])
            style = Qt.PenStyle.SolidLine
            if v.status == "occluded":
                colour, style = QColor(170, 170, 170), Qt.PenStyle.DashLine
            elif v.status == "ambiguous":
                style = Qt.PenStyle.DashDotLine
            selected = rp.id == s.selected
            second = rp.id == s.second
            c = np.array([pose.x_mm, pose.y_mm])
            self._draw_base(v, z, colour, style, selected, second)
            self._draw_facing(v, z, c, colour if not selected else QColor(255, 255, 255))
            if self.show_labels or selected or second:
                self._draw_label(v, z, c, selected or second)
            if v.pending is not None and grid is not None:
                self._draw_pending(v, grid, z, c)

    def _draw_base(self, v, z: float, colour: QColor, style, selected: bool, second: bool) -> None:
        """The base's outline (white when selected, magenta for the pair's second, thick for both), filled faintly in
        the side's colour; its tooltip says all the dashboard knows of the piece."""
        rp, pose = v.piece, v.pose
        width = 4.0 if selected or second else 2.0
        corners = base_corners(pose.x_mm, pose.y_mm, pose.heading_deg, rp.base_mm)
        poly = QGraphicsPolygonItem(_polygon(self.mapper, corners, z))
        poly.setPen(_pen(QColor(255, 255, 255) if selected else QColor(255, 0, 255) if second else colour,
                         width, style))
        fill = QColor(colour)
        fill.setAlpha(70 if v.status != "occluded" else 30)
        poly.setBrush(fill)
        poly.setData(PIECE_KEY, rp.id)
        state = v.state
        marks = "+".join(state.get("markers", ()) or ()) or "no markers"
        poly.setToolTip(f"{rp.id} ({rp.side} {v.type or rp.type}): {v.status}, field {pose.cell or 'off'} "
                        f"facing {pose.facing}, {state.get('formation') or ''} {state.get('bases', 1)} base(s), "
                        f"{marks}; {pose.x_mm:.0f}, {pose.y_mm:.0f} mm, heading {pose.heading_deg:.0f}°, "
                        f"{pose.edge_mm or 0:.1f} mm from a field edge")
        self._add(poly, 6, f"piece:{v.status}")

    def _draw_facing(self, v, z: float, c: np.ndarray, colour: QColor) -> None:
        """An arrow from the base's centre to beyond its front edge."""
        h = math.radians(v.pose.heading_deg)
        fwd = np.array([math.sin(h), math.cos(h)])
        tip = c + fwd * (v.piece.base_mm[1] / 2 + 14)
        left = tip - fwd * 9 + np.array([-fwd[1], fwd[0]]) * 6
        right = tip - fwd * 9 - np.array([-fwd[1], fwd[0]]) * 6
        pts = self.mapper.points(np.array([c, tip, left, right]), z)
        arrow = QPainterPath()
        arrow.moveTo(_qp(pts[0]))
        arrow.lineTo(_qp(pts[1]))
        arrow.moveTo(_qp(pts[2]))
        arrow.lineTo(_qp(pts[1]))
        arrow.lineTo(_qp(pts[3]))
        ai = QGraphicsPathItem(arrow)
        ai.setPen(_pen(colour, 2.0))
        ai.setData(PIECE_KEY, v.piece.id)
        self._add(ai, 6.5, "facing")

    def _draw_label(self, v, z: float, c: np.ndarray, emphasised: bool) -> None:
        """The piece's id above its base, with its field when selected or pending, an uncertain field, hidden,
        markers and bases; larger and bold for the selected pair."""
        rp, pose, state = v.piece, v.pose, v.state
        label = rp.id
        if emphasised or v.pending is not None:
            label += f" {pose.cell or 'off'}"
        if v.status == "ambiguous":  # on a field edge: the field is uncertain
            label += f" ?edge {pose.edge_mm:.0f}mm" if emphasised else "?"
        elif v.status == "occluded":
            label += " (hidden)"
        markers = state.get("markers") or ()
        if markers:
            label += " [" + "+".join(markers) + "]"
        if state.get("bases", 1) and state.get("bases", 1) > 1:
            label += f" x{state['bases']}"
        at = self.mapper.points(np.array([c + np.array([-rp.base_mm[0] / 2, -rp.base_mm[1] / 2 - 4])]), z)[0]
        tc = QColor(255, 255, 255) if v.status != "occluded" else QColor(190, 190, 190)
        if v.status == "ambiguous":
            tc = QColor(255, 190, 90)
        t = self._text(label, at, tc, 7 + emphasised, "label", bold=emphasised, size=8.5 if emphasised else 7.0)
        t.setData(PIECE_KEY, rp.id)

    def _draw_pending(self, v, grid, z, c) -> None:
        ch = v.pending
        if ch.removed:
            sq = base_corners(c[0], c[1], v.pose.heading_deg, (v.piece.base_mm[0] + 16, v.piece.base_mm[1] + 16))
            p = self.mapper.points(sq, z)
            path = QPainterPath()
            path.moveTo(_qp(p[0]))
            path.lineTo(_qp(p[2]))
            path.moveTo(_qp(p[1]))
            path.lineTo(_qp(p[3]))
            item = QGraphicsPathItem(path)
            item.setPen(_pen(BLOCKED, 4.0))
            item.setToolTip(ch.describe() + ("\n" + "\n".join(ch.why) if ch.why else ""))
            self._add(item, 8, "pending-remove")
            self._text("take off", self.mapper.points(np.array([c]), z)[0], BLOCKED, 8, "pending-label", bold=True)
            return
        gx, gy = grid.field_centre(*ch.field)
        ghost = base_corners(gx, gy, facing_bearing(ch.facing), v.piece.base_mm)
        item = QGraphicsPolygonItem(_polygon(self.mapper, ghost, z))
        item.setPen(_pen(PENDING, 2.5, Qt.PenStyle.DashLine))
        item.setBrush(QColor(0, 230, 255, 50))
        item.setToolTip(ch.describe() + ("\n" + "\n".join(ch.why) if ch.why else ""))
        self._add(item, 8, "pending-move")
        pts = self.mapper.points(np.array([c, (gx, gy)]), z)
        path = QPainterPath()
        path.moveTo(_qp(pts[0]))
        path.lineTo(_qp(pts[1]))
        line = QGraphicsPathItem(path)
        line.setPen(_pen(PENDING, 2.0, Qt.PenStyle.DotLine))
        self._add(line, 8, "pending-path")
        self._text(f"→ {field_name(*ch.field)} {ch.facing}", pts[1], PENDING, 8, "pending-label", bold=True)


class RectItem(QGraphicsRectItem):
    pass
