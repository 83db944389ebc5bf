"""Pixel <-> table at a height: the ray through a pixel meets the plane z = h.

A marker printed on a base 25 mm high is not on the cloth: mapping it with a z = 0 homography puts it where its
ray meets the cloth, 10-20 mm off near the table's edge. Intersecting with z = marker height removes that parallax.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose

_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)


def undistort_pixels(pixels: np.ndarray, camera: CameraIntrinsics) -> np.ndarray:
    """Pixels (N, 2) -> normalised image coordinates (N, 2) with the lens distortion removed."""
    px = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
    if px.shape[0] == 0:
        return np.zeros((0, 2))
    k = np.asarray(camera.camera_matrix, np.float64)
    d = np.asarray(camera.dist_coeffs, np.float64)
    norm = cv2.undistortPoints(px, k, d, None, None, None, _UNDISTORT_CRITERIA)
    return norm.reshape(-1, 2)


def pixels_to_table(
    pixels: np.ndarray, camera: CameraIntrinsics, pose: CameraPose, height_mm: float | np.ndarray = 0.0
) -> np.ndarray:
    """Table coordinates (N, 2) in mm where each pixel's ray meets the plane z = height_mm.

    `pixels` is (N, 2) in OpenCV's convention (pixel centres at integers); `height_mm` is a scalar or (N,) array.
    Rays parallel to the plane or meeting it behind the camera give NaN.
    """
    norm = undistort_pixels(pixels, camera)
    rays_cam = np.column_stack([norm, np.ones(len(norm))])
    rot = pose.rotation
    rays = rays_cam @ rot  # each row is R.T @ ray: the ray in table axes
    centre = pose.camera_centre_mm
    h = np.broadcast_to(np.asarray(height_mm, dtype=float), (len(norm),))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (h - centre[2]) / rays[:, 2]
    s = np.where(s > 0, s, np.nan)
    return centre[:2] + s[:, None] * rays[:, :2]


def table_to_pixels(points_mm: np.ndarray, camera: CameraIntrinsics, pose: CameraPose) -> np.ndarray:
    """Table points (N, 3) in mm -> pixels (N, 2), lens distortion included."""
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
    if len(pts) == 0:
        return np.zeros((0, 2))
    px, _ = cv2.projectPoints(
        pts, np.asarray(pose.rvec, float), np.asarray(pose.tvec, float), camera.camera_matrix, camera.dist_coeffs
    )
    return px.reshape(-1, 2)
