"""The calibration wizard: camera intrinsics from live captures of a board (with a coverage map), the table layout and
its registration from the anchors, a check screen (reprojection error, the grid over the live image), the roster,
and saving the files. All the computing is done by calibration/ and vision/; this is the presentation."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsPolygonItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from calibration.camera import CameraIntrinsics, save_camera
from calibration.captures import CoverageMap, save_capture, to_gray
from calibration.intrinsics import calibrate_camera, find_board_corners, parse_board, read_gray
from calibration.layout import TableLayout, layout_to_toml, parse_layout
from calibration.projection import table_to_pixels
from calibration.registration import estimate_pose
from calibration.uncertainty import error_map
from common.errors import InputError
from common.outfiles import write_text
from gui.models import RecordsModel
from gui.views import LiveMapper, _path_lines, _pen, _polygon, numpy_to_qimage
from vision.markers import detect_markers
from vision.roster import Roster, parse_roster, roster_to_toml

ANCHOR_COLUMNS = [("id", int), ("x_mm", float), ("y_mm", float), ("size_mm", float), ("z_mm", float)]
PIECE_COLUMNS = [("id", str), ("marker", int), ("side", str), ("type", str), ("base_w_mm", float),
                 ("base_d_mm", float), ("marker_mm", float), ("marker_height_mm", float), ("offset_right_mm", float),
                 ("offset_forward_mm", float)]


def heat_colours(values: np.ndarray) -> np.ndarray:
    """(rows, cols) values -> a BGR image, blue at the smallest, red at the largest, north (large y, the last row)
    at the top; one colour per cell, enlarged 8 times so the map reads as cells."""
    v = np.asarray(values, float)
    span = float(v.max() - v.min())
    u = (v - v.min()) / span if span > 0 else np.zeros_like(v)
    bgr = np.stack([255 * (1 - u), 80 * np.ones_like(u), 255 * u], axis=-1).astype(np.uint8)
    return np.ascontiguousarray(np.repeat(np.repeat(bgr[::-1], 8, axis=0), 8, axis=1))


def _table(model) -> QTableView:
    v = QTableView()
    v.setModel(model)
    v.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    v.verticalHeader().setVisible(False)
    v.horizontalHeader().setStretchLastSection(True)
    return v


class CalibrationWizard(QDialog):
    """Tabs: Camera (intrinsics), Table (layout + registration), Check, Roster, Save."""

    def __init__(self, setup, frame_provider=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Fieldglass — calibration")
        self.setObjectName("calibration")
        self.frame_provider = frame_provider or (lambda: None)
        self.camera: CameraIntrinsics | None = setup.camera
        self.layout_: TableLayout = setup.layout
        self.roster: Roster = setup.roster
        self.pose = None
        self.captures: list[str] = []
        self.capture_dir = Path(tempfile.mkdtemp(prefix="fieldglass-captures-"))
        self.coverage: CoverageMap | None = None
        self.tabs = QTabWidget()
        self.tabs.addTab(self._camera_tab(), "1 Camera")
        self.tabs.addTab(self._table_tab(), "2 Table")
        self.tabs.addTab(self._check_tab(), "3 Check")
        self.tabs.addTab(self._roster_tab(), "4 Roster")
        self.tabs.addTab(self._save_tab(), "5 Save")
        self.message = QLabel("")
        self.message.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs)
        lay.addWidget(self.message)
        self.resize(1100, 720)
        self.tabs.currentChanged.connect(lambda i: self.refresh_check() if i == 2 else None)

    def say(self, text: str, bad: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #c33;" if bad else "")

    # ---------------------------------------------------------------- camera

    def _camera_tab(self) -> QWidget:
        w = QWidget()
        self.board_spec = QLineEdit("chessboard:9x6:25")
        self.board_spec.setToolTip("chessboard:COLSxROWS:SQUARE_MM (inner corners) or "
                                   "charuco:COLSxROWS:SQUARE_MM:MARKER_MM:DICT")
        capture = QPushButton("Capture the live frame (Space)")
        capture.setShortcut("Space")
        capture.clicked.connect(lambda: self.capture())
        add = QPushButton("Add photos...")
        add.clicked.connect(self._ask_photos)
        run = QPushButton("Calibrate")
        run.clicked.connect(lambda: self.calibrate())
        self.capture_list = QListWidget()
        self.coverage_label = QLabel("coverage map: corners seen so far appear here")
        self.coverage_label.setMinimumSize(320, 180)
        self.coverage_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.camera_text = QPlainTextEdit()
        self.camera_text.setReadOnly(True)
        self.camera_text.setPlainText(self._camera_summary())
        form = QFormLayout()
        form.addRow("board", self.board_spec)
        buttons = QHBoxLayout()
        for b in (capture, add, run):
            buttons.addWidget(b)
        left = QVBoxLayout()
        left.addLayout(form)
        left.addLayout(buttons)
        left.addWidget(self.capture_list, 1)
        left.addWidget(self.camera_text, 1)
        row = QHBoxLayout(w)
        row.addLayout(left, 1)
        row.addWidget(self.coverage_label, 1)
        return w

    def _camera_summary(self) -> str:
        c = self.camera
        if c is None:
            return "no camera file yet (the synthetic source brings its own camera)"
        k, d = c.camera_matrix, np.asarray(c.dist_coeffs).ravel()
        rms = f"{c.rms_px:.3f} px" if c.rms_px is not None else "unknown"
        return (f"{c.image_size[0]}x{c.image_size[1]} px, RMS {rms}\nfx {k[0, 0]:.1f}  fy {k[1, 1]:.1f}  "
                f"cx {k[0, 2]:.1f}  cy {k[1, 2]:.1f}\ndistortion " + " ".join(f"{v:+.4f}" for v in d))

    def _board(self):
        try:
            return parse_board(self.board_spec.text())
        except InputError as exc:
            self.say(str(exc), bad=True)
            return None

    def _add_view(self, gray: np.ndarray, name: str, path: str | None) -> bool:
        board = self._board()
        if board is None:
            return False
        found, reason = find_board_corners(gray, board)
        if found is None:
            self.capture_list.addItem(f"{name}: {reason}")
            self.say(f"{name}: {reason}", bad=True)
            return False
        size = (gray.shape[1], gray.shape[0])
        if self.coverage is None or self.coverage.size != size:
            self.coverage = CoverageMap(size)
        self.coverage.add(found[0])
        if path is None:
            path = str(self.capture_dir / f"capture-{len(self.captures) + 1:03d}.png")
            save_capture(path, gray)
        self.captures.append(path)
        self.capture_list.addItem(f"{name}: {len(found[0])} corners")
        pix = QPixmap.fromImage(numpy_to_qimage(self.coverage.image_bgr()))
        self.coverage_label.setPixmap(pix.scaled(self.coverage_label.size(), Qt.AspectRatioMode.KeepAspectRatio))
        self.say(f"{len(self.captures)} view(s); the board has covered {100 * self.coverage.covered_fraction():.0f}% "
                 "of the image: move it into the empty (red) parts and tilt it")
        return True

    def capture(self, frame: np.ndarray | None = None) -> bool:
        if frame is None:
            got = self.frame_provider()
            if got is None:
                self.say("no live frame to capture yet", bad=True)
                return False
            frame = got[0]
        return self._add_view(to_gray(frame), f"capture {len(self.captures) + 1}", None)

    def add_photos(self, paths) -> int:
        n = 0
        for p in paths:
            gray, reason = read_gray(p)
            if gray is None:
                self.capture_list.addItem(f"{Path(p).name}: {reason}")
                continue
            n += self._add_view(gray, Path(p).name, str(p))
        return n

    def _ask_photos(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Board photos", "", "Images (*.png *.jpg *.jpeg *.bmp *.tif)")
        self.add_photos(paths)

    def calibrate(self) -> bool:
        board = self._board()
        if board is None:
            return False
        try:
            result = calibrate_camera(self.captures, board)
        except InputError as exc:
            self.say(str(exc), bad=True)
            return False
        self.camera = result.camera
        lines = [self._camera_summary(), ""]
        lines += [f"{Path(r.path).name}: " + (f"{r.rms_px:.3f} px" if r.used else f"rejected: {r.reason}")
                  for r in result.images]
        self.camera_text.setPlainText("\n".join(lines))
        self.say(f"calibrated from {len(result.used)} views: RMS {result.rms_px:.3f} px")
        return True

    # ---------------------------------------------------------------- table layout and registration

    def _table_tab(self) -> QWidget:
        w = QWidget()
        lay = self.layout_
        g = lay.grid
        self.width_mm = self._spin(lay.width_mm, 10, 10000)
        self.depth_mm = self._spin(lay.depth_mm, 10, 10000)
        self.dictionary = QLineEdit(lay.dictionary)
        self.grid_origin_x = self._spin(g.origin_x_mm if g else 0, -1000, 10000)
        self.grid_origin_y = self._spin(g.origin_y_mm if g else 0, -1000, 10000)
        self.grid_field = self._spin(g.field_mm if g else 60, 1, 1000)
        self.grid_cols = QSpinBox()
        self.grid_cols.setRange(0, 702)
        self.grid_cols.setValue(g.cols if g else 0)
        self.grid_rows = QSpinBox()
        self.grid_rows.setRange(0, 999)
        self.grid_rows.setValue(g.rows if g else 0)
        self.anchors = RecordsModel(ANCHOR_COLUMNS, [
            {"id": a.id, "x_mm": a.x_mm, "y_mm": a.y_mm, "size_mm": a.size_mm, "z_mm": a.z_mm} for a in lay.anchors],
            self)
        form = QFormLayout()
        form.addRow("table width mm", self.width_mm)
        form.addRow("table depth mm", self.depth_mm)
        form.addRow("marker dictionary", self.dictionary)
        form.addRow("grid origin x mm", self.grid_origin_x)
        form.addRow("grid origin y mm", self.grid_origin_y)
        form.addRow("field mm", self.grid_field)
        form.addRow("columns (0: no grid)", self.grid_cols)
        form.addRow("rows", self.grid_rows)
        add = QPushButton("Add anchor")
        add.clicked.connect(lambda: self.anchors.add({"id": len(self.anchors.records), "x_mm": 0.0, "y_mm": 0.0,
                                                      "size_mm": 50.0, "z_mm": 0.0}))
        self.anchor_view = _table(self.anchors)
        remove = QPushButton("Remove anchor")
        remove.clicked.connect(lambda: self.anchors.remove(self.anchor_view.currentIndex().row()))
        register = QPushButton("Register the table from the anchors in the live frame")
        register.clicked.connect(lambda: self.register())
        self.register_text = QLabel("")
        self.register_text.setWordWrap(True)
        right = QVBoxLayout()
        right.addWidget(QLabel("anchors (centre of the black square, side, height of its face above the cloth: 0 flat,"
                               " 50-60 on a block; top edge toward +y)"))
        right.addWidget(self.anchor_view, 1)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        right.addLayout(row)
        right.addWidget(register)
        right.addWidget(self.register_text)
        self._error_map_widgets(right)
        outer = QHBoxLayout(w)
        outer.addLayout(form)
        outer.addLayout(right, 1)
        return w

    @staticmethod
    def _spin(value: float, lo: float, hi: float) -> QDoubleSpinBox:
        s = QDoubleSpinBox()
        s.setRange(lo, hi)
        s.setDecimals(1)
        s.setValue(float(value))
        return s

    def layout_from_form(self) -> TableLayout | None:
        data = {"table": {"width_mm": self.width_mm.value(), "depth_mm": self.depth_mm.value()},
                "markers": {"dictionary": self.dictionary.text().strip()},
                "anchor": [dict(r) for r in self.anchors.records]}
        if self.grid_cols.value() > 0:
            data["grid"] = {"origin_x_mm": self.grid_origin_x.value(), "origin_y_mm": self.grid_origin_y.value(),
                            "field_mm": self.grid_field.value(), "cols": self.grid_cols.value(),
                            "rows": self.grid_rows.value()}
        try:
            self.layout_ = parse_layout(data, "layout")
        except InputError as exc:
            self.say(str(exc), bad=True)
            return None
        return self.layout_

    def register(self, frame: np.ndarray | None = None, camera: CameraIntrinsics | None = None) -> bool:
        layout = self.layout_from_form()
        if layout is None:
            return False
        got = self.frame_provider()
        if frame is None:
            if got is None:
                self.say("no live frame yet", bad=True)
                return False
            frame = got[0]
        camera = camera or self.camera or (got[1] if got else None)
        if camera is None:
            self.say("calibrate the camera first (tab 1)", bad=True)
            return False
        self.camera_for_check = camera
        markers = detect_markers(frame, layout.dictionary)
        corners = {m.id: m.corners for m in markers if m.id in layout.anchor_ids}
        pose = estimate_pose(corners, layout, camera)
        self.check_frame = frame
        if pose is None:
            self.pose = None
            self.register_text.setText(f"only {len(corners)} of the layout's anchors seen: at least 2 needed")
            self.say("registration failed", bad=True)
            return False
        self.pose = pose
        self.anchor_errors = {}
        for i in pose.anchors:
            proj = table_to_pixels(layout.anchor(i).corners_mm(), camera, pose)
            self.anchor_errors[i] = float(np.linalg.norm(proj - np.asarray(corners[i]).reshape(4, 2), axis=1).max())
        missing = sorted(layout.anchor_ids - set(pose.anchors))
        self.register_text.setText(
            f"registered from anchors {', '.join(map(str, pose.anchors))}: reprojection {pose.reprojection_px:.3f} px"
            + (f"; not used: {', '.join(map(str, missing))}" if missing else ""))
        self.show_error_map(corners, layout, camera)
        self.say("table registered: see the check tab")
        return True

    def _error_map_widgets(self, box: QVBoxLayout) -> None:
        """The expected error over the table, from the lens's standard deviations: a heat map and its figures."""
        self.error_map_label = QLabel("")
        self.error_map_text = QLabel("")
        self.error_map_text.setWordWrap(True)
        self.error_map: np.ndarray | None = None
        box.addWidget(self.error_map_label)
        box.addWidget(self.error_map_text)

    def show_error_map(self, corners, layout: TableLayout, camera: CameraIntrinsics) -> None:
        """The expected error over the table as a heat map (calibration.uncertainty.error_map: one standard deviation
        of a point's place from the lens's standard deviations), or why there is none."""
        self.error_map = error_map(corners, layout, camera)
        if self.error_map is None:
            self.error_map_label.clear()
            self.error_map_text.setText("expected error over the table: the camera file gives no standard deviations "
                                        "(calibrate the camera here or with fieldglass calibrate camera)")
            return
        self.error_map_label.setPixmap(QPixmap.fromImage(numpy_to_qimage(heat_colours(self.error_map))).scaled(
            320, 160, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation))
        e = self.error_map
        self.error_map_text.setText(f"expected error over the table (blue small, red large; north up): median "
                                    f"{np.median(e):.2f} mm, p95 {np.percentile(e, 95):.2f} mm, max {e.max():.2f} mm")

    # ---------------------------------------------------------------- check

    def _check_tab(self) -> QWidget:
        w = QWidget()
        self.check_scene = QGraphicsScene(self)
        self.check_view = QGraphicsView(self.check_scene)
        self.check_view.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        self.check_view.setBackgroundBrush(QColor(30, 30, 34))
        self.check_text = QPlainTextEdit()
        self.check_text.setReadOnly(True)
        self.check_text.setMaximumHeight(110)
        again = QPushButton("Register again on the live frame")
        again.clicked.connect(lambda: (self.register(), self.refresh_check()))
        lay = QVBoxLayout(w)
        lay.addWidget(self.check_view, 1)
        row = QHBoxLayout()
        row.addWidget(self.check_text, 1)
        row.addWidget(again)
        lay.addLayout(row)
        return w

    def refresh_check(self) -> None:
        sc = self.check_scene
        sc.clear()
        if self.pose is None or getattr(self, "check_frame", None) is None:
            self.check_text.setPlainText("register the table first (tab 2)")
            return
        camera, layout, pose = self.camera_for_check, self.layout_, self.pose
        pix = QGraphicsPixmapItem(QPixmap.fromImage(numpy_to_qimage(self.check_frame)))
        sc.addItem(pix)
        mapper = LiveMapper(camera, pose)
        if layout.grid is not None:
            g = layout.grid
            xs = g.origin_x_mm + g.field_mm * np.arange(g.cols + 1)
            ys = g.origin_y_mm + g.field_mm * np.arange(g.rows + 1)
            segs = [[(x, ys[0]), (x, ys[-1])] for x in xs] + [[(xs[0], y), (xs[-1], y)] for y in ys]
            grid = QGraphicsPathItem(_path_lines(mapper, segs))
            grid.setPen(_pen(QColor(0, 255, 255, 200), 1.0))
            sc.addItem(grid)
        outline = QGraphicsPolygonItem(_polygon(mapper, np.array([[0, 0], [layout.width_mm, 0],
                                                                   [layout.width_mm, layout.depth_mm],
                                                                   [0, layout.depth_mm]], float)))
        outline.setPen(_pen(QColor(255, 255, 0), 2.0))
        sc.addItem(outline)
        for a in layout.anchors:
            item = QGraphicsPolygonItem(_polygon(mapper, a.corners_mm()[:, :2]))
            used = a.id in pose.anchors
            item.setPen(_pen(QColor(0, 230, 120) if used else QColor(255, 60, 60), 2.0))
            sc.addItem(item)
        self.check_view.fitInView(pix, Qt.AspectRatioMode.KeepAspectRatio)
        rms = camera.rms_px
        lines = [f"table pose: reprojection {pose.reprojection_px:.3f} px RMS over {len(pose.anchors)} anchors"
                 + (f"; lens calibration RMS {rms:.3f} px" if rms is not None else ""),
                 "per anchor (worst corner): " + ", ".join(f"{i}: {e:.2f} px" for i, e in
                                                             sorted(self.anchor_errors.items())),
                 "the cyan grid should lie on the table's grid everywhere, the yellow line on the table's edge"]
        grade = "good" if pose.reprojection_px < 1.0 else "usable" if pose.reprojection_px < 2.0 else "poor"
        lines.insert(0, f"calibration {grade}")
        self.check_text.setPlainText("\n".join(lines))

    # ---------------------------------------------------------------- roster

    def _roster_tab(self) -> QWidget:
        w = QWidget()
        recs = [{"id": p.id, "marker": p.marker, "side": p.side, "type": p.type, "base_w_mm": p.base_mm[0],
                 "base_d_mm": p.base_mm[1], "marker_mm": p.marker_mm, "marker_height_mm": p.marker_height_mm,
                 "offset_right_mm": p.marker_offset_mm[0], "offset_forward_mm": p.marker_offset_mm[1]}
                for p in self.roster.pieces]
        self.pieces = RecordsModel(PIECE_COLUMNS, recs, self)
        self.roster_dictionary = QLineEdit(self.roster.dictionary)
        view = _table(self.pieces)
        add = QPushButton("Add piece")
        add.clicked.connect(self._add_piece)
        remove = QPushButton("Remove piece")
        remove.clicked.connect(lambda: self.pieces.remove(view.currentIndex().row()))
        check = QPushButton("Check the roster")
        check.clicked.connect(lambda: self.roster_from_form() and self.say("the roster is valid"))
        lay = QVBoxLayout(w)
        form = QFormLayout()
        form.addRow("marker dictionary", self.roster_dictionary)
        lay.addLayout(form)
        lay.addWidget(view, 1)
        row = QHBoxLayout()
        for b in (add, remove, check):
            row.addWidget(b)
        lay.addLayout(row)
        return w

    def _add_piece(self) -> None:
        recs = self.pieces.records
        marker = max([int(r["marker"]) for r in recs if r.get("marker") != ""] or [9]) + 1
        last = dict(recs[-1]) if recs else {"side": "A", "type": "infantry", "base_w_mm": 40.0, "base_d_mm": 30.0,
                                            "marker_mm": 20.0, "marker_height_mm": 3.0, "offset_right_mm": 0.0,
                                            "offset_forward_mm": 0.0}
        last.update(id=f"piece-{marker}", marker=marker)
        self.pieces.add(last)

    def roster_from_form(self) -> Roster | None:
        data = {"dictionary": self.roster_dictionary.text().strip(), "piece": [
            {"id": r["id"], "marker": r["marker"], "side": r["side"], "type": r["type"],
             "base_mm": [r["base_w_mm"], r["base_d_mm"]], "marker_mm": r["marker_mm"],
             "marker_height_mm": r["marker_height_mm"],
             "marker_offset_mm": [r["offset_right_mm"], r["offset_forward_mm"]]} for r in self.pieces.records]}
        try:
            self.roster = parse_roster(data, "roster")
        except InputError as exc:
            self.say(str(exc), bad=True)
            return None
        return self.roster

    # ---------------------------------------------------------------- save

    def _save_tab(self) -> QWidget:
        w = QWidget()
        lay = QVBoxLayout(w)
        for text, fn, pattern in (("Save the camera file...", self.save_camera, "Camera (*.json)"),
                                  ("Save the layout...", self.save_layout, "Layout (*.toml)"),
                                  ("Save the roster...", self.save_roster, "Roster (*.toml)")):
            b = QPushButton(text)
            b.clicked.connect(lambda _=False, f=fn, p=pattern, t=text: self._ask_save(f, p, t))
            lay.addWidget(b)
        lay.addWidget(QLabel("Then start the dashboard with --camera, --layout and --roster pointing at these files."))
        lay.addStretch(1)
        return w

    def _ask_save(self, fn, pattern: str, title: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, title.rstrip("."), "", pattern)
        if path:
            fn(path)

    def save_camera(self, path) -> bool:
        if self.camera is None:
            self.say("no camera calibration to save yet", bad=True)
            return False
        return self._write(path, lambda: save_camera(self.camera, path))

    def save_layout(self, path) -> bool:
        layout = self.layout_from_form()
        return layout is not None and self._write(path, lambda: write_text(path, layout_to_toml(layout)))

    def save_roster(self, path) -> bool:
        roster = self.roster_from_form()
        return roster is not None and self._write(path, lambda: write_text(path, roster_to_toml(roster)))

    def _write(self, path, fn) -> bool:
        try:
            fn()
        except OSError as exc:
            self.say(f"{path}: cannot write ({exc.strerror or exc})", bad=True)
            return False
        except InputError as exc:  # the shared writer's one line (a folder, a full disk: the old file is kept)
            self.say(str(exc), bad=True)
            return False
        self.say(f"written: {path}")
        return True
