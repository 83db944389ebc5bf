"""Calibrating the projector (issue 30): the patterns shown, the camera's frames read, the map fitted - against the
simulated projector over the synthetic table, or a real one through a window on its display."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.layout import TableLayout
from calibration.pose import estimate_pose
from calibration.projector import (
    Pattern,
    ProjectorModel,
    RaisedSurface,
    calibrate_from_views,
    calibration_patterns,
    detect_pattern,
    height_function,
    landing_error_mm,
    table_grid,
)
from common.errors import InputError
from vision.markers import detect_markers
from vision.synthetic import RenderOptions, SyntheticScene, VirtualCamera, demo_scene, render_table
from vision.synthetic_projector import PROJECTOR_SIZE, hill, light, true_projector, virtual_projector

SIM_OPTIONS = {"blur_sigma_px": 0.7, "noise_sigma": 2.0, "uneven_light": 0.15}
"""The simulated camera's imperfections while calibrating."""


@dataclass(frozen=True)
class SimulatedFit:
    """A calibration against the simulated projector and how far its map is from the truth (table mm): over the
    whole table on the cloth, and over the raised surface at its height."""

    model: ProjectorModel
    truth: ProjectorModel
    rms_mm: float
    max_mm: float
    raised_rms_mm: float
    raised_max_mm: float
    seen: tuple[int, ...]  # markers read in each pattern


@dataclass(frozen=True)
class SimulatedTable:
    """The synthetic table the projector is calibrated over: scene (with a raised surface), camera, projector."""

    scene: SyntheticScene
    camera: VirtualCamera
    projector: VirtualCamera
    raised: RaisedSurface


def simulated_table(resolution: tuple[int, int] = (1920, 1080), tilt_deg: float = 0.0,
                    scene: SyntheticScene | None = None,
                    projector_size: tuple[int, int] = PROJECTOR_SIZE) -> SimulatedTable:
    """The demo table (`fieldglass gui --source synthetic`'s, seen by its camera) with a raised hill added, under
    the simulated projector: a projector file calibrated over it serves `gui --source synthetic --projector`."""
    scene = scene or demo_scene()
    layout = scene.layout
    terrain, raised = hill(layout)
    scene = replace(scene, terrain=(*scene.terrain, terrain))
    camera = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, resolution, tilt_deg=tilt_deg)
    return SimulatedTable(scene, camera, virtual_projector(layout, projector_size), raised)


def register(frame: np.ndarray, layout: TableLayout, camera: CameraIntrinsics, what: str) -> CameraPose:
    """The camera's pose on the table from the anchors in `frame`; InputError when too few are seen."""
    found = detect_markers(frame, layout.dictionary)
    anchors = {m.id: m.corners for m in found if layout.anchor(m.id) is not None}
    pose = estimate_pose(anchors, layout, camera)
    if pose is None:
        raise InputError(f"{what}: only {len(anchors)} of the layout's anchors seen; need 2 to register the table")
    return pose


def calibrate_simulated(table: SimulatedTable | None = None, seed: int = 0) -> SimulatedFit:
    """Calibrate against the simulated projector end to end: the table registered from its anchors in a frame with
    the projector dark, each pattern rendered as the camera sees it, read, and the map fitted; then measured
    against the simulated projector's own map."""
    table = table or simulated_table()
    cam = table.camera
    size = table.projector.image_size
    plain, _ = render_table(table.scene, cam, RenderOptions(**SIM_OPTIONS, seed=seed))
    pose = register(plain, table.scene.layout, cam.intrinsics, "synthetic table")
    views = []
    for i, pattern in enumerate(calibration_patterns(size)):
        frame, _ = render_table(table.scene, cam, RenderOptions(**SIM_OPTIONS, seed=seed + i + 1,
                                                                projection=light(table.projector, pattern.image)))
        views.append((detect_pattern(frame), pattern, cam.intrinsics, pose))
    model = calibrate_from_views(views, size, height_function([table.raised]))
    truth = true_projector(table.projector, cam.pose)
    return measured(model, truth, table, tuple(len(v[0]) for v in views))


def measured(model: ProjectorModel, truth: ProjectorModel, table: SimulatedTable, seen) -> SimulatedFit:
    """How far `model` puts its light from `truth`'s over the cloth (every 25 mm) and over the raised surface."""
    layout = table.scene.layout
    grid = table_grid(layout.width_mm, layout.depth_mm, 25.0)
    on_raised = table.raised.holds(grid)
    flat = landing_error_mm(model, truth, grid[~on_raised], 0.0)
    up = landing_error_mm(model, truth, grid[on_raised], table.raised.height_mm)
    return SimulatedFit(model, truth, float(np.sqrt(np.mean(flat**2))), float(flat.max()),
                        float(np.sqrt(np.mean(up**2))), float(up.max()), seen)


def calibrate_live(
    show: Callable[[np.ndarray], None], frames: Iterable[np.ndarray], camera: CameraIntrinsics, layout: TableLayout,
    image_size: tuple[int, int], raised: Sequence[RaisedSurface] = (), screen: int | None = None,
    settle_frames: int = 3, patterns: Sequence[Pattern] | None = None,
) -> ProjectorModel:
    """Calibrate a real projector: `show(image)` puts an image full screen on it, `frames` are the camera's. The
    table is registered with the projector dark, then each pattern shown; the first `settle_frames` frames after a
    change are skipped (the projector and the camera's exposure catch up)."""
    it = iter(frames)

    def settled() -> np.ndarray:
        frame = None
        for _ in range(settle_frames + 1):
            frame = next(it, None)
            if frame is None:
                raise InputError("camera: the source ended before the projector was calibrated")
        return frame

    w, h = int(image_size[0]), int(image_size[1])
    show(np.zeros((h, w), np.uint8))
    pose = register(settled(), layout, camera, "camera")
    views = []
    for pattern in patterns or calibration_patterns((w, h)):
        show(pattern.image)
        views.append((detect_pattern(settled()), pattern, camera, pose))
    show(np.zeros((h, w), np.uint8))
    try:
        return calibrate_from_views(views, (w, h), height_function(raised), screen)
    except ValueError as exc:
        raise InputError(f"projector: {exc} (is the projector on, pointed at the table, and screen {screen} it?)"
                         ) from None
