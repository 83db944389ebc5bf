"""The projector over the table: a map from table mm (at a height z) to projector pixels, fitted from a pattern it
shows.

The projector is a camera run backwards (a pinhole with intrinsics, a little radial distortion, and a pose), so it is
fitted with OpenCV's camera calibration: the pattern's marker corners are known in projector pixels; the camera sees
them on the table, and `pixels_to_table` at the height of the surface each lies on turns them into table mm. The
corners on the cloth and on a raised surface (a hill, a battle board lying on the map) together are not coplanar,
which fixes the projector's focal length and optical centre; from the cloth alone the optical centre cannot be told
from the pose, and the map is the plane's homography, exact on the cloth only ("homography" in the file).

The projector is assumed fixed to the camera (one rig above the table), so its pose is kept relative to the camera:
when the camera re-registers the table (the table or the cloth was moved), `following` gives the map in the new table
frame.

Projector file (JSON)::

    {"image_size": [w, h], "camera_matrix": [[f,0,cx],[0,f,cy],[0,0,1]], "dist_coeffs": [k1,k2,p1,p2,k3],
     "rvec": [..3], "tvec": [..3 mm], "camera_rvec": [..3], "camera_tvec": [..3 mm],
     "heights_mm": [0.0, 40.0], "points": n, "rms_mm": r, "max_mm": m, "screen": N or null}

(`rvec`/`tvec`: the projector's pose in the table frame, x_proj = R x_table + t; `camera_*`: the camera's pose when
it was calibrated; `heights_mm`: the surfaces the pattern was seen on; `rms_mm`/`max_mm`: the fit's residuals in
table mm.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.projection import pixels_to_table, table_to_pixels
from common.errors import InputError
from common.files import check_keys, read_json
from common.outfiles import write_text

PATTERN_DICTIONARY = "DICT_5X5_250"
"""The pattern's markers: another family than the pieces' and anchors' 4x4, so a pattern is never read as a piece."""
MIN_POINTS = 12
"""Marker corners needed to fit the map (three markers): fewer leave it undetermined."""
MIN_RELIEF_MM = 5.0
"""Pattern corners this far apart in height make the fit a full pinhole (optical centre free)."""
OUTLIER_MM = 3.0
"""A corner whose fit misses it by more than this (and 4x the median) is dropped and the map fitted again: a marker
split by a surface's edge, a misread."""


@dataclass(frozen=True)
class RaisedSurface:
    """A flat surface above the cloth: `polygon_mm` (N, 2) table mm, its top `height_mm` above the cloth."""

    polygon_mm: np.ndarray
    height_mm: float

    def holds(self, xy: np.ndarray) -> np.ndarray:
        poly = np.asarray(self.polygon_mm, np.float32).reshape(-1, 1, 2)
        return np.array([cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0 for x, y in xy], bool)


def height_function(surfaces: Sequence[RaisedSurface]) -> Callable[[np.ndarray], np.ndarray]:
    """Table (N, 2) mm -> the height (N,) of the surface there: the first raised surface holding it, else 0."""

    def height_at(xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, float).reshape(-1, 2)
        z = np.zeros(len(xy))
        todo = np.ones(len(xy), bool)
        for s in surfaces:
            inside = todo & s.holds(xy)
            z[inside] = s.height_mm
            todo &= ~inside
        return z

    return height_at


@dataclass(frozen=True)
class ProjectorModel:
    """The projector as a pinhole: `intrinsics` (its image size, camera matrix, distortion) and `pose` in the table
    frame; `camera_pose` is the camera's pose the fit was made in (see `following`)."""

    intrinsics: CameraIntrinsics
    pose: CameraPose
    camera_pose: CameraPose
    heights_mm: tuple[float, ...] = (0.0,)
    points: int = 0
    rms_mm: float = 0.0
    max_mm: float = 0.0
    screen: int | None = None
    homography: np.ndarray | None = field(default=None, compare=False)
    """Fitted from the cloth alone: the plane's exact map (table x, y, 1 -> projector px), used at every height
    (`intrinsics` and `pose` are then only a nominal pinhole near it)."""

    @property
    def image_size(self) -> tuple[int, int]:
        return (int(self.intrinsics.image_size[0]), int(self.intrinsics.image_size[1]))

    def to_pixels(self, points_mm: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Table points (N, 2) at height `z_mm`, or (N, 3), -> projector pixels (N, 2) (OpenCV: pixel centres at
        integers)."""
        pts = np.asarray(points_mm, float)
        if pts.ndim == 1:
            pts = pts.reshape(1, -1)
        if pts.shape[1] == 2:
            pts = np.column_stack([pts, np.broadcast_to(np.asarray(z_mm, float), (len(pts),))])
        if self.homography is not None:
            if len(pts) == 0:
                return np.zeros((0, 2))
            return cv2.perspectiveTransform(pts[:, :2].reshape(-1, 1, 2), self.homography).reshape(-1, 2)
        return table_to_pixels(pts, self.intrinsics, self.pose)

    def to_table(self, pixels: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Projector pixels (N, 2) -> where their light meets the plane z = `z_mm` (table mm, (N, 2))."""
        if self.homography is not None:
            px = np.asarray(pixels, float).reshape(-1, 1, 2)
            return cv2.perspectiveTransform(px, np.linalg.inv(self.homography)).reshape(-1, 2)
        return pixels_to_table(pixels, self.intrinsics, self.pose, z_mm)

    def mm_per_px(self, xy_mm: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Table mm per projector pixel near each point (N, 2): turns a pixel error into mm on the cloth."""
        xy = np.asarray(xy_mm, float).reshape(-1, 2)
        z = np.broadcast_to(np.asarray(z_mm, float), (len(xy),))
        p0 = self.to_pixels(xy, z)
        px = self.to_pixels(xy + [1.0, 0.0], z)
        py = self.to_pixels(xy + [0.0, 1.0], z)
        px_per_mm = 0.5 * (np.linalg.norm(px - p0, axis=1) + np.linalg.norm(py - p0, axis=1))
        return 1.0 / np.maximum(px_per_mm, 1e-9)

    def following(self, camera_pose: CameraPose) -> ProjectorModel:
        """The map once the camera has re-registered the table at `camera_pose` (the table moved under the rig):
        the projector keeps its place relative to the camera."""
        r_ct0, t_ct0 = _rt(self.camera_pose)
        r_pt0, t_pt0 = _rt(self.pose)
        r_pc = r_pt0 @ r_ct0.T  # projector from camera
        t_pc = t_pt0 - r_pc @ t_ct0
        r_ct, t_ct = _rt(camera_pose)
        r_new = r_pc @ r_ct
        t_new = r_pc @ t_ct + t_pc
        pose = CameraPose(cv2.Rodrigues(r_new)[0].ravel(), t_new)
        hom = self.homography
        if hom is not None:  # a point (x, y) of the new table frame on the cloth, in the old frame
            b = r_ct0.T @ np.column_stack([r_ct[:, 0], r_ct[:, 1], t_ct - t_ct0])
            hom = hom @ np.vstack([b[:2], [0.0, 0.0, 1.0]])
        return replace(self, pose=pose, camera_pose=camera_pose, homography=hom)

    def to_json(self) -> dict:
        k = self.intrinsics
        return {
            "image_size": list(self.image_size),
            "camera_matrix": np.asarray(k.camera_matrix, float).tolist(),
            "dist_coeffs": np.asarray(k.dist_coeffs, float).ravel().tolist(),
            "rvec": np.asarray(self.pose.rvec, float).ravel().tolist(),
            "tvec": np.asarray(self.pose.tvec, float).ravel().tolist(),
            "camera_rvec": np.asarray(self.camera_pose.rvec, float).ravel().tolist(),
            "camera_tvec": np.asarray(self.camera_pose.tvec, float).ravel().tolist(),
            "heights_mm": [float(h) for h in self.heights_mm],
            "points": int(self.points),
            "rms_mm": float(self.rms_mm),
            "max_mm": float(self.max_mm),
            "screen": self.screen,
            "homography": None if self.homography is None else np.asarray(self.homography, float).tolist(),
        }


_FILE_KEYS = ("image_size", "camera_matrix", "dist_coeffs", "rvec", "tvec", "camera_rvec", "camera_tvec",
              "heights_mm", "points", "rms_mm", "max_mm", "screen", "homography")


def _rt(pose: CameraPose) -> tuple[np.ndarray, np.ndarray]:
    return pose.rotation, np.asarray(pose.tvec, float).ravel()


def _vector(data: dict, key: str, n: int, source: str) -> np.ndarray:
    v = data.get(key)
    ok = (isinstance(v, list) and len(v) == n
          and all(not isinstance(x, bool) and isinstance(x, int | float) for x in v))
    arr = np.asarray(v, float) if ok else None
    if arr is None or not np.all(np.isfinite(arr)) or np.any(np.abs(arr) > 1e7):
        raise InputError(f"{source}: {key!r} must be {n} finite numbers, not {v!r}")
    return arr


def projector_from_json(data, source: str = "projector file") -> ProjectorModel:
    """Read the projector file's object, every value checked, naming `source` and the key on any problem."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: not a projector file (expected a JSON object)")
    check_keys(data, _FILE_KEYS, source)
    missing = [k for k in ("image_size", "camera_matrix", "dist_coeffs", "rvec", "tvec") if k not in data]
    if missing:
        raise InputError(f"{source}: not a projector file (missing {', '.join(map(repr, missing))})")
    intrinsics = CameraIntrinsics.from_json({k: data[k] for k in ("image_size", "camera_matrix", "dist_coeffs")},
                                            source)
    pose = CameraPose(_vector(data, "rvec", 3, source), _vector(data, "tvec", 3, source))
    if "camera_rvec" in data or "camera_tvec" in data:
        camera_pose = CameraPose(_vector(data, "camera_rvec", 3, source), _vector(data, "camera_tvec", 3, source))
    else:
        camera_pose = pose
    heights = data.get("heights_mm", [0.0])
    if not (isinstance(heights, list) and heights
            and all(not isinstance(h, bool) and isinstance(h, int | float) and -1000 < h < 1000 for h in heights)):
        raise InputError(f"{source}: 'heights_mm' must list the surfaces' heights in mm, not {heights!r}")
    numbers = {}
    for key in ("rms_mm", "max_mm"):
        v = data.get(key, 0.0)
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v < 1e6:
            raise InputError(f"{source}: {key!r} must be a finite number of mm >= 0, not {v!r}")
        numbers[key] = float(v)
    points = data.get("points", 0)
    if isinstance(points, bool) or not isinstance(points, int) or points < 0:
        raise InputError(f"{source}: 'points' must be a whole number >= 0, not {points!r}")
    screen = data.get("screen")
    if screen is not None and (isinstance(screen, bool) or not isinstance(screen, int) or screen < 0):
        raise InputError(f"{source}: 'screen' must be a display index >= 0 or null, not {screen!r}")
    hom = data.get("homography")
    if hom is not None:
        ok = isinstance(hom, list) and len(hom) == 3 and all(isinstance(r, list) and len(r) == 3 for r in hom)
        arr = np.asarray(_vector({"homography": sum(hom, [])}, "homography", 9, source)).reshape(3, 3) if ok else None
        if arr is None or abs(np.linalg.det(arr)) < 1e-12:
            raise InputError(f"{source}: 'homography' must be an invertible 3x3 matrix or null, not {hom!r}")
        hom = arr
    return ProjectorModel(intrinsics, pose, camera_pose, tuple(float(h) for h in heights), points,
                          numbers["rms_mm"], numbers["max_mm"], screen, hom)


def load_projector(path: str | Path) -> ProjectorModel:
    """Read a projector file (JSON); raise InputError naming the file on any problem."""
    return projector_from_json(read_json(path, "projector file"), str(path))


def save_projector(model: ProjectorModel, path: str | Path, inputs=()) -> None:
    """Write the projector file whole or not at all, never over one of `inputs`."""
    write_text(path, json.dumps(model.to_json(), indent=2) + "\n", inputs)


# ----------------------------------------------------------------------------------------------------------------
# The pattern
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    """What the projector shows to be calibrated: `image` (h, w) uint8, white with black markers, and each marker's
    corners (4, 2) in projector pixels (ArUco order)."""

    image: np.ndarray
    corners_px: dict[int, np.ndarray]


def marker_pattern(image_size: tuple[int, int], columns: int = 15, rows: int = 9, fill: float = 0.55,
                   shift: tuple[float, float] = (0.0, 0.0)) -> Pattern:
    """A grid of `columns` x `rows` markers of PATTERN_DICTIONARY over the whole projector image, each taking `fill`
    of its cell (the rest white: the quiet zone), the grid moved by `shift` cells (patterns shown one after another
    with different shifts put corners where another's marker was split by an edge or hidden by a piece)."""
    w, h = int(image_size[0]), int(image_size[1])
    if columns * rows > 250:
        raise ValueError("at most 250 markers in the pattern")
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, PATTERN_DICTIONARY))
    img = np.full((h, w), 255, np.uint8)
    cell_w, cell_h = w / columns, h / rows
    side = int(min(cell_w, cell_h) * fill) // 7 * 7  # whole pixels per module (5 bits + 2 border)
    if side < 14:
        raise ValueError(f"projector image {w}x{h} too small for {columns}x{rows} markers")
    corners: dict[int, np.ndarray] = {}
    for r in range(rows):
        for c in range(columns):
            mid = r * columns + c
            x0 = int(round((c + 0.5 + shift[0]) * cell_w - side / 2))
            y0 = int(round((r + 0.5 + shift[1]) * cell_h - side / 2))
            if x0 < 0 or y0 < 0 or x0 + side > w or y0 + side > h:
                continue
            img[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(dictionary, mid, side)
            # a marker filling pixels x0..x0+side-1 has its outer edge half a pixel outside their centres
            a, b = x0 - 0.5, y0 - 0.5
            corners[mid] = np.array([[a, b], [a + side, b], [a + side, b + side], [a, b + side]], float)
    return Pattern(img, corners)


def detect_pattern(image: np.ndarray) -> dict[int, np.ndarray]:
    """The pattern's markers in a camera frame: id -> corners (4, 2) camera px, refined to sub-pixel."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    params.cornerRefinementMinAccuracy = 0.01
    params.cornerRefinementMaxIterations = 60
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, PATTERN_DICTIONARY))
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): np.asarray(c, float).reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}


def pattern_on_table(
    seen_px: Mapping[int, np.ndarray], camera: CameraIntrinsics, camera_pose: CameraPose,
    height_at: Callable[[np.ndarray], np.ndarray] | None = None,
) -> dict[int, np.ndarray]:
    """Each seen marker's corners in table mm (4, 3): the camera's rays met with the surface they lie on (the cloth,
    or a raised surface per `height_at`). A marker whose corners fall on different surfaces (split by an edge) is
    left out."""
    out: dict[int, np.ndarray] = {}
    for mid, px in seen_px.items():
        px = np.asarray(px, float).reshape(4, 2)
        z = np.zeros(4)
        for _ in range(3):  # a raised surface's point seen at z=0 lies beyond it: find the surface, meet it there
            xy = pixels_to_table(px, camera, camera_pose, z)
            if not np.all(np.isfinite(xy)):
                break
            new = np.zeros(4) if height_at is None else height_at(xy)
            if np.allclose(new, z):
                break
            z = new
        if np.all(np.isfinite(xy)) and np.ptp(z) < 1e-9:
            out[mid] = np.column_stack([xy, z])
    return out


# ----------------------------------------------------------------------------------------------------------------
# The fit
# ----------------------------------------------------------------------------------------------------------------


_BASE_FLAGS = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_ZERO_TANGENT_DIST
               | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)


def fit_projector(
    table_mm: np.ndarray, projector_px: np.ndarray, image_size: tuple[int, int], camera_pose: CameraPose,
    screen: int | None = None,
) -> ProjectorModel:
    """The projector's map fitted to corresponding table points (N, 3 mm) and projector pixels (N, 2).

    Raises ValueError with fewer than MIN_POINTS points. Points the fit misses by more than OUTLIER_MM are dropped
    and the map fitted again; `rms_mm`, `max_mm` are the kept points' residuals in table mm."""
    obj = np.asarray(table_mm, float).reshape(-1, 3)
    img = np.asarray(projector_px, float).reshape(-1, 2)
    if len(obj) < MIN_POINTS:
        raise ValueError(f"{len(obj)} pattern corners on the table, at least {MIN_POINTS} needed")
    keep = _plane_inliers(obj, img)
    if keep.sum() < MIN_POINTS:
        raise ValueError(f"only {int(keep.sum())} pattern corners agree with each other, at least {MIN_POINTS} needed")
    for _ in range(3):
        model = _fit(obj[keep], img[keep], image_size, camera_pose, screen)
        err = _errors_mm(model, obj, img)
        limit = max(OUTLIER_MM, 4.0 * float(np.median(err[keep])))
        new_keep = err <= limit
        if new_keep.sum() < MIN_POINTS or np.array_equal(new_keep, keep):
            break
        keep = new_keep
    err = _errors_mm(model, obj[keep], img[keep])
    heights = tuple(sorted({round(float(z), 1) for z in obj[keep, 2]}))
    return replace(model, heights_mm=heights, points=int(keep.sum()), rms_mm=float(np.sqrt(np.mean(err**2))),
                   max_mm=float(err.max()))


RANSAC_PX = 3.0
"""A corner further than this (projector px) from its surface's homography fitted to the others is a misread."""


def _plane_inliers(obj: np.ndarray, img: np.ndarray) -> np.ndarray:
    """The corners that agree with the others on their surface (a homography per height, RANSAC): misread corners
    would pull the pinhole's first fit into a wrong minimum. A surface with too few corners keeps them all."""
    keep = np.ones(len(obj), bool)
    for z in np.unique(np.round(obj[:, 2], 1)):
        on = np.abs(obj[:, 2] - z) < 0.05
        if on.sum() < 8:
            continue
        _, mask = cv2.findHomography(obj[on, :2], img[on], cv2.RANSAC, RANSAC_PX)
        if mask is not None:
            keep[np.flatnonzero(on)] = mask.ravel() > 0
    return keep


def _fit(obj: np.ndarray, img: np.ndarray, image_size, camera_pose: CameraPose, screen) -> ProjectorModel:
    w, h = int(image_size[0]), int(image_size[1])
    planar = np.ptp(obj[:, 2]) < MIN_RELIEF_MM
    k0 = np.array([[w, 0.0, (w - 1) / 2.0], [0.0, w, (h - 1) / 2.0], [0.0, 0.0, 1.0]])
    if planar:
        # one plane cannot tell the optical centre from the pose: its map is a homography (8 numbers, the pinhole
        # has 9), fitted as that; a nominal pinhole (centre at the image centre) stands beside it
        z0 = float(np.median(obj[:, 2]))
        hom, _ = cv2.findHomography(obj[:, :2], img, 0)
        if hom is None:
            raise ValueError("the pattern's corners on the table are degenerate (all on a line?)")
        ok, rvec, tvec = cv2.solvePnP(obj, img, k0, np.zeros(5), flags=cv2.SOLVEPNP_SQPNP)
        intr = CameraIntrinsics((w, h), k0, np.zeros(5))
        return ProjectorModel(intr, CameraPose(rvec.ravel(), tvec.ravel()), camera_pose, (z0,), screen=screen,
                              homography=hom / hom[2, 2])
    # the focal length is started from several throws (a near fronto-parallel plane leaves initCameraMatrix2D's
    # guess far off, and the fit then slides into a far-away projector): the best fit wins
    best = None
    for throw in (0.5, 0.8, 1.2, 1.8, 2.7):
        k0 = np.array([[throw * w, 0.0, (w - 1) / 2.0], [0.0, throw * w, (h - 1) / 2.0], [0.0, 0.0, 1.0]])
        ok, rvec, tvec = cv2.solvePnP(obj, img, k0, np.zeros(5), flags=cv2.SOLVEPNP_SQPNP)
        if not ok:
            continue
        fit = cv2.calibrateCamera(
            [obj.astype(np.float32)], [img.astype(np.float32)], (w, h), k0, np.zeros(5),
            [rvec.astype(np.float64)], [tvec.astype(np.float64)], flags=_BASE_FLAGS | cv2.CALIB_USE_EXTRINSIC_GUESS)
        if np.isfinite(fit[0]) and fit[1][0, 0] > 0 and (best is None or fit[0] < best[0]):
            best = fit
    if best is None:
        raise ValueError("the projector's map could not be fitted to the pattern's corners")
    rms, k, d, rvecs, tvecs = best
    intr = CameraIntrinsics((w, h), np.asarray(k, float), np.asarray(d, float).ravel()[:5])
    pose = CameraPose(np.asarray(rvecs[0], float).ravel(), np.asarray(tvecs[0], float).ravel())
    return ProjectorModel(intr, pose, camera_pose, screen=screen)


def _errors_mm(model: ProjectorModel, obj: np.ndarray, img: np.ndarray) -> np.ndarray:
    """Each point's residual in table mm: where the fitted map's pixel for the point lands against where it is."""
    landed = model.to_table(img, obj[:, 2])
    return np.linalg.norm(landed - obj[:, :2], axis=1)


PATTERN_SHIFTS = ((0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5))
"""The patterns shown one after another by a calibration (see `marker_pattern`)."""


def calibration_patterns(image_size: tuple[int, int]) -> list[Pattern]:
    """What the projector shows, in turn, to be calibrated."""
    return [marker_pattern(image_size, shift=s) for s in PATTERN_SHIFTS]


def calibrate_from_views(
    views: Sequence[tuple[Mapping[int, np.ndarray], Pattern, CameraIntrinsics, CameraPose]],
    image_size: tuple[int, int], height_at: Callable[[np.ndarray], np.ndarray] | None = None,
    screen: int | None = None,
) -> ProjectorModel:
    """The projector fitted from camera views of patterns: each view is (markers seen: id -> 4x2 camera px, the
    pattern shown, the camera, its pose on the table). The last view's camera pose is the one the map follows
    from."""
    if not views:
        raise ValueError("no views of the pattern")
    obj, img = [], []
    for seen, pattern, camera, pose in views:
        on_table = pattern_on_table(seen, camera, pose, height_at)
        for mid, pts in on_table.items():
            if mid in pattern.corners_px:
                obj.append(pts)
                img.append(pattern.corners_px[mid])
    if not obj:
        raise ValueError("none of the pattern's markers was seen on the table")
    return fit_projector(np.concatenate(obj), np.concatenate(img), image_size, views[-1][3], screen)


def landing_error_mm(fitted: ProjectorModel, true: ProjectorModel, xy_mm: np.ndarray, z_mm: float) -> np.ndarray:
    """How far from each table point (N, 2) at height `z_mm` the light lands that the fitted map sends to it, with
    the true projector: the overlay's error on the cloth (a test and benchmark figure)."""
    px = fitted.to_pixels(xy_mm, z_mm)
    return np.linalg.norm(true.to_table(px, z_mm) - np.asarray(xy_mm, float).reshape(-1, 2), axis=1)


def table_grid(width_mm: float, depth_mm: float, step_mm: float = 50.0, margin_mm: float = 0.0) -> np.ndarray:
    """Points (N, 2) every `step_mm` over the table (a figure's sample)."""
    xs = np.arange(margin_mm, width_mm - margin_mm + 1e-9, step_mm)
    ys = np.arange(margin_mm, depth_mm - margin_mm + 1e-9, step_mm)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


# ----------------------------------------------------------------------------------------------------------------
# Keeping light off the markers
# ----------------------------------------------------------------------------------------------------------------

KEEP_OUT_MM = 6.0
"""Margin kept dark around a base or an anchor: the projector's blur and the map's error stay off the marker and its
quiet zone."""


def grown(polygon_mm: np.ndarray, margin_mm: float) -> np.ndarray:
    """A convex polygon (N, 2) pushed out by `margin_mm` from its centre (each corner along its diagonal)."""
    p = np.asarray(polygon_mm, float).reshape(-1, 2)
    c = p.mean(0)
    d = p - c
    n = np.linalg.norm(d, axis=1, keepdims=True)
    return p + d / np.maximum(n, 1e-9) * margin_mm * np.sqrt(2.0)


def keep_out_px(model: ProjectorModel, polygon_mm: np.ndarray, top_mm: float = 0.0, base_mm: float = 0.0,
                margin_mm: float = KEEP_OUT_MM) -> np.ndarray:
    """The projector pixels (M, 2, a convex polygon) whose light would fall on a box standing on `polygon_mm` (table
    mm) from `base_mm` to `top_mm` high, its sides and marker, grown by `margin_mm`: what is left dark."""
    p = grown(polygon_mm, margin_mm)
    px = np.vstack([model.to_pixels(p, base_mm), model.to_pixels(p, top_mm)])
    px = px[np.all(np.isfinite(px), axis=1)]
    if len(px) < 3:
        return np.zeros((0, 2))
    return cv2.convexHull(px.astype(np.float32)).reshape(-1, 2).astype(float)
