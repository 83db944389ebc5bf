"""fieldglass gui: the dashboard (PySide6) over the camera, or headless without a display."""

from __future__ import annotations

import argparse
from pathlib import Path

from fieldglass.commands.demo import _resolution

EPILOG = """\
examples:
  fieldglass gui                                           the synthetic demo table, its own camera and files
  fieldglass gui --source 0 --camera cam.json --layout table.toml --roster roster.toml
  fieldglass gui --source game.mp4 --camera cam.json --layout table.toml --roster roster.toml --game start.json
  fieldglass gui --headless --frames 5 --screenshot out/gui.png --select fr-a-1

--source is a camera index (0), a video or image file (or a glob), a stream URL, or 'synthetic' (the built-in
table, which needs no --camera, --layout or --roster). --game reads a position file for the terrain and the pieces'
markers, formations and bases the camera cannot see.

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
    p.add_argument("--system", default="wiener", help="rules system: wiener (default), marengo, dbx")
    p.add_argument("--game", metavar="POSITION.json", help="position file: terrain and the pieces' game state")
    p.add_argument("--board", metavar="BOARD.toml",
                   help="printed board (--system marengo; synthetic: the demo board rules/marengo/data)")
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


def run(args) -> int:
    from common.errors import InputError

    if args.frames is not None and args.frames < 1:
        raise InputError(f"--frames {args.frames}: must be at least 1")
    try:
        from gui.app import has_display
        from gui.app import run as run_gui
    except ImportError as exc:
        raise InputError(f"the dashboard needs PySide6: pip install 'fieldglass[gui]' ({exc})") from None
    if args.frames is None and (args.headless or not has_display()):
        args.frames = 3
    return run_gui(args)
