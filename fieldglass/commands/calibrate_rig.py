"""fieldglass calibrate rig: register every camera of a rig from a photo each, and say which anchors each camera
sees and which the cameras share (the overlaps); --gui opens the rig's calibration wizard on the photos."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from calibration.layout import load_layout
from calibration.rig import load_rig
from common import jsonout
from common.errors import InputError
from common.outfiles import check_image_name
from vision.rig import rig_photos
from vision.rig_registration import register_rig

RIG_DESCRIPTION = """\
Register each camera of a rig to the table from the layout's anchors in one photo per camera (given in the rig
file's order, taken with the cameras where they will stay), and report which anchors each camera sees, which anchors
two or more cameras share (the overlaps that tie their views together) and what to fix: a camera that sees fewer
than 2 anchors is not registered, and a camera that shares fewer than 2 anchors with every other camera needs
anchors in its overlap with a neighbour (`fieldglass print anchors --rig` places them).

--gui opens the calibration wizard for the rig: one tab per camera (its photo with the anchors it found, green when
shared, orange when only it sees them; its registration), and an overlap tab (the table from above with every
camera's view and every anchor coloured by how many cameras see it). Each tab can register its camera again from
another photo. Without a display, or with --headless, it saves a screenshot of every tab and exits.
"""

RIG_EXAMPLES = """\
examples:
  fieldglass calibrate rig west.jpg east.jpg --rig rig.toml --layout table.toml
  fieldglass calibrate rig west.jpg east.jpg --rig rig.toml --layout table.toml --json
  fieldglass calibrate rig west.jpg east.jpg --rig rig.toml --layout table.toml --gui
"""


def add_rig_parser(what) -> None:
    r = what.add_parser(
        "rig",
        help="register each camera of a rig from a photo; the anchors each sees and the overlaps (--gui: wizard)",
        description=RIG_DESCRIPTION,
        epilog=RIG_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("photos", nargs="+", metavar="PHOTO", help="one photo per camera, in the rig file's order")
    r.add_argument("--rig", required=True, metavar="RIG.toml", help="the rig file (its camera files are read)")
    r.add_argument("--layout", required=True, metavar="LAYOUT.toml", help="the table layout with its anchors")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.add_argument("--gui", action="store_true", help="open the rig calibration wizard on the photos")
    r.add_argument("--headless", action="store_true", help="--gui: run offscreen even with a display")
    r.add_argument("--screenshot", type=Path, default=Path("out/rig-calibration.png"), metavar="PNG",
                   help="--gui headless: the overlap tab's screenshot (camera tabs beside it, -NAME added)")
    r.set_defaults(run=run_rig)


def _photos(args):
    rig = load_rig(args.rig)
    photos = rig_photos(rig, args.photos)
    return rig, [frame for frame, _ in photos], [lens for _, lens in photos]


def run_rig(args) -> int:
    if args.gui:
        check_image_name(args.screenshot, (args.rig, args.layout, *args.photos))
    layout = load_layout(args.layout)
    rig, frames, lenses = _photos(args)
    if args.gui:
        return _open_wizard(args, layout, rig.names, frames, lenses)
    summary = register_rig(list(zip(rig.names, frames, lenses, strict=True)), layout)
    if args.json:
        print(jsonout.dumps(summary.to_json()))
    else:
        print(f"{len(rig.cameras)} camera(s), layout anchors {', '.join(str(a.id) for a in layout.anchors)}")
        print("\n".join(summary.lines()))
    return 0


def _open_wizard(args, layout, names, frames, lenses) -> int:
    try:
        from gui.qtapp import headless_reason  # noqa: PLC0415  (PySide6: the command line starts without Qt)
        from gui.rig_calibration import show_rig_wizard  # noqa: PLC0415  (PySide6: the command line starts without Qt)
    except ImportError as exc:
        raise InputError(f"the calibration wizard needs PySide6: pip install 'fieldglass[gui]' ({exc})") from None
    reason = headless_reason(bool(args.headless))
    headless = reason is not None
    if headless:
        print(f"{reason}: running headless with "
              f"QT_QPA_PLATFORM={os.environ['QT_QPA_PLATFORM']}, a screenshot of every tab")
    return show_rig_wizard(layout, names, frames, lenses, headless=headless, screenshot=args.screenshot)
