"""The Napoleon in Europe demo table, shown by `fieldglass gui --system nie --source synthetic` and filmed by
`fieldglass record --system nie --source synthetic`, as plain data (the wiring renders it with vision's synthetic
table).

The table is the demo map (data/europe_demo.toml, INVENTED topology and centres) as a board of cells
(rules/nie/board.py `demo_board`) and beside it the demo battle board (data/battle_board_demo.toml, INVENTED: the
zones of §3.3) with its own anchors; `DEMO_FIGURES` says where each demo figure stands on the map, `DEMO_BATTLE` the
battle in Bohemia and its figures' zones on the battle board, data/demo_figures.toml is their roster (markers and
bases), `DEMO_GAME` the game state the camera cannot see (date, players, wars).
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path

from rules.live import DemoPiece, DemoTable
from rules.nie.board import battle_board, demo_board, map_point
from rules.nie.model import carries_topology, load_europe

DEMO_FIGURES = (
    # id, nation, roster type, where it stands (a region, a sea area, or a port region for a squadron in port)
    ("fr-inf-1", "france", "infantry", "paris"),
    ("fr-inf-2", "france", "infantry", "burgundy"),
    ("fr-cav-1", "france", "cavalry", "picardy"),
    ("fr-art-1", "france", "artillery", "burgundy"),
    ("gb-inf-1", "britain", "infantry", "london"),
    ("gb-sq-1", "britain", "squadron", "channel"),
    ("gb-sq-2", "britain", "squadron", "london"),
    ("au-inf-1", "austria", "infantry", "vienna"),
    ("au-cav-1", "austria", "cavalry", "bavaria"),
)
"""The demo figures: a squadron standing in a port region is in its port (`port:london`)."""

DEMO_GAME = {
    "system": "nie", "board": "demo", "year": 1805, "month": 1, "round": 1, "start_nation": "france",
    "active": "france", "players": {"france": "anna", "britain": "ben", "austria": "cara"},
    "relations": [{"nations": ["britain", "france"], "status": "war", "declared_by": ["britain"]},
                  {"nations": ["austria", "france"], "status": "war", "declared_by": ["austria"]}],
    "pp": {"france": 20, "britain": 25, "austria": 15}, "owners": {"bavaria": "austria"}, "units": [],
}
"""The demo's game state (the position file's form, without units: the camera places the figures)."""

DEMO_BATTLE = {
    "region": "bohemia", "attacker": ["france"], "defender": ["austria"], "major": True, "phase": "infantry",
    "deployed": ["A", "B"],
    "units": {"fr-inf-3": {"zone": "A-centre"}, "fr-cav-2": {"zone": "A-reserve"},
              "au-inf-2": {"zone": "B-centre", "square": True}, "au-art-1": {"zone": "B-reserve"}},
}
"""The demo's battle (the position file's form): France attacks Austria in Bohemia; its four figures stand on the
battle board in these zones (the camera reads them there), the Austrian infantry in square: its figure turned
sideways (§8.5, read from its marker's rotation, §13.1)."""
DEMO_BATTLE_UNITS = (("fr-inf-3", "france", "inf"), ("fr-cav-2", "france", "cav"),
                     ("au-inf-2", "austria", "inf"), ("au-art-1", "austria", "art"))
BATTLE_AT = (40.0, 150.0, 0.0)
"""Where the battle board lies beside the map on the demo table: its origin this far east of the map's east edge and
north of its south edge (mm), turned by this much (degrees, counter-clockwise)."""

SPREAD_MM = ((0.0, 0.0), (24.0, 0.0), (-24.0, 0.0), (0.0, 24.0))
"""Several figures in one area stand beside its centre, not on top of each other."""


def data_path(name: str) -> Path:
    return Path(str(resources.files("rules.nie").joinpath("data", name)))


def demo(board=None) -> DemoTable:
    """The demo figures on `board` (default: the demo map's cells), those whose area it has, each beside the map's
    centre of its area (rules/nie/board.py `map_point`), or, on a board whose area is elsewhere, at its area's
    centre."""
    europe = load_europe("demo")
    board = board or demo_board()
    pieces, count = [], {}
    for fid, _, _, area in DEMO_FIGURES:
        if area not in board.areas:
            continue
        x, y = map_point(europe, area) if area in europe.regions or area in europe.seas else (-1.0, -1.0)
        if board.locate(x, y).area != area:  # another board of these ids: the centre of its (convex) area
            x, y = board.areas[area].centre
        k = count.get(area, 0)
        count[area] = k + 1
        dx, dy = SPREAD_MM[k % len(SPREAD_MM)]
        pieces.append(DemoPiece(fid, float(x + dx), float(y + dy), 0.0))
    at = (board.width_mm + BATTLE_AT[0], BATTLE_AT[1], BATTLE_AT[2])
    pieces += battle_pieces(at)
    return DemoTable(roster=data_path("demo_figures.toml"), pieces=tuple(pieces), board=board, game=_game_on(board),
                     names={"board": "demo map of Europe (invented)", "roster": "demo figures"},
                     surfaces={"battle": at})


def _game_on(board) -> dict | None:
    """The demo's game, unless the board is a digitised map without the regions it names (then the session starts
    from an empty game on that map)."""
    named = {DEMO_BATTLE["region"], *DEMO_GAME["owners"]}
    if carries_topology(board) and not named <= set(board.areas):
        return None
    return demo_game()


def demo_game() -> dict:
    """The demo's game with its battle (the battle's units in Bohemia: a position's battle names its units)."""
    units = [{"id": uid, "nation": nation, "type": kind, "at": DEMO_BATTLE["region"]}
             for uid, nation, kind in DEMO_BATTLE_UNITS]
    return {**DEMO_GAME, "units": units, "battle": DEMO_BATTLE}


SQUARE_TURN_DEG = 90.0
"""How far the demo turns a figure in square from facing the enemy (§8.5: sideways)."""


def battle_heading(zone: str, square: bool, rotation_deg: float) -> float:
    """The compass bearing in the table frame (0 = +y) of a figure in `zone` facing the enemy (the attacker's zones
    face +y on the board, the defender's -y; the middle row: the attacker's way), turned sideways when `square`, on a
    battle board turned counter-clockwise by `rotation_deg` (a bearing on the board is the table's plus it)."""
    front = 180.0 if zone.startswith("B-") else 0.0
    return (front + (SQUARE_TURN_DEG if square else 0.0) - rotation_deg) % 360.0


def battle_pieces(at: tuple[float, float, float]) -> list[DemoPiece]:
    """The battle's figures at the centres of their zones on the battle board lying at `at` (x, y, rotation), each
    facing the enemy or, in square, turned sideways."""
    brd = battle_board()
    x0, y0, rot = at
    t = math.radians(rot)
    out = []
    for uid, st in DEMO_BATTLE["units"].items():
        bx, by = brd.areas[st["zone"]].centre
        x, y = x0 + bx * math.cos(t) - by * math.sin(t), y0 + bx * math.sin(t) + by * math.cos(t)
        out.append(DemoPiece(uid, float(x), float(y), battle_heading(st["zone"], bool(st.get("square")), rot)))
    return out


__all__ = ["BATTLE_AT", "DEMO_BATTLE", "DEMO_FIGURES", "DEMO_GAME", "battle_heading", "battle_pieces", "demo",
           "demo_game"]
