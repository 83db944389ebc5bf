"""Marker detection: ArUco (and AprilTag) squares with cv2.aruco, QR codes with pyzbar.

Corners are (4, 2) float pixels in the marker's own order (top-left, top-right, bottom-right, bottom-left as
printed), OpenCV's pixel convention.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.layout import check_dictionary


@dataclass(frozen=True)
class MarkerDetection:
    id: int
    corners: np.ndarray  # (4, 2) px


@dataclass(frozen=True)
class QRDetection:
    payload: str
    polygon: np.ndarray  # (N, 2) px, as pyzbar reports it


@lru_cache(maxsize=None)
def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, check_dictionary(name, "marker dictionary")))


def detector_parameters() -> cv2.aruco.DetectorParameters:
    """Parameters that find small markers on large frames.

    OpenCV's default minMarkerPerimeterRate (0.03 of the larger image side) rejects a 20 mm marker on a 4K view
    of a 2.4 m table; we accept any marker from about 10 px a side.
    """
    p = cv2.aruco.DetectorParameters()
    p.minMarkerPerimeterRate = 0.005
    p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return p


@lru_cache(maxsize=8)
def _detector(dictionary: str) -> cv2.aruco.ArucoDetector:
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), detector_parameters())


def to_gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def detect_markers(image: np.ndarray, dictionary: str = "DICT_4X4_250") -> list[MarkerDetection]:
    """All markers of `dictionary` in a BGR or grey image, sorted by id."""
    corners, ids, _ = _detector(dictionary).detectMarkers(to_gray(image))
    if ids is None:
        return []
    found = [MarkerDetection(int(i), c.reshape(4, 2).astype(np.float64)) for i, c in zip(ids.ravel(), corners)]
    return sorted(found, key=lambda m: m.id)


def detect_qr(image: np.ndarray) -> list[QRDetection]:
    """QR codes read with pyzbar: payload text and corner polygon in px."""
    from pyzbar import pyzbar

    found = []
    for sym in pyzbar.decode(to_gray(image), symbols=[pyzbar.ZBarSymbol.QRCODE]):
        polygon = np.array([(p.x, p.y) for p in sym.polygon], dtype=np.float64)
        found.append(QRDetection(sym.data.decode("utf-8", errors="replace"), polygon))
    return found
