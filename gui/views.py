"""The live camera view and the rectified board view: the frame as a pixmap, every overlay a QGraphicsItem above it.

Both views draw the same overlays from the session through a `Mapper` (table mm -> scene coordinates): the live
view through the camera (lens distortion and marker heights included), the board view through a plain scale.
"""

from __future__ import annotations

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
from common.fields import field_name
from common.outfiles import output_file
from gui import picture
from gui.picture import KIND_KEY, PIECE_KEY, _path_lines, _pen, _polygon

SIDE_COLOURS = [QColor(80, 160, 255), QColor(255, 235, 120), QColor(255, 120, 200), QColor(140, 255, 160)]
TERRAIN_COLOURS = {"wood": QColor(30, 120, 40, 70), "town": QColor(170, 90, 40, 80), "water": QColor(40, 90, 220, 80),
                   "church": QColor(170, 90, 40, 80), "swamp": QColor(80, 110, 60, 80),
                   "mountain": QColor(120, 120, 120, 90), "road": QColor(200, 180, 120, 60)}
BLOCKED = QColor(255, 50, 50)


def save_widget_png(widget, path) -> Path:
    """Save what `widget` shows as a PNG at `path` (folders made as needed); InputError if it cannot be written."""
    path = Path(path)
    with output_file(path) as tmp:  # whole or not at all
        if not widget.grab().save(str(tmp), "PNG"):
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


class RectItem(QGraphicsRectItem):
    pass
