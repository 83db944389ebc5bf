"""DBX overlays for a TableView: terrain, element bases, and for the selected element its zone of control, fire zone,
reachable area, target lines with distances in paces and contact markers with their type.

Self-contained: `draw_session(view)` draws a whole DbxSession (fieldglass/session_dbx.py) through the view's overlay
helpers and its table-mm mapper (LiveMapper over the camera image or BoardMapper). Item kinds (QGraphicsItem data
KIND_KEY, for tests and tooltips): "dbx-terrain", "dbx-element", "dbx-zoc", "dbx-zoc-of", "dbx-fire-zone",
"dbx-reach", "dbx-target-line" (data 2 = target id, data 3 = paces, data 4 = line kind), "dbx-target-label",
"dbx-contact" (data 2 = other element, data 3 = contact type), "dbx-contact-label", "pending-move",
"pending-remove", "pending-label", "label".
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QTransform
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsItem, QGraphicsPathItem, QGraphicsPolygonItem

from gui.views import PIECE_KEY, SIDE_COLOURS, LiveMapper, _path_lines, _pen, _polygon, _qp

TERRAIN = {"wood": QColor(30, 130, 40, 90), "gentle_hill": QColor(200, 170, 90, 80),
           "steep_hill": QColor(170, 120, 60, 100), "marsh": QColor(80, 120, 110, 90),
           "rough": QColor(150, 130, 90, 90),
           "dunes": QColor(230, 200, 120, 90), "oasis": QColor(60, 170, 90, 90), "fields": QColor(200, 200, 90, 70),
           "settlement": QColor(170, 90, 40, 100), "river": QColor(40, 90, 220, 100), "road": QColor(200, 180, 120, 90),
           "waterway": QColor(30, 60, 200, 120), "fortress": QColor(120, 120, 120, 110),
           "beach": QColor(230, 220, 160, 80)}
ZOC = QColor(255, 150, 40)
FIRE = QColor(255, 230, 60)
REACH = QColor(60, 230, 110)
LINE_COLOURS = {"fire": QColor(255, 230, 60), "melee": QColor(255, 70, 70), "candidate": QColor(255, 160, 60),
                "zoc": QColor(255, 150, 40)}
CONTACT_COLOURS = {"front": QColor(255, 60, 60), "flank": QColor(255, 0, 220), "rear": QColor(190, 0, 255),
                   "corner": QColor(255, 200, 0), "overlap": QColor(0, 220, 255)}
PENDING = QColor(0, 230, 255)


def _fill(view, m, poly, colour: QColor, alpha: int, kind: str, tip: str, z: float, style=Qt.PenStyle.SolidLine,
          width: float = 2.0):
    item = QGraphicsPolygonItem(_polygon(m, np.asarray(poly, float)))
    fill = QColor(colour)
    fill.setAlpha(alpha)
    item.setBrush(QBrush(fill))
    item.setPen(_pen(colour, width, style))
    item.setToolTip(tip)
    return view._add(item, z, kind)


def _mid(m, xy, z: float = 0.0) -> np.ndarray:
    return m.points(np.asarray([xy], float), z)[0]


def draw_session(view) -> None:
    s = view.session
    m = view.mapper
    pos = s.position
    if pos is None:
        return
    for t in pos.terrain:
        for part in t.parts:
            colour = TERRAIN.get(t.type, QColor(160, 140, 90, 80))
            item = _fill(view, m, part, colour, colour.alpha(), "dbx-terrain", f"{t.id}: {t.type.replace('_', ' ')}",
                         1, width=1.0)
            item.setPen(_pen(QColor(colour.red(), colour.green(), colour.blue(), 200), 1.0, Qt.PenStyle.DashLine))
        if t.type in ("gentle_hill", "steep_hill") and t.crest_line is not None and len(t.crest_line) >= 2:
            crest = QGraphicsPathItem(_path_lines(m, [t.crest_line]))
            crest.setPen(_pen(QColor(140, 100, 40), 2.0, Qt.PenStyle.DashDotLine))
            view._add(crest, 1.2, "dbx-terrain")
        if view.show_labels and t.parts:
            view._text(f"{t.id} {t.type.replace('_', ' ')}", _mid(m, t.parts[0].mean(0)), QColor(230, 230, 210), 2,
                       "dbx-terrain-label", size=7.0)
    sel = s.selection_overlay()
    if sel is not None:
        _draw_selection(view, m, sel)
    _draw_elements(view, m)


def _draw_selection(view, m, sel) -> None:
    s = view.session
    pos = s.position
    if len(sel.reach) >= 3:
        _fill(view, m, sel.reach, REACH, 35, "dbx-reach",
              f"{sel.piece}: base centre reach in one straight move, {sel.allowance_paces} paces "
              f"({sel.allowance_reason}, §5.3)", 3, Qt.PenStyle.DashLine, 1.5)
    if sel.fire_zone is not None:
        _fill(view, m, sel.fire_zone, FIRE, 45, "dbx-fire-zone",
              f"{sel.piece}: fire zone, 1 BB either side ahead of the front edge, {sel.fire_range_paces} paces "
              f"(§6.1, §7): {sel.fire_reason}", 3.5, Qt.PenStyle.DashLine, 1.5)
        far = sel.fire_zone[[0, 1]].mean(0)
        shoots = sel.analysis.get("can_shoot", True)
        text = f"fire {sel.fire_range_paces} p" if shoots else f"no fire now: {sel.fire_reason}"
        view._text(text, _mid(m, far), FIRE, 5, "dbx-fire-zone-label", size=7.5)
    if sel.zoc is not None:
        _fill(view, m, sel.zoc, ZOC, 70, "dbx-zoc", f"{sel.piece}: zone of control, 1 BB ahead of its front edge "
              "(§3.4)", 4)
    for eid in sel.zoc_of:  # the enemies whose zone of control the selected element stands in
        from rules.dbx.contact import zoc_rect

        _fill(view, m, zoc_rect(pos, pos.piece(eid), s.system.opts), ZOC, 25, "dbx-zoc-of",
              f"{sel.piece} stands in {eid}'s zone of control (§3.4)", 4, Qt.PenStyle.DotLine, 1.5)
    for ln in sel.lines:
        colour = LINE_COLOURS.get(ln.kind, QColor(255, 255, 255))
        style = {"fire": Qt.PenStyle.SolidLine, "melee": Qt.PenStyle.SolidLine,
                 "candidate": Qt.PenStyle.DashLine}.get(ln.kind, Qt.PenStyle.DotLine)
        item = QGraphicsPathItem(_path_lines(m, [np.array([ln.start, ln.end], float)]))
        item.setPen(_pen(colour, 3.0 if ln.kind in ("fire", "melee") else 2.0, style))
        item.setToolTip(ln.text)
        view._add(item, 5, "dbx-target-line")
        item.setData(2, ln.target)
        item.setData(3, ln.paces)
        item.setData(4, ln.kind)
        if ln.kind == "melee" and any(c.piece == ln.target for c in sel.contacts):
            continue  # in contact: the contact marker's label says it
        mid = (np.asarray(ln.start) + np.asarray(ln.end)) / 2
        view._text(ln.text if ln.kind != "candidate" else f"{ln.target} {ln.paces:.0f} p (not nearest)",
                   _mid(m, mid) + np.array([6.0, -6.0]), colour, 9, "dbx-target-label",
                   bold=ln.kind in ("fire", "melee"))
    melee = {ln.target: ln for ln in sel.lines if ln.kind == "melee"}
    for i, c in enumerate(sel.contacts):
        colour = CONTACT_COLOURS.get(c.kind, QColor(255, 255, 255))
        at = _mid(m, c.at)
        r = 6.0
        dot = QGraphicsEllipseItem(-r, -r, 2 * r, 2 * r)
        dot.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        dot.setPos(float(at[0]), float(at[1]))
        dot.setPen(_pen(QColor(20, 20, 20), 1.5))
        fill = QColor(colour)
        dot.setBrush(QBrush(fill))
        who = "touches" if c.by == sel.piece else f"is touched by {c.by} on its"
        tip = (f"{sel.piece} {who} {c.piece}: {c.kind} contact ({c.edge or '?'} edge)"
               + ("" if c.valid or c.kind in ("corner", "overlap") else ", not a legal contact (§3.5)"))
        if c.by != sel.piece:
            tip = f"{c.by} touches {sel.piece}'s {c.edge or '?'} edge: {c.kind}"
        dot.setToolTip(tip)
        view._add(dot, 9.5, "dbx-contact")
        dot.setData(2, c.piece)
        dot.setData(3, c.kind)
        label = f"{c.kind} {c.piece}" + ("" if c.valid or c.kind in ("corner", "overlap") else " (invalid)")
        if c.piece in melee:
            label += f" · melee {melee[c.piece].text.rsplit(' ', 1)[-1]}"
        plate = view._text(label, at, colour, 9.6, "dbx-contact-label", bold=True)
        plate.setTransform(QTransform.fromTranslate(10.0, -8.0 + 16.0 * i))  # screen pixels: labels stacked


def _draw_elements(view, m) -> None:
    from rules.dbx.model import base_size
    from vision.tracking import Place

    s = view.session
    pos = s.position
    live = isinstance(m, LiveMapper)
    sides = {side: i for i, side in enumerate(s.sides)}
    for v in s.piece_views():
        rp = v.piece
        e = pos.by_id.get(rp.id)
        pose = v.pose
        if e is None and (pose is None or v.status == "removed" and v.pending is None):
            continue
        if e is not None:
            from rules.dbx.model import corners

            poly, place = corners(e, pos.scale), Place(e.x_mm, e.y_mm, e.heading_deg)
            w, d = base_size(e, pos.scale)
        else:
            from gui.views import base_corners

            poly, place = base_corners(pose.x_mm, pose.y_mm, pose.heading_deg, rp.base_mm), pose
            w, d = rp.base_mm
        pend = v.pending
        if pend is not None and pose is not None:  # the element stands where the camera sees it until moved
            from gui.views import base_corners

            poly, place = base_corners(pose.x_mm, pose.y_mm, pose.heading_deg, (w, d)), pose
        z = rp.marker_height_mm if live else 0.0
        colour = QColor(SIDE_COLOURS[sides.get(rp.side, 0) % len(SIDE_COLOURS)])
        style = Qt.PenStyle.SolidLine
        if v.status == "occluded":
            colour, style = QColor(170, 170, 170), Qt.PenStyle.DashLine
        selected, second = rp.id == s.selected, rp.id == s.second
        item = QGraphicsPolygonItem(_polygon(m, poly, z))
        item.setPen(_pen(QColor(255, 255, 255) if selected else QColor(255, 0, 255) if second else colour,
                         4.0 if selected or second else 2.0, style))
        fill = QColor(colour)
        fill.setAlpha(60 if v.status != "occluded" else 25)
        item.setBrush(fill)
        item.setData(PIECE_KEY, rp.id)
        name = e.ut.name if e is not None else (v.type or rp.type)
        item.setToolTip(f"{rp.id} ({rp.side} {v.type or rp.type}, {name}): {v.status}; {place.x_mm:.1f}, "
                        f"{place.y_mm:.1f} mm facing {place.heading_deg:.0f}°; base {w:.0f} x {d:.0f} mm")
        view._add(item, 6, "dbx-element")
        # the front edge, thicker: which way the element faces
        front = QGraphicsPathItem(_path_lines(m, [poly[[0, 1]]], z))
        front.setPen(_pen(QColor(255, 255, 255) if selected else colour, 4.0 if selected else 3.0))
        front.setData(PIECE_KEY, rp.id)
        view._add(front, 6.5, "facing")
        if view.show_labels or selected or second:
            label = f"{rp.id} {v.type or '?'}"
            if e is not None and e.quality:
                label += f" {e.quality}"
            if e is not None and e.square:
                label += f" sq{e.square}"
            if v.status == "occluded":
                label += " (hidden)"
            h = math.radians(place.heading_deg)
            back = np.array([place.x_mm, place.y_mm]) - np.array([math.sin(h), math.cos(h)]) * (d / 2 + 2)
            t = view._text(label, _mid(m, back, z), QColor(255, 255, 255), 7 + (selected or second), "label",
                           bold=selected or second, size=8.5 if selected or second else 7.0)
            t.setData(PIECE_KEY, rp.id)
        if pend is not None:
            _draw_pending(view, m, pend, place, (w, d), z)


def _draw_pending(view, m, ch, place, base, z) -> None:
    from gui.views import base_corners

    c = _mid(m, (place.x_mm, place.y_mm), z)
    if ch.removed:
        sq = base_corners(place.x_mm, place.y_mm, place.heading_deg, (base[0] + 10, base[1] + 10))
        p = m.points(sq, z)
        path = QPainterPath()
        path.moveTo(_qp(p[0]))
        path.lineTo(_qp(p[2]))
        path.moveTo(_qp(p[1]))
        path.lineTo(_qp(p[3]))
        item = QGraphicsPathItem(path)
        item.setPen(_pen(QColor(255, 50, 50), 4.0))
        item.setToolTip(ch.describe())
        view._add(item, 8, "pending-remove")
        view._text("take off", c, QColor(255, 50, 50), 8, "pending-label", bold=True)
        return
    ghost = base_corners(ch.x_mm, ch.y_mm, ch.heading_deg, base)
    item = QGraphicsPolygonItem(_polygon(m, ghost, z))
    item.setPen(_pen(PENDING, 2.5, Qt.PenStyle.DashLine))
    item.setBrush(QColor(0, 230, 255, 50))
    item.setToolTip(ch.describe())
    view._add(item, 8, "pending-move")
    to = _mid(m, (ch.x_mm, ch.y_mm), z)
    path = QPainterPath()
    path.moveTo(_qp(c))
    path.lineTo(_qp(to))
    line = QGraphicsPathItem(path)
    line.setPen(_pen(PENDING, 2.0, Qt.PenStyle.DotLine))
    view._add(line, 8, "pending-path")
    view._text(f"→ {ch.x_mm:.0f},{ch.y_mm:.0f} {ch.heading_deg:.0f}°", to, PENDING, 8, "pending-label", bold=True)


__all__ = ["draw_session"]
