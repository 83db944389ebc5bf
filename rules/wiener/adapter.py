"""The Wiener Napoleon adapter of the system contract (rules/system.py): Qt-free answers for the dashboard.

It only gathers the engine's answers (rules/wiener) into plain descriptions (fields, lines, rows of text) that any
view can draw: how a camera reading becomes the engine's position, what a selected piece can see, reach and shoot,
the full analysis of a pair, and what happens with these dice.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields as dc_fields
from dataclasses import replace
from typing import Any

import numpy as np

from common.dice import Dice
from common.errors import InputError
from common.fields import facing_bearing, parse_field
from rules.board import distance_to_outline, points_in_polygon
from rules.geometry import distance, in_front_arc, neighbours, side_fields
from rules.system import Arc, CombatOutcome, FireLine, PieceSpec, PositionMemo, SelectionOverlay, Shade, TargetRow
from rules.wiener import model
from rules.wiener import resolve as R
from rules.wiener.analysis import analyze_from, analyze_pair
from rules.wiener.combat import (
    defence_reason,
    fire_check,
    melee_check,
    melee_modifiers,
    modifiers_json,
    supporter_reasons,
)
from rules.wiener.options import DEFAULT
from rules.wiener.roster import piece_type as roster_piece_type
from rules.wiener.tables import MELEE_RANGE, RANGES, all_round, cap, fires_all_round, weapon

Field = tuple[int, int]


# ---------------------------------------------------------------------------------------------- the Wiener system


TERRAIN_KINDS = {"wood": "wood", "town": "town", "church": "church", "swamp": "swamp", "river": "water",
                 "water": "water", "mountain": "mountain", "road": "road"}


class WienerSystem:
    """Wiener Napoleon Kriegsspielregeln 2022 on the square grid (rules/wiener)."""

    name = "wiener"
    actions = ("fire", "melee", "rally", "flight", "mount", "dismount")
    single_piece_actions = frozenset({"rally", "flight", "mount", "dismount"})
    """Actions of one piece alone: no target, no supporters, no opposing roll."""

    def __init__(self, options=None):
        self.model = model
        self.opts = options or DEFAULT
        self.types = model.TYPES
        self.markers = tuple(m for m in model.MARKERS if m != "none")
        self.flags = model.FLAGS
        self._analysis = PositionMemo()  # analyze_from by (position, piece id)

    def _analyze_from(self, pos, pid: str) -> list[dict]:
        """analyze_from for a piece, once per position: the selection overlay and the targets table both ask it
        for the same position (positions are frozen: the same object is the same position), on every frame."""
        return self._analysis.get(pos, pid, lambda: analyze_from(pos, pid, self.opts))

    # ---- the piece vocabulary

    def piece_type(self, roster_type: str) -> str | None:
        """The roster's words as a troop type: the one map of the Wiener rules (rules/wiener/roster.py)."""
        return roster_piece_type(roster_type)

    def formations(self, piece_type: str) -> tuple[str, ...]:
        return self.model.FORMATIONS.get(piece_type, ())

    def default_state(self, piece_type: str) -> dict:
        """The state the camera cannot see, for a fresh piece of this type."""
        return {"formation": self.model.DEFAULT_FORMATION.get(piece_type), "bases": 1, "markers": ()}

    def piece_state(self, piece) -> dict:
        """The state of an engine piece the camera cannot see (everything but id, side, type, field, facing)."""
        return {name: getattr(piece, name) for name in _state_names(type(piece))}

    def check_state(self, piece_type: str, key: str, value: Any) -> Any:
        """A game-state value set by hand, checked like the position file does; InputError when it is not allowed."""
        if key == "formation":
            allowed = self.formations(piece_type)
            if value in (None, "") and not allowed:
                return None
            if value not in allowed:
                raise InputError(f"formation {value!r}: a {piece_type} piece has {' '.join(allowed) or 'none'}")
            return value
        if key == "markers":
            items = value.replace(",", "+").split("+") if isinstance(value, str) else list(value)
            items = [m.strip().lower() for m in items if m.strip() and m.strip().lower() != "none"]
            for m in items:
                if m not in self.markers:
                    raise InputError(f"marker {m!r}: one of {' '.join(self.markers)} (several joined by +)")
            return tuple(items)
        if key == "bases":
            try:
                n = int(value)
            except (TypeError, ValueError):
                raise InputError(f"bases {value!r}: a whole number 1..12") from None
            if not 1 <= n <= 12:
                raise InputError(f"bases {n}: a whole number 1..12")
            return n
        if key == "type":
            if value not in self.types:
                raise InputError(f"type {value!r}: one of {' '.join(self.types)}")
            return value
        if key in self.flags:
            return bool(value)
        raise InputError(f"{key!r} is not part of a piece's game state")

    # ---- positions

    def empty_ground(self):
        return {"fields": {}, "edges": (), "night": False}

    def ground_from_position(self, pos) -> dict:
        return {"fields": dict(pos.fields), "edges": tuple(pos.edges), "night": pos.night}

    def ground_from_terrain(self, terrain: Iterable, grid) -> dict:
        """Terrain templates (kind, polygon in table mm, height) -> field terrain: a field whose centre lies inside
        a template takes its kind; a hill raises it one height plate (§3.1)."""
        FieldState = self.model.FieldState
        cells = [(c, r) for c in range(grid.cols) for r in range(grid.rows)]
        centres = np.array([grid.field_centre(c, r) for c, r in cells], float).reshape(-1, 2)
        out: dict[Field, Any] = {}
        for t in terrain:
            poly = np.asarray(t.polygon_mm, float).reshape(-1, 2)
            # a centre on the outline counts as inside, as OpenCV's pointPolygonTest did
            inside = points_in_polygon(centres, poly) | (distance_to_outline(centres, poly) < 1e-6)
            for i in np.flatnonzero(inside):
                cell = cells[i]
                s = out.get(cell, FieldState())
                if t.kind == "hill":
                    s = replace(s, height=s.height + 1)
                elif t.kind in TERRAIN_KINDS:
                    s = replace(s, terrain=TERRAIN_KINDS[t.kind])
                out[cell] = s
        return {"fields": out, "edges": (), "night": False}

    def make_position(self, cols: int, rows: int, pieces: Sequence[PieceSpec], states: Mapping[str, dict],
                      ground: Mapping | None = None):
        """The engine's position from camera-placed pieces and their game state (markers, formation, bases...)."""
        ground = ground or self.empty_ground()
        WienerPiece = self.model.WienerPiece
        out = []
        for p in pieces:
            kw = dict(self.default_state(p.type))
            kw.update({k: v for k, v in states.get(p.id, {}).items() if k != "type"})
            if kw.get("formation") not in self.formations(p.type):
                kw["formation"] = self.model.DEFAULT_FORMATION.get(p.type)
            out.append(WienerPiece(p.id, p.side, p.type, p.field, p.facing, **kw))
        return self.model.WienerPosition(self.name, tuple(out), cols, rows, night=bool(ground.get("night")),
                                         fields=dict(ground.get("fields", {})), edges=tuple(ground.get("edges", ())))

    # ---- one piece selected

    def selection(self, pos, pid: str) -> SelectionOverlay:
        """Front arc, the fields within each of the piece's ranges (in its arc of fire), its neighbouring and side
        fields, and a line to every enemy it could fire at or attack (blocked lines with their blocking fields)."""
        p = pos.piece(pid)
        w = weapon(p, self.opts)
        ranges: list[tuple[str, str, int]] = []
        if w is not None:
            label = "musket" if w == "small_arms" else "artillery"
            ranges.append((w, f"{label} range {RANGES[w]} LE", RANGES[w]))
        if p.type not in ("artillery", "horse_artillery", "general"):
            ranges.append(("melee", f"melee range {MELEE_RANGE} LE", MELEE_RANGE))
        round_fire = fires_all_round(p)
        shades = []
        for kind, label, reach in ranges:
            fs = []
            for c in range(max(0, p.field[0] - reach), min(pos.cols, p.field[0] + reach + 1)):
                for r in range(max(0, p.field[1] - reach), min(pos.rows, p.field[1] + reach + 1)):
                    f = (c, r)
                    if f == p.field or distance(p.field, f) > reach:
                        continue
                    if kind == "melee" or round_fire or in_front_arc(p.field, p.facing, f):
                        fs.append(f)
            shades.append(Shade(kind, label, tuple(fs)))
        shades.append(Shade("neighbour", "neighbouring fields (§3.4)",
                            tuple(f for f in neighbours(p.field) if pos.on_grid(f))))
        shades.append(Shade("side", "side fields (§3.4)", tuple(f for f in side_fields(p.field, p.facing)
                                                                  if pos.on_grid(f))))
        reach = max([r for _, _, r in ranges] or [2])
        # the arc that limits the piece: its arc of fire if it has a weapon (artillery: the barrel +-45 degrees even
        # though it sees all round, §8.4), else its arc of sight (§3.6)
        arc = Arc(p.field, facing_bearing(p.facing), 45.0, reach, round_fire if w is not None else all_round(p))
        lines = []
        for row in self._analyze_from(pos, pid):
            t = pos.piece(row["to"])
            fire, melee = row["fire"], row["melee"]
            blocked = not fire["allowed"] and (fire["reason"] or "").startswith("fire line blocked")
            if fire["allowed"]:
                lines.append(FireLine(t.id, p.field, t.field, True, "fire"))
            elif melee["allowed"]:
                lines.append(FireLine(t.id, p.field, t.field, True, "melee"))
            elif blocked:
                blockers = tuple(parse_field(n) for n in row["blocked_by"])
                lines.append(FireLine(t.id, p.field, t.field, False, "blocked", blockers, fire["reason"]))
        return SelectionOverlay(pid, arc, tuple(shades), tuple(lines))

    def targets(self, pos, pid: str) -> list[TargetRow]:
        rows = []
        for r in self._analyze_from(pos, pid):
            fire, melee = r["fire"], r["melee"]
            if fire["allowed"]:
                weapon_name = (fire["weapon"] or "").replace("_", " ")
                note = "; ".join(fire.get("warnings", []))
            elif melee["allowed"]:
                weapon_name = "melee"
                note = "; ".join(melee.get("warnings", []))
            else:
                weapon_name = ""
                note = fire["reason"] or ""
            rows.append(TargetRow(r["to"], r["to_field"], r["distance"], weapon_name, fire["allowed"],
                                  fire["net_modifier"] if fire["allowed"] else None, melee["allowed"],
                                  melee["net_modifier"] if melee["allowed"] else None, r["line_of_sight"], note))
        return rows

    # ---- two pieces selected

    def pair(self, pos, a: str, b: str) -> tuple[dict, list[str]]:
        """The engine's full pair analysis and its text: every modifier with its rule reference."""
        r = analyze_pair(pos, a, b, self.opts)
        yes = {True: "yes", False: "no"}
        lines = [f"{_describe(pos.piece(a))}  →  {_describe(pos.piece(b))}",
                 f"distance {r['distance']} LE · adjacent {yes[r['adjacent']]} · in a side field "
                 f"{yes[r['side_field']]} · target in front arc {yes[r['target_in_arc']]} · "
                 f"we are in its arc {yes[r['attacker_in_target_arc']]}"]
        if r["line_of_sight"]:
            lines.append("line of sight: clear")
        else:
            lines.append(f"line of sight: blocked by {', '.join(r['blocked_by'])}: {r['sight_reason']}")
        if not r["recognised"]:
            lines.append(f"not recognised: {r['recognition_reason']}")
        for key in ("fire", "melee"):
            c = r[key]
            if not c["allowed"]:
                lines.append(f"{key}: not allowed: {c['reason']}")
                continue
            w = f" ({c['weapon'].replace('_', ' ')})" if key == "fire" and c["weapon"] else ""
            lines.append(f"{key}: allowed{w}, net {c['net_modifier']:+d} after the ±4 caps (§8.1)")
            lines += ["    " + _modifier(m) for m in c["modifiers"]] or ["    no modifiers"]
            lines += [f"    note: {x}" for x in c.get("warnings", [])]
        if r.get("counter_fire"):
            c = r["counter_fire"]
            lines.append("counter-fire: " + ("yes" if c["allowed"] else f"no, {c['reason']}"))
        if r.get("melee_defence"):
            c = r["melee_defence"]
            lines.append("melee defence: " + ("yes" if c["allowed"] else f"no, {c['reason']}"))
        return r, lines

    # ---- combat

    def supporter_candidates(self, pos, attacker: str, target: str, action: str) -> list[str]:
        """Pieces the engine accepts as supporters of `attacker` against `target` (each on its own, §8.5)."""
        if action in self.single_piece_actions:
            return []
        a, t = pos.piece(attacker), pos.piece(target)
        out = []
        for s in pos.pieces:
            if s.side == a.side and s.id != a.id and not supporter_reasons(pos, a, t, [s], action, self.opts):
                out.append(s.id)
        return out

    def combat_modifiers(self, pos, attacker: str, target: str, action: str,
                         supporters: Sequence[str] = ()) -> tuple[list[str], list[str]]:
        """Both sides' modifiers with their rules, before the dice: (attacker lines, defender lines)."""
        if action in self.single_piece_actions:
            return [_SINGLE_PIECE_HINTS[action]], []
        a, t = pos.piece(attacker), pos.piece(target)
        sups = tuple(pos.piece(s) for s in supporters)
        if action == "fire":
            chk = fire_check(pos, a, t, self.opts, sups)
            counter = fire_check(pos, t, a, self.opts, response=True)
            dmods = counter.modifiers if counter.allowed else None
            dreason = counter.reason
        else:
            chk = melee_check(pos, a, t, self.opts, sups)
            dreason = defence_reason(pos, t, a) if chk.allowed else None
            dmods = melee_modifiers(pos, t, a, False, (), self.opts) if chk.allowed and dreason is None else None
        if not chk.allowed:
            att = [f"not allowed: {chk.reason}"]
        else:
            att = [_modifier(m) for m in modifiers_json(chk.modifiers)] or ["no modifiers"]
            att.append(f"net {chk.net_modifier:+d} (±4 caps, §8.1)")
            att += [f"note: {w}" for w in chk.warnings]
        if dmods is None:
            dfn = [f"does not roll: {dreason}" if dreason else "does not roll"]
        else:
            dfn = [_modifier(m) for m in modifiers_json(dmods)] or ["no modifiers"]
            dfn.append(f"net {cap(dmods, self.opts):+d} (±4 caps, §8.1)")
        return att, dfn

    def resolve(self, pos, action: str, attacker: str, target: str, *, dice: Sequence[int] = (),
                seed: int | None = None, supporters: Sequence[str] = (), defender_supporters: Sequence[str] = (),
                loss_die: int | None = None, flight: int | None = None, follow_up: bool | None = None
                ) -> CombatOutcome:
        if action not in self.actions:
            raise InputError(f"action {action!r}: one of {' '.join(self.actions)}")
        d = Dice(list(dice), seed)
        choices = R.Choices(flight, follow_up)
        if action in self.single_piece_actions:
            if action == "rally":
                res = R.resolve_rally(pos, attacker, d, self.opts)
            elif action == "flight":
                res = R.resolve_continued_flight(pos, attacker, 0, choices, self.opts)
            else:
                res = R.resolve_mount(pos, attacker, action == "mount", self.opts)
            out = res.as_dict()
            return CombatOutcome(res, list(d.rolled), d.seed if d.generated else None, _explain(out), out["changes"])
        fn = R.resolve_fire if action == "fire" else R.resolve_melee
        res = fn(pos, attacker, target, dice=d, supporters=list(supporters),
                 defender_supporters=list(defender_supporters), choices=choices, loss_die=loss_die, opts=self.opts)
        out = res.as_dict()
        return CombatOutcome(res, list(d.rolled), d.seed if d.generated else None, _explain(out), out["changes"])

    # ---- turns

    def next_phase(self, turn: int, active: str, sides: Sequence[str]) -> tuple[int, str]:
        """I-go-you-go (§4): each side has one active phase per turn, in roster order."""
        if not sides:
            return turn + 1, active
        i = sides.index(active) if active in sides else -1
        if i + 1 >= len(sides):
            return turn + 1, sides[0]
        return turn, sides[i + 1]

    def phase_reset(self) -> dict:
        """The per-turn state cleared when a side's active phase begins (§13 flags)."""
        return {k: False for k in ("fired", "shot_out", "moved", "road_march", "downhill")}


def _describe(p) -> str:
    kind = p.type.replace("_", " ") + (f" {p.formation}" if p.formation else "")
    extra = f", {p.bases} bases" if p.bases > 1 else ""
    marks = f", markers {'+'.join(p.markers)}" if p.markers else ""
    return f"{p.id} ({p.side} {kind}{extra}{marks}, {p.field_name} facing {p.facing})"


def _modifier(m: dict) -> str:
    return f"{m['value']:+d}  {m['rule']}" + (f"  ({m['section']})" if "section" in m else "")


def _explain(out: dict) -> list[str]:
    lines = [f"{out['action']}:"]
    for label in ("attacker", "defender"):
        s = out.get(label)
        if s is None:
            continue
        if s.get("roll") is None or s.get("responded") is False:
            lines.append(f"{label} {s['piece']}: does not roll" + (f" ({s['reason']})" if s.get("reason") else ""))
            continue
        reroll = f" (re-rolled from {s['first_roll']})" if "first_roll" in s else ""
        if "net_modifier" not in s:  # a roll against a threshold (rally, work), not a duel
            need = f", needs {s['needed']}+" if "needed" in s else ""
            lines.append(f"{label} {s['piece']}: rolls {s['roll']}{reroll}{need}")
            continue
        lines.append(f"{label} {s['piece']}: rolls {s['roll']}{reroll}, net {s['net_modifier']:+d} → WZ {s['wz']}")
        lines += ["    " + _modifier(m) for m in s.get("modifiers", [])]
    return lines + outcome_lines(out)


def outcome_lines(out: dict) -> list[str]:
    """The outcome of a Wiener resolution as text lines: winner and effect, loss test, every change with its
    reasons, notes. Shared by the dashboard's combat panel and `fieldglass resolve`."""
    lines = [f"winner: {out['winner']}, effect: {out['effect']} (§8.2)"]
    lt = out.get("loss_test")
    if lt:
        if "base_lost" in lt:
            lines.append(f"loss test: rolls {lt['roll']} (needs {lt['needed']}+): "
                         f"{'one base lost' if lt['base_lost'] else 'no base lost'}")
        else:
            lines.append(f"second roll: {lt['roll']} (needs {lt['needed']}+)")
    for c in out["changes"]:
        what = ", ".join(f"{k} {'+'.join(v) if isinstance(v, list) else v}" for k, v in c.items()
                         if k not in ("piece", "why", "removed"))
        if c.get("removed"):
            what = "removed" + (f" ({what})" if what else "")
        elif c.get("added"):
            what = "added: " + what.replace("added True, ", "")
        lines.append(f"{c['piece']}: {what}")
        lines += [f"    {w}" for w in c.get("why", [])]
    lines += [f"note: {n}" for n in out["notes"]]
    return lines


_SINGLE_PIECE_HINTS = {
    "rally": "rally at the end of its own phase: one die, 4+ (3+ with a general in a neighbouring field) removes"
             " every marker (§8.10)",
    "flight": "continued flight: a fleeing troop that failed to rally moves on 1-2 LE away from the enemy (§8.8)",
    "mount": "light cavalry mounts at the start of its phase, before moving or fighting (§4)",
    "dismount": "light cavalry dismounts at the start of its phase, before moving or fighting (§4)",
}


__all__ = ["WienerSystem", "outcome_lines"]


@functools.cache
def _state_names(cls) -> tuple[str, ...]:
    """The fields of an engine piece class that the camera cannot see (asked for every piece on every frame: the
    dataclass's field list read once)."""
    return tuple(f.name for f in dc_fields(cls) if f.name not in {"id", "side", "type", "field", "facing"})
