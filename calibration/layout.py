"""The table layout file (TOML): the physical table, its anchor markers and its optional square grid.

::

    [table]
    width_mm = 2400
    depth_mm = 1200
    [markers]
    dictionary = "DICT_4X4_250"     # any cv2.aruco predefined dictionary name
    [[anchor]]                      # markers glued flat on the table, top edge toward +y
    id = 0
    x_mm = 33                       # centre of the black square
    y_mm = 33
    size_mm = 50                    # side of the black square
    z_mm = 0                        # optional: height of its printed face above the cloth (a block), 0..500
    [grid]                          # optional
    origin_x_mm = 0
    origin_y_mm = 0
    field_mm = 60
    cols = 40
    rows = 20
    [dice_tray]                     # optional: where dice are thrown (read only there); none: anywhere off the bases
    polygon_mm = [[1000, 1050], [1400, 1050], [1400, 1190], [1000, 1190]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from calibration.grid import Grid
from common.dice_tray import parse_tray, tray_toml
from common.errors import InputError
from common.files import check_keys, number, read_toml, table_of
from common.text import nearest_name


def dictionary_names() -> tuple[str, ...]:
    """Every cv2.aruco predefined dictionary's name (DICT_4X4_50 ... DICT_APRILTAG_36h11)."""
    return tuple(n for n in dir(cv2.aruco) if n.startswith("DICT_") and isinstance(getattr(cv2.aruco, n), int))


def check_dictionary(name: str, where: str) -> str:
    """Return `name` if it is a cv2.aruco predefined dictionary, else raise InputError suggesting the nearest."""
    if not isinstance(name, str) or not name.startswith("DICT_") or not isinstance(getattr(cv2.aruco, name, None), int):
        names = dictionary_names()
        near = nearest_name(str(name).upper(), names) if isinstance(name, str) else None
        if near is None and isinstance(name, str):  # a case slip: DICT_Apriltag_36H11
            near = next((n for n in names if n.lower() == name.lower()), None)
        hint = f"did you mean {near!r}?" if near else "use a cv2.aruco name like DICT_4X4_250"
        raise InputError(f"{where}: unknown marker dictionary {name!r}; {hint}")
    return name


def dictionary_size(name: str) -> int:
    """How many markers the cv2.aruco predefined dictionary `name` holds (ids 0 .. size-1)."""
    return int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name)).bytesList.shape[0])


def marker_modules(name: str) -> int:
    """The modules across a marker of dictionary `name`: its bits and the black border, one module each side."""
    return int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name)).markerSize) + 2


def paper_mm(dictionary: str, size_mm: float) -> float:
    """The side of a marker's printed paper: its black square and a one-module white quiet zone around it (as
    `fieldglass print` cuts it)."""
    n = marker_modules(dictionary)
    return size_mm * (n + 2) / n


def check_marker_id(marker: int, dictionary: str, where: str) -> int:
    """`marker` if the dictionary has it, else InputError: a marker id beyond it can never be printed or seen."""
    size = dictionary_size(dictionary)
    if not 0 <= marker < size:
        raise InputError(f"{where}: marker {marker} is not in {dictionary} (ids 0..{size - 1})")
    return marker


# The largest grid a layout may give: columns named up to ZZ (as position files), rows up to 999, and at most
# MAX_GRID_FIELDS fields, so that a typo (cols = 4000) is one line instead of a dashboard out of memory.
MAX_GRID_COLS = 702
MAX_GRID_ROWS = 999
MAX_GRID_FIELDS = 40_000

_TOP_KEYS = ("table", "markers", "anchor", "grid", "dice_tray")
_TRAY_KEYS = ("polygon_mm",)
_TABLE_KEYS = ("width_mm", "depth_mm")
_MARKERS_KEYS = ("dictionary",)
_ANCHOR_KEYS = ("id", "x_mm", "y_mm", "size_mm", "z_mm")
_GRID_KEYS = ("origin_x_mm", "origin_y_mm", "field_mm", "cols", "rows")
MAX_ANCHOR_Z_MM = 500.0
"""The highest an anchor's face may stand above the cloth: a block or a stand, not a shelf."""


def square_corners_mm(x_mm: float, y_mm: float, size_mm: float, heading_deg: float = 0.0, z_mm: float = 0.0):
    """The 4 corners of a marker's black square in table mm, in ArUco's order.

    ArUco orders corners top-left, top-right, bottom-right, bottom-left of the marker as printed; the marker's
    top edge points along `heading_deg` (compass bearing). Returns a (4, 3) float array.
    """
    h = np.radians(heading_deg)
    fwd = np.array([np.sin(h), np.cos(h)])
    right = np.array([np.cos(h), -np.sin(h)])
    s = size_mm / 2.0
    c = np.array([x_mm, y_mm])
    pts = [c - right * s + fwd * s, c + right * s + fwd * s, c + right * s - fwd * s, c - right * s - fwd * s]
    return np.array([[p[0], p[1], z_mm] for p in pts], dtype=float)


@dataclass(frozen=True)
class Anchor:
    """A marker glued on the table, top edge toward +y, its printed face `z_mm` above the cloth (0: flat on it; a
    raised anchor on a block makes the points non-coplanar, which pins the pose and the lens down better).

    `z_mm` is keyword-only so that subclasses may add positional fields (calibration.board.TurnedAnchor)."""

    id: int
    x_mm: float
    y_mm: float
    size_mm: float
    z_mm: float = field(default=0.0, kw_only=True)

    def corners_mm(self) -> np.ndarray:
        """(4, 3) table coordinates of the corners in ArUco order."""
        return square_corners_mm(self.x_mm, self.y_mm, self.size_mm, z_mm=self.z_mm)


@dataclass(frozen=True)
class TableLayout:
    width_mm: float
    depth_mm: float
    dictionary: str
    anchors: tuple[Anchor, ...]
    grid: Grid | None = None
    dice_tray_mm: tuple[tuple[float, float], ...] | None = None
    """The dice tray's outline (x, y) in table mm, where the camera reads thrown dice; None: anywhere off the bases."""

    def anchor(self, marker_id: int) -> Anchor | None:
        for a in self.anchors:
            if a.id == marker_id:
                return a
        return None

    @cached_property
    def anchor_ids(self) -> frozenset[int]:
        """The anchors' marker ids (made once: asked for every marker of every frame)."""
        return frozenset(a.id for a in self.anchors)


def parse_layout(data: dict, where: str = "layout", findings: list[str] | None = None) -> TableLayout:
    """Build a TableLayout from parsed TOML; every error names `where` and the key at fault. The geometry is checked
    too (`layout_problems`): the first problem raises, or with `findings` (a list) every one is added to it and the
    layout returned (`fieldglass check-setup` lists them all)."""
    check_keys(data, _TOP_KEYS, where)
    if not isinstance(data.get("table"), dict):
        raise InputError(f"{where}: missing [table] with width_mm and depth_mm")
    table = check_keys(data["table"], _TABLE_KEYS, f"{where} [table]")
    width = number(table, "width_mm", f"{where} [table]", positive=True)
    depth = number(table, "depth_mm", f"{where} [table]", positive=True)
    markers = check_keys(table_of(data, "markers", where, {}), _MARKERS_KEYS, f"{where} [markers]")
    dictionary = check_dictionary(markers.get("dictionary", "DICT_4X4_250"), f"{where} [markers]")
    raw_anchors = data.get("anchor", [])
    if not isinstance(raw_anchors, list):
        raise InputError(f"{where}: anchors must be [[anchor]] tables")
    anchors = [_anchor(a, f"{where} anchor {i}", dictionary) for i, a in enumerate(raw_anchors, 1)]
    ids = [a.id for a in anchors]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise InputError(f"{where}: anchor id(s) {dupes} listed twice")
    if len(anchors) < 2:
        raise InputError(f"{where}: needs at least 2 anchors to register the table (has {len(anchors)})")
    grid = _grid(table_of(data, "grid", where), f"{where} [grid]") if "grid" in data else None
    tray = _dice_tray(table_of(data, "dice_tray", where), f"{where} [dice_tray]", width, depth) \
        if "dice_tray" in data else None
    layout = TableLayout(width, depth, dictionary, tuple(anchors), grid, tray)
    problems = layout_problems(layout, where)
    if findings is not None:
        findings.extend(problems)
    elif problems:
        raise InputError(problems[0])
    return layout


_SLACK_MM = 0.5  # rounding in a hand-measured file: half a millimetre over the edge is still on the table


def layout_problems(layout: TableLayout, where: str = "layout") -> list[str]:
    """What makes the layout's geometry impossible, one line each naming `where`, the key and the nearest valid value:
    an anchor whose black square is off the table, two anchors whose printed papers (square and quiet zone) overlap,
    a grid that reaches beyond the table. [] when none."""
    w, d = layout.width_mm, layout.depth_mm
    out = []
    for a in layout.anchors:
        half = a.size_mm / 2.0
        fixes = []
        for key, v, top in (("x_mm", a.x_mm, w), ("y_mm", a.y_mm, d)):
            lo, hi = half, top - half
            if lo > hi + _SLACK_MM:
                fixes = [f"its {a.size_mm:g} mm square is larger than the table; did you mean size_mm = "
                         f"{math.floor(min(w, d) / 2.0):g}?"]
                break
            if not lo - _SLACK_MM <= v <= hi + _SLACK_MM:
                fixes.append(f"{key} {v:g} puts its {a.size_mm:g} mm square off the {w:g} x {d:g} mm table; did you "
                             f"mean {key} = {min(max(v, lo), hi):g}?")
        out += [f"{where} anchor {a.id}: {fix}" for fix in fixes]
    for i, a in enumerate(layout.anchors):
        for b in layout.anchors[i + 1:]:
            reach = (paper_mm(layout.dictionary, a.size_mm) + paper_mm(layout.dictionary, b.size_mm)) / 2.0
            dx, dy = b.x_mm - a.x_mm, b.y_mm - a.y_mm
            if abs(dx) < reach - _SLACK_MM and abs(dy) < reach - _SLACK_MM:
                # the smaller move of anchor b that frees the two papers
                key, along, at = ("x_mm", dx, a.x_mm) if abs(dx) >= abs(dy) else ("y_mm", dy, a.y_mm)
                value = math.ceil(at + reach) if along >= 0 else math.floor(at - reach)
                out.append(f"{where} anchor {b.id}: its printed square overlaps anchor {a.id}'s (centres "
                           f"{math.hypot(dx, dy):.0f} mm apart, their papers need {reach:.0f} mm along x or y); did "
                           f"you mean {key} = {value:g}?")
    g = layout.grid
    if g is not None:
        for axis, origin, count, top, what in (("x", g.origin_x_mm, g.cols, w, "cols"),
                                                ("y", g.origin_y_mm, g.rows, d, "rows")):
            if origin < -_SLACK_MM or origin > top:
                out.append(f"{where} [grid]: origin_{axis}_mm {origin:g} puts the grid off the table; did you mean "
                           f"origin_{axis}_mm = 0?")
                continue
            end = origin + count * g.field_mm
            if end > top + _SLACK_MM:
                fit = int((top - origin + _SLACK_MM) // g.field_mm)
                out.append(f"{where} [grid]: {count} {what} of {g.field_mm:g} mm from {axis} {origin:g} reach "
                           f"{axis} {end:g} mm, beyond the table's {top:g} mm; did you mean {what} = {fit}?")
    return out


def _anchor(a, w: str, dictionary: str) -> Anchor:
    if not isinstance(a, dict) or isinstance(a.get("id"), bool) or not isinstance(a.get("id"), int) or a["id"] < 0:
        raise InputError(f"{w}: needs an integer 'id' >= 0")
    check_keys(a, _ANCHOR_KEYS, w)
    check_marker_id(a["id"], dictionary, w)
    size = number(a, "size_mm", w, positive=True)
    z = number(a, "z_mm", w, default=0.0, limit=MAX_ANCHOR_Z_MM)
    if z < 0:
        raise InputError(f"{w}: 'z_mm' is the height of the anchor's face above the cloth, 0..{MAX_ANCHOR_Z_MM:g} mm, "
                         f"not {z:g}")
    return Anchor(a["id"], number(a, "x_mm", w), number(a, "y_mm", w), size, z_mm=z)


def _dice_tray(t: dict, w: str, width: float, depth: float) -> tuple[tuple[float, float], ...]:
    """The tray's polygon: at least 3 [x, y] corners in table mm, each on the table (common.dice_tray checks the
    rest, as for a board file's tray)."""
    check_keys(t, _TRAY_KEYS, w)

    def off_table(x: float, y: float) -> str | None:
        if -_SLACK_MM <= x <= width + _SLACK_MM and -_SLACK_MM <= y <= depth + _SLACK_MM:
            return None
        return (f"corner [{x:g}, {y:g}] is off the {width:g} x {depth:g} mm table; did you mean "
                f"[{min(max(x, 0.0), width):g}, {min(max(y, 0.0), depth):g}]?")

    return parse_tray(t.get("polygon_mm"), w, "table", "[[1000, 1050], [1400, 1050], [1400, 1190], [1000, 1190]]",
                      off_table)


def _grid(g: dict, w: str) -> Grid:
    check_keys(g, _GRID_KEYS, w)
    cols, rows = g.get("cols"), g.get("rows")
    if not (isinstance(cols, int) and isinstance(rows, int) and not isinstance(cols, bool)
            and not isinstance(rows, bool) and cols > 0 and rows > 0):
        raise InputError(f"{w}: 'cols' and 'rows' must be positive integers")
    if cols > MAX_GRID_COLS or rows > MAX_GRID_ROWS or cols * rows > MAX_GRID_FIELDS:
        raise InputError(f"{w}: a {cols} x {rows} grid is too large (at most {MAX_GRID_COLS} columns, "
                         f"{MAX_GRID_ROWS} rows and {MAX_GRID_FIELDS} fields)")
    return Grid(
        number(g, "origin_x_mm", w, default=0.0),
        number(g, "origin_y_mm", w, default=0.0),
        number(g, "field_mm", w, positive=True),
        cols,
        rows,
    )


def load_layout(path: str | Path, findings: list[str] | None = None) -> TableLayout:
    return parse_layout(read_toml(path, "layout file"), str(path), findings)


def layout_to_toml(layout: TableLayout) -> str:
    """The layout as TOML text that `load_layout` reads back."""
    lines = [
        "[table]",
        f"width_mm = {layout.width_mm:g}",
        f"depth_mm = {layout.depth_mm:g}",
        "",
        "[markers]",
        f'dictionary = "{layout.dictionary}"',
    ]
    for a in layout.anchors:
        lines += ["", "[[anchor]]", f"id = {a.id}", f"x_mm = {a.x_mm:g}", f"y_mm = {a.y_mm:g}"]
        lines.append(f"size_mm = {a.size_mm:g}")
        if a.z_mm:
            lines.append(f"z_mm = {a.z_mm:g}")
    if layout.grid is not None:
        g = layout.grid
        lines += [
            "",
            "[grid]",
            f"origin_x_mm = {g.origin_x_mm:g}",
            f"origin_y_mm = {g.origin_y_mm:g}",
            f"field_mm = {g.field_mm:g}",
            f"cols = {g.cols}",
            f"rows = {g.rows}",
        ]
    lines += tray_toml(layout.dice_tray_mm)
    return "\n".join(lines) + "\n"
