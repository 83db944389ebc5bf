"""fieldglass analyze: can this unit see and reach that one, and with what modifiers? (Wiener Napoleon rules)"""

from __future__ import annotations

import argparse

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

    return delegate(position_system(args.position), "analyze", args)
