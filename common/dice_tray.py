"""The dice tray's polygon, as a table layout (`calibration.layout`, table mm) and a board file (`rules.board`, board
mm) both read and write it: `[dice_tray] polygon_mm = [[x, y], ...]`. One check here so that the two files take the
same trays with the same words; each file adds where on it a corner may lie."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from common.errors import InputError

MIN_TRAY_MM2 = 100.0  # the least a dice tray encloses: one 12-20 mm die lying in it

Tray = tuple[tuple[float, float], ...]


def tray_problem(corners: Iterable) -> str | None:
    """What makes `corners` ((x, y) mm) no dice tray, or None: fewer than 3, a corner not a finite number, or a
    polygon enclosing less than MIN_TRAY_MM2."""
    pts = [(float(x), float(y)) for x, y in corners]
    if len(pts) < 3:
        return f"a tray needs 3 corners or more, not {len(pts)}"
    for x, y in pts:
        if not (math.isfinite(x) and math.isfinite(y)):
            return f"corner [{x:g}, {y:g}] is not a finite number of mm"
    area = 0.5 * abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True)))
    if area < MIN_TRAY_MM2:
        return f"the polygon encloses {area:.0f} mm2; a tray holds dice of 12-20 mm"
    return None


def parse_tray(value, where: str, frame: str, example: str,
               corner_problem: Callable[[float, float], str | None]) -> Tray:
    """`[dice_tray] polygon_mm` as read from TOML -> its corners ((x, y) in `frame` mm, e.g. "table"), or InputError
    naming `where`: not a list of at least 3 [x, y] numbers (the message shows `example`), a corner not finite, a
    corner where `corner_problem(x, y)` objects (its words follow `where`), or too small a polygon. In that order:
    the one a user fixes first."""
    if not isinstance(value, list) or len(value) < 3 or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, int | float) and not isinstance(v, bool)
                                                        for v in p) for p in value):
        raise InputError(f"{where}: 'polygon_mm' must list at least 3 [x, y] corners in {frame} mm, e.g. {example}")
    pts = tuple((float(x), float(y)) for x, y in value)
    for x, y in pts:
        # a nan would pass no comparison below and be named "off the table" with a nan fix; say what it is
        problem = (f"corner [{x:g}, {y:g}] is not a finite number of mm"
                   if not (math.isfinite(x) and math.isfinite(y)) else corner_problem(x, y))
        if problem:
            raise InputError(f"{where}: {problem}")
    problem = tray_problem(pts)
    if problem:
        raise InputError(f"{where}: {problem}")
    return pts


def tray_toml(corners: Tray | None) -> list[str]:
    """The `[dice_tray]` table's lines (a blank line first) for a layout or board file; [] without a tray."""
    if not corners:
        return []
    return ["", "[dice_tray]", "polygon_mm = [" + ", ".join(f"[{x:g}, {y:g}]" for x, y in corners) + "]"]
