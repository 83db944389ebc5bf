"""The derived test cases T1-T16 of digest §10, one test each."""

from __future__ import annotations

from rules.geometry import distance, line_fields
from rules.wiener import DEFAULT
from rules.wiener.analysis import analyze_pair
from rules.wiener.combat import fire_check, melee_check, melee_modifiers
from rules.wiener.movement import check_move
from rules.wiener.resolve import gegenzug_spots, resolve_fire, resolve_gegenzug, resolve_melee, resolve_rally
from rules.wiener.sight import line_of_sight
from rules.wiener.tables import cap, range_bonus

from .util import at, dice, make, piece


def _columns():
    return make(
        piece("a", "FR", "infantry", "C3", "N", formation="column"),
        piece("b", "AU", "infantry", "C5", "S", formation="column"),
    )


def test_t1_fire_duel_winner_grey():
    pos = _columns()
    res = resolve_fire(pos, "a", "b", dice(5, 3))
    assert res.attacker["wz"] == 5 and res.defender["wz"] == 3 and res.defender["responded"]
    assert res.winner == "attacker" and res.effect == "grey"
    assert res.after.piece("b").markers == ("grey",)
    assert res.after.piece("a").markers == ()


def test_t2_duel_can_hit_the_active_unit():
    res = resolve_fire(_columns(), "a", "b", dice(3, 4))
    assert res.winner == "defender" and res.effect == "red"
    assert res.after.piece("a").markers == ("red",)
    assert res.after.piece("b").markers == ()


def test_t3_equal_wz_is_a_draw():
    pos = _columns()
    res = resolve_fire(pos, "a", "b", dice(4, 4))
    assert res.winner == "draw" and res.effect == "none"
    assert [p.markers for p in res.after.pieces] == [(), ()]


def test_t4_artillery_at_3_le_loss_test():
    pos = make(
        piece("art", "FR", "artillery", "C3", "N"),
        piece("col", "AU", "infantry", "C6", "S", formation="column", bases=3),
    )
    res = resolve_fire(pos, "art", "col", dice(5), loss_die=4)
    assert res.defender["responded"] is False  # small arms reach 2 LE
    assert res.attacker["wz"] == 6
    assert res.effect == "loss_test" and res.loss_test["base_lost"]
    col = res.after.piece("col")
    assert col.bases == 2 and col.markers == ("grey",)


def test_t5_artillery_at_6_le_roll_6():
    pos = make(
        piece("art", "FR", "artillery", "C3", "N"),
        piece("col", "AU", "infantry", "C9", "S", formation="column", bases=3),
    )
    res = resolve_fire(pos, "art", "col", dice(6), loss_die=3)
    assert res.attacker["net_modifier"] == 0 and res.attacker["wz"] == 6
    assert res.effect == "loss_test" and not res.loss_test["base_lost"]
    assert res.after.piece("col").bases == 3 and res.after.piece("col").markers == ("grey",)  # §11 A2


def test_t6_positive_factors_capped_at_4():
    pos = make(
        piece("cav", "FR", "heavy_cavalry", "C4", "N"),
        piece("s1", "FR", "infantry", "B4", "N"),
        piece("s2", "FR", "infantry", "D4", "N"),
        piece("inf", "AU", "infantry", "C5", "S"),
        fields={"C4": {"height": 1}, "B4": {"height": 1}, "D4": {"height": 1}},
    )
    sups = (pos.piece("s1"), pos.piece("s2"))
    mods = melee_modifiers(pos, pos.piece("cav"), pos.piece("inf"), True, sups)
    assert sum(v for _, v in mods) >= 6
    opts = DEFAULT.with_values({"support_requires_kampfwert": False})
    res = resolve_melee(pos, "cav", "inf", dice(2, 1), supporters=["s1", "s2"], opts=opts)
    assert res.attacker["wz"] == 2 + 4


def test_t7_skirmishers_at_wood_edge():
    pos = make(
        piece("inf", "FR", "infantry", "C3", "N"),
        piece("skr", "AU", "infantry", "C4", "S", formation="skirmish"),
        fields={"C4": {"terrain": "wood"}},
    )
    chk = fire_check(pos, pos.piece("inf"), pos.piece("skr"))
    assert sorted(v for _, v in chk.modifiers) == [-1, -1, 1]
    res = resolve_fire(pos, "inf", "skr", dice(4, 1))
    assert res.attacker["wz"] == 3 and res.effect == "none"
    assert res.after.piece("skr").markers == () and res.after.piece("inf").markers == ()


def test_t8_rally_needs_4_or_3_with_general():
    alone = make(piece("u", "FR", "infantry", "C3", marker="grey"))
    assert resolve_rally(alone, "u", dice(3)).after.piece("u").markers == ("grey",)
    helped = make(piece("u", "FR", "infantry", "C3", marker="grey"), piece("g", "FR", "general", "D4"))
    assert resolve_rally(helped, "u", dice(3)).after.piece("u").markers == ()


def test_t9_flank_attack_no_defence_follow_up_flight_demoralisation():
    pos = make(
        piece("def", "AU", "infantry", at(5, 5), "N"),
        piece("friend", "AU", "infantry", at(5, 6), "N"),
        piece("att", "FR", "infantry", at(4, 5), "E"),
    )
    res = resolve_melee(pos, "att", "def", dice(1))
    assert res.defender["responded"] is False and res.winner == "attacker"
    after = res.after
    assert after.piece("att").field == (5, 5)  # must follow up
    d = after.piece("def")
    assert d.black and distance(d.field, (5, 5)) == 2 and d.facing == "E"
    assert "red" in after.piece("friend").markers


def test_t10_melee_loser_flees_without_loss_test():
    pos = make(piece("att", "FR", "infantry", "C3", "N"), piece("def", "AU", "infantry", "C4", "S"))
    res = resolve_melee(pos, "att", "def", dice(2, 1))
    assert res.attacker["wz"] == 3 and res.winner == "attacker" and res.loss_test is None
    d = res.after.piece("def")
    assert d.black and d.bases == 1 and d.field != (2, 3)


def test_t11_diagonal_move_between_two_enemies_is_illegal():
    pos = make(
        piece("m", "FR", "infantry", at(0, 0), "NE"),
        piece("e1", "AU", "infantry", at(1, 0), "W"),
        piece("e2", "AU", "infantry", at(0, 1), "S"),
    )
    chk = check_move(pos, pos.piece("m"), [(1, 1)])
    assert not chk.legal and any("§3.5" in r for r in chk.reasons)
    free = make(piece("m", "FR", "infantry", at(0, 0), "NE"), piece("e1", "AU", "infantry", at(1, 0), "W"))
    assert check_move(free, free.piece("m"), [(1, 1)]).legal


def test_t12_line_through_a_corner():
    crossed, corners = line_fields((0, 0), (3, 1))
    assert crossed == ((1, 0), (2, 1))
    assert corners == (((2, 0), (1, 1)),)
    base = [piece("a", "FR", "infantry", at(0, 0)), piece("b", "AU", "infantry", at(3, 1))]
    assert line_of_sight(make(*base), (0, 0), (3, 1))
    one = make(*base, piece("x", "FR", "infantry", at(2, 0)))
    assert line_of_sight(one, (0, 0), (3, 1))
    both = make(*base, piece("x", "FR", "infantry", at(2, 0)), piece("y", "FR", "infantry", at(1, 1)))
    assert not line_of_sight(both, (0, 0), (3, 1))
    crossed_blocked = make(*base, fields={at(1, 0): {"terrain": "wood"}})
    assert not line_of_sight(crossed_blocked, (0, 0), (3, 1))


def test_t13_range_is_chebyshev():
    assert distance((0, 0), (3, 2)) == 3
    assert range_bonus("artillery", distance((0, 0), (3, 2))) == 1


def test_t14_gegenzug_against_fast_cavalry():
    pos = make(
        piece("bat", "FR", "artillery", at(5, 2), "N"),
        piece("cav", "AU", "light_cavalry", at(2, 5), "E"),
    )
    path = [(3, 5), (4, 5), (5, 5)]
    spots = gegenzug_spots(pos, pos.piece("bat"), pos.piece("cav"), path)
    assert any(s["allowed"] for s in spots)
    res = resolve_gegenzug(pos, "bat", "cav", path, (5, 5), dice(3))
    assert {"rule": "range 3-4 LE", "value": 1, "section": "§7"} in res.attacker["modifiers"]
    assert res.defender["responded"] is False
    assert res.after.piece("bat").shot_out


def test_t15_general_not_targetable_beyond_2_le():
    pos = make(piece("bat", "FR", "artillery", "C3", "N"), piece("gen", "AU", "general", "C6"))
    chk = fire_check(pos, pos.piece("bat"), pos.piece("gen"))
    assert not chk.allowed and "2 LE" in chk.reason
    near = make(piece("bat", "FR", "artillery", "C3", "N"), piece("gen", "AU", "general", "C5"))
    assert fire_check(near, near.piece("bat"), near.piece("gen")).allowed


def test_t16_heavy_cavalry_against_square_both_capped():
    pos = make(
        piece("cav", "FR", "heavy_cavalry", "C3", "N", bases=2),
        piece("sq", "AU", "infantry", "C4", "S", formation="square", bases=3),
    )
    chk = melee_check(pos, pos.piece("cav"), pos.piece("sq"))
    assert chk.allowed and sum(v for _, v in chk.modifiers) == 3 + 2 and chk.net_modifier == 4
    dmods = melee_modifiers(pos, pos.piece("sq"), pos.piece("cav"), False)
    assert sum(v for _, v in dmods) == 3 + 3 and cap(dmods) == 4
    out = analyze_pair(pos, "cav", "sq")
    assert out["melee"]["net_modifier"] == 4
