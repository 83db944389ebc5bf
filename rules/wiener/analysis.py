"""The first question of the table: can this unit see and reach that one, and with what modifiers?

`analyze_pair` answers for one acting piece and one target; `analyze_from` for every enemy of the acting piece.
These are the reference rules; `analyze_all` (rules/wiener/pairs.py) answers every pair of a position at once.
"""

from __future__ import annotations

from common.fields import field_name
from rules.geometry import distance, in_front_arc, is_neighbour, side_fields
from rules.wiener.combat import (
    defence_reason,
    fire_check,
    main_direction_target,
    melee_check,
)
from rules.wiener.model import WienerPiece, WienerPosition
from rules.wiener.movement import stacking_problems
from rules.wiener.options import DEFAULT, Options
from rules.wiener.sight import recognition_limit, trace
from rules.wiener.tables import all_round


def _pair(pos: WienerPosition, a: WienerPiece, b: WienerPiece, opts: Options, main) -> dict:
    d = distance(a.field, b.field)
    line = trace(pos, a.field, b.field, a, None, opts)
    lim = recognition_limit(pos, b, d, opts)
    in_arc = in_front_arc(a.field, a.facing, b.field)
    fire = fire_check(pos, a, b, opts, main=main)
    melee = melee_check(pos, a, b, opts)
    counter = fire_check(pos, b, a, opts, response=True) if fire.allowed else None
    return {
        "from": a.id,
        "to": b.id,
        "from_field": field_name(*a.field),
        "to_field": field_name(*b.field),
        "distance": d,
        "adjacent": is_neighbour(a.field, b.field),
        "side_field": b.field in side_fields(a.field, a.facing),
        "target_in_arc": in_arc,
        "attacker_in_target_arc": in_front_arc(b.field, b.facing, a.field),
        "sees_all_round": all_round(a),
        "line_of_sight": line.clear,
        "blocked_by": list(line.blocked_by),
        "sight_reason": line.first_reason,
        "recognised": lim is None,
        "recognition_reason": lim,
        "fire": fire.as_dict(),
        "melee": melee.as_dict(),
        "counter_fire": None if counter is None else {"allowed": counter.allowed, "reason": counter.reason},
        "melee_defence": None if not melee.allowed else {
            "allowed": defence_reason(pos, b, a) is None, "reason": defence_reason(pos, b, a)},
    }


def analyze_pair(pos: WienerPosition, from_id: str, to_id: str, opts: Options = DEFAULT) -> dict:
    a, b = pos.piece(from_id), pos.piece(to_id)
    return _pair(pos, a, b, opts, "find")


def analyze_from(pos: WienerPosition, from_id: str, opts: Options = DEFAULT) -> list[dict]:
    """The pair analysis against every enemy piece, nearest first."""
    a = pos.piece(from_id)
    main = main_direction_target(pos, a, opts)
    enemies = sorted((p for p in pos.pieces if p.side != a.side), key=lambda p: (distance(a.field, p.field), p.id))
    return [_pair(pos, a, b, opts, main) for b in enemies]


def position_warnings(pos: WienerPosition, opts: Options = DEFAULT) -> list[str]:
    """Stacking problems in the whole position (§3.8)."""
    out = []
    for f in pos.occupants:
        out += stacking_problems(pos, f, opts=opts)
    return out
