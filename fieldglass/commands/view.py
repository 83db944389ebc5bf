"""fieldglass view: a position as one side may see it (hidden identities withheld unless the rules revealed them)."""

from __future__ import annotations

import argparse

from common import jsonout
from rules import position as positions
from rules.system import UMPIRE, game_system

EPILOG = """\
examples:
  fieldglass view game.json --as FR            what the French player may see, as a table
  fieldglass view game.json --as AU --json     the same as a position file (hidden blocks: side and place only)
  fieldglass view game.json --as umpire        everything

Systems without hidden information (Wiener, DBX) show every piece to every side. In Triomphe à Marengo the
opponent's blocks are shown by colour and place only ("FR block 2"), unless the rules revealed them or the game is
over. The dashboard's player views and the replay use the same function.
"""


def add_parser(sub) -> None:
    p = sub.add_parser("view", help="print a position as one side (or the umpire) may see it",
                       description="Print a position file as one side may see it: hidden identities withheld.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("position", help="position file (JSON)")
    p.add_argument("--as", dest="viewer", required=True, metavar="SIDE",
                   help=f"a side of the position, or {UMPIRE!r} for everything")
    p.add_argument("--json", action="store_true", help="print the position file as that side may see it")
    p.set_defaults(run=run)


def run(args) -> int:
    pos = positions.load(args.position)
    view = game_system(pos.system, args.position).view_of(pos, args.viewer)
    if args.json:
        print(jsonout.dumps(view))
        return 0
    print(f"{args.position}: {pos.system} position as {args.viewer} sees it")
    pieces = view.get("pieces") or view.get("blocks") or []
    for p in pieces:
        where = p.get("field") or p.get("area") or (f"box {p['box']}" if "box" in p else None)
        if where is None and "x_mm" in p:
            where = f"{p['x_mm']:.0f},{p['y_mm']:.0f} mm"
        what = "hidden" if p.get("hidden") else str(p.get("type", ""))
        extra = f" approach {p['approach']}" if p.get("approach") else ""
        print(f"  {p['id']:<16}{p.get('side', ''):<6}{what:<16}{where or '-'}{extra}")
    if not pieces:
        print("  no pieces")
    return 0
