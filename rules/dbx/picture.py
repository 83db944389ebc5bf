"""What a DBX table shows, in the drawing language of rules/picture.py (table mm, no toolkit).

Terrain pieces with their crest lines; for the selected element its reach in one straight move (§5.3), its fire
zone (§6.1, §7), its zone of control (§3.4) and the zones of the enemies it stands in, lines to its targets with the
distance in paces, and its contacts by type (front, flank, rear, corner, overlap; §3.5); every element as its base
rectangle with the front edge thickened; the recoils, flights and losses the table does not show yet.
"""

from __future__ import annotations

import numpy as np

from rules.dbx.contact import CONTACT_UNCERTAIN, zoc_rect
from rules.dbx.model import base_size, corners
from rules.picture import (
    Area,
    Dot,
    Item,
    Label,
    LegendEntry,
    Line,
    Scene,
    ScenePiece,
    base_items,
    marks,
    pending_items,
    points,
    sample_area,
    sample_line,
)

LINE_PENS = {"fire": ("fire", "solid", 3.0), "melee": ("melee", "solid", 3.0), "candidate": ("candidate", "dash", 2.0),
             "zoc": ("zone", "dot", 2.0)}


def terrain_items(pos, labels: bool) -> list[Item]:
    out: list[Item] = []
    for t in pos.terrain:
        tone = f"terrain:{t.type}"
        name = f"{t.id}: {t.type.replace('_', ' ')}"
        for part in t.parts:
            out.append(Area("dbx-terrain", (points(part),), tone, 0.35, "dash", 1.0, tip=name, layer=1))
        if t.type in ("gentle_hill", "steep_hill") and t.crest_line is not None and len(t.crest_line) >= 2:
            out.append(Line("dbx-terrain", (points(t.crest_line),), "terrain:crest", "dashdot", 2.0, layer=1.2))
        if labels and t.parts:
            out.append(Label("dbx-terrain-label", tuple(np.asarray(t.parts[0], float).mean(0)),
                             f"{t.id} {t.type.replace('_', ' ')}", "muted", 7.0, layer=2))
    return out


def selection_items(sel, pos, opts) -> list[Item]:
    out: list[Item] = []
    if len(sel.reach) >= 3:
        out.append(Area("dbx-reach", (points(sel.reach),), "reach", 0.14, "dash", 1.5,
                        tip=f"{sel.piece}: base centre reach in one straight move, {sel.allowance_paces} paces "
                            f"({sel.allowance_reason}, §5.3)", layer=3))
    if sel.fire_zone is not None:
        out.append(Area("dbx-fire-zone", (points(sel.fire_zone),), "fire", 0.18, "dash", 1.5,
                        tip=f"{sel.piece}: fire zone, 1 BB either side ahead of the front edge, "
                            f"{sel.fire_range_paces} paces (§6.1, §7): {sel.fire_reason}", layer=3.5))
        far = tuple(np.asarray(sel.fire_zone, float)[[0, 1]].mean(0))
        shoots = sel.analysis.get("can_shoot", True)
        text = f"fire {sel.fire_range_paces} p" if shoots else f"no fire now: {sel.fire_reason}"
        out.append(Label("dbx-fire-zone-label", far, text, "fire", 7.5, layer=5))
    if sel.zoc is not None:
        out.append(Area("dbx-zoc", (points(sel.zoc),), "zone", 0.27,
                        tip=f"{sel.piece}: zone of control, 1 BB ahead of its front edge (§3.4)", layer=4))
    for eid in sel.zoc_of:  # the enemies whose zone of control the selected element stands in
        out.append(Area("dbx-zoc-of", (points(zoc_rect(pos, pos.piece(eid), opts)),), "zone", 0.1, "dot", 1.5,
                        tip=f"{sel.piece} stands in {eid}'s zone of control (§3.4)", layer=4))
    contact_ids = {c.piece for c in sel.contacts}
    for ln in sel.lines:
        tone, pen, width = LINE_PENS.get(ln.kind, ("text", "dot", 2.0))
        out.append(Line("dbx-target-line", ((tuple(ln.start), tuple(ln.end)),), tone, pen, width, tip=ln.text,
                        layer=5, data=(ln.target, ln.paces, ln.kind)))
        if ln.kind == "melee" and ln.target in contact_ids:
            continue  # in contact: the contact marker's label says it
        mid = tuple((np.asarray(ln.start, float) + np.asarray(ln.end, float)) / 2)
        text = ln.text if ln.kind != "candidate" else f"{ln.target} {ln.paces:.0f} p (not nearest)"
        out.append(Label("dbx-target-label", mid, text, tone, 7.0, ln.kind in ("fire", "melee"), (6.0, -6.0),
                         layer=9))
    melee = {ln.target: ln for ln in sel.lines if ln.kind == "melee"}
    for i, c in enumerate(sel.contacts):
        tone = "ambiguous" if c.uncertain else f"contact-{c.kind}"
        legal = c.valid or c.kind in ("corner", "overlap", "apart")
        who = "touches" if c.by == sel.piece else f"is touched by {c.by} on its"
        tip = f"{sel.piece} {who} {c.piece}: {c.kind} contact ({c.edge or '?'} edge)" + (
            "" if legal else ", not a legal contact (§3.5)")
        if c.by != sel.piece:
            tip = f"{c.by} touches {sel.piece}'s {c.edge or '?'} edge: {c.kind}"
        if c.uncertain:  # §13 borderline: said, not silently decided
            tip = f"{sel.piece} and {c.piece}: {CONTACT_UNCERTAIN}; as measured: {c.kind} ({c.edge or '?'} edge)"
        out.append(Dot("dbx-contact", tuple(c.at), tone, 6.0, tip, data=(c.piece, c.kind)))
        label = f"{c.kind} {c.piece}" + ("" if legal else " (invalid)")
        label += " · contact uncertain" if c.uncertain else ""
        if c.piece in melee:
            label += f" · melee {melee[c.piece].text.rsplit(' ', 1)[-1]}"
        out.append(Label("dbx-contact-label", tuple(c.at), label, tone, 7.0, True, (10.0, -8.0 + 16.0 * i),
                         layer=9.6))  # screen pixels: labels stacked
    return out


def element_items(p: ScenePiece, scene: Scene) -> list[Item]:
    """An element's base as the engine has it (where the camera sees it while a change is pending), its front edge
    thickened, its label (type, quality, square) and its pending change."""
    pos = scene.position
    e = pos.by_id.get(p.id) if pos is not None else None
    if e is None and (p.pose is None or p.status == "removed" and p.pending is None):
        return []
    if e is not None:
        poly, place = corners(e, pos.scale), (e.x_mm, e.y_mm, e.heading_deg)
        w, d = base_size(e, pos.scale)
    else:
        poly, place, (w, d) = None, p.pose, p.base_mm
    if p.pending is not None and p.pose is not None:  # the element stands where the camera sees it until moved
        poly, place = None, p.pose
    shown = ScenePiece(p.id, p.label, p.side, p.side_index, p.type, p.roster_type, (w, d), p.marker_height_mm, place,
                       p.status, p.state, p.pending)
    x, y, h = place
    name = e.ut.name if e is not None else (p.type or p.roster_type)
    tip = (f"{p.id} ({p.side} {p.type or p.roster_type}, {name}): {p.status}; {x:.1f}, {y:.1f} mm facing "
           f"{h:.0f}°; base {w:.0f} x {d:.0f} mm")
    label = f"{p.label} {p.type or '?'}"
    if e is not None and e.quality:
        label += f" {e.quality}"
    if e is not None and e.square:
        label += f" sq{e.square}"
    if p.status == "occluded":
        label += " (hidden)"
    out = base_items(shown, scene, "dbx-element", tip, label, corners=poly, fill=0.24, front_edge=True)
    ch = p.pending
    if ch is not None:
        to = None if ch.removed else (ch.x_mm, ch.y_mm, ch.heading_deg)
        text = "" if ch.removed else f"→ {ch.x_mm:.0f},{ch.y_mm:.0f} {ch.heading_deg:.0f}°"
        out += pending_items(shown, scene, to, text, ch.describe(), (w, d))
    return out


def picture(scene: Scene, opts) -> tuple[Item, ...]:
    """The whole DBX picture of a scene: terrain, the selection's zones and lines, then every element on top."""
    pos = scene.position
    if pos is None:
        return ()
    out = terrain_items(pos, scene.labels)
    if scene.selection is not None:
        out += selection_items(scene.selection, pos, opts)
    for p in scene.pieces:
        out += element_items(p, scene)
    return tuple(out)


LEGEND = (
    LegendEntry("front", "the thick edge of a base: its front", (sample_line("side:0", width=3.0),), None),
    LegendEntry("reach", "green dashed area: where its base centre can go in one straight move (§5.3)",
                (sample_area("reach", 0.14, "dash", 1.5),), marks("dbx-reach")),
    LegendEntry("fire-zone", "yellow dashed area: its fire zone, 1 BB either side ahead (§6.1, §7)",
                (sample_area("fire", 0.18, "dash", 1.5),), marks("dbx-fire-zone")),
    LegendEntry("zoc", "orange area: its zone of control, 1 BB ahead (§3.4); dotted: an enemy's it stands in",
                (sample_area("zone", 0.27),), marks("dbx-zoc", "dbx-zoc-of")),
    LegendEntry("fire", "yellow line: the target it fires at", (sample_line("fire", width=3.0),),
                marks("dbx-target-line", tone="fire")),
    LegendEntry("melee", "red line: the enemy it fights", (sample_line("melee", width=3.0),),
                marks("dbx-target-line", tone="melee")),
    LegendEntry("candidate", "orange dashed line: a target in range that is not the nearest (§7)",
                (sample_line("candidate", "dash"),), marks("dbx-target-line", tone="candidate")),
    LegendEntry("contact", "a dot where two bases touch, by kind: red front, magenta flank, violet rear, yellow "
                "corner, cyan overlap; orange: uncertain (§13)",
                (Dot("sample", (12.0, 10.0), "contact-front", 5.0), Dot("sample", (22.0, 10.0), "contact-flank", 5.0),
                 Dot("sample", (32.0, 10.0), "contact-rear", 5.0)), marks("dbx-contact")),
    LegendEntry("terrain", "dashed areas: terrain pieces; dash-dotted line: a hill's crest",
                (sample_area("terrain:wood", 0.35, "dash", 1.0),), marks("dbx-terrain")),
)
"""What the DBX pictures draw besides the shared marks (rules.picture.LEGEND)."""
