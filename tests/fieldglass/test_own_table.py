"""Issue 26 item 3: `--source synthetic` with the player's own layout and roster draws THEIR table (their anchors,
their pieces where a position file puts them or spread in their own deployment zones), never the demo beside their
files; one file alone, or a board system's demo with the player's roster, is refused in one line."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from calibration.layout import layout_to_toml, paper_mm
from calibration.registration import TableRegistration
from common.errors import InputError
from fieldglass.cli import main
from fieldglass.record import Record
from fieldglass.setup import load_setup
from rules.system import game_system
from vision.pieces import read_table
from vision.roster import Piece, Roster, roster_to_toml
from vision.synthetic import VirtualCamera, demo_files, render_table, standard_layout

TABLE = standard_layout(1800.0, 1200.0, 60.0, 50.0)  # a player's 180 x 120 cm table: not the 240 cm demo


def their_roster(sides=("FR", "AU"), n=6, base=(40.0, 30.0), marker=20.0, system="wiener") -> Roster:
    kinds = ("infantry", "light_cavalry", "artillery")
    pieces = [Piece(f"{side.lower()}-{k}", 20 + n * s + k, side, kinds[k % 3], base, marker, 3.0)
              for s, side in enumerate(sides) for k in range(n)]
    return Roster("DICT_4X4_250", tuple(pieces), system)


def files(tmp_path: Path, layout=TABLE, roster=None) -> tuple[str, str]:
    lay, ros = tmp_path / "table.toml", tmp_path / "roster.toml"
    lay.write_text(layout_to_toml(layout), encoding="utf-8")
    ros.write_text(roster_to_toml(roster or their_roster()), encoding="utf-8")
    return str(lay), str(ros)


def test_their_table_is_drawn_not_the_demo(tmp_path):
    lay, ros = files(tmp_path)
    setup = load_setup("wiener", "synthetic", layout=lay, roster=ros)
    scene = setup.scene
    assert scene.layout == setup.layout == TABLE and scene.roster == setup.roster
    assert (scene.layout.width_mm, scene.layout.depth_mm) == (1800.0, 1200.0)
    assert {p.piece.id for p in scene.placements} == {p.id for p in setup.roster.pieces}
    assert setup.names["layout"] == lay and setup.names["roster"] == ros
    zones = {z.side: z for z in game_system("wiener").live.deployment(1800.0, 1200.0, ["FR", "AU"])}
    fields = set()
    for pl in scene.placements:
        z = zones[pl.piece.side]
        assert z.x0 <= pl.x_mm <= z.x1 and z.y0 <= pl.y_mm <= z.y1, pl
        assert pl.heading_deg == z.heading_deg  # facing the enemy: FR north (0), AU south (180)
        field = TABLE.grid.field_at(pl.x_mm, pl.y_mm)
        assert TABLE.grid.field_centre(*field) == pytest.approx((pl.x_mm, pl.y_mm))  # unambiguously in one field
        fields.add(field)
        for a in TABLE.anchors:  # clear of every anchor's paper
            reach = paper_mm(TABLE.dictionary, a.size_mm) / 2 + max(pl.piece.base_mm) / 2
            assert abs(pl.x_mm - a.x_mm) >= reach or abs(pl.y_mm - a.y_mm) >= reach
    assert len(fields) == len(scene.placements)
    # the front rank first: each side's first piece stands on the zone's edge toward the enemy
    fr = [pl for pl in scene.placements if pl.piece.side == "FR"]
    assert fr[0].y_mm == max(pl.y_mm for pl in fr)


def test_the_rendered_table_is_read_as_their_pieces(tmp_path):
    lay, ros = files(tmp_path)
    setup = load_setup("wiener", "synthetic", layout=lay, roster=ros)
    camera = VirtualCamera.looking_at_table(1800.0, 1200.0, (1280, 720))
    frame, _ = render_table(setup.scene, camera)
    reading = read_table(frame, TableRegistration(setup.layout, camera.intrinsics), setup.roster)
    seen = {p.piece: p for p in reading.pieces}
    assert set(seen) == {p.id for p in setup.roster.pieces}
    for pl in setup.scene.placements:
        p = seen[pl.piece.id]
        assert np.hypot(p.x_mm - pl.x_mm, p.y_mm - pl.y_mm) < 2.0
    s = setup.make_session()
    assert s.system.name == "wiener"


def test_a_position_file_places_its_pieces_the_rest_deploy(tmp_path):
    lay, ros = files(tmp_path)
    game = tmp_path / "start.json"
    game.write_text(json.dumps({"system": "wiener", "grid": {"cols": 30, "rows": 20}, "pieces": [
        {"id": "fr-0", "side": "FR", "type": "infantry", "field": "O10", "facing": "E"}]}), encoding="utf-8")
    setup = load_setup("wiener", "synthetic", layout=lay, roster=ros, game=str(game))
    where = {pl.piece.id: (pl.x_mm, pl.y_mm, pl.heading_deg) for pl in setup.scene.placements}
    assert where["fr-0"] == (14 * 60 + 30, 9 * 60 + 30, 90.0)  # O10's centre, facing east
    assert all(y <= 300 for pid, (_, y, _) in where.items() if pid.startswith("fr-") and pid != "fr-0")


def test_a_free_table_deploys_on_a_lattice_within_its_rules_zones(tmp_path):
    """DBX §4.1: within 600 paces (150 mm) of the base edge, none within 300 paces (75 mm) of the side edges."""
    table = standard_layout(600.0, 600.0, anchor_mm=40.0)
    table = type(table)(table.width_mm, table.depth_mm, table.dictionary, table.anchors, None)
    roster = Roster("DICT_4X4_250", tuple(Piece(f"{s}{k}", 20 + 10 * i + k, s, "Li", (40.0, 20.0), 16.0, 3.0)
                                          for i, s in enumerate(("blue", "red")) for k in range(5)), "dbx")
    lay, ros = files(tmp_path, table, roster)
    scene = load_setup("dbx", "synthetic", layout=lay, roster=ros).scene
    for pl in scene.placements:
        assert 75.0 <= pl.x_mm - 20.0 and pl.x_mm + 20.0 <= 525.0
        back = pl.y_mm + 20.0 if pl.piece.side == "blue" else 600.0 - (pl.y_mm - 20.0)
        assert back <= 150.0 + 1e-9
    assert len({(round(p.x_mm), round(p.y_mm)) for p in scene.placements}) == 10


def test_one_file_alone_or_a_board_demo_with_their_roster_is_refused_in_one_line(tmp_path):
    lay, ros = files(tmp_path)
    for kw, says in (({"layout": lay}, f"--source synthetic with --layout {lay} draws your own table: it needs "
                                       "--roster too (or neither, for the demo table)"),
                     ({"roster": ros}, f"--source synthetic with --roster {ros} draws your own table: it needs "
                                       "--layout too")):
        with pytest.raises(InputError) as err:
            load_setup("wiener", "synthetic", **kw)
        assert says in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(InputError, match=r"--source synthetic draws Triomphe .*'s board as the whole table: it cannot "
                                         r"lay it on your own table"):
        load_setup("marengo", "synthetic", layout=lay)


def test_on_a_printed_board_their_pieces_stand_where_the_demo_puts_them(tmp_path):
    """A board system's table is its board: with the player's roster the demo places the pieces of theirs it knows
    (their markers), draws no other, and refuses a roster with none of them."""
    demo = load_setup("marengo", "synthetic")
    mine = Roster(demo.roster.dictionary, tuple(replace(p, marker=p.marker + 100) for p in demo.roster.pieces[:2])
                  + (Piece("fr-new", 99, "FR", "infantry 2", (28.0, 20.0), 16.0, 12.0),), "marengo")
    path = tmp_path / "blocks.toml"
    path.write_text(roster_to_toml(mine), encoding="utf-8")
    scene = load_setup("marengo", "synthetic", roster=str(path)).scene
    assert scene.roster == mine
    assert [(pl.piece.id, pl.piece.marker) for pl in scene.placements] == [(p.id, p.marker) for p in mine.pieces[:2]]
    none = tmp_path / "none.toml"
    none.write_text(roster_to_toml(Roster(mine.dictionary, mine.pieces[2:], "marengo")), encoding="utf-8")
    with pytest.raises(InputError, match=f"{none}: the synthetic table places the demo's pieces .* and your roster "
                                         "has none of them"):
        load_setup("marengo", "synthetic", roster=str(none))


def test_a_zone_too_small_for_its_side_is_refused(tmp_path):
    lay, ros = files(tmp_path, standard_layout(600.0, 600.0, 60.0, 40.0), their_roster(n=20))
    with pytest.raises(InputError, match=r"side 'FR': its deployment zone \(480 x 150 mm\) holds 14 of its 20 "
                                         r"pieces; give a position file \(--game\)"):
        load_setup("wiener", "synthetic", layout=lay, roster=ros)


def test_the_demo_table_is_still_the_demo_without_files():
    setup = load_setup("wiener", "synthetic")
    assert setup.names["layout"].endswith("demo_layout.toml") and str(demo_files()[1]).endswith("demo_roster.toml")
    assert setup.scene.layout.width_mm == 2400.0


def test_record_films_their_table_not_the_demo(tmp_path):
    lay, ros = files(tmp_path, roster=their_roster(n=3))
    out = tmp_path / "rehearsal.fgr"
    assert main(["record", "--source", "synthetic", "--layout", lay, "--roster", ros, "--frames", "6", "--fps", "10",
                 "--settle", "0.3", "--out", str(out)]) == 0
    rec = Record.open(out)
    try:
        appeared = sorted(e.piece for e in rec.events() if e.type == "appeared")
    finally:
        rec.close()
    assert appeared == sorted(p.id for p in their_roster(n=3).pieces)
