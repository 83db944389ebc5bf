"""A table layout for a rig: its anchors placed where the cameras' footprints and overlaps need them
(calibration.rig_anchors), for `fieldglass print anchors --rig`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from calibration.layout import TableLayout
from calibration.rig import RigEntry, footprint_overlap
from calibration.rig_anchors import anchors_seen, is_seam, place_rig_anchors
from common.errors import InputError

DEFAULT_ANCHOR_MM = 50.0
DEFAULT_DICTIONARY = "DICT_4X4_250"
MAX_ANCHOR_MM = 500.0


@dataclass(frozen=True)
class RigAnchors:
    """Which anchors each camera's footprint holds, and which each seam (overlap of neighbours) holds."""

    cameras: tuple[tuple[str, tuple[int, ...]], ...]
    seams: tuple[tuple[str, str, tuple[int, ...]], ...]


def _footprints(entries: Sequence[RigEntry]) -> list[tuple[str, tuple[float, float, float, float]]]:
    missing = [e.name for e in entries if e.footprint_mm is None]
    if missing:
        raise InputError(f"rig camera {missing[0]}: no footprint_mm = [x0, y0, x1, y1] (the part of the table it must "
                         "see; `fieldglass plan --rig-out` writes it)")
    return [(e.name, e.footprint_mm) for e in entries]


def rig_layout(entries: Sequence[RigEntry], layout: TableLayout | None, anchor_mm: float | None = None,
               ) -> tuple[TableLayout, RigAnchors]:
    """`layout` (or, without it, a table the size of the footprints' bounding box) with its anchors replaced by
    ones placed for the rig's footprints (side `anchor_mm`, default the layout's first anchor's, else 50 mm)."""
    feet = _footprints(entries)
    if anchor_mm is not None and not (math.isfinite(anchor_mm) and 0 < anchor_mm <= MAX_ANCHOR_MM):
        raise InputError(f"--anchor-mm {anchor_mm:g}: must be a side in mm above 0 and at most {MAX_ANCHOR_MM:g}")
    if layout is None:
        width, depth = max(f[2] for _, f in feet), max(f[3] for _, f in feet)
        layout = TableLayout(width, depth, DEFAULT_DICTIONARY, ())
    size = anchor_mm or (layout.anchors[0].size_mm if layout.anchors else DEFAULT_ANCHOR_MM)
    anchors = place_rig_anchors(feet, (layout.width_mm, layout.depth_mm), size, layout.dictionary)
    placed = TableLayout(layout.width_mm, layout.depth_mm, layout.dictionary, anchors, layout.grid)
    cams = tuple((name, anchors_seen(anchors, f, dictionary=layout.dictionary)) for name, f in feet)
    seams = []
    for i, (a, fa) in enumerate(feet):
        for b, fb in feet[i + 1:]:
            shared = footprint_overlap(fa, fb)
            if shared is not None and is_seam(shared, fa, fb):
                seams.append((a, b, anchors_seen(anchors, shared, dictionary=layout.dictionary)))
    return placed, RigAnchors(cams, tuple(seams))


def rig_anchor_lines(layout: TableLayout, seen: RigAnchors) -> list[str]:
    """The placed anchors as [[anchor]] TOML entries, preceded by comments saying which camera sees which."""
    out = [f"# {len(layout.anchors)} anchors of {layout.anchors[0].size_mm:g} mm ({layout.dictionary}) for "
           f"{len(seen.cameras)} camera(s) over a {layout.width_mm:g} x {layout.depth_mm:g} mm table"]
    out += [f"# {name} sees anchors {', '.join(map(str, ids))}" for name, ids in seen.cameras]
    out += [f"# {a} and {b} share anchors {', '.join(map(str, ids))}" for a, b, ids in seen.seams]
    for a in layout.anchors:
        out += ["", "[[anchor]]", f"id = {a.id}", f"x_mm = {a.x_mm:g}", f"y_mm = {a.y_mm:g}",
                f"size_mm = {a.size_mm:g}"]
    return out
