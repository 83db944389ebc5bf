"""A printed board of areas in the drawing language (rules/picture.py): its areas with their ids, its approaches
by width (narrow, wide, impassable dashed) and its roads (main solid, secondary dashed).

Board geometry is in board mm; `to_table` maps board mm to table mm (the board's registered pose on the table),
None where the board is the table. Used by every system on a board, the board editor and the exports.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rules.picture import AREA_PRIORITY, Area, Item, Label, LegendEntry, Line, marks, points, sample_line

ToTable = Callable[[np.ndarray], np.ndarray] | None


def on_table(xy, to_table: ToTable) -> np.ndarray:
    """Board mm -> table mm, (N, 2)."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    return xy if to_table is None else np.asarray(to_table(xy), float).reshape(-1, 2)


def board_items(board, to_table: ToTable = None) -> list[Item]:
    """Every area's outline and id, every approach on the inner side of its border, every road."""
    out: list[Item] = []
    for area in board.areas.values():
        out.append(Area("area", (points(on_table(area.polygon, to_table)),), "area", 0.0, width=1.5,
                        tip=f"area {area.id} {area.name}", layer=5, data=(area.id,)))
        poly = np.asarray(area.polygon, float)  # the label in the area's north-west corner, clear of the reserve
        corner = on_table([(poly[:, 0].min() + 6.0, poly[:, 1].max() - 6.0)], to_table)[0]
        out.append(Label("area", tuple(corner), area.id, "area", 7.0, True, tip=f"area {area.id} {area.name}",
                         layer=6, priority=AREA_PRIORITY, leader=False))
    for ap in board.approaches.values():
        seg = board.approach_segment(ap, 2.0)
        if len(seg) < 2:
            continue
        inward = np.asarray(board.areas[ap.area].centre) - seg.mean(0)
        inward = inward / (np.linalg.norm(inward) or 1.0) * min(board.approach_depth_mm / 2, 8.0)
        ends = on_table(seg[[0, -1]] + inward, to_table)
        tone = "impassable" if ap.impassable else ("wide" if ap.width == "wide" else "narrow")
        out.append(Line("approach", (points(ends),), tone, "dash" if ap.impassable else "solid",
                        3.0 if ap.width == "wide" else 2.0, tip=f"approach {ap.id}: {ap.width}", layer=6,
                        data=(ap.id,)))
    for road in board.roads:
        pts = [board.areas[a].centre for a in road.areas if a in board.areas]
        if len(pts) < 2:
            continue
        main = road.road_class == "main"
        out.append(Line("road", (points(on_table(pts, to_table)),), "road-main" if main else "road-secondary",
                        "solid" if main else "dash", 2.5 if main else 1.5, tip=f"{road.road_class} road {road.id}",
                        layer=5.5))
    return out


BOARD_LEGEND = (
    LegendEntry("approach-narrow", "yellow bar inside an area's border: a narrow approach",
                (sample_line("narrow"),), marks("approach", tone="narrow")),
    LegendEntry("approach-wide", "blue thick bar: a wide approach", (sample_line("wide", width=3.0),),
                marks("approach", tone="wide")),
    LegendEntry("approach-impassable", "red dashed bar: an impassable border", (sample_line("impassable", "dash"),),
                marks("approach", tone="impassable")),
    LegendEntry("road-main", "solid tan line: a main road", (sample_line("road-main", width=2.5),),
                marks("road", tone="road-main")),
    LegendEntry("road-secondary", "dashed tan line: a secondary road", (sample_line("road-secondary", "dash", 1.5),),
                marks("road", tone="road-secondary")),
)
"""The printed board's marks (approaches by width, roads by class)."""
