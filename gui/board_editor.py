"""The board editor (Tools > Board editor...): digitise a printed board from a photograph or the live camera.

Rectify the image from the board's anchor stickers (a homography from their detected corners to board mm), draw and
name area polygons over it (clicks add corners, snapped to existing corners so neighbouring areas share their
border; double-click, Enter or "Close area" finishes), mark approaches (click inside an area near the border with a
neighbour: that area's approach toward the neighbour, narrow or wide; "Pair borders" adds both approaches of every
shared border), roads (click the areas in road order, then "Finish road"), edit the areas' and approaches'
attributes in the tables, validate with rules/board.py's validator (every area reachable, approaches paired across
shared borders, no overlaps) and save TOML (rules.board.board_to_toml). Open an existing board file to edit it.

Strategic maps (areas linked by borders, sea lanes and straits rather than approaches): give each area its free
attributes in the areas table, a `kind` column and an `attributes` column of TOML `key = value` pairs separated by
commas (`home = "france", capital = true, port = ["channel", "north_sea"]`), which a game system reads (its README
says which); "Link borders" adds a connection on every shared border that has neither approaches nor one (kind `sea`
when either area's kind is "sea", else `land`); Link mode marks a connection between two clicked areas, drawn border
or not: `land`, `sea` (a sea lane), `strait` (a sea link with a strait's flag) or `closed` (a drawn border that is
no link), or removes it. The connections table edits their kinds.

To digitise a printed map: photograph it with the anchor stickers on (or use the live frame), set the board's size,
draw each area over the rectified image (corners snap, so neighbours share their borders exactly), name it and fill
in its attributes, "Link borders", then mark the links the drawing does not show (straits, sea lanes, closed
borders) in Link mode, validate and save.

`BoardDraft` is the editor's Qt-free model (TOML-shaped records); the widget only draws it and edits it.
"""

from __future__ import annotations

import tomllib
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
from common.outfiles import write_text
from gui.models import RecordsModel
from rules.board import (
    APPROACH_COUNTS,
    APPROACH_FLAGS,
    AREA_KEYS,
    CONNECTION_KINDS,
    Board,
    board_to_toml,
    bordering_pairs,
    distance_to_outline,
    load_board,
    parse_board,
    points_in_polygon,
    shared_border_mm,
    toml_value,
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
        self.areas: list[dict] = []  # each with its free "attributes" (a dict)
        self.approaches: list[dict] = []
        self.roads: list[dict] = []
        self.connections: list[dict] = []  # {"areas": [a, b], "kind": one of CONNECTION_KINDS}
        self.extra: dict = {}  # boxes, arrows, pontoon: kept as they were read

    # ---- from and to a Board

    @classmethod
    def from_board(cls, board: Board) -> BoardDraft:
        d = cls(board.name, board.width_mm, board.depth_mm, board.dictionary)
        d.header.update(approach_depth_mm=board.approach_depth_mm, border_mm=board.border_mm)
        d.anchors = [{"id": a.id, "x_mm": a.x_mm, "y_mm": a.y_mm, "size_mm": a.size_mm, "heading_deg": a.heading_deg}
                     for a in board.anchors]
        d.areas = [{"id": a.id, "name": a.name, "polygon": [list(map(float, p)) for p in np.asarray(a.polygon)],
                    "capacity": a.capacity or 0, "start_positions": a.start_positions,
                    "beyond_objective": a.beyond_objective, "attributes": {k: _plain(v) for k, v in a.attributes}}
                   for a in board.areas.values()]
        d.approaches = [{"area": ap.area, "to": ap.to, "width": ap.width,
                         **{k: getattr(ap, k) for k in (*APPROACH_COUNTS, *APPROACH_FLAGS)}}
                        for ap in board.approaches.values()]
        d.roads = [{"id": r.id, "class": r.road_class, "areas": list(r.areas)} for r in board.roads]
        d.extra = {"box": [{"id": b.id, "side": b.side, "round": b.round, "entry_area": b.entry_area}
                           for b in board.boxes.values()],
                   "arrow": [{"from": f, "to": t} for f, t in sorted(board.arrows)]}
        d.connections = [{"areas": [c.a, c.b], "kind": c.kind} for c in board.connections]
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
            rec.update({k: v for k, v in (a.get("attributes") or {}).items() if v != "" and k not in AREA_KEYS})
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
                "road": [dict(r) for r in self.roads if len(r["areas"]) >= 2],
                "connection": [{"areas": list(c["areas"]), "kind": c["kind"]} for c in self.connections]}
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
        write_text(path, self.toml())  # whole or not at all; InputError (one line) when it cannot be written
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

    def add_area(self, polygon, area_id: str | None = None, name: str | None = None,
                 attributes: dict | None = None, **attrs) -> dict:
        """A new area of at least 3 corners (board mm); `attributes` its free attributes (a game system's)."""
        area_id = area_id or self.next_area_id()
        if any(a["id"] == area_id for a in self.areas):
            raise InputError(f"area {area_id} exists already")
        pts = [[float(x), float(y)] for x, y in polygon]
        if len(pts) < 3:
            raise InputError("an area needs at least 3 corners")
        rec = {"id": area_id, "name": name or area_id, "polygon": pts, "capacity": 0, "start_positions": 0,
               "beyond_objective": False, "attributes": {}, **attrs}
        for k, v in (attributes or {}).items():
            self._set_attribute(rec, k, v)
        self.areas.append(rec)
        return rec

    def remove_area(self, area_id: str) -> None:
        self.areas = [a for a in self.areas if a["id"] != area_id]
        self.approaches = [ap for ap in self.approaches if area_id not in (ap["area"], ap["to"])]
        self.connections = [c for c in self.connections if area_id not in c["areas"]]
        for r in self.roads:
            r["areas"] = [x for x in r["areas"] if x != area_id]

    def rename_area(self, old: str, new: str) -> None:
        """An area's new id, in its approaches, roads and connections too."""
        for a in self.areas:
            if a["id"] == old:
                a["id"] = new
        for ap in self.approaches:
            for k in ("area", "to"):
                if ap[k] == old:
                    ap[k] = new
        for r in self.roads:
            r["areas"] = [new if x == old else x for x in r["areas"]]
        for c in self.connections:
            c["areas"] = [new if x == old else x for x in c["areas"]]

    # ---- free attributes (a game system's: kind, home, port...)

    def _area(self, area_id: str) -> dict:
        rec = next((a for a in self.areas if a["id"] == area_id), None)
        if rec is None:
            raise InputError(f"no area {area_id!r} on the board")
        return rec

    @staticmethod
    def _set_attribute(rec: dict, key: str, value) -> None:
        if not key or key in AREA_KEYS or key == "attributes":
            raise InputError(f"area {rec['id']}: {key!r} is not a free attribute (not one of {', '.join(AREA_KEYS)})")
        attrs = rec.setdefault("attributes", {})
        if value in ("", None):
            attrs.pop(key, None)
        else:
            attrs[key] = list(value) if isinstance(value, tuple) else value

    def set_attribute(self, area_id: str, key: str, value) -> None:
        """One free attribute of an area (text, number, true/false or a list); "" or None removes it."""
        self._set_attribute(self._area(area_id), key, value)

    def attributes_text(self, area_id: str, skip: tuple[str, ...] = ("kind",)) -> str:
        """An area's free attributes as TOML pairs, `home = "france", port = ["channel"]` (the table's column)."""
        attrs = self._area(area_id).get("attributes") or {}
        return ", ".join(f"{k} = {toml_value(v)}" for k, v in sorted(attrs.items()) if k not in skip)

    def set_attributes_text(self, area_id: str, text: str, keep: tuple[str, ...] = ("kind",)) -> None:
        """Replace an area's free attributes (but those in `keep`) by TOML pairs separated by commas; InputError
        (nothing changed) when the text is not that."""
        rec = self._area(area_id)
        try:
            parsed = tomllib.loads(f"a = {{{text}}}")["a"] if text.strip() else {}
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"area {area_id}: attributes must be TOML pairs like home = \"france\", capital = true, "
                             f"port = [\"channel\"] ({exc})") from None
        bad = [k for k, v in parsed.items() if isinstance(v, dict) or k in AREA_KEYS]
        if bad:
            raise InputError(f"area {area_id}: {bad[0]!r} is not a free attribute")
        rec["attributes"] = {k: v for k, v in (rec.get("attributes") or {}).items() if k in keep}
        for k, v in parsed.items():
            self._set_attribute(rec, k, v)

    # ---- connections (strategic maps: links that need no approach)

    def connection(self, a: str, b: str) -> dict | None:
        return next((c for c in self.connections if set(c["areas"]) == {a, b}), None)

    def connect(self, a: str, b: str, kind: str = "land") -> dict:
        """A connection between two areas (replacing the one they have): land, sea, strait or closed."""
        if kind not in CONNECTION_KINDS:
            raise InputError(f"connection {a}-{b}: kind must be one of {', '.join(CONNECTION_KINDS)}, not {kind!r}")
        for x in (a, b):
            self._area(x)
        if a == b:
            raise InputError(f"connection {a}-{b}: a connection joins two areas")
        rec = self.connection(a, b)
        if rec is None:
            rec = {"areas": [a, b], "kind": kind}
            self.connections.append(rec)
        rec["kind"] = kind
        return rec

    def disconnect(self, a: str, b: str) -> None:
        self.connections = [c for c in self.connections if set(c["areas"]) != {a, b}]

    def link_borders(self) -> int:
        """A connection on every shared border that has neither approaches nor a connection: `sea` when either area's
        kind attribute is "sea", else `land` (a strategic map's adjacency drawn as borders). The count added."""
        kinds = {a["id"]: (a.get("attributes") or {}).get("kind") for a in self.areas}
        n = 0
        for a, b in sorted(bordering_pairs(self.board())):  # InputError when the draft cannot be read
            if self.connection(a, b) is None and self.approach(a, b) is None and self.approach(b, a) is None:
                self.connect(a, b, "sea" if "sea" in (kinds[a], kinds[b]) else "land")
                n += 1
        return n

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
    """Draw a board's areas, approaches, roads and connections over its rectified image; validate; save TOML."""

    MODES = ("area", "approach", "road", "link", "select")

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
        self.link: list[str] = []  # the first area clicked in link mode
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
        lay.addLayout(self._build_link_row())
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
                 "to close it. Approach mode: click inside an area near a border. Road mode: click areas in order. "
                 "Link mode: click two areas.")
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

    def _build_link_row(self) -> QHBoxLayout:
        """A connection's kind (or remove) for link mode, and linking every shared border."""
        row = QHBoxLayout()
        self.link_kind = QComboBox()
        self.link_kind.addItems([*CONNECTION_KINDS, "remove"])
        self.link_kind.setToolTip("link mode: the kind of connection between the next two areas clicked (strait: a "
                                  "sea link with a strait's flag; closed: a drawn border that is no link)")
        borders = QPushButton("Link borders")
        borders.setToolTip("a connection on every shared border without approaches or one (sea when either area's "
                           "kind is sea, else land)")
        borders.clicked.connect(self.link_borders)
        row.addWidget(QLabel("connection"))
        row.addWidget(self.link_kind)
        row.addWidget(borders)
        row.addStretch(1)
        return row

    def _build_tables(self, lay: QVBoxLayout) -> None:
        """The editable tables of areas, approaches and connections, each edit written back to the draft."""
        self.areas_model = RecordsModel([("id", str), ("name", str), ("capacity", int), ("start_positions", int),
                                         ("beyond_objective", _flag), ("kind", str), ("attributes", str)])
        self.connections_model = RecordsModel([("a", str), ("b", str), ("kind", str)])
        self.connections_table = QTableView()
        self.connections_table.setModel(self.connections_model)
        self.connections_table.verticalHeader().setVisible(False)
        self.connections_table.horizontalHeader().setStretchLastSection(True)
        self.connections_model.dataChanged.connect(self._connections_edited)
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
        lay.addWidget(QLabel("connections (strategic links: land, sea, strait, closed)"))
        lay.addWidget(self.connections_table, 1)

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
        self.points, self.road, self.link = [], [], []
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
        elif self.mode == "link":
            self._link_click(self.draft.area_at(x, y))
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

    def _link_click(self, area: str | None) -> None:
        """Link mode: the first area clicked, then the second: connect them with the chosen kind (or remove)."""
        if area is None:
            self.say("click inside an area")
            return
        if not self.link or self.link[0] == area:
            self.link = [area]
            self.say(f"connection from {area}: click the other area")
            return
        a, kind = self.link[0], self.link_kind.currentText()
        self.link = []
        if kind == "remove":
            self.draft.disconnect(a, area)
            self.say(f"connection {a}-{area} removed")
        else:
            self.draft.connect(a, area, kind)
            self.say(f"connection {a}-{area}: {kind}")

    def link_borders(self) -> None:
        try:
            n = self.draft.link_borders()
        except InputError as exc:
            self.say(str(exc))
            return
        self.say(f"{n} connection(s) added on shared borders")
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
        """The areas table written back: a new id renames the area everywhere; `kind` and `attributes` are its free
        attributes (a bad attributes text is reported and the row shows the draft's again)."""
        old = [a["id"] for a in self.draft.areas]
        again = False
        for a, rec in zip(self.draft.areas, self.areas_model.records, strict=True):
            if rec["id"] != a["id"]:  # renaming an area renames its approaches, roads and connections
                self.draft.rename_area(a["id"], rec["id"])
            a.update({k: v for k, v in rec.items() if k not in ("polygon", "kind", "attributes")})
            try:
                self.draft.set_attribute(a["id"], "kind", str(rec.get("kind") or "").strip())
                if str(rec.get("attributes") or "") != self.draft.attributes_text(a["id"]):
                    self.draft.set_attributes_text(a["id"], str(rec.get("attributes") or ""))
            except InputError as exc:
                self.say(str(exc))
                again = True
        if again or old != [a["id"] for a in self.draft.areas]:
            self.refresh()
        else:
            self._draw()

    def _connections_edited(self, *_):
        """The connections table written back: a kind not one of CONNECTION_KINDS is reported and undone."""
        for c, rec in zip(self.draft.connections, self.connections_model.records, strict=True):
            if rec["kind"] in CONNECTION_KINDS:
                c["kind"] = rec["kind"]
            else:
                self.say(f"connection {'-'.join(c['areas'])}: kind must be one of {', '.join(CONNECTION_KINDS)}")
        self.refresh()

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
                                     f"approaches, {len(self.draft.roads)} roads, {len(self.draft.connections)} "
                                     "connections; every area reachable")
        self._draw()
        return not self.problems

    def say(self, text: str) -> None:
        self.statusBar().showMessage(text, 15000)
        self.last_message = text

    # ---- drawing

    def refresh(self) -> None:
        self.areas_model.beginResetModel()
        self.areas_model.records = [{**{k: a.get(k) for k, _ in self.areas_model.columns},
                                     "kind": (a.get("attributes") or {}).get("kind", ""),
                                     "attributes": self.draft.attributes_text(a["id"])} for a in self.draft.areas]
        self.areas_model.endResetModel()
        self.connections_model.beginResetModel()
        self.connections_model.records = [{"a": c["areas"][0], "b": c["areas"][1], "kind": c["kind"]}
                                          for c in self.draft.connections]
        self.connections_model.endResetModel()
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
            self._draw_connections(board)
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

    def _draw_connections(self, board: Board) -> None:
        """Each connection from area centre to area centre: land brown, sea blue dashed, strait thick violet,
        closed a short red bar across the middle."""
        styles = {"land": (QColor(200, 150, 90), 2.0, Qt.PenStyle.SolidLine),
                  "sea": (QColor(90, 160, 255), 2.0, Qt.PenStyle.DashLine),
                  "strait": (QColor(200, 90, 255), 4.0, Qt.PenStyle.SolidLine),
                  "closed": (QColor(255, 60, 60), 3.0, Qt.PenStyle.SolidLine)}
        for c in board.connections:
            p, q = np.asarray(board.areas[c.a].centre), np.asarray(board.areas[c.b].centre)
            colour, width, style = styles[c.kind]
            if c.kind == "closed":  # across the middle, not along: the border is shut
                mid, d = (p + q) / 2, q - p
                d = np.array([-d[1], d[0]]) / (np.linalg.norm(d) or 1.0) * 8.0
                p, q = mid - d, mid + d
            line = self._line(self.canvas.scene(), p, q, _pen(colour, width, style), 3.2)
            line.setToolTip(f"connection {c.a}-{c.b}: {c.kind}")
            line.setData(0, f"connection:{c.a}-{c.b}")

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


def _plain(value):
    """A board attribute's value as the draft keeps it (lists, not tuples)."""
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


def _flag(value) -> bool:
    return str(value).strip().lower() in ("true", "yes", "1", "y")


__all__ = ["BoardDraft", "BoardEditor", "rectify"]
