"""The table's questions for DBX: how far, how touching, in whose zone, seen, may shoot, may fight (§3, §6-§8).

`analyze_pair` answers for one acting element and one target; `analyze_from` gives the whole picture for one element.
"""

from __future__ import annotations

from rules.dbx.combat import fire_check, melee_check
from rules.dbx.contact import contact, distance_mm, enemies, group_of, in_zoc, overlaps_on
from rules.dbx.model import DbxPiece, DbxPosition
from rules.dbx.movement import allowance, pip_cost
from rules.dbx.options import DEFAULT, Options
from rules.dbx.sight import bad_going_features, can_shoot, candidates, fire_range, line_of_sight, range_mm


def _r(x: float, n: int = 1) -> float:
    return round(float(x), n)


def analyze_pair(pos: DbxPosition, from_id: str, to_id: str, opts: Options = DEFAULT) -> dict:
    a, b = pos.piece(from_id), pos.piece(to_id)
    d = distance_mm(pos, a, b)
    c = contact(pos, a, b, opts)
    seen, blk = line_of_sight(pos, a, b, opts)
    out = {
        "from": a.id,
        "to": b.id,
        "distance_mm": _r(d, 2),
        "distance_paces": _r(pos.scale.paces(d)),
        "distance_bb": _r(pos.scale.bb(d), 3),
        "contact": c.kind,
        "contact_edge": c.edge,
        "contact_valid": c.valid,
        "contact_uncertain": c.uncertain,
        "bases_overlap": c.intersect,
        "in_zone_of_control": in_zoc(pos, a, b, opts) if a.side != b.side else False,
        "line_of_sight": seen,
        "blocked_by": blk,
        "range_paces": _r(pos.scale.paces(range_mm(pos, a, b))),
    }
    if a.side == b.side:
        no = {"allowed": False, "reason": "same side", "modifiers": [], "net_modifier": 0}
        out["fire"], out["melee"] = dict(no), dict(no)
    else:
        out["fire"] = fire_check(pos, a, b, opts)
        out["melee"] = melee_check(pos, a, b, opts)
    return out


def analyze_from(pos: DbxPosition, from_id: str, opts: Options = DEFAULT) -> dict:
    """The whole picture for one element: its going, move allowance and PIP cost, group, fire targets, contacts,
    the zones of control it stands in, and every enemy pair, nearest first."""
    a = pos.piece(from_id)
    pairs = [analyze_pair(pos, a.id, e.id, opts) for e in enemies(pos, a)]
    pairs.sort(key=lambda r: (r["distance_mm"], r["to"]))
    allow, why = allowance(pos, a, opts)
    cost, cost_why = pip_cost(pos, a, opts)
    shoot, shoot_why = can_shoot(pos, a, opts)
    rng, _ = fire_range(pos, a, opts)
    cands = candidates(pos, a, opts) if shoot else []
    contacts = []
    for q in pos.pieces:
        if q.id == a.id:
            continue
        c = contact(pos, a, q, opts)
        if c.kind or c.uncertain:  # §13 a borderline pair is listed for the user to confirm
            contacts.append({"piece": q.id, "side": q.side, "contact": c.kind, "edge": c.edge, "valid": c.valid,
                             "uncertain": c.uncertain})
    return {
        "from": a.id,
        "type": a.type,
        "side": a.side,
        "going": "bad" if bad_going_features(pos, a, opts) else "good",
        "bad_going": bad_going_features(pos, a, opts),
        "move_allowance_paces": allow,
        "move_allowance_reason": why,
        "pip_cost": cost,
        "pip_reasons": cost_why,
        "group": group_of(pos, a, opts),
        "can_shoot": shoot,
        "shoot_reason": shoot_why,
        "fire_range_paces": rng,
        "fire_targets": [{"piece": e.id, "range_paces": _r(pos.scale.paces(dd))} for dd, e in cands],
        "contacts": contacts,
        "overlapped_by": [{"piece": e.id, "contact": c.kind, "edge": c.edge} for e, c in overlaps_on(pos, a, opts)],
        "in_zone_of_control_of": [e.id for e in enemies(pos, a) if in_zoc(pos, a, e, opts)],
        "targets": pairs,
    }


def piece_summary(pos: DbxPosition, p: DbxPiece) -> str:
    q = f" {p.quality}" if p.quality else ""
    sq = f", square x{p.square}" if p.square else ""
    return (f"{p.id} ({p.side} {p.ut.name}{q}{sq}, at {p.x_mm:.1f},{p.y_mm:.1f} mm facing {p.heading_deg:.0f} deg)")
