"""The `fieldglass` command line: one subcommand per module in `fieldglass.commands`.

Every subcommand turns bad input into one line on stderr naming the file or thing, and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from common.errors import InputError
from fieldglass import __version__
from fieldglass.commands import (
    analyze,
    archive,
    bench,
    calibrate,
    check,
    check_print,
    check_setup,
    demo,
    detect,
    dice,
    export,
    gui,
    init,
    locate,
    plan,
    print_,
    record,
    replay,
    resolve,
    serve,
    stats,
    systems,
    view,
)

COMMANDS = (
    init, gui, demo, detect, dice, locate, calibrate, analyze, resolve, view, systems, record, replay, export, serve,
    archive, stats, check, print_, check_print, check_setup, plan, bench,
)

DESCRIPTION = """\
Fieldglass watches a wargames table through a camera, finds every marked base by its printed marker,
and says where each piece stands in table millimetres, which way it faces and in which grid field.

A first session:
  fieldglass init mytable                           a new table's layout, roster, sheets to print and next steps
  fieldglass gui                                    the dashboard on the synthetic table (headless without a display)
  fieldglass demo                                   the whole pipeline on the built-in synthetic table
  fieldglass calibrate camera shots/*.jpg --board chessboard:9x6:25 --out cam.json
  fieldglass detect photo.jpg --json                markers and QR codes in pixels
  fieldglass dice throw.jpg                         the dice in a photo: each die's value, where, how sure
  fieldglass locate photo.jpg --camera cam.json --layout table.toml --roster roster.toml
  fieldglass analyze game.json --from fr-art-1 --to au-ir4-1    what a unit can see, shoot and attack
  fieldglass resolve game.json --action fire --attacker fr-art-1 --target au-ir4-1 --dice 5,3
  fieldglass view game.json --as FR                 the position as one side may see it
  fieldglass systems                                the game systems and their actions
  fieldglass record --source game.mp4 --camera cam.json --layout table.toml --roster roster.toml --out game.fgr
  fieldglass replay game.fgr                        review a recorded game in the replay viewer
  fieldglass export game.fgr --format report        after-action report (also jsonl, csv, png, mp4, html)
  fieldglass serve game.fgr                         the game live in spectators' browsers (loopback by default)
  fieldglass archive push game.fgr --db URL         the club archive on PostgreSQL (also list, pull, serve)
  fieldglass stats game.fgr
  fieldglass check game.fgr --repair saved.fgr      what a damaged record still holds, salvaged into a new one
  fieldglass print markers --roster roster.toml --out sheet.pdf    markers at exact size, to glue on the bases
  fieldglass plan --table 2400x1200 --camera-resolution 3840x2160 --fov 78 --height 1700
  fieldglass check-setup --layout table.toml --roster roster.toml --camera cam.json    every problem at once
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fieldglass", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"fieldglass {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except InputError as exc:
        print(f"fieldglass: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fieldglass: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
