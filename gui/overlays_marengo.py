"""Marengo board overlays for a TableView: areas, approaches, roads, the selected block's reach and attacks.

Self-contained: `draw_marengo(view, mapper, board, board_pose, position, selected)` adds items (kinds
"marengo-area", "marengo-approach", "marengo-road", "marengo-select", "marengo-reach", "marengo-attack") through
the view's overlay helpers; `mapper` is the view's table-mm mapper (LiveMapper over the camera image or BoardMapper).
Not yet hooked into the dashboard's `--system marengo --board` start-up (see the issue 8 report).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsPolygonItem

from gui.views import _path_lines, _pen, _polygon
from rules.marengo import analysis

AREA = QColor(250, 250, 250, 160)
NARROW = QColor(255, 200, 60)
WIDE = QColor(60, 200, 255)
IMPASSABLE = QColor(255, 50, 50)
MAIN_ROAD = QColor(230, 200, 150)
SECONDARY_ROAD = QColor(200, 170, 120)
SELECT = QColor(0, 230, 255, 70)
REACH = QColor(40, 230, 90, 60)
ATTACK = QColor(255, 80, 80, 70)


class BoardOnTable:
    """Board mm -> the view's scene through the board's pose on the table (None: the board is the table)."""

    def __init__(self, mapper, board_pose=None):
        self.mapper, self.pose = mapper, board_pose
        self.densify_mm = getattr(mapper, "densify_mm", 0.0)

    def points(self, xy: np.ndarray, z: float = 0.0) -> np.ndarray:
        xy = np.asarray(xy, float).reshape(-1, 2)
        table = xy if self.pose is None else self.pose.board_to_table(xy)
        return self.mapper.points(table, z)


def draw_marengo(view, mapper, board, board_pose=None, position=None, selected: str | None = None) -> None:
    m = BoardOnTable(mapper, board_pose)
    for area in board.areas.values():
        item = QGraphicsPolygonItem(_polygon(m, area.polygon))
        item.setPen(_pen(AREA, 1.5))
        item.setToolTip(f"area {area.id} {area.name}")
        view._add(item, 5, "marengo-area")
        view._text(area.id, m.points(np.array([area.centre]))[0], AREA, 6, "marengo-area")
    for ap in board.approaches.values():
        seg = board.approach_segment(ap, 2.0)
        if len(seg) < 2:
            continue
        inward = np.asarray(board.areas[ap.area].centre) - seg.mean(0)
        inward = inward / (np.linalg.norm(inward) or 1.0) * min(board.approach_depth_mm / 2, 8.0)
        ends = seg[[0, -1]] + inward
        colour = IMPASSABLE if ap.impassable else (WIDE if ap.width == "wide" else NARROW)
        item = QGraphicsPathItem(_path_lines(m, [ends]))
        item.setPen(_pen(colour, 3.0 if ap.width == "wide" else 2.0,
                         Qt.PenStyle.DashLine if ap.impassable else Qt.PenStyle.SolidLine))
        item.setToolTip(f"approach {ap.id}: {ap.width}")
        view._add(item, 6, "marengo-approach")
    for road in board.roads:
        pts = [board.areas[a].centre for a in road.areas if a in board.areas]
        if len(pts) < 2:
            continue
        item = QGraphicsPathItem(_path_lines(m, [np.array(pts)]))
        main = road.road_class == "main"
        item.setPen(_pen(MAIN_ROAD if main else SECONDARY_ROAD, 2.5 if main else 1.5,
                         Qt.PenStyle.SolidLine if main else Qt.PenStyle.DashLine))
        item.setToolTip(f"{road.road_class} road {road.id}")
        view._add(item, 5.5, "marengo-road")
    if position is None or selected is None or selected not in position.blocks_by_id:
        return
    block = position.block(selected)
    if not block.on_map:
        return
    _fill(view, m, board.areas[block.area].polygon, SELECT, "marengo-select", f"{selected} in {block.area}")
    for nb in board.neighbours(block.area):
        acts = [a for a in analysis.legal_actions(position, block.area, nb, only=[selected]) if a["legal"]]
        if not acts:
            continue
        attack = any(a["action"] in ("thrust", "assault", "announce_bombardment") for a in acts)
        kind = "marengo-attack" if attack else "marengo-reach"
        text = ", ".join(f"{a['action']} {a['cost']}" for a in acts)
        _fill(view, m, board.areas[nb].polygon, ATTACK if attack else REACH, kind, f"{nb}: {text}")
        view._text(text, m.points(np.array([board.areas[nb].centre]))[0] + 12, QColor(255, 255, 255), 8, kind)


def _fill(view, m, polygon, colour, kind, tip) -> None:
    item = QGraphicsPolygonItem(_polygon(m, polygon))
    item.setBrush(QBrush(colour))
    item.setPen(_pen(colour, 1.0))
    item.setToolTip(tip)
    view._add(item, 4, kind)
