"""Table registration: the camera's pose relative to the table from the anchor markers seen in a frame.

Re-estimated every frame, so a bumped camera heals itself; when too few anchors are seen the last good pose is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.layout import TableLayout
from calibration.lens import MIN_RELIEF_MM, refine_lens, relief_mm
from calibration.pose import MAX_ANCHOR_ERROR_PX, MIN_ANCHORS, estimate_pose

__all__ = ["MAX_ANCHOR_ERROR_PX", "MIN_ANCHORS", "TableRegistration", "estimate_pose", "refine_k1"]

MIN_ANCHORS_FOR_LENS = 6
"""Anchors needed, spread over the table, before k1 is refined from them: fewer leave it poorly determined."""
LENS_HISTORY = 15
"""Frames whose refined k1 are pooled (median) before it is settled, so a live view does not jitter."""
_K1_ONLY = (
    cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_FOCAL_LENGTH | cv2.CALIB_FIX_PRINCIPAL_POINT
    | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_FIX_TANGENT_DIST | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3
    | cv2.CALIB_FIX_K4 | cv2.CALIB_FIX_K5 | cv2.CALIB_FIX_K6 | cv2.CALIB_FIX_S1_S2_S3_S4 | cv2.CALIB_FIX_TAUX_TAUY
)


def refine_k1(
    anchor_corners_px: Mapping[int, np.ndarray], anchors: tuple[int, ...], layout: TableLayout, camera: CameraIntrinsics
) -> float | None:
    """k1 (radial distortion) fitted together with the pose to the corners of `anchors`, everything else of the lens
    kept. Of a lens calibrated from a few photos, k1 errs most where the table's edges are seen; the anchors there
    are the best evidence of it. Measured on the vision benchmark with intrinsics off like a good calibration's: base
    centre p95 1.26 -> 0.95 mm (refining the focal length too overfits: 1.9 mm). None when it fails or runs away."""
    obj = np.concatenate([layout.anchor(i).corners_mm() for i in anchors]).astype(np.float32)
    img = np.concatenate([np.asarray(anchor_corners_px[i], float).reshape(4, 2) for i in anchors]).astype(np.float32)
    try:
        _, _, dist, _, _ = cv2.calibrateCamera(
            [obj], [img], tuple(camera.image_size), camera.camera_matrix.copy(), camera.dist_coeffs.copy(),
            flags=_K1_ONLY,
        )
    except cv2.error:
        return None
    k1 = float(dist.ravel()[0])
    return k1 if np.isfinite(k1) and abs(k1 - camera.dist_coeffs[0]) < 0.05 else None


BUMP_MM = 5.0
"""The camera's centre moving this far between two poses is a bump (a knocked tripod), not the fit's noise (a few
tenths of a mm at 1 m)."""


def bumped(before: CameraPose | None, after: CameraPose | None) -> bool:
    """Whether the camera moved between two fitted poses (its optical centre by more than BUMP_MM)."""
    if before is None or after is None:
        return False
    return float(np.linalg.norm(after.camera_centre_mm - before.camera_centre_mm)) > BUMP_MM


@dataclass
class TableRegistration:
    """Keeps the table pose over a stream of frames.

    `update` fits a new pose when at least 2 anchors are seen and keeps the last good pose otherwise;
    `fresh` says whether the current pose came from the latest frame. With `refine_lens` the lens is refined from
    the anchors too and pooled (median of up to LENS_HISTORY frames' estimates) while the camera stays put: with
    anchors at two heights (`calibration.lens`, raised on blocks) the focal length, principal point and k1 (and k2
    where the anchors support it), else with at least MIN_ANCHORS_FOR_LENS anchors k1 alone. `lens` is the camera
    the current pose was fitted with, and pixels must be mapped with it.
    """

    layout: TableLayout
    camera: CameraIntrinsics
    max_reprojection_px: float = 2.0
    pose: CameraPose | None = None
    fresh: bool = False
    refine_lens: bool = True
    lens: CameraIntrinsics | None = None
    k1_history: list[float] = field(default_factory=list)
    lens_history: list[tuple[float, ...]] = field(default_factory=list)
    """Raised anchors: each frame's (focal scale, cx, cy, k1, k2) from `calibration.lens.refine_lens` (k2 the camera
    file's where the anchors did not reach far enough toward the image's corners to refine it)."""

    def __post_init__(self) -> None:
        if self.lens is None:
            self.lens = self.camera

    def update(self, anchor_corners_px: Mapping[int, np.ndarray]) -> CameraPose | None:
        lens, k1s, estimates = self.lens, self.k1_history, self.lens_history
        pose = estimate_pose(anchor_corners_px, self.layout, lens)
        if bumped(self.pose, pose):  # the evidence is pooled while the camera stays put: start again (issue 17)
            k1s, estimates = [], []
        # All anchors in view, not only those the pose kept: a wrong k1 makes the edge anchors look like outliers,
        # and they are the evidence of it. The refined lens is taken only if the pose then fits better.
        in_view = tuple(sorted(i for i in anchor_corners_px if self.layout.anchor(i) is not None))
        # The lens belongs to the camera, not the pose: once LENS_HISTORY estimates are pooled it is settled until
        # the camera is bumped (the pooling starts again from the lens it had).
        trial = None
        if self.refine_lens and pose is not None and len(in_view) >= MIN_ANCHORS:
            if relief_mm(self.layout, in_view) >= MIN_RELIEF_MM and len(estimates) < LENS_HISTORY:
                trial = self._pooled_lens(anchor_corners_px, in_view, lens, estimates)
                trial = None if trial is None else (trial[0], k1s, trial[1])
            elif len(in_view) >= MIN_ANCHORS_FOR_LENS and len(k1s) < LENS_HISTORY and not estimates:
                trial = self._pooled_k1(anchor_corners_px, in_view, lens, k1s)
                trial = None if trial is None else (trial[0], trial[1], estimates)
        if trial is not None:
            refit = estimate_pose(anchor_corners_px, self.layout, trial[0])
            better = refit is not None and (len(refit.anchors), -refit.reprojection_px) >= (
                len(pose.anchors), -pose.reprojection_px
            )
            if better:
                pose, (lens, k1s, estimates) = refit, trial
        self.fresh = pose is not None and pose.reprojection_px <= self.max_reprojection_px
        if self.fresh:  # the pose and the lens it was fitted with change together
            self.pose, self.lens, self.k1_history, self.lens_history = pose, lens, k1s, estimates
        return self.pose

    def _pooled_k1(self, anchor_corners_px, in_view, lens, history):
        k1 = refine_k1(anchor_corners_px, in_view, self.layout, lens)
        if k1 is None:
            return None
        history = history + [k1]
        dist = self.camera.dist_coeffs.copy()
        dist[0] = float(np.median(history))
        return replace(self.camera, dist_coeffs=dist), history

    def _pooled_lens(self, anchor_corners_px, in_view, lens, history):
        """Raised anchors: the whole refinement of `calibration.lens` from the anchors alone (measured on exact
        geometry, they fix the focal length as well as anchors and piece markers together), pooled by median."""
        fit = refine_lens({i: anchor_corners_px[i] for i in in_view}, self.layout, self.camera)
        if fit is None or "focal" not in fit.refined:
            return None
        k = fit.camera.camera_matrix
        d = fit.camera.dist_coeffs
        history = history + [(k[0, 0] / self.camera.camera_matrix[0, 0], k[0, 2], k[1, 2], d[0],
                              d[1] if len(d) > 1 else 0.0)]
        scale, cx, cy, k1, k2 = np.median(np.array(history), axis=0)
        matrix = self.camera.camera_matrix.copy()
        matrix[0, 0] *= scale
        matrix[1, 1] *= scale
        matrix[0, 2], matrix[1, 2] = cx, cy
        dist = self.camera.dist_coeffs.copy()
        dist[0] = k1
        if len(dist) > 1:  # refined with k1 and the focal length, or the file's: kept with them
            dist[1] = k2
        return replace(self.camera, camera_matrix=matrix, dist_coeffs=dist), history
