"""The digest's worked examples E1-E4 (shared/rules/napoleon-in-europe.md §10) with their exact outcomes.

The examples give 2d6 rolls as sums; `two(total)` splits a sum into two dice. Where the example gives no dice
("not given") the test chooses dice that produce the stated outcome and says so."""

from __future__ import annotations

from dataclasses import replace

import pytest

from common.errors import InputError
from rules.nie import battle as bt
from rules.nie import politics, strategic
from rules.nie.model import Zone, parse_zone
from tests.rules.nie_util import dice, pos, two, used_up

# ---------------------------------------------------------------------------------------------- E1 sudden death


def test_e1_sudden_death_sequence():
    rows = [(10, 6, 12, False), (11, 9, 11, False), (12, 10, 10, True)]
    for rnd, roll, end_number, ends in rows:
        d = dice(*two(roll))
        out = politics.sudden_death(d, rnd, first_round=10)
        assert (out["end_number"], out["ends"], out["roll"]["raw"]) == (end_number, ends, roll)
        assert used_up(d)


def test_e1_no_roll_before_the_agreed_round():
    with pytest.raises(InputError, match="start at round 10"):
        politics.sudden_death(dice(6, 6), 9, first_round=10)


# ---------------------------------------------------------------------------------------------- E2 interception


def e2_position():
    units = [(f"gb-inf-{i}", "britain", "inf", "cornwall") for i in (1, 2, 3)]
    units += [(f"gb-sq-{i}", "britain", "ship", "bay_of_biscay") for i in (1, 2, 3)]
    units += [(f"fr-sq-{i}", "france", "ship", "bay_of_biscay") for i in (1, 2, 3)]
    units += [(f"gb-sq-{i}", "britain", "ship", "adriatic") for i in (4, 5, 6)]
    return pos(units, relations=(("britain", "france", "war"), ("austria", "france", "war")))


ROUTE = ["bay_of_biscay", "mid_atlantic", "barbary_coast", "tyrrhenian", "ionian", "adriatic"]


def test_e2_transport_interception():
    assert strategic.transport_rate(3, 3) == 1  # 3 - 3 = 0, raised to the minimum of 1
    d = dice(2, 5, 1)
    out = strategic.amphibious(e2_position(), ["gb-inf-1", "gb-inf-2", "gb-inf-3"], ROUTE, "illyria", d)
    assert used_up(d)
    assert out.data["landed"] == ["gb-inf-1", "gb-inf-2"]
    assert "gb-inf-3" not in out.position.units
    assert [u.at for u in out.position.units.values() if u.type == "inf"] == ["illyria", "illyria"]
    assert [r["raw"] for r in out.rolls] == [2, 5, 1] and all(r["threshold"] == 1 for r in out.rolls)
    assert not out.data["battle"]  # Illyria is an empty neutral minor here


def test_e2_needs_enough_squadrons_next_to_the_target():
    p = e2_position()
    with pytest.raises(InputError, match="3 army figure"):
        strategic.amphibious(p, ["gb-inf-1", "gb-inf-2", "gb-inf-3"], ROUTE[:-1], "naples", dice(6, 6, 6))


# ---------------------------------------------------------------------------------------------- E3 attack direction


def test_e3_frontal_only():
    british = parse_zone("M-right", True, "E3")  # the British left of the middle zone: the attacker's right
    assert british == Zone(3, 2)
    french_right = parse_zone("A-right", True, "E3")
    french_centre = parse_zone("A-centre", True, "E3")
    middle_centre = parse_zone("M-centre", True, "E3")
    assert bt.frontal_distance(british, french_right, "B") == 1
    assert bt.frontal_distance(british, french_centre, "B") is None  # diagonal
    assert bt.frontal_distance(british, middle_centre, "B") is None  # sideways


def test_e3_through_the_engine():
    units = [("gb-i", "britain", "inf", "belgium"), ("fr-r", "france", "inf", "belgium"),
             ("fr-c", "france", "inf", "belgium"), ("fr-m", "france", "inf", "belgium")]
    battle = {"region": "belgium", "attacker": ["france"], "defender": ["britain"], "major": True,
              "phase": "infantry", "acting": "B",
              "units": {"gb-i": {"zone": "M-right"}, "fr-r": {"zone": "A-right"}, "fr-c": {"zone": "A-centre"},
                        "fr-m": {"zone": "M-centre"}}}
    p = pos(units, battle=battle)
    assert bt.fire_preview(p, "gb-i", "fr-r")["table"] == 9
    for target in ("fr-c", "fr-m"):
        with pytest.raises(InputError, match="straight ahead"):
            bt.fire_preview(p, "gb-i", target)
        with pytest.raises(InputError, match="straight ahead"):
            bt.charge_preview(p, "gb-i", target)


# ---------------------------------------------------------------------------------------------- E4 the major battle

FRENCH = {"A-left": ["f-i1", "f-i2", "f-i3", "f-i4", "f-i5", "f-c1", "f-c2", "f-c3", "f-a1", "f-a2", "f-a3",
                     "f-l2"],
          "A-centre": ["f-i6", "f-i7", "f-i8"], "A-right": ["f-i9", "f-i10"], "A-reserve": ["f-c4", "f-l1"]}
BRITISH = {"B-right": ["b-i1", "b-i2", "b-i3"], "B-centre": ["b-i4", "b-i5", "b-i6", "b-a1", "b-a2"],
           "B-left": ["b-i7", "b-i8", "b-i9"], "B-reserve": ["b-c1", "b-c2", "b-l1"]}
TYPES = {"i": "inf", "c": "cav", "a": "art", "l": "leader"}


def e4_start():
    units = [(u, "france", TYPES[u[2]], "picardy") for z in FRENCH.values() for u in z]
    units += [(u, "britain", TYPES[u[2]], "belgium") for z in BRITISH.values() for u in z]
    p = pos(units)
    moved = strategic.land_move(p, [u for z in FRENCH.values() for u in z], ["belgium"])
    assert moved.data["battles"] == ["belgium"]
    came = {u: "picardy" for z in FRENCH.values() for u in z}
    started = bt.start(moved.position, "belgium", ["france"], came)
    assert started.data["major"] and started.data["army_units"] == {"A": 17, "B": 13}
    placements = {u: z for side in (FRENCH, BRITISH) for z, us in side.items() for u in us}
    return bt.deploy(started.position, placements).position


class Play:
    """Drives the battle and checks that every given die is used."""

    def __init__(self, p):
        self.p = p

    def do(self, fn, *args, rolls=(), **kw):
        d = dice(*rolls)
        needs_dice = fn in (bt.fire, bt.charge, bt.rally, bt.pursue)
        out = fn(self.p, *args, d, **kw) if needs_dice else fn(self.p, *args, **kw)
        assert used_up(d), (fn.__name__, args, d.given)
        self.p = out.position
        return out

    def zone(self, uid):
        return self.p.battle.units[uid].zone.name(True)

    def end(self):
        self.do(bt.end_phase)


def test_e4_the_standard_battle_example():
    g = Play(e4_start())
    b = g.p.battle
    assert (b.phase, b.acting, b.round) == ("cavalry", "A", 1)
    _e4_round1_cavalry_and_artillery(g)
    _e4_round1_infantry_and_leaders(g)
    _e4_round2_cavalry_and_artillery(g)
    _e4_round2_infantry_and_leaders(g)
    _e4_round3_the_british_right_breaks(g)
    _e4_pursuit(g)
    _e4_losses_retreat_and_c_test(g)


def _e4_round1_cavalry_and_artillery(g: Play):
    """Round 1, cavalry and artillery: the reserve cavalry into the line; the French guns rout a British infantry, the
    British guns a French one."""
    g.do(bt.move, "f-c4", "A-left")  # the single reserve cavalry into the line
    g.end()
    g.do(bt.move, "b-c1", "B-centre")
    g.do(bt.move, "b-c2", "B-centre")
    g.end()
    # French artillery at 2 zones needs 9: 5, 7, 10; effect 5 routs
    assert bt.fire_preview(g.p, "f-a1", "b-i1")["table"] == 9
    assert not g.do(bt.fire, "f-a1", "b-i1", rolls=two(5)).data["hit"]
    assert not g.do(bt.fire, "f-a2", "b-i1", rolls=two(7)).data["hit"]
    out = g.do(bt.fire, "f-a3", "b-i1", rolls=(*two(10), 5))
    assert out.data["hit"] and g.zone("b-i1") == "B-rout"
    g.end()
    # British artillery at 2 zones: one hit, a French infantry routs (dice not given: chosen)
    assert not g.do(bt.fire, "b-a1", "f-i6", rolls=two(5)).data["hit"]
    g.do(bt.fire, "b-a2", "f-i6", rolls=(*two(9), 5))
    assert g.zone("f-i6") == "A-rout"
    g.end()


def _e4_round1_infantry_and_leaders(g: Play):
    """Round 1, infantry and leaders: both lines advance, moved units cannot fire; one British rally succeeds."""
    for u in ("f-i1", "f-i2", "f-i3", "f-i4"):
        g.do(bt.move, u, "M-left")
    g.do(bt.move, "f-i5", "A-centre")
    g.end()
    g.do(bt.move, "b-i4", "B-right")
    g.do(bt.move, "b-i5", "B-right")
    g.do(bt.move, "b-i6", "M-centre")
    g.do(bt.move, "b-i7", "B-centre")
    assert bt.fire_preview(g.p, "b-i2", "f-i1")["table"] == 9
    assert not g.do(bt.fire, "b-i2", "f-i1", rolls=two(6)).data["hit"]
    assert not g.do(bt.fire, "b-i3", "f-i1", rolls=two(8)).data["hit"]
    with pytest.raises(InputError, match="no combat action left"):  # moved units cannot also fire
        bt.fire(g.p, "b-i4", "f-i1", dice(6, 6))
    g.end()
    assert not g.do(bt.rally, "f-l1", "f-i6", rolls=two(5)).data["rallied"]
    assert not g.do(bt.rally, "f-l1", "f-i6", rolls=two(7)).data["rallied"]
    g.do(bt.move, "f-l2", "M-left")
    g.end()
    assert not g.do(bt.rally, "b-l1", "b-i1", rolls=two(7)).data["rallied"]
    assert g.do(bt.rally, "b-l1", "b-i1", rolls=two(9)).data["rallied"]
    assert g.zone("b-i1") == "B-reserve"
    g.end()
    assert (g.p.battle.round, g.p.battle.phase, g.p.battle.quiet_rounds) == (2, "cavalry", 0)


def _e4_round2_cavalry_and_artillery(g: Play):
    """Round 2, cavalry and artillery: every charge met by a square and aborted; the guns move up (combined arms)."""
    for cav, inf in zip(("f-c1", "f-c2", "f-c3", "f-c4"), ("b-i2", "b-i3", "b-i4", "b-i5"), strict=True):
        g.do(bt.move, cav, "M-left")
        out = g.do(bt.charge, cav, inf, square=True, abort=True)
        assert out.data["aborted"] and g.p.battle.units[inf].square
    g.end()
    for cav, inf in (("b-c1", "f-i7"), ("b-c2", "f-i8")):
        g.do(bt.move, cav, "M-centre")
        g.do(bt.charge, cav, inf, square=True, abort=True)
    assert g.p.battle.units["f-i7"].square and g.p.battle.units["f-i8"].square
    g.end()
    for a in ("f-a1", "f-a2", "f-a3"):
        g.do(bt.move, a, "M-left")
    assert bt.combined_arms(g.p.battle, g.p.units, Zone(3, 0), "A")
    g.end()
    g.do(bt.move, "b-a1", "M-centre")
    g.do(bt.move, "b-a2", "M-centre")
    assert bt.combined_arms(g.p.battle, g.p.units, Zone(3, 1), "B")
    g.end()


def _e4_round2_infantry_and_leaders(g: Play):
    """Round 2, infantry and leaders: fire at and from squares; the French rally their routed infantry."""
    # 4 French infantry fire at the squares: 9 - 1 = 8+; 3, 7, 9, 11; effects 1 (eliminated) and 5 (routed)
    pv = bt.fire_preview(g.p, "f-i1", "b-i2")
    assert pv["needs_raw"] == 8 and pv["modifiers"] == [(1, "infantry firing at a square (§8.5)")]
    g.do(bt.fire, "f-i1", "b-i2", rolls=two(3))
    g.do(bt.fire, "f-i2", "b-i3", rolls=two(7))
    g.do(bt.fire, "f-i3", "b-i4", rolls=(*two(9), 1))
    out = g.do(bt.fire, "f-i4", "b-i5", rolls=(*two(11), 5))
    assert "b-i4" not in g.p.units and g.zone("b-i5") == "B-rout"
    assert any("no leader in B-right" in line for line in out.lines)  # the raw 11 would have killed one
    g.do(bt.move, "f-i9", "A-centre")
    g.do(bt.leave_square, "f-i7")
    g.do(bt.leave_square, "f-i8")
    assert bt.fire_preview(g.p, "f-i5", "b-c1")["table"] == 8
    g.do(bt.fire, "f-i5", "b-c1", rolls=(*two(10), 2))
    assert "b-c1" not in g.p.units
    g.end()
    g.do(bt.move, "b-i7", "M-centre")
    g.do(bt.move, "b-i1", "B-right")
    g.do(bt.fire, "b-i6", "f-i5", rolls=two(5))  # misses (dice not given: chosen)
    pv = bt.fire_preview(g.p, "b-i2", "f-i1")
    assert pv["needs_raw"] == 10  # base 9, -1 firing from square
    g.do(bt.fire, "b-i2", "f-i1", rolls=(*two(10), 4))  # one hit, the French unit routs (dice chosen)
    g.do(bt.fire, "b-i3", "f-i2", rolls=two(4))
    assert g.zone("f-i1") == "A-rout"
    g.end()
    assert not g.do(bt.rally, "f-l1", "f-i6", rolls=two(3)).data["rallied"]
    assert g.do(bt.rally, "f-l1", "f-i6", rolls=two(8)).data["rallied"]
    g.end()
    assert not g.do(bt.rally, "b-l1", "b-i5", rolls=two(5)).data["rallied"]  # fails (dice not given: chosen)
    g.do(bt.move, "b-l1", "B-right")
    g.end()


def _e4_round3_the_british_right_breaks(g: Play):
    """Round 3: charges won and lost (A7), then the French guns break the British right: Britain loses at once."""
    pv = bt.charge_preview(g.p, "f-c1", "b-i1")
    assert pv["may_form_square"]
    out = g.do(bt.charge, "f-c1", "b-i1", rolls=(*two(9), *two(7)), square=True)
    att, dfn = out.rolls
    assert [m for m, _ in att["modifiers"]] == [2, 1, 1, -3] and sum(m for m, _ in att["modifiers"]) == 1
    assert [m for m, _ in dfn["modifiers"]] == [1]
    assert (att["total"], dfn["total"]) == (10, 8) and g.zone("b-i1") == "B-rout"
    out = g.do(bt.charge, "f-c1", "b-i2", rolls=(*two(4), *two(8)))
    assert out.data["difference"] == -4 and "f-c1" not in g.p.units  # the attacker loses and is eliminated (A7)
    g.end()
    out = g.do(bt.charge, "b-c2", "f-i5", rolls=(*two(8), *two(8)))
    assert (out.rolls[0]["total"], out.rolls[1]["total"]) == (11, 8) and "f-i5" not in g.p.units
    out = g.do(bt.charge, "b-c2", "f-i7", rolls=(*two(5), *two(9)))
    assert (out.rolls[0]["total"], out.rolls[1]["total"]) == (8, 9) and g.zone("b-c2") == "B-rout"
    g.end()
    pv = bt.fire_preview(g.p, "f-a1", "b-i2")
    assert (pv["distance"], pv["table"], pv["needs_raw"]) == (1, 8, 6)
    g.do(bt.fire, "f-a1", "b-i2", rolls=(*two(7), 2))
    assert g.p.battle.phase == "artillery"  # the British right still holds one square
    out = g.do(bt.fire, "f-a2", "b-i3", rolls=(*two(9), 6))
    assert "b-i2" not in g.p.units and g.zone("b-i3") == "B-rout"
    # the British right flank holds only the leader: the line is broken, Britain loses at once
    b = g.p.battle
    assert (b.phase, b.loser) == ("pursuit", "B") and "B-right" in b.end_reason
    with pytest.raises(InputError):
        bt.fire(g.p, "f-a3", "b-i3", dice(6, 6))


def _e4_pursuit(g: Play):
    """The pursuit: no British cavalry outside the rout zone, so cavalry and infantry pursue."""
    st = bt.pursuit_state(g.p)
    assert st["screen"] == [] and len([u for u in st["pursuers"] if u.startswith("f-c")]) == 3
    assert len([u for u in st["pursuers"] if u.startswith("f-i")]) == 8
    g.do(bt.pursue, "f-c2", "b-a1", rolls=(2,))
    g.do(bt.pursue, "f-c3", "b-a1", rolls=(4,))
    g.do(bt.pursue, "f-c4", "b-a2", rolls=(5,))
    for u, r in zip(("f-i2", "f-i3", "f-i4", "f-i6"), (1, 4, 3, 6), strict=True):
        g.do(bt.pursue, u, "b-l1", rolls=(r,))
    for u, r in zip(("f-i7", "f-i8", "f-i9", "f-i10"), (5, 2, 4, 6), strict=True):
        g.do(bt.pursue, u, "b-i6", rolls=(r,))
    assert {"b-a1", "b-a2", "b-l1", "b-i6"}.isdisjoint(g.p.units)


def _e4_losses_retreat_and_c_test(g: Play):
    """Losses (A15), the retreat (§8.9), the PAP for the victor and Britain's C-value test."""
    losses = bt.losses(g.p.battle)
    assert losses["britain"] == {"infantry": 3, "cavalry": 1, "artillery": 2, "leader": 1}
    assert losses["france"] == {"infantry": 1, "cavalry": 1}  # per-roll outcomes, not the summary line (A15)
    assert bt.c_test_due(g.p.battle) == ["britain"]
    assert bt.retreat_options(g.p, "b-i8") == ["holland", "rhineland"]  # not Picardy (§8.9)
    out = g.do(bt.end_battle, {"*": "holland"})
    british = [u for u in out.position.units.values() if u.nation == "britain"]
    assert british and all(u.at == "holland" for u in british)
    assert len(british) == 14 - 7  # 9 inf, 2 cav, 2 art, 1 leader; 7 lost
    assert out.data["c_tests"] == ["britain"] and out.position.pap.get("france") == 1  # +1 PAP, major battle (§9.7)
    # Britain rolls against its C value at once (the scenario's value; 8 here for the test)
    p = replace(out.position, c_values={"britain": 8})
    assert politics.c_test(p, "britain", dice(*two(9)))["sues_for_peace"]
    assert not politics.c_test(p, "britain", dice(*two(8)))["sues_for_peace"]

