"""Table registration: the camera's pose relative to the table from the anchor markers seen in a frame.

Re-estimated every frame, so a bumped camera heals itself; when too few anchors are seen the last good pose is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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
    # IPPE solves the planar case (all anchors at z = 0) without a starting guess; LM then polishes it.
    ok, rvec, tvec = cv2.solvePnP(obj, img, k, d, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return None
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, k, d, rvec, tvec)
    centre = -cv2.Rodrigues(rvec)[0].T @ tvec.ravel()
    if centre[2] <= 0:  # the mirror solution, camera under the table
        return None
    return rvec, tvec


@dataclass
class TableRegistration:
    """Keeps the table pose over a stream of frames.

    `update` fits a new pose when at least 2 anchors are seen and keeps the last good pose otherwise;
    `fresh` says whether the current pose came from the latest frame.
    """

    layout: TableLayout
    camera: CameraIntrinsics
    max_reprojection_px: float = 2.0
    pose: CameraPose | None = None
    fresh: bool = False

    def update(self, anchor_corners_px: Mapping[int, np.ndarray]) -> CameraPose | None:
        pose = estimate_pose(anchor_corners_px, self.layout, self.camera)
        self.fresh = pose is not None and pose.reprojection_px <= self.max_reprojection_px
        if self.fresh:
            self.pose = pose
        return self.pose
