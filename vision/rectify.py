"""The table seen straight from above: a camera frame resampled onto the table plane (z = 0), for the dashboard's
board view. Here (with OpenCV) rather than in gui/, which only shows the image."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.layout import TableLayout
from calibration.projection import table_to_pixels


class BoardRectifier:
    """The table seen straight from above at `mm_per_px`: a remap of the camera frame onto the plane z = 0, lens
    distortion included, with MARGIN_MM of surround on every side. Image columns run along the table's x (width),
    rows run south, so north (+y, away from the near edge) is up. The remap is rebuilt only when the table's
    corners move by more than 0.3 px in the frame (or the scale or the camera's image size changes)."""

    MARGIN_MM = 30.0
    BORDER_BGR = (40, 40, 40)  # outside the camera's view

    def __init__(self, layout: TableLayout):
        self.layout = layout
        self._key = None
        self._maps = None
        self._corners = None
        self._coverage: np.ndarray | None = None

    def size(self, mm_per_px: float) -> tuple[int, int]:
        """(width, height) px of the view at `mm_per_px` table mm per pixel."""
        m = self.MARGIN_MM
        return (int(round((self.layout.width_mm + 2 * m) / mm_per_px)),
                int(round((self.layout.depth_mm + 2 * m) / mm_per_px)))

    def rectify(self, frame: np.ndarray, camera: CameraIntrinsics, pose: CameraPose, mm_per_px: float) -> np.ndarray:
        """The frame (BGR) resampled to the top-down view (BGR, `size(mm_per_px)`); `camera` and `pose` must be the
        ones the pose was fitted with."""
        w, h = self.size(mm_per_px)
        lay, m = self.layout, self.MARGIN_MM
        corners = table_to_pixels(np.array([[0, 0, 0], [lay.width_mm, 0, 0], [lay.width_mm, lay.depth_mm, 0],
                                            [0, lay.depth_mm, 0]], float), camera, pose)
        key = (mm_per_px, camera.image_size)
        if self._key != key or self._corners is None or np.abs(corners - self._corners).max() > 0.3:
            xs = -m + (np.arange(w) + 0.5) * mm_per_px
            ys = lay.depth_mm + m - (np.arange(h) + 0.5) * mm_per_px  # north (+y) up
            gx, gy = np.meshgrid(xs, ys)
            pts = np.column_stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)])
            px = table_to_pixels(pts, camera, pose).astype(np.float32).reshape(h, w, 2)
            self._maps = cv2.convertMaps(px[..., 0].copy(), px[..., 1].copy(), cv2.CV_16SC2)
            self._key, self._corners = key, corners
            self._coverage = None
        return cv2.remap(frame, self._maps[0], self._maps[1], cv2.INTER_LINEAR, borderValue=self.BORDER_BGR)

    def coverage(self, frame_shape: tuple[int, ...]) -> np.ndarray:
        """Which pixels of the last `rectify`'s view the camera's frame fills wholly (bool, the view's size): False
        outside the frame and at its edge, where the resampling blends the frame with the border colour."""
        if self._maps is None:
            raise ValueError("coverage before any rectify")
        if self._coverage is None:
            inside = np.full(frame_shape[:2], 255, np.uint8)
            cover = cv2.remap(inside, self._maps[0], self._maps[1], cv2.INTER_LINEAR, borderValue=0)
            self._coverage = cover == 255
        return self._coverage


def composite(views: list[tuple[np.ndarray, np.ndarray] | None]) -> np.ndarray | None:
    """One top-down view from several cameras' (a rig's) views of the same size, each given with its coverage
    (`BoardRectifier.coverage`): each pixel from the first camera that covers it wholly, else from one that reaches
    it at all; None without any view."""
    present = [v for v in views if v is not None]
    if not present:
        return None
    out = present[0][0].copy()
    missing = ~present[0][1]
    for board, cover in present[1:]:
        fill = missing & cover
        out[fill] = board[fill]
        missing &= ~cover
    return out

DISPLAY_SHRINK = 0.9
"""A frame is made smaller for the screen only when the view shows it at most this scale (a little smaller is
shown as it is: resampling it would cost more than the view's own scaling saves)."""


def display_bgra(frame: np.ndarray | None, fit_px: tuple[int, int] | None = None) -> np.ndarray | None:
    """A BGR frame as 4-channel BGRA (alpha 255): the byte order of a screen's 32-bit pixels, which Qt shows without
    converting. `fit_px` (width, height in screen pixels): the view shows the whole frame in that box, so it is
    made that small here (pixel areas averaged, the aspect kept): the view then draws it pixel for pixel instead of
    scaling 2 million pixels down on every repaint. Done in the capture worker's thread, so the dashboard's thread
    only hands the pixels over."""
    if frame is None:
        return None
    if fit_px is not None:
        h, w = frame.shape[:2]
        s = min(fit_px[0] / w, fit_px[1] / h)
        if 0.0 < s <= DISPLAY_SHRINK:
            frame = cv2.resize(frame, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)
