"""Piece poses: from a marker's corners in pixels to its base's place on the table.

Each marker's corners are cast onto the plane at the roster's `marker_height_mm`, so a marker on a 50 mm gun base is
placed as exactly as one on a 3 mm infantry base. The marker's centre is the mean of its four corners on that plane,
its heading is the direction of its top edge, and the base centre follows from `marker_offset_mm`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.grid import Grid
from calibration.layout import TableLayout
from calibration.projection import pixels_to_table
from calibration.registration import TableRegistration
from common.errors import InputError
from common.fields import snap_facing
from vision.markers import MarkerDetection, detect_markers
from vision.roster import Piece, Roster


@dataclass(frozen=True)
class PiecePose:
    """Where one piece stands: base centre in table mm, heading as a compass bearing in degrees.

    `facing`, `facing_residual_deg`, `cell` and `edge_mm` are set only when the layout has a grid; `edge_mm` is the
    base centre's distance to the nearest field edge (small values mean the field is ambiguous).
    """

    piece: str
    marker: int
    x_mm: float
    y_mm: float
    heading_deg: float
    facing: str | None = None
    facing_residual_deg: float | None = None
    cell: str | None = None
    edge_mm: float | None = None
    uncertainty_mm: float | None = field(default=None, compare=False)
    """One standard deviation (mm) of the base centre from the lens's (calibration/uncertainty.py), None when not
    known; carried to the rules as the neutral piece's `uncertainty_mm` (rules/position.py)."""

    def to_json(self) -> dict:
        out = {
            "piece": self.piece,
            "marker": self.marker,
            "x_mm": round(self.x_mm, 2),
            "y_mm": round(self.y_mm, 2),
            "heading_deg": round(self.heading_deg, 2),
        }
        if self.facing is not None:
            out.update(facing=self.facing, cell=self.cell, edge_mm=round(self.edge_mm, 2))
        return out


@dataclass(frozen=True)
class TableReading:
    """What one frame says about the table.

    A rig's fused reading (vision/rig_stream.py) has no markers of one camera; it says instead which of its pieces
    some camera saw `lifted` off the table (in a hand), and which pieces it `held`: not in the reading, yet known to
    stand where they stood (a hand one camera sees over a piece another still sees there; a piece only a camera that
    is gone could see), so they are occluded and their time unseen does not count."""

    pose: CameraPose | None
    pieces: tuple[PiecePose, ...]
    unknown: tuple[int, ...]
    conflicts: tuple[int, ...]
    markers: tuple[MarkerDetection, ...] = ()
    lifted: tuple[str, ...] = ()
    held: tuple[str, ...] = ()


def heading_from_corners(corners_mm: np.ndarray) -> float:
    """Compass bearing (degrees, 0 = +y, 90 = +x) of a marker's top edge from its 4 table corners in ArUco order."""
    tl, tr, br, bl = np.asarray(corners_mm, float)[:, :2]
    forward = (tl + tr) - (bl + br)
    right = (tr + br) - (tl + bl)
    # Average the two edge directions: forward, and right turned 90 degrees to the left.
    v = forward + np.array([-right[1], right[0]])
    return float(np.degrees(np.arctan2(v[0], v[1])) % 360.0)


def piece_pose(
    corners_px: np.ndarray, piece: Piece, camera: CameraIntrinsics, pose: CameraPose, grid: Grid | None = None
) -> PiecePose:
    """The pose of `piece` from its marker's corners (4, 2 px, ArUco order)."""
    corners_mm = pixels_to_table(corners_px, camera, pose, piece.marker_height_mm)
    heading = heading_from_corners(corners_mm)
    centre = corners_mm.mean(axis=0)
    h = np.radians(heading)
    forward = np.array([np.sin(h), np.cos(h)])
    right = np.array([np.cos(h), -np.sin(h)])
    off_right, off_forward = piece.marker_offset_mm
    x, y = centre - off_right * right - off_forward * forward
    if grid is None:
        return PiecePose(piece.id, piece.marker, float(x), float(y), heading)
    facing, residual = snap_facing(heading)
    cell, edge = grid.name_at(x, y), grid.edge_distance_mm(x, y)
    return PiecePose(piece.id, piece.marker, float(x), float(y), heading, facing, residual, cell, edge)


def locate_pieces(
    markers: Sequence[MarkerDetection],
    roster: Roster,
    layout: TableLayout,
    camera: CameraIntrinsics,
    pose: CameraPose,
) -> tuple[list[PiecePose], list[int], list[int]]:
    """Poses of the roster's pieces among `markers`, the ids that are neither pieces nor anchors (unknown), and the
    ids seen more than once (conflicts: left out of the poses, since we cannot tell which one is the piece)."""
    counts = Counter(m.id for m in markers)
    conflicts = sorted(i for i, n in counts.items() if n > 1)
    by_marker = roster.by_marker()
    anchors = layout.anchor_ids
    found, unknown = [], set()
    for m in markers:
        if m.id in anchors:
            continue
        piece = by_marker.get(m.id)
        if piece is None:
            unknown.add(m.id)
        elif m.id not in conflicts:
            found.append((m, piece))
    pieces = piece_poses([m.corners for m, _ in found], [p for _, p in found], camera, pose, layout.grid)
    pieces.sort(key=lambda p: p.piece)
    return pieces, sorted(unknown), conflicts


def piece_poses(
    corners_px: Sequence[np.ndarray], pieces: Sequence[Piece], camera: CameraIntrinsics, pose: CameraPose,
    grid: Grid | None = None,
) -> list[PiecePose]:
    """`piece_pose` for many markers at once: one undistortion for all their corners (the per-piece calls cost
    a third of a frame's locating with 100 pieces)."""
    if not pieces:
        return []
    px = np.asarray(corners_px, dtype=np.float64).reshape(-1, 2)
    heights = np.repeat([p.marker_height_mm for p in pieces], 4)
    corners_mm = pixels_to_table(px, camera, pose, heights).reshape(-1, 4, 2)
    tl, tr, br, bl = (corners_mm[:, k] for k in range(4))
    forward = (tl + tr) - (bl + br)
    right = (tr + br) - (tl + bl)
    v = forward + np.stack([-right[:, 1], right[:, 0]], axis=1)  # as heading_from_corners
    heading = np.degrees(np.arctan2(v[:, 0], v[:, 1])) % 360.0
    centre = corners_mm.mean(axis=1)
    h = np.radians(heading)
    fwd = np.stack([np.sin(h), np.cos(h)], axis=1)
    rgt = np.stack([np.cos(h), -np.sin(h)], axis=1)
    offsets = np.array([p.marker_offset_mm for p in pieces], dtype=np.float64)
    xy = centre - offsets[:, :1] * rgt - offsets[:, 1:] * fwd
    out = []
    for piece, (x, y), hd in zip(pieces, xy, heading, strict=True):
        if grid is None:
            out.append(PiecePose(piece.id, piece.marker, float(x), float(y), float(hd)))
            continue
        facing, residual = snap_facing(float(hd))
        cell, edge = grid.name_at(x, y), grid.edge_distance_mm(x, y)
        out.append(PiecePose(piece.id, piece.marker, float(x), float(y), float(hd), facing, residual, cell, edge))
    return out


def camera_for_frame(camera: CameraIntrinsics, frame: np.ndarray, source: str = "image") -> CameraIntrinsics:
    """The camera intrinsics at this frame's resolution: rescaled when only the resolution differs."""
    h, w = frame.shape[:2]
    cw, ch = camera.image_size
    if (w, h) == (cw, ch):
        return camera
    if abs(w / h - cw / ch) > 0.01:
        raise InputError(f"{source}: image is {w}x{h} but the camera was calibrated at {cw}x{ch} (another shape)")
    return camera.scaled_to((w, h))


def read_table(
    frame: np.ndarray,
    registration: TableRegistration,
    roster: Roster,
    markers: Sequence[MarkerDetection] | None = None,
) -> TableReading:
    """One frame through the pipeline: markers -> table pose (kept when anchors are hidden) -> piece poses."""
    layout = registration.layout
    if markers is None:
        markers = detect_markers(frame, layout.dictionary)
        if roster.dictionary != layout.dictionary:
            markers = markers + detect_markers(frame, roster.dictionary)
    anchors = {m.id: m.corners for m in markers if m.id in layout.anchor_ids}
    pose = registration.update(anchors)
    if pose is None:
        unknown = sorted({m.id for m in markers} - layout.anchor_ids - set(roster.by_marker()))
        return TableReading(None, (), tuple(unknown), (), tuple(markers))
    pieces, unknown, conflicts = locate_pieces(markers, roster, layout, registration.lens, pose)
    return TableReading(pose, tuple(pieces), tuple(unknown), tuple(conflicts), tuple(markers))
