"""fieldglass calibrate camera: lens intrinsics from photos of a printed board, saved as a camera file;
fieldglass calibrate table: that lens refined from photos of the table itself (issue 17)."""

from __future__ import annotations

import argparse
import glob
import sys
from pathlib import Path

from calibration.camera import STD_DEV_NAMES, CameraIntrinsics, load_camera, save_camera
from calibration.intrinsics import BOARD_FORMAT, MIN_IMAGES, ImageResult, calibrate_camera, parse_board
from calibration.layout import load_layout
from calibration.lens import MIN_RELIEF_MM
from common.errors import InputError
from common.outfiles import check_output
from fieldglass.commands.calibrate_projector import add_projector_parser
from fieldglass.commands.calibrate_rig import add_rig_parser
from fieldglass.setup import read_roster
from fieldglass.table_lens import PhotoFit, calibrate_from_photos
from vision.roster import check_against_layout
from vision.sources import expand_paths

CALIBRATE_DESCRIPTION = """\
Calibrate what Fieldglass needs to turn pixels into table millimetres.

  camera   the lens: focal length, optical centre and distortion, from photos of a printed board
  table    that lens refined from photos of the table itself (its anchors and the pieces' markers)
  rig      every camera of a rig registered from a photo each: the anchors each sees, the overlaps (--gui: wizard)
  projector  the map from table mm to a projector's pixels, from marker patterns it shows on the table
"""

CALIBRATE_EXAMPLES = """\
examples:
  fieldglass calibrate camera shots/*.jpg --board chessboard:9x6:25 --out cam.json
  fieldglass calibrate camera --help            which photos to take, and the board specs
  fieldglass calibrate table game.jpg --camera cam.json --layout table.toml --roster roster.toml --out cam2.json
  fieldglass calibrate rig west.jpg east.jpg --rig rig.toml --layout table.toml [--gui]
  fieldglass calibrate projector --screen 1 --camera cam.json --layout table.toml --out projector.json
"""

TABLE_DESCRIPTION = f"""\
Refine a camera file's lens from one or more photos of the table as it is set up for play: the layout's anchors
(known places and heights) and the roster's piece markers (known size and height, anywhere on the table) are fitted
together with the camera's pose. k1 is always refined; the focal length and the optical centre only when the anchors
stand at heights at least {MIN_RELIEF_MM:g} mm apart (anchors on blocks, `z_mm` in the layout): on a flat table the
photo cannot tell them from the camera's distance and tilt, and the camera file's values are kept. Each value is
held near the camera file's by a prior, so a photo with few markers moves it little.

Glue two or four anchors on blocks 50-60 mm high along the long edges for the best result. Take the photos at the
resolution you play at, with the table and as many pieces as possible in view; the camera file is rescaled to the
photos' resolution when only that differs, and the refined file is written at the photos' resolution.
"""

TABLE_EXAMPLES = """\
examples:
  fieldglass calibrate table setup.jpg --camera cam.json --layout table.toml --roster roster.toml --out cam2.json
  fieldglass calibrate table 'shots/*.jpg' --camera cam.json --layout table.toml --out cam2.json   (anchors only)

Prints each photo's RMS reprojection error before and after, and the lens values that changed; the camera file
written records them ("table_fit"). Several photos are each fitted alone and the refined values averaged.
"""

CAMERA_DESCRIPTION = f"""\
Work out the camera's lens (fx, fy, cx, cy in px and 5 distortion coefficients) from photos of a
printed calibration board, and save it as a camera file for `fieldglass locate --camera`.

Take {MIN_IMAGES} or more (better 10-20) sharp photos at the resolution you will play at, with the board
filling different parts of the frame, tilted by 20-40 degrees in different directions. Do not change the
zoom or focus between photos. Measure the printed square with a ruler: printers rescale.

Board spec (--board):
  chessboard:COLSxROWS:SQUARE_MM                COLSxROWS counts INNER corners (a board of 10x7 squares is 9x6)
  charuco:COLSxROWS:SQUARE_MM:MARKER_MM:DICT    COLSxROWS counts squares; DICT a cv2.aruco dictionary name
"""

CAMERA_EXAMPLES = """\
examples:
  fieldglass calibrate camera shots/*.jpg --board chessboard:9x6:25 --out cam.json
  fieldglass calibrate camera 'shots/*.png' --board charuco:7x5:30:22:DICT_4X4_50 --out cam.json

Photos where the board is not found, or whose size differs from the first photo, are listed and skipped;
a photo that fits far worse than the others is dropped and the calibration rerun.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "calibrate",
        help="calibrate the camera lens from photos of a printed board",
        description=CALIBRATE_DESCRIPTION,
        epilog=CALIBRATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = p.add_subparsers(dest="target", metavar="WHAT")
    cam = what.add_parser(
        "camera",
        help="lens intrinsics from photos of a chessboard or ChArUco board",
        description=CAMERA_DESCRIPTION,
        epilog=CAMERA_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cam.add_argument("images", nargs="*", metavar="IMAGE", help="photos of the board (globs like shots/*.jpg work)")
    # Not required=True: a missing option should be our one-line error, not argparse's usage dump.
    cam.add_argument("--board", metavar="SPEC", help="the printed board, e.g. chessboard:9x6:25 (see above)")
    cam.add_argument("--out", metavar="CAM.json", help="camera file to write")
    cam.set_defaults(run=run_camera)
    table = what.add_parser(
        "table",
        help="refine a camera file's lens from photos of the table (anchors, raised anchors, piece markers)",
        description=TABLE_DESCRIPTION,
        epilog=TABLE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    table.add_argument("photos", nargs="+", metavar="PHOTO", help="photos of the table (globs like shots/*.jpg work)")
    table.add_argument("--camera", required=True, metavar="CAM.json", help="camera file to refine")
    table.add_argument("--layout", required=True, metavar="LAYOUT.toml", help="table layout: anchors and their z_mm")
    table.add_argument("--roster", metavar="ROSTER.toml", help="pieces whose markers help (optional)")
    table.add_argument("--out", required=True, metavar="CAM2.json", help="refined camera file to write")
    table.set_defaults(run=run_table)
    add_rig_parser(what)
    add_projector_parser(what)
    p.set_defaults(run=lambda args: _usage(p))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def expand_images(patterns: list[str]) -> list[str]:
    """Paths in order, expanding globs the shell left alone; a glob that matches nothing is an InputError."""
    paths: list[str] = []
    for pattern in patterns:
        if any(c in pattern for c in "*?[") and not Path(pattern).exists():
            matches = sorted(glob.glob(pattern))
            if not matches:
                raise InputError(f"{pattern}: no files match")
            paths.extend(matches)
        else:
            paths.append(pattern)
    return list(dict.fromkeys(paths))


def run_camera(args) -> int:
    if not args.board:
        raise InputError(f"calibrate camera: --board is required: {BOARD_FORMAT}")
    if not args.out:
        raise InputError("calibrate camera: --out is required, e.g. --out cam.json")
    board = parse_board(args.board)
    out = Path(args.out)
    if out.is_dir():
        raise InputError(f"{out}: is a folder, expected a camera file name like cam.json")
    if not out.parent.is_dir():
        raise InputError(f"{out}: folder {out.parent} does not exist")
    paths = expand_images(args.images)
    check_output(out, paths)  # never over one of the photos
    if not paths:
        raise InputError("calibrate camera: no images given, e.g. fieldglass calibrate camera shots/*.jpg ...")

    def progress(done: int, total: int, result: ImageResult) -> None:
        what = f"{result.corners} corners" if result.used else f"rejected: {result.reason}"
        print(f"[{done:>{len(str(total))}}/{total}] {Path(result.path).name}: {what}", file=sys.stderr, flush=True)

    result = calibrate_camera(paths, board, progress=progress)
    cam = result.camera
    k = cam.camera_matrix
    try:
        save_camera(cam, out, paths)
    except OSError as exc:
        raise InputError(f"{out}: cannot write camera file ({exc.strerror or exc})") from None

    print(
        f"calibrated from {len(result.used)} of {len(result.images)} images ({board}, {cam.image_size[0]}x"
        f"{cam.image_size[1]} px)"
    )
    print(f"RMS reprojection error: {result.rms_px:.3f} px")
    print(f"fx {k[0, 0]:.2f}  fy {k[1, 1]:.2f}  cx {k[0, 2]:.2f}  cy {k[1, 2]:.2f}  (px)")
    print("distortion k1 k2 p1 p2 k3: " + " ".join(f"{v:.5f}" for v in cam.dist_coeffs))
    if cam.std_devs is not None:
        print("std dev  " + "  ".join(f"{n} {v:.3g}" for n, v in zip(STD_DEV_NAMES, cam.std_devs, strict=True))
              + "  (kept in the camera file)")
    if result.rejected:
        print(f"rejected {len(result.rejected)} image(s):")
        for r in result.rejected:
            print(f"  {r.path}: {r.reason}")
    if result.rms_px > 1.0:
        print("warning: RMS above 1 px: check the --board spec and square size, and that the board is flat and sharp")
    print(f"saved camera file {out}")
    return 0


def run_table(args) -> int:
    camera = load_camera(args.camera)
    layout = load_layout(args.layout)
    roster = None
    if args.roster:
        roster = read_roster(args.roster)
        check_against_layout(roster, layout, args.roster)
    paths = expand_paths(args.photos)
    out = Path(args.out)
    check_output(out, [args.camera, args.layout, args.roster, *paths])  # never over one of its inputs

    def progress(done: int, total: int, photo: PhotoFit) -> None:
        print(f"[{done:>{len(str(total))}}/{total}] {Path(photo.path).name}: {photo.anchors} anchors, {photo.pieces} "
              f"piece markers; RMS {photo.before_px:.3f} -> {photo.after_px:.3f} px", file=sys.stderr, flush=True)

    result = calibrate_from_photos(paths, camera, layout, roster, progress)
    try:
        save_camera(result.camera, out, [args.camera, args.layout, args.roster, *paths])
    except OSError as exc:
        raise InputError(f"{out}: cannot write camera file ({exc.strerror or exc})") from None
    fit = result.camera.table_fit
    print(f"refined from {len(result.photos)} photo(s): {', '.join(result.refined)}"
          + ("" if "focal" in result.refined else
             f"  (focal length and centre kept: no anchors {MIN_RELIEF_MM:g} mm or more above the others)"))
    print(f"RMS reprojection error {fit['before_px']:.3f} -> {fit['after_px']:.3f} px (anchors and piece markers)")
    print(_lens_line("camera file", result.given))
    print(_lens_line("refined    ", result.camera))
    print(f"saved camera file {out}")
    return 0


def _lens_line(name: str, camera: CameraIntrinsics) -> str:
    k = camera.camera_matrix
    return (f"{name}  fx {k[0, 0]:.2f}  fy {k[1, 1]:.2f}  cx {k[0, 2]:.2f}  cy {k[1, 2]:.2f}  "
            f"k1 {camera.dist_coeffs[0]:.5f}  ({camera.image_size[0]}x{camera.image_size[1]} px)")
