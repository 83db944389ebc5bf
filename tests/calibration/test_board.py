"""Board registration: a printed board lying turned on the table is found from its own anchors."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.board import (
    BoardPose,
    anchor_corners_mm,
    camera_pose_on_board,
    estimate_board_pose,
    fit_rigid,
    pixels_to_board,
)
from calibration.layout import Anchor, TableLayout
from calibration.registration import estimate_pose
from fieldglass.boards import board_layout
from rules.board import BoardAnchor
from rules.marengo.model import load_demo_board
from vision.markers import detect_markers
from vision.roster import Roster
from vision.synthetic import RenderOptions, SyntheticScene, VirtualCamera, render_table, standard_layout

TURN = 30.0  # the board lies turned 30 degrees counter-clockwise on the table
OFFSET = (1000.0, 250.0)


def _board_with_turned_anchors():
    """The demo board with its stickers printed turned by TURN, so on the turned board they point along +y
    (the synthetic renderer draws flat anchors along +y only)."""
    board = load_demo_board()
    anchors = tuple(BoardAnchor(a.id, a.x_mm, a.y_mm, a.size_mm, TURN) for a in board.anchors)
    return board.__class__(**{**board.__dict__, "anchors": anchors})


def test_fit_rigid_recovers_a_known_turn():
    rng = np.random.default_rng(1)
    pts = rng.uniform(0, 700, (12, 2))
    truth = BoardPose(-47.0, 310.0, -20.0)
    deg, t, rms = fit_rigid(pts, truth.board_to_table(pts))
    assert deg == pytest.approx(-47.0) and t == pytest.approx([310.0, -20.0]) and rms < 1e-9
    assert truth.table_to_board(truth.board_to_table(pts)) == pytest.approx(pts)


def test_rendered_board_turned_on_the_table_is_registered_and_pieces_land_in_areas():
    board = _board_with_turned_anchors()
    truth = BoardPose(TURN, *OFFSET)
    table = standard_layout(2400.0, 1200.0)
    centres = {a.id: truth.board_to_table([[a.x_mm, a.y_mm]])[0] for a in board.anchors}
    extra = tuple(Anchor(i, float(c[0]), float(c[1]), a.size_mm) for a in board.anchors for i, c in centres.items()
                  if i == a.id)
    scene_layout = TableLayout(table.width_mm, table.depth_mm, table.dictionary, table.anchors + extra)
    scene = SyntheticScene(scene_layout, Roster("DICT_4X4_250", ()), ())
    camera = VirtualCamera.looking_at_table(2400, 1200, (1920, 1080), 1700.0, 10.0)
    frame, _ = render_table(scene, camera, RenderOptions(noise_sigma=1.5, seed=2))
    seen = {m.id: m.corners for m in detect_markers(frame, "DICT_4X4_250")}
    assert set(centres) <= set(seen)
    table_pose = estimate_pose({i: c for i, c in seen.items() if i < 8}, table, camera.intrinsics)
    pose = estimate_board_pose(seen, board_layout(board), camera.intrinsics, table_pose)
    assert pose is not None and pose.anchors == (100, 101, 102, 103)
    assert pose.rotation_deg == pytest.approx(TURN, abs=0.2)
    assert (pose.x_mm, pose.y_mm) == pytest.approx(OFFSET, abs=2.0)
    # a block's marker 25 mm above the board, in area 3's approach to area 5 and in area 9's reserve
    for bx, by, area, position in ((350.0, 150.0, "3", "3>5"), (540.0, 100.0, "9", "reserve")):
        top = np.array([[*truth.board_to_table([[bx, by]])[0], 25.0]])
        px = camera.project(top)
        at = pixels_to_board(px, camera.intrinsics, table_pose, pose, 25.0)[0]
        assert at == pytest.approx([bx, by], abs=2.5)
        placed = board.locate(*at)
        assert (placed.area, placed.position, placed.on_border) == (area, position, False)
    # parallax: the same marker taken at the cloth's height lands several mm off
    px = camera.project(np.array([[*truth.board_to_table([[700.0, 390.0]])[0], 25.0]]))
    flat = pixels_to_board(px, camera.intrinsics, table_pose, pose, 0.0)[0]
    assert np.linalg.norm(flat - [700.0, 390.0]) > 5.0


def test_board_without_table_anchors_is_its_own_table():
    board = load_demo_board()
    layout = board_layout(board)
    assert layout.anchor(101).corners_mm()[:, :2] == pytest.approx(anchor_corners_mm(board.anchors[1]))
    camera = VirtualCamera.looking_at_table(720, 400, (1280, 720), 900.0, 12.0)
    corners = {a.id: camera.project(np.column_stack([anchor_corners_mm(a), np.zeros(4)])) for a in board.anchors}
    pose = camera_pose_on_board(corners, layout, camera.intrinsics)
    px = camera.project(np.array([[300.0, 100.0, 20.0]]))
    at = pixels_to_board(px, camera.intrinsics, pose, None, 20.0)[0]
    assert at == pytest.approx([300.0, 100.0], abs=0.5)


def test_a_misread_anchor_is_dropped():
    board = load_demo_board()
    camera = VirtualCamera.looking_at_table(2400, 1200, (1920, 1080), 1700.0, 0.0)
    truth = BoardPose(-90.0, 800.0, 900.0)
    corners = {}
    for a in board.anchors:
        on_table = truth.board_to_table(anchor_corners_mm(a))
        corners[a.id] = camera.project(np.column_stack([on_table, np.zeros(4)]))
    corners[102] = corners[102] + 40.0  # a hand over it, a wrong read
    pose = estimate_board_pose(corners, board_layout(board), camera.intrinsics, camera.pose)
    assert pose.anchors == (100, 101, 103)
    assert pose.rotation_deg == pytest.approx(-90.0, abs=0.05)
    assert estimate_board_pose({100: corners[100]}, board_layout(board), camera.intrinsics, camera.pose) is None
