"""Camera intrinsics and pose: the file format and the plain types.

Camera file (JSON)::

    {"image_size": [w, h], "camera_matrix": [[fx,0,cx],[0,fy,cy],[0,0,1]],
     "dist_coeffs": [k1,k2,p1,p2,k3], "rms_px": r}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from calibration.files import read_json
from common.errors import InputError


@dataclass(frozen=True)
class CameraIntrinsics:
    """Pinhole camera with OpenCV's lens distortion model.

    `camera_matrix` is 3x3 in pixels, `dist_coeffs` are OpenCV's (k1, k2, p1, p2, k3[, ...]),
    `image_size` is (width, height) in pixels, `rms_px` the calibration's RMS reprojection error.
    """

    image_size: tuple[int, int]
    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    rms_px: float | None = None

    def to_json(self) -> dict:
        return {
            "image_size": [int(self.image_size[0]), int(self.image_size[1])],
            "camera_matrix": np.asarray(self.camera_matrix, float).tolist(),
            "dist_coeffs": np.asarray(self.dist_coeffs, float).ravel().tolist(),
            "rms_px": None if self.rms_px is None else float(self.rms_px),
        }

    @classmethod
    def from_json(cls, data: dict, source: str = "camera") -> CameraIntrinsics:
        try:
            w, h = (int(v) for v in data["image_size"])
            k = np.asarray(data["camera_matrix"], dtype=float)
            d = np.asarray(data["dist_coeffs"], dtype=float).ravel()
            rms = data.get("rms_px")
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{source}: not a camera file ({_describe(exc)})") from None
        if k.shape != (3, 3) or d.size not in (4, 5, 8, 12, 14) or w <= 0 or h <= 0:
            raise InputError(
                f"{source}: camera_matrix must be 3x3, dist_coeffs 4, 5, 8, 12 or 14 numbers, image_size positive"
            )
        return cls((w, h), k, d, None if rms is None else float(rms))

    def scaled_to(self, image_size: tuple[int, int]) -> CameraIntrinsics:
        """The same lens at another resolution of the same sensor (aspect ratio kept)."""
        sx = image_size[0] / self.image_size[0]
        sy = image_size[1] / self.image_size[1]
        k = self.camera_matrix.copy()
        k[0, :] *= sx
        k[1, :] *= sy
        k[2, :] = (0.0, 0.0, 1.0)
        return CameraIntrinsics(tuple(image_size), k, self.dist_coeffs.copy(), self.rms_px)


def _describe(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing {exc.args[0]!r}"
    return str(exc)


def load_camera(path: str | Path) -> CameraIntrinsics:
    """Read a camera file (JSON); raise InputError naming the file on any problem."""
    data = read_json(path, "camera file")
    if not isinstance(data, dict):
        raise InputError(f"{path}: not a camera file (expected a JSON object)")
    return CameraIntrinsics.from_json(data, str(path))


def save_camera(camera: CameraIntrinsics, path: str | Path) -> None:
    Path(path).write_text(json.dumps(camera.to_json(), indent=2) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class CameraPose:
    """Where the camera stands relative to the table: x_cam = R @ x_table + t (OpenCV convention).

    `rvec` is a Rodrigues rotation vector, `tvec` in millimetres.
    """

    rvec: np.ndarray
    tvec: np.ndarray
    reprojection_px: float = 0.0
    anchors: tuple[int, ...] = field(default_factory=tuple)

    @property
    def rotation(self) -> np.ndarray:
        return cv2.Rodrigues(np.asarray(self.rvec, float).reshape(3, 1))[0]

    @property
    def camera_centre_mm(self) -> np.ndarray:
        """The camera's optical centre in table millimetres."""
        return -self.rotation.T @ np.asarray(self.tvec, float).ravel()
