"""fieldglass gui: the dashboard (PySide6) over the camera, or headless without a display."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

from common.errors import InputError
from common.outfiles import check_image_name
from fieldglass.commands.demo import _resolution
from fieldglass.setup import load_setup
from rules.system import default_system, registered_names

EPILOG = """\
examples:
  fieldglass gui                                           the synthetic demo table, its own camera and files
  fieldglass gui --source 0 --camera cam.json --layout table.toml --roster roster.toml
  fieldglass gui --source game.mp4 --camera cam.json --layout table.toml --roster roster.toml --game start.json
  fieldglass gui --system NAME                             that system's demo table (fieldglass systems lists them)
  fieldglass gui --headless --frames 5 --screenshot out/gui.png --select fr-a-1

--source is a camera index (0), a video or image file (or a glob), a stream URL, or 'synthetic' (the built-in
table with the system's demo, which needs no --camera, --layout, --roster or --board). --game reads a position file
of the system for the terrain and the pieces' state the camera cannot see (markers, formations, bases...). A system
on a printed board reads --board (its anchors register the camera; --layout only when it lies on a table with
anchors of its own).

Without a display (no DISPLAY or WAYLAND_DISPLAY, QT_QPA_PLATFORM unset), or with --headless, the dashboard runs
offscreen: it processes --frames frames, prints the pieces it sees with their fields and the targets of one piece,
saves a screenshot of the window to --screenshot and exits.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "gui",
        help="the dashboard: live table, fire lines, ranges, combat and game state",
        description="Open the Fieldglass dashboard on a camera, a video, photos or the synthetic table.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--source", default="synthetic", metavar="SOURCE",
                   help="camera index, file, glob, URL or 'synthetic' (default)")
    p.add_argument("--camera", metavar="CAM.json", help="camera file (not needed for synthetic)")
    p.add_argument("--layout", metavar="LAYOUT.toml", help="table layout (synthetic: the demo layout)")
    p.add_argument("--roster", metavar="ROSTER.toml", help="roster (synthetic: the demo roster)")
    p.add_argument("--system", metavar="NAME",
                   help=f"rules system: {', '.join(registered_names())} (default: the registry's default system)")
    p.add_argument("--game", metavar="POSITION.json", help="position file: terrain and the pieces' game state")
    p.add_argument("--board", metavar="BOARD.toml",
                   help="printed board (a system on a printed board; synthetic: its demo board)")
    p.add_argument("--options", metavar="RULES.toml", help="rules options (default: the digest's readings)")
    p.add_argument("--headless", action="store_true", help="run offscreen even with a display")
    p.add_argument("--frames", type=int, default=None, metavar="N",
                   help="stop after N frames (headless default 3)")
    p.add_argument("--screenshot", type=Path, default=Path("out/gui.png"), metavar="PNG",
                   help="headless: where to save the window (default out/gui.png)")
    p.add_argument("--select", metavar="ID", help="select this piece at start")
    p.add_argument("--resolution", type=_resolution, default=(1920, 1080), metavar="WxH",
                   help="synthetic source resolution (default 1920x1080)")
    p.add_argument("--hand", action="store_true", help="synthetic: a hand reaches over the table now and then")
    p.add_argument("--join-by-cards", action="store_true",
                   help="start with no unit in the game: each joins when its QR card (fieldglass print cards) is "
                        "held under the camera")
    p.set_defaults(run=run)


def load_gui_setup(args):
    """The set-up for --system (its files read; InputError, one line, on any problem): the dashboard is handed it
    and makes its live session from it (`setup.make_session()`)."""
    setup = load_setup(args.system, args.source, args.camera, args.layout, args.roster, args.game,
                       getattr(args, "board", None), getattr(args, "options", None))
    if getattr(args, "join_by_cards", False):
        setup = dataclasses.replace(setup, join_by_cards=True)
    return setup


def run(args) -> int:
    """Build the set-up from the files and hand it to the dashboard (gui/app.py), headless without a display."""
    if args.frames is not None and args.frames < 1:
        raise InputError(f"--frames {args.frames}: must be at least 1")
    check_image_name(args.screenshot, (args.source, args.camera, args.layout, args.roster, args.game,
                                       getattr(args, "board", None), getattr(args, "options", None)))
    args.system = args.system or default_system()
    try:
        from gui import app as dashboard  # noqa: PLC0415  (PySide6: the command line starts without Qt)
    except ImportError as exc:
        raise InputError(f"the dashboard needs PySide6: pip install 'fieldglass[gui]' ({exc})") from None
    headless = bool(args.headless) or not dashboard.has_display()
    if args.frames is None and headless:
        args.frames = 3
    if headless:
        if not os.environ.get("QT_QPA_PLATFORM"):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        reason = "--headless" if args.headless else "no display found (no DISPLAY or WAYLAND_DISPLAY)"
        print(f"{reason}: running headless with QT_QPA_PLATFORM={os.environ['QT_QPA_PLATFORM']}, "
              f"{args.frames} frame(s), then a screenshot")
    dashboard.application()  # first: a bad file becomes a message box on a display
    try:
        setup = load_gui_setup(args)
    except InputError as exc:
        if headless:
            raise
        dashboard.error_dialog(str(exc))
        print(f"fieldglass: error: {exc}", file=sys.stderr)
        return 2
    return dashboard.show_dashboard(setup, headless=headless, frames=args.frames, select=args.select,
                                    screenshot=args.screenshot,
                                    source_options={"resolution": args.resolution, "hand": args.hand})
