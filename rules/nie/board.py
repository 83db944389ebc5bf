"""The strategic map as a printed board of areas (rules.board.Board), for the live table: the camera's figures are
located to its regions and sea areas with `Board.locate` like Marengo's blocks.

The map file (data/europe_demo.toml) gives each region and sea area an INVENTED centre (`xy`, a 1000 x 800 frame,
north at small y) and no outline. `europe_board` makes the outlines: each area's cell is the part of the frame closer
to its centre than to any other (a Voronoi diagram of the centres), north turned to +y (the table's compass). The
cells are as INVENTED as the centres: their shared borders need not be the topology's neighbours (the rules read the
topology, never the cells). A digitised physical map is a board file of rules/board.py's form whose area ids are the
map file's region and sea ids (`fieldglass gui --system nie --board FILE`).

A digitised map carries the topology itself (rules/nie/model.py `europe_from_board`): each area's attributes say
what it is (`kind` region or sea, `home`, `capital`, `port`...), shared borders and connections its neighbours.
`digitised_board` writes the demo map in that form (data/europe_demo_board.toml), a start for the board editor.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import numpy as np

from rules.board import (
    MIN_SHARED_MM,
    Area,
    Board,
    BoardAnchor,
    Connection,
    bordering_pairs,
    load_board,
    shared_border_mm,
)
from rules.geometry import voronoi_cells
from rules.nie.model import COLS, REGION_FLAGS, ROWS, Europe, Region, load_europe, zones

FRAME_MM = (1000.0, 800.0)
"""The map file's frame, 1 unit = 1 mm on the table."""
ANCHOR_MM = 30.0
ANCHOR_INSET_MM = 25.0
ANCHOR_IDS = (100, 101, 102, 103)
DICTIONARY = "DICT_4X4_250"
BORDER_MM = 4.0


def europe_board(europe: Europe) -> Board:
    """The map's regions and sea areas as a board of areas (ids the map's ids, no attributes: the topology stays
    the map file's), with four anchors in its corners; no approaches (a figure in an area is simply in it)."""
    return Board(f"{europe.name}: cells around the invented centres (INVENTED geometry)", *FRAME_MM, DICTIONARY,
                 _anchors(), (areas := _cells(europe, {})), {}, connections=links(europe, areas),
                 border_mm=BORDER_MM, source=f"{europe.source} (cells)")


def _cells(europe: Europe, attributes: dict[str, tuple]) -> dict[str, Area]:
    """Each region's and sea area's cell around its centre (north up: the map's y grows southward)."""
    ids = [*europe.regions, *europe.seas]
    names = {**{r.id: r.name for r in europe.regions.values()}, **{s.id: s.name for s in europe.seas.values()}}
    sites = np.array([map_point(europe, i) for i in ids], float)
    cells = voronoi_cells(sites, *FRAME_MM)
    return {i: Area(i, names[i], cell, attributes=attributes.get(i, ())) for i, cell in zip(ids, cells, strict=True)}


def _anchors() -> tuple[BoardAnchor, ...]:
    width, depth = FRAME_MM
    d = ANCHOR_INSET_MM
    corners = ((d, d), (width - d, d), (width - d, depth - d), (d, depth - d))
    return tuple(BoardAnchor(a, x, y, ANCHOR_MM) for a, (x, y) in zip(ANCHOR_IDS, corners, strict=True))


def map_attributes(region: Region | None) -> tuple[tuple[str, object], ...]:
    """A region's (or, for None, a sea area's) topology as a digitised board area's attributes (sorted by key; only
    what differs from the defaults)."""
    if region is None:
        return (("kind", "sea"),)
    out: list[tuple[str, object]] = [("kind", "region")]
    if region.home:
        out.append(("home", region.home))
    out += [(k, True) for k in REGION_FLAGS if getattr(region, k)]
    if region.port:
        out.append(("port", tuple(sorted(region.port))))
    return tuple(sorted(out))


def digitised_board(europe: Europe) -> Board:
    """The map written as a digitised board (rules/nie/model.py `europe_from_board` reads the same topology back):
    the cells of `europe_board` with each area's attributes and a connection for each map link (`land`, `sea`, or
    `strait` for a strait), a `closed` one for each shared cell border that is no link of the map (the cells are
    INVENTED) and a `sea` one on each coast (a region's cell bordering a sea area's: a board file's shared border
    needs a connection, the board editor's "Link borders"). A player opens it in the board editor and redraws the
    outlines over the printed map."""
    attrs = {**{r.id: map_attributes(r) for r in europe.regions.values()},
             **{s: map_attributes(None) for s in europe.seas}}
    areas = _cells(europe, attrs)
    bare = Board("cells", *FRAME_MM, DICTIONARY, (), areas, {}, border_mm=BORDER_MM)
    touching = bordering_pairs(bare)
    wanted: dict[tuple[str, str], str] = {}
    for r in europe.regions.values():
        for n in r.neighbours:
            wanted[tuple(sorted((r.id, n)))] = "land"
    for sea in europe.seas.values():
        for n in sea.neighbours | sea.straits:
            wanted[tuple(sorted((sea.id, n)))] = "strait" if n in sea.straits else "sea"
    conns = dict(wanted)
    for pair in touching - set(wanted):
        coast = (pair[0] in europe.seas) != (pair[1] in europe.seas)
        conns[pair] = "sea" if coast else "closed"
    return Board(f"{europe.name}: digitised form (cells around the INVENTED centres)", *FRAME_MM, DICTIONARY,
                 _anchors(), areas, {}, connections=tuple(Connection(a, b, k) for (a, b), k in sorted(conns.items())),
                 border_mm=BORDER_MM, source=f"{europe.source} (digitised)")


def links(europe: Europe, areas: dict[str, Area]) -> tuple[Connection, ...]:
    """The board's connections (rules/board.py: links that need no approach): the map's own links (land borders,
    sea borders and ports) and every pair of cells that share a border without one, so that the board file
    validates (a board's shared border needs approaches or a connection). Drawing and validation only: the rules
    read the map's topology, never these."""
    pairs: dict[tuple[str, str], str] = {}
    for r in europe.regions.values():
        for n in r.neighbours:
            pairs[tuple(sorted((r.id, n)))] = "land"
        for sea in r.port:
            pairs[tuple(sorted((r.id, sea)))] = "sea"
    for s in europe.seas.values():
        for n in s.neighbours | s.straits:
            pairs[tuple(sorted((s.id, n)))] = "sea"
    ids = list(areas)
    for k, a in enumerate(ids):
        pa = np.asarray(areas[a].polygon, float)
        for b in ids[k + 1:]:
            pb = np.asarray(areas[b].polygon, float)
            if np.any(pa.max(0) < pb.min(0) - BORDER_MM) or np.any(pb.max(0) < pa.min(0) - BORDER_MM):
                continue
            if (a, b) not in pairs and (b, a) not in pairs and \
                    shared_border_mm(pa, pb, BORDER_MM) >= max(MIN_SHARED_MM, 3 * BORDER_MM) / 2:
                pairs[(a, b)] = "sea" if a in europe.seas or b in europe.seas else "land"
    return tuple(Connection(a, b, kind) for (a, b), kind in sorted(pairs.items()))


@lru_cache(maxsize=1)
def demo_board() -> Board:
    """The shipped demo map (data/europe_demo.toml, INVENTED) as a board."""
    return europe_board(load_europe("demo"))


def map_point(europe: Europe, area: str) -> tuple[float, float]:
    """Where a figure stands to be located in `area` (a region or sea area): the map's centre of it turned north up,
    board mm (the site of its cell, inside it)."""
    x, y = europe.regions[area].xy if area in europe.regions else europe.sea(area).xy
    return float(x), FRAME_MM[1] - float(y)


# ---------------------------------------------------------------------------------------------- the battle board

BATTLE_ANCHOR_IDS = (104, 105, 106, 107)
"""The battle board's own anchors (apart from the map's 100..103 and the demo figures' markers)."""
BATTLE_FILE = "battle_board_demo.toml"


def battle_board_from_zones(zone_mm: tuple[float, float] = (80.0, 60.0), margin_mm: float = 40.0) -> Board:
    """An INVENTED battle board of a major battle (§3.3): its seven rows from the attacker's rout zone (south, small
    y) to the defender's (north), the line and middle rows split in the attacker's left, centre and right (west to
    east), each zone an area named as the engine names it (rules/nie/model.py `Zone.name`: A-rout, A-reserve, A-left,
    M-centre, B-right...), four anchors in the corners of its margin. data/battle_board_demo.toml is this board
    written out (`board_to_toml`); a printed battle board is a board file of that form with these zone ids."""
    w, d = zone_mm
    cols = len(COLS)
    width, depth = cols * w + 2 * margin_mm, len(ROWS) * d + 2 * margin_mm
    areas = {}
    for z in zones(True):
        y0 = margin_mm + z.row * d
        x0, x1 = (margin_mm, margin_mm + cols * w) if z.col is None else (margin_mm + z.col * w,
                                                                           margin_mm + (z.col + 1) * w)
        name = z.name(True)
        areas[name] = Area(name, name, np.array([[x0, y0], [x1, y0], [x1, y0 + d], [x0, y0 + d]], float),
                           attributes=(("kind", "zone"),))
    ids = list(areas)
    pairs = [(a, b) for k, a in enumerate(ids) for b in ids[k + 1:]
             if shared_border_mm(np.asarray(areas[a].polygon), np.asarray(areas[b].polygon), BORDER_MM) > 0]
    m = margin_mm / 2
    corners = ((m, m), (width - m, m), (width - m, depth - m), (m, depth - m))
    anchors = tuple(BoardAnchor(a, x, y, 25.0) for a, (x, y) in zip(BATTLE_ANCHOR_IDS, corners, strict=True))
    return Board("battle board of a major battle (INVENTED geometry, §3.3 zones)", width, depth, DICTIONARY, anchors,
                 areas, {}, connections=tuple(Connection(a, b, "land") for a, b in pairs), border_mm=BORDER_MM,
                 source="battle board (zones)")


def skirmish_zone(area: str) -> str:
    """The skirmish zone (§3.3: "the three combat zones of this set-up count as one") a zone of the major battle's
    board lies in: each line row's and the middle row's three zones read as one (A-left, A-centre, A-right ->
    A-line; M-* -> M; B-* -> B-line); the reserve and rout zones keep their names. The same printed board serves
    both kinds of battle."""
    head, _, flank = area.partition("-")
    if flank in COLS:
        return {"A": "A-line", "M": "M", "B": "B-line"}.get(head, area)
    return area


def convex_hull(pts) -> np.ndarray:
    """The convex hull of points (board mm), counter-clockwise (Andrew's monotone chain): the outline of a
    skirmish's merged row, whose three zones lie side by side in a band."""
    p = sorted({(float(x), float(y)) for x, y in np.asarray(pts, float).reshape(-1, 2)})
    if len(p) < 3:
        return np.asarray(p, float).reshape(-1, 2)

    def half(seq):
        out: list[tuple[float, float]] = []
        for q in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (q[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (q[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(q)
        return out

    lower, upper = half(p), half(reversed(p))
    return np.asarray(lower[:-1] + upper[:-1], float)


def battle_zones(board: Board, major: bool) -> dict[str, np.ndarray]:
    """Each zone of a battle on the battle board with its outline (board mm): a major battle's are the board's
    areas; a skirmish's merge each row's zones (`skirmish_zone`, the outline their convex hull)."""
    if major:
        return {aid: np.asarray(a.polygon, float) for aid, a in board.areas.items()}
    rows: dict[str, list] = {}
    for aid, a in board.areas.items():
        rows.setdefault(skirmish_zone(aid), []).extend(np.asarray(a.polygon, float).tolist())
    return {zid: convex_hull(pts) for zid, pts in rows.items()}


@lru_cache(maxsize=1)
def battle_board() -> Board:
    """The shipped demo battle board (data/battle_board_demo.toml, INVENTED geometry: the zones of §3.3)."""
    path = resources.files("rules.nie").joinpath("data", BATTLE_FILE)
    return load_board(str(path))


__all__ = ["BATTLE_ANCHOR_IDS", "FRAME_MM", "battle_board", "battle_board_from_zones", "battle_zones", "convex_hull",
           "demo_board", "digitised_board", "europe_board", "links", "map_attributes", "map_point", "skirmish_zone",
           "voronoi_cells"]
