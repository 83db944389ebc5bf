"""Draw what the pipeline read onto a copy of the frame: for headless runs and screenshots.

The dashboard draws its overlays as Qt scene items instead; this is the plain-image equivalent.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics
from calibration.projection import table_to_pixels
from vision.pieces import TableReading
from vision.roster import Roster

_ANCHOR = (255, 160, 0)
_PIECE = (0, 220, 255)
_GRID = (80, 80, 80)


def annotate(
    frame: np.ndarray, reading: TableReading, camera: CameraIntrinsics, roster: Roster, layout=None
) -> np.ndarray:
    """A copy of `frame` with anchors, the grid's field corners, and each piece's base outline, label and facing."""
    out = frame.copy()
    scale = max(1, round(frame.shape[1] / 1920))
    pose = reading.pose
    for m in reading.markers:
        colour = _ANCHOR if layout is not None and m.id in layout.anchor_ids else (120, 120, 255)
        cv2.polylines(out, [np.round(m.corners).astype(np.int32)], True, colour, scale, cv2.LINE_AA)
    if pose is None:
        return out
    if layout is not None and layout.grid is not None:
        g = layout.grid
        xs = g.origin_x_mm + g.field_mm * np.arange(g.cols + 1)
        ys = g.origin_y_mm + g.field_mm * np.arange(g.rows + 1)
        pts = np.array([(x, y, 0.0) for x in xs for y in ys])
        for px in table_to_pixels(pts, camera, pose):
            cv2.drawMarker(out, tuple(np.round(px).astype(int)), _GRID, cv2.MARKER_TILTED_CROSS, 4 * scale, 1)
    pieces = {p.id: p for p in roster.pieces}
    for p in reading.pieces:
        piece = pieces[p.piece]
        w, d = piece.base_mm
        h = np.radians(p.heading_deg)
        fwd = np.array([np.sin(h), np.cos(h)])
        right = np.array([np.cos(h), -np.sin(h)])
        c = np.array([p.x_mm, p.y_mm])
        corners = [c + sx * w / 2 * right + sy * d / 2 * fwd for sx, sy in ((-1, 1), (1, 1), (1, -1), (-1, -1))]
        z = piece.marker_height_mm
        base = table_to_pixels(np.array([[x, y, z] for x, y in corners]), camera, pose)
        cv2.polylines(out, [np.round(base).astype(np.int32)], True, _PIECE, scale, cv2.LINE_AA)
        tip = c + fwd * (d / 2 + 15)
        a, b = table_to_pixels(np.array([[*c, z], [*tip, z]]), camera, pose)
        cv2.arrowedLine(out, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), _PIECE, scale, cv2.LINE_AA)
        label = f"{p.piece} {p.cell or ''}".strip()
        org = tuple(np.round(base.max(axis=0) * [0, 1] + base.min(axis=0) * [1, 0] + [0, 14 * scale]).astype(int))
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, (0, 0, 0), 3 * scale, cv2.LINE_AA)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, (255, 255, 255), scale, cv2.LINE_AA)
    return out
