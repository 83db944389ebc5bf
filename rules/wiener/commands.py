"""`fieldglass analyze` and `fieldglass resolve` on a Wiener Napoleon position (the system's `commands` hook).

Each takes the parsed command-line arguments (`args.position`, `args.json`, ...; see fieldglass/commands/analyze.py
and resolve.py for the flags) and prints the engine's answer as text or JSON.
"""

from __future__ import annotations

from common import jsonout

ACTIONS = ("fire", "melee", "gegenzug", "rally", "bombard", "work", "counterattack", "flight", "mount", "dismount",
           "replace_general")



def analyze(args) -> int:
    from common.errors import InputError
    from rules import position as positions
    from rules.wiener.analysis import analyze_from, analyze_pair
    from rules.wiener.options import load_options

    pos = positions.load(args.position)
    opts = load_options(args.options)
    if args.all:
        return _all(pos, opts, args.json)
    if not args.from_id:
        raise InputError("analyze needs --from ID (or --all for every pair)")
    for pid in (args.from_id, args.to_id):
        need_piece(pos, args.position, pid)
    if args.path:
        out = _move(pos, args, opts)
        print(jsonout.dumps(out) if args.json else _move_text(out))
        return 0
    if args.to_id:
        out = analyze_pair(pos, args.from_id, args.to_id, opts)
        print(jsonout.dumps(out) if args.json else _pair_text(pos, out))
        return 0
    rows = analyze_from(pos, args.from_id, opts)
    if args.json:
        print(jsonout.dumps({"from": args.from_id, "targets": rows}))
    else:
        if not rows:
            print(f"{args.from_id}: no enemy pieces on the table")
        print("\n\n".join(_pair_text(pos, r) for r in rows))
    return 0


def _all(pos, opts, as_json: bool) -> int:
    """Every ordered enemy pair from the fast whole-position analysis (rules/wiener/pairs.py)."""
    from rules.wiener.pairs import analyze_all

    table = analyze_all(pos, opts)
    rows = [table.row(k) for k in range(len(table))]
    if as_json:
        print(jsonout.dumps({"pairs": rows}))
        return 0
    print(f"{len(rows)} ordered enemy pairs; {sum(r['line_of_sight'] for r in rows)} in sight, "
          f"{sum(r['fire_allowed'] for r in rows)} may fire, {sum(r['melee_allowed'] for r in rows)} may attack")
    for r in rows:
        if r["fire_allowed"] or r["melee_allowed"]:
            what = [f"fire {r['fire_net']:+d}"] if r["fire_allowed"] else []
            what += [f"melee {r['melee_net']:+d}"] if r["melee_allowed"] else []
            print(f"  {r['from']} -> {r['to']} ({r['distance']} LE): {', '.join(what)}")
    return 0


def need_piece(pos, source: str, pid: str | None) -> None:
    """InputError naming the file when a piece id is unknown."""
    from common.errors import InputError

    if pid is not None and pid not in pos.by_id:
        known = ", ".join(p.id for p in pos.pieces[:8]) + (", ..." if len(pos.pieces) > 8 else "")
        raise InputError(f"{source}: no piece {pid!r} (pieces: {known or 'none'})")


def _describe(pos, pid: str) -> str:
    p = pos.piece(pid)
    kind = p.type.replace("_", " ")
    if p.formation:
        kind += f" {p.formation}"
    extra = f", {p.bases} bases" if p.bases > 1 else ""
    marks = f", markers {'+'.join(p.markers)}" if p.markers else ""
    return f"{pid} ({p.side} {kind}{extra}{marks}, {p.field_name} facing {p.facing})"


def _yes(b: bool) -> str:
    return "yes" if b else "no"


def _mods(m: dict) -> str:
    if not m["modifiers"]:
        return "no modifiers"
    parts = [f"{x['value']:+d} {x['rule']}" + (f" ({x['section']})" if "section" in x else "") for x in m["modifiers"]]
    return ", ".join(parts) + f"; net {m['net_modifier']:+d} after the +-4 caps"


def _pair_text(pos, r: dict) -> str:
    lines = [f"{_describe(pos, r['from'])} -> {_describe(pos, r['to'])}"]
    lines.append(
        f"  distance {r['distance']} LE; adjacent {_yes(r['adjacent'])}; in a side field {_yes(r['side_field'])}; "
        f"target in our front arc {_yes(r['target_in_arc'])}; we are in its arc {_yes(r['attacker_in_target_arc'])}"
    )
    if r["line_of_sight"]:
        los = "clear"
    else:
        los = f"blocked by {', '.join(r['blocked_by'])}: {r['sight_reason']}"
    lines.append(f"  line of sight: {los}")
    if not r["recognised"]:
        lines.append(f"  not recognised: {r['recognition_reason']}")
    for key in ("fire", "melee"):
        a = r[key]
        if a["allowed"]:
            w = f" ({a['weapon'].replace('_', ' ')})" if key == "fire" else ""
            lines.append(f"  {key}: allowed{w}, {_mods(a)}")
            for wtext in a.get("warnings", []):
                lines.append(f"    note: {wtext}")
        else:
            lines.append(f"  {key}: not allowed: {a['reason']}")
    if r.get("counter_fire"):
        c = r["counter_fire"]
        lines.append(f"  counter-fire: {'yes' if c['allowed'] else 'no, ' + c['reason']}")
    if r.get("melee_defence"):
        c = r["melee_defence"]
        lines.append(f"  melee defence: {'yes' if c['allowed'] else 'no, ' + c['reason']}")
    return "\n".join(lines)


def _move(pos, args, opts) -> dict:
    from common.fields import field_name
    from rules.position import parse_facing, parse_grid_field
    from rules.wiener.movement import check_move, movement_allowance

    p = pos.piece(args.from_id)
    names = [n.strip() for n in args.path.split(",") if n.strip()]
    path = [parse_grid_field(n, pos.cols, pos.rows, f"--path {n}") for n in names]
    facing = parse_facing(args.facing, "--facing") if args.facing else None
    chk = check_move(pos, p, path, facing, opts)
    return {
        "piece": p.id,
        "from_field": p.field_name,
        "path": [field_name(*f) for f in path],
        "legal": chk.legal,
        "le": chk.le,
        "allowance": chk.allowance,
        "allowances": movement_allowance(pos, p),
        "reasons": chk.reasons,
        "red": chk.red,
        "interpenetrated": chk.interpenetrated,
        "facing": chk.facing,
    }


def _move_text(m: dict) -> str:
    head = f"{m['piece']} {m['from_field']} -> {' -> '.join(m['path'])}: {m['le']} LE of {m['allowance']} allowed"
    lines = [head, f"  {'legal' if m['legal'] else 'not legal'}"]
    lines += [f"  - {r}" for r in m["reasons"]]
    lines += [f"  Red marker: {r}" for r in m["red"]]
    if m["interpenetrated"]:
        lines.append(f"  also Red for: {', '.join(m['interpenetrated'])}")
    a = m["allowances"]
    lines.append(f"  allowances: {a['field']} LE cross-country, {a['road']} LE road march, "
                 f"{a['wood'] if a['wood'] is not None else 'no entry'} in woods/buildings (§5.1)")
    return "\n".join(lines)


def _ids(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def resolve_args(args):
    """Run the action named by the parsed arguments; returns (Resolution, Dice)."""
    from common.dice import Dice, parse_d6
    from common.errors import InputError
    from rules import position as positions
    from rules.position import parse_grid_field
    from rules.wiener import resolve as R
    from rules.wiener.options import load_options

    if args.action not in ACTIONS:
        raise InputError(f"--action {args.action!r}: a Wiener position takes one of {', '.join(ACTIONS)}")
    pos = positions.load(args.position)
    opts = load_options(args.options)
    src = args.position
    ids = [args.target, args.objector, args.against] + _ids(args.supporters) + _ids(args.defender_supporters)
    ids += _ids(args.simultaneous)
    if args.action != "replace_general":
        ids.append(args.attacker)
    for pid in ids:
        need_piece(pos, src, pid)
    given = parse_d6(args.dice, "--dice") if args.dice else []
    most = 4 * (1 + len(_ids(args.simultaneous)))
    if len(given) > most:
        raise InputError(f"--dice: at most {most} rolls (attacker, re-roll, defender, re-roll per duel)")
    if args.loss_die is not None:
        parse_d6(str(args.loss_die), "--loss-die", 1)
    dice = Dice(given, args.seed)
    reroll = tuple(_ids(args.reroll))
    for side in reroll:
        if side not in ("attacker", "defender"):
            raise InputError(f"--reroll: {side!r} is not attacker or defender")
    choices = R.Choices(args.flight, args.follow_up, False if args.capitulate else None, reroll, args.evade)

    def field_arg(text, what):
        return parse_grid_field(text.strip(), pos.cols, pos.rows, what) if text else None

    def edge_arg():
        if not args.edge:
            return None
        parts = [x for x in args.edge.split(",") if x.strip()]
        if len(parts) != 2:
            raise InputError("--edge: two field names separated by a comma, like C5,C6")
        return field_arg(parts[0], "--edge"), field_arg(parts[1], "--edge")

    def path_arg(text, what):
        return [field_arg(x, what) for x in text.split(",") if x.strip()] if text else None

    needs_target = args.action in ("fire", "melee", "gegenzug", "counterattack")
    if needs_target and not args.target:
        raise InputError(f"--action {args.action} needs --target ID")
    common = dict(dice=dice, opts=opts)
    if args.simultaneous:
        if args.action not in ("fire", "melee") or args.supporters or args.retreat:
            raise InputError("--simultaneous goes with --action fire or melee, without --supporters or --retreat")
        res = R.resolve_simultaneous(pos, args.action, [args.attacker] + _ids(args.simultaneous), args.target,
                                     choices=choices, loss_die=args.loss_die, **common)
    elif args.action == "fire":
        res = R.resolve_fire(pos, args.attacker, args.target, supporters=_ids(args.supporters),
                             defender_supporters=_ids(args.defender_supporters), choices=choices,
                             loss_die=args.loss_die, retreat=path_arg(args.retreat, "--retreat"), **common)
    elif args.action == "melee":
        res = R.resolve_melee(pos, args.attacker, args.target, supporters=_ids(args.supporters),
                              defender_supporters=_ids(args.defender_supporters), choices=choices,
                              loss_die=args.loss_die, **common)
    elif args.action == "gegenzug":
        if not args.path:
            raise InputError("--action gegenzug needs --path F,F,.. (the fields the mover enters)")
        path = [field_arg(x, "--path") for x in args.path.split(",") if x.strip()]
        res = R.resolve_gegenzug(pos, args.attacker, args.target, path, field_arg(args.at, "--at"),
                                 supporters=_ids(args.supporters), choices=choices, loss_die=args.loss_die, **common)
    elif args.action == "rally":
        res = R.resolve_rally(pos, args.attacker, **common)
    elif args.action == "counterattack":
        if not args.at:
            raise InputError("--action counterattack needs --at FIELD (where the mover stands in the control zone)")
        res = R.resolve_counterattack(pos, args.attacker, args.target, field_arg(args.at, "--at"),
                                      against=args.against, path=path_arg(args.path, "--path"),
                                      supporters=_ids(args.supporters), choices=choices, loss_die=args.loss_die,
                                      **common)
    elif args.action == "flight":
        res = R.resolve_continued_flight(pos, args.attacker, {"left": -1, "right": 1, None: 0}[args.turn], choices,
                                         opts)
    elif args.action in ("mount", "dismount"):
        res = R.resolve_mount(pos, args.attacker, args.action == "mount", opts)
    elif args.action == "replace_general":
        if not args.side or not args.field:
            raise InputError("--action replace_general needs --side SIDE and --field FIELD (on a table edge)")
        res = R.resolve_general_replacement(pos, args.attacker, args.side, field_arg(args.field, "--field"),
                                            **common)
    elif args.action == "bombard":
        f, e = field_arg(args.field, "--field"), edge_arg()
        if (f is None) == (e is None):
            raise InputError("--action bombard needs --field FIELD or --edge F,F")
        res = R.resolve_bombard(pos, args.attacker, f, e, supporters=_ids(args.supporters),
                                incendiary=args.incendiary, **common)
    else:
        if not args.work_type:
            raise InputError("--action work needs --work KIND")
        res = R.resolve_work(pos, args.attacker, args.work_type, field_arg(args.field, "--field"), edge_arg(),
                             objector_id=args.objector, obstacle=args.obstacle, **common)
    return res, dice


def resolve(args) -> int:
    from rules import position as positions

    res, dice = resolve_args(args)
    out = res.as_dict()
    out["dice"] = {"rolled": dice.rolled}
    if dice.generated:
        out["dice"]["seed"] = dice.seed
    if args.out:
        positions.save(res.after, args.out)
    if args.json:
        print(jsonout.dumps(out))
    else:
        print(_text(out))
        if args.out:
            print(f"position after written to {args.out}")
    return 0


def _side(label: str, s: dict | None) -> str | None:
    if s is None:
        return None
    if s.get("roll") is None or s.get("responded") is False:
        return f"  {label} {s['piece']}: does not roll" + (f" ({s['reason']})" if s.get("reason") else "")
    mods = ", ".join(f"{m['value']:+d} {m['rule']}" for m in s.get("modifiers", [])) or "no modifiers"
    reroll = f" (re-rolled from {s['first_roll']})" if "first_roll" in s else ""
    wz = f" -> WZ {s['wz']}" if "wz" in s else ""
    need = f", needs {s['needed']}+" if "needed" in s else ""
    return f"  {label} {s['piece']}: rolls {s['roll']}{reroll}, {mods}{wz}{need}"


def _text(out: dict) -> str:
    lines = [f"{out['action']}:"]
    for label in ("attacker", "defender"):
        line = _side(label, out.get(label))
        if line:
            lines.append(line)
    from rules.wiener.adapter import outcome_lines

    lines += ["  " + line for line in outcome_lines(out)]
    d = out["dice"]
    lines.append(f"  dice: {', '.join(map(str, d['rolled']))}" + (f"  (seed {d['seed']})" if "seed" in d else ""))
    return "\n".join(lines)
