"""Napoleon in Europe through the registry and the command line: `systems`, `analyze`, `resolve`, `view`, with the
system registered at run time (the lead adds the entry point when merging)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from fieldglass.cli import main as run_cli
from rules import position as positions
from rules.nie import GAME
from rules.system import TableSystem, game_system, register, table_system, unregister

BATTLE = {
    "system": "nie", "board": "demo", "year": 1805, "month": 6,
    "relations": [{"nations": ["france", "britain"], "status": "war", "declared_by": ["britain"]}],
    "units": [{"id": "f-i1", "nation": "france", "type": "inf", "at": "belgium"},
              {"id": "f-c1", "nation": "france", "type": "cav", "at": "belgium"},
              {"id": "f-a1", "nation": "france", "type": "art", "at": "belgium"},
              {"id": "b-i1", "nation": "britain", "type": "inf", "at": "belgium"},
              {"id": "b-i2", "nation": "britain", "type": "elite", "at": "belgium"},
              {"id": "b-l1", "nation": "britain", "type": "leader", "at": "belgium"}],
    "battle": {"region": "belgium", "attacker": ["france"], "defender": ["britain"], "major": False,
               "phase": "artillery", "acting": "A", "came_from": {"f-i1": "picardy", "f-c1": "picardy",
                                                                 "f-a1": "picardy"},
               "units": {"f-i1": {"zone": "M"}, "f-c1": {"zone": "A-line"}, "f-a1": {"zone": "A-line"},
                         "b-i1": {"zone": "B-line"}, "b-i2": {"zone": "B-line"}, "b-l1": {"zone": "B-line"}}}}


@pytest.fixture(autouse=True)
def registered():
    register(GAME)
    yield
    unregister("nie")


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "nie.json"
    path.write_text(json.dumps(BATTLE))
    return str(path)


def test_registry_entry():
    assert isinstance(table_system("nie"), TableSystem)
    assert table_system("nie").next_phase(3, "spain", ()) == (4, "france")  # §4.1 turn order, then the month
    assert table_system("nie", {"charge_tie": "both_rout"}).opts.charge_tie == "both_rout"  # a record's options
    g = game_system("nie")
    assert g.table == "board" and g.sides == ("france", "britain", "prussia", "russia", "ottoman", "austria", "spain")
    assert {"fire", "charge", "amphibious", "sea_battle", "purchase"} <= set(g.actions)
    assert table_system("nie").piece_type("Heavy Cavalry") == "hcav"
    assert table_system("nie").piece_type("zeppelin") is None


def test_position_file_round_trips(game):
    p = positions.load(game)
    text = positions.dumps(p)
    assert positions.dumps(positions.loads(text)) == text
    assert positions.loads(text).battle.units["f-i1"].zone.name(False) == "M"


def test_systems_lists_it(capsys):
    assert run_cli(["systems", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["systems"]}
    assert rows["nie"]["table"] == "board" and "france" in rows["nie"]["sides"]


def test_analyze_a_pair_and_a_unit(game, capsys):
    assert run_cli(["analyze", game, "--from", "f-a1", "--to", "b-i1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fire"] is None and "long fire needs an empty zone between (M holds units" in out["fire_refused"]
    assert out["charge"] is None and "cannot charge" in out["charge_refused"]
    assert run_cli(["analyze", game, "--from", "f-i1", "--to", "b-i2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fire"]["table"] == 9 and out["fire"]["needs_raw"] == 9
    assert out["charge"] is None and "set charge_inf_inf in your options file" in out["charge_refused"]


def test_a_filled_in_cell_is_used_and_said(game, tmp_path, capsys):
    opts = tmp_path / "ours.toml"
    opts.write_text("charge_inf_inf = 1\n")
    assert run_cli(["analyze", game, "--from", "f-i1", "--to", "b-i2", "--json", "--options", str(opts)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["charge"]["attacker_modifiers"] == [[1, "infantry charging infantry (charge table, §8.4)"]]
    assert out["charge"]["defender_modifiers"] == [[1, "own leader in the zone (§8.6)"], [1, "Elite Infantry (§8.1)"]]
    assert out["charge"]["notes"] == ["charge_inf_inf = 1 filled in from the options (not in the digest)"]
    opts.write_text("charge_inf_inf = 12\n")
    assert run_cli(["analyze", game, "--from", "f-i1", "--options", str(opts)]) == 2
    assert "charge_inf_inf must be a whole number -9..6" in capsys.readouterr().err
    assert run_cli(["analyze", game, "--from", "f-i1"]) == 0
    text = capsys.readouterr().out
    assert "may attack b-i1, b-i2" in text
    assert run_cli(["analyze", game, "--from", "picardy", "--to", "belgium"]) == 0
    assert "neighbouring" in capsys.readouterr().out
    assert run_cli(["analyze", game, "--from", "france", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["production"]["nation"] == "france"


def test_resolve_fire_with_dice_and_out(game, tmp_path, capsys):
    after = tmp_path / "after.json"
    assert run_cli(["resolve", game, "--action", "end_phase", "--attacker", "any", "--out", str(after)]) == 0
    capsys.readouterr()
    # the defender's artillery phase: it has none; end it; then the attacker's infantry phase
    after2, after3 = tmp_path / "after2.json", tmp_path / "after3.json"
    assert run_cli(["resolve", str(after), "--action", "end_phase", "--attacker", "any", "--out", str(after2)]) == 0
    capsys.readouterr()
    assert run_cli(["resolve", str(after2), "--action", "fire", "--attacker", "f-i1", "--target", "b-i2",
                    "--dice", "5,6,2", "--out", str(after3)]) == 0
    text = capsys.readouterr().out
    assert "raw 11" in text and "leader b-l1 in B-line is eliminated" in text and "b-i2 eliminated" in text
    units = {u["id"] for u in json.loads(after3.read_text())["units"]}
    assert "b-l1" not in units and "b-i2" not in units


def test_resolve_refuses_with_a_one_line_reason(game, capsys):
    assert run_cli(["resolve", game, "--action", "fire", "--attacker", "f-i1", "--target", "b-i1",
                    "--dice", "5,6"]) == 2
    assert "acts in the infantry phase" in capsys.readouterr().err
    assert run_cli(["resolve", game, "--action", "fly", "--attacker", "f-i1"]) == 2
    assert "knows" in capsys.readouterr().err


def test_unused_dice_are_an_error(game, capsys):
    assert run_cli(["resolve", game, "--action", "end_phase", "--attacker", "any", "--dice", "3"]) == 2
    assert "given but not used" in capsys.readouterr().err


def test_view_shows_everything(game, capsys):
    assert run_cli(["view", game, "--as", "britain", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["units"]) == 6


SETUP = {**BATTLE, "battle": {"region": "belgium", "attacker": ["france"], "defender": ["britain"], "major": False,
                              "phase": "setup"}}


def test_hidden_set_up_behind_the_screen(tmp_path, capsys):  # §4.2, §13.2
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(SETUP))
    fr = ["--choice", "side=A", "--choice", "zone.f-i1=A-line", "--choice", "zone.f-c1=A-reserve",
          "--choice", "zone.f-a1=A-line"]
    # never over the position itself: each step into a new file
    assert run_cli(["resolve", str(path), "--action", "deploy", "--attacker", "any", *fr, "--out", str(path)]) == 2
    assert "is the input" in capsys.readouterr().err and json.loads(path.read_text()) == SETUP  # untouched
    fr_done = tmp_path / "setup-a.json"
    assert run_cli(["resolve", str(path), "--action", "deploy", "--attacker", "any", *fr, "--out",
                    str(fr_done)]) == 0
    assert "side A deployed" in capsys.readouterr().out
    path = fr_done
    assert run_cli(["view", str(path), "--as", "britain", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["battle"]["units"] == {}
    assert run_cli(["view", str(path), "--as", "france", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["battle"]["units"]) == {"f-i1", "f-c1", "f-a1"}
    gb = ["--choice", "side=B", "--choice", "zone.b-i1=B-line", "--choice", "zone.b-i2=B-reserve",
          "--choice", "zone.b-l1=B-reserve"]
    both = tmp_path / "setup-ab.json"
    assert run_cli(["resolve", str(path), "--action", "deploy", "--attacker", "any", *gb, "--out", str(both)]) == 0
    assert "screen removed" in capsys.readouterr().out
    path = both
    assert run_cli(["view", str(path), "--as", "britain", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["battle"]["units"]) == 6
    bad = ["--choice", "side=B", "--choice", "zone.b-i1=B-reserve", "--choice", "zone.b-i2=B-reserve",
           "--choice", "zone.b-l1=B-reserve"]
    path.write_text(json.dumps(SETUP))
    assert run_cli(["resolve", str(path), "--action", "deploy", "--attacker", "any", *bad]) == 2
    assert "B-line needs at least one unit (§4.2)" in capsys.readouterr().err


E2 = {"system": "nie", "board": "demo",
      "relations": [{"nations": ["britain", "france"], "status": "war"}],
      "units": [{"id": f"gb-inf-{i}", "nation": "britain", "type": "inf", "at": "cornwall"} for i in (1, 2, 3)]
      + [{"id": f"gb-sq-{i}", "nation": "britain", "type": "ship", "at": "bay_of_biscay"} for i in (1, 2, 3)]
      + [{"id": f"fr-sq-{i}", "nation": "france", "type": "ship", "at": "bay_of_biscay"} for i in (1, 2, 3)]
      + [{"id": f"gb-sq-{i}", "nation": "britain", "type": "ship", "at": "adriatic"} for i in (4, 5, 6)]}


def test_resolve_strategic_actions(tmp_path, capsys):
    path = tmp_path / "e2.json"
    path.write_text(json.dumps(E2))
    route = "route=bay_of_biscay,mid_atlantic,barbary_coast,tyrrhenian,ionian,adriatic"
    assert run_cli(["resolve", str(path), "--action", "amphibious", "--attacker", "gb-inf-1,gb-inf-2,gb-inf-3",
                    "--target", "illyria", "--choice", route, "--dice", "2,5,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["landed"] == ["gb-inf-1", "gb-inf-2"] and out["seed"] is None
    sea = ["resolve", str(path), "--action", "sea_battle", "--attacker", "britain", "--target", "bay_of_biscay",
           "--choice", "defender=france"]
    assert run_cli([*sea, "--dice", "6,6,1,1"]) == 0
    text = capsys.readouterr().out
    assert "raw 12 +3 3 squadron(s) (§8.10) +1 British fleet (§8.10) = 16" in text
    assert "side B loses 3 squadron(s)" in text
    assert run_cli([*sea, "--choice", "lose.B=fr-sq-3", "--dice", "4,4,4,4", "--json"]) == 0  # 12 vs 11
    assert json.loads(capsys.readouterr().out)["changes"] == [
        {"unit": "fr-sq-3", "eliminated": True, "why": "sea battle"}]
    assert run_cli([*sea, "--choice", "lose.B=fr-sq-1,fr-sq-2", "--dice", "4,4,4,4"]) == 2
    assert "side B loses 1 of fr-sq-1, fr-sq-2, fr-sq-3" in capsys.readouterr().err
    assert run_cli(["resolve", str(path), "--action", "production", "--attacker", "britain"]) == 0
    assert "britain: 16 PP income (§9.4); not added: PP are totalled only in a production round" in \
        capsys.readouterr().out  # no production round in the example: only reported (§4.1)
    assert run_cli(["resolve", str(path), "--action", "sudden_death", "--attacker", "any", "--choice", "round=12",
                    "--choice", "first=10", "--seed", "7"]) == 0
    assert "dice rolled by the app (seed 7)" in capsys.readouterr().out


def test_the_help_examples_run_on_the_shipped_example(capsys):
    root = Path(__file__).resolve().parents[2]
    lines = [line.split("   ")[0].strip() for text in GAME.examples.values() for line in text.splitlines()]
    assert len(lines) == 6
    for line in lines:
        words = shlex.split(line)[1:]
        words[1] = str(root / words[1])
        assert run_cli(words) == 0, (line, capsys.readouterr().err)
    out = capsys.readouterr().out
    assert "fr-art-1 (Artillery) fires at gb-inf-2 (Infantry) 2 zone(s): needs 9" in out
    assert "gb-inf-1: 2 > 1: safe" in out


def test_analyze_a_region_and_a_sea(game, capsys):
    assert run_cli(["analyze", game, "--from", "belgium", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["owner"] is None and out["battle_due"] and out["neighbours"] == ["holland", "picardy", "rhineland"]
    assert run_cli(["analyze", game, "--from", "aegean"]) == 0
    assert "strait to black_sea (§5.4)" in capsys.readouterr().out


def test_resolve_victory_for_a_nation_and_for_a_player(tmp_path, capsys):
    """§9.1: `victory` for a nation gives its level; for a player (a name of `players`) every nation he controlled."""
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"system": "nie", "board": "demo", "players": {"france": "anna", "britain": "ben"},
                                "controlled": {"anna": ["france", "prussia"]}}))
    assert run_cli(["resolve", str(path), "--action", "victory", "--attacker", "anna", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    text = "\n".join(out["lines"])
    assert text.splitlines()[0] == "anna: Major Victory (clean) with france, gained prussia (§9.1)"
    assert "prussia: level 4 Survival" in text
    assert run_cli(["resolve", str(path), "--action", "victory", "--attacker", "britain"]) == 0
    assert "britain: level 4 Survival" in capsys.readouterr().out
