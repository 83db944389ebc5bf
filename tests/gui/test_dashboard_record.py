"""A whole Wiener game played and recorded without leaving the dashboard (offscreen): set-up, a committed move, a
fire and a melee resolved in the combat panel with typed dice, a turn change, a note, a misread move corrected by
a click, a bookmark undone and redone, the end; the record equals, event for event, the one `fieldglass record
--inputs` makes of the same game. Screenshot for a person to look at: out/screenshots/dashboard-recording.png."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings  # noqa: E402

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from fieldglass.record import Record  # noqa: E402
from fieldglass.record.export import export_report  # noqa: E402
from fieldglass.scripted_feed import scripted_feed  # noqa: E402
from fieldglass.setup import load_setup  # noqa: E402
from gui.app import MainWindow  # noqa: E402
from tests.gui.helpers import SHOTS  # noqa: E402
from tests.gui.table_game import TableGame, events_of  # noqa: E402


def _fire_and_melee(win, game) -> None:
    """A fire (the artillery selected by a click, its target by Shift+click, dice typed) and a melee, each resolved
    in the combat panel (Ctrl+Return) and applied."""
    win.live_view.pieceClicked.emit("fr-a-1", False)
    win.live_view.pieceClicked.emit("au-a-1", True)
    panel = win.combat_panel
    assert (panel.attacker.currentText(), panel.target.currentText()) == ("fr-a-1", "au-a-1")
    panel.action.setCurrentText("fire")
    panel.dice.setText("6 2")  # as typed at the table
    panel.loss_die.setValue(5)
    win._combat(False)  # Ctrl+Return
    assert panel.outcome is not None, panel.result.toPlainText()
    panel.apply()
    game.frames(1)
    # a melee
    win.live_view.pieceClicked.emit("fr-1-1", False)
    win.live_view.pieceClicked.emit("au-1-2", True)
    panel.action.setCurrentText("melee")
    panel.dice.setText("5,3")
    panel.loss_die.setValue(4)
    win._combat(False)
    assert panel.outcome is not None, panel.result.toPlainText()
    panel.apply()
    game.frames(1)


@pytest.fixture()
def played(qapp, tmp_path):
    """The scripted Wiener game played through the window, recorded into game.fgr."""
    setup = load_setup("wiener", "synthetic")
    settings = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(setup, settings=settings)
    win.resize(1366, 768)
    win.show()
    assert win.start_recording(tmp_path / "game.fgr")
    game = TableGame(qapp, win, setup, scripted_feed("wiener").places)
    s = win.session
    game.frames(8)  # every piece appears
    game.move("fr-1-1", 870, 750)  # into contact with the Austrian line (O13)
    _fire_and_melee(win, game)
    s.next_phase()  # N: the Austrians' turn
    game.frames(1)
    win.add_note("the left flank holds")
    game.move("fr-1-3", 990, 450)  # the camera commits it to Q8...
    win.live_view.pieceClicked.emit("fr-1-3", False)
    win.place_selected()  # E, then a click on its true field (R8's centre)
    assert win._placing == "fr-1-3"
    win.live_view.tableClicked.emit(1050.0, 450.0)
    assert win._placing is None
    game.frames(2)
    win.add_bookmark("the charge")
    game.frames(1)
    game.flush()
    win.undo()  # Ctrl+Z: the bookmark goes
    game.frames(1)
    game.flush()
    game.frames(6)  # the corrected piece stands still where the camera misread it: no move back
    game.flush()
    shot = SHOTS / "dashboard-recording.png"
    SHOTS.mkdir(parents=True, exist_ok=True)
    win.save_screenshot(shot)
    results = win.end_game("FR", "the Austrians withdraw", exports=True)
    yield game, win, tmp_path, results
    win.close()


def test_the_dashboard_records_the_whole_game_as_record_does(played):
    game, win, tmp, results = played
    gui_events = events_of(tmp / "game.fgr")
    kinds = [e[0] for e in gui_events]
    assert kinds.count("appeared") == 24
    assert kinds.count("combat") == 2 and "turn" in kinds and "note" in kinds and "end" in kinds
    combats = [e[5] for e in gui_events if e[0] == "combat"]
    assert [c["action"] for c in combats] == ["fire", "melee"]
    assert combats[0]["pieces"] == ["fr-a-1", "au-a-1"] and combats[0]["dice"][:2] == [6, 2]
    bookmarks = [e for e in gui_events if e[0] == "bookmark"]
    assert len(bookmarks) == 1 and bookmarks[0][4]  # undone, and kept in the file marked
    placed = [e for e in gui_events if e[0] == "move" and e[1] == "fr-1-3"]
    assert [p[5]["to"]["cell"] for p in placed] == ["Q8", "R8"]  # the camera's, then the player's correction
    assert placed[1][5]["by_hand"] and placed[1][5]["seen_at"]["cell"] == "Q8"
    # the same game through `fieldglass record --inputs`: event for event
    headless = game.record_headless(game.inputs_file(tmp / "inputs.jsonl"), tmp / "headless.fgr")
    assert events_of(headless) == gui_events
    # the end: the winner in the record, the report and the replay page written
    with Record.open(tmp / "game.fgr") as record:
        assert record.meta["game_over"] and record.meta["winner"] == "FR"
        report = export_report(record, "game")
    assert "FR wins" in report and "the left flank holds" in report
    written = dict(results)
    assert (tmp / "game.html").exists() and written["html"].endswith("game.html")
    assert (tmp / "game-report.txt").exists()


def test_undo_and_redo_go_back_and_forth_in_the_dashboard_too(qapp, tmp_path):
    setup = load_setup("wiener", "synthetic")
    win = MainWindow(setup, settings=QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    win.show()
    assert win.start_recording(tmp_path / "g.fgr")
    game = TableGame(qapp, win, setup, scripted_feed("wiener").places)
    s = win.session
    game.frames(8)
    s.set_piece_state("au-1-1", "markers", ("red",))
    s.next_phase()
    game.frames(1)
    assert s.state.active == "AU"
    game.flush()
    win.undo()  # the turn
    game.flush()
    assert s.state.active == "FR" and s.state.states["au-1-1"]["markers"] == ("red",)
    win.undo()  # the marker
    game.flush()
    assert not s.state.states.get("au-1-1", {}).get("markers")
    assert "2 " not in win.record_label.text() or "events" in win.record_label.text()
    win.redo()  # the marker again
    game.flush()
    assert s.state.states["au-1-1"]["markers"] == ("red",)
    status = win.stop_recording()
    with Record.open(status.path) as record:
        markers = [e for e in record.events() if e.type == "marker"]
    assert [m.undone for m in markers] == [True, False] and markers[1].data["redo_of"] == markers[0].seq
    win.close()


def test_a_record_that_cannot_be_opened_is_said_in_the_window(qapp, tmp_path):
    setup = load_setup("wiener", "synthetic")
    win = MainWindow(setup, settings=QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    (tmp_path / "old.fgr").write_text("not a record")
    assert not win.start_recording(tmp_path / "old.fgr")  # exists: not written over
    assert not win.start_recording(tmp_path / "missing.fgr", resume=True)
    assert any("no record to resume" in win.prompts.rows[k].findChildren(type(win.record_label))[0].text()
               for k in win.prompts.keys())
    assert (tmp_path / "old.fgr").read_text() == "not a record"
    assert win.recording is None
    win.close()


def _click(win, key: str, label: str) -> None:
    """Click the answer `label` of the prompt bar's question `key`."""
    from PySide6.QtWidgets import QPushButton  # noqa: PLC0415

    buttons = [b for b in win.prompts.rows[key].findChildren(QPushButton) if b.text() == label]
    assert buttons, f"no answer {label!r} to {key}"
    buttons[0].click()


def test_what_the_recorder_cannot_decide_it_asks_above_the_views(qapp, tmp_path):
    setup = load_setup("wiener", "synthetic")
    win = MainWindow(setup, settings=QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    win.show()
    assert win.start_recording(tmp_path / "g.fgr")
    game = TableGame(qapp, win, setup, scripted_feed("wiener").places)
    game.frames(8)
    assert not [k for k in win.prompts.keys() if k.startswith("edge:")]  # the set-up's edges are only marked
    # a move onto the edge of P10 and Q10 (x = 960 mm is their border): which field?
    game.move("fr-1-2", 962.0, 570.0)
    game.flush()
    edge = [k for k in win.prompts.keys() if k.startswith("edge:")]
    assert len(edge) == 1 and "fr-1-2" in win.prompts.rows[edge[0]].findChildren(type(win.record_label))[0].text()
    _click(win, edge[0], "P10")
    game.frames(2)
    game.flush()
    assert win.session.committed_places()["fr-1-2"].cell == "P10"
    # two alike pieces change places: meant?
    a, b = game.places["fr-2-1"], game.places["fr-2-2"]
    game.places["fr-2-1"], game.places["fr-2-2"] = list(b), list(a)
    game.frames(8)
    game.flush()
    swap = [k for k in win.prompts.keys() if k.startswith("swap:")]
    assert len(swap) == 1
    _click(win, swap[0], "No: each keeps its place")
    game.frames(3)
    game.flush()
    places = win.session.committed_places()
    assert (round(places["fr-2-1"].x_mm), round(places["fr-2-2"].x_mm)) == (round(a[0]), round(b[0]))
    # a piece out of sight too long: taken off, or still there?
    gone = dict(game.places)
    gone.pop("au-c-1")
    game.frames(55, gone)  # 11 s unseen
    game.flush()
    assert "missing:au-c-1" in win.prompts.keys()
    _click(win, "missing:au-c-1", "Removed")
    game.frames(1, gone)
    game.flush()
    assert "missing:au-c-1" not in win.prompts.keys()
    status = win.stop_recording()
    with Record.open(status.path) as record:
        events = record.events(clean=True)
    hand = [(e.piece, e.data["to"].get("cell")) for e in events if e.data.get("by_hand")]
    assert hand[0] == ("fr-1-2", "P10") and {p for p, _ in hand[1:]} == {"fr-2-1", "fr-2-2"}
    assert [e.type for e in events if e.piece == "au-c-1"][-2:] == ["missing", "removed"]
    # the piece back in its place after the question is not moved again by the camera's reading of the swap
    assert not [e for e in events if e.type == "move" and e.piece in ("fr-2-1", "fr-2-2")
                and not e.data.get("by_hand") and e.seq > max(x.seq for x in events if x.data.get("by_hand"))]
    win.close()
