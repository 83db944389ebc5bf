"""The Coalitions digest's worked examples (§10, E1-E15) with their exact outcomes, on the shipped (INVENTED) map,
whose borders were drawn to keep the examples' stated facts (Galicia's neighbours, Cornwall-Oporto, ...)."""

from __future__ import annotations

import pytest

from common.errors import InputError
from rules.coalitions import battle, diplomacy, movement, turn
from rules.coalitions.model import POWERS, position_from_dict
from rules.coalitions.movement import Move


def pos(**fields):
    return position_from_dict({"system": "coalitions", **fields})


def gen(gid, power, at, troops=0, special=None):
    return {"id": gid, "side": power, "type": special or "general", "area": at, "troops": troops}


def test_e1_status_declaration_sets_the_relations():
    p = pos(round=2, phase="diplomacy", statuses={"austria": "neutral", "prussia": "british",
                                                  "russia": "french", "ottoman": "british"})
    r = diplomacy.declare(p, {"austria": "british", "russia": "british", "prussia": "neutral",
                              "ottoman": "expansionist"})
    after = r.position
    at_war_with_ottoman = {q for q in POWERS if q != "ottoman" and diplomacy.at_war(after, "ottoman", q)}
    assert at_war_with_ottoman == {"britain", "austria", "russia", "france"}
    assert diplomacy.relation(after, "ottoman", "prussia") == "peace"
    assert diplomacy.relation(after, "austria", "russia") == "allied"
    assert diplomacy.at_war(after, "britain", "france")
    assert r.data["statuses"]["prussia"] == "neutral"


def test_e2_the_wheel_moves_russia_from_leadership_to_mobilisation():
    p = pos()
    t = next(t for t in range(1, 7) if turn.action_of(p, "russia", t) == "leadership")
    assert turn.action_of(p, "russia", t + 1) == "mobilisation"
    assert turn.action_of(p, "britain", 1) == "drill"
    assert sorted(turn.action_of(p, q, 3) for q in POWERS) == sorted(turn.ACTIONS)
    # after the sixth turn Britain is back over Drill (§4.2)
    p6 = pos(turn=6)
    nxt = turn.end_turn(p6).position
    assert (nxt.state.round, nxt.state.turn) == (2, 1) and turn.action_of(nxt, "britain") == "drill"


def _e4_start():
    return pos(statuses={"austria": "british", "prussia": "british", "russia": "french", "ottoman": "expansionist"},
               morale={"ottoman": 2, "britain": 5},
               pieces=[gen("gb-1", "britain", "cornwall", 1), gen("gb-2", "britain", "london", 2),
                         gen("fr-1", "france", "paris", 3)],
               garrisons={"lisboa": "france"})


def test_e15_eligible_arbiters_of_britain():
    p = _e4_start()
    assert set(movement.eligible_arbiters(p, "britain")) == {"france", "russia", "ottoman"}
    p15 = pos(statuses={"austria": "british", "prussia": "british", "russia": "french", "ottoman": "expansionist"},
              morale={"russia": 15})
    assert set(movement.eligible_arbiters(p15, "britain")) == {"france", "ottoman"}
    with pytest.raises(InputError, match="may not be britain's Arbiter"):
        movement.start_movement(p15, "britain", "austria")


def test_e3_e4_british_movement_sea_moves_and_the_lisboa_battle():
    p = _e4_start()
    r = movement.start_movement(p, "britain", "ottoman")
    assert r.position.state.morale["ottoman"] == 3
    r = movement.move_turn(r.position, [Move("gb-1", "sea", ["oporto"]), Move("gb-2", "march", ["cornwall"])])
    assert r.data["battles"] == []
    r = movement.ask_turn(r.position, True)
    assert r.position.state.morale["ottoman"] == 5  # +1 then +2: 3 in all (E4)
    r = movement.move_turn(r.position, [Move("gb-2", "sea", ["oporto", "lisboa"])])
    assert r.data["battles"] == ["lisboa"]
    b = battle.fight(r.position, "lisboa", cards={"gb-2": [5]})
    st = b.position.state
    assert b.data["winner"] == "attacker"
    assert st.garrisons["lisboa"] == "britain" and st.generals["gb-2"].troops == 0  # 2 - 1, the last flipped
    assert st.influence.get("britain", 0) == 0  # a lone Garrison gives no IP (§8.6)


def test_e3_sea_move_passes_an_enemy_port():
    p = pos(pieces=[gen("gb-1", "britain", "cornwall", 2)], garrisons={"oporto": "france"})
    p = movement.start_movement(p, "britain", "france").position
    r = movement.move_turn(p, [Move("gb-1", "sea", ["oporto", "lisboa"])])
    assert r.data["battles"] == [] and r.position.state.generals["gb-1"].at == "lisboa"
    assert "oporto" not in r.data["battles"]


def test_e5_france_strategic_moves_and_the_refused_second_turn():
    p = pos(statuses={"austria": "british", "prussia": "british", "russia": "french", "ottoman": "expansionist"},
            morale={"ottoman": 4},
            pieces=[gen("fr-1", "france", "paris", 3), gen("fr-2", "france", "lombardia", 2),
                      gen("gb-1", "britain", "lisboa", 2)],
            garrisons={"madrid": "france", "navarra": "france", "catalonia": "france", "lombardia": "france"})
    r = movement.start_movement(p, "france", "ottoman")
    r = movement.move_turn(r.position, [Move("fr-1", "strategic", ["aquitaine", "navarra", "madrid"]),
                                        Move("fr-2", "strategic", ["provence", "languedoc", "catalonia"])])
    assert r.data["battles"] == []
    r = movement.ask_turn(r.position, False)
    st = r.position.state
    assert st.movement is None and st.morale["ottoman"] == 5  # +1 only
    assert (st.generals["fr-1"].at, st.generals["fr-2"].at) == ("madrid", "catalonia")


def test_strategic_move_never_attacks():
    p = pos(pieces=[gen("fr-1", "france", "paris", 3), gen("gb-1", "britain", "lisboa", 1)],
            garrisons={"madrid": "france", "navarra": "france", "lisboa": "britain"})
    p = movement.start_movement(p, "france", "austria").position
    with pytest.raises(InputError, match="not controlled by france"):
        movement.move_turn(p, [Move("fr-1", "strategic", ["aquitaine", "navarra", "leon"])])


def test_e6_arbiter_at_12_allows_two_turns():
    p = pos(morale={"ottoman": 12}, pieces=[gen("gb-1", "britain", "london", 1)])
    assert movement.max_move_turns(p, "ottoman") == 2
    r = movement.start_movement(p, "britain", "ottoman")
    r = movement.move_turn(r.position, [])
    r = movement.ask_turn(r.position, True)
    assert r.position.state.morale["ottoman"] == 15
    r = movement.move_turn(r.position, [])
    with pytest.raises(InputError, match="would pass 15"):
        movement.ask_turn(r.position, True)


def _holland():
    return pos(statuses={"austria": "neutral", "prussia": "british", "russia": "neutral", "ottoman": "neutral"},
               morale={"france": 4, "britain": 5, "prussia": 4, "austria": 3},
               influence={"britain": 3, "prussia": 1},
               hands={"france": 6, "britain": 4, "prussia": 3},
               pieces=[gen("napoleon", "france", "picardie", 3, "napoleon"), gen("fr-2", "france", "lorraine", 3),
                         gen("wellington", "britain", "holland", 2, "wellington"),
                         gen("gb-2", "britain", "london", 1),
                         gen("blucher", "prussia", "holland", 2, "blucher")])


def test_e7_battle_of_holland():
    p = movement.start_movement(_holland(), "france", "austria").position
    r = movement.move_turn(p, [Move("napoleon", "march", ["holland"]), Move("fr-2", "march", ["picardie"])])
    assert r.data["battles"] == ["holland"]
    pv = battle.preview(r.position, "holland", "france", {"fr-2": "attacker", "gb-2": "defender"})
    assert pv["base"] == {"attacker": 4, "defender": 6}
    b = battle.fight(r.position, "holland", support={"fr-2": "attacker", "gb-2": "defender"},
                     cards={"napoleon": [4, 4], "fr-2": [7, 4],
                            "wellington": [6, 3], "blucher": [5, 2], "gb-2": [4]})
    st = b.position.state
    assert b.data["strength"]["attacker"]["total"] == 24 and b.data["strength"]["defender"]["total"] == 26
    assert b.data["winner"] == "defender"
    g = st.generals
    assert (g["wellington"].troops, g["blucher"].troops, g["gb-2"].troops) == (1, 1, 0)
    assert (g["napoleon"].at, g["napoleon"].troops) == ("paris", 0)
    assert (g["fr-2"].at, g["fr-2"].troops) == ("picardie", 2)
    assert st.influence["britain"] == 3 + 2 and st.influence["prussia"] == 1 + 2
    assert st.morale["france"] == 0 and st.morale["britain"] == 2 and st.morale["prussia"] == 2
    assert st.hands == {"france": 6 - 4 + 1, "britain": 4 - 3 + 1, "prussia": 3 - 2 + 1}


def test_e7_cards_beyond_a_generals_troops_are_refused():
    p = movement.start_movement(_holland(), "france", "austria").position
    r = movement.move_turn(p, [Move("napoleon", "march", ["holland"])])
    with pytest.raises(InputError, match="gb-2 may play 1"):
        battle.fight(r.position, "holland", support={"gb-2": "defender"}, cards={"gb-2": [4, 4]})


def test_e8_austria_turns_neutral():
    p = pos(round=2, phase="diplomacy",
            statuses={"austria": "british", "prussia": "british", "russia": "british", "ottoman": "neutral"},
            pieces=[gen("pr-1", "prussia", "wien", 1), gen("at-1", "austria", "saxonia", 1)],
            garrisons={"wien": "prussia", "saxonia": "austria"})
    r = diplomacy.declare(p, {"austria": "neutral"})
    st = r.position.state
    assert "wien" not in st.garrisons
    assert st.generals["pr-1"].troops == 2  # the Garrison became a Troop under him
    assert st.generals["pr-1"].at == "silesia"  # the nearest Prussian-controlled Territory
    assert st.garrisons["saxonia"] == "austria" and st.generals["at-1"].at == "saxonia"
    assert diplomacy.can_attack(r.position, "france", "austria", "saxonia")
    assert not diplomacy.can_attack(r.position, "france", "austria", "wien")


def test_e9_peace_to_war_the_garrison_side_is_stronger():
    p = pos(round=2, phase="diplomacy",
            statuses={"austria": "british", "prussia": "neutral", "russia": "british", "ottoman": "neutral"},
            pieces=[gen("ru-1", "russia", "galicia", 0), gen("ru-2", "russia", "polesie", 1)],
            garrisons={"galicia": "austria", "podolia": "russia", "warszawa": "prussia"})
    r = diplomacy.declare(p, {"austria": "french"})
    st = r.position.state
    assert st.generals["ru-1"].at == "podolia"
    assert st.garrisons["galicia"] == "austria"


def _e11():
    return pos(round=2, minors={"ottoman": "russia"},
               statuses={"austria": "neutral", "prussia": "british", "russia": "british"},
               morale={"britain": 5, "austria": 4, "russia": 6, "france": 7, "prussia": 2},
               pieces=[gen("ru-1", "russia", "wallachia", 0), gen("ru-2", "russia", "bessarabia", 1),
                         gen("ot-1", "ottoman", "bessarabia", 2)],
               garrisons={"bessarabia": "ottoman", "podolia": "russia"})


def test_e11_bidding_and_the_board_update():
    r = diplomacy.bid(_e11(), "ottoman", {"britain": 2, "austria": 3, "russia": 3, "france": 0, "prussia": 0},
                      {"to.ru-1": "podolia"})
    st = r.position.state
    assert r.data["controller"] == "austria"
    assert (st.morale["austria"], st.morale["britain"], st.morale["russia"]) == (1, 5, 6)
    assert st.status("ottoman") == "neutral"
    assert st.generals["ru-1"].at == "podolia"
    assert st.generals["ru-2"].at == "crimea" and st.generals["ru-2"].troops == 1
    assert st.generals["ot-1"].at == "bessarabia" and st.garrisons["bessarabia"] == "ottoman"


def test_e11_two_equally_near_destinations_are_the_players_choice():
    r = diplomacy.bid(_e11(), "ottoman", {"austria": 3})
    assert any("equally near" in n for n in r.notes)
    with pytest.raises(InputError, match="nearest russia-controlled"):
        diplomacy.bid(_e11(), "ottoman", {"austria": 3}, {"to.ru-1": "moskva"})


def test_e10_minor_taken_over_at_peace():
    p = pos(round=2, minors={"prussia": None, "ottoman": None},
            statuses={"austria": "french", "russia": "british", "prussia": "british", "ottoman": "neutral"},
            morale={"austria": 3},
            pieces=[gen("at-1", "austria", "silesia", 1)], garrisons={"silesia": "austria"})
    r = diplomacy.bid(p, "prussia", {"austria": 1})
    st = r.position.state
    assert diplomacy.allied(st, "austria", "prussia")
    assert "silesia" not in st.garrisons
    assert st.generals["at-1"].at == "silesia" and st.generals["at-1"].troops == 2


def test_e12_minor_ip_goes_to_its_controller():
    base = dict(minors={"prussia": "britain", "ottoman": None}, statuses={"austria": "french", "russia": "british"},
                morale={"britain": 5, "austria": 5, "france": 5, "russia": 5})
    p = pos(**base, pieces=[gen("pr-1", "prussia", "saxonia", 3), gen("at-1", "austria", "bohemia", 1)])
    p = movement.start_movement(p, "austria", "russia").position
    p = movement.move_turn(p, [Move("at-1", "march", ["saxonia"])]).position
    r = battle.fight(p, "saxonia", cards={})
    assert r.data["winner"] == "defender" and r.position.state.influence == {"britain": 1}
    p2 = pos(**base, pieces=[gen("pr-1", "prussia", "saxonia", 3), gen("gb-1", "britain", "saxonia", 1),
                               gen("at-1", "austria", "bohemia", 1)])
    p2 = movement.start_movement(p2, "austria", "russia").position
    p2 = movement.move_turn(p2, [Move("at-1", "march", ["saxonia"])]).position
    r2 = battle.fight(p2, "saxonia", cards={})
    assert r2.position.state.influence == {"britain": 2}


def test_e13_british_sea_support_only_along_a_direct_route():
    for where, ok in (("oporto", True), ("lisboa", False)):
        p = pos(pieces=[gen("fr-1", "france", where, 2), gen("gb-1", "britain", "cornwall", 1),
                          gen("gb-2", "britain", where, 1)])
        sd = battle.sides(p, where, "france")
        why = battle.support_reasons(p.state, sd, "gb-1", "defender")
        assert (why is None) == ok, why
        assert ok or "Sea Route" in why
