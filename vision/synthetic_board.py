"""The Marengo demo board on the synthetic table: the invented board (rules/marengo/data/demo_board.toml) lies flat
as the whole table (the board is the table: its anchors register the camera), its areas drawn as terrain
templates, with a few blocks standing in the areas. Used by `fieldglass gui --system marengo --source synthetic`."""

from __future__ import annotations

import numpy as np

from calibration.board import board_layout
from rules.board import Board, load_demo_board
from vision.roster import Piece, Roster
from vision.synthetic import PlacedPiece, SyntheticScene, TerrainPiece

BLOCK_MM = (28.0, 20.0)
"""A block lying flat on the board: 28 x 20 mm, its marker on the top face."""
BLOCK_HEIGHT_MM = 12.0

DEMO_BLOCKS = (
    # id, marker, side, type, strength, area, position ("reserve" or the neighbour area of the approach)
    ("au-inf-1", 10, "AU", "infantry", 3, "3", "reserve"),
    ("au-cav-1", 11, "AU", "cavalry", 2, "3", "reserve"),
    ("au-art-1", 12, "AU", "artillery", 2, "4", "5"),
    ("fr-inf-1", 20, "FR", "infantry", 2, "5", "reserve"),
    ("fr-inf-2", 21, "FR", "infantry", 3, "9", "reserve"),
    ("fr-cav-1", 22, "FR", "cavalry", 2, "7", "reserve"),
)
_KINDS = ("field", "plain", "field", "plain")


def demo_block_roster(board: Board | None = None) -> Roster:
    board = board or load_demo_board()
    pieces = tuple(Piece(bid, marker, side, f"{typ} {strength}", BLOCK_MM, 16.0, BLOCK_HEIGHT_MM)
                   for bid, marker, side, typ, strength, _, _ in DEMO_BLOCKS)
    return Roster(board.dictionary, pieces)


def block_point(board: Board, area: str, position: str) -> tuple[float, float]:
    """Where a block stands: the area's centre (its reserve) or the middle of its approach position."""
    if position == "reserve":
        return board.areas[area].centre
    ap = board.approach(area, position)
    seg = board.approach_segment(ap)
    mid, c = seg.mean(0), np.asarray(board.areas[area].centre, float)
    v = c - mid
    pt = mid + v / (np.linalg.norm(v) or 1.0) * min(board.approach_depth_mm * 0.6, np.linalg.norm(v) / 2)
    return float(pt[0]), float(pt[1])


def board_scene(board: Board | None = None, blocks=DEMO_BLOCKS) -> SyntheticScene:
    """The board as the synthetic table, its areas as alternating terrain, `blocks` placed (spread in a reserve)."""
    board = board or load_demo_board()
    roster = demo_block_roster(board)
    layout = board_layout(board)
    terrain = tuple(TerrainPiece(_KINDS[i % len(_KINDS)], np.asarray(a.polygon, float) + _inset(a.polygon))
                    for i, a in enumerate(board.areas.values()))
    placed, count = [], {}
    for bid, _, side, _, _, area, position in blocks:
        x, y = block_point(board, area, position)
        k = count.get((area, position), 0)
        count[(area, position)] = k + 1
        if position == "reserve":
            dx, dy = ((0, 0), (0, 30), (0, -30), (36, 0))[k % 4]
            x, y = x + dx, y + dy
        heading = 0.0 if side == "AU" else 180.0
        placed.append(PlacedPiece(roster.piece(bid), float(x), float(y), heading))
    return SyntheticScene(layout, roster, tuple(placed), terrain)


def _inset(poly) -> np.ndarray:
    """Shrink a polygon 2 mm toward its centre so neighbouring areas show a thin border of cloth between them."""
    p = np.asarray(poly, float)
    c = p.mean(0)
    d = c - p
    n = np.linalg.norm(d, axis=1, keepdims=True)
    return d / np.maximum(n, 1e-9) * 2.0


__all__ = ["BLOCK_MM", "DEMO_BLOCKS", "block_point", "board_scene", "demo_block_roster"]
