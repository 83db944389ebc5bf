"""One test per DBX rule, named after it (digest sections in the docstrings)."""

from __future__ import annotations

import pytest

from common.errors import InputError
from rules.dbx import movement, resolve, setup
from rules.dbx.analysis import analyze_from, analyze_pair
from rules.dbx.combat import band, combat_factor, fire_check, melee_check, melee_side, outcome
from rules.dbx.contact import contact, distance_mm, groups, in_zoc
from rules.dbx.lists import check_army, find_list
from rules.dbx.model import base_size
from rules.dbx.options import DEFAULT, load_options
from rules.dbx.sight import fire_range, fire_target_check, going, higher, line_of_sight
from rules.dbx.tables import UNIT_TYPES, weather_roll
from tests.rules.test_dbx_helpers import dice, el, facing, make, rect_terrain

OPTS = DEFAULT


def _rules(mods: list[dict]) -> list[str]:
    return [m["rule"] for m in mods]


# ---------------------------------------------------------------- §3 geometry


def test_general_base_is_turned_90_degrees():
    """§3.2 the general's front is the short edge."""
    pos = make(el("g", "b", "Gen", 100, 100), el("l", "b", "Li", 200, 100))
    assert base_size(pos.piece("g"), pos.scale) == (20.0, 40.0)
    assert base_size(pos.piece("l"), pos.scale) == (40.0, 20.0)


def test_distance_in_mm_paces_and_base_widths():
    """§3.1 100 paces = 25 mm; 1 BB = 40 mm; closest points of the two rectangles."""
    pos = make(el("a", "b", "Li", 100, 100), el("e", "r", "Li", 100, 160, 180))
    r = analyze_pair(pos, "a", "e")
    assert (r["distance_mm"], r["distance_paces"], r["distance_bb"]) == (40.0, 160.0, 1.0)


def test_scale_settings_change_paces_and_base_width():
    """§3.1 mm_per_pace and bb_mm are settings."""
    pos = make(el("a", "b", "Li", 100, 100), el("e", "r", "Li", 100, 200, 180), scale={"mm_per_pace": 0.5, "bb_mm": 60})
    r = analyze_pair(pos, "a", "e")
    assert base_size(pos.piece("a"), pos.scale) == (60.0, 30.0)
    assert r["distance_mm"] == 70.0 and r["distance_paces"] == 140.0


def test_contact_front_to_front():
    """§3.5 exactly front edge to front edge."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Li", a))
    c = contact(pos, pos.piece("a"), pos.piece("e"))
    assert (c.kind, c.edge, c.valid) == ("front", "front", True)


def test_contact_front_offset_is_no_melee():
    """§3.5 fronts that do not meet full width to full width: no melee this bound."""
    pos = make(el("a", "b", "Li", 100, 100), el("e", "r", "Li", 115, 120, 180))
    c = contact(pos, pos.piece("a"), pos.piece("e"))
    assert c.kind == "front" and not c.valid
    assert not melee_check(pos, pos.piece("a"), pos.piece("e"))["allowed"]


def test_contact_flank_needs_a_front_corner_at_the_targets_corner():
    """§3.5 / E9 flank contact is legal only with the attacker's front corner at the target's front corner."""
    # target faces north, its right flank edge is x = 120 from y 90 to 110; attacker faces west
    legal = make(el("t", "r", "Li", 100, 100), el("a", "b", "Li", 130, 90, 270))
    c = contact(legal, legal.piece("a"), legal.piece("t"))
    assert (c.kind, c.edge, c.valid) == ("flank", "right", True)
    illegal = make(el("t", "r", "Li", 100, 100), el("a", "b", "Li", 130, 80, 270))
    c2 = contact(illegal, illegal.piece("a"), illegal.piece("t"))
    assert c2.kind == "flank" and not c2.valid


def test_contact_rear():
    """§3.5 front edge against the rear edge."""
    pos = make(el("t", "r", "Li", 100, 100), el("a", "b", "Li", 100, 80, 0))
    c = contact(pos, pos.piece("a"), pos.piece("t"))
    assert (c.kind, c.valid) == ("rear", True)


def test_contact_corner_only():
    """§3.5 touching only at a corner is no contact for melee."""
    pos = make(el("a", "b", "Li", 100, 100), el("e", "r", "Li", 130, 130, 90))
    assert contact(pos, pos.piece("a"), pos.piece("e")).kind == "corner"


def test_overlap_front_corner_to_front_corner():
    """§3.5 side by side, facing opposite ways, front corners touching."""
    pos = make(el("a", "b", "Li", 140, 100), el("e", "r", "Li", 100, 120, 180))
    c = contact(pos, pos.piece("a"), pos.piece("e"))
    assert c.kind == "overlap"


def test_overlap_when_flanks_touch():
    """§3.5 opposing elements whose flanks touch always overlap."""
    pos = make(el("a", "b", "Li", 140, 100, 0), el("e", "r", "Li", 100, 100, 180))
    assert contact(pos, pos.piece("a"), pos.piece("e")).kind == "overlap"


def test_bases_overlapping_each_other_are_flagged():
    """§3.6 elements may not overlap each other."""
    pos = make(el("a", "b", "Li", 100, 100), el("e", "r", "Li", 100, 115, 180))
    assert analyze_pair(pos, "a", "e")["bases_overlap"]


def test_group_full_edge_contact_same_facing():
    """§3.3 side to side or front to rear, same facing."""
    pos = make(el("a", "b", "Li", 100, 100), el("c", "b", "Li", 140, 100), el("d", "b", "Li", 140, 80),
               el("x", "b", "Li", 180, 100, 10), el("y", "b", "Li", 300, 100))
    assert groups(pos)[0] == ["a", "c", "d"]


def test_zone_of_control_one_bb_in_front():
    """§3.4 within 1 BB in front of the enemy's front edge; A29 widened option."""
    pos = make(el("e", "r", "Li", 100, 100, 0), el("a", "b", "Li", 100, 140, 180), el("s", "b", "Li", 150, 125, 180))
    e = pos.piece("e")
    assert in_zoc(pos, pos.piece("a"), e)
    assert not in_zoc(pos, pos.piece("s"), e)
    wide = OPTS.with_values({"zoc_extent": "widened"})
    assert in_zoc(pos, pos.piece("s"), e, wide)


def test_tolerance_setting_decides_touching():
    """§13 contacts within the tolerance; a bigger gap is no contact."""
    pos = make(el("a", "b", "Li", 100, 100), el("e", "r", "Li", 100, 121.2, 180))
    assert contact(pos, pos.piece("a"), pos.piece("e")).kind == "front"
    assert contact(pos, pos.piece("a"), pos.piece("e"), OPTS.with_values({"tolerance_mm": 1.0})).kind is None


# ---------------------------------------------------------------- §3.7 terrain


def test_partly_in_bad_going_counts_as_wholly():
    """§3.7 an element partly in bad going is wholly in it."""
    pos = make(el("a", "b", "Li", 100, 100), terrain=[rect_terrain("w", "wood", 115, 50, 200, 150)])
    assert going(pos, pos.piece("a")) == "bad"


def test_dunes_are_bad_going_except_for_camels():
    """§3.7 dunes."""
    t = [rect_terrain("d", "dunes", 0, 0, 300, 300)]
    pos = make(el("a", "b", "Li", 100, 100), el("k", "b", "Km", 200, 100), terrain=t)
    assert going(pos, pos.piece("a")) == "bad" and going(pos, pos.piece("k")) == "good"


def test_gentle_hills_and_fields_are_good_going():
    """§3.7 gentle hills and fields are not bad going; steep hills are."""
    t = [rect_terrain("h", "gentle_hill", 0, 0, 150, 150), rect_terrain("f", "fields", 150, 0, 300, 150),
         rect_terrain("s", "steep_hill", 300, 0, 450, 150)]
    pos = make(el("a", "b", "Li", 75, 75), el("c", "b", "Li", 225, 75), el("d", "b", "Li", 375, 75), terrain=t)
    assert [going(pos, pos.piece(i)) for i in "acd"] == ["good", "good", "bad"]


def test_weather_mud_and_snow_make_open_ground_bad():
    """§9.2 S: open ground difficult; snow: the whole table."""
    for w in ("S", "S+R", "snow"):
        pos = make(el("a", "b", "Li", 100, 100), game={"weather": w})
        assert going(pos, pos.piece("a")) == "bad"


def test_uphill_front_edge_higher():
    """§3.7 a front edge partly higher than the enemy's whole front edge."""
    t = [{"id": "h", "type": "gentle_hill", "polygon": [[0, 0], [300, 0], [300, 100], [0, 100]],
          "crest": [[0, 20], [300, 20]]}]
    a = el("a", "b", "Li", 100, 50, 0)
    pos = make(a, facing("e", "r", "Li", a), terrain=t)
    assert higher(pos, pos.piece("a"), pos.piece("e"))
    assert not higher(pos, pos.piece("e"), pos.piece("a"))


# ---------------------------------------------------------------- §6 sight and fire, §7 ranges


def test_fire_zone_is_three_base_widths_wide():
    """§6.1 the zone ahead of the front edge widened by 1 BB each side (partly inside is enough, A5)."""
    pos = make(el("a", "b", "Li", 100, 100), el("in", "r", "Li", 175, 140, 180), el("out", "r", "Li", 205, 140, 180))
    assert fire_target_check(pos, pos.piece("a"), pos.piece("in"))[0]
    assert not fire_target_check(pos, pos.piece("a"), pos.piece("out"))[0]
    wholly = OPTS.with_values({"fire_zone_target": "wholly"})
    assert not fire_target_check(pos, pos.piece("a"), pos.piece("in"), wholly)[0]


@pytest.mark.parametrize("code,paces", [(k, v.range_paces) for k, v in UNIT_TYPES.items()])
def test_ranges_of_the_troop_type_table(code, paces):
    """§7 every range of the table."""
    pos = make(el("a", "b", code if code not in ("DrI", "DrK") else "Dr", 100, 100,
                  mode="mounted_infantry" if code == "DrI" else None) if code in ("DrI", "DrK")
               else el("a", "b", code, 100, 100))
    if code in ("DrI", "DrK"):
        pos = make(el("a", "b", "Dr", 100, 100, mode="mounted_infantry" if code == "DrI" else "cavalry"))
    assert fire_range(pos, pos.piece("a"))[0] == paces


def test_culloden_guns_range_700():
    """§7 a list's own range overrides (English guns at Culloden)."""
    pos = make(el("a", "b", "Art", 100, 100, range_paces=700))
    assert fire_range(pos, pos.piece("a"))[0] == 700


def test_must_shoot_at_the_nearest_target():
    """§6.11 the nearest eligible target."""
    pos = make(el("a", "b", "Li", 100, 100), el("n", "r", "Li", 160, 150, 180), el("f", "r", "Li", 60, 170, 180))
    assert fire_target_check(pos, pos.piece("a"), pos.piece("n"))[0]
    ok, why = fire_target_check(pos, pos.piece("a"), pos.piece("f"))
    assert not ok and "nearest" in why


def test_artillery_may_ignore_jaeger():
    """§6.3 guns shoot past Jäger at targets behind them."""
    pos = make(el("g", "b", "Art", 100, 100), el("j", "r", "Jä", 100, 160, 180), el("l", "r", "Li", 100, 260, 180))
    assert fire_target_check(pos, pos.piece("g"), pos.piece("l"))[0]
    pos2 = make(el("g", "b", "Li", 100, 100), el("j", "r", "Jä", 100, 130, 180), el("l", "r", "Li", 100, 150, 180))
    assert not fire_target_check(pos2, pos2.piece("g"), pos2.piece("l"))[0]


def test_wood_blocks_line_of_sight():
    """§6.2 wood, oasis and settlement block."""
    for kind in ("wood", "oasis", "settlement"):
        pos = make(el("a", "b", "Art", 100, 100), el("e", "r", "Li", 100, 300, 180),
                   terrain=[rect_terrain("t", kind, 0, 180, 300, 220)])
        seen, blk = line_of_sight(pos, pos.piece("a"), pos.piece("e"))
        assert not seen and blk == ["t"]


def test_hill_crest_blocks_fire():
    """§3.7 hill crests block fire; option crest_blocks = never."""
    t = [{"id": "h", "type": "gentle_hill", "polygon": [[0, 150], [300, 150], [300, 250], [0, 250]],
          "crest": [[0, 200], [300, 200]]}]
    pos = make(el("a", "b", "Art", 100, 100), el("e", "r", "Li", 100, 300, 180), terrain=t)
    assert line_of_sight(pos, pos.piece("a"), pos.piece("e")) == (False, ["h"])
    assert line_of_sight(pos, pos.piece("a"), pos.piece("e"), OPTS.with_values({"crest_blocks": "never"}))[0]


def test_troops_block_unless_shooter_is_elevated():
    """§6.2 intervening troops block unless the shooter stands higher."""
    pieces = (el("a", "b", "Art", 100, 100), el("m", "b", "Li", 100, 200), el("e", "r", "Li", 100, 300, 180))
    assert line_of_sight(make(*pieces), make(*pieces).piece("a"), make(*pieces).piece("e")) == (False, ["m"])
    hill = [{"id": "h", "type": "gentle_hill", "polygon": [[0, 40], [300, 40], [300, 160], [0, 160]],
             "crest": [[0, 110], [300, 110]]}]
    pos = make(*pieces, terrain=hill)
    assert line_of_sight(pos, pos.piece("a"), pos.piece("e"))[0]


def test_in_melee_front_to_front_cannot_shoot():
    """§6.12."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Li", a), el("f", "r", "Li", 150, 140, 180))
    assert "melee" in fire_target_check(pos, pos.piece("a"), pos.piece("f"))[1]


def test_clansmen_need_saved_pips_and_never_return_fire():
    """§5.1 / §2.1 Ck."""
    pos = make(el("c", "b", "Ck", 100, 100), el("e", "r", "Li", 100, 150, 180), game={"active": "b"})
    assert not fire_target_check(pos, pos.piece("c"), pos.piece("e"))[0]
    pos = make(el("c", "b", "Ck", 100, 100, saved_pips=1), el("e", "r", "Li", 100, 150, 180), game={"active": "b"})
    assert fire_target_check(pos, pos.piece("c"), pos.piece("e"))[0]
    pos = make(el("c", "b", "Ck", 100, 100, saved_pips=1), el("e", "r", "Li", 100, 150, 180), game={"active": "r"})
    assert not fire_target_check(pos, pos.piece("c"), pos.piece("e"))[0]


def test_square_shoots_all_round():
    """§5.11 a square has a 360-degree field of fire."""
    pos = make(el("s", "b", "Li", 100, 100, square=1), el("e", "r", "Hu", 100, 60, 0))
    assert fire_target_check(pos, pos.piece("s"), pos.piece("e"))[0]


def test_rain_limits_bows_to_one_base_width():
    """§9.2 / A8 rain: bows do not shoot beyond 1 BB."""
    pos = make(el("a", "b", "Bo", 100, 100), el("l", "b", "Li", 200, 100), game={"weather": "R"})
    assert fire_range(pos, pos.piece("a"))[0] == 160 and fire_range(pos, pos.piece("l"))[0] == 200


# ---------------------------------------------------------------- §8 combat factors and modifiers


def test_combat_factors_against_foot_and_mounted():
    """§8.1 the factor against the opponent's class; Art 2 in melee."""
    pos = make(el("b", "b", "Bo", 0, 0), el("k", "r", "Kü", 100, 0), el("l", "r", "Li", 200, 0),
               el("g", "r", "Art", 300, 0))
    b, k, lin, g = (pos.piece(i) for i in "bklg")
    assert combat_factor(b, k, "melee") == 4 and combat_factor(b, lin, "melee") == 2
    assert combat_factor(g, lin, "fire") == 3 and combat_factor(g, lin, "melee") == 2


def test_no_factor_below_zero():
    """§8.1 max(0, KF + modifiers) + die."""
    a = el("j", "b", "Jä", 100, 100, quality="Fr")
    pos = make(a, facing("e", "r", "Kü", a), terrain=[rect_terrain("m", "marsh", 0, 0, 300, 300)],
               game={"demoralised": ["b"]})
    s = melee_side(pos, pos.piece("j"), pos.piece("e"))
    assert s.cf + s.net < 0 and s.total(3) == 3


def test_fire_factor_flank_fire():
    """§8.3 +2 when the shooter is entirely behind the line of the target's front edge."""
    pos = make(el("a", "b", "Li", 100, 100, 90), el("e", "r", "Li", 160, 130, 0))
    f = fire_check(pos, pos.piece("a"), pos.piece("e"))
    assert f["allowed"] and "flank fire: shooter behind the line of the target's front" in _rules(f["modifiers"])


def test_fire_factors_artillery_range_bands_and_mounted_target():
    """§8.3 guns +1 within 300 paces, -1 beyond half range; +1 target mounted (A6: shooter)."""
    near = make(el("g", "b", "Art", 100, 100), el("e", "r", "Hu", 100, 170, 180))
    f = fire_check(near, near.piece("g"), near.piece("e"))
    assert f["net_modifier"] == 2
    far = make(el("g", "b", "Art", 100, 100), el("e", "r", "Li", 100, 280, 180))
    assert fire_check(far, far.piece("g"), far.piece("e"))["net_modifier"] == -1
    alt = fire_check(near, near.piece("g"), near.piece("e"), OPTS.with_values({"mounted_target_bonus_to": "target"}))
    assert alt["net_modifier"] == 1 and alt["target_net"] == 1


def test_fire_factor_square_under_artillery_fire():
    """§8.3 -1 to a square under artillery fire."""
    pos = make(el("g", "b", "Art", 100, 100), el("s", "r", "Li", 100, 200, 180, square=1))
    assert "square under artillery fire" in _rules(fire_check(pos, pos.piece("g"), pos.piece("s"))["target_modifiers"])


def test_fire_factor_cover_when_fire_is_exchanged():
    """§8.3 +1 in cover when fire is exchanged (A6)."""
    pos = make(el("a", "b", "Li", 100, 110), el("e", "r", "Li", 100, 150, 180),
               terrain=[rect_terrain("s", "settlement", 60, 130, 140, 200)])
    f = fire_check(pos, pos.piece("a"), pos.piece("e"))
    assert f["target_shoots_back"] and "in cover, fire exchanged" in _rules(f["target_modifiers"])


def test_supporting_shooters_give_the_target_minus_one_each():
    """§8.2 / §8.3 up to 2 more shooters, -1 each to the target."""
    pos = make(el("a", "b", "Li", 100, 100), el("s1", "b", "Li", 60, 100), el("s2", "b", "Li", 140, 100),
               el("e", "r", "Li", 100, 150, 180))
    res = resolve.resolve_fire(pos, "a", "e", dice(3, 3), ["s1", "s2"])
    assert res.sides["target_side"]["net_modifier"] == -2


def test_melee_factor_general_in_flank_contact():
    """§8.4 +1 own general in flank contact."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Li", a), el("g", "b", "Gen", 130, 100))
    assert "own general g in flank contact" in _rules(melee_check(pos, pos.piece("a"), pos.piece("e"))["modifiers"])


def test_melee_factor_line_infantry_rear_support():
    """§8.4 +1 Li supported by Li directly behind in good going."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Li", a), el("s", "b", "Li", 100, 80))
    assert melee_check(pos, pos.piece("a"), pos.piece("e"))["net_modifier"] == 1


def test_melee_factor_cavalry_first_round():
    """§8.4 attacking uhlans +2, other cavalry +1 in the 1st round."""
    for code, bonus in (("Ul", 2), ("Kü", 1), ("Hu", 1)):
        a = el("a", "b", code, 100, 100, charged=True)
        pos = make(a, facing("e", "r", "Li", a))
        assert melee_check(pos, pos.piece("a"), pos.piece("e"))["net_modifier"] == bonus


def test_melee_factor_overlaps_one_per_flank():
    """§8.4 -1 per enemy overlap or flank contact; §3.5 one per flank."""
    a = el("x", "r", "Li", 100, 120, 180)
    pos = make(a, el("b", "b", "Li", 100, 100), el("l", "b", "Li", 140, 100), el("r", "b", "Li", 60, 100))
    m = melee_check(pos, pos.piece("b"), pos.piece("x"))
    assert m["target_net"] == -2


def test_melee_factor_foot_attacked_from_rear_by_mounted():
    """§8.4 -2 foot attacked from the rear by mounted, plus -1 for the rear contact."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Li", a), el("k", "r", "Kü", 100, 75, 0))
    assert melee_check(pos, pos.piece("e"), pos.piece("a"))["target_net"] == -3


def test_melee_factor_bad_going_except_light_foot_and_warriors():
    """§8.4 -2 in bad going except light foot and tribal warriors (A15)."""
    t = [rect_terrain("r", "rough", 0, 0, 600, 95)]
    for code, mod in (("Li", -2), ("Jä", 0), ("St", 0), ("Hi", 0), ("Kü", -2)):
        a = el("a", "b", code, 100, 80)
        pos = make(a, facing("e", "r", "Li", a), terrain=t)
        assert melee_check(pos, pos.piece("a"), pos.piece("e"))["net_modifier"] == mod, code


def test_melee_factor_grenadiers_and_militia():
    """§8.1 Gr +1 in melee, Fr -1."""
    a = el("a", "b", "Li", 100, 100, quality="Gr")
    pos = make(a, facing("e", "r", "Li", a, quality="Fr"))
    m = melee_check(pos, pos.piece("a"), pos.piece("e"))
    assert m["net_modifier"] == 1 and m["target_net"] == -1


def test_melee_factor_defender_uphill():
    """§8.4 +1 defender of elevated positions."""
    t = [{"id": "h", "type": "gentle_hill", "polygon": [[0, 0], [300, 0], [300, 100], [0, 100]],
          "crest": [[0, 20], [300, 20]]}]
    a = el("a", "b", "Li", 100, 50, 0)
    pos = make(a, facing("e", "r", "Li", a, charged=True), terrain=t)
    assert melee_check(pos, pos.piece("e"), pos.piece("a"))["target_net"] == 1


def test_melee_factor_artillery_attacked_in_flank_by_mounted():
    """§8.4 -1 artillery attacked in rear or flank by mounted (plus -1 for the flank contact)."""
    g = el("g", "b", "Art", 100, 100)
    pos = make(g, facing("e", "r", "Li", g), el("k", "r", "Kü", 135, 100, 270))
    assert melee_check(pos, pos.piece("e"), pos.piece("g"))["target_net"] == -2


def test_melee_demoralised_command_minus_two():
    """§9.6 -2 for an element of a demoralised command."""
    a = el("a", "b", "Li", 100, 100, command="c1")
    pos = make(a, facing("e", "r", "Li", a), game={"demoralised": ["c1"]})
    assert melee_check(pos, pos.piece("a"), pos.piece("e"))["net_modifier"] == -2


def test_artillery_and_generals_may_not_move_into_contact():
    """§5.7."""
    pos = make(el("g", "b", "Art", 100, 100), el("e", "r", "Li", 100, 200, 180))
    chk = movement.check_move(pos, "g", [(100, 170)], None)
    assert not chk["legal"] and any("may not move into contact" in p for p in chk["problems"])


def test_flank_contact_turns_the_target_to_face():
    """§3.5 a flank-contacted element turns to face at the end of the movement phase."""
    pos = make(el("t", "r", "Li", 100, 100), el("a", "b", "Li", 130, 90, 270))
    after = movement.turn_to_face(pos, "t", "a")
    c = contact(after, after.piece("a"), after.piece("t"))
    assert (c.kind, c.valid) == ("front", True)


# ---------------------------------------------------------------- §8.5 results


def test_results_band_half_or_less():
    """§8.5 lower but more than half = band 1; half or less = band 2; ties nothing (A3)."""
    assert (band(4, 7), band(3, 6), band(3, 7), band(5, 5)) == (1, 2, 2, 0)


RESULTS = [
    # loser, winner, phase, band totals (loser, winner), going, expected
    ("Li", "Kü", "melee", (6, 8), "good", "destroyed"),
    ("Li", "Kü", "melee", (6, 8), "bad", "recoil"),
    ("Li", "St", "melee", (6, 8), "bad", "destroyed"),
    ("Li", "Li", "fire", (6, 7), "good", "recoil"),
    ("St", "Art", "fire", (6, 8), "good", "flee"),
    ("St", "El", "melee", (6, 8), "bad", "destroyed"),
    ("Jä", "Kü", "melee", (6, 8), "good", "destroyed"),
    ("Jä", "Art", "fire", (6, 8), "good", "flee"),
    ("Ck", "Hu", "melee", (6, 8), "good", "destroyed"),
    ("Hi", "Li", "melee", (6, 8), "good", "recoil"),
    ("Bo", "Hu", "melee", (6, 8), "bad", "destroyed"),
    ("DrI", "Li", "fire", (6, 8), "good", "flee"),
    ("Pk", "El", "melee", (6, 8), "good", "destroyed"),
    ("Art", "Li", "melee", (6, 8), "good", "destroyed"),
    ("Art", "Li", "fire", (6, 8), "good", "none"),
    ("Kü", "Hu", "melee", (6, 8), "good", "destroyed"),
    ("Kü", "Li", "melee", (6, 8), "bad", "destroyed"),
    ("Hu", "Kü", "melee", (6, 8), "good", "recoil"),
    ("El", "Pl", "melee", (6, 8), "good", "destroyed"),
    ("Re", "Art", "melee", (6, 8), "good", "destroyed"),
    ("Re", "Li", "melee", (6, 8), "bad", "flee"),
    ("Gen", "Li", "melee", (6, 8), "good", "flee"),
    ("LR", "Hu", "melee", (3, 8), "good", "destroyed"),
    ("LR", "Li", "fire", (3, 8), "good", "flee"),
    ("Jä", "Hi", "melee", (3, 8), "good", "destroyed"),
    ("Jä", "Li", "fire", (3, 8), "good", "flee"),
    ("DrI", "Li", "melee", (3, 8), "good", "flee"),
    ("DrI", "Kü", "melee", (3, 8), "good", "destroyed"),
    ("Gen", "Art", "fire", (3, 8), "good", "destroyed"),
    ("Li", "Art", "melee", (3, 8), "good", "recoil"),
    ("Li", "Li", "melee", (3, 8), "good", "destroyed"),
]


@pytest.mark.parametrize("loser,winner,phase,totals,ground,expected", RESULTS)
def test_results_table_rows(loser, winner, phase, totals, ground, expected):
    """§8.5 both bands by troop type."""
    def e(pid, code, x):
        d = el(pid, pid, "Dr" if code == "DrI" else code, x, 100)
        if code == "DrI":
            d["mode"] = "mounted_infantry"
        return d

    t = [rect_terrain("r", "rough", 0, 0, 100, 200)] if ground == "bad" else []
    pos = make(e("l", loser, 50), e("w", winner, 300), terrain=t)
    assert outcome(pos, pos.piece("l"), pos.piece("w"), phase, *totals)[0] == expected


def test_square_results():
    """§8.5 square: band 1 destroyed by foot in contact, otherwise no effect; band 2 destroyed."""
    pos = make(el("s", "b", "Li", 100, 100, square=1), el("k", "r", "Kü", 300, 100), el("f", "r", "Li", 400, 100))
    s, k, f = pos.piece("s"), pos.piece("k"), pos.piece("f")
    assert outcome(pos, s, k, "melee", 6, 8)[0] == "none"
    assert outcome(pos, s, f, "melee", 6, 8)[0] == "destroyed"
    assert outcome(pos, s, k, "melee", 4, 8)[0] == "destroyed"


def test_shooter_not_shot_back_ignores_adverse_results():
    """§8.2 a shooter not being shot back at ignores all adverse results."""
    pos = make(el("a", "b", "Li", 100, 100), el("e", "r", "Kü", 100, 150, 180))
    res = resolve.resolve_fire(pos, "a", "e", dice(1, 6))
    assert res.outcome["result"] == "none" and not res.changes


# ---------------------------------------------------------------- §8.6 reaction moves


def test_recoil_moves_back_one_own_base_depth():
    """§8.6 recoil: its own base depth without turning."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Kü", a))
    res = resolve.resolve_melee(pos, "a", "e", dice(6, 4))
    assert res.outcome["result"] == "recoil"
    e = res.after.piece("e")
    assert (round(e.x_mm, 3), round(e.y_mm, 3), e.heading_deg) == (100, 155, 180)


def test_recoil_into_enemy_destroys():
    """§8.6 destroyed if it has enemies both in front and behind."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Li", a), el("z", "b", "Hu", 100, 150, 180))
    res = resolve.resolve_melee(pos, "a", "e", dice(6, 5))
    assert res.outcome["applied"] == "destroyed" and "e" not in res.after.by_id


def test_recoil_pushes_friends_facing_the_same_way():
    """§8.6 friends met are pushed back if they face the same or opposite direction."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Li", a), el("f", "r", "Kl", 100, 140, 180))
    res = resolve.resolve_melee(pos, "a", "e", dice(6, 5))
    assert res.after.piece("e").y_mm == pytest.approx(140) and res.after.piece("f").y_mm == pytest.approx(160)
    assert [c["change"] for c in res.changes] == ["pushed", "recoil"]


def test_mounted_recoil_through_friends_except_line_infantry():
    """§5.6 / §8.6 mounted may recoil through friends, except line infantry."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("k", "r", "Hu", a), el("f", "r", "Kl", 100, 155, 90))
    res = resolve.resolve_melee(pos, "a", "k", dice(6, 5))
    assert res.outcome["applied"] == "recoil"
    pos = make(a, facing("k", "r", "Hu", a), el("f", "r", "Li", 100, 165, 90))
    assert resolve.resolve_melee(pos, "a", "k", dice(6, 5)).outcome["applied"] == "destroyed"


def test_flight_turns_and_moves_the_full_distance():
    """§8.6 back 1 base depth, turn 180, then its full move distance."""
    a = el("g", "b", "Art", 100, 100)
    pos = make(a, el("s", "r", "St", 100, 300, 180))
    res = resolve.resolve_fire(pos, "g", "s", dice(6, 4))
    s = res.after.piece("s")
    assert res.outcome["result"] == "flee"
    assert s.heading_deg == 0 and s.y_mm == pytest.approx(300 + 20 + 75)


def test_flight_off_the_table_is_lost():
    """§8.6 elements that flee off the table are lost."""
    pos = make(el("g", "b", "Art", 100, 100), el("s", "r", "St", 100, 330, 180), depth=400)
    res = resolve.resolve_fire(pos, "g", "s", dice(6, 4))
    assert res.outcome["applied"] == "lost" and "s" not in res.after.by_id


def test_impetuous_winner_pursues_one_base_depth():
    """§8.6 cuirassiers, clansmen, tribal warriors, guerrillas pursue."""
    a = el("k", "b", "Kü", 100, 100)
    pos = make(a, facing("e", "r", "Hu", a))
    res = resolve.resolve_melee(pos, "k", "e", dice(6, 6))
    assert res.outcome["applied"] == "recoil"
    assert res.after.piece("k").y_mm == pytest.approx(130)
    assert res.changes[-1]["change"] == "pursue"


def test_misfire_recoils_friends_behind_the_target():
    """§8.3 friends within 1 BB behind a target that recoils, in range or in contact, recoil too."""
    pos = make(el("a", "b", "Li", 100, 100), el("e", "r", "Li", 100, 150, 180), el("f", "r", "Kl", 100, 170, 180))
    res = resolve.resolve_fire(pos, "a", "e", dice(6, 2))
    assert "misfire_recoil" in [c["change"] for c in res.changes]


# ---------------------------------------------------------------- §5 movement


def test_move_distances_by_type_and_going():
    """§5.3 the table; 100 paces with the front edge in a non-shallow river; squares 100."""
    t = [rect_terrain("w", "wood", 0, 0, 100, 100), {"id": "rv", "type": "river", "line": [[0, 300], [600, 300]],
                                                     "width_mm": 20}]
    pos = make(el("a", "b", "Li", 50, 50), el("c", "b", "Li", 200, 50), el("h", "b", "Hu", 300, 50),
               el("r", "b", "Hu", 300, 285), el("s", "b", "Li", 450, 50, square=1), terrain=t)
    got = {i: movement.allowance(pos, pos.piece(i))[0] for i in "achrs"}
    assert got == {"a": 100, "c": 200, "h": 500, "r": 100, "s": 100}


def test_move_measured_by_the_farthest_front_corner():
    """§5.4 the front corner that travels farthest; none of the 4 corners beyond the allowance."""
    pos = make(el("a", "b", "Li", 100, 100))
    ok = movement.check_move(pos, "a", [(100, 150)], None)
    assert ok["legal"] and ok["front_corner_paces"] == 200
    far = movement.check_move(pos, "a", [(100, 152)], None)
    assert not far["legal"]


def test_pip_costs():
    """§5.1 1 PIP; +1 elephants; +1 beyond 1200 paces of the general; none in the first bound (A1)."""
    pos = make(el("g", "b", "Gen", 10, 10), el("e", "b", "El", 100, 100), el("l", "b", "Li", 500, 500))
    assert movement.pip_cost(pos, pos.piece("e"))[0] == 2
    assert movement.pip_cost(pos, pos.piece("l"))[0] == 2
    first = make(el("g", "b", "Gen", 10, 10), el("e", "b", "El", 100, 100), game={"first_bound": ["b"]})
    assert movement.pip_cost(first, first.piece("e"))[0] == 1
    none = OPTS.with_values({"extra_pip_costs": "none"})
    assert movement.pip_cost(pos, pos.piece("e"), none)[0] == 1


def test_pip_cost_out_of_sight_of_the_general():
    """§5.1 more than 600 paces and out of sight."""
    t = [rect_terrain("w", "wood", 0, 150, 600, 250)]
    pos = make(el("g", "b", "Gen", 100, 50), el("l", "b", "Li", 100, 300), terrain=t)
    cost, why = movement.pip_cost(pos, pos.piece("l"))
    assert cost == 2 and "out of sight" in why[-1]


def test_second_moves():
    """§5.5 light cavalry far from the enemy may move again; line infantry may not."""
    pos = make(el("h", "b", "Hu", 100, 100, moves=1), el("l", "b", "Li", 300, 100, moves=1),
               el("e", "r", "Li", 500, 500, 180))
    assert movement.check_move(pos, "h", [(100, 200)], None)["legal"]
    assert not movement.check_move(pos, "l", [(300, 120)], None)["legal"]


def test_interpenetration_of_friends():
    """§5.6 light troops pass friends facing the same or opposite way; line infantry does not."""
    pos = make(el("j", "b", "Jä", 100, 100), el("l", "b", "Li", 100, 130), el("k", "b", "Li", 300, 100),
               el("m", "b", "Li", 300, 130, 90))
    assert movement.check_move(pos, "j", [(100, 160)], None)["legal"]
    assert not movement.check_move(pos, "k", [(300, 160)], None)["legal"]


def test_moving_into_an_enemy_zone_of_control_must_align():
    """§3.4 a move ending in an enemy front zone must leave the intruder parallel and opposite."""
    pos = make(el("e", "r", "Li", 100, 300, 180), el("a", "b", "Li", 100, 230, 0))
    assert movement.check_move(pos, "a", [(100, 265)], 0)["legal"]
    bad = movement.check_move(pos, "a", [(100, 265)], 15)
    assert not bad["legal"] and "zone of control" in bad["problems"][0]


def test_river_type_roll_and_torrent_crossing():
    """§5.9 the first crossing decides the river; a torrent needs 3+."""
    pos = make(el("a", "b", "Li", 100, 100))
    r = resolve.resolve_river(pos, "a", dice(6, 2))
    assert r.after.game.river == "torrent" and r.after.game.crossing_stopped
    with pytest.raises(InputError):
        resolve.resolve_river(r.after, "a", dice(5))
    assert resolve.resolve_river(pos, "a", dice(1)).after.game.river == "shallow"


def test_forming_a_square():
    """§5.11 a 2-element square: the partner back to back, 2 markers."""
    pos = make(el("a", "b", "Li", 100, 100), el("c", "b", "Li", 200, 100))
    after = movement.form_square(pos, "a", "c")
    c = after.piece("c")
    assert (c.square, c.heading_deg, c.x_mm, c.y_mm) == (2, 180, 100, 80)


def test_line_infantry_exchanged_for_two_jaeger():
    """§5.10 1 Li <-> 2 Jä, not in contact with the enemy."""
    pos = make(el("a", "b", "Li", 100, 100))
    two = movement.swap_line_jaeger(pos, "a")
    assert sorted(p.type for p in two.pieces) == ["Jä", "Jä"]
    back = movement.swap_line_jaeger(two, "a")
    assert [p.type for p in back.pieces] == ["Li"]


# ---------------------------------------------------------------- §9 game level


def test_victory_one_third_and_more_than_the_enemy():
    """§9.3 A2: >= 1/3 lost AND more than the enemy; the literal "or" as an option."""
    pieces = [el(f"b{i}", "b", "Li", 50 * i + 20, 100) for i in range(8)] + [el("r1", "r", "Li", 100, 500)]
    pos = make(*pieces, game={"lost": {"b": 4, "r": 3}, "start": {"b": 12, "r": 12}})
    assert resolve.victory(pos)["loser"] == "b"
    pos2 = make(*pieces, game={"lost": {"b": 1, "r": 0}, "start": {"b": 12, "r": 12}})
    assert resolve.victory(pos2)["loser"] is None
    assert resolve.victory(pos2, OPTS.with_values({"victory_rule": "or"}))["loser"] == "b"


def test_demoralised_command_lost_general_or_third():
    """§9.6 a command without its general, or with a third of its elements lost."""
    pos = make(el("a", "b", "Li", 100, 100, command="c1"), el("g2", "b", "Gen", 200, 100, command="c2"),
               el("b", "b", "Li", 300, 100, command="c2"), game={"lost": {"c2": 2}, "start": {"c2": 6}})
    assert resolve.demoralised(pos) == ["c1", "c2"]


def test_weather_table():
    """§9.2 1D6 +1 spring/autumn, +2 winter."""
    assert weather_roll("western_central_europe", "winter", 6) == "E"
    assert weather_roll("western_central_europe", "summer", 4) == "B"
    assert weather_roll("sahel_south_asia_americas", "spring", 1) == "S+R"


def test_army_lists():
    """§9.7 the lists, 12 elements, the Seven Years' War cuirassier rule."""
    assert check_army(find_list("Schotten"), ["Ck"] * 9 + ["Li", "Dr", "LR"]) == []
    prussia = find_list("Preussen", "seven_years_war")
    assert check_army(prussia, ["Li"] * 8 + ["Dr", "Kü", "Hu", "Art"]) == []
    assert any("cuirassiers" in p for p in check_army(prussia, ["Li"] * 8 + ["Kü", "Kü", "Hu", "Art"]))
    assert check_army(prussia, ["Li"] * 11)


def test_options_file_and_bad_values(tmp_path):
    """§11: every ambiguity is an option; bad values are one-line errors naming the file."""
    f = tmp_path / "house.toml"
    f.write_text('victory_rule = "or"\ntolerance_mm = 2\n')
    o = load_options(f)
    assert o.victory_rule == "or" and o.tolerance_mm == 2.0
    f.write_text('victory_rule = "maybe"\n')
    with pytest.raises(InputError, match="house.toml"):
        load_options(f)


def test_bad_position_input_is_one_line():
    """Bad input -> InputError naming the piece and the problem."""
    with pytest.raises(InputError, match="piece 'x': unknown element type 'Zz'"):
        make(el("x", "b", "Zz", 1, 1))
    with pytest.raises(InputError, match="terrain 't'"):
        make(terrain=[{"id": "t", "type": "lava", "polygon": [[0, 0], [1, 0], [1, 1]]}])
    with pytest.raises(InputError, match="x_mm"):
        make({"id": "y", "side": "b", "type": "Li", "x_mm": "a", "y_mm": 1, "heading_deg": 0})


def test_whole_picture_for_one_element():
    """analyze_from: going, allowance, group, fire targets, contacts, zones."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Li", a), el("f", "r", "Li", 300, 160, 180))
    out = analyze_from(pos, "a")
    assert out["contacts"] == [{"piece": "e", "side": "r", "contact": "front", "edge": "front", "valid": True,
                                "uncertain": False}]
    assert out["in_zone_of_control_of"] == ["e"] and out["move_allowance_paces"] == 200
    assert distance_mm(pos, pos.piece("a"), pos.piece("e")) == 0


def test_withdrawing_from_melee():
    """§5.8 only from a simple front contact, straight back, the full move, not into a zone of control."""
    a = el("a", "b", "Li", 100, 100)
    pos = make(a, facing("e", "r", "Li", a))
    assert movement.check_move(pos, "a", [(100, 50)], None)["legal"]
    short = movement.check_move(pos, "a", [(100, 80)], None)
    assert not short["legal"] and any("full" in p for p in short["problems"])
    flanked = make(a, facing("e", "r", "Li", a), el("k", "r", "Li", 130, 90, 270))
    assert any("flank or rear" in p for p in movement.check_move(flanked, "a", [(100, 50)], None)["problems"])


def test_setup_aggression_deployment_and_terrain():
    """§4.1 aggression (factors only if both have one), deployment depth and side edges; §3.7 / §9.1 terrain."""
    assert setup.aggression({"a": 3, "b": 5}, {"a": 3, "b": None})["defender"] == "a"
    assert setup.aggression({"a": 3, "b": 5}, {"a": 3, "b": 0})["defender"] == "b"
    pos = make(el("x", "b", "Li", 300, 100), el("y", "b", "Li", 50, 100), el("z", "b", "Li", 300, 200))
    probs = setup.deployment_problems(pos, "b", "south")
    assert any(p.startswith("y:") for p in probs) and any(p.startswith("z:") for p in probs)
    assert not any(p.startswith("x:") for p in probs)
    long = make(terrain=[rect_terrain("w", "wood", 0, 0, 330, 50)])
    assert setup.terrain_problems(long, "Waldland") == ["w: length + width over 9 BB (§3.7)",
                                                          "w: longer than twice its width (§3.7)"]
    assert setup.terrain_problems(make(), "Ackerland") == ["Ackerland: needs fields (§9.1)"]
    assert setup.big_battle_pips([2, 6, 4], "c1", "c3", "c2") == {"c1": 6, "c2": 4, "c3": 2}
