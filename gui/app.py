"""The Fieldglass dashboard: the live table with overlays, the board view, targets, combat and the game state.

`MainWindow` is handed a set-up (the wiring's `fieldglass.session.Setup`, duck-typed: its files and
`make_session()`), observes the session it makes (no rules logic here) and a `CaptureWorker` thread that hands it only
the newest processed frame. `show_dashboard(setup, ...)` is the window of `fieldglass gui` (fieldglass/commands/gui.py
reads the files and builds the set-up); without a display it runs headless: a few frames offscreen, a printout of
what the camera sees, a screenshot of the window.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import QByteArray, QRectF, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from calibration.layout import layout_to_toml
from common.dice_tray import tray_problem
from common.errors import InputError
from common.outfiles import write_text
from gui.board_editor import BoardEditor
from gui.calibration import CalibrationWizard
from gui.legend import LegendPanel
from gui.panels import CombatPanel, GameStatePanel, SelectionPanel, SystemPanel, SystemPanels
from gui.projector import attach_projector
from gui.qtapp import application
from gui.record_controls import PromptBar
from gui.rig_calibration import RigCalibrationWizard
from gui.rig_worker import RigCaptureWorker
from gui.views import BoardMapper, LiveMapper, TableView, save_widget_png
from gui.worker import CaptureWorker
from rules import position as positions
from rules.board import board_to_toml
from rules.picture import LEGEND, legend
from vision.dice_watch import DiceWatch
from vision.rectify import BoardRectifier
from vision.sources import is_live, open_source
from vision.synthetic import SyntheticSource, demo_scene
from vision.synthetic_dice import a_throw, throw_spot

BOARD_SCALES = (1.0, 1.5, 2.0, 3.0, 4.0)
DOCK_SHARE, DOCK_MIN_PX, DOCK_MAX_PX = 0.27, 330, 560
"""The panels' share of the window's width, at least and at most: the table views get the rest."""
SYSTEM_PANEL_KEYS = ("F5", "F6", "F7", "F8", "F9")
"""The shortcuts of a system's own panels (rules.live.Panel), in the order it gives them."""
SHORTCUTS = """\
Esc               clear the selection
Tab / Shift+Tab   select the next / previous piece on the table
click, Shift+click  select a piece, then a second piece for the pair
F                 fit the views      + / -  zoom
1 / 2 / 3         live view / board view / both
Ctrl+Shift+0, 1.. the board view over the whole table / zoomed to one surface (a map, a battle board)
G / L             grid / labels on or off
P                 pause or resume the camera
N                 next phase (the other side becomes active)
Ctrl+R            record the game (File > New record); Ctrl+Shift+R resume a record
Ctrl+Z / Ctrl+Shift+Z  undo / redo the record's last event (a move, a combat, a turn...)
M / B             a note (about the selected piece) / a bookmark, in the record
E                 place the selected piece: click where it really stands (E again: type its field)
Ctrl+E            end the game: the winner, then the report and the HTML replay
F2 / F3 / F4      targets / combat / game state panel
F5 ... F9         the game system's own panels (e.g. date, production, diplomacy), one dock with a chooser
F12               the legend: what each mark on the table means
Ctrl+Return       resolve the combat with the typed dice
Ctrl+D            roll the dice (seeded) and resolve
Ctrl+T            the synthetic table: throw dice for the selected action (real dice: throw them in the tray)
Ctrl+Shift+Return apply the result to the game state
Ctrl+K            calibration wizard
Ctrl+S            save a screenshot      Ctrl+Shift+S  save the position (JSON)
Ctrl+O            open a source          Ctrl+Q        quit
"""


TRAY = "\0dice tray"  # the place mode's "piece" while the dice tray's corners are clicked


def open_frame_source(setup, *, frames: int | None = None, resolution=(1920, 1080), hand: bool = False):
    """The source named by `setup.source` and whether it is live (a camera or stream: frames may be dropped)."""
    spec = setup.source
    if spec == "synthetic":
        return SyntheticSource(getattr(setup, "scene", None) or demo_scene(), resolution=resolution, frames=frames,
                               hand_period=24 if hand else None), False
    return open_source(spec, frames), is_live(spec)


class MainWindow(QMainWindow):
    """The dashboard over `setup` (source name, camera, layout, roster, system... and `make_session()`, which makes
    the live model this window observes)."""

    projector = None  # the projector's window (gui/projector.py), drawn on every refresh, when one is attached

    def __init__(self, setup, *, settings: QSettings | None = None, source_options: dict | None = None):
        super().__init__()
        self.setup = setup
        self.session = setup.make_session()
        self.settings = settings or QSettings("Fieldglass", "Fieldglass")
        self.source_options = dict(source_options or {})
        self.worker: CaptureWorker | None = None
        self.last_result = None
        self.screen_latency_ms: float | None = None  # a frame's arrival -> the live view painted it, the last frame
        self._on_screen_pending: float | None = None  # arrival time of the frame shown but not painted yet
        self._drawn: tuple | None = None  # what the views were last redrawn from (`_drawn_from`)
        self.paused = False
        self.last_recording = None
        self.recording = None  # the game being recorded (the set-up's `open_recording`: a TableRecording)
        self._t0 = time.monotonic()
        self._placing: str | None = None  # the piece a click on a view places (TRAY: the dice tray's corners)
        self._tray_corner: tuple[float, float] | None = None  # the dice tray's first corner clicked, table mm
        self.record_timer = QTimer(self)
        self.record_timer.setInterval(200)
        self.record_timer.timeout.connect(self.poll_recording)
        self.board_mm_per_px = float(self.settings.value("board_mm_per_px", 2.0))
        self.connection = ("connecting", f"{setup.source}: opening")
        self.lens_note = ""  # which lens the frames are read with (the worker's StreamLens), said once it changes
        self.setWindowTitle(f"Fieldglass — {setup.source} — {setup.system}")

        self._build_views()
        self._build_docks()
        self._build_status_bar()
        self._build_actions()
        self._connect_session()
        self._refresh_pending = False
        self._docks_fitted = False
        self._legend_sized = False
        self.resize(1366, 740)
        self._viewer_menu()
        if self.setup.layout.grid is None:
            self.grid_action.setChecked(False)
        self._restore_settings()
        self._refresh_all()

    # ---- building the window

    def _build_views(self) -> None:
        """The live and board views, one above the other in a splitter: the central widget."""
        # a rig (several cameras over the table): one live view per camera, side by side
        self.camera_views = {name: TableView(f"live {name}") for name, _, _ in getattr(self.setup, "rig", ())}
        self.live_view = next(iter(self.camera_views.values())) if self.camera_views else TableView("live")
        self.board_view = TableView("board")
        self.views = [*(self.camera_views.values() or [self.live_view]), self.board_view]
        for v in self.views:
            v.session = self.session
            v.pieceClicked.connect(self._piece_clicked)
            v.backgroundClicked.connect(self.session.clear_selection)
            v.tableClicked.connect(self._place_clicked)
            v.hovered.connect(lambda text: self.statusBar().showMessage(text, 3000))
        self.board_view.set_message("the board view appears once the table is registered")
        self.live_view.painted.connect(self._painted)
        # one above the other: the camera's frame is wide (16:9), so is a table, and side by side a deep table's
        # board view gained less than its live view lost
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("views")
        self.live_area = self.live_view
        if self.camera_views:
            self.live_area = QSplitter(Qt.Orientation.Horizontal)
            self.live_area.setObjectName("camera-views")
            for v in self.camera_views.values():
                self.live_area.addWidget(v)
        self.split.addWidget(self.live_area)
        self.split.addWidget(self.board_view)
        self.prompts = PromptBar()  # the recorder's questions, above the views, never modal
        self.prompts.answered.connect(self._prompt_answered)
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.prompts)
        lay.addWidget(self.split, 1)
        self.setCentralWidget(central)

    def _build_docks(self) -> None:
        """The targets, combat and game state panels, tabbed in the right dock area (targets in front)."""
        self.selection_panel = SelectionPanel(self.session)
        self.combat_panel = CombatPanel(self.session)
        self.game_panel = GameStatePanel(self.session)
        self.docks = {}
        for key, title, panel in (("targets", "Targets && pair", self.selection_panel),
                                  ("combat", "Combat", self.combat_panel),
                                  ("game", "Game state", self.game_panel)):
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock-{key}")
            dock.setWidget(panel)
            dock.setMinimumWidth(DOCK_MIN_PX)
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            self.docks[key] = dock
        self.tabifyDockWidget(self.docks["targets"], self.docks["combat"])
        self.tabifyDockWidget(self.docks["combat"], self.docks["game"])
        self.system_panels: dict[str, SystemPanel] = {}
        self.system_chooser: SystemPanels | None = None  # the system's panels' one dock, made with the first
        self._refresh_system_panels()
        self.legend = LegendPanel()
        dock = QDockWidget("Legend", self)
        dock.setObjectName("dock-legend")
        dock.setWidget(self.legend)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.hide()  # View > Legend (F12)
        dock.visibilityChanged.connect(self._legend_shown)
        self.docks["legend"] = dock
        self.legend_timer = QTimer(self)  # the marks drawn change with the table: looked at again every second
        self.legend_timer.setInterval(1000)
        self.legend_timer.timeout.connect(self.update_legend)
        self.legend_timer.start()
        self.docks["targets"].raise_()
        self.combat_panel.applied.connect(self._schedule)

    def _system_dock(self, panel) -> SystemPanel:
        """One of the system's own panels (rules.live.Panel), in the system's one dock (tabbed with the game state
        panel): a chooser over its panels."""
        if self.system_chooser is None:
            self.system_chooser = SystemPanels()
            dock = QDockWidget("System", self)
            dock.setObjectName("dock-system")
            dock.setWidget(self.system_chooser)
            dock.setMinimumWidth(DOCK_MIN_PX)
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            self.tabifyDockWidget(self.docks["game"], dock)
            self.docks["system"] = dock
        widget = SystemPanel(panel.key)
        widget.chosen.connect(self.fill_combat)
        self.system_chooser.add(panel.key, panel.title, widget)
        self.system_panels[panel.key] = widget
        return widget

    def _refresh_system_panels(self) -> None:
        """Lay out the system's panels for the session's position (a panel new since the last time gets its dock)."""
        try:
            panels = self.session.panels()
        except InputError as exc:  # a position the system cannot describe yet: said, not raised
            self.statusBar().showMessage(str(exc), 8000)
            return
        for panel in panels:
            widget = self.system_panels.get(panel.key) or self._system_dock(panel)
            widget.show_panel(panel)

    def fill_combat(self, act) -> None:
        """A panel's action (rules.live.PanelAction) filled into the combat panel, which comes to the front."""
        self.combat_panel.prefill(act)
        self.show_panel("combat")

    def _build_status_bar(self) -> None:
        """Frame rate, pieces seen, calibration health and the camera's state, permanently in the status bar."""
        self.record_label = QLabel("not recording")
        self.record_label.setToolTip("File > New record (Ctrl+R) records the game")
        self.record_label.setContentsMargins(6, 0, 6, 0)
        self.statusBar().addPermanentWidget(self.record_label)
        self.fps_label = QLabel("– fps")
        self.pieces_label = QLabel("pieces –")
        self.calib_label = QLabel("calibration –")
        self.camera_label = QLabel("camera –")
        for w in (self.fps_label, self.pieces_label, self.calib_label, self.camera_label):
            w.setContentsMargins(6, 0, 6, 0)
            self.statusBar().addPermanentWidget(w)

    def _connect_session(self) -> None:
        """Refresh on the session's position, state, selection and dice thrown; show its messages."""
        ev = self.session.events
        ev.position.connect(lambda pos: self._schedule())
        ev.state.connect(self._schedule)
        ev.dice.connect(lambda throw: self._schedule())  # the views mark the dice read
        ev.selection.connect(self._selection_changed)
        ev.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        ev.action.connect(self._record_action)

    # ---- actions and shortcuts

    def _viewer_menu(self) -> None:
        """View > the umpire's and each player's view (Ctrl+0, Ctrl+1, ...) when the system hides information."""
        s = self.session
        self.viewer_actions: dict[str, QAction] = {}
        if len(s.viewers) < 2:
            return
        menu = next(a.menu() for a in self.menuBar().actions() if a.text().replace("&", "") == "View")
        menu.addSeparator()
        group = QActionGroup(self)
        titles = s.live.viewer_titles
        for i, viewer in enumerate(s.viewers):
            act = QAction(titles.get(viewer, f"{viewer} player view" if i else "Umpire view"), self)
            act.setCheckable(True)
            act.setShortcut(QKeySequence(f"Ctrl+{i}"))
            act.toggled.connect(lambda on, v=viewer: on and self.set_viewer(v))
            group.addAction(act)
            menu.addAction(act)
            self.viewer_actions[viewer] = act
        self.viewer_actions[s.viewer].setChecked(True)

    def _surface_menu(self, menu) -> None:
        """View > Surface: the board view over the whole table or zoomed to one surface (Ctrl+Shift+1, 2, ...) when the
        system's table has more than one (a map and a battle board)."""
        names = tuple(self.session.live.surfaces)
        if len(names) < 2:
            return
        sub = menu.addMenu("Surface")
        self._action(sub, "Whole table", "Ctrl+Shift+0", lambda: self.show_surface(None))
        for i, name in enumerate(names, start=1):
            self._action(sub, f"{name.capitalize()} surface", f"Ctrl+Shift+{i}", lambda n=name: self.show_surface(n))

    def surface_rect(self, name: str) -> QRectF | None:
        """Where a surface of the table lies in the board view's scene: its board's corners through its registered
        pose (the main surface: the board, or the table where the board is the table); None while the surface is not
        registered or the view has no picture yet."""
        s, view = self.session, self.board_view
        main = name == (s.live.surfaces or ("",))[0]
        board = s.board if main else s.surface_boards.get(name)
        to_table = s.to_table if main else s.surface_to_table(name)
        if board is None or view.mapper is None or (not main and to_table is None):
            return None
        corners = [(0.0, 0.0), (board.width_mm, 0.0), (board.width_mm, board.depth_mm), (0.0, board.depth_mm)]
        table = np.asarray(to_table(corners) if to_table is not None else corners, float)
        px = view.mapper.points(table)
        (x0, y0), (x1, y1) = px.min(axis=0), px.max(axis=0)
        return QRectF(float(x0), float(y0), float(x1 - x0), float(y1 - y0))

    def show_surface(self, name: str | None) -> None:
        """Zoom the board view to one surface of the table (None: the whole table)."""
        if name is None:
            self.board_view.fit()
            return
        rect = self.surface_rect(name)
        if rect is None:
            self.statusBar().showMessage(f"the {name} surface is not registered yet (its anchors not seen)", 6000)
            return
        self.board_view.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.AspectRatioMode.KeepAspectRatio)
        self.board_view._user_zoom = True  # kept when new frames come in, until Fit

    def set_viewer(self, viewer: str) -> None:
        """Show the table as `viewer` may see it (hidden identities withheld) and refresh every panel."""
        self.session.set_viewer(viewer)
        if not self.viewer_actions[viewer].isChecked():
            self.viewer_actions[viewer].setChecked(True)
        self.combat_panel.refresh()
        self._refresh_all()

    def _action(self, menu, text, shortcut, slot, checkable=False, checked=False) -> QAction:
        act = QAction(text, self)
        if shortcut:
            act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.setCheckable(checkable)
        if checkable:
            act.setChecked(checked)
            act.toggled.connect(slot)
        else:
            act.triggered.connect(slot)
        menu.addAction(act)
        return act

    def _build_actions(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self._action(f, "Open source (camera index, file or URL)...", "Ctrl+O", self.ask_source)
        self._action(f, "Save screenshot...", "Ctrl+S", self.ask_screenshot)
        self._action(f, "Save position (JSON)...", "Ctrl+Shift+S", self.ask_save_position)
        f.addSeparator()
        self._action(f, "New record...", "Ctrl+R", lambda: self.ask_record(False))
        self._action(f, "Resume record...", "Ctrl+Shift+R", lambda: self.ask_record(True))
        self.stop_record_action = self._action(f, "Stop recording", None, self.stop_recording)
        self.stop_record_action.setEnabled(False)
        f.addSeparator()
        self._action(f, "Quit", "Ctrl+Q", self.close)
        v = mb.addMenu("&View")
        group = QActionGroup(self)
        self.view_actions = {}
        for key, text, sc in (("live", "Live view", "1"), ("board", "Board view", "2"), ("both", "Both", "3")):
            act = self._action(v, text, sc, lambda on, k=key: on and self.set_view_mode(k), checkable=True)
            group.addAction(act)
            self.view_actions[key] = act
        self._surface_menu(v)
        v.addSeparator()
        self._action(v, "Fit", "F", self.fit_views)
        self._action(v, "Zoom in", "+", lambda: self._zoom(1.25))
        self._action(v, "Zoom out", "-", lambda: self._zoom(0.8))
        self.grid_action = self._action(v, "Grid", "G", self._toggle_grid, checkable=True, checked=True)
        self.labels_action = self._action(v, "Labels", "L", self._toggle_labels, checkable=True, checked=True)
        self.pause_action = self._action(v, "Pause camera", "P", self._toggle_pause, checkable=True)
        scale = v.addMenu("Board scale")
        sg = QActionGroup(self)
        for mm in BOARD_SCALES:
            act = self._action(scale, f"{mm:g} mm per pixel", None, lambda on, m=mm: on and self.set_board_scale(m),
                               checkable=True, checked=abs(mm - self.board_mm_per_px) < 1e-6)
            sg.addAction(act)
        self._panel_actions(v)
        g = mb.addMenu("&Game")
        self._action(g, "Clear selection", "Esc", self._escape)
        self._action(g, "Next piece", "Tab", lambda: self.cycle_selection(1))
        self._action(g, "Previous piece", "Shift+Tab", lambda: self.cycle_selection(-1))
        self._action(g, "Next phase", "N", self.game_panel.next_phase)
        g.addSeparator()
        self._action(g, "Resolve with the typed dice", "Ctrl+Return", lambda: self._combat(False))
        self._action(g, "Roll dice and resolve", "Ctrl+D", lambda: self._combat(True))
        self._action(g, "Apply the result", "Ctrl+Shift+Return", self.combat_panel.apply)
        self._record_actions(g)
        self._tools_actions(mb.addMenu("&Tools"))
        h = mb.addMenu("&Help")
        self._action(h, "Keyboard shortcuts", "F1", lambda: QMessageBox.information(self, "Shortcuts", SHORTCUTS))
        self._action(h, "Legend", None, lambda: self.show_panel("legend"))
        self.view_actions["both"].setChecked(True)

    def _tools_actions(self, t) -> None:
        """Tools > the wizards, the board editor and the dice tray (and a throw on the synthetic table)."""
        self._action(t, "Calibration wizard...", "Ctrl+K", self.open_calibration)
        self._action(t, "Board editor...", "Ctrl+B", self.open_board_editor)
        t.addSeparator()
        self._action(t, "Dice tray: two corners...", None, self.ask_dice_tray)
        self._action(t, "Save the layout with its dice tray...", None, self.ask_save_tray)
        self._action(t, "Throw dice on the synthetic table", "Ctrl+T", lambda: self.throw_synthetic_dice())

    def _panel_actions(self, v) -> None:
        """View > each panel (F2 ...), the system's own (F5 ...) and the legend (F12)."""
        v.addSeparator()
        for key, sc in (("targets", "F2"), ("combat", "F3"), ("game", "F4")):
            self._action(v, f"{self.docks[key].windowTitle().replace('&&', '&')} panel", sc,
                         lambda k=key: self.show_panel(k))
        for key, sc in zip(self.system_panels, SYSTEM_PANEL_KEYS, strict=False):
            title = self.system_chooser.chooser.itemText(self.system_chooser.keys.index(key))
            self._action(v, f"{title[:1].upper()}{title[1:]} panel", sc, lambda k=key: self.show_panel(k))
        self._action(v, "Legend", "F12", lambda: self.show_panel("legend"))

    def _record_actions(self, g) -> None:
        """Game > the record's actions: undo, redo, a note, a bookmark, a piece placed by hand, the end."""
        g.addSeparator()
        self._action(g, "Undo the record's last event", "Ctrl+Z", self.undo)
        self._action(g, "Redo", "Ctrl+Shift+Z", self.redo)
        self._action(g, "Note...", "M", lambda: self.add_note())
        self._action(g, "Bookmark", "B", lambda: self.add_bookmark())
        self._action(g, "Place the selected piece...", "E", self.place_selected)
        self._action(g, "End game...", "Ctrl+E", lambda: self.end_game())

    # ---- capture

    def start(self, *, frames: int | None = None) -> None:
        """Open the source and start the capture thread; a bad source becomes a message, not a traceback."""
        self.stop()
        if self.camera_views:
            self._start_rig(frames)
            return
        opts = self.source_options
        try:
            source, live = open_frame_source(self.setup, frames=frames if self.setup.source == "synthetic" else None,
                                             resolution=opts.get("resolution", (1920, 1080)),
                                             hand=opts.get("hand", False))
        except InputError as exc:
            self._connection("error", str(exc))
            return
        dice = bool(getattr(self.setup, "read_dice", True)) and self.session.live.uses_dice
        self.worker = CaptureWorker(self.setup, source, live=live, board_mm_per_px=self.board_mm_per_px,
                                    max_frames=frames, dice=dice, parent=self)
        self.worker.ready.connect(self.on_ready)
        self.worker.status.connect(self._connection)
        self.worker.notice.connect(lambda text: self.statusBar().showMessage(text, 15000))
        self.worker.start()

    def _start_rig(self, frames: int | None) -> None:
        """Every camera of the rig opened and read at once by one worker (a capture thread per camera)."""
        cameras, live = [], []
        try:
            for name, intrinsics, spec in self.setup.rig:
                source, is_live = open_frame_source(replace(self.setup, source=str(spec)))
                cameras.append((name, intrinsics, source))
                live.append(is_live)
        except InputError as exc:
            for _, _, source in cameras:
                source.close()
            self._connection("error", str(exc))
            return
        dice = bool(getattr(self.setup, "read_dice", True)) and self.session.live.uses_dice
        self.worker = RigCaptureWorker(self.setup, cameras, live=live, board_mm_per_px=self.board_mm_per_px,
                                       max_frames=frames, dice=dice, parent=self)
        self.worker.ready.connect(self.on_ready)
        self.worker.status.connect(self._connection)
        self.worker.note.connect(lambda text: self.statusBar().showMessage(text, 15000))
        self.worker.notice.connect(lambda text: self.statusBar().showMessage(text, 15000))
        self.worker.start()

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.ready.disconnect(self.on_ready)
            self.worker.stop()
            self.worker = None

    def _connection(self, state: str, text: str) -> None:
        self.connection = (state, text)
        self.session.camera_status(state, text)  # the tracker counts no time while the camera is gone
        if state != "connected" and self.recording is not None:
            self.recording.camera_gap()
        self._update_status()
        if state in ("error", "lost"):
            self.statusBar().showMessage(text, 15000)
            self.live_view.set_message(text) if self.last_result is None else None
            if not os.environ.get("FIELDGLASS_NO_DIALOGS") and QApplication.platformName() != "offscreen":
                QMessageBox.warning(self, "Fieldglass: camera", text)

    def on_ready(self) -> None:
        """Take the newest result (older ones were dropped by the worker) and show it."""
        if self.worker is None:
            return
        result = self.worker.take()
        if result is None or self.paused:
            return
        self.show_result(result)

    def show_result(self, result) -> None:
        self.last_result = result
        note = getattr(result, "lens_note", "")
        if note and note != self.lens_note:
            self.lens_note = note
            self.statusBar().showMessage(note, 15000)
            self.calib_label.setToolTip(note)
        pose = result.reading.pose
        if result.views:
            self._show_cameras(result.views)
        else:
            self.live_view.set_frame(*_shown(result.shown, result.frame))
        if pose is not None:
            if not result.views:
                self.live_view.mapper = LiveMapper(result.camera, pose)
            if result.board is not None:
                self.board_view.set_frame(*_shown(result.board_shown, result.board))
                self.board_view.mapper = BoardMapper(self.setup.layout, result.board_mm_per_px,
                                                     BoardRectifier.MARGIN_MM)
        t = result.t if result.t is not None else time.monotonic() - self._t0
        self.session.update_reading(result.reading, t=t, camera=result.camera)
        if self.recording is not None:
            # one camera's frame: the recorder reads it with the lens it was read with, as `fieldglass record` does
            # (the synthetic table brings its own; the set-up has none); a rig's fused reading changes nothing
            self.recording.frame(result.reading, t, result.number, result.frame,
                                 None if result.views else result.camera)
        for payload in result.cards:
            self.session.join_card(payload)
        throw = getattr(result, "throw", None)
        if throw is not None:
            self.session.dice_thrown(throw)  # (its event schedules a refresh: on a still table nothing else would)
            self.statusBar().showMessage(f"dice thrown: {throw.text()} (into the combat panel, F3; type over them "
                                         "if one is misread)", 10000)
        drawn = self._drawn_from(result)
        if self._refresh_pending or drawn != self._drawn:
            self._refresh_all()
        else:  # a still table: the same pieces, pose and anchors, and the session said nothing new
            self._update_status()
        self._drawn = drawn
        self._on_screen_pending = result.arrived or None  # measured when the live view has painted it
        if self.worker is not None:  # the next frames made for the views' sizes (a zoomed view: full size)
            self.worker.display_px = None if result.views else self.live_view.display_px()
            self.worker.board_display_px = self.board_view.display_px()
            self.worker.camera_display_px = {name: v.display_px() for name, v in self.camera_views.items()}

    def _drawn_from(self, result) -> tuple:
        """What the overlays and panels show of a frame's reading: the pieces' poses, the projection of both views,
        the anchors seen and used and the pose's error as shown. Equal for two frames (and no session event
        between them): the views and panels have nothing to redraw."""
        r = result.reading
        pose = r.pose
        quality = None if pose is None else (tuple(pose.anchors), f"{pose.reprojection_px:.2f}")
        return (r.pieces, tuple(v.mapper_key() for v in self.views), quality,
                tuple(sorted(m.id for m in r.markers)))

    def _painted(self, t: float) -> None:
        """The live view repainted at `t` (time.perf_counter()): the newest frame is on screen."""
        arrived, self._on_screen_pending = self._on_screen_pending, None
        if arrived:
            self.screen_latency_ms = (t - arrived) * 1000.0
            self.fps_label.setText(self._fps_text())

    def _show_cameras(self, views) -> None:
        """A rig's instant: each camera's frame in its own live view, its pieces drawn with its own pose; a camera
        without a frame or without anchors enough says so over its last picture."""
        for cam in views:
            view = self.camera_views.get(cam.name)
            if view is None:
                continue
            if cam.frame is not None:
                view.set_frame(*_shown(cam.shown, cam.frame))
            if cam.pose is not None and cam.camera is not None:
                view.mapper = LiveMapper(cam.camera, cam.pose)
            state = "" if cam.status == "reading" else f"{cam.name}: {cam.status}"
            if cam.hidden:
                state = (state + "; " if state else "") + f"{cam.name}: hand over {', '.join(cam.hidden)}"
            if state:
                view.set_message(state)

    # ---- refreshing

    def _schedule(self) -> None:
        if not self._refresh_pending:
            self._refresh_pending = True
            QTimer.singleShot(0, self._refresh_if_pending)

    def _refresh_if_pending(self) -> None:
        """A scheduled refresh, unless a frame shown meanwhile has refreshed everything already."""
        if self._refresh_pending:
            self._refresh_all()

    def _selection_changed(self, selected, second) -> None:
        self.combat_panel.follow_selection()
        self._schedule()

    def _refresh_all(self) -> None:
        self._refresh_pending = False
        with self.session.one_instant():  # the pieces read once for both views and every panel
            views = self.views
            wanted = [v.wants_picture() for v in views]
            asked = list(dict.fromkeys(w for w in wanted if w is not None))  # a rig's live views all ask alike
            pictures = dict(zip(asked, self.session.pictures(*asked), strict=True)) if asked else {}
            for v, w in zip(views, wanted, strict=True):
                v.redraw(pictures.get(w))
            if self.projector is not None:
                self.projector.refresh_from(self)
            self.selection_panel.refresh()
            self.combat_panel.refresh()
            self.game_panel.refresh()
            self._refresh_system_panels()
            self._update_status()

    def _fps_text(self) -> str:
        r = self.last_result
        text = f"{r.fps:.1f} fps" if r else "– fps"
        if r is not None and self.screen_latency_ms is not None:
            text += f", frame to screen {self.screen_latency_ms:.0f} ms"
        if r is not None and r.dropped:
            text += f", {r.dropped} frames dropped"
        return text

    def _update_status(self) -> None:
        self.fps_label.setText(self._fps_text())
        seen, expected = self.session.counts()
        self.pieces_label.setText(f"pieces {seen}/{expected}")
        self.calib_label.setText(self.calibration_health())
        state, text = self.connection
        icon = {"connected": "●", "ended": "■", "lost": "✖", "error": "✖"}.get(state, "…")
        self.camera_label.setText(f"{icon} {text}")
        self.camera_label.setStyleSheet("color: #c33;" if state in ("lost", "error") else "")

    def calibration_health(self) -> str:
        r = self.last_result
        if r is None:
            return "calibration –"
        if r.views:
            return "calibration: " + "; ".join(_camera_health(c) for c in r.views)
        pose = r.reading.pose
        if pose is None:
            return "calibration: table not registered (fewer than 2 anchors)"
        anchors = self.setup.layout.anchor_ids
        seen = len({m.id for m in r.reading.markers} & anchors)
        err = pose.reprojection_px
        grade = "good" if err < 1.0 and len(pose.anchors) >= 3 else "fair" if err < 2.0 else "poor"
        kept = "" if seen >= 2 else ", pose kept from an earlier frame"
        rms = r.camera.rms_px
        lens = f", lens RMS {rms:.2f} px" if rms is not None else ""
        refined = ", lens refined from the table" if " refined from " in self.lens_note else ""
        return f"calibration {grade}: {len(pose.anchors)}/{len(anchors)} anchors, {err:.2f} px{lens}{refined}{kept}"

    # ---- selection and view commands

    def _piece_clicked(self, pid: str, additive: bool) -> None:
        self.session.select(pid, second=additive)

    def cycle_selection(self, step: int) -> None:
        pos = self.session.position
        ids = sorted(p.id for p in pos.pieces) if pos is not None else []
        if not ids:
            return
        cur = self.session.selected
        i = ids.index(cur) if cur in ids else (-1 if step > 0 else 0)
        self.session.select(ids[(i + step) % len(ids)])

    def set_view_mode(self, mode: str) -> None:
        self.live_area.setVisible(mode in ("live", "both"))
        self.board_view.setVisible(mode in ("board", "both"))
        if not self.view_actions[mode].isChecked():
            self.view_actions[mode].setChecked(True)
        self.view_mode = mode
        QTimer.singleShot(0, self.fit_views)

    def set_board_scale(self, mm: float) -> None:
        self.board_mm_per_px = mm
        if self.worker is not None:
            self.worker.board_mm_per_px = mm

    def fit_views(self) -> None:
        for v in self.views:
            v.fit()

    def _zoom(self, factor: float) -> None:
        view = self.board_view if self.board_view.hasFocus() else self.live_view
        view.zoom(factor)

    def _toggle_grid(self, on: bool) -> None:
        for v in self.views:
            v.show_grid = on
        self._schedule()

    def _toggle_labels(self, on: bool) -> None:
        for v in self.views:
            v.show_labels = on
        self._schedule()

    def _toggle_pause(self, on: bool) -> None:
        self.paused = on
        self.statusBar().showMessage("camera paused (P resumes)" if on else "camera resumed", 4000)

    def show_panel(self, key: str) -> None:
        """Bring a panel to the front: a dock's, or one of the system's panels in its dock's chooser."""
        if key in self.system_panels:
            self.system_chooser.choose(key)
            key = "system"
        self.docks[key].show()
        self.docks[key].raise_()

    def _legend_shown(self, on: bool) -> None:
        if not on:
            return
        if not self._legend_sized and not self.docks["legend"].isFloating():  # the first time: half the panels
            self._legend_sized = True
            self.resizeDocks([self.docks["targets"], self.docks["legend"]], [1, 1], Qt.Orientation.Vertical)
        self.update_legend()

    def update_legend(self) -> None:
        """The legend's entries for the marks the views draw now (only while it is shown)."""
        if not self.docks["legend"].isVisible():
            return
        pictures = [v.drawn_picture[1] for v in self.views if v.drawn_picture is not None]
        self.legend.show_entries(legend(pictures, (*LEGEND, *self.session.live.legend)))

    def fit_docks(self) -> None:
        """The panels beside the views at DOCK_SHARE of the window's width (the table views get the rest)."""
        width = max(DOCK_MIN_PX, min(DOCK_MAX_PX, round(self.width() * DOCK_SHARE)))
        shown = [d for d in self.docks.values() if not d.isFloating() and d.isVisible()]
        if shown:
            self.resizeDocks(shown[:1], [width], Qt.Orientation.Horizontal)
        if not self.restored_split:  # the live and the board view alike
            self.split.setSizes([10_000] * self.split.count())

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._docks_fitted:
            self._docks_fitted = True
            if not self.restored_state:  # the first time: the views get most of the width
                QTimer.singleShot(0, self.fit_docks)

    def _combat(self, roll: bool) -> None:
        self.show_panel("combat")
        self.combat_panel.resolve(roll=roll)

    # ---- recording the game (the set-up's `open_recording`: the one recorder, off this thread)

    def ask_record(self, resume: bool) -> None:
        title = "Resume record" if resume else "New record"
        if resume:
            path, _ = QFileDialog.getOpenFileName(self, title, "", "Game records (*.fgr)")
        else:
            path, _ = QFileDialog.getSaveFileName(self, title, "game.fgr", "Game records (*.fgr)")
        if path:
            self.start_recording(path, resume)

    def start_recording(self, path: str | Path, resume: bool = False) -> bool:
        """Record the game into `path` from the next frame on (resume: go on with that record, the game as it
        left it); a record that cannot be opened is said, never raised."""
        self.stop_recording()
        try:
            recording = self.setup.open_recording(path, resume)
        except InputError as exc:
            self._tell(str(exc))
            return False
        self.adopt_recording(recording)
        self.statusBar().showMessage(f"recording {path}" + (" (resumed)" if resume else ""), 6000)
        return True

    def adopt_recording(self, recording) -> None:
        """Record into `recording` (an open TableRecording, e.g. `fieldglass gui --record`'s) from the next frame."""
        self.stop_recording()
        self.recording = recording
        self.stop_record_action.setEnabled(True)
        start = self.session.record_start() if recording.new else None
        if start is not None:  # the record starts at the dashboard's turn and side, not before the first turn
            self._record_action(start)
        self.record_timer.start()
        self.poll_recording()

    def stop_recording(self):
        """Write everything queued and close the record; returns its last status (None: not recording)."""
        rec, self.recording = self.recording, None
        if rec is None:
            return None
        self.record_timer.stop()
        status = rec.close()
        self._handle_notices(rec.notices())
        self.stop_record_action.setEnabled(False)
        self.record_label.setText(f"recorded {Path(status.path).name}: {status.events} events")
        self.record_label.setStyleSheet("")
        for key in self.prompts.keys():
            if key.startswith("missing:"):
                self.prompts.drop(key)
        self.last_recording = rec
        return status

    def poll_recording(self) -> None:
        """What the recorder said since the last look: the status bar, undone actions, questions, errors."""
        rec = self.recording
        if rec is None:
            return
        self._handle_notices(rec.notices())
        st = rec.status()
        last = f" · {_cut(st.last, 34)}" if st.last else ""
        self.record_label.setText(f"● REC {_cut(Path(st.path).name, 24)} · {st.events} events{last}")
        self.record_label.setToolTip("\n".join(x for x in (f"recording {st.path}", f"last move: {st.last}",
                                                             f"last event: {st.latest}", st.stopped) if x))
        self.record_label.setStyleSheet("color: #c33;" if st.stopped is None else "color: #888;")
        for pid in st.missing:
            key = f"missing:{pid}"
            if key not in self.prompts.rows:
                self.prompts.ask(key, f"{pid} has not been seen for a while: was it taken off the table?",
                                 (("Removed", ("confirm", pid, True)), ("Still there", ("confirm", pid, False))))
        for key in self.prompts.keys():
            if key.startswith("missing:") and key[8:] not in st.missing:
                self.prompts.drop(key)

    def _handle_notices(self, notices) -> None:
        for n in notices:
            if n.kind == "undone":
                self.session.undone(n.inputs, n.places)
                self.statusBar().showMessage(f"undone: {len(n.events)} event(s)", 6000)
            elif n.kind == "redone":
                self.session.redone(n.inputs, n.places)
                self.statusBar().showMessage(f"redone: {len(n.events)} event(s)", 6000)
            elif n.kind == "resumed":
                self.session.resumed(n.game, n.places)
                self.statusBar().showMessage(n.text, 8000)
            elif n.kind == "question" and n.question is not None:
                self.prompts.ask(n.question.key, n.question.text, n.question.answers)
            elif n.kind == "error":
                self.prompts.say(f"error:{len(self.prompts.rows)}:{n.text[:40]}", n.text)
                self.statusBar().showMessage(n.text, 15000)

    def _record_action(self, inp: dict) -> None:
        """A player's action (the session's `action`): into the record, after the frame on screen."""
        if self.recording is None:
            return
        try:
            self.recording.input(inp)
        except InputError as exc:
            self._tell(str(exc))

    def _prompt_answered(self, key: str, value) -> None:
        try:
            for inp in value if isinstance(value, list) else [value]:
                if isinstance(inp, dict) and inp.get("type") == "place":
                    self.session.place_piece(inp["piece"], field=inp.get("field"), x_mm=inp.get("x_mm"),
                                             y_mm=inp.get("y_mm"), heading_deg=inp.get("heading_deg"),
                                             by=inp.get("by", "player"))
            if isinstance(value, tuple) and value and value[0] == "confirm":
                self.session.confirm_missing(value[1], value[2])
        except InputError as exc:
            self._tell(str(exc))

    def throw_synthetic_dice(self, n: int | None = None, seed: int | None = None) -> bool:
        """The synthetic table (--source synthetic): as many dice as the selected action takes (`n`; 2 when it says
        none) thrown in the layout's dice tray, else where the table is clear of pieces, as a player would throw
        real ones; the dice watch reads them when they lie still."""
        source = getattr(self.worker, "source", None)
        if not hasattr(source, "throw_dice"):
            self._tell("throw dice: only the synthetic table (--source synthetic) throws them; throw real dice in "
                       "the tray under the camera")
            return False
        if getattr(self.worker, "dice_watch", None) is None:
            self._tell("throw dice: this table's dice are not read (no dice in this game, --no-dice, or the camera "
                       "too coarse: try --resolution 3840x2160)")
            return False
        if n is None:
            panel = self.combat_panel
            wanted = self.session.dice_wanted(panel.action.currentText(), panel.attacker.currentText() or None,
                                              panel.target.currentText() or None)
            n = len(wanted) if wanted else 2
        layout = self.setup.layout
        pieces = [(p.x_mm, p.y_mm) for p in self.session.last_seen.values()]
        centre, spread = throw_spot(layout.width_mm, layout.depth_mm, layout.dice_tray_mm, pieces,
                                    [(a.x_mm, a.y_mm) for a in layout.anchors])
        rng = np.random.default_rng(seed if seed is not None else random.SystemRandom().randrange(2**31))
        source.throw_dice(a_throw(rng, n, centre, spread_mm=spread))
        self.statusBar().showMessage(f"{n} dice thrown on the synthetic table", 5000)
        return True

    def _tell(self, text: str) -> None:
        """A problem a player must see, without stopping the table: the status bar and the prompt bar."""
        self.statusBar().showMessage(text, 15000)
        self.prompts.say(f"msg:{len(self.prompts.rows)}:{text[:40]}", text)

    def undo(self) -> None:
        if self.recording is None:
            self.statusBar().showMessage("undo takes back a recorded event: File > New record (Ctrl+R) first", 6000)
            return
        self.recording.undo()

    def redo(self) -> None:
        if self.recording is None:
            self.statusBar().showMessage("redo needs a record: File > New record (Ctrl+R) first", 6000)
            return
        self.recording.redo()

    def add_note(self, text: str | None = None) -> None:
        """A note about the selected piece (or the game): M."""
        piece = self.session.selected
        if text is None:
            about = f" about {self.session.visible_id(piece)}" if piece else ""
            text, ok = QInputDialog.getText(self, "Note", f"note{about}:")
            if not ok or not text.strip():
                return
        self.session.note(text.strip(), piece=piece)

    def add_bookmark(self, label: str | None = None) -> None:
        """A bookmark for the replay, at this moment of the game: B."""
        self.session.bookmark(label or f"turn {self.session.state.turn}, {self.session.state.active}")
        self.statusBar().showMessage("bookmark set", 3000)

    def place_selected(self) -> None:
        """E: the next click on a view places the selected piece there (a misread place corrected, or a piece the
        camera cannot see); E again types its field or its place in mm instead."""
        pid = self.session.selected
        if pid is None:
            self.statusBar().showMessage("select the piece to place first (click it, or Tab)", 6000)
            return
        if self._placing == pid:
            self._set_place_mode(None)
            hint = "field (like D5)" if self.setup.layout.grid is not None else "x, y in table mm"
            text, ok = QInputDialog.getText(self, "Place", f"where {self.session.visible_id(pid)} stands: {hint}")
            if ok and text.strip():
                self.place_typed(pid, text)
            return
        self._set_place_mode(pid)
        self.statusBar().showMessage(f"click where {self.session.visible_id(pid)} really stands (Esc cancels; E "
                                     "again: type it)", 15000)

    def place_typed(self, pid: str, text: str) -> None:
        """A place typed for a piece: a field name, or 'x, y' in table mm."""
        parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
        try:
            if len(parts) == 2:
                try:
                    x, y = float(parts[0]), float(parts[1])
                except ValueError:
                    raise InputError(f"{text!r}: a field (like D5) or x, y in mm") from None
                self.session.place_piece(pid, x_mm=x, y_mm=y)
            else:
                self.session.place_piece(pid, field=text.strip())
        except InputError as exc:
            self._tell(str(exc))

    def _set_place_mode(self, pid: str | None) -> None:
        self._placing = pid
        for v in self.views:
            v.place_mode = pid is not None
            v.setCursor(Qt.CursorShape.CrossCursor if pid else Qt.CursorShape.ArrowCursor)

    def _place_clicked(self, x_mm: float, y_mm: float) -> None:
        pid = self._placing
        if pid == TRAY:
            self._tray_clicked(x_mm, y_mm)
            return
        self._set_place_mode(None)
        if pid is None:
            return
        grid = self.setup.layout.grid
        field = grid.name_at(x_mm, y_mm) if grid is not None else None
        try:
            if field is not None:
                self.session.place_piece(pid, field=field)
            else:
                self.session.place_piece(pid, x_mm=x_mm, y_mm=y_mm)
        except InputError as exc:
            self._tell(str(exc))

    # ---- the dice tray

    def ask_dice_tray(self) -> None:
        """Tools > Dice tray: the next two clicks on a view are the tray's opposite corners; the dice watch looks
        only there from then on (Tools > Save the layout with its dice tray keeps it for the next game)."""
        self._tray_corner = None
        self._set_place_mode(TRAY)
        self.statusBar().showMessage("click one corner of the dice tray, then the opposite one (Esc cancels)", 15000)

    def _tray_clicked(self, x_mm: float, y_mm: float) -> None:
        if self._tray_corner is None:
            self._tray_corner = (x_mm, y_mm)
            self.statusBar().showMessage("now the tray's opposite corner", 15000)
            return
        (x0, y0), self._tray_corner = self._tray_corner, None
        self._set_place_mode(None)
        self.set_dice_tray(((x0, y0), (x_mm, y0), (x_mm, y_mm), (x0, y_mm)))

    def set_dice_tray(self, corners) -> bool:
        """The dice tray (corners in table mm, at least 3, or None: the whole table) for this game: the layout the
        dashboard holds and its dice watch. False (said in the status bar) when it is no tray."""
        lay = self.setup.layout
        tray = None
        if corners is not None:
            tray = tuple((round(float(x), 1), round(float(y), 1)) for x, y in corners)
            problem = tray_problem(tray)
            if problem:
                self._tell(f"dice tray: {problem}")
                return False
        self.setup = replace(self.setup, layout=replace(lay, dice_tray_mm=tray))
        self.session.dice_tray_mm = tray
        self._refresh_all()
        watch = getattr(self.worker, "dice_watch", None)
        if watch is not None:
            self.worker.dice_watch = DiceWatch(lay.width_mm, lay.depth_mm, tray, base_mm=watch.base_mm,
                                               background=True)
            watch.close()
        xs, ys = [p[0] for p in tray or ()], [p[1] for p in tray or ()]
        self.statusBar().showMessage(
            f"dice tray x {min(xs):.0f}-{max(xs):.0f}, y {min(ys):.0f}-{max(ys):.0f} mm: dice are read there "
            "(Tools > Save the layout with its dice tray keeps it)" if tray else "dice are read anywhere off the bases",
            10000)
        return True

    def ask_save_tray(self) -> None:
        name = self.setup.names.get("board") if self.session.board is not None else self.setup.names.get("layout")
        start = str(Path(name).with_name(Path(name).stem + "-tray.toml")) if name and Path(name).suffix else \
            "table-tray.toml"
        path, _ = QFileDialog.getSaveFileName(self, "Save the layout with its dice tray", start, "TOML (*.toml)")
        if path:
            self.save_tray(path)

    def save_tray(self, path) -> bool:
        """The layout (on a printed board: the board file) with the dice tray set here, written to `path` (never over
        the file it was read from); gui --layout (--board) PATH reads it next time."""
        tray = self.setup.layout.dice_tray_mm
        board = self.session.board
        if board is not None:
            text, source = board_to_toml(replace(board, dice_tray_mm=tray)), self.setup.names.get("board")
        else:
            text, source = layout_to_toml(self.setup.layout), self.setup.names.get("layout")
        try:
            write_text(path, text, inputs=[source] if source and Path(source).exists() else [])
        except (InputError, OSError) as exc:
            self._tell(str(exc) if isinstance(exc, InputError) else f"{path}: cannot write ({exc.strerror or exc})")
            return False
        self.statusBar().showMessage(f"{path}: written with the dice tray", 8000)
        return True

    def _escape(self) -> None:
        self._tray_corner = None
        if self._placing is not None:
            self._set_place_mode(None)
            self.statusBar().showMessage("placing cancelled", 3000)
            return
        self.session.clear_selection()

    def end_game(self, winner: str | None = "", text: str | None = None, *, exports: bool | None = None,
                 archive: str | None = None) -> list[tuple[str, str]]:
        """Ctrl+E: the end of the game (the rules' winner where they decided, else the players'), then the record
        closed and its report and HTML replay written, and an archive push offered. Arguments given: no dialogs."""
        s = self.session
        status = self.recording.status() if self.recording is not None else None
        ruled = status.ruled_winner if status is not None else None
        if winner == "":
            items = list(dict.fromkeys([*([ruled] if ruled else []), *s.sides, "draw"]))
            label = f"the rules decided: {ruled} wins" if ruled else "who won?"
            choice, ok = QInputDialog.getItem(self, "End game", label, items, 0, False)
            if not ok:
                return []
            winner = None if choice == "draw" else choice
            text, ok = QInputDialog.getText(self, "End game", "how it ended (optional):")
            text = text if ok else ""
        s.end_game(winner, text or "")
        if self.recording is None:
            return []
        status = self.stop_recording()
        rec = self.last_recording
        if exports is None:
            exports = QMessageBox.question(
                self, "End game", f"The game is recorded in {status.path} ({status.events} events).\nWrite its "
                "report and its HTML replay now?") == QMessageBox.StandardButton.Yes
        results = rec.export_after_game() if exports else []
        if archive is None and exports and not os.environ.get("FIELDGLASS_NO_DIALOGS") \
                and QApplication.platformName() != "offscreen":
            url, ok = QInputDialog.getText(self, "End game", "push to the club archive (postgresql://…; empty: "
                                           "no):")
            archive = url.strip() if ok and url.strip() else None
        if archive:
            results.append(("archive", rec.push_to_archive(archive)))
        if results:
            lines = "\n".join(f"{fmt}: {what}" for fmt, what in results)
            self.statusBar().showMessage("; ".join(f"{fmt}: {what}" for fmt, what in results), 20000)
            if not os.environ.get("FIELDGLASS_NO_DIALOGS") and QApplication.platformName() != "offscreen":
                QMessageBox.information(self, "End game", lines)
        return results

    # ---- files

    def ask_source(self) -> None:
        text, ok = QInputDialog.getText(self, "Open source", "camera index, video or image file, URL, or synthetic:",
                                        text=self.setup.source)
        if ok and text.strip():
            self.setup = replace(self.setup, source=text.strip())
            self.start()

    def ask_screenshot(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save screenshot", "fieldglass.png", "PNG (*.png)")
        if path:
            self.save_screenshot(path)

    def save_screenshot(self, path: str | Path) -> Path:
        return save_widget_png(self, path)

    def ask_save_position(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save position", "position.json", "JSON (*.json)")
        if path:
            try:
                positions.save(self.session.position, path)
                self.statusBar().showMessage(f"position written to {path}", 6000)
            except OSError as exc:
                QMessageBox.warning(self, "Fieldglass", f"{path}: cannot write ({exc.strerror or exc})")

    def open_board_editor(self):
        self.board_editor = BoardEditor(board=getattr(self.session, "board", None), frame=self.current_frame(),
                                        parent=self)
        self.board_editor.show()
        return self.board_editor

    def open_calibration(self):
        if self.camera_views:
            return self._open_rig_calibration()
        wiz = CalibrationWizard(self.setup, frame_provider=self.current_frame, parent=self)
        wiz.show()
        return wiz

    def _open_rig_calibration(self):
        """A rig's calibration wizard on each camera's last frame: the anchors each sees and the overlap."""
        views = self.last_result.views if self.last_result is not None else ()
        lacking = [c.name for c in views if c.frame is None] if views else list(self.camera_views)
        if lacking:
            self.statusBar().showMessage(f"rig calibration needs a frame from every camera; none yet from "
                                         f"{', '.join(lacking)}", 8000)
            return None
        lenses = {name: intr for name, intr, _ in self.setup.rig}
        wiz = RigCalibrationWizard(self.setup.layout, [c.name for c in views], [c.frame for c in views],
                                   [c.camera or lenses[c.name] for c in views], parent=self)
        wiz.show()
        return wiz

    def current_frame(self):
        r = self.last_result
        return None if r is None else (r.frame, r.camera)

    # ---- settings

    def show_on_screen(self) -> None:
        """Show the window as it was last closed (QSettings), or the first time maximised on its screen (its whole
        available area, also where no window manager maximises it)."""
        if self.restored_geometry:
            self.show()
            return
        screen = self.screen() or QApplication.primaryScreen()
        if screen is not None:
            self.setGeometry(screen.availableGeometry())
        self.showMaximized()

    def _restore_settings(self) -> None:
        s = self.settings
        geo = s.value("geometry")
        self.restored_geometry = isinstance(geo, QByteArray | bytes) and bool(geo) and self.restoreGeometry(geo)
        state = s.value("windowState")
        self.restored_state = isinstance(state, QByteArray | bytes) and bool(state) and self.restoreState(state)
        split = s.value("splitter")
        self.restored_split = isinstance(split, QByteArray | bytes) and bool(split) and self.split.restoreState(split)
        mode = s.value("view_mode", "both")
        self.set_view_mode(mode if mode in self.view_actions else "both")
        self.grid_action.setChecked(s.value("grid", "true") in (True, "true"))
        self.labels_action.setChecked(s.value("labels", "true") in (True, "true"))

    def save_settings(self) -> None:
        s = self.settings
        s.setValue("geometry", self.saveGeometry())
        s.setValue("windowState", self.saveState())
        s.setValue("splitter", self.split.saveState())
        s.setValue("view_mode", getattr(self, "view_mode", "both"))
        s.setValue("board_mm_per_px", self.board_mm_per_px)
        s.setValue("grid", self.grid_action.isChecked())
        s.setValue("labels", self.labels_action.isChecked())
        s.sync()

    def closeEvent(self, event) -> None:
        self.save_settings()
        self.stop()
        self.stop_recording()  # every event written, the record closed as one file
        super().closeEvent(event)


# ---------------------------------------------------------------------------------------------- fieldglass gui


def _cut(text: str, n: int) -> str:
    """A text for the status bar, cut to `n` characters (the whole in the tooltip)."""
    return text if len(text) <= n else text[: n - 1] + "…"


def _camera_health(cam) -> str:
    """One rig camera's registration in a few words."""
    if cam.pose is None:
        return f"{cam.name} {cam.status if cam.status != 'reading' else 'not registered'}"
    return f"{cam.name} {len(cam.pose.anchors)} anchors, {cam.pose.reprojection_px:.2f} px"


def wait_for(window: MainWindow, frames: int, timeout_s: float = 120.0) -> None:
    """Run the event loop until the worker has processed `frames` frames (or ended) and the last one is shown."""
    app = application()
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        app.processEvents()
        w = window.worker
        if w is None or (w.isFinished() and w.results.peek() is None):
            break
        time.sleep(0.01)
    app.processEvents()
    if window.worker is not None and window.worker.last_result is not None and (
            window.last_result is None or window.last_result.number != window.worker.last_result.number):
        window.show_result(window.worker.last_result)
    app.processEvents()


def _shown(shown, frame) -> tuple:
    """`TableView.set_frame`'s arguments for a frame and the copy made of it for the screen (None: the frame)."""
    if shown is None:
        return (frame,)
    return shown, (frame.shape[1], frame.shape[0])


def busiest_piece(session) -> str | None:
    """The active side's piece with the most targets it may fire at or attack (for the headless printout)."""
    best, best_n = None, -1
    pos = session.position
    if pos is None:
        return None
    for p in pos.pieces:
        if p.side != session.state.active or session.roster.piece(p.id) is None:
            continue  # a piece of the game no marker stands for (a Coalitions General off the roster) is not shown
        n = sum(1 for r in session.system.targets(pos, p.id) if r.fire or r.melee)
        if n > best_n:
            best, best_n = p.id, n
    return best


def describe(session, window: MainWindow) -> list[str]:
    """What the dashboard sees, as text: pieces with fields, the selected piece's targets."""
    lines = []
    r = window.last_result
    if r is None:
        return [f"no frame processed: {window.connection[1]}"]
    seen, expected = session.counts()
    lines.append(f"frame {r.number}: {seen}/{expected} pieces, {window.calibration_health()}, {r.fps:.1f} fps")
    return lines + session.describe_lines()


def error_dialog(text: str) -> None:
    """Say a one-line error in a message box (the dashboard was asked for on a display, but cannot start)."""
    QMessageBox.critical(None, "Fieldglass", text)


def show_dashboard(setup, *, headless: bool, frames: int | None = None, select: str | None = None,
                   screenshot: str | Path = "out/gui.png", source_options: dict | None = None,
                   recording=None, projector=None) -> int:
    """`fieldglass gui`'s window on `setup` (built by fieldglass/commands/gui.py). Headless: process `frames` frames
    offscreen, select `select` (default the busiest piece), print what the camera sees, save a screenshot and return
    0 (InputError when no frame could be processed); else run until the window closes and return the event loop's
    code."""
    app = application()
    settings = None
    if headless:
        # a fresh window: neither read nor overwrite the user's saved window state
        settings = QSettings(str(Path(tempfile.mkdtemp(prefix="fieldglass-")) / "gui.ini"), QSettings.Format.IniFormat)
    window = MainWindow(setup, settings=settings, source_options=source_options)
    if projector is not None:  # a ProjectorModel: its window on the projector's display
        attach_projector(window, projector)
    if recording is not None:
        window.adopt_recording(recording)
    if headless:
        window.resize(1600, 1000)
        window.show()
        window.start(frames=frames)
        wait_for(window, frames)
        state, text = window.connection
        if window.last_result is None:
            window.stop()
            raise InputError(text)
        pid = select or busiest_piece(window.session)
        if pid:
            window.session.select(pid)
            app.processEvents()
            window._refresh_all()
        print("\n".join(describe(window.session, window)))
        shot = window.save_screenshot(screenshot)
        print(f"screenshot: {shot}")
        if window.projector is not None:
            frame = window.projector.save_frame(Path(shot).with_stem(Path(shot).stem + "-projector"))
            print(f"projector frame: {frame}")
        window.stop()
        status = window.stop_recording()
        if status is not None:
            print(f"{status.path}: {status.events} events" + (f"; last: {status.last}" if status.last else "")
                  + (f"; {status.stopped}" if status.stopped else ""))
        window.close()
        return 0
    window.show_on_screen()
    if select:
        window.session.select(select)
    window.start(frames=frames)
    code = app.exec()
    window.stop()
    return int(code)
