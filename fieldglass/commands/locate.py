"""fieldglass locate: where every piece stands in one or more photos of the table."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np

from calibration.camera import load_camera
from calibration.layout import load_layout
from calibration.lens import LensChoice
from calibration.registration import TableRegistration
from calibration.rig import Rig, load_rig
from calibration.uncertainty import lens_uncertainty_mm
from common import jsonout
from common.errors import InputError
from common.fields import field_ambiguous
from fieldglass.setup import read_roster
from vision.pieces import TableReading, camera_for_frame, read_table
from vision.rig import CameraView, RigReading, fuse_views, rig_photos
from vision.roster import check_against_layout
from vision.sources import expand_paths, read_image
from vision.table_lens import choose_from_markers, detect_table_markers

EPILOG = """\
examples:
  fieldglass locate table.jpg --camera cam.json --layout table.toml --roster roster.toml
  fieldglass locate 'shots/*.jpg' --camera cam.json --layout table.toml --roster roster.toml --json
  fieldglass locate table.jpg --camera cam.json --layout table.toml --roster roster.toml --no-refine-lens
  fieldglass locate west.jpg east.jpg --rig rig.toml --layout table.toml --roster roster.toml --json

Each photo must show at least 2 of the layout's anchor markers. Positions are base centres in table millimetres
(x along the width, y along the depth), headings compass bearings (0 = +y, 90 = +x). With a [grid] in the layout,
each piece also gets its facing (N NE E SE S SW W NW), its field (A1 ...) and its distance to the field's nearest
edge: a piece within a few mm of an edge stands ambiguously.

The lens is refined from each photo itself (its anchors and the pieces' markers, as `fieldglass calibrate table`
does) and used where that is measurably better: each anchor, predicted from the others, must be met at least 20 %
closer than with the camera file's lens (and most of them closer), with 4 anchors or more in view spanning half the
table each way and no value moved further than a calibration errs. Every photo says which lens it was read with
("lens: cam.json refined from 8 anchors ..." or "lens: cam.json as calibrated (refining it did not help: ...)").
--no-refine-lens reads with the camera file's lens as it is; --refine-lens uses the refined lens without the check.

With --rig, the photos are one per camera of the rig, in the rig file's order, taken at the same moment: each
camera is registered from the anchors it sees, and the result is one reading of the table in which every piece
appears once with the cameras that saw it ("views"); where two saw it, its position is weighted by each camera's
resolution there. Views more than 3 mm apart are reported as a disagreement and the piece left out.
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
    p.add_argument("--camera", metavar="CAM.json", help="camera file from 'fieldglass calibrate camera'")
    p.add_argument("--rig", metavar="RIG.toml", help="several cameras over the table (one photo each, in order)")
    p.add_argument("--layout", required=True, metavar="LAYOUT.toml", help="table layout: size, anchors, grid")
    p.add_argument("--roster", required=True, metavar="ROSTER.toml", help="which marker is which piece")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    lens = p.add_mutually_exclusive_group()
    lens.add_argument("--no-refine-lens", dest="lens", action="store_const", const="given", default="auto",
                      help="read with the camera file's lens as it is (by default the lens refined from each photo "
                           "is used where it is measurably better)")
    lens.add_argument("--refine-lens", dest="lens", action="store_const", const="refined",
                      help="use the lens refined from each photo (anchors and piece markers; focal length and centre "
                           "too with raised anchors) even where the check finds no gain")
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
        out["ambiguous"] = field_ambiguous(p.edge_mm, sigma, AMBIGUOUS_SIGMAS)
    return out


def reading_to_json(image: str, reading: TableReading, uncertainty: Mapping[str, float] | None = None,
                    lens: dict | None = None) -> dict:
    """The reading as JSON; each piece's `uncertainty_mm` is one standard deviation of its place from the lens's
    (null when the camera file has no std_devs), and on a grid whether its field is `ambiguous` (`piece_json`);
    `lens` which lens it was read with (`LensChoice.to_json`)."""
    unsure = uncertainty or {}
    return {
        "image": image,
        "pose": {
            "anchors": list(reading.pose.anchors),
            "reprojection_px": round(reading.pose.reprojection_px, 3),
        },
        "lens": lens,
        "pieces": [piece_json(p, unsure.get(p.piece)) for p in reading.pieces],
        "unknown": list(reading.unknown),
        "conflicts": list(reading.conflicts),
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else round(float(value), 2)


LENS_MODES = ("auto", "refined", "given")
"""`locate_image`'s lens: refined from the photo where measurably better (the default), refined without the check
(--refine-lens), the camera file's as it is (--no-refine-lens)."""


def locate_image(
    path: str, camera, layout, roster, lens_mode: str = "auto"
) -> tuple[TableReading, dict[str, float] | None, LensChoice]:
    """The photo's reading, each piece's uncertainty in mm from the lens's standard deviations (None when the
    camera file gives none) and the lens it was read with (`LENS_MODES`; `calibration.lens.choose_lens`)."""
    frame = read_image(path)
    given = camera_for_frame(camera, frame, path)
    markers = detect_table_markers(frame, layout, roster)
    if lens_mode == "given":
        choice = LensChoice(given, False, "--no-refine-lens", tried=False)
    else:
        choice = choose_from_markers(markers, layout, roster, given, check=lens_mode == "auto")
    registration = TableRegistration(layout, choice.camera, refine_lens=False)
    reading = read_table(frame, registration, roster, markers)
    if reading.pose is None:
        seen = sorted(m.id for m in reading.markers if m.id in layout.anchor_ids)
        ids = ", ".join(str(i) for i in sorted(layout.anchor_ids))
        raise InputError(
            f"{path}: {len(seen)} anchor marker(s) usable, at least 2 needed (the layout's anchors are {ids})"
        )
    sigma = piece_uncertainty(reading, registration.lens, layout, roster)
    if sigma:  # the reading carries each piece's doubt on to the rules (PiecePose.uncertainty_mm -> Piece's)
        reading = replace(reading, pieces=tuple(replace(p, uncertainty_mm=sigma.get(p.piece)) for p in reading.pieces))
    return reading, sigma, choice


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


def format_reading(image: str, reading: TableReading, lens_line: str = "") -> str:
    pose = reading.pose
    lines = [
        f"{image}: {len(reading.pieces)} pieces; table pose from anchors "
        f"{', '.join(map(str, pose.anchors))} (reprojection {pose.reprojection_px:.2f} px)"
    ]
    if lens_line:
        lines.append(f"  {lens_line}")
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


def rig_views(rig: Rig, paths: list[str], layout, roster) -> list[CameraView]:
    """Each camera's own reading of its photo; a camera with fewer than 2 anchors in view keeps a reading without a
    pose (reported by the fused reading, never guessed)."""
    return [CameraView(cam.name, lens, read_table(frame, TableRegistration(layout, lens), roster))
            for cam, (frame, lens) in zip(rig.cameras, rig_photos(rig, paths), strict=True)]


def rig_to_json(paths: list[str], views: list[CameraView], fused: RigReading) -> dict:
    cameras = []
    for path, view in zip(paths, views, strict=True):
        pose = view.reading.pose
        cameras.append({
            "name": view.name,
            "image": path,
            "registered": pose is not None,
            "anchors": list(pose.anchors) if pose else [],
            "reprojection_px": round(pose.reprojection_px, 3) if pose else None,
        })
    return {
        "images": list(paths),
        "cameras": cameras,
        "pieces": [p.to_json() for p in fused.pieces],
        "unknown": list(fused.unknown),
        "conflicts": list(fused.conflicts),
        "disagreements": [d.to_json() for d in fused.disagreements],
    }


def format_rig(paths: list[str], views: list[CameraView], fused: RigReading) -> str:
    lines = [f"{len(fused.pieces)} pieces from {len(views)} cameras"]
    for path, view in zip(paths, views, strict=True):
        pose = view.reading.pose
        seen = (f"anchors {', '.join(map(str, pose.anchors))} (reprojection {pose.reprojection_px:.2f} px)"
                if pose else "fewer than 2 anchors in view: not used")
        lines.append(f"  {view.name} ({path}): {seen}")
    if fused.pieces:
        lines.append(f"  {'piece':<14}{'marker':>7}{'x mm':>9}{'y mm':>9}{'heading':>9}  views")
    for f in fused.pieces:
        p = f.pose
        lines.append(f"  {p.piece:<14}{p.marker:>7}{p.x_mm:>9.1f}{p.y_mm:>9.1f}{p.heading_deg:>9.1f}  "
                     f"{', '.join(f.views)}")
    for d in fused.disagreements:
        where = "; ".join(f"{name} ({x:.1f}, {y:.1f})" for name, x, y in d.positions)
        lines.append(f"  {d.piece}: views {d.apart_mm:.1f} mm apart (left out): {where}")
    if fused.unknown:
        lines.append(f"  unknown markers (not in the roster): {', '.join(map(str, fused.unknown))}")
    return "\n".join(lines)


def run_rig(args, layout, roster, paths: list[str]) -> int:
    rig = load_rig(args.rig)
    views = rig_views(rig, paths, layout, roster)
    fused = fuse_views(views, roster, layout.grid)
    if len(fused.unregistered) == len(views):
        ids = ", ".join(str(i) for i in sorted(layout.anchor_ids))
        raise InputError(f"{args.rig}: no camera sees at least 2 anchor markers (the layout's anchors are {ids})")
    if args.json:
        print(jsonout.dumps(rig_to_json(paths, views, fused)))
    else:
        print(format_rig(paths, views, fused))
    return 0


def run(args) -> int:
    if args.camera is not None and args.rig is not None:
        raise InputError("locate: --camera and --rig exclude each other (--camera for one camera, --rig for several)")
    if args.camera is None and args.rig is None:
        raise InputError("locate: needs --camera CAM.json (one camera) or --rig RIG.toml (several cameras)")
    layout = load_layout(args.layout)
    roster = read_roster(args.roster)
    check_against_layout(roster, layout, args.roster)
    paths = expand_paths(args.images)
    if args.rig is not None:
        return run_rig(args, layout, roster, paths)
    camera = load_camera(args.camera)
    # Read every photo before printing, so a bad one fails the run cleanly instead of cutting the JSON short.
    readings = [(p, *locate_image(p, camera, layout, roster, args.lens)) for p in paths]
    name = Path(args.camera).name
    if args.json:
        print(jsonout.dumps([reading_to_json(p, r, u, c.to_json(name)) for p, r, u, c in readings]))
    else:
        print("\n\n".join(format_reading(p, r, c.describe(name)) for p, r, _, c in readings))
    return 0
