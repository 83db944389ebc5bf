"""`fieldglass analyze` / `fieldglass resolve` on DBX positions, through fieldglass.cli.main."""

from __future__ import annotations

import json

import pytest

from fieldglass.cli import main

POSITION = {
    "system": "dbx", "scale": {"mm_per_pace": 0.25, "bb_mm": 40}, "table": {"width_mm": 600, "depth_mm": 600},
    "terrain": [{"id": "w1", "type": "wood", "polygon": [[100, 100], [180, 100], [180, 160], [100, 160]]},
                {"id": "h1", "type": "gentle_hill", "polygon": [[400, 250], [500, 250], [500, 330], [400, 330]],
                 "crest": [[410, 290], [490, 290]]}],
    "pieces": [{"id": "p1", "side": "blue", "type": "Li", "x_mm": 300, "y_mm": 150, "heading_deg": 0},
               {"id": "p2", "side": "red", "type": "Art", "x_mm": 300, "y_mm": 400, "heading_deg": 180},
               {"id": "p3", "side": "red", "type": "Li", "x_mm": 300, "y_mm": 170, "heading_deg": 180},
               {"id": "g1", "side": "blue", "type": "Gen", "x_mm": 200, "y_mm": 50, "heading_deg": 0},
               {"id": "g2", "side": "red", "type": "Gen", "x_mm": 200, "y_mm": 550, "heading_deg": 180}],
}


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "dbx.json"
    path.write_text(json.dumps(POSITION))
    return path


def _json(capsys, *argv) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_analyze_pair_json_has_the_issue_fields(game, capsys):
    out = _json(capsys, "analyze", str(game), "--from", "p1", "--to", "p3", "--json")
    for key in ("distance_mm", "distance_paces", "distance_bb", "contact", "in_zone_of_control", "line_of_sight",
                "blocked_by", "fire", "melee"):
        assert key in out
    assert out["distance_mm"] == 0 and out["contact"] == "front" and out["in_zone_of_control"]
    assert out["melee"]["allowed"] and not out["fire"]["allowed"]
    for key in ("allowed", "reason", "modifiers", "net_modifier"):
        assert key in out["fire"] and key in out["melee"]


def test_analyze_whole_picture_and_text(game, capsys):
    out = _json(capsys, "analyze", str(game), "--from", "p1", "--json")
    assert [t["to"] for t in out["targets"]] == ["p3", "p2", "g2"]
    assert main(["analyze", str(game), "--from", "p1"]) == 0
    text = capsys.readouterr().out
    assert "contact front" in text and "paces" in text


def test_analyze_move_path(game, capsys):
    out = _json(capsys, "analyze", str(game), "--from", "p2", "--path", "300,420", "--facing", "180", "--json")
    assert out["legal"] and out["front_corner_paces"] == 80


def test_analyze_all_pairs(game, capsys):
    out = _json(capsys, "analyze", str(game), "--all", "--json")
    assert len(out["pairs"]) == 12


def test_resolve_melee_json_changes_and_position(game, tmp_path, capsys):
    after = tmp_path / "after.json"
    out = _json(capsys, "resolve", str(game), "--action", "melee", "--attacker", "p1", "--target", "p3",
                "--dice", "6,3", "--json", "--out", str(after))
    assert out["attacker_side"]["total"] == 10 and out["target_side"]["total"] == 7
    assert out["outcome"]["result"] == "recoil"
    assert out["changes"][0]["piece"] == "p3" and out["changes"][0]["to"]["y_mm"] == 190
    moved = {p["id"]: p for p in json.loads(after.read_text())["pieces"]}
    assert moved["p3"]["y_mm"] == 190 and out["position"]["pieces"][2]["y_mm"] == 190


def test_resolve_text_and_seeded_dice(game, capsys):
    assert main(["resolve", str(game), "--action", "melee", "--attacker", "p1", "--target", "p3", "--seed", "7"]) == 0
    text = capsys.readouterr().out
    assert "outcome:" in text and "seed 7" in text


def test_resolve_refuses_illegal_fire_in_one_line(game, capsys):
    assert main(["resolve", str(game), "--action", "fire", "--attacker", "p2", "--target", "p1", "--dice", "4,4"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "p2 may not shoot at p1" in err


def test_unknown_piece_and_action_are_one_line_errors(game, capsys):
    assert main(["analyze", str(game), "--from", "nope", "--to", "p1"]) == 2
    assert "no piece 'nope'" in capsys.readouterr().err
    assert main(["resolve", str(game), "--action", "charge", "--attacker", "p1"]) == 2
    assert "DBX actions" in capsys.readouterr().err


def test_choice_tolerance_and_options_file(game, tmp_path, capsys):
    data = dict(POSITION)
    data["pieces"] = [dict(p) for p in POSITION["pieces"]]
    data["pieces"][2]["y_mm"] = 171.0
    path = tmp_path / "gap.json"
    path.write_text(json.dumps(data))
    assert _json(capsys, "analyze", str(path), "--from", "p1", "--to", "p3", "--json")["contact"] == "front"
    out = _json(capsys, "analyze", str(path), "--from", "p1", "--to", "p3", "--json", "--choice", "tolerance_mm=0.5")
    assert out["contact"] is None
    opts = tmp_path / "o.toml"
    opts.write_text("tolerance_mm = 0.5\n")
    assert _json(capsys, "analyze", str(path), "--from", "p1", "--to", "p3", "--json", "--options",
                 str(opts))["contact"] is None


def test_resolve_square_and_river(game, capsys):
    out = _json(capsys, "resolve", str(game), "--action", "river", "--attacker", "p1", "--dice", "4", "--json")
    assert out["position"]["game"]["river"] == "slow"
    assert main(["resolve", str(game), "--action", "square", "--attacker", "p1"]) == 2
    assert "in contact with the enemy" in capsys.readouterr().err
