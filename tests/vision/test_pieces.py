"""From marker corners in pixels to base centres, headings, facings and fields — on exact projected geometry."""

import numpy as np
import pytest

from calibration.grid import Grid
from calibration.layout import Anchor, TableLayout, square_corners_mm
from calibration.projection import table_to_pixels
from calibration.registration import TableRegistration
from tests.conftest import camera_over_table
from vision.markers import MarkerDetection
from vision.pieces import heading_from_corners, locate_pieces, piece_pose, read_table
from vision.roster import Piece, Roster

GRID = Grid(0.0, 0.0, 60.0, 40, 20)
LAYOUT = TableLayout(
    2400.0,
    1200.0,
    "DICT_4X4_250",
    tuple(Anchor(i, x, y, 50.0) for i, (x, y) in enumerate([(40, 40), (2360, 40), (2360, 1160), (40, 1160)])),
    GRID,
)


def _piece(marker=10, height=25.0, offset=(0.0, 0.0)):
    return Piece(f"p{marker}", marker, "FR", "infantry", (40.0, 30.0), 20.0, height, offset)


def _marker_px(piece, x, y, heading, cam, pose):
    """Where the piece's marker corners appear, for a base centred at (x, y)."""
    h = np.radians(heading)
    fwd, right = np.array([np.sin(h), np.cos(h)]), np.array([np.cos(h), -np.sin(h)])
    mx, my = np.array([x, y]) + piece.marker_offset_mm[0] * right + piece.marker_offset_mm[1] * fwd
    corners = square_corners_mm(mx, my, piece.marker_mm, heading, piece.marker_height_mm)
    return table_to_pixels(corners, cam, pose)


@pytest.mark.parametrize("heading", [0.0, 17.0, 90.0, 181.5, 315.0, 359.0])
def test_heading_from_corners_is_the_marker_top_edge(heading):
    assert heading_from_corners(square_corners_mm(5, 5, 20, heading)) == pytest.approx(heading % 360, abs=1e-9)


@pytest.mark.parametrize("height", [3.0, 25.0, 50.0])
@pytest.mark.parametrize("offset", [(0.0, 0.0), (5.0, -8.0)])
def test_piece_pose_recovers_base_centre_heading_and_field(height, offset):
    cam, pose = camera_over_table(25.0)
    piece = _piece(height=height, offset=offset)
    px = _marker_px(piece, 2300.0, 1150.0, 100.0, cam, pose)
    got = piece_pose(px, piece, cam, pose, GRID)
    assert (got.x_mm, got.y_mm) == pytest.approx((2300.0, 1150.0), abs=1e-6)
    assert got.heading_deg == pytest.approx(100.0, abs=1e-6)
    assert (got.facing, got.cell) == ("E", "AM20")
    assert got.facing_residual_deg == pytest.approx(10.0)
    assert got.edge_mm == pytest.approx(10.0)


def test_wrong_height_would_misplace_the_piece():
    """The roster's marker height matters: the same pixels read at z = 0 land far off."""
    cam, pose = camera_over_table(25.0)
    piece = _piece(height=50.0)
    px = _marker_px(piece, 2300.0, 1150.0, 0.0, cam, pose)
    flat = piece_pose(px, _piece(height=0.0), cam, pose)
    assert np.hypot(flat.x_mm - 2300.0, flat.y_mm - 1150.0) > 20.0


def test_locate_sorts_out_unknown_conflicting_and_anchor_markers():
    cam, pose = camera_over_table(10.0)
    a, b = _piece(10), _piece(11)
    roster = Roster("DICT_4X4_250", (a, b))
    markers = [
        MarkerDetection(0, table_to_pixels(LAYOUT.anchors[0].corners_mm(), cam, pose)),
        MarkerDetection(10, _marker_px(a, 500, 500, 0, cam, pose)),
        MarkerDetection(11, _marker_px(b, 700, 500, 0, cam, pose)),
        MarkerDetection(11, _marker_px(b, 900, 500, 0, cam, pose)),
        MarkerDetection(42, _marker_px(b, 1100, 500, 0, cam, pose)),
    ]
    pieces, unknown, conflicts = locate_pieces(markers, roster, LAYOUT, cam, pose)
    assert [p.piece for p in pieces] == ["p10"]
    assert unknown == [42] and conflicts == [11]


def test_read_table_keeps_pose_when_anchors_are_hidden():
    cam, pose = camera_over_table(10.0)
    roster = Roster("DICT_4X4_250", (_piece(10),))
    anchors = [MarkerDetection(a.id, table_to_pixels(a.corners_mm(), cam, pose)) for a in LAYOUT.anchors]
    piece = MarkerDetection(10, _marker_px(roster.pieces[0], 1000, 600, 45, cam, pose))
    reg = TableRegistration(LAYOUT, cam)
    first = read_table(np.zeros((10, 10, 3), np.uint8), reg, roster, markers=anchors + [piece])
    assert [p.cell for p in first.pieces] == ["Q11"] and first.pieces[0].facing == "NE"
    later = read_table(np.zeros((10, 10, 3), np.uint8), reg, roster, markers=[piece])
    assert later.pose is first.pose and later.pieces == first.pieces
    blind = read_table(np.zeros((10, 10, 3), np.uint8), TableRegistration(LAYOUT, cam), roster, markers=[piece])
    assert blind.pose is None and blind.pieces == ()
