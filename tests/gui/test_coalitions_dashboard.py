"""The dashboard with --system coalitions (offscreen, issue 13): the system's panels (the Wheel and its actions this
turn, tracks and treasury, statuses and Coalitions, battles triggered and eligible supporters; rules/coalitions/
panels.py through the contract's `panels`), the control map, and a battle resolved in the combat panel with the
cards entered at the reveal (no dice: the action takes choices). Screenshots: out/screenshots/coalitions-map.png,
coalitions-wheel.png, coalitions-battle.png."""

from __future__ import annotations

import argparse
import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import gui  # noqa: E402,F401
from fieldglass.commands import gui as gui_command  # noqa: E402
from fieldglass.setup import load_setup  # noqa: E402
from rules.coalitions import GAME, turn  # noqa: E402
from rules.coalitions.panels import panels  # noqa: E402
from rules.system import register, unregister  # noqa: E402
from tests.gui.helpers import SHOTS, open_window  # noqa: E402
from tests.gui.helpers import refresh as _refresh  # noqa: E402


@pytest.fixture()
def window(qapp, tmp_path):
    register(GAME)
    win = open_window(qapp, load_setup("coalitions", "synthetic"), tmp_path, resolution=(1920, 1080), frames=2)
    yield win
    win.stop()
    win.close()
    unregister("coalitions")


def _cells(widget) -> list[list[str]]:
    t = widget.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def test_the_control_map_and_the_wheel(qapp, window):
    s = window.session
    st = s.position.state
    assert s.live.markers.wheel_turn == 1 and st.garrisons["bavaria"] == "austria"  # read from the rendered table
    assert set(window.system_panels) == {"wheel", "tracks", "diplomacy", "moves", "battles", "secrets"}
    assert [w.panel for w in window.system_panels.values()] == list(panels(s.position, s.live.secrets, s.viewer, {},
                                                                          s.system.opts))
    wheel = {r[0]: r for r in _cells(window.system_panels["wheel"])}
    assert wheel["drill"][1] == "britain" and turn.schedule(st)["france"] == "movement" and wheel["movement"][1] == \
        "france"
    tracks = {r[0]: r for r in _cells(window.system_panels["tracks"])}
    assert tracks["france"][1] == "11" and tracks["austria"][1] == "9"
    assert "French Coalition: france" in window.system_panels["diplomacy"].text.text()
    # the control map: each Territory in its controller's colour
    window.set_view_mode("board")
    _refresh(qapp, window)
    items = s.picture()
    bavaria = next(it for it in items if it.kind == "coalitions-territory" and it.data == ("bavaria",))
    assert "controlled by austria, a austria Garrison" in bavaria.tip
    wheel = next(it for it in items if it.kind == "coalitions-wheel")
    assert "round 1, action turn 1" in wheel.tip and "movement: france" in wheel.tip
    morale = {it.data[0]: it.tip for it in items if it.kind == "coalitions-track"}
    assert morale["morale-11"] == "morale 11: france" and morale["influence-0"].count(",") == 5
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.save_screenshot(SHOTS / "coalitions-map.png")
    assert (SHOTS / "coalitions-map.png").stat().st_size > 10_000
    window.show_panel("wheel")
    _refresh(qapp, window)
    window.save_screenshot(SHOTS / "coalitions-wheel.png")
    assert (SHOTS / "coalitions-wheel.png").stat().st_size > 10_000


def test_a_battle_in_the_combat_panel_with_the_cards(qapp, window):
    # France's Movement: the Arbiter, fr-5 marches into Tyrol (pending until the camera sees it), a battle
    s = window.session
    s.apply(s.resolve("start_movement", "france", "ottoman"))
    s.apply(s.resolve("move", "fr-5", "tyrol"))
    _refresh(qapp, window)
    bat = window.system_panels["battles"]
    rows = {(r[0], r[1]): r for r in _cells(bat)}
    assert rows[("tyrol", "defender")][2] == "at-2 (1 cards)" and rows[("tyrol", "defender")][4] == "at-1, at-3"
    bat.actions_list.setCurrentRow(0)
    bat.fill_button.click()
    cp = window.combat_panel
    assert (cp.action.currentText(), cp.attacker.currentText()) == ("battle", "france")
    assert cp.att_mods.toPlainText().splitlines()[:2] == ["Strength 2 on the Territory (§8.2)",
                                                          "fr-5: 1 card(s) (§8.4)"]
    assert "may support: at-1, at-3 (§8.3)" in cp.def_mods.toPlainText()
    cp.choices.setText("cards.fr-5=4 cards.at-2=2 support.at-1=defender")
    out = cp.resolve()
    assert out is not None, cp.result.toPlainText()
    text = cp.result.toPlainText()
    assert "the defender wins (§8.6)" in text and "fr-5 (france) is defeated" in text
    assert "dice:" not in text  # cards, not dice: the game has no dice line
    window.show_panel("combat")
    _refresh(qapp, window)
    window.save_screenshot(SHOTS / "coalitions-battle.png")
    assert (SHOTS / "coalitions-battle.png").stat().st_size > 10_000
    cp.apply()
    _refresh(qapp, window)
    assert {r[0]: r for r in _cells(window.system_panels["tracks"])}["france"][1] == "10"  # a card: -1 Morale
    # the marker still stands on 11: the rules' 10 counts, and the map shows where to move it
    waiting = {it.data[0]: it.tip for it in s.picture() if it.kind == "coalitions-waiting"}
    assert waiting["morale-10"] == "waiting for the map: move france's morale marker here"
    assert any(n.startswith("waiting for the map: france's morale 10") for n in s.notes)


def test_the_headless_dashboard_prints_the_pawns_and_the_markers(qapp, tmp_path, capsys):
    """--headless picks the busiest of the roster's pawns (the game's Generals without a pawn are not on the table)
    and prints what the markers show."""
    register(GAME)
    parser = argparse.ArgumentParser()
    gui_command.add_parser(parser.add_subparsers())
    shot = tmp_path / "gui.png"
    args = parser.parse_args(["gui", "--system", "coalitions", "--source", "synthetic", "--frames", "1",
                              "--resolution", "1920x1080", "--screenshot", str(shot)])
    assert args.run(args) == 0
    out = capsys.readouterr().out
    assert "the Wheel's dial shows action turn 1" in out and "morale: austria 9, britain 5, france 11" in out
    assert "Garrisons: bavaria austria" in out and shot.stat().st_size > 10_000
    unregister("coalitions")
