"""Marker detection: ArUco and AprilTag squares with cv2.aruco, QR codes with pyzbar.

Corners are (4, 2) float64 pixels in the marker's own order (top-left, top-right, bottom-right, bottom-left as
printed), in OpenCV's pixel convention: pixel centres at integer coordinates.

A frame is read in four steps:
1. cv2.aruco finds candidate squares and decodes them (parameters per dictionary family: `detector_parameters`).
   Frames up to 2048 px get a second pass on a 2x upscaled copy, which finds the 12-16 px markers whose outlines
   blur into the background at 1x; its corners map back exactly (x -> (x - 0.5) / 2). A larger frame is read as two
   overlapping bands in two threads (`_detect_in_bands`); its full scan (4x4 codes) has OpenCV only outline the
   squares and reads every code as step 4 does
   (`_outlined_markers`: OpenCV's identification against every code was a third of its detection).
2. Every marker's corners are measured again from its four edges (`refine_corners`): sub-pixel edge points along
   each side, a robust straight line per side, corners where the lines meet. cornerSubPix is built for chessboard
   X-corners; on a blurred L-shaped marker corner it lands 0.3-0.5 px inside, the edge lines do not.
3. For dictionaries with little error correction (4x4) an exact code from OpenCV is checked against the image by
   correlation with every code (`_match`): blurred small markers and AprilTags otherwise read as wrong 4x4 ids.
4. Candidate squares OpenCV rejected are refined and decoded by that correlation (`_decode`): bits of 2-3 px are
   too blurred for OpenCV's per-bit threshold, and it samples them from corners still ~1 px off.

Markers need a light quiet zone of at least half a bit around the black square (every printed ArUco sheet and
AprilTag has one); without it the edge refinement keeps OpenCV's corners.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, lru_cache

import cv2
import numpy as np
from pyzbar import pyzbar

from calibration.layout import check_dictionary

MIN_SIDE_PX = 10.0  # smallest marker side we look for; smaller squares are mostly noise and cost time
_UPSCALE_MAX_SIDE = 2048  # second detection pass at 2x only up to this image size (1080p: ~0.2 s in all)
_BAND_MIN_ROWS = 1024  # a large frame this tall or taller is read in bands by two threads (_detect_in_bands)
_BANDS = 2  # bands of a large frame
_QR_EXTRA_PASSES_MAX_PX = 2_100_000


@dataclass(frozen=True)
class MarkerDetection:
    id: int
    corners: np.ndarray  # (4, 2) px


@dataclass(frozen=True)
class QRDetection:
    payload: str
    polygon: np.ndarray  # (N, 2) px, as pyzbar reports it


@cache
def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, check_dictionary(name, "marker dictionary")))


def _is_apriltag(dictionary: str) -> bool:
    return dictionary.startswith("DICT_APRILTAG")


def detector_parameters(
    dictionary: str = "DICT_4X4_250", longest_side_px: int = 1920, small_only: bool = False,
    large_frame: bool | None = None,
) -> cv2.aruco.DetectorParameters:
    """cv2.aruco parameters for one dictionary family on images whose longer side is `longest_side_px`.
    `large_frame`: the image is (part of) a frame over 2048 px (by default: when the image itself is).

    Chosen by measurement on rendered frames with exact corners and on shared/realdata/apriltag-nasa:
    - minMarkerPerimeterRate from MIN_SIDE_PX: OpenCV's 0.03 of the longer side rejects a 20 mm marker (~25 px)
      on a 4K view of the whole table.
    - perspectiveRemovePixelPerCell 8 and IgnoredMarginPerCell 0.3: bits of 2-4 px are read from the centre of
      each cell, where blur from the neighbouring bits is least; OpenCV then reads most 14-16 px markers itself.
    - cornerSubPix with a window of half a bit (at most 2 px): only the fallback when the edge refinement cannot
      run; OpenCV's default 0.3 of a bit gives a 1 px window, too small to converge on 24 px markers.
    - errorCorrectionRate 0 for codes only 3-5 bits apart (4x4, 16h5), OpenCV's 0.6 for the others (36h11 codes
      are 11 bits apart).
    - AprilTags: a finer adaptive-threshold ladder (windows 3, 7, ... 23) separates small tags touching the dark
      background: 45 -> 46 of the 47 reference tags, and 5 more real tags the reference lacks.
    """
    p = cv2.aruco.DetectorParameters()
    p.minMarkerPerimeterRate = min(0.03, 4 * MIN_SIDE_PX / max(longest_side_px, 1))
    p.perspectiveRemovePixelPerCell = 8
    p.perspectiveRemoveIgnoredMarginPerCell = 0.3
    # No corner refinement in OpenCV: every marker's corners are measured again from its edges (refine_corners),
    # and the few that cannot be get cornerSubPix there (_subpix_fallback). Saves ~12 % of detectMarkers.
    p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    # Two threshold windows, 7 and 17 px, instead of OpenCV's three (3, 13, 23): the 3 px window outlines noise,
    # not 12-40 px markers, and 23 adds nothing 17 does not find: 0.6x the time, the same markers found. Above
    # 2048 px one window of 7 px finds them all (the black border of a 20 mm marker is 4-5 px wide there): 0.45x
    # the time of OpenCV's plain tuned detector (synthetic 4K and 1080p frames, `fieldglass bench vision`).
    p.adaptiveThreshWinSizeMin, p.adaptiveThreshWinSizeStep = 7, 10
    if large_frame is None:
        large_frame = longest_side_px > _UPSCALE_MAX_SIDE
    p.adaptiveThreshWinSizeMax = 7 if large_frame else 17
    if aruco_dictionary(dictionary).maxCorrectionBits <= 2:
        # Codes 3-5 bits apart (4x4, 16h5): a corrected bit turns other squares, AprilTags among them, into ids.
        # Exact codes only; blurred small markers are decoded from their refined corners instead (_decode).
        p.errorCorrectionRate = 0.0
    if _is_apriltag(dictionary):
        p.adaptiveThreshWinSizeMin, p.adaptiveThreshWinSizeMax, p.adaptiveThreshWinSizeStep = 3, 23, 4
        p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        p.cornerRefinementWinSize = 2
        p.relativeCornerRefinmentWinSize = 0.5
    if small_only:
        # The 2x upscaled pass only looks for markers under 32 px (64 px upscaled): one 7 px threshold window
        # finds all 12-18 px markers and costs a third of the usual three.
        p.adaptiveThreshWinSizeMin = p.adaptiveThreshWinSizeMax = 7
        p.maxMarkerPerimeterRate = 4 * 64 / max(longest_side_px, 1)
    return p


@lru_cache(maxsize=64)
def _detector(dictionary: str, longest_side_px: int, small_only: bool = False,
              large_frame: bool | None = None, outline_only: bool = False) -> cv2.aruco.ArucoDetector:
    """`outline_only`: OpenCV outlines the squares but knows one code only (the dictionary's first), so that every
    other square comes back unidentified, to be read by our own correlation (`_decode`): OpenCV's identification
    of a 4K frame's 100 markers against 250 codes cost ~15 ms of a ~45 ms detectMarkers (measured, issue 14)."""
    params = detector_parameters(dictionary, longest_side_px, small_only, large_frame)
    dic = aruco_dictionary(dictionary)
    if outline_only:
        dic = cv2.aruco.Dictionary(dic.bytesList[:1], dic.markerSize, dic.maxCorrectionBits)
        # OpenCV groups squares whose corners lie within 5 % of the perimeter (a marker and the card it is printed
        # on) and returns one per group that no code reads: the card, the marker lost. Only the same square twice
        # (within 1 %) is one here.
        params.minMarkerDistanceRate = 0.01
    return cv2.aruco.ArucoDetector(dic, params)


def to_gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _gray8(image: np.ndarray) -> np.ndarray:
    """Grey uint8, as cv2.aruco and ZBar need; other depths are stretched to 0-255."""
    gray = to_gray(image)
    if gray.dtype != np.uint8:
        gray = cv2.normalize(gray, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U)
    return gray


def _sample(gray: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear grey values at (..., 2) float px points (OpenCV convention), float32; from a uint8 image they are
    rounded to whole grey levels (uniform +-0.5: a tenth of the sensor's noise in variance)."""
    pts = np.asarray(points, dtype=np.float32)
    return _sample_xy(gray, pts[..., 0], pts[..., 1])


_REMAP_MAX = 32767  # cv2.remap wants both map dimensions below this


def _sample_xy(gray: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bilinear grey values (float32, shape of `x`) at the points (x, y) px: the maps go to cv2.remap as they are,
    one row per last axis, without copies when they are float32 already."""
    shape = x.shape
    cols = shape[-1] if len(shape) > 1 and 0 < shape[-1] < _REMAP_MAX else 1
    mx = np.ascontiguousarray(x, dtype=np.float32).reshape(-1, cols)
    my = np.ascontiguousarray(y, dtype=np.float32).reshape(-1, cols)
    if len(mx) == 0:
        return np.zeros(shape, np.float32)
    parts = [
        cv2.remap(gray, mx[i : i + _REMAP_MAX - 1], my[i : i + _REMAP_MAX - 1], cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_REPLICATE)
        for i in range(0, len(mx), _REMAP_MAX - 1)
    ]
    vals = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return vals.reshape(shape).astype(np.float32, copy=False)


_STEP_DONE_PX = 0.05  # a quad whose corners moved less than this in a round of refine_corners is done
SEARCH_ONCE_PX = 4.0  # bits this wide or wider: the edge is searched for in the first round of refine_corners only
_T = np.linspace(0.15, 0.85, 16)  # where the normals cross each side, as a fraction of its length
_U_COARSE = np.linspace(-1.0, 1.0, 33)
_U_FINE = np.linspace(-1.0, 1.0, 21)


_NEXT = np.array([1, 2, 3, 0])  # corner or side k+1 of 4 (np.roll costs more than the arithmetic on these arrays)
_PREV = np.array([3, 0, 1, 2])  # corner or side k-1 of 4


def _at_last(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """values[..., index[...]]: one element of the last axis per position (np.take_along_axis without its cost)."""
    flat = values.reshape(-1, values.shape[-1])
    return flat[np.arange(len(flat)), index.ravel()].reshape(index.shape)


def mean_side_px(quads: np.ndarray) -> np.ndarray:
    """The mean side (px) of each of (N, 4, 2) quads."""
    return np.linalg.norm(quads - quads[:, _PREV], axis=2).mean(axis=1)


def _median_last(values: np.ndarray) -> np.ndarray:
    """np.median over the last axis, by a sort: np.median's own machinery costs ~0.2 ms a call, more than the work."""
    ordered = np.sort(values, axis=-1)
    n = values.shape[-1]
    return 0.5 * (ordered[..., (n - 1) // 2] + ordered[..., n // 2])


def _side_frames(q: np.ndarray, modules: int):
    """Per side k (corner k to k+1) of each quad: (outward unit normal (N,4,2), bit size across it (N,4), the
    normals' feet (N,4,K,2))."""
    p0, p1 = q, q[:, _NEXT]
    length = np.linalg.norm(p1 - p0, axis=2)
    d = (p1 - p0) / np.maximum(length, 1e-9)[..., None]
    normal = np.stack([d[..., 1], -d[..., 0]], axis=-1)
    outward = np.sign((((p0 + p1) / 2 - q.mean(axis=1, keepdims=True)) * normal).sum(-1))
    normal *= outward[..., None]
    # Bit size across each side (from its two neighbours): a tag seen at a grazing angle has thin bits
    # across its long sides.
    module = (length[:, _PREV] + length[:, _NEXT]) / (2 * modules)  # N,4
    base = p0[:, :, None, :] + _T[None, None, :, None] * (p1 - p0)[:, :, None, :]  # N,4,K,2
    return normal, module, base


def _edge_points(g: np.ndarray, base: np.ndarray, normal: np.ndarray, module: np.ndarray, search: bool = True):
    """The edge measured on each normal: (points (N,4,K,2), contrast per side (N,4), step strength (N,4,K)).
    `search` False: the edge is known to lie within the fine measurement's reach of `base` (the sides are lines
    fitted to edges measured before): no coarse search, and no contrast or strength (None, None)."""
    half = np.clip(0.5 * module, 0.8, 2.5)[..., None]  # fine measurement within +-half px
    bx, by = base[..., 0, None].astype(np.float32), base[..., 1, None].astype(np.float32)  # N,4,K,1
    nx, ny = normal[:, :, None, None, 0].astype(np.float32), normal[:, :, None, None, 1].astype(np.float32)
    contrast = strength = None
    if search:
        # Coarse: the strongest outward dark-to-light step (the quiet zone's far edge and the bits' edges
        # inside are light-to-dark outward, so they cannot be taken for it).
        reach = np.clip(0.9 * module, 1.5, 8.0)[..., None]  # coarse search +-reach px
        off = (_U_COARSE * reach).astype(np.float32)  # N,4,S
        coarse = _sample_xy(g, bx + off[:, :, None, :] * nx, by + off[:, :, None, :] * ny)  # N,4,K,S
        grad = np.diff(coarse, axis=-1)
        grad = grad[..., :-2] + 2 * grad[..., 1:-1] + grad[..., 2:]  # smoothed over ~3 samples
        mids = 0.5 * (off[..., 1:] + off[..., :-1])[..., 1:-1]  # where each smoothed difference is centred
        peak = np.argmax(grad, axis=-1)
        c = _at_last(np.broadcast_to(mids[:, :, None, :], grad.shape), peak)
        strength = _at_last(grad, peak) / (4 * (off[..., 1] - off[..., 0]))[..., None]
        contrast = _median_last(coarse.max(axis=-1) - coarse.min(axis=-1))  # N,4
    else:
        c = np.zeros(base.shape[:3], np.float32)

    # Fine: centroid of the dark-to-light gradient around the coarse edge, which is the edge itself for any
    # symmetric blur. Only the gradient above a quarter of its peak counts: noise on the plateaus and the
    # falling edge beyond a narrow quiet zone would otherwise pull the centroid.
    fine_off = c[..., None] + (_U_FINE * half[..., None]).astype(np.float32)  # N,4,K,S
    profile = _sample_xy(g, bx + fine_off * nx, by + fine_off * ny)
    rise = np.diff(profile, axis=-1)
    rise = np.maximum(rise - 0.25 * rise.max(axis=-1, keepdims=True), 0.0)
    mid = 0.5 * (fine_off[..., 1:] + fine_off[..., :-1])
    edge = ((rise * mid).sum(-1) / np.maximum(rise.sum(-1), 1e-9)).astype(np.float64)
    pts = base + edge[..., None] * normal[:, :, None, :]  # N,4,K,2
    return pts, contrast, strength


def _side_lines(pts: np.ndarray, w: np.ndarray):
    """Total-least-squares line per side, twice, dropping points far from the first fit (occlusion, glare):
    (centre (N,4,2), direction (N,4,2), weights kept (N,4,K))."""
    for _ in range(2):
        centre = (pts * w[..., None]).sum(2) / np.maximum(w.sum(-1), 1)[..., None]
        x = pts - centre[:, :, None, :]
        cxx = (w * x[..., 0] ** 2).sum(-1)
        cyy = (w * x[..., 1] ** 2).sum(-1)
        cxy = (w * x[..., 0] * x[..., 1]).sum(-1)
        angle = 0.5 * np.arctan2(2 * cxy, cxx - cyy)
        direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
        resid = x[..., 0] * -direction[..., 1, None] + x[..., 1] * direction[..., 0, None]
        mad = _median_kept(np.abs(resid), w > 0)[..., None]
        w = w * (np.abs(resid) <= np.maximum(4.5 * mad, 0.2))
    return centre, direction, w


def _median_kept(values: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Median over the last axis of the `kept` values (0 where none is kept): np.nanmedian's result, without its
    masked-array machinery, which cost more than the line fits themselves."""
    ordered = np.sort(np.where(kept, values, np.inf), axis=-1)
    n = kept.sum(-1)
    lo = _at_last(ordered, np.maximum((n - 1) // 2, 0))
    hi = _at_last(ordered, np.maximum(n // 2, 0))
    return np.where(n > 0, 0.5 * (lo + hi), 0.0)


def _line_corners(centre: np.ndarray, direction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Corner k where the lines of sides k-1 and k meet: (corners (N,4,2), solvable (N,4))."""
    c_prev, d_prev = centre[:, _PREV], direction[:, _PREV]
    # c_prev + s d_prev = centre + r direction, by Cramer's rule (numpy's batched solve calls LAPACK, whose
    # threads cost more than these 2 x 2 systems on a busy machine)
    det = -d_prev[..., 0] * direction[..., 1] + direction[..., 0] * d_prev[..., 1]
    solvable = np.abs(det) > 0.05  # sides within ~3 degrees of parallel: no usable corner
    rhs = centre - c_prev
    s = (-rhs[..., 0] * direction[..., 1] + direction[..., 0] * rhs[..., 1]) / np.where(solvable, det, 1.0)
    return c_prev + np.where(solvable, s, 0.0)[..., None] * d_prev, solvable


def refine_corners(
    gray: np.ndarray, quads: np.ndarray, modules: int, iterations: int = 3
) -> tuple[np.ndarray, np.ndarray]:
    """Corners measured from the quads' four edges; returns (refined (N, 4, 2), ok (N,)).

    `gray` is the grey image, uint8 or float32, converted to float only around each quad (`float_patches`: edges are
    measured on float grey values, not on levels rounded by sampling). `modules` is the number of bits across a
    marker including its black border (6 for 4x4). Along each side, 16 normals between 15 % and 85 % of its length
    (clear of the corners' blur). On each normal the edge is first found coarsely as the strongest dark-to-light
    step within most of a bit, then measured as the centroid of the gradient there: unbiased for any symmetric blur,
    and it averages the noise of many samples. A robust straight line per side, and corner k where the lines of
    sides k-1 and k meet; up to three rounds, so a corner OpenCV placed a few px off (a tag touching a dark gap) is
    pulled back by its two sides. A quad whose corners moved less than _STEP_DONE_PX in a round is done (a third
    round moved 4K corners 0.014 px at most: at 0.02 px most 4K quads took it, 17 % of a full scan's refinement).
    Quads whose edges lack contrast, or whose corners would move by more than 2 bits, keep their input corners (ok
    False).
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2).copy()
    n_quads = len(q)
    ok = np.ones(n_quads, dtype=bool)
    if n_quads == 0:
        return q, ok
    g, offset = float_patches(gray, q, modules)
    q -= offset
    start = q.copy()
    # A quad may move 2 bits of its starting size at most: as far as float_patches' margin reaches (a limit from the
    # current, grown quad would let a quad sample past its patch and still count)
    frames = _side_frames(start, modules)  # the first round's, all quads active
    start_module = frames[1].max(axis=1)
    active = np.arange(n_quads)
    contrast_all, strength_all = np.zeros((n_quads, 4)), np.zeros((n_quads, 4, len(_T)))
    for k in range(iterations):
        normal, module, base = frames if k == 0 else _side_frames(q[active], modules)
        # The first round searches each normal for the edge; later ones, where every bit is SEARCH_ONCE_PX or
        # more (a 4K frame's markers), measure it where the fitted sides put it (a fraction of a px off by then,
        # well within the fine measurement's +-2 px) and keep the first round's contrast and step strength: a
        # third of the samples (issue 14: a 4K full scan's refinement 28 -> 17 ms)
        searched = (module.min(axis=1) < SEARCH_ONCE_PX) | (k == 0)  # per quad: its own bits decide
        pts = np.empty(base.shape)
        for sel, search in ((searched, True), (~searched, False)):
            if sel.any():
                pts[sel], c_new, s_new = _edge_points(g, base[sel], normal[sel], module[sel], search=search)
                if search:
                    contrast_all[active[sel]], strength_all[active[sel]] = c_new, s_new
        c, strength = contrast_all[active], strength_all[active]
        w = (strength > 0.1 * c[..., None]).astype(np.float64)  # no clear step here: leave the point out
        centre, direction, w = _side_lines(pts, w)
        new_q, solvable = _line_corners(centre, direction)
        moved = np.linalg.norm(new_q - start[active], axis=2).max(axis=1)
        valid = (c > 8.0).all(1) & solvable.all(1) & (w.sum(-1) >= 6).all(1)
        valid &= moved <= np.maximum(2.0 * start_module[active], 1.5)
        step = np.linalg.norm(new_q - q[active], axis=2).max(axis=1)
        ok[active] &= valid
        q[active] = np.where(ok[active][:, None, None], new_q, start[active])
        active = active[ok[active] & (step >= _STEP_DONE_PX)]
        if len(active) == 0:
            break
    return q + offset, ok


_PATCH_MARGIN_PX = 12  # past two bits around a quad: the edge search's reach (8 px) and the fine measurement's (2.5)
_PACK_WIDTH_PX = 1024  # float_patches' rows of patches: this wide, or as the widest patch


def float_patches(gray: np.ndarray, quads: np.ndarray, modules: int) -> tuple[np.ndarray, np.ndarray]:
    """The grey image (uint8 or float32) around each quad (N, 4, 2 px) as float32, the patches packed side by side
    in rows of one image, and each quad's offset (N, 1, 2): a quad's px minus its offset are px of the packed image.

    A patch is the quad's box grown by two bits and _PATCH_MARGIN_PX: as far as `refine_corners` samples around a
    quad whose corners stay within the two bits it allows them to move. Only the patches are converted (a 4K
    frame's 100 markers: ~0.6 Mpx, not the 8 Mpx a crop around them all would be), and past the frame's edges they
    replicate it, as cv2.remap's BORDER_REPLICATE does (cv2.getRectSubPix at whole-pixel positions: exact copies).
    Where the patches would cover more than one crop around them all (large or overlapping quads), that crop."""
    if len(quads) == 0:
        return np.zeros((1, 1), np.float32), np.zeros((0, 1, 2))
    if gray.dtype not in (np.uint8, np.float32):  # what cv2.getRectSubPix reads
        gray = gray.astype(np.float32)
    side = np.linalg.norm(quads - quads[:, _PREV], axis=2).max(axis=1)
    margin = np.ceil(2 * side / modules + _PATCH_MARGIN_PX)[:, None]
    lo = np.floor(quads.min(axis=1) - margin).astype(int)
    size = np.ceil(quads.max(axis=1) + margin).astype(int) + 1 - lo  # (w, h) per quad
    height, frame_w = gray.shape[:2]
    # One crop around them all, within the frame (cv2.remap replicates its edges past the frame's)
    x0, y0 = np.clip(lo.min(axis=0), 0, [frame_w - 1, height - 1]).tolist()
    x1, y1 = np.clip((lo + size).max(axis=0), [x0 + 1, y0 + 1], [frame_w, height]).tolist()
    area = int((size[:, 0] * size[:, 1]).sum())
    if area >= (x1 - x0) * (y1 - y0):
        offset = np.broadcast_to(np.array([x0, y0], np.float64), (len(quads), 1, 2)).copy()
        return gray[y0:y1, x0:x1].astype(np.float32), offset
    # Rows about as long as the packing is tall: cv2.remap reads images under 32767 rows
    width = max(_PACK_WIDTH_PX, int(size[:, 0].max()), int(np.sqrt(area)))
    at = np.zeros_like(lo)  # where each patch goes: rows of patches, a row as tall as its tallest
    x = y = row_h = 0
    for k, (w, h) in enumerate(size.tolist()):
        if x + w > width:
            x, y, row_h = 0, y + row_h, 0
        at[k] = x, y
        x, row_h = x + w, max(row_h, h)
    packed = np.zeros((y + row_h, width), gray.dtype)  # converted at the end: faster than patch by patch
    for (x0, y0), (w, h), (px, py) in zip(lo.tolist(), size.tolist(), at.tolist(), strict=True):
        if x0 >= 0 and y0 >= 0 and x0 + w <= frame_w and y0 + h <= height:
            packed[py: py + h, px: px + w] = gray[y0: y0 + h, x0: x0 + w]
        else:
            packed[py: py + h, px: px + w] = cv2.getRectSubPix(gray, (w, h), (x0 + (w - 1) / 2, y0 + (h - 1) / 2))
    return packed.astype(np.float32, copy=False), (lo - at).astype(np.float64)[:, None, :]


_UNIT = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])  # TL, TR, BR, BL


def _homographies(quads: np.ndarray) -> np.ndarray:
    """(N, 3, 3) maps from the unit square (TL, TR, BR, BL) onto each quad, in closed form (Heckbert's square to
    quadrilateral); quads with three corners in a line by least squares."""
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    x, y = q[..., 0], q[..., 1]
    sx, sy = x[:, 0] - x[:, 1] + x[:, 2] - x[:, 3], y[:, 0] - y[:, 1] + y[:, 2] - y[:, 3]
    dx1, dx2, dy1, dy2 = x[:, 1] - x[:, 2], x[:, 3] - x[:, 2], y[:, 1] - y[:, 2], y[:, 3] - y[:, 2]
    den = dx1 * dy2 - dx2 * dy1
    fine = np.abs(den) > 1e-9 * np.maximum(np.abs(dx1 * dy2) + np.abs(dx2 * dy1), 1e-300)
    den = np.where(fine, den, 1.0)
    g, h = (sx * dy2 - dx2 * sy) / den, (dx1 * sy - sx * dy1) / den
    out = np.stack([
        np.stack([x[:, 1] - x[:, 0] + g * x[:, 1], x[:, 3] - x[:, 0] + h * x[:, 3], x[:, 0]], axis=1),
        np.stack([y[:, 1] - y[:, 0] + g * y[:, 1], y[:, 3] - y[:, 0] + h * y[:, 3], y[:, 0]], axis=1),
        np.stack([g, h, np.ones_like(g)], axis=1),
    ], axis=1)
    if not fine.all():
        out[~fine] = _homographies_lsq(q[~fine])
    return out


def _homographies_lsq(quads: np.ndarray) -> np.ndarray:
    """_homographies by solving the 8 x 8 systems: for degenerate quads."""
    n = len(quads)
    a = np.zeros((n, 8, 8))
    b = np.zeros((n, 8))
    for k, (u, v) in enumerate(_UNIT):
        x, y = quads[:, k, 0], quads[:, k, 1]
        a[:, 2 * k, 0:3] = [u, v, 1.0]
        a[:, 2 * k, 6:8] = np.stack([-u * x, -v * x], axis=1)
        a[:, 2 * k + 1, 3:6] = [u, v, 1.0]
        a[:, 2 * k + 1, 6:8] = np.stack([-u * y, -v * y], axis=1)
        b[:, 2 * k], b[:, 2 * k + 1] = x, y
    try:
        h = np.linalg.solve(a, b[..., None])[..., 0]
    except np.linalg.LinAlgError:  # a degenerate quad somewhere: slower, but never fails
        h = (np.linalg.pinv(a) @ b[..., None])[..., 0]
    return np.concatenate([h, np.ones((n, 1))], axis=1).reshape(n, 3, 3)


def _apply(h: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Unit-square points (M, 2) through homographies (N, 3, 3) -> (N, M, 2)."""
    p = h @ np.column_stack([uv, np.ones(len(uv))]).T  # N, 3, M (a matrix product: einsum's loop is ~5x slower)
    return np.stack([p[:, 0] / p[:, 2], p[:, 1] / p[:, 2]], axis=-1)


_SUB = 2  # samples per bit and direction when decoding
_BLURS = (0.2, 0.35, 0.5, 0.65)  # template blur, Gaussian sigma in bits: 24 px markers at sigma 0.8 px ... 12 px at 1.3


@lru_cache(maxsize=8)
def _templates(dictionary: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every id in every rotation, drawn with a light quiet zone and blurred by each of _BLURS, sampled _SUB times
    per bit over the black square, as zero-mean unit vectors: in factored form, since a blurred drawing is linear in
    its bits. Returns (basis (len(_BLURS) * (B + 1), D), codes (C, B + 1), norms (T,), ids (T,), rotations (T,)) for
    B bits, C = ids x 4 rotations and T = len(_BLURS) x C templates (blur by blur): template t of blur j and code c
    is (codes[c] @ basis[j (B + 1): (j + 1) (B + 1)] - its mean) / norms[t], so a zero-mean sample v correlates
    with it as (v @ basis_j.T) @ codes[c] / norms[t] (`_correlations`): a product over B + 1 values, not D."""
    dic = aruco_dictionary(dictionary)
    n = dic.markerSize
    codes, ids, rots = [], [], []
    for i in range(len(dic.bytesList)):
        bits = cv2.aruco.Dictionary.getBitsFromByteList(dic.bytesList[i : i + 1], n).astype(np.float32)
        for r in range(4):
            codes.append(np.concatenate([[1.0], np.rot90(bits, r).ravel()]))
            ids.append(i)
            rots.append(r)
    codes = np.array(codes, np.float32)
    parts = np.zeros((n * n + 1, n + 4, n + 4), np.float32)  # quiet zone and black border, then each bit alone
    parts[0] = 1.0
    parts[0, 1:-1, 1:-1] = 0.0
    for b in range(n * n):
        parts[1 + b, 2 + b // n, 2 + b % n] = 1.0
    parts = parts.repeat(_SUB, 1).repeat(_SUB, 2)
    size = parts.shape[1]
    basis, norms = [], []
    for sigma in _BLURS:
        s = sigma * _SUB
        r = int(np.ceil(3 * s))
        k = np.exp(-0.5 * (np.arange(-r, r + 1) / s) ** 2)
        blur = np.zeros((size, size), np.float32)  # Gaussian blur as a matrix, edges replicated
        for i in range(size):
            np.add.at(blur[i], np.clip(np.arange(i - r, i + r + 1), 0, size - 1), k / k.sum())
        part = (blur @ parts @ blur.T)[:, _SUB:-_SUB, _SUB:-_SUB].reshape(len(parts), -1)
        t = codes @ part
        norms.append(np.linalg.norm(t - t.mean(axis=1, keepdims=True), axis=1))
        basis.append(part)
    return (np.concatenate(basis), codes, np.concatenate(norms).astype(np.float32), np.tile(ids, len(_BLURS)),
            np.tile(rots, len(_BLURS)))


def _correlations(v: np.ndarray, dictionary: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normalised correlations (N, T) of zero-mean unit samples v (N, D) with every template (`_templates`), and
    the templates' ids and rotations (T,)."""
    basis, codes, norms, ids, rots = _templates(dictionary)
    per_part = v.astype(np.float32) @ basis.T
    k = codes.shape[1]
    rho = np.concatenate([per_part[:, j * k: (j + 1) * k] @ codes.T for j in range(len(_BLURS))], axis=1)
    return rho / norms, ids, rots


def _match(gray: np.ndarray, quads: np.ndarray, dictionary: str, screen: bool = True, other: bool = True,
           bits: bool = False) -> tuple[np.ndarray, ...]:
    """Correlate clockwise quads with every code: (ids, rotations, best correlation, best other code's, exact) per
    quad; `exact`: each bit, the mean of its cell thresholded halfway between the quiet zone and the black border,
    reads as the best code's (what OpenCV's identification asks, here from refined corners; only with `bits`, else
    False). With `screen`, quads without a dark border inside a lighter quiet zone are skipped (correlation -1, not
    exact); without `other` the best other code's correlation is not looked for (-1: a pass over every quad and
    template saved)."""
    n = len(quads)
    nb = aruco_dictionary(dictionary).markerSize + 2
    h = _homographies(quads)
    steps = (np.arange(nb * _SUB) + 0.5) / (nb * _SUB)
    su, sv = np.meshgrid(steps, steps)  # row-major, like the templates
    vals = _sample(gray, _apply(h, np.column_stack([su.ravel(), sv.ravel()])))  # N, (nb*_SUB)^2
    cells = (np.arange(nb) + 0.5) / nb
    out_ = -0.5 / nb  # half a bit outside the black square: the quiet zone
    ring = np.concatenate(
        [np.column_stack([cells, np.full(nb, out_)]), np.column_stack([cells, np.full(nb, 1 - out_)]),
         np.column_stack([np.full(nb, out_), cells]), np.column_stack([np.full(nb, 1 - out_), cells])]
    )
    light = np.median(_sample(gray, _apply(h, ring)), axis=1)
    in_border = np.ones((nb * _SUB, nb * _SUB), dtype=bool)
    in_border[_SUB:-_SUB, _SUB:-_SUB] = False
    border = vals[:, in_border.ravel()]
    dark = np.median(border, axis=1)
    # Cheap screen first (most candidates are not markers): a dark border inside a lighter quiet zone.
    passed = (light - dark >= 12) & (np.mean(border > ((light + dark) / 2)[:, None], axis=1) <= 0.15)
    ids, rots = np.zeros(n, dtype=int), np.zeros(n, dtype=int)
    rho_best, rho_other = np.full(n, -1.0), np.full(n, -1.0)
    exact = np.zeros(n, dtype=bool)
    idx = np.flatnonzero(passed) if screen else np.arange(n)
    if len(idx):
        v = vals[idx] - vals[idx].mean(axis=1, keepdims=True)
        v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)
        rho, t_ids, t_rots = _correlations(v, dictionary)
        best = rho.argmax(axis=1)
        code = t_ids * 4 + t_rots
        ids[idx], rots[idx] = t_ids[best], t_rots[best]
        rho_best[idx] = rho[np.arange(len(idx)), best]
        if other:
            rho_other[idx] = np.where(code[None, :] == code[best][:, None], -1.0, rho).max(axis=1)
    if len(idx) and bits:
        codes = _templates(dictionary)[1]
        cell_means = vals[idx].reshape(len(idx), nb, _SUB, nb, _SUB).mean(axis=(2, 4))[:, 1:-1, 1:-1]
        read = cell_means.reshape(len(idx), -1) > ((light[idx] + dark[idx]) / 2)[:, None]
        exact[idx] = (read == (codes[best % len(codes), 1:] > 0.5)).all(axis=1)
    return ids, rots, rho_best, rho_other, exact


def _border_contrast(gray: np.ndarray, quads: np.ndarray, modules: int) -> np.ndarray:
    """Per quad: median grey of the quiet zone (half a bit outside) minus median grey of the black border (the
    middle of its bits). Positive for a marker even with corners a px off; most squares OpenCV rejects are not
    markers and have no such ring."""
    h = _homographies(quads)
    cells = (np.arange(modules) + 0.5) / modules
    light = np.median(_sample(gray, _apply(h, _ring(cells, -0.5 / modules))), axis=1)
    dark = np.median(_sample(gray, _apply(h, _ring(cells, 0.5 / modules))), axis=1)
    return light - dark


def _ring(cells: np.ndarray, inset: float) -> np.ndarray:
    """Unit-square points along all four sides, `inset` in from them (negative: outside), at `cells` along each."""
    n = len(cells)
    near, far = np.full(n, inset), np.full(n, 1 - inset)
    return np.concatenate([np.column_stack([cells, near]), np.column_stack([cells, far]),
                           np.column_stack([near, cells]), np.column_stack([far, cells])])


def _clockwise(quads: np.ndarray) -> np.ndarray:
    """Quads in clockwise order in the image (y down), as OpenCV's are: a mirrored grid could read as another id."""
    x, y = quads[:, :, 0], quads[:, :, 1]
    area = np.sum(x * np.roll(y, -1, 1) - np.roll(x, -1, 1) * y, axis=1)
    return np.where((area < 0)[:, None, None], quads[:, ::-1], quads)


def _decode(gray: np.ndarray, quads: np.ndarray, dictionary: str, exact_ok: bool = False
            ) -> list[tuple[int, np.ndarray]]:
    """Decode refined candidate quads by matching them against blurred images of every code.

    Bits of a 12-16 px marker are 2-3 px and blur into their neighbours, so thresholding each bit misreads them.
    Instead the square is sampled twice per bit in each direction and correlated (normalised) with every id in
    every rotation drawn at four blurs. A marker is accepted when its best code correlates at >= 0.88 and beats
    every other code by >= 0.04. Real markers of 12-24 px correlate at 0.92-0.99; squares that are not markers,
    and AprilTags read as 4x4 codes, at most ~0.78 (measured on the real photos in shared/realdata). With
    `exact_ok` (squares OpenCV only outlined, `_detector`), a square whose bits also read exactly as its best code
    needs only 0.8, as one OpenCV identified does (`_checked`).
    Returns [(id, corners in the marker's own order)], the best correlated first.
    """
    if len(quads) == 0:
        return []
    quads = _clockwise(quads)
    ids, rots, rho_best, rho_other, exact = _match(gray, quads, dictionary, bits=exact_ok)
    accept = np.flatnonzero((rho_best >= 0.88) & (rho_best - rho_other >= 0.04) | (rho_best >= 0.8) & exact & exact_ok)
    accept = accept[np.argsort(-rho_best[accept], kind="stable")]
    # The sampled grid is the code turned by np.rot90(., r): the marker's own top-left is candidate corner -r.
    return [(int(ids[i]), np.roll(quads[i], rots[i], axis=0)) for i in accept]


_SCREEN_CONTRAST = 6.0  # grey levels; half of _match's 12, since the corners are not refined yet
_SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_MAX_ITER | cv2.TERM_CRITERIA_EPS, 30, 0.1)  # OpenCV's aruco defaults


def _subpix_fallback(gray: np.ndarray, quads: np.ndarray, modules: int) -> np.ndarray:
    """Corners of the quads the edge refinement could not measure (an edge without contrast, a corner cut off),
    refined as cv2.aruco's CORNER_REFINE_SUBPIX would: cornerSubPix in a window of half a bit, at most 2 px."""
    out = np.array(quads, dtype=np.float64).reshape(-1, 4, 2)
    for k, q in enumerate(out):
        module = np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1).mean() / modules
        win = int(max(1, min(2, round(0.5 * module))))
        pts = q.astype(np.float32).reshape(-1, 1, 2)
        out[k] = cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), _SUBPIX_CRITERIA).reshape(4, 2)
    return out


def detect_markers(
    image: np.ndarray, dictionary: str = "DICT_4X4_250", frame_side_px: int | None = None, upscale: bool = True,
    rescue: bool = True, known: Sequence[MarkerDetection] = (),
) -> list[MarkerDetection]:
    """All markers of `dictionary` in a BGR or grey image, sorted by id (then top to bottom).

    `frame_side_px`: the image is a crop of a frame whose longer side is this; it is then read exactly as that
    frame would be (the same passes and thresholds; markers as small as MIN_SIDE_PX) and no slower per pixel.
    `upscale` False: no 2x pass even in a frame up to _UPSCALE_MAX_SIDE; `rescue` False: the squares OpenCV rejected
    are not refined and decoded again (both for a caller with another way to find what these passes find: a record's
    reader looks for the markers it knew there again in place, vision/record_reader.py). `known`: markers measured
    before (px of `image`); a square OpenCV finds with one's id and every corner within KNOWN_PX of its corners is
    that marker where it stood, and keeps those corners (not measured from its edges nor its code correlated again:
    most of the cost of reading a crop where a hand passed by markers it did not touch). A large frame's full scan
    of 4x4 codes (`_outlined_markers`: no `frame_side_px`) reads every square by correlation: `rescue` and `known`
    do not apply there."""
    gray = _gray8(image)
    dic = aruco_dictionary(dictionary)
    modules = dic.markerSize + 2
    frame_side = frame_side_px or max(gray.shape)
    large = frame_side > _UPSCALE_MAX_SIDE
    if large and frame_side_px is None and dic.maxCorrectionBits <= 2 and not _is_apriltag(dictionary):
        ids, quads = _outlined_markers(gray, dictionary, modules)
    else:
        ids, quads = _identified_markers(gray, dictionary, frame_side_px, large, modules, upscale, rescue, known)
    centre = quads.reshape(-1, 4, 2).mean(axis=1)
    order = np.lexsort((centre[:, 0], centre[:, 1], np.array(ids, dtype=int)))  # by id, then top to bottom
    return [MarkerDetection(ids[k], quads[k]) for k in order]


def _outlined_markers(gray: np.ndarray, dictionary: str, modules: int) -> tuple[list[int], np.ndarray]:
    """A large frame's full scan: OpenCV only outlines the squares (`_detector`'s `outline_only`), and every code
    is read by correlation (`_decode`), all bands' squares in one refinement (refined band by band while OpenCV
    read the next, they took as long or longer: 1.07-1.10 of the plain detector against 1.00-1.02, interleaved
    runs): (ids, corners (N, 4, 2))."""
    accepted, rejected = _squares_read(gray, dictionary, None, [1], True, outline_only=True)
    cands = rejected + [c for _, c in accepted]  # with the few squares of the one code OpenCV knew
    if not cands:
        return [], np.zeros((0, 4, 2))
    return _with_decoded(gray, np.array(cands), [], np.zeros((0, 4, 2)), dictionary, modules, True, exact_ok=True)


def _identified_markers(gray: np.ndarray, dictionary: str, frame_side_px: int | None, large: bool, modules: int,
                        upscale: bool, rescue: bool, known: Sequence[MarkerDetection]
                        ) -> tuple[list[int], np.ndarray]:
    """`detect_markers`' squares as OpenCV identifies them, checked by correlation (`_checked`), then those it
    rejected read by correlation (`rescue`): (ids, corners (N, 4, 2))."""
    scales = [1, 2] if not large and upscale else [1]
    accepted, rejected = _squares_read(gray, dictionary, frame_side_px, scales, large)
    accepted, kept = _in_place(accepted, known)
    ids, quads, rho = _checked(gray, *_found_once(accepted, large), dictionary, modules)
    # Best correlated first, so that of two readings of one square the right one stays.
    order = np.argsort(-rho, kind="stable")
    ids, quads = _kept_first(kept, ids[order], quads[order])
    keep = _unique(quads, np.zeros((0, 4, 2)))
    ids, quads = [int(i) for i in ids[keep]], quads[keep]
    if rejected and rescue:
        ids, quads = _with_decoded(gray, np.array(rejected), ids, quads, dictionary, modules, large, exact_ok=False)
    return ids, quads


def _with_decoded(gray: np.ndarray, cands: np.ndarray, ids: list[int], quads: np.ndarray, dictionary: str,
                  modules: int, large: bool, exact_ok: bool) -> tuple[list[int], np.ndarray]:
    """(ids, quads) and the markers read among `cands` (`_decoded_squares`) that are none of them."""
    decoded = _decoded_squares(gray, cands, quads, dictionary, modules, large, exact_ok)
    if not decoded:
        return ids, quads
    new = np.array([c for _, c in decoded])
    keep = _unique(new, quads)
    return ids + [i for (i, _), k in zip(decoded, keep, strict=True) if k], np.concatenate([quads, new[keep]])


def _decoded_squares(gray: np.ndarray, cands: np.ndarray, found: np.ndarray, dictionary: str, modules: int,
                     large: bool, exact_ok: bool) -> list[tuple[int, np.ndarray]]:
    """The squares OpenCV did not identify (N, 4, 2), but for those on a marker `found` already, refined and read
    by correlation (`_decode`): [(id, corners)], the best correlated first."""
    def inner(quads: np.ndarray) -> np.ndarray:
        # With thin quiet zones OpenCV often outlines the quiet zone instead of the black square: also try the
        # square one bit inside.
        return _apply(_homographies(quads), _UNIT * modules / (modules + 2) + 1 / (modules + 2))

    def plausible(quads: np.ndarray) -> np.ndarray:
        return quads[(mean_side_px(quads) >= 0.8 * MIN_SIDE_PX) & _unique(quads, found, greedy=False)]

    if not large:
        # Smaller frames refine them all: their 10-14 px squares, their corners not refined yet, can fail the
        # screen below and still decode (2 of 32 markers of the 720p demo table).
        cands = plausible(np.concatenate([cands, inner(cands)]))
    else:
        # Only squares with a dark border in a light quiet zone are worth refining: at 4K none of the rest ever
        # decodes. A square that has one is the black square itself, not its quiet zone's outline: only the others
        # are tried one bit inside (a 4K full scan's ~130 squares refined, not ~150).
        cands = plausible(cands)
        dark_bordered = _border_contrast(gray, cands, modules) >= _SCREEN_CONTRAST
        inside = plausible(inner(cands[~dark_bordered])) if (~dark_bordered).any() else cands[:0]
        inside = inside[_border_contrast(gray, inside, modules) >= _SCREEN_CONTRAST] if len(inside) else inside
        cands = np.concatenate([cands[dark_bordered], inside])
        cands = cands[_square_once(cands)]  # the bands' overlap outlines its squares twice
    refined, ok = refine_corners(gray, cands, modules)
    return _decode(gray, refined[ok], dictionary, exact_ok=exact_ok)


KNOWN_PX = 1.5
"""A square OpenCV finds (its corners unrefined: within a px of the marker's) is a known marker where it stood when
every corner is within this of that marker's measured corners (`detect_markers(known=...)`)."""


def _in_place(accepted: list[tuple[int, np.ndarray]], known: Sequence[MarkerDetection]
              ) -> tuple[list[tuple[int, np.ndarray]], list[tuple[int, np.ndarray]]]:
    """(the squares OpenCV accepted that are no known marker where it stood, the known markers those are: id and
    known corners), each known marker taken once."""
    if not known or not accepted:
        return accepted, []
    by_id: dict[int, list[np.ndarray]] = {}
    for m in known:
        by_id.setdefault(int(m.id), []).append(np.asarray(m.corners, dtype=np.float64).reshape(4, 2))
    rest, kept = [], []
    for i, c in accepted:
        same = next((k for k, corners in enumerate(by_id.get(i, [])) if
                     np.linalg.norm(corners - c, axis=1).max() <= KNOWN_PX), None)
        if same is None:
            rest.append((i, c))
        else:
            kept.append((i, by_id[i].pop(same)))
    return rest, kept


def _kept_first(kept: list[tuple[int, np.ndarray]], ids: np.ndarray, quads: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """The known markers found where they stood (`_in_place`) before the others, as the best-correlated come first
    (of two readings of one square the first stays)."""
    if not kept:
        return ids, quads
    return (np.concatenate([[i for i, _ in kept], ids]).astype(int),
            np.concatenate([np.array([c for _, c in kept]).reshape(-1, 4, 2), quads]))


def _squares_read(gray: np.ndarray, dictionary: str, frame_side_px: int | None, scales: list[int], large: bool,
                  outline_only: bool = False) -> tuple[list[tuple[int, np.ndarray]], list[np.ndarray]]:
    """OpenCV's squares in `gray` at every scale (a large frame's in bands, `_detect_in_bands`), all together: one
    refinement of all of them costs less than one per scale or band (refine_corners costs ~2 ms a call besides its
    squares: a live crop's reading). Returns (accepted [(id, corners (4, 2) px of `gray`)], rejected [corners]);
    `outline_only` as `_detector`'s."""
    accepted: list[tuple[int, np.ndarray]] = []
    rejected: list[np.ndarray] = []
    for s in scales:
        img = gray if s == 1 else cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC)
        small_only = s > 1 and not _is_apriltag(dictionary)  # the tag photos need the full ladder at 2x too
        side = max(img.shape)
        if frame_side_px:  # crops come in all sizes: a few detectors, the smallest marker a little under 10 px
            side = -(-side // 128) * 128
        back = (s - 1) / 2  # resize by s maps x -> s*x + (s-1)/2 with pixel centres at integers
        detector = _detector(dictionary, side, small_only, large, outline_only)
        for corners, ids, rej in _detect_in_bands(detector, img, large):
            if ids is not None:
                accepted += [(int(i), (c.reshape(4, 2) - back) / s) for i, c in zip(ids.ravel(), corners, strict=True)]
            rejected += [(c.reshape(4, 2) - back) / s for c in rej]
    return accepted, rejected


def _found_once(accepted: list[tuple[int, np.ndarray]], large: bool) -> tuple[np.ndarray, np.ndarray]:
    """The squares OpenCV accepted as (ids (N,), corners (N, 4, 2)); in a `large` frame, read in bands, a marker in
    their overlap is found twice (the same id on the same square): once is enough to refine. Smaller frames keep
    both readings of a square (1x and 2x passes): the better one is chosen after both are refined and checked."""
    ids = np.array([i for i, _ in accepted], dtype=int)
    found = np.array([c for _, c in accepted]).reshape(-1, 4, 2)
    if large:
        once = _unique(found, np.zeros((0, 4, 2)), same=ids)
        ids, found = ids[once], found[once]
    return ids, found


def _checked(gray: np.ndarray, ids: np.ndarray, found: np.ndarray, dictionary: str, modules: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Squares OpenCV accepted, their corners measured from their edges (`refine_corners`, cornerSubPix where that
    cannot), and for codes with little error correction (4x4) only those whose image also correlates best with
    their code: (ids, corners, correlation (1 where not checked))."""
    quads, ok = refine_corners(gray, found, modules)
    quads[~ok] = _subpix_fallback(gray, quads[~ok], modules)
    rho = np.ones(len(quads))
    if len(quads) and aruco_dictionary(dictionary).maxCorrectionBits <= 2:
        # An exact 4x4 code is weak evidence: a blurred 16 px marker 10 reads as 109, grazing AprilTags upscaled as
        # 103 (correlation 0.71). Keep a marker only if its image also correlates best with that code (real ones:
        # >= 0.95, measured); the caller puts the best first.
        m_ids, m_rots, rho, _, _ = _match(gray, quads, dictionary, screen=False, other=False)
        good = np.flatnonzero((m_ids == ids) & (m_rots == 0) & (rho >= 0.8))
        ids, quads, rho = ids[good], quads[good], rho[good]
    return ids, quads, rho


def _detect_in_bands(detector: cv2.aruco.ArucoDetector, img: np.ndarray, large: bool) -> list[tuple]:
    """detectMarkers on a tall image as overlapping bands read by two threads (the caller's and `_bands`'), top band
    first, their squares in the image's pixels.

    With one threshold window (frames over 2048 px) OpenCV's detectMarkers runs on one core; the bands run on both.
    A seam's two bands each reach `overlap` rows past it (160, or an eighth of the height: 270 rows at 4K), so every
    marker up to twice that tall lies whole in one of them (one found in both is the same square twice: the caller
    refines it once). The parameters are relative to the longer side, which a band keeps (its width), so a band is
    read as the whole image would be: landscape images only (a portrait page's band would be read with its width's
    parameters). Only `large` frames: below 2048 px every rejected square is refined and decoded (`detect_markers`),
    and the squares cut by a band's edge cost more than the second thread saves (a 1080p full scan 2.75 -> 3.57 of
    the plain detector, measured); small images are read whole."""
    h, w = img.shape[:2]
    if not large or h < _BAND_MIN_ROWS or w < h:  # a portrait image's bands would not keep its longer side
        return [detector.detectMarkers(img)]
    overlap = max(160, h // 8)
    cuts = [round(k * h / _BANDS) for k in range(_BANDS + 1)]
    starts = [max(cuts[k] - overlap, 0) for k in range(_BANDS)]
    bands = [img[a: min(cuts[k + 1] + overlap, h)] for k, a in enumerate(starts)]
    jobs = [_bands().submit(detector.detectMarkers, band) for band in bands[:-1]]
    last = detector.detectMarkers(bands[-1])  # the caller's own thread reads one: callers never wait on each other
    out = []
    for a, (corners, ids, rej) in zip(starts, [job.result() for job in jobs] + [last], strict=True):
        shift = np.array([0.0, float(a)], np.float32)
        out.append((tuple(c + shift for c in corners), ids, tuple(c + shift for c in rej)))
    return out


@cache
def _bands() -> ThreadPoolExecutor:
    """The threads that read a large frame's bands but the last, which its caller reads (`_detect_in_bands`)."""
    return ThreadPoolExecutor(_BANDS - 1, thread_name_prefix="fieldglass-band")


def track_markers(
    image: np.ndarray, previous: list[MarkerDetection], dictionary: str = "DICT_4X4_250"
) -> list[MarkerDetection]:
    """The markers of `previous` (last frame's detections) found again near their old corners, sorted like
    `detect_markers`: corners re-measured from the four edges, and kept only when the square still reads as the
    same code (correlation >= 0.8). A marker that moved more than about a bit, or is hidden, is left out.
    Costs a fraction of a full scan: no search, no thresholding; only the part of the image around the markers is
    converted to grey."""
    if not previous:
        return []
    modules = aruco_dictionary(dictionary).markerSize + 2
    ids = np.array([m.id for m in previous])
    old = np.array([m.corners for m in previous], dtype=np.float64).reshape(-1, 4, 2)
    margin = 3 * np.linalg.norm(old - np.roll(old, 1, axis=1), axis=2).max() + 8
    h, w = image.shape[:2]
    x0, y0 = (int(max(np.floor(v - margin), 0)) for v in old.reshape(-1, 2).min(axis=0))
    x1, y1 = (int(min(np.ceil(v + margin) + 1, lim)) for v, lim in zip(old.reshape(-1, 2).max(axis=0), (w, h),
                                                                        strict=True))
    if x1 - x0 < 2 or y1 - y0 < 2:  # all off the image
        return []
    gray = _gray8(image[y0:y1, x0:x1])
    origin = np.array([x0, y0], dtype=np.float64)
    quads, ok = refine_corners(gray, old - origin, modules)
    m_ids, m_rots, rho, _, _ = _match(gray, quads, dictionary, screen=False, other=False)
    good = ok & (m_ids == ids) & (m_rots == 0) & (rho >= 0.8)
    return [MarkerDetection(int(i), q + origin) for i, q, g in zip(ids, quads, good, strict=True) if g]


def _unique(quads: np.ndarray, existing: np.ndarray, greedy: bool = True, same: np.ndarray | None = None
            ) -> np.ndarray:
    """Mask of `quads` that do not overlap `existing` (centres closer than half a side) nor, if greedy, an earlier
    kept quad: the same square seen by two passes or two thresholds. `same` (ids, one per quad): only an earlier
    quad with the same id counts (two readings of one square as different codes are left for the code check)."""
    keep = np.ones(len(quads), dtype=bool)
    if len(quads) == 0:
        return keep
    centre, side = quads.mean(axis=1), mean_side_px(quads)
    if len(existing):
        e_centre, e_side = existing.mean(axis=1), mean_side_px(existing)
        dist = np.linalg.norm(centre[:, None] - e_centre[None], axis=2)
        keep &= ~(dist < 0.5 * np.maximum(side[:, None], e_side[None])).any(axis=1)
    if greedy:
        dist = np.linalg.norm(centre[:, None] - centre[None], axis=2)
        close = np.triu(dist < 0.5 * np.maximum(side[:, None], side[None]), k=1)  # i < j, the same square
        if same is not None:
            close &= same[:, None] == same[None]
        keep &= ~close[keep].any(axis=0)  # a later square close to an earlier one (kept or not) goes
    return keep


def _square_once(quads: np.ndarray) -> np.ndarray:
    """Mask of `quads` (N, 4, 2) that are not an earlier one again: centres within a fifth of a side and sides within
    15 % (a square one bit inside another, its centre the same, is another candidate: `detect_markers`' rescue)."""
    keep = np.ones(len(quads), dtype=bool)
    if len(quads) < 2:
        return keep
    centre, side = quads.mean(axis=1), mean_side_px(quads)
    near = np.linalg.norm(centre[:, None] - centre[None], axis=2) < 0.2 * np.minimum(side[:, None], side[None])
    alike = np.abs(np.log(side[:, None] / np.maximum(side[None], 1e-9))) < np.log(1.15)
    keep &= ~np.triu(near & alike, k=1).any(axis=0)
    return keep


def _zbar_qr(img: np.ndarray) -> list:
    """pyzbar's QR symbols in one pass; none when pyzbar fails on the result (it raises ValueError for an
    orientation ZBar reports as unknown, 4294967295): that pass is lost, never the image or the batch."""
    try:
        return pyzbar.decode(img, symbols=[pyzbar.ZBarSymbol.QRCODE])
    except ValueError:
        return []


def detect_qr(image: np.ndarray) -> list[QRDetection]:
    """QR codes read with pyzbar: payload text and corner polygon in px, each code once.

    ZBar alone reads 95 of the 137 zxing test photos (shared/realdata/qrcode-zxing), 3 ms each. On images up to
    ~2 MP three more passes, Otsu-binarised (+2), inverted for light-on-dark codes (+2) and, under 1000 px,
    upscaled 2x for small codes (+8), raise that to 106 at 20 ms each. A 4K frame gets the plain pass only: it
    alone takes ~0.3 s there.
    """
    gray = _gray8(image)
    passes = [(gray, 1)]
    if gray.size <= _QR_EXTRA_PASSES_MAX_PX:
        passes.append((cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1], 1))
        passes.append((255 - gray, 1))
        if max(gray.shape) < 1000:
            passes.append((cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), 2))
    found: list[QRDetection] = []
    for img, s in passes:
        for sym in _zbar_qr(img):
            polygon = (np.array([(p.x, p.y) for p in sym.polygon], dtype=np.float64) - (s - 1) / 2) / s
            payload = sym.data.decode("utf-8", errors="replace")
            size = np.ptp(polygon, axis=0).max()
            if not any(
                f.payload == payload and np.linalg.norm(f.polygon.mean(0) - polygon.mean(0)) < 0.25 * size
                for f in found
            ):
                found.append(QRDetection(payload, polygon))
    return found
