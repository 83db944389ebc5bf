"""One drawing language for every game system: what to draw, as plain data in table millimetres.

A system describes its overlays (terrain, zones, arcs, lines to targets, contacts, board areas, pieces) as a tuple
of `Area`, `Line`, `Label` and `Dot` items; the dashboard renders them over the camera image (projected at the
item's height `z_mm`) and over the board view, and the PNG, MP4 and HTML exports render the same items, so a view
and an export never disagree. No item knows a toolkit: colours are named `tone`s of one `PALETTE` (RGB) that every
renderer uses, pens are named styles.

Points are (x, y) in table mm: x along the table's width, y along its depth; bearings are compass degrees
(0 = +y "north", 90 = +x "east").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Point = tuple[float, float]

PALETTE: dict[str, tuple[int, int, int]] = {
    # answers
    "clear": (40, 230, 90),
    "blocked": (255, 50, 50),
    "fire": (255, 230, 60),
    "melee": (255, 70, 70),
    "candidate": (255, 160, 60),
    "zone": (255, 150, 40),
    "reach": (60, 230, 110),
    "attack": (255, 80, 80),
    "select": (0, 230, 255),
    "pending": (0, 230, 255),
    "arc": (255, 255, 255),
    "neighbour": (255, 255, 255),
    "side-field": (200, 120, 255),
    "small_arms": (80, 200, 255),
    "artillery": (255, 170, 40),
    "contact-front": (255, 60, 60),
    "contact-flank": (255, 0, 220),
    "contact-rear": (190, 0, 255),
    "contact-corner": (255, 200, 0),
    "contact-overlap": (0, 220, 255),
    # pieces
    "selected": (255, 255, 255),
    "second": (255, 0, 255),
    "hidden": (170, 170, 170),
    "ambiguous": (255, 190, 90),
    "text": (255, 255, 255),
    "muted": (190, 190, 190),
    "outline": (20, 20, 20),
    # tables and boards
    "grid": (255, 255, 255),
    "area": (250, 250, 250),
    "narrow": (255, 200, 60),
    "wide": (60, 200, 255),
    "impassable": (255, 50, 50),
    "road-main": (230, 200, 150),
    "road-secondary": (200, 170, 120),
    "terrain": (160, 140, 90),
    "terrain:wood": (30, 130, 40),
    "terrain:town": (170, 90, 40),
    "terrain:church": (170, 90, 40),
    "terrain:settlement": (170, 90, 40),
    "terrain:water": (40, 90, 220),
    "terrain:river": (40, 90, 220),
    "terrain:waterway": (30, 60, 200),
    "terrain:swamp": (80, 120, 110),
    "terrain:marsh": (80, 120, 110),
    "terrain:mountain": (120, 110, 100),
    "terrain:height": (200, 170, 90),
    "terrain:gentle_hill": (200, 170, 90),
    "terrain:steep_hill": (170, 120, 60),
    "terrain:crest": (140, 100, 40),
    "terrain:rough": (150, 130, 90),
    "terrain:dunes": (230, 200, 120),
    "terrain:oasis": (60, 170, 90),
    "terrain:fields": (200, 200, 90),
    "terrain:road": (200, 180, 120),
    "terrain:fortress": (120, 120, 120),
    "terrain:beach": (230, 220, 160),
}
"""Every tone an item may name, as RGB. `side:N` (N = the side's index in the game) comes from `SIDE_TONES`;
`#rrggbb` is any colour of a system's own."""

SIDE_TONES: tuple[tuple[int, int, int], ...] = (
    (80, 160, 255), (255, 235, 120), (255, 120, 200), (140, 255, 160), (255, 150, 60), (200, 200, 255),
    (160, 100, 60))
"""Up to seven powers, each its own colour."""

PENS = ("solid", "dash", "dot", "dashdot", "none")


def rgb(tone: str) -> tuple[int, int, int]:
    """The RGB of a tone: a palette name, `side:N`, `#rrggbb` (a system's own colour, e.g. a power's), or an
    unknown `terrain:KIND` (the generic terrain colour)."""
    if tone in PALETTE:
        return PALETTE[tone]
    if tone.startswith("#") and len(tone) == 7:
        return int(tone[1:3], 16), int(tone[3:5], 16), int(tone[5:7], 16)
    if tone.startswith("side:"):
        return SIDE_TONES[int(tone[5:]) % len(SIDE_TONES)]
    if tone.startswith("terrain:"):
        return PALETTE["terrain"]
    raise KeyError(f"no tone {tone!r} in rules.picture.PALETTE")


@dataclass(frozen=True)
class Area:
    """A closed polygon (or several, drawn as one), filled with `tone` at `fill` opacity (0..1) and outlined.

    `kind` names what it shows (for tooltips, tests and layer toggles), `layer` orders items (higher on top),
    `piece` makes a click on it select that piece, `data` carries extra values a view may attach."""

    kind: str
    polygons: tuple[tuple[Point, ...], ...]
    tone: str
    fill: float = 0.25
    pen: str = "solid"
    width: float = 2.0
    edge_tone: str | None = None
    pattern: str = "solid"  # "solid" or "hatch"
    tip: str = ""
    layer: float = 3.0
    piece: str | None = None
    z_mm: float = 0.0
    data: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Line:
    """A polyline (or several): a line of sight, a path, a facing arrow (see `arrow`), a cross."""

    kind: str
    paths: tuple[tuple[Point, ...], ...]
    tone: str
    pen: str = "solid"
    width: float = 2.0
    tip: str = ""
    layer: float = 5.0
    piece: str | None = None
    z_mm: float = 0.0
    data: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Label:
    """Text at a table point, moved by `offset_px` on the screen (labels stacked beside one point stay readable)."""

    kind: str
    at: Point
    text: str
    tone: str = "text"
    size: float = 7.0
    bold: bool = False
    offset_px: tuple[float, float] = (0.0, 0.0)
    tip: str = ""
    layer: float = 7.0
    piece: str | None = None
    z_mm: float = 0.0
    screen: bool = False  # `at` is in screen pixels from the view's top-left corner, not on the table


@dataclass(frozen=True)
class Dot:
    """A marker of a fixed screen size (`radius_px`) at a table point: a contact, a point of interest."""

    kind: str
    at: Point
    tone: str
    radius_px: float = 6.0
    tip: str = ""
    layer: float = 9.5
    piece: str | None = None
    z_mm: float = 0.0
    data: tuple[Any, ...] = ()


Item = Area | Line | Label | Dot
Picture = tuple[Item, ...]


# ---------------------------------------------------------------------------------------------- shapes


def _pt(p) -> Point:
    return (float(p[0]), float(p[1]))


def points(xy: Iterable) -> tuple[Point, ...]:
    """Any (N, 2) sequence or array of table mm -> a tuple of float points."""
    arr = np.asarray(list(xy) if not isinstance(xy, np.ndarray) else xy, float).reshape(-1, 2)
    return tuple(map(tuple, arr.tolist()))  # tolist: Python floats in one call (a picture has thousands of points)


def heading_vector(heading_deg: float) -> np.ndarray:
    """The unit vector (x, y) of a compass bearing."""
    h = math.radians(heading_deg)
    return np.array([math.sin(h), math.cos(h)])


def rectangle(x_mm: float, y_mm: float, heading_deg: float, size_mm: Sequence[float]) -> np.ndarray:
    """(4, 2) corners of a base `size_mm` = (width, depth) centred at (x, y) facing `heading_deg`: front-left,
    front-right, back-right, back-left."""
    w, d = float(size_mm[0]), float(size_mm[1])
    fwd = heading_vector(heading_deg)
    right = np.array([fwd[1], -fwd[0]])
    c = np.array([x_mm, y_mm], float)
    return np.array([c + fwd * d / 2 - right * w / 2, c + fwd * d / 2 + right * w / 2,
                     c - fwd * d / 2 + right * w / 2, c - fwd * d / 2 - right * w / 2])


def sector(centre: Point, radius_mm: float, bearing_deg: float, half_deg: float, steps: int = 24) -> np.ndarray:
    """A wedge from `centre` out to `radius_mm`, bearings bearing-half..bearing+half: (steps + 2, 2) table mm."""
    cx, cy = centre
    pts = [(cx, cy)]
    for b in np.linspace(bearing_deg - half_deg, bearing_deg + half_deg, steps + 1):
        pts.append((cx + radius_mm * math.sin(math.radians(b)), cy + radius_mm * math.cos(math.radians(b))))
    return np.array(pts)


def square(centre: Point, half_mm: float) -> np.ndarray:
    cx, cy = centre
    return np.array([(cx - half_mm, cy - half_mm), (cx + half_mm, cy - half_mm), (cx + half_mm, cy + half_mm),
                     (cx - half_mm, cy + half_mm)])


def cross(corners: np.ndarray) -> tuple[tuple[Point, ...], ...]:
    """The two diagonals of a 4-corner polygon, as two paths (a "take off" or "blocks here" mark)."""
    c = np.asarray(corners, float)
    return (points(c[[0, 2]]), points(c[[1, 3]]))


def arrow(start: Point, heading_deg: float, length_mm: float, head_mm: float = 9.0) -> tuple[tuple[Point, ...], ...]:
    """A facing arrow from `start` along `heading_deg`: the shaft and the two halves of its head."""
    fwd = heading_vector(heading_deg)
    s = np.asarray(start, float)
    tip = s + fwd * length_mm
    side = np.array([-fwd[1], fwd[0]]) * head_mm * 2 / 3
    return (points([s, tip]), points([tip - fwd * head_mm + side, tip, tip - fwd * head_mm - side]))


def check(picture: Iterable[Item]) -> None:
    """ValueError naming the first item whose tone or pen no renderer knows (a system's own test calls this)."""
    for it in picture:
        tones = [it.tone] + ([it.edge_tone] if isinstance(it, Area) and it.edge_tone else [])
        for t in tones:
            try:
                rgb(t)
            except (KeyError, ValueError):
                raise ValueError(f"{it.kind}: unknown tone {t!r}") from None
        if getattr(it, "pen", "solid") not in PENS:
            raise ValueError(f"{it.kind}: unknown pen {it.pen!r}")


# ----------------------------------------------------------------------------------------- the scene a system draws


@dataclass(frozen=True)
class ScenePiece:
    """One roster piece as the live session (or the replay) knows it, for a system to draw.

    `id` is the roster id (a click selects it); `label` what a viewer may call it (a hidden block's anonymous name);
    `pose` is (x_mm, y_mm, heading_deg) where the camera last saw its marker, or None; `status` is seen, ambiguous
    (near a field edge), occluded (not in this frame, last pose kept), unseen or removed; `pending` a change the
    rules made that the table does not show yet; `state` what the camera cannot see (markers, formation, ...)."""

    id: str
    label: str
    side: str
    side_index: int
    type: str | None
    roster_type: str
    base_mm: tuple[float, float]
    marker_height_mm: float
    pose: tuple[float, float, float] | None
    status: str
    state: Any
    pending: Any = None
    hidden: bool = False
    cell: str | None = None
    edge_mm: float | None = None


@dataclass(frozen=True)
class Scene:
    """Everything a system's `picture(scene)` may draw from: the rules position, the pieces, the selection.

    `grid` is the layout's square grid (field_centre(col, row) in table mm, field_mm) or None; `to_table` maps
    board mm to table mm (a printed board lying on the table), None where the board is the table; `live` is true
    over the camera image (a piece's items are drawn at its marker height there); `context` holds what the
    system's session hooks keep (e.g. where each block was located on the board)."""

    position: Any
    pieces: tuple[ScenePiece, ...]
    selected: str | None = None
    second: str | None = None
    selection: Any = None
    labels: bool = True
    live: bool = False
    grid: Any = None
    ground: Any = None
    viewer: str = "umpire"
    to_table: Any = None
    context: Any = None


def piece_tone(p: ScenePiece) -> str:
    """A piece's colour: its side's, grey while it is hidden from the camera."""
    return "hidden" if p.status == "occluded" else f"side:{p.side_index}"


class ItemMemo:
    """Items by what they are made of, up to `size` keys (then forgotten all at once): a frame with one piece moved
    makes that piece's items anew and hands back the very same items for the other 99, which the dashboard then
    sees unchanged at a glance (issue 14). A key that cannot be hashed (a piece's state holding a list) is made
    every time."""

    def __init__(self, size: int = 4096):
        self.size = size
        self.items: dict[tuple, tuple[Item, ...]] = {}

    def get(self, key: tuple, make) -> tuple[Item, ...]:
        """The items under `key`, made by `make()` (an iterable of items) the first time."""
        try:
            items = self.items.get(key)
        except TypeError:
            return tuple(make())
        if items is None:
            if len(self.items) >= self.size:
                self.items.clear()
            items = self.items[key] = tuple(make())
        return items


def piece_key(p: ScenePiece, scene: Scene) -> tuple | None:
    """What a piece's usual items are drawn from (its ScenePiece, and whether it is chosen, labelled, over the
    camera), for an `ItemMemo`; None for a piece with a pending change (drawn anew each time)."""
    if p.pending is not None:
        return None
    st = p.state
    return (p.id, p.label, p.side, p.side_index, p.type, p.roster_type, p.base_mm, p.marker_height_mm, p.pose,
            p.status, tuple(st.items()) if isinstance(st, dict) else st, p.hidden, p.cell, p.edge_mm,
            p.id == scene.selected, p.id == scene.second, scene.labels, scene.live)


_BASE_MEMO = ItemMemo()


def base_items(p: ScenePiece, scene: Scene, kind: str, tip: str, label: str | None, *, corners=None,
               fill: float = 0.27, front_edge: bool = False, pen_tone: str | None = None) -> list[Item]:
    """A piece's base outline (selected: white, second: magenta, hidden from the camera: dashed), its facing
    (an arrow, or the front edge thickened) and its label. `corners` default to the roster base at the pose."""
    if p.pose is None:
        return []
    key = (p.id, p.pose, p.status, p.side_index, tuple(p.base_mm), p.marker_height_mm if scene.live else 0.0,
           p.id == scene.selected, p.id == scene.second, scene.labels, kind, tip, label, fill, front_edge, pen_tone,
           None if corners is None else np.asarray(corners, float).tobytes())
    return list(_BASE_MEMO.get(key, lambda: _base_items(p, scene, kind, tip, label, corners, fill, front_edge,
                                                          pen_tone)))


def _base_items(p: ScenePiece, scene: Scene, kind: str, tip: str, label: str | None, corners, fill: float,
                front_edge: bool, pen_tone: str | None) -> list[Item]:
    x, y, h = p.pose
    z = p.marker_height_mm if scene.live else 0.0
    selected, second = p.id == scene.selected, p.id == scene.second
    tone = piece_tone(p)
    poly = rectangle(x, y, h, p.base_mm) if corners is None else np.asarray(corners, float)
    edge = "selected" if selected else "second" if second else (pen_tone or tone)
    pen = "dash" if p.status == "occluded" else "dashdot" if p.status == "ambiguous" else "solid"
    out: list[Item] = [Area(kind, (points(poly),), tone, fill if p.status != "occluded" else 0.12, pen,
                            4.0 if selected or second else 2.0, edge, tip=tip, layer=6, piece=p.id, z_mm=z)]
    if front_edge:
        out.append(Line("facing", (points(poly[[0, 1]]),), "selected" if selected else tone,
                        width=4.0 if selected else 3.0, layer=6.5, piece=p.id, z_mm=z))
    else:
        out.append(Line("facing", arrow((x, y), h, p.base_mm[1] / 2 + 14), "selected" if selected else tone,
                        layer=6.5, piece=p.id, z_mm=z))
    if label is not None and (scene.labels or selected or second):
        tone = "muted" if p.status == "occluded" else "ambiguous" if p.status == "ambiguous" else "text"
        at = np.array([x, y]) + np.array([-p.base_mm[0] / 2, -p.base_mm[1] / 2 - 4])
        out.append(Label("label", _pt(at), label, tone, 8.5 if selected or second else 7.0, selected or second,
                         layer=7 + (selected or second), piece=p.id, z_mm=z))
    return out


def pending_items(p: ScenePiece, scene: Scene, to: tuple[float, float, float] | None, text: str, why: str,
                  base_mm=None) -> list[Item]:
    """A change the rules made that the table does not show yet: a ghost base where the piece must go with a dotted
    path to it, or a red cross "take off" over a piece the rules removed (`to` None)."""
    if p.pose is None:
        return []
    x, y, h = p.pose
    z = p.marker_height_mm if scene.live else 0.0
    base = tuple(base_mm or p.base_mm)
    if to is None:
        sq = rectangle(x, y, h, (base[0] + 16, base[1] + 16))
        return [Line("pending-remove", cross(sq), "blocked", width=4.0, tip=why, layer=8, z_mm=z),
                Label("pending-label", (x, y), "take off", "blocked", bold=True, layer=8, z_mm=z)]
    gx, gy, gh = to
    return [Area("pending-move", (points(rectangle(gx, gy, gh, base)),), "pending", 0.2, "dash", 2.5, tip=why,
                 layer=8, z_mm=z),
            Line("pending-path", (((x, y), (gx, gy)),), "pending", "dot", 2.0, layer=8, z_mm=z),
            Label("pending-label", (gx, gy), text, "pending", bold=True, layer=8, z_mm=z)]
