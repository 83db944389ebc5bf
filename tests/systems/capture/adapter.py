"""The Capture adapter of the system contract (rules/system.py TableSystem)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from common.errors import InputError
from rules.geometry import distance, neighbours
from rules.system import CombatOutcome, FireLine, SelectionOverlay, Shade, TargetRow
from tests.systems.capture.model import CapturePosition, Stone

BEARINGS = {(0, 1): "N", (1, 1): "NE", (1, 0): "E", (1, -1): "SE", (0, -1): "S", (-1, -1): "SW", (-1, 0): "W",
            (-1, 1): "NW"}


@dataclass
class Capture:
    """A capture resolved: the position before and after, who took whom."""

    action: str
    before: CapturePosition
    after: CapturePosition
    attacker: dict
    defender: dict
    winner: str = "attacker"
    effect: str = "captured"
    notes: list[str] = field(default_factory=list)


def captures(pos: CapturePosition, pid: str) -> list[str]:
    """The enemy stones `pid` may capture: those in its 8 neighbouring fields."""
    p = pos.piece(pid)
    near = set(neighbours(p.field))
    return [q.id for q in pos.pieces if q.side != p.side and q.field in near]


class CaptureSystem:
    name = "capture"
    actions = ("capture",)
    single_piece_actions = frozenset()
    types = ("stone",)
    markers = ()
    flags = ()

    def piece_type(self, roster_type: str) -> str | None:
        return "stone"

    def default_state(self, piece_type: str) -> dict:
        return {}

    def piece_state(self, piece) -> dict:
        return {}

    def check_state(self, piece_type: str, key: str, value):
        raise InputError(f"{key!r}: a stone has no state but where it stands")

    def empty_ground(self) -> dict:
        return {}

    def ground_from_position(self, pos) -> dict:
        return {}

    def ground_from_terrain(self, terrain, grid) -> dict:
        return {}

    def make_position(self, cols, rows, specs, states, ground=None) -> CapturePosition:
        return CapturePosition(self.name, tuple(Stone(s.id, s.side, "stone", s.field, s.facing) for s in specs),
                               cols, rows)

    def selection(self, pos, pid: str) -> SelectionOverlay:
        p = pos.piece(pid)
        near = tuple(f for f in neighbours(p.field) if pos.on_grid(f))
        lines = tuple(FireLine(t, p.field, pos.piece(t).field, True, "melee") for t in captures(pos, pid))
        return SelectionOverlay(pid, None, (Shade("melee", "may capture into", near),), lines)

    def targets(self, pos, pid: str) -> list[TargetRow]:
        p = pos.piece(pid)
        can = set(captures(pos, pid))
        return [TargetRow(q.id, q.field_name, distance(p.field, q.field), "capture" if q.id in can else "",
                          False, None, q.id in can, 0 if q.id in can else None, True,
                          "" if q.id in can else "not adjacent")
                for q in pos.pieces if q.side != p.side]

    def pair(self, pos, a: str, b: str) -> tuple[dict, list[str]]:
        ok = b in captures(pos, a)
        return {"capture": ok}, [f"{a} → {b}: " + ("may capture" if ok else "not adjacent, no capture")]

    def supporter_candidates(self, pos, attacker, target, action) -> list[str]:
        return []

    def combat_modifiers(self, pos, attacker, target, action, supporters=()):
        ok = target in captures(pos, attacker)
        return (["captures an adjacent enemy stone"] if ok else ["not adjacent: no capture"]), []

    def resolve(self, pos, action, attacker, target, **inputs) -> CombatOutcome:
        if action != "capture":
            raise InputError(f"action {action!r}: one of capture")
        if target not in captures(pos, attacker):
            raise InputError(f"{attacker} cannot capture {target}: not an adjacent enemy stone")
        a, t = pos.piece(attacker), pos.piece(target)
        step = (t.field[0] - a.field[0], t.field[1] - a.field[1])
        moved = replace(a, field=t.field, facing=BEARINGS[step])
        after = replace(pos, pieces=tuple(moved if q.id == attacker else q for q in pos.pieces if q.id != target))
        res = Capture("capture", pos, after, {"piece": attacker}, {"piece": target})
        changes = [{"piece": target, "removed": True, "why": ["captured"]},
                   {"piece": attacker, "field": t.field_name, "facing": moved.facing, "why": ["moves into the field"]}]
        lines = [f"capture: {attacker} takes {target} in {t.field_name}"]
        return CombatOutcome(res, [], None, lines, changes)

    def next_phase(self, turn: int, active: str, sides):
        if not sides:
            return turn + 1, active
        i = sides.index(active) if active in sides else -1
        return (turn + 1, sides[0]) if i + 1 >= len(sides) else (turn, sides[i + 1])

    def phase_reset(self) -> dict:
        return {}
