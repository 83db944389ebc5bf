"""One test per rule added to finish issue 3: simultaneity, evasion, counter-attack, pursuit, continued flight,
one Gegenzug per target, fire then retreat, mounting and dismounting, replacing a lost general."""

from __future__ import annotations

import pytest

from common.errors import InputError
from rules import position as positions
from rules.wiener import DEFAULT
from rules.wiener.resolve import (
    Choices,
    fleeing_at_phase_start,
    gegenzug_spots,
    resolve_continued_flight,
    resolve_counterattack,
    resolve_fire,
    resolve_gegenzug,
    resolve_general_replacement,
    resolve_melee,
    resolve_mount,
    resolve_simultaneous,
)

from .util import dice, make, piece


def test_s8_6_simultaneous_fire_rolls_every_duel_on_the_position_before_any_result():
    pcs = [piece("a", "FR", "infantry", "C3", "N"), piece("b", "FR", "infantry", "D3", "N"),
           piece("t", "AU", "infantry", "C4", "S")]
    pos = make(*pcs)
    # a rolls 4 (+1 at 1 LE = 5), t 1 (+1 = 2): Grey; b rolls 3 (+1 = 4), t 1 (+1 = 2): Red.
    res = resolve_simultaneous(pos, "fire", ["a", "b"], "t", dice(4, 1, 3, 1))
    assert [d["winner"] for d in res.extra["duels"]] == ["attacker", "attacker"]
    # simultaneous: t's second counter-fire is not weakened by the Grey of the first duel
    assert res.extra["duels"][1]["defender"]["wz"] == 2
    assert res.after.piece("t").markers == ("grey", "red") and res.effect == "grey"
    assert res.after.piece("a").fired and res.after.piece("b").fired


def test_s8_6_simultaneity_needs_side_fields_and_at_most_three():
    pcs = [piece(f"a{i}", "FR", "infantry", f"{c}3", "N") for i, c in enumerate("CDEF")]
    pos = make(*pcs, piece("far", "FR", "infantry", "J3", "N"), piece("t", "AU", "infantry", "D4", "S"))
    with pytest.raises(InputError, match="more than 3"):
        resolve_simultaneous(pos, "fire", ["a0", "a1", "a2", "a3"], "t", dice())
    with pytest.raises(InputError, match="side field"):
        resolve_simultaneous(pos, "fire", ["a1", "far"], "t", dice())


def test_s8_6_simultaneous_melee_target_flees_once_from_the_best_winner():
    pcs = [piece("a", "FR", "infantry", "C3", "N"), piece("b", "FR", "infantry", "D3", "N"),
           piece("t", "AU", "infantry", "C4", "S")]
    pos = make(*pcs)
    res = resolve_simultaneous(pos, "melee", ["a", "b"], "t", dice(6, 1, 3, 2), choices=Choices(flight_distance=1),
                               loss_die=1)
    t = res.after.piece("t")
    assert res.winner == "attacker" and t.black and t.field == (2, 4)  # fled 1 LE north, away from a
    assert res.after.piece("b").field == (3, 2)


def test_s8_7_evasion_by_faster_troops_gives_red_and_avoids_the_melee():
    pos = make(piece("a", "FR", "infantry", "C3", "N"), piece("h", "AU", "light_cavalry", "C4", "S"))
    res = resolve_melee(pos, "a", "h", dice(), choices=Choices(evade=2))
    h = res.after.piece("h")
    assert res.extra["evaded"] and h.field == (2, 5) and h.markers == ("red",) and h.facing == "S"
    slow = make(piece("a", "FR", "heavy_cavalry", "C3", "N"), piece("i", "AU", "infantry", "C4", "S"))
    with pytest.raises(InputError, match="superior speed"):
        resolve_melee(slow, "a", "i", dice(), choices=Choices(evade=1))
    flank = make(piece("a", "FR", "infantry", "C3", "N"), piece("h", "AU", "light_cavalry", "C4", "E"))
    with pytest.raises(InputError, match="not recognised"):
        resolve_melee(flank, "a", "h", dice(), choices=Choices(evade=1))


def test_s8_7_gegenangriff_against_a_mover_using_the_control_zone():
    pcs = [piece("cuir", "AU", "heavy_cavalry", "E3", "N"), piece("weak", "AU", "infantry", "F5", "S", marker="black"),
           piece("drag", "FR", "infantry", "E7", "S")]
    pos = make(*pcs)
    # drag attacks the fleeing 'weak' from E4, in front of the cuirassiers: they counter-attack first
    res = resolve_counterattack(pos, "cuir", "drag", (4, 3), dice(5, 2), against="weak", loss_die=1)
    assert res.action == "counterattack" and res.winner == "attacker"
    assert res.after.piece("drag").black and res.after.piece("drag").field[1] > 3
    with pytest.raises(InputError, match="control zone"):
        resolve_counterattack(pos, "cuir", "drag", (4, 1), dice(5, 2), against="weak")
    ready = make(*pcs[:1], piece("weak", "AU", "infantry", "F5", "S"), pcs[2])
    with pytest.raises(InputError, match="combat-ready"):
        resolve_counterattack(ready, "cuir", "drag", (4, 3), dice(5, 2), against="weak")
    past = resolve_counterattack(ready, "cuir", "drag", (4, 3), dice(5, 2), path=[(4, 4), (4, 3), (4, 2)])
    assert "Vorbeiziehen" in past.notes[0]


def test_s8_8_pursuit_by_faster_troops_makes_the_fleeing_capitulate():
    pos = make(piece("c", "FR", "heavy_cavalry", "C3", "N"), piece("f", "AU", "infantry", "C4", "N", marker="black"))
    res = resolve_melee(pos, "c", "f", dice())
    assert res.effect == "capitulated" and "f" not in res.after.by_id
    assert res.after.piece("c").field == (2, 3)  # undefended: the winner must follow up


def test_s8_8_pursuit_at_equal_speed_effect_without_defence_and_one_more_le():
    pos = make(piece("a", "FR", "infantry", "C3", "N"), piece("f", "AU", "infantry", "C4", "N", marker="black"))
    res = resolve_melee(pos, "a", "f", dice(3), choices=Choices(flight_distance=2))  # WZ 3 + 1 base = 4: Red
    f = res.after.piece("f")
    assert res.defender["responded"] is False and f.field == (2, 4) and "red" in f.markers and f.black


def test_s8_8_continued_flight_after_a_failed_rally_moves_the_troop():
    pos = make(piece("u", "FR", "infantry", "C3", "S", marker="black"), piece("v", "FR", "infantry", "D5", "N"))
    assert fleeing_at_phase_start(pos, "FR") == ["u"]
    res = resolve_continued_flight(pos, "u", 0, Choices(flight_distance=2))
    assert res.after.piece("u").field == (2, 0) and res.after.piece("u").black
    off = resolve_continued_flight(pos, "u", 1, Choices(flight_distance=2))  # 45 degrees to the right: SW
    assert off.after.piece("u").field == (0, 0)
    edge = resolve_continued_flight(make(piece("u", "FR", "infantry", "C1", "S", marker="black")), "u")
    assert edge.effect == "capitulated" and "u" not in edge.after.by_id
    with pytest.raises(InputError, match="not fleeing"):
        resolve_continued_flight(pos, "v")


def test_s8_4_one_gegenzug_per_unit_per_target_tracked_in_the_position():
    pos = make(piece("art", "AU", "artillery", "C3", "N"), piece("hus", "FR", "light_cavalry", "A6", "E"))
    path = [(1, 5), (2, 5), (3, 5)]
    res = resolve_gegenzug(pos, "art", "hus", path, (2, 5), dice(1, 1))
    art = res.after.piece("art")
    assert art.gegenzug == ("hus",) and art.shot_out
    assert any(c["piece"] == "art" and c["gegenzug"] == ["hus"] for c in res.changes())
    again = positions.loads(positions.dumps(res.after))  # the record survives the position file
    assert again.piece("art").gegenzug == ("hus",)
    spots = gegenzug_spots(again, again.piece("art"), again.piece("hus"), path)
    assert not any(s["allowed"] for s in spots) and "one per unit per target" in spots[0]["reason"]


def test_s11_a18_infantry_fire_then_retreat():
    pos = make(piece("i", "FR", "infantry", "C3", "N"), piece("t", "AU", "infantry", "C5", "S"))
    res = resolve_fire(pos, "i", "t", dice(5, 1), retreat=[(2, 1)])
    i = res.after.piece("i")
    assert res.winner == "attacker" and i.field == (2, 1) and i.facing == "N" and i.markers == ("red",) and i.moved
    off = DEFAULT.with_values({"infantry_fire_then_retreat": False})
    with pytest.raises(InputError, match="A18"):
        resolve_fire(pos, "i", "t", dice(5, 1), retreat=[(2, 1)], opts=off)
    with pytest.raises(InputError, match="straight back"):
        resolve_fire(pos, "i", "t", dice(5, 1), retreat=[(3, 3)])
    art = make(piece("g", "FR", "artillery", "C3", "N"), piece("t", "AU", "infantry", "C5", "S"))
    with pytest.raises(InputError, match="only infantry"):
        resolve_fire(art, "g", "t", dice(5), retreat=[(2, 1)])


def test_s4_light_cavalry_mounts_and_dismounts_at_the_start_of_its_phase():
    pos = make(piece("h", "FR", "light_cavalry", "C3"), piece("w", "FR", "light_cavalry", "E3",
                                                              formation="dismounted"),
               fields={"E3": {"terrain": "wood"}})
    res = resolve_mount(pos, "h", False)
    assert res.after.piece("h").formation == "dismounted" and res.effect == "dismounted"
    with pytest.raises(InputError, match="cannot mount here"):
        resolve_mount(pos, "w", True)
    moved = make(piece("h", "FR", "light_cavalry", "C3", formation="dismounted", moved=True))
    with pytest.raises(InputError, match="start of the active phase"):
        resolve_mount(moved, "h", True)
    with pytest.raises(InputError, match="only light cavalry"):
        resolve_mount(make(piece("c", "FR", "heavy_cavalry", "C3")), "c", False)


def test_s8_11_lost_general_replaced_on_a_6_at_the_table_edge():
    pos = make(piece("a", "FR", "infantry", "C3"))
    res = resolve_general_replacement(pos, "gen2", "FR", (0, 9), dice(6))
    g = res.after.piece("gen2")
    assert res.effect == "replaced" and g.type == "general" and g.field == (0, 9)
    assert any(c.get("added") and c["piece"] == "gen2" for c in res.changes())
    assert "gen2" not in resolve_general_replacement(pos, "gen2", "FR", (0, 9), dice(5)).after.by_id
    with pytest.raises(InputError, match="table edge"):
        resolve_general_replacement(pos, "gen2", "FR", (5, 5), dice(6))
