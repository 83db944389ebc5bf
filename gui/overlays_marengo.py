"""Marengo board overlays for a TableView: areas, approaches, roads, the selected block's reach and attacks.

Self-contained: `draw_marengo(view, mapper, board, board_pose, position, selected)` adds items (kinds
"marengo-area", "marengo-approach", "marengo-road", "marengo-select", "marengo-reach", "marengo-attack") through
the view's overlay helpers; `mapper` is the view's table-mm mapper (LiveMapper over the camera image or BoardMapper).
`draw_session(view)` draws a whole Marengo session (gui/marengo.py hooks it into the dashboard).
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
        poly = np.asarray(area.polygon, float)  # the label in the area's north-west corner, clear of the reserve
        corner = (poly[:, 0].min() + 6.0, poly[:, 1].max() - 6.0)
        view._text(area.id, m.points(np.array([corner]))[0], AREA, 6, "marengo-area", bold=True)
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


# ---------------------------------------------------------------------------------------------- the dashboard


SIDE_FILL = {"AU": QColor(245, 245, 245), "FR": QColor(70, 130, 255)}
PENDING_MOVE = QColor(0, 230, 255)


def draw_session(view) -> None:
    """Everything a Marengo session shows on a TableView: the board (areas, approaches, roads), the selected block's
    area, the areas it can reach with their cost and the attack options with the engine's outcome, and the blocks
    as the current viewer may see them (fieldglass.session_marengo.MarengoSession)."""
    s = view.session
    board = s.board
    draw_marengo(view, view.mapper, board, s.board_pose)
    m = BoardOnTable(view.mapper, s.board_pose)
    sel = s.selection_overlay()
    if sel is not None and sel.area is not None:
        _fill(view, m, board.areas[sel.area].polygon, SELECT, "marengo-select", f"{sel.piece} in {sel.area}")
        for opt in sel.options:
            kind = "marengo-attack" if opt.attack else "marengo-reach"
            item = QGraphicsPolygonItem(_polygon(m, board.areas[opt.area].polygon))
            item.setBrush(QBrush(ATTACK if opt.attack else REACH))
            item.setPen(_pen(QColor(255, 80, 80) if opt.attack else QColor(40, 230, 90), 2.0))
            item.setToolTip(f"area {opt.area}: {opt.text}")
            item.setData(2, opt.area)
            view._add(item, 4, kind)
            at = m.points(np.array([board.areas[opt.area].centre]))[0]
            for i, (action, cost, word) in enumerate(opt.actions):
                text = f"{action.replace('_', ' ')} {cost}" + (f" → {word}" if word else "")
                colour = QColor(255, 150, 150) if action in ("thrust", "assault", "announce_bombardment",
                                                           "thrust_against_push") else QColor(170, 255, 170)
                view._text(text, at + np.array([-40.0, 14.0 + 13.0 * i]), colour, 8, kind + "-label",
                           bold=bool(word))
    _draw_blocks(view, m)


def _draw_blocks(view, m) -> None:
    from gui.views import PIECE_KEY, LiveMapper, base_corners

    s = view.session
    live = isinstance(view.mapper, LiveMapper)
    views = s.block_views()
    for v in s.piece_views():
        if v.pose is None or v.status == "removed" and v.pending is None:
            continue
        pid = s._aliases.get(v.piece.id, v.piece.id)
        rp = s.roster.piece(pid)
        bv = views.get(pid)
        z = rp.marker_height_mm if live else 0.0
        pose = v.pose
        colour = QColor(SIDE_FILL.get(rp.side, QColor(255, 200, 80)))
        corners = base_corners(pose.x_mm, pose.y_mm, pose.heading_deg, rp.base_mm)
        poly = QGraphicsPolygonItem(_polygon(view.mapper, corners, z))
        selected, second = pid == s.selected, pid == s.second
        pen_col = QColor(0, 230, 255) if selected else QColor(255, 0, 255) if second else QColor(20, 20, 20)
        poly.setPen(_pen(pen_col, 4.0 if selected or second else 1.5,
                         Qt.PenStyle.DashLine if v.status == "occluded" else Qt.PenStyle.SolidLine))
        fill = QColor(colour)
        fill.setAlpha(150)
        poly.setBrush(fill)
        poly.setData(PIECE_KEY, pid)
        hidden = bv is not None and bv.hidden
        pl = s.placements.get(pid)
        where = f"area {pl.area} {pl.position or '(on a border: not placed)'}" if pl else "not placed"
        if hidden:
            label = bv.label
            tip = f"{bv.label}: a {rp.side} block, identity hidden; {where}"
        else:
            st = s.state.states.get(pid, {})
            b = s.position.blocks_by_id.get(pid) if s.position is not None else None
            label = f"{pid} {(v.type or '?')[:3]} {st.get('strength', '?')}"
            if b is not None and b.revealed and s.viewer != "umpire" and b.side != s.viewer:
                label += " (revealed)"
            tip = f"{pid}: {rp.side} {v.type} strength {st.get('strength', '?')}, {v.status}; {where}"
        poly.setToolTip(tip)
        view._add(poly, 7, "marengo-block-hidden" if hidden else "marengo-block")
        at = view.mapper.points(np.array([[pose.x_mm - rp.base_mm[0] / 2, pose.y_mm + rp.base_mm[1] / 2 + 14]]), z)[0]
        if view.show_labels or selected or second:
            t = view._text(label, at, QColor(255, 255, 255), 7.5, "label", bold=selected or second)
            t.setData(PIECE_KEY, pid)
        if pl is not None and pl.on_border:
            view._text("on a border?", at + np.array([0.0, 14.0]), QColor(255, 190, 90), 7.5, "marengo-border")
        if v.pending is not None:
            _draw_pending(view, m, v.pending, view.mapper.points(np.array([[pose.x_mm, pose.y_mm]]), z)[0])


def _draw_pending(view, m, ch, at) -> None:
    from PySide6.QtGui import QPainterPath

    from gui.views import _qp

    board = view.session.board
    if ch.removed:
        view._text("take off", at, QColor(255, 60, 60), 8, "pending-label", bold=True)
        return
    if ch.approach is None:
        xy = board.areas[ch.area].centre
    else:
        xy = board.approach_point(board.approach(ch.area, ch.approach))
    to = m.points(np.array([xy]))[0]
    path = QPainterPath()
    path.moveTo(_qp(at))
    path.lineTo(_qp(to))
    line = QGraphicsPathItem(path)
    line.setPen(_pen(PENDING_MOVE, 2.5, Qt.PenStyle.DotLine))
    line.setToolTip(ch.describe())
    view._add(line, 8, "pending-path")
    view._text(f"→ {ch.describe()}", to, PENDING_MOVE, 8, "pending-label", bold=True)
