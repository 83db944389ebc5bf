"""Where a projector must stay dark (issue 30): every base the camera reads and every anchor of the layout, as
(footprint (4, 2) table mm, top height mm) - `calibration.projector.keep_out_px` turns each into projector pixels.
The projector's window (gui/projector.py) and `fieldglass bench projector` draw with the same list."""

from __future__ import annotations

import numpy as np

from calibration.layout import TableLayout
from vision.pieces import TableReading
from vision.roster import Roster


def footprint(x_mm: float, y_mm: float, heading_deg: float, base_mm) -> np.ndarray:
    """(4, 2) corners of a base (width, depth) centred at (x, y), its front toward the compass bearing."""
    h = np.radians(heading_deg)
    fwd = np.array([np.sin(h), np.cos(h)])
    right = np.array([fwd[1], -fwd[0]])
    c = np.array([x_mm, y_mm], float)
    w, d = float(base_mm[0]) / 2, float(base_mm[1]) / 2
    f, r = fwd * d, right * w
    return np.array([c + f - r, c + f + r, c - f + r, c - f - r])


def keep_outs(reading: TableReading | None, roster: Roster, layout: TableLayout) -> list[tuple[np.ndarray, float]]:
    out: list[tuple[np.ndarray, float]] = []
    if reading is not None:
        for pose in reading.pieces:
            piece = roster.piece(pose.piece)
            if piece is not None:
                out.append((footprint(pose.x_mm, pose.y_mm, pose.heading_deg, piece.base_mm),
                            float(piece.marker_height_mm)))
    for a in layout.anchors:
        out.append((np.asarray(a.corners_mm(), float)[:, :2], float(a.z_mm)))
    return out
