"""The live camera view and the rectified board view: the frame as a pixmap, every overlay a QGraphicsItem above it.

Both views draw the same overlays from the session through a `Mapper` (table mm -> scene coordinates): the live
view through the camera (lens distortion and marker heights included), the board view through a plain scale.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPixmap,
    QTransform,
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
from gui.picture import CACHE, KIND_KEY, PIECE_KEY, _path_lines, _pen, _polygon, label_plate, same, set_label
from rules.labels import Shape as LabelShape
from rules.picture import Label, LabelLayout, grid_labels, place_labels

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
    return _frame_image(bgr).copy()


def frame_pixmap(frame: np.ndarray) -> QPixmap:
    """A camera frame as a QPixmap. BGRA (4 channels: the capture worker's `FrameResult.shown`) is the screen's own
    32-bit pixel layout, handed over without a conversion: the pixmap may share the array's memory, so the caller
    keeps the array alive and unchanged while the pixmap is shown (`TableView.set_frame` does). BGR is converted
    once."""
    frame = np.ascontiguousarray(frame)
    h, w = frame.shape[:2]
    if frame.ndim == 3 and frame.shape[2] == 4:
        return QPixmap.fromImage(QImage(frame.data, w, h, frame.strides[0], QImage.Format.Format_RGB32))
    return QPixmap.fromImage(_frame_image(frame))


def _frame_image(bgr: np.ndarray) -> QImage:
    """A QImage over the frame's own pixels (Qt reads BGR as it is: no channel swap, no copy); the caller keeps the
    frame alive while the image is used."""
    bgr = np.ascontiguousarray(bgr)
    h, w = bgr.shape[:2]
    return QImage(bgr.data, w, h, bgr.strides[0], QImage.Format.Format_BGR888)


# ---------------------------------------------------------------------------------------------- mappers


class LiveMapper:
    """Table mm -> camera frame pixels (scene: pixel centres at +0.5, the pixmap's convention)."""

    densify_mm = 30.0

    def __init__(self, camera, pose):
        self.camera, self.pose = camera, pose
        # Equal keys project every point alike (the lens and the table pose); made once: asked several times a frame
        self._key = (np.asarray(camera.camera_matrix, float).tobytes(), np.asarray(camera.dist_coeffs, float).tobytes(),
                     np.asarray(pose.rvec, float).tobytes(), np.asarray(pose.tvec, float).tobytes())

    def points(self, xy: np.ndarray, z: float = 0.0) -> np.ndarray:
        xy = np.asarray(xy, float).reshape(-1, 2)
        if len(xy) == 0:
            return np.zeros((0, 2))
        pts = np.column_stack([xy, np.full(len(xy), float(z))])
        return table_to_pixels(pts, self.camera, self.pose) + 0.5

    def key(self) -> tuple:
        """Equal keys project every point alike (the lens and the table pose)."""
        return self._key

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

    def key(self) -> tuple:
        return (id(self.layout), self.layout.width_mm, self.layout.depth_mm, self.s, self.m)

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
    tableClicked = Signal(float, float)
    """In place mode (`place_mode`): a left click anywhere, as table mm (the table's plane under the click)."""
    hovered = Signal(str)
    painted = Signal(float)
    """Emitted after each repaint of the view, with its time.perf_counter(): what was drawn is on screen."""

    def __init__(self, name: str, parent=None):
        super().__init__(parent)
        self.name = name
        self.paints = 0  # repaints so far (the dashboard bench counts them)
        self._frame: np.ndarray | None = None  # the pixels the pixmap shows (it may share their memory)
        self._scene_size: tuple[float, float] | None = None  # what the image shows, in scene units
        self.setObjectName(name)
        self.setScene(QGraphicsScene(self))
        # overlay items move and change every frame: a spatial index costs more to keep than it saves
        self.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        # every item leaves the painter as it found it (Qt's own items do): no save and restore around each of the
        # few hundred overlay items painted every frame
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontSavePainterState)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setMouseTracking(True)
        self.setBackgroundBrush(QColor(30, 30, 34))
        self.pixmap = QGraphicsPixmapItem()
        self.pixmap.setZValue(0)
        self.scene().addItem(self.pixmap)
        self._static: list[QGraphicsItem] = []  # terrain, grid, grid labels
        self._static_inputs_drawn = None  # what they were drawn from
        self._kept: dict[tuple, tuple[QGraphicsItem, object]] = {}  # key -> (item, the data it was drawn from)
        self._transient: list[QGraphicsItem] = []
        self._seen: set[tuple] = set()
        self.drawn_picture = None  # (projection, items, each item's key) of the last picture drawn (gui.picture)
        self._init_labels()
        self.updates = 0  # kept items made or redrawn so far (a test reads it)
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

    def _init_labels(self) -> None:
        self._picture = None  # the last picture drawn (before its labels were placed)
        self.label_layout = LabelLayout()  # where its labels went, kept from one redraw to the next
        self._obstacles: tuple = (None, [])  # (view key, the anchors' and the caption's shapes)
        self._grid_label_items: tuple = (None, ())  # (what they were made for, the grid's coordinate labels)
        self._relabel_timer = QTimer(self)
        self._relabel_timer.setSingleShot(True)
        self._relabel_timer.timeout.connect(self._relabel)

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        self.paints += 1
        self.painted.emit(time.perf_counter())

    # ---- content

    def set_image(self, image: QImage | QPixmap | None, scene_size: tuple[float, float] | None = None) -> None:
        """Show `image` under the overlays. `scene_size` (width, height): the size of the picture it shows, in
        scene units (a camera frame's pixels), when the image is a smaller copy of it made for the screen."""
        if image is None:
            return
        size = scene_size or (float(image.width()), float(image.height()))
        first = self.pixmap.pixmap().isNull() or size != self._scene_size
        scale = size[0] / max(image.width(), 1)
        resized = scale != self.pixmap.scale()  # a copy made for another view size (the view resized, or zoomed)
        self.pixmap.setPixmap(image if isinstance(image, QPixmap) else QPixmap.fromImage(image))
        self.pixmap.setScale(scale)
        self._scene_size = size
        self.empty_text.setVisible(False)
        if first:  # a frame of the same size keeps the fit (fitting again would invalidate every item's cache)
            self.scene().setSceneRect(QRectF(0.0, 0.0, *size))
        if first or resized and not self._user_zoom:
            self.fit()

    def set_frame(self, frame: np.ndarray, scene_size: tuple[int, int] | None = None) -> None:
        """Show a camera frame (BGR, or BGRA shown without a copy: kept here as long as it is shown). `scene_size`:
        the camera frame's (width, height) when `frame` is a smaller copy of it made for the screen
        (`display_px`)."""
        self.set_image(frame_pixmap(frame), None if scene_size is None else (float(scene_size[0]),
                                                                           float(scene_size[1])))
        self._frame = frame  # after the pixmap that may share it is replaced: the old frame is free now

    def display_px(self) -> tuple[int, int] | None:
        """The screen pixels (width, height) the whole picture is shown in, for a frame made that small beforehand
        (vision.rectify.display_bgra); None while the user has zoomed (then every pixel may be wanted)."""
        if self._user_zoom or not self.isVisible():
            return None
        ratio = self.devicePixelRatioF()
        vp = self.viewport().size()
        return max(1, round(vp.width() * ratio)), max(1, round(vp.height() * ratio))

    def set_message(self, text: str) -> None:
        self.empty_text.setText(text)
        self.empty_text.setVisible(True)

    def fit(self) -> None:
        if not self.pixmap.pixmap().isNull():
            self.fitInView(self.pixmap, Qt.AspectRatioMode.KeepAspectRatio)
            k = self.pixmap.scale()
            if k != 1.0 and abs(self.transform().m11() * k - 1.0) < 0.03:
                # a copy made for the screen (display_px) drawn pixel for pixel: a plain copy, no resampling
                self.setTransform(QTransform.fromScale(1.0 / k, 1.0 / k))
                self.centerOn(self.pixmap)
            self._user_zoom = False
            self._relabel_timer.start(0)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self._user_zoom:
            self.fit()
        self._relabel_timer.start(0)

    def wheelEvent(self, event) -> None:
        factor = 1.25 if event.angleDelta().y() > 0 else 0.8
        self.zoom(factor)

    def zoom(self, factor: float) -> None:
        self.scale(factor, factor)
        self._user_zoom = True
        self._relabel_timer.start(0)  # labels thin out or come back with the zoom

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
        if event.button() == Qt.MouseButton.LeftButton and getattr(self, "place_mode", False):
            p = self.mapToScene(event.position().toPoint())
            mm = self.mapper.to_table(p.x(), p.y()) if self.mapper is not None else None
            if mm is not None:
                self.tableClicked.emit(float(mm[0]), float(mm[1]))
                event.accept()
                return
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
    #
    # Three kinds of overlay items. The static layers (terrain, grid and its labels) are drawn once and again only
    # when what they show changes (the mapper, the layout, the ground, the grid and label toggles). Every other item
    # the view draws itself (anchors, the pose line, the system's picture) is kept under a stable key - its kind,
    # its piece and its place among that piece's items of that kind - with the data it was drawn from: a redraw
    # leaves an item whose data is unchanged alone, re-paths an item whose data changed, and adds or removes only
    # the difference, so a frame with one piece moved touches only that piece's items. Items a subclass adds in
    # its own redraw (`_add`, `_text`: the replay's lines and notes) are transient: rebuilt on every redraw.

    @property
    def overlay(self) -> list[QGraphicsItem]:
        """Every overlay item: the static layers, the kept items, the transient ones."""
        return [*self._static, *(slot[0] for slot in self._kept.values()), *self._transient]

    def clear_overlay(self) -> None:
        """Remove the transient items (the kept and static ones are updated by `redraw`)."""
        sc = self.scene()
        for it in self._transient:
            sc.removeItem(it)
        self._transient = []

    def _add(self, item: QGraphicsItem, z: float, kind: str, into: list | None = None) -> QGraphicsItem:
        item.setZValue(z)
        item.setData(KIND_KEY, kind)
        item.setCacheMode(CACHE)
        self.scene().addItem(item)
        (self._transient if into is None else into).append(item)
        return item

    def _text(self, text: str, at: np.ndarray, colour: QColor, z: float, kind: str, bold=False, size=8.0,
              into: list | None = None):
        """A label of constant screen size on a dark plate, its top-left at the scene point `at`."""
        plate = label_plate()
        set_label(plate, text, at, colour, bold, size)
        return self._add(plate, z, kind, into)

    def keep(self, key: tuple, data, make, apply) -> QGraphicsItem:
        """The kept item under `key`: made by `make()` the first time, (re)drawn by `apply(item)` when `data` (what
        it is drawn from, compared with ==) differs from the last redraw's, else left as it is."""
        self._seen.add(key)
        slot = self._kept.get(key)
        if slot is None:
            item = make()
            item.setCacheMode(CACHE)
            self.scene().addItem(item)
            apply(item)
            self._kept[key] = (item, data)
            self.updates += 1
            return item
        if not same(slot[1], data):
            apply(slot[0])
            self._kept[key] = (slot[0], data)
            self.updates += 1
        return slot[0]

    def _prune(self) -> None:
        """Remove the kept items this redraw did not keep."""
        sc = self.scene()
        for key in [k for k in self._kept if k not in self._seen]:
            sc.removeItem(self._kept.pop(key)[0])

    def kept_slots(self) -> dict[tuple, tuple[QGraphicsItem, object]]:
        """The kept items with the data each was drawn from, by key (read by gui.picture.draw)."""
        return self._kept

    def seen_keys(self) -> set[tuple]:
        """The keys this redraw keeps so far (the rest are removed at its end)."""
        return self._seen

    def items_of(self, kind: str) -> list[QGraphicsItem]:
        return [it for it in self.overlay if it.data(KIND_KEY) == kind]

    def kept_items(self) -> dict[tuple, QGraphicsItem]:
        """The kept items by key (kind, piece, n, shape): what a redraw updates in place."""
        return {key: slot[0] for key, slot in self._kept.items()}

    def mapper_key(self):
        """What the mapper's projection depends on (equal keys map every point alike); None without a mapper."""
        m = self.mapper
        return None if m is None else (m.key() if hasattr(m, "key") else id(m))

    def wants_picture(self) -> tuple[bool, bool] | None:
        """What `redraw` draws the session's picture with, (live, labels); None when it draws none (no mapper)."""
        if self.session is None or self.mapper is None:
            return None
        return isinstance(self.mapper, LiveMapper), self.show_labels

    def redraw(self, pic: tuple | None = None) -> None:
        """Bring the overlays up to date with the session: static layers when their inputs changed, kept items where
        their data changed, transient items anew. `pic`: the session's picture for `wants_picture()`, when the
        caller has it already."""
        self.clear_overlay()
        self._seen = set()
        s = self.session
        if s is None or self.mapper is None:
            self._sync_static(None)
            self._prune()
            return
        mkey = self.mapper_key()
        self._sync_static(mkey)
        self._draw_anchors()
        if pic is None:
            pic = s.picture(*self.wants_picture())
        self._picture = pic
        rect = self.sceneRect()
        picture.draw(self, self.placed(pic), (mkey, rect.left(), rect.top()))
        self._prune()

    # ---- labels: placed for the view as it is on the screen (rules/labels.py), again when it is zoomed or moved

    def screen_scale(self) -> tuple[float, float]:
        """Screen px per scene unit (the view's zoom), along x and y."""
        t = self.transform()
        return float(t.m11()), float(t.m22())

    def placed(self, pic: tuple) -> tuple:
        """`pic` with the grid's coordinates added and every label placed where it covers no other label, no piece,
        no anchor and no caption, inside the part of the view on the screen (rules.picture.place_labels). Screen
        px here are scene units times the zoom, without the scroll: scrolling moves every label alike."""
        mapper, (sx, sy) = self.mapper, self.screen_scale()
        grid = self.session.layout.grid
        if grid is not None and self.show_grid and self.show_labels:
            pic = (*pic, *self._grid_labels(grid, sx))
        if not any(isinstance(it, Label) for it in pic):
            return pic

        def to_px(xy, z=0.0):
            return mapper.points(xy, z) * np.array([sx, sy])

        if self.isVisible():
            vis = self.mapToScene(self.viewport().rect()).boundingRect()
            bounds = (vis.left() * sx, vis.top() * sy, vis.right() * sx, vis.bottom() * sy)
        else:  # a view not on the screen (a hidden panel, a test's own): no edge to keep inside
            bounds = (-1e9, -1e9, 1e9, 1e9)
        key = (self.mapper_key(), sx, sy)
        return place_labels(pic, to_px, picture.measure, bounds, self._label_obstacles(key, to_px),
                            layout=self.label_layout, view_key=key)

    def _grid_labels(self, grid, sx: float) -> tuple:
        """The grid's letters and numbers for the zoom: the very same items while it stays (placed as unchanged)."""
        key = (id(grid), self.mapper_key(), sx)
        if self._grid_label_items[0] != key:
            self._grid_label_items = (key, tuple(grid_labels(grid, self._field_px(grid, sx))))
        return self._grid_label_items[1]

    def _field_px(self, grid, sx: float) -> float:
        """A grid field's width on the screen, along the grid's south edge."""
        a, b = self.mapper.points(np.array([[grid.origin_x_mm, grid.origin_y_mm],
                                            [grid.origin_x_mm + grid.field_mm, grid.origin_y_mm]]))
        return float(np.hypot(*(b - a))) * sx

    def _label_obstacles(self, key, to_px) -> list:
        """What the view draws besides the picture, as the label placer's shapes: the anchors, the pose caption."""
        if self._obstacles[0] == key:
            return self._obstacles[1]
        shapes = []
        for a in self.session.layout.anchors:
            px = to_px(a.corners_mm()[:, :2])
            if np.all(np.isfinite(px)):
                shapes.append(LabelShape(px.tolist()))
        quality = self._kept.get(("pose-quality",))
        if quality is not None:
            plate = quality[0]
            sx, sy = key[1], key[2]
            r = plate.rect()
            x, y = plate.pos().x() * sx, plate.pos().y() * sy
            shapes.append(LabelShape(box=(x, y, x + r.width(), y + r.height())))
        self._obstacles = (key, shapes)
        return shapes

    def _relabel(self) -> None:
        """Place the labels again for the view as it is now (zoomed, scrolled, resized)."""
        if self._picture is not None and self.session is not None and self.mapper is not None:
            self.redraw(self._picture)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self._relabel_timer.start(120)  # once the scrolling stops: what came into view gets its labels

    def _static_inputs(self, mkey) -> tuple | None:
        s = self.session
        if mkey is None or s is None or not self.show_grid or s.layout.grid is None:
            return None
        fields = s.ground.get("fields", {}) if isinstance(s.ground, dict) else {}
        ground = tuple(sorted((f, st.terrain, st.height) for f, st in fields.items()))
        return (mkey, id(s.layout), ground, self.show_labels)

    def _sync_static(self, mkey) -> None:
        """Draw the terrain, the grid and its labels again only when what they show changed."""
        inputs = self._static_inputs(mkey)
        if inputs == self._static_inputs_drawn:
            return
        sc = self.scene()
        for it in self._static:
            sc.removeItem(it)
        self._static = []
        self._static_inputs_drawn = inputs
        if inputs is not None:
            grid = self.session.layout.grid
            self._draw_ground(grid)
            self._draw_grid(grid)

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
            self._add(item, 1, f"terrain:{key}", self._static)

    def _draw_grid(self, grid) -> None:
        xs = grid.origin_x_mm + grid.field_mm * np.arange(grid.cols + 1)
        ys = grid.origin_y_mm + grid.field_mm * np.arange(grid.rows + 1)
        segs = [[(x, ys[0]), (x, ys[-1])] for x in xs] + [[(xs[0], y), (xs[-1], y)] for y in ys]
        item = QGraphicsPathItem(_path_lines(self.mapper, segs))
        item.setPen(_pen(QColor(255, 255, 255, 70), 1.0))
        self._add(item, 2, "grid", self._static)

    def _draw_anchors(self) -> None:
        s = self.session
        reading = s.reading
        used = set(reading.pose.anchors) if reading is not None and reading.pose is not None else set()
        seen = {m.id for m in reading.markers} if reading is not None else set()
        mkey = self.mapper_key()
        for a in s.layout.anchors:
            state = "used" if a.id in used else "seen, not used" if a.id in seen else "not seen"
            self.keep(("anchor", a.id), (mkey, a, state), QGraphicsPolygonItem,
                      lambda item, a=a, state=state: self._set_anchor(item, a, state))
        if reading is not None:
            if reading.pose is None:
                text = "no table pose: fewer than 2 anchors seen"
            else:
                fresh = "" if len(used) else " (kept)"
                text = (f"pose from {len(used)}/{len(s.layout.anchors)} anchors, "
                        f"reprojection {reading.pose.reprojection_px:.2f} px{fresh}")
            rect = self.sceneRect()
            at = np.array([rect.left() + 6, rect.top() + 4])
            room = max(80, self.viewport().width() - 16)  # a narrow view: the caption elided, never clipped
            shown = QFontMetricsF(picture.label_font(9.0, False)).elidedText(text, Qt.TextElideMode.ElideRight, room)

            def apply(plate):
                set_label(plate, shown, at, QColor(255, 255, 255), False, 9.0)
                plate.setToolTip(text)
                plate.setZValue(8)
                plate.setData(KIND_KEY, "pose-quality")

            self.keep(("pose-quality",), (shown, float(at[0]), float(at[1])), label_plate, apply)

    def _set_anchor(self, poly: QGraphicsPolygonItem, a, state: str) -> None:
        colour, style = ANCHOR_LOOKS[state]
        poly.setPolygon(_polygon(self.mapper, a.corners_mm()[:, :2]))
        poly.setPen(_pen(colour, 2, style))
        poly.setToolTip(f"anchor {a.id}: {state}")
        poly.setZValue(3)
        poly.setData(KIND_KEY, "anchor")


ANCHOR_LOOKS = {"used": (QColor(0, 220, 120), Qt.PenStyle.SolidLine),
                "seen, not used": (QColor(255, 170, 0), Qt.PenStyle.SolidLine),
                "not seen": (QColor(255, 60, 60), Qt.PenStyle.DashLine)}
"""An anchor's outline by what the last reading made of it."""


class RectItem(QGraphicsRectItem):
    pass
