"""DBX rules closed after the first engine: group moves (§5.2), the zone-of-control screen (§3.4), free moves
(§5.4), demoralised flight (§9.6), two flanked enemies turning (§3.5), camp ammunition (§8.8), army lists (§9.7)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from common.errors import InputError
from fieldglass.cli import main
from rules import position as positions
from rules.dbx import movement, resolve
from rules.dbx.contact import contact, groups
from rules.dbx.group_move import _rotate, apply_group_move, check_column_change, check_group_move
from rules.dbx.lists import army_lists, check_army, find_list
from rules.dbx.model import base_size, position_to_dict
from rules.dbx.sight import can_shoot
from rules.dbx.tables import UNIT_TYPES
from tests.rules.test_dbx_helpers import dice, el, facing, make, rect_terrain


def _line(*extra, y=100.0, kinds=("Li", "Li", "Li"), **kw):
    """Three blue elements side by side facing north: l (x 60), m (x 100), r (x 140); front edge at y + 10."""
    ids = ("l", "m", "r")
    return make(*[el(i, "b", k, 60 + 40 * n, y) for n, (i, k) in enumerate(zip(ids, kinds, strict=True))], *extra,
                **kw)


def _wheel_to(deg: float, pivot=(40.0, 110.0), centre=(100.0, 100.0)) -> tuple[float, float]:
    c = np.array(pivot) + _rotate(np.array(centre) - np.array(pivot), deg)
    return float(c[0]), float(c[1])


# ---------------------------------------------------------------- §5.2 group moves


def test_group_moves_straight_ahead_as_one_for_one_pip():
    """§5.1 / §5.2 every member moves parallel by the same distance; one PIP for the group."""
    r = check_group_move(_line(el("g", "b", "Gen", 100, 40)), ["m", "l", "r"], "m", [(100, 140)], [None])
    assert r["legal"] and r["manoeuvres"] == ["straight ahead 160 paces"] and r["pip_cost"] == 1
    assert r["ends"]["l"] == {"x_mm": 60.0, "y_mm": 140.0, "heading_deg": 0.0} and r["still_a_group"]


def test_group_wheel_is_measured_by_the_outer_front_corner_along_its_arc():
    """§5.2 / §5.4 wheeling about a front corner: the outer front corner travels farthest (arc 120 mm x angle)."""
    ok = check_group_move(_line(), ["m", "l", "r"], "m", [_wheel_to(15)], [15])
    assert ok["legal"] and ok["manoeuvres"] == ["wheels 15 degrees about its front-left corner"]
    assert ok["front_corner_paces"] == pytest.approx(4 * 120 * math.radians(15), abs=0.2)
    far = check_group_move(_line(), ["m", "l", "r"], "m", [_wheel_to(30)], [30])
    assert not far["legal"] and "more than 200" in far["problems"][0]


def test_group_wheel_must_turn_about_a_front_corner():
    """§5.2 a group may only move straight ahead or wheel about a front corner (not pivot on its centre)."""
    r = check_group_move(_line(), ["m", "l", "r"], "m", [(100, 100)], [10])
    assert not r["legal"] and "front corners" in r["problems"][0]


def test_group_sideways_only_half_a_base_to_line_up_with_an_enemy_front_within_1_bb():
    """§5.2 sideways up to 1/2 BB, only to conform to an enemy front within 1 BB."""
    enemy = el("x", "r", "Li", 115, 140, 180)  # front edge 20 mm from the group's, offset 15 mm
    ok = check_group_move(_line(enemy), ["m", "l", "r"], "m", [(115, 100)], [None])
    assert ok["legal"] and ok["manoeuvres"][0].startswith("sideways 60 paces")
    alone = check_group_move(_line(), ["m", "l", "r"], "m", [(115, 100)], [None])
    assert not alone["legal"]
    too_far = check_group_move(_line(enemy), ["m", "l", "r"], "m", [(125, 100)], [None])
    assert not too_far["legal"]


def test_group_moves_at_its_slowest_members_rate():
    """§5.2 / §5.3 the same distance for every member: the line infantry's 200 paces bind the Jäger too."""
    r = check_group_move(_line(kinds=("Jä", "Li", "Jä")), ["l", "m", "r"], "l", [(60, 160)], [None])
    assert not r["legal"] and r["allowance_paces"] == 200 and "(m)" in r["problems"][0]


def test_group_in_bad_going_moves_only_as_a_column_except_jaeger():
    """§5.2 through bad going a group moves as a column 1 element wide; Jäger or skirmishers may move as a group."""
    wood = rect_terrain("w", "wood", 0, 125, 300, 200)
    line = check_group_move(_line(terrain=[wood]), ["m", "l", "r"], "m", [(100, 130)], [None])
    assert not line["legal"] and any("column 1 element wide" in p for p in line["problems"])
    jaeger = check_group_move(_line(terrain=[wood], kinds=("Jä", "Jä", "Jä")), ["m", "l", "r"], "m", [(100, 130)],
                              [None])
    assert jaeger["legal"]
    col = make(el("a", "b", "Li", 100, 100), el("b", "b", "Li", 100, 80), terrain=[wood])
    r = check_group_move(col, ["a", "b"], "a", [(100, 120)], [None])
    assert r["formation"] == "column" and r["legal"]


def test_column_follows_its_leading_element_and_wheels_where_it_wheeled():
    """§5.2 the column follows the leading element: after the turn every element faces the new way, in file."""
    col = make(el("a", "b", "Jä", 100, 100), el("b", "b", "Jä", 100, 80), el("c", "b", "Jä", 100, 60))
    r = check_group_move(col, ["a", "b", "c"], "a", [(100, 120), (140, 120)], [None, 90])
    assert r["formation"] == "column"
    assert r["ends"]["b"] == {"x_mm": 120.0, "y_mm": 120.0, "heading_deg": 90.0}
    assert r["ends"]["c"]["x_mm"] == pytest.approx(100.0) and r["ends"]["c"]["y_mm"] == pytest.approx(120.0)
    with pytest.raises(InputError, match="leading element a"):
        check_group_move(col, ["a", "b", "c"], "b", [(100, 120)], [None])


def test_group_member_in_melee_contact_cannot_move_with_the_group():
    """§5.2 no member may start in melee contact with an enemy."""
    pos = _line(facing("x", "r", "Li", el("r", "b", "Li", 140, 100)))
    r = check_group_move(pos, ["m", "l", "r"], "m", [(100, 90)], [None])
    assert not r["legal"] and any("starts in melee contact with x" in p for p in r["problems"])


def test_group_of_elements_not_in_full_edge_contact_is_a_one_line_error():
    """§3.3 a group is full edge contact and the same facing."""
    pos = make(el("a", "b", "Li", 100, 100), el("b", "b", "Li", 150, 100))
    with pytest.raises(InputError, match="not one group"):
        check_group_move(pos, ["a", "b"], "a", [(100, 120)], [None])


def test_group_move_through_the_command_line(tmp_path, capsys):
    """§5.2 `analyze --path --choice group=all` checks the group; `resolve --action move` applies it (1 move)."""
    path = tmp_path / "g.json"
    path.write_text(json.dumps(position_to_dict(_line())))
    assert main(["analyze", str(path), "--from", "m", "--path", "100,140", "--choice", "group=all", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["group"] == ["l", "m", "r"] and out["legal"]
    after = tmp_path / "after.json"
    assert main(["resolve", str(path), "--action", "move", "--attacker", "m", "--path", "100,140", "--choice",
                 "group=all", "--out", str(after), "--json"]) == 0
    moved = {p["id"]: p for p in json.loads(after.read_text())["pieces"]}
    assert moved["l"]["y_mm"] == 140 and moved["r"]["moves"] == 1
    capsys.readouterr()
    assert main(["resolve", str(path), "--action", "move", "--attacker", "m", "--path", "100,300", "--choice",
                 "group=all"]) != 0
    err = capsys.readouterr().err.strip()
    assert "not allowed" in err and "\n" not in err


# ---------------------------------------------------------------- §3.4, §5.4


def test_zoc_exception_separated_from_the_enemy_by_an_own_element():
    """§3.4 no moving within an enemy zone of control unless separated from that enemy by one of its own elements."""
    enemy = el("e", "r", "Li", 100, 200, 180)  # front edge y 190; zone of control y 150..190
    screen = el("f", "b", "Li", 100, 180)  # in front contact with e, covering the zone's width
    mover = el("a", "b", "Li", 150, 150, 90)
    blocked = movement.check_move(make(enemy, mover), "a", [(100, 150)], 90)
    assert any("zone of control" in p for p in blocked["problems"])
    screened = movement.check_move(make(enemy, screen, mover), "a", [(100, 150)], 90)
    assert screened["legal"], screened["problems"]


def test_overlapping_element_pivots_90_degrees_onto_the_flank_without_measuring():
    """§5.4 an overlapping element pivoting 90 degrees to attack frontally the flank of the enemy it overlapped,
    already in melee, is not measured."""
    a, x = el("A", "b", "Li", 100, 100), el("X", "r", "Li", 100, 120, 180)
    pos = make(a, x, el("B", "b", "Li", 140, 100))
    assert contact(pos, pos.piece("B"), pos.piece("X")).kind == "overlap"
    r = movement.check_move(pos, "B", [(130, 130)], 270)
    assert r["legal"] and "not measured" in r["free_move"] and max(r["corner_paces"]) > 200
    lone = make(x, el("B", "b", "Li", 140, 100))  # X not in melee: the pivot is measured
    assert not movement.check_move(lone, "B", [(130, 130)], 270)["legal"]


def test_moving_out_of_the_camp_to_just_outside_it_is_not_measured():
    """§5.4 an element moving out of its camp and ending immediately outside it, in base contact, is free."""
    camp = el("c", "b", "Camp", 300, 50)
    pos = make(camp, el("a", "b", "Li", 300, 30))
    _, depth = base_size(pos.piece("c"), pos.scale)
    r = movement.check_move(pos, "a", [(300, 50 + depth / 2 + 10)], None)
    assert r["legal"] and "camp" in r["free_move"] and r["front_corner_paces"] > 200


# ---------------------------------------------------------------- §9.6, §3.5, §8.8


def _demoralised():
    x = el("x", "r", "Li", 300, 400, 180)
    return make(el("a", "b", "Li", 100, 300, command="c1"), el("h", "b", "Li", 200, 300, command="c1"),
                el("m", "b", "Li", 300, 300, command="c1"), facing("e", "r", "Li", el("m", "b", "Li", 300, 300)),
                el("g", "r", "Gen", 500, 500, 180, command="r1"), el("y", "r", "Li", 500, 400, 180, command="r1"), x,
                game={"big_battle": True})


def test_demoralised_command_flees_toward_its_own_base_edge():
    """§9.6 elements not in melee, not supporting and not held flee (turned, no recoil) their full move toward
    their own base edge."""
    res = resolve.demoralised_flight(_demoralised(), "a", ["h"])
    after = res.after
    assert after.piece("a").y_mm == pytest.approx(250.0) and after.piece("a").heading_deg == 180.0
    assert after.piece("h").y_mm == 300.0 and after.piece("m").y_mm == 300.0  # held; in melee
    assert any("in melee with e" in n for n in res.notes) and res.outcome["edge"] == "south"


def test_only_a_demoralised_command_flees():
    """§9.6 a command that has its general and its strength is not demoralised."""
    with pytest.raises(InputError, match="not demoralised"):
        resolve.demoralised_flight(_demoralised(), "y")


def test_flank_attack_on_two_enemies_one_behind_the_other_turns_both():
    """§3.5 [L289] both are turned, and the front one stays in front."""
    pos = make(el("f", "r", "Li", 100, 100), el("r", "r", "Li", 100, 80), el("a", "b", "Li", 130, 90, 270))
    assert contact(pos, pos.piece("a"), pos.piece("f")).valid
    after = movement.turn_to_face(pos, "f", "a")
    f, r = after.piece("f"), after.piece("r")
    assert (f.x_mm, f.y_mm, f.heading_deg) == (110.0, 90.0, 90.0)
    assert (r.x_mm, r.y_mm, r.heading_deg) == (90.0, 90.0, 90.0)
    assert contact(after, after.piece("a"), f).kind == "front" and ["f", "r"] in groups(after)


def test_camp_has_ammunition_for_3_own_and_3_enemy_fire_phases():
    """§8.8 [L63] after 3 own and 3 enemy fire phases the camp's ammunition runs out (each counted separately)."""
    camp = el("c", "b", "Camp", 300, 100, ammo_own=3)
    pos = make(camp, el("x", "r", "Li", 300, 175, 180), game={"active": "b"})
    ok, why = can_shoot(pos, pos.piece("c"))
    assert not ok and "3 own fire phases" in why
    enemy_bound = make(camp, el("x", "r", "Li", 300, 175, 180), game={"active": "r"})
    assert can_shoot(enemy_bound, enemy_bound.piece("c"))[0]
    fresh = make(el("c", "b", "Camp", 300, 100), el("x", "r", "Li", 300, 175, 180), game={"active": "b"})
    after = resolve.resolve_fire(fresh, "c", "x", dice(3, 3)).after
    assert (after.piece("c").ammo_own, after.piece("c").ammo_enemy) == (1, 0)


# ---------------------------------------------------------------- §9.7 army lists


def test_army_list_maori_is_the_polynesian_list_with_kl_for_st():
    """§9.7 [L523] "Maori: St X Kl" follows Polynesier, Melanesier (8-12St, 0-3Pl): Kl may stand for St."""
    maori = find_list("Maori")
    assert not maori.unparsed and "Kl" in maori.entries[0].types
    assert check_army(maori, ["Kl"] * 6 + ["St"] * 4 + ["Pl"] * 2) == []
    assert check_army(maori, ["Kl"] * 6 + ["St"] * 2 + ["Bo"] * 4) != []


def test_army_list_bayern_from_1813_needs_two_landwehr():
    """§9.7 [L539] Bayern 1778-1815 "ab 1813 2xLw": from 1813 two Landwehr elements, before that none."""
    bayern = next(a for a in army_lists() if a.name.startswith("Bayern 1778"))
    assert not bayern.unparsed and bayern.entries[-1].from_year == 1813
    army = ["Li"] * 6 + ["Jä"] * 2 + ["Dr"] * 2 + ["Art"] * 2
    assert check_army(bayern, army, 1800) == []
    assert check_army(bayern, army, 1813) != []
    assert check_army(bayern, ["Li"] * 6 + ["Lw"] * 2 + ["Jä"] * 2 + ["Art"] * 2, 1813) == []


def test_every_army_list_parses():
    """§9.7 no list keeps unparsed text."""
    assert [a.name for a in army_lists() if a.unparsed] == []


def test_group_crossing_a_river_that_is_not_shallow_moves_only_as_a_column():
    """§5.2 across a river that is not "shallow" a group moves as a column 1 element wide."""
    river = {"id": "rv", "type": "river", "line": [[0, 130], [600, 130]], "width_mm": 20}
    slow = check_group_move(_line(terrain=[river], game={"river": "slow"}), ["m", "l", "r"], "m", [(100, 125)],
                            [None])
    assert any("crosses a river" in p for p in slow["problems"])
    shallow = check_group_move(_line(terrain=[river], game={"river": "shallow"}), ["m", "l", "r"], "m",
                               [(100, 125)], [None])
    assert not any("column" in p for p in shallow["problems"])


# ---------------------------------------------------------------- §5.2 / §5.4 forming and leaving a column (E2, E4)

_GAP = (rect_terrain("wl", "wood", 30, 155, 78, 200), rect_terrain("wr", "wood", 122, 155, 170, 200))
_GEN = el("g", "b", "Gen", 100, 40)
_INTO_COLUMN = {"m": (100, 140, 0), "l": (100, 120, 0), "r": (100, 100, 0)}


def test_forming_a_column_to_pass_a_gap_is_one_group_move_for_one_pip():
    """§5.2 E2 / E4: three archers in line file into a column to pass between two woods: one group before and
    after, each within its 200 paces, 1 PIP."""
    r = check_column_change(_line(_GEN, kinds=("Bo", "Bo", "Bo"), terrain=_GAP), ["l", "m", "r"], _INTO_COLUMN)
    assert r["legal"], r["problems"]
    assert r["change"] == "forming a column" and r["formation_after"] == "column" and r["pip_cost"] == 1
    assert r["purpose"] == "passes the gap between wl and wr"
    assert max(r["corner_paces"]["l"]) <= 200


def test_forming_a_column_no_element_may_end_behind_its_original_starting_position():
    """§5.4 [L179] E2: the last element of the new column may not end behind where it started."""
    ends = {"m": (100, 120, 0), "l": (100, 100, 0), "r": (100, 80, 0)}
    r = check_column_change(_line(_GEN, kinds=("Bo", "Bo", "Bo"), terrain=_GAP), ["l", "m", "r"], ends)
    assert not r["legal"]
    assert any("r ends 80 paces behind its original starting position (§5.4)" in p for p in r["problems"])


def test_forming_a_column_only_to_pass_a_gap_or_file_onto_a_road():
    """§5.2 the column exception is for a gap between 2 terrain pieces or troops, or to file onto a road."""
    r = check_column_change(_line(kinds=("Bo", "Bo", "Bo")), ["l", "m", "r"], _INTO_COLUMN)
    assert not r["legal"] and any("only to pass a gap" in p for p in r["problems"])
    road = rect_terrain("rd", "road", 90, 110, 110, 300)
    r = check_column_change(_line(kinds=("Bo", "Bo", "Bo"), terrain=[road]), ["l", "m", "r"], _INTO_COLUMN)
    assert r["legal"], r["problems"]
    assert r["purpose"] == "files onto a road"


def test_leaving_a_column_is_no_group_manoeuvre():
    """§5.2 / E4 widening the front again needs single-element moves: several PIPs, not one group move."""
    col = make(el("m", "b", "Bo", 100, 140), el("l", "b", "Bo", 100, 120), el("r", "b", "Bo", 100, 100))
    ends = {"l": (60, 140, 0), "r": (140, 140, 0)}
    r = check_column_change(col, ["m", "l", "r"], ends)
    assert r["change"] == "leaving a column" and not r["legal"] and r["pip_cost"] == 2
    assert any("single-element moves" in p for p in r["problems"])


# ---------------------------------------------------------------- §5.7 group contact details


def _pair_and(enemy_x: float, etype: str = "Hu", **kw):
    """Blue l (x 60), m (x 100) in line facing north at y 100; one red element facing away from them 10 mm ahead."""
    dl, de = UNIT_TYPES["Li"].depth_cm * 10, UNIT_TYPES[etype].depth_cm * 10
    return make(el("l", "b", "Li", 60, 100), el("m", "b", "Li", 100, 100), el("g", "b", "Gen", 80, 40),
                el("x", "r", etype, enemy_x, 100 + dl / 2 + de / 2 + 10, 0, **kw)), dl


def test_group_contact_needs_one_member_full_front_on_the_enemy_front_or_rear():
    """§5.7 a group moves into contact only if at least one member meets the enemy full front on its front or
    rear edge: a corner-to-corner touch is not enough."""
    pos, _ = _pair_and(140)
    r = check_group_move(pos, ["m", "l"], "m", [(100, 110)], [None])
    assert not r["legal"] and any("full front on the enemy's front or rear edge (§5.7)" in p for p in r["problems"])
    pos, _ = _pair_and(100)
    r = check_group_move(pos, ["m", "l"], "m", [(100, 110)], [None])
    assert not any("§5.7" in p for p in r["problems"]), r["problems"]


def test_light_cavalry_contacted_by_an_enemy_group_turns_to_face_it():
    """§5.7 light cavalry (and Jäger in normal terrain) contacted in the rear by an enemy group turn at once."""
    pos, _ = _pair_and(100)
    r = check_group_move(pos, ["m", "l"], "m", [(100, 110)], [None])
    assert [t["piece"] for t in r["turns_to_face"]] == ["x"] and r["turns_to_face"][0]["toward"] == "m"
    after = apply_group_move(pos, r)
    assert abs(after.piece("x").heading_deg % 360 - 180) < 0.5
    assert contact(after, after.piece("m"), after.piece("x")).kind == "front"
    pos, _ = _pair_and(100, "Li")  # line infantry does not turn at once (§3.5: at the end of the movement phase)
    assert check_group_move(pos, ["m", "l"], "m", [(100, 110)], [None])["turns_to_face"] == []


def test_forming_a_column_from_the_command_line(tmp_path, capsys):
    """§5.2 `fieldglass resolve --action column`: the archers file into a column between the woods, and a column
    formed without a gap or road to pass is refused in one line."""
    game = tmp_path / "gap.json"
    positions.save(_line(_GEN, kinds=("Bo", "Bo", "Bo"), terrain=_GAP), game)
    ends = [f"end.{pid}={x},{y},{h}" for pid, (x, y, h) in _INTO_COLUMN.items()]
    argv = ["resolve", str(game), "--action", "column", "--attacker", "m", "--choice", "group=l,m,r"]
    for e in ends:
        argv += ["--choice", e]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    moved = {c["piece"]: (c["to"]["x_mm"], c["to"]["y_mm"]) for c in out["changes"] if c.get("to")}
    assert set(moved) == {"l", "m", "r"}
    assert all(moved[p] == pytest.approx(_INTO_COLUMN[p][:2]) for p in moved)
    positions.save(_line(kinds=("Bo", "Bo", "Bo")), game)  # no gap, no road
    assert main(argv) == 2
    assert "only to pass a gap" in capsys.readouterr().err
