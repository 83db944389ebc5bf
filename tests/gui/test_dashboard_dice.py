"""Issue 29, live: dice thrown at the table fill the combat panel for the selected action, with a picture of the
throw; the result is applied and recorded with the dice as read and whether they were taken or typed over; the
replay shows them. The throws are real readings: the dice watch (vision/dice_watch.py) over rendered frames of a
dice tray, handed to the window as the capture worker hands them (`FrameResult.throw`); one test runs the capture
worker itself over such frames."""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings  # noqa: E402

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from calibration.layout import load_layout  # noqa: E402
from fieldglass.record import Record  # noqa: E402
from fieldglass.replay_session import ReplaySession  # noqa: E402
from fieldglass.scripted_feed import scripted_feed  # noqa: E402
from fieldglass.setup import Setup, load_setup  # noqa: E402
from fieldglass.setup_report import camera_setup, dice_findings  # noqa: E402
from gui.app import MainWindow  # noqa: E402
from gui.rig_worker import RigCaptureWorker  # noqa: E402
from gui.worker import CaptureWorker  # noqa: E402
from rules.system import game_systems  # noqa: E402
from tests.gui.helpers import SHOTS, pump  # noqa: E402
from tests.gui.table_game import TableGame, events_of  # noqa: E402
from vision.dice_watch import DiceWatch, dice_sight  # noqa: E402
from vision.pieces import TableReading  # noqa: E402
from vision.rig import CameraView  # noqa: E402
from vision.roster import load_roster  # noqa: E402
from vision.synthetic import PlacedDie, RenderOptions, VirtualCamera, demo_files, render_table  # noqa: E402
from vision.synthetic_dice import dice_camera, dice_scene  # noqa: E402

CLEAN = RenderOptions(blur_sigma_px=0.5, noise_sigma=1.5, seed=3)
TRAY = ((128.0, 65.0), (512.0, 65.0), (512.0, 295.0), (128.0, 295.0))


def _die(x, y, value, turn=10.0):
    return PlacedDie(x, y, 18.0, value, turn)


ROLL = (_die(250.0, 120.0, 1, 33.0),)
THROWS = {"pair": (_die(220.0, 150.0, 2), _die(360.0, 200.0, 4, 30.0)),
          "one five": (_die(300.0, 180.0, 5, 20.0),),
          "one three": (_die(280.0, 140.0, 3, 5.0),)}


@pytest.fixture(scope="module")
def throws():
    """Each throw as the dice watch reads it from rendered frames: rolling, then lying still."""
    scene = dice_scene(np.random.default_rng(7), 0, surface="felt", pieces=0)
    cam = dice_camera((1280, 720))
    watch = DiceWatch(scene.layout.width_mm, scene.layout.depth_mm, TRAY)
    shown = [()] + [d for dice in THROWS.values() for d in [ROLL, *[dice] * 9]]
    frames = {d: render_table(replace(scene, dice=d), cam, CLEAN)[0] for d in set(shown)}
    got = [watch.feed(frames[d], 0.1 * k, k, cam.intrinsics, cam.pose) for k, d in enumerate(shown)]
    got = [th for th in got if th is not None]
    assert [th.number for th in got] == [1, 2, 3]
    return dict(zip(THROWS, got, strict=True))


@pytest.fixture()
def window(qapp, tmp_path):
    setup = load_setup("wiener", "synthetic")
    win = MainWindow(setup, settings=QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    win.resize(1366, 768)
    win.show()
    assert win.start_recording(tmp_path / "game.fgr")
    game = TableGame(qapp, win, setup, scripted_feed("wiener").places)
    game.frames(8)
    game.move("fr-1-1", 870, 750)  # into contact with the Austrian line
    yield win, game, tmp_path
    win.close()


def _select(win, action, attacker, target):
    win.live_view.pieceClicked.emit(attacker, False)
    win.live_view.pieceClicked.emit(target, True)
    win.combat_panel.action.setCurrentText(action)


def test_a_throw_fills_the_dice_and_is_recorded_as_read(window, throws):
    win, game, tmp = window
    panel = win.combat_panel
    _select(win, "fire", "fr-a-1", "au-a-1")
    game.frames(1, throw=throws["pair"])
    assert panel.dice.text() == "2, 4"  # as if typed, left to right along the table
    assert panel.dice_photo.isVisible() and not panel.dice_photo.pixmap().isNull()
    assert "shooter 2, counter-fire 4" in panel.dice_note.text()
    assert "dice thrown: 2, 4" in win.statusBar().currentMessage()
    panel.loss_die.setValue(5)
    win._combat(False)
    assert panel.outcome is not None, panel.result.toPlainText()
    assert panel.outcome.rolled[:2] == [2, 4]
    panel.apply()
    assert not panel.dice_photo.isVisible()  # the next action's dice are a new throw
    game.frames(1)
    # a melee: each player throws his own die; the attacker's first, then the defender's; then typed over
    _select(win, "melee", "fr-1-1", "au-1-2")
    game.frames(1, throw=throws["one five"])
    assert panel.dice.text() == "5" and "still to throw: defender" in panel.dice_note.text()
    game.frames(1, throw=throws["one three"])
    assert panel.dice.text() == "5, 3" and "attacker 5, defender 3" in panel.dice_note.text()
    panel.dice.setText("5, 2")  # a player says the camera misread the defender's die
    panel.loss_die.setValue(4)
    win._combat(False)
    assert panel.outcome is not None, panel.result.toPlainText()
    panel.apply()
    game.frames(1)
    game.flush()
    SHOTS.mkdir(parents=True, exist_ok=True)
    combats = [e for e in events_of(tmp / "game.fgr") if e[0] == "combat"]
    assert [c[5]["dice_read"] for c in combats] == [{"values": [2, 4], "taken": True, "throws": [1]},
                                                     {"values": [5, 3], "taken": False, "throws": [2, 3]}]
    assert combats[0][5]["dice"][:2] == [2, 4] and combats[1][5]["dice"][:2] == [5, 2]
    # the record keeps each throw's picture; `fieldglass record --inputs` makes the same events of the same inputs
    with Record.open(tmp / "game.fgr") as record:
        seqs = {e.seq for e in record.events() if e.type == "combat"}
        assert {s for s, kind, _ in record.thumbnails() if kind == "dice"} == seqs
    headless = game.record_headless(game.inputs_file(tmp / "inputs.jsonl"), tmp / "headless.fgr")
    assert events_of(headless) == events_of(tmp / "game.fgr")
    # the replay shows the dice as read, and the throw's picture at its combat
    with Record.open(tmp / "game.fgr") as record:
        rs = ReplaySession(record)
        at = [i for i, e in enumerate(rs.timeline) if e.type == "combat"]
        rs.seek(at[0] + 1)
        assert rs.dice_photo() is not None
        assert "camera read 2, 4, taken" in rs.describe_event(rs.current_event())
        rs.seek(at[1] + 1)
        assert "camera read 5, 3, typed over as 5, 2" in rs.describe_event(rs.current_event())
    _redone_combat_keeps_its_throws_picture(win, game, tmp / "game.fgr")


def _redone_combat_keeps_its_throws_picture(win, game, path) -> None:
    """The last combat undone and redone: the combat written again shows the throw's picture still (kept once, with
    the combat first written) and the dice as read."""
    win.undo()
    game.flush()
    win.redo()
    game.flush()
    with Record.open(path) as record:
        rs = ReplaySession(record)
        redone = [i for i, e in enumerate(rs.timeline) if e.type == "combat" and e.data.get("redo_of")]
        assert len(redone) == 1
        rs.seek(redone[0] + 1)
        assert rs.dice_photo() is not None
        assert "camera read 5, 3, typed over as 5, 2" in rs.describe_event(rs.current_event())


def test_a_throw_for_an_action_without_dice_fills_nothing(window, throws):
    win, game, _ = window
    panel = win.combat_panel
    _select(win, "mount", "fr-c-1", "fr-c-1")
    game.frames(1, throw=throws["pair"])
    assert panel.dice.text() == "" and "mount takes no dice" in panel.dice_note.text()


def test_more_dice_than_the_action_takes_fill_the_first(window, throws):
    win, game, _ = window
    panel = win.combat_panel
    _select(win, "rally", "fr-1-1", "fr-1-1")
    game.frames(1, throw=throws["pair"])
    assert panel.dice.text() == "2" and "2 dice thrown; the action takes 1" in panel.dice_note.text()


def _throws_read(qapp, worker) -> list:
    """Run a capture worker to its frames' end, taking each result as the GUI does: the throws that came with them."""
    seen = []
    worker.ready.connect(lambda: seen.append(worker.take()))
    worker.start()
    pump(qapp, worker.isFinished, timeout=120)
    qapp.processEvents()
    left = worker.take()
    return [r.throw for r in [*seen, left] if r is not None and r.throw is not None]


def test_the_capture_worker_reads_a_settled_throw(qapp):
    """The worker over frames of a dice tray: a throw that settles comes with a result; the layout's tray is where
    it looks."""
    scene = dice_scene(np.random.default_rng(7), 0, surface="felt", pieces=2)
    cam = dice_camera((1280, 720))
    layout = replace(scene.layout, dice_tray_mm=TRAY)
    frames = [render_table(replace(scene, dice=d), cam, CLEAN)[0] for d in ((), ROLL, THROWS["pair"])]

    class Frames:
        camera = cam
        name = "frames"

        def __iter__(self):  # a camera's pace, 25 frames a second: the throw settles in the camera's time
            for k, i in enumerate([0] * 3 + [1] + [2] * 40):
                time.sleep(0.04)
                yield k, frames[i]

    setup = Setup("frames", None, layout, scene.roster, "wiener")
    worker = CaptureWorker(setup, Frames(), dice=True)
    throws = _throws_read(qapp, worker)
    assert [t.values for t in throws] == [(2, 4)]


def test_a_rig_reads_a_throw_once_through_the_camera_that_sees_the_tray_largest(qapp):
    """Two cameras over the tray (`fieldglass gui --rig`): straight down, and tilted 30 degrees from as high (farther
    from the tray, its dice smaller). The throw is read once, through the camera straight down."""
    scene = dice_scene(np.random.default_rng(7), 0, surface="felt", pieces=2)
    layout = replace(scene.layout, dice_tray_mm=TRAY)
    cams = {"above": dice_camera((1280, 720)), "aslant": dice_camera((1280, 720), tilt_deg=30.0)}
    frames = {name: [render_table(replace(scene, dice=d), cam, CLEAN)[0] for d in ((), ROLL, THROWS["pair"])]
              for name, cam in cams.items()}

    class Frames:
        def __init__(self, name):
            self.name = name

        def __iter__(self):  # both cameras at 25 frames a second
            for k, i in enumerate([0] * 3 + [1] + [2] * 40):
                time.sleep(0.04)
                yield k, frames[self.name][i]

    setup = Setup("rig", None, layout, scene.roster, "wiener")
    cameras = [(name, cam.intrinsics, Frames(name)) for name, cam in cams.items()]
    worker = RigCaptureWorker(setup, cameras, live=[False, False], dice=True)
    throws = _throws_read(qapp, worker)
    assert worker.dice_camera == "above"
    assert [t.values for t in throws] == [(2, 4)]
    worker.stop()


@pytest.mark.parametrize("resolution, tray, said", [
    ((1920, 1080), None, (r"a 20 mm die is (\d+) px across", r"sees a 20 mm die at (\d+) px")),  # none read
    ((3840, 2160), ((1000.0, 950.0), (1400.0, 950.0), (1400.0, 1100.0), (1000.0, 1100.0)),
     (r"dice of (\d+) mm and larger are read", r"reads dice of (\d+) mm and larger there")),
])
def test_the_dashboard_says_of_the_dice_what_check_setup_says(qapp, resolution, tray, said):
    """One camera over the demo table, as `fieldglass check-setup` places a camera file: the capture worker's first
    frame with a pose says what it reads of the dice with the figure check-setup's warning gives (one function:
    vision.dice_watch.dice_sight); one that reads none stops watching."""
    layout_path, roster_path = demo_files()
    layout = replace(load_layout(layout_path), dice_tray_mm=tray)
    lens = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, resolution).intrinsics
    placed = camera_setup(lens, (layout.width_mm, layout.depth_mm))
    finding, = dice_findings(placed, layout, "table.toml", "cam.json")
    worker = CaptureWorker(Setup("frames", None, layout, load_roster(roster_path), "wiener"), [], dice=True)
    notices = []
    worker.notice.connect(notices.append)
    intrinsics, pose = placed.camera()
    for k in range(2):
        worker._dice(np.zeros((resolution[1], resolution[0], 3), np.uint8), k, 0.1 * k, intrinsics, pose)
    worker.stop()
    assert len(notices) == 1  # said once
    on_dashboard, on_check = re.search(said[0], notices[0]), re.search(said[1], finding.text)
    assert on_dashboard and on_check, (notices[0], finding.text)
    assert on_dashboard.group(1) == on_check.group(1)
    assert (worker.dice_watch is None) == (tray is None)


def _instants(worker, cams, frames, script):
    """Feed the rig's dice watch instant by instant as the worker's loop does (`_rig_dice`), 10 instants a second:
    `script` lists (dice shown, the cameras registered) per instant. The throws read, each with the instant it came
    at, and the camera watched at each instant."""
    got, watched = [], []
    for k, (dice, registered) in enumerate(script):
        images = [frames[name][dice] for name in cams]
        views = tuple(CameraView(name, cam.intrinsics, TableReading(cam.pose if name in registered else None, (), (),
                                                                    ()))
                      for name, cam in cams.items())
        rig = SimpleNamespace(views=views, reading=TableReading(None, (), (), ()))
        throw = worker._rig_dice(rig, images, k, 0.1 * k)
        if throw is not None:
            got.append((k, throw))
        watched.append(worker.dice_camera)
        time.sleep(0.02)  # (the watch reads a settled throw in a thread of its own: 0.1-0.2 s)
    return got, watched


def _rig_with_dice(qapp, cams):
    scene = dice_scene(np.random.default_rng(7), 0, surface="felt", pieces=0)
    layout = replace(scene.layout, dice_tray_mm=TRAY)
    shown = {"none": (), "roll": ROLL, "pair": THROWS["pair"], "five": THROWS["one five"]}
    frames = {name: {key: render_table(replace(scene, dice=d), cam, CLEAN)[0] for key, d in shown.items()}
              for name, cam in cams.items()}
    worker = RigCaptureWorker(Setup("rig", None, layout, scene.roster, "wiener"),
                              [(name, cam.intrinsics, []) for name, cam in cams.items()], live=[False] * len(cams),
                              dice=True)
    notices = []
    worker.notice.connect(notices.append)
    return worker, frames, notices


def test_a_rig_watches_the_dice_through_another_camera_while_its_own_is_not_registered(qapp):
    """The camera straight down watches the dice; its registration is lost (a hand over its anchors): the tilted
    camera takes over, afresh (the dice read through the first are not read again, and the first's frames are no
    motion against its own), and reads the next throw where it lies, numbered on from the first's; it keeps the dice
    when the first comes back."""
    cams = {"above": dice_camera((1280, 720)), "aslant": dice_camera((1280, 720), tilt_deg=30.0)}
    worker, frames, notices = _rig_with_dice(qapp, cams)
    both, aslant = {"above", "aslant"}, {"aslant"}
    script = ([("none", both)] * 3 + [("roll", both)] * 2 + [("pair", both)] * 12  # read through "above"
              + [("pair", aslant)] * 10 + [("roll", aslant)] * 2 + [("five", aslant)] * 12  # "above" lost
              + [("five", both)] * 20)  # "above" back
    lost = 17
    try:
        got, watched = _instants(worker, cams, frames, script)
    finally:
        worker.stop()
    assert watched[:lost] == ["above"] * lost and watched[lost:] == ["aslant"] * (len(script) - lost)
    assert [(th.number, th.values) for _, th in got] == [(1, (2, 4)), (2, (5,))]
    first, second = (th for _, th in got)
    assert first.frame < lost <= lost + 12 <= second.frame  # the pair through "above", the five through "aslant"
    (x, y), die = second.table_mm[0], THROWS["one five"][0]
    assert math.hypot(x - die.x_mm, y - die.y_mm) < 0.5 * die.side_mm  # placed with the tilted camera's pose
    assert "dice: watched through aslant now (above is not registered)" in notices
    # what the tilted camera reads there, said when it takes over (a 12 mm die is too small at its far corner)
    assert any(n.startswith("dice: dice of ") and "mm and larger are read where the tray is farthest" in n
               for n in notices[notices.index("dice: watched through aslant now (above is not registered)"):])


def test_a_rig_waits_for_its_dice_camera_rather_than_one_that_reads_no_dice(qapp):
    """The only other camera sees the tray too coarsely to read even a 20 mm die: the dice camera's lost registration
    is waited for (taking the coarse one would stop the watch for the game), and the throw is read once it is
    back."""
    cams = {"above": dice_camera((1280, 720)), "coarse": dice_camera((320, 180))}
    worker, frames, notices = _rig_with_dice(qapp, cams)
    assert dice_sight(TRAY, cams["coarse"].intrinsics, cams["coarse"].pose).reads_none
    both, coarse = {"above", "coarse"}, {"coarse"}
    script = ([("none", both)] * 3 + [("none", coarse)] * 3 + [("roll", coarse)] * 2 + [("pair", coarse)] * 8
              + [("pair", both)] * 20)
    try:
        got, watched = _instants(worker, cams, frames, script)
    finally:
        worker.stop()
    assert set(watched) == {"above"} and worker.dice_watch is not None
    assert [(th.number, th.values) for _, th in got] == [(1, (2, 4))]
    assert not [n for n in notices if "coarse" in n]


def test_a_new_player_throws_dice_on_the_synthetic_table(qapp, tmp_path):
    """As a new player tries it: the demo table (at 4K, where dice are large enough), a fire selected, Tools >
    Throw dice (Ctrl+T); the dice watch reads them once they lie still, the panel has them with their picture, the
    result is applied and recorded with the dice as read."""
    setup = load_setup("wiener", "synthetic")
    win = MainWindow(setup, settings=QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    win.source_options = {"resolution": (3840, 2160)}
    win.resize(1366, 768)
    win.show()
    assert win.start_recording(tmp_path / "game.fgr")
    win.start()
    try:
        pump(qapp, lambda: len(win.session.last_seen) >= 20, timeout=120)
        _select(win, "fire", "fr-a-1", "au-a-1")
        source = win.worker.source
        assert win.throw_synthetic_dice(seed=5)
        pump(qapp, lambda: win.combat_panel.dice.text() != "", timeout=120)
        truth = sorted(source.truth.dice, key=lambda d: d.x_mm)  # left to right along the table
        values = [d.value for d in truth]
        assert win.combat_panel.dice.text() == ", ".join(map(str, values))
        assert win.combat_panel.dice_photo.isVisible()
        # the live view marks each die with the value read, where it lies (till the combat is applied)
        marked = [it for it in win.session.picture(live=True) if it.kind == "die-read" and hasattr(it, "text")]
        assert [it.text for it in marked] == [str(v) for v in values]
        assert all(math.hypot(it.at[0] - d.x_mm, it.at[1] - d.y_mm) < 0.5 * d.side_mm for it, d in zip(marked, truth,
                                                                                                        strict=True))
        assert len(win.live_view.items_of("die-read")) == 2 * len(values)  # drawn with the frame the throw came with
        win._combat(False)
        assert win.combat_panel.outcome is not None, win.combat_panel.result.toPlainText()
        win.combat_panel.apply()
        assert not [it for it in win.session.picture(live=True) if it.kind == "die-read"]
        pump(qapp, lambda: not win.live_view.items_of("die-read"), timeout=10)
        win.recording.flush()
    finally:
        win.stop()
    win.stop_recording()
    win.close()
    combats = [e for e in events_of(tmp_path / "game.fgr") if e[0] == "combat"]
    assert combats[0][5]["dice_read"] == {"values": values, "taken": True, "throws": [1]}


@pytest.mark.parametrize("system", sorted(game_systems()))
def test_every_system_takes_a_throw_as_its_rules_say(qapp, tmp_path, throws, system):
    """One throw of two dice handed to each system's dashboard: a system with dice fills its first action that
    takes dice with them, named as the system names them; one without dice shows no dice line and takes none."""
    setup = load_setup(system, "synthetic")
    win = MainWindow(setup, settings=QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    panel = win.combat_panel
    try:
        s = win.session
        if not s.live.uses_dice:
            s.dice_thrown(throws["pair"])
            assert panel.dice.text() == "" and not panel.dice_photo.isVisibleTo(win)
            return
        action = next(a for a in s.system.actions if s.dice_wanted(a, None, None) != ())
        panel.action.setCurrentText(action)
        wanted = s.dice_wanted(action, None, None)
        s.dice_thrown(throws["pair"])
        n = 2 if wanted is None else min(2, len(wanted))
        assert panel.dice.text() == ", ".join(["2", "4"][:n])
        if wanted:
            assert f"{wanted[0]} 2" in panel.dice_note.text()
    finally:
        win.close()


def test_the_dice_tray_is_set_by_two_clicks_and_saved_to_a_new_layout(qapp, tmp_path):
    """Tools > Dice tray: two clicks on a view set the tray the watch looks in; Tools > Save the layout with its dice
    tray writes a new layout file (never over the one it was read from), which reads back with the tray."""
    setup = load_setup("wiener", "synthetic")
    win = MainWindow(setup, settings=QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    lay = setup.layout
    win.worker = SimpleNamespace(dice_watch=DiceWatch(lay.width_mm, lay.depth_mm, None))
    try:
        win.ask_dice_tray()
        assert win.live_view.place_mode
        win.live_view.tableClicked.emit(1000.0, 40.0)
        assert win.live_view.place_mode  # one corner: the opposite one still to click
        win.live_view.tableClicked.emit(1400.0, 180.0)
        assert not win.live_view.place_mode
        tray = ((1000.0, 40.0), (1400.0, 40.0), (1400.0, 180.0), (1000.0, 180.0))
        assert win.setup.layout.dice_tray_mm == tray
        watch = win.worker.dice_watch
        assert not watch.whole_table and np.allclose(watch.tray, tray)
        assert "dice tray x 1000-1400, y 40-180 mm" in win.statusBar().currentMessage()
        out = tmp_path / "table-tray.toml"
        assert win.save_tray(out)
        assert load_layout(out).dice_tray_mm == tray
        source = setup.names["layout"]  # the layout it was read from is never written over
        before = Path(source).read_bytes()
        assert not win.save_tray(source) and Path(source).read_bytes() == before
        assert not win.set_dice_tray(((0, 0), (5, 0), (5, 5)))  # no room for a die: said, not set
        assert win.setup.layout.dice_tray_mm == tray
    finally:
        win.worker.dice_watch.close()
        win.worker = None
        win.close()


def test_a_rig_whose_first_registered_camera_reads_no_dice_waits_for_one_that_does(qapp):
    """The coarse camera registers first, the one straight down only later (its anchors under a hand at the start):
    the watch is not stopped for the game by the coarse one; the dice are watched through the other once it
    registers, and its throw is read."""
    cams = {"above": dice_camera((1280, 720)), "coarse": dice_camera((320, 180))}
    worker, frames, notices = _rig_with_dice(qapp, cams)
    both, coarse = {"above", "coarse"}, {"coarse"}
    script = [("none", coarse)] * 5 + [("none", both)] * 3 + [("roll", both)] * 2 + [("pair", both)] * 14
    try:
        got, watched = _instants(worker, cams, frames, script)
    finally:
        worker.stop()
    assert watched == [None] * 5 + ["above"] * (len(script) - 5)
    assert worker.dice_watch is not None
    assert [(th.number, th.values) for _, th in got] == [(1, (2, 4))]
    assert not [n for n in notices if "too small" in n]


def test_a_rig_none_of_whose_cameras_reads_the_dice_says_so_once_every_one_has_registered(qapp):
    """Both cameras see the tray too coarsely for a 20 mm die: the watch waits while one of them has not registered
    yet, then says once that the dice are too small and stops (the players type them)."""
    cams = {"coarse": dice_camera((320, 180)), "coarser": dice_camera((256, 144))}
    worker, frames, notices = _rig_with_dice(qapp, cams)
    script = [("none", {"coarse"})] * 3 + [("none", {"coarse", "coarser"})] * 3
    try:
        _, watched = _instants(worker, cams, frames, script)
    finally:
        worker.stop()
    assert watched[:3] == [None] * 3 and watched[3] == "coarse"
    assert worker.dice_watch is None
    assert len([n for n in notices if "too small to count its pips" in n]) == 1
