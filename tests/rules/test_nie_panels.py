"""Napoleon in Europe's game-state panels (rules/nie/panels.py) against the engine, on the demo's game and on
data/example.json: the date and turn order (§4.1, §9.2), production (§9.4-9.5), diplomacy (§9.6, §9.10) and the
political actions (§9.7-9.8). Every pre-filled action is resolved through the adapter exactly as the combat panel
would send it: allowed ones resolve, refused ones fail with the reason the panel shows."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from common.errors import InputError
from rules.live import LiveRules
from rules.nie import politics, turn
from rules.nie.adapter import NieSystem
from rules.nie.demo import demo_game
from rules.nie.live import NieLive
from rules.nie.model import NATIONS, position_from_dict, with_changes
from rules.nie.options import DEFAULT
from rules.nie.panels import (
    PAP_COSTS,
    date_panel,
    diplomacy_panel,
    months_to_production,
    panels,
    political_panel,
    production_panel,
)
from tests.rules.nie_util import producing

EXAMPLE = Path(__file__).resolve().parents[2] / "rules" / "nie" / "data" / "example.json"


@pytest.fixture(params=["demo", "example"])
def pos(request):
    if request.param == "demo":
        return position_from_dict(demo_game(), "the demo")
    return position_from_dict(json.loads(EXAMPLE.read_text()), str(EXAMPLE))


def _rows(panel) -> dict[str, tuple[str, ...]]:
    return {r[0]: r for r in panel.rows}


def _resolve(pos, act, system=None):
    """The action as the combat panel sends it (rules/live.py PanelAction -> TableSystem.resolve)."""
    return (system or NieSystem()).resolve(pos, act.action, act.attacker, act.target or None, seed=7,
                                           choices=dict(act.choices))


def test_the_date_panel_follows_the_engines_turns(pos):
    p = date_panel(pos)
    assert p.lines[0].endswith(f"({pos.year}-{pos.month:02d}), round {pos.round}")
    assert [r[0] for r in p.rows] == turn.turn_order(pos)
    assert _rows(p)[pos.active][2] == "moving"
    after = pos
    for _ in turn.turn_order(pos):  # every nation ends its turn: the next month (§4.1)
        (end,) = p.actions if after is pos else date_panel(after).actions
        assert (end.action, end.attacker) == ("end_turn", "any")
        after = _resolve(after, end).resolution.after
    y, m = (pos.year, pos.month + 1) if pos.month < 12 else (pos.year + 1, 1)
    assert date_panel(after).lines[0].endswith(f"({y}-{m:02d}), round {pos.round + 1}")


def test_rounds_to_the_next_production_round():
    # §4.1: the production round follows March, June, September and December
    assert [months_to_production(m) for m in range(1, 13)] == [2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0]
    june = position_from_dict(json.loads(EXAMPLE.read_text()), "example")
    assert "production round after this month's round" in date_panel(june).lines[2]


def test_the_game_end(pos):
    lines = " ".join(date_panel(pos).lines)
    left = 1815 * 12 + 7 - (pos.year * 12 + pos.month)
    assert f"ends after the July 1815 round ({left} round(s) after this one, §9.2)" in lines
    late = with_changes(pos, round=14)  # past the short game's 12 rounds: sudden death, end number 12 - 2 (E1)
    assert f"short 12: sudden death, 2d6 >= {politics.end_number(14, 12)} ends it" in " ".join(date_panel(late).lines)
    hist = with_changes(pos, historical=True, sued=frozenset({"france"}))
    result = politics.historical_result(hist, {"france"}, {n for n in NATIONS if hist.allied("france", n)})
    assert f"historical game: over: {result} win(s)" in " ".join(date_panel(hist).lines)


def test_production_is_the_engines(pos):
    p = production_panel(pos)
    rows = _rows(p)
    assert set(rows) == set(NATIONS)
    for n, row in rows.items():
        assert row[1] == str(pos.pp.get(n, 0)) and row[3] == str(pos.pap.get(n, 0))
        try:
            pp = politics.production_points(pos, n)["pp"]
        except InputError as exc:  # Vienna's capital value is lost (A2): the panel says which option to set
            assert row[2] == "?" and "capital_pp_vienna" in str(exc) and any("capital_pp_vienna" in x for x in p.lines)
        else:
            assert row[2].startswith(f"{pp} (")
        may = [x.split()[0] for x in row[4].split(", ")] if row[4] != "-" else []
        assert may == [k for k in ("inf", "elite", "militia", "cav", "hcav", "icav", "art", "leader", "ship")
                       if not politics.purchase_reasons(pos, n, {k: 1})]
        assert row[5] == (", ".join(politics.placement_regions(pos, n)) or "-")


def test_a_filled_in_capital_value_is_used_and_said():
    pos = position_from_dict(demo_game(), "the demo")
    opts = replace(DEFAULT, capital_pp_vienna=6)
    row = _rows(production_panel(pos, opts))["austria"]
    assert row[2].startswith(f"{politics.production_points(pos, 'austria', opts)['pp']} (")
    assert any("capital_pp_vienna = 6 filled in from the options" in x for x in production_panel(pos, opts).lines)


def test_the_production_actions_resolve_as_filled_in(pos):
    outside = {a.action: a for a in production_panel(pos).actions}  # no production round in the fixtures
    for key in ("purchase", "buy_pap"):  # §4.1, §9.5: bought only in one's own production turn
        assert not outside[key].allowed and "only in a production round" in outside[key].why
    assert "no production round now" in " ".join(production_panel(pos).lines)
    pos = producing(pos, pos.active)  # the active nation's production turn, its PP totalled
    assert "production turn (§4.1 step 4)" in " ".join(production_panel(pos).lines)
    for act in production_panel(pos).actions:
        if act.allowed:
            res = _resolve(pos, act).resolution
            if act.action == "purchase":  # §9.5: paid for, placed where the panel said
                kind = dict(act.choices)["buy"].split(":")[0]
                assert res.after.pp[pos.active] == pos.pp[pos.active] - politics.unit_cost(kind)
            if act.action == "buy_pap":
                assert res.after.pap.get(pos.active, 0) == pos.pap.get(pos.active, 0) + 1
        else:
            with pytest.raises(InputError):
                _resolve(pos, act)
    poor = with_changes(pos, pp={**pos.pp, pos.active: 5})
    pap = next(a for a in production_panel(poor).actions if a.action == "buy_pap")
    assert not pap.allowed and pap.why == f"buy PAP: 1 PAP cost 10 PP, {pos.active} has 5 (§9.5)"


def test_diplomacy_is_the_position(pos):
    opts = replace(DEFAULT, c_britain=7)
    p = diplomacy_panel(with_changes(pos, c_values={"france": 8}), opts)
    rows = _rows(p)
    for n, row in rows.items():
        assert row[2] == (", ".join(m for m in NATIONS if pos.at_war(n, m)) or "-")
    assert rows["france"][4] == "8 (position)"
    assert rows["britain"][4] == "7 (option c_britain filled in, §11)"  # a missing value filled in by the option
    assert rows["prussia"][4].startswith("unknown: set c_prussia")
    assert "war declared on france by britain" in " ".join(p.lines)
    truce = with_changes(pos, truces=((("austria", "france", pos.round + 3),)), passage=frozenset({("prussia",
                                                                                                     "austria")}))
    lines = " ".join(diplomacy_panel(truce).lines)
    assert f"austria may not declare war on france until after round {pos.round + 3} (§9.8)" in lines
    assert "prussia may pass through austria's regions" in lines


def test_each_political_action_is_the_engines_answer(pos):
    p = political_panel(pos)
    rows = {r[0]: r for r in p.rows}
    assert f"{pos.active} {pos.pap.get(pos.active, 0)}" in p.lines[0]
    system = NieSystem()
    offered = {a.label: a for a in p.actions}
    for label, row in rows.items():
        if row[2] == "yes":
            act = offered[label]
            assert act.attacker == pos.active
            res = _resolve(pos, act, system).resolution
            if act.action == "declare_war":  # §9.8: 1 PAP, paid by the declarer
                assert pos.pap[pos.active] - res.after.pap[pos.active] == int(PAP_COSTS["declare_war"])
        else:
            assert label not in offered and row[3]
    for n in NATIONS:
        if n != pos.active and not pos.at_war(pos.active, n):
            assert f"declare war on {n}" in rows
    if pos.pap.get(pos.active, 0) == 0:  # the demo: France has no PAP
        assert rows["declare war on prussia"][3] == "declare war: costs 1 PAP, france has 0 (§9.8)"


def test_the_live_hooks_and_the_defaults():
    pos = position_from_dict(demo_game(), "the demo")

    class S:  # what the hooks use of a session
        position = pos

    live = NieLive(NieSystem(), None)
    assert [x.key for x in live.panels(S())] == ["date", "production", "diplomacy", "political"]
    assert live.panels(S()) == panels(pos, DEFAULT)
    assert set(NATIONS) <= set(live.actors(S()))
    base = LiveRules(None, None)
    assert base.panels(S()) == () and base.actors(S()) == ()  # every other system: no panels of its own


def test_uprisings_offered_in_the_enemies_regions():
    pos = with_changes(position_from_dict(demo_game(), "the demo"), pap={"france": 2})
    acts = {a.target: a for a in political_panel(pos).actions if a.action == "uprising"}
    # §9.9: Britain's Ireland (an uprising homeland) and Austria's Bavaria (not its homeland), not London or Vienna
    assert set(acts) == {"ireland", "bavaria"}
    after = _resolve(pos, acts["ireland"]).resolution.after
    assert "ireland" in after.uprisings and after.pap["france"] == 1
    assert "ireland" not in {a.target for a in political_panel(after).actions if a.action == "uprising"}
