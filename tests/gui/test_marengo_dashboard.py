"""The dashboard with --system marengo on the synthetic demo board (offscreen): blocks located in their areas, the
selected block's highlighted areas against rules/marengo's analysis, a thrust through the combat panel, player and
umpire views. Screenshots: out/screenshots/marengo-*.png."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import gui  # noqa: E402,F401
from calibration.board import BoardPose  # noqa: E402
from calibration.camera import CameraPose  # noqa: E402
from calibration.layout import TableLayout  # noqa: E402
from fieldglass.boards import block_point  # noqa: E402
from fieldglass.record import Record  # noqa: E402
from fieldglass.recording import record_meta  # noqa: E402
from fieldglass.replay_session import ReplaySession  # noqa: E402
from fieldglass.session import Session  # noqa: E402
from fieldglass.setup import Setup, demo_roster, load_setup, synthetic_scene  # noqa: E402
from gui.app import describe  # noqa: E402
from gui.replay import ReplayWindow  # noqa: E402
from rules.marengo import analysis  # noqa: E402
from rules.marengo.model import load_demo_board  # noqa: E402
from tests.gui.helpers import (
    SHOTS,  # noqa: E402
    open_window,
)
from tests.gui.helpers import refresh as _refresh
from vision.pieces import PiecePose, TableReading  # noqa: E402
from vision.synthetic import VirtualCamera  # noqa: E402


@pytest.fixture()
def window(qapp, tmp_path):
    win = open_window(qapp, load_setup("marengo", "synthetic"), tmp_path)
    yield win
    win.stop()
    win.close()


def test_blocks_in_areas_and_selection_highlights(qapp, window):
    s = window.session
    where = {b.id: (b.area, b.position) for b in s.position.blocks}
    assert where == {"au-inf-1": ("3", "reserve"), "au-cav-1": ("3", "reserve"), "au-art-1": ("4", "4>5"),
                     "fr-inf-1": ("5", "reserve"), "fr-inf-2": ("9", "reserve"), "fr-cav-1": ("7", "reserve")}
    s.select("au-cav-1")
    _refresh(qapp, window)
    view = window.board_view
    # the highlighted areas are exactly the neighbours where the engine allows this block something
    expect_reach, expect_attack = set(), set()
    for nb in s.board.neighbours("3"):
        acts = [a for a in analysis.legal_actions(s.position, "3", nb, only=["au-cav-1"]) if a["legal"]]
        if acts:
            attack = any(a["action"] in ("thrust", "assault", "announce_bombardment") for a in acts)
            (expect_attack if attack else expect_reach).add(nb)
    reach = {it.data(2) for it in view.items_of("marengo-reach")}
    attack = {it.data(2) for it in view.items_of("marengo-attack")}
    assert reach == expect_reach == {"2", "4", "10"}
    assert attack == expect_attack == {"5"}
    assert [it.toolTip() for it in view.items_of("marengo-select")] == ["au-cav-1 in 3"]
    labels = [it.childItems()[0].text() for it in view.items_of("marengo-attack-label")]
    assert "thrust 1 → succeeds" in labels
    # the targets table: one row per legal action, cost from the engine
    rows = {(r.field, r.weapon): r.fire_net for r in s.targets()}
    assert rows[("5", "thrust")] == 1
    window.save_screenshot(SHOTS / "marengo-selection.png")
    text = "\n".join(describe(s, window))
    assert "au-art-1    AU    artillery  2   4     4>5" in text and "-> area 5   attack" in text


def test_thrust_through_the_combat_panel_changes_the_state(qapp, window):
    s = window.session
    s.select("au-cav-1")
    s.select("fr-inf-1", second=True)
    _refresh(qapp, window)
    cp = window.combat_panel
    cp.action.setCurrentText("thrust")
    cp.follow_selection()
    assert cp.attacker.currentText() == "au-cav-1" and cp.target.currentText() == "fr-inf-1"
    assert "legal, 1 command(s)" in cp.att_mods.toPlainText()
    assert "approach 5>3: narrow" in cp.def_mods.toPlainText()
    out = cp.resolve()
    assert out is not None, cp.result.toPlainText()
    assert "succeeds" in cp.result.toPlainText()
    commands = s.position.commands
    cp.apply()
    _refresh(qapp, window)
    assert s.position.commands == commands - 1
    assert s.state.pending["au-cav-1"].area == "5"
    assert s.state.pending["fr-inf-1"].area == "10"
    assert s.position.block("au-cav-1").area == "5"  # the engine's word until the camera sees it there
    assert s.position.block("fr-inf-1").strength == 1  # a step lost; shown during the retreat, hidden again after
    window.show_panel("combat")
    qapp.processEvents()
    window.save_screenshot(SHOTS / "marengo-combat.png")


def test_player_views_hide_opponent_identities(qapp, window):
    s = window.session
    window.viewer_actions["AU"].setChecked(True)
    _refresh(qapp, window)
    assert s.viewer == "AU"
    view = window.board_view
    hidden = [it.toolTip() for it in view.items_of("marengo-block-hidden")]
    shown = [it.toolTip() for it in view.items_of("marengo-block")]
    assert len(hidden) == 3 and all("identity hidden" in t and "FR" in t for t in hidden)
    assert not any("fr-" in t for t in hidden) and all(t.startswith("au-") for t in shown)
    text = "\n".join(s.describe_lines())
    assert "FR block 1" in text and "fr-inf-1" not in text
    ids = [v.piece.id for v in s.piece_views()]
    assert "fr-inf-1" not in ids and "FR block 1" in ids
    combos = [window.combat_panel.target.itemText(i) for i in range(window.combat_panel.target.count())]
    assert "FR block 1" in combos and not any(c.startswith("fr-") for c in combos)
    s.select("au-cav-1")
    rows = [r.target for r in s.targets()]
    assert rows and not any(t.startswith("fr-") for t in rows) and any(t.startswith("FR block") for t in rows)
    s.select("FR block 1", second=True)
    assert "fr-" not in "\n".join(s.pair()[1])
    s.select("FR block 1")
    assert s.selected.startswith("fr-") and s.selection_overlay() is None and "hidden" in s.title()
    window.save_screenshot(SHOTS / "marengo-player-AU.png")
    window.viewer_actions["umpire"].setChecked(True)
    _refresh(qapp, window)
    assert not view.items_of("marengo-block-hidden") and len(view.items_of("marengo-block")) == 6
    assert "fr-inf-1" in "\n".join(s.describe_lines())
    window.save_screenshot(SHOTS / "marengo-umpire.png")


def test_revealed_block_shown_in_the_opponent_view(qapp, window):
    s = window.session
    window.viewer_actions["FR"].setChecked(True)
    _refresh(qapp, window)
    hidden = window.board_view.items_of("marengo-block-hidden")
    shown = window.board_view.items_of("marengo-block")
    assert len(hidden) == 3 and not any("au-art-1" in it.toolTip() for it in shown)
    combos = [window.combat_panel.attacker.itemText(i) for i in range(window.combat_panel.attacker.count())]
    assert "au-art-1" not in combos and "AU block 1" in combos
    window.viewer_actions["AU"].setChecked(True)  # the Austrian player bombards
    _refresh(qapp, window)
    cp = window.combat_panel
    cp.attacker.setCurrentText("au-art-1")
    cp.target.setCurrentText("fr-inf-1")
    cp.action.setCurrentText("bombard")
    assert cp.resolve() is not None, cp.result.toPlainText()
    cp.apply()
    window.viewer_actions["FR"].setChecked(True)
    _refresh(qapp, window)
    assert s.position.block("au-art-1").revealed
    shown = [it.toolTip() for it in window.board_view.items_of("marengo-block")]
    assert any(t.startswith("au-art-1") for t in shown)
    assert len(window.board_view.items_of("marengo-block-hidden")) == 2
    labels = [it.childItems()[0].text() for it in window.board_view.items_of("label")]
    assert "au-art-1 art 2 (revealed)" in labels
    window.save_screenshot(SHOTS / "marengo-player-FR.png")


def test_replay_reveals_only_what_the_rules_revealed(qapp, tmp_path):
    """A recorded Marengo game: the replay hides unrevealed blocks, shows one the rules revealed from that moment
    on, and everything once the game has ended."""
    scene = synthetic_scene("marengo")
    meta = record_meta("marengo", scene.layout, scene.roster, None, {}, ["AU", "FR"], "scripted")
    path = tmp_path / "m.fgr"
    rec = Record.create(path, meta, overwrite=True)
    for i, pl in enumerate(scene.placements):
        rec.append("appeared", float(i), i, pl.piece.id, {"to": {"x_mm": pl.x_mm, "y_mm": pl.y_mm,
                                                                 "heading_deg": pl.heading_deg}})
    rec.append("combat", 10.0, 10, "au-art-1", {"action": "bombard", "changes": [
        {"piece": "au-art-1", "revealed": True}]})
    rec.append("move", 11.0, 11, "fr-inf-1", {"from": {"x_mm": 420, "y_mm": 200}, "to": {"x_mm": 430, "y_mm": 210}})
    rec.close()
    s = ReplaySession(Record.open(path))
    s.index = 6  # every block on the board, nothing revealed
    labels = sorted(v.piece.id for v in s.piece_views())
    assert labels == ["AU block 1", "AU block 2", "AU block 3", "FR block 1", "FR block 2", "FR block 3"]
    s.index = len(s)
    ids = {v.piece.id for v in s.piece_views()}
    assert "au-art-1" in ids and not any(i.startswith("fr-") for i in ids)
    texts = [s.describe_event(e) for e in s.timeline]
    assert texts[-1].startswith("FR block ") and "fr-inf-1" not in " ".join(texts)
    assert s.public_name("au-art-1") == "au-art-1" and s.public_name("fr-inf-1") == "FR block"
    s.select("FR block 1")
    assert s.selected.startswith("fr-")
    win = ReplayWindow(ReplaySession(Record.open(path)))
    win.resize(1200, 800)
    win.show()
    win.go(len(win.session))
    qapp.processEvents()
    col = [win.model.data(win.model.index(r, 5)) for r in range(win.model.rowCount())]
    assert "fr-inf-1" not in col and "FR block" in col and "au-art-1" in col
    win.grab().save(str(SHOTS / "marengo-replay.png"))
    win.close()
    # the game over: every identity
    rec = Record.open(path, writable=True)
    rec.set_meta("game_over", True)
    rec.close()
    s = ReplaySession(Record.open(path))
    s.index = len(s)
    assert {v.piece.id for v in s.piece_views()} >= {"fr-inf-1", "fr-inf-2", "au-inf-1"}


def test_board_lying_on_a_registered_table_maps_blocks_through_its_pose():
    """With --layout the board lies anywhere on the table: its pose (calibration/board.py) maps marker points."""
    board = load_demo_board()
    cam = VirtualCamera.looking_at_table(1800, 1200, (1280, 720)).intrinsics
    setup = Setup("x", cam, TableLayout(1800, 1200, board.dictionary, ()), demo_roster("marengo", board),
                  "marengo", board=board, board_on_table=False)
    s = Session(setup, settle_s=0.0)
    s.board_registration.pose = BoardPose(90.0, 900.0, 100.0)  # turned a quarter, 0.9 m along the table
    cpose = CameraPose(np.zeros(3), np.array([0.0, 0.0, 1500.0]))  # the table is registered (no board anchor seen)

    def reading(x, y):
        return TableReading(cpose, (PiecePose("au-art-1", 12, float(x), float(y), 0.0),), (), ())

    xy = s.board_pose.board_to_table([block_point(board, "4", "5")])[0]
    s.update_reading(reading(*xy), 0.0)
    assert s.position.block("au-art-1").area == "4" and s.position.block("au-art-1").position == "4>5"
    edge = s.board_pose.board_to_table([(360.0, 250.0)])[0]  # on the border of areas 4 and 5: flagged
    for t in (5.0, 7.0):
        s.update_reading(reading(*edge), t)
    assert "au-art-1" not in s.position.blocks_by_id and any("border" in n for n in s.notes)
