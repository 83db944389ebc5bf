"""Camera intrinsics from photos of a printed calibration board (chessboard or ChArUco).

Board specs are short strings, e.g. ``chessboard:9x6:25`` (inner corners, square in mm) or
``charuco:7x5:30:22:DICT_4X4_50`` (squares, square and marker side in mm, ArUco dictionary).
The lens model is OpenCV's plain one: fx, fy, cx, cy and 5 distortion coefficients (k1, k2, p1, p2, k3).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics
from calibration.layout import check_dictionary
from common.errors import InputError
from common.imagehead import image_problem

MIN_IMAGES = 3
MIN_CHARUCO_CORNERS = 6
OUTLIER_FACTOR = 3.0
"""A view whose own RMS exceeds this many times the median view RMS (and OUTLIER_MIN_PX) is dropped."""
OUTLIER_MIN_PX = 1.0
DETECT_MAX_SIDE_PX = 1600
"""Larger images are searched for the chessboard at reduced size (speed), then refined at full size."""

BOARD_FORMAT = (
    "chessboard:COLSxROWS:SQUARE_MM (COLSxROWS counts inner corners, e.g. chessboard:9x6:25) or "
    "charuco:COLSxROWS:SQUARE_MM:MARKER_MM:DICT (COLSxROWS counts squares, e.g. charuco:7x5:30:22:DICT_4X4_50)"
)


@dataclass(frozen=True)
class BoardSpec:
    """A printed calibration board.

    chessboard: `cols` x `rows` inner corners; charuco: `cols` x `rows` squares with markers of
    `marker_mm` from `dictionary`. `square_mm` is the side of one square in mm.
    """

    kind: str
    cols: int
    rows: int
    square_mm: float
    marker_mm: float | None = None
    dictionary: str | None = None

    def __str__(self) -> str:
        text = f"{self.kind}:{self.cols}x{self.rows}:{self.square_mm:g}"
        if self.kind == "charuco":
            text += f":{self.marker_mm:g}:{self.dictionary}"
        return text


def parse_board(text: str) -> BoardSpec:
    """Parse a board spec such as ``chessboard:9x6:25`` or ``charuco:7x5:30:22:DICT_4X4_50``."""
    where = f"board {text!r}"
    parts = [p.strip() for p in str(text).strip().split(":")]
    kind = parts[0].lower()
    if kind not in ("chessboard", "charuco"):
        raise InputError(f"{where}: unknown board type; expected {BOARD_FORMAT}")
    wanted = 3 if kind == "chessboard" else 5
    if len(parts) != wanted:
        example = "chessboard:9x6:25" if kind == "chessboard" else "charuco:7x5:30:22:DICT_4X4_50"
        fields = "COLSxROWS:SQUARE_MM" if kind == "chessboard" else "COLSxROWS:SQUARE_MM:MARKER_MM:DICT"
        raise InputError(f"{where}: expected {kind}:{fields}, e.g. {example}")
    cols, rows = _grid(parts[1], where)
    square = _mm(parts[2], "square size", where)
    if kind == "chessboard":
        if cols < 3 or rows < 3:
            raise InputError(f"{where}: a chessboard needs at least 3x3 inner corners (COLSxROWS counts inner corners)")
        return BoardSpec("chessboard", cols, rows, square)
    if cols < 2 or rows < 2 or cols * rows < 4:
        raise InputError(f"{where}: a ChArUco board needs at least 2x2 squares")
    marker = _mm(parts[3], "marker size", where)
    if marker >= square:
        raise InputError(f"{where}: marker size {marker:g} mm must be smaller than the square size {square:g} mm")
    dictionary = check_dictionary(_dictionary_name(parts[4]), where)
    needed = cols * rows // 2
    available = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).bytesList.shape[0]
    if needed > available:
        raise InputError(f"{where}: {cols}x{rows} squares need {needed} markers but {dictionary} has {available}")
    return BoardSpec("charuco", cols, rows, square, marker, dictionary)


def _grid(text: str, where: str) -> tuple[int, int]:
    try:
        cols, rows = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InputError(f"{where}: {text!r} is not COLSxROWS like 9x6; expected {BOARD_FORMAT}") from None
    return cols, rows


def _mm(text: str, what: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: {what} {text!r} is not a number of millimetres") from None
    if not np.isfinite(value) or value <= 0:
        raise InputError(f"{where}: {what} must be a positive number of millimetres, not {text!r}")
    return value


def _dictionary_name(text: str) -> str:
    # Case-insensitive, but keep OpenCV's spelling (DICT_APRILTAG_36h11 has a lower-case h).
    names = {n.upper(): n for n in dir(cv2.aruco) if n.startswith("DICT_")}
    return names.get(text.upper(), text)


@functools.lru_cache(maxsize=8)
def _charuco(board: BoardSpec) -> tuple[cv2.aruco.CharucoBoard, cv2.aruco.CharucoDetector]:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, board.dictionary))
    cv_board = cv2.aruco.CharucoBoard((board.cols, board.rows), board.square_mm, board.marker_mm, dictionary)
    return cv_board, cv2.aruco.CharucoDetector(cv_board)


def charuco_board(board: BoardSpec) -> cv2.aruco.CharucoBoard:
    """OpenCV's board object for a ChArUco spec (lengths in mm), e.g. to print it with generateImage."""
    return _charuco(board)[0]


def find_board_corners(gray: np.ndarray, board: BoardSpec):
    """Find the board in an 8-bit grayscale image.

    Returns ``((image_points (N, 2) float32 px, object_points (N, 3) float32 mm on the board plane z = 0), None)``,
    or ``(None, reason)`` when the board is not usable in this image.
    """
    if board.kind == "chessboard":
        return _find_chessboard(gray, board)
    return _find_charuco(gray, board)


_SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 100, 1e-4)


def _find_chessboard(gray: np.ndarray, board: BoardSpec):
    pattern = (board.cols, board.rows)
    scale = min(1.0, DETECT_MAX_SIDE_PX / max(gray.shape))
    small = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    # Classic detector first: on the real test photos it finds every board, findChessboardCornersSB only 8-12
    # of 14, and SB's own sub-pixel corners did not lower the RMS. SB still rescues some boards the classic one
    # misses (blur, uneven light); without CALIB_CB_ACCURACY/EXHAUSTIVE it costs ~0.1 s per image.
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK
    found, corners = cv2.findChessboardCorners(small, pattern, flags=flags)
    if not found:
        found, corners = cv2.findChessboardCornersSB(small, pattern, flags=cv2.CALIB_CB_NORMALIZE_IMAGE)
    if not found:
        return None, "board not found"
    corners = corners.reshape(-1, 2) / scale
    # Refining on a lightly blurred copy averages out sensor/JPEG noise: 0.445 instead of 0.451 px RMS on the
    # real test set. The window stays well inside one square.
    half = int(np.clip(_min_spacing(corners, pattern) / 5.0, 3, 12))
    smooth = cv2.GaussianBlur(gray, (0, 0), 1.0)
    corners = cv2.cornerSubPix(
        smooth, corners.reshape(-1, 1, 2).astype(np.float32), (half, half), (-1, -1), _SUBPIX_CRITERIA
    )
    obj = np.zeros((board.cols * board.rows, 3), np.float32)
    obj[:, :2] = np.mgrid[0 : board.cols, 0 : board.rows].T.reshape(-1, 2) * board.square_mm
    return (corners.reshape(-1, 2).astype(np.float32), obj), None


def _min_spacing(corners: np.ndarray, pattern: tuple[int, int]) -> float:
    grid = corners.reshape(pattern[1], pattern[0], 2)
    along = np.linalg.norm(np.diff(grid, axis=1), axis=2).min()
    across = np.linalg.norm(np.diff(grid, axis=0), axis=2).min()
    return float(min(along, across))


def _find_charuco(gray: np.ndarray, board: BoardSpec):
    cv_board, detector = _charuco(board)
    corners, ids, _, _ = detector.detectBoard(gray)
    count = 0 if ids is None else len(ids)
    if count == 0:
        return None, "board not found"
    if count < MIN_CHARUCO_CORNERS:
        return None, f"too few ChArUco corners ({count})"
    if cv_board.checkCharucoCornersCollinear(ids):
        return None, f"ChArUco corners all on one line ({count})"
    obj, img = cv_board.matchImagePoints(corners, ids)
    return (img.reshape(-1, 2).astype(np.float32), obj.reshape(-1, 3).astype(np.float32)), None


@dataclass(frozen=True)
class ImageResult:
    """One photo's part in the calibration: `used`, or rejected with `reason`; `rms_px` is its own error."""

    path: str
    used: bool
    corners: int = 0
    reason: str | None = None
    rms_px: float | None = None


@dataclass(frozen=True)
class CalibrationResult:
    camera: CameraIntrinsics
    rms_px: float
    """RMS reprojection error over all corners of the used images, in px."""
    images: tuple[ImageResult, ...]

    @property
    def used(self) -> list[ImageResult]:
        return [r for r in self.images if r.used]

    @property
    def rejected(self) -> list[ImageResult]:
        return [r for r in self.images if not r.used]


Progress = Callable[[int, int, ImageResult], None]


def read_gray(path: str | Path) -> tuple[np.ndarray | None, str | None]:
    """An image file as 8-bit grayscale, or (None, reason); never raises for a bad file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, "file not found"
    except IsADirectoryError:
        return None, "is a folder, not an image"
    except OSError as exc:
        return None, f"cannot read file ({exc.strerror or exc})"
    problem = image_problem(path)  # from the header, before decoding
    if problem:
        return None, problem
    gray = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE) if data else None
    if gray is None or gray.size == 0:
        return None, "unreadable image"
    return gray, None


def calibrate_camera(
    image_paths: Sequence[str | Path], board: BoardSpec, progress: Progress | None = None
) -> CalibrationResult:
    """Calibrate a camera from photos of `board`; returns a CalibrationResult.

    Unusable photos are rejected with a reason, not an error. Raises InputError when fewer than
    MIN_IMAGES photos are usable. A photo whose own reprojection RMS is far above the others' (see
    OUTLIER_FACTOR) is rejected and the calibration rerun without it.
    """
    paths = [str(p) for p in image_paths]
    if not paths:
        raise InputError("no calibration images given")
    results: list[ImageResult] = []
    views: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    size: tuple[int, int] | None = None
    size_from = ""
    for index, path in enumerate(paths):
        gray, reason = read_gray(path)
        found = None
        if gray is not None:
            here = (gray.shape[1], gray.shape[0])
            if size is None:
                size, size_from = here, Path(path).name
            if here != size:
                reason = (
                    f"image size {here[0]}x{here[1]} differs from {size[0]}x{size[1]} of the first image ({size_from})"
                )
            else:
                found, reason = find_board_corners(gray, board)
        if found is None:
            result = ImageResult(path, False, reason=reason)
        else:
            views[index] = found
            result = ImageResult(path, True, corners=len(found[0]))
        results.append(result)
        if progress:
            progress(index + 1, len(paths), result)

    if len(views) < MIN_IMAGES:
        raise InputError(_too_few_message(results, board))

    while True:
        order = sorted(views)
        rms, k, d, per_view, std = _calibrate(views, order, size)
        median = float(np.median(per_view))
        limit = max(OUTLIER_FACTOR * median, OUTLIER_MIN_PX)
        worst = int(np.argmax(per_view))
        if per_view[worst] <= limit or len(order) <= MIN_IMAGES:
            break
        # Drop only the worst view per round: one bad view inflates every view's error.
        index = order[worst]
        del views[index]
        results[index] = ImageResult(
            paths[index],
            False,
            results[index].corners,
            f"outlier: its reprojection RMS {per_view[worst]:.2f} px is far above the median view's {median:.2f} px; "
            "calibration rerun without it",
            float(per_view[worst]),
        )
    for i, index in enumerate(order):
        results[index] = ImageResult(paths[index], True, results[index].corners, None, float(per_view[i]))
    camera = CameraIntrinsics(size, k, d.ravel()[:5], float(rms), std_devs=std)
    return CalibrationResult(camera, float(rms), tuple(results))


def _calibrate(views, order, size):
    obj = [views[i][1].reshape(-1, 1, 3) for i in order]
    img = [views[i][0].reshape(-1, 1, 2) for i in order]
    criteria = (cv2.TERM_CRITERIA_COUNT + cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    try:
        # Plain model (k1, k2, p1, p2, k3), free aspect ratio: fixing fx = fy raised the error on real photos.
        rms, k, d, _, _, std, _, per_view = cv2.calibrateCameraExtended(
            obj, img, size, None, None, flags=0, criteria=criteria
        )
    except cv2.error as exc:
        message = str(exc).strip().splitlines()[-1] if str(exc).strip() else "OpenCV error"
        raise InputError(f"camera calibration failed on {len(order)} images ({message})") from None
    # std: one standard deviation of fx, fy, cx, cy, k1, k2, p1, p2, k3 (then the unused higher terms, all 0)
    std = np.asarray(std, float).ravel()[:9]
    return float(rms), k, d, per_view.ravel(), std if np.all(np.isfinite(std)) else None


def _too_few_message(results: list[ImageResult], board: BoardSpec) -> str:
    usable = sum(r.used for r in results)
    counts: dict[str, int] = {}
    for r in results:
        if not r.used:
            key = r.reason.split(" (")[0] if r.reason.startswith(("too few", "image size")) else r.reason
            counts[key] = counts.get(key, 0) + 1
    why = "; ".join(f"{reason}: {n}" for reason, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    message = f"only {usable} of {len(results)} images usable for calibration, need at least {MIN_IMAGES} ({why})"
    if counts.get("board not found") and usable == 0:
        unit = "inner corners" if board.kind == "chessboard" else "squares"
        message += f"; check --board {board} (COLSxROWS counts {unit})"
    return message
