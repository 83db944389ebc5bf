"""Every other system's game recorded without leaving the dashboard (offscreen), as the Wiener one is
(tests/gui/test_dashboard_record.py): on each system's scripted feed (fieldglass/scripted_feed.py, through
tests/gui/table_game.py's `TableGame`) the pieces appear, one is moved and committed, the system's own actions are
taken through the dashboard's own controls (the combat panel, the system's panels, the game-state panel), the turn
changes, a note is written, the note and the turn are undone and the turn redone; the record equals, event for
event, the one `fieldglass record --inputs` makes of the same readings and inputs, and holds the system's own events
with their results, resolved on the position the dashboard resolved them on."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings  # noqa: E402

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from fieldglass.record import Record  # noqa: E402
from fieldglass.replay_session import ReplaySession  # noqa: E402
from fieldglass.scripted_feed import scripted_feed  # noqa: E402
from fieldglass.setup import load_setup  # noqa: E402
from gui.app import MainWindow  # noqa: E402
from rules.coalitions.board import map_point as territory_point  # noqa: E402
from rules.coalitions.camera import track_point  # noqa: E402
from rules.nie import turn as nie_turn  # noqa: E402
from rules.nie.board import map_point as region_point  # noqa: E402
from rules.nie.model import Production, with_changes  # noqa: E402
from tests.gui.table_game import TableGame, events_of  # noqa: E402


def open_game(qapp, tmp_path, system: str, adapt=None) -> tuple[MainWindow, TableGame]:
    """The dashboard on `system`'s synthetic set-up (`adapt(setup)`: its game changed first), recording into
    game.fgr, fed its scripted table."""
    setup = load_setup(system, "synthetic")
    setup = adapt(setup) if adapt is not None else setup
    win = MainWindow(setup, settings=QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    win.resize(1366, 768)
    win.show()
    assert win.start_recording(tmp_path / "game.fgr")
    return win, TableGame(qapp, win, setup, scripted_feed(system).places)


def resolved(win, game: TableGame, action: str | None = None, attacker: str | None = None,
             target: str | None = None, dice: str | None = None, choices: str | None = None):
    """The combat panel as it stands (filled by a click, a panel's action), with whatever is given set in it,
    resolved (Ctrl+Return) and applied; a frame after. Returns the outcome."""
    panel = win.combat_panel
    for combo, text in ((panel.action, action), (panel.attacker, attacker), (panel.target, target)):
        if text is not None:
            combo.setCurrentText(text)
            assert combo.currentText() == text, f"{text!r} is not offered"
    if dice is not None:
        panel.dice.setText(dice)
    if choices is not None:
        panel.choices.setText(choices)
    win._combat(False)
    outcome = panel.outcome
    assert outcome is not None, panel.result.toPlainText()
    panel.apply()
    game.frames(1)
    return outcome


def selected(win, piece: str, target: str | None = None, action: str | None = None) -> None:
    """A click on `piece` (and a Shift+click on `target`), the combat panel following the selection."""
    win.board_view.pieceClicked.emit(piece, False)
    if target is not None:
        win.board_view.pieceClicked.emit(target, True)
    if action is not None:
        win.combat_panel.action.setCurrentText(action)
    win.combat_panel.follow_selection()


def from_panel(win, key: str, wanted) -> None:
    """The first action of the system's panel `key` that `wanted(action)` picks, filled into the combat panel with
    the panel's own button."""
    panel = win.system_panels[key]
    row = next(i for i, a in enumerate(panel.panel.actions) if a.allowed and wanted(a))
    panel.actions_list.setCurrentRow(row)
    panel.fill_button.click()


def edit_cell(model, pid: str, key: str, value) -> None:
    """A cell of the game-state panel's pieces table typed in, as a player edits it (`pid` as the viewer names it)."""
    row = next(i for i, v in enumerate(model.views) if v.piece.id == pid)
    col = next(c for c, k in model.EDITABLE.items() if k == key)
    assert model.setData(model.index(row, col), value)


def turn_note_undo(win, game: TableGame) -> None:
    """The turn changes (the game panel's Next phase, N); a note (M); Ctrl+Z takes back the note, then the turn, and
    the game (the turn, the active side and the engine's position: the system's own state, `LiveRules.game_state`)
    goes back with it; Ctrl+Shift+Z writes the turn again and the game goes on from after it."""
    s = win.session
    before = (s.state.turn, s.state.active, s.position)
    win.game_panel.next_button.click()
    after = (s.state.turn, s.state.active, s.position)
    assert after != before
    game.frames(1)
    win.add_note("a note to take back")
    game.frames(1)
    for _ in range(2):  # the note, then the turn
        game.flush()
        win.undo()
        game.flush()
    assert (s.state.turn, s.state.active, s.position) == before
    win.redo()
    game.flush()
    assert (s.state.turn, s.state.active, s.position) == after
    game.frames(2)


def recorded_alike(win, game: TableGame, tmp_path) -> list[tuple]:
    """The dashboard's record closed, and the same game recorded headless: the two hold the same events (the moves,
    the turn undone and written again, the note undone), and the replay of the record ends on the engine's position
    the dashboard ends on. Returns the dashboard's events."""
    game.flush()
    status = win.stop_recording()
    assert status.stopped is None, status.stopped
    gui_events = events_of(tmp_path / "game.fgr")
    headless = game.record_headless(game.inputs_file(tmp_path / "inputs.jsonl"), tmp_path / "headless.fgr")
    assert events_of(headless) == gui_events
    assert "move" in [e[0] for e in gui_events]
    notes = [e for e in gui_events if e[0] == "note"]
    assert len(notes) == 1 and notes[0][4]  # undone, and kept in the file marked
    turns = [e for e in gui_events if e[0] == "turn"]
    if win.session.record_start() is not None:  # a system whose turns name one: the record starts at its turn
        assert not turns[0][4] and turns[0][2] == 0
        turns = turns[1:]
    assert [t[4] for t in turns] == [True, False] and turns[1][5]["redo_of"]  # undone, then written again
    with Record.open(tmp_path / "game.fgr") as record:  # its replay ends on the game the dashboard has
        replay = ReplaySession(record)
        replay.to_end()
        assert not replay.problems and replay.position == win.session.position
    return gui_events


def combats(events, action: str) -> list[dict]:
    """The data of the record's standing `combat` events of `action`."""
    return [e[5] for e in events if e[0] == "combat" and e[5].get("action") == action and not e[4]]


# ---------------------------------------------------------------------------------------------------------- DBX


def test_dbx_a_fire_and_a_melee_with_typed_dice(qapp, tmp_path):
    win, game = open_game(qapp, tmp_path, "dbx")
    s = win.session
    game.frames(8)  # every element appears
    game.move("b4", 470, 170)  # the blue guns on the right step forward
    # the guns b3 fire at the cuirassiers r3 (a click, a Shift+click, the dice typed): a recoil (§8.5)
    selected(win, "b3", "r3", "fire")
    fire_out = resolved(win, game, dice="6,1")
    ch = s.state.pending["r3"]
    game.move("r3", ch.x_mm, ch.y_mm, ch.heading_deg)  # the players recoil it as the rules say
    assert "r3" not in s.state.pending
    # b2 meets r1 front to front: 6 against 1, r1 destroyed and taken off the table
    selected(win, "b2", "r1", "melee")
    resolved(win, game, dice="6,1")
    game.places.pop("r1")
    game.frames(4)
    edit_cell(win.game_panel.model, "b1", "formation", "Gr")  # b1 is grenadiers: the quality column (§8.1)
    assert s.position.piece("b1").quality == "Gr"
    turn_note_undo(win, game)  # red's bound
    events = recorded_alike(win, game, tmp_path)
    fire, = combats(events, "fire")
    assert fire["pieces"] == ["b3", "r3"] and fire["dice"] == [6, 1] and fire["effect"] == "recoil"
    assert fire["lines"] == fire_out.lines  # resolved on the position the dashboard resolved it on
    melee, = combats(events, "melee")
    assert melee["outcome"]["loser"] == "r1" and melee["effect"] == "destroyed" and melee["winner"] == "attacker"
    assert any(c.get("removed") for c in melee["changes"])
    quality, = [e for e in events if e[0] == "piece_state"]
    assert quality[1] == "b1" and quality[5] == {"key": "quality", "value": "Gr"}
    assert [e[5]["active"] for e in events if e[0] == "turn"] == ["blue", "red", "red"]  # the start, N, redone
    win.close()


# ------------------------------------------------------------------------------------------------------ Marengo


def test_marengo_a_thrust_a_bombardment_and_a_hidden_block_s_strength(qapp, tmp_path):
    win, game = open_game(qapp, tmp_path, "marengo")
    s = win.session
    game.frames(8)  # every block appears in its area
    # the Austrian cavalry thrusts from 3 into 5 against fr-inf-1 (§6)
    selected(win, "au-cav-1", "fr-inf-1", "thrust")
    thrust_out = resolved(win, game)
    moves = {pid: s.state.pending[pid] for pid in ("au-cav-1", "fr-inf-1")}
    for pid, ch in moves.items():  # the players move the blocks where the rules sent them
        game.move(pid, *s.board.standing_point(ch.area, ch.approach or "reserve"), settle=1)
    game.frames(8)
    assert not s.state.pending
    # the artillery in the approach 4>5 announces a bombardment (§7): it is revealed
    resolved(win, game, "bombard", "au-art-1", choices="phase=announce")
    assert s.position.block("au-art-1").revealed
    # a strength the camera cannot see, typed in the game-state panel's "bases" cell by the Austrian player, who
    # knows fr-inf-2 only as a French block (§13): it has lost a step
    win.viewer_actions["AU"].setChecked(True)
    label = s.visible_id("fr-inf-2")
    assert label.startswith("FR block")
    edit_cell(win.game_panel.model, label, "bases", 2)
    win.viewer_actions["umpire"].setChecked(True)
    assert s.position.block("fr-inf-2").strength == 2
    turn_note_undo(win, game)  # Austria's turn ends, France's begins
    events = recorded_alike(win, game, tmp_path)
    thrust, = combats(events, "thrust")
    assert thrust["pieces"][0] == "au-cav-1" and thrust["events"] == list(thrust_out.resolution.outcome.events)
    assert {c["piece"]: c["area"] for c in thrust["changes"] if c.get("area")} == {
        pid: ch.area for pid, ch in moves.items()}
    assert {e[1]: e[5]["area"] for e in events if e[0] == "move"} == {pid: ch.area for pid, ch in moves.items()}
    bombard, = combats(events, "bombard")
    assert any(c["piece"] == "au-art-1" and c.get("revealed") for c in bombard["changes"])
    state, = [e for e in events if e[0] == "piece_state"]
    assert state[1] == "fr-inf-2" and state[5] == {"key": "strength", "value": 2}  # the unit, not the label
    assert [e[5]["phase"] for e in events if e[0] == "turn"] == ["FR to move"] * 2
    win.close()


# ---------------------------------------------------------------------------------------------------------- NiE


def _in_production(setup):
    """The demo's game in France's production turn (§4.1 step 4: units are bought only then, §9.5), every nation's
    PP totalled already (its saved PP are what it may spend)."""
    order = nie_turn.turn_order(setup.game)
    return replace(setup, game=with_changes(setup.game, production=Production(tuple(order), dict.fromkeys(order, 0))))


def test_nie_a_land_move_in_the_month_s_turn(qapp, tmp_path):
    win, game = open_game(qapp, tmp_path, "nie")
    s = win.session
    game.frames(8)  # every figure appears: on the map, and on the battle board beside it (its own anchors)
    assert s.surface_pose("battle") is not None and s.position.battle is not None
    # France's cavalry marches from Picardy into Belgium (§5.2): resolved, then moved on the map
    selected(win, "fr-cav-1", action="land_move")
    resolved(win, game, choices="path=belgium")
    assert s.state.pending["fr-cav-1"].at == "belgium"
    game.move("fr-cav-1", *region_point(s.position.europe, "belgium"))
    assert "fr-cav-1" not in s.state.pending
    turn_note_undo(win, game)  # France's turn ends: the next nation's
    events = recorded_alike(win, game, tmp_path)
    assert [e[5]["surface"] for e in events if e[0] == "surface"] == ["battle"]  # found once, from its anchors
    on_battle = {e[1]: e[5]["area"] for e in events if e[0] == "appeared" and e[5].get("surface") == "battle"}
    assert set(on_battle) == set(s.position.battle.units) and all(on_battle.values())  # each in its zone
    march, = combats(events, "land_move")
    assert march["pieces"] == ["fr-cav-1"] and march["changes"][0]["at"] == "belgium"
    assert [e[5]["active"] for e in events if e[0] == "turn"] == ["britain"] * 2
    win.close()


def test_nie_a_purchase_from_the_production_panel(qapp, tmp_path):
    win, game = open_game(qapp, tmp_path, "nie", _in_production)
    s = win.session
    game.frames(8)
    # what the camera cannot see of a figure, bound in the game-state panel (§13.2): fr-inf-2 is elite infantry
    edit_cell(win.game_panel.model, "fr-inf-2", "type", "elite")
    assert s.position.unit("fr-inf-2").type == "elite"
    # the production panel's purchase fills the combat panel (§9.5): France buys an infantry in Paris
    from_panel(win, "production", lambda a: a.action == "purchase" and a.allowed)
    assert (win.combat_panel.action.currentText(), win.combat_panel.attacker.currentText()) == ("purchase", "france")
    bought = resolved(win, game)
    x, y, h = game.places["fr-inf-1"]
    game.move("fr-inf-1", x + 25.0, y, h)  # a figure set straight in its region: a move the camera commits
    turn_note_undo(win, game)  # France's production turn ends: the next nation's
    events = recorded_alike(win, game, tmp_path)
    purchase, = combats(events, "purchase")
    assert purchase["lines"] == bought.lines and any("france pays 6 PP" in line for line in purchase["lines"])
    bound, = [e for e in events if e[0] == "piece_state"]
    assert bound[1] == "fr-inf-2" and bound[5] == {"key": "type", "value": "elite"}
    win.close()


# --------------------------------------------------------------------------------------------------- Coalitions


def test_coalitions_a_movement_and_a_wheel_action_from_its_panel(qapp, tmp_path):
    win, game = open_game(qapp, tmp_path, "coalitions")
    s = win.session
    game.frames(8)  # every pawn and marker appears
    europe = s.position.state.europe
    # France's Movement (the Wheel: France over Movement, §4.2) with the Ottomans as Arbiter (+1 Morale, §5.2)
    resolved(win, game, "start_movement", "france", "ottoman")
    game.move("mor-ot", *track_point("morale", 3, "ottoman"), 0.0)  # its Morale marker moved as the rules say
    # fr-3 marches from Lorraine into Pfalz (§5.3): its pawn moved on the map, then the move confirmed from the
    # panel of the moves the camera sees (§13.3)
    game.move("fr-3", *territory_point(europe, "pfalz"), 0.0)
    from_panel(win, "moves", lambda a: a.attacker == "fr-3")
    resolved(win, game, "move", "fr-3", "pfalz")  # as the panel filled it
    assert s.position.state.generals["fr-3"].at == "pfalz" and not s.live.seen_moves(s)
    # the Wheel of War's panel: Austria's Taxation this action turn (§4.2), filled into the combat panel
    from_panel(win, "wheel", lambda a: a.action == "taxation")
    money = s.position.state.money["austria"]
    taxed = resolved(win, game, "taxation", "austria")
    assert s.position.state.money["austria"] > money
    # the Troops under gb-2 the camera cannot count (§13.2), typed in the game-state panel's troops column
    edit_cell(win.game_panel.model, "gb-2", "formation", "1")
    assert s.position.state.generals["gb-2"].troops == 1
    game.flush()
    held = win.recording.status().events
    win.game_panel.next_button.click()  # N too soon: the rules refuse, the window says why, nothing is recorded
    assert "Movement action is still under way" in win.statusBar().currentMessage()
    game.flush()
    assert win.recording.status().events == held
    resolved(win, game, "end_movement", "france")  # France's Movement ends (§5.1)
    turn_note_undo(win, game)  # the action turn ends: the Wheel turns
    events = recorded_alike(win, game, tmp_path)
    start, = combats(events, "start_movement")
    assert start["engine"]["morale"]["ottoman"] == 3
    march, = combats(events, "move")
    assert march["pieces"] == ["fr-3"] and any(c.get("piece") == "fr-3" and c.get("to") == "pfalz"
                                               for c in march["changes"])
    tax, = combats(events, "taxation")
    assert tax["lines"] == taxed.lines and tax["engine"]["money"]["austria"] == s.position.state.money["austria"]
    troops, = [e for e in events if e[0] == "piece_state"]
    assert troops[1] == "gb-2" and troops[5] == {"key": "troops", "value": 1}
    assert [e[5]["phase"] for e in events if e[0] == "turn"] == ["round 1, turn 2"] * 2
    win.close()


def _in_diplomacy(setup):
    """The demo's game in round 2's Diplomacy phase, when the Majors choose their statuses in secret (§9.2, §9.3)."""
    game = setup.game
    return replace(setup, game=replace(game, state=replace(game.state, round=2, phase="diplomacy")))


def test_coalitions_a_secret_status_sealed_in_the_record_until_revealed(qapp, tmp_path):
    win, game = open_game(qapp, tmp_path, "coalitions", _in_diplomacy)
    game.frames(8)
    # Austria's player chooses its status in secret at the dashboard (§9.3, §13.2): the record says it was made
    chose = resolved(win, game, "choose", "austria", choices="status=french")
    assert "french" not in " ".join(chose.lines)
    game.flush()
    status = win.stop_recording()
    with Record.open(status.path) as record:
        choice, = [e for e in record.events() if e.type == "combat" and e.data["action"] == "choose"]
        assert "french" not in " ".join(choice.data["lines"])  # the event's text tells nothing
        assert choice.data["engine"]["secrets"]["austria"]["status"] == "french"  # kept, to be revealed
        replay = ReplaySession(record)
        for viewer, shown in (("britain", "chosen"), ("austria", "french"), ("umpire", "french")):
            replay.set_viewer(viewer)
            replay.to_end()
            secrets, = [p for p in replay.live.panels(replay) if p.key == "secrets"]
            assert dict((r[0], r[1]) for r in secrets.rows)["austria"] == shown, viewer
    win.close()
