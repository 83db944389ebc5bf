"""fieldglass bench: speed and accuracy figures, printed (never asserted in timed tests)."""

from __future__ import annotations

import argparse
import importlib
import os
import platform
from pathlib import Path

import cv2

from fieldglass.benchmarks.dashboard import add_parser as add_dashboard_bench
from fieldglass.benchmarks.dice_real import add_parser as add_dice_bench  # the synthetic bench and --real
from fieldglass.benchmarks.lens import add_parser as add_lens_bench
from fieldglass.benchmarks.lens import stream_lines as lens_stream_lines
from fieldglass.benchmarks.limits import add_parser as add_limits_bench
from fieldglass.benchmarks.live import add_parser as add_live_bench
from fieldglass.benchmarks.projector import add_parser as add_projector_bench
from fieldglass.benchmarks.realdata import realdata_figures
from fieldglass.benchmarks.record import add_parser as add_record_bench
from fieldglass.benchmarks.rig import run_rig_bench
from fieldglass.benchmarks.soak import add_parser as add_soak_bench
from fieldglass.benchmarks.vision import measure_accuracy, measure_speed, measure_stream_speed
from fieldglass.benchmarks.web import add_parser as add_web_bench
from rules.system import game_systems

EPILOG = """\
examples:
  fieldglass bench vision                 the full run: 4K accuracy, 1080p and 4K speed, real photos
  fieldglass bench vision --quick         a smaller run for a first look (about a minute)
  fieldglass bench vision --rig [--quick] two rendered cameras over one table, each photo read and the views fused
  fieldglass bench dashboard              the dashboard's frames shown per second at 1080p, 100 pieces (Xvfb)
  fieldglass bench dice                   dice read from rendered photos, phantom dice on empty tables, speed

The synthetic frames follow the vision issue's scenario: a 2.4 x 1.2 m table of 40 x 20 fields, 100 pieces with
20 mm markers at heights 3, 25 and 50 mm, a camera 1.7 m up tilted 0-25 degrees, blur, noise, JPEG, uneven light.
"""

DEFAULT_REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "bench",
        help="print speed and accuracy figures",
        description="Benchmarks that print figures.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = p.add_subparsers(dest="bench", metavar="BENCH", required=True)
    v = which.add_parser(
        "vision",
        help="marker detection and piece location: accuracy on the synthetic table, speed, real photos",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    v.add_argument("--frames", type=int, default=8, help="4K frames for accuracy (default 8, 100 pieces each)")
    v.add_argument("--speed-frames", type=int, default=4, help="frames per resolution for speed (default 4)")
    v.add_argument("--pieces", type=int, default=100, help="pieces per frame (default 100)")
    v.add_argument("--seed", type=int, default=1)
    v.add_argument("--lens-stream-frames", type=int, default=15, metavar="N",
                   help="frames of the perturbed-intrinsics stream (default 15: the registration's whole pool)")
    v.add_argument("--quick", action="store_true", help="2 accuracy frames, 2 speed frames, a 5-frame stream")
    v.add_argument("--rig", action="store_true",
                   help="only the rig: two cameras over one table, fused (3 scenes each, --quick 1)")
    v.add_argument(
        "--realdata", type=Path, default=DEFAULT_REALDATA, metavar="DIR", help="folder of real photos with ground truth"
    )
    v.set_defaults(run=run_vision)
    add_record_bench(which)
    add_limits_bench(which)
    add_lens_bench(which)
    add_web_bench(which)
    add_live_bench(which)
    add_dashboard_bench(which)
    add_soak_bench(which)
    add_projector_bench(which)
    add_dice_bench(which)
    add_system_benches(which)


def add_system_benches(which) -> None:
    """`fieldglass bench NAME` for every registered system that declares an engine benchmark (GameSystem.bench: a
    module with NAME, HELP, __doc__, EPILOG, OPTIONS and run)."""
    for game in game_systems().values():
        if not game.bench:
            continue
        bench = importlib.import_module(game.bench)
        p = which.add_parser(bench.NAME, help=bench.HELP, description=bench.__doc__,
                             epilog=bench.EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
        for o in bench.OPTIONS:
            p.add_argument(*o.flags, help=o.help, **dict(o.kwargs))
        p.set_defaults(run=bench.run)


def run_vision(args) -> int:
    if args.rig:
        return run_rig_bench(args)
    frames, speed_frames = (2, 2) if args.quick else (args.frames, args.speed_frames)
    print(f"fieldglass bench vision  (OpenCV {cv2.__version__}, {os.cpu_count()} cores, {platform.machine()})")
    tally = measure_accuracy(frames, args.seed, args.pieces)
    print(f"\naccuracy: {frames} synthetic 4K frames, {args.pieces} pieces each, the camera's true intrinsics")
    for line in tally.lines():
        print("  " + line)
    tally = measure_accuracy(frames, args.seed, args.pieces, calibration_error=True)
    print("\naccuracy: the same frames with intrinsics as a good real calibration would give them")
    print("  (one standard deviation: focal length 0.2 %, principal point 1.5 px, k1 0.003)")
    for line in tally.lines():
        print("  " + line)
    print("\naccuracy with intrinsics off (issues 17, 26): focal 0.3 %, principal point 2 px, k1 0.005, random signs;")
    print("  true lens; camera file as given, by default (refined where measurably better), always refined")
    for line in lens_stream_lines(frames, 5 if args.quick else args.lens_stream_frames, args.seed, args.pieces):
        print("  " + line)
    print("\nspeed: every frame a new photo (full scan, new registration), the best of 3 runs per frame; the whole")
    print("pipeline against plain full-frame ArucoDetectors: tuned (minMarkerPerimeterRate 0.01, subpixel) and default")
    for res in ((1920, 1080), (3840, 2160)):
        f = measure_speed(res, speed_frames, args.seed + 1, args.pieces)
        print(
            f"  {res[0]}x{res[1]}:  pipeline {1000 * f.pipeline_s:5.0f} ms, finds {100 * f.pipeline_found:5.1f} %"
            f" of the pieces;  tuned detector {1000 * f.tuned_s:5.0f} ms ({100 * f.tuned_found:5.1f} %);"
            f"  pipeline / tuned {f.ratio:.2f};  default detector {1000 * f.default_s:4.0f} ms"
            f" ({100 * f.default_found:4.1f} %)"
        )
    print("\nspeed on a camera stream of a still table (fresh sensor noise every frame): last frame's markers tracked"
          " and a full scan every 10th frame; change-driven (LiveReader)")
    for res in ((1920, 1080), (3840, 2160)):
        fps, share, live_fps, live_share = measure_stream_speed(res, 10 if args.quick else 30, args.seed + 2,
                                                                args.pieces)
        print(f"  {res[0]}x{res[1]}:  tracked {fps:6.2f} fps (pieces found per frame {100 * share:.1f} %);"
              f"  change-driven {live_fps:6.1f} fps ({100 * live_share:.1f} %)")
    if args.realdata.is_dir():
        print(f"\nreal photos ({args.realdata})")
        for line in realdata_figures(args.realdata):
            print("  " + line)
    else:
        print(f"\nreal photos: {args.realdata} not found, skipped")
    return 0
