"""The Marengo demo board, shown by `fieldglass gui --system marengo --source synthetic` and filmed by `fieldglass
record --system marengo --source synthetic`, as plain data (the wiring renders it with vision's synthetic table).

The invented demo board (data/demo_board.toml, `load_demo_board`) is the table; `DEMO_BLOCKS` says where
each demo block stands, data/demo_blocks.toml is their roster (markers and block sizes).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from rules.live import DemoPiece, DemoTable
from rules.marengo.model import load_demo_board

DEMO_BLOCKS = (
    # id, marker, side, type, strength, area, position ("reserve" or the neighbour area of the approach)
    ("au-inf-1", 10, "AU", "infantry", 3, "3", "reserve"),
    ("au-cav-1", 11, "AU", "cavalry", 2, "3", "reserve"),
    ("au-art-1", 12, "AU", "artillery", 2, "4", "5"),
    ("fr-inf-1", 20, "FR", "infantry", 2, "5", "reserve"),
    ("fr-inf-2", 21, "FR", "infantry", 3, "9", "reserve"),
    ("fr-cav-1", 22, "FR", "cavalry", 2, "7", "reserve"),
)
"""The demo board's blocks (labels only: where an area's reserve or approach lies is the board's business)."""

RESERVE_SPREAD_MM = ((0, 0), (0, 30), (0, -30), (36, 0))
"""Several blocks in one reserve stand around its centre, not on top of each other."""


def data_path(name: str) -> Path:
    return Path(str(resources.files("rules.marengo").joinpath("data", name)))


def demo(board=None) -> DemoTable:
    """The demo blocks on `board` (default: the demo board), those whose area it has: each where the board locates
    it in its area and position, the first side's blocks facing north (0), the other's south (180)."""
    board = board or load_demo_board()
    first = DEMO_BLOCKS[0][2]
    pieces, count = [], {}
    for bid, _, side, _, _, area, position in DEMO_BLOCKS:
        if area not in board.areas:
            continue
        x, y = board.standing_point(area, position)
        k = count.get((area, position), 0)
        count[(area, position)] = k + 1
        if position == "reserve":
            dx, dy = RESERVE_SPREAD_MM[k % len(RESERVE_SPREAD_MM)]
            x, y = x + dx, y + dy
        pieces.append(DemoPiece(bid, float(x), float(y), 0.0 if side == first else 180.0))
    return DemoTable(roster=data_path("demo_blocks.toml"), pieces=tuple(pieces), board=board,
                     names={"board": "demo board", "roster": "demo blocks"})


__all__ = ["DEMO_BLOCKS", "demo"]
