"""How far a located point may be off because the lens is not known exactly (issue 17).

The camera file's standard deviations (`CameraIntrinsics.std_devs`, from the board calibration) are carried to table
millimetres: each lens value is moved by one standard deviation, the table pose refitted to the same anchors, and the
point's pixel mapped to the table again; the shifts are added in quadrature, the values taken as independent (which
overstates it a little: fx and fy, for one, move together). Refitting the pose matters: the anchors absorb most of a
lens error near themselves, so a point next to an anchor is surer than one in the middle of the table.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from calibration.camera import CameraIntrinsics
from calibration.layout import TableLayout
from calibration.pose import estimate_pose
from calibration.projection import pixels_to_table, table_to_pixels


def _moved(camera: CameraIntrinsics, index: int, delta: float) -> CameraIntrinsics:
    """The camera with value `index` of (fx, fy, cx, cy, k1, k2, p1, p2, k3) moved by `delta`."""
    k, d = camera.camera_matrix.copy(), camera.dist_coeffs.copy()
    if index < 4:
        k[(0, 1, 0, 1)[index], (0, 1, 2, 2)[index]] += delta
    elif index - 4 < len(d):
        d[index - 4] += delta
    return CameraIntrinsics(camera.image_size, k, d, camera.rms_px)


def lens_refits(anchor_corners_px: Mapping[int, np.ndarray], layout: TableLayout, camera: CameraIntrinsics
                ) -> tuple | None:
    """(pose, [(moved camera, its refitted pose)]): the table pose from the anchors, and for each lens value with a
    standard deviation the camera with that value moved by one and the pose refitted to the same anchors. What
    every point's uncertainty is worked out from, at any height; None when the camera file gives no standard
    deviations or the anchors give no pose."""
    if camera.std_devs is None:
        return None
    pose = estimate_pose(anchor_corners_px, layout, camera)
    if pose is None:
        return None
    refits = []
    for index, sigma in enumerate(np.asarray(camera.std_devs, float)):
        if sigma <= 0:
            continue
        moved = _moved(camera, index, float(sigma))
        refit = estimate_pose({i: anchor_corners_px[i] for i in pose.anchors}, layout, moved)
        if refit is not None:
            refits.append((moved, refit))
    return pose, refits


def lens_uncertainty_mm(
    anchor_corners_px: Mapping[int, np.ndarray], layout: TableLayout, camera: CameraIntrinsics,
    pixels: np.ndarray, heights_mm: np.ndarray | float, refits: tuple | None = None,
) -> np.ndarray | None:
    """(N,) mm: one standard deviation of where `pixels` (N, 2) map on the table at `heights_mm`, from the lens's
    standard deviations. None when the camera file gives none or the anchors give no pose. `refits`: what
    `lens_refits` gives for these anchors and camera, when the caller has it already."""
    refits = lens_refits(anchor_corners_px, layout, camera) if refits is None else refits
    if refits is None:
        return None
    pose, moved_poses = refits
    pixels = np.asarray(pixels, float).reshape(-1, 2)
    base = pixels_to_table(pixels, camera, pose, heights_mm)
    total = np.zeros(len(pixels))
    for moved, refit in moved_poses:
        total += np.sum((pixels_to_table(pixels, moved, refit, heights_mm) - base) ** 2, axis=1)
    return np.sqrt(total)


def error_map(anchor_corners_px: Mapping[int, np.ndarray], layout: TableLayout, camera: CameraIntrinsics,
              cols: int = 32, rows: int = 16, height_mm: float = 0.0, refits: tuple | None = None
              ) -> np.ndarray | None:
    """(rows, cols) mm: the expected error (one standard deviation, `lens_uncertainty_mm`) of a point on the table
    at `height_mm`, sampled at the centres of a cols x rows grid over the table; row 0 is the table's near edge
    (y small). None when the camera file gives no standard deviations or the anchors give no pose. `refits` as
    `lens_uncertainty_mm` takes it (a map at each of several heights refits the lens once)."""
    refits = lens_refits(anchor_corners_px, layout, camera) if refits is None else refits
    if refits is None:
        return None
    xs = (np.arange(cols) + 0.5) * layout.width_mm / cols
    ys = (np.arange(rows) + 0.5) * layout.depth_mm / rows
    gx, gy = np.meshgrid(xs, ys)
    table = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, float(height_mm))])
    pixels = table_to_pixels(table, camera, refits[0])
    sigma = lens_uncertainty_mm(anchor_corners_px, layout, camera, pixels, height_mm, refits)
    return None if sigma is None else sigma.reshape(rows, cols)


class UncertaintyMaps:
    """Each piece's expected place error (one standard deviation, mm) for a camera stream, cheaply: `error_map`s
    over the table at each marker height, looked up bilinearly, and made again only when the camera has moved (its
    centre by more than `move_mm` or its rotation by more than `turn_rad`) or the lens changed. The error varies
    slowly over the table (a few tenths of a mm over a metre), so a 32 x 16 map sampled between its nodes is as good
    as `lens_uncertainty_mm` at every piece, at a fraction of a millisecond a frame once made."""

    def __init__(self, layout: TableLayout, cols: int = 32, rows: int = 16, move_mm: float = 10.0,
                 turn_rad: float = 0.005):
        self.layout, self.cols, self.rows = layout, cols, rows
        self.move_mm, self.turn_rad = move_mm, turn_rad
        self._camera: CameraIntrinsics | None = None
        self._pose = None
        self._maps: dict[float, np.ndarray | None] = {}
        self._refits: tuple | None = None  # lens_refits for the camera and pose the maps are made for

    def _fresh(self, camera: CameraIntrinsics, pose) -> bool:
        if self._camera is not camera or self._pose is None:
            return False
        moved = np.linalg.norm(np.asarray(pose.camera_centre_mm) - np.asarray(self._pose.camera_centre_mm))
        turned = np.linalg.norm(np.asarray(pose.rvec, float).ravel() - np.asarray(self._pose.rvec, float).ravel())
        return bool(moved <= self.move_mm and turned <= self.turn_rad)

    def sigma_mm(self, anchor_corners_px: Mapping[int, np.ndarray], camera: CameraIntrinsics, pose,
                 xy_mm: np.ndarray, heights_mm: np.ndarray) -> np.ndarray | None:
        """(N,) mm at the table points `xy_mm` (N, 2) at `heights_mm` (N,), for the camera at `pose` registered
        from `anchor_corners_px`; None when the camera file gives no standard deviations or there is no pose."""
        if camera.std_devs is None or pose is None:
            return None
        if not self._fresh(camera, pose):
            self._camera, self._pose, self._maps = camera, pose, {}
            self._refits = lens_refits(anchor_corners_px, self.layout, camera)  # once for every height
        if self._refits is None:
            return None
        xy = np.asarray(xy_mm, float).reshape(-1, 2)
        heights = np.asarray(heights_mm, float).reshape(-1)
        out = np.full(len(xy), np.nan)
        for h in np.unique(heights):
            key = float(h)
            if key not in self._maps:
                self._maps[key] = error_map(anchor_corners_px, self.layout, camera, self.cols, self.rows, key,
                                            self._refits)
            grid = self._maps[key]
            sel = heights == h
            out[sel] = _bilinear(grid, xy[sel], self.layout)
        return out


def _bilinear(grid: np.ndarray, xy_mm: np.ndarray, layout: TableLayout) -> np.ndarray:
    """`grid` (rows, cols; node centres as `error_map` samples them) at the table points `xy_mm`, clamped to the
    outermost nodes."""
    rows, cols = grid.shape
    gx = np.clip(xy_mm[:, 0] / layout.width_mm * cols - 0.5, 0, cols - 1)
    gy = np.clip(xy_mm[:, 1] / layout.depth_mm * rows - 0.5, 0, rows - 1)
    x0 = np.minimum(gx.astype(int), max(cols - 2, 0))
    y0 = np.minimum(gy.astype(int), max(rows - 2, 0))
    x1, y1 = np.minimum(x0 + 1, cols - 1), np.minimum(y0 + 1, rows - 1)
    fx, fy = gx - x0, gy - y0
    top = grid[y0, x0] * (1 - fx) + grid[y0, x1] * fx
    bottom = grid[y1, x0] * (1 - fx) + grid[y1, x1] * fx
    return top * (1 - fy) + bottom * fy
