"""Coalitions rules beyond the worked examples: movement bans and limits (§5), battle details and special Generals
(§8), the economy actions (§9.5), victory (§9.1), Minors (§9.6), scenarios (§9.9), L'Empereur (§9.8), options (§11)."""

from __future__ import annotations

import pytest

from common.errors import InputError
from rules.coalitions import GAME, automa, battle, diplomacy, economy, movement, scenarios, turn
from rules.coalitions.model import freeze, position_from_dict
from rules.coalitions.movement import Move
from rules.coalitions.options import DEFAULT, load_options

BC = {"austria": "british", "prussia": "british", "russia": "french", "ottoman": "expansionist"}


def pos(**fields):
    return position_from_dict({"system": "coalitions", **fields})


def gen(gid, power, at=None, troops=0, special=None):
    return {"id": gid, "side": power, "type": special or "general", "area": at, "troops": troops}


def moving(p, power, arbiter="ottoman"):
    return movement.start_movement(p, power, arbiter).position


# ---------------------------------------------------------------------------------------------- movement (§5)


def test_the_arbiter_is_compulsory_and_without_one_there_is_one_turn():
    p = pos(statuses=BC, pieces=[gen("gb-1", "britain", "london", 1)])
    with pytest.raises(InputError, match="compulsory"):
        movement.start_movement(p, "britain")
    allies = pos(statuses={"austria": "french", "prussia": "french", "russia": "french", "ottoman": "french"},
                 pieces=[gen("gb-1", "britain", "london", 1)], morale={"britain": 15})
    r = movement.start_movement(allies, "france")
    assert r.position.state.movement.arbiter is None
    r = movement.move_turn(r.position, [])
    with pytest.raises(InputError, match="no Move Turn 2"):
        movement.ask_turn(r.position, True)


def test_disbanding_returns_control_to_the_home_owner():
    p = pos(statuses=BC, garrisons={"tyrol": "france", "holland": "france"})
    r = movement.start_movement(p, "france", "ottoman", disband=["tyrol", "holland"])
    st = r.position.state
    assert st.controller("tyrol") == "austria" and st.controller("holland") is None


def test_two_own_generals_may_not_end_together_but_may_pass_a_vacated_territory():
    p = moving(pos(statuses=BC, pieces=[gen("fr-1", "france", "paris", 1), gen("fr-2", "france", "picardie", 1)]),
               "france")
    with pytest.raises(InputError, match="two Generals on one Territory"):
        movement.move_turn(p, [Move("fr-1", "march", ["picardie"])])
    r = movement.move_turn(p, [Move("fr-1", "march", ["picardie"]), Move("fr-2", "march", ["holland"])])
    assert r.position.state.generals["fr-1"].at == "picardie"


def test_impassable_neutral_home_and_neutral_mover_bans():
    p = pos(statuses={**BC, "austria": "neutral"},
            pieces=[gen("fr-1", "france", "provence", 1), gen("fr-2", "france", "lombardia", 1),
                    gen("at-1", "austria", "wien", 1)])
    assert "Impassable" in movement.entry_reasons(p, "france", "alps")[0]
    assert any("Neutral" in r for r in movement.entry_reasons(p, "france", "tyrol"))
    assert any("does not control" in r for r in movement.entry_reasons(p, "austria", "bavaria"))
    assert movement.entry_reasons(p, "austria", "tyrol") == []
    p = moving(p, "france")
    with pytest.raises(InputError, match="Neutral"):
        movement.move_turn(p, [Move("fr-2", "march", ["tyrol"])])


def test_a_neutral_garrison_outside_its_home_may_be_attacked():
    p = pos(statuses={**BC, "austria": "neutral"}, pieces=[gen("fr-1", "france", "pfalz", 2)],
            garrisons={"wurttemberg": "austria"})
    r = movement.move_turn(moving(p, "france"), [Move("fr-1", "march", ["wurttemberg"])])
    assert r.data["battles"] == ["wurttemberg"]


def test_sea_moves_only_for_the_british_coalition_and_with_britains_consent():
    p = pos(statuses=BC, pieces=[gen("pr-1", "prussia", "borussia", 1), gen("fr-1", "france", "provence", 1)])
    pm = moving(p, "prussia", "france")
    with pytest.raises(InputError, match="consent"):
        movement.move_turn(pm, [Move("pr-1", "sea", ["sverige"])])
    r = movement.move_turn(pm, [Move("pr-1", "sea", ["sverige"], consent=True)])
    assert r.position.state.generals["pr-1"].at == "sverige"
    with pytest.raises(InputError, match="only Britain and the British Coalition"):
        movement.move_turn(moving(p, "france", "ottoman"), [Move("fr-1", "sea", ["napoli"])])


def test_sea_moves_follow_at_most_three_routes_from_a_port():
    p = moving(pos(statuses=BC, pieces=[gen("gb-1", "britain", "cornwall", 1), gen("gb-2", "britain", "london")]),
               "britain", "france")
    with pytest.raises(InputError, match="at most 3"):
        movement.move_turn(p, [Move("gb-1", "sea", ["oporto", "lisboa", "madrid", "andalusia"])])
    with pytest.raises(InputError, match="no Sea Route"):
        movement.move_turn(p, [Move("gb-1", "sea", ["lisboa"])])
    assert "lisboa" in movement.destinations(p, "gb-1")["sea"]
    assert "holland" not in movement.destinations(p, "gb-1")["march"]  # Britain is left only by sea (§3.2)


def test_strategic_moves_need_friendly_territory_and_an_allys_consent():
    p = pos(statuses=BC, pieces=[gen("at-1", "austria", "tyrol", 1)], garrisons={"bavaria": "prussia"})
    pm = moving(p, "austria", "france")
    with pytest.raises(InputError, match="consent"):
        movement.move_turn(pm, [Move("at-1", "strategic", ["bavaria"])])
    assert movement.move_turn(pm, [Move("at-1", "strategic", ["bavaria"], consent=True)]).position.state \
        .generals["at-1"].at == "bavaria"
    with pytest.raises(InputError, match="at most 3"):
        movement.move_turn(pm, [Move("at-1", "strategic", ["wien", "bohemia", "hungaria", "galicia"])])


def test_garrisons_left_on_the_way():
    p = moving(pos(statuses=BC, pieces=[gen("fr-1", "france", "picardie", 2), gen("fr-2", "france", "paris")]),
               "france")
    r = movement.move_turn(p, [Move("fr-1", "march", ["holland"], ["picardie", "holland"])])
    st = r.position.state
    assert st.garrisons == {"picardie": "france", "holland": "france"} and st.generals["fr-1"].troops == 0
    with pytest.raises(InputError, match="no Troops"):
        movement.move_turn(p, [Move("fr-2", "march", ["lorraine"], ["lorraine"])])
    ally = moving(pos(statuses=BC, pieces=[gen("gb-1", "britain", "bohemia", 2)]), "britain", "france")
    with pytest.raises(InputError, match="ally's Home"):
        movement.move_turn(ally, [Move("gb-1", "march", ["saxonia"], ["bohemia"])])


def test_spain_is_closed_in_1792_until_france_enters_it():
    p = pos(statuses=BC, spain_open=False, pieces=[gen("gb-1", "britain", "oporto", 1),
                                                   gen("fr-1", "france", "aquitaine", 1)])
    assert any("Spain" in r for r in movement.entry_reasons(p, "britain", "leon"))
    r = movement.move_turn(moving(p, "france"), [Move("fr-1", "march", ["navarra"])])
    assert r.position.state.spain_open
    assert movement.entry_reasons(r.position, "britain", "leon") == []


def test_the_armee_dorient_goes_from_provence_to_egypt_once():
    p = pos(side="revolution", statuses=BC, armee_dorient=True, pieces=[gen("fr-1", "france", "provence", 2),
                                                                        gen("gb-1", "britain", "egypt", 0)])
    r = movement.move_turn(moving(p, "france"), [Move("fr-1", "orient", ["egypt"])])
    assert r.data["battles"] == ["egypt"] and not r.position.state.armee_dorient
    blocked = pos(side="revolution", statuses=BC, armee_dorient=True,
                  pieces=[gen("fr-1", "france", "provence", 2), gen("gb-1", "britain", "napoli", 0)])
    with pytest.raises(InputError, match="Napoli"):
        movement.move_turn(moving(blocked, "france"), [Move("fr-1", "orient", ["egypt"])])


def test_napoleons_move_needs_no_arbiter_and_moves_only_napoleon():
    p = pos(statuses=BC, pieces=[gen("fr-1", "france", "paris", 1, "napoleon"), gen("fr-2", "france", "lorraine")])
    r = movement.start_movement(p, "france", napoleon=True)
    assert r.position.state.movement.arbiter is None
    with pytest.raises(InputError, match="Napoleon only"):
        movement.move_turn(r.position, [Move("fr-2", "march", ["pfalz"])])
    assert movement.move_turn(r.position, [Move("fr-1", "march", ["picardie"])]).position.state \
        .generals["fr-1"].at == "picardie"


# ---------------------------------------------------------------------------------------------- battles (§8)


def _fight(pieces, tid, attacker, garrisons=None, fortresses=(), statuses=BC, morale=None, **kw):
    p = pos(statuses=statuses, pieces=pieces, garrisons=garrisons or {}, fortresses=list(fortresses),
            morale=morale or {q: 5 for q in ("britain", "france", "austria", "prussia", "russia", "ottoman")})
    return battle.fight(p, tid, attacker, **kw)


def test_a_fortress_garrison_is_four_and_a_tie_sends_the_attacker_home():
    r = _fight([gen("fr-1", "france", "istanbul", 3), gen("fr-2", "france", "hellas", 0)], "istanbul", "france",
               {"istanbul": "ottoman", "serbia": "france"}, ["istanbul"])
    st = r.position.state
    assert r.data["strength"]["defender"]["total"] == 4 and r.data["winner"] == "tie"
    assert st.generals["fr-1"].at == "serbia" and st.generals["fr-1"].troops == 2
    assert st.garrisons["istanbul"] == "ottoman"


def test_a_tied_attacker_may_go_off_map_losing_its_troops():
    r = _fight([gen("fr-1", "france", "serbia", 1)], "serbia", "france", {"serbia": "ottoman"},
               cards={"fr-1": [2]}, ch={"retreat": "off"}, fortresses=["serbia"])  # 1+1+2 (not its Territory) = 4
    g = r.position.state.generals["fr-1"]
    assert r.data["winner"] == "tie" and (g.at, g.troops) == (None, 0)
    with pytest.raises(InputError, match="nearest france-controlled Territories are provence"):
        _fight([gen("fr-1", "france", "serbia", 0)], "serbia", "france", {"serbia": "ottoman"},
               ch={"retreat": "wallachia"})


def test_card_two_adds_three_on_a_territory_its_power_controls():
    sd_pieces = [gen("fr-1", "france", "tyrol", 1), gen("at-1", "austria", "tyrol", 1)]
    r = _fight(sd_pieces, "tyrol", "france", cards={"fr-1": [2], "at-1": [2]})
    assert r.data["strength"] == {"attacker": {"total": 4, "items": r.data["strength"]["attacker"]["items"]},
                                  "defender": {"total": 7, "items": r.data["strength"]["defender"]["items"]}}


def test_card_five_costs_the_loser_morale_per_card_or_per_five():
    pieces = [gen("fr-1", "france", "tyrol", 2), gen("at-1", "austria", "tyrol", 3)]
    cards = {"fr-1": [5, 1], "at-1": [9, 9]}
    r = _fight(pieces, "tyrol", "france", cards=cards)
    assert r.data["winner"] == "defender" and r.position.state.morale["france"] == 5 - 2 - 2
    assert r.position.state.morale["austria"] == 5 - 2  # the winner pays no penalty
    r = _fight(pieces, "tyrol", "france", cards=cards, opts=DEFAULT.with_values({"card5_penalty": "per_five"}))
    assert r.position.state.morale["france"] == 5 - 2 - 1


def test_morale_zero_allows_one_card_and_cards_cost_morale():
    pieces = [gen("fr-1", "france", "tyrol", 2), gen("at-1", "austria", "tyrol", 0)]
    morale = {"france": 0, "austria": 3}
    r = _fight(pieces, "tyrol", "france", morale=morale, cards={"fr-1": [3]})
    assert r.position.state.morale["france"] == 0
    with pytest.raises(InputError, match="0 Morale"):
        _fight(pieces, "tyrol", "france", morale=morale, cards={"fr-1": [3, 3]})


def test_blucher_loses_at_most_two_troops_and_may_step_aside():
    pieces = [gen("fr-1", "france", "saxonia", 3), gen("pr-1", "prussia", "saxonia", 3, "blucher")]
    r = _fight(pieces, "saxonia", "france", cards={"fr-1": [9, 9]}, ch={"to.pr-1": "hannover"})
    g = r.position.state.generals["pr-1"]
    assert (g.at, g.troops) == ("hannover", 1)


def test_a_defeated_general_goes_off_map_when_another_is_in_the_capital():
    pieces = [gen("fr-1", "france", "tyrol", 3), gen("at-1", "austria", "tyrol", 1), gen("at-2", "austria", "wien")]
    r = _fight(pieces, "tyrol", "france")
    assert r.position.state.generals["at-1"].at is None
    with pytest.raises(InputError, match="not open"):
        _fight(pieces, "tyrol", "france", ch={"to.at-1": "capital"})


def test_kutuzov_withdraws_and_the_battle_goes_on_against_the_garrison():
    pieces = [gen("fr-1", "france", "smolensk", 3), gen("ru-1", "russia", "smolensk", 2, "kutuzov")]
    r = _fight(pieces, "smolensk", "france", {"smolensk": "russia"}, statuses={**BC, "russia": "british"},
               ch={"kutuzov": "moskva"})
    st = r.position.state
    assert (st.generals["ru-1"].at, st.generals["ru-1"].troops) == ("moskva", 1)
    assert r.data["winner"] == "attacker" and st.garrisons["smolensk"] == "france"
    assert st.influence.get("france", 0) == 0  # no General defeated (A15)


def test_the_grand_vizier_comes_back_with_one_troop():
    pieces = [gen("gb-1", "britain", "hellas", 3), gen("ot-1", "ottoman", "hellas", 0, "grand_vizier")]
    r = _fight(pieces, "hellas", "britain", ch={"vizier": "syria"})
    g = r.position.state.generals["ot-1"]
    assert (g.at, g.troops) == ("syria", 1)


def test_schwarzenberg_plays_one_more_card_per_supporting_power():
    pieces = [gen("fr-1", "france", "bavaria", 3), gen("at-1", "austria", "bavaria", 1, "schwarzenberg"),
              gen("gb-1", "britain", "tyrol", 1), gen("pr-1", "prussia", "saxonia", 1)]
    p = pos(statuses=BC, pieces=pieces)
    sd = battle.sides(p, "bavaria", "france", {"gb-1": "defender", "pr-1": "defender"})
    assert battle.card_allowance(p.state, sd, "at-1") == 3


def test_wellington_supporting_adds_one_plus_his_troops_but_not_by_sea():
    pieces = [gen("fr-1", "france", "holland", 3), gen("gb-1", "britain", "holland", 1),
              gen("gb-2", "britain", "london", 2, "wellington")]
    p = pos(statuses=BC, pieces=pieces)
    st = battle.strength(p, battle.sides(p, "holland", "france", {"gb-2": "defender"}), {})
    assert st["defender"]["total"] == 2  # across a Sea Route: no bonus
    pieces[2] = gen("gb-2", "britain", "westphalia", 2, "wellington")
    p = pos(statuses=BC, pieces=pieces)
    st = battle.strength(p, battle.sides(p, "holland", "france", {"gb-2": "defender"}), {})
    assert st["defender"]["total"] == 2 + 3


def test_support_must_be_an_ally_with_troops():
    pieces = [gen("fr-1", "france", "bavaria", 3), gen("at-1", "austria", "bavaria", 1),
              gen("ru-1", "russia", "bohemia", 1), gen("pr-1", "prussia", "saxonia", 0)]
    p = pos(statuses=BC, pieces=pieces)
    with pytest.raises(InputError, match="not an ally of the defender"):
        battle.sides(p, "bavaria", "france", {"ru-1": "defender"})
    with pytest.raises(InputError, match="no Troops"):
        battle.sides(p, "bavaria", "france", {"pr-1": "defender"})


# ---------------------------------------------------------------------------------------------- the economy (§9.5)


def test_taxation_doubles_for_a_neutral_and_britain_trades():
    p = pos(statuses={**BC, "prussia": "neutral"}, garrisons={"mecklenburg": "prussia", "oporto": "france",
                                                                "lisboa": "ottoman"})
    tv = economy.tax_value(p, "prussia")
    assert tv["territories"] == {"berlin": 3, "borussia": 2, "mecklenburg": 1, "silesia": 2}
    assert tv["tax"] == 16
    gb = economy.tax_value(p, "britain")
    hostile = {"normandie_bretagne", "provence", "oporto", "lisboa", "istanbul", "hellas", "egypt", "livonia",
               "st_petersburg", "crimea"}  # French, French-Coalition (Russia) and Expansionist (Ottoman) ports (A8)
    assert set(gb["hostile_ports"]) == hostile and gb["trade"] == len(p.europe.ports()) - 10 == 10
    assert gb["tax"] == 3 + 1


def test_mobilisation_costs_caps_and_corruption():
    p = pos(statuses=BC, money={"austria": 9, "britain": 9},
            pieces=[gen("at-1", "austria", "wien", 1), gen("at-2", "austria"), gen("gb-1", "britain", "london")],
            garrisons={"tyrol": "austria"})
    r = economy.mobilisation(p, "austria", {"at-1": 2}, cards=1, fortresses=["tyrol"])
    st = r.position.state
    assert st.generals["at-1"].troops == 3 and "tyrol" in st.fortresses
    assert st.money["austria"] == 0 and st.hands["austria"] == 1 + 1  # 1 bought, 1 for the off-map General
    with pytest.raises(InputError, match="at most 3"):
        economy.mobilisation(p, "austria", {"at-1": 3})
    r = economy.mobilisation(p, "britain", {"gb-1": 1})
    assert r.position.state.money["britain"] == 8  # Britain keeps its Money


def test_expand_influence_and_the_immediate_victory():
    p = pos(statuses=BC, influence={"france": 20}, garrisons={"bavaria": "france", "tyrol": "france",
                                                                "mecklenburg": "france"})
    iv = economy.influence_value(p, "france")
    assert iv == {"striped": {"bavaria": 2}, "homes": {"tyrol": 1}, "ip": 3}
    p = pos(statuses=BC, influence={"france": 23}, garrisons={"bavaria": "france", "tyrol": "france"})
    r = economy.expand_influence(p, "france")
    assert r.position.state.winner == ["france"]


def test_subsidies_give_at_most_one_ip_per_power():
    p = pos(statuses=BC, money={"britain": 10}, minors={"ottoman": None})
    r = economy.subsidies(p, {"austria": 7, "prussia": 2}, ["austria", "prussia"])
    st = r.position.state
    assert st.influence["britain"] == 1 and st.money == {"britain": 1, "austria": 7, "prussia": 2}
    with pytest.raises(InputError, match="not in the British Coalition"):
        economy.subsidies(p, {"russia": 3}, ["russia"])


def test_leadership_places_generals_without_troops_on_controlled_territory():
    p = pos(statuses=BC, pieces=[gen("at-1", "austria"), gen("at-2", "austria", "tyrol")])
    r = economy.leadership(p, "austria", "generals", {"at-1": "wien"})
    assert r.position.state.generals["at-1"].at == "wien"
    with pytest.raises(InputError, match="another austria General"):
        economy.leadership(p, "austria", "generals", {"at-1": "tyrol"})
    with pytest.raises(InputError, match="not controlled"):
        economy.leadership(p, "austria", "generals", {"at-1": "bavaria"})


def test_hand_limits_at_the_end_of_a_turn():
    p = pos(hands={"france": 12, "britain": 7, "austria": 6})
    st = turn.end_turn(p).position.state
    assert st.hands == {"france": 10, "britain": 6, "austria": 6}


def test_the_paris_check_ends_the_game_with_the_bonus():
    p = pos(statuses=BC, turn=6, influence={"britain": 10, "russia": 14, "france": 15},
            pieces=[gen("gb-1", "britain", "paris", 1), gen("ru-1", "russia", "paris", 1)])
    r = turn.end_turn(p)
    st = r.position.state
    assert st.influence == {"britain": 19, "russia": 20, "france": 15} and st.winner == ["russia"]


# ---------------------------------------------------------------------------------------------- diplomacy, Minors


def test_expelled_powers_pick_neutral_or_expansionist():
    p = pos(round=2, phase="diplomacy", statuses=BC)
    r = diplomacy.declare(p, {}, {"austria": "expansionist"})
    assert r.position.state.status("austria") == "expansionist"
    with pytest.raises(InputError, match="A6"):
        diplomacy.declare(p, {}, {"austria": "french"})
    anyone = DEFAULT.with_values({"expelled_may_join": "any"})
    assert diplomacy.declare(p, {}, {"austria": "french"}, opts=anyone).position.state.status("austria") == "french"


def test_statuses_change_only_in_the_diplomacy_phase():
    with pytest.raises(InputError, match="first round"):
        diplomacy.declare(pos(), {"austria": "neutral"})
    with pytest.raises(InputError, match="only in the Diplomacy phase"):
        diplomacy.declare(pos(round=3, turn=2), {"austria": "neutral"})
    with pytest.raises(InputError, match="Diplomacy phase comes first"):
        turn.end_turn(pos(round=3, phase="diplomacy"))


def test_a_minor_on_drill_is_bid_for():
    p = pos(minors={"ottoman": "russia"}, statuses=BC)
    t = next(t for t in range(1, 7) if turn.action_of(p, "ottoman", t) == "drill")
    r = turn.end_turn(pos(minors={"ottoman": "russia"}, statuses=BC, turn=t - 1 if t > 1 else 6))
    assert any("ottoman's symbol is on Drill" in line for line in r.lines)


def test_lempereur_players_win_with_a_general_in_paris():
    s = scenarios.lempereur().draft()
    s.generals["gb-1"].at = "paris"
    r = turn.end_turn(freeze(s))
    assert r.position.state.winner == ["britain", "austria", "prussia", "russia", "ottoman"]


def test_case_two_without_a_garrison_needs_rock_paper_scissors():
    p = pos(round=2, phase="diplomacy", statuses={**BC, "russia": "british"},
            pieces=[gen("at-1", "austria", "serbia", 1), gen("ru-1", "russia", "serbia", 1)])
    with pytest.raises(InputError, match="rock-paper-scissors"):
        diplomacy.declare(p, {"russia": "french"})
    r = diplomacy.declare(p, {"russia": "french"}, ch={"rps.serbia": "russia", "to.at-1": "off"})
    assert r.position.state.generals["at-1"].at is None


def test_uncontrolled_minors_act_not_and_cannot_be_arbiters():
    p = pos(minors={"ottoman": None}, statuses=BC)
    with pytest.raises(InputError, match="uncontrolled Minor"):
        economy.taxation(p, "ottoman")
    assert "ottoman" not in movement.eligible_arbiters(p, "britain")
    assert "ottoman" not in turn.powers_doing(p, turn.action_of(p, "ottoman"))


def test_a_minor_without_its_capital_goes_to_whoever_holds_it():
    p = pos(minors={"prussia": None, "ottoman": None}, statuses=BC, garrisons={"berlin": "france"})
    r = diplomacy.bid(p, "prussia", {"austria": 2})
    assert r.data["controller"] == "france" and r.position.state.status("prussia") == "french"


def test_which_powers_are_minor():
    assert diplomacy.minor_powers(5) == ("ottoman",)
    assert diplomacy.minor_powers(4) == ("prussia", "ottoman")
    assert diplomacy.minor_powers(3, "austria") == ("austria", "prussia", "ottoman")
    with pytest.raises(InputError):
        diplomacy.minor_powers(2)


# ---------------------------------------------------------------------------------------------- scenarios, options


def test_1805_setup_and_the_damaged_1809():
    p = scenarios.setup("1805")
    st = p.state
    assert sum(1 for g in st.generals.values() if g.power == "france") == 7
    assert st.morale["france"] == 11 and st.garrisons["istanbul"] == "ottoman" and "istanbul" in st.fortresses
    assert sum(1 for g in st.generals.values() if g.special == "napoleon") == 1
    assert scenarios.setup("1805", opts=DEFAULT.with_values({"france_morale_1805": 9})).state.morale["france"] == 9
    with pytest.raises(InputError, match="damaged"):
        scenarios.setup("1809")
    four = scenarios.setup("1806", players=4).state
    assert four.minors == {"prussia": None, "ottoman": None} and "prussia" not in four.influence
    rev = scenarios.setup("1792").state
    assert rev.side == "revolution" and not rev.spain_open and rev.generals["fr-7"].special == "napoleon"
    assert rev.europe.territories["hannover"].home == "britain"


def test_options_files(tmp_path):
    f = tmp_path / "o.toml"
    f.write_text('card4_pairs = "side"\nmorale_max = 13\n')
    o = load_options(f)
    assert (o.card4_pairs, o.morale_max) == ("side", 13)
    f.write_text("morale_max = 20\n")
    with pytest.raises(InputError, match="morale_max"):
        load_options(f)
    f.write_text("wheel = 1\n")
    with pytest.raises(InputError, match="unknown option"):
        load_options(f)


# ---------------------------------------------------------------------------------------------- L'Empereur (§9.8)


def test_e14_napoleon_card_attacks_and_garrisons():
    p = scenarios.lempereur()
    r = automa.napoleon_card(p, ["bavaria", "saxonia", "hesse"], ["dalmatia"])
    st = r.position.state
    assert r.data["battles"] == ["bavaria", "saxonia"]
    assert st.garrisons["hesse"] == "france" and st.morale["ottoman"] == p.state.morale["ottoman"] + 1
    assert all(g.troops == 3 for g in st.generals.values() if g.at in ("bavaria", "saxonia") and g.power == "france")
    s = p.draft()
    s.garrisons["dalmatia"] = "france"
    r = automa.napoleon_card(freeze(s), [], ["dalmatia"])
    assert r.position.state.influence["france"] == 10 + 1


def test_race_to_paris_replaces_the_card():
    p = scenarios.lempereur()
    s = p.draft()
    s.generals["gb-1"].at = "picardie"
    p = freeze(s)
    with pytest.raises(InputError, match="Race to Paris"):
        automa.napoleon_card(p, ["bavaria"])
    r = automa.race_to_paris(p)
    st = r.position.state
    assert r.data["battles"] == ["picardie"]
    assert any(g.power == "france" and g.troops == 3 for g in st.generals_at("paris"))


def test_napoleon_draws_until_a_stop_condition():
    assert automa.napoleon_draws(10, 5, [3, 3, 3, 3], morale=9, slots=9) == 2
    assert automa.napoleon_draws(10, 5, [1, 1, 1], morale=1, slots=9) == 1
    assert automa.napoleon_draws(10, 5, [1, 1, 1], morale=9, slots=2) == 2
    assert automa.napoleon_draws(10, 5, [1, 1, 1], morale=9, slots=9, hopeless_after=0) == 0


def test_an_automa_battle_lost_by_france_takes_its_garrison_off():
    p = scenarios.lempereur()
    s = p.draft()
    s.generals["fr-1"].at, s.generals["fr-1"].troops = "bavaria", 1
    s.garrisons["bavaria"] = "france"
    s.generals["at-1"].troops = 3
    r = automa.automa_battle(freeze(s), "bavaria", {"at-1": [5]}, [1], ch={"attacker": "coalition"})
    st = r.position.state
    assert r.data["coalition"] == 1 + 3 + 5 and r.data["france"] == 2 + 1 + 1
    assert st.generals["fr-1"].at is None and "bavaria" not in st.garrisons


def test_card_play_order_and_the_out_of_turn_note():
    pieces = [gen("fr-1", "france", "holland", 3), gen("fr-2", "france", "picardie", 2),
              gen("gb-1", "britain", "holland", 2), gen("pr-1", "prussia", "holland", 2),
              gen("gb-2", "britain", "london", 1)]
    p = pos(statuses=BC, pieces=pieces)
    sd = battle.sides(p, "holland", "france", {"fr-2": "attacker", "gb-2": "defender"})
    assert battle.play_order(p, sd) == ["france", "britain", "prussia", "france", "britain"]  # E7's order (§8.4)
    system = GAME.adapter()
    out = system.resolve(p, "taxation", "prussia")
    assert any("prussia's symbol is over mobilisation this turn, not taxation" in line for line in out.lines)
    assert not any("symbol" in line for line in system.resolve(p, "drill", "britain").lines)


def test_a_weaker_garrison_with_no_general_there_becomes_money():
    p = pos(round=2, phase="diplomacy", statuses={**BC, "russia": "british"},
            pieces=[gen("at-1", "austria", "serbia", 2), gen("ru-2", "russia", "moskva", 0)],
            garrisons={"serbia": "russia"})
    r = diplomacy.declare(p, {"russia": "french"})
    st = r.position.state
    assert "serbia" not in st.garrisons and st.money["russia"] == 1 and st.generals["ru-2"].troops == 0


def test_the_hand_limit_applies_when_the_movement_ends():
    p = pos(statuses=BC, hands={"france": 11})
    p = movement.move_turn(movement.start_movement(p, "france", "ottoman").position, []).position
    assert movement.end_movement(p).position.state.hands["france"] == 10


def test_the_1809_template_has_what_the_text_has_and_says_what_is_missing():
    p, missing = scenarios.template_1809()
    st = p.state
    assert not any(g.power in ("britain", "russia", "ottoman") for g in st.generals.values())
    assert {g.at for g in st.generals.values() if g.power == "austria"} == {"venezia", "tyrol", "bohemia", "galicia"}
    assert st.garrisons["dalmatia"] == "france" and st.money["prussia"] == 6 and st.influence["france"] == 9
    assert len(missing) == 5 and any("Lombardia" in m for m in missing)
