"""The calibration wizard for a rig: one tab per camera, each registered from the anchors in its photo, and an overlap
tab. The registration and its summary (which anchors each camera sees, which are shared, what to fix) are computed
by vision/rig_registration.py; this is the presentation.

A camera's tab shows its photo with the layout's anchors it found outlined: green when another camera sees the
anchor too (it ties the two views together), orange when only this camera does. The overlap tab draws the table from
above: each registered camera's view (its image border on the cloth), and every anchor coloured by how many cameras
see it, with the summary's lines below.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QGraphicsScene,
    QGraphicsView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from calibration.camera import CameraIntrinsics
from calibration.layout import TableLayout
from common.errors import InputError
from gui.qtapp import application
from gui.views import numpy_to_qimage, save_widget_png
from vision.pieces import camera_for_frame
from vision.rig_registration import CameraRegistration, RigRegistration, register_camera
from vision.sources import read_image

SHARED = QColor(40, 170, 60)  # an anchor two or more cameras see
ALONE = QColor(235, 140, 20)  # an anchor only one camera sees
UNSEEN = QColor(150, 150, 150)
VIEW_COLOURS = (QColor(40, 110, 220), QColor(200, 50, 150), QColor(20, 160, 170), QColor(150, 90, 30))


def _fit(view: QGraphicsView) -> None:
    view.fitInView(view.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)


class RigCalibrationWizard(QDialog):
    """Tabs: one per camera of the rig (its photo, anchors found, registration), then Overlap (the views on the table
    and the shared anchors). `frames` are the photos, `lenses` each camera's lens (rescaled to its photo)."""

    def __init__(self, layout: TableLayout, names: Sequence[str], frames: Sequence[np.ndarray],
                 lenses: Sequence[CameraIntrinsics], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Fieldglass — rig calibration")
        self.setObjectName("rig-calibration")
        self.layout_ = layout
        self.lenses = list(lenses)
        self.frames = list(frames)
        self.registration = RigRegistration(tuple(
            register_camera(n, f, c, layout) for n, f, c in zip(names, self.frames, self.lenses, strict=True)))
        self.tabs = QTabWidget()
        self.camera_views: list[QGraphicsView] = []
        self.camera_texts: list[QLabel] = []
        for i, cam in enumerate(self.registration.cameras):
            self.tabs.addTab(self._camera_tab(i), f"{i + 1} {cam.name}")
        self.tabs.addTab(self._overlap_tab(), f"{len(names) + 1} Overlap")
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs)
        self.resize(1200, 760)
        self.tabs.currentChanged.connect(lambda _: self.fit_views())
        self.refresh()

    def fit_views(self) -> None:
        """Every tab's whole picture in sight (after a resize or a change of tab)."""
        for view in (*self.camera_views, self.overlap_view):
            _fit(view)

    # ---------------------------------------------------------------- per camera

    def _camera_tab(self, index: int) -> QWidget:
        w = QWidget()
        view = QGraphicsView(QGraphicsScene(self))
        view.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = QLabel("")
        text.setWordWrap(True)
        again = QPushButton("Register from another photo...")
        again.clicked.connect(lambda: self._ask_photo(index))
        box = QVBoxLayout(w)
        box.addWidget(view, 1)
        box.addWidget(text)
        box.addWidget(again)
        self.camera_views.append(view)
        self.camera_texts.append(text)
        return w

    def _ask_photo(self, index: int) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Photo of the table", "", "Images (*.png *.jpg *.jpeg *.bmp)")
        if path:
            self.set_photo(index, path)

    def set_photo(self, index: int, path: str | Path) -> bool:
        """Register camera `index` again from the photo at `path`; False (and the reason shown) when it is unreadable
        or of another shape than the camera's."""
        cams = list(self.registration.cameras)
        try:
            frame = read_image(path)
            lens = camera_for_frame(self.lenses[index], frame, str(path))
        except InputError as exc:
            self.camera_texts[index].setText(str(exc))
            return False
        self.frames[index], self.lenses[index] = frame, lens
        cams[index] = register_camera(cams[index].name, frame, lens, self.layout_)
        self.registration = RigRegistration(tuple(cams))
        self.refresh()
        return True

    def camera_text(self, cam: CameraRegistration) -> str:
        shared = self.registration.shared()
        lines = self.registration.lines()
        own = next(line for line in lines if line.startswith(f"{cam.name}:"))
        partners = [f"{b if a == cam.name else a}: {', '.join(map(str, ids)) or 'none'}"
                    for a, b, ids in self.registration.pairs() if cam.name in (a, b)]
        alone = [i for i in cam.seen if i not in shared]
        return (own + "\nshared with " + "; ".join(partners)
                + (f"\nseen by this camera only: {', '.join(map(str, alone))}" if alone else ""))

    def _draw_camera(self, index: int) -> None:
        cam = self.registration.cameras[index]
        scene = self.camera_views[index].scene()
        scene.clear()
        frame = self.frames[index]
        scene.addPixmap(QPixmap.fromImage(numpy_to_qimage(frame)))
        scene.setSceneRect(QRectF(0, 0, frame.shape[1], frame.shape[0]))
        shared = self.registration.shared()
        width = max(2.0, frame.shape[1] / 400.0)
        for i, corners in cam.corners.items():
            colour = SHARED if i in shared else ALONE
            poly = QPolygonF([QPointF(float(x), float(y)) for x, y in np.asarray(corners).reshape(4, 2)])
            scene.addPolygon(poly, QPen(colour, width), QBrush(QColor(colour.red(), colour.green(), colour.blue(), 60)))
            label = scene.addSimpleText(str(i))
            label.setBrush(QBrush(colour))
            label.setScale(frame.shape[1] / 500.0)
            centre = np.asarray(corners).reshape(4, 2).mean(axis=0)
            label.setPos(float(centre[0]) + 4 * width, float(centre[1]) - 12 * width)
        _fit(self.camera_views[index])

    # ---------------------------------------------------------------- overlap

    def _overlap_tab(self) -> QWidget:
        w = QWidget()
        self.overlap_view = QGraphicsView(QGraphicsScene(self))
        self.overlap_view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.overlap_text = QPlainTextEdit()
        self.overlap_text.setReadOnly(True)
        self.overlap_text.setMaximumHeight(150)
        box = QVBoxLayout(w)
        box.addWidget(self.overlap_view, 1)
        box.addWidget(self.overlap_text)
        return w

    def _draw_overlap(self) -> None:
        """The table from above (x right, y up; 1 scene unit = 1 mm), each camera's view and every anchor."""
        lay = self.layout_
        scene = self.overlap_view.scene()
        scene.clear()
        scene.setSceneRect(QRectF(-100, -100, lay.width_mm + 200, lay.depth_mm + 200))
        scene.addRect(QRectF(0, 0, lay.width_mm, lay.depth_mm), QPen(QColor(60, 60, 60), 4),
                      QBrush(QColor(235, 235, 225)))
        self.view_items = []
        for k, cam in enumerate(self.registration.cameras):
            if not len(cam.view_mm):
                continue
            colour = VIEW_COLOURS[k % len(VIEW_COLOURS)]
            pts = np.clip(cam.view_mm, [-100, -100], [lay.width_mm + 100, lay.depth_mm + 100])
            poly = QPolygonF([QPointF(float(x), float(lay.depth_mm - y)) for x, y in pts])
            item = scene.addPolygon(poly, QPen(colour, 6), QBrush(QColor(colour.red(), colour.green(), colour.blue(),
                                                                         40)))
            self.view_items.append((cam.name, item))
            label = scene.addSimpleText(cam.name)
            label.setBrush(QBrush(colour))
            label.setScale(6.0)
            centre = pts.mean(axis=0)
            label.setPos(float(centre[0]) - 60, float(lay.depth_mm - centre[1]) - 40)
        seen_by = {a.id: sum(a.id in c.seen for c in self.registration.cameras) for a in lay.anchors}
        self.anchor_colours = {}
        for a in lay.anchors:
            n = seen_by[a.id]
            colour = SHARED if n > 1 else ALONE if n == 1 else UNSEEN
            self.anchor_colours[a.id] = colour
            s = a.size_mm
            scene.addRect(QRectF(a.x_mm - s / 2, lay.depth_mm - a.y_mm - s / 2, s, s), QPen(colour, 4), QBrush(colour))
            label = scene.addSimpleText(f"{a.id} ({n})")
            label.setScale(4.0)
            label.setPos(a.x_mm + s / 2 + 6, lay.depth_mm - a.y_mm - s / 2)
        self.overlap_text.setPlainText("\n".join(self.registration.lines()))
        _fit(self.overlap_view)

    def refresh(self) -> None:
        for i, cam in enumerate(self.registration.cameras):
            self._draw_camera(i)
            self.camera_texts[i].setText(self.camera_text(cam))
            self.camera_texts[i].setStyleSheet("" if cam.registered else "color: #c33;")
        self._draw_overlap()

    def save_screenshot(self, path: str | Path) -> Path:
        return save_widget_png(self, path)


def show_rig_wizard(layout: TableLayout, names: Sequence[str], frames: Sequence[np.ndarray],
                    lenses: Sequence[CameraIntrinsics], *, headless: bool, screenshot: str | Path) -> int:
    """`fieldglass calibrate rig --gui`: the wizard on the photos; headless, save a screenshot of each tab (the
    overlap tab at `screenshot`, camera tabs beside it named -<camera>) and return 0, else run until it closes."""
    if headless and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    app = application()
    wizard = RigCalibrationWizard(layout, names, frames, lenses)
    if not headless:
        wizard.show()
        return int(app.exec())
    wizard.show()
    shot = Path(screenshot)
    for i, name in [*enumerate(names), (len(names), "")]:
        wizard.tabs.setCurrentIndex(i)
        app.processEvents()
        wizard.fit_views()
        path = shot.with_name(f"{shot.stem}-{name}{shot.suffix}") if name else shot
        print(f"screenshot: {wizard.save_screenshot(path)}")
    wizard.close()
    return 0
