"""The calibration wizard's captures: frames of a calibration board turned grey and kept as files, and a map of where
in the image the board's corners have been seen (intrinsics need corners all over the image, not only its middle).
Image pixels throughout: x to the right, y down."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from common.errors import InputError
from common.outfiles import output_file


def to_gray(frame: np.ndarray) -> np.ndarray:
    """An 8-bit grey image from a BGR frame (a grey frame is returned as it is)."""
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame


def save_capture(path: str | Path, image: np.ndarray) -> bool:
    """Write a capture as an image file (the format from the suffix, e.g. .png), whole or not at all; False when
    it cannot be written."""
    try:
        with output_file(path) as tmp:
            if not cv2.imwrite(str(tmp), image):
                raise InputError(f"{path}: cannot write the capture")
    except InputError:
        return False
    return True


class CoverageMap:
    """Where board corners were seen over all captures: each capture's corner hull filled on a canvas `scale` times
    smaller than the image (`size` = (width, height) px); `counts` holds how many captures covered each cell."""

    def __init__(self, size: tuple[int, int], scale: int = 4):
        self.scale = scale
        self.size = size
        self.counts = np.zeros((max(1, size[1] // scale), max(1, size[0] // scale)), np.uint16)
        self.points: list[np.ndarray] = []

    def add(self, corners_px: np.ndarray) -> None:
        """One capture's board corners (N, 2 image px)."""
        pts = np.asarray(corners_px, np.float32).reshape(-1, 2) / self.scale
        hull = cv2.convexHull(pts.astype(np.int32))
        mask = np.zeros_like(self.counts, np.uint8)
        cv2.fillConvexPoly(mask, hull, 1)
        self.counts += mask
        self.points.append(pts)

    def covered_fraction(self) -> float:
        """The share of the image (0..1) inside at least one capture's corner hull."""
        return float((self.counts > 0).mean())

    def image_bgr(self) -> np.ndarray:
        """The map as a small BGR image: covered cells green (brighter the more captures), uncovered ones dark red,
        every corner seen a white dot."""
        h, w = self.counts.shape
        img = np.full((h, w, 3), 40, np.uint8)
        if self.counts.max() > 0:
            level = np.clip(self.counts.astype(np.float32) / max(3, self.counts.max()), 0, 1)
            img[..., 1] = (40 + 200 * level).astype(np.uint8)
            img[self.counts == 0] = (70, 40, 40)
        for pts in self.points:
            for x, y in pts:
                cv2.circle(img, (int(x), int(y)), 1, (255, 255, 255), -1)
        return img
