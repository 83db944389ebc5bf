"""Napoleon in Europe at the rules' edges (issue 27): the production round's income and per-round limits, the port
attack limit, the congress, unknown names. Each test is written from the digest's words (the section in its name
and comment), not from the engine's output, and every state a rule needs is checked to survive the position file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from common.errors import InputError
from fieldglass.cli import main as run_cli
from rules import position as positions
from rules.nie import GAME, politics, strategic, turn
from rules.nie import battle as bt
from rules.nie.adapter import ACTIONS, NieSystem
from rules.nie.model import dumps, position_from_dict
from rules.nie.options import Options
from rules.nie.panels import date_panel, diplomacy_panel, production_panel
from rules.system import register, unregister
from tests.rules.nie_util import battle_pos, dice, pos, producing, two

FRANCE_INCOME = 10 + 5 * 2
"""§9.4 on the demo map: France owns its homeland, Paris (a capital: 10, A2's best reading) and five normal regions
(Picardy, Vendée, Burgundy, Gascony, Provence: 2 each); nothing occupied, nothing in uprising."""
BRITAIN_INCOME = 10 + 3 * 2
"""§9.4: London (10, A2) and Britain's three other homeland regions of the demo map (Cornwall, Scotland, Ireland:
2 each)."""


def reloaded(p):
    """The position saved to its file and read back: a saved game goes on exactly."""
    return position_from_dict(json.loads(dumps(p)))


def end_of_march(units=(), **extra):
    """The last player turn of the March round (§4.1): France and Britain play, Britain moves last."""
    data = {"players": {"france": "anna", "britain": "ben"}, "month": 3, "year": 1805, "round": 3,
            "active": "britain", **extra}
    return pos(units, relations=(), **data)


# ---------------------------------------------------------------------------------------------- production (§4.1, §9.4)


def test_the_production_round_adds_each_nations_income_to_its_saved_pp():  # §4.1 step 4, §9.4
    """§4.1: after the March round every player nation gains 1 PAP, then in turn order each totals its PP (§9.4),
    buys PAP and units; §9.4: PP are computed in each production round, and may be spent or saved."""
    p = end_of_march(pp={"france": 5, "britain": 0})
    out = turn.end_turn(p)
    q = out.position
    assert q.production is not None and q.active == "france" and out.data["production_turn"] == "france"
    assert q.pap == {"france": 1, "britain": 1} and q.pp["france"] == 5  # nothing totalled before its turn
    res = politics.total_production(q, "france")
    q = res.position
    assert q.pp["france"] == 5 + FRANCE_INCOME and res.data["added"]
    again = politics.total_production(q, "france")  # once a production round
    assert again.position.pp["france"] == 5 + FRANCE_INCOME and not again.data["added"]
    q = politics.purchase(q, "france", {"inf": 3}, {"*": "paris"}).position  # 18 PP (§9.5: infantry 6)
    assert q.pp["france"] == 5 + FRANCE_INCOME - 18
    q = reloaded(turn.end_turn(q).position)  # France's production turn ends; Britain's, saved and read back
    assert q.active == "britain" and q.production.totalled == {"france": FRANCE_INCOME}
    done = turn.end_turn(q)  # Britain bought nothing and did not total: its PP are computed anyway and saved
    r = done.position
    assert r.production is None and r.active == "france" and (r.month, r.round) == (4, 4)
    assert r.pp == {"france": 5 + FRANCE_INCOME - 18, "britain": BRITAIN_INCOME}


def test_a_purchase_before_totalling_totals_first_and_spends_the_income():  # §4.1 step 4 (1 before 3)
    q = turn.end_turn(end_of_march(pp={"france": 5})).position
    out = politics.purchase(q, "france", {"inf": 3}, {"*": "paris"})
    assert out.position.pp["france"] == 5 + FRANCE_INCOME - 18 and "totals its PP" in out.lines[0]
    assert politics.total_production(out.position, "france").position.pp == out.position.pp  # not twice


def test_units_and_pap_are_bought_only_in_ones_own_production_turn():  # §4.1, §9.5
    """§9.5: "in his own production turn a player may buy 1 PAP for every 10 PP"; §4.1: in turn order each player
    buys units."""
    p = end_of_march(pp={"france": 50, "britain": 50})
    with pytest.raises(InputError, match="only in a production round"):
        politics.purchase(p, "britain", {"inf": 1}, {"*": "london"})
    with pytest.raises(InputError, match="only in a production round"):
        politics.buy_pap(p, "britain", 1)
    q = turn.end_turn(p).position  # France's production turn
    with pytest.raises(InputError, match="france's production turn; britain's comes in turn order"):
        politics.purchase(q, "britain", {"inf": 1}, {"*": "london"})
    with pytest.raises(InputError, match="france's production turn"):
        politics.buy_pap(q, "britain", 1)
    out = politics.buy_pap(q, "france", 2)
    assert out.position.pap["france"] == 1 + 2 and out.position.pp["france"] == 50 + FRANCE_INCOME - 20
    assert not politics.total_production(q, "britain").data["added"]  # Britain totals in its own turn


def test_nobody_moves_during_the_production_round():  # §4.1
    q = turn.end_turn(end_of_march([("f1", "france", "inf", "paris")])).position
    with pytest.raises(InputError, match="production round is under way"):
        strategic.land_move(q, ["f1"], ["burgundy"])


def test_britain_builds_at_most_two_land_units_a_production_round_over_several_purchases():  # §9.5
    """§9.5: "Great Britain: at most 2 new land units (infantry, cavalry, artillery or leaders) per production
    round"."""
    q = producing(pos([], pp={"britain": 100}), "britain")
    q = politics.purchase(q, "britain", {"inf": 1}, {"*": "london"}).position
    q = reloaded(politics.purchase(q, "britain", {"cav": 1}, {"*": "london"}).position)  # saved mid-round
    with pytest.raises(InputError, match="at most 2 land units per production round"):
        politics.purchase(q, "britain", {"art": 1}, {"*": "london"})
    assert politics.purchase(q, "britain", {"ship": 1}, {"*": "london"}).position.pp["britain"] == 100 - 6 - 10 - 15
    nxt = turn.end_turn(turn.end_turn(q).position).position  # the round ends; the next production round counts anew
    assert nxt.production is None
    assert politics.built_this_round(nxt, "britain") == {}


def test_an_elite_needs_two_infantry_built_in_the_same_production_phase_over_several_purchases():  # §8.1, §9.5
    """§8.1: "For each Elite Infantry built, two normal Infantry must be built in the same production phase"."""
    q = producing(pos([], pp={"france": 100}), "france")
    q = reloaded(politics.purchase(q, "france", {"inf": 2}, {"*": "paris"}).position)
    q = politics.purchase(q, "france", {"elite": 1}, {"*": "paris"}).position  # the two infantry of this phase
    with pytest.raises(InputError, match="2 elite need 4 infantry, 2 bought"):
        politics.purchase(q, "france", {"elite": 1}, {"*": "paris"})
    assert politics.purchase(q, "france", {"inf": 2, "elite": 1}, {"*": "paris"}).data["built"] == {"inf": 4,
                                                                                                   "elite": 2}


def test_an_old_file_without_the_new_keys_loads_outside_a_production_round():
    p = position_from_dict({"system": "nie", "board": "demo", "pp": {"france": 3}, "pap": {"france": 1}})
    assert p.production is None and p.congresses == () and p.port_attacks == {} and p.suppressed == frozenset()
    assert "production" not in json.loads(dumps(p))


def test_the_production_state_in_a_file_is_checked():
    with pytest.raises(InputError, match="production: nations must list"):
        position_from_dict({"system": "nie", "production": {"nations": []}})
    with pytest.raises(InputError, match="built france: 'tank' is not"):
        position_from_dict({"system": "nie", "production": {"nations": ["france"], "built": {"france": {"tank": 1}}}})


# ---------------------------------------------------------------------------------------------- through the CLI


@pytest.fixture()
def cli():
    """`fieldglass ...` with the system registered at run time (the lead adds the entry point when merging)."""
    register(GAME)
    yield
    unregister("nie")


def _run(capsys, *words) -> tuple[int, str, str]:
    rc = run_cli([str(w) for w in words])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_a_production_round_through_resolve_changes_each_saved_pp_by_income_minus_purchases(cli, tmp_path, capsys):
    """Done-when of issue 27: through `fieldglass resolve` (each step saved with --out and read back), France totals
    and buys 3 infantry (18 PP), Britain buys 2 infantry and is refused a third (§9.5), and at the round's end each
    nation's saved PP changed by its income (§9.4) minus its purchases."""
    start = tmp_path / "march.json"
    start.write_text(dumps(end_of_march(pp={"france": 5, "britain": 0})))
    steps = [("end_turn", "any"), ("production", "france"),
             ("purchase", "france", "--choice", "buy=inf:3", "--choice", "place=paris"),
             ("end_turn", "any"),
             ("purchase", "britain", "--choice", "buy=inf:2", "--choice", "place=london")]
    here = start
    for i, (action, who, *more) in enumerate(steps):
        nxt = tmp_path / f"step{i}.json"
        rc, out, err = _run(capsys, "resolve", here, "--action", action, "--attacker", who, *more, "--out", nxt)
        assert rc == 0, err
        here = nxt
    rc, _, err = _run(capsys, "resolve", here, "--action", "purchase", "--attacker", "britain", "--choice",
                      "buy=inf:1", "--choice", "place=london")
    assert rc == 2 and "at most 2 land units per production round (§9.5): 2 bought this round" in err
    end = tmp_path / "april.json"
    rc, out, err = _run(capsys, "resolve", here, "--action", "end_turn", "--attacker", "any", "--out", end, "--json")
    assert rc == 0 and "the production round ends" in json.loads(out)["lines"][-1]
    after = positions.load(end)
    assert after.production is None
    assert after.pp["france"] - 5 == FRANCE_INCOME - 3 * 6
    assert after.pp["britain"] - 0 == BRITAIN_INCOME - 2 * 6


# ---------------------------------------------------------------------------------------------- port attacks (§5.3)


def _port_siege(n: int = 4):
    """Britain's `n` squadrons in the Channel, next to the port of Picardy where a French squadron lies (§5.3)."""
    units = [(f"b{i}", "britain", "ship", "channel") for i in range(n)] + [("f0", "france", "ship", "port:picardy"),
                                                                          ("f1", "france", "ship", "port:picardy")]
    return pos(units, players={"france": "anna", "britain": "ben"},
               relations=(("france", "britain", "war"),), active="britain")


def test_at_most_two_squadrons_attack_a_given_port_per_turn():  # §5.3
    """§5.3: "At most 2 squadrons may attack a given port per turn." An attack by 3 is refused, not fought by 2."""
    p = _port_siege()
    with pytest.raises(InputError, match="at most 2 squadrons may attack a given port per turn .§5.3., 3 would"):
        strategic.sea_battle(p, "port:picardy", ["britain"], ["france"], dice(), lose={"attackers": ["b0", "b1", "b2"]})
    with pytest.raises(InputError, match="4 would: name at most 2 of b0, b1, b2, b3 with attackers"):
        strategic.sea_battle(p, "port:picardy", ["britain"], ["france"], dice())  # none named: all four would attack
    out = strategic.sea_battle(p, "port:picardy", ["britain"], ["france"], dice(*two(7), *two(7)),
                               lose={"attackers": ["b0"]})  # 7 + 1 + 1 (British) = 9 against 7 + 2 + 2 (port) = 11
    q = reloaded(out.position)  # saved after the first attack of the turn
    assert q.port_attacks == {"port:picardy": ("b0",)}
    with pytest.raises(InputError, match=r"3 would \(b0 attacked it earlier this turn\): name at most 1 of"):
        strategic.sea_battle(q, "port:picardy", ["britain"], ["france"], dice(), lose={"attackers": ["b1", "b2"]})
    q = strategic.sea_battle(q, "port:picardy", ["britain"], ["france"], dice(*two(7), *two(7)),
                             lose={"attackers": ["b1"]}).position
    with pytest.raises(InputError, match="no other squadron may attack it this turn"):
        strategic.sea_battle(q, "port:picardy", ["britain"], ["france"], dice(), lose={"attackers": ["b2"]})
    nxt = turn.end_turn(q).position  # Britain's turn ends: the count starts again in the next turn
    assert nxt.port_attacks == {}
    assert strategic.sea_battle(nxt, "port:picardy", ["britain"], ["france"], dice(*two(7), *two(7)),
                                lose={"attackers": ["b2", "b3"]}).data["port_attackers"] == ["b2", "b3"]


def test_port_attackers_must_be_next_to_the_port():  # §5.3
    p = _port_siege(2)
    with pytest.raises(InputError, match="attackers=f1 is not a squadron of the attacking side next to the port"):
        strategic.sea_battle(p, "port:picardy", ["britain"], ["france"], dice(), lose={"attackers": ["f1"]})


# ---------------------------------------------------------------------------------------------- the congress (§9.8)


def _war_lost(pap):
    """Britain, then Austria declare war on France (§9.8: the order of declaration is recorded); France sues for
    peace."""
    p = pos([], relations=(), pap=pap, round=3)
    p = politics.declare_war(p, "britain", "france").position
    p = politics.declare_war(p, "austria", "france").position
    return politics.sue_for_peace(p, "france")


def test_the_victors_annex_in_the_order_they_declared_war_one_region_a_turn():  # §9.8
    """§9.8: "Congress: immediately after the war, the victors take turns, in order of declaration (first declarer
    first, then second, and so on), annexing one region per turn at the costs above. This continues until no one
    wants to annex, or can afford to." """
    out = _war_lost({"britain": 6, "austria": 4, "france": 0})
    p = out.position  # PAP: Britain 6 - 1 + 2 (first declarer), Austria 4 - 1 + 1 (second), §9.7
    assert p.pap["britain"] == 7 and p.pap["austria"] == 4
    assert out.data["congress"] == {"loser": "france", "victors": ["britain", "austria"], "turn": "britain",
                                    "passed": []}
    with pytest.raises(InputError, match="it is britain's turn at the congress"):
        politics.congress_annex(p, "austria", "france", "picardy")  # the later declarer may not annex first
    p = politics.congress_annex(p, "britain", "france", "picardy").position  # a homeland region: 2 PAP
    assert p.owner("picardy") == "britain" and p.pap["britain"] == 5
    p = reloaded(p)  # saved mid-congress
    assert p.congress("france").turn == "austria"
    with pytest.raises(InputError, match="it is austria's turn at the congress"):
        politics.congress_annex(p, "britain", "france", "vendee")  # not twice in a row
    p = politics.congress_annex(p, "austria", "france", "burgundy").position
    p = politics.congress_pass(p, "britain", "france").position  # Britain does not want more
    assert p.congress("france").turn == "austria" and p.congress("france").passed == {"britain"}
    out = politics.congress_pass(p, "austria", "france")  # nobody wants to annex: the congress is over
    assert out.position.congress("france") is None and out.data["congress"] is None
    with pytest.raises(InputError, match="no congress after 'france''s war is under way"):
        politics.congress_annex(out.position, "britain", "france", "vendee")


def test_a_victor_who_cannot_afford_an_annexation_is_passed_over():  # §9.8
    """"This continues until no one wants to annex, or can afford to": Austria's 1 PAP buys none of France's
    homeland regions (2 PAP each), so Britain annexes in turn after turn until it cannot pay either."""
    out = _war_lost({"britain": 3, "austria": 1, "france": 0})
    p = out.position  # Britain 3 - 1 + 2 = 4, Austria 1 - 1 + 1 = 1
    assert out.data["congress"]["turn"] == "britain"
    res = politics.congress_annex(p, "britain", "france", "picardy")
    assert "austria can afford nothing more (PAP 1): it passes" in " ".join(res.lines)
    assert res.position.congress("france").turn == "britain"
    res = politics.congress_annex(res.position, "britain", "france", "vendee")
    assert res.position.congress("france") is None and res.position.pap["britain"] == 0  # nobody can pay: over


def test_liberation_is_done_at_the_congress_in_the_victors_turn():  # §4.1, §9.8
    """§4.1: "Liberation is done at the congress"; §9.8: only by a winner, after defeating the owner."""
    p = pos([], relations=(("britain", "france", "war"),), pap={"britain": 3}, owners={"holland": "france"})
    with pytest.raises(InputError, match="no congress after 'france''s war"):
        politics.liberate(p, "britain", ["holland"])
    q = politics.sue_for_peace(p, "france").position
    out = politics.liberate(q, "britain", ["holland"])
    assert out.position.owner("holland") is None and out.position.pap["britain"] == 5 - 0.5
    assert reloaded(out.position).pap["britain"] == 4.5


def test_a_truce_without_a_congress_in_an_old_file_annexes_nothing():  # §9.8
    p = pos([], relations=(), pap={"britain": 6}, truces=[{"victor": "britain", "loser": "france",
                                                           "until_round": 13}])
    with pytest.raises(InputError, match="a congress follows a nation's suing for peace"):
        politics.congress_annex(p, "britain", "france", "picardy")


def test_the_congress_in_a_file_is_checked():
    with pytest.raises(InputError, match="turn 'spain' is not one of its victors"):
        position_from_dict({"system": "nie", "congresses": [{"loser": "france", "victors": ["britain"],
                                                             "turn": "spain"}]})


def test_the_panels_say_the_production_turn_and_the_congress():  # §4.1, §9.8
    q = turn.end_turn(end_of_march(pp={"france": 5})).position
    assert "production round (§4.1 step 4): france's production turn" in " ".join(date_panel(q).lines)
    assert date_panel(q).actions[0].label == "End france's production turn"
    p = _war_lost({"britain": 6, "austria": 4, "france": 0}).position
    assert "congress after france's war: britain's turn" in " ".join(diplomacy_panel(p).lines)


# ---------------------------------------------------------------------------------------------- uprisings (§9.9)


def test_an_uprising_is_rolled_for_once_at_the_end_of_each_of_the_owners_turns():  # §9.9
    """§9.9: "At the end of each of the owner's turns with units there, roll 2d6"."""
    p = pos([(f"f-i{i}", "france", "inf", "belgium") for i in range(3)], relations=(),
            owners={"belgium": "france"}, uprisings=["belgium"], players={"france": "anna", "britain": "ben"},
            active="britain")
    with pytest.raises(InputError, match="at the end of its own turn; this is britain's"):
        politics.suppress_uprising(p, "belgium", dice(1, 2))
    p = turn.end_turn(p).position  # the month ends: France moves first
    q = reloaded(politics.suppress_uprising(p, "belgium", dice(3, 3)).position)  # 6 > 3 units: one is lost
    assert len(q.units) == 2 and q.suppressed == {"belgium"}
    with pytest.raises(InputError, match="rolled to suppress this uprising this turn already"):
        politics.suppress_uprising(q, "belgium", dice(1, 1))
    with pytest.raises(InputError, match="lose=b9: not one of france's units in belgium"):
        politics.suppress_uprising(p, "belgium", dice(3, 3), lose="b9")
    nxt = turn.end_turn(turn.end_turn(q).position).position  # France's next turn
    assert politics.suppress_uprising(nxt, "belgium", dice(1, 1)).position.uprisings == frozenset()  # 2 <= 2


# ---------------------------------------------------------------------------------------------- unknown names


def test_an_unknown_name_is_answered_as_unknown_with_the_valid_ones(cli, tmp_path, capsys):
    """Bad input of any kind: one line naming the thing, saying it is unknown and listing the valid values."""
    game = tmp_path / "game.json"
    game.write_text(dumps(pos([("f1", "france", "inf", "picardy")], players={"france": "anna", "britain": "ben"},
                              pap={"france": 3})))
    nations = "one of austria britain france ottoman prussia russia spain"
    cases = [
        (["--action", "production", "--attacker", "narnia"], f"--attacker: unknown nation 'narnia' ({nations})"),
        (["--action", "declare_war", "--attacker", "france", "--target", "narnia"],
         f"--target: unknown nation 'narnia' ({nations})"),
        (["--action", "congress_pass", "--attacker", "france", "--choice", "loser=narnia"],
         f"--choice loser: unknown nation 'narnia' ({nations})"),
        (["--action", "land_move", "--attacker", "f9", "--target", "belgium"], "unknown unit 'f9' (one of f1)"),
        (["--action", "land_move", "--attacker", "f1", "--target", "atlantis"], "unknown region 'atlantis' (one of "),
        (["--action", "diplomacy", "--attacker", "france", "--target", "narnia"], "unknown region or nation 'narnia'"),
        (["--action", "victory", "--attacker", "narnia"], "unknown nation or player 'narnia'"),
        (["--action", "suppress", "--attacker", "narnia", "--target", "picardy"], "unknown nation 'narnia'"),
    ]
    for words, msg in cases:
        rc, _, err = _run(capsys, "resolve", game, *words)
        assert rc == 2 and msg in err and err.count("\n") == 1, (words, err)
    rc, _, err = _run(capsys, "analyze", game, "--from", "picardie")
    assert rc == 2 and "unknown unit, region, sea area or nation 'picardie'; did you mean picardy?" in err


def test_a_named_leader_or_retreating_unit_that_is_not_there_is_refused():  # §8.3, §8.6, §8.9
    """A choice naming a unit the rule cannot apply to is refused, not silently replaced by another."""
    p = battle_pos({"f-i1": "M", "b-i1": "B-line", "b-l1": "B-line"}, phase="infantry")
    with pytest.raises(InputError, match=r"leader=b-l9: not a leader in B-line \(b-l1\)"):
        bt.fire(p, "f-i1", "b-i1", dice(6, 5, 4), leader="b-l9")  # raw 11 kills a leader in the zone (§8.6)
    out = bt.fire(p, "f-i1", "b-i1", dice(6, 5, 4), leader="b-l1")
    assert "b-l1" not in out.position.units
    done = battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, phase="pursuit", loser="B", came_from={"f-i1": "picardy"})
    with pytest.raises(InputError, match="retreat.f-i1: not a unit of the losing side that retreats .*: b-i1"):
        bt.end_battle(done, {"f-i1": "picardy", "b-i1": "holland"})


# ---------------------------------------------------------------------------------------------- the README's tables

README = Path(__file__).resolve().parents[2] / "rules" / "nie" / "README.md"
COMMON = {"action", "lines", "rolls", "changes", "notes"}


def _documented() -> dict[str, set[str]]:
    """Each action's `out` fields in rules/nie/README.md: its `#### `action`` table (one table may head several)."""
    out: dict[str, set[str]] = {}
    heads: list[str] = []
    for line in README.read_text().splitlines():
        if line.startswith("#### "):
            heads = re.findall(r"`([a-z_]+)`", line)
            for h in heads:
                out[h] = set()
        elif line.startswith("### ") or line.startswith("## "):
            heads = []
        elif heads and line.startswith("| out |"):
            cell = line.split("|")[2]
            for h in heads:
                out[h] |= set(re.findall(r"`([a-z_]+)`", cell))
    return out


def _samples():
    """A resolution of every action on a position where it is allowed: (action, attacker, target, dice, choices,
    position)."""
    war = pos([], relations=(), pap={"france": 3, "britain": 3, "austria": 3},
              players={"france": "a", "britain": "b", "austria": "c"})
    war = politics.declare_war(war, "britain", "france").position
    lost = politics.sue_for_peace(war, "france").position
    freed = politics.sue_for_peace(pos([], relations=(("britain", "france", "war"),), pap={"britain": 3},
                                       owners={"holland": "france"}), "france").position
    squares = battle_pos({"f-i1": "A-line", "b-i1": "M", "b-i2": "B-line"}, phase="infantry", acting="B")
    squares.battle.units["b-i1"].square = True
    chase = battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, phase="pursuit", loser="B", came_from={"f-i1": "picardy"})
    e2 = pos([(f"gb-inf-{i}", "britain", "inf", "cornwall") for i in (1, 2)]
             + [(f"gb-sq-{i}", "britain", "ship", "bay_of_biscay") for i in (1, 2, 3)]
             + [(f"fr-sq-{i}", "france", "ship", "bay_of_biscay") for i in (1, 2, 3)]
             + [(f"gb-sq-{i}", "britain", "ship", "adriatic") for i in (4, 5)])
    minor = pos([("f1", "france", "inf", "belgium")], relations=(), pap={"france": 5}, active="france")
    rising = pos([("f1", "france", "inf", "belgium"), ("f2", "france", "inf", "belgium")], relations=(),
                 owners={"belgium": "france"}, uprisings=["belgium"])
    shop = producing(pos([], pp={"france": 40}), "france", totalled=False)
    six = [(f"f-x{i}", "france", "inf", "belgium") for i in range(2)] + [("b-x1", "britain", "inf", "belgium")]
    route = "bay_of_biscay,mid_atlantic,barbary_coast,tyrrhenian,ionian,adriatic"
    return [
        ("start_battle", "france", "belgium", (), {"from": "picardy"}, pos(six)),
        ("deploy", "any", None, (), {"zone.f-i1": "A-line", "zone.b-i1": "B-line"},
         battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, phase="setup")),
        ("move", "f-i1", "M", (), {}, battle_pos({"f-i1": "A-line", "b-i1": "B-line"})),
        ("fire", "f-i1", "b-i1", (6, 5, 2), {}, battle_pos({"f-i1": "M", "b-i1": "B-line", "b-l1": "B-line"})),
        ("charge", "f-c1", "b-i1", (6, 6, 1, 1), {}, battle_pos({"f-c1": "M", "b-i1": "B-line", "b-i2": "B-line"},
                                                              phase="cavalry")),
        ("leave_square", "b-i1", None, (), {}, squares),
        ("rally", "b-l1", "b-i1", (6, 6), {}, battle_pos({"b-l1": "B-reserve", "b-i1": "B-rout", "b-i2": "B-line",
                                                          "f-i1": "A-line"}, phase="leader", acting="B")),
        ("end_phase", "any", None, (), {}, battle_pos({"f-i1": "A-line", "b-i1": "B-line"})),
        ("retreat", "A", None, (), {}, battle_pos({"f-i1": "A-line", "b-i1": "B-line"}, round=2)),
        ("pursue", "f-i1", "b-i1", (6,), {}, chase),
        ("end_battle", "any", None, (), {"retreat.*": "holland"}, chase),
        ("land_move", "f1", "burgundy", (), {}, pos([("f1", "france", "inf", "paris")])),
        ("amphibious", "gb-inf-1,gb-inf-2", "illyria", (6, 6), {"route": route}, e2),
        ("naval_move", "gb-sq-4", "ionian", (), {}, e2),
        ("intercept", "britain", None, (5,), {}, e2),
        ("sea_battle", "britain", "bay_of_biscay", (6, 6, 1, 1), {"defender": "france"}, e2),
        ("production", "france", None, (), {}, shop),
        ("purchase", "france", None, (), {"buy": "inf:1", "place": "paris"}, shop),
        ("buy_pap", "france", None, (), {"n": "1"}, shop),
        ("give_pp", "britain", "prussia", (), {"n": "3"}, pos([], pp={"britain": 30})),
        ("declare_war", "france", "prussia", (), {}, pos([], relations=(), pap={"france": 3},
                                                        players={"france": "a", "britain": "b"})),
        ("sue_for_peace", "france", None, (), {}, war),
        ("congress_annex", "britain", "picardy", (), {"loser": "france"}, lost),
        ("congress_pass", "britain", None, (), {"loser": "france"}, lost),
        ("liberate", "britain", None, (), {"regions": "holland"}, freed),
        ("annex", "france", "belgium", (1, 2, 1, 1), {}, minor),
        ("diplomacy", "france", "belgium", (6, 6, 2, 1, 1), {}, minor),
        ("diplomacy", "france", "britain", (), {"accepted": "yes"}, pos([], relations=(), pap={"france": 3},
                                                                        players={"france": "a", "britain": "b"})),
        ("uprising", "britain", "belgium", (), {}, pos([], relations=(), pap={"britain": 3})),
        ("suppress", "france", "belgium", (6, 6), {}, rising),
        ("armistice", "britain", "france", (), {}, pos([], relations=(("britain", "france", "war"),),
                                                       pap={"britain": 3, "france": 3})),
        ("break_alliance", "france", "prussia", (), {}, pos([], relations=(("france", "prussia", "allied"),),
                                                             pap={"france": 3})),
        ("passage", "prussia", "france", (), {"grant": "no"}, pos([])),
        ("c_test", "france", None, (6, 6), {}, pos([], c_values={"france": 7})),
        ("sudden_death", "any", None, (6, 6), {"round": "12", "first": "10"}, pos([])),
        ("victory", "france", None, (), {}, pos([])),
        ("victory", "anna", None, (), {}, pos([], players={"france": "anna"})),
        ("end_turn", "any", None, (), {}, end_of_march()),
    ]


def test_the_readme_has_a_table_for_every_action_with_every_field_it_prints():
    """rules/nie/README.md documents every action's input and output (a table per action): each action has its
    table, and every field a resolution prints with --json besides the common ones is in it."""
    documented = _documented()
    assert set(ACTIONS) <= set(documented), set(ACTIONS) - set(documented)
    system = NieSystem()
    seen = set()
    for action, attacker, target, rolled, choices, p in _samples():
        out = system.resolve(p, action, attacker, target, dice=list(rolled), choices=choices).resolution.to_json()
        extra = set(out) - COMMON
        assert extra <= documented[action], (action, extra - documented[action])
        seen.add(action)
    assert seen == set(ACTIONS)


def test_a_production_turn_whose_income_is_unknown_says_which_value_to_set():  # §9.4, A2
    """Vienna's capital value is lost in the OCR (A2): Austria's income cannot be totalled until it is set, and the
    Production panel says so instead of failing."""
    p = producing(pos([], pp={"austria": 30}, players={"austria": "cara"}), "austria", totalled=False)
    why = " ".join(politics.purchase_reasons(p, "austria", {"inf": 1}))
    assert "its PP cannot be totalled" in why and "capital_pp_vienna" in why
    assert any("capital_pp_vienna" in line for line in production_panel(p).lines + tuple(
        a.why for a in production_panel(p).actions))
    with pytest.raises(InputError, match="capital_pp_vienna"):
        turn.end_turn(p)  # its production turn cannot end without its income either
    assert turn.end_turn(p, Options(capital_pp_vienna=8)).position.pp["austria"] == 30 + 8 + 2 * (
        len(p.europe.homeland("austria")) - 1)
