"""fieldglass check-setup: every problem of a table's files at once, before the game."""

from __future__ import annotations

import argparse
import math

from common.errors import InputError
from fieldglass.setup_checks import ERROR
from fieldglass.setup_report import setup_findings
from rules.system import registered_names

EPILOG = """\
examples:
  fieldglass check-setup --layout table.toml --roster roster.toml
  fieldglass check-setup --layout table.toml --roster roster.toml --camera cam.json --system wiener
  fieldglass check-setup --layout table.toml --roster roster.toml --camera cam.json --height 1500
  fieldglass check-setup --board board.toml --roster blocks.toml --system marengo

Reads the layout, the roster, a printed board and the camera file as the commands that use them do, but says every
problem at once, errors first, then warnings: one line each, naming the file, the piece or anchor, the key and the
nearest valid value ("did you mean ...?"). Errors are what stops `gui`, `locate`, `record` or `print`: a troop type
or side the game system does not know (the roster's own `system` key, else --system, else the default system), a
dictionary name, an anchor off the table or overlapping another, a grid larger than the table, a piece marker that
is also an anchor, a marker smaller than the camera reads. Warnings: a marker that crowds its base, a marker read only
in a sharp image.

With --camera the markers are checked as `fieldglass plan` checks them, for the camera file's resolution and field
of view, looking straight down from --height (default: the lowest height at which it sees the whole table); for a
system that rolls dice, whether the dashboard will read them in the layout's [dice_tray] (else anywhere on the
table), and from what size.
Exit code 0 when there is no error (warnings allowed), 2 when there is one.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check-setup",
        help="every problem of a layout, roster, board and camera at once, with the nearest valid value",
        description="Check a table's set-up files together and list every problem at once, worst first.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--layout", metavar="LAYOUT.toml", help="the table layout (not needed on a printed board)")
    p.add_argument("--roster", required=True, metavar="ROSTER.toml", help="the roster")
    p.add_argument("--camera", metavar="CAM.json", help="a camera file: are the markers large enough for it?")
    p.add_argument("--height", type=float, metavar="MM",
                   help="with --camera: its height above the table (default: the lowest that sees it all)")
    p.add_argument("--system", metavar="NAME",
                   help=f"game system: {', '.join(registered_names())} (default: the roster's, else the default)")
    p.add_argument("--board", metavar="BOARD.toml", help="a printed board (a system on a printed board)")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.height is not None and not (math.isfinite(args.height) and args.height > 0):
        raise InputError(f"--height {args.height:g}: must be a positive number of mm above the table")
    if args.height is not None and args.camera is None:
        raise InputError("--height goes with --camera CAM.json")
    findings = setup_findings(args.roster, args.layout, args.camera, args.system, args.board, args.height)
    for f in findings:
        print(f.line())
    errors = sum(f.level == ERROR for f in findings)
    warnings = len(findings) - errors
    files = ", ".join(str(v) for v in (args.layout, args.board, args.roster, args.camera) if v)
    if not findings:
        print(f"set-up OK: {files}")
    else:
        print(f"{errors} error(s), {warnings} warning(s) in {files}")
    return 2 if errors else 0
