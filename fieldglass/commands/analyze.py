"""fieldglass analyze: can this unit see and reach that one, and with what modifiers? Each system answers for its
own positions (the position file's "system"; rules/system.py `GameSystem.commands`)."""

from __future__ import annotations

import argparse

from common.errors import InputError
from common.files import read_json
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


# Every ordered pair of pieces (`--all`, where a system offers it) costs memory and time in their square: at most
# this many pairs (1000 pieces) are analysed; a larger position names its count before any work.
MAX_ALL_PAIRS = 1_000_000


def check_all_pairs(path: str) -> None:
    """Before `--all`: the position's "pieces" (each system's list of them) make at most MAX_ALL_PAIRS pairs."""
    data = read_json(path, "position file")
    pieces = data.get("pieces") if isinstance(data, dict) else None
    n = len(pieces) if isinstance(pieces, list) else 0
    if n * (n - 1) > MAX_ALL_PAIRS:
        raise InputError(f"{path}: {n} pieces make {n * (n - 1)} ordered pairs, too many for --all (at most "
                         f"{MAX_ALL_PAIRS}); ask about one piece with --from")


def run(args) -> int:
    system = position_system(args.position)
    if getattr(args, "all", False):
        check_all_pairs(args.position)
    return delegate(system, "analyze", args)
