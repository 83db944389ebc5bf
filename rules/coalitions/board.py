"""The Coalitions map as a printed board of areas (rules.board.Board) for the live table: the camera's General pawns
are located to its Territories with `Board.locate`.

The map file (data/europe_demo.toml) gives each Territory an INVENTED centre (`xy`, a 1000 x 700 frame, north at small
y) and no outline: each Territory's cell is the part of the frame nearer its centre than any other (a Voronoi diagram
of the centres), north turned to +y (the table's compass). The cells are as INVENTED as the centres; the rules read
the map's borders and Sea Routes, never the cells. A digitised physical board is a board file of rules/board.py's
form whose area ids are the map's Territory ids (`fieldglass gui --system coalitions --board FILE`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from rules.board import MIN_SHARED_MM, Area, Board, BoardAnchor, Connection, shared_border_mm
from rules.coalitions.camera import EXTRA_DEPTH_MM, track_areas
from rules.coalitions.model import Europe, load_europe
from rules.geometry import voronoi_cells

FRAME_MM = (1000.0, 700.0)
"""The map file's frame, 1 unit = 1 mm on the table."""
ANCHOR_MM = 30.0
ANCHOR_INSET_MM = 22.0
ANCHOR_IDS = (100, 101, 102, 103)
DICTIONARY = "DICT_4X4_250"
BORDER_MM = 4.0


def map_point(europe: Europe, tid: str) -> tuple[float, float]:
    """Where a pawn stands to be located in Territory `tid`: the map's centre of it turned north up (board mm)."""
    x, y = europe.territories[tid].xy
    return float(x), FRAME_MM[1] - float(y)


def europe_board(europe: Europe) -> Board:
    """The map's Territories as a board of areas (ids the map's ids, attribute `kind` the Territory's kind), and
    above the map's frame the Morale and Influence tracks, the Diplomatic Status zones and the Wheel of War
    (rules/coalitions/camera.py `track_areas`, INVENTED places); four anchors in its corners; connections for the
    land borders and Sea Routes (drawing and validation only)."""
    width, depth = FRAME_MM[0], FRAME_MM[1] + EXTRA_DEPTH_MM
    ids = list(europe.territories)
    sites = np.array([map_point(europe, t) for t in ids], float)
    cells = voronoi_cells(sites, *FRAME_MM)
    areas = {t: Area(t, europe.territories[t].name, cell, attributes=(("kind", europe.territories[t].kind),))
             for t, cell in zip(ids, cells, strict=True)}
    links = _links(europe, areas)
    areas.update(track_areas())
    d = ANCHOR_INSET_MM
    corners = ((d, d), (width - d, d), (width - d, depth - d), (d, depth - d))
    anchors = tuple(BoardAnchor(a, x, y, ANCHOR_MM) for a, (x, y) in zip(ANCHOR_IDS, corners, strict=True))
    return Board(f"{europe.name}: cells around the invented centres (INVENTED geometry)", width, depth, DICTIONARY,
                 anchors, areas, {}, connections=links, border_mm=BORDER_MM,
                 source=f"coalitions {europe.side} map (cells)")


def _links(europe: Europe, areas: dict[str, Area]) -> tuple[Connection, ...]:
    pairs: dict[tuple[str, str], str] = {}
    for a, near in europe.land.items():
        for b in near:
            pairs[tuple(sorted((a, b)))] = "land"
    for a, near in europe.routes.items():
        for b in near:
            pairs[tuple(sorted((a, b)))] = "sea"
    ids = list(areas)
    for k, a in enumerate(ids):
        pa = np.asarray(areas[a].polygon, float)
        for b in ids[k + 1:]:
            if (a, b) in pairs:
                continue
            pb = np.asarray(areas[b].polygon, float)
            if shared_border_mm(pa, pb, BORDER_MM) >= max(MIN_SHARED_MM, 3 * BORDER_MM) / 2:
                pairs[(a, b)] = "land"  # cells touching without a border of the map: drawn, never read by the rules
    return tuple(Connection(a, b, kind) for (a, b), kind in sorted(pairs.items()))


@lru_cache(maxsize=2)
def demo_board(side: str = "empire") -> Board:
    """The shipped demo map (data/europe_demo.toml, INVENTED) of one board side as a board."""
    return europe_board(load_europe("demo", side))
