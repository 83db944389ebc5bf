"""fieldglass analyze: can this unit see and reach that one, and with what modifiers? Each system answers for its
own positions (the position file's "system"; rules/system.py `GameSystem.commands`)."""

from __future__ import annotations

import argparse

from fieldglass.commands.systems import add_system_options, delegate, position_system, system_examples

TAIL = """
The position file is JSON with the name of its "system" (one of `fieldglass systems`); each
system's README gives its format and its rules options.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "analyze",
        help="distance, arcs, line of sight, fire and melee modifiers between pieces",
        description="Answer 'can this unit see and reach that one, and with what modifiers?' from a position file, "
        "with the rules of the position's own system.",
        epilog=system_examples("analyze") + TAIL,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("position", help="position file (JSON)")
    p.add_argument("--from", dest="from_id", metavar="ID", help="the acting piece")
    p.add_argument("--to", dest="to_id", metavar="ID", help="the target piece (default: every enemy piece)")
    p.add_argument("--options", metavar="FILE", help="rules options (TOML) overriding the defaults")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--choice", action="append", default=[], metavar="KEY=VALUE",
                   help="a choice the system asks for (see its README); repeatable")
    add_system_options(p, "analyze")
    p.set_defaults(run=run)


def run(args) -> int:
    return delegate(position_system(args.position), "analyze", args)
