"""The registry (rules/system.py), `fieldglass systems` and `fieldglass view`."""

from __future__ import annotations

import json

import pytest

from common.errors import InputError
from fieldglass.cli import main as run_cli
from rules.marengo.model import position_to_dict
from rules.system import GameSystem, default_system, game_system, game_systems, register, table_system, unregister
from tests.fieldglass.test_analyze_cli import POSITION
from tests.rules.marengo_util import blk, mk


def test_the_three_systems_are_registered_through_entry_points():
    systems = game_systems()
    assert {"wiener", "dbx", "marengo"} <= set(systems)
    assert {n: systems[n].table for n in ("wiener", "dbx", "marengo")} == {
        "wiener": "grid", "dbx": "free", "marengo": "board"}
    assert systems["marengo"].sides == ("AU", "FR")
    assert table_system("dbx").name == "dbx"
    assert "thrust" in table_system("marengo").actions


def test_the_default_system_is_the_one_its_package_marks():
    assert default_system() == "wiener"  # the flagship's GameSystem says default=True; nothing else names it
    assert [n for n, g in game_systems().items() if g.default] == ["wiener"]


def test_an_unknown_system_names_the_known_ones():
    with pytest.raises(InputError, match=r"--system: unknown game system 'chess' \(known: .*wiener"):
        game_system("chess")


def test_a_system_registered_at_run_time_is_found_and_removed():
    wiener = game_system("wiener")
    toy = GameSystem("toy", "Toy", "grid", ("A", "B"), ("take",), wiener.from_dict, wiener.to_dict, wiener.dumps,
                     wiener.adapter, wiener.commands)
    register(toy)
    try:
        assert game_system("toy") is toy
    finally:
        unregister("toy")
    assert "toy" not in game_systems()
    with pytest.raises(ValueError, match="table must be one of"):
        GameSystem("bad", "Bad", "hexes", (), (), wiener.from_dict, wiener.to_dict, wiener.dumps, wiener.adapter, "")


def test_systems_lists_each_with_table_sides_and_actions(capsys):
    assert run_cli(["systems", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["systems"]}
    assert rows["marengo"]["sides"] == ["AU", "FR"]
    assert rows["wiener"]["actions"][:2] == ["fire", "melee"]
    assert rows["dbx"]["table"] == "free" and rows["wiener"]["default"] and not rows["dbx"]["default"]
    assert run_cli(["systems"]) == 0
    assert "Triomphe" in capsys.readouterr().out


@pytest.fixture
def wiener_game(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(POSITION))
    return str(path)


@pytest.fixture
def marengo_game(tmp_path):
    pos = mk(blk("au-inf-1", "AU", "infantry", 3, area="3"), blk("fr-cav-1", "FR", "cavalry", 2, area="8"),
             blk("fr-inf-2", "FR", "infantry", 4, area="9", revealed=True))
    path = tmp_path / "marengo.json"
    path.write_text(json.dumps(position_to_dict(pos)))
    return str(path)


def test_view_of_a_wiener_position_shows_every_piece(wiener_game, capsys):
    assert run_cli(["view", wiener_game, "--as", "FR", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["id"] for p in out["pieces"]] == ["fr-art-1", "au-ir4-1"]
    assert out["pieces"][1]["formation"] == "column"


def test_view_as_a_side_not_in_the_game_is_one_line(wiener_game, capsys):
    assert run_cli(["view", wiener_game, "--as", "RU"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--as 'RU': one of FR, AU, umpire" in err


def test_view_hides_the_opponents_unrevealed_blocks(marengo_game, capsys):
    assert run_cli(["view", marengo_game, "--as", "AU", "--json"]) == 0
    blocks = {b["id"]: b for b in json.loads(capsys.readouterr().out)["blocks"]}
    assert set(blocks) == {"au-inf-1", "FR block 1", "fr-inf-2"}
    assert blocks["FR block 1"] == {"id": "FR block 1", "side": "FR", "area": "8", "hidden": True}
    assert blocks["fr-inf-2"]["strength"] == 4  # revealed by the rules: shown in full
    assert blocks["au-inf-1"]["strength"] == 3
    assert run_cli(["view", marengo_game, "--as", "FR", "--json"]) == 0
    blocks = {b["id"]: b for b in json.loads(capsys.readouterr().out)["blocks"]}
    assert set(blocks) == {"AU block 1", "fr-cav-1", "fr-inf-2"}


def test_view_as_umpire_and_as_text(marengo_game, capsys):
    assert run_cli(["view", marengo_game, "--as", "umpire", "--json"]) == 0
    assert {b["id"] for b in json.loads(capsys.readouterr().out)["blocks"]} == {"au-inf-1", "fr-cav-1", "fr-inf-2"}
    assert run_cli(["view", marengo_game, "--as", "AU"]) == 0
    text = capsys.readouterr().out
    assert "FR block 1" in text and "fr-cav-1" not in text and "hidden" in text
