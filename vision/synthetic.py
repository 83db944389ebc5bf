"""The synthetic table: a virtual camera over a virtual table, rendered like a real frame, with exact ground truth.

This is both the product's demo (`fieldglass demo` without a camera) and the ground truth of the accuracy
benchmark, so the geometry is exact: every feature is drawn where `cv2.projectPoints` (with the lens
distortion) says it is, to a few hundredths of a pixel.

Frames and units:

* Table frame: millimetres, x along the width, y along the depth, z up; (0, 0, 0) is a corner of the table
  surface. Headings are compass bearings in degrees: 0 = +y ("north"), 90 = +x ("east").
* Camera: OpenCV convention, x_cam = R @ x_table + t (`calibration.camera.CameraPose`), pixels with the centre of
  the top-left pixel at (0, 0).

How a frame is made: an *ideal* image (pinhole, no distortion, a little larger than the frame so the distortion
has something to pull in) is painted with plane homographies - cloth, grid crosses, terrain, anchors, piece
shadows, pieces far-to-near, then the hand - and the lens distortion is applied once with `cv2.remap`: each
output pixel p samples the ideal image at undistort(p), so a point drawn at the ideal position u lands at
distort(u), exactly what `cv2.projectPoints` computes. Pieces and markers are painted into their own bounding
box at 2-4x resolution and area-averaged down, so edges are anti-aliased like a real sensor's without moving them
(the marker image is sampled at about one texel per supersampled pixel, which makes the averaged edge coverage
exact). Blur, uneven light, sensor noise and JPEG compression are applied last, on the distorted frame.

Measured: rendered edges agree with `cv2.projectPoints` to ~0.002 px without distortion and ~0.01 px with it
(tests/vision/test_synthetic.py); the distortion map is exact every 16 px and bilinear in between (< 0.004 px),
and cv2.remap resolves 1/32 px.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.grid import Grid
from calibration.layout import Anchor, TableLayout, load_layout, square_corners_mm
from calibration.projection import table_to_pixels
from vision.markers import aruco_dictionary
from vision.roster import Piece, Roster, load_roster

__all__ = [
    "GroundTruth",
    "DieTruth",
    "PieceTruth",
    "PlacedDie",
    "ProjectedLight",
    "PlacedPiece",
    "RenderOptions",
    "SyntheticScene",
    "SyntheticSource",
    "TerrainPiece",
    "VirtualCamera",
    "demo_scene",
    "random_scene",
    "render_table",
    "standard_layout",
]

# ----------------------------------------------------------------------------------------------------------------
# Public types
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VirtualCamera:
    """A camera over the table: OpenCV intrinsics (pixels, lens distortion) and pose (x_cam = R @ x_table + t, mm)."""

    intrinsics: CameraIntrinsics
    pose: CameraPose

    @property
    def image_size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return (int(self.intrinsics.image_size[0]), int(self.intrinsics.image_size[1]))

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Table points (N, 3) in mm -> pixels (N, 2), lens distortion included (`cv2.projectPoints`)."""
        return table_to_pixels(points_mm, self.intrinsics, self.pose)

    @classmethod
    def looking_at_table(
        cls,
        width_mm: float,
        depth_mm: float,
        resolution: tuple[int, int] = (3840, 2160),
        height_mm: float = 1700.0,
        tilt_deg: float = 0.0,
        distortion: tuple[float, ...] = (-0.08, 0.03, 0.0, 0.0, 0.0),
        margin_mm: float = 60.0,
        yaw_deg: float = 0.0,
        principal_offset_px: tuple[float, float] = (0.0, 0.0),
    ) -> VirtualCamera:
        """A camera `height_mm` above the table surface, aimed at the table centre.

        `tilt_deg` tips the optical axis from straight down toward the compass bearing `yaw_deg` (0: the camera
        stands south of the centre and looks north, image x along table +x, table +y up the image). The focal
        length (fx == fy, pixels) is the largest for which the whole table plus `margin_mm` on every side lies
        inside the frame once the lens distortion is applied. The principal point is the image centre
        ((w - 1) / 2, (h - 1) / 2) plus `principal_offset_px`.
        """
        w, h = int(resolution[0]), int(resolution[1])
        tilt, yaw = math.radians(tilt_deg), math.radians(yaw_deg)
        look = np.array([math.sin(yaw), math.cos(yaw)])  # horizontal viewing direction
        centre = np.array([width_mm / 2.0, depth_mm / 2.0, 0.0])
        cam = centre - np.array([*(look * height_mm * math.tan(tilt)), -height_mm])
        z_axis = centre - cam
        z_axis /= np.linalg.norm(z_axis)
        x_axis = np.array([math.cos(yaw), -math.sin(yaw), 0.0])
        y_axis = np.cross(z_axis, x_axis)
        rot = np.vstack([x_axis, y_axis, z_axis])
        tvec = -rot @ cam
        rvec = cv2.Rodrigues(rot)[0].ravel()
        dist = np.asarray(distortion, dtype=np.float64).ravel()

        # The table outline plus margin, densely sampled: barrel distortion bows straight edges outward.
        m = float(margin_mm)
        xs = np.linspace(-m, width_mm + m, 121)
        ys = np.linspace(-m, depth_mm + m, 61)
        ring = np.concatenate(
            [
                np.column_stack([xs, np.full_like(xs, -m)]),
                np.column_stack([xs, np.full_like(xs, depth_mm + m)]),
                np.column_stack([np.full_like(ys, -m), ys]),
                np.column_stack([np.full_like(ys, width_mm + m), ys]),
            ]
        )
        pts = np.column_stack([ring, np.zeros(len(ring))])
        if np.any((pts @ rot.T + tvec)[:, 2] <= 0):
            raise ValueError("the table is not in front of the camera; lower the tilt")
        unit = np.eye(3)
        nd, _ = cv2.projectPoints(pts, rvec, tvec, unit, dist)  # distorted normalised coordinates
        nd = nd.reshape(-1, 2)
        cx = (w - 1) / 2.0 + float(principal_offset_px[0])
        cy = (h - 1) / 2.0 + float(principal_offset_px[1])
        limits = []
        for axis, c, size in ((0, cx, w), (1, cy, h)):
            v = nd[:, axis]
            neg, pos = v < 0, v > 0
            if neg.any():
                limits.append(np.min(c / -v[neg]))
            if pos.any():
                limits.append(np.min((size - 1 - c) / v[pos]))
        f = float(min(limits))
        k = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
        return cls(CameraIntrinsics((w, h), k, dist), CameraPose(rvec, tvec))


@dataclass(frozen=True)
class PlacedPiece:
    """A roster piece standing on the table: base centre (mm, table frame) and compass heading of its front."""

    piece: Piece
    x_mm: float
    y_mm: float
    heading_deg: float


@dataclass(frozen=True)
class TerrainPiece:
    """A flat terrain template: `polygon_mm` (N, 2) in table mm, lying at z = `height_mm`.

    `kind` picks the look: "wood", "hill", "town", "river", "field"; anything else is drawn as plain ground.
    """

    kind: str
    polygon_mm: np.ndarray
    height_mm: float = 0.0


@dataclass(frozen=True)
class PlacedDie:
    """A six-sided die lying on the table: centre (table mm), side (mm), turn (compass degrees of one face's
    normal), the value on top; body and pip colours (BGR 0-255) and `light` (a factor on its brightness, as under a
    lamp or in a shadow). Opposite faces sum to 7."""

    x_mm: float
    y_mm: float
    side_mm: float
    value: int
    turn_deg: float = 0.0
    body_bgr: tuple[float, float, float] = (236.0, 238.0, 240.0)
    pip_bgr: tuple[float, float, float] = (30.0, 28.0, 26.0)
    light: float = 1.0


@dataclass(frozen=True)
class SyntheticScene:
    """Everything on the table: the layout (size, anchors, grid), the roster, where its pieces stand, terrain and
    dice."""

    layout: TableLayout
    roster: Roster
    placements: tuple[PlacedPiece, ...]
    terrain: tuple[TerrainPiece, ...] = ()
    dice: tuple[PlacedDie, ...] = ()


@dataclass(frozen=True)
class RenderOptions:
    """Camera imperfections applied to the rendered frame.

    `blur_sigma_px` Gaussian optical blur (px); `noise_sigma` Gaussian sensor noise (grey levels, per channel);
    `jpeg_quality` JPEG round trip (None = none); `uneven_light` 0..1 strength of a smooth brightness gradient plus
    vignette; `hand` an arm reaching in over the table 110-200 mm above the cloth; `seed` drives all randomness
    (noise, light direction, the hand's path) - the same options give the same frame.
    """

    blur_sigma_px: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None
    uneven_light: float = 0.0
    hand: bool = False
    seed: int = 0
    light_seed: int | None = None
    """The uneven light's own seed (None: `seed`'s): a source's frames keep one lamp while their noise changes."""
    projection: ProjectedLight | None = field(default=None, compare=False)
    """A projector's image thrown onto the table (None: the projector off)."""


@dataclass(frozen=True)
class ProjectedLight:
    """A projector over the synthetic table (issue 30): `projector` its pinhole (image size, intrinsics, pose; its
    lens distortion is not simulated), `image` what it shows ((h, w) or (h, w, 3) uint8, projector pixels),
    `brightness` how much full white adds to the cloth's own light (1.0 doubles it), `blur_px` its focus (Gaussian
    sigma, projector pixels). Light falls on the cloth, on raised terrain and on the pieces' tops at their heights;
    the hand shades it."""

    projector: VirtualCamera
    image: np.ndarray
    brightness: float = 1.0
    blur_px: float = 0.0


@dataclass(frozen=True)
class PieceTruth:
    """Where a piece really is: base centre (table mm), heading (compass degrees) and its marker in the frame.

    `marker_corners_px` (4, 2) are the black square's corners in ArUco order (top-left, top-right, bottom-right,
    bottom-left as printed), projected with the lens distortion. `visible` is True when all four corners are inside
    the frame and no part of the black square is covered by the hand or by a nearer piece.
    """

    piece_id: str
    marker: int
    x_mm: float
    y_mm: float
    heading_deg: float
    marker_corners_px: np.ndarray
    visible: bool


@dataclass(frozen=True)
class DieTruth:
    """Where a die really is and what it shows: `centre_px` the top face's centre and `side_px` its mean edge in the
    frame (distortion included); `visible` when the whole top face is inside the frame."""

    value: int
    x_mm: float
    y_mm: float
    side_mm: float
    centre_px: tuple[float, float]
    side_px: float
    visible: bool


@dataclass(frozen=True)
class GroundTruth:
    """The truth behind one rendered frame.

    `anchor_corners_px`: anchor id -> (4, 2) corners (ArUco order, distortion included); `anchor_visible`: anchor id
    -> whole square in frame and uncovered; `hand_polygon_px`: outline (N, 2) of the hand and arm in frame pixels, or
    None without a hand.
    """

    camera: VirtualCamera
    pieces: tuple[PieceTruth, ...]
    anchor_corners_px: dict[int, np.ndarray]
    hand_polygon_px: np.ndarray | None
    anchor_visible: dict[int, bool] = field(default_factory=dict)
    dice: tuple[DieTruth, ...] = ()

    def piece(self, piece_id: str) -> PieceTruth | None:
        return next((p for p in self.pieces if p.piece_id == piece_id), None)


# ----------------------------------------------------------------------------------------------------------------
# Camera geometry: the ideal canvas and the distortion maps (cached per camera)
# ----------------------------------------------------------------------------------------------------------------

_SHIFT = 6  # fractional bits for cv2.fillPoly
_SUPER = 4  # supersampling factor for pieces and markers (at most; big ROIs use less, see _super_factor)
_MAP_STEP = 16  # the exact undistortion is computed every _MAP_STEP px and interpolated (error ~0.004 px)
_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)


class _Geometry:
    """A camera as the renderer needs it: projection into the ideal canvas and the remap to the real frame.

    Canvas pixel (i, j) is ideal-image pixel (i + ox, j + oy); the ideal image is the pinhole image with the
    camera's own K and no distortion.
    """

    def __init__(self, camera: VirtualCamera):
        intr, pose = camera.intrinsics, camera.pose
        self.size = camera.image_size
        w, h = self.size
        k = np.asarray(intr.camera_matrix, np.float64)
        d = np.asarray(intr.dist_coeffs, np.float64).ravel()
        self.rot = pose.rotation
        self.tvec = np.asarray(pose.tvec, np.float64).ravel()
        self.centre = pose.camera_centre_mm

        # Where each frame pixel comes from in the ideal image: exact on a coarse grid that overhangs the frame
        # by a step, bilinear in between (cv2.resize's convention: coarse sample j sits at step*(j-1)+(step-1)/2).
        s = _MAP_STEP
        nx, ny = -(-w // s) + 3, -(-h // s) + 3
        gx = s * (np.arange(nx) - 1) + (s - 1) / 2.0
        gy = s * (np.arange(ny) - 1) + (s - 1) / 2.0
        grid = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 1, 2)
        if np.any(d):
            src = cv2.undistortPoints(grid, k, d, None, None, k, _CRITERIA).reshape(ny, nx, 2)
        else:
            src = grid.reshape(ny, nx, 2).copy()
        lim = 2.0 * max(w, h)
        src = np.clip(np.nan_to_num(src, nan=-lim), -lim, lim + max(w, h))
        inside = src[1:-2, 1:-2].reshape(-1, 2)  # coarse samples within the frame
        ox = int(math.floor(inside[:, 0].min())) - 4
        oy = int(math.floor(inside[:, 1].min())) - 4
        coarse = (src - (ox, oy)).astype(np.float32)
        full = cv2.resize(coarse, (nx * s, ny * s), interpolation=cv2.INTER_LINEAR)[s : s + h, s : s + w]
        border = np.concatenate([full[0], full[-1], full[:, 0], full[:, -1], inside - (ox, oy)])
        ox2, oy2 = np.floor(border.min(0)).astype(int) - 3  # extremes lie on the frame's border (or near it)
        full -= (ox2, oy2)
        self.origin = (ox + int(ox2), oy + int(oy2))
        self.canvas_size = tuple(int(v) for v in np.ceil(border.max(0) - (ox2, oy2)).astype(int) + 4)
        self.map1, self.map2 = cv2.convertMaps(full, None, cv2.CV_16SC2)
        ox, oy = self.origin
        self.k, self.dist = k, d
        self.k_canvas = k.copy()
        self.k_canvas[0, 2] -= ox
        self.k_canvas[1, 2] -= oy

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        """Table points (N, 3) mm -> canvas pixels (N, 2), pinhole (no distortion)."""
        p = np.asarray(pts_mm, np.float64).reshape(-1, 3) @ self.rot.T + self.tvec
        z = np.maximum(p[:, 2:3], 1e-6)
        uv = p[:, :2] / z
        return uv @ self.k_canvas[:2, :2].T + self.k_canvas[:2, 2]

    def homography(self, z_mm: float) -> np.ndarray:
        """3x3 map from table (x, y, 1) on the plane z = z_mm to canvas pixels."""
        m = np.column_stack([self.rot[:, 0], self.rot[:, 1], self.rot[:, 2] * z_mm + self.tvec])
        return self.k_canvas @ m

    def scale_at(self, x_mm: float, y_mm: float, z_mm: float = 0.0) -> float:
        """Canvas pixels per mm near a table point."""
        p = self.project(np.array([[x_mm, y_mm, z_mm], [x_mm + 1.0, y_mm, z_mm], [x_mm, y_mm + 1.0, z_mm]]))
        return float(0.5 * (np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])))

    def frame_box(self, box) -> tuple[int, int, int, int]:
        """The frame pixels (x0, y0, x1, y1) that can sample the canvas box (x0, y0, x1, y1), clipped to the frame."""
        x0, y0, x1, y1 = box
        t = np.linspace(0.0, 1.0, 33)
        edge = np.concatenate([
            np.column_stack([x0 + t * (x1 - x0), np.full_like(t, y0)]),
            np.column_stack([x0 + t * (x1 - x0), np.full_like(t, y1)]),
            np.column_stack([np.full_like(t, x0), y0 + t * (y1 - y0)]),
            np.column_stack([np.full_like(t, x1), y0 + t * (y1 - y0)]),
        ])
        norm = np.column_stack([(edge - self.k_canvas[:2, 2]) @ np.linalg.inv(self.k_canvas[:2, :2]).T,
                                np.ones(len(edge))])
        px, _ = cv2.projectPoints(norm, np.zeros(3), np.zeros(3), self.k, self.dist)
        px = px.reshape(-1, 2)
        w, h = self.size
        fx0 = int(np.clip(np.floor(px[:, 0].min()) - 3, 0, w))
        fy0 = int(np.clip(np.floor(px[:, 1].min()) - 3, 0, h))
        fx1 = int(np.clip(np.ceil(px[:, 0].max()) + 4, 0, w))
        fy1 = int(np.clip(np.ceil(px[:, 1].max()) + 4, 0, h))
        return fx0, fy0, fx1, fy1

    def distort(self, canvas: np.ndarray, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
        return cv2.remap(canvas, self.map1, self.map2, interpolation, borderMode=cv2.BORDER_REPLICATE)


_GEOMETRY_CACHE: dict[bytes, _Geometry] = {}


def _camera_key(camera: VirtualCamera) -> bytes:
    i, p = camera.intrinsics, camera.pose
    parts = [
        np.asarray(i.image_size, np.int64),
        np.asarray(i.camera_matrix, np.float64),
        np.asarray(i.dist_coeffs, np.float64).ravel(),
        np.asarray(p.rvec, np.float64).ravel(),
        np.asarray(p.tvec, np.float64).ravel(),
    ]
    return b"|".join(a.tobytes() for a in parts)


def _geometry(camera: VirtualCamera) -> _Geometry:
    key = _camera_key(camera)
    geom = _GEOMETRY_CACHE.get(key)
    if geom is None:
        if len(_GEOMETRY_CACHE) >= 3:
            _GEOMETRY_CACHE.pop(next(iter(_GEOMETRY_CACHE)))
        geom = _GEOMETRY_CACHE[key] = _Geometry(camera)
    return geom


# ----------------------------------------------------------------------------------------------------------------
# Small drawing helpers
# ----------------------------------------------------------------------------------------------------------------


def _fixed(pts: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(pts, np.float64) * (1 << _SHIFT)).astype(np.int32).reshape(-1, 1, 2)


def _roi(points: np.ndarray, canvas_size: tuple[int, int], pad: int = 2) -> tuple[int, int, int, int] | None:
    """Integer box (x0, y0, x1, y1) around canvas points, clipped to the canvas; None if empty."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if not np.all(np.isfinite(pts)):
        return None
    x0 = max(int(math.floor(pts[:, 0].min())) - pad, 0)
    y0 = max(int(math.floor(pts[:, 1].min())) - pad, 0)
    x1 = min(int(math.ceil(pts[:, 0].max())) + pad + 1, canvas_size[0])
    y1 = min(int(math.ceil(pts[:, 1].max())) + pad + 1, canvas_size[1])
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _super_matrix(x0: int, y0: int, s: int) -> np.ndarray:
    """Canvas px -> supersampled ROI px (pixel centres at integers: x -> s * (x - x0) + (s - 1) / 2)."""
    o = (s - 1) / 2.0
    return np.array([[s, 0.0, o - s * x0], [0.0, s, o - s * y0], [0.0, 0.0, 1.0]])


def _super_factor(box) -> int:
    """4x supersampling for small ROIs, down to 2x for big ones: the warped area stays about 256 x 256."""
    side = max(box[2] - box[0], box[3] - box[1])
    return int(np.clip(256 // max(side, 1), 2, _SUPER))


def _composite(canvas: np.ndarray, box, colour_premul: np.ndarray, alpha: np.ndarray) -> None:
    """canvas[box] = premultiplied colour + canvas * (1 - alpha), alpha in 0..1."""
    x0, y0, x1, y1 = box
    region = canvas[y0:y1, x0:x1].astype(np.float32)
    region *= 1.0 - alpha[..., None]
    region += colour_premul
    np.clip(region, 0, 255, out=region)
    canvas[y0:y1, x0:x1] = (region + 0.5).astype(np.uint8)


def _directions(heading_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """(forward, right) unit vectors in the table plane for a compass heading."""
    h = math.radians(heading_deg)
    return np.array([math.sin(h), math.cos(h)]), np.array([math.cos(h), -math.sin(h)])


def _modules(dictionary: str) -> int:
    """Modules across a marker's black square (data bits plus the one-module black border)."""
    return int(aruco_dictionary(dictionary).markerSize) + 2


_PAPER = (236, 240, 238)
_INK = (28, 26, 24)


@lru_cache(maxsize=512)
def _marker_bgra(dictionary: str, marker_id: int, px_per_module: int, quiet_modules: float) -> np.ndarray:
    """The printed marker as a BGRA image: black square plus a white quiet zone of `quiet_modules` modules."""
    n = _modules(dictionary)
    m = int(px_per_module)
    q = int(round(quiet_modules * m))
    code = cv2.aruco.generateImageMarker(aruco_dictionary(dictionary), int(marker_id), n * m, borderBits=1)
    side = n * m + 2 * q
    img = np.empty((side, side, 4), np.uint8)
    img[..., :3] = _PAPER
    img[..., 3] = 255
    ink = code < 128
    for c in range(3):
        img[q : q + n * m, q : q + n * m, c][ink] = _INK[c]
    img.flags.writeable = False
    return img


def _marker_matrix(centre_xy, heading_deg: float, side_mm: float, image_px: int) -> np.ndarray:
    """3x3 map from a square image's pixels (centres at integers) to table (x, y, 1) for a marker laid flat.

    The image's top edge points along `heading_deg`; the image covers a square of `side_mm` centred at `centre_xy`.
    """
    fwd, right = _directions(heading_deg)
    step = side_mm / image_px
    start = -side_mm / 2.0 + step / 2.0
    c = np.asarray(centre_xy, np.float64) + right * start + fwd * (-start)
    return np.array([[right[0] * step, -fwd[0] * step, c[0]], [right[1] * step, -fwd[1] * step, c[1]], [0, 0, 1.0]])


def _warp_marker_super(
    geom: _Geometry, box, s: int, dictionary: str, marker_id: int, centre_xy, heading_deg: float,
    marker_mm: float, z_mm: float, quiet_modules: float = 1.0,
) -> np.ndarray:
    """The marker (paper and ink) warped into the supersampled ROI: premultiplied BGRA float32, alpha 0..255."""
    n = _modules(dictionary)
    corners = geom.project(square_corners_mm(centre_xy[0], centre_xy[1], marker_mm, heading_deg, z_mm))
    side_px = 0.25 * sum(np.linalg.norm(corners[i] - corners[i - 1]) for i in range(4))
    m = int(np.clip(round(s * side_px / n), 2, 48))  # one source pixel ~ one supersampled pixel
    img = _marker_bgra(dictionary, marker_id, m, quiet_modules)
    paper_mm = marker_mm * (n + 2 * round(quiet_modules * m) / m) / n
    x0, y0, x1, y1 = box
    mat = _super_matrix(x0, y0, s) @ geom.homography(z_mm) @ _marker_matrix(centre_xy, heading_deg, paper_mm, len(img))
    out = cv2.warpPerspective(
        img, mat, ((x1 - x0) * s, (y1 - y0) * s), flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0),
    )
    return out.astype(np.float32)


def _paper_mm(dictionary: str, marker_mm: float, quiet_modules: float = 1.0) -> float:
    n = _modules(dictionary)
    return marker_mm * (n + 2 * quiet_modules) / n


# ----------------------------------------------------------------------------------------------------------------
# Cloth, terrain, anchors
# ----------------------------------------------------------------------------------------------------------------

_CLOTH = np.array([78, 116, 94], np.float32)  # BGR, a grey-green wargames cloth
_CROSS = np.array([52, 82, 64], np.float32)
_FLOOR = np.array([46, 52, 58], np.float32)


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell_px: float) -> np.ndarray:
    """Smooth noise in about -1..1 with features of ~cell_px."""
    h, w = shape
    gh, gw = max(2, int(h / cell_px) + 2), max(2, int(w / cell_px) + 2)
    coarse = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC) * 0.6


@lru_cache(maxsize=2)
def _cloth_texture(width_mm: float, depth_mm: float, px_per_mm: float) -> np.ndarray:
    """The cloth at `px_per_mm`, BGR uint8; row v, column u covers table ((u + .5) / r, (v + .5) / r)."""
    rng = np.random.default_rng(20240611)
    w, h = int(math.ceil(width_mm * px_per_mm)), int(math.ceil(depth_mm * px_per_mm))
    # shading: broad blotches (~180 mm) and a finer mottle (~25 mm), made at 4 px per 10 mm, then enlarged
    sw, sh = max(2, int(width_mm / 2.5)), max(2, int(depth_mm / 2.5))
    shade = 1.0 + 0.05 * _smooth_noise(rng, (sh, sw), 72) + 0.025 * _smooth_noise(rng, (sh, sw), 10)
    layers = np.empty((h, w, 2), np.float32)
    layers[..., 0] = cv2.resize(shade, (w, h), interpolation=cv2.INTER_LINEAR)
    layers[..., 1] = rng.random((h, w), dtype=np.float32)  # fibre noise, +-3.5 grey levels
    m = np.column_stack([_CLOTH, np.full(3, 7.0), np.full(3, -3.5)]).astype(np.float32)
    tex = cv2.transform(layers, m)  # BGR = cloth * shade + 7 * (fibre - 0.5)
    out = cv2.convertScaleAbs(tex)
    out.flags.writeable = False
    return out


def _tex_matrix(x0_mm: float, y0_mm: float, px_per_mm: float) -> np.ndarray:
    """Texture pixel (u, v, 1) -> table (x, y, 1), pixel centres at (u + .5) / r."""
    r = px_per_mm
    return np.array([[1 / r, 0, x0_mm + 0.5 / r], [0, 1 / r, y0_mm + 0.5 / r], [0, 0, 1.0]])


def _draw_cloth(canvas: np.ndarray, geom: _Geometry, layout: TableLayout, tex_scale: float) -> None:
    tex = _cloth_texture(float(layout.width_mm), float(layout.depth_mm), tex_scale)
    m = geom.homography(0.0) @ _tex_matrix(0.0, 0.0, tex_scale)
    cv2.warpPerspective(
        tex, m, geom.canvas_size, dst=canvas, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT
    )


def _draw_grid_crosses(canvas: np.ndarray, geom: _Geometry, layout: TableLayout) -> None:
    """Small crosses at the field corners (the grid itself is not drawn), slightly darker than the cloth."""
    grid: Grid | None = layout.grid
    if grid is None:
        return
    arm, half = min(5.0, grid.field_mm / 8), 0.6
    outline = np.array(
        [
            (-half, arm), (half, arm), (half, half), (arm, half), (arm, -half), (half, -half),
            (half, -arm), (-half, -arm), (-half, -half), (-arm, -half), (-arm, half), (-half, half),
        ]
    )
    polys = []
    for i in range(grid.cols + 1):
        for j in range(grid.rows + 1):
            x, y = grid.origin_x_mm + i * grid.field_mm, grid.origin_y_mm + j * grid.field_mm
            if x - arm < 0 or y - arm < 0 or x + arm > layout.width_mm or y + arm > layout.depth_mm:
                continue
            pts = np.column_stack([outline + (x, y), np.zeros(len(outline))])
            polys.append(_fixed(geom.project(pts)))
    if polys:
        cv2.fillPoly(canvas, polys, tuple(float(c) for c in _CROSS), cv2.LINE_AA, _SHIFT)


def _wood_texture(mask: np.ndarray, alpha: np.ndarray, n1: np.ndarray, n2: np.ndarray, r: float,
                  rng) -> tuple[np.ndarray, np.ndarray]:
    """Dark green with round tree crowns, and a ragged edge: the soft outline pushed in and out by noise."""
    base = np.array([42, 78, 52], np.float32)
    col = base * (1 + 0.08 * n1[..., None])
    col = np.ascontiguousarray(col)
    area = max(float(mask.sum()) / 255.0 / (r * r), 1.0)
    n_trees = int(area / 500) + 3
    ys, xs = np.nonzero(mask > 200)
    if len(xs):
        for _ in range(n_trees):
            i = rng.integers(len(xs))
            rad = rng.uniform(9, 20) * r
            tone = np.array([rng.uniform(30, 50), rng.uniform(70, 105), rng.uniform(40, 65)], np.float32)
            cv2.circle(col, (int(xs[i]), int(ys[i])), int(rad * 1.08), tuple(float(v) for v in tone * 0.6), -1,
                       cv2.LINE_AA)
            cv2.circle(col, (int(xs[i]), int(ys[i])), int(rad), tuple(float(v) for v in tone), -1, cv2.LINE_AA)
            cv2.circle(col, (int(xs[i] - rad * 0.25), int(ys[i] + rad * 0.25)), int(rad * 0.45),
                       tuple(float(v) for v in tone * 1.18), -1, cv2.LINE_AA)
    soft = cv2.GaussianBlur(alpha, (0, 0), 2.5 * r)
    alpha = np.clip((soft - 0.5 + 0.3 * n2) * 4.0 + 0.5, 0, 1)
    return col, alpha


def _town_texture(mask: np.ndarray, n1: np.ndarray, r: float, rng) -> np.ndarray:
    """Grey ground with rectangular roofs, each with its ridge line."""
    h, w = mask.shape
    col = np.empty((h, w, 3), np.float32)
    col[:] = np.array([112, 128, 140], np.float32)
    col *= 1 + 0.05 * n1[..., None]
    ys, xs = np.nonzero(mask > 200)
    if len(xs):
        for _ in range(max(4, int(len(xs) / (r * r) / 2500))):
            i = rng.integers(len(xs))
            size = (rng.uniform(18, 30) * r, rng.uniform(28, 45) * r)
            angle = rng.uniform(0, 180)
            box = cv2.boxPoints(((float(xs[i]), float(ys[i])), size, angle))
            roof = np.array(rng.choice([[60, 80, 150], [70, 90, 130], [110, 110, 115]]), np.float32)
            cv2.fillPoly(col, [_fixed(box)], tuple(float(v) for v in roof), cv2.LINE_AA, _SHIFT)
            a, b = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
            if np.linalg.norm(box[0] - box[1]) < np.linalg.norm(box[1] - box[2]):
                a, b = (box[1] + box[2]) / 2, (box[3] + box[0]) / 2
            cv2.line(col, tuple(int(v) for v in a), tuple(int(v) for v in b), tuple(float(v) for v in roof * 0.7),
                     max(1, int(r)), cv2.LINE_AA)
    return col


def _tray_texture(kind: str, shape: tuple[int, int], n1: np.ndarray, n2: np.ndarray, r: float, rng) -> np.ndarray:
    """Bare wood (grain along x, boards 90 mm wide) or a printed map (paper, coloured areas, roads, towns' dots and
    lettering, a square grid), BGR float32: the surfaces dice are thrown on."""
    h, w = shape
    if kind == "planks":
        yy = np.arange(h, dtype=np.float32)[:, None] / r
        grain = np.sin(yy * 1.7 + 3.0 * n1) * 0.5 + 0.5 * np.sin(yy * 0.31 + 6.0 * n2)
        seams = (np.abs(((yy + 45.0) % 90.0) - 45.0) > 44.4).astype(np.float32)
        base = np.array([70, 120, 170], np.float32)
        col = base * (1 + 0.08 * grain[..., None] - 0.45 * seams[..., None])
        return col
    col = np.empty((h, w, 3), np.uint8)
    col[:] = (200, 226, 236)
    for _ in range(12):
        centre = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
        axes = (float(rng.uniform(20, 120) * r), float(rng.uniform(20, 90) * r))
        tone = tuple(float(v) for v in rng.choice([[150, 200, 170], [120, 170, 200], [200, 180, 150]]))
        cv2.ellipse(col, (centre, axes, float(rng.uniform(0, 180))), tone, -1, cv2.LINE_AA)
    for _ in range(8):
        a = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        b = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        cv2.line(col, a, b, (60, 70, 120), max(1, int(1.5 * r)), cv2.LINE_AA)
    for _ in range(20):
        at = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        cv2.circle(col, at, max(1, int(2.0 * r)), (40, 40, 40), -1, cv2.LINE_AA)
        cv2.putText(col, "Marengo"[: int(rng.integers(3, 8))], (at[0] + int(4 * r), at[1]),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.12 * r, (50, 50, 50), max(1, int(0.4 * r)), cv2.LINE_AA)
    for x in np.arange(0, w, 50 * r):  # a printed square grid
        cv2.line(col, (int(x), 0), (int(x), h), (120, 130, 140), 1, cv2.LINE_AA)
    for y in np.arange(0, h, 50 * r):
        cv2.line(col, (0, int(y)), (w, int(y)), (120, 130, 140), 1, cv2.LINE_AA)
    return col.astype(np.float32)


def _terrain_texture(kind: str, poly_px: np.ndarray, shape: tuple[int, int], r: float, rng) -> tuple:
    """(BGR float32, alpha float32 0..1) of a terrain template drawn in its own texture (r px per mm)."""
    h, w = shape
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [_fixed(poly_px)], 255, cv2.LINE_AA, _SHIFT)
    alpha = mask.astype(np.float32) / 255.0
    n1 = _smooth_noise(rng, (h, w), 40 * r)
    n2 = _smooth_noise(rng, (h, w), 8 * r)
    kind = kind.lower()
    if kind in ("wood", "forest", "woods"):
        col, alpha = _wood_texture(mask, alpha, n1, n2, r, rng)
    elif kind == "hill":
        base = np.array([70, 122, 118], np.float32)
        dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 5)
        top = np.clip(dist / max(dist.max(), 1.0), 0, 1)
        col = base * (0.86 + 0.22 * np.sqrt(top)[..., None] + 0.04 * n1[..., None])
    elif kind in ("town", "village", "bua"):
        col = _town_texture(mask, n1, r, rng)
    elif kind in ("river", "stream", "water"):
        base = np.array([128, 100, 58], np.float32)
        col = base * (1 + 0.06 * n1[..., None] + 0.05 * n2[..., None])
    elif kind == "felt":  # a dice tray's felt: one deep colour, a fine nap
        base = np.array([60, 40, 110], np.float32)
        col = base * (1 + 0.04 * n1[..., None] + 0.03 * n2[..., None])
    elif kind in ("planks", "map"):
        col = _tray_texture(kind, (h, w), n1, n2, r, rng)
    elif kind in ("field", "fields"):
        base = np.array([70, 140, 150], np.float32)
        col = base * (1 + 0.05 * n1[..., None])
    else:
        base = np.array([80, 110, 120], np.float32)
        col = base * (1 + 0.05 * n1[..., None])
    col = col + (rng.random((h, w), dtype=np.float32)[..., None] - 0.5) * 6.0
    return np.ascontiguousarray(col, dtype=np.float32), np.ascontiguousarray(alpha, dtype=np.float32)


def _draw_terrain(canvas: np.ndarray, geom: _Geometry, terrain: TerrainPiece, index: int, r: float) -> None:
    poly = np.asarray(terrain.polygon_mm, np.float64).reshape(-1, 2)
    if len(poly) < 3:
        return
    z = float(terrain.height_mm)
    pad = 6.0
    bx0, by0 = poly.min(axis=0) - pad
    bx1, by1 = poly.max(axis=0) + pad
    tw, th = int(math.ceil((bx1 - bx0) * r)), int(math.ceil((by1 - by0) * r))
    if tw < 2 or th < 2:
        return
    seed = int(np.frombuffer(terrain.kind.encode()[:8].ljust(8, b"\0"), np.uint64)[0] % (2**31)) + 7919 * index
    tex_poly = (poly - (bx0, by0)) * r - 0.5
    col, alpha = _terrain_texture(terrain.kind, tex_poly, (th, tw), r, np.random.default_rng(seed))
    corners = np.array([[bx0, by0, z], [bx1, by0, z], [bx1, by1, z], [bx0, by1, z]])
    box = _roi(geom.project(corners), geom.canvas_size)
    if box is None:
        return
    x0, y0, x1, y1 = box
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
    m = shift @ geom.homography(z) @ _tex_matrix(bx0, by0, r)
    rgba = np.dstack([col * alpha[..., None], alpha])
    out = cv2.warpPerspective(rgba, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    _composite(canvas, box, out[..., :3], out[..., 3])


def _draw_flat_marker(canvas: np.ndarray, geom: _Geometry, dictionary: str, marker_id: int, centre_xy,
                      heading_deg: float, marker_mm: float, z_mm: float = 0.0) -> None:
    paper = _paper_mm(dictionary, marker_mm)
    box = _roi(geom.project(square_corners_mm(centre_xy[0], centre_xy[1], paper, heading_deg, z_mm)), geom.canvas_size)
    if box is None:
        return
    s = _super_factor(box)
    out = _warp_marker_super(geom, box, s, dictionary, marker_id, centre_xy, heading_deg, marker_mm, z_mm)
    w, h = box[2] - box[0], box[3] - box[1]
    small = cv2.resize(out, (w, h), interpolation=cv2.INTER_AREA)
    _composite(canvas, box, small[..., :3], small[..., 3] * (1.0 / 255.0))


# ----------------------------------------------------------------------------------------------------------------
# Pieces
# ----------------------------------------------------------------------------------------------------------------

_SIDE_COLOURS = {
    "FR": np.array([158, 84, 44], np.float32),  # French blue
    "AU": np.array([206, 210, 212], np.float32),  # Austrian white
    "RU": np.array([60, 100, 40], np.float32),
    "GB": np.array([40, 40, 170], np.float32),
    "PR": np.array([90, 60, 50], np.float32),
}
_LIGHT = np.array([-0.6, 0.8])  # horizontal direction toward the main light (north-north-west)


def _side_colour(side: str) -> np.ndarray:
    c = _SIDE_COLOURS.get(side.upper())
    if c is not None:
        return c
    v = np.frombuffer(side.encode().ljust(3, b"x")[:3], np.uint8).astype(np.float32)
    return 70 + (v * 37) % 150


@dataclass
class _PieceShape:
    index: int
    placed: PlacedPiece
    footprint: np.ndarray  # (4, 2) table mm: front-left, front-right, back-right, back-left
    marker_xy: np.ndarray
    marker_corners_mm: np.ndarray  # (4, 3)
    hull_px: np.ndarray  # canvas px, convex silhouette of the box (float32, (M, 1, 2))
    marker_px: np.ndarray  # canvas px (4, 2), pinhole
    depth: float


def _piece_shape(geom: _Geometry, index: int, placed: PlacedPiece) -> _PieceShape:
    p = placed.piece
    fwd, right = _directions(placed.heading_deg)
    c = np.array([placed.x_mm, placed.y_mm], np.float64)
    bw, bd = float(p.base_mm[0]) / 2.0, float(p.base_mm[1]) / 2.0
    foot = np.array([c - right * bw + fwd * bd, c + right * bw + fwd * bd, c + right * bw - fwd * bd,
                     c - right * bw - fwd * bd])
    h = float(p.marker_height_mm)
    mxy = c + right * float(p.marker_offset_mm[0]) + fwd * float(p.marker_offset_mm[1])
    mcorners = square_corners_mm(mxy[0], mxy[1], float(p.marker_mm), placed.heading_deg, h)
    box3 = np.vstack([np.column_stack([foot, np.zeros(4)]), np.column_stack([foot, np.full(4, h)])])
    hull = cv2.convexHull(geom.project(box3).astype(np.float32))
    top_centre = np.array([c[0], c[1], h])
    return _PieceShape(index, placed, foot, mxy, mcorners, hull, geom.project(mcorners),
                       float(np.linalg.norm(top_centre - geom.centre)))


def _shade(canvas: np.ndarray, px: np.ndarray, box: tuple[int, int, int, int], sigma: float, depth: float) -> None:
    """Darken the canvas inside the polygon `px` (within `box`), its edge blurred by `sigma` px, by `depth` at most:
    a shadow on the cloth."""
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillPoly(mask, [_fixed(px - (x0, y0))], 1.0, cv2.LINE_8, _SHIFT)
    mask = cv2.GaussianBlur(mask, (0, 0), sigma)
    region = canvas[y0:y1, x0:x1].astype(np.float32)
    region *= (1.0 - depth * mask)[..., None]
    canvas[y0:y1, x0:x1] = (region + 0.5).astype(np.uint8)


def _draw_contact_shadow(canvas: np.ndarray, geom: _Geometry, shape: _PieceShape, scale: float) -> None:
    """A soft dark rim on the cloth around the base (light from above)."""
    foot = np.column_stack([shape.footprint, np.zeros(4)])
    px = geom.project(foot)
    sigma = max(0.6, 2.0 * scale)
    box = _roi(px, geom.canvas_size, pad=int(3 * sigma) + 2)
    if box is None:
        return
    _shade(canvas, px, box, sigma, 0.45)


def _draw_piece(canvas: np.ndarray, geom: _Geometry, shape: _PieceShape, dictionary: str) -> None:
    """The base box (visible sides, top) and its marker, painted at s x resolution and area-averaged down."""
    placed, p = shape.placed, shape.placed.piece
    h = float(p.marker_height_mm)
    paper = _paper_mm(dictionary, float(p.marker_mm))
    paper_px = geom.project(square_corners_mm(shape.marker_xy[0], shape.marker_xy[1], paper, placed.heading_deg, h))
    bottom = geom.project(np.column_stack([shape.footprint, np.zeros(4)]))
    top = geom.project(np.column_stack([shape.footprint, np.full(4, h)]))
    box = _roi(np.vstack([bottom, top, paper_px]), geom.canvas_size)
    if box is None:
        return
    s = _super_factor(box)
    x0, y0, x1, y1 = box
    offset = ((s - 1) / 2.0 - s * x0, (s - 1) / 2.0 - s * y0)
    buf = np.zeros(((y1 - y0) * s, (x1 - x0) * s, 4), np.float32)  # premultiplied BGRA, alpha 0..255
    base_col = _side_colour(p.side)
    if h > 0.3:
        for i in range(4):
            a, b = shape.footprint[i], shape.footprint[(i + 1) % 4]
            edge = b - a
            normal = np.array([edge[1], -edge[0]]) / max(np.linalg.norm(edge), 1e-9)  # outward (clockwise order)
            if np.dot(geom.centre[:2] - (a + b) / 2.0, normal) <= 0:
                continue
            shade = 0.58 + 0.22 * float(np.dot(normal, _LIGHT))
            quad = np.vstack([bottom[i], bottom[(i + 1) % 4], top[(i + 1) % 4], top[i]]) * s + offset
            cv2.fillPoly(buf, [_fixed(quad)], (*(float(v) for v in base_col * shade), 255.0), cv2.LINE_8, _SHIFT)
    cv2.fillPoly(buf, [_fixed(top * s + offset)], (*(float(v) for v in base_col * 0.97), 255.0), cv2.LINE_8, _SHIFT)
    mk = _warp_marker_super(geom, box, s, dictionary, p.marker, shape.marker_xy, placed.heading_deg,
                            float(p.marker_mm), h)
    buf *= 1.0 - mk[..., 3:4] * (1.0 / 255.0)
    buf += mk
    small = cv2.resize(buf, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    _composite(canvas, box, small[..., :3], small[..., 3] * (1.0 / 255.0))

# ----------------------------------------------------------------------------------------------------------------
# Dice
# ----------------------------------------------------------------------------------------------------------------

_PIP_OFFSET = 0.26  # of the side: a pip's centre from the face's centre, along each axis
_PIP_RADIUS = 0.085  # of the side
_FLAT = 0.86  # of the side: the flat face inside the rounded rim
_PIPS = {
    1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)), 4: ((-1, -1), (1, -1), (1, 1), (-1, 1)),
    5: ((-1, -1), (1, -1), (1, 1), (-1, 1), (0, 0)), 6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


def _die_frame(die: PlacedDie) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The die's centre on the table (3,) and its two horizontal face normals (unit, table frame)."""
    fwd, right = _directions(die.turn_deg)
    return np.array([die.x_mm, die.y_mm, 0.0]), np.array([*fwd, 0.0]), np.array([*right, 0.0])


def _rounded_square(n: int = 6, r: float = 0.2) -> np.ndarray:
    """A square of side 2 with corners rounded to radius r (unit-less (M, 2) outline)."""
    pts = []
    for cx, cy, a0 in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        for t in np.linspace(0, 90, n):
            a = math.radians(a0 + t)
            pts.append(((1 - r) * cx + r * math.cos(a), (1 - r) * cy + r * math.sin(a)))
    return np.array(pts)


def _disc(n: int = 16) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([np.cos(a), np.sin(a)])


def _face_points(centre: np.ndarray, u: np.ndarray, v: np.ndarray, uv: np.ndarray) -> np.ndarray:
    return centre + uv[:, :1] * u + uv[:, 1:2] * v


def _side_values(value: int) -> tuple[int, int, int, int]:
    """The four side faces' values in turn around a die showing `value` (opposite faces sum to 7)."""
    ring = [v for v in (1, 2, 3, 6, 5, 4) if v not in (value, 7 - value)]
    return ring[0], ring[1], 7 - ring[0], 7 - ring[1]


def _die_depth(geom: _Geometry, die: PlacedDie) -> float:
    return float(np.linalg.norm(np.array([die.x_mm, die.y_mm, die.side_mm]) - geom.centre))


def _draw_die_shadow(canvas: np.ndarray, geom: _Geometry, die: PlacedDie) -> None:
    """A soft shadow on the cloth, cast away from the main light."""
    c, f, r = _die_frame(die)
    h = die.side_mm / 2.0
    shift = -np.array([*_LIGHT, 0.0]) * 0.35 * die.side_mm
    foot = np.array([c + f * h + r * h, c + f * h - r * h, c - f * h - r * h, c - f * h + r * h]) + shift
    px = geom.project(foot)
    sigma = max(0.8, 0.2 * die.side_mm * geom.scale_at(die.x_mm, die.y_mm))
    box = _roi(px, geom.canvas_size, pad=int(3 * sigma) + 2)
    if box is None:
        return
    _shade(canvas, px, box, sigma, 0.5)


def _draw_die(canvas: np.ndarray, geom: _Geometry, die: PlacedDie) -> None:
    """The visible side faces (shaded, with their pips), the rounded rim and the flat top with its pips."""
    c, f, r = _die_frame(die)
    s = float(die.side_mm)
    h = s / 2.0
    up = np.array([0.0, 0.0, 1.0])
    top_c = c + up * s
    hull = geom.project(np.array([c + a * f * h + b * r * h + z * up * s for a in (-1, 1) for b in (-1, 1)
                                  for z in (0, 1)]))
    box = _roi(hull, geom.canvas_size)
    if box is None:
        return
    k = _super_factor(box)
    x0, y0, x1, y1 = box
    offset = np.array([(k - 1) / 2.0 - k * x0, (k - 1) / 2.0 - k * y0])
    buf = np.zeros(((y1 - y0) * k, (x1 - x0) * k, 4), np.float32)
    body = np.asarray(die.body_bgr, np.float32) * float(die.light)
    pip = np.asarray(die.pip_bgr, np.float32) * float(die.light)

    def fill(points_mm: np.ndarray, colour: np.ndarray) -> None:
        px = geom.project(points_mm) * k + offset
        cv2.fillPoly(buf, [_fixed(px)], (*(float(v) for v in np.clip(colour, 0, 255)), 255.0), cv2.LINE_8, _SHIFT)

    def pips(centre: np.ndarray, u: np.ndarray, v: np.ndarray, value: int, colour: np.ndarray) -> None:
        for a, b in _PIPS[value]:
            at = centre + (a * u + b * v) * (_PIP_OFFSET * s)
            fill(_face_points(at, u, v, _disc() * (_PIP_RADIUS * s)), colour)

    sides = _side_values(die.value)
    for i, normal in enumerate((f, r, -f, -r)):
        centre = c + normal * h + up * h
        if np.dot(geom.centre - centre, normal) <= 0:
            continue
        along = np.cross(up, normal)
        shade = 0.6 + 0.2 * float(np.dot(normal[:2], _LIGHT))
        square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * h
        fill(_face_points(centre, along, up, square), body * shade)
        pips(centre, along, up, sides[i], pip * shade)
    fill(_face_points(top_c, f, r, _rounded_square(r=0.18) * h), body * 0.72)  # the rim, rounded down to the sides
    fill(_face_points(top_c, f, r, _rounded_square(r=0.2) * (h * _FLAT)), body)
    pips(top_c, r, f, die.value, pip)
    small = cv2.resize(buf, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    _composite(canvas, box, small[..., :3], small[..., 3] * (1.0 / 255.0))


def _die_truth(camera: VirtualCamera, die: PlacedDie) -> DieTruth:
    c, f, r = _die_frame(die)
    h = die.side_mm / 2.0
    top = np.array([c + f * h + r * h, c + f * h - r * h, c - f * h - r * h, c - f * h + r * h]) + [0, 0, die.side_mm]
    px = camera.project(np.vstack([top, [[die.x_mm, die.y_mm, die.side_mm]]]))
    side = float(np.mean(np.linalg.norm(px[:4] - np.roll(px[:4], 1, axis=0), axis=1)))
    return DieTruth(int(die.value), float(die.x_mm), float(die.y_mm), float(die.side_mm),
                    (float(px[4, 0]), float(px[4, 1])), side, _in_frame(px[:4], camera.image_size))


# ----------------------------------------------------------------------------------------------------------------
# The hand
# ----------------------------------------------------------------------------------------------------------------


def _capsule(a, b, r_a: float, r_b: float | None = None, n: int = 10) -> np.ndarray:
    """A convex polygon (table mm) around segment a-b with radii r_a at a and r_b at b."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    r_b = r_a if r_b is None else r_b
    d = b - a
    ang = math.atan2(d[1], d[0])
    pts = [b + r_b * np.array([math.cos(t), math.sin(t)]) for t in np.linspace(ang - math.pi / 2, ang + math.pi / 2, n)]
    pts += [a + r_a * np.array([math.cos(t), math.sin(t)])
            for t in np.linspace(ang + math.pi / 2, ang + 3 * math.pi / 2, n)]
    return np.array(pts)


def _ellipse(c, axis, a: float, b: float, n: int = 28) -> np.ndarray:
    axis = np.asarray(axis, float)
    perp = np.array([axis[1], -axis[0]])
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.asarray(c, float) + np.outer(np.cos(t) * a, axis) + np.outer(np.sin(t) * b, perp)


@dataclass(frozen=True)
class _Hand:
    """An arm flat at `height_mm`: layers painted in order (sleeve, forearm and palm, thumb, fingers), each a
    (colour name, convex polygons in table mm)."""

    layers: tuple[tuple[str, tuple[np.ndarray, ...]], ...]
    height_mm: float


def _rotate(v: np.ndarray, deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([v[0] * math.cos(a) - v[1] * math.sin(a), v[0] * math.sin(a) + v[1] * math.cos(a)])


def _hand_shapes(layout: TableLayout, targets: list[tuple[float, float]], seed: int, reach: float = 1.0) -> _Hand:
    """An arm reaching in from the nearer long table edge toward one of `targets` (table mm).

    The palm travels from 380 mm outside the edge (reach 0, out of view) to the target (reach 1).
    """
    rng = np.random.default_rng([int(seed), 0x4A4E44])
    wdt, dep = float(layout.width_mm), float(layout.depth_mm)
    if targets:
        tx, ty = targets[int(rng.integers(len(targets)))]
        tx, ty = tx + rng.normal(0, 12), ty + rng.normal(0, 12)
    else:
        tx, ty = rng.uniform(0.25, 0.75) * wdt, rng.uniform(0.3, 0.7) * dep
    from_south = ty < dep / 2  # the player on the nearer long edge reaches in
    edge_y, out = (0.0, -1.0) if from_south else (dep, 1.0)
    start = np.array([tx + rng.uniform(-220, 220), edge_y + out * 380.0])
    target = np.array([tx, ty])
    d = target - start
    d /= np.linalg.norm(d)
    palm = start + float(np.clip(reach, 0.0, 1.0)) * (target - start)
    perp = np.array([d[1], -d[0]])  # to the right of the arm
    side = 1.0 if rng.random() < 0.7 else -1.0  # right or left hand: which side the thumb is on
    k = rng.uniform(0.92, 1.08)
    wrist = palm - d * 52 * k
    elbow = wrist - d * 280
    fingers = []
    for off, spread, length, rad in zip((-29, -10, 10, 28), (-15, -5, 4, 14), (58, 74, 78, 64), (8.0, 8.6, 8.6, 8.0),
                                        strict=True):
        fd = _rotate(d, -spread * side + rng.normal(0, 3))  # splay outward
        base = palm + d * 34 * k + perp * off * side * k
        fingers.append(("skin", (_capsule(base, base + fd * length * k, rad * k, rad * 0.85 * k),)))
    tb = palm - perp * 32 * side * k - d * 18 * k
    thumb = _capsule(tb, tb + _rotate(d, 42 * side) * 55 * k, 12 * k, 9 * k)
    layers = (
        ("sleeve", (_capsule(elbow + d * 40, wrist - d * 900, 46 * k, 58 * k),)),
        ("skin", (_capsule(wrist, elbow, 30 * k, 40 * k), _ellipse(palm, d, 54 * k, 45 * k))),
        ("skin", (thumb,)),
        *fingers,
    )
    return _Hand(layers, float(rng.uniform(110, 200)))


def _layer_masks(geom: _Geometry, hand: _Hand, z_mm: float):
    """(box, [(colour name, mask uint8 0..255 anti-aliased)]) in canvas px, or None when out of view."""
    proj = [(name, [geom.project(np.column_stack([p, np.full(len(p), z_mm)])) for p in polys])
            for name, polys in hand.layers]
    box = _roi(np.vstack([q for _, group in proj for q in group]), geom.canvas_size, pad=4)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    masks = []
    for name, group in proj:
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        for q in group:
            cv2.fillPoly(m, [_fixed(q - (x0, y0))], 255, cv2.LINE_AA, _SHIFT)
        masks.append((name, m))
    return box, masks


_HAND_COLOURS = {"skin": np.array([118, 150, 206], np.float32), "sleeve": np.array([92, 62, 48], np.float32)}


def _draw_hand(canvas: np.ndarray, geom: _Geometry, hand: _Hand) -> tuple | None:
    """Soft shadow on the table, then the arm layer by layer; returns (box, coverage uint8) in canvas px, or None."""
    shadow = _layer_masks(geom, hand, 0.0)
    if shadow is not None:
        box, masks = shadow
        scale = geom.scale_at(*np.mean(hand.layers[1][1][1], axis=0))
        sigma = max(2.0, 18.0 * scale)
        pad = int(3 * sigma)
        x0, y0, x1, y1 = box
        X0, Y0 = max(x0 - pad, 0), max(y0 - pad, 0)
        X1, Y1 = min(x1 + pad, geom.canvas_size[0]), min(y1 + pad, geom.canvas_size[1])
        m = np.zeros((Y1 - Y0, X1 - X0), np.float32)
        m[y0 - Y0 : y1 - Y0, x0 - X0 : x1 - X0] = np.maximum.reduce([q for _, q in masks]).astype(np.float32) / 255
        small = cv2.resize(m, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), sigma / 4)
        m = cv2.resize(small, (X1 - X0, Y1 - Y0), interpolation=cv2.INTER_LINEAR)
        region = canvas[Y0:Y1, X0:X1].astype(np.float32)
        region *= (1.0 - 0.38 * m)[..., None]
        canvas[Y0:Y1, X0:X1] = (region + 0.5).astype(np.uint8)
    drawn = _layer_masks(geom, hand, hand.height_mm)
    if drawn is None:
        return None
    box, masks = drawn
    for name, m in masks:
        # rounded look: each part is brightest along its middle and darker toward its outline
        dist = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 3)
        roundness = np.sqrt(dist / max(float(dist.max()), 1.0))
        a = m.astype(np.float32) * (1.0 / 255.0)
        colour = _HAND_COLOURS[name] * (0.66 + 0.34 * roundness)[..., None]
        _composite(canvas, box, colour * a[..., None], a)
    return box, np.maximum.reduce([m for _, m in masks])


# ----------------------------------------------------------------------------------------------------------------
# Rendering
# ----------------------------------------------------------------------------------------------------------------


@dataclass
class _Static:
    """The ideal canvas with everything but the hand, and what the truth needs."""

    canvas: np.ndarray
    shapes: list[_PieceShape]  # in painting order (far to near)
    occluded: set[int]  # placement indices covered by a nearer piece
    anchor_px: dict[int, np.ndarray]  # canvas px (pinhole)
    anchors_occluded: set[int]


def _render_static(scene: SyntheticScene, geom: _Geometry) -> _Static:
    layout = scene.layout
    cw, ch = geom.canvas_size
    canvas = np.empty((ch, cw, 3), np.uint8)
    canvas[:] = _FLOOR.astype(np.uint8)
    mid_scale = geom.scale_at(layout.width_mm / 2, layout.depth_mm / 2)
    tex_scale = float(np.clip(round(mid_scale * 4) / 4, 0.5, 2.0))  # about one texel per canvas pixel
    _draw_cloth(canvas, geom, layout, tex_scale)
    _draw_grid_crosses(canvas, geom, layout)
    for i, t in enumerate(scene.terrain):
        _draw_terrain(canvas, geom, t, i, tex_scale)
    anchor_px = {}
    for a in layout.anchors:
        # a turned anchor (a board lying turned on the table, calibration.board.TurnedAnchor) is drawn turned
        # a raised anchor (z_mm, on a block) is drawn as its paper at that height; the block itself is not drawn
        _draw_flat_marker(canvas, geom, layout.dictionary, a.id, (a.x_mm, a.y_mm), getattr(a, "heading_deg", 0.0),
                          a.size_mm, a.z_mm)
        anchor_px[a.id] = geom.project(a.corners_mm())
    dictionary = scene.roster.dictionary
    shapes = [_piece_shape(geom, i, p) for i, p in enumerate(scene.placements)]
    for sh in shapes:
        _draw_contact_shadow(canvas, geom, sh, geom.scale_at(sh.placed.x_mm, sh.placed.y_mm))
    order = sorted(shapes, key=lambda sh: -sh.depth)
    for sh in order:
        _draw_piece(canvas, geom, sh, dictionary)
    for die in scene.dice:
        _draw_die_shadow(canvas, geom, die)
    for die in sorted(scene.dice, key=lambda d: -_die_depth(geom, d)):
        _draw_die(canvas, geom, die)
    # who covers whom: a later (nearer) silhouette over an earlier marker's black square
    occluded: set[int] = set()
    if order:
        lo = np.array([sh.hull_px.reshape(-1, 2).min(0) for sh in order])
        hi = np.array([sh.hull_px.reshape(-1, 2).max(0) for sh in order])
    for i, sh in enumerate(order):
        if _covered(sh.marker_px, order[i + 1 :], lo[i + 1 :], hi[i + 1 :]):
            occluded.add(sh.index)
    anchors_occluded = {aid for aid, px in anchor_px.items() if order and _covered(px, order, lo, hi)}
    return _Static(canvas, order, occluded, anchor_px, anchors_occluded)


def _covered(quad_px: np.ndarray, shapes: list[_PieceShape], lo: np.ndarray, hi: np.ndarray) -> bool:
    """Does any of the pieces' silhouettes overlap the convex quad (canvas px)?"""
    if not shapes:
        return False
    qmin, qmax = quad_px.min(0), quad_px.max(0)
    near = np.nonzero(np.all(hi >= qmin, axis=1) & np.all(lo <= qmax, axis=1))[0]
    quad = quad_px.astype(np.float32).reshape(-1, 1, 2)
    return any(cv2.intersectConvexConvex(quad, shapes[j].hull_px)[0] > 1e-3 for j in near)


def _under_mask(quad_px: np.ndarray, box, mask: np.ndarray) -> bool:
    """Does any part of the convex quad (canvas px) lie on a nonzero pixel of `mask` (covering `box`)?"""
    x0, y0, x1, y1 = box
    lo, hi = np.floor(quad_px.min(0)).astype(int) - 1, np.ceil(quad_px.max(0)).astype(int) + 2
    ax0, ay0, ax1, ay1 = max(lo[0], x0), max(lo[1], y0), min(hi[0], x1), min(hi[1], y1)
    if ax1 <= ax0 or ay1 <= ay0:
        return False
    q = np.zeros((ay1 - ay0, ax1 - ax0), np.uint8)
    cv2.fillPoly(q, [_fixed(quad_px - (ax0, ay0))], 255, cv2.LINE_8, _SHIFT)
    m = mask[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0]
    return bool(np.any((q > 0) & (m > 0)))


def _outline_in_frame(geom: _Geometry, box, mask: np.ndarray) -> np.ndarray | None:
    """The outline (N, 2), in frame pixels, of a canvas mask covering `box`: the mask is remapped like the frame."""
    x0, y0, x1, y1 = box
    full = np.zeros((geom.canvas_size[1], geom.canvas_size[0]), np.uint8)
    full[y0:y1, x0:x1] = mask
    fx0, fy0, fx1, fy1 = geom.frame_box(box)
    if fx1 <= fx0 or fy1 <= fy0:
        return None
    seen = cv2.remap(full, geom.map1[fy0:fy1, fx0:fx1], geom.map2[fy0:fy1, fx0:fx1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT)
    binary = np.zeros((geom.size[1] + 2, geom.size[0] + 2), np.uint8)  # a border so outlines close at frame edges
    binary[fy0 + 1 : fy1 + 1, fx0 + 1 : fx1 + 1] = seen > 127
    contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    outline = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64) - 1.0
    w, h = geom.size
    return np.clip(outline, 0, [w - 1, h - 1])


def _in_frame(px: np.ndarray, size: tuple[int, int]) -> bool:
    w, h = size
    return bool(np.all(np.isfinite(px)) and np.all(px >= 0) and np.all(px[:, 0] <= w - 1) and np.all(px[:, 1] <= h - 1))


def _light_field(size: tuple[int, int], strength: float, rng: np.random.Generator) -> np.ndarray:
    """A smooth brightness factor (h, w, 3) uint8, 255 = 1.0: a gradient across the table plus a vignette."""
    w, h = size
    gw, gh = 48, max(2, int(round(48 * h / w)))
    gx, gy = np.meshgrid(np.linspace(-1, 1, gw), np.linspace(-1, 1, gh))
    ang = rng.uniform(0, 2 * math.pi)
    cx, cy = rng.uniform(-0.3, 0.3, 2)
    grad = (math.cos(ang) * gx + math.sin(ang) * gy + 1.5) / 3.0
    vign = ((gx - cx) ** 2 + (gy - cy) ** 2) / 2.0
    f = np.clip(1.0 - min(strength, 1.0) * (0.45 * vign + 0.35 * grad), 0.05, 1.0)
    small = np.repeat((f * 255.0 + 0.5).astype(np.uint8)[..., None], 3, axis=2)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _add_noise(frame: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """The frame plus Gaussian noise N(0, sigma) per pixel and channel, rounded to whole grey levels, saturated.

    The noise is cut from randomly shifted, sign-flipped blocks of one 512 px tile (independent from pixel to
    pixel within a block, several times faster than drawing a 4K frame's worth of normals) and added a band of
    512 rows at a time, so no frame-sized int16 buffer is allocated.
    """
    t = 512
    h, w, c = frame.shape
    tile = np.rint(rng.standard_normal((t, t, c), dtype=np.float32) * np.float32(sigma)).astype(np.int16)
    tile2 = np.tile(tile, (2, 2, 1))
    band = np.empty((min(t, h), w, c), np.int16)
    out = np.empty_like(frame)
    for y in range(0, h, t):
        bh = min(t, h - y)
        for x in range(0, w, t):
            bw = min(t, w - x)
            oy, ox = rng.integers(0, t, 2)
            block = tile2[oy : oy + bh, ox : ox + bw]
            if rng.random() < 0.5:
                np.negative(block, out=band[:bh, x : x + bw])
            else:
                band[:bh, x : x + bw] = block
        out[y : y + bh] = cv2.add(frame[y : y + bh], band[:bh], dtype=cv2.CV_8U)
    return out


def _finish(frame: np.ndarray, options: RenderOptions, rng: np.random.Generator) -> np.ndarray:
    """Camera effects on the distorted frame: uneven light, optical blur, sensor noise, then JPEG."""
    if options.uneven_light > 0:
        lamp = rng if options.light_seed is None else np.random.default_rng([int(options.light_seed), 0x4C4954])
        frame = cv2.multiply(frame, _light_field((frame.shape[1], frame.shape[0]), float(options.uneven_light), lamp),
                             scale=1.0 / 255.0)
    if options.blur_sigma_px > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), float(options.blur_sigma_px))
    if options.noise_sigma > 0:
        frame = _add_noise(frame, float(options.noise_sigma), rng)
    if options.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(options.jpeg_quality)])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return frame


def _projector_homography(projector: VirtualCamera, z_mm: float) -> np.ndarray:
    """3x3 map from table (x, y, 1) on the plane z = z_mm to projector pixels (pinhole)."""
    rot = projector.pose.rotation
    t = np.asarray(projector.pose.tvec, float).ravel()
    return np.asarray(projector.intrinsics.camera_matrix, float) @ np.column_stack([rot[:, 0], rot[:, 1],
                                                                                     rot[:, 2] * z_mm + t])


def _light_in(geom: _Geometry, light: np.ndarray, projector: VirtualCamera, z_mm: float, box) -> np.ndarray:
    """The projector's image as it falls on the plane z = z_mm, in the canvas box (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    m = geom.homography(z_mm) @ np.linalg.inv(_projector_homography(projector, z_mm))
    m = np.array([[1.0, 0, -x0], [0, 1.0, -y0], [0, 0, 1.0]]) @ m
    return cv2.warpPerspective(light, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=0)


def _projected(canvas: np.ndarray, geom: _Geometry, scene: SyntheticScene, static: _Static,
               projection: ProjectedLight) -> np.ndarray:
    """The canvas lit by the projector: each surface (cloth, raised terrain, piece tops) gets the light that meets
    it at its height; the light multiplies the surface's own colour (its albedo), as on a real cloth."""
    img = np.asarray(projection.image)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if projection.blur_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), float(projection.blur_px))
    cw, ch = geom.canvas_size
    light = _light_in(geom, img, projection.projector, 0.0, (0, 0, cw, ch))
    surfaces = [(t.height_mm, np.column_stack([t.polygon_mm, np.full(len(t.polygon_mm), t.height_mm)]))
                for t in scene.terrain if t.height_mm > 0]
    for sh in static.shapes:  # far to near, as painted: a nearer piece's top over a farther one
        h = float(sh.placed.piece.marker_height_mm)
        surfaces.append((h, np.column_stack([sh.footprint, np.full(4, h)])))
    for z, poly in surfaces:
        px = geom.project(poly)
        box = _roi(px, (cw, ch))
        if box is None:
            continue
        x0, y0, x1, y1 = box
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [np.round(px - (x0, y0)).astype(np.int32)], 255)
        part = _light_in(geom, img, projection.projector, z, box)
        region = light[y0:y1, x0:x1]
        np.copyto(region, part, where=mask[:, :, None] > 0)
    gain = 1.0 + float(projection.brightness) * light.astype(np.float32) / 255.0
    return np.clip(canvas.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def _render(
    scene: SyntheticScene, camera: VirtualCamera, options: RenderOptions, static: _Static | None = None,
    hand_reach: float = 1.0, hand_seed: int | None = None,
) -> tuple[np.ndarray, GroundTruth, _Static]:
    geom = _geometry(camera)
    if static is None:
        static = _render_static(scene, geom)
    canvas = static.canvas
    if options.projection is not None:
        canvas = _projected(canvas, geom, scene, static, options.projection)
    hand_box = hand_cover = None
    hand_polygon = None
    if options.hand and hand_reach > 0:
        canvas = canvas.copy()
        targets = [(p.x_mm, p.y_mm) for p in scene.placements]
        hand = _hand_shapes(scene.layout, targets, options.seed if hand_seed is None else hand_seed, hand_reach)
        drawn = _draw_hand(canvas, geom, hand)
        if drawn is not None:
            hand_box, hand_cover = drawn
            hand_polygon = _outline_in_frame(geom, hand_box, hand_cover)
    frame = geom.distort(canvas)
    frame = _finish(frame, options, np.random.default_rng([int(options.seed), 0x4E4F49]))

    size = camera.image_size
    by_index = {sh.index: sh for sh in static.shapes}
    pieces = []
    for i, placed in enumerate(scene.placements):
        sh = by_index[i]
        corners = camera.project(sh.marker_corners_mm)
        visible = _in_frame(corners, size) and i not in static.occluded
        if visible and hand_cover is not None:
            visible = not _under_mask(sh.marker_px, hand_box, hand_cover)
        pieces.append(PieceTruth(placed.piece.id, placed.piece.marker, float(placed.x_mm), float(placed.y_mm),
                                 float(placed.heading_deg), corners, visible))
    anchor_corners, anchor_visible = {}, {}
    for a in scene.layout.anchors:
        corners = camera.project(a.corners_mm())
        anchor_corners[a.id] = corners
        vis = _in_frame(corners, size) and a.id not in static.anchors_occluded
        if vis and hand_cover is not None:
            vis = not _under_mask(static.anchor_px[a.id], hand_box, hand_cover)
        anchor_visible[a.id] = vis
    dice = tuple(_die_truth(camera, d) for d in scene.dice)
    truth = GroundTruth(camera, tuple(pieces), anchor_corners, hand_polygon, anchor_visible, dice)
    return frame, truth, static


def render_table(
    scene: SyntheticScene, camera: VirtualCamera, options: RenderOptions = RenderOptions()
) -> tuple[np.ndarray, GroundTruth]:
    """BGR uint8 frame of camera.intrinsics.image_size (height, width, 3), and its ground truth."""
    frame, truth, _ = _render(scene, camera, options)
    return frame, truth


# ----------------------------------------------------------------------------------------------------------------
# Scenes
# ----------------------------------------------------------------------------------------------------------------


def standard_layout(
    width_mm: float = 2400.0, depth_mm: float = 1200.0, field_mm: float = 60.0, anchor_mm: float = 50.0,
    dictionary: str = "DICT_4X4_250", raised_mm: tuple[float, ...] = (),
) -> TableLayout:
    """A table with 8 anchors and a square grid.

    `raised_mm` gives anchors 0, 1, 2 ... in turn a height (their face that far above the cloth, on a block).

    Anchors (ids 0..7, black square `anchor_mm`, top edge toward +y): 0 south-west, 1 south-east, 2 north-east,
    3 north-west corner, then the edge midpoints 4 south, 5 east, 6 north, 7 west. Centres are inset
    anchor_mm / 2 + 2 modules (rounded up to whole mm) from the edges, so the black square, a one-module white
    quiet zone and a module of cloth beyond it lie on the table. The grid of `field_mm` fields starts at the
    origin and covers the table (2400 x 1200 at 60 -> 40 x 20).
    """
    module = anchor_mm / _modules(dictionary)
    inset = float(math.ceil(anchor_mm / 2.0 + 2.0 * module))
    w, d = float(width_mm), float(depth_mm)
    centres = [
        (inset, inset), (w - inset, inset), (w - inset, d - inset), (inset, d - inset),
        (w / 2, inset), (w - inset, d / 2), (w / 2, d - inset), (inset, d / 2),
    ]
    heights = list(raised_mm) + [0.0] * (len(centres) - len(raised_mm))
    anchors = tuple(Anchor(i, float(x), float(y), float(anchor_mm), z_mm=float(z))
                    for i, ((x, y), z) in enumerate(zip(centres, heights, strict=True)))
    grid = Grid(0.0, 0.0, float(field_mm), int(w // field_mm), int(d // field_mm))
    return TableLayout(w, d, dictionary, anchors, grid)


def _footprint(x: float, y: float, heading: float, base: tuple[float, float], grow: float = 0.0) -> np.ndarray:
    fwd, right = _directions(heading)
    bw, bd = base[0] / 2.0 + grow, base[1] / 2.0 + grow
    c = np.array([x, y])
    return np.array([c - right * bw + fwd * bd, c + right * bw + fwd * bd, c + right * bw - fwd * bd,
                     c - right * bw - fwd * bd])


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Do two convex polygons (N, 2) overlap? (separating axis test; touching counts as apart)"""
    for poly in (a, b):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            n = np.array([-e[1], e[0]])
            pa, pb = a @ n, b @ n
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def random_scene(
    layout: TableLayout, n_pieces: int, rng: np.random.Generator, heights_mm=(3.0, 25.0, 50.0), marker_mm: float = 20.0,
    base_mm: tuple[float, float] = (40.0, 30.0), first_marker: int = 10, dictionary: str | None = None,
) -> SyntheticScene:
    """`n_pieces` pieces at random, non-overlapping places with random headings.

    Bases (`base_mm`: width, depth) keep 2 mm from each other, 3 mm from the table edge and clear of the anchors'
    paper (black square plus quiet zone). Marker heights come from `heights_mm`, sides "FR"/"AU", types
    infantry/cavalry/artillery; markers are numbered from `first_marker` skipping anchor ids. The roster
    dictionary is the layout's unless given. Raises ValueError when the pieces do not fit or run out of ids.
    """
    dictionary = dictionary or layout.dictionary
    n_ids = int(aruco_dictionary(dictionary).bytesList.shape[0])
    blocked = []  # anchors' paper: (centre, circumradius, square)
    for a in layout.anchors:
        paper = _paper_mm(layout.dictionary, a.size_mm)
        blocked.append((np.array([a.x_mm, a.y_mm]), paper * 0.71 + 1.0,
                        _footprint(a.x_mm, a.y_mm, 0.0, (paper, paper), 1.0)))
    placed_polys: list[np.ndarray] = []
    centres: list[np.ndarray] = []
    radius = 0.5 * math.hypot(*base_mm) + 1.0
    counters = {"FR": 0, "AU": 0}
    marker = first_marker
    placements = []
    pieces = []
    w, d = float(layout.width_mm), float(layout.depth_mm)
    for _ in range(int(n_pieces)):
        while marker in layout.anchor_ids:
            marker += 1
        if marker >= n_ids:
            raise ValueError(f"{dictionary} has only {n_ids} markers; cannot number {n_pieces} pieces")
        for _attempt in range(3000):
            heading = float(rng.uniform(0.0, 360.0))
            x = float(rng.uniform(radius + 3, w - radius - 3))
            y = float(rng.uniform(radius + 3, d - radius - 3))
            poly = _footprint(x, y, heading, base_mm, 1.0)
            c = np.array([x, y])
            if centres:
                near = np.nonzero(np.hypot(*(np.asarray(centres) - c).T) < 2 * radius)[0]
                if any(_overlap(poly, placed_polys[j]) for j in near):
                    continue
            if any(np.hypot(*(c - bc)) < radius + br and _overlap(poly, b) for bc, br, b in blocked):
                continue
            break
        else:
            raise ValueError(f"could not place {n_pieces} pieces on a {w:g} x {d:g} mm table")
        side = "FR" if rng.random() < 0.5 else "AU"
        kind = ("infantry", "cavalry", "artillery")[int(rng.integers(3))]
        height = float(heights_mm[int(rng.integers(len(heights_mm)))])
        counters[side] += 1
        piece = Piece(f"{side.lower()}-{counters[side]}", marker, side, kind, (float(base_mm[0]), float(base_mm[1])),
                      float(marker_mm), height)
        pieces.append(piece)
        placements.append(PlacedPiece(piece, x, y, heading))
        placed_polys.append(poly)
        centres.append(c)
        marker += 1
    return SyntheticScene(layout, Roster(dictionary, tuple(pieces)), tuple(placements))


def _data_path(name: str):
    return resources.files("fieldglass").joinpath("data", name)


# Base centre (mm) and heading of every demo piece: French line in the south facing north, Austrians facing south.
_DEMO_PLACES: dict[str, tuple[float, float, float]] = {
    "fr-1-1": (870, 390, 0), "fr-1-2": (930, 392, 2), "fr-1-3": (990, 388, -3), "fr-1-4": (1077, 390, 4),
    "fr-2-1": (1230, 361, 0), "fr-2-2": (1290, 390, 1), "fr-2-3": (1350, 391, -2), "fr-2-4": (1410, 389, 8),
    "fr-c-1": (630, 330, 22), "fr-c-2": (1682, 330, -18), "fr-a-1": (990, 480, 0), "fr-a-2": (1322, 482, 5),
    "au-1-1": (810, 810, 180), "au-1-2": (870, 812, 178), "au-1-3": (930, 808, 183), "au-1-4": (990, 838, 180),
    "au-2-1": (1201, 810, 180), "au-2-2": (1290, 810, 181), "au-2-3": (1350, 806, 176), "au-2-4": (1432, 842, 225),
    "au-c-1": (570, 880, 200), "au-c-2": (1740, 870, 160), "au-a-1": (1050, 722, 180), "au-a-2": (1290, 724, 175),
}

_DEMO_TERRAIN = (
    TerrainPiece("wood", np.array([[250, 520], [360, 490], [500, 530], [540, 640], [480, 750], [340, 760],
                                   [260, 690], [230, 600]], float)),
    TerrainPiece("hill", np.array([[1520, 540], [1640, 510], [1780, 545], [1830, 620], [1760, 690], [1600, 700],
                                   [1510, 640]], float)),
    TerrainPiece("town", np.array([[1950, 420], [2170, 400], [2200, 560], [2120, 660], [1980, 640]], float)),
)


def demo_scene() -> SyntheticScene:
    """The embedded demo: fieldglass/data/demo_layout.toml and demo_roster.toml at fixed, game-like places.

    Two lines of French (south, facing north) and Austrian (north, facing south) infantry, cavalry on the wings,
    guns in front, a few bases within a few mm of a field edge and one Austrian wheeling; a wood, a hill and a town.
    """
    with resources.as_file(_data_path("demo_layout.toml")) as p:
        layout = load_layout(p)
    with resources.as_file(_data_path("demo_roster.toml")) as p:
        roster = load_roster(p)
    placements = []
    for piece in roster.pieces:
        if piece.id in _DEMO_PLACES:
            x, y, hd = _DEMO_PLACES[piece.id]
            placements.append(PlacedPiece(piece, float(x), float(y), float(hd) % 360.0))
    return SyntheticScene(layout, roster, tuple(placements), _DEMO_TERRAIN)


# ----------------------------------------------------------------------------------------------------------------
# A frame source
# ----------------------------------------------------------------------------------------------------------------


class SyntheticSource:
    """Frames of one scene rendered again and again, like a camera that never moves.

    Iterating yields (frame_number, BGR uint8 frame), frame numbers from 0; `.truth` is the GroundTruth of the last
    frame, `.camera` the VirtualCamera. The static part of the scene is rendered once. With `fresh_noise` every
    frame gets its own noise (seed + frame number); with `hand_period` (frames) a hand reaches in over the table
    and out again once per period; `options.hand` keeps a still hand in every frame. `frames` limits the count
    (None: endless), `fps` paces the frames in real time (None: as fast as they render).
    """

    def __init__(
        self, scene: SyntheticScene | None = None, camera: VirtualCamera | None = None,
        options: RenderOptions | None = None, *, resolution: tuple[int, int] = (1920, 1080), tilt_deg: float = 0.0,
        frames: int | None = None, fresh_noise: bool = True, hand_period: int | None = None, fps: float | None = None,
    ):
        self.scene = scene if scene is not None else demo_scene()
        lay = self.scene.layout
        self._camera = camera or VirtualCamera.looking_at_table(lay.width_mm, lay.depth_mm, resolution,
                                                                tilt_deg=tilt_deg)
        self.options = options if options is not None else RenderOptions(
            blur_sigma_px=0.6, noise_sigma=2.5, uneven_light=0.25, jpeg_quality=92
        )
        self.frames = frames
        self.fresh_noise = fresh_noise
        self.hand_period = hand_period
        self.fps = fps
        self.truth: GroundTruth | None = None
        self._static: _Static | None = None
        self._closed = False
        self._next = 0
        self._dice_plan: list = []  # the dice's states for the next frames (`throw_dice`)

    @property
    def camera(self) -> VirtualCamera:
        return self._camera

    def read(self) -> tuple[int, np.ndarray] | None:
        """The next (frame_number, frame), or None when closed or out of frames."""
        if self._closed or (self.frames is not None and self._next >= self.frames):
            return None
        i = self._next
        self._next += 1
        opts = self.options
        if self.fresh_noise:
            # fresh noise, one lamp: the light would otherwise jump at every frame (no real lamp does)
            lamp = opts.seed if opts.light_seed is None else opts.light_seed
            opts = replace(opts, seed=opts.seed + i, light_seed=lamp)
        reach, hand_seed = 1.0, self.options.seed
        if self.hand_period and not self.options.hand:
            period = max(2, int(self.hand_period))
            k, phase = divmod(i, period)
            reach = math.sin(math.pi * phase / period) ** 0.7 * 1.05
            hand_seed = self.options.seed + 7 * k
            opts = replace(opts, hand=reach > 0.05)
        plan = self._dice_plan
        if plan:
            self.scene = replace(self.scene, dice=plan.pop(0))
            self._static = None  # the dice are part of the still table
        frame, truth, self._static = _render(self.scene, self._camera, opts, self._static, min(reach, 1.0), hand_seed)
        self.truth = truth
        return i, frame

    def throw_dice(self, states: list[tuple[PlacedDie, ...]]) -> None:
        """Dice thrown on the table from the next frame: each of `states` for one frame (the dice tumbling), the
        last one kept (the dice lying still) until the next throw. Safe to call from another thread than the one
        reading the frames (the plan is taken whole)."""
        self._dice_plan = list(states)

    def __iter__(self) -> Iterator[tuple[int, np.ndarray]]:
        t0 = time.monotonic()
        while True:
            item = self.read()
            if item is None:
                return
            if self.fps:
                delay = t0 + item[0] / self.fps - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            yield item

    def close(self) -> None:
        self._closed = True
        self._static = None

    def __enter__(self) -> SyntheticSource:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def demo_files() -> tuple[Path, Path]:
    """Paths of the embedded demo layout and roster (for commands that want to show or copy them)."""
    return Path(str(_data_path("demo_layout.toml"))), Path(str(_data_path("demo_roster.toml")))
