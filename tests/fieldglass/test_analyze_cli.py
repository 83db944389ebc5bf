"""`fieldglass analyze`: JSON and text answers, one-line errors."""

from __future__ import annotations

import json

import pytest

from fieldglass.cli import main as run_cli

POSITION = {
    "system": "wiener", "grid": {"cols": 40, "rows": 20}, "night": False,
    "fields": {"D5": {"terrain": "wood"}, "E5": {"terrain": "town"}, "F7": {"height": 1}},
    "edges": [{"fields": ["C5", "C6"], "obstacle": "wall"}],
    "pieces": [
        {"id": "fr-art-1", "side": "FR", "type": "artillery", "field": "C3", "facing": "N", "bases": 1},
        {"id": "au-ir4-1", "side": "AU", "type": "infantry", "field": "C6", "facing": "S", "formation": "column",
         "bases": 3, "marker": "red"},
    ],
}


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(POSITION))
    return str(path)


def test_analyze_pair_json(game, capsys):
    assert run_cli(["analyze", game, "--from", "fr-art-1", "--to", "au-ir4-1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["distance"] == 3 and out["adjacent"] is False and out["line_of_sight"] is True
    assert out["fire"]["allowed"] and out["fire"]["weapon"] == "artillery"
    rules = [(m["rule"], m["value"]) for m in out["fire"]["modifiers"]]
    assert rules == [("range 3-4 LE", 1), ("target behind a wall", -1)]  # the wall on C5-C6 (§11 A37)
    assert out["fire"]["net_modifier"] == 0
    assert out["melee"] == {"allowed": False, "weapon": "melee", "reason": "artillery fights by fire only (§7)",
                            "modifiers": [], "net_modifier": 0}


def test_analyze_every_enemy_text(game, capsys):
    assert run_cli(["analyze", game, "--from", "au-ir4-1"]) == 0
    text = capsys.readouterr().out
    assert "fr-art-1" in text and "out of range" in text


def test_analyze_move(game, capsys):
    assert run_cli(["analyze", game, "--from", "au-ir4-1", "--path", "C5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["legal"] is False and "wall" in out["reasons"][0]


def test_analyze_unknown_piece_is_one_line(game, capsys):
    assert run_cli(["analyze", game, "--from", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "game.json" in err and "nobody" in err and err.count("\n") == 1


def test_analyze_bad_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**POSITION, "pieces": [{**POSITION["pieces"][0], "field": "C99"}]}))
    assert run_cli(["analyze", str(bad), "--from", "fr-art-1"]) == 2
    err = capsys.readouterr().err
    assert "fr-art-1" in err and "off the" in err and err.count("\n") == 1


def test_analyze_all_pairs_json_matches_the_pair_answer(game, capsys):
    assert run_cli(["analyze", game, "--all", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["pairs"]
    assert len(rows) == 2
    art = next(r for r in rows if r["from"] == "fr-art-1")
    assert art["fire_allowed"] and art["fire_net"] == 0 and art["distance"] == 3 and art["counter_fire"] is False
    assert run_cli(["analyze", game, "--all"]) == 0
    assert "fr-art-1 -> au-ir4-1 (3 LE): fire +0" in capsys.readouterr().out


def test_analyze_needs_from_or_all(game, capsys):
    assert run_cli(["analyze", game]) == 2
    assert "--from" in capsys.readouterr().err
