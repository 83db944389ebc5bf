"""`fieldglass analyze` and `fieldglass resolve` for Coalitions positions (handed over by
fieldglass.commands.systems).

analyze --from X [--to Y]: X a Power (its action this turn, taxes, Influence, eligible Arbiters, relations), `wheel`
(every Power's action this turn), a Territory (controller, kind, value, neighbours, sea routes, pieces), a General
(where each kind of move takes it, what it could attack); with --to: two Territories (adjacent, sea route, steps),
a General and a Territory (the kind of move that gets there and what stops it), two Generals (relation, may attack).

resolve --action ACTION --attacker ID [--target ID] [--choice KEY=VALUE ...] [--out FILE]: the actions and their
choices are in rules/coalitions/README.md (and `CoalitionsSystem.choice_help`). No dice: the game has none.
"""

from __future__ import annotations

from common import jsonout
from common.choices import choices as parse_choices
from common.errors import InputError
from rules import position as positions
from rules.coalitions import diplomacy, economy, movement, turn
from rules.coalitions.adapter import CoalitionsSystem, infer_kind
from rules.coalitions.model import POWERS, CoalitionsPosition, names, unknown
from rules.coalitions.options import get_options


def _load(args) -> CoalitionsPosition:
    pos = positions.load(args.position)
    if not isinstance(pos, CoalitionsPosition):
        raise InputError(f"{args.position}: not a Coalitions position")
    return pos


def _power(pos: CoalitionsPosition, p: str, system: CoalitionsSystem) -> tuple[dict, list[str]]:
    s = pos.state
    out = {"power": p, "status": s.status(p), "action": turn.action_of(s, p), "morale": s.morale_of(p),
           "influence": s.influence.get(p, 0), "money": s.money.get(p, 0), "hand": s.hands.get(p),
           "minor_of": s.minors.get(p) if s.is_minor(p) else None, "tax": economy.tax_value(s, p),
           "influence_value": economy.influence_value(s, p),
           "arbiters": movement.eligible_arbiters(s, p, system.opts),
           "relations": {q: diplomacy.relation(s, p, q) for q in POWERS if q != p}}
    text = [f"{p} ({out['status']}): {out['action']} this turn (round {s.round}, turn {s.turn}); Morale "
            f"{out['morale']}, IP {out['influence']}, Money {out['money']}",
            f"  taxes {out['tax']['total']}; Expand Influence {out['influence_value']['ip']}; may choose as Arbiter "
            f"{names(out['arbiters'])}",
            "  " + "; ".join(f"{q} {r}" for q, r in out["relations"].items())]
    return out, text


def _territory(pos: CoalitionsPosition, tid: str) -> tuple[dict, list[str]]:
    s = pos.state
    t = s.europe.territories[tid]
    out = {"territory": tid, "name": t.name, "kind": t.kind, "home": t.home, "value": t.value,
           "stripes": sorted(t.stripes), "port": t.port, "controller": s.controller(tid),
           "neighbours": sorted(s.europe.land[tid]), "sea_routes": sorted(s.europe.routes[tid]),
           "generals": [g.id for g in s.generals_at(tid)], "garrison": s.garrisons.get(tid),
           "fortress": tid in s.fortresses}
    text = [f"{t.name} ({tid}): {t.kind}" + (f" of {t.home}" if t.home else "") + f", value {t.value}"
            + (f", stripes {'/'.join(out['stripes'])}" if t.stripes else "") + (", port" if t.port else "")
            + f"; controlled by {out['controller'] or 'nobody'}",
            f"  neighbours {names(out['neighbours'])}; sea routes {names(out['sea_routes'])}",
            f"  Generals {names(out['generals'])}; Garrison {out['garrison'] or 'none'}"
            + (" with a Fortress" if out["fortress"] else "")]
    return out, text


def _general(pos: CoalitionsPosition, gid: str, system: CoalitionsSystem) -> tuple[dict, list[str]]:
    g = pos.state.general(gid)
    dest = movement.destinations(pos, gid, system.opts)
    rows = system.targets(pos, gid)
    out = {"general": gid, "power": g.power, "at": g.at, "troops": g.troops, "special": g.special, "moves": dest,
           "targets": [r.__dict__ for r in rows]}
    text = [f"{gid} ({g.power}{', ' + g.special if g.special else ''}, {g.troops} Troops) in {g.at or 'off-map'}"]
    text += [f"  {k}: {names(v)}" for k, v in dest.items()]
    text += [f"  may attack {r.target} by {r.weapon}: {r.note}" for r in rows]
    return out, text


def _general_to(pos: CoalitionsPosition, gid: str, tid: str, system: CoalitionsSystem) -> tuple[dict, list[str]]:
    try:
        kind, path, others = infer_kind(pos, gid, tid, system.opts, consent=True)
        power = pos.state.general(gid).power
        enemies = [p for p in diplomacy.powers_on(pos.state, tid) if not diplomacy.allied(pos.state, power, p)]
        out = {"general": gid, "to": tid, "kind": kind, "path": path, "also": others, "reasons": [],
               "battle_with": enemies}
        text = [f"{gid} -> {tid}: a {kind} along {'-'.join(path)}" + (f" (also {', '.join(others)})" if others
                                                                     else "")
                + (f"; a battle with {names(enemies)} follows (§8.1)" if enemies else "")]
    except InputError as exc:
        reasons = movement.entry_reasons(pos, pos.state.general(gid).power, tid, system.opts)
        out = {"general": gid, "to": tid, "kind": None, "path": [], "reasons": reasons or [str(exc)]}
        text = [f"{gid} -> {tid}: not possible"] + [f"  {r}" for r in out["reasons"]]
    return out, text


def analyze(args) -> int:
    pos = _load(args)
    system = CoalitionsSystem(get_options(getattr(args, "options", None)))
    s = pos.state
    a, b = getattr(args, "from_id", None), getattr(args, "to_id", None)
    if not a:
        raise InputError(f"{args.position}: Coalitions analyze needs --from (a Power, wheel, a Territory or a General)")
    if a == "wheel":
        out = {"round": s.round, "turn": s.turn, "schedule": turn.schedule(s)}
        text = [f"round {s.round}, turn {s.turn}: " + "; ".join(f"{p} {x}" for p, x in out["schedule"].items())]
    elif a in POWERS:
        out, text = _power(pos, a, system)
    elif a in s.europe.territories and b:
        s.europe.territory(b, "--to")
        steps = diplomacy.distances(s, a).get(b)
        out = {"from": a, "to": b, "adjacent": s.europe.adjacent(a, b), "sea_route": b in s.europe.routes[a],
               "land_steps": steps}
        text = [f"{a} -> {b}: {'adjacent' if out['adjacent'] else 'not adjacent'}; "
                f"{'a direct Sea Route' if out['sea_route'] else 'no direct Sea Route'}; "
                + (f"{steps} step(s) by land" if steps is not None else "no path by land")]
    elif a in s.europe.territories:
        out, text = _territory(pos, a)
    elif b and b in s.europe.territories:
        out, text = _general_to(pos, a, b, system)
    elif a not in s.generals:
        raise unknown("Power, Territory, General or wheel", a, (*POWERS, "wheel", *sorted(s.europe.territories),
                                                                *sorted(s.generals)), "--from")
    elif b:
        out, text = system.pair(pos, a, b)
    else:
        out, text = _general(pos, a, system)
    if getattr(args, "json", False):
        print(jsonout.dumps(out))
    else:
        print("\n".join(text))
    return 0


def resolve(args) -> int:
    pos = _load(args)
    system = CoalitionsSystem(get_options(getattr(args, "options", None)))
    if getattr(args, "dice", None):
        raise InputError("--dice: Coalitions has no dice (§1)")
    outcome = system.resolve(pos, args.action, args.attacker, getattr(args, "target", None),
                             choices=parse_choices(args))
    if getattr(args, "out", None):
        positions.save(outcome.after, args.out)
    if getattr(args, "json", False):
        print(jsonout.dumps(outcome.resolution.to_json()))
    else:
        print("\n".join(outcome.lines))
    return 0
