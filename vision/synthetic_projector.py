"""A simulated projector over the synthetic table (issue 30): where it hangs, what it truly maps, and a raised surface
for it to light, so the projector's calibration and overlay are tested end to end with no projector."""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from calibration.projector import ProjectorModel, RaisedSurface
from vision.synthetic import ProjectedLight, TerrainPiece, VirtualCamera

PROJECTOR_SIZE = (1280, 800)
"""The simulated projector's image (a WXGA projector)."""
HILL_MM = 40.0
"""The simulated raised surface's height: a hill, or a battle board lying on blocks on the map."""


def virtual_projector(layout: TableLayout, resolution: tuple[int, int] = PROJECTOR_SIZE, height_mm: float = 1500.0,
                      tilt_deg: float = 8.0, yaw_deg: float = 20.0) -> VirtualCamera:
    """A projector `height_mm` over the table, tipped `tilt_deg` and turned `yaw_deg` (not square to the table, as a
    real one hangs), its image just covering the table plus a 40 mm margin; its optical centre a little off the
    image centre, as a projector's lens shift puts it."""
    return VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, resolution, height_mm, tilt_deg,
                                          (0.0, 0.0, 0.0, 0.0, 0.0), 40.0, yaw_deg, (25.0, -40.0))


def true_projector(projector: VirtualCamera, camera_pose: CameraPose) -> ProjectorModel:
    """The simulated projector's exact map, as a ProjectorModel (the truth a fitted map is measured against)."""
    return ProjectorModel(projector.intrinsics, projector.pose, camera_pose)


def hill(layout: TableLayout, height_mm: float = HILL_MM) -> tuple[TerrainPiece, RaisedSurface]:
    """A raised flat surface over a sixth of the table (west of the centre): as terrain to render and as the raised
    surface the calibration meets the camera's rays with."""
    w, d = layout.width_mm, layout.depth_mm
    poly = np.array([[0.18 * w, 0.3 * d], [0.45 * w, 0.3 * d], [0.45 * w, 0.72 * d], [0.18 * w, 0.72 * d]])
    return TerrainPiece("hill", poly, height_mm), RaisedSurface(poly, height_mm)


def light(projector: VirtualCamera, image: np.ndarray, brightness: float = 1.2, blur_px: float = 0.7) -> ProjectedLight:
    """The projector showing `image`, as the renderer composites it."""
    return ProjectedLight(projector, image, brightness, blur_px)


__all__ = ["HILL_MM", "PROJECTOR_SIZE", "hill", "light", "true_projector", "virtual_projector"]
