"""One reading of the table from several cameras: each piece once, with the cameras that saw it.

Every camera is registered to the table on its own (its own TableReading, from the anchors it sees), so their
positions are already in the same table mm. Where two or more saw a piece, its position is their mean weighted by
each view's expected accuracy, the inverse square of the camera's mm per pixel at that point: a camera looking at a
piece from near and straight above counts more than one seeing it far off and aslant. Views that disagree by more
than their uncertainty are a conflict (a registration gone wrong, or two pieces wearing one marker): reported, and
the piece left out rather than placed between them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.grid import Grid
from calibration.projection import table_to_pixels
from calibration.rig import Rig
from common.errors import InputError
from common.fields import snap_facing
from vision.pieces import PiecePose, TableReading, camera_for_frame
from vision.roster import Roster
from vision.sources import read_image

# How far apart (mm) two views of one piece may be before they are a conflict: the spread of two good views is well
# under 1 mm (p95 of a single camera on the rendered table is 0.5-0.7 mm); 3 mm is beyond it yet far below a base.
AGREE_MM = 3.0
# A view's marker centre is good to about this many pixels (corner refinement); times mm/px, its uncertainty in mm.
CENTRE_PX = 0.5


@dataclass(frozen=True)
class CameraView:
    """What one camera of the rig says: its name, its lens at the photo's resolution, and its reading (pose None
    when it saw fewer than 2 anchors)."""

    name: str
    camera: CameraIntrinsics
    reading: TableReading


@dataclass(frozen=True)
class FusedPiece:
    """A piece as the rig sees it: one pose (table mm, compass heading) and the names of the cameras that saw it."""

    pose: PiecePose
    views: tuple[str, ...]

    def to_json(self) -> dict:
        return {**self.pose.to_json(), "views": list(self.views)}


@dataclass(frozen=True)
class ViewConflict:
    """A piece whose views disagree: each view's position (table mm) and the largest distance between two of them
    (mm), against the `tolerance_mm` their uncertainties allow."""

    piece: str
    marker: int
    positions: tuple[tuple[str, float, float], ...]
    apart_mm: float
    tolerance_mm: float

    def to_json(self) -> dict:
        return {
            "piece": self.piece,
            "marker": self.marker,
            "views": {name: [round(x, 2), round(y, 2)] for name, x, y in self.positions},
            "apart_mm": round(self.apart_mm, 2),
            "tolerance_mm": round(self.tolerance_mm, 2),
        }


@dataclass(frozen=True)
class RigReading:
    """What the whole rig says about the table.

    `pieces`: each piece once, sorted by id; `disagreements`: pieces left out because their views disagree;
    `conflicts`: marker ids left out (seen twice by one camera, or views that disagree); `unknown`: ids that are
    neither pieces nor anchors, seen by any camera; `unregistered`: cameras that saw fewer than 2 anchors (their
    markers are not used: nothing is guessed about where they look).
    """

    pieces: tuple[FusedPiece, ...]
    disagreements: tuple[ViewConflict, ...]
    conflicts: tuple[int, ...]
    unknown: tuple[int, ...]
    unregistered: tuple[str, ...]


def rig_photos(rig: Rig, paths: Sequence[str]) -> list[tuple[np.ndarray, CameraIntrinsics]]:
    """One photo per camera of `rig`, in its order: each read (BGR) with its camera's lens at the photo's size;
    InputError when the numbers differ."""
    if len(paths) != len(rig.cameras):
        raise InputError(f"--rig: {len(rig.cameras)} camera(s) ({', '.join(rig.names)}) but {len(paths)} photo(s); "
                         "give one photo per camera, in the rig file's order")
    out = []
    for cam, path in zip(rig.cameras, paths, strict=True):
        frame = read_image(path)
        out.append((frame, camera_for_frame(cam.intrinsics, frame, path)))
    return out


def mm_per_px(camera: CameraIntrinsics, pose: CameraPose, x_mm: float, y_mm: float, z_mm: float = 0.0) -> float:
    """The camera's resolution at a table point, mm per pixel: the square root of the area one pixel covers on the
    plane z = z_mm there (lens distortion and the view's slant included)."""
    pts = np.array([[x_mm, y_mm, z_mm], [x_mm + 1.0, y_mm, z_mm], [x_mm, y_mm + 1.0, z_mm]])
    px = table_to_pixels(pts, camera, pose)
    jac = np.column_stack([px[1] - px[0], px[2] - px[0]])  # px per mm along table x and y
    area = abs(float(np.linalg.det(jac)))
    return 1.0 / math.sqrt(area) if area > 0 else math.inf


def _fuse(piece: PiecePose, seen: list[tuple[str, PiecePose, float]], grid: Grid | None) -> PiecePose:
    """The weighted pose of one piece's views (`seen`: name, pose, mm/px); headings averaged as unit vectors."""
    w = np.array([1.0 / s**2 for _, _, s in seen])
    w /= w.sum()
    x = float(sum(wi * p.x_mm for wi, (_, p, _) in zip(w, seen, strict=True)))
    y = float(sum(wi * p.y_mm for wi, (_, p, _) in zip(w, seen, strict=True)))
    h = np.radians([p.heading_deg for _, p, _ in seen])
    heading = float(np.degrees(np.arctan2(w @ np.sin(h), w @ np.cos(h))) % 360.0)
    if grid is None:
        return replace(piece, x_mm=x, y_mm=y, heading_deg=heading)
    facing, residual = snap_facing(heading)
    return replace(piece, x_mm=x, y_mm=y, heading_deg=heading, facing=facing, facing_residual_deg=residual,
                   cell=grid.name_at(x, y), edge_mm=grid.edge_distance_mm(x, y))


def _disagreement(seen: list[tuple[str, PiecePose, float]]) -> ViewConflict | None:
    """A ViewConflict when two of the views lie further apart than AGREE_MM or their joint uncertainty, else None."""
    worst = None  # (excess over the allowed distance, distance, allowed), of the pair furthest beyond it
    for i, (_, a, sa) in enumerate(seen):
        for _, b, sb in seen[i + 1:]:
            apart = math.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm)
            allowed = max(AGREE_MM, 3.0 * CENTRE_PX * math.hypot(sa, sb))
            if worst is None or apart - allowed > worst[0]:
                worst = (apart - allowed, apart, allowed)
    if worst is None or worst[0] <= 0:
        return None
    first = seen[0][1]
    positions = tuple((name, p.x_mm, p.y_mm) for name, p, _ in seen)
    return ViewConflict(first.piece, first.marker, positions, worst[1], worst[2])


def fuse_views(views: Sequence[CameraView], roster: Roster, grid: Grid | None = None) -> RigReading:
    """One reading of the table from every camera's own reading (see the module's docstring).

    Pieces are matched across cameras by their roster id; `grid` (the layout's) recomputes facing, field and edge
    distance at the fused position.
    """
    heights = {p.id: p.marker_height_mm for p in roster.pieces}
    by_piece: dict[str, list[tuple[str, PiecePose, float]]] = {}
    conflicts: set[int] = set()
    unknown: set[int] = set()
    unregistered = []
    for view in views:
        reading = view.reading
        unknown.update(reading.unknown)
        if reading.pose is None:
            unregistered.append(view.name)
            continue
        conflicts.update(reading.conflicts)
        for p in reading.pieces:
            s = mm_per_px(view.camera, reading.pose, p.x_mm, p.y_mm, heights.get(p.piece, 0.0))
            by_piece.setdefault(p.piece, []).append((view.name, p, s))
    pieces, disagreements = [], []
    for piece_id in sorted(by_piece):
        seen = by_piece[piece_id]
        if seen[0][1].marker in conflicts:
            continue  # one camera saw this marker twice: which is the piece is unknown to all
        clash = _disagreement(seen) if len(seen) > 1 else None
        if clash is not None:
            disagreements.append(clash)
            conflicts.add(clash.marker)
            continue
        pose = seen[0][1] if len(seen) == 1 else _fuse(seen[0][1], seen, grid)
        pieces.append(FusedPiece(pose, tuple(name for name, _, _ in seen)))
    return RigReading(tuple(pieces), tuple(disagreements), tuple(sorted(conflicts)), tuple(sorted(unknown)),
                      tuple(unregistered))
