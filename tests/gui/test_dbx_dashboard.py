"""The dashboard with --system dbx on the synthetic DBX table (offscreen): elements measured in table mm, the selected
element's zone of control, fire zone, reachable area, target lines in paces and contacts checked against rules/dbx,
a melee and a fire resolved through the combat panel. Screenshots: out/screenshots/dbx-*.png."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF, Qt  # noqa: E402

import gui  # noqa: E402,F401
from fieldglass.setup import load_setup  # noqa: E402
from gui.app import describe  # noqa: E402
from rules.dbx.adapter import roster_code  # noqa: E402
from rules.dbx.analysis import analyze_from  # noqa: E402
from rules.dbx.contact import contact, zoc_rect  # noqa: E402
from rules.dbx.demo import DEMO_GAME  # noqa: E402
from rules.dbx.sight import fire_range, fire_zone  # noqa: E402
from tests.gui.helpers import (
    SHOTS,  # noqa: E402
    open_window,
)
from tests.gui.helpers import refresh as _refresh


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    win = open_window(qapp, load_setup("dbx", "synthetic"), tmp_path_factory.mktemp("dbx"), (1920, 1080), (1600, 1000))
    yield win
    win.stop()
    win.close()


def _table_poly(view, item) -> np.ndarray:
    """An overlay polygon mapped back from the board view's pixels to table mm."""
    pts = [view.mapper.to_table(p.x(), p.y()) for p in item.polygon()]
    return np.array(pts, float)


def _same_polygon(a: np.ndarray, b: np.ndarray, tol: float = 0.6) -> bool:
    return all(np.min(np.linalg.norm(a - p, axis=1)) < tol for p in b)


def _shot(app, win, name: str, centre_mm, span_mm: float = 260.0):
    """Both views zoomed on the selection, then the window saved."""
    for view in (win.board_view, win.live_view):
        pts = view.mapper.points(np.array([[centre_mm[0] - span_mm / 2, centre_mm[1] - span_mm / 2],
                                           [centre_mm[0] + span_mm / 2, centre_mm[1] + span_mm / 2]]))
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        view.fitInView(QRectF(float(x0), float(y0), float(x1 - x0), float(y1 - y0)), Qt.AspectRatioMode.KeepAspectRatio)
        view._user_zoom = True
    app.processEvents()
    win.save_screenshot(SHOTS / name)
    for view in (win.board_view, win.live_view):
        view.fit()


def test_roster_words_map_to_element_codes():
    assert [roster_code(t) for t in ("Li", "li", "infantry", "cavalry", "Hussars", "guns", "general", "Kä", "tanks")] \
        == ["Li", "Li", "Li", "Kü", "Hu", "Art", "Gen", "Kä", None]


def test_elements_measured_in_table_mm(qapp, window):
    s = window.session
    truth = {i: (x, y, h) for i, _, _, x, y, h in DEMO_GAME}
    assert {p.id for p in s.position.pieces} == set(truth)
    for p in s.position.pieces:
        x, y, h = truth[p.id]
        assert np.hypot(p.x_mm - x, p.y_mm - y) < 0.6, p.id
        assert abs((p.heading_deg - h + 180) % 360 - 180) < 1.0, p.id
    assert s.position.piece("r3").type == "Kü" and s.position.piece("b3").type == "Art"
    assert [t.id for t in s.position.terrain] == ["w1", "h1"]
    text = "\n".join(describe(s, window))
    assert "r1 front" in text and "r2 overlap" in text


def test_selection_overlays_match_the_engine(qapp, window):
    s = window.session
    s.select("b3")  # guns: a long fire zone, one legal target (the cuirassiers r3)
    _refresh(qapp, window)
    # the selection panel's line is DBX's (rules/dbx/live.py DbxLive.title) through the generic session
    title = window.selection_panel.title.text()
    assert title == s.title() and title.startswith("<b>b3</b> blue artillery") and "fires 1000 p" in title
    view = window.board_view
    pos = s.position
    b3 = pos.piece("b3")
    zoc = view.items_of("dbx-zoc")
    assert len(zoc) == 1 and _same_polygon(_table_poly(view, zoc[0]), zoc_rect(pos, b3))
    fz = view.items_of("dbx-fire-zone")
    rng, _ = fire_range(pos, b3)
    assert rng == 1000 and len(fz) == 1 and _same_polygon(_table_poly(view, fz[0]), fire_zone(pos, b3, rng))
    assert len(view.items_of("dbx-reach")) == 1
    out = analyze_from(pos, "b3")
    lines = {it.data(2): (it.data(3), it.data(4)) for it in view.items_of("dbx-target-line")}
    expect = {t["piece"]: t["range_paces"] for t in out["fire_targets"]}
    assert set(expect) == {"r3"}
    assert lines["r3"][1] == "fire" and abs(lines["r3"][0] - expect["r3"]) < 0.5
    labels = [it.childItems()[0].text() for it in view.items_of("dbx-target-label")]
    assert any(t.startswith(f"r3 {expect['r3']:.0f} p") for t in labels), labels
    # the live view draws the same overlays through the camera
    assert len(window.live_view.items_of("dbx-zoc")) == 1 and len(window.live_view.items_of("dbx-target-line")) >= 1
    # the targets panel: every enemy, nearest first, paces and fire / melee as the engine says
    rows = s.targets()
    assert [r.target for r in rows] == [r["to"] for r in out["targets"]]
    for row, r in zip(rows, out["targets"], strict=True):
        assert row.distance == round(r["distance_paces"])
        assert (row.fire, row.melee) == (r["fire"]["allowed"], r["melee"]["allowed"])
    assert window.selection_panel.model.rowCount() == len(rows)
    _shot(qapp, window, "dbx-selection.png", (180, 260), 340)


def test_contacts_and_overlaps_with_their_type(qapp, window):
    s = window.session
    s.select("b2")
    _refresh(qapp, window)
    view = window.board_view
    pos = s.position
    kinds = {it.data(2): it.data(3) for it in view.items_of("dbx-contact")}
    assert kinds == {"r1": "front", "r2": "overlap"}
    assert contact(pos, pos.piece("b2"), pos.piece("r1")).kind == "front"
    assert contact(pos, pos.piece("r2"), pos.piece("b2")).kind == "overlap"
    lines = {it.data(2): it.data(4) for it in view.items_of("dbx-target-line")}
    assert lines.get("r1") == "melee"
    assert [it.toolTip() for it in view.items_of("dbx-zoc-of")] == ["b2 stands in r1's zone of control (§3.4)"]
    _shot(qapp, window, "dbx-contacts.png", (300, 210), 200)


def test_melee_and_fire_through_the_combat_panel(qapp, window):
    s = window.session
    s.select("b2")
    s.select("r1", second=True)
    _refresh(qapp, window)
    cp = window.combat_panel
    cp.action.setCurrentText("melee")
    cp.follow_selection()
    assert cp.attacker.currentText() == "b2" and cp.target.currentText() == "r1"
    assert cp.att_mods.toPlainText().startswith("may fight: front to front contact")
    assert "factor 4" in cp.def_mods.toPlainText()
    cp.dice.setText("6,1")
    out = cp.resolve()
    assert out is not None, cp.result.toPlainText()
    # §8.1 Li 4 vs foot each; §8.4 -1 to each for the enemy overlapping it (r2 beside r1, b1 beside b2, §3.5):
    # b2 6 + 4 - 1 = 9, r1 1 + 4 - 1 = 4; §8.5 band 2 (4 is half of 9 or less), Li beaten by Li: destroyed
    res = out.resolution.result
    assert (res.sides["attacker_side"]["total"], res.sides["target_side"]["total"]) == (9, 4)
    assert res.outcome["loser"] == "r1" and res.outcome["result"] == "destroyed"
    cp.apply()
    _refresh(qapp, window)
    ch = s.state.pending["r1"]
    assert ch.removed and "r1" in s.state.removed and "r1" not in s.position.by_id
    assert view_has(window, "pending-remove")
    assert any("melee" in line for line in s.state.log)
    window.show_panel("combat")
    _shot(qapp, window, "dbx-combat.png", (300, 230), 220)

    # the guns fire at the cuirassiers: a 6 against a 1
    s.select("b3")
    s.select("r3", second=True)
    _refresh(qapp, window)
    cp.action.setCurrentText("fire")
    cp.follow_selection()
    assert cp.att_mods.toPlainText().startswith("may fire")
    cp.dice.setText("6,1")
    r3_before = s.position.piece("r3")
    out = cp.resolve()
    assert out is not None, cp.result.toPlainText()
    # §8.1 Art 3 vs mounted, Kü 4 vs foot; §8.3 guns +1 for a mounted target, -1 beyond half range (the fronts are
    # 145 mm = 580 paces apart, §7 half of 1000): 6 + 3 = 9 against 1 + 4 = 5; §8.5 band 1 (5 is more than half
    # of 9), cuirassiers shot in good going: recoil 1 base depth (30 mm, §2.1), straight back
    res = out.resolution.result
    assert (res.sides["attacker_side"]["total"], res.sides["target_side"]["total"]) == (9, 5)
    assert res.outcome["loser"] == "r3" and res.outcome["result"] == "recoil"
    cp.apply()
    _refresh(qapp, window)
    ch = s.state.pending["r3"]
    assert not ch.removed and "r3" not in s.state.removed
    assert (ch.x_mm, ch.y_mm, ch.heading_deg) == pytest.approx((r3_before.x_mm, r3_before.y_mm + 30.0, 180.0), abs=0.5)
    r3 = s.position.piece("r3")  # the engine's place until the camera sees the element there
    assert (r3.x_mm, r3.y_mm) == pytest.approx((ch.x_mm, ch.y_mm), abs=0.01)


def view_has(window, kind: str) -> bool:
    return bool(window.board_view.items_of(kind))


def test_square_swap_and_river_through_the_combat_panel(qapp, window):
    """§5.11 square / unform, §5.10 Li <-> 2 Jäger, §5.9 river rolls: single-element actions, the target disabled."""
    s = window.session
    cp = window.combat_panel
    assert {"square", "unform", "swap", "river"} <= {cp.action.itemText(i) for i in range(cp.action.count())}
    s.select("b1")
    _refresh(qapp, window)
    cp.action.setCurrentText("square")
    cp.follow_selection()
    assert cp.attacker.currentText() == "b1" and not cp.target.isEnabled()
    assert "1-element square" in cp.att_mods.toPlainText()
    out = cp.resolve()
    assert out is not None, cp.result.toPlainText()
    assert out.after.piece("b1").square == 1
    cp.apply()
    _refresh(qapp, window)
    assert s.position.piece("b1").square == 1 and s.state.states["b1"]["square"] == 1
    cp.action.setCurrentText("unform")
    cp.follow_selection()
    out = cp.resolve()
    assert out is not None and out.after.piece("b1").square == 0
    cp.apply()
    _refresh(qapp, window)
    assert s.position.piece("b1").square == 0
    cp.action.setCurrentText("unform")  # not in a square now: refused in one line
    cp.follow_selection()
    assert cp.resolve() is None and "not in a square" in cp.result.toPlainText()
    # §5.10 b1 (Li) has b2 on its right: no room for the second Jäger beside it
    cp.action.setCurrentText("swap")
    cp.follow_selection()
    assert "2 Jäger" in cp.att_mods.toPlainText()
    assert cp.resolve() is None and "no room for the second Jäger" in cp.result.toPlainText()
    s.select("b2")
    _refresh(qapp, window)
    cp.follow_selection()
    out = cp.resolve()  # b2 touches r1: no exchange in contact with the enemy
    assert out is None and "contact with the enemy (§5.10)" in cp.result.toPlainText()
    # §5.9 the first crossing rolls the river's type for the whole game
    cp.action.setCurrentText("river")
    cp.follow_selection()
    assert s.live.template.game.river == ""  # not rolled yet: this is the first crossing
    cp.dice.setText("6,4")
    out = cp.resolve()
    assert out is not None, cp.result.toPlainText()
    # §5.9 the type roll 6: a raging torrent; then this element's crossing roll 4 (3 or more): it crosses
    assert out.after.game.river == "torrent" and out.resolution.result.outcome["result"] == "crosses"
    assert not out.after.game.crossing_stopped and out.rolled == [6, 4]
    cp.apply()
    assert s.live.template.game.river == out.after.game.river
