"""fieldglass analyze: can this unit see and reach that one, and with what modifiers? (Wiener Napoleon rules)"""

from __future__ import annotations

import argparse

from fieldglass import jsonout

EPILOG = """\
examples:
  fieldglass analyze game.json --from fr-art-1 --to au-ir4-1           one pair, readable
  fieldglass analyze game.json --from fr-art-1 --to au-ir4-1 --json    the same as JSON for tools
  fieldglass analyze game.json --from fr-art-1                         every enemy piece, nearest first
  fieldglass analyze game.json --from au-ir4-1 --path C8,C7            may it move there? (LE, Red markers)
  fieldglass analyze game.json --from fr-art-1 --options house.toml    with your table's rules options
  fieldglass analyze game.json --all --json                            every enemy pair at once (dashboard)

The position file is JSON: {"system": "wiener", "grid": {"cols": 40, "rows": 20}, "night": false,
"fields": {"D5": {"terrain": "wood"}}, "edges": [...], "pieces": [{"id": .., "side": .., "type": ..,
"field": "C3", "facing": "N", "bases": 1}, ...]}. The rules options are listed in rules/wiener/README.md.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "analyze",
        help="distance, arcs, line of sight, fire and melee modifiers between pieces",
        description="Answer 'can this unit see and reach that one, and with what modifiers?' from a position file "
        "(Wiener Napoleon Kriegsspielregeln 2022).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("position", help="position file (JSON)")
    p.add_argument("--from", dest="from_id", metavar="ID", help="the acting piece")
    p.add_argument("--all", action="store_true", help="every ordered pair of enemies: the table columns, no details")
    p.add_argument("--to", dest="to_id", metavar="ID", help="the target piece (default: every enemy piece)")
    p.add_argument("--path", metavar="F,F,..", help="check a move of the acting piece through these fields")
    p.add_argument("--facing", help="facing after the move (with --path)")
    p.add_argument("--options", metavar="FILE", help="rules options (TOML) overriding the defaults")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--choice", action="append", default=[], metavar="KEY=VALUE",
                   help="a choice of another rule system (DBX, Marengo: see their READMEs); repeatable")
    p.set_defaults(run=run)


def run(args) -> int:
    from fieldglass.commands.systems import delegate, position_system

    system = position_system(args.position)
    if system != "wiener":
        return delegate(system, "analyze", args)
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
