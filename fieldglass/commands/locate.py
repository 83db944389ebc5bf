"""fieldglass locate: where every piece stands in one or more photos of the table."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

import numpy as np

from calibration.camera import load_camera
from calibration.layout import load_layout
from calibration.registration import TableRegistration
from calibration.uncertainty import lens_uncertainty_mm
from common import jsonout
from common.errors import InputError
from common.fields import AMBIGUOUS_EDGE_MM
from fieldglass.setup import roster_keys
from fieldglass.table_lens import detect_table_markers, refine_from_markers
from vision.pieces import TableReading, camera_for_frame, read_table
from vision.roster import check_against_layout, load_roster
from vision.sources import expand_paths, read_image

EPILOG = """\
examples:
  fieldglass locate table.jpg --camera cam.json --layout table.toml --roster roster.toml
  fieldglass locate 'shots/*.jpg' --camera cam.json --layout table.toml --roster roster.toml --json
  fieldglass locate table.jpg --camera cam.json --layout table.toml --roster roster.toml --refine-lens

Each photo must show at least 2 of the layout's anchor markers. Positions are base centres in table millimetres
(x along the width, y along the depth), headings compass bearings (0 = +y, 90 = +x). With a [grid] in the layout,
each piece also gets its facing (N NE E SE S SW W NW), its field (A1 ...) and its distance to the field's nearest
edge: a piece within a few mm of an edge stands ambiguously.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "locate",
        help="where every piece stands (table mm, heading, field) in photos",
        description="Find every piece of the roster in photos of the table, in table millimetres.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photos of the table (globs allowed)")
    p.add_argument("--camera", required=True, metavar="CAM.json", help="camera file from 'fieldglass calibrate camera'")
    p.add_argument("--layout", required=True, metavar="LAYOUT.toml", help="table layout: size, anchors, grid")
    p.add_argument("--roster", required=True, metavar="ROSTER.toml", help="which marker is which piece")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--refine-lens", action="store_true",
                   help="refine the lens from each photo itself (anchors and piece markers; focal length and centre "
                        "too with raised anchors) before locating, as `fieldglass calibrate table` does")
    p.set_defaults(run=run)


AMBIGUOUS_SIGMAS = 2.0
"""A piece whose base centre lies within this many standard deviations of its place (`uncertainty_mm`) of a field
edge is flagged ambiguous: its field is not certain (95 %), so it is not silently assigned."""


def piece_json(p, sigma: float | None) -> dict:
    """One piece as JSON: its place, `uncertainty_mm` (one standard deviation from the lens's, null without
    std_devs) and, on a grid, `ambiguous` when a field edge is nearer than AMBIGUOUS_EDGE_MM or than
    AMBIGUOUS_SIGMAS standard deviations."""
    out = p.to_json() | {"uncertainty_mm": _rounded(sigma)}
    if p.edge_mm is not None:
        reach = max(AMBIGUOUS_EDGE_MM, AMBIGUOUS_SIGMAS * sigma if sigma is not None and np.isfinite(sigma) else 0.0)
        out["ambiguous"] = bool(p.edge_mm < reach)
    return out


def reading_to_json(image: str, reading: TableReading, uncertainty: Mapping[str, float] | None = None) -> dict:
    """The reading as JSON; each piece's `uncertainty_mm` is one standard deviation of its place from the lens's
    (null when the camera file has no std_devs), and on a grid whether its field is `ambiguous` (`piece_json`)."""
    unsure = uncertainty or {}
    return {
        "image": image,
        "pose": {
            "anchors": list(reading.pose.anchors),
            "reprojection_px": round(reading.pose.reprojection_px, 3),
        },
        "pieces": [piece_json(p, unsure.get(p.piece)) for p in reading.pieces],
        "unknown": list(reading.unknown),
        "conflicts": list(reading.conflicts),
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else round(float(value), 2)


def locate_image(
    path: str, camera, layout, roster, refine: bool = False
) -> tuple[TableReading, dict[str, float] | None]:
    """The photo's reading, and each piece's uncertainty in mm from the lens's standard deviations (None when the
    camera file gives none). With `refine` the lens is first refined from the photo (`calibration/lens.py`)."""
    frame = read_image(path)
    lens, markers = camera_for_frame(camera, frame, path), None
    if refine:
        markers = detect_table_markers(frame, layout, roster)
        fit = refine_from_markers(markers, layout, roster, lens)
        lens = lens if fit is None else fit.camera  # no pose: the reading below says why
    registration = TableRegistration(layout, lens, refine_lens=not refine)
    reading = read_table(frame, registration, roster, markers)
    if reading.pose is None:
        seen = sorted(m.id for m in reading.markers if m.id in layout.anchor_ids)
        ids = ", ".join(str(i) for i in sorted(layout.anchor_ids))
        raise InputError(
            f"{path}: {len(seen)} anchor marker(s) usable, at least 2 needed (the layout's anchors are {ids})"
        )
    return reading, piece_uncertainty(reading, registration.lens, layout, roster)


def piece_uncertainty(reading: TableReading, lens, layout, roster) -> dict[str, float] | None:
    """Piece id -> one standard deviation (mm) of its marker centre on the table, from the lens's std_devs."""
    if lens.std_devs is None or not reading.pieces:
        return None
    corners = {m.id: m.corners for m in reading.markers}
    anchors = {i: c for i, c in corners.items() if i in layout.anchor_ids}
    by_marker = roster.by_marker()
    centres = np.array([np.asarray(corners[p.marker], float).reshape(4, 2).mean(axis=0) for p in reading.pieces])
    heights = np.array([by_marker[p.marker].marker_height_mm for p in reading.pieces])
    sigma = lens_uncertainty_mm(anchors, layout, lens, centres, heights)
    return None if sigma is None else {p.piece: float(s) for p, s in zip(reading.pieces, sigma, strict=True)}


def format_reading(image: str, reading: TableReading) -> str:
    pose = reading.pose
    lines = [
        f"{image}: {len(reading.pieces)} pieces; table pose from anchors "
        f"{', '.join(map(str, pose.anchors))} (reprojection {pose.reprojection_px:.2f} px)"
    ]
    if reading.pieces:
        head = f"  {'piece':<14}{'marker':>7}{'x mm':>9}{'y mm':>9}{'heading':>9}"
        if reading.pieces[0].facing:
            head += f"  {'facing':<7}{'field':<6}{'edge mm':>8}"
        lines.append(head)
    for p in reading.pieces:
        grid = f"  {p.facing:<7}{p.cell or 'off':<6}{p.edge_mm:>8.1f}" if p.facing else ""
        lines.append(f"  {p.piece:<14}{p.marker:>7}{p.x_mm:>9.1f}{p.y_mm:>9.1f}{p.heading_deg:>9.1f}{grid}")
    if reading.unknown:
        lines.append(f"  unknown markers (not in the roster): {', '.join(map(str, reading.unknown))}")
    if reading.conflicts:
        lines.append(f"  markers seen twice (left out): {', '.join(map(str, reading.conflicts))}")
    return "\n".join(lines)


def run(args) -> int:
    camera = load_camera(args.camera)
    layout = load_layout(args.layout)
    roster = load_roster(args.roster, roster_keys())
    check_against_layout(roster, layout, args.roster)
    paths = expand_paths(args.images)
    # Read every photo before printing, so a bad one fails the run cleanly instead of cutting the JSON short.
    readings = [(p, *locate_image(p, camera, layout, roster, args.refine_lens)) for p in paths]
    if args.json:
        print(jsonout.dumps([reading_to_json(p, r, u) for p, r, u in readings]))
    else:
        print("\n\n".join(format_reading(p, r) for p, r, _ in readings))
    return 0
