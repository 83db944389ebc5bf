import pytest

from calibration.grid import Grid
from common.errors import InputError
from common.fields import column_letters, field_name, parse_field, snap_facing


@pytest.mark.parametrize(("col", "letters"), [(0, "A"), (25, "Z"), (26, "AA"), (27, "AB"), (51, "AZ"), (52, "BA")])
def test_column_letters_are_bijective_base_26(col, letters):
    assert column_letters(col) == letters
    assert parse_field(f"{letters}1") == (col, 0)


def test_field_names_round_trip():
    for col in range(60):
        for row in (0, 9, 19):
            assert parse_field(field_name(col, row)) == (col, row)


@pytest.mark.parametrize("bad", ["", "5D", "D0", "D-1", "É5", "D 5x"])
def test_bad_field_names_are_refused(bad):
    with pytest.raises(InputError):
        parse_field(bad)


def test_field_of_a_point_and_its_centre():
    grid = Grid(100.0, 50.0, 60.0, 40, 20)
    assert grid.name_at(100.0, 50.0) == "A1"
    assert grid.name_at(159.9, 109.9) == "A1"
    assert grid.name_at(160.0, 50.0) == "B1"
    assert grid.name_at(100.0 + 60 * 26 + 1, 50.0 + 60 * 4 + 1) == "AA5"
    assert grid.name_at(99.9, 60) is None
    assert grid.name_at(100 + 60 * 40, 60) is None
    assert grid.centre_of("D5") == (100 + 3.5 * 60, 50 + 4.5 * 60)
    with pytest.raises(InputError):
        grid.centre_of("AZ1")


def test_edge_distance():
    grid = Grid(0.0, 0.0, 60.0, 40, 20)
    assert grid.edge_distance_mm(30, 30) == pytest.approx(30)
    assert grid.edge_distance_mm(62, 100) == pytest.approx(2)
    assert grid.edge_distance_mm(119, 100) == pytest.approx(1)


@pytest.mark.parametrize(
    ("heading", "facing", "residual"),
    [(0, "N", 0), (359, "N", -1), (44, "NE", -1), (22.4, "N", 22.4), (22.6, "NE", -22.4), (180, "S", 0),
     (270.5, "W", 0.5), (-45, "NW", 0), (725, "N", 5)],
)
def test_snap_facing(heading, facing, residual):
    got, res = snap_facing(heading)
    assert got == facing
    assert res == pytest.approx(residual)
