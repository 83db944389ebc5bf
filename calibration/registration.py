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
from calibration.projection import table_to_pixels

MIN_ANCHORS = 2
MAX_ANCHOR_ERROR_PX = 3.0
"""An anchor whose corners miss the fitted pose by more than this is dropped (a hand on it, a misread)."""


def estimate_pose(
    anchor_corners_px: Mapping[int, np.ndarray], layout: TableLayout, camera: CameraIntrinsics
) -> CameraPose | None:
    """Camera pose from the corners (4, 2 px, ArUco order) of the layout's anchors seen in one frame.

    Markers that are not anchors are ignored. Returns None with fewer than 2 usable anchors. An anchor that
    disagrees with the others by more than MAX_ANCHOR_ERROR_PX is left out and the pose fitted again.
    """
    used = sorted(i for i in anchor_corners_px if layout.anchor(i) is not None)
    while len(used) >= MIN_ANCHORS:
        obj = np.concatenate([layout.anchor(i).corners_mm() for i in used])
        img = np.concatenate([np.asarray(anchor_corners_px[i], float).reshape(4, 2) for i in used])
        pose = _fit(obj, img, camera)
        if pose is None:
            return None
        rvec, tvec = pose
        proj = table_to_pixels(obj, camera, CameraPose(rvec, tvec))
        err = np.linalg.norm(proj - img, axis=1).reshape(-1, 4)
        per_anchor = err.max(axis=1)
        worst = int(np.argmax(per_anchor))
        if per_anchor[worst] > MAX_ANCHOR_ERROR_PX and len(used) > MIN_ANCHORS:
            used.pop(worst)
            continue
        rms = float(np.sqrt(np.mean(err**2)))
        return CameraPose(rvec.ravel(), tvec.ravel(), rms, tuple(used))
    return None


def _fit(obj: np.ndarray, img: np.ndarray, camera: CameraIntrinsics):
    k, d = camera.camera_matrix, camera.dist_coeffs
    # IPPE solves the planar case (all anchors at one height) without a starting guess; raised anchors make the
    # points non-coplanar, which SQPnP solves globally. LM then polishes either.
    planar = bool(np.ptp(obj[:, 2]) < 1e-9)
    ok, rvec, tvec = cv2.solvePnP(obj, img, k, d, flags=cv2.SOLVEPNP_IPPE if planar else cv2.SOLVEPNP_SQPNP)
    if planar and not (ok and np.all(np.isfinite(rvec)) and np.all(np.isfinite(tvec))):
        # IPPE can answer NaN on a perfectly symmetric view (a synthetic table seen square-on); SQPnP does not
        ok, rvec, tvec = cv2.solvePnP(obj, img, k, d, flags=cv2.SOLVEPNP_SQPNP)
    if not (ok and np.all(np.isfinite(rvec)) and np.all(np.isfinite(tvec))):
        return None
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, k, d, rvec, tvec)
    centre = -cv2.Rodrigues(rvec)[0].T @ tvec.ravel()
    if centre[2] <= 0:  # the mirror solution, camera under the table
        return None
    return rvec, tvec


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


@dataclass
class TableRegistration:
    """Keeps the table pose over a stream of frames.

    `update` fits a new pose when at least 2 anchors are seen and keeps the last good pose otherwise;
    `fresh` says whether the current pose came from the latest frame. With `refine_lens` and at least
    MIN_ANCHORS_FOR_LENS anchors in view, the lens's k1 is refined from the anchors too (median of the last
    LENS_HISTORY frames); `lens` is the camera the current pose was fitted with, and pixels must be mapped with it.
    """

    layout: TableLayout
    camera: CameraIntrinsics
    max_reprojection_px: float = 2.0
    pose: CameraPose | None = None
    fresh: bool = False
    refine_lens: bool = True
    lens: CameraIntrinsics | None = None
    k1_history: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.lens is None:
            self.lens = self.camera

    def update(self, anchor_corners_px: Mapping[int, np.ndarray]) -> CameraPose | None:
        lens, history = self.lens, self.k1_history
        pose = estimate_pose(anchor_corners_px, self.layout, lens)
        # All anchors in view, not only those the pose kept: a wrong k1 makes the edge anchors look like outliers,
        # and they are the evidence of it. The refined lens is taken only if the pose then fits better.
        in_view = tuple(sorted(i for i in anchor_corners_px if self.layout.anchor(i) is not None))
        # k1 belongs to the lens, not the pose: once LENS_HISTORY estimates are pooled it is settled, and a bumped
        # camera needs only a new pose.
        refining = self.refine_lens and len(history) < LENS_HISTORY
        if refining and pose is not None and len(in_view) >= MIN_ANCHORS_FOR_LENS:
            k1 = refine_k1(anchor_corners_px, in_view, self.layout, lens)
            if k1 is not None:
                trial = history + [k1]
                dist = self.camera.dist_coeffs.copy()
                dist[0] = float(np.median(trial))
                trial_lens = replace(self.camera, dist_coeffs=dist)
                refit = estimate_pose(anchor_corners_px, self.layout, trial_lens)
                better = refit is not None and (len(refit.anchors), -refit.reprojection_px) >= (
                    len(pose.anchors), -pose.reprojection_px
                )
                if better:
                    pose, lens, history = refit, trial_lens, trial
        self.fresh = pose is not None and pose.reprojection_px <= self.max_reprojection_px
        if self.fresh:  # the pose and the lens it was fitted with change together
            self.pose, self.lens, self.k1_history = pose, lens, history
        return self.pose
