"""The dashboard with --system nie on the synthetic demo map (offscreen): the figures the camera reads located to
their regions, sea areas and ports, and those on the battle board beside it to the battle's zones, the selected
figure's reach by a land move, a land move through the combat panel pending until the map shows it.
Screenshot: out/screenshots/nie-map.png."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import gui  # noqa: E402,F401
from fieldglass.setup import load_setup  # noqa: E402
from gui.app import describe  # noqa: E402
from rules.nie.demo import DEMO_BATTLE, DEMO_FIGURES  # noqa: E402
from tests.gui.helpers import (
    SHOTS,  # noqa: E402
    open_window,
)
from tests.gui.helpers import refresh as _refresh


@pytest.fixture()
def window(qapp, tmp_path):
    win = open_window(qapp, load_setup("nie", "synthetic"), tmp_path)
    yield win
    win.stop()
    win.close()


def test_figures_on_the_map_and_a_land_move(qapp, window):
    s = window.session
    want = {fid: ("port:" + area if typ == "squadron" and area == "london" else area)
            for fid, _, typ, area in DEMO_FIGURES}
    want.update({fid: DEMO_BATTLE["region"] for fid in DEMO_BATTLE["units"]})  # the battle's, on the battle board
    assert {u.id: u.at for u in s.position.units.values()} == want  # every figure read by the camera and located
    battle = s.position.battle
    assert {uid: bu.zone.name(True) for uid, bu in battle.units.items()} == {
        uid: st["zone"] for uid, st in DEMO_BATTLE["units"].items()}  # each in its zone, read on the battle board
    assert len(window.board_view.items_of("nie-zone")) == 13  # the battle board's zones drawn through its pose
    s.select("fr-cav-1")
    _refresh(qapp, window)
    view = window.board_view
    assert {it.data(2) for it in view.items_of("nie-reach")} == {"belgium", "burgundy", "paris"}
    assert len(view.items_of("nie-region")) > 40 and view.items_of("nie-sea")
    cp = window.combat_panel
    cp.action.setCurrentText("land_move")
    cp.follow_selection()
    assert cp.attacker.currentText() == "fr-cav-1"
    cp.choices.setText("path=belgium")
    out = cp.resolve()
    assert out is not None, cp.result.toPlainText()
    assert "fr-cav-1 move picardy -> belgium" in cp.result.toPlainText()
    cp.apply()
    _refresh(qapp, window)
    assert s.state.pending["fr-cav-1"].at == "belgium" and s.position.unit("fr-cav-1").at == "belgium"
    assert view.items_of("pending-label") and view.items_of("pending-path")  # the move shown on the map
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.save_screenshot(SHOTS / "nie-map.png")
    assert (SHOTS / "nie-map.png").stat().st_size > 10_000
    text = "\n".join(describe(s, window))
    assert "1805-01, round 1, france to move" in text and "port:london" in text
