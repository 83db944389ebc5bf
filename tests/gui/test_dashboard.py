"""The dashboard, offscreen, on the synthetic table: overlays and target list against the rules engine, a combat
through the panel, the game state, the calibration check screen, headless `fieldglass gui`.

Screenshots for a person to look at are written to out/screenshots/ (live view with a selected piece and its fire
lines, board view, combat panel, calibration check screen)."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace

import cv2
import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, QPointF, QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from calibration.camera import load_camera  # noqa: E402
from calibration.intrinsics import parse_board  # noqa: E402
from calibration.layout import load_layout  # noqa: E402
from common.dice import Dice  # noqa: E402
from common.errors import InputError  # noqa: E402
from fieldglass.commands import gui as gui_command  # noqa: E402
from fieldglass.setup import Setup, load_setup  # noqa: E402
from gui.app import MainWindow  # noqa: E402
from gui.worker import CaptureWorker  # noqa: E402
from rules.wiener.analysis import analyze_from, analyze_pair  # noqa: E402
from rules.wiener.live import FieldChange  # noqa: E402
from rules.wiener.resolve import resolve_fire, resolve_rally  # noqa: E402
from tests.gui.helpers import SHOTS  # noqa: E402
from tests.gui.helpers import pump as _pump
from tests.gui.helpers import refresh as _refresh
from vision.roster import load_roster  # noqa: E402
from vision.synthetic import SyntheticSource, demo_scene  # noqa: E402


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    settings = QSettings(str(tmp_path_factory.mktemp("settings") / "gui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(load_setup("wiener", "synthetic"), settings=settings, source_options={"resolution": (1280, 720)})
    win.resize(1366, 768)
    win.show()
    win.start(frames=2)
    _pump(qapp, lambda: win.worker is not None and win.worker.isFinished() and win.last_result is not None
          and win.last_result.number == 1)
    yield win
    win.close()


def _shot(win, widget, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / name
    assert widget.grab().save(str(path), "PNG")
    return path


def test_live_and_board_views_show_every_piece(window):
    s = window.session
    assert s.counts() == (24, 24)
    for view in (window.live_view, window.board_view):
        assert not view.pixmap.pixmap().isNull()
        pieces = {it.data(0) for it in view.overlay if str(it.data(1)).startswith("piece:")}
        assert pieces == {p.id for p in s.roster.pieces}
        assert len(view.items_of("anchor")) == 8
        assert view.items_of("grid")
        assert len(view.items_of("facing")) == 24
    styles = {v.piece.id: v.status for v in s.piece_views()}
    assert styles["fr-a-1"] == "ambiguous" and styles["fr-1-1"] == "seen"  # fr-a-1 stands on a field edge
    ambiguous = {it.data(0) for it in window.live_view.items_of("piece:ambiguous")}
    assert "fr-a-1" in ambiguous and "fr-1-1" not in ambiguous
    assert "24/24" in window.pieces_label.text()
    assert "fps" in window.fps_label.text()
    # the time from a frame's arrival to its overlays on screen, measured by the dashboard itself
    assert window.screen_latency_ms is not None and window.screen_latency_ms > 0
    assert f"frame to screen {window.screen_latency_ms:.0f} ms" in window.fps_label.text()
    assert "calibration good" in window.calib_label.text()
    assert "synthetic" in window.camera_label.text()
    # the worker is told how big the views show a frame, and makes the next ones that small
    assert window.worker.display_px == window.live_view.display_px() is not None
    assert window.worker.board_display_px == window.board_view.display_px()


def test_hover_names_the_field(window):
    view = window.live_view
    grid = window.setup.layout.grid
    x, y = grid.centre_of("D5")
    scene = view.mapper.points(np.array([[x, y]]))[0]
    assert view.hover_at(QPointF(*map(float, scene))) == "D5"


def test_select_piece_draws_the_engines_answers(qapp, window, qtbot):
    s = window.session
    # click the gun's base in the live view, like a player
    view = window.live_view
    pose = next(p for p in s.reading.pieces if p.piece == "fr-a-1")
    rp = s.roster.piece("fr-a-1")
    at = view.mapper.points(np.array([[pose.x_mm, pose.y_mm]]), rp.marker_height_mm)[0]
    vp = view.mapFromScene(float(at[0]), float(at[1]))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(vp.x(), vp.y()))
    _refresh(qapp, window)
    assert s.selected == "fr-a-1"

    rows = analyze_from(s.position, "fr-a-1")
    fire = [r for r in rows if r["fire"]["allowed"] or r["melee"]["allowed"]]
    blocked = [r for r in rows if not r["fire"]["allowed"] and not r["melee"]["allowed"]
               and r["fire"]["reason"].startswith("fire line blocked")]
    assert fire and blocked
    blockers = sum(len(r["blocked_by"]) for r in blocked)
    for v in (window.live_view, window.board_view):  # the two views select together
        assert len(v.items_of("fire-line")) == len(fire)
        assert len(v.items_of("blocked-line")) == len(blocked)
        assert len(v.items_of("blocker")) == blockers
        assert {it.data(2) for it in v.items_of("fire-line")} == {r["to"] for r in fire}
        assert v.items_of("arc") and v.items_of("shade:artillery") and v.items_of("shade:side")
    # the target list is the engine's, row for row
    model = window.selection_panel.model
    assert [r.target for r in model.rows] == [r["to"] for r in rows]
    for r, e in zip(model.rows, rows, strict=True):
        assert r.distance == e["distance"]
        assert r.fire == e["fire"]["allowed"]
        if r.fire:
            assert r.weapon == e["fire"]["weapon"].replace("_", " ")
            assert r.fire_net == e["fire"]["net_modifier"]
    _shot(window, window, "live-selected.png")
    _shot(window, window.live_view, "live-view-selected.png")
    _shot(window, window.board_view, "board-view.png")


def test_second_piece_shows_the_pairs_full_analysis(qapp, window):
    s = window.session
    s.select("fr-a-1")
    s.select("au-a-1", second=True)
    _refresh(qapp, window)
    text = window.selection_panel.pair_text.toPlainText()
    r = analyze_pair(s.position, "fr-a-1", "au-a-1")
    assert f"distance {r['distance']} LE" in text
    for m in r["fire"]["modifiers"]:
        assert m["rule"] in text and m.get("section", "") in text
    assert r["melee"]["reason"] in text
    magenta = [it for it in window.live_view.overlay if it.data(0) == "au-a-1" and it.data(1).startswith("piece")]
    assert magenta and magenta[0].pen().widthF() > 3


def test_combat_through_the_panel_changes_the_game_state(qapp, window):
    s = window.session
    panel = window.combat_panel
    s.select("fr-a-1")
    s.select("au-a-1", second=True)
    _refresh(qapp, window)
    window.show_panel("combat")
    assert panel.attacker.currentText() == "fr-a-1" and panel.target.currentText() == "au-a-1"
    assert "target skirmishers or dispersed" in panel.att_mods.toPlainText()
    before = s.position
    panel.dice.setText("6,1")
    panel.loss_die.setValue(6)
    panel.resolve_button.click()
    expected = resolve_fire(before, "fr-a-1", "au-a-1", Dice([6, 1]), loss_die=6)
    out = panel.outcome
    assert out is not None and out.changes == expected.as_dict()["changes"]
    text = panel.result.toPlainText()
    assert f"winner: {expected.winner}" in text and "rolls 6" in text
    _shot(window, window, "combat-panel.png")
    _shot(window, panel, "combat-panel-only.png")
    panel.apply_button.click()
    _refresh(qapp, window)
    after = s.position.piece("au-a-1")
    assert after.markers == expected.after.piece("au-a-1").markers == ("grey",)
    assert s.position.piece("fr-a-1").fired
    assert any("au-a-1" in line for line in s.state.log)
    # the game state table shows it, and the label on the table too
    model = window.game_panel.model
    row = next(i for i, v in enumerate(model.views) if v.piece.id == "au-a-1")
    assert model.data(model.index(row, 7)) == "grey"
    assert any("[grey]" in it.toolTip() for it in window.live_view.items_of("label"))
    # rolled by the app: a seed is shown, and the engine given that seed rolls every one of the dice shown
    s.select("fr-a-2")
    s.select("au-a-2", second=True)
    _refresh(qapp, window)
    panel.loss_die.setValue(0)  # "roll": the loss die comes from the seed too
    before = s.position
    assert panel.action.currentText() == "fire"
    panel.roll_button.click()
    seed = int(panel.seed.text())
    out = panel.outcome
    assert out is not None and out.seed == seed
    replay = Dice([], seed)
    expected = resolve_fire(before, "fr-a-2", "au-a-2", replay, supporters=panel.chosen_supporters())
    assert len(replay.rolled) >= 2  # the shot and the counter-fire at least (§8.4)
    assert out.rolled == replay.rolled
    assert out.changes == expected.as_dict()["changes"] and out.resolution.winner == expected.winner
    assert f"dice: {', '.join(map(str, replay.rolled))}  (seed {seed}, replay with the same seed)" \
        in panel.result.toPlainText()


def test_refused_action_is_a_message_not_an_error(qapp, window):
    panel = window.combat_panel
    window.session.select("fr-1-1")
    window.session.select("au-c-2", second=True)
    _refresh(qapp, window)
    panel.dice.setText("5,5")
    panel.resolve_button.click()
    assert panel.outcome is None
    assert "cannot resolve" in panel.result.toPlainText()
    panel.dice.setText("9")
    panel.resolve_button.click()
    assert "not a D6 roll" in panel.result.toPlainText()


def test_pending_changes_are_shown_until_the_table_matches(qapp, window):
    s = window.session
    s.state.pending["au-1-1"] = FieldChange("au-1-1", why=("flees 2 LE (§8.8)",), field=(13, 15), facing="S")
    s.state.pending["au-1-2"] = FieldChange("au-1-2", removed=True)
    s.state.removed.add("au-1-2")
    s._rebuild()
    _refresh(qapp, window)
    assert s.position.piece("au-1-1").field == (13, 15)  # the rules' state, until the pieces match
    assert "au-1-2" not in s.position.by_id
    assert window.live_view.items_of("pending-move") and window.live_view.items_of("pending-remove")
    assert window.board_view.items_of("pending-move")
    _shot(window, window.board_view, "board-view-pending.png")
    # the camera still sees au-1-1 in N14: still pending; a reading without au-1-2 settles the removal
    reading = s.reading
    s.update_reading(replace(reading, pieces=tuple(p for p in reading.pieces if p.piece != "au-1-2")))
    assert "au-1-1" in s.state.pending and "au-1-2" not in s.state.pending
    s.state.pending.clear()
    s.state.removed.clear()
    s.update_reading(reading)
    _refresh(qapp, window)


def test_game_state_table_sorts_filters_and_edits(qapp, window):
    panel = window.game_panel
    s = window.session
    panel.side_filter.setCurrentText("AU")
    assert panel.proxy.rowCount() == 12
    panel.filter.setText("au-c")
    assert panel.proxy.rowCount() == 2
    panel.filter.setText("")
    panel.side_filter.setCurrentIndex(0)
    assert panel.proxy.rowCount() == 24
    panel.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert panel.proxy.index(0, 0).data() == "fr-c-2"
    model = panel.model
    row = next(i for i, v in enumerate(model.views) if v.piece.id == "fr-1-1")
    assert model.setData(model.index(row, 5), "column")
    assert s.position.piece("fr-1-1").formation == "column"
    messages = []
    s.events.message.connect(messages.append)
    assert not model.setData(model.index(row, 5), "unlimbered")  # not an infantry formation
    assert messages and "formation" in messages[-1]
    assert model.setData(model.index(row, 2), "heavy_cavalry")  # the camera cannot tell hussars from cuirassiers
    assert s.position.piece("fr-1-1").type == "heavy_cavalry"
    assert model.setData(model.index(row, 2), "infantry")
    turn = s.state.turn
    panel.next_button.click()
    assert (s.state.turn, s.state.active) == (turn, "AU")
    panel.next_button.click()
    assert (s.state.turn, s.state.active) == (turn + 1, "FR")
    _shot(window, panel, "game-state-panel.png")


def test_calibration_wizard_check_screen_and_files(qapp, window, tmp_path):
    wiz = window.open_calibration()
    assert wiz.register()
    wiz.tabs.setCurrentIndex(2)
    qapp.processEvents()
    text = wiz.check_text.toPlainText()
    assert "reprojection" in text and "calibration good" in text
    _shot(window, wiz, "calibration-check.png")
    # files round-trip through the loaders
    wiz.camera = window.last_result.camera
    assert wiz.save_camera(tmp_path / "cam.json") and wiz.save_layout(tmp_path / "layout.toml")
    assert wiz.save_roster(tmp_path / "roster.toml")
    assert load_layout(tmp_path / "layout.toml") == window.setup.layout
    assert load_roster(tmp_path / "roster.toml") == window.setup.roster
    assert load_camera(tmp_path / "cam.json").image_size == (1280, 720)
    wiz.anchors.records[0]["id"] = 1  # a duplicate id: a message, not an exception
    assert wiz.layout_from_form() is None and "listed twice" in wiz.message.text()
    wiz.close()


def test_calibration_wizard_shows_the_expected_error_over_the_table(qapp, window, tmp_path):
    """Issue 17: with the lens's standard deviations the wizard maps the expected error over the table; without
    them it says why there is no map; an anchor's height (z_mm) is kept through the wizard's layout."""
    wiz = window.open_calibration()
    cam = window.last_result.camera
    assert wiz.register(camera=cam)
    assert wiz.error_map is None and "no standard deviations" in wiz.error_map_text.text()
    sure = replace(cam, std_devs=np.array([1.5, 1.5, 1.2, 1.2, 0.002, 0.004, 0.0002, 0.0002, 0.003]))
    assert wiz.register(camera=sure)
    e = wiz.error_map
    assert e is not None and e.shape == (16, 32) and np.all(np.isfinite(e)) and e.max() > e.min() > 0
    assert not wiz.error_map_label.pixmap().isNull()
    assert f"max {e.max():.2f} mm" in wiz.error_map_text.text()
    wiz.tabs.setCurrentIndex(1)  # the table tab holds the map
    qapp.processEvents()
    _shot(window, wiz, "calibration-error-map.png")
    wiz.anchors.records[0]["z_mm"] = 55.0  # an anchor glued on a block
    assert wiz.layout_from_form().anchor(wiz.anchors.records[0]["id"]).z_mm == 55.0
    wiz.close()


def test_calibration_wizard_intrinsics_from_board_views(qapp, window):
    board = parse_board("chessboard:7x5:30")
    sq = 40
    img = np.full(((board.rows + 3) * sq, (board.cols + 3) * sq), 255, np.uint8)
    for r in range(board.rows + 1):
        for c in range(board.cols + 1):
            if (r + c) % 2 == 0:
                img[(r + 1) * sq:(r + 2) * sq, (c + 1) * sq:(c + 2) * sq] = 0
    h, w = img.shape
    wiz = window.open_calibration()
    wiz.board_spec.setText(str(board))
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    for dst in ([[100, 80], [620, 120], [600, 460], [80, 420]], [[300, 60], [900, 40], [940, 500], [260, 520]],
                [[60, 300], [560, 240], [600, 700], [120, 690]], [[700, 300], [1200, 350], [1150, 700], [720, 650]]):
        hmat = cv2.getPerspectiveTransform(src, np.float32(dst))
        view = cv2.warpPerspective(img, hmat, (1280, 720), borderValue=200)
        assert wiz.capture(cv2.GaussianBlur(view, (0, 0), 0.8))
    assert wiz.coverage.covered_fraction() > 0.2
    assert not wiz.capture(np.full((720, 1280), 128, np.uint8))  # no board: said, not raised
    assert wiz.calibrate(), wiz.message.text()
    assert wiz.camera.image_size == (1280, 720) and "RMS" in wiz.camera_text.toPlainText()
    wiz.close()


def test_worker_hands_over_only_the_newest_frame(qapp):
    setup = load_setup("wiener", "synthetic")
    source = SyntheticSource(demo_scene(), resolution=(640, 360), frames=3)
    worker = CaptureWorker(setup, source, max_frames=3)
    worker.display_px = (320, 200)  # the live view shows a whole frame in 320 x 200 screen pixels
    signals = []
    worker.ready.connect(lambda: signals.append(1))
    worker.start()
    _pump(qapp, worker.isFinished)
    assert len(signals) == 1  # the GUI took nothing: no queue of signals behind it
    newest = worker.take()
    assert newest.number == 2 and worker.take() is None
    assert newest.board is not None and newest.reading.pose is not None
    assert newest.shown.shape == (180, 320, 4) and newest.frame.shape == (360, 640, 3)  # made that small, once
    assert newest.board_shown.shape[:2] == newest.board.shape[:2]  # the board view's size not given: full size


def test_missing_source_is_a_message(qapp, tmp_path):
    setup = load_setup("wiener", "synthetic")
    bad: Setup = replace(setup, source=str(tmp_path / "missing.mp4"))
    win = MainWindow(bad, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    win.start()
    qapp.processEvents()
    assert "file not found" in win.camera_label.text()
    win.close()
    with pytest.raises(InputError, match="needs --camera"):
        load_setup("wiener", "0")


def test_window_state_is_saved(qapp, tmp_path):
    path = str(tmp_path / "state.ini")
    win = MainWindow(load_setup("wiener", "synthetic"), settings=QSettings(path, QSettings.Format.IniFormat))
    win.set_view_mode("board")
    win.set_board_scale(3.0)
    win.close()
    again = MainWindow(load_setup("wiener", "synthetic"), settings=QSettings(path, QSettings.Format.IniFormat))
    assert again.view_mode == "board" and again.board_mm_per_px == 3.0
    again.close()


def test_headless_gui_command(qapp, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    gui_command.add_parser(parser.add_subparsers())
    shot = tmp_path / "gui.png"
    args = parser.parse_args(["gui", "--frames", "1", "--resolution", "1280x720", "--screenshot", str(shot),
                              "--select", "fr-1-1"])
    assert args.run(args) == 0
    out = capsys.readouterr().out
    assert "running headless" in out and "selected fr-1-1" in out and "fr-a-1" in out and "Q8" in out
    assert shot.stat().st_size > 10000
    bad = parser.parse_args(["gui", "--layout", str(tmp_path / "nope.toml"), "--headless"])
    with pytest.raises(InputError, match="layout file not found"):
        bad.run(bad)
    QApplication.processEvents()


def test_rally_through_the_panel_needs_no_target(qapp, window):
    """After the fire above left au-a-1 with a Grey marker, it rallies on its own: 4+ removes its markers (§8.10)."""
    s = window.session
    panel = window.combat_panel
    window.show_panel("combat")
    if not s.position.piece("au-a-1").markers:
        s.set_piece_state("au-a-1", "markers", ["grey"])
        _refresh(qapp, window)
    panel.attacker.setCurrentText("au-a-1")
    panel.action.setCurrentText("rally")
    _refresh(qapp, window)
    assert not panel.target.isEnabled()
    assert "§8.10" in panel.att_mods.toPlainText()
    before = s.position
    panel.dice.setText("5")
    panel.resolve_button.click()
    expected = resolve_rally(before, "au-a-1", Dice([5]))
    assert panel.outcome is not None and panel.outcome.changes == expected.as_dict()["changes"]
    panel.apply_button.click()
    _refresh(qapp, window)
    assert s.position.piece("au-a-1").markers == expected.after.piece("au-a-1").markers == ()
