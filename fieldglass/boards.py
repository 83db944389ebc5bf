"""A printed board (`rules.board.Board`) as the plain data the layers below it take.

calibration/board.py registers a board from its own `TableLayout` (board mm, its turned anchors) and
vision/synthetic_board.py renders a board from area polygons and block points; neither knows the rules' board.
This wiring converts: `board_layout` for registration, `block_point` / `board_scene` / `demo_block_roster` for the
synthetic Marengo table, `locate_points` to name the area under board points.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from calibration.board import TurnedAnchor
from calibration.layout import TableLayout
from rules.board import Board, Placement, load_demo_board
from vision.roster import Roster
from vision.synthetic import SyntheticScene
from vision.synthetic_board import DEMO_BLOCKS, block_roster, board_table_scene


def board_layout(board: Board) -> TableLayout:
    """The board as a table layout in board mm (its size, marker dictionary and anchors, each with the compass
    bearing of its top edge): register the camera on the board itself, or find the board on a registered table."""
    anchors = tuple(TurnedAnchor(a.id, a.x_mm, a.y_mm, a.size_mm, a.heading_deg) for a in board.anchors)
    return TableLayout(board.width_mm, board.depth_mm, board.dictionary, anchors)


def locate_points(board: Board, board_mm: Iterable[tuple[float, float]]) -> list[Placement]:
    """Area and position for each board point (board mm; on a border: flagged, not guessed)."""
    return [board.locate(float(x), float(y)) for x, y in board_mm]


def demo_block_roster(board: Board | None = None) -> Roster:
    """The demo blocks (vision/synthetic_board.py's DEMO_BLOCKS) in the board's marker dictionary."""
    board = board or load_demo_board()
    return block_roster(board.dictionary, DEMO_BLOCKS)


def block_point(board: Board, area: str, position: str) -> tuple[float, float]:
    """Where a block stands, board mm: the area's centre (its reserve) or, for an approach ("position" names the
    neighbour area), a point inside the area just behind the middle of that approach's border."""
    if position == "reserve":
        return board.areas[area].centre
    ap = board.approach(area, position)
    seg = board.approach_segment(ap)
    mid, c = seg.mean(0), np.asarray(board.areas[area].centre, float)
    v = c - mid
    pt = mid + v / (np.linalg.norm(v) or 1.0) * min(board.approach_depth_mm * 0.6, np.linalg.norm(v) / 2)
    return float(pt[0]), float(pt[1])


def board_scene(board: Board | None = None, blocks=DEMO_BLOCKS) -> SyntheticScene:
    """The board as the synthetic table, its areas as alternating terrain, `blocks` (rows as DEMO_BLOCKS) placed:
    several in one reserve spread around its centre, the first side's blocks facing north (0), the other's south
    (180)."""
    board = board or load_demo_board()
    roster = block_roster(board.dictionary, DEMO_BLOCKS)
    first = DEMO_BLOCKS[0][2]
    placed, count = [], {}
    for bid, _, side, _, _, area, position in blocks:
        x, y = block_point(board, area, position)
        k = count.get((area, position), 0)
        count[(area, position)] = k + 1
        if position == "reserve":
            dx, dy = ((0, 0), (0, 30), (0, -30), (36, 0))[k % 4]
            x, y = x + dx, y + dy
        placed.append((bid, float(x), float(y), 0.0 if side == first else 180.0))
    areas = [np.asarray(a.polygon, float) for a in board.areas.values()]
    return board_table_scene(board_layout(board), roster, areas, placed)


__all__ = ["block_point", "board_layout", "board_scene", "demo_block_roster", "locate_points"]
