"""A printed board (`rules.board.Board`) as the plain data the layers below it take.

calibration/board.py registers a board from its own `TableLayout` (board mm, its turned anchors) and
vision/synthetic_board.py renders a board from area polygons and piece points; neither knows the rules' board.
This wiring converts: `board_layout` for registration, `board_scene` for the synthetic table of a system on a
printed board (its demo, fieldglass/setup.py), `block_point` and `locate_points` between areas and board points.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from calibration.board import TurnedAnchor
from calibration.layout import TableLayout
from rules.board import Board, Placement
from vision.roster import Roster
from vision.synthetic import SyntheticScene
from vision.synthetic_board import board_table_scene


def board_layout(board: Board) -> TableLayout:
    """The board as a table layout in board mm (its size, marker dictionary and anchors, each with the compass
    bearing of its top edge): register the camera on the board itself, or find the board on a registered table."""
    anchors = tuple(TurnedAnchor(a.id, a.x_mm, a.y_mm, a.size_mm, a.heading_deg) for a in board.anchors)
    return TableLayout(board.width_mm, board.depth_mm, board.dictionary, anchors,
                       dice_tray_mm=getattr(board, "dice_tray_mm", None))


def locate_points(board: Board, board_mm: Iterable[tuple[float, float]]) -> list[Placement]:
    """Area and position for each board point (board mm; on a border: flagged, not guessed)."""
    return [board.locate(float(x), float(y)) for x, y in board_mm]


def block_point(board: Board, area: str, position: str) -> tuple[float, float]:
    """Where a block stands, board mm: the area's centre (its reserve) or, for an approach ("position" names the
    neighbour area), a point inside the area just behind the middle of that approach's border
    (`Board.standing_point`)."""
    return board.standing_point(area, position)


def board_scene(board: Board, roster: Roster, placed: Iterable[tuple[str, float, float, float]]) -> SyntheticScene:
    """The board as the synthetic table (its own anchors register the camera), its areas as alternating terrain,
    `placed` the roster's pieces as (piece id, x_mm, y_mm, heading_deg) in board mm."""
    areas = [np.asarray(a.polygon, float) for a in board.areas.values()]
    return board_table_scene(board_layout(board), roster, areas, placed)


__all__ = ["block_point", "board_layout", "board_scene", "locate_points"]
