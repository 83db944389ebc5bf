"""One test per Marengo rule (digest sections in the names), on the invented demo board."""

from __future__ import annotations

from dataclasses import replace

import pytest

from common.errors import InputError
from rules import position
from rules.marengo import engine
from rules.marengo.model import position_from_dict
from rules.marengo.options import DEFAULT, Options, load_options
from tests.rules.marengo_util import BOARD, blk, mk


@pytest.mark.parametrize(
    "width, d, n, first, outcome",
    [("narrow", 0, 1, True, "succeeds"), ("narrow", 1, 3, False, "stopped"), ("wide", 0, 1, True, "succeeds"),
     ("wide", 1, 1, True, "stopped"), ("wide", 1, 1, False, "succeeds"), ("wide", 1, 2, True, "succeeds"),
     ("wide", 2, 3, False, "stopped")],
)
def test_s8_1_thrust_decision_table(width, d, n, first, outcome):
    assert engine.thrust_result(width, d, n, first) == outcome


def test_s8_1_two_discs_for_stopping_a_first_multi_block_thrust_across_a_wide_approach():
    p = mk(blk("a", "AU", "infantry", 3, "4"), blk("b", "AU", "infantry", 3, "4"),
           blk("d1", "FR", "infantry", 2, "5"), blk("d2", "FR", "infantry", 2, "5"), round=2)
    o = engine.thrust(p, ["a", "b"], "5", push=["d1", "d2"])
    assert not o.details["success"] and o.details["discs_committed"] == 2


def test_s8_1_cavalry_obstacle_needs_infantry():
    p = mk(blk("c", "AU", "cavalry", 2, "4"), blk("d", "FR", "infantry", 2, "8"), round=2)
    assert "cavalry obstacle" in engine.thrust(p, ["c"], "8").reasons[0]


def test_s3_3_impassable_border_and_protected_box_entry():
    p = mk(blk("a", "AU", "infantry", 3, "10"), blk("f", "FR", "infantry", 2, "9"), round=2)
    assert "impassable" in engine.thrust(p, ["a"], "9").reasons[0]
    p = mk(blk("a", "AU", "infantry", 3, "9"), blk("f", "FR", "infantry", 2, "13"),
           blk("r", "FR", "infantry", 2, box="R11"), round=2)
    assert "entry of box R11" in engine.thrust(p, ["a"], "13").reasons[0]


def test_s5_2_defensive_move_is_free_only_up_to_full_blocking():
    p = mk(blk("a", "AU", "infantry", 3, "4"), blk("b", "AU", "infantry", 3, "4"), blk("c", "AU", "infantry", 3, "4"),
           blk("f", "FR", "infantry", 2, "5"))
    assert engine.standard_move(p, ["a", "b"], "4", "5").cost == 0  # wide: 2 fully block
    assert engine.standard_move(p, ["a", "b", "c"], "4", "5").cost == 1
    assert not engine.standard_move(p, ["a"], "4", "2").legal  # area 2 is not enemy-occupied


def test_s5_2_standard_move_limits():
    p = mk(blk("a", "AU", "infantry", 3, "4"), blk("f", "FR", "infantry", 2, "5"),
           blk("u", "FR", "infantry", 2, "7", ready=False), blk("x1", "AU", "infantry", 2, "8"),
           blk("x2", "AU", "infantry", 2, "8"), blk("y", "AU", "infantry", 2, "4"))
    assert "enemy-occupied" in engine.standard_move(p, ["a"], "5").reasons[0]
    assert "capacity 2" in engine.standard_move(p, ["a"], "8").reasons[0]
    fr = replace(p, side="FR")
    assert "unready" in engine.standard_move(fr, ["u"], "24").reasons[0]
    assert "same position" in engine.standard_move(p, ["a", "x1"], "2").reasons[0]
    o = engine.standard_move(p, ["a", "y"], "2")
    assert o.legal and o.cost == 1 and not engine.standard_move(o.position, ["a"], "1").legal  # one action each


def test_s5_3_road_move_direction_and_reserve_start():
    p = mk(blk("a", "AU", "infantry", 3, "1"), blk("b", "AU", "infantry", 3, "2"),
           blk("c", "AU", "infantry", 3, "4", began_in_reserve=False))
    o = engine.road_move(p, "a", ["2"])
    assert "other direction" in engine.road_move(o.position, "b", ["1"]).reasons[0]
    assert "begin its turn in reserve" in engine.road_move(p, "c", ["2"]).reasons[0]
    opts = DEFAULT.with_values({"pushed_back_may_road_move": True})
    assert engine.road_move(p, "c", ["2"], opts).legal  # §11.6 option
    assert engine.road_move(p, "b", ["3", "4"]).reasons[0].startswith("no road crosses")


def test_s5_3_only_cavalry_thrusts_on_a_road_and_once_per_crossing():
    p = mk(blk("i", "AU", "infantry", 3, "2"), blk("c", "AU", "cavalry", 2, "2"), blk("c2", "AU", "cavalry", 2, "2"),
           blk("f", "FR", "infantry", 2, "3"), blk("g", "FR", "infantry", 2, "3"), round=2)
    assert "only cavalry" in engine.road_move(p, "i", ["3"]).reasons[0]
    o = engine.road_move(p, "c", ["3"], push=["f"])  # wide 3>2: 1 pushed, 1 thruster, first thrust: stopped
    assert o.legal and not o.details["thrust"]["success"] and o.position.block("c").area == "2"
    assert "road-move thrust" in engine.road_move(o.position, "c2", ["3"]).reasons[0]


def test_s5_4_contamination_ends_a_road_move():
    p = mk(blk("r", "FR", "infantry", 3, "24"), blk("u", "FR", "infantry", 2, "8", ready=False), side="FR", round=3)
    # R14: a ready block entering an area of unready blocks becomes unready and its road move ends there at once:
    # the move is legal, stops in 8, and never uses the 8>4 crossing
    o = engine.road_move(p, "r", ["7", "8", "4"])
    r = o.position.block("r")
    assert o.legal and r.area == "8" and r.approach is None and not r.ready
    assert o.details["to"] == "8" and o.details["steps"] == {"24>7": 1, "7>8": 2}
    alone = mk(blk("r", "FR", "infantry", 3, "24"), side="FR", round=3)
    assert engine.road_move(alone, "r", ["7", "8", "4"]).position.block("r").area == "4"  # without u it gets to 4
    o = engine.road_move(p, "r", ["7", "8"])
    assert o.legal and not o.position.block("r").ready and "unready" in o.events[-1]


def test_s5_4_rally_two_at_once_with_three_ready_and_all_or_nothing():
    ready = [blk(f"r{i}", "FR", "infantry", 2, "24") for i in range(3)]
    p = mk(*ready, blk("u1", "FR", "infantry", 2, "9", ready=False), blk("u2", "FR", "infantry", 2, "7", ready=False),
           side="FR")
    o = engine.rally(p, ["u1", "u2"])
    assert o.legal and o.cost == 1 and o.position.block("u1").ready and o.position.block("u2").rallied
    lone = mk(*[blk(f"u{i}", "FR", "infantry", 2, "9", ready=False) for i in range(4)], side="FR")
    assert "all blocks of an area" in engine.rally(lone, ["u0"]).reasons[0]


def test_s5_5_advance_splitting_costs_commands():
    assert engine.advance_cost(["reserve", "3>5", "3>10"]) == 2 and engine.advance_cost(["3>5", "3>5"]) == 0
    p = mk(blk("c1", "AU", "cavalry", 2, "3"), blk("c2", "AU", "cavalry", 2, "3"), blk("f", "FR", "infantry", 2, "5"))
    o = engine.cavalry_advance(p, ["c1", "c2"], {"c1": "5"})
    assert o.legal and o.cost == 1
    assert not engine.cavalry_advance(p, ["c1"], {"c1": "4"}).legal  # area 4 is not enemy-occupied


def test_s5_6_reinforcement_boxes_open_on_their_round_and_austrian_artillery_from_7h():
    p = mk(blk("r", "FR", "infantry", 3, box="R11"), blk("art", "AU", "artillery", 1, box="ALESSANDRIA"), side="FR",
           round=5)
    assert "opens in round 6" in engine.road_move(p, "r", ["13"]).reasons[0]
    assert engine.road_move(replace(p, round=6), "r", ["13"]).legal
    au = replace(p, side="AU", round=1)
    assert "from 7h" in engine.road_move(au, "art", ["1"]).reasons[0]
    assert engine.road_move(replace(au, round=2), "art", ["1"]).legal


def test_s8_2_bombardment_blocked_by_artillery_penalty_and_executed_only_next_turn():
    p = mk(blk("art", "AU", "artillery", 1, "5", "9"), blk("f", "FR", "infantry", 2, "9"), round=2)
    assert not engine.announce_bombardment(p, "art").legal  # 9>5 has an artillery penalty
    p = mk(blk("art", "AU", "artillery", 1, "3", "5", bombard="announced", bombard_round=2),
           blk("f", "FR", "infantry", 2, "5"), round=2)
    assert "next turn" in engine.execute_bombardment(p, "art").reasons[0]


def test_s8_2_bombardment_cancelled_by_the_phase_2_push_back():
    p = mk(blk("art", "AU", "artillery", 1, "3", "5", bombard="announced", bombard_round=1, revealed=True), round=2)
    o = engine.start_turn(p)
    assert o.position.block("art").approach is None and o.position.block("art").bombard is None
    assert not o.position.block("art").began_in_reserve


def test_s8_3_defensive_fire_and_extra_losses_of_a_beaten_attacker():
    p = mk(blk("a1", "AU", "infantry", 2, "4", "5"), blk("a2", "AU", "infantry", 2, "4", "5"),
           blk("d", "FR", "infantry", 3, "5", "4"), blk("art", "FR", "artillery", 1, "5", "4"), round=2)
    o = engine.assault(p, "4", "5", ["a1", "a2"], ["a1", "a2"], ["d"], defensive_fire=True, fire_target="a1")
    d = o.details
    # leads 1 + 2 = 3, penalty 1 (infantry penalty in 5>4) -> 3 - 1 - 3 = -1; |-1| < 3: no extra loss
    assert d["fires"] == 1 and d["penalty"] == 1 and d["result"] == -1 and d["extra_losses"] == 0
    assert engine.assault_outcome([("infantry", 2)], [("infantry", 3)], [], 1)["extra_losses"] == 1
    assert engine.assault_outcome([("cavalry", 2), ("cavalry", 2)], [("infantry", 3)], [("cavalry", 2)], 0, 1)[
        "attacker_losses"] == 1 + 1  # 1 per defender lead block + 1 per surviving counter-attacking cavalry


def test_s8_3_won_assault_captures_retreats_and_bars_road_entry():
    p = mk(blk("a", "AU", "infantry", 3, "3", "5"), blk("b", "AU", "infantry", 3, "3", "5"),
           blk("d", "FR", "infantry", 1, "5", "3"), blk("r", "FR", "cavalry", 2, "5"),
           blk("x", "AU", "cavalry", 2, "3"), round=2)
    o = engine.assault(p, "3", "5", ["a", "b"], ["a"], [])
    q = o.position
    assert o.details["attacker_wins"] and q.block("a").area == "5" and q.block("b").area == "5"
    assert "d" not in q.blocks_by_id and q.block("r").strength == 2  # approach 1 loss; reserve cavalry none
    assert "5" in q.turn.no_road_entry
    assert "captured by assault" in engine.road_move(q, "x", ["5"]).reasons[0]
    assert engine.standard_move(q, ["x"], "5").legal  # standard moves may still enter


def test_s8_3_lead_rules():
    p = mk(blk("a", "AU", "infantry", 1, "3", "5"), blk("d", "FR", "infantry", 2, "5", "3"), round=2)
    assert "strength-1" in engine.assault(p, "3", "5", ["a"], ["a"]).reasons[0]
    p = mk(blk("a", "AU", "cavalry", 3, "4", "8"), blk("d", "FR", "infantry", 2, "8", "4"), round=2)
    assert "cavalry obstacle" in engine.assault(p, "4", "8", ["a"], ["a"]).reasons[0]


def test_s8_4_retreat_losses_by_position_and_arrows():
    p = mk(blk("a", "AU", "infantry", 3, "4"), blk("b", "AU", "infantry", 3, "4"),
           blk("w1", "FR", "infantry", 3, "5", "7"), blk("w2", "FR", "infantry", 3, "5", "7"),
           blk("ri", "FR", "infantry", 3, "5"), blk("rc", "FR", "cavalry", 2, "5"),
           blk("art", "FR", "artillery", 1, "5"), blk("e1", "AU", "infantry", 2, "7"),
           blk("e2", "AU", "infantry", 2, "9"), blk("e3", "AU", "infantry", 2, "10"),
           blk("e4", "AU", "infantry", 2, "8"), round=2)
    q, events, d = engine.retreat(p, "5", "4", True, 2)
    assert d["losses"] == {"w1": 1, "w2": 1, "ri": 2}  # wide approach 2; reserve infantry 2 (wide, 2 entering)
    assert "art" in d["destroyed"] and q.block("rc").strength == 2
    # all other neighbours are Austrian: only area 3 (against the 3->5 arrow) is left, so it is taken
    assert d["moved"]["rc"] == "3"
    assert d["morale_losses"] == 4 + 1  # 4 losses + the destroyed artillery (§11.3 default)


def test_s8_4_no_retreat_means_destruction():
    p = mk(blk("a", "AU", "infantry", 3, "24"), blk("f", "FR", "infantry", 3, "13"),
           blk("e", "AU", "infantry", 2, "9"), round=2)
    q, events, d = engine.retreat(p, "13", "24", True, 1)
    assert d["destroyed"] == ["f"] and "f" not in q.blocks_by_id


def test_s8_6_committed_disc_checks_and_french_return():
    p = mk(blk("f", "FR", "infantry", 3, "5"), blk("a", "AU", "infantry", 3, "9"), side="FR", round=3,
           pool={"AU": 2, "FR": 2}, committed={"5": {"FR": 2}, "3": {"FR": 1}, "24": {"FR": 1}},
           last_occupant={"3": "AU"})
    o = engine.end_turn(p, return_disc="5")
    m = o.position.morale
    assert m.committed["3"]["FR"] == 0  # step 1: empty, last held by the enemy
    assert m.committed["24"]["FR"] == 0 and m.committed["5"]["FR"] == 1 and m.pool["FR"] == 4  # step 2 + step 3
    assert o.position.side == "AU" and o.position.round == 4
    assert not engine.end_turn(replace(p, round=11), return_disc="5").legal  # from 16h on: no return


def test_s9_2_demoralisation_and_final_victory():
    p = mk(blk("f", "FR", "infantry", 3, "5"), pool={"AU": 1, "FR": 1})
    q, ev = engine.lose_discs(p, "FR", 1)
    assert q.winner == "AU" and q.victory == "decisive"
    au = [blk(f"a{i}", "AU", "infantry", 2, "13" if i < 2 else "24") for i in range(3)]
    end = mk(*au, side="FR", round=16)
    assert engine.end_turn(end).position.winner == "AU"
    end2 = mk(*au[:2], side="FR", round=16)
    assert engine.end_turn(end2).position.winner == "FR"


def test_s4_phase_1_receives_discs_from_the_track():
    p = mk(track={}, round=2)
    p = replace(p, morale=replace(p.morale, track={2: {"AU": 2, "FR": 1}}), commands=0)
    o = engine.start_turn(p)
    assert o.position.morale.pool["AU"] == 7 and o.position.commands == 3


def test_position_round_trip_and_bad_input():
    p = mk(blk("a", "AU", "infantry", 3, "3", "5"), blk("r", "FR", "infantry", 2, box="R11"),
           committed={"5": {"FR": 1}})
    text = position.dumps(p)
    assert position.dumps(position.loads(text)) == text
    bad = {"system": "marengo", "board": "demo", "blocks": [blk("a", "AU", "infantry", 3, "3", "9")]}
    with pytest.raises(InputError, match="block a: area 3 has no approach toward '9'"):
        position_from_dict(bad, "g.json", board=BOARD)
    bad = {"system": "marengo", "blocks": [blk("a", "AU", "infantry", 3, "3"), blk("b", "FR", "infantry", 3, "3")]}
    with pytest.raises(InputError, match="area 3: holds blocks of both sides"):
        position_from_dict(bad, "g.json", board=BOARD)


def test_options_file_and_errors(tmp_path):
    assert load_options() == Options()
    f = tmp_path / "o.toml"
    f.write_text('lead_width = "defender"\n')
    assert load_options(f).lead_width == "defender"
    f.write_text("nonsense = 1\n")
    with pytest.raises(InputError, match="unknown option 'nonsense'"):
        load_options(f)
