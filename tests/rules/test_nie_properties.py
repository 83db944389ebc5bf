"""Invariants of the Napoleon in Europe rules, checked with hypothesis over dice and small battle situations."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import position as positions
from rules.nie import GAME, politics, strategic
from rules.nie import battle as bt
from rules.nie.model import Zone, zones
from rules.nie.options import Options
from rules.system import register, unregister
from tests.rules.nie_util import battle_pos, dice, pos, used_up

d6 = st.integers(1, 6)


def test_board_adjacency_is_symmetric_and_never_diagonal():
    for major in (True, False):
        for a in zones(major):
            for b in zones(major):
                assert bt.adjacent(a, b, major) == bt.adjacent(b, a, major)
                if bt.adjacent(a, b, major) and a.col is not None and b.col is not None:
                    assert (a.row == b.row) != (a.col == b.col)


@given(shooter=st.sampled_from(["f-i1", "f-e1", "f-m1"]), target=st.sampled_from(["b-i1", "b-e1", "b-m1", "b-c1"]),
       square=st.booleans(), leader=st.booleans(), a=d6, b=d6, e=d6)
@settings(max_examples=150, deadline=None)
def test_fire_invariants(shooter, target, square, leader, a, b, e):
    zones_ = {shooter: "M", "f-i9": "A-line", target: "B-line", "b-i9": "B-line"}
    if leader:
        zones_["b-l1"] = "B-line"
    p = battle_pos(zones_, phase="infantry")
    if square and target[2] != "c":
        p.battle.units[target].square = True
    d = dice(a, b, e)
    out = bt.fire(p, shooter, target, d)
    r = out.rolls[0]
    assert r["raw"] == a + b and r["total"] - r["raw"] == sum(m for m, _ in r["modifiers"])
    assert r["hit"] == (r["total"] >= r["threshold"])
    elim_max = {"i": 3, "e": 2, "m": 4, "c": 3}[target[2]]
    gone = target not in out.position.units
    assert gone == (r["hit"] and e <= elim_max)
    if r["hit"] and not gone:
        assert out.position.battle.units[target].zone == Zone(6)
    if leader:
        assert ("b-l1" in out.position.units) == (a + b < 11)
    assert len(out.position.units) + len(out.position.battle.eliminated) == len(p.units)
    assert used_up(d) or not r["hit"]


@given(att=st.sampled_from(["f-c1", "f-h1", "f-r1"]), dfn=st.sampled_from(["b-i1", "b-e1", "b-m1"]),
       rolls=st.tuples(d6, d6, d6, d6), tie=st.sampled_from(["no_effect", "both_rout", "attacker_routs",
                                                              "defender_routs"]))
@settings(max_examples=150, deadline=None)
def test_charge_invariants(att, dfn, rolls, tie):
    p = battle_pos({att: "M", "f-i9": "A-line", dfn: "B-line", "b-i9": "B-line"}, phase="cavalry")
    out = bt.charge(p, att, dfn, dice(*rolls), Options(charge_tie=tie))
    ra, rd = out.rolls
    diff = ra["total"] - rd["total"]
    assert out.data["difference"] == diff
    after = out.position.battle.units
    if diff:
        loser, winner = (dfn, att) if diff > 0 else (att, dfn)
        assert after[winner].zone == p.battle.units[winner].zone
        limit = 4 if loser[2] == "e" else 3
        if abs(diff) >= limit:
            assert loser not in out.position.units
        else:
            assert after[loser].zone.row in (0, 6)
    else:
        routed = {u for u in (att, dfn) if after[u].zone.row in (0, 6)}
        assert routed == {"no_effect": set(), "both_rout": {att, dfn}, "attacker_routs": {att},
                          "defender_routs": {dfn}}[tie]


@given(a=st.integers(1, 6), b=st.integers(1, 6), ra=st.tuples(d6, d6), rb=st.tuples(d6, d6))
@settings(max_examples=100, deadline=None)
def test_sea_battle_invariants(a, b, ra, rb):
    units = [(f"b{i}", "britain", "ship", "channel") for i in range(a)]
    units += [(f"f{i}", "france", "ship", "channel") for i in range(b)]
    out = strategic.sea_battle(pos(units), "channel", ["britain"], ["france"], dice(*ra, *rb))
    ta, tb = (r["total"] for r in out.rolls)
    lost = len(out.changes)
    if ta == tb:
        assert lost == 0
    else:
        loser = "b" if ta < tb else "f"
        assert all(c["unit"].startswith(loser) for c in out.changes)
        assert lost == min(strategic.sea_loss(ta - tb), a if loser == "b" else b)
        assert lost <= 3


@given(enemy=st.integers(0, 8), own=st.integers(0, 8))
def test_interception_rate_is_at_least_one(enemy, own):
    assert strategic.transport_rate(enemy, own) == max(1, enemy - own) >= 1


@given(n=st.integers(1, 4), rolls=st.lists(d6, min_size=4, max_size=4), foes=st.integers(1, 5))
@settings(max_examples=60, deadline=None)
def test_transport_conserves_units(n, rolls, foes):
    units = [(f"g{i}", "britain", "inf", "cornwall") for i in range(n)]
    units += [(f"s{i}", "britain", "ship", "bay_of_biscay") for i in range(4)]
    units += [(f"x{i}", "france", "ship", "bay_of_biscay") for i in range(foes)]
    out = strategic.amphibious(pos(units), [f"g{i}" for i in range(n)], ["bay_of_biscay"], "gascony",
                               dice(*rolls[:n]))
    rate = strategic.transport_rate(foes, 4)
    assert out.data["landed"] == [f"g{i}" for i in range(n) if rolls[i] > rate]


@given(first=st.integers(1, 30), later=st.integers(0, 11), a=d6, b=d6)
def test_sudden_death(first, later, a, b):
    out = politics.sudden_death(dice(a, b), first + later, first)
    assert out["end_number"] == 12 - later and out["ends"] == (a + b >= 12 - later)


@given(placements=st.lists(st.sampled_from(["A-left", "A-centre", "A-right", "M-left", "M-centre", "M-right",
                                            "A-reserve", "A-rout"]), min_size=1, max_size=6),
       square=st.lists(st.booleans(), min_size=6, max_size=6))
@settings(max_examples=50, deadline=None)
def test_position_round_trip(placements, square):
    zones_ = {f"f-i{i}": z for i, z in enumerate(placements)}
    zones_.update({"b-i1": "B-left", "b-c1": "B-reserve"})
    p = battle_pos(zones_, major=True)
    for i, uid in enumerate(zones_):
        if uid.startswith("f-") and square[i % 6]:
            p.battle.units[uid].square = True
    register(GAME)
    try:
        text = positions.dumps(p)
        assert positions.dumps(positions.loads(text)) == text
    finally:
        unregister("nie")


@given(sides=st.lists(st.sampled_from(["A", "B"]), min_size=1, max_size=2, unique=True),
       viewer=st.sampled_from(["france", "britain", "spain", "umpire"]))
@settings(max_examples=30, deadline=None)
def test_the_hidden_set_up_never_shows_the_other_side(sides, viewer):
    units = [("f-i1", "france", "inf", "belgium"), ("f-c1", "france", "cav", "belgium"),
             ("b-i1", "britain", "inf", "belgium"), ("b-l1", "britain", "leader", "belgium")]
    p = pos(units, battle={"region": "belgium", "attacker": ["france"], "defender": ["britain"], "major": False})
    placements = {"A": {"f-i1": "A-line", "f-c1": "A-reserve"}, "B": {"b-i1": "B-line", "b-l1": "B-reserve"}}
    for s in sides:
        p = bt.deploy(p, placements[s], s).position
    seen = set(bt.position_view(p, viewer)["battle"]["units"])
    placed = {u for s in sides for u in placements[s]}
    if len(sides) == 2 or viewer == "umpire":
        assert seen == placed
    else:
        own = {"france": "f-", "britain": "b-"}.get(viewer)
        assert seen == {u for u in placed if own and u.startswith(own)}
