"""fieldglass plan: what a camera will see of a table, and which markers it will read."""

from __future__ import annotations

import argparse
from pathlib import Path

from common.errors import InputError
from common.outfiles import check_output, write_text
from fieldglass.planning import CameraSetup, format_plan, parse_pair, plan, rig_skeleton
from fieldglass.setup import read_roster

EPILOG = """\
examples:
  fieldglass plan --table 2400x1200 --camera-resolution 3840x2160 --fov 78 --height 1700
  fieldglass plan --table 2400x1200 --camera-resolution 1920x1080 --fov 78 --height 1700 --tilt 15 --markers 20
  fieldglass plan --table 3600x1800 --camera-resolution 3840x2160 --fov 90 --height 1500 --roster roster.toml
  fieldglass plan --table 2400x1200 --camera-resolution 1920x1080 --fov 78 --height 1150 --rig-out rig.toml

The camera is a pinhole --height mm above the table surface, aimed at the table centre, tilted --tilt degrees from
straight down toward the far side, the image's long side along the table's width. --fov is the diagonal field of
view as webcam makers give it (--fov-kind horizontal for a horizontal one). The smallest reliable marker comes from
the detector's measured limits (fieldglass/data/detection_limits.json, from `fieldglass bench limits`).

--rig-out RIG.toml writes a rig file for the cameras advised (cam1, cam2 ... row by row from the south-west, each
straight down over its part of the table): a [[camera]] per camera with a placeholder camera file "<name>.json"
(calibrate each camera into it), its footprint_mm (the part of the table it must see) and the advice as comments:
where it stands, what it sees, and the overlap strips where anchors must go (`fieldglass print anchors --rig` places
them). When one camera is enough the file holds one camera. It is written whole (a temporary file renamed), over an
earlier output but never over an input.

Raised anchors: glue two or four of the anchors on blocks 50-60 mm high along the table's long edges, and give each
its block's height as `z_mm` in the layout (the height of the printed face above the cloth, measured with a ruler).
Anchors at two heights pin the camera's pose down better than flat ones, and let `fieldglass calibrate table` refine
the lens (focal length, optical centre, k1) from a single photo of the table.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "plan",
        help="camera placement: mm per pixel, coverage, smallest readable marker, parallax, number of cameras",
        description="Plan a camera over a table from its size, the camera's resolution, field of view and height.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--table", required=True, metavar="WxD", help="table width x depth in mm, e.g. 2400x1200")
    p.add_argument("--camera-resolution", required=True, metavar="WxH", help="image size in px, e.g. 3840x2160")
    p.add_argument("--fov", required=True, type=float, metavar="DEG", help="field of view in degrees (diagonal)")
    p.add_argument("--fov-kind", default="diagonal", choices=("diagonal", "horizontal", "vertical"))
    p.add_argument("--height", required=True, type=float, metavar="MM", help="camera height above the table, mm")
    p.add_argument("--tilt", type=float, default=0.0, metavar="DEG", help="tilt from straight down (default 0)")
    p.add_argument("--markers", type=float, metavar="MM", help="check markers of this side (black square, mm)")
    p.add_argument("--roster", type=Path, metavar="ROSTER.toml", help="check every piece's marker_mm")
    p.add_argument("--rig-out", type=Path, metavar="RIG.toml",
                   help="write a rig file for the advised cameras (placeholders, footprints, advice as comments)")
    p.set_defaults(run=run)


def run(args) -> int:
    table = parse_pair(args.table, "--table")
    resolution = parse_pair(args.camera_resolution, "--camera-resolution", integer=True)
    if not 1.0 <= args.fov < 179.0:
        raise InputError(f"--fov {args.fov:g}: expected degrees between 1 and 179")
    if not args.height > 0:
        raise InputError(f"--height {args.height:g}: must be a positive number of mm above the table")
    if not 0.0 <= args.tilt < 80.0:
        raise InputError(f"--tilt {args.tilt:g}: expected degrees from 0 (straight down) to below 80")
    if args.markers is not None and not args.markers > 0:
        raise InputError(f"--markers {args.markers:g}: must be a positive marker side in mm")
    if args.rig_out is not None:
        check_output(args.rig_out, (args.roster,))
    roster = None
    if args.roster is not None:
        roster = read_roster(args.roster)
    setup = CameraSetup(table, resolution, args.fov, args.height, args.tilt, args.fov_kind)
    advice = plan(setup, marker_mm=args.markers, roster=roster)
    skeleton = rig_skeleton(advice) if args.rig_out is not None else None  # InputError before any output
    print("\n".join(format_plan(advice)))
    if skeleton is not None:
        write_text(args.rig_out, skeleton, (args.roster,))
        print(f"\n{args.rig_out}: rig file for {skeleton.count('[[camera]]')} camera(s); calibrate each into the "
              "camera file it names")
    return 0
