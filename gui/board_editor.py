"""The board editor (Tools > Board editor...): digitise a printed board from a photograph or the live camera.

Rectify the image from the board's anchor stickers (a homography from their detected corners to board mm), draw and
name area polygons over it (clicks add corners, snapped to existing corners so neighbouring areas share their
border; double-click, Enter or "Close area" finishes), mark approaches (click inside an area near the border with a
neighbour: that area's approach toward the neighbour, narrow or wide; "Pair borders" adds both approaches of every
shared border), roads (click the areas in road order, then "Finish road"), edit the areas' and approaches'
attributes in the tables, validate with rules/board.py's validator (every area reachable, approaches paired across
shared borders, no overlaps) and save TOML (rules.board.board_to_toml). Open an existing board file to edit it.

`BoardDraft` is the editor's Qt-free model (TOML-shaped records); the widget only draws it and edits it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QImage, QKeySequence, QPainter, QPen, QPixmap, QPolygonF, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGraphicsPolygonItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from calibration.board import TurnedAnchor, rectify_board_image
from calibration.layout import TableLayout
from common.errors import InputError
from gui.models import RecordsModel
from rules.board import (
    APPROACH_COUNTS,
    APPROACH_FLAGS,
    Board,
    board_to_toml,
    distance_to_outline,
    load_board,
    parse_board,
    points_in_polygon,
    shared_border_mm,
    validate_board,
)
from vision.markers import detect_markers
from vision.sources import read_image

SNAP_MM = 8.0
"""A click this close to an existing corner (or the board's edge) lands on it: neighbours share exact borders."""


# ---------------------------------------------------------------------------------------------- the model


class BoardDraft:
    """A board being edited, as TOML-shaped records: header, anchors, areas, approaches (one per side), roads."""

    def __init__(self, name: str = "my board", width_mm: float = 720.0, depth_mm: float = 400.0,
                 dictionary: str = "DICT_4X4_250"):
        self.header = {"name": name, "width_mm": float(width_mm), "depth_mm": float(depth_mm),
                       "approach_depth_mm": 30.0, "border_mm": 4.0}
        self.dictionary = dictionary
        inset = 25.0
        self.anchors = [{"id": 100 + i, "x_mm": x, "y_mm": y, "size_mm": 30.0, "heading_deg": 0.0}
                        for i, (x, y) in enumerate(((inset, inset), (width_mm - inset, inset),
                                                    (width_mm - inset, depth_mm - inset), (inset, depth_mm - inset)))]
        self.areas: list[dict] = []
        self.approaches: list[dict] = []
        self.roads: list[dict] = []
        self.extra: dict = {}  # boxes, arrows, pontoon, connections: kept as they were read

    # ---- from and to a Board

    @classmethod
    def from_board(cls, board: Board) -> BoardDraft:
        d = cls(board.name, board.width_mm, board.depth_mm, board.dictionary)
        d.header.update(approach_depth_mm=board.approach_depth_mm, border_mm=board.border_mm)
        d.anchors = [{"id": a.id, "x_mm": a.x_mm, "y_mm": a.y_mm, "size_mm": a.size_mm, "heading_deg": a.heading_deg}
                     for a in board.anchors]
        d.areas = [{"id": a.id, "name": a.name, "polygon": [list(map(float, p)) for p in np.asarray(a.polygon)],
                    "capacity": a.capacity or 0, "start_positions": a.start_positions,
                    "beyond_objective": a.beyond_objective} for a in board.areas.values()]
        d.approaches = [{"area": ap.area, "to": ap.to, "width": ap.width,
                         **{k: getattr(ap, k) for k in (*APPROACH_COUNTS, *APPROACH_FLAGS)}}
                        for ap in board.approaches.values()]
        d.roads = [{"id": r.id, "class": r.road_class, "areas": list(r.areas)} for r in board.roads]
        d.extra = {"box": [{"id": b.id, "side": b.side, "round": b.round, "entry_area": b.entry_area}
                           for b in board.boxes.values()],
                   "arrow": [{"from": f, "to": t} for f, t in sorted(board.arrows)],
                   "connection": [{"areas": [c.a, c.b], "kind": c.kind} for c in board.connections]}
        if board.pontoon_area:
            d.extra["pontoon"] = {"area": board.pontoon_area}
        return d

    def to_data(self) -> dict:
        areas = []
        for a in self.areas:
            rec = {"id": str(a["id"]), "name": str(a.get("name") or a["id"]), "polygon": a["polygon"]}
            if int(a.get("capacity") or 0) > 0:
                rec["capacity"] = int(a["capacity"])
            if int(a.get("start_positions") or 0) > 0:
                rec["start_positions"] = int(a["start_positions"])
            if a.get("beyond_objective") in (True, "true", "yes", 1):
                rec["beyond_objective"] = True
            areas.append(rec)
        approaches = []
        for ap in self.approaches:
            rec = {"area": str(ap["area"]), "to": str(ap["to"]), "width": ap.get("width") or "narrow"}
            for k in APPROACH_COUNTS:
                if int(ap.get(k) or 0):
                    rec[k] = int(ap[k])
            for k in APPROACH_FLAGS:
                if ap.get(k) in (True, "true", "yes", 1):
                    rec[k] = True
            approaches.append(rec)
        data = {"board": dict(self.header), "markers": {"dictionary": self.dictionary},
                "anchor": [dict(a, id=int(a["id"])) for a in self.anchors], "area": areas, "approach": approaches,
                "road": [dict(r) for r in self.roads if len(r["areas"]) >= 2]}
        data.update({k: v for k, v in self.extra.items() if v})
        return data

    def board(self) -> Board:
        """The draft as a Board (not validated); InputError for what cannot even be read (no areas, bad values)."""
        return parse_board(self.to_data(), "board editor", validate=False)

    def validate(self) -> list[str]:
        """rules/board.py's validator: every area reachable, approaches paired, no overlaps..."""
        try:
            return validate_board(self.board())
        except InputError as exc:
            return [str(exc)]

    def toml(self) -> str:
        return board_to_toml(self.board())

    def save(self, path: str | Path) -> Path:
        """Write the board's TOML; InputError when it does not validate (nothing is written)."""
        problems = self.validate()
        if problems:
            raise InputError(f"the board does not validate: {problems[0]}"
                             + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        path = Path(path)
        try:
            path.write_text(self.toml(), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
        return path

    # ---- editing

    def next_area_id(self) -> str:
        used = {a["id"] for a in self.areas}
        n = 1
        while str(n) in used:
            n += 1
        return str(n)

    def snap(self, x: float, y: float, tol: float = SNAP_MM) -> tuple[float, float]:
        """An existing corner within `tol`, else the board edge within `tol` (per axis), else the point."""
        best, dist = None, tol
        for a in self.areas:
            for px, py in a["polygon"]:
                d = float(np.hypot(px - x, py - y))
                if d <= dist:
                    best, dist = (float(px), float(py)), d
        if best is not None:
            return best
        w, h = self.header["width_mm"], self.header["depth_mm"]
        x = 0.0 if abs(x) <= tol else w if abs(x - w) <= tol else x
        y = 0.0 if abs(y) <= tol else h if abs(y - h) <= tol else y
        return round(x, 1), round(y, 1)

    def add_area(self, polygon, area_id: str | None = None, name: str | None = None, **attrs) -> dict:
        area_id = area_id or self.next_area_id()
        if any(a["id"] == area_id for a in self.areas):
            raise InputError(f"area {area_id} exists already")
        pts = [[float(x), float(y)] for x, y in polygon]
        if len(pts) < 3:
            raise InputError("an area needs at least 3 corners")
        rec = {"id": area_id, "name": name or area_id, "polygon": pts, "capacity": 0, "start_positions": 0,
               "beyond_objective": False, **attrs}
        self.areas.append(rec)
        return rec

    def remove_area(self, area_id: str) -> None:
        self.areas = [a for a in self.areas if a["id"] != area_id]
        self.approaches = [ap for ap in self.approaches if area_id not in (ap["area"], ap["to"])]
        for r in self.roads:
            r["areas"] = [x for x in r["areas"] if x != area_id]

    def area_at(self, x: float, y: float) -> str | None:
        """The first area whose polygon holds the board point (x, y mm), its outline included."""
        pt = np.array([[float(x), float(y)]])
        for a in self.areas:
            poly = np.asarray(a["polygon"], float)
            if points_in_polygon(pt, poly)[0] or distance_to_outline(pt, poly)[0] <= 1e-6:
                return a["id"]
        return None

    def neighbours(self, area_id: str) -> list[str]:
        """Areas sharing a border (not just a corner) with `area_id`."""
        me = next(a for a in self.areas if a["id"] == area_id)
        tol = self.header["border_mm"]
        out = []
        for a in self.areas:
            mine, theirs = np.asarray(me["polygon"], float), np.asarray(a["polygon"], float)
            if a["id"] != area_id and shared_border_mm(mine, theirs, tol) >= max(5.0, 3 * tol):
                out.append(a["id"])
        return out

    def nearest_neighbour(self, area_id: str, x: float, y: float) -> str | None:
        """The neighbour whose outline is nearest to a point inside `area_id` (the border the user clicked near)."""
        best, dist = None, float("inf")
        for nb in self.neighbours(area_id):
            poly = np.asarray(next(a for a in self.areas if a["id"] == nb)["polygon"], float)
            d = float(distance_to_outline(np.array([[x, y]]), poly)[0])
            if d < dist:
                best, dist = nb, d
        return best

    def approach(self, area: str, to: str) -> dict | None:
        return next((ap for ap in self.approaches if ap["area"] == area and ap["to"] == to), None)

    def set_approach(self, area: str, to: str, width: str = "narrow", **attrs) -> dict:
        ap = self.approach(area, to)
        if ap is None:
            ap = {"area": area, "to": to, "width": width, **{k: 0 for k in APPROACH_COUNTS},
                  **{k: False for k in APPROACH_FLAGS}}
            self.approaches.append(ap)
        ap["width"] = width
        ap.update(attrs)
        return ap

    def remove_approach(self, area: str, to: str) -> None:
        self.approaches = [ap for ap in self.approaches if not (ap["area"] == area and ap["to"] == to)]

    def pair_borders(self, width: str = "narrow") -> int:
        """Both approaches on every shared border (an existing side's width is copied to a missing one)."""
        n = 0
        for a in self.areas:
            for nb in self.neighbours(a["id"]):
                if self.approach(a["id"], nb) is None:
                    other = self.approach(nb, a["id"])
                    self.set_approach(a["id"], nb, other["width"] if other else width)
                    n += 1
        return n

    def add_road(self, areas: list[str], road_class: str = "main", road_id: str | None = None) -> dict:
        if len(areas) < 2:
            raise InputError("a road runs through at least 2 areas")
        rid = road_id or f"road-{len(self.roads) + 1}"
        rec = {"id": rid, "class": road_class, "areas": list(areas)}
        self.roads.append(rec)
        return rec


# ---------------------------------------------------------------------------------------------- rectifying


def rectify(image: np.ndarray, draft: BoardDraft, px_per_mm: float) -> tuple[np.ndarray | None, str]:
    """The image seen straight from above in board mm (north up), from the board anchors found in it.

    The markers are found by vision/, the homography from their corners to board mm is calibration/board.py's
    `rectify_board_image` (at least 2 anchors: 8 corners; a flat board needs no lens model for this). Returns
    (image or None, a one-line report)."""
    found = {m.id: m.corners for m in detect_markers(image, draft.dictionary)}
    anchors = tuple(TurnedAnchor(int(a["id"]), float(a["x_mm"]), float(a["y_mm"]), float(a["size_mm"]),
                                 float(a.get("heading_deg", 0.0))) for a in draft.anchors)
    ids = sorted(a.id for a in anchors)
    layout = TableLayout(draft.header["width_mm"], draft.header["depth_mm"], draft.dictionary, anchors)
    out, used, rms = rectify_board_image(image, found, layout, px_per_mm)
    if len(used) < 2:
        return None, (f"found {len(used)} of the board's {len(ids)} anchors "
                      f"({', '.join(map(str, ids))}): 2 are needed to rectify")
    if out is None:
        return None, "the anchors' corners give no rectification"
    return out, f"rectified from anchors {', '.join(map(str, used))} (corner RMS {rms:.2f} mm)"


# ---------------------------------------------------------------------------------------------- the widget


class _Canvas(QGraphicsView):
    clicked = Signal(float, float, bool)  # board mm, double click
    finished = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        self.setBackgroundBrush(QColor(30, 30, 34))
        self.to_mm = None

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.to_mm is not None:
            p = self.mapToScene(event.position().toPoint())
            self.clicked.emit(*self.to_mm(p.x(), p.y()), False)
            return
        if event.button() == Qt.MouseButton.RightButton:
            self.finished.emit()
            return
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        self.finished.emit()

    def wheelEvent(self, event) -> None:
        f = 1.25 if event.angleDelta().y() > 0 else 0.8
        self.scale(f, f)


class BoardEditor(QMainWindow):
    """Draw a board's areas, approaches and roads over its rectified image; validate; save TOML."""

    MODES = ("area", "approach", "road", "select")

    def __init__(self, board: Board | None = None, frame=None, path: str | None = None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Fieldglass — board editor")
        self.setObjectName("board-editor")
        self.draft = BoardDraft.from_board(board) if board is not None else BoardDraft()
        self.path = path
        self.frame = frame  # (BGR image, camera) from the dashboard, or None
        self.px_per_mm = 2.0
        self.image: np.ndarray | None = None
        self.points: list[tuple[float, float]] = []
        self.road: list[str] = []
        self.mode = "area"
        self.problems: list[str] = []

        self._build_canvas()
        side = QWidget()
        lay = QVBoxLayout(side)
        lay.addLayout(self._build_file_buttons())
        lay.addLayout(self._build_header_form())
        lay.addLayout(self._build_mode_buttons())
        lay.addLayout(self._build_area_row())
        lay.addLayout(self._build_approach_road_row())
        self._build_tables(lay)
        lay.addLayout(self._build_edit_buttons())
        self.report = QPlainTextEdit()
        self.report.setReadOnly(True)
        self.report.setObjectName("board-editor-report")
        self.report.setMaximumHeight(130)
        lay.addWidget(self.report)
        split = QSplitter()
        split.addWidget(self.canvas)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.setCentralWidget(split)
        QShortcut(QKeySequence("Return"), self, self.finish)
        QShortcut(QKeySequence("Backspace"), self, self.undo_point)
        self.resize(1400, 800)
        self.say("Area mode: click the corners of an area (they snap to existing corners), double-click or Enter "
                 "to close it. Approach mode: click inside an area near a border. Road mode: click areas in order.")
        if frame is not None:
            self.use_frame()
        self.refresh()

    # ---- building the window

    def _build_canvas(self) -> None:
        """The drawing canvas: clicks add corners (in board mm), a right or double click finishes; the image under."""
        self.canvas = _Canvas()
        self.canvas.to_mm = self._to_mm
        self.canvas.clicked.connect(self.click)
        self.canvas.finished.connect(self.finish)
        self.pixmap = self.canvas.scene().addPixmap(QPixmap())
        self.pixmap.setZValue(0)
        self.items = []

    def _build_file_buttons(self) -> QHBoxLayout:
        files = QHBoxLayout()
        for text, slot in (("Open board...", self.ask_open), ("Save board...", self.ask_save),
                           ("Open photo...", self.ask_photo), ("Use current frame", self.use_frame)):
            b = QPushButton(text)
            b.clicked.connect(slot)
            files.addWidget(b)
        return files

    def _build_header_form(self) -> QFormLayout:
        """The board's name and size, written through to the draft's header."""
        head = QFormLayout()
        self.name = QLineEdit(self.draft.header["name"])
        self.name.textChanged.connect(lambda t: self.draft.header.__setitem__("name", t))
        self.width_mm = QDoubleSpinBox()
        self.depth_mm = QDoubleSpinBox()
        for w, key in ((self.width_mm, "width_mm"), (self.depth_mm, "depth_mm")):
            w.setRange(50, 3000)
            w.setValue(self.draft.header[key])
            w.setSuffix(" mm")
            w.valueChanged.connect(lambda v, k=key: self._size(k, v))
        head.addRow("name", self.name)
        size = QHBoxLayout()
        size.addWidget(self.width_mm)
        size.addWidget(QLabel("x"))
        size.addWidget(self.depth_mm)
        head.addRow("size", size)
        return head

    def _build_mode_buttons(self) -> QHBoxLayout:
        """One checkable button per drawing mode."""
        modes = QHBoxLayout()
        self.mode_buttons = QButtonGroup(self)
        for m in self.MODES:
            b = QPushButton(m.capitalize())
            b.setCheckable(True)
            b.setChecked(m == self.mode)
            b.clicked.connect(lambda _=False, mm=m: self.set_mode(mm))
            self.mode_buttons.addButton(b)
            modes.addWidget(b)
        return modes

    def _build_area_row(self) -> QHBoxLayout:
        """The next area's id and name, and the button that closes its outline."""
        row = QHBoxLayout()
        self.area_id = QLineEdit()
        self.area_id.setPlaceholderText("new area id (empty: next number)")
        self.area_name = QLineEdit()
        self.area_name.setPlaceholderText("name")
        close = QPushButton("Close area")
        close.clicked.connect(self.finish)
        row.addWidget(self.area_id)
        row.addWidget(self.area_name)
        row.addWidget(close)
        return row

    def _build_approach_road_row(self) -> QHBoxLayout:
        """An approach's width (or remove), pairing the borders, a road's class and finishing it."""
        row = QHBoxLayout()
        self.width_choice = QComboBox()
        self.width_choice.addItems(["narrow", "wide", "remove"])
        self.road_class = QComboBox()
        self.road_class.addItems(["main", "secondary"])
        pair = QPushButton("Pair borders")
        pair.setToolTip("add the missing approach on every shared border (width copied from the other side)")
        pair.clicked.connect(self.pair_borders)
        finish_road = QPushButton("Finish road")
        finish_road.clicked.connect(self.finish_road)
        row.addWidget(QLabel("approach"))
        row.addWidget(self.width_choice)
        row.addWidget(pair)
        row.addWidget(QLabel("road"))
        row.addWidget(self.road_class)
        row.addWidget(finish_road)
        return row

    def _build_tables(self, lay: QVBoxLayout) -> None:
        """The editable tables of areas and approaches, each edit written back to the draft."""
        self.areas_model = RecordsModel([("id", str), ("name", str), ("capacity", int), ("start_positions", int),
                                         ("beyond_objective", _flag)])
        self.approaches_model = RecordsModel([("area", str), ("to", str), ("width", str),
                                              *[(k, int) for k in APPROACH_COUNTS], *[(k, _flag) for k in
                                                                                      APPROACH_FLAGS]])
        self.areas_table = QTableView()
        self.areas_table.setModel(self.areas_model)
        self.approaches_table = QTableView()
        self.approaches_table.setModel(self.approaches_model)
        for t in (self.areas_table, self.approaches_table):
            t.verticalHeader().setVisible(False)
            t.horizontalHeader().setStretchLastSection(True)
        self.areas_model.dataChanged.connect(self._areas_edited)
        self.approaches_model.dataChanged.connect(self._approaches_edited)
        lay.addWidget(QLabel("areas (double-click a cell to edit)"))
        lay.addWidget(self.areas_table, 2)
        lay.addWidget(QLabel("approaches (one per side of a border)"))
        lay.addWidget(self.approaches_table, 2)

    def _build_edit_buttons(self) -> QHBoxLayout:
        buttons = QHBoxLayout()
        val = QPushButton("Validate")
        val.clicked.connect(self.validate)
        undo = QPushButton("Undo corner")
        undo.clicked.connect(self.undo_point)
        delete = QPushButton("Delete selected area")
        delete.clicked.connect(self.delete_selected_area)
        for b in (val, undo, delete):
            buttons.addWidget(b)
        return buttons

    # ---- coordinates

    def _to_mm(self, sx: float, sy: float) -> tuple[float, float]:
        return sx / self.px_per_mm, self.draft.header["depth_mm"] - sy / self.px_per_mm

    def _to_scene(self, x: float, y: float) -> QPointF:
        return QPointF(float(x) * self.px_per_mm, (self.draft.header["depth_mm"] - float(y)) * self.px_per_mm)

    def _size(self, key: str, v: float) -> None:
        self.draft.header[key] = float(v)
        self.refresh()

    # ---- images

    def set_image(self, image: np.ndarray | None, report: str = "") -> bool:
        """Rectify a photograph or frame from the board's anchors and show it under the drawing."""
        if image is None:
            self.say("no image")
            return False
        out, text = rectify(image, self.draft, self.px_per_mm)
        self.say(text)
        if out is None:
            return False
        self.image = out
        rgb = np.ascontiguousarray(out[..., ::-1])
        h, w = rgb.shape[:2]
        self.pixmap.setPixmap(QPixmap.fromImage(QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()))
        self.refresh()
        return True

    def use_frame(self) -> bool:
        frame = self.frame
        if frame is None and self.parent() is not None and hasattr(self.parent(), "current_frame"):
            frame = self.parent().current_frame()
        if frame is None:
            self.say("no camera frame yet: open a photo instead")
            return False
        image = frame[0] if isinstance(frame, tuple) else frame
        return self.set_image(image)

    def ask_photo(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Photograph of the board", "", "Images (*.png *.jpg *.jpeg)")
        if path:
            try:
                img = read_image(path)
            except InputError as exc:
                self.say(str(exc))
                return
            self.set_image(img)

    # ---- files

    def open(self, path: str | Path) -> None:
        """Open a board file to edit (read without validating, so a broken board can be mended)."""
        self.draft = BoardDraft.from_board(load_board(path, validate=False))
        self.path = str(path)
        self.name.setText(self.draft.header["name"])
        self.width_mm.setValue(self.draft.header["width_mm"])
        self.depth_mm.setValue(self.draft.header["depth_mm"])
        self.refresh()
        self.say(f"opened {path}: {len(self.draft.areas)} areas, {len(self.draft.approaches)} approaches")

    def ask_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open board", "", "Board (*.toml)")
        if path:
            try:
                self.open(path)
            except InputError as exc:
                self.say(str(exc))

    def save(self, path: str | Path) -> bool:
        """Validate and write the TOML; the problems are shown (and nothing written) when it does not validate."""
        if not self.validate():
            return False
        try:
            self.draft.save(path)
        except InputError as exc:
            self.say(str(exc))
            return False
        self.path = str(path)
        self.say(f"saved {path}")
        return True

    def ask_save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save board", self.path or "board.toml", "Board (*.toml)")
        if path:
            self.save(path)

    # ---- editing

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        for b in self.mode_buttons.buttons():
            b.setChecked(b.text().lower() == mode)
        self.points, self.road = [], []
        self.refresh()

    def click(self, x: float, y: float, double: bool = False) -> None:
        """A click at board mm (x, y) in the current mode."""
        if self.mode == "area":
            self.points.append(self.draft.snap(x, y))
        elif self.mode == "approach":
            area = self.draft.area_at(x, y)
            to = self.draft.nearest_neighbour(area, x, y) if area else None
            if area is None or to is None:
                self.say("click inside an area, near its border with a neighbour")
                return
            width = self.width_choice.currentText()
            if width == "remove":
                self.draft.remove_approach(area, to)
                self.say(f"approach {area}>{to} removed")
            else:
                self.draft.set_approach(area, to, width)
                self.say(f"approach {area}>{to}: {width}")
        elif self.mode == "road":
            area = self.draft.area_at(x, y)
            if area and (not self.road or self.road[-1] != area):
                self.road.append(area)
                self.say("road: " + " -> ".join(self.road) + " (Finish road when done)")
        else:
            area = self.draft.area_at(x, y)
            if area:
                row = next(i for i, a in enumerate(self.draft.areas) if a["id"] == area)
                self.areas_table.selectRow(row)
        self.refresh()

    def finish(self) -> None:
        if self.mode == "road":
            self.finish_road()
            return
        if self.mode != "area" or not self.points:
            return
        pts = list(dict.fromkeys(self.points))
        try:
            rec = self.draft.add_area(pts, self.area_id.text().strip() or None, self.area_name.text().strip() or None)
        except InputError as exc:
            self.say(str(exc))
            return
        self.points = []
        self.area_id.clear()
        self.area_name.clear()
        self.say(f"area {rec['id']} ({rec['name']}) with {len(pts)} corners")
        self.refresh()

    def undo_point(self) -> None:
        if self.points:
            self.points.pop()
            self.refresh()

    def finish_road(self) -> None:
        try:
            r = self.draft.add_road(self.road, self.road_class.currentText())
            self.say(f"road {r['id']}: {' -> '.join(r['areas'])}")
        except InputError as exc:
            self.say(str(exc))
        self.road = []
        self.refresh()

    def pair_borders(self) -> None:
        n = self.draft.pair_borders(self.width_choice.currentText() if self.width_choice.currentIndex() < 2
                                    else "narrow")
        self.say(f"{n} approach(es) added")
        self.refresh()

    def delete_selected_area(self) -> None:
        idx = self.areas_table.currentIndex()
        if idx.isValid():
            self.draft.remove_area(self.draft.areas[idx.row()]["id"])
            self.refresh()

    def _areas_edited(self, *_):
        old = [a["id"] for a in self.draft.areas]
        for a, rec in zip(self.draft.areas, self.areas_model.records, strict=True):
            if rec["id"] != a["id"]:  # renaming an area renames its approaches and roads
                for ap in self.draft.approaches:
                    for k in ("area", "to"):
                        if ap[k] == a["id"]:
                            ap[k] = rec["id"]
                for r in self.draft.roads:
                    r["areas"] = [rec["id"] if x == a["id"] else x for x in r["areas"]]
            a.update({k: v for k, v in rec.items() if k != "polygon"})
        if old != [a["id"] for a in self.draft.areas]:
            self.refresh()
        else:
            self._draw()

    def _approaches_edited(self, *_):
        for ap, rec in zip(self.draft.approaches, self.approaches_model.records, strict=True):
            ap.update(rec)
        self._draw()

    def validate(self) -> bool:
        self.problems = self.draft.validate()
        if self.problems:
            self.report.setPlainText("the board does not validate:\n" + "\n".join(f"  ✖ {p}" for p in self.problems))
        else:
            self.report.setPlainText(f"valid: {len(self.draft.areas)} areas, {len(self.draft.approaches)} "
                                     f"approaches, {len(self.draft.roads)} roads; every area reachable")
        self._draw()
        return not self.problems

    def say(self, text: str) -> None:
        self.statusBar().showMessage(text, 15000)
        self.last_message = text

    # ---- drawing

    def refresh(self) -> None:
        self.areas_model.beginResetModel()
        self.areas_model.records = [{k: a.get(k) for k, _ in self.areas_model.columns} for a in self.draft.areas]
        self.areas_model.endResetModel()
        self.approaches_model.beginResetModel()
        self.approaches_model.records = [{k: ap.get(k) for k, _ in self.approaches_model.columns}
                                         for ap in self.draft.approaches]
        self.approaches_model.endResetModel()
        self._draw()

    def _draw(self) -> None:
        sc = self.canvas.scene()
        for it in self.items:
            sc.removeItem(it)
        self.items = []
        w, h = self.draft.header["width_mm"], self.draft.header["depth_mm"]
        frame = sc.addRect(QRectF(0, 0, w * self.px_per_mm, h * self.px_per_mm), _pen(QColor(200, 200, 200), 1))
        self.items.append(frame)
        self._draw_anchors(sc)
        self._draw_areas(sc)
        try:
            board = self.draft.board()
        except InputError:
            board = None
        if board is not None:
            self._draw_approaches(sc, board)
            self._draw_roads(sc, board)
        self._draw_unfinished(sc, board)
        sc.setSceneRect(QRectF(-20, -20, w * self.px_per_mm + 40, h * self.px_per_mm + 40))
        self.canvas.fitInView(sc.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)

    def _line(self, sc, p, q, pen: QPen, z: float):
        """A line from board point `p` to `q` (mm), added to the scene and to the drawn items."""
        a, b = self._to_scene(*p), self._to_scene(*q)
        line = sc.addLine(a.x(), a.y(), b.x(), b.y(), pen)
        line.setZValue(z)
        self.items.append(line)
        return line

    def _draw_anchors(self, sc) -> None:
        for a in self.draft.anchors:
            s = float(a["size_mm"]) / 2
            r = sc.addRect(QRectF(self._to_scene(a["x_mm"] - s, a["y_mm"] + s),
                                  self._to_scene(a["x_mm"] + s, a["y_mm"] - s)), _pen(QColor(0, 220, 120), 2))
            r.setToolTip(f"anchor {a['id']}")
            self.items.append(r)

    def _draw_areas(self, sc) -> None:
        """Each area filled in its own hue and labelled; outlined in red when the last validation names it."""
        bad = " ".join(self.problems)
        for i, a in enumerate(self.draft.areas):
            poly = QPolygonF([self._to_scene(x, y) for x, y in a["polygon"]])
            item = QGraphicsPolygonItem(poly)
            hue = (i * 67) % 360
            fill = QColor.fromHsv(hue, 160, 230, 60)
            flagged = f"area {a['id']} " in bad or f"areas {a['id']} " in bad or f" {a['id']} cannot" in bad
            item.setPen(_pen(QColor(255, 60, 60) if flagged else QColor(255, 255, 255), 2.5 if flagged else 1.5))
            item.setBrush(QBrush(fill))
            item.setToolTip(f"area {a['id']} {a.get('name', '')}")
            item.setData(0, f"area:{a['id']}")
            item.setZValue(2)
            sc.addItem(item)
            self.items.append(item)
            c = np.asarray(a["polygon"], float).mean(0)
            self.items.append(self._label(f"{a['id']} {a.get('name', '')}", self._to_scene(*c), QColor(255, 255, 255)))

    def _draw_approaches(self, sc, board: Board) -> None:
        """Each approach along its border, a little inside its area: wide blue, narrow amber, red when unpaired."""
        for ap in board.approaches.values():
            seg = board.approach_segment(ap, 2.0)
            if len(seg) < 2:
                continue
            inward = np.asarray(board.areas[ap.area].centre) - seg.mean(0)
            inward = inward / (np.linalg.norm(inward) or 1.0) * 6.0
            a0, a1 = seg[0] + inward, seg[-1] + inward
            paired = ap.opposite in board.approaches
            colour = (QColor(60, 200, 255) if ap.width == "wide" else QColor(255, 200, 60)) if paired else \
                QColor(255, 40, 40)
            line = self._line(sc, a0, a1, _pen(colour, 4 if ap.width == "wide" else 2.5), 3)
            line.setToolTip(f"approach {ap.id}: {ap.width}" + ("" if paired else ", NOT PAIRED"))
            line.setData(0, f"approach:{ap.id}")

    def _draw_roads(self, sc, board: Board) -> None:
        """Roads from area centre to area centre: main roads solid and thick, secondary ones dashed."""
        for r in board.roads:
            main = r.road_class == "main"
            style = Qt.PenStyle.SolidLine if main else Qt.PenStyle.DashLine
            pen = _pen(QColor(230, 200, 150), 3 if main else 1.5, style)
            pts = [board.areas[x].centre for x in r.areas if x in board.areas]
            for p, q in zip(pts[:-1], pts[1:], strict=True):
                self._line(sc, p, q, pen, 3.5)

    def _draw_unfinished(self, sc, board: Board | None) -> None:
        """The area outline and the road being drawn, in cyan on top."""
        if self.points:
            poly = QPolygonF([self._to_scene(x, y) for x, y in self.points])
            item = QGraphicsPolygonItem(poly)
            item.setPen(_pen(QColor(0, 230, 255), 2, Qt.PenStyle.DashLine))
            item.setZValue(5)
            sc.addItem(item)
            self.items.append(item)
            for x, y in self.points:
                p = self._to_scene(x, y)
                dot = sc.addEllipse(QRectF(p.x() - 4, p.y() - 4, 8, 8), _pen(QColor(0, 230, 255), 2))
                dot.setZValue(5)
                self.items.append(dot)
        if self.road and board is not None:
            pts = [board.areas[x].centre for x in self.road if x in board.areas]
            for p, q in zip(pts[:-1], pts[1:], strict=True):
                self._line(sc, p, q, _pen(QColor(0, 230, 255), 3, Qt.PenStyle.DotLine), 5)

    def _label(self, text: str, at: QPointF, colour: QColor):
        t = QGraphicsSimpleTextItem(text)
        t.setBrush(colour)
        t.setZValue(6)
        t.setFlag(QGraphicsSimpleTextItem.GraphicsItemFlag.ItemIgnoresTransformations)
        font = t.font()
        font.setPointSizeF(10.0)
        font.setBold(True)
        t.setFont(font)
        t.setPos(at)
        self.canvas.scene().addItem(t)
        return t

    def items_of(self, prefix: str) -> list:
        return [it for it in self.items if str(it.data(0) or "").startswith(prefix)]

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.canvas.fitInView(self.canvas.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)


def _pen(colour: QColor, width: float, style=Qt.PenStyle.SolidLine) -> QPen:
    pen = QPen(colour, width, style)
    pen.setCosmetic(True)
    return pen


def _flag(value) -> bool:
    return str(value).strip().lower() in ("true", "yes", "1", "y")


__all__ = ["BoardDraft", "BoardEditor", "rectify"]
