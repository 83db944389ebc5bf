"""Step losses by marker swap in the live Marengo session (Qt-free): a block replaced after a loss by the unit's
weaker block (a new marker) is the same unit losing a step, its strength following the marker seen."""

from __future__ import annotations

from dataclasses import replace

import pytest

from common.errors import InputError
from fieldglass.boards import block_point, board_layout
from fieldglass.session import Session
from fieldglass.setup import Setup, demo_roster, load_setup
from rules.marengo.hidden import BlockWatch, Sighting, roster_blocks, unit_roster
from rules.marengo.model import load_demo_board
from vision.pieces import PiecePose, TableReading
from vision.roster import Piece, roster_to_toml
from vision.synthetic_board import BLOCK_MM

# au-inf-1 (marker 10, strength 3) has two weaker blocks; every other demo block is a unit of its own
EXTRA = {"au-inf-1.2": {"unit": "au-inf-1", "strength": 2}, "au-inf-1.1": {"unit": "au-inf-1", "strength": 1}}


def roster():
    board = load_demo_board()
    base = demo_roster("marengo", board)
    extra = (Piece("au-inf-1.2", 30, "AU", "infantry 2", BLOCK_MM, 16.0, 12.0),
             Piece("au-inf-1.1", 31, "AU", "infantry 1", BLOCK_MM, 16.0, 12.0))
    return board, replace(base, pieces=base.pieces + extra)


def session():
    board, ros = roster()
    setup = Setup("x", None, board_layout(board), ros, "marengo", board=board,
                  extra={"blocks": roster_blocks(ros.pieces, EXTRA)})
    return board, Session(setup, settle_s=0.0)


def reading(board, *blocks):
    """Blocks (roster piece id, marker, area, position) seen where block_point puts them."""
    poses = []
    for pid, marker, area, position in blocks:
        x, y = block_point(board, area, position)
        poses.append(PiecePose(pid, marker, float(x), float(y), 0.0))
    return TableReading(object(), tuple(poses), (), ())


def test_a_roster_of_units_with_blocks_per_strength():
    board, ros = roster()
    blocks = roster_blocks(ros.pieces, EXTRA)
    assert dict(blocks.units["au-inf-1"].markers) == {3: 10, 2: 30, 1: 31}
    assert dict(blocks.units["fr-cav-1"].markers) == {2: 22}  # an old roster piece: a unit of its own
    units = unit_roster(ros, blocks)
    assert [p.id for p in units.pieces] == ["au-inf-1", "au-cav-1", "au-art-1", "fr-inf-1", "fr-inf-2", "fr-cav-1"]
    assert units.piece("au-inf-1").marker == 10 and units.piece("au-inf-1").type == "infantry 3"
    old = demo_roster("marengo", board)
    assert unit_roster(old, roster_blocks(old.pieces)) is old  # old rosters unchanged
    with pytest.raises(InputError, match="two blocks of strength 2"):
        roster_blocks(ros.pieces, {**EXTRA, "au-inf-1.1": {"unit": "au-inf-1", "strength": 2}})
    with pytest.raises(InputError, match="two sides"):
        roster_blocks(ros.pieces, {"fr-inf-1": {"unit": "au-inf-1", "strength": 1}})


def test_block_watch_follows_the_known_block_until_it_is_gone():
    _, ros = roster()
    w = BlockWatch(roster_blocks(ros.pieces, EXTRA))
    now, swaps, _ = w.update([Sighting(10, "3", "reserve")])
    assert now["au-inf-1"].strength == 3 and swaps == []
    # the weaker block put down before the old one is taken off: still the old one
    now, swaps, _ = w.update([Sighting(10, "3", "reserve"), Sighting(30, "3", "reserve")])
    assert now["au-inf-1"].marker == 10 and swaps == []
    now, swaps, unknown = w.update([Sighting(30, "3", "reserve"), Sighting(99, "3", "reserve")])
    assert [(s.unit, s.old_strength, s.new_strength, s.steps, s.same_area) for s in swaps] == [
        ("au-inf-1", 3, 2, 1, True)]
    assert unknown == [99]


def test_a_marker_swap_in_the_same_area_is_a_step_loss_of_the_same_unit():
    board, s = session()
    others = [("fr-inf-1", 20, "5", "reserve"), ("au-art-1", 12, "4", "5")]
    s.update_reading(reading(board, ("au-inf-1", 10, "3", "reserve"), *others), 0.0)
    s.update_reading(reading(board, ("au-inf-1", 10, "3", "reserve"), *others), 1.0)
    assert s.position.block("au-inf-1").strength == 3 and s.position.block("au-inf-1").area == "3"
    # a hand takes the block away: the unit is unseen but kept where it was committed
    s.update_reading(reading(board, *others), 2.0)
    assert s.position.block("au-inf-1").strength == 3
    # its strength-2 block (marker 30) appears in the same area: the same unit, one step lost
    for t in (3.0, 4.0, 5.0):
        s.update_reading(reading(board, ("au-inf-1.2", 30, "3", "reserve"), *others), t)
    b = s.position.block("au-inf-1")
    assert b.strength == 2 and b.area == "3" and b.position == "reserve"
    assert [p.id for p in s.roster.pieces].count("au-inf-1") == 1 and s.roster.piece("au-inf-1.2") is None
    assert [(x.unit, x.old_marker, x.new_marker, x.steps) for x in s.live.step_losses] == [("au-inf-1", 10, 30, 1)]
    assert "au-inf-1" in s.position.blocks_by_id and "au-inf-1.2" not in s.position.blocks_by_id
    # then its last block, in an approach of the same area
    for t in (6.0, 7.0, 8.0):
        s.update_reading(reading(board, ("au-inf-1.1", 31, "3", "4"), *others), t)
    b = s.position.block("au-inf-1")
    assert b.strength == 1 and b.position == "3>4"
    assert s.live.step_losses[-1].same_area and s.live.step_losses[-1].steps == 1
    # the umpire sees the unit, the French player an anonymous Austrian block of unknown strength
    s.set_viewer("FR")
    v = s.live.block_views(s)["au-inf-1"]
    assert v.hidden and v.strength is None


def test_first_seen_at_a_lower_strength_and_the_engine_agreeing():
    board, s = session()
    s.update_reading(reading(board, ("au-inf-1.2", 30, "3", "reserve")), 0.0)
    s.update_reading(reading(board, ("au-inf-1.2", 30, "3", "reserve")), 1.0)
    assert s.position.block("au-inf-1").strength == 2 and s.live.step_losses == []


def test_a_roster_file_with_units_and_strengths(tmp_path):
    board, ros = roster()
    text = roster_to_toml(demo_roster("marengo", board))
    text += ("\n[[piece]]\nid = \"au-inf-1.2\"\nmarker = 30\nside = \"AU\"\ntype = \"infantry\"\nunit = \"au-inf-1\"\n"
             "strength = 2\nbase_mm = [28.0, 20.0]\nmarker_mm = 16.0\nmarker_height_mm = 12.0\n")
    path = tmp_path / "blocks.toml"
    path.write_text(text, encoding="utf-8")
    setup = load_setup("marengo", "synthetic", roster=str(path))
    assert dict(setup.blocks.units["au-inf-1"].markers) == {3: 10, 2: 30}
    s = Session(setup, settle_s=0.0)
    assert s.roster.piece("au-inf-1.2") is None and s.setup.roster.piece("au-inf-1.2") is not None
    for t, pid, m in ((0.0, "au-inf-1", 10), (1.0, "au-inf-1", 10), (2.0, "au-inf-1.2", 30), (3.0, "au-inf-1.2", 30)):
        s.update_reading(reading(board, (pid, m, "3", "reserve")), t)
    assert s.position.block("au-inf-1").strength == 2
