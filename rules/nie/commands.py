"""`fieldglass analyze` and `fieldglass resolve` for Napoleon in Europe positions (handed over by
fieldglass.commands.systems).

analyze --from X [--to Y]: X and Y are units or regions. Two units on the battle board: may X fire at or charge Y,
with the table number and every modifier; one unit: its zone or region, where it may go and whom it may attack;
two regions: neighbours, and whether X's owner may enter Y; one region or sea area: owner, neighbours, ports,
units or squadrons; one nation (--from france): its PP, placement regions and victory level.

resolve --action ACTION --attacker ID [--target ID] [--dice N,N] [--seed S] [--choice KEY=VALUE ...] [--out FILE]:
the actions and their choices are listed in rules/nie/README.md (and `NieSystem.choice_help`).
"""

from __future__ import annotations

from common import jsonout
from common.choices import choices as parse_choices
from common.dice import parse_d6
from common.errors import InputError
from rules import position as positions
from rules.nie import politics, strategic
from rules.nie.adapter import NieSystem
from rules.nie.model import NATIONS, NiePosition, unknown
from rules.nie.options import get_options


def _load(args) -> NiePosition:
    pos = positions.load(args.position)
    if not isinstance(pos, NiePosition):
        raise InputError(f"{args.position}: not a Napoleon in Europe position")
    return pos


def _known(pos: NiePosition, name: str, what: str) -> None:
    """A unit of the position, else the one-line answer naming `name` as unknown with every name analyze knows."""
    if name not in pos.units:
        raise unknown("unit, region, sea area or nation", name,
                      (*pos.units, *pos.europe.regions, *pos.europe.seas, *NATIONS), what)


def analyze(args) -> int:
    pos = _load(args)
    system = NieSystem(get_options(getattr(args, "options", None)))
    a, b = getattr(args, "from_id", None), getattr(args, "to_id", None)
    if not a:
        raise InputError(f"{args.position}: Napoleon in Europe analyze needs --from (a unit, a region or a nation)")
    if a in NATIONS:
        pr = pos.production
        out = {"nation": a, "pp_saved": pos.pp.get(a, 0), "pap": pos.pap.get(a, 0),
               "production": politics.production_points(pos, a, system.opts),
               "production_turn": pr is not None and pos.active == a,
               "totalled": None if pr is None else pr.totalled.get(a),
               "built": dict(politics.built_this_round(pos, a)),
               "placement_regions": politics.placement_regions(pos, a), "victory": politics.victory_level(pos, a)}
        turn_text = ("" if pr is None else f"; production round: {pos.active}'s production turn, {a} "
                     + ("has totalled" if out["totalled"] is not None else "has not totalled") + " (§4.1)")
        text = [f"{a}: {out['pp_saved']} PP saved, {out['production']['pp']} PP income (§9.4), {out['pap']} PAP; "
                f"places new units in {', '.join(out['placement_regions']) or 'nowhere'}; {out['victory']['name']}"
                + turn_text]
    elif a in pos.europe.regions and not b:
        r = pos.europe.regions[a]
        out = {"region": a, "name": r.name, "owner": pos.owner(a), "home": r.home, "capital": r.capital,
               "uprising": a in pos.uprisings, "neighbours": sorted(r.neighbours), "port": sorted(r.port),
               "units": [u.id for u in pos.units_at(a)], "port_squadrons": [u.id for u in pos.units_at(f"port:{a}")],
               "battle_due": a in strategic.battles(pos)}
        text = [f"{r.name} ({a}): owner {out['owner'] or 'none (neutral minor)'}"
                + (f", homeland of {r.home}" if r.home else "") + (", capital" if r.capital else "")
                + (", in uprising" if out["uprising"] else ""),
                f"  neighbours: {', '.join(out['neighbours']) or 'none'}; port on: {', '.join(out['port']) or '-'}",
                f"  units: {', '.join(out['units']) or 'none'}" + ("; a battle is due (§4.1)" if out["battle_due"]
                                                                    else "")]
    elif a in pos.europe.seas:
        sea = pos.europe.seas[a]
        fleets: dict[str, list[str]] = {}
        for u in pos.units_at(a):
            fleets.setdefault(u.nation, []).append(u.id)
        out = {"sea": a, "name": sea.name, "neighbours": sorted(sea.neighbours), "straits": sorted(sea.straits),
               "squadrons": fleets}
        text = [f"{sea.name} ({a}): neighbours {', '.join(out['neighbours'])}"
                + (f"; strait to {', '.join(out['straits'])} (§5.4)" if sea.straits else ""),
                "  squadrons: " + ("; ".join(f"{n} {len(v)}" for n, v in fleets.items()) or "none")]
    elif a in pos.europe.regions:
        if b not in pos.europe.regions:
            raise InputError(f"{args.position}: --from REGION --to needs another region")
        owner = pos.owner(a)
        out = {"from": a, "to": b, "adjacent": pos.europe.adjacent(a, b), "owner_from": owner, "owner_to": pos.owner(b),
               "entry": strategic.entry_reasons(pos, owner, b) if owner else []}
        text = [f"{a} -> {b}: {'neighbouring' if out['adjacent'] else 'not neighbouring'}; owners "
                f"{owner or 'minor'} / {out['owner_to'] or 'minor'}"] + [f"  {r}" for r in out["entry"]]
    else:
        _known(pos, a, "--from")
        if b:
            _known(pos, b, "--to")
            out, text = system.pair(pos, a, b)
        else:
            sel = system.selection(pos, a)
            out = {"unit": a, "where": sel.where, "moves": list(sel.moves), "targets": list(sel.targets),
                   "target_rows": [t.__dict__ for t in system.targets(pos, a)]}
            text = [f"{a} in {sel.where}: may move to {', '.join(sel.moves) or 'nowhere'}; may attack "
                    f"{', '.join(sel.targets) or 'nobody'}"]
            text += [f"  {t.target} in {t.field}: {t.note or ('fire ' + str(t.fire_net) if t.fire else '')}"
                     for t in system.targets(pos, a)]
    if getattr(args, "json", False):
        print(jsonout.dumps(out))
    else:
        print("\n".join(text))
    return 0


def resolve(args) -> int:
    pos = _load(args)
    system = NieSystem(get_options(getattr(args, "options", None)))
    given = parse_d6(args.dice, "--dice") if getattr(args, "dice", None) else []
    outcome = system.resolve(pos, args.action, args.attacker, getattr(args, "target", None), dice=given,
                             seed=getattr(args, "seed", None), choices=parse_choices(args))
    if getattr(args, "out", None):
        positions.save(outcome.after, args.out)
    if getattr(args, "json", False):
        print(jsonout.dumps({**outcome.resolution.to_json(), "seed": outcome.seed}))
    else:
        print("\n".join(outcome.lines))
    return 0
