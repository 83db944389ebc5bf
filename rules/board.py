"""Printed boards: areas as polygons in board millimetres, their positions, approaches, roads and connections.

A board definition file (TOML) describes a printed map of areas (Triomphe à Marengo, and the strategic maps of
Napoleon in Europe and Coalitions)::

    [board]
    name = "Demo"
    width_mm = 720
    depth_mm = 400
    approach_depth_mm = 30      # how far into an area an approach position reaches from its border
    border_mm = 4               # a marker point this close to an area's outline is "on the border": flagged
    [markers]
    dictionary = "DICT_4X4_250"
    [[anchor]]                  # stickers printed or glued on the board: centre in board mm, top edge's bearing
    id = 100
    x_mm = 20
    y_mm = 20
    size_mm = 30
    heading_deg = 0
    [[area]]
    id = "3"
    name = "Spinetta"
    polygon = [[240, 0], [360, 0], [360, 200], [240, 200]]
    capacity = 4                # optional; none = unlimited
    start_positions = 1         # French start-position symbols (Marengo §9.1)
    beyond_objective = false    # east of the objective line (Marengo §9.2)
    kind = "region"             # any other key is a free attribute of the area (Area.attributes): text, number,
    port = ["channel"]          # true/false or a list of them; a game system reads the ones it knows
    [[border]]                  # one approach on each side of a shared border (Marengo §3.2)
    areas = ["3", "5"]
    width = "narrow"            # or "wide"
    side = {"5" = {inf_penalty = 1, cav_obstacle = true}}   # attributes of one side's approach
    [[road]]
    id = "main-south"
    class = "main"              # or "secondary"
    areas = ["ALESSANDRIA", "1", "2", "3"]   # box ids may start or end a road
    [[arrow]]                   # east-west arrow (Marengo §3.3, §11.10): a directed border
    from = "3"
    to = "5"
    [[box]]
    id = "ALESSANDRIA"
    side = "AU"
    round = 1
    entry_area = "1"
    [pontoon]
    area = "1"
    [[connection]]              # strategic maps: links between two areas, drawn border or not
    areas = ["X", "Y"]
    kind = "sea"                # land, sea, strait (a sea link with a strait's flag) or closed (a drawn border
                                # that is no link: the two areas are not adjacent)

A strategic map (no approaches) links its areas by shared borders and connections: every shared border needs a
connection (the board editor's "Link borders" adds one on each), `bordering_pairs` lists the shared borders and
`links` the pairs that are linked (shared borders not closed, and every other connection).

Geometry is pure numpy: point in polygon by ray casting, distances to outlines, shared borders by sampling.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from common.dice_tray import parse_tray, tray_toml
from common.errors import InputError
from common.files import MAX_MM, number, read_toml
from common.files import toml_string as _q  # short: the board writer quotes on every line

WIDTHS = ("narrow", "wide")
ROAD_CLASSES = ("main", "secondary")
CONNECTION_KINDS = ("land", "sea", "strait", "closed")
"""`strait`: a sea link marked as a strait; `closed`: two areas share a drawn border but are not linked."""
AREA_KEYS = ("id", "name", "polygon", "capacity", "start_positions", "beyond_objective")
"""An [[area]]'s own keys; every other key is a free attribute (`Area.attributes`)."""
APPROACH_FLAGS = ("art_penalty", "cav_obstacle", "impassable")
APPROACH_COUNTS = ("inf_penalty", "cav_penalty")
MIN_SHARED_MM = 5.0
"""Two areas whose outlines run together for less than this only touch at a corner: not adjacent (§3.2)."""


# ---------------------------------------------------------------- geometry


def points_in_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """(N,) bool: each point strictly inside the closed polygon (ray casting; a point on the outline is either)."""
    pts = np.asarray(points, float).reshape(-1, 2)
    poly = np.asarray(polygon, float).reshape(-1, 2)
    x, y = pts[:, 0:1], pts[:, 1:2]
    x0, y0 = poly[:, 0], poly[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    crosses = (y0 > y) != (y1 > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
    return np.count_nonzero(crosses & (x < xs), axis=1) % 2 == 1


def distance_to_outline(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """(N,) distance in mm from each point to the closed polygon's outline."""
    pts = np.asarray(points, float).reshape(-1, 1, 2)
    a = np.asarray(polygon, float).reshape(1, -1, 2)
    b = np.roll(a, -1, axis=1)
    ab = b - a
    denom = np.maximum((ab**2).sum(-1), 1e-12)
    t = np.clip(((pts - a) * ab).sum(-1) / denom, 0.0, 1.0)
    closest = a + t[..., None] * ab
    return np.sqrt(((pts - closest) ** 2).sum(-1)).min(axis=1)


def polygon_area(polygon: np.ndarray) -> float:
    p = np.asarray(polygon, float)
    return 0.5 * float(abs(np.dot(p[:, 0], np.roll(p[:, 1], -1)) - np.dot(p[:, 1], np.roll(p[:, 0], -1))))


def _outline_samples(polygon: np.ndarray, step_mm: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Points along the outline and the outline length each stands for."""
    poly = np.asarray(polygon, float)
    pts, weights = [], []
    for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        length = float(np.linalg.norm(b - a))
        n = max(1, int(math.ceil(length / step_mm)))
        t = (np.arange(n) + 0.5) / n
        pts.append(a + t[:, None] * (b - a))
        weights.append(np.full(n, length / n))
    return np.concatenate(pts), np.concatenate(weights)


def shared_border_mm(a: np.ndarray, b: np.ndarray, tolerance_mm: float) -> float:
    """How long the outlines of two polygons run together (within `tolerance_mm`)."""
    pts, w = _outline_samples(a)
    return float(w[distance_to_outline(pts, b) <= tolerance_mm].sum())


def overlap_point(a: np.ndarray, b: np.ndarray, tolerance_mm: float, step_mm: float = 5.0) -> np.ndarray | None:
    """A point well inside both polygons (beyond `tolerance_mm` from both outlines), or None."""
    lo = np.maximum(a.min(0), b.min(0))
    hi = np.minimum(a.max(0), b.max(0))
    if np.any(hi - lo <= 2 * tolerance_mm):
        return None
    step_mm = min(step_mm, float((hi - lo).min()) / 8.0)
    xs = np.arange(lo[0] + step_mm / 2, hi[0], step_mm)
    ys = np.arange(lo[1] + step_mm / 2, hi[1], step_mm)
    grid = np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2)
    grid = np.concatenate([grid, a, b, [a.mean(0)], [b.mean(0)]])
    inside = points_in_polygon(grid, a) & points_in_polygon(grid, b)
    cand = grid[inside]
    if len(cand) == 0:
        return None
    ok = (distance_to_outline(cand, a) > tolerance_mm) & (distance_to_outline(cand, b) > tolerance_mm)
    return cand[ok][0] if ok.any() else None


# ---------------------------------------------------------------- the model


@dataclass(frozen=True)
class BoardAnchor:
    """A marker on the board: centre in board mm, side of the black square, bearing of its top edge."""

    id: int
    x_mm: float
    y_mm: float
    size_mm: float
    heading_deg: float = 0.0


@dataclass(frozen=True)
class Approach:
    """One area's approach position on one of its borders (§3.2); `opposite` is the neighbour's approach id."""

    id: str
    area: str
    to: str
    width: str = "narrow"
    inf_penalty: int = 0
    cav_penalty: int = 0
    art_penalty: bool = False
    cav_obstacle: bool = False
    impassable: bool = False

    @property
    def opposite(self) -> str:
        return approach_id(self.to, self.area)

    @property
    def full_at(self) -> int:
        """Blocks needed to block it fully: narrow 1, wide 2 (§3.2)."""
        return 1 if self.width == "narrow" else 2


@dataclass(frozen=True)
class Area:
    """An area of the board: its outline in board mm and its free `attributes` ((key, value) pairs sorted by key,
    values as TOML gives them: text, number, true/false, lists)."""

    id: str
    name: str
    polygon: np.ndarray = field(compare=False, repr=False)
    capacity: int | None = None
    start_positions: int = 0
    beyond_objective: bool = False
    attributes: tuple[tuple[str, Any], ...] = ()

    def attribute(self, key: str, default: Any = None) -> Any:
        return dict(self.attributes).get(key, default)

    @property
    def centre(self) -> tuple[float, float]:
        c = np.asarray(self.polygon, float).mean(0)
        return float(c[0]), float(c[1])


@dataclass(frozen=True)
class Road:
    id: str
    road_class: str
    areas: tuple[str, ...]

    def crossings(self) -> list[tuple[str, str]]:
        """The (from, to) steps along the road, in its drawn order."""
        return list(zip(self.areas, self.areas[1:], strict=False))


@dataclass(frozen=True)
class Box:
    """An off-map box: start or reinforcement (§5.6); `round` is the first round its blocks may enter."""

    id: str
    side: str
    round: int
    entry_area: str


@dataclass(frozen=True)
class Connection:
    """A strategic link between two areas that need not share a border: land, sea or strait; or `closed`, a shared
    border that links nothing (CONNECTION_KINDS)."""

    a: str
    b: str
    kind: str


@dataclass(frozen=True)
class Placement:
    """Where a point on the board lies: area (None off every area), position ("reserve" or an approach id).

    `on_border` is True when the point lies within the board's border tolerance of its area's outline, or between
    two approach positions: the position is then not guessed (`position` is None) and the user is asked.
    """

    area: str | None
    position: str | None
    on_border: bool = False
    note: str = ""
    surface: str = ""
    """Which surface of the table the point lies on, when the system has more than one (rules/live.py
    `LiveRules.surfaces`: the main one first); "" on a system's one board or off every surface."""


@dataclass(frozen=True)
class Board:
    name: str
    width_mm: float
    depth_mm: float
    dictionary: str
    anchors: tuple[BoardAnchor, ...]
    areas: dict[str, Area]
    approaches: dict[str, Approach]
    roads: tuple[Road, ...] = ()
    arrows: frozenset[tuple[str, str]] = frozenset()
    boxes: dict[str, Box] = field(default_factory=dict)
    pontoon_area: str | None = None
    connections: tuple[Connection, ...] = ()
    approach_depth_mm: float = 30.0
    border_mm: float = 4.0
    source: str = "board"
    dice_tray_mm: tuple[tuple[float, float], ...] | None = None
    """Where dice are thrown beside (or on) the board, board mm (`[dice_tray] polygon_mm`); None: anywhere off the
    pieces."""

    # ---- graph

    def area(self, area_id: str) -> Area:
        try:
            return self.areas[area_id]
        except KeyError:
            raise InputError(f"{self.source}: no area {area_id!r} on the board") from None

    def approach(self, area: str, to: str) -> Approach | None:
        return self.approaches.get(approach_id(area, to))

    def neighbours(self, area: str) -> list[str]:
        """Areas adjacent through an approach pair (§3.2), in id order."""
        return sorted(a.to for a in self.approaches.values() if a.area == area)

    def adjacent(self, a: str, b: str) -> bool:
        return approach_id(a, b) in self.approaches

    def connected(self, a: str, b: str) -> list[str]:
        """Every way two areas connect: "approach" (a shared border) and strategic "land"/"sea"/"strait" links (a
        `closed` border is none)."""
        out = ["approach"] if self.adjacent(a, b) else []
        out += [c.kind for c in self.connections if {c.a, c.b} == {a, b} and c.kind != "closed"]
        return out

    def roads_between(self, a: str, b: str) -> list[Road]:
        """Roads with a crossing between a and b (either direction)."""
        return [r for r in self.roads if (a, b) in r.crossings() or (b, a) in r.crossings()]

    def road_graph(self) -> dict[str, list[tuple[str, Road]]]:
        """area/box -> [(next area, road)] both ways along every road."""
        out: dict[str, list[tuple[str, Road]]] = {}
        for r in self.roads:
            for x, y in r.crossings():
                out.setdefault(x, []).append((y, r))
                out.setdefault(y, []).append((x, r))
        return out

    def box_of_entry(self, area: str) -> list[Box]:
        return [b for b in self.boxes.values() if b.entry_area == area]

    # ---- piece to area

    def locate(self, x_mm: float, y_mm: float) -> Placement:
        """The area and position of a marker point in board mm; on a border or between approaches: flagged."""
        p = np.array([[x_mm, y_mm]], float)
        b = self.border_mm
        # only the areas whose bounding box (grown by the border) holds the point: a board of many areas stays fast
        cand = [a for a in self.areas.values() if np.all(np.asarray(a.polygon).min(0) - b <= p[0])
                and np.all(p[0] <= np.asarray(a.polygon).max(0) + b)]
        hits = [a for a in cand if points_in_polygon(p, a.polygon)[0]]
        near = [a for a in cand if distance_to_outline(p, a.polygon)[0] <= b]
        if not hits:
            if near:
                return Placement(near[0].id, None, True, f"on the outline of area {near[0].id}")
            return Placement(None, None, False, "outside every area")
        area = hits[0]
        d_own = distance_to_outline(p, area.polygon)[0]
        if d_own <= self.border_mm:
            others = sorted(a.id for a in near if a.id != area.id)
            what = f"on the border of areas {area.id} and {', '.join(others)}" if others else (
                f"on the outline of area {area.id}")
            return Placement(area.id, None, True, what)
        close = []
        for ap in self.approaches.values():
            if ap.area != area.id:
                continue
            d = distance_to_outline(p, self.areas[ap.to].polygon)[0]
            if d <= self.approach_depth_mm:
                close.append((d, ap.id))
        if not close:
            return Placement(area.id, "reserve")
        close.sort()
        if len(close) > 1 and close[1][0] - close[0][0] < self.border_mm:
            return Placement(area.id, None, True, f"between approaches {close[0][1]} and {close[1][1]}")
        return Placement(area.id, close[0][1])

    def approach_segment(self, ap: Approach, samples_mm: float = 1.0) -> np.ndarray:
        """The part of `ap.area`'s outline shared with `ap.to`, as outline sample points (K, 2)."""
        pts, _ = _outline_samples(self.areas[ap.area].polygon, samples_mm)
        d = distance_to_outline(pts, self.areas[ap.to].polygon)
        return pts[d <= self.border_mm]

    def approach_point(self, ap: Approach) -> tuple[float, float]:
        """A point inside the approach position: the shared border's middle moved half the depth inward."""
        seg = self.approach_segment(ap)
        mid = seg.mean(0) if len(seg) else np.asarray(self.areas[ap.area].centre)
        c = np.asarray(self.areas[ap.area].centre)
        v = c - mid
        n = float(np.linalg.norm(v)) or 1.0
        pt = mid + v / n * min(self.approach_depth_mm / 2.0, n / 2.0)
        return float(pt[0]), float(pt[1])

    def standing_point(self, area: str, position: str) -> tuple[float, float]:
        """Where a piece stands, board mm, to be located in `area` at `position`: the area's centre (its reserve)
        or, for an approach (`position` names the neighbour area), a point inside the area just behind the middle
        of that approach's border."""
        if position == "reserve":
            return self.areas[area].centre
        seg = self.approach_segment(self.approach(area, position))
        mid, c = seg.mean(0), np.asarray(self.areas[area].centre, float)
        v = c - mid
        pt = mid + v / (np.linalg.norm(v) or 1.0) * min(self.approach_depth_mm * 0.6, np.linalg.norm(v) / 2)
        return float(pt[0]), float(pt[1])


def approach_id(area: str, to: str) -> str:
    """`"3>5"`: area 3's approach facing area 5."""
    return f"{area}>{to}"


# ---------------------------------------------------------------- parsing


# The largest length or angle a board file may give (mm or degrees): a typo beyond it, or a NaN, is one line here
# instead of a drawing or a grid of samples that runs out of memory.
MAX_BOARD_MM = MAX_MM
MAX_POLYGON_POINTS = 10_000
_ANCHOR_KEYS = ("id", "x_mm", "y_mm", "size_mm", "heading_deg")
_LISTS = ("anchor", "area", "border", "approach", "box", "road", "arrow", "connection")


def _num(table: dict, key: str, where: str, default=None, positive=False) -> float:
    return number(table, key, where, positive=positive, default=default, limit=MAX_BOARD_MM)


def _int(table: dict, key: str, where: str, default=None, minimum=0):
    v = table.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise InputError(f"{where}: {key!r} must be a whole number >= {minimum}, not {v!r}")
    return v


def _polygon(raw: Any, where: str) -> np.ndarray:
    try:
        poly = np.asarray(raw, float)
    except (TypeError, ValueError):
        poly = None
    if poly is None or poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
        raise InputError(f"{where}: 'polygon' must be a list of at least 3 [x, y] points in board mm")
    if not np.all(np.isfinite(poly)) or np.any(np.abs(poly) > MAX_BOARD_MM) or len(poly) > MAX_POLYGON_POINTS:
        raise InputError(f"{where}: 'polygon' must be at most {MAX_POLYGON_POINTS} finite points within "
                         f"{MAX_BOARD_MM:g} mm")
    if polygon_area(poly) < 1.0:
        raise InputError(f"{where}: the polygon has no area")
    return poly


def _approach_attrs(raw: dict, where: str) -> dict:
    out = {}
    if not isinstance(raw, dict):
        raise InputError(f"{where}: approach attributes must be a table")
    for k, v in raw.items():
        if k in APPROACH_FLAGS:
            if not isinstance(v, bool):
                raise InputError(f"{where}: {k} must be true or false, not {v!r}")
            out[k] = v
        elif k in APPROACH_COUNTS:
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise InputError(f"{where}: {k} must be a count >= 0, not {v!r}")
            out[k] = v
        elif k == "width":
            if v not in WIDTHS:
                raise InputError(f"{where}: width must be narrow or wide, not {v!r}")
            out[k] = v
        elif k not in ("area", "to", "areas", "side"):
            raise InputError(f"{where}: unknown approach attribute {k!r}")
    return out


def _parse_anchors(data: dict, source: str) -> tuple[BoardAnchor, ...]:
    anchors = []
    for i, a in enumerate(data.get("anchor", []), 1):
        w = f"{source} anchor {i}"
        if not isinstance(a, dict) or isinstance(a.get("id"), bool) or not isinstance(a.get("id"), int) or a["id"] < 0:
            raise InputError(f"{w}: needs an integer 'id' >= 0")
        unknown = [k for k in a if k not in _ANCHOR_KEYS]
        if unknown:
            later = " (an anchor's height is not supported yet: anchors lie flat)" if unknown[0] == "z_mm" else ""
            raise InputError(f"{w}: unknown key {unknown[0]!r}{later}")
        anchors.append(BoardAnchor(a["id"], _num(a, "x_mm", w), _num(a, "y_mm", w),
                                   _num(a, "size_mm", w, positive=True), _num(a, "heading_deg", w, default=0.0)))
    ids = [a.id for a in anchors]
    if len(set(ids)) != len(ids):
        raise InputError(f"{source}: anchor ids {sorted({i for i in ids if ids.count(i) > 1})} listed twice")
    return tuple(anchors)


def _parse_areas(data: dict, source: str) -> dict[str, Area]:
    areas: dict[str, Area] = {}
    for i, a in enumerate(data.get("area", []), 1):
        if not isinstance(a, dict) or not isinstance(a.get("id"), str) or not a["id"]:
            raise InputError(f"{source} area {i}: needs a text 'id'")
        w = f"{source} area {a['id']}"
        if a["id"] in areas:
            raise InputError(f"{w}: listed twice")
        extra = tuple(sorted((k, _attribute(v, f"{w}: {k}")) for k, v in a.items() if k not in AREA_KEYS))
        bo = a.get("beyond_objective", False)
        if not isinstance(bo, bool):
            raise InputError(f"{w}: beyond_objective must be true or false")
        areas[a["id"]] = Area(a["id"], str(a.get("name", a["id"])), _polygon(a.get("polygon"), w),
                              _int(a, "capacity", w, None, 1), _int(a, "start_positions", w, 0), bo, extra)
    if not areas:
        raise InputError(f"{source}: the board has no [[area]]")
    return areas


def _add_approach(approaches: dict[str, Approach], areas: dict[str, Area], area: str, to: str, attrs: dict,
                  w: str) -> None:
    for x in (area, to):
        if x not in areas:
            raise InputError(f"{w}: unknown area {x!r}")
    if area == to:
        raise InputError(f"{w}: an approach must face another area")
    aid = approach_id(area, to)
    if aid in approaches:
        raise InputError(f"{w}: approach {aid} defined twice")
    approaches[aid] = Approach(aid, area, to, **attrs)


def _parse_approaches(data: dict, source: str, areas: dict[str, Area]) -> dict[str, Approach]:
    """The approaches of every [[border]] (one on each side, Marengo §3.2), then each single [[approach]]."""
    approaches: dict[str, Approach] = {}
    for i, br in enumerate(data.get("border", []), 1):
        w = f"{source} border {i}"
        pair = br.get("areas") if isinstance(br, dict) else None
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise InputError(f"{w}: needs areas = [\"A\", \"B\"]")
        w = f"{source} border {pair[0]}|{pair[1]}"
        common = _approach_attrs(br, w)
        sides = br.get("side", {})
        if not isinstance(sides, dict) or any(k not in pair for k in sides):
            raise InputError(f"{w}: 'side' may only name the areas {pair[0]} and {pair[1]}")
        for me, other in (pair, pair[::-1]):
            attrs = dict(common)
            attrs.update(_approach_attrs(sides.get(me, {}), f"{w} side {me}"))
            _add_approach(approaches, areas, me, other, attrs, w)
    for i, ap in enumerate(data.get("approach", []), 1):
        if not isinstance(ap, dict) or not isinstance(ap.get("area"), str) or not isinstance(ap.get("to"), str):
            raise InputError(f"{source} approach {i}: needs 'area' and 'to'")
        w = f"{source} approach {ap['area']}>{ap['to']}"
        _add_approach(approaches, areas, ap["area"], ap["to"], _approach_attrs(ap, w), w)
    return approaches


def _parse_boxes(data: dict, source: str, areas: dict[str, Area]) -> dict[str, Box]:
    boxes: dict[str, Box] = {}
    for i, bx in enumerate(data.get("box", []), 1):
        w = f"{source} box {i}"
        if not isinstance(bx, dict) or not isinstance(bx.get("id"), str):
            raise InputError(f"{w}: needs a text 'id'")
        w = f"{source} box {bx['id']}"
        if bx["id"] in areas or bx["id"] in boxes:
            raise InputError(f"{w}: id already used by an area or box")
        if bx.get("entry_area") not in areas:
            raise InputError(f"{w}: entry_area {bx.get('entry_area')!r} is not an area")
        boxes[bx["id"]] = Box(bx["id"], str(bx.get("side", "")), _int(bx, "round", w, 1, 1), bx["entry_area"])
    return boxes


def _parse_roads(data: dict, source: str, areas: dict[str, Area], boxes: dict[str, Box]) -> tuple[Road, ...]:
    roads = []
    for i, r in enumerate(data.get("road", []), 1):
        rid = r.get("id", f"road-{i}") if isinstance(r, dict) else f"road-{i}"
        w = f"{source} road {rid}"
        if not isinstance(r, dict):
            raise InputError(f"{w}: a road is a table with its 'areas', not {r!r}")
        cls = r.get("class", "main")
        if cls not in ROAD_CLASSES:
            raise InputError(f"{w}: class must be main or secondary, not {cls!r}")
        seq = r.get("areas")
        if not (isinstance(seq, list) and len(seq) >= 2 and all(isinstance(x, str) for x in seq)):
            raise InputError(f"{w}: 'areas' must list at least 2 areas in road order")
        for x in seq:
            if x not in areas and x not in boxes:
                raise InputError(f"{w}: unknown area {x!r}")
        roads.append(Road(str(rid), cls, tuple(seq)))
    return tuple(roads)


def _parse_arrows(data: dict, source: str, areas: dict[str, Area]) -> frozenset[tuple[str, str]]:
    arrows = set()
    for i, ar in enumerate(data.get("arrow", []), 1):
        w = f"{source} arrow {i}"
        if not isinstance(ar, dict) or not all(isinstance(ar.get(k), str) and ar[k] in areas for k in ("from", "to")):
            raise InputError(f"{w}: 'from' and 'to' must be areas")
        arrows.add((ar["from"], ar["to"]))
    return frozenset(arrows)


def _parse_connections(data: dict, source: str, areas: dict[str, Area]) -> tuple[Connection, ...]:
    conns = []
    for i, c in enumerate(data.get("connection", []), 1):
        w = f"{source} connection {i}"
        pair = c.get("areas") if isinstance(c, dict) else None
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) and x in areas for x in pair)):
            raise InputError(f"{w}: areas must name 2 areas")
        kind = c.get("kind", "land")
        if kind not in CONNECTION_KINDS:
            raise InputError(f"{w}: kind must be one of {', '.join(CONNECTION_KINDS)}, not {kind!r}")
        conns.append(Connection(pair[0], pair[1], kind))
    return tuple(conns)


def parse_board(data: dict, source: str = "board", validate: bool = True) -> Board:
    """A Board from parsed TOML; every error is one line naming `source` and the area, approach or road."""
    try:
        return _parse_board(data, source, validate)
    except InputError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # a value of a kind no check above expected
        raise InputError(f"{source}: not a valid board file ({str(exc)[:120]})") from None


def _parse_board(data: dict, source: str, validate: bool) -> Board:
    if not isinstance(data, dict) or not isinstance(data.get("board"), dict):
        raise InputError(f"{source}: missing [board] with width_mm and depth_mm")
    b = data["board"]
    where = f"{source} [board]"
    for key in _LISTS:
        if not isinstance(data.get(key, []), list):
            raise InputError(f"{source}: {key} must be [[{key}]] tables, not {data[key]!r}")
    for key in ("markers", "pontoon", "dice_tray"):
        if not isinstance(data.get(key, {}), dict):
            raise InputError(f"{source}: [{key}] must be a table of keys, not {data[key]!r}")
    width, depth = _num(b, "width_mm", where, positive=True), _num(b, "depth_mm", where, positive=True)
    dictionary = data.get("markers", {}).get("dictionary", "DICT_4X4_250")
    if not isinstance(dictionary, str) or not dictionary.startswith("DICT_"):
        raise InputError(f"{source} [markers]: unknown marker dictionary {dictionary!r}")
    anchors = _parse_anchors(data, source)
    areas = _parse_areas(data, source)
    approaches = _parse_approaches(data, source, areas)
    boxes = _parse_boxes(data, source, areas)
    roads = _parse_roads(data, source, areas, boxes)
    arrows = _parse_arrows(data, source, areas)
    conns = _parse_connections(data, source, areas)
    pontoon = data.get("pontoon", {}).get("area")
    if pontoon is not None and not (isinstance(pontoon, str) and pontoon in areas):
        raise InputError(f"{source} [pontoon]: area {pontoon!r} is not an area")
    board = Board(
        str(b.get("name", "board")), width, depth, dictionary, anchors, areas, approaches, roads,
        arrows, boxes, pontoon, conns,
        _num(b, "approach_depth_mm", where, 30.0, positive=True), _num(b, "border_mm", where, 4.0, positive=True),
        source, _dice_tray(data.get("dice_tray"), f"{source} [dice_tray]", width, depth),
    )
    if validate:
        problems = validate_board(board)
        if problems:
            raise InputError(f"{source}: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1
                                                           else ""))
    return board


def _dice_tray(t: dict | None, where: str, width: float, depth: float) -> tuple[tuple[float, float], ...] | None:
    """The dice tray's polygon, board mm: at least 3 corners, beside the board (within its own size of it) or on
    it (common.dice_tray checks the rest, as for a table layout's tray)."""
    if t is None:
        return None

    def far_off(x: float, y: float) -> str | None:
        if -width <= x <= 2 * width and -depth <= y <= 2 * depth:
            return None
        return (f"corner [{x:g}, {y:g}] is far off the {width:g} x {depth:g} mm board (a tray lies on it or beside "
                "it, within the board's own size)")

    return parse_tray(t.get("polygon_mm"), where, "board",
                      "[[-200, 0], [-20, 0], [-20, 150], [-200, 150]] (beside the board's left edge)", far_off)


def _off_board(board: Board, polys: dict[str, np.ndarray]) -> list[str]:
    tol = board.border_mm
    problems = []
    for i, p in polys.items():
        if np.any(p[:, 0] < -tol) or np.any(p[:, 1] < -tol) or np.any(p[:, 0] > board.width_mm + tol) or np.any(
                p[:, 1] > board.depth_mm + tol):
            problems.append(f"area {i} reaches off the {board.width_mm:g} x {board.depth_mm:g} mm board")
    return problems


def _overlaps_and_borders(board: Board, polys: dict[str, np.ndarray]) -> tuple[list[str], set[tuple[str, str]]]:
    """(overlapping pairs of areas, the pairs (a < b) that share a border)."""
    ids = list(polys)
    tol = board.border_mm
    problems = []
    shared: set[tuple[str, str]] = set()
    for n, a in enumerate(ids):
        for b in ids[n + 1 :]:
            pa, pb = polys[a], polys[b]
            if np.any(pa.max(0) < pb.min(0) - tol) or np.any(pb.max(0) < pa.min(0) - tol):
                continue
            pt = overlap_point(pa, pb, tol)
            if pt is not None:
                problems.append(f"areas {a} and {b} overlap (both contain {pt[0]:.0f},{pt[1]:.0f} mm)")
                continue
            if shared_border_mm(pa, pb, tol) >= max(MIN_SHARED_MM, 3 * tol):  # a corner runs together for ~2 tol
                shared.add((a, b))
    return problems, shared


def _approach_problems(board: Board, shared: set[tuple[str, str]]) -> list[str]:
    """Borders without approaches, approaches without an opposite or without a border. Two areas both `apart`
    (track spaces, a display's zones: nothing moves between them) need no approach where they touch."""
    problems = []
    for a, b in sorted(shared):
        if board.areas[a].attribute("apart") and board.areas[b].attribute("apart"):
            continue
        have = (approach_id(a, b) in board.approaches, approach_id(b, a) in board.approaches)
        if not any(have) and not any({c.a, c.b} == {a, b} for c in board.connections):
            problems.append(f"areas {a} and {b} share a border but have no approaches")
    for ap in board.approaches.values():
        if ap.opposite not in board.approaches:
            problems.append(f"approach {ap.id} has no opposite approach {ap.opposite}")
        key = tuple(sorted((ap.area, ap.to)))
        if key not in shared:
            problems.append(f"approach {ap.id}: areas {ap.area} and {ap.to} share no border (a corner is not one)")
    return problems


def _arrow_and_road_problems(board: Board) -> list[str]:
    problems = []
    for f, t in sorted(board.arrows):
        if not board.adjacent(f, t):
            problems.append(f"arrow {f}->{t} is not on a border with approaches")
    for r in board.roads:
        for x, y in r.crossings():
            if x in board.boxes or y in board.boxes:
                continue
            if not board.adjacent(x, y):
                problems.append(f"road {r.id} jumps from {x} to {y}, which are not adjacent")
    return problems


def _unreachable(board: Board, ids: list[str]) -> list[str]:
    """The areas that cannot be reached from the first one through approaches and connections (a closed border is
    no link)."""
    if not ids:
        return []
    graph: dict[str, set[str]] = {i: set() for i in ids}
    for ap in board.approaches.values():
        graph.setdefault(ap.area, set()).add(ap.to)
    for c in board.connections:
        if c.kind != "closed":
            graph.setdefault(c.a, set()).add(c.b)
            graph.setdefault(c.b, set()).add(c.a)
    seen = {ids[0]}
    todo = deque([ids[0]])
    while todo:
        for nb in graph.get(todo.popleft(), ()):
            if nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return [i for i in ids if i not in seen]


def validate_board(board: Board) -> list[str]:
    """Every problem of a board, one line each: overlaps, unpaired approaches, borders without approaches,
    approaches without a border, arrows off a border, roads that jump, unreachable areas (an area whose attribute
    `apart` is true, e.g. a track space or a display's zone beside the map, need not be reached)."""
    ids = sorted(board.areas)
    polys = {i: np.asarray(board.areas[i].polygon, float) for i in ids}
    problems = _off_board(board, polys)
    overlaps, shared = _overlaps_and_borders(board, polys)
    problems += overlaps
    problems += _approach_problems(board, shared)
    problems += _arrow_and_road_problems(board)
    lost = _unreachable(board, [i for i in ids if not board.areas[i].attribute("apart")])
    if lost:
        problems.append(f"area(s) {', '.join(lost)} cannot be reached from area {ids[0]}")
    return problems


def bordering_pairs(board: Board) -> set[tuple[str, str]]:
    """The pairs of areas (a < b) whose outlines run together along a border (not just a corner), as validation
    sees them."""
    polys = {i: np.asarray(board.areas[i].polygon, float) for i in sorted(board.areas)}
    return _overlaps_and_borders(board, polys)[1]


def links(board: Board) -> dict[tuple[str, str], tuple[str, ...]]:
    """Every linked pair of areas (a < b) of a strategic map and how: "border" for a shared border that no `closed`
    connection shuts, and each connection's kind (land, sea, strait); closed borders are left out."""
    closed = {tuple(sorted((c.a, c.b))) for c in board.connections if c.kind == "closed"}
    out: dict[tuple[str, str], list[str]] = {}
    for pair in bordering_pairs(board):
        if pair not in closed:
            out.setdefault(pair, []).append("border")
    for c in board.connections:
        pair = tuple(sorted((c.a, c.b)))
        if c.kind != "closed" and c.kind not in out.get(pair, []):
            out.setdefault(pair, []).append(c.kind)
    return {k: tuple(v) for k, v in sorted(out.items())}


def load_board(path: str | Path, validate: bool = True) -> Board:
    path = Path(path)
    return parse_board(read_toml(path, "board file"), str(path), validate)


def board_to_toml(board: Board) -> str:
    """The board as TOML (one [[approach]] per side) that `load_board` reads back."""
    out = ["[board]", f"name = {_q(board.name)}", f"width_mm = {board.width_mm:g}", f"depth_mm = {board.depth_mm:g}",
           f"approach_depth_mm = {board.approach_depth_mm:g}", f"border_mm = {board.border_mm:g}", "",
           "[markers]", f"dictionary = {_q(board.dictionary)}"]
    for a in board.anchors:
        out += ["", "[[anchor]]", f"id = {a.id}", f"x_mm = {a.x_mm:g}", f"y_mm = {a.y_mm:g}",
                f"size_mm = {a.size_mm:g}", f"heading_deg = {a.heading_deg:g}"]
    for ar in board.areas.values():
        pts = ", ".join(f"[{x:g}, {y:g}]" for x, y in np.asarray(ar.polygon, float))
        out += ["", "[[area]]", f"id = {_q(ar.id)}", f"name = {_q(ar.name)}", f"polygon = [{pts}]"]
        if ar.capacity is not None:
            out.append(f"capacity = {ar.capacity}")
        if ar.start_positions:
            out.append(f"start_positions = {ar.start_positions}")
        if ar.beyond_objective:
            out.append("beyond_objective = true")
        out += [f"{_key(k)} = {toml_value(v)}" for k, v in ar.attributes]
    for ap in board.approaches.values():
        out += ["", "[[approach]]", f"area = {_q(ap.area)}", f"to = {_q(ap.to)}", f"width = {_q(ap.width)}"]
        out += [f"{k} = {getattr(ap, k)}" for k in APPROACH_COUNTS if getattr(ap, k)]
        out += [f"{k} = true" for k in APPROACH_FLAGS if getattr(ap, k)]
    for r in board.roads:
        out += ["", "[[road]]", f"id = {_q(r.id)}", f"class = {_q(r.road_class)}",
                "areas = [" + ", ".join(_q(x) for x in r.areas) + "]"]
    for f, t in sorted(board.arrows):
        out += ["", "[[arrow]]", f"from = {_q(f)}", f"to = {_q(t)}"]
    for bx in board.boxes.values():
        out += ["", "[[box]]", f"id = {_q(bx.id)}", f"side = {_q(bx.side)}", f"round = {bx.round}",
                f"entry_area = {_q(bx.entry_area)}"]
    if board.pontoon_area:
        out += ["", "[pontoon]", f"area = {_q(board.pontoon_area)}"]
    for c in board.connections:
        out += ["", "[[connection]]", f"areas = [{_q(c.a)}, {_q(c.b)}]", f"kind = {_q(c.kind)}"]
    out += tray_toml(board.dice_tray_mm)
    return "\n".join(out) + "\n"


def _attribute(value: Any, where: str) -> Any:
    """A free attribute's value as kept: text, a number, true/false, or a list of them (tuples); else InputError."""
    if isinstance(value, list):
        return tuple(_attribute(v, where) for v in value)
    if isinstance(value, (str, bool, int, float)):
        return value
    raise InputError(f"{where}: an attribute must be text, a number, true/false or a list of them, not {value!r}")


def toml_value(value: Any) -> str:
    """A free attribute's value written as TOML (what `tomllib` reads back to the same value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return _q(value)


def _key(key: str) -> str:
    """A TOML key: bare when it may be, else quoted."""
    return key if key and all(ch.isalnum() or ch in "_-" for ch in key) else _q(key)


