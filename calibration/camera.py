"""Camera intrinsics and pose: the file format and the plain types.

Camera file (JSON)::

    {"image_size": [w, h], "camera_matrix": [[fx,0,cx],[0,fy,cy],[0,0,1]],
     "dist_coeffs": [k1,k2,p1,p2,k3], "rms_px": r}

optionally with "std_devs": [fx, fy, cx, cy, k1, k2, p1, p2, k3] (one standard deviation of each, from
`fieldglass calibrate camera`), and
"table_fit": {"photos": n, "refined": ["k1", "k2", "focal", "centre"], "before_px": b, "after_px": a}
when `fieldglass calibrate table` refined it from photos of the table (RMS reprojection px before and after).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from common.errors import InputError
from common.files import check_keys, read_json
from common.outfiles import write_text


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
    table_fit: dict | None = field(default=None, compare=False)
    """How `fieldglass calibrate table` refined the lens (see the module's docstring), or None."""
    std_devs: np.ndarray | None = field(default=None, compare=False)
    """One standard deviation of (fx, fy, cx, cy, k1, k2, p1, p2, k3) as the board calibration estimated them (px for
    the first four), or None when unknown."""

    def to_json(self) -> dict:
        out = {
            "image_size": [int(self.image_size[0]), int(self.image_size[1])],
            "camera_matrix": np.asarray(self.camera_matrix, float).tolist(),
            "dist_coeffs": np.asarray(self.dist_coeffs, float).ravel().tolist(),
            "rms_px": None if self.rms_px is None else float(self.rms_px),
        }
        if self.std_devs is not None:
            out["std_devs"] = np.asarray(self.std_devs, float).ravel().tolist()
        if self.table_fit is not None:
            out["table_fit"] = self.table_fit
        return out

    @classmethod
    def from_json(cls, data: dict, source: str = "camera") -> CameraIntrinsics:
        """Read the camera file's object; every number is checked finite and in range, naming `source` and the
        key (a NaN would otherwise be blamed later on the photo)."""
        check_keys(data, _KEYS, source)
        try:
            size = data["image_size"]
            k = np.asarray(_numbers(data["camera_matrix"]), dtype=float)
            d = np.asarray(_numbers(data["dist_coeffs"]), dtype=float).ravel()
            rms = data.get("rms_px")
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{source}: not a camera file ({_describe(exc)})") from None
        if not (isinstance(size, list) and len(size) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_IMAGE_SIDE for v in size)):
            raise InputError(f"{source}: 'image_size' must be [width, height] in pixels, 1..{MAX_IMAGE_SIDE}, "
                             f"not {size!r}")
        w, h = size
        if k.shape != (3, 3) or d.size not in (4, 5, 8, 12, 14):
            raise InputError(f"{source}: camera_matrix must be 3x3, dist_coeffs 4, 5, 8, 12 or 14 numbers")
        _check_matrix(k, d, source)
        if rms is not None and (isinstance(rms, bool) or not isinstance(rms, int | float) or not 0 <= rms < 1e6):
            raise InputError(f"{source}: 'rms_px' must be a finite number of pixels >= 0, not {rms!r}")
        return cls((w, h), k, d, None if rms is None else float(rms), _table_fit(data.get("table_fit"), source),
                   _std_devs(data.get("std_devs"), source))

    def scaled_to(self, image_size: tuple[int, int]) -> CameraIntrinsics:
        """The same lens at another resolution of the same sensor (aspect ratio kept)."""
        sx = image_size[0] / self.image_size[0]
        sy = image_size[1] / self.image_size[1]
        k = self.camera_matrix.copy()
        k[0, :] *= sx
        k[1, :] *= sy
        k[2, :] = (0.0, 0.0, 1.0)
        std = None
        if self.std_devs is not None:
            std = np.asarray(self.std_devs, float).copy()
            std[[0, 2]] *= sx
            std[[1, 3]] *= sy
        return CameraIntrinsics(tuple(image_size), k, self.dist_coeffs.copy(), self.rms_px, self.table_fit, std)


_KEYS = ("image_size", "camera_matrix", "dist_coeffs", "rms_px", "table_fit", "std_devs")
_TABLE_FIT_KEYS = ("photos", "refined", "before_px", "after_px")
STD_DEV_NAMES = ("fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2", "k3")


def _std_devs(value, source: str) -> np.ndarray | None:
    """The camera file's standard deviations, checked: None, or 9 finite numbers >= 0."""
    if value is None:
        return None
    ok = (isinstance(value, list) and len(value) == len(STD_DEV_NAMES)
          and all(not isinstance(v, bool) and isinstance(v, int | float) and 0 <= v < _MAX_COEFF for v in value))
    if not ok:
        raise InputError(f"{source}: 'std_devs' must be {len(STD_DEV_NAMES)} finite numbers >= 0 "
                         f"({', '.join(STD_DEV_NAMES)}), not {value!r}")
    return np.asarray(value, float)


def _table_fit(value, source: str) -> dict | None:
    """The camera file's record of a refinement from table photos, checked: None, or the four keys with sane values."""
    if value is None:
        return None
    where = f"{source} table_fit"
    if not isinstance(value, dict):
        raise InputError(f"{where}: must be an object, not {value!r}")
    check_keys(value, _TABLE_FIT_KEYS, where)
    for key in ("before_px", "after_px"):
        v = value.get(key)
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v < 1e6:
            raise InputError(f"{where}: {key!r} must be a finite number of pixels >= 0, not {v!r}")
    photos, refined = value.get("photos"), value.get("refined")
    if isinstance(photos, bool) or not isinstance(photos, int) or photos < 1:
        raise InputError(f"{where}: 'photos' must be a positive integer, not {photos!r}")
    if not isinstance(refined, list) or not set(refined) <= {"k1", "k2", "focal", "centre"}:
        raise InputError(f"{where}: 'refined' must list some of k1, k2, focal, centre, not {refined!r}")
    return dict(value)
MAX_IMAGE_SIDE = 100_000  # pixels: no camera gives more
_MAX_COEFF = 1e6  # no lens model's coefficient is larger; a NaN or a huge one is a damaged file


def _numbers(value):
    """`value` (nested lists) if every leaf is a JSON number, not a bool or text that numpy would convert."""
    if isinstance(value, list):
        for v in value:
            _numbers(v)
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{value!r} is not a number")
    return value


def _check_matrix(k: np.ndarray, d: np.ndarray, source: str) -> None:
    if not np.all(np.isfinite(k)) or np.any(np.abs(k) > _MAX_COEFF * 100):
        raise InputError(f"{source}: 'camera_matrix' must hold finite numbers of pixels, not {k.tolist()!r}")
    if not (k[0, 0] > 0 and k[1, 1] > 0 and np.allclose(k[2], (0.0, 0.0, 1.0))):
        raise InputError(f"{source}: 'camera_matrix' must be [[fx,0,cx],[0,fy,cy],[0,0,1]] with fx, fy > 0")
    if not np.all(np.isfinite(d)) or np.any(np.abs(d) > _MAX_COEFF):
        raise InputError(f"{source}: 'dist_coeffs' must be finite numbers of at most {_MAX_COEFF:g}, "
                         f"not {d.tolist()!r}")


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


def save_camera(camera: CameraIntrinsics, path: str | Path, inputs=()) -> None:
    """Write the camera file whole or not at all, never over one of `inputs`."""
    write_text(path, json.dumps(camera.to_json(), indent=2) + "\n", inputs)


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
