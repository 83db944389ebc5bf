"""fieldglass resolve: what happens with these dice? (Wiener Napoleon rules)"""

from __future__ import annotations

import argparse

from fieldglass import jsonout

EPILOG = """\
examples:
  fieldglass resolve game.json --action fire --attacker fr-art-1 --target au-ir4-1 --dice 5,3 --loss-die 4
  fieldglass resolve game.json --action melee --attacker fr-cuir-1 --target au-ir4-1 --dice 4,2 --json
  fieldglass resolve game.json --action melee --attacker a --target b --supporters s1,s2 --flight 1 --follow-up
  fieldglass resolve game.json --action fire --attacker a --target b          rolls itself, prints the seed
  fieldglass resolve game.json --action gegenzug --attacker fr-art-1 --target au-hus-1 --path E5,F5,G5 --at F5
  fieldglass resolve game.json --action rally --attacker au-ir4-1 --dice 3
  fieldglass resolve game.json --action bombard --attacker fr-art-1 --field E5 --dice 6,4
  fieldglass resolve game.json --action work --attacker fr-pio-1 --work remove_obstacle --edge C5,C6 --dice 5
  fieldglass resolve game.json --action fire --attacker a --target b --out after.json   save the new position
  fieldglass resolve game.json --action fire --attacker a --simultaneous b,c --target t --dice 5,3,4,2,6,1
  fieldglass resolve game.json --action fire --attacker inf --target t --retreat C2 --dice 4,2   fire, then retreat
  fieldglass resolve game.json --action melee --attacker inf --target hus --evade 2      the hussars evade
  fieldglass resolve game.json --action counterattack --attacker au-cuir --target fr-drag --at E5 --against au-ir3
  fieldglass resolve game.json --action flight --attacker fr-ir2 --turn left            a failed rally flees on
  fieldglass resolve game.json --action mount --attacker au-hus-1
  fieldglass resolve game.json --action replace_general --attacker fr-gen-2 --side FR --field A10 --dice 6

--dice lists the rolls in the order they are taken: the attacker's (and its re-roll with --reroll attacker),
then the defender's (and its re-roll); with --simultaneous each acting piece's duel in turn; rally, bombard and work
take theirs the same way (bombard: WZ roll, then the 4+ roll; work: worker, then objector). Missing rolls come
from a seeded generator whose seed is printed; --seed replays it.
"""

ACTIONS = ("fire", "melee", "gegenzug", "rally", "bombard", "work", "counterattack", "flight", "mount", "dismount",
           "replace_general")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "resolve",
        help="resolve fire, melee, Gegenzug, rally, bombardment or work with dice",
        description="Answer 'what happens with these dice?': rolls, modifiers, effect numbers, winner, effect, "
        "the changed pieces and the position after (Wiener Napoleon Kriegsspielregeln 2022).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("position", help="position file (JSON)")
    p.add_argument("--action", required=True, help="Wiener: " + " ".join(ACTIONS) + "; other systems: their own")
    p.add_argument("--attacker", required=True, metavar="ID", help="the acting piece (rally: the rallying piece)")
    p.add_argument("--target", metavar="ID", help="the target piece (fire, melee, gegenzug)")
    p.add_argument("--dice", metavar="N,N", help="the rolls, attacker first (default: seeded generator)")
    p.add_argument("--loss-die", type=int, metavar="N", help="the loss test roll if the effect is 6+")
    p.add_argument("--seed", type=int, help="seed for rolls not given")
    p.add_argument("--supporters", metavar="ID,ID", help="the acting side's supporters from its side fields")
    p.add_argument("--simultaneous", metavar="ID,ID",
                   help="fire/melee: up to 2 more pieces acting at the same time as --attacker (§8.6)")
    p.add_argument("--retreat", metavar="F,F", help="fire: infantry retreats through these fields after firing (§5.5)")
    p.add_argument("--evade", type=int, metavar="LE", help="melee: the target evades this many LE (§5.5, §8.7)")
    p.add_argument("--against", metavar="ID", help="counterattack: the not combat-ready troop the mover attacks")
    p.add_argument("--turn", choices=("left", "right"), help="flight: change the direction by 45 degrees")
    p.add_argument("--side", help="replace_general: the side of the new general")
    p.add_argument("--defender-supporters", metavar="ID,ID", help="the defender's supporters")
    p.add_argument("--flight", type=int, choices=(1, 2), help="flight distance in LE (default from the options)")
    follow = p.add_mutually_exclusive_group()
    follow.add_argument("--follow-up", dest="follow_up", action="store_true", default=None,
                        help="the winning attacker moves into the loser's field")
    follow.add_argument("--no-follow-up", dest="follow_up", action="store_false",
                        help="stay (ignored where the rules demand a follow-up)")
    p.add_argument("--capitulate", action="store_true",
                   help="a fleeing troop capitulates rather than sweep own troops along (domino)")
    p.add_argument("--reroll", metavar="SIDE,..", help="attacker and/or defender demand an attached general's re-roll")
    p.add_argument("--path", metavar="F,F,..", help="gegenzug: the fields the mover enters, in order")
    p.add_argument("--at", metavar="FIELD", help="gegenzug: the field of the path where the fire is triggered")
    p.add_argument("--field", metavar="FIELD", help="bombard/work: the building or bridge field")
    p.add_argument("--edge", metavar="F,F", help="bombard/work: the edge between two fields")
    p.add_argument("--incendiary", action="store_true", help="bombard: incendiary shells (howitzers)")
    p.add_argument("--work", dest="work_type", metavar="KIND", help="work: remove_obstacle make_passable "
                   "build_barricade arson extinguish repair_bridge demolition build_bridge")
    p.add_argument("--obstacle", default="barricade", help="work build_barricade: barricade or chevaux_de_frise")
    p.add_argument("--objector", metavar="ID", help="work: the enemy base objecting")
    p.add_argument("--options", metavar="FILE", help="rules options (TOML) overriding the defaults")
    p.add_argument("--out", metavar="FILE", help="write the position after the action to FILE")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--choice", action="append", default=[], metavar="KEY=VALUE",
                   help="a choice of another rule system (DBX, Marengo: see their READMEs); repeatable")
    p.set_defaults(run=run)


def _ids(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def resolve_args(args):
    """Run the action named by the parsed arguments; returns (Resolution, Dice)."""
    from common.dice import Dice, parse_d6
    from common.errors import InputError
    from fieldglass.commands.analyze import need_piece
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


def run(args) -> int:
    from fieldglass.commands.systems import delegate, position_system

    system = position_system(args.position)
    if system != "wiener":
        return delegate(system, "resolve", args)
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
    from fieldglass.systems import outcome_lines

    lines += ["  " + line for line in outcome_lines(out)]
    d = out["dice"]
    lines.append(f"  dice: {', '.join(map(str, d['rolled']))}" + (f"  (seed {d['seed']})" if "seed" in d else ""))
    return "\n".join(lines)
