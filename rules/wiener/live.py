"""Wiener Napoleon's part of the live session (rules/live.py): pieces placed by field and facing on the grid.

`grid_position` is the one placement of the system: the dashboard, the recorder and the replay call it, so live,
recorded and replayed positions agree; `recorded_states` is what a record keeps of each piece (bases, markers,
formation) as the game state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from common.errors import InputError
from common.fields import facing_bearing, field_name, parse_field
from rules.live import (
    DICE,
    ActionInput,
    DemoPiece,
    GameState,
    LiveRules,
    PendingChange,
    PieceKind,
    in_play,
    input_dice,
    load_armies,
)
from rules.picture import Item, Scene
from rules.system import PieceSpec, table_system
from rules.wiener import picture as wiener_picture
from rules.wiener.model import TYPES
from rules.wiener.pairs import analyze_all
from rules.wiener.roster import ROSTER_WORDS

Field = tuple[int, int]


@dataclass
class FieldChange(PendingChange):
    """A piece the rules moved (a flight, a retreat, a pursuit): to `field` facing `facing`."""

    field: Field | None = None
    facing: str | None = None

    def describe(self) -> str:
        if self.removed:
            return f"take {self.piece} off the table"
        return f"move {self.piece} to {field_name(*self.field)} facing {self.facing}"


def grid_position(places: Mapping[str, Any], pieces, cols: int, rows: int, system, state: GameState | None = None,
                  ground: Mapping | None = None):
    """Where each piece stands (`places`: piece id -> anything with `cell` and `facing`, a PiecePose, a tracking
    Place or a record's PieceState) as the engine's position on a square grid.

    `pieces` are the roster's (id, side, type); the type is the game state's, else the roster's words read by the
    system. A pending change (a flight the rules ordered) places a piece where the rules say until the camera sees
    it there; pieces the rules removed are left out. Returns (position, notes), notes naming every piece left out
    and why."""
    state = state or GameState()
    specs = []
    playing, notes = in_play(pieces, state, system, f"a {system.name} type ({' '.join(system.types)})")
    for rp, _, ptype, pend in playing:
        pose = places.get(rp.id)
        if pend is not None and getattr(pend, "field", None) is not None:
            specs.append(PieceSpec(rp.id, rp.side, ptype, pend.field, pend.facing))
            continue
        if pose is None:
            continue
        if pose.cell is None or pose.facing is None:
            notes.append(f"{rp.id}: off the grid")
            continue
        specs.append(PieceSpec(rp.id, rp.side, ptype, parse_field(pose.cell), pose.facing))
    pos = system.make_position(cols, rows, specs, state.states, ground)
    return pos, notes


def recorded_states(pieces, system) -> dict[str, dict]:
    """The game state a record keeps of each piece on the grid (`pieces`: a record's PieceStates, on the table in a
    field and facing): bases, markers and formation. InputError when a piece's roster type names no troop type of
    the system (rules/wiener/roster.py): a recorder cannot ask."""
    states = {}
    for p in pieces:
        if p.status not in ("on", "missing") or not p.cell or not p.facing:
            continue
        if system.piece_type(p.type) is None:
            raise InputError(f"piece {p.id!r}: type {p.type!r} is not a Wiener Napoleon troop type")
        states[p.id] = {"bases": p.bases, "markers": tuple(p.markers), "formation": p.formation}
    return states


def wiener_position(state, grid: Mapping | None, system=None):
    """A record's state (fieldglass.record.BoardState) as a Wiener Napoleon position, placed as the live session and
    the recorder place it (`grid_position` with `recorded_states`); `grid` as a record keeps it (cols, rows)."""
    if grid is None:
        raise InputError("the layout has no [grid]: the rules engine needs fields")
    system = system or table_system("wiener")
    states = recorded_states(state.pieces.values(), system)
    places = {pid: state.pieces[pid] for pid in states}
    pos, _ = grid_position(places, state.pieces.values(), int(grid["cols"]), int(grid["rows"]), system,
                           GameState(states=states))
    return pos


class WienerLive(LiveRules):
    """Pieces stand in the field and facing the camera measured; combats change markers, bases and formations at
    once and move or remove pieces through pending changes (§8)."""

    legend = wiener_picture.LEGEND

    inputs = (DICE,
              ActionInput("loss_die", "loss die", "die", "the loss test's die (§8.3); empty: rolled"),
              ActionInput("flight", "flight", "choice", "how far a beaten troop flees (§8.8)",
                          ("rules default", "1 LE", "2 LE"), (None, 1, 2)),
              ActionInput("follow_up", "follow up", "flag", "the winner follows up into the field (§8.6)"))

    THROWS = {"fire": ("shooter", "counter-fire"),  # §8.1 both sides roll one D6 (the target's only if it fires back)
              "melee": ("attacker", "defender"),  # §8.1 / §8.6 the duel: one D6 each
              "rally": ("rally",)}  # §8.10 one D6, 4+ (3+ with a general adjacent)

    def dice_wanted(self, s, action, attacker, target):
        """A throw's dice by action (`THROWS`): flight, mounting and dismounting roll none; the loss test's die
        (§8.3) is the panel's own "loss die"."""
        return self.THROWS.get(action, ())

    # ---- what a roster holds, and a new table (rules/live.py)

    roster_types = (*TYPES, *ROSTER_WORDS)  # §2.1 the troop types, an exhaustive list, then the words read as one
    type_noun = "Wiener troop type"
    table_mm = (2400.0, 1200.0)  # digest §1: "about 1.2 x 2.4 m, about 20 x 40 fields"
    grid_field_mm = 60.0  # digest §13: field side 50-60 mm
    default_sides = ("FR", "AU")

    @classmethod
    def piece_kinds(cls):
        """One piece per base, on the §2.1 bases (mm): infantry 40 x 14, cavalry 40 x 30, artillery and pioneers
        40 x 40, a general 25 x 25; the marker on the base's top, 3 mm above the cloth."""
        return (PieceKind("infantry", "i", (40.0, 14.0)), PieceKind("light_cavalry", "lc", (40.0, 30.0)),
                PieceKind("heavy_cavalry", "hc", (40.0, 30.0)), PieceKind("artillery", "a", (40.0, 40.0)),
                PieceKind("horse_artillery", "ha", (40.0, 40.0)), PieceKind("pioneers", "p", (40.0, 40.0)),
                PieceKind("general", "g", (25.0, 25.0)))

    @classmethod
    def armies(cls):
        """The piece sets in data/armies.toml."""
        return _armies()

    @classmethod
    def position_places(cls, position, table):
        """Each piece of a Wiener position at its field's centre, facing its facing's bearing (§3.3: a base stands
        unambiguously in one field, aligned with the grid or the diagonal)."""
        grid = getattr(table, "grid", None)
        if grid is None:
            return ()
        return tuple(DemoPiece(p.id, grid.origin_x_mm + (p.field[0] + 0.5) * grid.field_mm,
                               grid.origin_y_mm + (p.field[1] + 0.5) * grid.field_mm, facing_bearing(p.facing))
                     for p in position.pieces)

    def position(self, s):
        grid = s.layout.grid
        return grid_position(s.committed_places(), s.roster.pieces, grid.cols, grid.rows, s.system, s.state,
                             s.ground)

    def placed_as(self, s, pose, change) -> bool:
        return pose.cell == field_name(*change.field) and pose.facing == change.facing

    def check_state(self, s, pid, key, value):
        pid, key, value = super().check_state(s, pid, key, value)
        if key == "type":
            s.state.states.setdefault(pid, {}).pop("formation", None)
        return pid, key, value

    def apply(self, s, outcome) -> list[PendingChange]:
        """Markers, bases, formation and flags at once; moves and removals pending until the table matches."""
        before, after = outcome.resolution.before, outcome.after
        why = {c["piece"]: tuple(c.get("why", [])) for c in outcome.changes}
        pending: list[PendingChange] = []
        for p in before.pieces:
            q = after.by_id.get(p.id)
            if q is None:
                s.state.removed.add(p.id)
                ch = FieldChange(p.id, removed=True, why=why.get(p.id, ()))
            else:
                s.state.states.setdefault(p.id, {}).update(s.system.piece_state(q))
                if (q.field, q.facing) == (p.field, p.facing):
                    continue
                ch = FieldChange(p.id, why=why.get(p.id, ()), field=q.field, facing=q.facing)
            s.state.pending[p.id] = ch
            pending.append(ch)
        res = outcome.resolution
        who = " → ".join(d["piece"] for d in (res.attacker, res.defender) if d)
        s.log(f"{res.action} {who}: winner {res.winner}, effect {res.effect}")
        for c in outcome.changes:
            what = ", ".join(f"{k} {'+'.join(v) if isinstance(v, list) else v}" for k, v in c.items()
                             if k not in ("piece", "why"))
            s.log(f"{c['piece']}: {what}")
        return pending

    def title(self, s) -> str | None:
        if not s.in_position(s.selected):
            return None
        p = s.position.piece(s.selected)
        n = sum(1 for r in s.targets() if r.fire or r.melee)
        return (f"<b>{p.id}</b> {p.side} {p.type.replace('_', ' ')} {p.formation or ''} at {p.field_name} facing "
                f"{p.facing}: {n} target(s) it may fire at or attack")

    def describe(self, s) -> list[str]:
        """Every piece with its field, facing and status; the selected piece's targets and ranges."""
        lines = [f"  {'piece':<10}{'side':<6}{'type':<15}{'field':<6}{'facing':<7}{'status':<10}"]
        for v in s.piece_views():
            engine = s.position.by_id.get(v.piece.id) if s.position else None
            fld = engine.field_name if engine else (v.pose.cell if v.pose and v.pose.cell else "-")
            fac = engine.facing if engine else "-"
            lines.append(f"  {v.piece.id:<10}{v.piece.side:<6}{(v.type or '?'):<15}{fld:<6}{fac:<7}{v.status:<10}")
        lines += [f"  note: {n}" for n in s.notes]
        if s.selected and not s.in_position(s.selected):
            lines.append(f"selected {s.selected}: not on the table in this frame")
        elif s.selected:
            p = s.position.piece(s.selected)
            lines.append(f"selected {p.id} ({p.type.replace('_', ' ')} at {p.field_name} facing {p.facing}):")
            for t in s.targets():
                if t.fire or t.melee:
                    net = t.fire_net if t.fire else t.melee_net
                    lines.append(f"  -> {t.target:<9}{t.field:<6}{t.distance:>2} LE  {t.weapon:<11} net {net:+d}")
                elif "blocked" in t.note:
                    lines.append(f"  x  {t.target:<9}{t.field:<6}{t.distance:>2} LE  {t.note}")
            ov = s.selection_overlay()
            if ov is not None:
                lines += [f"  {sh.label}: {len(sh.fields)} fields" for sh in ov.shades]
        return lines

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        return wiener_picture.picture(scene)

    # ---- the game record

    def restore(self, s) -> None:
        """Each piece on the grid with the bases, markers and formation the record holds."""
        s.state.states = recorded_states(s.record_state.pieces.values(), s.system)

    def record_combat(self, s, inp: dict) -> dict:
        """Fire, melee or rally resolved on the recorded position; the event keeps the engine's resolution (rollers
        with their modifiers, loss test, winner, effect, changes) and each piece's field."""
        pos = s.position
        action = inp.get("action", "fire")
        attacker, target = inp.get("attacker"), inp.get("target")
        if action not in ("fire", "melee", "rally"):
            raise InputError(f"combat: action {action!r} is not recorded (fire, melee, rally)")
        outcome = s.system.resolve(pos, action, attacker, target, dice=input_dice(inp), seed=inp.get("seed"),
                                   supporters=inp.get("supporters", []), loss_die=inp.get("loss_die"),
                                   flight=inp.get("flight"), follow_up=inp.get("follow_up"))
        res = outcome.resolution
        out = res.as_dict()
        out.pop("position", None)
        by_id = pos.by_id
        sides = {pid: by_id[pid].side for pid in (attacker, target) if pid in by_id}
        where = {pid: field_name(*by_id[pid].field) for pid in (attacker, target) if pid in by_id}
        data = {"action": res.action, "pieces": [p for p in (attacker, target) if p], "sides": sides,
                "fields": where, "dice": list(outcome.rolled), **{k: v for k, v in out.items() if k != "action"}}
        if outcome.seed is not None:
            data["seed"] = outcome.seed
        return data

    # ---- the replay

    def pair_lines(self, s, pos):
        """Every ordered pair the engine's pair analysis allows to fire (else to attack in melee)."""
        lines = []
        if pos is None or len(pos.pieces) < 2:
            return lines
        table = analyze_all(pos, s.system.opts)
        for k in range(len(table.src)):
            a, b = pos.pieces[int(table.src[k])], pos.pieces[int(table.dst[k])]
            if bool(table.fire_allowed[k]):
                lines.append((a.id, b.id, a.field, b.field, "fire"))
            elif bool(table.melee_allowed[k]):
                lines.append((a.id, b.id, a.field, b.field, "melee"))
        return lines


@cache
def _armies():
    with resources.as_file(resources.files("rules.wiener").joinpath("data", "armies.toml")) as path:
        return load_armies(path)
