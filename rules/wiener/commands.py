"""`fieldglass analyze` and `fieldglass resolve` on a Wiener Napoleon position (the system's `commands` hook).

Each takes the parsed command-line arguments (`args.position`, `args.json`, ...; see fieldglass/commands/analyze.py
and resolve.py for the flags) and prints the engine's answer as text or JSON.
"""

from __future__ import annotations

import sys
from argparse import Namespace
from dataclasses import dataclass

from common import jsonout
from common.choices import split_ids
from common.dice import Dice, parse_d6
from common.errors import InputError
from common.fields import field_name
from rules import position as positions
from rules.geometry import Field
from rules.position import parse_facing, parse_grid_field
from rules.wiener import resolve as R
from rules.wiener.adapter import outcome_lines
from rules.wiener.analysis import analyze_from, analyze_pair, position_warnings
from rules.wiener.model import WienerPosition
from rules.wiener.movement import check_move, movement_allowance
from rules.wiener.options import Options, load_options
from rules.wiener.pairs import analyze_all

ACTIONS = ("fire", "melee", "gegenzug", "rally", "bombard", "work", "counterattack", "flight", "mount", "dismount",
           "replace_general")


def load_warned(path: str, options: str | None) -> tuple[WienerPosition, Options]:
    """The position and the rules options; the position's stacking problems (§3.8) are printed as warnings, one
    line each, so that a field shared by artillery and infantry is never accepted silently."""
    pos = positions.load(path)
    opts = load_options(options)
    for w in position_warnings(pos, opts):
        print(f"fieldglass: warning: {path}: {w}", file=sys.stderr)
    return pos, opts


def analyze(args) -> int:
    pos, opts = load_warned(args.position, args.options)
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
    p = pos.piece(args.from_id)
    names = split_ids(args.path)
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




_NEEDS_TARGET = ("fire", "melee", "gegenzug", "counterattack")
_TURNS = {"left": -1, "right": 1, None: 0}


def resolve_args(args):
    """Run the action named by the parsed arguments; returns (Resolution, Dice)."""
    if args.action not in ACTIONS:
        raise InputError(f"--action {args.action!r}: a Wiener position takes one of {', '.join(ACTIONS)}")
    pos, opts = load_warned(args.position, args.options)
    _need_pieces(pos, args)
    dice = _dice(args)
    choices = R.Choices(args.flight, args.follow_up, False if args.capitulate else None, _reroll(args), args.evade)
    if args.action in _NEEDS_TARGET and not args.target:
        raise InputError(f"--action {args.action} needs --target ID")
    req = _Request(pos, args, opts, dice, choices)
    if args.simultaneous:
        return _simultaneous(req), dice
    return _ACTION_HANDLERS[args.action](req), dice


def _need_pieces(pos, args) -> None:
    """Every piece id the arguments name exists (the attacker's too, except for a general's replacement)."""
    ids = [args.target, args.objector, args.against] + split_ids(args.supporters) + split_ids(args.defender_supporters)
    ids += split_ids(args.simultaneous)
    if args.action != "replace_general":
        ids.append(args.attacker)
    for pid in ids:
        need_piece(pos, args.position, pid)


def _dice(args) -> Dice:
    """The given rolls (at most four per duel) and the seed; --loss-die is checked to be a die's face."""
    given = parse_d6(args.dice, "--dice") if args.dice else []
    most = 4 * (1 + len(split_ids(args.simultaneous)))
    if len(given) > most:
        raise InputError(f"--dice: at most {most} rolls (attacker, re-roll, defender, re-roll per duel)")
    if args.loss_die is not None:
        parse_d6(str(args.loss_die), "--loss-die", 1)
    return Dice(given, args.seed)


def _reroll(args) -> tuple[str, ...]:
    reroll = tuple(split_ids(args.reroll))
    for side in reroll:
        if side not in ("attacker", "defender"):
            raise InputError(f"--reroll: {side!r} is not attacker or defender")
    return reroll


@dataclass
class _Request:
    """One `resolve` call's checked inputs, and the field arguments parsed against its position's grid."""

    pos: WienerPosition
    args: Namespace
    opts: Options
    dice: Dice
    choices: R.Choices

    @property
    def common(self) -> dict:
        """The keyword arguments every dice-rolling resolver takes."""
        return dict(dice=self.dice, opts=self.opts)

    def field(self, text: str | None, what: str) -> Field | None:
        return parse_grid_field(text.strip(), self.pos.cols, self.pos.rows, what) if text else None

    def path(self, text: str | None, what: str) -> list[Field] | None:
        return [self.field(x, what) for x in text.split(",") if x.strip()] if text else None

    def edge(self) -> tuple[Field, Field] | None:
        if not self.args.edge:
            return None
        parts = [x for x in self.args.edge.split(",") if x.strip()]
        if len(parts) != 2:
            raise InputError("--edge: two field names separated by a comma, like C5,C6")
        return self.field(parts[0], "--edge"), self.field(parts[1], "--edge")


def _simultaneous(q: _Request):
    a = q.args
    if a.action not in ("fire", "melee") or a.supporters or a.retreat:
        raise InputError("--simultaneous goes with --action fire or melee, without --supporters or --retreat")
    return R.resolve_simultaneous(q.pos, a.action, [a.attacker] + split_ids(a.simultaneous), a.target,
                                  choices=q.choices, loss_die=a.loss_die, **q.common)


def _fire(q: _Request):
    a = q.args
    return R.resolve_fire(q.pos, a.attacker, a.target, supporters=split_ids(a.supporters),
                          defender_supporters=split_ids(a.defender_supporters), choices=q.choices,
                          loss_die=a.loss_die, retreat=q.path(a.retreat, "--retreat"), **q.common)


def _melee(q: _Request):
    a = q.args
    return R.resolve_melee(q.pos, a.attacker, a.target, supporters=split_ids(a.supporters),
                           defender_supporters=split_ids(a.defender_supporters), choices=q.choices,
                           loss_die=a.loss_die, **q.common)


def _gegenzug(q: _Request):
    a = q.args
    if not a.path:
        raise InputError("--action gegenzug needs --path F,F,.. (the fields the mover enters)")
    return R.resolve_gegenzug(q.pos, a.attacker, a.target, q.path(a.path, "--path"), q.field(a.at, "--at"),
                              supporters=split_ids(a.supporters), choices=q.choices, loss_die=a.loss_die, **q.common)


def _rally(q: _Request):
    return R.resolve_rally(q.pos, q.args.attacker, **q.common)


def _counterattack(q: _Request):
    a = q.args
    if not a.at:
        raise InputError("--action counterattack needs --at FIELD (where the mover stands in the control zone)")
    return R.resolve_counterattack(q.pos, a.attacker, a.target, q.field(a.at, "--at"), against=a.against,
                                   path=q.path(a.path, "--path"), supporters=split_ids(a.supporters),
                                   choices=q.choices, loss_die=a.loss_die, **q.common)


def _flight(q: _Request):
    return R.resolve_continued_flight(q.pos, q.args.attacker, _TURNS[q.args.turn], q.choices, q.opts)


def _mount(q: _Request):
    """mount and dismount."""
    return R.resolve_mount(q.pos, q.args.attacker, q.args.action == "mount", q.opts)


def _replace_general(q: _Request):
    a = q.args
    if not a.side or not a.field:
        raise InputError("--action replace_general needs --side SIDE and --field FIELD (on a table edge)")
    return R.resolve_general_replacement(q.pos, a.attacker, a.side, q.field(a.field, "--field"), **q.common)


def _bombard(q: _Request):
    a = q.args
    f, e = q.field(a.field, "--field"), q.edge()
    if (f is None) == (e is None):
        raise InputError("--action bombard needs --field FIELD or --edge F,F")
    return R.resolve_bombard(q.pos, a.attacker, f, e, supporters=split_ids(a.supporters), incendiary=a.incendiary,
                             **q.common)


def _work(q: _Request):
    a = q.args
    if not a.work_type:
        raise InputError("--action work needs --work KIND")
    return R.resolve_work(q.pos, a.attacker, a.work_type, q.field(a.field, "--field"), q.edge(),
                          objector_id=a.objector, obstacle=a.obstacle, **q.common)


_ACTION_HANDLERS = {
    "fire": _fire,
    "melee": _melee,
    "gegenzug": _gegenzug,
    "rally": _rally,
    "bombard": _bombard,
    "work": _work,
    "counterattack": _counterattack,
    "flight": _flight,
    "mount": _mount,
    "dismount": _mount,
    "replace_general": _replace_general,
}


def resolve(args) -> int:
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
    lines += ["  " + line for line in outcome_lines(out)]
    d = out["dice"]
    lines.append(f"  dice: {', '.join(map(str, d['rolled']))}" + (f"  (seed {d['seed']})" if "seed" in d else ""))
    return "\n".join(lines)
