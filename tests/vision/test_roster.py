import pytest

from common.errors import InputError
from vision.roster import load_roster, roster_to_toml

GOOD = """
dictionary = "DICT_4X4_250"
[[piece]]
id = "fr-1-1"
marker = 10
side = "FR"
type = "infantry"
base_mm = [40, 40]
marker_mm = 20
marker_height_mm = 3
marker_offset_mm = [0, 5]
[[piece]]
id = "au-1-1"
marker = 11
side = "AU"
type = "cavalry"
base_mm = [40, 30]
marker_mm = 20
"""


def test_roster_loads_with_defaults_and_round_trips(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text(GOOD)
    roster = load_roster(path)
    fr, au = roster.pieces
    assert fr.marker_offset_mm == (0, 5) and fr.marker_height_mm == 3
    assert au.marker_height_mm == 0 and au.marker_offset_mm == (0, 0)
    assert roster.by_marker()[11] is au
    path.write_text(roster_to_toml(roster))
    assert load_roster(path) == roster


def test_a_piece_may_have_a_short_name_for_crowded_views(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text(GOOD.replace('id = "fr-1-1"', 'id = "fr-1-1"\nshort = "I/1"'))
    roster = load_roster(path)
    assert [p.short for p in roster.pieces] == ["I/1", ""]
    path.write_text(roster_to_toml(roster))
    assert load_roster(path) == roster
    path.write_text(GOOD.replace('id = "fr-1-1"', 'id = "fr-1-1"\nshort = "a far too long short name"'))
    with pytest.raises(InputError, match="'short' must be a short name"):
        load_roster(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("marker = 11", "marker = 10"), "already belongs"),
        (('id = "au-1-1"', 'id = "fr-1-1"'), "listed twice"),
        (("base_mm = [40, 30]", "base_mm = [40]"), "two numbers"),
        (("marker = 11", "marker = -1"), "marker"),
        (("marker_mm = 20\n", ""), "marker_mm"),
    ],
)
def test_bad_rosters(tmp_path, change, message):
    text = GOOD.replace(*change)
    path = tmp_path / "r.toml"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_roster(path)
    assert message in str(err.value) and str(path) in str(err.value)
