"""`fieldglass analyze` / `fieldglass resolve` on Marengo positions (delegated to rules/marengo/commands.py)."""

from __future__ import annotations

import json

from fieldglass.cli import main
from rules import position
from tests.rules.marengo_util import blk, mk


def _write(tmp_path, p):
    path = tmp_path / "game.json"
    position.save(p, path)
    return str(path)


def test_analyze_two_areas_json(tmp_path, capsys):
    p = mk(blk("a", "AU", "cavalry", 2, "3"), blk("f", "FR", "infantry", 2, "5"), round=2)
    assert main(["analyze", _write(tmp_path, p), "--from", "3", "--to", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["adjacent"] and out["approaches"]["defender"]["id"] == "5>3"
    assert out["road_paths"] == [{"path": ["5"], "free": True}]
    acts = {a["action"]: a for a in out["actions"]}
    assert acts["thrust"]["legal"] and acts["thrust"]["cost"] == 1 and acts["defensive_move"]["cost"] == 0


def test_analyze_two_blocks_text(tmp_path, capsys):
    p = mk(blk("a", "AU", "cavalry", 2, "3", "5"), blk("f", "FR", "infantry", 2, "5"), round=2)
    assert main(["analyze", _write(tmp_path, p), "--from", "a", "--to", "f"]) == 0
    text = capsys.readouterr().out
    assert "adjacent" in text and "thrust a: legal, 1 command(s)" in text


def test_resolve_thrust_with_choices_and_out(tmp_path, capsys):
    p = mk(blk("a", "AU", "infantry", 3, "4"), blk("f", "FR", "infantry", 2, "5"), round=2)
    out = tmp_path / "after.json"
    rc = main(["resolve", _write(tmp_path, p), "--action", "thrust", "--attacker", "a", "--target", "f",
               "--choice", "push=f", "--choice", "into_approach=yes", "--out", str(out), "--json"])
    res = json.loads(capsys.readouterr().out)
    assert rc == 0 and res["legal"] and res["success"] is False and res["pushed"] == ["f"]
    after = position.load(out)
    assert after.block("a").position == "4>5"


def test_resolve_assault_and_bad_action(tmp_path, capsys):
    p = mk(blk("ai", "AU", "infantry", 3, "3", "5"), blk("di", "FR", "infantry", 2, "5", "3"),
           blk("dc", "FR", "cavalry", 3, "5", "3"), round=2)
    path = _write(tmp_path, p)
    assert main(["resolve", path, "--action", "assault", "--attacker", "ai", "--choice", "def_lead=di",
                 "--choice", "counter=dc", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == -1
    assert main(["resolve", path, "--action", "charge", "--attacker", "ai"]) == 2
    assert "Marengo knows thrust" in capsys.readouterr().err
