"""One test per rule of the Wiener Napoleon engine, named after the rule (digest sections in the names)."""

from __future__ import annotations

import json

import pytest

from common.errors import InputError
from rules import position as positions
from rules.geometry import in_front_arc, neighbours, side_fields
from rules.wiener import DEFAULT, load_options
from rules.wiener.analysis import analyze_from, analyze_pair
from rules.wiener.combat import (
    control_zone,
    fire_check,
    melee_check,
    melee_modifiers,
    simultaneity_reasons,
    supporter_reasons,
)
from rules.wiener.movement import check_move, stacking_problems
from rules.wiener.resolve import (
    Choices,
    general_replaced,
    resolve_bombard,
    resolve_fire,
    resolve_melee,
    resolve_rally,
    resolve_work,
)
from rules.wiener.sight import recognition_limit, trace
from rules.wiener.tables import cap, effect_of, speed

from .util import dice, make, piece

# ---------------------------------------------------------------- position file


def test_position_file_round_trips_exactly(tmp_path):
    text = positions.dumps(make(
        piece("a", "FR", "infantry", "C3", "N", formation="column", bases=3, marker=["red", "grey"], unit="ir1"),
        piece("g", "FR", "general", "C3", "N", attached_to="a"),
        piece("b", "AU", "artillery", "C9", "S", formation="limbered", fired=True),
        fields={"D5": {"terrain": "wood"}, "F7": {"height": 2}, "E5": {"terrain": "water", "bridge": "stone"}},
        edges=[("C5", "C6", "wall")],
        night=True,
    ))
    assert positions.dumps(positions.loads(text)) == text
    path = tmp_path / "p.json"
    path.write_text(text)
    assert positions.load(path) == positions.loads(text)
    assert json.loads(text)["pieces"][0]["marker"] == ["red", "grey"]


@pytest.mark.parametrize(
    "change, words",
    [
        ({"type": "dragoon"}, "unknown value 'dragoon'"),
        ({"formation": "wedge"}, "formation"),
        ({"field": "ZZ99"}, "off the"),
        ({"marker": "purple"}, "marker"),
        ({"facing": "NNE"}, "facing"),
        ({"bases": 0}, "bases"),
        ({"colour": "blue"}, "unknown key 'colour'"),
    ],
)
def test_bad_piece_gives_one_line_error_naming_the_piece(change, words):
    p = piece("au-1", "AU", "infantry", "C3")
    p.update(change)
    with pytest.raises(InputError) as err:
        make(p)
    msg = str(err.value)
    assert "au-1" in msg and words in msg and "\n" not in msg


def test_bad_terrain_and_edge_name_the_field():
    with pytest.raises(InputError, match="field D5 terrain: unknown value 'lava'"):
        make(fields={"D5": {"terrain": "lava"}})
    with pytest.raises(InputError, match="orthogonal"):
        make(edges=[("C5", "D6", "wall")])


def test_enemies_cannot_share_a_field():
    with pytest.raises(InputError, match="both sides"):
        make(piece("a", "FR", "infantry", "C3"), piece("b", "AU", "infantry", "C3"))


def test_unknown_system_and_not_json():
    with pytest.raises(InputError, match="unknown rule system"):
        positions.loads('{"system": "chess"}', "x.json")
    with pytest.raises(InputError, match="x.json: not JSON"):
        positions.loads("{", "x.json")


# ---------------------------------------------------------------- §3 geometry


def test_s3_4_side_fields_of_diagonal_facing_are_diagonal_neighbours():
    assert set(side_fields((5, 5), "NE")) == {(4, 6), (6, 4)}
    assert set(side_fields((5, 5), "N")) == {(4, 5), (6, 5)}


def test_s3_6_front_arc_three_of_eight_neighbours_boundary_included():
    for facing in ("N", "NE", "E", "SW"):
        front = [n for n in neighbours((5, 5)) if in_front_arc((5, 5), facing, n)]
        assert len(front) == 3
    assert in_front_arc((0, 0), "N", (3, 3)) and not in_front_arc((0, 0), "N", (3, 2))


def test_s3_6_flank_attack_on_formed_troops_has_no_defence_but_square_defends():
    line = make(piece("d", "AU", "infantry", "F6", "N"), piece("a", "FR", "infantry", "E6", "E"))
    assert "no defence" in " ".join(melee_check(line, line.piece("a"), line.piece("d")).warnings)
    sq = make(piece("d", "AU", "infantry", "F6", "N", formation="square"), piece("a", "FR", "infantry", "E6", "E"))
    assert not melee_check(sq, sq.piece("a"), sq.piece("d")).warnings


def test_s3_8_stacking_limits():
    pos = make(piece("a", "FR", "infantry", "C3", bases=2), piece("b", "FR", "infantry", "C3", bases=2))
    assert any("3 infantry bases" in s for s in stacking_problems(pos, (2, 2)))
    art = make(piece("a", "FR", "infantry", "C3"), piece("b", "FR", "artillery", "C3"))
    assert any("whole field" in s for s in stacking_problems(art, (2, 2)))
    gen = make(piece("a", "FR", "infantry", "C3"), piece("g", "FR", "general", "C3", attached_to="a"))
    assert stacking_problems(gen, (2, 2)) == []


# ---------------------------------------------------------------- §5 movement


def test_s5_1_speeds_and_night():
    assert speed(make(piece("c", "FR", "light_cavalry", "C3")).piece("c")) == {"field": 3, "road": 4, "wood": 1}
    assert speed(make(piece("c", "FR", "heavy_cavalry", "C3")).piece("c"), night=True)["field"] == 1


def test_s5_4_road_march_only_in_column():
    fields = {n: {"terrain": "road"} for n in ("C3", "C4", "C5")}
    col = make(piece("a", "FR", "infantry", "C3", formation="column"), fields=fields)
    assert check_move(col, col.piece("a"), [(2, 3), (2, 4)]).legal
    line = make(piece("a", "FR", "infantry", "C3"), fields=fields)
    assert not check_move(line, line.piece("a"), [(2, 3), (2, 4)]).legal


def test_s5_6_terrain_entry():
    pos = make(piece("art", "FR", "artillery", "C3"), piece("inf", "FR", "infantry", "E3"),
               fields={"C4": {"terrain": "wood"}, "E4": {"terrain": "wood"}})
    assert not check_move(pos, pos.piece("art"), [(2, 3)]).legal
    chk = check_move(pos, pos.piece("inf"), [(4, 3)])
    assert chk.legal and any("entered the wood" in r for r in chk.red)
    water = make(piece("inf", "FR", "infantry", "C3"), fields={"C4": {"terrain": "water"}})
    assert not check_move(water, water.piece("inf"), [(2, 3)]).legal


def test_s5_6_edge_obstacles():
    wall = make(piece("a", "FR", "infantry", "C3"), edges=[("C3", "C4", "wall")])
    assert "removed" in " ".join(check_move(wall, wall.piece("a"), [(2, 3)]).reasons)
    ditch = make(piece("a", "FR", "infantry", "C3"), piece("g", "FR", "artillery", "E3"),
                 edges=[("C3", "C4", "ditch"), ("E3", "E4", "ditch")])
    chk = check_move(ditch, ditch.piece("a"), [(2, 3)])
    assert chk.legal and chk.red
    assert not check_move(ditch, ditch.piece("g"), [(4, 3)]).legal


def test_s5_2_sideways_and_backward_moves_give_red():
    pos = make(piece("a", "FR", "infantry", "C3", "N"))
    assert check_move(pos, pos.piece("a"), [(3, 2)]).red
    assert check_move(pos, pos.piece("a"), [(2, 1)]).red
    assert not check_move(pos, pos.piece("a"), [(2, 3)]).red


def test_s5_5_interpenetration_red_for_both():
    pos = make(piece("a", "FR", "infantry", "C3", "N"), piece("b", "FR", "infantry", "C4", "N"))
    chk = check_move(pos, pos.piece("a"), [(2, 3), (2, 4)])
    assert chk.legal and chk.interpenetrated == ["b"]


# ---------------------------------------------------------------- §6 sight


def test_s6_1_troops_block_the_line():
    pos = make(piece("a", "FR", "infantry", "C3"), piece("x", "FR", "infantry", "C4"),
               piece("b", "AU", "infantry", "C5"))
    line = trace(pos, (2, 2), (2, 4))
    assert not line.clear and line.blocked_by == ("C4",)


def test_s6_2_heights_block_only_when_above_both_ends():
    hill = {"C4": {"height": 1}}
    assert not trace(make(fields=hill), (2, 2), (2, 4)).clear
    assert trace(make(fields={**hill, "C5": {"height": 1}}), (2, 2), (2, 4)).clear


def test_s6_2_overshooting_own_troops_from_a_height():
    fields = {"C3": {"height": 1}}
    pcs = [piece("art", "FR", "artillery", "C3"), piece("own", "FR", "infantry", "C5"),
           piece("t", "AU", "infantry", "C8")]
    pos = make(*pcs, fields=fields)
    assert fire_check(pos, pos.piece("art"), pos.piece("t")).allowed
    flat = make(*pcs)
    assert not fire_check(flat, flat.piece("art"), flat.piece("t")).allowed
    close = make(piece("art", "FR", "artillery", "C3"), piece("own", "FR", "infantry", "C7"),
                 piece("t", "AU", "infantry", "C8"), fields=fields)
    assert not fire_check(close, close.piece("art"), close.piece("t")).allowed  # no free field before the target


def test_s6_3_skirmisher_screen_stops_small_arms_not_artillery():
    pcs = [piece("skr", "AU", "infantry", "C4", "S", formation="skirmish", parent="par"),
           piece("par", "AU", "infantry", "C5", "S")]
    pos = make(piece("inf", "FR", "infantry", "C3", "N"), *pcs)
    assert not fire_check(pos, pos.piece("inf"), pos.piece("par")).allowed
    art = make(piece("art", "FR", "artillery", "C2", "N"), *pcs)
    assert fire_check(art, art.piece("art"), art.piece("par")).allowed
    off = DEFAULT.with_values({"artillery_fires_through_skirmishers": False})
    assert not fire_check(art, art.piece("art"), art.piece("par"), off).allowed


def test_s6_4_wood_edge_seen_at_3_le_and_deep_wood_at_1():
    pos = make(piece("t", "AU", "infantry", "C8"), fields={"C8": {"terrain": "wood"}})
    t = pos.piece("t")
    assert recognition_limit(pos, t, 3) is None and recognition_limit(pos, t, 4)
    fought = make(piece("t", "AU", "infantry", "C8", fought=True), fields={"C8": {"terrain": "wood"}})
    assert recognition_limit(fought, fought.piece("t"), 6) is None
    wood = {n: {"terrain": "wood"} for n in ("B7", "C7", "D7", "B8", "C8", "D8", "B9", "C9", "D9")}
    deep = make(piece("t", "AU", "infantry", "C8"), fields=wood)
    assert recognition_limit(deep, deep.piece("t"), 2) and recognition_limit(deep, deep.piece("t"), 1) is None


def test_s6_5_night_limits_sight_to_1_le():
    pos = make(piece("a", "FR", "infantry", "C3"), piece("b", "AU", "infantry", "C5", "S"), night=True)
    assert "night" in fire_check(pos, pos.piece("a"), pos.piece("b")).reason


# ---------------------------------------------------------------- §7 ranges, §8 fire


def test_s7_small_arms_reach_2_le_artillery_8():
    pos = make(piece("a", "FR", "infantry", "C3"), piece("b", "AU", "infantry", "C6", "S"))
    assert "out of range" in fire_check(pos, pos.piece("a"), pos.piece("b")).reason
    art = make(piece("a", "FR", "artillery", "C3"), piece("b", "AU", "infantry", "C12", "S"))
    assert "out of range" in fire_check(art, art.piece("a"), art.piece("b")).reason


def test_s7_mounted_cavalry_cannot_fire():
    pos = make(piece("c", "FR", "light_cavalry", "C3"), piece("b", "AU", "infantry", "C4", "S"))
    assert "mounted" in fire_check(pos, pos.piece("c"), pos.piece("b")).reason
    dis = make(piece("c", "FR", "light_cavalry", "C3", formation="dismounted"), piece("b", "AU", "infantry", "C4"))
    assert fire_check(dis, dis.piece("c"), dis.piece("b")).allowed


def test_s8_1_caps_separate_and_net():
    mods = [("a", 3), ("b", 3), ("c", -5)]
    assert cap(mods) == 4 - 4
    assert cap(mods, DEFAULT.with_values({"cap_mode": "net"})) == 1


def test_s8_2_results_table():
    assert [effect_of(w) for w in (3, 4, 5, 6, 9)] == ["none", "red", "grey", "loss_test", "loss_test"]
    assert effect_of(6, DEFAULT.with_values({"loss_test_from_wz": 7})) == "grey"


def test_s8_4_fire_modifiers_square_cover_cavalry_beyond_4():
    sq = make(piece("a", "FR", "artillery", "C3"), piece("b", "AU", "infantry", "C5", formation="square"))
    assert ("target in square (§8.4)", 1) in fire_check(sq, sq.piece("a"), sq.piece("b")).modifiers
    church = make(piece("a", "FR", "artillery", "C3"), piece("b", "AU", "infantry", "C5", formation="buildings"),
                  fields={"C5": {"terrain": "church"}})
    mods = dict(fire_check(church, church.piece("a"), church.piece("b")).modifiers)
    assert -2 in mods.values() and -1 in mods.values()  # heavy cover and dispersed (§11 A24)
    cav = make(piece("a", "FR", "artillery", "C3"), piece("b", "AU", "heavy_cavalry", "C9"))
    assert ("cavalry beyond 4 LE (§8.4, §11 A6)", -1) in fire_check(cav, cav.piece("a"), cav.piece("b")).modifiers


def test_s8_4_target_priority_warns_about_main_direction():
    pos = make(piece("a", "FR", "artillery", "C3", "N"), piece("m", "AU", "infantry", "C6"),
               piece("o", "AU", "infantry", "E6"))
    assert fire_check(pos, pos.piece("a"), pos.piece("o")).warnings
    forbid = DEFAULT.with_values({"target_priority": "forbid"})
    assert not fire_check(pos, pos.piece("a"), pos.piece("o"), forbid).allowed


def test_s8_4_artillery_either_moves_or_fires():
    pos = make(piece("a", "FR", "artillery", "C3", moved=True), piece("b", "AU", "infantry", "C5"))
    assert "moves or fires" in fire_check(pos, pos.piece("a"), pos.piece("b")).reason


def test_s8_4_no_counter_fire_from_flank():
    pos = make(piece("a", "FR", "infantry", "C3", "N"), piece("b", "AU", "infantry", "C4", "E"))
    res = resolve_fire(pos, "a", "b", dice(2))
    assert res.defender["responded"] is False and res.winner == "attacker"


def test_s8_4_bombard_building_loses_cover():
    pos = make(piece("a", "FR", "artillery", "C3"), fields={"C5": {"terrain": "town"}})
    res = resolve_bombard(pos, "a", (2, 4), None, dice(5, 4))  # 5 + 2 (2 LE) - 1 = 6, then 4+
    assert res.attacker["wz"] == 6 and res.after.field_state((2, 4)).cover_lost == 1
    miss = resolve_bombard(pos, "a", (2, 4), None, dice(4))
    assert miss.after.field_state((2, 4)).cover_lost == 0


def test_s8_5_supporters_must_stand_in_side_fields_and_at_most_two():
    pos = make(piece("a", "FR", "infantry", "C3", "N"), piece("s", "FR", "infantry", "D3", "N"),
               piece("far", "FR", "infantry", "F3", "N"), piece("b", "AU", "infantry", "C4", "S"))
    a, b = pos.piece("a"), pos.piece("b")
    assert supporter_reasons(pos, a, b, [pos.piece("s")], "fire") == []
    assert supporter_reasons(pos, a, b, [pos.piece("far")], "fire")
    res = resolve_fire(pos, "a", "b", dice(3, 3), supporters=["s"])
    assert res.winner == "attacker"  # the +1 decides


def test_s8_5_artillery_grand_battery_chain():
    batteries = [piece(f"g{i}", "FR", "artillery", f"{c}3", "N") for i, c in enumerate("CDEF")]
    pos = make(*batteries, piece("t", "AU", "infantry", "D8"))
    sups = [pos.piece(f"g{i}") for i in (1, 2, 3)]
    assert supporter_reasons(pos, pos.piece("g0"), pos.piece("t"), sups, "fire") == []
    two = DEFAULT.with_values({"artillery_supporters_unlimited": False})
    assert supporter_reasons(pos, pos.piece("g0"), pos.piece("t"), sups, "fire", two)


def test_s8_6_simultaneity_at_most_three():
    pcs = [piece(f"a{i}", "FR", "infantry", f"{c}3", "N") for i, c in enumerate("CDEF")]
    pos = make(*pcs, piece("t", "AU", "infantry", "D4"))
    three = [pos.piece(f"a{i}") for i in range(3)]
    assert simultaneity_reasons(pos, three, pos.piece("t"), "fire") == []
    four = [pos.piece(f"a{i}") for i in range(4)]
    assert any("more than 3" in r for r in simultaneity_reasons(pos, four, pos.piece("t"), "fire"))


def test_s8_7_skirmishers_cannot_attack_and_withdraw_when_attacked():
    pos = make(piece("s", "FR", "infantry", "C3", formation="skirmish"), piece("b", "AU", "infantry", "C4"))
    assert "skirmishers cannot attack" in melee_check(pos, pos.piece("s"), pos.piece("b")).reason
    pos2 = make(piece("a", "FR", "infantry", "C3"), piece("skr", "AU", "infantry", "C4", "S", formation="skirmish",
                                                         parent="par"), piece("par", "AU", "infantry", "C5", "S"))
    res = resolve_melee(pos2, "a", "skr", dice())
    assert res.after.piece("par").bases == 2 and "skr" not in res.after.by_id and not res.after.piece("par").markers


def test_s8_7_wall_must_be_removed_before_melee_and_no_charge_into_town():
    pos = make(piece("a", "FR", "infantry", "C3"), piece("b", "AU", "infantry", "C4"), edges=[("C3", "C4", "wall")])
    assert "removed" in melee_check(pos, pos.piece("a"), pos.piece("b")).reason
    town = make(piece("c", "FR", "heavy_cavalry", "C3"), piece("b", "AU", "infantry", "C4", formation="buildings"),
                fields={"C4": {"terrain": "town"}})
    assert "charge" in melee_check(town, town.piece("c"), town.piece("b")).reason


def test_s8_7_fired_this_turn_cannot_attack():
    pos = make(piece("a", "FR", "infantry", "C3", fired=True), piece("b", "AU", "infantry", "C4"))
    assert "fired" in melee_check(pos, pos.piece("a"), pos.piece("b")).reason


def test_s8_7_defender_behind_ditch_and_in_house():
    pos = make(piece("a", "FR", "infantry", "C3"), piece("b", "AU", "infantry", "C4", formation="buildings"),
               fields={"C4": {"terrain": "town"}}, edges=[("C3", "C4", "ditch")])
    mods = melee_modifiers(pos, pos.piece("b"), pos.piece("a"), False)
    assert ("defender behind a ditch (§8.7)", 1) in mods and ("defender in cover: house (§8.7)", 1) in mods


def test_s8_7_downhill_bonus():
    pos = make(piece("a", "FR", "infantry", "C3"), piece("b", "AU", "infantry", "C4"), fields={"C3": {"height": 1}})
    assert any("higher ground" in r for r, _ in melee_modifiers(pos, pos.piece("a"), pos.piece("b"), True))
    assert not any("higher ground" in r for r, _ in melee_modifiers(pos, pos.piece("b"), pos.piece("a"), False))


def test_s8_7_artillery_defends_with_guns_in_arc():
    pos = make(piece("a", "FR", "infantry", "C3", "N"), piece("g", "AU", "artillery", "C4", "S"))
    assert ("battery defends with its guns at 1 LE (§11 A21)", 3) in melee_modifiers(
        pos, pos.piece("g"), pos.piece("a"), False)


def test_s8_8_artillery_loser_is_removed():
    pos = make(piece("a", "FR", "infantry", "C3", "N"), piece("g", "AU", "artillery", "C4", "N"))
    res = resolve_melee(pos, "a", "g", dice(6, 1))  # from behind it defends like infantry (§11 A21)
    assert res.defender["responded"] and not any("guns" in m["rule"] for m in res.defender["modifiers"])
    assert "g" not in res.after.by_id


def test_s8_8_domino_sweeps_own_troops_or_capitulates():
    pcs = [piece("a", "FR", "infantry", "C3", "N"), piece("d", "AU", "infantry", "C4", "S"),
           piece("behind", "AU", "heavy_cavalry", "C5", "S")]
    pos = make(*pcs)
    res = resolve_melee(pos, "a", "d", dice(3, 1), choices=Choices(flight_distance=1))  # WZ 4 vs 2
    assert res.after.piece("behind").black and res.after.piece("d").field == (2, 4)
    cap_ = resolve_melee(pos, "a", "d", dice(3, 1), choices=Choices(flight_distance=1, sweep=False))
    assert "d" not in cap_.after.by_id and not cap_.after.piece("behind").black


def test_s8_8_flight_off_the_table_capitulates():
    pos = make(piece("a", "FR", "infantry", "C1", "N"), piece("d", "AU", "infantry", "C2", "S"))
    res = resolve_melee(pos, "d", "a", dice(3, 1))
    assert res.winner == "attacker"
    assert "a" not in res.after.by_id


def test_s8_8_fleeing_base_absorbed_into_small_stack():
    pos = make(piece("a", "FR", "infantry", "C3", "N"), piece("d", "AU", "infantry", "C4", "S", marker="grey"),
               piece("host", "AU", "infantry", "C5", "S"))
    res = resolve_melee(pos, "a", "d", dice(3, 1), choices=Choices(flight_distance=1))
    host = res.after.piece("host")
    assert "d" not in res.after.by_id and host.bases == 2 and "grey" in host.markers


def test_s8_10_rally_failure_keeps_black_and_success_turns_back():
    pos = make(piece("u", "FR", "infantry", "C3", "S", marker="black"))
    assert resolve_rally(pos, "u", dice(2)).after.piece("u").black
    ok = resolve_rally(pos, "u", dice(4)).after.piece("u")
    assert ok.markers == () and ok.facing == "N"


def test_s8_11_general_reroll_replaces_first_roll():
    pos = make(piece("a", "FR", "infantry", "C3", "N"), piece("g", "FR", "general", "C3", attached_to="a"),
               piece("b", "AU", "infantry", "C5", "S"))
    res = resolve_fire(pos, "a", "b", dice(6, 1, 3), choices=Choices(reroll=("attacker",)))
    assert res.attacker["roll"] == 1 and res.attacker["first_roll"] == 6
    assert res.after.piece("g").rerolled
    assert general_replaced(6) and not general_replaced(5)


def test_s8_12_work_with_objection():
    pos = make(piece("w", "FR", "pioneers", "C3"), piece("o", "AU", "infantry", "D4"), edges=[("C3", "C4", "wall")])
    done = resolve_work(pos, "w", "remove_obstacle", None, ((2, 2), (2, 3)), dice(5))
    assert done.effect == "done" and done.after.edges == ()
    spoiled = resolve_work(pos, "w", "remove_obstacle", None, ((2, 2), (2, 3)), dice(5, 5), objector_id="o")
    assert spoiled.effect == "failed" and spoiled.after.edges


def test_s3_9_control_zone_front_three():
    pos = make(piece("a", "FR", "infantry", "C3", "N"))
    assert sorted(control_zone(pos, pos.piece("a"))) == [(1, 3), (2, 3), (3, 3)]


# ---------------------------------------------------------------- options and analysis


def test_options_file_overrides_and_rejects_unknown(tmp_path):
    f = tmp_path / "o.toml"
    f.write_text('cap_mode = "net"\n')
    assert load_options(f).cap_mode == "net" and load_options().cap_mode == "separate"
    f.write_text("no_such = 1\n")
    with pytest.raises(InputError, match="unknown option"):
        load_options(f)
    f.write_text('cap_mode = "sideways"\n')
    with pytest.raises(InputError, match="cap_mode"):
        load_options(f)


def test_analyze_pair_has_the_issue_fields():
    pos = make(piece("art", "FR", "artillery", "C3", "N"), piece("inf", "AU", "infantry", "C6", "S"))
    out = analyze_pair(pos, "art", "inf")
    for k in ("distance", "adjacent", "side_field", "target_in_arc", "attacker_in_target_arc", "line_of_sight",
              "blocked_by", "fire", "melee"):
        assert k in out
    assert out["fire"]["modifiers"] == [{"rule": "range 3-4 LE", "value": 1, "section": "§7"}]
    assert out["melee"]["reason"] and not out["melee"]["allowed"]
    assert [r["to"] for r in analyze_from(pos, "art")] == ["inf"]
