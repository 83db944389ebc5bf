"""`fieldglass resolve`: given dice, seeded dice, the position after, one-line errors."""

from __future__ import annotations

import json

import pytest

from fieldglass.cli import main as run_cli
from rules import position as positions

from .test_analyze_cli import POSITION


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(POSITION))
    return str(path)


def test_resolve_fire_with_dice_json(game, capsys, tmp_path):
    out_file = tmp_path / "after.json"
    argv = ["resolve", game, "--action", "fire", "--attacker", "fr-art-1", "--target", "au-ir4-1",
            "--dice", "6", "--loss-die", "4", "--out", str(out_file), "--json"]
    assert run_cli(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["attacker"]["wz"] == 6 and out["defender"]["responded"] is False
    assert out["winner"] == "attacker" and out["effect"] == "loss_test" and out["loss_test"]["base_lost"]
    change = next(c for c in out["changes"] if c["piece"] == "au-ir4-1")
    assert change["bases"] == 2 and change["marker"] == ["red", "grey"]
    after = positions.load(out_file)
    assert after.piece("au-ir4-1").bases == 2 and out["position"] == positions.to_dict(after)


def test_resolve_without_dice_prints_the_seed_and_replays(game, capsys):
    argv = ["resolve", game, "--action", "fire", "--attacker", "fr-art-1", "--target", "au-ir4-1", "--json"]
    assert run_cli(argv) == 0
    first = json.loads(capsys.readouterr().out)
    seed = first["dice"]["seed"]
    assert run_cli(argv + ["--seed", str(seed)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["dice"]["rolled"] == first["dice"]["rolled"] and again["changes"] == first["changes"]


def test_resolve_text_and_melee_not_allowed(game, capsys):
    assert run_cli(["resolve", game, "--action", "melee", "--attacker", "fr-art-1", "--target", "au-ir4-1"]) == 2
    err = capsys.readouterr().err
    assert "fr-art-1 cannot attack au-ir4-1" in err and err.count("\n") == 1


@pytest.mark.parametrize("dice", ["7", "x", "1,2,3,4,5"])
def test_resolve_bad_dice(game, capsys, dice):
    argv = ["resolve", game, "--action", "fire", "--attacker", "fr-art-1", "--target", "au-ir4-1", "--dice", dice]
    assert run_cli(argv) == 2
    assert "--dice" in capsys.readouterr().err


def test_resolve_rally_text(game, capsys):
    assert run_cli(["resolve", game, "--action", "rally", "--attacker", "au-ir4-1", "--dice", "4"]) == 0
    assert "rallied" in capsys.readouterr().out


def test_resolve_simultaneous_fire_and_mount(tmp_path, capsys):
    path = tmp_path / "g.json"
    path.write_text(json.dumps({
        "system": "wiener", "grid": {"cols": 10, "rows": 10}, "night": False, "fields": {}, "edges": [],
        "pieces": [{"id": "a", "side": "FR", "type": "infantry", "field": "C3", "facing": "N"},
                   {"id": "b", "side": "FR", "type": "infantry", "field": "D3", "facing": "N"},
                   {"id": "h", "side": "FR", "type": "light_cavalry", "field": "H3", "facing": "N"},
                   {"id": "t", "side": "AU", "type": "infantry", "field": "C4", "facing": "S"}]}))
    argv = ["resolve", str(path), "--action", "fire", "--attacker", "a", "--simultaneous", "b", "--target", "t",
            "--dice", "4,1,3,1", "--json"]
    assert run_cli(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["simultaneous"] == ["a", "b"] and len(out["duels"]) == 2
    assert next(c for c in out["changes"] if c["piece"] == "t")["marker"] == ["grey", "red"]
    assert run_cli(["resolve", str(path), "--action", "dismount", "--attacker", "h", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["effect"] == "dismounted" and out["changes"][0]["formation"] == "dismounted"
    assert run_cli(["resolve", str(path), "--action", "mount", "--attacker", "h"]) == 2
    assert "already mounted" in capsys.readouterr().err
