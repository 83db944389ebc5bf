"""fieldglass detect: the markers and QR codes in photos, in pixels."""

from __future__ import annotations

import argparse
import json

import numpy as np

from calibration.layout import check_dictionary
from common import jsonout
from vision.markers import MarkerDetection, QRDetection, detect_markers, detect_qr
from vision.sources import expand_paths, read_image

DEFAULT_DICTIONARY = "DICT_4X4_250"

EPILOG = """\
examples:
  fieldglass detect photo.jpg
  fieldglass detect 'shots/*.jpg' --json
  fieldglass detect tags.jpg --dictionary DICT_APRILTAG_36h11

Pixels follow OpenCV's convention: the centre of the top-left pixel is (0, 0). A marker's corners are its black
square's, in the marker's own order: top-left, top-right, bottom-right, bottom-left as printed, wherever the marker
points in the photo. Markers need a light margin around the black square; from about 12 px a side they are found
(with sub-pixel corners from about 20 px). --dictionary takes any cv2.aruco name (DICT_4X4_50 ... DICT_7X7_1000,
DICT_ARUCO_ORIGINAL, DICT_APRILTAG_16h5 ... 36h11). QR codes are read with ZBar; their polygon is as ZBar gives it.

JSON (--json): a list with one entry per image:
  {"image": PATH, "markers": [{"id": N, "corners": [[x, y], x4]}], "qr": [{"payload": TEXT, "polygon": [[x, y], ...]}]}
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "detect",
        help="markers and QR codes in photos, in pixels",
        description="Find every marker of one dictionary, and every QR code, in photos; report them in pixels.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photos (globs allowed)")
    p.add_argument(
        "--dictionary",
        default=DEFAULT_DICTIONARY,
        metavar="NAME",
        help=f"marker dictionary, a cv2.aruco name (default {DEFAULT_DICTIONARY})",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(run=run)


def _xy(points: np.ndarray, digits: int = 3) -> list[list[float]]:
    return [[round(float(x), digits), round(float(y), digits)] for x, y in points]


def to_json(image: str, markers: list[MarkerDetection], qr: list[QRDetection]) -> dict:
    return {
        "image": image,
        "markers": [{"id": m.id, "corners": _xy(m.corners)} for m in markers],
        "qr": [{"payload": q.payload, "polygon": _xy(q.polygon, 2)} for q in qr],
    }


def format_image(image: str, dictionary: str, markers: list[MarkerDetection], qr: list[QRDetection]) -> str:
    codes = "QR code" if len(qr) == 1 else "QR codes"
    lines = [f"{image}: {len(markers)} marker{'' if len(markers) == 1 else 's'} ({dictionary}), {len(qr)} {codes}"]
    if markers:
        lines.append(f"  {'id':>6}{'centre x':>11}{'centre y':>11}{'side px':>9}")
    for m in markers:
        cx, cy = m.corners.mean(axis=0)
        side = np.linalg.norm(m.corners - np.roll(m.corners, 1, axis=0), axis=1).mean()
        lines.append(f"  {m.id:>6}{cx:>11.2f}{cy:>11.2f}{side:>9.1f}")
    for q in qr:
        cx, cy = q.polygon.mean(axis=0)
        lines.append(f"  QR {json.dumps(q.payload, ensure_ascii=False)} centred at ({cx:.1f}, {cy:.1f})")
    return "\n".join(lines)


def run(args) -> int:
    dictionary = check_dictionary(args.dictionary, "--dictionary")
    paths = expand_paths(args.images)
    # Read every photo before printing, so a bad one fails the run cleanly instead of cutting the JSON short.
    results = []
    for path in paths:
        image = read_image(path)
        results.append((path, detect_markers(image, dictionary), detect_qr(image)))
    if args.json:
        print(jsonout.dumps([to_json(p, m, q) for p, m, q in results]))
    else:
        print("\n\n".join(format_image(p, dictionary, m, q) for p, m, q in results))
    return 0
