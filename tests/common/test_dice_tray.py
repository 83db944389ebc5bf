"""The dice tray's polygon, one check for a table layout and a board file (common.dice_tray)."""

from dataclasses import replace

import pytest

from calibration.layout import layout_to_toml, load_layout
from common.dice_tray import MIN_TRAY_MM2, parse_tray, tray_problem, tray_toml
from common.errors import InputError
from rules.board import board_to_toml, load_board
from rules.marengo.model import load_demo_board

LAYOUT = """[table]
width_mm = 2400
depth_mm = 1200

[[anchor]]
id = 0
x_mm = 50
y_mm = 50
size_mm = 60

[[anchor]]
id = 1
x_mm = 2350
y_mm = 1150
size_mm = 60
"""


def _anywhere(x, y):
    return None


@pytest.mark.parametrize("corners, problem", [
    ([(0, 0), (40, 0)], "a tray needs 3 corners or more, not 2"),
    ([(0, 0), (10, 0), (10, 9.9), (0, 9.9)], "the polygon encloses 99 mm2"),
    ([(0, 0), (40, 0), (40, float("inf"))], "corner [40, inf] is not a finite number of mm"),
    ([(0, 0), (40, 0), (float("nan"), 40)], "corner [nan, 40] is not a finite number of mm"),
])
def test_no_tray_says_why(corners, problem):
    assert problem in tray_problem(corners)


def test_a_tray_just_large_enough_for_a_die_is_one():
    side = MIN_TRAY_MM2 ** 0.5
    assert tray_problem([(0, 0), (side, 0), (side, side), (0, side)]) is None
    assert tray_problem([(0, 0), (side, 0), (side, side * 0.99), (0, side * 0.99)]) is not None
    # the corners go round either way is the user's
    assert tray_problem([(0, 0), (0, 20), (20, 20), (20, 0)]) is None


def test_the_file_s_own_corner_check_comes_after_the_shape_and_before_the_area():
    def never(x, y):
        return f"corner [{x:g}, {y:g}] is not here"
    with pytest.raises(InputError, match="must list at least 3"):
        parse_tray([[0, 0], [1, 1]], "f [dice_tray]", "table", "[[0, 0], ...]", never)
    with pytest.raises(InputError, match=r"^f \[dice_tray\]: corner \[0, 0\] is not here$"):
        parse_tray([[0, 0], [1, 0], [1, 1]], "f [dice_tray]", "table", "[[0, 0], ...]", never)
    with pytest.raises(InputError, match="encloses 0 mm2"):
        parse_tray([[0, 0], [1, 0], [1, 1]], "f [dice_tray]", "table", "[[0, 0], ...]", _anywhere)
    assert parse_tray([[0, 0], [40, 0], [40, 30]], "f", "table", "", _anywhere) == ((0.0, 0.0), (40.0, 0.0),
                                                                                      (40.0, 30.0))


@pytest.mark.parametrize("corners, same", [
    ("[[100, 150], [105, 150], [105, 155]]", "the polygon encloses 12 mm2; a tray holds dice of 12-20 mm"),
    ("[[100, 150], [300, 150], [300, inf]]", "corner [300, inf] is not a finite number of mm"),
])
def test_a_layout_and_a_board_file_refuse_a_tray_in_the_same_words(tmp_path, corners, same):
    table, board = tmp_path / "table.toml", tmp_path / "board.toml"
    table.write_text(LAYOUT + "\n[dice_tray]\npolygon_mm = " + corners + "\n")
    board.write_text(board_to_toml(load_demo_board()) + "\n[dice_tray]\npolygon_mm = " + corners + "\n")
    for path, load in ((table, load_layout), (board, load_board)):
        with pytest.raises(InputError) as err:
            load(path)
        assert str(err.value) == f"{path} [dice_tray]: {same}"


def test_a_layout_and_a_board_file_write_the_same_tray(tmp_path):
    tray = ((100.0, 150.0), (300.0, 150.0), (300.0, 250.5), (100.0, 250.5))  # on the table and on the demo board
    table, board = tmp_path / "table.toml", tmp_path / "board.toml"
    table.write_text(LAYOUT + "\n".join(tray_toml(tray)) + "\n")
    board.write_text(board_to_toml(load_demo_board()) + "\n".join(tray_toml(tray)) + "\n")
    layout, demo = load_layout(table), load_board(board)
    assert layout.dice_tray_mm == demo.dice_tray_mm == tray

    def tray_lines(text):
        return text[text.index("[dice_tray]"):].splitlines()[:2]
    assert tray_lines(layout_to_toml(layout)) == tray_lines(board_to_toml(demo)) == tray_toml(tray)[1:]
    assert tray_toml(None) == [] and "[dice_tray]" not in layout_to_toml(replace(layout, dice_tray_mm=None))
