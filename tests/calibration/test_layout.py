import numpy as np
import pytest

from calibration.layout import layout_to_toml, load_layout, parse_layout, square_corners_mm
from common.errors import InputError

GOOD = """
[table]
width_mm = 2400
depth_mm = 1200
[markers]
dictionary = "DICT_4X4_250"
[[anchor]]
id = 0
x_mm = 33
y_mm = 33
size_mm = 50
[[anchor]]
id = 1
x_mm = 2367
y_mm = 33
size_mm = 50
[grid]
origin_x_mm = 0
origin_y_mm = 0
field_mm = 60
cols = 40
rows = 20
"""


def test_layout_loads_and_round_trips(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(GOOD)
    layout = load_layout(path)
    assert (layout.width_mm, layout.depth_mm, layout.dictionary) == (2400, 1200, "DICT_4X4_250")
    assert [a.id for a in layout.anchors] == [0, 1]
    assert layout.grid.cols == 40 and layout.grid.field_mm == 60
    path.write_text(layout_to_toml(layout))
    assert load_layout(path) == layout


def test_anchor_corners_follow_aruco_order_with_top_edge_north():
    c = square_corners_mm(100, 200, 50)
    np.testing.assert_allclose(c[:, :2], [[75, 225], [125, 225], [125, 175], [75, 175]])
    east = square_corners_mm(0, 0, 2, heading_deg=90)
    # Turned to face east, the top-left corner is the north-east one.
    np.testing.assert_allclose(east[0, :2], [1, 1], atol=1e-12)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[table]\nwidth_mm = 10\n", "depth_mm"),
        ("[table\n", "not valid TOML"),
        (GOOD.replace("DICT_4X4_250", "DICT_NOPE"), "unknown marker dictionary"),
        (GOOD.replace("id = 1", "id = 0"), "listed twice"),
        (GOOD.replace("size_mm = 50", "size_mm = -5", 1), "positive"),
        (GOOD.replace("cols = 40", "cols = 0"), "cols"),
        (GOOD.replace("width_mm = 2400", 'width_mm = "wide"'), "number"),
    ],
)
def test_bad_layouts_get_one_line_naming_the_file(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_layout(path)
    assert message in str(err.value)
    assert str(path) in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_layout_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_layout(tmp_path / "nope.toml")


def test_one_anchor_is_not_enough():
    data = {"table": {"width_mm": 10, "depth_mm": 10}, "anchor": [{"id": 0, "x_mm": 1, "y_mm": 1, "size_mm": 1}]}
    with pytest.raises(InputError, match="at least 2 anchors"):
        parse_layout(data)


# ---------------------------------------------------------------- issue 26: impossible geometry, nearest value


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("x_mm = 2367", "x_mm = 2450"), "anchor 1: x_mm 2450 puts its 50 mm square off the 2400 x 1200 mm table; "
                                         "did you mean x_mm = 2375?"),
        (("y_mm = 33", "y_mm = -40"), "anchor 0: y_mm -40 puts its 50 mm square off the 2400 x 1200 mm table; did "
                                      "you mean y_mm = 25?"),
        (("x_mm = 2367", "x_mm = 60"), "anchor 1: its printed square overlaps anchor 0's (centres 27 mm apart, their "
                                       "papers need 67 mm along x or y); did you mean x_mm = 100?"),
        (("cols = 40", "cols = 41"), "[grid]: 41 cols of 60 mm from x 0 reach x 2460 mm, beyond the table's 2400 mm; "
                                     "did you mean cols = 40?"),
        (("origin_y_mm = 0", "origin_y_mm = 10"), "[grid]: 20 rows of 60 mm from y 10 reach y 1210 mm, beyond the "
                                                  "table's 1200 mm; did you mean rows = 19?"),
        (("origin_x_mm = 0", "origin_x_mm = -30"), "[grid]: origin_x_mm -30 puts the grid off the table; did you mean "
                                                   "origin_x_mm = 0?"),
        (("DICT_4X4_250", "DICT_4x4_250"), "unknown marker dictionary 'DICT_4x4_250'; did you mean 'DICT_4X4_250'?"),
        (("DICT_4X4_250", "DICT_4X4_25O"), "did you mean 'DICT_4X4_250'?"),
    ],
)
def test_impossible_geometry_is_one_line_with_the_nearest_valid_value(tmp_path, change, message):
    assert change[0] in GOOD
    path = tmp_path / "bad.toml"
    path.write_text(GOOD.replace(*change, 1))
    with pytest.raises(InputError) as err:
        load_layout(path)
    assert str(err.value).startswith(str(path)) and message in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


def test_the_suggested_values_are_valid(tmp_path):
    """Each 'did you mean' of an off-table anchor, an overlap and a grid too large, applied, loads."""
    for bad, good in ((("x_mm = 2367", "x_mm = 2450"), "x_mm = 2375"), (("x_mm = 2367", "x_mm = 60"), "x_mm = 100"),
                      (("cols = 40", "cols = 41"), "cols = 40")):
        path = tmp_path / "fixed.toml"
        path.write_text(GOOD.replace(bad[0], good, 1))
        assert load_layout(path).anchors


def test_every_geometry_problem_at_once_with_findings(tmp_path):
    text = GOOD.replace("x_mm = 2367", "x_mm = 2450", 1).replace("cols = 40", "cols = 50")
    path = tmp_path / "bad.toml"
    path.write_text(text)
    found: list[str] = []
    layout = load_layout(path, found)
    assert layout.grid.cols == 50
    assert [f.split(": ", 1)[0] for f in found] == [f"{path} anchor 1", f"{path} [grid]"]


TRAY = "\n[dice_tray]\npolygon_mm = [[1000, 1050], [1400, 1050], [1400, 1190], [1000, 1190]]\n"


def test_a_dice_tray_loads_and_round_trips(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(GOOD + TRAY)
    layout = load_layout(path)
    assert layout.dice_tray_mm == ((1000.0, 1050.0), (1400.0, 1050.0), (1400.0, 1190.0), (1000.0, 1190.0))
    path.write_text(layout_to_toml(layout))
    assert load_layout(path) == layout
    path.write_text(GOOD)
    assert load_layout(path).dice_tray_mm is None  # none: dice are read anywhere off the bases


@pytest.mark.parametrize("tray, message", [
    ("polygon_mm = [[0, 0], [10, 10]]", "[dice_tray]: 'polygon_mm' must list at least 3 [x, y] corners"),
    ('polygon_mm = "tray"', "[dice_tray]: 'polygon_mm' must list at least 3 [x, y] corners"),
    ("polygon_mm = [[1000, 1050], [2500, 1050], [1400, 1190]]",
     "[dice_tray]: corner [2500, 1050] is off the 2400 x 1200 mm table; did you mean [2400, 1050]?"),
    ("polygon_mm = [[0, 0], [5, 0], [5, 5]]", "[dice_tray]: the polygon encloses 12 mm2"),
    ("polygon_mm = [[1000, 1050], [nan, 1050], [1400, 1190]]",
     "[dice_tray]: corner [nan, 1050] is not a finite number of mm"),
    ("corners = [[0, 0], [5, 0], [5, 5]]", "[dice_tray]"),
])
def test_a_bad_dice_tray_is_one_line_naming_the_file(tmp_path, tray, message):
    path = tmp_path / "table.toml"
    path.write_text(GOOD + "\n[dice_tray]\n" + tray + "\n")
    with pytest.raises(InputError) as err:
        load_layout(path)
    text = str(err.value)
    assert str(path) in text and message in text and "\n" not in text
