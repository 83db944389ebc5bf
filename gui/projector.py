"""The projector's window (issue 30): a borderless full-screen window on the projector's display that draws the
system's pictures (rules/picture.py items, the same plain data the views draw) onto the cloth, in table mm mapped
through the projector (calibration/projector.py), bright on black.

Nothing is lit on a piece's base or an anchor (`keep_out_px`): the camera must keep reading the markers. What is
projected is chosen by category (arc, ranges, fire lines, reach, zones, labels): by the items' kinds, with no game
system named; the View menu's Projector entries and Alt+1..6 toggle them. When the camera registers the table moved
(the table slid under the rig), the map follows it. `PatternScreen` shows `fieldglass calibrate projector`'s patterns.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication, QImage, QKeySequence, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

from calibration.projector import ProjectorModel, keep_out_px
from calibration.registration import bumped
from common.errors import InputError
from gui.picture import PENS, _densify
from rules.picture import Area, Dot, Item, Label, Line, rgb
from vision.keep_out import keep_outs

CATEGORIES = ("arc", "ranges", "fire lines", "reach", "zones", "labels")
"""What may be projected, in the View menu's order (Alt+1 .. Alt+6)."""
_WORDS = (  # an item's kind -> its category, by the words kinds are made of (first match; "fire-zone" is a range)
    ("ranges", ("range", "fire-zone", "radius", "small_arms", "artillery")),
    ("arc", ("arc", "facing", "wheel", "front")),
    ("fire lines", ("fire-line", "target-line", "sight", "line", "blocker")),
    ("reach", ("reach", "move", "path", "approach")),
    ("zones", ("zone", "zoc", "contact")),
)
DENSIFY_MM = 20.0
"""Straight table lines are cut this fine before mapping (the projector's lens bends them a little)."""


def category(item: Item) -> str | None:
    """The projected category of a picture item; None for what is never projected (terrain, pieces' outlines)."""
    if isinstance(item, Label):
        return "labels"
    kind = item.kind
    for name, words in _WORDS:
        if any(w in kind for w in words):
            return name
    return None


def screen_geometry(index: int):
    """The QScreen of display `index`; InputError listing the displays when there is none."""
    screens = QGuiApplication.screens()
    if not 0 <= index < len(screens):
        names = ", ".join(f"{i}: {s.name()} {s.geometry().width()}x{s.geometry().height()}"
                          for i, s in enumerate(screens))
        raise InputError(f"--screen {index}: no such display (there are {len(screens)}: {names or 'none'})")
    return screens[index]


def grab_screen(index: int) -> np.ndarray:
    """What display `index` shows now, BGR (h, w, 3) uint8 (a simulated projector throws it: the calibration and the
    projector's window are tested on a second display of one X server)."""
    QGuiApplication.processEvents()
    img = screen_geometry(index).grabWindow(0).toImage().convertToFormat(QImage.Format.Format_BGR888)
    w, h = img.width(), img.height()
    a = np.frombuffer(img.constBits(), np.uint8, img.bytesPerLine() * h).reshape(h, img.bytesPerLine())
    return a[:, : 3 * w].reshape(h, w, 3).copy()


def _place_full_screen(widget: QWidget, index: int | None) -> None:
    widget.setWindowFlags(Qt.WindowType.FramelessWindowHint | Qt.WindowType.Window)
    if index is None:
        return
    screen = screen_geometry(index)
    widget.setScreen(screen)
    widget.setGeometry(screen.geometry())


def _bgr_image(array: np.ndarray) -> QImage:
    a = np.ascontiguousarray(array if array.ndim == 3 else np.repeat(array[:, :, None], 3, axis=2))
    h, w = a.shape[:2]
    return QImage(a.data, w, h, 3 * w, QImage.Format.Format_BGR888).copy()


class _Screen(QWidget):
    """A black borderless window showing one QImage scaled to it."""

    def __init__(self, index: int | None, size: tuple[int, int]):
        super().__init__()
        self.setWindowTitle("Fieldglass projector")
        self.setStyleSheet("background: black")
        self.image = QImage(int(size[0]), int(size[1]), QImage.Format.Format_RGB888)
        self.image.fill(Qt.GlobalColor.black)
        _place_full_screen(self, index)
        if index is None:
            self.resize(int(size[0]), int(size[1]))

    def paintEvent(self, event) -> None:  # noqa: N802  (Qt's name)
        p = QPainter(self)
        p.fillRect(self.rect(), Qt.GlobalColor.black)
        p.drawImage(QRectF(self.rect()), self.image)
        p.end()


class PatternScreen(_Screen):
    """`fieldglass calibrate projector`'s window: each image shown full screen on display `index`."""

    def show_pattern(self, image: np.ndarray) -> None:
        """Show `image` and return once it is on the display (the window mapped and painted)."""
        self.image = _bgr_image(image)
        if not self.isVisible():
            self.showFullScreen()
        t0 = time.monotonic()
        while not (self.windowHandle() is not None and self.windowHandle().isExposed()) and time.monotonic() - t0 < 3:
            QGuiApplication.processEvents()
            time.sleep(0.01)
        self.repaint()
        QGuiApplication.processEvents()


class ProjectorWindow(_Screen):
    """The projected overlay: `show_picture` draws items into an image of the projector's size, which the window
    shows full screen on the projector's display (`model.screen`, or `screen`)."""

    def __init__(self, model: ProjectorModel, screen: int | None = None):
        index = screen if screen is not None else model.screen
        super().__init__(index, model.image_size)
        self.index = index
        # the dashboard's window closing ends the program: this one does not keep it running
        self.setAttribute(Qt.WidgetAttribute.WA_QuitOnClose, False)
        self.calibrated = model
        self.model = model
        self.shown = {c: c != "labels" for c in CATEGORIES}
        self.drawn_items: tuple[Item, ...] = ()
        self.frames = 0  # pictures drawn (a test counts them)
        self._last = ((), ())

    # -------------------------------------------------------------------- what is shown
    def set_shown(self, name: str, on: bool) -> None:
        self.shown[name] = bool(on)
        self.show_picture(*self._last)

    def follow(self, camera_pose) -> None:
        """The camera's pose this frame: when it moved relative to the table (the table was moved under the rig),
        the map follows; a pose within a few mm of the last is the same and changes nothing (no jitter)."""
        if camera_pose is not None and bumped(self.model.camera_pose, camera_pose):
            self.model = self.calibrated.following(camera_pose)

    def show_picture(self, picture: Iterable[Item], keep_out: Iterable[tuple[np.ndarray, float]] = ()) -> None:
        """Draw `picture`'s items of the shown categories, then black over each keep-out (a base or anchor
        footprint (N, 2) table mm and its top's height)."""
        items = tuple(picture)
        keep = tuple(keep_out)
        self._last = (items, keep)
        img = QImage(*self.model.image_size, QImage.Format.Format_RGB888)
        img.fill(Qt.GlobalColor.black)
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        drawn = tuple(it for it in sorted(items, key=lambda it: it.layer)
                      if (c := category(it)) is not None and self.shown.get(c, False))
        for it in drawn:
            self._draw(p, it)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(Qt.GlobalColor.black))
        for polygon_mm, top_mm in keep:
            px = keep_out_px(self.model, polygon_mm, top_mm)
            if len(px) >= 3:
                p.drawPolygon(_qpoly(px))
        p.end()
        self.image = img
        self.drawn_items = drawn
        self.frames += 1
        self.update()

    def frame_array(self) -> np.ndarray:
        """The projected image as BGR (h, w, 3) uint8: what the projector throws (tests, benchmark, README)."""
        img = self.image.convertToFormat(QImage.Format.Format_BGR888)
        w, h = img.width(), img.height()
        a = np.frombuffer(img.constBits(), np.uint8, img.bytesPerLine() * h).reshape(h, img.bytesPerLine())
        return a[:, : 3 * w].reshape(h, w, 3).copy()

    def refresh_from(self, main) -> None:
        """Draw what the dashboard `main` (gui/app.py MainWindow) shows now: called from its refresh, so the cloth
        is updated in the same frame as the views."""
        result = main.last_result
        if result is not None:
            self.follow(result.reading.pose)
        picture = main.session.pictures((False, True))[0]
        self.show_picture(picture, keep_outs(main.session.reading, main.session.roster, main.setup.layout))

    def save_frame(self, path) -> str:
        """The projected image as a PNG (what the projector throws, at its resolution)."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if not self.image.save(str(path)):
            raise InputError(f"{path}: cannot write the projector's frame")
        return str(path)

    # -------------------------------------------------------------------- drawing
    def _points(self, xy, z: float, closed: bool = False) -> np.ndarray:
        pts = _densify(np.asarray(xy, float).reshape(-1, 2), DENSIFY_MM, closed)
        px = self.model.to_pixels(pts, z)
        return px[np.all(np.isfinite(px), axis=1)]

    def _draw(self, p: QPainter, it: Item) -> None:
        tone = _bright(it.tone)
        if isinstance(it, Area):
            edge = _bright(it.edge_tone or it.tone)
            p.setPen(_pen(edge, it.width * 1.5, it.pen))
            fill = QColor(tone)
            fill.setAlphaF(min(1.0, max(0.25, it.fill)))
            p.setBrush(QBrush(fill))
            for poly in it.polygons:
                px = self._points(poly, it.z_mm, closed=True)
                if len(px) >= 3:
                    p.drawPolygon(_qpoly(px))
        elif isinstance(it, Line):
            p.setPen(_pen(tone, it.width * 1.5, it.pen))
            p.setBrush(Qt.BrushStyle.NoBrush)
            for path in it.paths:
                px = self._points(path, it.z_mm)
                if len(px) >= 2:
                    p.drawPolyline(_qpoly(px))
        elif isinstance(it, Dot):
            px = self._points([it.at], it.z_mm)
            if len(px):
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(QBrush(tone))
                p.drawEllipse(QPointF(*px[0]), it.radius_px, it.radius_px)
        elif isinstance(it, Label) and not it.screen:
            px = self._points([it.at], it.z_mm)
            if len(px):
                p.setPen(QPen(tone))
                font = QFont()
                font.setPixelSize(max(10, round(it.size * 2)))
                font.setBold(it.bold)
                p.setFont(font)
                x, y = px[0] + np.asarray(it.offset_px, float)
                p.drawText(QPointF(float(x), float(y)), it.text)


def _qpoly(px: np.ndarray) -> QPolygonF:
    return QPolygonF([QPointF(x, y) for x, y in np.asarray(px, float).tolist()])


def _bright(tone: str) -> QColor:
    """The palette's tone at full brightness: on a cloth, a projector's light is all there is of a colour."""
    try:
        r, g, b = rgb(tone)
    except KeyError:
        r, g, b = 255, 255, 255
    c = QColor(r, g, b)
    return QColor.fromHsvF(c.hsvHueF() if c.hsvHueF() >= 0 else 0.0, c.hsvSaturationF(), 1.0)


def _pen(colour: QColor, width: float, style: str) -> QPen:
    pen = QPen(colour, max(2.0, width))
    pen.setStyle(PENS.get(style, Qt.PenStyle.SolidLine))
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    return pen


def add_projector_menu(view_menu, window: ProjectorWindow) -> list:
    """The View menu's Projector entries (checkable, Alt+1 .. Alt+6): what is projected."""
    sub = view_menu.addMenu("Projector")
    actions = []
    for i, name in enumerate(CATEGORIES):
        act = sub.addAction(f"Project {name}")
        act.setCheckable(True)
        act.setChecked(window.shown[name])
        act.setShortcut(QKeySequence(f"Alt+{i + 1}"))
        act.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)  # also with the projector's window focused
        act.toggled.connect(lambda on, n=name: window.set_shown(n, on))
        actions.append(act)
    return actions


def attach_projector(main, model: ProjectorModel, screen: int | None = None, show: bool = True) -> ProjectorWindow:
    """The projector's window for the dashboard `main`: its View menu's Projector entries, drawn on every refresh."""
    window = ProjectorWindow(model, screen)
    view_menu = next(a.menu() for a in main.menuBar().actions() if a.text().replace("&", "") == "View")
    main.projector_actions = add_projector_menu(view_menu, window)
    main.projector = window
    if show:  # full screen on the projector's display; a file without one (a simulation's): a plain window
        window.showFullScreen() if window.index is not None else window.show()
    window.refresh_from(main)
    return window
