"""fieldglass resolve: what happens with these dice (or these choices)? Each system resolves its own actions
(the position file's "system"; rules/system.py `GameSystem.commands`)."""

from __future__ import annotations

import argparse

from common.outfiles import check_output
from fieldglass.commands.systems import add_system_options, delegate, position_system, system_examples

TAIL = """
Missing dice come from a seeded generator whose seed is printed; --seed replays it. Each system's actions are
listed by `fieldglass systems`, its choices and options in its README.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "resolve",
        help="resolve an action (fire, melee, thrust, ...) with dice or choices",
        description="Answer 'what happens with these dice?': rolls, modifiers, winner, effect, the changed pieces "
        "and the position after, with the rules of the position's own system.",
        epilog=system_examples("resolve") + TAIL,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("position", help="position file (JSON)")
    p.add_argument("--action", required=True, help="the action: each system's own (listed by 'fieldglass systems')")
    p.add_argument("--attacker", required=True, metavar="ID", help="the acting piece")
    p.add_argument("--target", metavar="ID", help="the target piece")
    p.add_argument("--dice", metavar="N,N", help="the rolls, attacker first (default: seeded generator)")
    p.add_argument("--seed", type=int, help="seed for rolls not given")
    p.add_argument("--supporters", metavar="ID,ID", help="the acting side's supporters")
    p.add_argument("--options", metavar="FILE", help="rules options (TOML) overriding the defaults")
    p.add_argument("--out", metavar="FILE", help="write the position after the action to FILE")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--choice", action="append", default=[], metavar="KEY=VALUE",
                   help="a choice the system asks for (see its README); repeatable")
    add_system_options(p, "resolve")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.out:  # before any work, so a bad target never costs the printed result
        # never over an input, the position file included: a game is played on from the command line into a new
        # file each step (game-2.json from game-1.json), so a mistaken action never loses the position before it
        check_output(args.out, (args.position, args.options))
    return delegate(position_system(args.position), "resolve", args)
