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
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from common.fields import column_letters
from rules import labels as placer

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
    body: bool = False  # the outline of the piece itself (its base): labels never cover it


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
    """Text at a table point: its box's corner (`align`: top-left, or its centre) at `at`, moved by `offset_px` on
    the screen. Every renderer hands its labels to `place_labels` first, which keeps them off each other and off the
    pieces: there `at` + `offset_px` is where the system would have it, tried first; a label naming a `piece`
    stands beside that piece's outline instead; `short` is a shorter text for where the full one does not fit;
    higher `priority` keeps its place before the others (MUST and above: never left out); `fixed` never moves (a
    title). A placed label has its top-left at `at` + `offset_px` and `leader_px` the line from what it names to
    its box ((x0, y0, x1, y1) screen px from that top-left), or None."""

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
    short: str = ""
    priority: float = 1.0
    align: str = "top-left"  # a key of ALIGN
    fixed: bool = False
    leader: bool = True  # may stand away from what it names, with a leader line
    within: tuple[Point, ...] = ()  # the area it names (table mm): it may stand anywhere inside it
    leader_px: tuple[float, float, float, float] | None = None


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

ALIGN = {"top-left": (0.0, 0.0), "centre": (0.5, 0.5), "top": (0.5, 0.0), "bottom": (0.5, 1.0), "left": (0.0, 0.5),
         "right": (1.0, 0.5), "bottom-left": (0.0, 1.0)}
"""Which point of a label's box stands at `at` + `offset_px`: (fraction of its width, of its height)."""


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
    short: str = ""  # the roster's short name for it (labels where the full one does not fit), "" none


def abbreviation(name: str, most: int = 6) -> str:
    """A place's name cut for a crowded map: its longest word (the last of the longest), cut to five letters and a
    dot where longer than `most` - "Brandenburg" -> "Brand.", "Bay of Biscay" -> "Biscay", "Tyrrhenian Sea" ->
    "Tyrrh."; a short name as it is."""
    if len(name) <= most:
        return name
    words = [w for w in name.replace("_", " ").replace("&", " ").split() if w[:1].isalpha()]
    word = max(reversed(words), key=len) if words else name
    return word if len(word) <= most else word[:5] + "."


def short_name(p: ScenePiece) -> str:
    """What a crowded view calls a piece: the roster's short name, else its label without its side's prefix when
    that leaves a name ("au-1-3" -> "1-3", "fr-cav-1" -> "cav-1"; "gb-1" stays), else its label."""
    if p.short:
        return p.short
    parts = p.label.split("-")
    if " " not in p.label and len(parts) >= 3 and all(parts):
        return "-".join(parts[1:])
    return p.label


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


MUST = 100.0
"""A label's priority from which it is never left out (the selected piece's, a change the table must show)."""
PIECE_PRIORITY = 10.0
PENDING_PRIORITY = MUST
NOTE_PRIORITY = 50.0  # what happened (a record's marks, a note, a title): before the pieces' names
GRID_PRIORITY = 60.0
AREA_PRIORITY = 20.0
"""The usual priorities: a change the table must show first; a place's name (a region, an area: placed beside its
point or not at all, `leader` False) before a piece's, which may move out with a leader line where they crowd."""


def base_items(p: ScenePiece, scene: Scene, kind: str, tip: str, label: str | None, *, corners=None,
               fill: float = 0.27, front_edge: bool = False, pen_tone: str | None = None,
               short: str | None = None) -> list[Item]:
    """A piece's base outline (selected: white, second: magenta, hidden from the camera: dashed), its facing
    (an arrow, or the front edge thickened) and its label beside the base (`short`, default `short_name`, where
    it does not fit). `corners` default to the roster base at the pose."""
    if p.pose is None:
        return []
    short = short_name(p) if short is None else short
    key = (p.id, p.pose, p.status, p.side_index, tuple(p.base_mm), p.marker_height_mm if scene.live else 0.0,
           p.id == scene.selected, p.id == scene.second, scene.labels, kind, tip, label, fill, front_edge, pen_tone,
           None if corners is None else np.asarray(corners, float).tobytes(), short)
    return list(_BASE_MEMO.get(key, lambda: _base_items(p, scene, kind, tip, label, corners, fill, front_edge,
                                                          pen_tone, short)))


def _base_items(p: ScenePiece, scene: Scene, kind: str, tip: str, label: str | None, corners, fill: float,
                front_edge: bool, pen_tone: str | None, short: str) -> list[Item]:
    x, y, h = p.pose
    z = p.marker_height_mm if scene.live else 0.0
    selected, second = p.id == scene.selected, p.id == scene.second
    tone = piece_tone(p)
    poly = rectangle(x, y, h, p.base_mm) if corners is None else np.asarray(corners, float)
    edge = "selected" if selected else "second" if second else (pen_tone or tone)
    pen = "dash" if p.status == "occluded" else "dashdot" if p.status == "ambiguous" else "solid"
    out: list[Item] = [Area(kind, (points(poly),), tone, fill if p.status != "occluded" else 0.12, pen,
                            4.0 if selected or second else 2.0, edge, tip=tip, layer=6, piece=p.id, z_mm=z,
                            body=True)]
    if front_edge:
        out.append(Line("facing", (points(poly[[0, 1]]),), "selected" if selected else tone,
                        width=4.0 if selected else 3.0, layer=6.5, piece=p.id, z_mm=z))
    else:
        out.append(Line("facing", arrow((x, y), h, p.base_mm[1] / 2 + 14), "selected" if selected else tone,
                        layer=6.5, piece=p.id, z_mm=z))
    if label is not None and (scene.labels or selected or second):
        tone = "muted" if p.status == "occluded" else "ambiguous" if p.status == "ambiguous" else "text"
        priority = MUST + selected if selected or second else PIECE_PRIORITY - (p.status == "occluded")
        out.append(Label("label", _pt(poly.mean(0)), label, tone, 8.5 if selected or second else 7.0,
                         selected or second, tip=label, layer=7 + (selected or second), piece=p.id, z_mm=z,
                         short=short if short != label else "", priority=priority, align="centre"))
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
                Label("pending-label", (x, y), "take off", "blocked", bold=True, tip=why, layer=8, z_mm=z,
                      priority=PENDING_PRIORITY, align="centre")]
    gx, gy, gh = to
    return [Area("pending-move", (points(rectangle(gx, gy, gh, base)),), "pending", 0.2, "dash", 2.5, tip=why,
                 layer=8, z_mm=z),
            Line("pending-path", (((x, y), (gx, gy)),), "pending", "dot", 2.0, layer=8, z_mm=z),
            Label("pending-label", (gx, gy), text, "pending", bold=True, tip=why, layer=8, z_mm=z,
                  priority=PENDING_PRIORITY, align="centre")]


# ---------------------------------------------------------------------------------------------- labels placed


def grid_labels(grid, field_px: float) -> list[Label]:
    """The grid's coordinates: column letters under its south edge, row numbers left of its west edge (1, then
    every `step`-th, fewer where a field is small on the screen: `field_px` its width there)."""
    step = next((k for k in (1, 2, 5, 10, 20, 50) if k * field_px >= 48.0), 100)
    f, x0, y0 = float(grid.field_mm), float(grid.origin_x_mm), float(grid.origin_y_mm)
    out = [Label("grid-label", (x0 + (c + 0.5) * f, y0), column_letters(c), "grid", 7.0,
                 tip=f"column {column_letters(c)}", layer=2, offset_px=(0.0, 3.0), priority=GRID_PRIORITY,
                 align="top", leader=False)
           for c in range(0, int(grid.cols), step)]
    out += [Label("grid-label", (x0, y0 + (r + 0.5) * f), str(r + 1), "grid", 7.0, tip=f"row {r + 1}", layer=2,
                  offset_px=(-3.0, 0.0), priority=GRID_PRIORITY, align="right", leader=False)
            for r in range(int(grid.rows)) if r == 0 or (r + 1) % step == 0]
    return out


ToPx = Any
"""to_px(xy (N, 2) table mm, z_mm) -> (N, 2) screen px (y down); a point behind the camera is not finite."""
Measure = Any
"""measure(text, size, bold) -> (width, height): the screen px of a label's box (its plate) in the renderer's font."""


def place_labels(picture: Iterable[Item], to_px: ToPx, measure: Measure, bounds, obstacles=(),
                 gap: float = placer.GAP_PX, layout: LabelLayout | None = None, view_key=None) -> tuple[Item, ...]:
    """The picture with its labels placed for one view (`rules/labels.py`): each Label where it overlaps no other,
    no piece's outline (an Area with `body`), no dot and none of `obstacles` (rules.labels.Shape in screen px:
    what the renderer draws besides, e.g. the anchors), inside `bounds` (left, top, right, bottom screen px) -
    its top-left at `at` + `offset_px`, its text full or short, `leader_px` set where it stands away - or left out.
    Screen-fixed labels (`screen`) pass as they are; the order of the other items is kept.

    `layout`: the view's own `LabelLayout`, which keeps what the last call made (`view_key`: equal keys project
    alike, so an item that is the very same object is not projected or measured again) and where each label went,
    so that labels keep their places from one frame to the next (rules.labels.Placement)."""
    items = tuple(picture)
    if layout is None:
        layout = LabelLayout()
    return layout.place(items, to_px, measure, tuple(map(float, bounds)), tuple(obstacles), gap, view_key)


def _within_px(it: Label, to_px) -> placer.Box | None:
    if not it.within:
        return None
    px = np.asarray(to_px(np.asarray(it.within, float).reshape(-1, 2), it.z_mm), float)
    return placer.bbox(px.tolist()) if np.all(np.isfinite(px)) else None


def _want(it: Label, sizes, a, body_box: dict, within=None) -> placer.Want:
    """What the placer is asked for one label: beside its piece's outline when it names a piece that has one,
    else at the spot its system gave (`at`, `offset_px`, `align`) and around that point."""
    ok = math.isfinite(a[0]) and math.isfinite(a[1])
    around = body_box.get(it.piece) if it.piece is not None and not it.fixed else None
    if around is not None:
        anchor, first = ((around[0] + around[2]) / 2, (around[1] + around[3]) / 2), None
    else:
        fx, fy = ALIGN.get(it.align, (0.0, 0.0))
        w, h = sizes[0]
        anchor = a if ok else (-1e9, -1e9)
        first = (a[0] + it.offset_px[0] - fx * w, a[1] + it.offset_px[1] - fy * h) if ok else None
    return placer.Want(anchor, sizes, around, first, it.priority, it.priority >= MUST, it.fixed and ok,
                       not it.leader, within if around is None else None)


class LabelLayout:
    """One view's label placing from frame to frame: what each item (kept by identity while the projection is the
    same) looks like on the screen, and the last placement."""

    def __init__(self):
        self.view_key = None
        self.placement: placer.Placement | None = None
        self.wants: dict[int, tuple[Label, tuple, tuple]] = {}  # id(label) -> (label, (words, sizes), anchor px)
        self.shapes: dict[int, tuple[Item, list]] = {}  # id(area or dot) -> (item, [(Shape, owner box or None)])
        self.placed: dict[tuple, tuple] = {}  # (id(label), id(spot)) -> (label, spot, the label placed)
        self.want_of: dict[int, tuple] = {}  # id(label) -> (label, its piece's box, the Want)
        self.last: tuple | None = None  # (items, bounds, obstacles, view key, the items placed)

    def place(self, items: tuple[Item, ...], to_px, measure, bounds, obstacles, gap, view_key):
        last = self.last
        if last is not None and last[3] == view_key and view_key is not None and last[1] == bounds and \
                len(last[2]) == len(obstacles) and all(map(operator.is_, last[2], obstacles)) and \
                len(last[0]) == len(items) and all(map(operator.is_, last[0], items)):
            return last[4]  # the very same picture on the very same view: placed as it was
        if view_key is None or view_key != self.view_key:
            self.wants, self.shapes, self.placed, self.want_of = {}, {}, {}, {}
            self.view_key = view_key
        shown = [i for i, it in enumerate(items) if it.__class__ is Label and not it.screen]
        if not shown:
            return items
        shapes, body_box = self._outlines(items, to_px)
        looks = self._looks([items[i] for i in shown], to_px, measure)
        wants, keys = [], []
        counts: dict[tuple, int] = {}
        old_wants, new_wants = self.want_of, {}
        for i, look in zip(shown, looks, strict=True):
            it = items[i]
            base = (it.kind, it.piece)
            counts[base] = n = counts.get(base, -1) + 1
            keys.append((*base, n))
            around = body_box.get(it.piece) if it.piece is not None else None
            got = old_wants.get(id(it))
            if got is None or got[0] is not it or got[1] != around:
                got = (it, around, _want(it, look[1][1], look[2], body_box, look[3]))
            new_wants[id(it)] = got
            wants.append(got[2])
        self.want_of = new_wants
        out = self._place(items, shown, wants, keys, looks, shapes, obstacles, bounds, gap)
        self.last = (items, bounds, tuple(obstacles), view_key, out)
        return out

    def _place(self, items, shown, wants, keys, looks, shapes, obstacles, bounds, gap):
        self.placement = placer.place(wants, [*obstacles, *shapes], bounds, gap, keys, self.placement)
        placed = dict(zip(shown, self._placed_labels([items[i] for i in shown], looks), strict=True))
        return tuple(p for p in (placed[i] if i in placed else it for i, it in enumerate(items)) if p is not None)

    def _outlines(self, items, to_px) -> tuple[list, dict]:
        """The screen shapes of the pieces' outlines and the dots, and each piece's outline box."""
        old, new = self.shapes, {}
        keep_off = [it for it in items if (c := it.__class__) is Dot or c is Area and it.body]
        todo = [it for it in keep_off if old.get(id(it), (None,))[0] is not it]
        if todo:
            self._shape(todo, to_px, new)
        shapes, body_box = [], {}
        for it in keep_off:
            got = new[id(it)] = new.get(id(it)) or old[id(it)]
            for shape, box in got[1]:
                shapes.append(shape)
                if box is not None and it.piece is not None:
                    b = body_box.get(it.piece)
                    body_box[it.piece] = box if b is None else (min(b[0], box[0]), min(b[1], box[1]),
                                                                max(b[2], box[2]), max(b[3], box[3]))
        self.shapes = new
        return shapes, body_box

    def _looks(self, labels: list[Label], to_px, measure) -> list[tuple]:
        """Each label's (label, (texts, their sizes), anchor px): made again only for a label that is not the very
        same object as last time."""
        old, new = self.wants, {}
        todo = [it for it in labels if old.get(id(it), (None,))[0] is not it]
        groups: dict[float, list] = {}
        for it in todo:
            groups.setdefault(it.z_mm, []).append(it)
        for z, group in groups.items():
            px = np.asarray(to_px(np.asarray([it.at for it in group], float).reshape(-1, 2), z), float)
            for it, a in zip(group, px.reshape(-1, 2).tolist(), strict=True):
                words = (it.text, it.short) if it.short and it.short != it.text else (it.text,)
                sizes = tuple((float(w), float(h)) for w, h in (measure(t, it.size, it.bold) for t in words))
                new[id(it)] = (it, (words, sizes), (a[0], a[1]), _within_px(it, to_px))
        looks = []
        for it in labels:
            look = new[id(it)] = new.get(id(it)) or old[id(it)]
            looks.append(look)
        self.wants = new
        return looks

    def _placed_labels(self, labels: list[Label], looks: list[tuple]) -> list[Label | None]:
        """Each label where the placement put it (None: left out); the very same object for the same place."""
        out, new = [], {}
        for it, spot, look in zip(labels, self.placement.spots, looks, strict=True):
            if spot.box is None:
                out.append(None)
                continue
            same = self.placed.get((id(it), id(spot)))
            if same is not None and same[0] is it and same[1] is spot:  # kept where it was: the very same item
                new[(id(it), id(spot))] = same
                out.append(same[2])
                continue
            words, a = look[1][0], look[2]
            x0, y0 = spot.box[0], spot.box[1]
            leader = None if spot.leader is None else tuple(
                round(float(v), 2) for v in (spot.leader[0][0] - x0, spot.leader[0][1] - y0,
                                             spot.leader[1][0] - x0, spot.leader[1][1] - y0))
            dx, dy = round(float(x0 - a[0]), 2), round(float(y0 - a[1]), 2)
            placed = replace(it, text=words[spot.text], offset_px=(dx, dy), align="top-left", leader_px=leader)
            new[(id(it), id(spot))] = (it, spot, placed)
            out.append(placed)
        self.placed = new
        return out

    @staticmethod
    def _shape(todo: list[Item], to_px, out: dict) -> None:
        """The screen shapes of the bodies and dots in `todo`, projected at once per height."""
        groups: dict[float, list] = {}
        for it in todo:
            groups.setdefault(it.z_mm, []).append(it)
        for z, group in groups.items():
            sets = [np.asarray(poly, float).reshape(-1, 2) for it in group
                    for poly in (it.polygons if isinstance(it, Area) else ((it.at,),))]
            px = np.asarray(to_px(np.vstack(sets), z), float).reshape(-1, 2)
            parts = iter(np.split(px, np.cumsum([len(a) for a in sets])[:-1]))
            for it in group:
                got = []
                for _ in (it.polygons if isinstance(it, Area) else (None,)):
                    part = next(parts)
                    if not np.all(np.isfinite(part)):
                        continue
                    if isinstance(it, Dot):
                        x, y = part[0].tolist()
                        r = float(it.radius_px)
                        got.append((placer.Shape(box=(x - r, y - r, x + r, y + r)), None))
                    else:
                        pts = part.tolist()
                        got.append((placer.Shape(pts), placer.bbox(pts)))
                out[id(it)] = (it, got)


# ---------------------------------------------------------------------------------------------- the legend


@dataclass(frozen=True)
class LegendEntry:
    """One mark the pictures draw and what it means. `sample`: items drawn in a small box, in sample units (x
    right, y up, 0..SAMPLE_W by 0..SAMPLE_H, one unit a screen px), as every renderer draws them; `shows(item)`:
    whether an item of a picture is this mark (a legend lists the marks a picture has)."""

    key: str
    text: str
    sample: tuple[Item, ...]
    shows: Any = None  # Callable[[Item], bool]; None: listed always


SAMPLE_W, SAMPLE_H = 44.0, 20.0


def _box(x0=10.0, y0=4.0, x1=34.0, y1=16.0) -> tuple[Point, ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def _body(pen: str, tone: str = "side:0", edge: str | None = None, fill: float = 0.27, width: float = 2.0) -> Area:
    return Area("sample", (_box(),), tone, fill, pen, width, edge, body=True)


def _is_body(pen: str | None = None, edge: str | None = None):
    return lambda it: isinstance(it, Area) and it.body and (pen is None or it.pen == pen) and (
        edge is None or it.edge_tone == edge)


def _kind(*kinds: str, cls=None, tone: str | None = None):
    return lambda it: (cls is None or isinstance(it, cls)) and (tone is None or it.tone == tone) and any(
        it.kind == k or it.kind.startswith(k + ":") for k in kinds)


def marks(*kinds: str, cls=None, tone: str | None = None):
    """A legend entry's `shows`: an item of one of `kinds` (or `kind:...`), of class `cls` and `tone` if given."""
    return _kind(*kinds, cls=cls, tone=tone)


def sample_area(tone: str, fill: float = 0.27, pen: str = "solid", width: float = 2.0, pattern: str = "solid",
                edge_tone: str | None = None) -> Area:
    """A filled box for a legend entry's sample."""
    return Area("sample", (_box(4.0, 3.0, 40.0, 17.0),), tone, fill, pen, width, edge_tone, pattern)


def sample_line(tone: str, pen: str = "solid", width: float = 2.0) -> Line:
    """A line across a legend entry's sample."""
    return Line("sample", (((4.0, 10.0), (40.0, 10.0)),), tone, pen, width)


def sample_text(text: str, tone: str = "text", bold: bool = False) -> Label:
    """A label for a legend entry's sample."""
    return Label("sample", (3.0, 6.0), text, tone, 7.0, bold)  # its baseline, y up


LEGEND: tuple[LegendEntry, ...] = (
    LegendEntry("seen", "a piece where the camera sees it, in its side's colour; the arrow is its facing",
                (_body("solid"), Line("sample", (((22.0, 10.0), (22.0, 19.0)),), "side:0")), _is_body("solid")),
    LegendEntry("selected", "white outline: the selected piece (click); its name always shown",
                (_body("solid", edge="selected", width=4.0),), _is_body(edge="selected")),
    LegendEntry("second", "magenta outline: the second piece (Shift+click), for the pair's analysis",
                (_body("solid", edge="second", width=4.0),), _is_body(edge="second")),
    LegendEntry("occluded", "dashed and grey: not in this frame (a hand, a hill in the way), shown at its last place",
                (_body("dash", "hidden", fill=0.12),), _is_body("dash")),
    LegendEntry("ambiguous", "dash-dotted, its name orange: where it stands is uncertain (near a field's edge, on "
                "a border)", (_body("dashdot"),), _is_body("dashdot")),
    LegendEntry("pending", "cyan ghost and dotted path: the rules moved it; move it there on the table",
                (Area("sample", (_box(24, 4, 40, 16),), "pending", 0.2, "dash", 2.5),
                 Line("sample", (((4.0, 10.0), (24.0, 10.0)),), "pending", "dot")), _kind("pending-move")),
    LegendEntry("remove", "red cross \"take off\": the rules removed it; take it off the table",
                (Line("sample", (((12.0, 2.0), (32.0, 18.0)), ((12.0, 18.0), (32.0, 2.0))), "blocked", width=4.0),),
                _kind("pending-remove")),
    LegendEntry("leader", "a line from a piece to its name: the name stands aside, clear of the others",
                (_body("solid"), Line("sample", (((34.0, 10.0), (42.0, 4.0)),), "text", width=1.0)),
                lambda it: isinstance(it, Label) and it.leader_px is not None),
    LegendEntry("short", "a name cut short where the whole does not fit (hover a piece for all of it)",
                (sample_text("1-3"),),
                lambda it: isinstance(it, Label) and bool(it.short) and it.text == it.short),
    LegendEntry("grid", "the grid's columns (letters) and rows (numbers): field D5 is column D, row 5",
                (sample_text("D  5", "grid"),), _kind("grid-label")),
    LegendEntry("move", "dashed arrow: the move just made, from where the piece stood",
                (Line("sample", (((4.0, 10.0), (40.0, 10.0)), ((32.0, 15.0), (40.0, 10.0), (32.0, 5.0))),
                      "pending", "dash"),), _kind("event-move")),
    LegendEntry("fire", "yellow arrow: a fire just resolved, from the firing piece to its target",
                (Line("sample", (((4.0, 10.0), (40.0, 10.0)), ((32.0, 15.0), (40.0, 10.0), (32.0, 5.0))),
                      "fire", width=3.0),), _kind("event-fire")),
    LegendEntry("melee", "red arrow: a melee (or another action) just resolved, attacker to target",
                (Line("sample", (((4.0, 10.0), (40.0, 10.0)), ((32.0, 15.0), (40.0, 10.0), (32.0, 5.0))),
                      "melee", width=3.0),), _kind("event-melee")),
    LegendEntry("dice tray", "dashed grey box: the dice tray, where thrown dice are read into the combat panel",
                (Area("sample", (_box(4, 3, 40, 17),), "muted", 0.06, "dash", 1.5),), _kind("dice-tray")),
    LegendEntry("die read", "a number by a die: the value the camera read of the last throw (? unreadable: type it)",
                (Dot("sample", (12.0, 10.0), "selected", 4.0), Label("sample", (22.0, 6.0), "5", "text", 7.0, True)),
                _kind("die-read")),
)
"""The marks every system's pictures share (rules.picture.base_items, pending_items, grid_labels, the record's
marks); a system adds its own (`LiveRules.legend`)."""


def dice_tray_items(tray_mm) -> tuple[Item, ...]:
    """The dice tray's outline (table mm) and its name, for the live pictures; () without a tray."""
    if not tray_mm:
        return ()
    pts = tuple((float(x), float(y)) for x, y in tray_mm)
    return (Area("dice-tray", (pts,), "muted", 0.06, "dash", 1.5, tip="dice tray: thrown dice are read here",
                 layer=1.0),
            Label("dice-tray-label", pts[0], "dice tray", "muted", 7.0, within=pts, priority=0.5))


DIE_TOP_MM = 16.0  # a thrown die's top face above the cloth (the middle of the 12-20 mm dice read)


def dice_read_items(dice) -> tuple[Item, ...]:
    """The last throw's dice as the camera read them, for the live pictures: a dot on each die's top face and its
    value beside it ("?" where it could not be read for sure), numbered as the combat panel's throw picture numbers
    them. `dice`: (x_mm, y_mm, value or None) per die, in that order; () for none."""
    out: list[Item] = []
    for n, (x, y, value) in enumerate(dice, 1):
        said = "?" if value is None else str(value)
        tip = f"die {n}: the camera read {said}" if value is not None else f"die {n}: not read for sure; type it"
        out.append(Dot("die-read", (float(x), float(y)), "selected", 4.0, tip=tip, z_mm=DIE_TOP_MM))
        out.append(Label("die-read", (float(x), float(y)), said, "text", 10.0, bold=True, offset_px=(8.0, -22.0),
                         tip=tip, z_mm=DIE_TOP_MM, priority=2.0))
    return tuple(out)


def legend(pictures: Iterable[Iterable[Item]], entries: Sequence[LegendEntry]) -> list[LegendEntry]:
    """The entries of `entries` whose mark is in any of `pictures` (an entry without `shows`: always), in order."""
    items = [it for pic in pictures for it in pic]
    return [e for e in entries if e.shows is None or any(e.shows(it) for it in items)]
