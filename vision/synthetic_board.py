"""A printed board lying flat as the whole synthetic table: its areas drawn as terrain templates, blocks standing
on it. Plain data in (the board's own layout, area polygons, block placements in board mm); the wiring
(fieldglass/boards.py) reads them off a `rules.board.Board`, e.g. for the demo table of a system on a printed board
(`fieldglass gui --source synthetic`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from calibration.layout import TableLayout
from vision.roster import Roster
from vision.synthetic import PlacedPiece, SyntheticScene, TerrainPiece

BLOCK_MM = (28.0, 20.0)
"""A block lying flat on the board: 28 x 20 mm, its BLOCK_MARKER_MM marker on the top face, BLOCK_HEIGHT_MM above
the board."""
BLOCK_HEIGHT_MM = 12.0
BLOCK_MARKER_MM = 16.0

_KINDS = ("field", "plain", "field", "plain")


def board_table_scene(layout: TableLayout, roster: Roster, areas: Sequence[np.ndarray],
                      placed: Iterable[tuple[str, float, float, float]]) -> SyntheticScene:
    """The board as the synthetic table.

    `layout` is the board's own (board mm are table mm: x along its width, y along its depth; its anchors register
    the camera), `areas` the area polygons (N, 2 board mm) drawn as alternating terrain, each inset 2 mm so that
    neighbouring areas show a thin border of cloth, `placed` the blocks as (roster piece id, x_mm, y_mm,
    heading_deg: compass bearing of the block's front)."""
    terrain = tuple(TerrainPiece(_KINDS[i % len(_KINDS)], np.asarray(a, float) + _inset(a))
                    for i, a in enumerate(areas))
    pieces = tuple(PlacedPiece(roster.piece(pid), float(x), float(y), float(heading)) for pid, x, y, heading in placed)
    return SyntheticScene(layout, roster, pieces, terrain)


def _inset(poly) -> np.ndarray:
    """Shrink a polygon 2 mm toward its centre so neighbouring areas show a thin border of cloth between them."""
    p = np.asarray(poly, float)
    c = p.mean(0)
    d = c - p
    n = np.linalg.norm(d, axis=1, keepdims=True)
    return d / np.maximum(n, 1e-9) * 2.0


__all__ = ["BLOCK_HEIGHT_MM", "BLOCK_MARKER_MM", "BLOCK_MM", "board_table_scene"]
