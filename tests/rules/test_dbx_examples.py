"""The worked examples E1-E8 of digest §10, rebuilt as positions."""

from __future__ import annotations

from rules.dbx import movement, resolve
from rules.dbx.combat import fire_check, melee_check
from rules.dbx.contact import contact, groups
from rules.dbx.model import moved
from rules.dbx.sight import fire_target_check, skirmish
from tests.rules.test_dbx_helpers import dice, el, facing, make, rect_terrain

GEN = el("g", "b", "Gen", 300, 30)  # keeps every move at 1 PIP


def _apply(pos, pid, x, y, h=None):
    chk = movement.check_move(pos, pid, [(x, y)], h)
    assert chk["legal"], chk["problems"]
    p = pos.piece(pid)
    return pos.with_pieces([moved(p, x, y, h) if q.id == pid else q for q in pos.pieces]), chk


def test_e1_basic_single_element_moves():
    """E1 forward; turn 180 then forward; 90 degrees right: each one move of 1 PIP, measured by the front corner."""
    pos = make(GEN, el("a", "b", "Li", 300, 100))
    _, fwd = _apply(pos, "a", 300, 150)
    _, about = _apply(pos, "a", 300, 90, 180)
    _, right = _apply(pos, "a", 300, 100, 90)
    assert (fwd["front_corner_paces"], about["front_corner_paces"], round(right["front_corner_paces"])) == \
        (200, 200, 126)
    assert fwd["pip_cost"] == about["pip_cost"] == right["pip_cost"] == 1
    assert not movement.check_move(pos, "a", [(300, 80)], 180)["legal"]  # the about-face costs distance


def test_e2_forming_a_column():
    """E2 three archers in line form a column behind the leader; nobody ends behind its start; 1 PIP."""
    pos = make(GEN, el("l", "b", "Bo", 260, 100), el("m", "b", "Bo", 300, 100), el("r", "b", "Bo", 340, 100))
    assert ["l", "m", "r"] in groups(pos)
    start = {p.id: p.y_mm for p in pos.pieces}
    pos, c1 = _apply(pos, "m", 300, 140)
    pos, c2 = _apply(pos, "l", 300, 120)
    pos, c3 = _apply(pos, "r", 300, 100)
    assert all(pos.piece(i).y_mm >= start[i] for i in "lmr")
    assert sorted(groups(pos)[0]) == ["l", "m", "r"]
    assert c1["pip_cost"] == 1


def test_e3_bent_column_leader_cannot_recoil():
    """E3 the leader of a bent column cannot recoil: a loss destroys it."""
    lead = el("l", "b", "Li", 300, 300)
    pos = make(GEN, lead, el("t", "b", "Li", 310, 280, 90), facing("e", "r", "Li", lead))
    res = resolve.resolve_melee(pos, "e", "l", dice(5, 3))
    assert res.outcome["result"] == "recoil" and res.outcome["applied"] == "destroyed"
    assert "l" not in res.after.by_id


def test_e4_group_passing_between_obstacles():
    """E4 five elements close up into two columns to pass a gap narrower than 5 BB, as one group move."""
    xs = dict(zip("ABCDE", (220, 260, 300, 340, 380), strict=True))
    woods = [rect_terrain("w1", "wood", 0, 150, 280, 200), rect_terrain("w2", "wood", 360, 150, 600, 200)]
    pos = make(GEN, *(el(k, "b", "Hu", x, 100) for k, x in xs.items()), terrain=woods)
    assert sorted(groups(pos)[0]) == list("ABCDE")
    pos, cost = _apply(pos, "C", 300, 160)
    pos, _ = _apply(pos, "D", 340, 160)
    pos, _ = _apply(pos, "B", 300, 130)
    pos, _ = _apply(pos, "A", 300, 100)
    pos, _ = _apply(pos, "E", 340, 130)
    assert sorted(groups(pos)[0]) == list("ABCDE")  # a group at the start and at the end: 1 PIP
    assert cost["pip_cost"] == 1


def test_e5_group_attack_conforms_to_the_enemy_line():
    """E5 A alone, off the enemy's front, has no legal melee; the group A B C conforms to X and Y Z."""
    red = [el("X", "r", "Li", 260, 140, 180), el("Y", "r", "Li", 300, 150, 180), el("Z", "r", "Li", 340, 150, 180)]
    alone = make(GEN, el("A", "b", "Li", 280, 120), *red)
    assert not melee_check(alone, alone.piece("A"), alone.piece("X"))["allowed"]
    pos = make(GEN, el("A", "b", "Li", 260, 120), el("B", "b", "Li", 300, 130), el("C", "b", "Li", 340, 130), *red)
    for a, b in (("A", "X"), ("B", "Y"), ("C", "Z")):
        c = contact(pos, pos.piece(a), pos.piece(b))
        assert (c.kind, c.valid) == ("front", True)


def test_e6_moving_inside_an_enemy_front_zone():
    """E6 an intruder must end parallel and opposite; inside the zone only face, attack, or leave straight back."""
    pos = make(GEN, el("e", "r", "Li", 300, 300, 180), el("k", "b", "Hu", 300, 250, 20))
    assert not movement.check_move(pos, "k", [(320, 255)], 20)["legal"]  # sidling about in the zone
    assert movement.check_move(pos, "k", [(300, 250)], 0)["legal"]  # turn to face the enemy
    assert movement.check_move(pos, "k", [(300, 275)], 0)["legal"]  # attack it
    back = movement.check_move(pos, "k", [(300 - 40 * 0.342, 250 - 40 * 0.940)], 20)
    assert back["legal"]  # leave straight to the rear


def test_e7_shooting_in_woodland():
    """E7 A: cavalry out of skirmish range; B: spearmen in range; C: cavalry in the open, no -2;
    D: archers partly out of the wood shoot normally; E: auxiliaries, skirmish fire only."""
    wood = [rect_terrain("w", "wood", 100, 0, 500, 150)]
    # A / B: archers wholly inside the wood: 100 paces
    pos = make(GEN, el("a", "b", "Bo", 300, 100), el("cav", "r", "Re", 300, 160, 180),
               el("sp", "r", "Pk", 240, 130, 180), terrain=wood)
    assert skirmish(pos, pos.piece("a"))
    assert not fire_target_check(pos, pos.piece("a"), pos.piece("cav"))[0]  # A: 40 mm = 160 paces > 100
    assert fire_target_check(pos, pos.piece("a"), pos.piece("sp"))[0]  # B: 40 paces
    # C: cavalry in the open within 100 paces: shot at, and no bad-going -2 in melee terms
    pos = make(GEN, el("a", "b", "Bo", 300, 125), el("cav", "r", "Re", 300, 170, 180), terrain=wood)
    f = fire_check(pos, pos.piece("a"), pos.piece("cav"))
    assert f["allowed"] and not any("bad going" in m["rule"] for m in f["target_modifiers"])
    # D: front edge partly in good going: normal 200-pace fire
    pos = make(GEN, el("a", "b", "Bo", 300, 145), el("cav", "r", "Re", 300, 205, 180), terrain=wood)
    assert not skirmish(pos, pos.piece("a")) and fire_target_check(pos, pos.piece("a"), pos.piece("cav"))[0]
    # E: auxiliaries in reach of skirmish fire: factor 2
    pos = make(GEN, el("a", "b", "Bo", 300, 100), el("h", "r", "Hi", 300, 130, 180), terrain=wood)
    f = fire_check(pos, pos.piece("a"), pos.piece("h"))
    assert f["allowed"] and f["factor"] == 2 and f["range_paces"] == 100


def test_e8_overlaps():
    """E8 A overlaps X, B fronts X, C fronts Y, C overlaps X and X overlaps C, D overlaps Y."""
    blue = [el(k, "b", "Li", x, 100) for k, x in zip("ABCD", (220, 260, 300, 340), strict=True)]
    pos = make(GEN, *blue, el("X", "r", "Li", 260, 120, 180), el("Y", "r", "Li", 300, 120, 180))
    kind = {(a, b): contact(pos, pos.piece(a), pos.piece(b)).kind for a in "ABCDXY" for b in "ABCDXY" if a != b}
    assert kind["A", "X"] == "overlap" and kind["B", "X"] == "front" and kind["C", "Y"] == "front"
    assert kind["C", "X"] == "overlap" and kind["X", "C"] == "overlap" and kind["D", "Y"] == "overlap"
    x_vs_b = melee_check(pos, pos.piece("X"), pos.piece("B"))
    assert x_vs_b["net_modifier"] == -2  # A and C, one per flank
    y_vs_c = melee_check(pos, pos.piece("Y"), pos.piece("C"))
    assert y_vs_c["net_modifier"] == -2  # D, and B by the same mutual corner contact (A10)
    assert y_vs_c["target_net"] == -1  # C: X's overlap
