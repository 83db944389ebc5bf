"""fieldglass demo: the whole pipeline on the built-in synthetic table (no camera needed)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import cv2
import numpy as np

from calibration.registration import TableRegistration
from common.errors import InputError
from common.outfiles import check_image_name, output_file
from fieldglass.rig_demo import run_rig_demo
from vision.annotate import annotate
from vision.pieces import read_table
from vision.synthetic import RenderOptions, VirtualCamera, demo_scene, render_table

EPILOG = """\
examples:
  fieldglass demo                               1080p view of the demo table, screenshot in out/demo.png
  fieldglass demo --resolution 3840x2160 --tilt 25 --hand
  fieldglass demo --screenshot table.png
  fieldglass demo --rig                         two cameras over one table: the scripted game read as one

The demo table is 2.4 x 1.2 m with a 40 x 20 grid of 60 mm fields, 8 anchor markers and two small armies.
It is rendered by a virtual camera with lens distortion, so the figures it prints are checked against the truth.

With --rig the scripted game (a 1.2 x 0.6 m table) is filmed by two low cameras side by side, neither seeing the whole
table, and read as `fieldglass record --rig` reads a rig: each camera registered from the anchors it sees, their
readings fused into one table, a hand one camera sees holding the pieces under it. It prints each camera's anchors,
every committed event with the cameras that saw the piece, each piece a camera loses under a hand, and whether the
committed moves equal the script (exit 1 when not); no screenshot.
"""


def _resolution(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, like 1920x1080") from None
    if not (320 <= w <= 8192 and 240 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"{text}: width and height must be 320..8192 and 240..8192 px")
    return w, h


def add_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="run the pipeline on the built-in synthetic table",
        description="Render the built-in synthetic table, find every piece on it, and print what was seen "
        "beside the truth. Needs no camera and no display.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--resolution", type=_resolution, default=(1920, 1080), metavar="WxH", help="default 1920x1080")
    p.add_argument("--tilt", type=float, default=15.0, metavar="DEG", help="camera tilt from vertical (default 15)")
    p.add_argument("--hand", action="store_true", help="a hand reaches over the table and hides some pieces")
    p.add_argument("--rig", action="store_true", help="two cameras over one table: the scripted game read by a rig, "
                   "its committed events printed")
    p.add_argument(
        "--screenshot", type=Path, default=Path("out/demo.png"), metavar="PNG", help="where to save the annotated view"
    )
    p.set_defaults(run=run)


def run(args) -> int:
    if args.rig:
        print("a rig of two rendered cameras, read headless: what it sees and commits")
        return run_rig_demo()
    if not 0.0 <= args.tilt <= 60.0:
        raise InputError(f"--tilt {args.tilt:g}: the camera tilt must be 0..60 degrees")
    check_image_name(args.screenshot)
    scene = demo_scene()
    layout = scene.layout
    camera = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, args.resolution, 1700.0, args.tilt)
    options = RenderOptions(blur_sigma_px=0.8, noise_sigma=2.5, uneven_light=0.25, hand=args.hand, seed=7)
    frame, truth = render_table(scene, camera, options)
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        print("no display found: running headless, printing what the camera sees and saving a screenshot")
    reading = read_table(frame, TableRegistration(layout, camera.intrinsics), scene.roster)
    w, h = args.resolution
    table = f"{layout.width_mm:g} x {layout.depth_mm:g} mm"
    print(f"synthetic table {table}, camera 1.7 m up, tilt {args.tilt:g} deg, {w}x{h} px")
    if reading.pose is None:
        print("the table could not be registered: fewer than 2 anchors seen")
        return 1
    print(
        f"table pose from anchors {', '.join(map(str, reading.pose.anchors))}, "
        f"reprojection {reading.pose.reprojection_px:.2f} px"
    )
    truths = {t.piece_id: t for t in truth.pieces}
    print(f"\n  {'piece':<10}{'field':<6}{'facing':<7}{'x mm':>8}{'y mm':>8}{'heading':>9}{'error mm':>10}")
    errors = []
    for p in reading.pieces:
        t = truths[p.piece]
        err = float(np.hypot(p.x_mm - t.x_mm, p.y_mm - t.y_mm))
        errors.append(err)
        where = f"{p.cell or 'off':<6}{p.facing or '':<7}"
        print(f"  {p.piece:<10}{where}{p.x_mm:>8.1f}{p.y_mm:>8.1f}{p.heading_deg:>9.1f}{err:>10.2f}")
    seen = {p.piece for p in reading.pieces}
    hidden = [t.piece_id for t in truth.pieces if t.piece_id not in seen]
    print(f"\n{len(seen)} of {len(truth.pieces)} pieces found", end="")
    print(f"; mean error {np.mean(errors):.2f} mm, max {np.max(errors):.2f} mm" if errors else "")
    if hidden:
        print(f"not seen (hidden by the hand or out of view): {', '.join(hidden)}")
    shot = annotate(frame, reading, camera.intrinsics, scene.roster, layout)
    with output_file(args.screenshot) as tmp:
        if not cv2.imwrite(str(tmp), shot):
            raise InputError(f"{args.screenshot}: cannot write the screenshot")
    print(f"screenshot: {args.screenshot}")
    return 0
