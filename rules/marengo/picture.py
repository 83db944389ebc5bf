"""What a Triomphe à Marengo table shows, in the drawing language of rules/picture.py (table mm, no toolkit).

The printed board (areas, approaches, roads: rules/board_picture.py) through its pose on the table; the selected
block's area, the areas it can reach this action with their command cost and the attack options with the engine's
outcome (§5, §6); every block in its side's colour with its unit, type and strength, or, for a viewer who may not
know it, an anonymous label (§13); the moves the rules ordered that the table does not show yet.
"""

from __future__ import annotations

from dataclasses import replace

from rules.board_picture import BOARD_LEGEND, board_items, on_table
from rules.marengo.adapter import ATTACKS
from rules.picture import (
    Area,
    Item,
    Label,
    LegendEntry,
    Scene,
    ScenePiece,
    base_items,
    marks,
    pending_items,
    points,
    sample_area,
    sample_text,
)

SIDE_TONES = {"AU": "#f5f5f5", "FR": "#4682ff"}
"""The blocks' colours: Austrian white, French blue."""


def selection_items(sel, board, to_table) -> list[Item]:
    if sel is None or sel.area is None:
        return []
    out: list[Item] = [Area("marengo-select", (points(on_table(board.areas[sel.area].polygon, to_table)),),
                            "select", 0.27, width=1.0, tip=f"{sel.piece} in {sel.area}", layer=4)]
    for opt in sel.options:
        kind = "marengo-attack" if opt.attack else "marengo-reach"
        out.append(Area(kind, (points(on_table(board.areas[opt.area].polygon, to_table)),),
                        "attack" if opt.attack else "reach", 0.27, tip=f"area {opt.area}: {opt.text}", layer=4,
                        data=(opt.area,)))
        at = on_table([board.areas[opt.area].centre], to_table)[0]
        for i, (action, cost, word) in enumerate(opt.actions):
            text = f"{action.replace('_', ' ')} {cost}" + (f" → {word}" if word else "")
            tone = "attack" if action in (*ATTACKS, "thrust_against_push") else "reach"
            out.append(Label(kind + "-label", tuple(at), text, tone, 7.0, bool(word), (-40.0, 14.0 + 13.0 * i),
                             layer=8))
    return out


def block_items(p: ScenePiece, scene: Scene) -> list[Item]:
    """A block where the camera sees it: its side's colour, its unit, type and strength unless hidden from the
    viewer, a warning when it stands on a border, and the move the rules ordered."""
    if p.pose is None or p.status == "removed" and p.pending is None:
        return []
    placements = (scene.context or {}).get("placements", {})
    pl = placements.get(p.id)
    where = f"area {pl.area} {pl.position or '(on a border: not placed)'}" if pl else "not placed"
    if p.hidden:
        label, tip, kind = p.label, f"{p.label}: a {p.side} block, identity hidden; {where}", "marengo-block-hidden"
    else:
        strength = p.state.get("strength", "?")
        label = f"{p.label} {(p.type or '?')[:3]} {strength}"
        b = scene.position.blocks_by_id.get(p.id) if scene.position is not None else None
        if b is not None and b.revealed and scene.viewer != "umpire" and b.side != scene.viewer:
            label += " (revealed)"
        tip, kind = f"{p.label}: {p.side} {p.type} strength {strength}, {p.status}; {where}", "marengo-block"
    shown = ScenePiece(p.id, p.label, p.side, p.side_index, p.type, p.roster_type, p.base_mm, p.marker_height_mm,
                       p.pose, p.status, p.state, p.pending, p.hidden)
    tone = SIDE_TONES.get(p.side, f"side:{p.side_index}")  # as GameSystem.side_tone
    out = [it for it in base_items(shown, scene, kind, tip, label, fill=0.59, pen_tone="outline")
           if it.kind != "facing"]  # a block's facing means nothing (§3): no arrow
    out = [replace(it, tone=tone, layer=7, data=()) if isinstance(it, Area) else it for it in out]
    x, y, _ = p.pose
    if pl is not None and pl.on_border:
        out.append(Label("marengo-border", (x - p.base_mm[0] / 2, y + p.base_mm[1] / 2 + 14), "on a border?",
                         "ambiguous", 7.5, offset_px=(0.0, 14.0)))
    ch = p.pending
    if ch is not None:
        board = scene.position.board
        if ch.removed:
            out += [Label("pending-label", (x, y), "take off", "blocked", bold=True, layer=8)]
        else:
            xy = board.areas[ch.area].centre if ch.approach is None else \
                board.approach_point(board.approach(ch.area, ch.approach))
            gx, gy = on_table([xy], scene.to_table)[0]
            out += [it for it in pending_items(shown, scene, (gx, gy, 0.0), f"→ {ch.describe()}", ch.describe())
                    if it.kind != "pending-move"]
    return out


def picture(scene: Scene) -> tuple[Item, ...]:
    """The whole Marengo picture: the board, the selection's reach and attacks, then every block on top."""
    pos = scene.position
    if pos is None:
        return ()
    out = board_items(pos.board, scene.to_table) + selection_items(scene.selection, pos.board, scene.to_table)
    for p in scene.pieces:
        out += block_items(p, scene)
    return tuple(out)


__all__ = ["picture"]


LEGEND = (
    LegendEntry("select", "cyan area: the selected block's area", (sample_area("select", 0.27, width=1.0),),
                marks("marengo-select")),
    LegendEntry("reach", "green areas: where it can go this action, with the command it costs (§5)",
                (sample_area("reach", 0.27),), marks("marengo-reach")),
    LegendEntry("attack", "red areas: an attack it may make, with the engine's outcome (§6)",
                (sample_area("attack", 0.27),), marks("marengo-attack")),
    LegendEntry("hidden", "a block without a name: its identity hidden from this viewer (§13)",
                (sample_area("#4682ff", 0.59, edge_tone="outline"),), marks("marengo-block-hidden")),
    LegendEntry("border", '"on a border?": the block stands across an area\'s border, not placed',
                (sample_text("on a border?", "ambiguous"),), marks("marengo-border")),
    *BOARD_LEGEND,
)
"""What the Marengo pictures draw besides the shared marks (rules.picture.LEGEND)."""
