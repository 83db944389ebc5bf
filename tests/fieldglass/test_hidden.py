"""Hidden identities: player and umpire views, replay redaction, a marker swap read as a step loss."""

from __future__ import annotations

import pytest

from common.errors import InputError
from rules.marengo.hidden import (
    BlockRoster,
    RecordFrame,
    Sighting,
    player_view,
    read_units,
    replay_view,
    track_losses,
    units_from_position,
)
from tests.rules.marengo_util import blk, mk

ROSTER = BlockRoster.from_dict({
    "au-inf-1": {"side": "AU", "type": "infantry", "markers": {"3": 10, "2": 11, "1": 12}},
    "fr-cav-1": {"side": "FR", "type": "cavalry", "markers": {"2": 20, "1": 21}},
})


def test_player_view_hides_the_opponent_unless_revealed():
    units, unknown = read_units(ROSTER, [Sighting(10, "3", "3>5"), Sighting(20, "5", "reserve"), Sighting(99, "1", "")])
    assert unknown == [99]
    au = {v.side: v for v in player_view(units.values(), "AU")}
    assert au["AU"].type == "infantry" and not au["AU"].hidden
    assert au["FR"].hidden and au["FR"].type is None and au["FR"].strength is None and au["FR"].label == "FR block 1"
    assert au["FR"].area == "5"  # where and how many is public
    shown = {v.side: v for v in player_view(units.values(), "AU", revealed={"fr-cav-1"})}
    assert shown["FR"].type == "cavalry"
    assert all(not v.hidden for v in player_view(units.values(), "umpire"))
    with pytest.raises(InputError):
        player_view(units.values(), "spectator")


def test_marker_swap_is_one_step_loss():
    before, _ = read_units(ROSTER, [Sighting(10, "3", "3>5"), Sighting(20, "5", "reserve")])
    after, _ = read_units(ROSTER, [Sighting(11, "3", "3>5")])
    losses, removed, arrived = track_losses(before, after)
    assert [(x.unit, x.old_marker, x.new_marker, x.steps) for x in losses] == [("au-inf-1", 10, 11, 1)]
    assert removed == ["fr-cav-1"] and arrived == []


def test_replay_reveals_only_where_the_rules_did_or_after_the_game():
    u, _ = read_units(ROSTER, [Sighting(10, "3", "reserve"), Sighting(20, "5", "reserve")])
    record = [RecordFrame(tuple(u.values())), RecordFrame(tuple(u.values()), frozenset({"au-inf-1"}))]
    fr = replay_view(record, "FR")
    assert [v.hidden for v in fr[0] if v.side == "AU"] == [True]
    assert [v.hidden for v in fr[1] if v.side == "AU"] == [False]
    assert all(not v.hidden for frame in replay_view(record, "FR", game_over=True) for v in frame)


def test_roster_errors_and_position_units():
    with pytest.raises(InputError, match="marker 10 is listed"):
        BlockRoster.from_dict({"a": {"side": "AU", "type": "infantry", "markers": {"3": 10}},
                               "b": {"side": "AU", "type": "infantry", "markers": {"2": 10}}})
    p = mk(blk("art", "AU", "artillery", 1, "3", "5", revealed=True), blk("f", "FR", "infantry", 2, "5"))
    units, revealed = units_from_position(p)
    fr_view = {v.side: v for v in player_view(units, "FR", revealed)}
    assert fr_view["AU"].type == "artillery"  # an announced bombardment keeps it revealed (§8.2)
