"""The one set-up loader (fieldglass/setup.py `load_setup`) for every registered system: the synthetic table each
system declares (its `LiveRules.demo`, plain data in its package) rendered and read like files, what the kind of table
needs (--board, a grid), and bad input as one line naming the file."""

from __future__ import annotations

import dataclasses
import json
from importlib import resources

import pytest

from calibration.layout import load_layout
from common.errors import InputError
from fieldglass.setup import Setup, demo_roster, load_setup, synthetic_scene
from rules.board import board_to_toml
from rules.dbx.demo import DEMO_GAME, DEMO_TABLE_MM, demo, demo_dict, demo_position
from rules.dbx.model import base_size
from rules.marengo.demo import DEMO_BLOCKS
from rules.marengo.model import load_demo_board
from rules.system import game_systems
from vision.roster import load_roster
from vision.synthetic import standard_layout

SYSTEMS = sorted(game_systems())


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_system_brings_its_synthetic_table(name):
    gs = game_systems()[name]
    if gs.live is None:  # an engine without a live table yet says so, in one line
        with pytest.raises(InputError, match=f"--system {name}: .* has no live table yet"):
            load_setup(name, "synthetic")
        return
    setup = load_setup(name, "synthetic")
    assert isinstance(setup, Setup) and setup.system == name and setup.camera is None
    scene = setup.scene
    assert scene is not None and scene.placements
    assert scene.roster == setup.roster and scene.layout == setup.layout
    assert {p.piece.id for p in scene.placements} <= {p.id for p in setup.roster.pieces}
    assert setup.roster.dictionary == setup.layout.dictionary
    assert setup.layout.grid is not None or gs.table != "grid"
    assert (setup.board is not None) == (gs.table == "board")
    assert {"source", "camera", "layout", "roster"} <= set(setup.names)
    s = setup.make_session()
    assert s.system.name == name and s.position is not None


def test_the_window_title_names_what_each_demo_brought():
    assert load_setup("dbx", "synthetic").names["layout"] == "synthetic DBX table"
    assert load_setup("dbx", "synthetic").names["roster"] == "DBX demo elements"
    m = load_setup("marengo", "synthetic").names
    assert (m["board"], m["layout"], m["roster"]) == ("demo board", "the board's anchors", "demo blocks")
    assert load_setup("wiener", "synthetic").names["layout"].endswith("demo_layout.toml")


def test_the_dbx_demo_files_hold_the_demo_elements_on_their_bases():
    """rules/dbx/data/: the table is the 600 mm standard layout without a grid; each element of DEMO_GAME is in the
    roster with its side, code and its type's base at the demo's scale."""
    table = demo()
    assert load_layout(table.layout) == dataclasses.replace(
        standard_layout(DEMO_TABLE_MM, DEMO_TABLE_MM, anchor_mm=40), grid=None)
    roster = load_roster(table.roster)
    truth = demo_position()
    assert [(p.id, p.side, p.type) for p in roster.pieces] == [g[:3] for g in DEMO_GAME]
    for p in truth.pieces:
        rp = roster.piece(p.id)
        assert rp.base_mm == base_size(p, truth.scale) and rp.marker_mm == min(rp.base_mm) - 4.0
    assert [(p.id, p.x_mm, p.y_mm, p.heading_deg) for p in table.pieces] == [
        (i, x, y, h) for i, _, _, x, y, h in DEMO_GAME]


def test_the_marengo_demo_roster_is_the_demo_blocks():
    roster = demo_roster("marengo")
    assert [(p.id, p.marker, p.side, p.type) for p in roster.pieces] == [
        (b[0], b[1], b[2], f"{b[3]} {b[4]}") for b in DEMO_BLOCKS]
    scene = synthetic_scene("marengo")
    board = load_setup("marengo", "synthetic").board
    areas = {pl.piece.id: board.locate(pl.x_mm, pl.y_mm).area for pl in scene.placements}
    assert areas == {b[0]: b[5] for b in DEMO_BLOCKS}


def test_a_board_given_with_the_synthetic_source_carries_the_demo(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text(board_to_toml(load_demo_board()), encoding="utf-8")
    setup = load_setup("marengo", "synthetic", board=str(path))
    assert setup.names["board"] == str(path) and setup.board_on_table
    assert len(setup.scene.placements) == len(setup.roster.pieces) and setup.blocks.units


def test_a_position_file_starts_the_game(tmp_path):
    data = demo_dict()
    data["pieces"][0]["quality"] = "Gr"
    data["game"] = {"bound": 3, "active": "red"}
    path = tmp_path / "dbx.json"
    path.write_text(json.dumps(data))
    setup = load_setup("dbx", "synthetic", game=str(path))
    assert setup.names["game"] == str(path) and setup.game.pieces == () and setup.game.game.bound == 3
    assert setup.initial_states["b1"] == {"quality": "Gr", "type": "Li"}
    s = setup.make_session()
    assert (s.state.turn, s.state.active) == (3, "red")


def test_the_rules_options_reach_the_session(tmp_path):
    options = str(resources.files("rules.dbx").joinpath("options.toml"))
    setup = load_setup("dbx", "synthetic", options=options)
    assert setup.options == options and setup.make_session().system.name == "dbx"
    with pytest.raises(InputError, match="nothing.toml"):
        load_setup("dbx", "synthetic", options=str(tmp_path / "nothing.toml"))


def _write(path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_bad_input_is_one_line_naming_the_file(tmp_path):
    def fails(match, *args, **kw):
        with pytest.raises(InputError, match=match) as exc:
            load_setup(*args, **kw)
        assert "\n" not in str(exc.value)

    fails("unknown game system 'chess'", "chess", "synthetic")
    fails(r"source '0' needs --camera and --layout and --roster", "dbx", "0")
    fails(r"source '0': --system marengo needs --board BOARD.toml", "marengo", "0", roster="r.toml")
    other = _write(tmp_path / "w.json", json.dumps({"system": "wiener", "grid": {"cols": 40, "rows": 20}}))
    fails(rf"{other}: a 'wiener' position, but --system is 'dbx'", "dbx", "synthetic", game=other)
    broken = _write(tmp_path / "b.json", "{")
    fails(rf"{broken}: not JSON", "marengo", "synthetic", game=broken)
    fails("missing.json: cannot read the position file", "wiener", "synthetic", game=str(tmp_path / "missing.json"))
    anchors = "".join(f"[[anchor]]\nid = {i}\nx_mm = {x}\ny_mm = 30\nsize_mm = 40\n" for i, x in ((0, 30), (1, 570)))
    flat = _write(tmp_path / "flat.toml", "[table]\nwidth_mm = 600\ndepth_mm = 600\n" + anchors)
    fails(rf"{flat}: the layout has no \[grid\]; the wiener rules need a square grid", "wiener", "synthetic",
          layout=flat)
    fruit = _write(tmp_path / "fruit.toml", '[[piece]]\nid = "a"\nmarker = 40\nside = "x"\ntype = "banana"\n'
                                            'base_mm = [40, 20]\nmarker_mm = 16\n')
    fails(rf"{fruit} piece 'a': type 'banana' is not a DBX element code \(§2.1\) or word; Types: Li, Ck", "dbx",
          "synthetic", roster=fruit)
    units = _write(tmp_path / "units.toml", '[[piece]]\nid = "a"\nmarker = 40\nside = "AU"\ntype = "infantry"\n'
                                            'unit = "u"\nbase_mm = [28, 20]\nmarker_mm = 16\n')
    fails(rf"{units}: piece 'a' of unit 'u' needs its strength", "marengo", "synthetic", roster=units)
