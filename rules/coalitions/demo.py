"""The Coalitions demo table, shown by `fieldglass gui --system coalitions --source synthetic` and filmed by
`fieldglass record --system coalitions --source synthetic`, as plain data (the wiring renders it with vision's
synthetic table).

The table is the demo map (data/europe_demo.toml, INVENTED borders and centres) of the Empire side as a board of
cells (rules/coalitions/board.py `demo_board`); data/demo_generals.toml is the roster of ten General pawns, standing
where the 1805 scenario puts them (§9.9); the game the camera cannot see (statuses, Morale, Troops under the pawns,
the other Generals, Garrisons, money, cards) is that scenario's set-up.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from rules.coalitions.board import demo_board, map_point
from rules.coalitions.model import load_europe, state_to_dict
from rules.coalitions.scenarios import setup
from rules.live import DemoPiece, DemoTable

DEMO_SCENARIO = "1805"
SPREAD_MM = ((0.0, 0.0), (24.0, 0.0), (-24.0, 0.0), (0.0, 24.0))
"""Several pawns in one Territory stand beside its centre, not on top of each other."""


def data_path(name: str) -> Path:
    return Path(str(resources.files("rules.coalitions").joinpath("data", name)))


def demo_game() -> dict:
    """The demo's game: the 1805 set-up in the position file's form (its Generals' Troops and the off-map ones)."""
    return state_to_dict(setup(DEMO_SCENARIO).state)


def demo(board=None) -> DemoTable:
    """The roster's pawns where the 1805 set-up puts them, on `board` (default: the demo map's cells): each beside the
    map's centre of its Territory, or on a board whose area is elsewhere, at that area's centre."""
    europe = load_europe("demo")
    board = board or demo_board()
    game = demo_game()
    where = {p["id"]: p["area"] for p in game["pieces"]}
    roster = data_path("demo_generals.toml")
    with open(roster, "rb") as fh:
        ids = [p["id"] for p in tomllib.load(fh)["piece"]]
    pieces, count = [], {}
    for pid in ids:
        area = where.get(pid)
        if area is None or area not in board.areas:
            continue
        x, y = map_point(europe, area)
        if board.locate(x, y).area != area:
            x, y = board.areas[area].centre
        k = count.get(area, 0)
        count[area] = k + 1
        dx, dy = SPREAD_MM[k % len(SPREAD_MM)]
        pieces.append(DemoPiece(pid, float(x + dx), float(y + dy), 0.0))
    return DemoTable(roster=roster, pieces=tuple(pieces), board=board, game=game,
                     names={"board": "demo map of Europe, Empire side (invented)", "roster": "demo Generals"})


__all__ = ["DEMO_SCENARIO", "demo", "demo_game"]
