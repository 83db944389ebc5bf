"""Capture's part of the live session: stones placed by field and facing; a capture takes the enemy off and moves
the capturer into its field (both pending until the table matches); its picture in the drawing language.

The one recorder and the one replay need nothing more of it than the defaults of rules/live.py (a capture is
recorded by the default `record_combat`), except `pair_lines`: every capture the replay may draw."""

from __future__ import annotations

from dataclasses import dataclass

from common.fields import facing_bearing, field_name, parse_field
from rules.live import LiveRules, PendingChange
from rules.picture import Area, Item, Line, Scene, base_items, pending_items, points
from rules.system import PieceSpec
from tests.systems.capture.adapter import captures


@dataclass
class StoneMove(PendingChange):
    field: tuple[int, int] | None = None
    facing: str | None = None

    def describe(self) -> str:
        if self.removed:
            return f"take {self.piece} off the table"
        return f"move {self.piece} to {field_name(*self.field)}"


def square(grid, f) -> tuple:
    x0, y0 = grid.origin_x_mm + f[0] * grid.field_mm, grid.origin_y_mm + f[1] * grid.field_mm
    return points([(x0, y0), (x0 + grid.field_mm, y0), (x0 + grid.field_mm, y0 + grid.field_mm),
                   (x0, y0 + grid.field_mm)])


class CaptureLive(LiveRules):
    inputs = ()
    noun = "stone"
    target_headers = ("enemy", "field", "fields", "action", "", "", "capture", "", "", "note")
    state_headers = ("stone", "side", "type", "field", "facing", "", "", "", "seen", "waiting for")

    def position(self, s):
        specs, notes = [], []
        places = s.committed_places()
        for rp in s.roster.pieces:
            if rp.id in s.state.removed:
                continue
            pend = s.state.pending.get(rp.id)
            if pend is not None and not pend.removed:
                specs.append(PieceSpec(rp.id, rp.side, "stone", pend.field, pend.facing))
                continue
            place = places.get(rp.id)
            if place is None:
                continue
            if place.cell is None:
                notes.append(f"{rp.id}: off the grid")
                continue
            specs.append(PieceSpec(rp.id, rp.side, "stone", parse_field(place.cell), place.facing or "N"))
        grid = s.layout.grid
        return s.system.make_position(grid.cols, grid.rows, specs, {}), notes

    def placed_as(self, s, pose, change) -> bool:
        return pose.cell == field_name(*change.field)

    def apply(self, s, outcome) -> list[PendingChange]:
        res = outcome.resolution
        pending = []
        taken, mover = res.defender["piece"], res.attacker["piece"]
        s.state.removed.add(taken)
        pending.append(StoneMove(taken, removed=True, why=("captured",)))
        q = res.after.piece(mover)
        pending.append(StoneMove(mover, why=("moves into the field",), field=q.field, facing=q.facing))
        for ch in pending:
            s.state.pending[ch.piece] = ch
        s.log(outcome.lines[0])
        return pending

    def pair_lines(self, s, pos):
        """Every capture a stone may make: the replay's lines, stone to enemy."""
        return [(p.id, t, p.field, pos.piece(t).field, "melee") for p in pos.pieces for t in captures(pos, p.id)]

    def describe(self, s) -> list[str]:
        pos = s.position
        lines = [f"  {p.id:<10}{p.side:<6}{p.field_name:<6}" for p in pos.pieces] if pos else []
        if s.selected and s.in_position(s.selected):
            lines.append(f"selected {s.selected}: may capture " + (
                ", ".join(t.target for t in s.targets() if t.melee) or "nothing"))
        return lines

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        out: list[Item] = []
        grid = scene.grid
        sel = scene.selection
        if sel is not None and grid is not None:
            for shade in sel.shades:
                out.append(Area("capture-reach", tuple(square(grid, f) for f in shade.fields), "reach", 0.2, "none",
                                tip=shade.label, layer=2))
            for ln in sel.lines:
                out.append(Line("capture-line", ((grid.field_centre(*ln.start), grid.field_centre(*ln.end)),),
                                "melee", width=3.0, tip=f"may capture {ln.target}", layer=5, data=(ln.target,)))
        for p in scene.pieces:
            if p.pose is None or p.status == "removed" and p.pending is None:
                continue
            out += base_items(p, scene, f"stone:{p.status}", f"{p.id} ({p.side})", p.label)
            ch = p.pending
            if ch is not None and grid is not None:
                to = None if ch.removed else (*grid.field_centre(*ch.field), facing_bearing(ch.facing))
                out += pending_items(p, scene, to, "" if ch.removed else f"→ {field_name(*ch.field)}", ch.describe())
        return tuple(out)
