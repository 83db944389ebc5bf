"""The dashboard with --system nie (offscreen): the system's own game-state panels (rules/live.py `Panel`, laid out
generically by gui/panels.py `SystemPanel`) show the engine's date, production, diplomacy and political actions, and
an action of a panel fills the combat panel; the board view zoomed to the battle board surface and a fire resolved in
the combat panel with given dice. Screenshots: out/screenshots/nie-panels.png, nie-battle-board.png,
nie-battle-combat.png."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import gui  # noqa: E402,F401
from fieldglass.replay_session import ReplaySession  # noqa: E402
from fieldglass.setup import load_setup  # noqa: E402
from gui.replay import ReplayWindow  # noqa: E402
from rules.nie import politics, turn  # noqa: E402
from rules.nie.board import battle_board  # noqa: E402
from rules.nie.demo import BATTLE_AT, battle_heading  # noqa: E402
from rules.nie.model import Production, with_changes  # noqa: E402
from rules.nie.panels import panels  # noqa: E402
from tests.fieldglass.test_nie_report import make_record  # noqa: E402
from tests.gui.helpers import SHOTS, open_window  # noqa: E402
from tests.gui.helpers import refresh as _refresh  # noqa: E402


def _moved_to_the_middle(setup):
    """The demo table with Austria's infantry moved from B-centre into M-centre on the battle board (so that France's
    infantry in A-centre may fire at it, 1 zone away) and turned to face the enemy (out of the demo's square): the
    synthetic scene's figure moved by the zones' offset."""
    brd = battle_board()
    (bx, by), (mx, my) = brd.areas["B-centre"].centre, brd.areas["M-centre"].centre
    facing = battle_heading("B-centre", False, BATTLE_AT[2])  # an Austrian faces -y on the board, also mid-board
    placements = tuple(replace(p, x_mm=p.x_mm + mx - bx, y_mm=p.y_mm + my - by, heading_deg=facing)
                       if p.piece.id == "au-inf-2" else p
                       for p in setup.scene.placements)
    return replace(setup, scene=replace(setup.scene, placements=placements))


def _in_production(setup):
    """The demo's game in France's production turn (§4.1 step 4: units are bought only then, §9.5), every nation's
    PP totalled already (its saved PP are what it may spend)."""
    order = turn.turn_order(setup.game)
    return replace(setup, game=with_changes(setup.game, production=Production(tuple(order), dict.fromkeys(order, 0))))


@pytest.fixture()
def window(qapp, tmp_path):
    win = open_window(qapp, _in_production(_moved_to_the_middle(load_setup("nie", "synthetic"))), tmp_path)
    yield win
    win.stop()
    win.close()


def _cells(widget) -> list[list[str]]:
    t = widget.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def test_the_panels_show_the_engine_and_an_action_fills_the_combat_panel(qapp, window):
    s = window.session
    pos = s.position
    assert set(window.system_panels) == {"date", "production", "diplomacy", "political"}
    chooser = window.system_chooser  # one dock, tabbed beside the game state panel, a chooser over the panels
    assert window.docks["system"].widget() is chooser and chooser.keys == list(window.system_panels)
    for key in window.system_panels:
        window.show_panel(key)
        assert chooser.stack.currentWidget() is window.system_panels[key] and chooser.current() == key
    date = window.system_panels["date"]
    assert "January 1805 (1805-01), round 1" in date.text.text()
    assert [r[0] for r in _cells(date)] == turn.turn_order(pos) == ["france", "britain", "austria"]
    prod = window.system_panels["production"]
    rows = {r[0]: r for r in _cells(prod)}
    assert rows["france"][1] == "20" and rows["france"][2].startswith(
        f"{politics.production_points(pos, 'france')['pp']} (")
    assert rows["austria"][2] == "?"  # Vienna's capital value is lost (A2): said, with the option to set
    assert "capital_pp_vienna" in prod.text.text()
    dipl = {r[0]: r for r in _cells(window.system_panels["diplomacy"])}
    assert dipl["france"][2] == "britain, austria" and "c_france" in dipl["france"][4]
    # the panels are the engine's panels of the session's position, laid out as they come
    assert [w.panel for w in window.system_panels.values()] == list(panels(pos, s.system.opts))
    # an action of the production panel fills the combat panel: the player only resolves
    buy = prod.panel.actions[1]
    assert buy.action == "purchase" and buy.allowed
    prod.actions_list.setCurrentRow(1)
    prod.fill_button.click()
    cp = window.combat_panel
    assert (cp.action.currentText(), cp.attacker.currentText()) == ("purchase", "france")
    assert cp.choices.text() == "buy=inf:1 place=paris"
    out = cp.resolve()
    assert out is not None, cp.result.toPlainText()
    assert "france pays 6 PP, 14 left (§9.5)" in cp.result.toPlainText()
    cp.apply()
    _refresh(qapp, window)
    assert {r[0]: r for r in _cells(prod)}["france"][1] == "14"  # refreshed from the game after the purchase
    window.show_panel("production")
    _refresh(qapp, window)
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.save_screenshot(SHOTS / "nie-panels.png")
    assert (SHOTS / "nie-panels.png").stat().st_size > 10_000
    # a political action the rules forbid now is listed with the engine's reason and fills nothing
    pol = window.system_panels["political"]
    why = {r[0]: r[3] for r in _cells(pol)}
    assert why["declare war on prussia"] == "declare war: costs 1 PAP, france has 0 (§9.8)"
    assert all(a.allowed for a in pol.panel.actions)


def test_the_battle_board_surface_and_a_fire_in_the_combat_panel(qapp, window):
    s = window.session
    battle = s.position.battle
    assert battle.units["au-inf-2"].zone.name(True) == "M-centre"  # read where the camera sees it
    window.set_view_mode("board")
    _refresh(qapp, window)
    whole = window.board_view.mapToScene(window.board_view.viewport().rect()).boundingRect()
    window.show_surface("battle")
    qapp.processEvents()
    shown = window.board_view.mapToScene(window.board_view.viewport().rect()).boundingRect()
    rect = window.surface_rect("battle")
    assert shown.contains(rect.center()) and shown.width() < whole.width() / 2  # zoomed onto the battle board
    s.select("fr-inf-3")
    s.select("au-inf-2", second=True)
    _refresh(qapp, window)
    rows = {r.target: r for r in s.targets()}
    assert rows["au-inf-2"].fire and rows["au-inf-2"].fire_net == 9  # §8.3: infantry at infantry needs 9
    assert window.selection_panel.model.rowCount() == len(rows)
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.save_screenshot(SHOTS / "nie-battle-board.png")
    assert (SHOTS / "nie-battle-board.png").stat().st_size > 10_000
    cp = window.combat_panel
    cp.action.setCurrentText("fire")
    cp.follow_selection()
    assert (cp.attacker.currentText(), cp.target.currentText()) == ("fr-inf-3", "au-inf-2")
    cp.dice.setText("6,5,2")
    out = cp.resolve()
    assert out is not None, cp.result.toPlainText()
    text = cp.result.toPlainText()
    assert "rolled 6+5 = raw 11, total 11: HIT" in text and "au-inf-2 eliminated" in text
    assert out.resolution.rolls[0]["raw"] == 11 and out.resolution.rolls[0]["threshold"] == 9
    window.show_panel("combat")
    _refresh(qapp, window)
    window.save_screenshot(SHOTS / "nie-battle-combat.png")
    assert (SHOTS / "nie-battle-combat.png").stat().st_size > 10_000


def test_the_replay_shows_the_panels_at_each_moment(qapp, tmp_path):
    win = ReplayWindow(ReplaySession(make_record(tmp_path)))
    try:
        tabs = [win.panel_tabs.tabText(i) for i in range(win.panel_tabs.count())]
        assert tabs == ["Events", "Date", "Production", "Diplomacy", "Political actions"]
        date = win.system_panels["date"]
        assert "January 1805 (1805-01), round 1" in date.text.text()
        assert date.actions_list.isHidden() and date.fill_button.isHidden()  # read only: no actions in a replay
        win.to_end()
        qapp.processEvents()
        assert "February 1805 (1805-02), round 2" in date.text.text()  # after the recorded turns (§4.1)
        prod = {r[0]: r for r in _cells(win.system_panels["production"])}
        assert prod["france"][1] == "14"  # 20 PP less the recorded purchase's 6 (§9.5)
    finally:
        win.close()
