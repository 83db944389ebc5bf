"""The camera's pose relative to the table from the anchors seen in one frame (used by registration, the lens
refinement and the boards)."""

from __future__ import annotations

from collections.abc import Mapping

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
