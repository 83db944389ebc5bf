"""`fieldglass analyze` and `fieldglass resolve` for DBX positions (handed over by fieldglass/commands/systems.py).

    fieldglass analyze game.json --from p1 --to p2 --json     distance (mm, paces, BB), contact, ZOC, sight, fire, melee
    fieldglass analyze game.json --from p1                    the whole picture for p1 (every enemy, nearest first)
    fieldglass analyze game.json --from p1 --path 300,200 --facing 90    may p1 move there? (§5)
    fieldglass analyze game.json --from p1 --path 300,200 --choice group=all     the group moving as a whole (§5.2)
    fieldglass analyze game.json --all --json                 every enemy pair
    fieldglass resolve game.json --action fire --attacker p1 --target p2 --dice 5,3 [--supporters a,b]
    fieldglass resolve game.json --action melee|river|square|swap|turn ... [--choice partner=ID] [--out after.json]
    fieldglass resolve game.json --action move --attacker p1 --path 300,200 [--choice facing=90] [--choice group=all]
    fieldglass resolve game.json --action column --attacker p1 --choice group=p1,p2 --choice end.p2=300,160,0
    fieldglass resolve game.json --action rout --attacker p1 [--choice held=a,b] [--choice edge=south]    §9.6
"""

from __future__ import annotations

from collections.abc import Callable

from common import jsonout
from common.choices import choices, split_ids
from common.dice import Dice, parse_d6
from common.errors import InputError
from rules import position as positions
from rules.dbx import movement
from rules.dbx.analysis import analyze_from, analyze_pair, piece_summary
from rules.dbx.group_move import apply_group_move, check_column_change, check_group_move, group_members
from rules.dbx.model import DbxPosition
from rules.dbx.options import load_options
from rules.dbx.resolve import demoralised_flight, resolve_fire, resolve_melee, resolve_river, resolve_simple

ACTIONS = ("fire", "melee", "river", "square", "swap", "turn", "move", "column", "rout")


def _load(args) -> tuple[DbxPosition, object, dict]:
    pos = positions.load(args.position)
    if not isinstance(pos, DbxPosition):
        raise InputError(f"{args.position}: not a DBX position")
    opts = load_options(getattr(args, "options", None))
    ch = choices(args)
    if "tolerance_mm" in ch:  # a quick override without an options file
        try:
            opts = opts.with_values({"tolerance_mm": float(ch.pop("tolerance_mm"))}, "--choice")
        except ValueError:
            raise InputError("--choice tolerance_mm: must be a number") from None
    return pos, opts, ch


def _need(pos: DbxPosition, source: str, pid: str | None) -> None:
    if pid is not None and pid not in pos.by_id:
        known = ", ".join(p.id for p in pos.pieces[:8]) + (", ..." if len(pos.pieces) > 8 else "")
        raise InputError(f"{source}: no piece {pid!r} (pieces: {known or 'none'})")


def _dump(out) -> str:
    return jsonout.dumps(out)


# ---------------------------------------------------------------- analyze


def analyze(args) -> int:
    pos, opts, ch = _load(args)
    if getattr(args, "all", False):
        return _all(pos, opts, args.json)
    if not args.from_id:
        raise InputError("analyze needs --from ID (or --all for every pair)")
    for pid in (args.from_id, args.to_id):
        _need(pos, args.position, pid)
    if getattr(args, "path", None):
        out = _move(pos, args.from_id, args.path, getattr(args, "facing", None), ch.get("group"), opts)
        print(_dump(out) if args.json else _move_text(out))
        return 0
    if args.to_id:
        out = analyze_pair(pos, args.from_id, args.to_id, opts)
        print(_dump(out) if args.json else _pair_text(pos, out))
        return 0
    out = analyze_from(pos, args.from_id, opts)
    print(_dump(out) if args.json else _from_text(pos, out))
    return 0


def _all(pos: DbxPosition, opts, as_json: bool) -> int:
    """Every ordered enemy pair: distance, contact, zone of control, sight, whether it may fire or attack."""
    rows = []
    for a in pos.pieces:
        for b in pos.pieces:
            if a.side != b.side:
                r = analyze_pair(pos, a.id, b.id, opts)
                rows.append({k: r[k] for k in ("from", "to", "distance_mm", "distance_paces", "distance_bb",
                                               "contact", "contact_uncertain", "in_zone_of_control",
                                               "line_of_sight")}
                            | {"fire_allowed": r["fire"]["allowed"], "melee_allowed": r["melee"]["allowed"]})
    if as_json:
        print(_dump({"pairs": rows}))
        return 0
    print(f"{len(rows)} ordered enemy pairs")
    for r in rows:
        unsure = " (uncertain, confirm it: §13)" if r["contact_uncertain"] else ""
        print(f"  {r['from']} -> {r['to']}: {r['distance_paces']:.0f} paces, contact {r['contact']}{unsure}, "
              f"fire {'yes' if r['fire_allowed'] else 'no'}, melee {'yes' if r['melee_allowed'] else 'no'}")
    return 0


def _move(pos: DbxPosition, pid: str, path_text: str, facing: str | None, group: str | None, opts) -> dict:
    """§5 one element's move, or with `group` (`all` = its whole §3.3 group, or ids) the group's move (§5.2)."""
    nums = split_ids(path_text)
    try:
        vals = [float(s) for s in nums]
    except ValueError:
        raise InputError(f"--path {path_text!r}: expected x,y[,x,y...] in table mm") from None
    if not vals or len(vals) % 2:
        raise InputError(f"--path {path_text!r}: expected pairs of numbers x,y in table mm")
    path = list(zip(vals[::2], vals[1::2], strict=True))
    headings: list[float | None] = []
    if facing is not None and str(facing).strip():
        try:
            headings = [float(h) if h.strip() else None for h in str(facing).split(",")]
        except ValueError:
            raise InputError(f"--facing {facing!r}: a DBX facing is a compass bearing in degrees (one per waypoint "
                             "or the last)") from None
        if len(headings) == 1:
            headings = [None] * (len(path) - 1) + headings
        elif len(headings) != len(path):
            raise InputError(f"--facing {facing!r}: give one facing, or one per waypoint ({len(path)})")
    if group:
        ids = group_members(pos, pid, group)
        if len(ids) > 1:
            return check_group_move(pos, ids, pid, path, headings, opts)
    if any(h is not None for h in headings[:-1]):
        raise InputError(f"--facing {facing!r}: a single element's move gives only the facing at its end")
    return movement.check_move(pos, pid, path, headings[-1] if headings else None, opts)


def _move_text(out: dict) -> str:
    if "group" in out:
        head = (f"group {', '.join(out['group'])} ({out['formation']}, led by {out['leader']}): "
                f"{'; '.join(out['manoeuvres'])}; front corner travels {out['front_corner_paces']:.0f} paces of "
                f"{out['allowance_paces']} ({out['allowance_reason']}); costs {out['pip_cost']} PIP")
        body = ["  legal move" if out["legal"] else "  not allowed:"] + [f"    {p}" for p in out["problems"]]
        return "\n".join([head] + body + [f"  cost: {'; '.join(out['pip_reasons'])}"])
    head = (f"{out['piece']}: front corner travels {out['front_corner_paces']:.0f} paces of {out['allowance_paces']} "
            f"({out['allowance_reason']}); costs {out['pip_cost']} PIP")
    body = ["  legal move" if out["legal"] else "  not allowed:"] + [f"    {p}" for p in out["problems"]]
    return "\n".join([head] + body + [f"  cost: {'; '.join(out['pip_reasons'])}"])


def _mods(m: dict) -> str:
    if not m["modifiers"]:
        return "no modifiers"
    return ", ".join(f"{x['value']:+d} {x['rule']} ({x['section']})" for x in m["modifiers"]) + \
        f"; net {m['net_modifier']:+d}"


def _pair_text(pos: DbxPosition, r: dict) -> str:
    a, b = pos.piece(r["from"]), pos.piece(r["to"])
    lines = [f"{piece_summary(pos, a)} -> {piece_summary(pos, b)}",
             f"  distance {r['distance_mm']:.1f} mm = {r['distance_paces']:.0f} paces = {r['distance_bb']:.2f} BB; "
             f"contact {r['contact'] or 'none'}" + (f" ({r['contact_edge']} edge)" if r["contact_edge"] else "")
             + (", bases overlap!" if r["bases_overlap"] else "")
             + ("; contact uncertain, confirm it (§13)" if r["contact_uncertain"] else ""),
             f"  in its zone of control: {'yes' if r['in_zone_of_control'] else 'no'}; line of sight: "
             + ("clear" if r["line_of_sight"] else f"blocked by {', '.join(r['blocked_by'])}")]
    for key in ("fire", "melee"):
        m = r[key]
        if m["allowed"]:
            lines.append(f"  {key}: allowed ({m['reason']}), {_mods(m)}")
        else:
            lines.append(f"  {key}: no - {m['reason']}")
    return "\n".join(lines)


def _from_text(pos: DbxPosition, out: dict) -> str:
    a = pos.piece(out["from"])
    lines = [piece_summary(pos, a),
             f"  {out['going']} going; moves {out['move_allowance_paces']} paces ({out['move_allowance_reason']}); "
             f"a move costs {out['pip_cost']} PIP",
             f"  group: {', '.join(out['group'])}",
             f"  shoots: {'yes' if out['can_shoot'] else 'no'} ({out['shoot_reason']})"]
    if out["fire_targets"]:
        tg = out["fire_targets"]
        lines.append("  fire targets: " + ", ".join(f"{t['piece']} {t['range_paces']:.0f} p" for t in tg))
    if out["contacts"]:
        lines.append("  contacts: " + ", ".join(f"{c['piece']} {c['contact']}" for c in out["contacts"]))
    if out["in_zone_of_control_of"]:
        lines.append("  in the zone of control of: " + ", ".join(out["in_zone_of_control_of"]))
    if not out["targets"]:
        lines.append(f"{a.id}: no enemy pieces on the table")
    return "\n".join(lines + ["", *("\n".join([_pair_text(pos, r), ""]) for r in out["targets"])]).rstrip()


# ---------------------------------------------------------------- resolve




def resolve(args) -> int:
    pos, opts, ch = _load(args)
    action = args.action
    if action not in ACTIONS:
        raise InputError(f"--action {action!r}: DBX actions are {' '.join(ACTIONS)}")
    _need(pos, args.position, args.attacker)
    _need(pos, args.position, getattr(args, "target", None))
    given = parse_d6(args.dice, "--dice") if getattr(args, "dice", None) else []
    dice = Dice(given, getattr(args, "seed", None))
    if action in ("fire", "melee", "turn") and not args.target:
        raise InputError(f"--action {action} needs --target ID")
    res = _ACTION_HANDLERS[action](pos, args, ch, dice, opts)
    out = res.as_dict()
    out["dice"] = {"rolled": list(dice.rolled)}
    if dice.generated:
        out["dice"]["seed"] = dice.seed
    out.pop("seed", None)
    if getattr(args, "out", None):
        positions.save(res.after, args.out)
    if args.json:
        print(_dump(out))
    else:
        print(_resolve_text(out))
        if getattr(args, "out", None):
            print(f"position after written to {args.out}")
    return 0


def _resolve_fire(pos: DbxPosition, args, ch: dict, dice: Dice, opts):
    return resolve_fire(pos, args.attacker, args.target, dice, split_ids(getattr(args, "supporters", None)), opts)


def _resolve_melee(pos: DbxPosition, args, ch: dict, dice: Dice, opts):
    return resolve_melee(pos, args.attacker, args.target, dice, opts)


def _resolve_river(pos: DbxPosition, args, ch: dict, dice: Dice, opts):
    return resolve_river(pos, args.attacker, dice, opts)


def _resolve_square(pos: DbxPosition, args, ch: dict, dice: Dice, opts):
    """`--action square`: two elements form a square (§5.11), the partner from --choice partner=ID or --target."""
    partner = ch.get("partner") or args.target
    markers = ch.get("markers")
    try:
        m = int(markers) if markers else None
    except ValueError:
        raise InputError("--choice markers: a whole number 1..5") from None
    after = movement.form_square(pos, args.attacker, partner, m, opts)
    return resolve_simple(pos, "square", after, args.attacker, partner, "forms a square for 1 PIP (§5.11)", opts)


def _resolve_swap(pos: DbxPosition, args, ch: dict, dice: Dice, opts):
    after = movement.swap_line_jaeger(pos, args.attacker, ch.get("new_id") or args.target, opts)
    return resolve_simple(pos, "swap", after, args.attacker, None,
                          "exchanges line infantry and 2 Jäger for 1 PIP (§5.10)", opts)


def _resolve_rout(pos: DbxPosition, args, ch: dict, dice: Dice, opts):
    """`--action rout`: a demoralised element's flight (§9.6), past the --choice held=ID,.. elements."""
    held = [x for x in (ch.get("held") or "").split(",") if x.strip()]
    for h in held:
        _need(pos, "--choice held", h.strip())
    return demoralised_flight(pos, args.attacker, [h.strip() for h in held], ch.get("edge"), opts)


def _resolve_turn(pos: DbxPosition, args, ch: dict, dice: Dice, opts):
    after = movement.turn_to_face(pos, args.target, args.attacker, opts)
    return resolve_simple(pos, "turn", after, args.attacker, args.target,
                          "turns to face its flank or rear attacker at the end of the movement phase (§3.5)", opts)


def _resolve_move(pos: DbxPosition, args, ch: dict, dice: Dice, opts):
    """`--action move`: a legal tactical move (one element, or a group with --choice group=...) applied (§5)."""
    if not getattr(args, "path", None):
        raise InputError("--action move needs --path x,y[,x,y...] (the mover's centre in table mm)")
    out = _move(pos, args.attacker, args.path, ch.get("facing"), ch.get("group"), opts)
    if not out["legal"]:
        raise InputError(f"move of {args.attacker} not allowed: {'; '.join(out['problems'])}")
    if "group" not in out:
        out = out | {"ends": {out["piece"]: out["end"]}}
    after = apply_group_move(pos, out)
    what = (f"group {', '.join(out['group'])}: {'; '.join(out['manoeuvres'])}" if "group" in out
            else f"moves {out['front_corner_paces']:.0f} paces")
    res = resolve_simple(pos, "move", after, args.attacker, None,
                         f"{what} for {out['pip_cost']} PIP (§5.1, §5.2, §5.4)", opts)
    res.notes = list(out["pip_reasons"])
    return res


def _resolve_column(pos: DbxPosition, args, ch: dict, dice: Dice, opts):
    """`--action column`: a group forms a 1-element-wide column in one group move (§5.2, §5.4), from
    `--choice group=a,b,c` and each moving member's end pose as `--choice end.ID=x,y,heading` (table mm, degrees)."""
    ids = split_ids(ch.get("group"))
    if args.attacker not in ids:
        ids = [args.attacker, *ids]
    for i in ids:
        _need(pos, "--choice group", i)
    ends = {}
    for key, value in ch.items():
        if not key.startswith("end."):
            continue
        pid = key[4:]
        try:
            x, y, h = (float(v) for v in value.split(","))
        except ValueError:
            raise InputError(f"--choice {key}={value}: expected x,y,heading in table mm and degrees") from None
        ends[pid] = (x, y, h)
    if not ends:
        raise InputError("--action column needs each moving member's end: --choice end.ID=x,y,heading")
    out = check_column_change(pos, ids, ends, opts)
    if not out["legal"]:
        raise InputError(f"column change of {','.join(ids)} not allowed: {'; '.join(out['problems'])}")
    after = apply_group_move(pos, out)
    res = resolve_simple(pos, "column", after, args.attacker, None,
                         f"group {', '.join(ids)}: {out['change']}, {out['purpose']} for {out['pip_cost']} PIP "
                         "(§5.2, §5.4)", opts)
    res.notes = list(out["pip_reasons"])
    return res


_ACTION_HANDLERS: dict[str, Callable] = {
    "fire": _resolve_fire,
    "melee": _resolve_melee,
    "river": _resolve_river,
    "square": _resolve_square,
    "swap": _resolve_swap,
    "turn": _resolve_turn,
    "move": _resolve_move,
    "column": _resolve_column,
    "rout": _resolve_rout,
}


def resolution_lines(out: dict) -> list[str]:
    """A DBX resolution as text lines: what acted, each side's roll and factors, the outcome, notes, every change,
    a lost battle. Shared by `fieldglass resolve` and the dashboard's combat panel."""
    lines = [f"{out['action']}: {out['attacker']}" + (f" -> {out['target']}" if out.get("target") else "")]
    for label in ("attacker_side", "target_side"):
        s = out.get(label)
        if s:
            mods = ", ".join(f"{m['value']:+d} {m['rule']}" for m in s["modifiers"]) or "no modifiers"
            lines.append(f"{s['id']}: rolls {s['die']} + factor {s['factor']} ({mods}) = {s['total']}")
    o = out["outcome"]
    lines.append(f"outcome: {o.get('loser') or 'nobody'} {o['result']} - {o['rule']}")
    lines += [f"note: {n}" for n in out.get("notes", [])]
    for c in out["changes"]:
        to = c.get("to")
        where = f" to {to['x_mm']:.1f},{to['y_mm']:.1f} mm facing {to['heading_deg']:.0f} deg" if to else ""
        lines.append(f"{c['piece']}: {c['change']}{where} - {c.get('text', '')}")
    v = out.get("victory") or {}
    if v.get("loser"):
        lines.append(f"{v['loser']} has lost the battle ({v.get('rule', '')})")
    return lines


def _resolve_text(out: dict) -> str:
    head, *rest = resolution_lines(out)
    d = out["dice"]
    seed = f"  (seed {d['seed']})" if "seed" in d else ""
    rest.append(f"dice: {', '.join(map(str, d['rolled'])) or 'none'}{seed}")
    return "\n".join([head] + ["  " + line for line in rest])
