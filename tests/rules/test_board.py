"""Board definitions: parsing, validation, adjacency, roads, piece to area (rules/board.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from common.errors import InputError
from fieldglass.boards import board_layout
from rules.board import (
    board_to_toml,
    bordering_pairs,
    distance_to_outline,
    links,
    load_board,
    parse_board,
    points_in_polygon,
    validate_board,
)
from rules.marengo.model import load_demo_board


def _sq(x0, y0, x1, y1):
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def _data(**over):
    data = {
        "board": {"name": "t", "width_mm": 300, "depth_mm": 100},
        "area": [{"id": "A", "polygon": _sq(0, 0, 100, 100)}, {"id": "B", "polygon": _sq(100, 0, 200, 100)},
                 {"id": "C", "polygon": _sq(200, 0, 300, 100)}],
        "border": [{"areas": ["A", "B"], "width": "wide"}, {"areas": ["B", "C"]}],
    }
    data.update(over)
    return data


def test_demo_board_is_valid_and_round_trips(tmp_path):
    board = load_demo_board()
    assert validate_board(board) == []
    assert len(board.areas) == 11 and len(board.approaches) == 36
    path = tmp_path / "b.toml"
    path.write_text(board_to_toml(board))
    again = load_board(path)
    assert set(again.approaches) == set(board.approaches) and again.arrows == board.arrows
    assert again.approaches["5>4"].inf_penalty == 1 and again.approaches["9>10"].impassable


def test_adjacency_is_a_shared_border_not_a_corner():
    board = load_demo_board()
    assert board.adjacent("3", "5") and board.adjacent("5", "3")
    assert not board.adjacent("9", "24")  # §3.2 they touch only at a corner
    assert board.neighbours("3") == ["10", "2", "4", "5"]
    assert board.approaches["3>5"].opposite == "5>3"
    assert [r.id for r in board.roads_between("3", "5")] == ["main-south"]


def test_point_in_polygon_and_distance():
    poly = np.array(_sq(0, 0, 10, 10), float)
    assert points_in_polygon(np.array([[5, 5], [15, 5], [-1, 3]]), poly).tolist() == [True, False, False]
    assert distance_to_outline(np.array([[5, 5], [5, 12]]), poly) == pytest.approx([5.0, 2.0])


def test_piece_to_area_reserve_approach_and_border_flag():
    board = load_demo_board()
    assert (board.locate(300, 100).area, board.locate(300, 100).position) == ("3", "reserve")
    assert board.locate(350, 150).position == "3>5"
    on = board.locate(361, 150)
    assert on.on_border and on.position is None and "3" in on.note  # flagged, not guessed
    corner = board.locate(352, 192)
    assert corner.on_border and "between approaches" in corner.note
    assert board.locate(800, 10).area is None


def test_validation_unpaired_approach():
    data = _data(border=[{"areas": ["A", "B"]}], approach=[{"area": "B", "to": "C"}])
    with pytest.raises(InputError, match="has no opposite approach C>B"):
        parse_board(data, "t.toml")


def test_validation_unreachable_area():
    data = _data(border=[{"areas": ["A", "B"]}])
    problems = validate_board(parse_board(data, "t.toml", validate=False))
    assert any("share a border but have no approaches" in p for p in problems)
    data["area"][2]["polygon"] = _sq(220, 0, 300, 100)  # C no longer touches B
    problems = validate_board(parse_board(data, "t.toml", validate=False))
    assert problems == ["area(s) C cannot be reached from area A"]


def test_validation_overlap_and_corner_approach():
    data = _data()
    data["area"][1]["polygon"] = _sq(90, 0, 200, 100)
    with pytest.raises(InputError, match="areas A and B overlap"):
        parse_board(data, "t.toml")
    data = _data(area=[{"id": "A", "polygon": _sq(0, 0, 100, 50)}, {"id": "B", "polygon": _sq(100, 50, 200, 100)}],
                 border=[{"areas": ["A", "B"]}])
    with pytest.raises(InputError, match="a corner is not one"):
        parse_board(data, "t.toml")


@pytest.mark.parametrize(
    "patch, message",
    [
        ({"board": {"width_mm": 0, "depth_mm": 1}}, "must be positive"),
        ({"area": [{"id": "A", "polygon": [[0, 0], [1, 1]]}]}, "area A: 'polygon'"),
        ({"border": [{"areas": ["A", "B"], "width": "huge"}]}, "width must be narrow or wide"),
        ({"road": [{"id": "r", "areas": ["A", "C"]}]}, "road r jumps from A to C"),
        ({"arrow": [{"from": "A", "to": "Z"}]}, "arrow 1"),
        ({"border": [{"areas": ["A", "B"], "side": {"A": {"colour": 1}}}]}, "unknown approach attribute 'colour'"),
    ],
)
def test_bad_board_files_fail_in_one_line(patch, message):
    with pytest.raises(InputError, match=message) as err:
        parse_board(_data(**patch), "t.toml")
    assert "\n" not in str(err.value) and str(err.value).startswith("t.toml")


def test_strategic_connections():
    data = _data(connection=[{"areas": ["A", "C"], "kind": "sea"}])
    board = parse_board(data, "t.toml")
    assert board.connected("A", "C") == ["sea"] and board.connected("A", "B") == ["approach"]


def test_area_attributes_round_trip_through_the_board_file(tmp_path):
    data = _data()
    data["area"][0].update(kind="region", home="north", capital=True, value=2, ratio=0.5,
                           port=["bay", "strait sea"], label='say "hi"')
    board = parse_board(data, "t.toml")
    a = board.areas["A"]
    assert a.attribute("port") == ("bay", "strait sea") and a.attribute("capital") is True
    path = tmp_path / "t.toml"
    path.write_text(board_to_toml(board), encoding="utf-8")
    again = load_board(path)
    assert again.areas["A"].attributes == a.attributes and again.areas["B"].attributes == ()
    assert again.areas["A"].attribute("label") == 'say "hi"' and again.areas["A"].attribute("ratio") == 0.5


def test_an_area_attribute_must_be_a_plain_value():
    data = _data()
    data["area"][1]["terrain"] = {"kind": "hill"}
    with pytest.raises(InputError, match="t.toml area B: terrain: an attribute must be text"):
        parse_board(data, "t.toml")


def test_strait_and_closed_connections_and_the_links_of_a_strategic_map():
    # a strategic map: no approaches; A-B a shared border linked as land, B-C closed (a drawn border, no link)
    data = _data(border=[], connection=[{"areas": ["A", "B"], "kind": "land"}, {"areas": ["B", "C"], "kind": "closed"}])
    board = parse_board(data, "t.toml", validate=False)
    assert bordering_pairs(board) == {("A", "B"), ("B", "C")}
    assert validate_board(board) == ["area(s) C cannot be reached from area A"]  # a closed border is no link
    data["connection"].append({"areas": ["C", "A"], "kind": "strait"})
    board = parse_board(data, "t.toml")
    assert links(board) == {("A", "B"): ("border", "land"), ("A", "C"): ("strait",)}
    assert board.connected("A", "C") == ["strait"] and board.connected("B", "C") == []
    data["connection"][0]["kind"] = "bridge"
    with pytest.raises(InputError, match="kind must be one of land, sea, strait, closed, not 'bridge'"):
        parse_board(data, "t.toml")


def test_a_dice_tray_beside_the_board_round_trips_and_registers_with_it(tmp_path):
    board = parse_board(_data(dice_tray={"polygon_mm": _sq(-120, 0, -20, 80)}), "t.toml", validate=False)
    assert board.dice_tray_mm == ((-120.0, 0.0), (-20.0, 0.0), (-20.0, 80.0), (-120.0, 80.0))
    path = tmp_path / "b.toml"
    path.write_text(board_to_toml(replace(load_demo_board(), dice_tray_mm=board.dice_tray_mm)))
    again = load_board(path)
    assert again.dice_tray_mm == board.dice_tray_mm
    assert board_layout(again).dice_tray_mm == board.dice_tray_mm  # the watch looks there when the board is the table
    assert load_demo_board().dice_tray_mm is None


@pytest.mark.parametrize("tray, message", [
    ({"polygon_mm": [[0, 0], [1, 1]]}, "t.toml [dice_tray]: 'polygon_mm' must list at least 3 [x, y] corners"),
    ({"polygon_mm": _sq(0, 0, 1000, 50)}, "t.toml [dice_tray]: corner [1000, 0] is far off the 300 x 100 mm board"),
    ("tray", "t.toml: [dice_tray] must be a table of keys"),
    # the checks a table layout's tray has too (common.dice_tray): no room for a die, a corner that is no number
    ({"polygon_mm": [[0, 0], [5, 0], [5, 5]]}, "t.toml [dice_tray]: the polygon encloses 12 mm2; a tray holds dice"),
    ({"polygon_mm": [[0, 0], [50, 0], [50, float("nan")]]}, "t.toml [dice_tray]: corner [50, nan] is not a finite"),
])
def test_a_bad_dice_tray_on_a_board_is_one_line(tray, message):
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_board(_data(dice_tray=tray), "t.toml", validate=False)
