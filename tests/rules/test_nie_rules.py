"""Napoleon in Europe rules beyond the worked examples: each test names the digest section it checks."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from common.errors import InputError
from rules.nie import battle as bt
from rules.nie import politics, strategic, turn
from rules.nie.model import Zone, dumps, load_europe, parse_zone, position_from_dict, with_changes
from rules.nie.options import DEFAULT, Options, load_options
from tests.rules.nie_util import battle_pos, dice, pos, producing, two, used_up


def next_turn(p):
    """The same position in a later player turn: no unit has moved yet (§4.1)."""
    return replace(p, moved=frozenset())


# ---------------------------------------------------------------------------------------------- board (§3.3)


def test_zone_names_round_trip_and_the_sides_own_flanks():
    for major in (True, False):
        for z in bt.zones(major):
            assert parse_zone(z.name(major), major, "t") == z
    assert parse_zone("B-right", True, "t") == Zone(4, 0)  # B's right faces A's left (column 0)
    assert parse_zone("A-left", True, "t").col == 0
    with pytest.raises(InputError, match="not a skirmish zone"):
        parse_zone("A-left", False, "t")


def test_reserve_touches_all_own_line_zones_and_rout_touches_nothing():  # A24, §5.5
    res = Zone(1)
    assert all(bt.adjacent(res, Zone(2, c), True) for c in (0, 1, 2))
    assert not bt.adjacent(res, Zone(3, 1), True)
    assert not any(bt.adjacent(Zone(0), z, True) for z in bt.zones(True))
    assert not bt.adjacent(Zone(2, 0), Zone(3, 1), True)  # diagonal
    assert bt.adjacent(Zone(3, 0), Zone(3, 1), True) and not bt.adjacent(Zone(3, 0), Zone(3, 1), True, False)


def test_zone_of_control():  # §3.3
    p = battle_pos({"f-i1": "A-left", "f-i2": "A-centre", "f-i3": "A-right", "b-i1": "M-left", "b-i2": "B-centre",
                    "b-i3": "B-left", "f-c1": "A-centre"}, major=True, phase="infantry")
    # f-i1 is next to the enemy in M-left; A-centre is not next to any enemy: allowed
    assert bt.move_reasons(p, "f-i1", Zone(2, 1)) == []
    # A-centre is not next to an enemy (M-left is diagonal): it may go into M-centre, which is
    assert bt.move_reasons(p, "f-i2", Zone(3, 1)) == []
    p2 = battle_pos({"f-i1": "M-centre", "f-i2": "A-centre", "f-i3": "A-right", "b-i1": "B-centre",
                     "b-i2": "B-left", "b-i3": "B-right"}, major=True)
    # from M-centre (next to B-centre) into M-right (next to B-left): forbidden
    assert any("zone of control" in r for r in bt.move_reasons(p2, "f-i1", Zone(3, 2)))
    # A18: a British unit in M-centre has an enemy only sideways (M-left); M-right faces French in A-right
    p3 = battle_pos({"b-i1": "M-centre", "b-i2": "B-left", "f-i1": "M-left", "f-i2": "A-right"}, major=True,
                    acting="B")
    assert any("zone of control" in r for r in bt.move_reasons(p3, "b-i1", Zone(3, 2)))
    assert bt.move_reasons(p3, "b-i1", Zone(3, 2), replace(DEFAULT, zoc_sideways=False)) == []


def test_no_move_into_an_enemy_zone_unless_the_option_allows():  # A17
    p = battle_pos({"f-i1": "A-line", "b-i1": "M", "b-i2": "B-line"}, phase="infantry")
    assert any("holds enemy units" in r for r in bt.move_reasons(p, "f-i1", Zone(3, 1)))
    assert not any("holds enemy" in r for r in bt.move_reasons(p, "f-i1", Zone(3, 1),
                                                             replace(DEFAULT, enter_enemy_zone=True)))


def test_square_may_not_move_or_charge_and_leaving_costs_an_action():  # §8.5
    p = battle_pos({"f-i1": "A-line", "b-i1": "M", "b-i2": "B-line"}, phase="infantry", acting="B")
    b = p.battle
    b.units["b-i1"].square = True
    assert any("square may not move" in r for r in bt.move_reasons(p, "b-i1", Zone(4, 1)))
    with pytest.raises(InputError, match="square may not charge"):
        bt.charge_preview(p, "b-i1", "f-i1")
    out = bt.leave_square(p, "b-i1")
    assert not out.position.battle.units["b-i1"].square and out.position.battle.units["b-i1"].used == 1
    with pytest.raises(InputError, match="no combat action left"):
        bt.move(out.position, "b-i1", "B-line")


def test_phase_order_and_who_acts():  # §4.2
    p = battle_pos({"f-i1": "A-line", "f-c1": "A-line", "b-i1": "B-line"}, phase="cavalry")
    with pytest.raises(InputError, match="acts in the infantry phase"):
        bt.move(p, "f-i1", "M")
    seen = []
    for _ in range(8):
        seen.append((p.battle.phase, p.battle.acting))
        p = bt.end_phase(p).position
    assert seen == [(ph, s) for ph in ("cavalry", "artillery", "infantry", "leader") for s in "AB"]
    assert (p.battle.round, p.battle.phase, p.battle.quiet_rounds) == (2, "cavalry", 1)


def test_stalemate_two_quiet_rounds_defender_wins():  # §8.7, A16
    p = battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, phase="cavalry")
    for _ in range(16):
        p = bt.end_phase(p).position
    assert p.battle.phase == "pursuit" and p.battle.loser == "A" and p.battle.retreated == "A"
    p3 = battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, phase="cavalry")
    for _ in range(16):
        p3 = bt.end_phase(p3, Options(stalemate_rounds=3)).position
    assert p3.battle.phase == "cavalry" and p3.battle.quiet_rounds == 2


def test_middle_activity_resets_the_stalemate_count():  # A16
    p = battle_pos({"f-i1": "A-line", "f-i2": "A-line", "b-i1": "B-line"}, phase="infantry", quiet_rounds=1)
    p = bt.move(p, "f-i1", "M").position
    for _ in range(4):
        p = bt.end_phase(p).position
    assert p.battle.quiet_rounds == 0 and p.battle.phase == "cavalry"


def test_fire_rules():  # §8.3, §6, §7.1
    p = battle_pos({"f-a1": "A-line", "f-i1": "A-line", "f-c1": "A-line", "b-i1": "B-line", "b-l1": "B-line",
                    "b-i2": "B-reserve", "b-m1": "M"}, phase="artillery")
    with pytest.raises(InputError, match="empty zone between"):
        bt.fire_preview(p, "f-a1", "b-i1")
    with pytest.raises(InputError, match="reserve"):
        bt.fire_preview(p, "f-a1", "b-i2")
    with pytest.raises(InputError, match="leader cannot be the direct target"):
        bt.fire_preview(p, "f-a1", "b-l1")
    with pytest.raises(InputError, match="cannot fire"):
        bt.fire_preview(p, "f-c1", "b-m1")
    with pytest.raises(InputError, match="range 1"):
        bt.fire_preview(p, "f-i1", "b-i1")
    # militia hit: eliminated on 1-4 (§8.1)
    d = dice(*two(8), 4)
    out = bt.fire(p, "f-a1", "b-m1", d)
    assert used_up(d) and "b-m1" not in out.position.units
    assert out.rolls[0]["raw"] == 8 and out.rolls[0]["total"] == 8 and out.rolls[0]["threshold"] == 8


def test_fire_at_artillery_needs_the_group_s_table_value():  # A1, A6
    p = battle_pos({"f-i1": "M", "b-a1": "B-line", "b-i1": "B-line"}, phase="infantry")
    with pytest.raises(InputError, match="fire_inf_art"):
        bt.fire_preview(p, "f-i1", "b-a1")
    opts = Options(fire_inf_art=10)
    assert bt.fire_preview(p, "f-i1", "b-a1", opts)["note"] == ("fire_inf_art = 10 filled in from the options "
                                                                "(not in the digest)")
    with pytest.raises(InputError, match="protected"):
        bt.fire_preview(p, "f-i1", "b-a1", replace(opts, protected_artillery_blocks_fire=True))
    with pytest.raises(InputError, match="may not be charged while own infantry"):
        bt.charge_preview(p, "f-i1", "b-a1", replace(opts, charge_inf_art=0))


def test_amphibious_defender_bonus():  # §5.2
    p = battle_pos({"f-i1": "M", "f-i2": "A-line", "b-i1": "B-line"}, phase="infantry", acting="B", amphibious=True)
    assert (2, "defender of an amphibious landing (§5.2)") in bt.fire_preview(p, "b-i1", "f-i1")["modifiers"]
    p = battle_pos({"f-i1": "M", "f-i2": "A-line", "b-i1": "B-line"}, phase="infantry", acting="A", amphibious=True)
    assert bt.fire_preview(p, "f-i1", "b-i1")["modifiers"] == []


def test_charge_outcomes_elite_and_tie():  # §8.4, A7, A8
    zones = {"f-c1": "M", "f-i1": "A-line", "b-e1": "B-line", "b-i1": "B-line"}
    p = battle_pos(zones, phase="cavalry")
    # elite loses by 3: routed, not eliminated (4+)
    out = bt.charge(p, "f-c1", "b-e1", dice(*two(9), *two(7)))  # 9+2 = 11 vs 7+1 = 8
    assert out.data["difference"] == 3 and out.position.battle.units["b-e1"].zone == Zone(6)
    out = bt.charge(p, "f-c1", "b-e1", dice(*two(10), *two(7)))  # 12 vs 8
    assert "b-e1" not in out.position.units
    # a tie: no effect by default, and the reading is said
    out = bt.charge(p, "f-c1", "b-i1", dice(*two(6), *two(8)))
    assert out.data["difference"] == 0 and "charge_tie" in out.notes[0]
    assert out.position.battle.units["b-i1"].zone == Zone(4, 1) and out.position.battle.units["f-c1"].zone == Zone(3, 1)
    out = bt.charge(p, "f-c1", "b-i1", dice(*two(6), *two(8)), Options(charge_tie="both_rout"))
    assert out.position.battle.units["f-c1"].zone == Zone(0) and out.position.battle.units["b-i1"].zone == Zone(6)


def test_heavy_and_irregular_cavalry_when_defending():  # A11
    p = battle_pos({"f-i1": "M", "f-i2": "A-line", "b-h1": "B-line", "b-r1": "B-line"}, phase="infantry",
                   relations=(("france", "britain", "war"),))
    opts = Options(charge_inf_cav=0)
    assert [m for m, _ in bt.charge_preview(p, "f-i1", "b-h1", opts)["defender_modifiers"]] == [1]
    assert [m for m, _ in bt.charge_preview(p, "f-i1", "b-r1", opts)["defender_modifiers"]] == [-1]
    off = replace(opts, heavy_irregular_mod_defending=False)
    assert bt.charge_preview(p, "f-i1", "b-h1", off)["defender_modifiers"] == []


def test_evade_and_abort():  # §8.4
    p = battle_pos({"f-i1": "M", "f-i2": "A-line", "b-c1": "B-line", "b-i1": "B-line"}, phase="infantry")
    d = dice()
    out = bt.charge(p, "f-i1", "b-c1", d, Options(charge_inf_cav=0), evade=True)
    assert out.data["evaded"] and out.position.battle.units["b-c1"].zone == Zone(5) and used_up(d)
    with pytest.raises(InputError, match="only cavalry may abort"):
        bt.charge(p, "f-i1", "b-i1", dice(), Options(charge_inf_inf=0), abort=True)


def test_militia_square_can_fail():  # A10
    p = battle_pos({"f-c1": "M", "f-i1": "A-line", "b-m1": "B-line"}, phase="cavalry")
    d = dice(3, *two(7), *two(7))
    out = bt.charge(p, "f-c1", "b-m1", d, square=True)
    assert used_up(d) and "b-m1" not in out.position.units  # 1-3 fails; 7+2 vs 7-1: lost by 4
    with pytest.raises(InputError, match="only cavalry may abort, when its target forms square"):
        bt.charge(p, "f-c1", "b-m1", dice(3), square=True, abort=True)
    out = bt.charge(p, "f-c1", "b-m1", dice(4), square=True, abort=True)
    assert out.position.battle.units["b-m1"].square


def test_charge_leader_kill_on_raw_11_even_when_the_charge_is_lost():  # §8.6, A12
    p = battle_pos({"f-c1": "M", "f-i1": "A-line", "b-i1": "B-line", "b-l1": "B-line", "b-l2": "B-line"},
                   phase="cavalry")
    out = bt.charge(p, "f-c1", "b-i1", dice(5, 6, 6, 6), leader="b-l2")  # 11+2 = 13 vs 12+1 = 13: tie
    assert "b-l2" not in out.position.units and "b-l1" in out.position.units


def test_rally_targets_and_rules():  # §8.6, A13
    p = battle_pos({"f-i1": "A-line", "b-i1": "B-line", "b-l1": "B-reserve", "b-e1": "B-rout", "b-m1": "B-rout"},
                   phase="leader", acting="B")
    assert bt.rally(p, "b-l1", "b-e1", dice(*two(7))).data["rallied"]
    assert not bt.rally(p, "b-l1", "b-m1", dice(*two(8))).data["rallied"]
    assert bt.rally(p, "b-l1", "b-m1", dice(*two(9))).data["rallied"]
    with pytest.raises(InputError, match="name the unit"):
        bt.rally(p, "b-l1", None, dice(4, 4))
    out = bt.rally(p, "b-l1", None, dice(*two(7)), Options(rally_name_before_roll=False))
    assert out.position.battle.units["b-e1"].zone == Zone(5)
    p2 = battle_pos({"f-i1": "A-line", "b-i1": "B-line", "b-l1": "B-line", "b-e1": "B-rout"}, phase="leader",
                    acting="B")
    with pytest.raises(InputError, match="only a leader in its reserve zone"):
        bt.rally(p2, "b-l1", "b-e1", dice(6, 6))


def test_voluntary_retreat():  # §8.7
    p = battle_pos({"f-i1": "A-line", "f-i2": "A-line", "b-i1": "B-line"}, phase="infantry")
    with pytest.raises(InputError, match="first complete combat round"):
        bt.retreat(p, "A")
    p = replace(p)
    p.battle.round = 2
    with pytest.raises(InputError, match="your own phases"):
        bt.retreat(p, "B")
    moved = bt.move(p, "f-i1", "M").position
    with pytest.raises(InputError, match="before any combat action"):
        bt.retreat(moved, "A")
    out = bt.retreat(p, "A")
    assert out.position.battle.loser == "A" and out.position.battle.phase == "pursuit"


def test_cavalry_screen_and_pursuit_table():  # §8.8, A22
    p = battle_pos({"f-i1": "A-line", "f-c1": "A-line", "f-c2": "A-rout", "b-c1": "B-line", "b-i1": "B-rout",
                    "b-i2": "B-reserve"}, phase="pursuit", loser="B")
    st = bt.pursuit_state(p)
    assert st["pursuers"] == ["f-c1"] and st["targets"] == ["b-c1"] == st["screen"]
    with pytest.raises(InputError, match="pursuit_cav_cav"):
        bt.pursue(p, "f-c1", "b-c1", dice(6))
    p2 = battle_pos({"f-i1": "A-line", "b-i1": "B-rout", "b-i2": "B-reserve"}, phase="pursuit", loser="B")
    assert bt.pursuit_state(p2)["targets"] == ["b-i1", "b-i2"]
    assert bt.pursuit_state(p2, Options(pursue_rout_zone=False))["targets"] == ["b-i2"]
    out = bt.pursue(p2, "f-i1", "b-i1", dice(5))
    assert "b-i1" in out.position.units
    with pytest.raises(InputError, match="may not pursue"):
        bt.pursue(out.position, "f-i1", "b-i2", dice(6))


def test_retreat_after_battle():  # §8.9
    p = battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, phase="pursuit", loser="A",
                   came_from={"f-i1": "picardy"})
    assert bt.retreat_options(p, "f-i1") == ["picardy"]
    out = bt.end_battle(p)
    assert out.position.units["f-i1"].at == "picardy" and out.position.battle.phase == "over"
    # a defender surrounded by enemies (or only the attackers' regions) is eliminated
    units = [("b-i1", "britain", "inf", "naples"), ("f-i1", "france", "inf", "naples"),
             ("f-i2", "france", "inf", "rome")]
    b = {"region": "naples", "attacker": ["france"], "defender": ["britain"], "major": False, "phase": "pursuit",
         "loser": "B", "units": {"b-i1": {"zone": "B-line"}, "f-i1": {"zone": "A-line"}}}
    p = pos(units, battle=b)
    assert bt.retreat_options(p, "b-i1") == []
    out = bt.end_battle(p)
    assert "b-i1" not in out.position.units and out.data["losses"] == {"britain": {"infantry": 1}}


def test_c_test_reading():  # §9.10, A14
    p = battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, phase="over", loser="A",
                   eliminated=[{"id": f"f{i}", "nation": "france", "type": "leader" if i == 0 else "inf"}
                               for i in range(6)])
    assert bt.c_test_due(p.battle) == ["france"]
    assert bt.c_test_due(p.battle, Options(c_test_counts_leaders=False)) == []
    p.battle.loser = "B"
    assert bt.c_test_due(p.battle, Options(c_test_requires_lost_battle=True)) == []


def test_battle_size():  # §8.2
    units = [(f"f{i}", "france", "inf", "belgium") for i in range(6)] + [("fl", "france", "leader", "belgium")]
    units += [(f"b{i}", "britain", "cav", "belgium") for i in range(5)] + [("bl", "britain", "leader", "belgium")]
    p = pos(units)
    assert bt.battle_size(p, "belgium", ["france"], ["britain"]) == {"major": False, "army_units": {"A": 6, "B": 5}}
    p = pos(units + [("b9", "britain", "art", "belgium")])
    out = bt.start(p, "belgium", ["france"])
    assert out.position.battle.major and out.position.battle.defender == ["britain"]
    with pytest.raises(InputError, match="needs at least one unit"):
        bt.deploy(out.position, {u.id: "A-left" if u.nation == "france" else "B-reserve"
                                 for u in out.position.units.values()})


# ---------------------------------------------------------------------------------------------- map (§5)


def test_the_demo_map_is_marked_invented_and_consistent():
    eu = load_europe()
    assert eu.invented and eu.capitals("russia") == ["st_petersburg", "moscow"]
    assert eu.seas["mid_atlantic"].straits == {"barbary_coast"} and eu.seas["aegean"].straits == {"black_sea"}
    assert {r for r in eu.regions if eu.regions[r].uprising_homeland} == {"ireland", "vendee", "don_basin"}
    assert all(eu.regions[r].home is None for r in ("belgium", "holland", "illyria"))


def test_land_move_rules():  # §5.1
    units = [("f-i1", "france", "inf", "picardy"), ("f-c1", "france", "cav", "picardy"),
             ("b-i1", "britain", "inf", "belgium"), ("p-i1", "prussia", "inf", "saxony"),
             ("f-m1", "france", "militia", "picardy")]
    p = pos(units)
    with pytest.raises(InputError, match="moves 1 region"):
        strategic.land_move(p, ["f-i1"], ["belgium", "holland"])
    with pytest.raises(InputError, match="must stop there"):
        strategic.land_move(p, ["f-c1"], ["belgium", "holland"])
    with pytest.raises(InputError, match="not neighbouring"):
        strategic.land_move(p, ["f-c1"], ["holland"])
    with pytest.raises(InputError, match="militia may not leave its homeland"):
        strategic.land_move(p, ["f-m1"], ["belgium"])
    out = strategic.land_move(p, ["f-c1"], ["belgium"])
    assert out.data["battles"] == ["belgium"]
    # Prussia is neutral to France: Saxony, occupied by Prussians, is closed without war, alliance or passage
    out = strategic.land_move(p, ["f-c1"], ["burgundy", "rhineland"])
    out.position = next_turn(out.position)
    with pytest.raises(InputError, match="owned or occupied by prussia"):
        strategic.land_move(out.position, ["f-c1"], ["hanover", "saxony"])
    passage = replace(out.position, passage=frozenset({("france", "prussia")}))
    moved = strategic.land_move(passage, ["f-c1"], ["hanover", "saxony"])
    assert moved.position.units["f-c1"].at == "saxony" and moved.data["battles"] == []
    neutral = pos([("f-i1", "france", "inf", "picardy"), ("s", "france", "ship", "channel")], relations=())
    with pytest.raises(InputError, match="owned or occupied by britain"):  # Britain's homeland, not at war
        strategic.amphibious(neutral, ["f-i1"], ["channel"], "london", dice())


def test_prussian_militia_after_1809():  # §5.1, A9
    units = [("p-m1", "prussia", "militia", "brandenburg")]
    with pytest.raises(InputError, match="militia"):
        strategic.land_move(pos(units, relations=(), year=1809), ["p-m1"], ["hanover"])
    assert strategic.land_move(pos(units, relations=(), year=1810), ["p-m1"], ["hanover"]).position.units[
        "p-m1"].at == "hanover"


def test_amphibious_landing_in_an_enemy_homeland_brings_militia():  # §5.2, §9.9
    units = [("b-i1", "britain", "inf", "cornwall"), ("b-l1", "britain", "leader", "cornwall"),
             ("b-s1", "britain", "ship", "bay_of_biscay")]
    p = pos(units)
    d = dice()
    out = strategic.amphibious(p, ["b-i1", "b-l1"], ["bay_of_biscay"], "vendee", d)
    assert used_up(d) and out.data["battle"]
    militia = [u for u in out.position.units.values() if u.type == "militia"]
    assert len(militia) == 3 and all(u.nation == "france" and u.at == "vendee" for u in militia)
    out = strategic.amphibious(replace(p, uprisings=frozenset({"vendee"})), ["b-i1"], ["bay_of_biscay"], "vendee",
                               dice())
    assert not out.data["battle"] and not [u for u in out.position.units.values() if u.type == "militia"]


def test_naval_move_and_ports():  # §5.3
    units = [("b-s1", "britain", "ship", "port:london"), ("f-s1", "france", "ship", "mid_atlantic")]
    p = pos(units)
    out = strategic.naval_move(p, ["b-s1"], ["channel", "bay_of_biscay"])
    assert out.position.units["b-s1"].at == "bay_of_biscay" and out.data["contact"] == []
    with pytest.raises(InputError, match="interception is rolled"):
        strategic.naval_move(p, ["b-s1"], ["channel", "mid_atlantic", "barbary_coast"])
    assert strategic.naval_move(p, ["b-s1"], ["channel", "mid_atlantic"]).data["contact"] == ["f-s1"]
    with pytest.raises(InputError, match="only own or allied ports"):
        strategic.naval_move(p, ["b-s1"], ["channel", "port:picardy"])


def test_interception_odds():  # §5.4a
    assert [strategic.interception(v)["caught"] for v in range(1, 7)] == [False] * 4 + [True] * 2
    assert [strategic.interception(v, strait=True)["caught"] for v in range(1, 7)] == [False] * 2 + [True] * 4
    assert [strategic.interception(v, left_port=True)["caught"] for v in range(1, 7)] == [False] * 2 + [True] * 4
    p = pos([])
    assert strategic.is_strait(p, "aegean", "black_sea") and not strategic.is_strait(p, "aegean", "ionian")


def test_sea_battle():  # §8.10
    units = [(f"b{i}", "britain", "ship", "channel") for i in range(2)] + \
            [(f"f{i}", "france", "ship", "channel") for i in range(3)]
    p = pos(units)
    d = dice(*two(7), *two(7))  # Britain 7 + 2 + 1 (British fleet) = 10; France 7 + 3 = 10
    out = strategic.sea_battle(p, "channel", ["britain"], ["france"], d)
    assert used_up(d) and out.data["difference"] == 0 and out.changes == []
    out = strategic.sea_battle(p, "channel", ["britain"], ["france"], dice(*two(12), *two(4)))  # 15 vs 7
    assert out.data["loser"] == "B" and len(out.changes) == 3
    assert [strategic.sea_loss(x) for x in range(8)] == [0, 1, 1, 2, 2, 3, 3, 3]


def test_port_attack():  # §5.3, §8.10
    units = [(f"b{i}", "britain", "ship", "channel") for i in range(4)] + [("f0", "france", "ship", "port:picardy")]
    out = strategic.sea_battle(pos(units), "port:picardy", ["britain"], ["france"], dice(*two(7), *two(7)),
                               lose={"attackers": ["b0", "b1"]})
    a, b = out.rolls
    assert a["modifiers"][0][0] == 2  # the 2 squadrons named attack the port
    assert [m for m, _ in b["modifiers"]] == [1, 2]  # 1 squadron, +2 in port


# ---------------------------------------------------------------------------------------------- politics (§9)


def test_production_points():  # §9.4, A2
    p = pos([("b-i1", "britain", "inf", "picardy")], owners={"belgium": "france", "morocco": "france"},
            uprisings=["vendee"])
    pp = politics.production_points(p, "france")
    rows = {r: v for r, v, _ in pp["regions"]}
    assert rows == {"paris": 10, "picardy": 0, "vendee": 0, "burgundy": 2, "gascony": 2, "provence": 2,
                    "belgium": 2, "morocco": 1}
    assert pp["pp"] == 19
    assert politics.production_points(pos([]), "ottoman")["pp"] == 2 + 1 + 1 + 1 + 1  # Constantinople 2, others 1
    with pytest.raises(InputError, match="capital_pp_vienna"):
        politics.production_points(pos([]), "austria")
    assert politics.production_points(pos([]), "austria", Options(capital_pp_vienna=8))["notes"] == [
        "capital_pp_vienna = 8 filled in from the options (not in the digest)"]


def test_purchase_rules():  # §9.5, §8.1, A9
    p0 = pos([], pp={"france": 60, "britain": 100, "ottoman": 100, "russia": 30, "prussia": 40}, year=1812)

    def reasons(nation, basket, opts=DEFAULT):  # in the nation's own production turn, its PP totalled (§4.1)
        return politics.purchase_reasons(producing(p0, nation), nation, basket, opts)

    assert reasons("france", {"inf": 2, "elite": 1}) == []
    assert "two normal infantry" in reasons("france", {"inf": 1, "elite": 1})[0]
    assert "costs 66 PP" in reasons("france", {"art": 5, "inf": 1})[0]
    assert "irregular cavalry" in reasons("france", {"icav": 1})[0]
    assert reasons("russia", {"icav": 1}) == []
    assert "only militia, irregular cavalry and leaders" in reasons("ottoman", {"art": 1})[0]
    assert "at most 2 land units" in reasons("britain", {"inf": 3})[0]
    assert "militia are built only" in reasons("france", {"militia": 1})[0]
    assert reasons("prussia", {"militia": 1}) == []
    assert reasons("france", {"militia": 1}, Options(militia_restriction="pursuit")) == []
    assert politics.unit_cost("hcav", Options(heavy_cavalry_cost=11)) == 11
    p = producing(p0, "france")
    out = politics.purchase(p, "france", {"inf": 2, "ship": 1}, {"inf": "paris", "ship": "picardy"})
    assert out.position.pp["france"] == 60 - 12 - 15
    assert sorted(u.at for u in out.position.units.values()) == ["paris", "paris", "port:picardy"]
    with pytest.raises(InputError, match="place in one of"):
        politics.purchase(p, "france", {"inf": 1}, {"inf": "belgium"})


def test_placement_regions():  # §9.5
    p = pos([("b-i1", "britain", "inf", "picardy")], owners={"burgundy": "austria"}, uprisings=["vendee"])
    assert politics.placement_regions(p, "france") == ["paris", "gascony", "provence"]


def test_declare_war_sue_for_peace_and_the_truce():  # §9.7, §9.8, A21
    p = pos([], relations=(), pap={"britain": 2, "austria": 1, "france": 1}, round=3)
    p = politics.declare_war(p, "britain", "france").position
    p = politics.declare_war(p, "austria", "france").position
    assert p.at_war("france", "austria") and p.declarations["france"] == ("britain", "austria")
    out = politics.sue_for_peace(p, "france")
    q = out.position
    assert not q.at_war("france", "britain") and q.pap == {"britain": 3, "austria": 1, "france": 0}
    assert out.data["congress_order"] == ["britain", "austria"]
    q = replace(q, pap={"britain": 5})
    with pytest.raises(InputError, match="truce"):
        politics.declare_war(q, "britain", "france")
    assert politics.declare_war(replace(q, round=16), "britain", "france").position.at_war("britain", "france")


def test_annex_minor():  # §9.8
    units = [(f"f{i}", "france", "inf", "belgium") for i in range(4)]
    p = pos(units, relations=(), pap={"france": 1}, active="france")
    out = politics.annex_minor(p, "france", "belgium", dice(2))  # 2 +1 (4 units) +1 (next to Picardy) = 4
    assert not out.data["joined"] and out.rolls[0]["total"] == 4
    assert out.data["army"]["inf"] in range(1, 5)
    out = politics.annex_minor(p, "france", "belgium", dice(3))
    assert out.data["joined"] and out.position.owner("belgium") == "france" and out.position.pap["france"] == 0
    at_war = pos(units, pap={"france": 1}, active="france")
    assert politics.annex_minor(at_war, "france", "belgium", dice(3, 1, 1, 1)).rolls[0]["total"] == 4


def test_minor_army_rerolls_5_and_6():  # §9.8
    d = dice(6, 5, 3, 4, 4)
    assert politics.minor_army(d) == {"inf": 3, "cav": 2, "art": 1, "rolls": [6, 5, 3, 4, 4]} and used_up(d)


def test_diplomatic_offensives():  # §9.8
    p = pos([("f-l1", "france", "leader", "belgium")], relations=(), pap={"france": 4},
            diplomacy_values={"france": {"prussia": 6}}, players={"france": "anna"})
    d = dice(*two(8), 2, 2, 2)
    out = politics.diplomatic_offensive_minor(p, "france", "belgium", d)  # 8+ with a leader there
    assert out.data["success"] and out.position.owner("belgium") == "france" and used_up(d)
    assert not politics.diplomatic_offensive_minor(p, "france", "holland", dice(*two(8))).data["success"]
    out = politics.diplomatic_offensive_neutral(p, "france", "prussia", dice(*two(6)))
    assert out.data["success"] and out.position.allied("france", "prussia") and out.position.pap["france"] == 2
    assert not politics.diplomatic_offensive_neutral(p, "france", "prussia", dice(*two(7))).data["success"]
    with pytest.raises(InputError, match="diplomacy value is scenario data"):
        politics.diplomatic_offensive_neutral(p, "france", "russia", dice(1, 1))


def test_uprisings():  # §9.9
    p = pos([("f-i1", "france", "inf", "belgium"), ("f-i2", "france", "inf", "belgium")], relations=(),
            pap={"britain": 2}, owners={"belgium": "france"})
    with pytest.raises(InputError, match="homeland region"):
        politics.cause_uprising(p, "britain", "paris")
    assert politics.production_points(p, "france")["pp"] == 22
    p = politics.cause_uprising(p, "britain", "belgium").position
    assert "belgium" in p.uprisings and politics.production_points(p, "france")["pp"] == 20
    out = politics.suppress_uprising(p, "belgium", dice(1, 2))
    assert "belgium" in out.position.uprisings and len(out.position.units) == 1
    out = politics.suppress_uprising(p, "belgium", dice(1, 1))
    assert "belgium" not in out.position.uprisings


def test_victory_levels():  # §9.1
    p = pos([])
    owned = politics.regions_owned(p)
    assert owned == {"france": 6, "britain": 4, "prussia": 2, "russia": 5, "ottoman": 5, "austria": 4, "spain": 3}
    assert politics.victory_level(p, "france")["name"] == "Major Victory"  # 6 > 5, all its homeland
    assert politics.victory_level(p, "russia")["name"] == "Minor Victory"  # second most
    assert politics.victory_level(p, "prussia")["name"] == "Survival"
    big = pos([], owners={r: "france" for r in ("belgium", "holland", "rhineland", "hanover", "saxony")})
    assert politics.victory_level(big, "france")["level"] == 1  # 11 > 5 + 5 (10 would not be more)
    assert politics.victory_level(pos([], owners={"belgium": "france"}), "france")["level"] == 2  # 7 > 5, not > 10
    lost = pos([], owners={"paris": "britain"})
    assert politics.victory_level(lost, "france")["name"] == "Defeat"
    gone = pos([], owners={r: "austria" for r in load_europe().homeland("france")})
    assert politics.victory_level(gone, "france")["name"] == "Annihilation"
    fleet = pos([(f"s{i}", "britain", "ship", "channel") for i in range(3)])
    assert politics.victory_level(fleet, "britain")["name"] == "Major Victory"


def test_game_lengths():  # §9.2, A4
    assert politics.game_rounds("medium") == 18 and politics.game_rounds("medium", Options(medium_game_rounds=20)) == 20


# ---------------------------------------------------------------------------------------------- files


def test_position_file_errors_name_the_file_and_the_thing():
    base = {"system": "nie"}
    cases = [({"units": [{"id": "x", "nation": "france", "type": "tank", "at": "paris"}]}, "unit 'x': type 'tank'"),
             ({"units": [{"id": "x", "nation": "france", "type": "inf", "at": "atlantis"}]},
              "at: unknown region 'atlantis'"),
             ({"units": [{"id": "x", "nation": "prussia", "type": "ship", "at": "paris"}]}, "a squadron stands"),
             ({"units": [{"id": "x", "nation": "narnia", "type": "inf", "at": "paris"}]},
              r"nation: unknown nation 'narnia' \(one of austria britain france minor"),
             ({"relations": [{"nations": ["france", "spain"], "status": "friendly"}]}, "status 'friendly'"),
             ({"month": 13}, "month must be 1..12"), ({"board": "nowhere.toml"}, "map file not found")]
    for extra, msg in cases:
        with pytest.raises(InputError, match=msg) as e:
            position_from_dict({**base, **extra}, "game.json")
        assert str(e.value).startswith(("game.json", "nowhere.toml")) and "\n" not in str(e.value)


def test_options_file(tmp_path):
    f = tmp_path / "o.toml"
    f.write_text('charge_tie = "attacker_routs"\nfire_art_cav_1 = 7\n')
    o = load_options(f)
    assert o.charge_tie == "attacker_routs" and o.fire_art_cav_1 == 7 and o.fire_inf_inf == 9
    f.write_text("no_such = 1\n")
    with pytest.raises(InputError, match="unknown option 'no_such'"):
        load_options(f)
    assert load_options() == DEFAULT  # the shipped file says what the dataclass says


def test_congress_annexation_and_liberation():  # §9.8
    p = pos([], relations=(), pap={"britain": 7}, owners={"belgium": "france", "holland": "france"},
            truces=[{"victor": "britain", "loser": "france", "until_round": 13}],
            congresses=[{"loser": "france", "victors": ["britain"], "turn": "britain"}])
    p = politics.congress_annex(p, "britain", "france", "belgium").position
    assert p.owner("belgium") == "britain" and p.pap["britain"] == 6
    with pytest.raises(InputError, match="capital is annexed only after"):
        politics.congress_annex(p, "britain", "france", "paris")
    p = politics.congress_annex(p, "britain", "france", "vendee").position
    assert p.pap["britain"] == 4
    with pytest.raises(InputError, match="'austria' is not a victor of france's war"):
        politics.congress_annex(replace(p, pap={"austria": 5}), "austria", "france", "picardy")
    with pytest.raises(InputError, match="not held by france"):  # Belgium is Britain's now
        politics.liberate(p, "britain", ["belgium", "holland"], "france")
    out = politics.liberate(p, "britain", ["holland"])  # the minor is independent again
    assert out.position.owner("holland") is None and out.position.pap["britain"] == 3.5
    assert json.loads(dumps(out.position))["pap"]["britain"] == 3.5  # half a PAP is kept in the file


def test_armistice_break_alliance_and_passage():  # §9.8
    p = pos([("f-i1", "france", "inf", "saxony"), ("p-i1", "prussia", "inf", "saxony")],
            relations=(("france", "britain", "war"), ("france", "prussia", "allied")),
            pap={"france": 2, "britain": 1})
    q = politics.armistice(p, "france", "britain").position
    assert q.relation("france", "britain") == "neutral" and q.pap == {"france": 1, "britain": 0}
    out = politics.break_alliance(q, "france", "prussia")
    assert out.position.relation("france", "prussia") == "neutral" and out.data["must_leave"] == ["saxony"]
    g = politics.passage(out.position, "prussia", "france", True).position
    assert ("france", "prussia") in g.passage
    r = politics.passage(g, "prussia", "france", False)
    assert r.position.passage == frozenset() and r.data["must_leave"] == ["saxony"]


def test_occupying_an_empty_enemy_capital_calls_the_c_test():  # §9.10, A25
    p = pos([("b-c1", "britain", "cav", "picardy")])
    out = strategic.land_move(p, ["b-c1"], ["paris"])
    assert out.data["c_tests"] == ["france"] and out.data["battles"] == []
    again = strategic.land_move(next_turn(out.position), ["b-c1"], ["burgundy"])
    assert again.data["c_tests"] == []


def test_turn_sequence():  # §4.1
    p = pos([("f-i1", "france", "inf", "picardy"), ("a-i1", "austria", "inf", "belgium")], relations=(),
            players={"france": "anna", "austria": "ben", "britain": "cy"}, start_nation="austria",
            active="austria", month=3, year=1805, round=4, pap={"france": 1}, uprisings=["belgium"],
            owners={"belgium": "austria"})
    assert turn.turn_order(p) == ["austria", "france", "britain"]
    out = turn.end_turn(p)
    assert out.data["suppress"] == ["belgium"] and out.position.active == "france" and not out.data["production"]
    moved = strategic.land_move(out.position, ["f-i1"], ["paris"]).position
    with pytest.raises(InputError, match="already moved this month"):
        strategic.land_move(moved, ["f-i1"], ["picardy"])
    q = turn.end_turn(moved).position
    assert q.moved == {"f-i1"} and q.active == "britain"  # moved once this month, in whichever ally's turn
    out = turn.end_turn(q)
    r = out.position
    assert r.moved == frozenset()
    assert (r.active, r.month, r.year, r.round) == ("austria", 4, 1805, 5) and out.data["production"]
    assert r.pap == {"france": 2, "austria": 1, "britain": 1}
    last = turn.end_turn(replace(q, month=7, year=1815))
    assert last.data["campaign_over"] and last.position.month == 8
    dec = turn.end_turn(replace(q, month=12))
    assert (dec.position.month, dec.position.year) == (1, 1806)


def test_a_losing_attacker_of_unknown_origin_is_asked_for():  # §8.9
    p = battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, phase="pursuit", loser="A")
    with pytest.raises(InputError, match="came_from"):
        bt.end_battle(p)


def test_a_defender_does_not_retreat_next_to_other_enemies():  # §8.9
    p = battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, phase="pursuit", loser="B", came_from={"f-i1": "picardy"},
                   relations=(("france", "britain", "war"), ("prussia", "britain", "war")))
    p = replace(p, pieces=(*p.pieces, *pos([("p-i1", "prussia", "inf", "holland")]).pieces))
    assert bt.retreat_options(p, "b-i1") == ["rhineland"]


def test_units_off_the_battle_board_are_refused_in_one_line():
    p = battle_pos({"f-i1": "A-line", "b-i1": "B-line"})
    p = replace(p, pieces=(*p.pieces, *pos([("b-i7", "britain", "inf", "holland")]).pieces))
    for fn in (bt.fire_preview, bt.charge_preview):
        with pytest.raises(InputError, match="b-i7: not on the battle board"):
            fn(p, "f-i1", "b-i7")
        with pytest.raises(InputError, match=r"unknown unit 'zz' \(one of b-i1 b-i7 f-i1\)"):
            fn(p, "f-i1", "zz")
    with pytest.raises(InputError, match="no battle"):
        bt.fire_preview(pos([("f-i1", "france", "inf", "paris")]), "f-i1", "f-i1")


def test_war_on_a_neutral_great_nation_hands_it_to_a_player():  # §9.6
    base = dict(pap={"france": 3, "britain": 2, "russia": 2, "austria": 1},
                players={"france": "anna", "britain": "ben", "russia": "cy", "austria": "dee"})
    # players at war with the aggressor: a die picks among them, the neutral joins their alliance
    p = pos([], relations=(("france", "britain", "war"), ("france", "russia", "war")), **base)
    d = dice(6, 1)  # two candidates: 1, 3, 5 -> britain; 2, 4, 6 -> russia (one die used)
    out = politics.declare_war(p, "france", "prussia", d)
    assert out.data == {"controller": "russia", "allied": True} and d.given == [1]
    q = out.position
    assert q.players["prussia"] == "cy" and q.allied("prussia", "britain") and q.at_war("france", "prussia")
    # nobody at war: those who declare war on the aggressor at once, each paying 1 PAP
    p = pos([], relations=(), **base)
    out = politics.declare_war(p, "france", "prussia", dice(), ["austria"])
    q = out.position
    assert q.at_war("austria", "france") and q.pap["austria"] == 0 and q.players["prussia"] == "dee"
    assert q.allied("austria", "prussia")
    # nobody declares: the closest capital by land borders; Vienna and Moscow are both 3 borders from Berlin
    out = politics.declare_war(p, "france", "prussia", dice())
    assert out.data == {"controller": None, "closest": ["russia", "austria"]} and "prussia" not in out.position.players
    assert politics.land_distance(p, "vienna", "berlin") == 3 and politics.land_distance(p, "london", "paris") is None
    p = pos([], relations=(), pap={"france": 1}, players={"france": "anna", "britain": "ben", "austria": "dee"})
    out = politics.declare_war(p, "france", "prussia", dice())
    assert out.data == {"controller": "austria", "allied": False} and not out.position.allied("austria", "prussia")
    assert out.position.players["prussia"] == "dee"


def _annexing(relations=()):
    units = [(f"f{i}", "france", "inf", "belgium") for i in range(2)]
    return pos(units, relations=relations, pap={"france": 1}, active="france")


def test_a_resisting_minor_fights_with_light_blue_figures():  # §9.8, A19
    d = dice(1, 3, 2, 5)  # 1 +1 (next to Picardy) = 2: resists; army 3 inf, 1 cav, 1 art
    out = politics.annex_minor(_annexing(), "france", "belgium", d)
    p = out.position
    assert used_up(d) and out.data["army_nation"] == "minor" and p.resisting == {"belgium": "france"}
    assert sorted(u.type for u in p.units.values() if u.nation == "minor") == ["art", "cav", "inf", "inf", "inf"]
    assert strategic.battles(p) == ["belgium"]
    started = bt.start(p, "belgium", ["france"]).position
    assert started.battle.defender == ["minor"] and not started.battle.major
    won = replace(started, battle=replace(started.battle, phase="pursuit", loser="B", units={}))
    after = bt.end_battle(won).position
    assert after.owner("belgium") == "france" and after.resisting == {}
    assert not [u for u in after.units.values() if u.nation == "minor"]
    lost = replace(started, battle=replace(started.battle, phase="pursuit", loser="A", units={
        "f0": bt.BattleUnit(Zone(2, 1)), "f1": bt.BattleUnit(Zone(2, 1))}))
    with pytest.raises(InputError, match="retreats to one of holland, picardy, rhineland"):
        bt.end_battle(lost)
    after = bt.end_battle(lost, {"*": "picardy"}).position
    assert after.owner("belgium") is None and after.resisting == {} and after.units["f0"].at == "picardy"
    assert not [u for u in after.units.values() if u.nation == "minor"]


def test_a_resisting_minor_goes_to_the_annexer_s_enemy():  # §9.8
    p = _annexing(relations=(("france", "britain", "war"), ("france", "austria", "war")))
    out = politics.annex_minor(p, "france", "belgium", dice(1, 2, 1, 1), give_to="austria")
    q = out.position
    assert q.owner("belgium") == "austria" and out.data["army_nation"] == "austria"
    assert sorted(u.type for u in q.units.values() if u.nation == "austria") == ["cav", "inf", "inf"]
    assert strategic.battles(q) == ["belgium"] and q.resisting == {}


def test_interception_when_both_or_neither_want_a_battle():  # §5.4a
    assert strategic.interception(None, wants=(True, True))["caught"]
    assert not strategic.interception(None, wants=(False, False))["caught"]
    with pytest.raises(InputError, match="roll 1d6"):
        strategic.interception(None, wants=(False, True))


def test_after_a_sea_battle_only_an_own_port():  # §5.3
    units = [("b0", "britain", "ship", "channel"), ("f0", "france", "ship", "channel")]
    p = strategic.sea_battle(pos(units), "channel", ["britain"], ["france"], dice(2, 3, 3, 3)).position  # 7 v 7
    with pytest.raises(InputError, match="move no further this round"):
        strategic.naval_move(p, ["b0"], ["north_sea"])
    assert strategic.naval_move(p, ["b0"], ["port:london"]).position.units["b0"].at == "port:london"
    with pytest.raises(InputError, match="only own or allied ports"):
        strategic.naval_move(p, ["f0"], ["port:cornwall"])


def test_squadrons_leave_a_port_taken_by_the_enemy():  # §5.3
    p = pos([("b-c1", "britain", "cav", "paris"), ("f-s1", "france", "ship", "port:picardy")])
    out = strategic.land_move(p, ["b-c1"], ["picardy"])
    assert out.data["ports_to_leave"] == {"port:picardy": ["f-s1"]}
    assert strategic.naval_move(out.position, ["f-s1"], ["channel"]).position.units["f-s1"].at == "channel"


def test_diplomatic_offer_to_a_player_nation():  # §9.8
    p = pos([], relations=(("britain", "austria", "allied"),), pap={"france": 4},
            players={"france": "anna", "britain": "ben", "austria": "cy"})
    out = politics.diplomatic_offer(p, "france", "britain", accepted=False)
    assert out.position.pap["france"] == 2 and out.position.relation("france", "britain") == "neutral"
    out = politics.diplomatic_offer(p, "france", "britain", accepted=True)
    assert out.position.allied("france", "britain")
    out = politics.diplomatic_offer(p, "france", "britain", accepted=True, third="austria")
    assert out.position.relation("britain", "austria") == "neutral"
    with pytest.raises(InputError, match="not another player nation"):
        politics.diplomatic_offer(p, "france", "prussia", accepted=True)


def test_forced_fights_at_the_end_of_a_turn():  # §9.8
    p = pos([("f-i1", "france", "inf", "saxony"), ("p-i1", "prussia", "inf", "saxony")], relations=(),
            players={"france": "anna", "prussia": "ben"})
    assert turn.end_turn(p).data["forced_fights"] == [("saxony", "france", "prussia")]
    ok = replace(p, passage=frozenset({("france", "prussia")}))
    assert turn.end_turn(ok).data["forced_fights"] == []


def test_historical_game_ends_when_france_or_all_its_enemies_sue():  # §9.1
    base = dict(pap={"france": 2, "britain": 2, "austria": 2}, historical=True)
    rel = (("france", "britain", "war"), ("france", "austria", "war"), ("france", "spain", "allied"))
    p = pos([], relations=rel, **base)
    out = politics.sue_for_peace(p, "france")
    assert out.data["historical_result"] == "anti-French alliance" and out.position.sued == {"france"}
    p = pos([], relations=rel, sued=["britain", "austria", "prussia", "russia"], **base)
    assert politics.historical_result(p, {"britain", "austria", "prussia", "russia"}, {"france", "spain"}) is None
    assert politics.historical_result(p, {"britain", "austria", "prussia", "russia", "ottoman"},
                                      {"france", "spain"}) == "France"


def test_neutral_great_nations_are_inactive():  # §9.6
    p = pos([("p-i1", "prussia", "inf", "berlin")], relations=(), players={"france": "anna"}, pp={"prussia": 30})
    assert p.inactive("prussia") and not p.inactive("france")
    with pytest.raises(InputError, match="inactive until it joins an alliance or is attacked"):
        strategic.land_move(p, ["p-i1"], ["brandenburg"])
    assert politics.production_points(p, "prussia")["pp"] == 0
    assert "no new units" in " ".join(politics.purchase_reasons(producing(p, "prussia"), "prussia", {"inf": 1}))
    attacked = pos([("p-i1", "prussia", "inf", "berlin")], relations=(("france", "prussia", "war"),),
                   players={"france": "anna"})
    assert not attacked.inactive("prussia")
    assert strategic.land_move(attacked, ["p-i1"], ["brandenburg"]).position.units["p-i1"].at == "brandenburg"


def test_only_britain_gives_pp():  # §9.4
    p = pos([], pp={"britain": 10, "france": 10})
    assert politics.give_pp(p, "britain", "austria", 4).position.pp == {"britain": 6, "france": 10, "austria": 4}
    with pytest.raises(InputError, match="only Great Britain"):
        politics.give_pp(p, "france", "austria", 4)
    with pytest.raises(InputError, match="Britain has 10"):
        politics.give_pp(p, "britain", "austria", 11)


def test_a_player_with_more_than_one_nation_is_judged_by_each():  # §9.1 "Victory with more than one nation"
    base = dict(players={"france": "anna", "britain": "ben"}, pap={"france": 4},
                diplomacy_values={"france": {"prussia": 8}})
    p = pos([], **base)
    assert p.controlled == {"anna": ("france",), "ben": ("britain",)}
    # a diplomatic offensive on neutral Prussia: anna controls it from now on, and for good (§9.6, §9.8)
    won = politics.diplomatic_offensive_neutral(p, "france", "prussia", dice(3, 4)).position
    assert won.players["prussia"] == "anna" and won.controlled["anna"] == ("france", "prussia")
    again = position_from_dict(json.loads(dumps(won)))
    assert again.controlled == won.controlled  # the position file keeps it
    lost = replace(won, players={"france": "anna", "britain": "ben"})  # control lost again: still judged by it
    assert politics.player_result(lost, "anna")["gained"] == ["prussia"]
    # France: Major Victory (6 regions > any other, all its homeland); Prussia: Survival -> a clean victory
    r = politics.player_result(won, "anna")
    assert (r["own"], r["levels"]["france"]["name"], r["levels"]["prussia"]["name"]) == (
        "france", "Major Victory", "Survival")
    assert r["result"] == "Major Victory (clean)"
    # Prussia's homeland partly foreign: Defeat -> the victory is dirty
    berlin_lost = with_changes(won, owners={r: "austria" for r in won.europe.homeland("prussia")[:1]})
    assert politics.player_result(berlin_lost, "anna")["levels"]["prussia"]["name"] == "Defeat"
    assert politics.player_result(berlin_lost, "anna")["result"] == "Major Victory (dirty)"
    # Total Victory for France plus at least a Minor Victory for Prussia: the ultimate result
    french = ("belgium", "holland", "rhineland", "hanover", "bavaria", "illyria", "venetia", "piedmont", "rome",
              "naples", "portugal", "morocco")
    big = with_changes(won, owners={**dict.fromkeys(french, "france"),
                                    **dict.fromkeys(("saxony", "poland", "algeria", "tunis"), "prussia")})
    r = politics.player_result(big, "anna")  # France 18 > Prussia 6 + Russia 5; Prussia second most
    assert (r["levels"]["france"]["name"], r["levels"]["prussia"]["name"]) == ("Total Victory", "Minor Victory")
    assert r["result"] == "ultimate result: Total Victory (clean)"
    assert politics.player_result(pos([], **base), "ben")["result"] == politics.victory_level(p, "britain")["name"]
    with pytest.raises(InputError, match="'cara' is no player"):
        politics.player_result(p, "cara")
