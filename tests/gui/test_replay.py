"""The replay viewer, offscreen, on a record of the scripted game: step, play at 8x, scrub, jump to a turn and a
phase, the event list following both ways, fire lines from the rules engine, notes, undone events, and headless
`fieldglass replay`.

The record is made from `vision.scripted`'s game through the real recorder (`GameRecorder`: the tracker, the
players' inputs, the rules engine resolving the combat, one transaction per event) with the camera replaced by the
script's own true piece places (pieces under a hand or lifted are not seen), so it takes a fraction of a second
instead of the ~25 s of detection. Screenshots for a person to look at: out/screenshots/replay-*.png."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

import gui  # noqa: E402,F401
from common.fields import snap_facing  # noqa: E402
from fieldglass.cli import main as cli_main  # noqa: E402
from fieldglass.record import Record, Replay  # noqa: E402
from fieldglass.record.board import Board  # noqa: E402
from fieldglass.recording import GameRecorder, record_meta, record_stream  # noqa: E402
from fieldglass.replay_session import ReplaySession  # noqa: E402
from gui.replay import ReplayWindow  # noqa: E402
from rules.wiener.analysis import analyze_from  # noqa: E402
from rules.wiener.live import wiener_position  # noqa: E402
from rules.wiener.pairs import analyze_all  # noqa: E402
from tests.gui.helpers import SHOTS  # noqa: E402
from vision.pieces import PiecePose, TableReading  # noqa: E402
from vision.scripted import scripted_game  # noqa: E402
from vision.tracking import TrackerConfig  # noqa: E402


def make_record(path: Path) -> Path:
    """The scripted game recorded through GameRecorder, the camera replaced by the script's true places; one note
    about a piece and one bookmark taken back (undone) added to the script's inputs."""
    game = scripted_game()
    grid = game.layout.grid
    markers = {p.id: p.marker for p in game.roster.pieces}
    meta = record_meta("wiener", game.layout, game.roster, None, {}, ["FR player", "AU player"], "scripted")
    rec = Record.create(path, meta, overwrite=True, snapshot_every=5)
    recorder = GameRecorder.start(rec, game.roster, TrackerConfig(missing_after_s=3.0))
    combat_frame = next(x["frame"] for x in game.inputs if x["type"] == "combat")
    extra = [*game.inputs,
             {"frame": combat_frame, "type": "note", "piece": "fr-a-1", "text": "a lucky first shot",
              "by": "AU player"},
             {"frame": len(game.frames) - 1, "type": "bookmark", "label": "taken back"},
             {"frame": len(game.frames) - 1, "type": "undo", "count": 1}]
    inputs: dict[int, list[dict]] = {}
    for k, inp in enumerate(extra):
        inputs.setdefault(inp["frame"], []).append({**inp, "_id": f"script{k}"})
    board = Board(meta, width_px=320)
    current = {}

    def frames():
        for i, spec in enumerate(game.frames):
            current["spec"] = spec
            # the "photo" kept as a thumbnail at turns and combats: a diagram of the committed state
            image = board.draw(rec.state(), title=f"frame {i}") if i in inputs else np.zeros((4, 4, 3), np.uint8)
            yield i, i / game.fps, image

    def read(_image):
        spec = current["spec"]
        poses = []
        for pid, (x, y, h, lift) in spec.places.items():
            hand = spec.hand
            if lift or (hand is not None and hand[2] >= 0.7 and math.hypot(x - hand[0], y - hand[1]) < 80):
                continue  # in a hand, or under it
            poses.append(PiecePose(pid, markers[pid], x, y, h, snap_facing(h)[0], 0.0, grid.name_at(x, y), 10.0))
        return TableReading(object(), tuple(poses), (), ())

    record_stream(recorder, frames(), read, inputs)
    rec.close()
    return path


@pytest.fixture(scope="module")
def record_path(tmp_path_factory):
    return make_record(tmp_path_factory.mktemp("replay") / "game.fgr")


@pytest.fixture
def window(qapp, record_path):
    win = ReplayWindow(ReplaySession(Record.open(record_path)))
    win.resize(1500, 900)
    win.show()
    qapp.processEvents()
    win.board.fit()
    yield win
    win.close()
    win.record.close()


def _shot(win, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / name
    win.board.fit()
    win._refresh()
    assert win.grab().save(str(path), "PNG")
    return path


def reference(record_path, include_undone=False) -> Replay:
    return Replay(Record.open(record_path), include_undone=include_undone)


def check_shown(win, record_path) -> None:
    """The board shows Replay's position at the window's event, piece by piece, and the list's row follows."""
    k = win.session.index
    ref = reference(record_path, win.session.include_undone)
    want = ref.position_at(k)
    assert win.session.state().to_json() == want.to_json()
    drawn = {}
    for it in win.board.overlay:
        if str(it.data(1)).startswith("piece:"):
            drawn[it.data(0)] = it
    assert set(drawn) == {p.id for p in want.on_table()}
    for p in want.on_table():
        c = drawn[p.id].boundingRect().center()
        x, y = win.board.mapper.to_table(c.x(), c.y())
        assert abs(x - p.x_mm) < 2.0 and abs(y - p.y_mm) < 2.0, p.id
    assert win.current_row() == k - 1
    assert win.model.current == k - 1


def test_opens_at_the_start_with_the_timeline_marked(window, record_path):
    s = window.session
    ref = reference(record_path)
    assert s.index == 0 and window.current_row() == -1
    assert window.model.rowCount() == len(ref) == 20  # the undone bookmark is hidden
    assert not any(e.undone for e in window.model.rows)
    kinds = [m.kind for m in window.timeline.markers]
    assert kinds.count("turn") == 2 and kinds.count("combat") == 1 and kinds.count("bookmark") == 1
    assert kinds.count("note") == 2 and kinds.count("phase") == 1
    assert [window.turn_box.itemText(i) for i in range(window.turn_box.count())] == ["set-up", "turn 1", "turn 2"]
    assert [window.phase_box.itemText(i) for i in range(window.phase_box.count())] == [
        "turn 1 · movement", "turn 1 · fire", "turn 2 · movement"]
    assert window.board.items_of("caption")
    check_shown(window, record_path)
    _shot(window, "replay-start.png")


def test_step_forward_and_back_with_buttons_and_keys(window, record_path, qtbot):
    for _ in range(9):
        window.buttons["forward"].click()
    assert window.session.index == 9
    assert window.session.current_event().type == "move"
    assert window.board.items_of("move-arrow") and window.board.items_of("move-ghost")
    check_shown(window, record_path)
    window.buttons["back"].click()
    assert window.session.index == 8
    check_shown(window, record_path)
    window.activateWindow()
    window.board.setFocus()
    QTest.keyClick(window, Qt.Key.Key_Right)
    assert window.session.index == 9
    QTest.keyClick(window, Qt.Key.Key_Left)
    assert window.session.index == 8
    QTest.keyClick(window, Qt.Key.Key_End)
    assert window.session.index == len(window.session)
    check_shown(window, record_path)
    QTest.keyClick(window, Qt.Key.Key_Home)
    assert window.session.index == 0
    QTest.keyClick(window, Qt.Key.Key_Space)
    assert window.playing
    QTest.keyClick(window, Qt.Key.Key_Space)
    assert not window.playing
    window.buttons["end"].click()
    window.buttons["start"].click()
    assert window.session.index == 0 and window.current_row() == -1


def test_play_at_8x_moves_the_board_and_the_list_follows(window, record_path, qtbot):
    window.speed_box.setCurrentIndex(window.speed_box.findText("8x"))
    assert window.speed == 8.0
    window.play()
    window.timer.stop()  # drive the ticks by hand: 1/8 s of wall time = 1 s of game time each
    rows = []
    for _ in range(5):
        window.tick(0.125)
        rows.append(window.current_row())
    assert window.cursor_t == pytest.approx(5.0)
    assert window.session.index == reference(record_path).index_at(5.0) == 9  # up to fr-i-1's move at 4.0 s
    assert rows == [6, 7, 7, 8, 8]  # at 1 s the seven pieces have appeared, at 2 s turn 1 began, at 4 s a move
    assert abs(window.timeline.t - 5.0) < 1e-9
    check_shown(window, record_path)
    while window.playing:
        window.tick(0.125)
    assert window.session.index == len(window.session) and window.cursor_t == pytest.approx(window.session.duration)
    check_shown(window, record_path)
    # and with the real timer
    window.go(0)
    window.play()
    qtbot.waitUntil(lambda: window.session.index >= 8, timeout=5000)
    window.pause()
    check_shown(window, record_path)


def test_scrubbing_the_timeline(window, record_path, qtbot):
    tl = window.timeline
    ref = reference(record_path)
    y = tl.BAR_TOP + tl.BAR_H // 2
    QTest.mousePress(tl, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(int(tl.x_for(14.8)), y))
    # at 14.0 s: the fire phase, the combat and a note about the gun
    assert window.session.index == ref.index_at(window.cursor_t) == 13
    assert [e.type for e in ref.events[10:13]] == ["phase", "combat", "note"]
    assert abs(window.cursor_t - 14.8) < 0.2
    check_shown(window, record_path)
    assert window.board.items_of("combat-line") and window.board.items_of("combat-label")
    ghosts = window.board.items_of("combat-ghost")
    assert len(ghosts) == 1 and "au-i-1" in ghosts[0].toolTip()  # removed by the shot: shown where it stood
    _shot(window, "replay-combat.png")
    QTest.mouseMove(tl, QPoint(int(tl.x_for(20.0)), y))
    QTest.mouseRelease(tl, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(int(tl.x_for(20.0)), y))
    assert window.session.index == ref.index_at(window.cursor_t) == 15  # fr-c-1's move at 18.4 s
    check_shown(window, record_path)


def test_jump_to_a_turn_and_a_phase(window, record_path):
    ref = reference(record_path)
    window.turn_box.activated.emit(window.turn_box.findData(2))
    assert window.session.index == ref.turn_starts()[2] + 1
    assert window.session.state().turn == 2 and window.session.current_event().type == "turn"
    check_shown(window, record_path)
    i = window.phase_box.findText("turn 1 · fire")
    window.phase_box.activated.emit(i)
    assert window.session.current_event().type == "phase" and window.session.state().phase == "fire"
    assert window.turn_box.currentData() == 1 and window.phase_box.currentIndex() == i
    check_shown(window, record_path)
    window.turn_box.activated.emit(window.turn_box.findData(0))
    assert window.session.index == 0
    QTest.keyClick(window, Qt.Key.Key_PageDown)
    assert window.session.state().turn == 1 and window.session.current_event().type == "turn"


def test_choosing_an_event_in_the_list_jumps_there(window, record_path):
    table = window.table
    rect = table.visualRect(window.model.index(13, 2))
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    assert window.session.index == 14 and window.session.current_event().seq == window.model.rows[13].seq
    check_shown(window, record_path)
    sm = table.selectionModel()
    sm.setCurrentIndex(window.model.index(3, 0), sm.SelectionFlag.ClearAndSelect | sm.SelectionFlag.Rows)
    assert window.session.index == 4
    check_shown(window, record_path)


def test_fire_lines_come_from_the_rules_engine(window, record_path):
    window.go(8)  # turn 1 begins: every piece on the table
    st = reference(record_path).position_at(8)
    pos = wiener_position(st, Record.open(record_path).meta["layout"]["grid"])
    table = analyze_all(pos)
    want = {(pos.pieces[int(a)].id, pos.pieces[int(b)].id)
            for a, b, f, m in zip(table.src, table.dst, table.fire_allowed, table.melee_allowed, strict=True)
            if f or m}
    drawn = window.board.items_of("pair-line")
    assert len(drawn) == len(want) > 0
    assert {(ln.piece, ln.target) for ln in window.session.fire_lines()} == want
    window.lines_box.setChecked(False)
    assert not window.board.items_of("pair-line")
    window.lines_box.setChecked(True)
    # click the gun: its arc, ranges and fire lines, as the dashboard draws them
    p = st.pieces["fr-a-1"]
    at = window.board.mapFromScene(*window.board.mapper.points(np.array([[p.x_mm, p.y_mm]]))[0])
    QTest.mouseClick(window.board.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
    assert window.session.selected == "fr-a-1"
    lines = {it.data(2) for it in window.board.items_of("fire-line")}
    assert lines == {r["to"] for r in analyze_from(pos, "fr-a-1") if r["fire"]["allowed"]} == {"au-i-1", "au-i-2",
                                                                                                 "au-c-1"}
    assert window.board.items_of("arc")
    _shot(window, "replay-selected.png")
    # the selection stays across moments; the lines follow the position (au-i-1 shot away at event 12)
    window.go(12)
    assert {it.data(2) for it in window.board.items_of("fire-line")} == {"au-i-2", "au-c-1"}


def test_notes_are_shown_where_they_were_written(window, record_path):
    ref = reference(record_path)
    note_i = next(i for i, e in enumerate(ref.events) if e.type == "note" and e.piece == "fr-a-1")
    window.go(note_i)  # before it: not shown
    assert not window.board.items_of("note")
    window.go(note_i + 1)
    (item,) = window.board.items_of("note")
    assert "a lucky first shot" in item.childItems()[0].text()
    gun = ref.position_at(note_i + 1).pieces["fr-a-1"]
    x, y = window.board.mapper.to_table(item.pos().x(), item.pos().y())
    assert math.hypot(x - gun.x_mm, y - gun.y_mm) < 60  # beside the piece it is about
    assert "a lucky first shot" in window.details.text()
    window.go(len(window.session))  # turn 2: the player's note about the knocked-off piece, over the table
    texts = [it.childItems()[0].text() for it in window.board.items_of("note")]
    assert any("fell off the table" in t for t in texts) and not any("lucky" in t for t in texts)
    _shot(window, "replay-end.png")


def test_undone_events_hidden_unless_asked_and_then_greyed(window, record_path):
    window.go(len(window.session))
    end = window.session.state().to_json()
    window.undone_box.setChecked(True)
    rows = window.model.rows
    assert len(rows) == 21 and rows[-1].undone and rows[-1].data["label"] == "taken back"
    grey = window.model.data(window.model.index(20, 4), Qt.ItemDataRole.ForegroundRole)
    assert grey is not None and grey.color().red() == 150
    assert window.model.data(window.model.index(20, 4)) == "bookmark (undone)"
    assert window.session.index == 20  # the moment shown is kept
    window.buttons["forward"].click()
    assert window.session.index == 21 and window.session.current_event().undone
    assert window.session.state().to_json() == {**end, "seq": window.session.state().seq}  # it changes nothing
    check_shown(window, record_path)
    assert "UNDONE" in window.board.items_of("caption")[0].childItems()[0].text()
    _shot(window, "replay-undone.png")
    window.undone_box.setChecked(False)
    assert len(window.model.rows) == 20 and window.session.index == 20


def test_headless_command(record_path, tmp_path, capsys):
    shot = tmp_path / "replay.png"
    assert cli_main(["replay", str(record_path), "--headless", "--at", "12", "--select", "fr-a-1",
                            "--screenshot", str(shot)]) == 0
    out = capsys.readouterr().out
    assert "timeline:" in out and "combat" in out and "bookmark  lines closing" in out
    assert "after event 12 of 21" in out and "au-i-1    AU    infantry       J6    S      removed" in out
    assert "fr-a-1 J3 -> au-i-2 L7 (fire)" in out
    assert shot.stat().st_size > 10_000
    # bad files and bad events: one line, exit 2
    bad = tmp_path / "bad.fgr"
    bad.write_text("not a record")
    for argv, msg in (([str(bad)], "not a Fieldglass game record"),
                      ([str(tmp_path / "none.fgr")], "record not found"),
                      ([str(record_path), "--headless", "--at", "99"], "no event 99"),
                      ([str(record_path), "--headless", "--at", "21"], "was undone")):
        assert cli_main(["replay", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert msg in err and len(err.splitlines()) == 1
