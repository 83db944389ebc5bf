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
