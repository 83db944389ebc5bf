"""The dashboard's model answers from the committed state: a piece in a hand keeps its place until it settles."""

import numpy as np

from calibration.camera import CameraPose
from fieldglass.session import Session, load_setup
from vision.pieces import PiecePose, TableReading

POSE = CameraPose(np.zeros(3), np.array([0.0, 0.0, 1000.0]), 0.1, (0, 1))


def _reading(setup, moved: dict[str, tuple[float, float]] | None = None) -> TableReading:
    """Every roster piece seen in the middle of a field of its own; `moved` puts some elsewhere."""
    grid = setup.layout.grid
    pieces = []
    for k, rp in enumerate(setup.roster.pieces):
        x, y = grid.field_centre(2 + 2 * (k % 12), 2 + 6 * (k // 12))
        if moved and rp.id in moved:
            x, y = moved[rp.id]
        facing = "N" if rp.side == setup.roster.pieces[0].side else "S"
        heading = 0.0 if facing == "N" else 180.0
        pieces.append(PiecePose(rp.id, rp.marker, x, y, heading, facing, 0.0, grid.name_at(x, y), 30.0))
    return TableReading(POSE, tuple(pieces), (), ())


def _field(session, pid):
    return session.position.by_id[pid].field_name


def test_rules_follow_committed_places_not_a_piece_in_transit():
    setup = load_setup("synthetic")
    session = Session(setup, settle_s=1.0)
    first = setup.roster.pieces[0].id
    session.update_reading(_reading(setup), t=0.0)
    start = _field(session, first)  # a table being set up is answered at once
    session.update_reading(_reading(setup), t=1.5)
    assert _field(session, first) == start

    elsewhere = {first: setup.layout.grid.field_centre(30, 10)}
    session.update_reading(_reading(setup, elsewhere), t=2.0)
    assert session.reading.pieces[0].cell == "AE11"  # the view shows where it is now
    assert _field(session, first) == start  # the rules still see it where it was committed
    session.update_reading(_reading(setup, elsewhere), t=2.5)
    assert _field(session, first) == start
    session.update_reading(_reading(setup, elsewhere), t=3.2)  # stood still for over a second: committed
    assert _field(session, first) == "AE11"
