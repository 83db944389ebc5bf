"""Rendered rigs: several virtual cameras side by side over one table, each seeing only part of it."""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraPose
from vision.synthetic import VirtualCamera


def shifted(camera: VirtualCamera, dx_mm: float, dy_mm: float = 0.0) -> VirtualCamera:
    """The same camera moved (`dx_mm`, `dy_mm`) over the table: its optical centre moves, its axes do not turn."""
    rot = camera.pose.rotation
    tvec = np.asarray(camera.pose.tvec, float).ravel() - rot @ np.array([dx_mm, dy_mm, 0.0])
    return VirtualCamera(camera.intrinsics, CameraPose(np.asarray(camera.pose.rvec, float).copy(), tvec))


def cameras_along_table(
    width_mm: float, depth_mm: float, names: tuple[str, ...], part_mm: float,
    resolution: tuple[int, int] = (1920, 1080), height_mm: float = 1150.0, margin_mm: float = 20.0,
) -> dict[str, VirtualCamera]:
    """One camera per name, spread evenly along the table's width, `height_mm` above it, looking straight down.

    Each is fitted (VirtualCamera.looking_at_table) to a `part_mm` x `depth_mm` part of the table and sees somewhat
    more across its width (the frame's aspect); the first stands over the west end, the last over the east end.
    """
    base = VirtualCamera.looking_at_table(part_mm, depth_mm, resolution, height_mm, 0.0, margin_mm=margin_mm)
    if len(names) == 1:
        return {names[0]: shifted(base, (width_mm - part_mm) / 2.0)}
    step = (width_mm - part_mm) / (len(names) - 1)
    return {name: shifted(base, i * step) for i, name in enumerate(names)}
