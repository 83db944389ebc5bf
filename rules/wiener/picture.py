"""What a Wiener Napoleon table shows, in the drawing language of rules/picture.py (table mm, no toolkit).

The ground (each field's terrain and height plate), the selected piece's ranges shaded field by field, its front arc
(§3.6), its neighbouring and side fields (§3.4), lines to every enemy it may fire at or attack (green clear, red
blocked with the blocking fields boxed and crossed, §6.1), every piece with its facing arrow and label, and the
changes the rules made that the table does not show yet.
"""

from __future__ import annotations

import numpy as np

from common.fields import facing_bearing, field_name, snap_facing
from rules.picture import (
    Area,
    Item,
    ItemMemo,
    Label,
    LegendEntry,
    Line,
    Scene,
    ScenePiece,
    base_items,
    cross,
    marks,
    pending_items,
    piece_key,
    points,
    sample_area,
    sample_line,
    sample_text,
    sector,
)
from rules.system import PositionMemo

SHADES = {"artillery": ("artillery", 0.24, "none"), "small_arms": ("small_arms", 0.27, "none"),
          "melee": ("melee", 0.31, "none"), "neighbour": ("neighbour", 0.0, "dot"),
          "side": ("side-field", 0.35, "solid")}
"""Shade kind -> (tone, fill opacity, pen)."""


def field_square(grid, f, inset_mm: float = 0.0) -> np.ndarray:
    """(4, 2) table mm corners of grid field `f` = (col, row), shrunk by `inset_mm` on every side."""
    x0 = grid.origin_x_mm + f[0] * grid.field_mm + inset_mm
    y0 = grid.origin_y_mm + f[1] * grid.field_mm + inset_mm
    s = grid.field_mm - 2 * inset_mm
    return np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]])


def ground_items(ground, grid) -> list[Item]:
    """Every field with terrain or a height plate, one area per kind (§3.1)."""
    fields = ground.get("fields", {}) if isinstance(ground, dict) else {}
    by_kind: dict[str, list] = {}
    for f, st in fields.items():
        key = st.terrain if st.terrain != "open" else ("height" if st.height else None)
        if key is not None:
            by_kind.setdefault(key, []).append(points(field_square(grid, f)))
    out: list[Item] = []
    for key, squares in by_kind.items():
        hatch = key == "height"
        out.append(Area(f"terrain:{key}", tuple(squares), f"terrain:{key}", 0.6 if hatch else 0.3, "none",
                        pattern="hatch" if hatch else "solid", layer=1))
    return out


def selection_items(overlay, grid) -> list[Item]:
    """The selected piece's shaded ranges, front arc and lines to its targets."""
    out: list[Item] = []
    for shade in overlay.shades:
        tone, fill, pen = SHADES.get(shade.kind, ("neighbour", 0.2, "none"))
        squares = tuple(points(field_square(grid, f, 1.5)) for f in shade.fields)
        top = shade.kind in ("neighbour", "side")
        out.append(Area(f"shade:{shade.kind}", squares, tone, fill, pen, 1.5, tip=f"{shade.label}: "
                        f"{len(shade.fields)} fields", layer=4.5 if top else 1.5))
    arc = overlay.arc
    if arc is not None and not arc.all_round:
        centre = grid.field_centre(*arc.field)
        wedge = sector(centre, (arc.reach + 0.5) * grid.field_mm, arc.bearing_deg, arc.half_deg)
        out.append(Area("arc", (points(wedge),), "arc", 0.0, "dash", 1.5, tip="front arc: facing ±45° (§3.6)",
                        layer=4))
    for line in overlay.lines:
        a, b = grid.field_centre(*line.start), grid.field_centre(*line.end)
        tip = f"{line.kind} line to {line.target}" + (f": {line.reason}" if line.reason else "")
        out.append(Line("fire-line" if line.clear else "blocked-line", ((a, b),), "clear" if line.clear else "blocked",
                        "dash" if line.kind == "melee" else "solid", 2.5 if line.clear else 2.0, tip=tip, layer=5,
                        data=(line.target,)))
        for f in line.blockers:
            out.append(Area("blocker", (points(field_square(grid, f, 2.0)),), "blocked", 0.24, width=2.0,
                            tip=f"blocks the line to {line.target}: {line.reason}", layer=5.5))
            out.append(Line("blocker-cross", cross(field_square(grid, f, 6.0)), "blocked", width=2.5, layer=5.6))
    return out


def piece_items(p: ScenePiece, scene: Scene) -> list[Item]:
    """A piece's base, facing arrow and label (its field, markers, bases) and its pending change."""
    if p.pose is None or p.status == "removed" and p.pending is None:
        return []
    x, y, h = p.pose
    st = p.state
    marks = "+".join(st.get("markers", ()) or ()) or "no markers"
    tip = (f"{p.id} ({p.side} {p.type or p.roster_type}): {p.status}, field {p.cell or 'off'} facing "
           f"{snap_facing(h)[0]}, {st.get('formation') or ''} {st.get('bases', 1)} base(s), {marks}; "
           f"{x:.0f}, {y:.0f} mm, heading {h:.0f}°, {p.edge_mm or 0:.1f} mm from a field edge")
    chosen = p.id in (scene.selected, scene.second)
    label = p.label
    if chosen or p.pending is not None:
        label += f" {p.cell or 'off'}"
    if p.status == "ambiguous":  # on a field edge: the field is uncertain
        label += f" ?edge {p.edge_mm:.0f}mm" if chosen else "?"
    elif p.status == "occluded":
        label += " (hidden)"
    if st.get("markers"):
        label += " [" + "+".join(st["markers"]) + "]"
    if (st.get("bases") or 1) > 1:
        label += f" x{st['bases']}"
    out = base_items(p, scene, f"piece:{p.status}", tip, label)
    ch = p.pending
    if ch is not None and scene.grid is not None:
        why = ch.describe() + ("\n" + "\n".join(ch.why) if ch.why else "")
        to = None if ch.removed else (*scene.grid.field_centre(*ch.field), facing_bearing(ch.facing))
        out += pending_items(p, scene, to, "" if ch.removed else f"→ {field_name(*ch.field)} {ch.facing}", why)
    return out


_PIECES = ItemMemo()
_OVERLAYS = PositionMemo()  # the ground's and the selection's items, while they are the same objects


def picture(scene: Scene) -> tuple[Item, ...]:
    """The whole Wiener picture of a scene: ground, the selection's overlays, then every piece on top."""
    out: list[Item] = []
    grid = scene.grid
    if grid is not None:
        out += _OVERLAYS.get(scene.ground, ("ground", grid), lambda: tuple(ground_items(scene.ground, grid)))
        if scene.selection is not None:
            out += _OVERLAYS.get(scene.selection, ("selection", grid),
                                 lambda: tuple(selection_items(scene.selection, grid)))
    for p in scene.pieces:
        key = piece_key(p, scene)
        out += piece_items(p, scene) if key is None else _PIECES.get(key, lambda p=p: piece_items(p, scene))
    return tuple(out)


LEGEND = (
    LegendEntry("edge", '"?" after a name: the piece stands within a few mm of a field\'s edge, so its field is '
                'uncertain (selected: "?edge 2mm", how near); the recorder asks where it stands',
                (sample_text("1-3?", "ambiguous"),),
                lambda it: isinstance(it, Label) and it.kind == "label" and ("?" in it.text)),
    LegendEntry("markers", "[grey] after a name: its markers (red, grey, black); x2: its bases",
                (sample_text("[grey]"),), lambda it: isinstance(it, Label) and it.kind == "label" and (
                    "[" in it.text or " x" in it.text)),
    LegendEntry("fire-line", "green line: it may fire at or attack that piece, the line of sight clear (§6.1); "
                "dashed: a melee", (sample_line("clear", width=2.5),), marks("fire-line")),
    LegendEntry("blocked-line", "red line, the fields boxed and crossed: the line is blocked there (§6.1)",
                (sample_line("blocked"), sample_area("blocked", 0.24)), marks("blocked-line", "blocker")),
    LegendEntry("arc", "white dashed wedge: its front arc, facing ±45° (§3.6)", (sample_area("arc", 0.0, "dash", 1.5),),
                marks("arc")),
    LegendEntry("artillery", "orange fields: within artillery range", (sample_area("artillery", 0.24, "none"),),
                marks("shade:artillery")),
    LegendEntry("small_arms", "blue fields: within small-arms range", (sample_area("small_arms", 0.27, "none"),),
                marks("shade:small_arms")),
    LegendEntry("melee", "red fields: within reach of a melee", (sample_area("melee", 0.31, "none"),),
                marks("shade:melee")),
    LegendEntry("neighbour", "dotted white fields: its neighbouring fields (§3.4)",
                (sample_area("neighbour", 0.0, "dot", 1.5),), marks("shade:neighbour")),
    LegendEntry("side", "violet fields: its side fields (§3.4)", (sample_area("side-field", 0.35),),
                marks("shade:side")),
    LegendEntry("height", "hatched fields: a height plate",
                (sample_area("terrain:height", 0.6, "none", pattern="hatch"),), marks("terrain:height")),
)
"""What the Wiener pictures draw besides the marks every system shares (rules.picture.LEGEND)."""


__all__ = ["LEGEND", "field_square", "ground_items", "picture", "piece_items", "selection_items"]
