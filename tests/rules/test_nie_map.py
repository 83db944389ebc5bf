"""Napoleon in Europe's map read from a digitised board file (rules/nie/model.py `europe_from_board`): a tiny map
digitised through the board editor's model and played on, the demo map shipped in board form, and the one-line
errors of a bad digitisation."""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from pathlib import Path

import pytest

from common.errors import InputError
from fieldglass.cli import main as run_cli
from fieldglass.session import Session
from fieldglass.setup import load_setup
from gui.board_editor import BoardDraft
from rules.board import board_to_toml, load_board, parse_board
from rules.nie import GAME
from rules.nie.board import demo_board, digitised_board
from rules.nie.demo import data_path
from rules.nie.model import TABLE_REF, carries_topology, europe_from_board, load_europe, position_from_dict
from rules.nie.strategic import is_strait, land_move, naval_move
from rules.system import register, unregister

SQ = {  # the tiny map, 400 x 200 mm, north up: France and Belgium on the south coast, Britain across the Channel
    "paris": [[0, 0], [100, 0], [100, 100], [0, 100]],
    "picardy": [[100, 0], [200, 0], [200, 100], [100, 100]],
    "belgium": [[200, 0], [300, 0], [300, 100], [200, 100]],
    "holland": [[300, 0], [400, 0], [400, 100], [300, 100]],
    "channel": [[0, 100], [200, 100], [200, 150], [0, 150]],
    "london": [[0, 150], [200, 150], [200, 200], [0, 200]],
    "north_sea": [[200, 100], [400, 100], [400, 200], [200, 200]],
}
ATTRS = {
    "paris": {"kind": "region", "home": "france", "capital": True},
    "picardy": {"kind": "region", "home": "france", "port": ["channel"]},
    "belgium": {"kind": "region", "port": ["north_sea"]},
    "holland": {"kind": "region", "port": ["north_sea"]},
    "channel": {"kind": "sea"},
    "london": {"kind": "region", "home": "britain", "capital": True, "port": ["channel", "north_sea"]},
    "north_sea": {"kind": "sea"},
}


def tiny_draft() -> BoardDraft:
    """The tiny map drawn in the editor's model: areas with attributes, borders linked, a strait, a closed border."""
    d = BoardDraft("tiny map", 400, 200)
    for aid, poly in SQ.items():
        d.add_area(poly, aid, aid.replace("_", " ").title(), attributes=ATTRS[aid])
    d.link_borders()
    d.connect("channel", "north_sea", "strait")  # the drawn sea border is a strait (§5.4a)
    d.connect("belgium", "holland", "closed")  # a drawn border that is no link
    return d


def test_a_tiny_map_digitised_in_the_editor_model_is_the_map(tmp_path):
    d = tiny_draft()
    assert d.validate() == []
    assert d.connection("paris", "picardy")["kind"] == "land" and d.connection("picardy", "channel")["kind"] == "sea"
    path = d.save(tmp_path / "tiny.toml")
    board = load_board(path)
    assert dict(board.areas["london"].attributes)["port"] == ("channel", "north_sea")
    europe = load_europe(str(path))
    assert europe.source == str(path) and not europe.invented
    assert europe.regions["picardy"].neighbours == {"paris", "belgium"}
    assert europe.regions["belgium"].neighbours == {"picardy"}  # the closed border shuts Belgium-Holland
    assert europe.regions["london"].neighbours == frozenset()  # an island: coasts are no land borders
    assert europe.regions["london"].port == {"channel", "north_sea"} and europe.regions["paris"].port == frozenset()
    assert europe.capitals("france") == ["paris"] and europe.homeland("britain") == ["london"]
    assert europe.regions["belgium"].home is None  # no home: a minor nation of its own (§3.2)
    assert europe.seas["channel"].neighbours == {"north_sea"} and europe.seas["channel"].straits == {"north_sea"}


def _play_position(tmp_path: Path) -> dict:
    tiny_draft().save(tmp_path / "tiny.toml")
    return {"system": "nie", "board": "tiny.toml", "players": {"france": "anna", "britain": "ben"},
            "relations": [{"nations": ["britain", "france"], "status": "war", "declared_by": ["britain"]}],
            "units": [{"id": "fr-inf-1", "nation": "france", "type": "inf", "at": "paris"},
                      {"id": "fr-cav-1", "nation": "france", "type": "cav", "at": "belgium"},
                      {"id": "gb-sq-1", "nation": "britain", "type": "ship", "at": "port:london"}]}


def test_a_land_move_and_a_naval_move_on_the_digitised_map(tmp_path):
    data = _play_position(tmp_path)
    pos = position_from_dict(data, str(tmp_path / "game.json"))  # the board path is relative to the position
    after = land_move(pos, ["fr-inf-1"], ["picardy"]).after  # §5.1: a neighbour by the drawn border
    assert after.units["fr-inf-1"].at == "picardy"
    with pytest.raises(InputError, match="holland"):  # the closed border: not a neighbour
        land_move(pos, ["fr-cav-1"], ["holland"])
    sailed = naval_move(pos, ["gb-sq-1"], ["channel", "north_sea"]).after  # §5.3: out of the port, through the strait
    assert sailed.units["gb-sq-1"].at == "north_sea"
    assert is_strait(pos, "channel", "north_sea") and is_strait(pos, "north_sea", "channel")


def test_resolve_on_a_position_naming_the_digitised_board(tmp_path, capsys):
    register(GAME)
    try:
        game = tmp_path / "game.json"
        game.write_text(json.dumps(_play_position(tmp_path)), encoding="utf-8")
        out = tmp_path / "after.json"
        run_cli(["resolve", str(game), "--action", "land_move", "--attacker", "fr-inf-1", "--target", "picardy",
                 "--out", str(out)])
        after = json.loads(out.read_text(encoding="utf-8"))
        assert after["board"] == "tiny.toml"
        assert next(u for u in after["units"] if u["id"] == "fr-inf-1")["at"] == "picardy"
        run_cli(["analyze", str(game), "--from", "london"])
        text = capsys.readouterr().out
        assert "channel" in text and "north_sea" in text
    finally:
        unregister("nie")


def test_the_table_board_gives_the_map_when_the_position_names_none(tmp_path):
    path = tiny_draft().save(tmp_path / "tiny.toml")
    board = load_board(path)
    pos = position_from_dict({"system": "nie", "units": [
        {"id": "gb-sq-1", "nation": "britain", "type": "ship", "at": "port:london"}]}, "live", board=board)
    assert pos.board_ref == str(path.resolve()) and set(pos.europe.seas) == {"channel", "north_sea"}
    # a board read from a record's TOML names no file: the position's map is "the table's board"
    copy = parse_board(tomllib.loads(board_to_toml(board)), "the record's board")
    pos = position_from_dict({"system": "nie"}, "live", board=copy)
    assert pos.board_ref == TABLE_REF and pos.europe.regions["london"].capital
    again = position_from_dict({"system": "nie", "board": TABLE_REF}, "replay", board=copy)
    assert again.europe.regions == pos.europe.regions
    with pytest.raises(InputError, match="the table's board"):
        position_from_dict({"system": "nie", "board": TABLE_REF}, "game.json")
    # a board without topology (the demo's cells) keeps the map file's topology
    assert not carries_topology(demo_board())
    assert position_from_dict({"system": "nie"}, "live", board=demo_board()).board_ref == "demo"


def test_the_shipped_digitised_demo_board_is_the_demo_map():
    path = data_path("europe_demo_board.toml")
    demo = load_europe("demo")
    text = path.read_text(encoding="utf-8")
    # regenerated when the map file changes: the same board, its corners within the file's 0.1 mm rounding (numpy
    # and OpenCV releases round a corner's last digit either way)
    made = tomllib.loads(board_to_toml(digitised_board(demo)))
    shipped = tomllib.loads(text)
    corners = {a["id"]: a.pop("polygon") for a in made["area"]}
    assert made == {**shipped, "area": [{k: v for k, v in a.items() if k != "polygon"} for a in shipped["area"]]}
    for a in shipped["area"]:
        assert len(a["polygon"]) == len(corners[a["id"]]), a["id"]
        assert max(abs(u - v) for p, q in zip(a["polygon"], corners[a["id"]], strict=True)
                   for u, v in zip(p, q, strict=True)) <= 0.1 + 1e-9, a["id"]
    europe = load_europe(str(path))
    assert set(europe.regions) == set(demo.regions) and set(europe.seas) == set(demo.seas)
    for r in demo.regions.values():
        got = europe.regions[r.id]
        assert (got.name, got.neighbours, got.home, got.capital, got.north_africa, got.uprising_homeland,
                got.port) == (r.name, r.neighbours, r.home, r.capital, r.north_africa, r.uprising_homeland, r.port)
    for s in demo.seas.values():
        assert (europe.seas[s.id].neighbours, europe.seas[s.id].straits) == (s.neighbours, s.straits)
    # the cells share borders the map does not have: closed connections shut them
    board = load_board(path)
    assert any(c.kind == "closed" for c in board.connections)
    assert {frozenset((c.a, c.b)) for c in board.connections if c.kind == "strait"} == {
        frozenset(("mid_atlantic", "barbary_coast")), frozenset(("aegean", "black_sea"))}


def _broken(tmp_path: Path, area: str, **attrs) -> Path:
    d = tiny_draft()
    for k, v in attrs.items():
        if k == "connect":
            d.connect(*v)
        else:
            d.set_attribute(area, k, v)
    path = tmp_path / "broken.toml"
    path.write_text(board_to_toml(d.board()), encoding="utf-8")
    return path


@pytest.mark.parametrize("area, attrs, message", [
    ("belgium", {"home": "bavaria"}, "region 'belgium': home 'bavaria' is not a Great Nation"),
    ("picardy", {"port": ["baltic"]}, "region 'picardy': port sea 'baltic' is not a sea area of the board"),
    ("paris", {"capital": False}, "france has homeland regions (paris, picardy) but no capital"),
    ("belgium", {"capital": True}, "region 'belgium': a capital needs its Great Nation"),
    ("holland", {"kind": ""}, "area 'holland': kind must be region or sea, not None"),
    ("holland", {"kind": "lake"}, "area 'holland': kind must be region or sea, not 'lake'"),
    ("holland", {"hom": "france"}, "area 'holland': unknown attribute 'hom'"),
    ("holland", {"north_africa": "yes"}, "region 'holland': north_africa must be true or false"),
    ("holland", {"connect": ("holland", "north_sea", "strait")}, "a strait connection joins a region and a sea"),
    ("holland", {"connect": ("paris", "london", "sea")}, "regions 'london' and 'paris': a sea connection joins"),
    ("holland", {"connect": ("channel", "north_sea", "land")}, "a land connection joins two sea areas"),
])
def test_a_bad_digitisation_fails_in_one_line_naming_file_and_area(tmp_path, area, attrs, message):
    path = _broken(tmp_path, area, **attrs)
    with pytest.raises(InputError, match=re.escape(message)) as err:
        load_europe(str(path))
    assert str(err.value).startswith(str(path)) and "\n" not in str(err.value)


def test_a_board_without_topology_is_no_map(tmp_path):
    path = tmp_path / "cells.toml"
    path.write_text(board_to_toml(demo_board()), encoding="utf-8")
    with pytest.raises(InputError, match="carry no map topology"):
        load_europe(str(path))
    assert europe_from_board(digitised_board(load_europe("demo"))).regions["paris"].capital


def test_the_live_table_on_a_digitised_board_file_plays_its_map(tmp_path):
    """`fieldglass gui --system nie --board FILE`: the set-up's game and a session without a position file take the
    board file's topology; a position file saying nothing of the map, too."""
    path = tiny_draft().save(tmp_path / "tiny.toml")
    setup = load_setup("nie", "synthetic", board=str(path), game=None)
    assert setup.board.source == str(path) and set(setup.board.areas) == set(SQ)
    session = Session(dataclasses.replace(setup, game=None), settle_s=0.0)  # a camera's session: no demo game
    assert session.live.game.board_ref == str(path.resolve())
    assert session.live.game.europe.regions["london"].port == {"channel", "north_sea"}
    game = tmp_path / "game.json"
    game.write_text(json.dumps({"system": "nie", "players": {"france": "anna"}, "units": [
        {"id": "fr-inf-1", "nation": "france", "type": "inf", "at": "picardy"}]}), encoding="utf-8")
    with_game = load_setup("nie", "synthetic", board=str(path), game=str(game))
    assert with_game.game.europe.seas["channel"].straits == {"north_sea"}
    assert with_game.game.units["fr-inf-1"].at == "picardy"
