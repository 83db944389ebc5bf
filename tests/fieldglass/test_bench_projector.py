"""fieldglass bench projector's measurements on the simulated table: light thrown through a map lands where it is
sent (seen by the camera), and the overlay kept off the bases leaves every marker readable where unmasked it does
not."""

import numpy as np
import pytest

from fieldglass.benchmarks.projector import marker_recall, overlay_error, tracked_events
from fieldglass.projector_setup import simulated_table
from vision.synthetic_projector import true_projector


@pytest.fixture(scope="module")
def table():
    return simulated_table(resolution=(1600, 900))


def test_dots_thrown_through_the_true_map_are_seen_where_they_were_sent(table):
    flat, up = overlay_error(table, true_projector(table.projector, table.camera.pose), 150.0)
    assert len(flat) > 60 and len(up) > 5
    assert np.median(flat) < 0.3 and np.median(up) < 0.3
    assert np.percentile(flat, 90) < 1.0


def test_a_bright_overlay_kept_off_the_bases_keeps_every_marker_read(table):
    rows = marker_recall(table, true_projector(table.projector, table.camera.pose), brightness=4.0)
    dark_pieces, dark_anchors, (visible, anchors), _ = rows["projector dark"]
    assert dark_pieces == visible and dark_anchors == anchors
    pieces, got_anchors, _, shift = rows["overlay kept off bases"]
    assert (pieces, got_anchors) == (dark_pieces, dark_anchors)
    assert shift < 1.0  # far below a move
    assert rows["overlay unmasked"][0] < visible  # the mask is what keeps them


def test_an_overlay_coming_and_going_commits_no_move(table):
    events = tracked_events(table, true_projector(table.projector, table.camera.pose), frames=8)
    masked = events["overlay kept off bases"]
    assert masked == {"appeared": len(table.scene.placements), "moved": 0}  # every piece, once; nothing else
    assert events["overlay unmasked"]["appeared"] < len(table.scene.placements)
