"""fieldglass check-print: was a page printed at 100 %? Measured from a photo of it lying next to the anchors."""

from __future__ import annotations

import argparse
from pathlib import Path

from calibration.camera import load_camera
from calibration.layout import load_layout
from common.errors import InputError
from fieldglass.printing import measure_print
from fieldglass.setup import read_roster
from vision.markers import aruco_dictionary
from vision.roster import check_against_layout
from vision.sources import read_image

EPILOG = """\
examples:
  fieldglass check-print photo.jpg --camera cam.json --layout table.toml --roster roster.toml
  fieldglass check-print photo.jpg --camera cam.json --layout table.toml --expect-mm 20

Stand the pieces with their labels glued on, or lay a printed page (marker labels, anchors or a board with
markers) flat on the table and give --flat, at least 2 of the table's anchors in view, and take a photo with the
calibrated camera. Each printed marker's black square is mapped onto the plane at its height above the cloth (pose
from the anchors): a roster piece's label at its marker_height_mm (on its base), with --flat every marker on the
cloth, a printed anchor or an --expect-mm marker on the cloth; its sides are measured in mm, so the scale read is
the printer's alone. The expected size comes from the roster (marker_mm), the layout (a printed anchor) or
--expect-mm. Exit code 1 when the print is more than --tolerance off 100 %.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check-print",
        help="measure printed markers in a photo to confirm the page was printed at 100 %%",
        description="Measure printed markers lying on the table (photo with anchors in view) against their sizes.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("photo", type=Path, metavar="PHOTO")
    p.add_argument("--camera", required=True, type=Path, metavar="CAM.json")
    p.add_argument("--layout", required=True, type=Path, metavar="LAYOUT.toml")
    p.add_argument("--roster", type=Path, metavar="ROSTER.toml", help="expected marker sizes (marker_mm)")
    p.add_argument("--expect-mm", type=float, metavar="MM", help="expected side of every other printed marker")
    p.add_argument("--tolerance", type=float, default=1.5, metavar="PERCENT", help="allowed error (default 1.5 %%)")
    p.add_argument("--flat", action="store_true",
                   help="the markers lie flat on the cloth (a sheet before cutting), not on their bases")
    p.set_defaults(run=run)


def expected_sizes(layout, roster=None, expect_mm: float | None = None,
                   flat: bool = False) -> dict[int, tuple[str, float, float]]:
    """marker id -> (name, side mm, height mm above the cloth): roster pieces (at their marker_height_mm, on their
    bases; 0 when `flat`), then printed anchor copies, then --expect-mm for the rest (both lying on the cloth)."""
    out: dict[int, tuple[str, float, float]] = {}
    if expect_mm:
        n = int(aruco_dictionary(layout.dictionary).bytesList.shape[0])
        out.update({i: ("marker", float(expect_mm), 0.0) for i in range(n)})
    for a in layout.anchors:
        out[a.id] = (f"anchor {a.id}", a.size_mm, 0.0)
    if roster is not None:
        out.update({p.marker: (p.id, p.marker_mm, 0.0 if flat else p.marker_height_mm) for p in roster.pieces})
    return out


def run(args) -> int:
    camera = load_camera(args.camera)
    layout = load_layout(args.layout)
    roster = read_roster(args.roster) if args.roster else None
    if roster is not None:
        check_against_layout(roster, layout, args.roster)
    if args.expect_mm is not None and not args.expect_mm > 0:
        raise InputError(f"--expect-mm {args.expect_mm:g}: must be a positive side in mm")
    if not 0 < args.tolerance < 50:
        raise InputError(f"--tolerance {args.tolerance:g}: expected a percentage between 0 and 50")
    image = read_image(args.photo)
    h, w = image.shape[:2]
    if (w, h) != tuple(camera.image_size):
        camera = camera.scaled_to((w, h))
    check = measure_print(image, camera, layout, expected_sizes(layout, roster, args.expect_mm, args.flat),
                          args.tolerance / 100.0, roster.dictionary if roster else None)
    print(f"{args.photo}:")
    print("\n".join(check.lines()))
    return 0 if check.ok else 1
