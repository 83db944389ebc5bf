"""The Coalitions demo table, shown by `fieldglass gui --system coalitions --source synthetic` and filmed by
`fieldglass record --system coalitions --source synthetic`, as plain data (the wiring renders it with vision's
synthetic table).

The table is the demo map (data/europe_demo.toml, INVENTED borders and centres) of the Empire side as a board of
cells (rules/coalitions/board.py `demo_board`); data/demo_generals.toml is the roster of ten General pawns, standing
where the 1805 scenario puts them (§9.9), and of the markers the camera reads besides (rules/coalitions/camera.py):
the set-up's seven Garrison tokens (each with its Troop face's marker, not on the table), Istanbul's Fortress, every
Power's Morale and Influence markers on the tracks above the map, the four status discs and the Wheel's dial at
action turn 1. The game the camera cannot see (Troops under the pawns, the other Generals, money, cards) is that
scenario's set-up.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

import numpy as np

from rules.coalitions.board import demo_board, map_point
from rules.coalitions.camera import WHEEL_STEP_DEG, status_point, track_point, wheel_point
from rules.coalitions.model import load_europe, state_to_dict
from rules.coalitions.scenarios import setup
from rules.live import DemoPiece, DemoTable

DEMO_SCENARIO = "1805"
SPREAD_MM = ((0.0, 0.0), (24.0, 0.0), (-24.0, 0.0), (0.0, 24.0))
"""Several pawns in one Territory stand beside its centre, not on top of each other."""
CLEAR_MM = 22.0
"""How far a token lies from the pawns and tokens beside it (bases up to 20 mm)."""


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
        if pid not in where:
            continue
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
    pieces += marker_pieces(game, board, {f"tk{k}-g": tid for k, tid in enumerate(sorted(game["garrisons"]), 1)},
                            [(p.x_mm, p.y_mm) for p in pieces])
    return DemoTable(roster=roster, pieces=tuple(pieces), board=board, game=game,
                     names={"board": "demo map of Europe, Empire side (invented)", "roster": "demo Generals"})


def token_spot(board, europe, tid: str, taken: list[tuple[float, float]]) -> tuple[float, float]:
    """Where a token lies in Territory `tid` (board mm): inside its cell, at least `CLEAR_MM` from every point in
    `taken` (the pawns and tokens already there), which it joins; the cell's centre when nothing is free."""
    x, y = map_point(europe, tid)
    for r in (26.0, 36.0, 46.0):
        for k in range(12):
            a = np.radians(90.0 + 30.0 * k)
            px, py = x + r * np.cos(a), y + r * np.sin(a)
            pl = board.locate(px, py)
            if pl.area == tid and not pl.on_border and all(np.hypot(px - qx, py - qy) >= CLEAR_MM
                                                             for qx, qy in taken):
                taken.append((float(px), float(py)))
                return float(px), float(py)
    return board.areas[tid].centre


def marker_pieces(game: dict, board, faces: dict[str, str], taken=None) -> list[DemoPiece]:
    """The markers of the demo roster as a game (the position file's form) puts them: `faces` each token face on the
    table -> its Territory; the Fortress on the game's first; each Power's Morale and Influence markers on their
    track spaces (§13.1), each status disc on its zone, the Wheel's dial turned to the game's action turn. `taken`:
    the points (board mm) the pawns stand on."""
    europe = load_europe("demo")
    taken = list(taken or ())
    out = [DemoPiece(pid, *token_spot(board, europe, tid, taken), 0.0) for pid, tid in faces.items()]
    for tid in list(game.get("fortresses", ()))[:1]:
        out.append(DemoPiece("fort-1", *token_spot(board, europe, tid, taken), 0.0))
    for track in ("morale", "influence"):
        for power, value in (game.get(track) or {}).items():
            out.append(DemoPiece(f"{track[:3]}-{power[:2]}", *track_point(track, int(value), power), 0.0))
    for power, status in (game.get("statuses") or {}).items():
        out.append(DemoPiece(f"st-{power[:2]}", *status_point(status, power), 0.0))
    out.append(DemoPiece("dial", *wheel_point(), WHEEL_STEP_DEG * (int(game.get("turn", 1)) - 1)))
    return out


__all__ = ["DEMO_SCENARIO", "demo", "demo_game", "marker_pieces", "token_spot"]
