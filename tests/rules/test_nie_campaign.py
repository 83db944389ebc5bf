"""The scripted NiE campaign (rules/nie/campaign.py) played through the engine alone: every input is legal, the
engine answers what the script expects, and the figures are carried where the rules send them (the record's
acceptance test, tests/fieldglass/test_nie_campaign.py, films the same script)."""

from __future__ import annotations

import pytest

from rules.nie import campaign as c
from rules.nie import turn
from rules.nie.adapter import NieSystem
from rules.nie.board import battle_board, demo_board
from rules.nie.model import parse_zone, position_from_dict

NATION = {fid: nation for fid, nation, _, _, _ in c.FIGURES}
KIND = {"infantry": "inf", "cavalry": "cav", "cav": "cav", "artillery": "art"}


def start_position():
    units = [{"id": fid, "nation": nation, "type": KIND[kind], "at": at}
             for fid, nation, kind, _, at in c.FIGURES if at is not None]
    return position_from_dict({**c.GAME, "units": units}, "the campaign")


def check(pos, expect: dict, data: dict) -> None:
    for uid, at in (expect.get("at") or {}).items():
        assert pos.units[uid].at == at, uid
    for uid in expect.get("removed", []):
        assert uid not in pos.units
    b = pos.battle
    if "battle" in expect:
        assert b.region == expect["battle"] and b.major == expect["major"]
    if "phase" in expect:
        assert b.phase == expect["phase"]
    if "acting" in expect:
        assert b.acting == expect["acting"]
    if "loser" in expect:
        assert b.loser == expect["loser"]
    for uid, z in (expect.get("zones") or {}).items():
        assert b.units[uid].zone == parse_zone(z, True, uid)
    for key in ("month", "round", "active"):
        if key in expect:
            assert getattr(pos, key) == expect[key], key
    if "production" in expect:
        assert data["production"] is expect["production"]
    for n, v in (expect.get("pap") or {}).items():
        assert pos.pap.get(n, 0) == v
    for n, v in (expect.get("pp") or {}).items():
        assert pos.pp.get(n, 0) == v


def test_the_campaign_plays_through_the_engine_as_scripted():
    system = NieSystem()
    pos = start_position()
    where = dict(c.start_places())
    inputs = 0
    for step in c.STEPS:
        inp = step.get("input")
        if inp is not None:
            inputs += 1
            if inp["type"] == "turn":
                res = turn.end_turn(pos)
                pos, data = res.after, res.data
            else:
                out = system.resolve(pos, inp["action"], inp["attacker"], inp.get("target"),
                                     dice=inp.get("dice", []), choices=inp.get("choices", {}))
                pos, data = out.after, {}
            check(pos, step["expect"], data)
        for fid, dest in (step.get("move") or {}).items():
            if dest is None:
                assert fid not in pos.units, f"{fid} taken off, but the rules keep it"
                where.pop(fid)
                continue
            surface, area = c.place_of(dest)
            region = pos.battle.region if surface == c.BATTLE else area
            assert pos.units[fid].at == region, f"{fid} carried to {dest}, the rules say {pos.units[fid].at}"
            where[fid] = region
    assert inputs == sum(1 for s in c.STEPS if "input" in s)
    assert {u.id: u.at for u in pos.units.values()} == where  # every figure ends where the rules put it
    assert (pos.year, pos.month, pos.round) == (1805, 4, 3)


def test_the_truth_lists_every_move_appearance_combat_and_turn():
    truth = c.truth()
    kinds = [e["type"] for e in truth]
    assert kinds.count("turn") == 4 and kinds.count("surface") == 2
    assert [e["action"] for e in truth if e["type"] == "combat"] == [
        "land_move", "start_battle", "deploy", "end_phase", "end_phase", "fire", "end_battle", "land_move",
        "land_move", "production", "purchase"]
    moves = [e for e in truth if e["type"] == "move"]
    assert {"type": "move", "piece": "ru-inf-2", "from": ("map", "moscow"), "to": ("battle", "B-centre")} in moves
    assert {"type": "move", "piece": "ru-inf-1", "from": ("battle", "B-left"), "to": ("map", "ukraine")} in moves
    assert truth[-1] == {"type": "appeared", "piece": "france-inf-1", "to": ("map", "paris")}


@pytest.mark.parametrize("surface", ["map", "battle"])
def test_figures_stand_inside_their_areas_apart_and_keep_their_spots(surface):
    boards = {"map": demo_board(), "battle": battle_board()}
    areas = {name: {k: a.polygon for k, a in b.areas.items()} for name, b in boards.items()}
    brd = boards[surface]
    area = "moscow" if surface == "map" else "A-reserve"
    first = c.stands(areas, {f"a{i}": (surface, area) for i in range(3)})
    more = c.stands(areas, {**{f"a{i}": (surface, area) for i in range(3)}, "b": (surface, area)}, first)
    assert {k: more[k] for k in first} == first  # those standing there do not move when another arrives
    for _, x, y in more.values():
        pl = brd.locate(x, y)
        assert pl.area == area and not pl.on_border
    pts = [(x, y) for _, x, y in more.values()]
    assert min(abs(complex(*a) - complex(*b)) for i, a in enumerate(pts) for b in pts[i + 1:]) >= 32.0
    with pytest.raises(ValueError, match="no room"):
        c.stands(areas, {f"z{i}": ("battle", "A-left") for i in range(5)})
