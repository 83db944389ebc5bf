"""Digest §10 worked examples E1-E6 on the invented demo board (rules/marengo/data/demo_board.toml).

Every figure of the rulebook is missing, so the positions are rebuilt from the text on the demo board; the area
numbers of E6 are the demo board's, laid out to match what the text says about them (see each docstring).
"""

from __future__ import annotations

from dataclasses import replace

from rules.marengo import engine
from tests.rules.marengo_util import blk, mk


def test_e1_a_loss_swaps_the_block_for_the_next_lower_one():
    """E1 (§2.1): infantry 3 takes 1 loss -> infantry 2, both shown; at 0 the block is removed."""
    p = mk(blk("i3", "AU", "infantry", 3, "3"), blk("i1", "AU", "infantry", 1, "3"))
    q, events = engine.apply_losses(p, {"i3": 1, "i1": 1})
    assert q.block("i3").strength == 2 and "i1" not in q.blocks_by_id
    assert "both shown" in events[0] and "destroyed" in events[1]


def test_e2_road_traffic_limit():
    """E2 (§5.3), rebuilt: 4 Austrian blocks in area 1's reserve; crossings A = 1|2, B = 2|3, C = 3|5."""
    p = mk(blk("cav", "AU", "cavalry", 2, "1"), blk("art", "AU", "artillery", 1, "1"),
           blk("inf2", "AU", "infantry", 2, "1"), blk("inf3", "AU", "infantry", 3, "1"))
    o = engine.road_move(p, "cav", ["2", "3", "5"])
    assert o.legal and o.details["steps"] == {"1>2": 1, "2>3": 2, "3>5": 3} and o.cost == 0  # main road: free
    assert not engine.road_move(o.position, "art", ["2", "3", "5"]).legal  # it can reach only 3
    o = engine.road_move(o.position, "art", ["2", "3"])
    assert o.details["steps"] == {"1>2": 2, "2>3": 3}
    o = engine.road_move(o.position, "inf2", ["2"])
    assert o.details["steps"] == {"1>2": 3}
    last = engine.road_move(o.position, "inf3", ["2"])
    assert not last.legal and "traffic limit" in last.reasons[0]  # a 4th road move through A is rejected
    assert o.position.turn.crossings == {"1>2": (1, 2, 3), "2>3": (2, 3), "3>5": (3,)}  # A: 3 blocks, B: 2, C: 1


def test_e3_thrust_captions():
    """E3 (§8.1): a fully blocked defender approach stops the thrust before it starts; a stopped thrust lets the
    attacker move into its approach while the defender stays. Rebuilt on the wide border 4|5."""
    full = mk(blk("a", "AU", "infantry", 3, "4"), blk("d1", "FR", "infantry", 2, "5", "4"),
              blk("d2", "FR", "infantry", 2, "5", "4"), round=2)
    assert "fully blocked" in engine.thrust(full, ["a"], "5").reasons[0]
    p = mk(blk("a", "AU", "infantry", 3, "4"), blk("d1", "FR", "infantry", 2, "5"), round=2)
    o = engine.thrust(p, ["a"], "5", push=["d1"], into_approach=True)
    assert o.legal and not o.details["success"]
    assert o.position.block("a").position == "4>5" and o.position.block("d1").position == "5>4"
    assert o.position.morale.committed["5"]["FR"] == 1


def test_e4_bombardment_captions():
    """E4 (§8.2): the artillery is revealed when announced; next turn the defender picks 1 block, which takes
    1 loss. Rebuilt on border 3|5."""
    p = mk(blk("art", "AU", "artillery", 1, "3", "5"), blk("f1", "FR", "infantry", 3, "5"),
           blk("f2", "FR", "infantry", 2, "5", "3"), round=2)
    o = engine.announce_bombardment(p, "art")
    assert o.legal and o.cost == 0 and o.position.block("art").revealed
    q = o.position
    q = replace(q, round=3)
    q = q.with_blocks(replace(b, acted=False) for b in q.blocks)
    assert not engine.execute_bombardment(q, "art", "f1").legal  # f2 stands in the opposite approach
    o = engine.execute_bombardment(q, "art", "f2")
    assert o.legal and o.position.block("f2").strength == 1 and o.position.morale.pool["FR"] == 4


def test_e5_assault_result_minus_one():
    """E5 (§8.3), the digest's own construction: attacker lead infantry 3; defender lead infantry 2; a cavalry 3
    counter-attack (cavalry 2 after its loss). Result -1, no extra loss; attacker 2 losses, defender 1."""
    p = mk(blk("ai", "AU", "infantry", 3, "3", "5"), blk("di", "FR", "infantry", 2, "5", "3"),
           blk("dc", "FR", "cavalry", 3, "5", "3"), round=2)
    o = engine.assault(p, "3", "5", ["ai"], ["ai"], ["di"], counter=["dc"])
    d = o.details
    assert (d["result"], d["attacker_wins"], d["extra_losses"]) == (-1, False, 0)
    assert d["attacker_losses"] == 2 and d["defender_losses"] == 1
    q = o.position
    assert q.block("ai").strength == 1 and q.block("di").strength == 1 and q.block("dc").strength == 2
    assert q.block("ai").position == "3>5"  # the blocks stay where they are
    assert q.morale.pool["AU"] == 3 and q.morale.committed["5"]["FR"] == 2  # loser 2 discs; winner commits 2
    assert "5>3" in q.turn.forbidden


def _opening():
    """E6 (§10, R23) rebuilt on the demo board: Alessandria's main road enters area 1 and runs 1-2-3-5, a branch
    2-4-8; a secondary road 10-3; the pontoon lands in area 1. French start blocks: 2 in 5, 2 in 10 (one cavalry),
    1 in 8, 1 in 24, all unready."""
    au = [blk(f"au{i}", "AU", t, 3 if t == "infantry" else 2, box="ALESSANDRIA")
          for i, t in enumerate(["cavalry", "infantry", "infantry", "infantry", "infantry"])]
    fr = [blk("f5a", "FR", "infantry", 3, "5", ready=False), blk("f5b", "FR", "infantry", 2, "5", ready=False),
          blk("f10c", "FR", "cavalry", 2, "10", ready=False), blk("f10i", "FR", "infantry", 2, "10", ready=False),
          blk("f8", "FR", "infantry", 3, "8", ready=False), blk("f24", "FR", "infantry", 3, "24", ready=False)]
    return mk(*au, *fr, pool={"AU": 3, "FR": 3})


def test_e6_austrian_entry_and_cavalry_advance():
    """E6: at most 4 blocks enter in turn 1 (3 by the main road, 1 over the pontoon), using no command; the
    cavalry that went 3 areas advances free into the 3>5 approach, along the road it used."""
    p = _opening()
    o1 = engine.road_move(p, "au0", ["1", "2", "3"])
    o2 = engine.road_move(o1.position, "au1", ["1", "2"])
    o3 = engine.road_move(o2.position, "au2", ["1"])
    assert all(o.legal and o.cost == 0 for o in (o1, o2, o3))
    assert not engine.road_move(o3.position, "au3", ["1"]).legal  # the first crossing is full
    o4 = engine.pontoon(o3.position, "au3")
    assert o4.legal and o4.cost == 0 and o4.position.block("au3").area == "1"
    assert not engine.pontoon(o4.position, "au4").legal  # 1 per round
    adv = engine.cavalry_advance(o4.position, ["au0"], {"au0": "5"}, allowed={"3>5"})
    assert adv.legal and adv.cost == 0 and adv.position.block("au0").position == "3>5"
    q = adv.position
    assert q.commands == 3 and [q.block(f"au{i}").area for i in range(4)] == ["3", "2", "1", "1"]
    # the alternative opening: the first block goes to area 4 on the northern main road, also free
    alt = engine.road_move(p, "au0", ["1", "2", "4"])
    assert alt.legal and alt.cost == 0


def _french_turn(q):
    return replace(q, side="FR", commands=3)


def _after_austrian_opening():
    p = _opening()
    for bid, path in (("au0", ["1", "2", "3"]), ("au1", ["1", "2"]), ("au2", ["1"])):
        p = engine.road_move(p, bid, path).position
    p = engine.cavalry_advance(p, ["au0"], {"au0": "5"}, allowed={"3>5"}).position
    return _french_turn(p)


def test_e6_threat_french_cannot_block_in_round_1_and_a_thrust_from_the_approach_cannot_be_stopped():
    q = _after_austrian_opening()
    q = engine.rally(q, ["f5a"]).position
    assert not engine.standard_move(q, ["f5a"], "5", "3").legal  # round 1: no blocking at all
    nxt = replace(q, side="AU", round=2, commands=3)
    nxt = nxt.with_blocks(replace(b, acted=False) for b in nxt.blocks)
    t = engine.thrust(nxt, ["au0"], "5", push=["f5a"])
    assert not t.legal and "no push-in" in t.reasons[0]
    assert engine.thrust(nxt, ["au0"], "5").details["success"]


def test_e6_risk_a_french_cavalry_road_thrust_into_area_3():
    """Risk A: rally both blocks of area 10 (fewer than 3 ready: 1 per rally, all of the area: 2 commands), then the
    cavalry road-moves on the secondary road and thrusts into 3 (1 command). Austria retreats: the cavalry in the
    narrow 3>5 approach takes 1 loss, Austria loses 1 disc and commits 1 to area 3. All 3 French commands used."""
    q = _after_austrian_opening()
    r1 = engine.rally(q, ["f10c"])
    assert r1.legal and r1.details["still_to_rally"] == {"10": ["f10i"]}
    assert not engine.rally(q, ["f10c", "f10i"]).legal  # 1 block per rally with fewer than 3 ready
    r2 = engine.rally(r1.position, ["f10i"])
    o = engine.road_move(r2.position, "f10c", ["3"])
    assert o.legal and o.cost == 1 and o.details["thrust"]["success"]
    q2 = o.position
    assert q2.commands == 0 and q2.block("f10c").area == "3"
    assert q2.block("au0").strength == 1 and q2.block("au0").area != "3"
    assert q2.morale.pool["AU"] == 1 and q2.morale.committed["3"]["AU"] == 1  # 3 - 1 lost - 1 committed


def test_e6_french_defensive_options_b_c1_c2_c3():
    """B: rally, rally, move both 5 -> 4 (3 commands). C1: rally 8, move to 4 (2). C2: rally 24, road move on the
    secondary road 24-7-8-4 (2; on the demo board this road passes area 8, so the area-8 block is left out for it).
    C3: rally 24, main road to 13 (free: 1 command in all, 2 left)."""
    q = _after_austrian_opening()
    b = engine.rally(q, ["f5a"]).position
    b = engine.rally(b, ["f5b"]).position
    mv = engine.standard_move(b, ["f5a", "f5b"], "4")
    assert mv.legal and mv.position.commands == 0
    c1 = engine.rally(q, ["f8"]).position
    c1 = engine.standard_move(c1, ["f8"], "4")
    assert c1.legal and c1.position.commands == 1
    no8 = q.with_blocks(x for x in q.blocks if x.id != "f8")
    c2 = engine.road_move(engine.rally(no8, ["f24"]).position, "f24", ["7", "8", "4"])
    assert c2.legal and c2.cost == 1 and c2.position.commands == 1 and c2.position.block("f24").area == "4"
    c3 = engine.road_move(engine.rally(q, ["f24"]).position, "f24", ["13"])
    assert c3.legal and c3.cost == 0 and c3.position.commands == 2
