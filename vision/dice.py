"""Dice read from a photo of the table: every die whose top face shows, and its value by the pips on that face.

How (pure functions over a BGR image, OpenCV primitives throughout):

1. *Faces.* A die's top face is a flat patch of one brightness bounded by steps (its rounded rim, the shading step
   to a side face). The flat pixels (a 3x3 morphological gradient below a threshold, on a square-root tone curve)
   make regions (`cv2.findContours`); each is grown back to its whole face with `cv2.floodFill` (the pips' edges
   cut a face's flat region apart, the strips between pips and rim are still the face's brightness), walled twice:
   by the steepest steps alone (a face whose pips nearly touch its rim comes whole), then by every step (a face kept
   off a side face of nearly its brightness); both are read, and of two readings of one die the surer is kept (two
   that disagree make it unreadable). A face must fill a near-square rectangle turned as its rim's edges run, or as
   its smallest rectangle where that fits closer. A side face seen obliquely
   is foreshortened to a narrow rectangle and fails the squareness test; a top face merged with a side face fails
   it too, or shows a pip pattern no face has and is said unreadable.
2. *Pips.* Each candidate face is cut out along its rectangle into a square patch (`cv2.warpAffine`); the pips are
   the pixels far from the face's own (median) colour, split by Otsu, counted with `cv2.connectedComponentsWithStats`.
3. *Value.* The pips' centres must sit where a die's pips sit (the six faces' patterns, both turns of 2, 3 and 6, at
   one free spacing): a pattern that fits is the value, with a confidence from the fit, the pips' contrast and their
   sizes' agreement. A face with pip-like spots that fit no pattern is reported unreadable (value None), never
   guessed; a patch with no pips, or with a spot too big or not round enough to be a pip (a marker's black square or
   cells, a base's marker, a printed line), is no die at all.

Speed: faces are looked for on a pyramid level where the smallest is still about 18 px; the pips are read in the
full frame. Measured by `fieldglass bench dice`, never in tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.projection import pixels_to_table, table_to_pixels

__all__ = ["DIE_SIZES_MM", "FLAT_OF_SIDE", "READABLE_FACE_PX", "DiceOptions", "DieReading", "dice_on_table",
           "options_for_table", "read_dice"]

_HIGH_WALL = 4.5  # x the flat threshold: the steep steps alone, tried first (a fill leaks less easily into pips)
_WALL = 1.8  # x the flat threshold: a step this steep stops a face's fill (a rim softened by blur, a side face)
_TOL = 0.07  # of the seed's brightness (+5 levels): how far a face's fill may stray from it (a side face is 20 % off)
_FAINT = 90  # grey level: a face darker than this is also looked for by its faint rim (a black die's)
_FAINT_WALL = 3  # grey levels: a faint rim's step, on a smoothed copy
_FAINT_TOL = 4.0  # grey levels: how far a dark face's fill may stray from its seed
_FAINT_GROW = 1.0  # a dark face's fill stops short of its rim where its pips were opened away near it
_CHROMA = 6.0  # grey levels: a colour's range beyond the brightness's (a JPEG's chroma is noisier)
_WORK_SIDE = 18.0  # px: the smallest face's side at the scale faces are looked for
_PATCH = 40  # px: the side of the normalised face patch
_BORDER = 0.04  # of the patch: the rim, left out when looking for pips
# the six faces' pips at unit spacing (x, y); 2, 3 and 6 also turned by 90 degrees, and 6 also on an even grid
_LAYOUTS: dict[int, tuple[np.ndarray, ...]] = {
    1: (np.array([[0.0, 0.0]]),),
    2: (np.array([[-1.0, -1.0], [1.0, 1.0]]), np.array([[-1.0, 1.0], [1.0, -1.0]])),
    3: (np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]]), np.array([[-1.0, 1.0], [0.0, 0.0], [1.0, -1.0]])),
    4: (np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]),),
    5: (np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [0.0, 0.0]]),),
    6: (np.array([[-1.0, -1.0], [-1.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 0.0], [1.0, 1.0]]),
        np.array([[-1.0, -1.0], [0.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [0.0, 1.0], [1.0, 1.0]]),
        # many real dice set a 6 on an even grid, its columns as close as its rows (a 2 x 3 block of pips)
        np.array([[-0.5, -1.0], [-0.5, 0.0], [-0.5, 1.0], [0.5, -1.0], [0.5, 0.0], [0.5, 1.0]]),
        np.array([[-1.0, -0.5], [0.0, -0.5], [1.0, -0.5], [-1.0, 0.5], [0.0, 0.5], [1.0, 0.5]])),
}


@dataclass(frozen=True)
class DiceOptions:
    """What to look for. `min_side_px` / `max_side_px`: the top face's side in the frame (from a camera and layout
    these follow from 12-20 mm dice, see `side_range_px`); `flat_threshold`: the colour step (grey levels) that
    bounds a face; `min_confidence`: a fitted pattern below it is said unreadable."""

    min_side_px: float = 14.0
    max_side_px: float = 160.0
    flat_threshold: int = 10
    min_confidence: float = 0.5


@dataclass(frozen=True)
class DieReading:
    """One die seen from above: `value` 1-6, or None when the top face shows but cannot be read for sure;
    `centre_px` the top face's centre, `side_px` its side, `angle_deg` its turn in the image (0-90),
    `confidence` 0-1 (for an unreadable face, how sure it is a die at all)."""

    value: int | None
    centre_px: tuple[float, float]
    side_px: float
    angle_deg: float
    confidence: float


# a square-root tone curve: a step on a dark die counts about as much as the same step in light on a white one
_LEVELS = np.arange(256, dtype=np.int64)  # the grey levels, for sums over a histogram
_TONE = np.clip(np.sqrt(np.arange(256) / 255.0) * 255.0 * 0.75 + np.arange(256) * 0.25, 0, 255).astype(np.uint8)


def _flat_outlines(smooth: np.ndarray, threshold: int) -> tuple[np.ndarray, dict, list[np.ndarray]]:
    """The flat mask (no brightness step in a 3x3 neighbourhood, on a square-root tone curve: a step on a dark die
    counts about as much as on a white one), the steps by wall level ({1: every step, 2: the steep ones}, 0/1
    masks) and the flat regions' outer outlines (`cv2.findContours`). Brightness, not colour: a JPEG's chroma is
    blocky, and the light and shade that bound a face (rim, side, shadow) are steps in brightness."""
    grad = cv2.morphologyEx(cv2.LUT(smooth, _TONE), cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    flat = cv2.threshold(grad, threshold - 1, 1, cv2.THRESH_BINARY_INV)[1]
    walls = {1: cv2.threshold(grad, int(_WALL * threshold) - 1, 1, cv2.THRESH_BINARY)[1],
             2: cv2.threshold(grad, int(_HIGH_WALL * threshold) - 1, 1, cv2.THRESH_BINARY)[1]}
    contours, hierarchy = cv2.findContours(flat, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return flat, walls, []
    return flat, walls, [c for c, h in zip(contours, hierarchy[0], strict=True) if h[3] < 0]


def _seed_point(contour: np.ndarray, flat: np.ndarray) -> tuple[int, int]:
    """A flat region's most interior pixel (x, y), frame px."""
    x, y, w, h = cv2.boundingRect(contour)
    region = np.zeros((h + 2, w + 2), np.uint8)  # a clear pixel round it: the distance is to the region's edge
    cv2.drawContours(region, [contour], 0, 1, -1, offset=(1 - x, 1 - y))
    region[1:-1, 1:-1] &= flat[y : y + h, x : x + w]
    dist = cv2.distanceTransform(region, cv2.DIST_L2, 3)
    sy, sx = divmod(int(np.argmax(dist)), dist.shape[1])
    return sx - 1 + x, sy - 1 + y


def _grow_face(smooth: np.ndarray, flat: np.ndarray, wall, contour: np.ndarray, reach: int,
               level: int = 1, erase: int = 0, tol_max: float = 255.0, colour: np.ndarray | None = None,
               at: tuple[int, int] | None = None, within: tuple[int, int, int, int] | None = None):
    """The face a flat region belongs to, grown from its most interior pixel (`cv2.floodFill` within a brightness
    range of that pixel's): the thin strips between a face's pips and its rim, which the flat mask loses to the
    steps around them, are of the face's brightness, so a face whose pips cut its flat region apart is whole again.
    With `erase` (a kernel's side in px) the pips are erased first (a grey closing takes dark
    pips off a light face, an opening light ones off a dark face) and the steps found again: a face whose blurred pips
    touch each other and its rim leaves no strip of its brightness to fill through. `tol_max`: the fill's range at most
    (a dark face's, bounded by faint steps). With `colour` (the frame, smoothed, BGR) the fill keeps within the
    range in each colour too: a pink or blue die on green cloth is of the cloth's brightness, not of its colour.
    `wall`: the steps, {level: 0/1 mask}; `at`: the seed pixel if known (`_seed_point`); `within`: a box (x0, y0,
    x1, y1, frame px) known to hold the whole fill, strictly inside the reach (the fill from this seed within fewer
    walls, which did not leak: this fill is part of that one), filled in alone.
    Returns (the fill's box of the mask, 2 where filled; that box's corner (x, y) and the seed (x, y), frame px), or
    None when the fill leaks beyond `reach`."""
    x, y, w, h = cv2.boundingRect(contour)
    H, W = smooth.shape
    # a face holding this region lies within `reach` (the largest face) of its far side
    rx, ry = max(reach - w, 0) + 2, max(reach - h, 0) + 2
    x0, y0 = max(x - rx, 0), max(y - ry, 0)
    x1, y1 = min(x + w + rx, W), min(y + h + ry, H)
    if within is not None:
        x0, y0, x1, y1 = within
    px, py = at if at is not None else _seed_point(contour, flat)
    sx, sy = px - x0, py - y0
    crop = smooth[y0:y1, x0:x1]
    mask = np.zeros((y1 - y0 + 2, x1 - x0 + 2), np.uint8)
    if erase:
        # dark pips (a closing) or light (an opening): as the pixels off the face's brightness are, on the whole
        # (their mean from the crop's histogram: integer sums, so the very mean of the pixels themselves)
        v = int(crop[sy, sx])
        counts = cv2.calcHist([crop], [0], None, [256], [0, 256]).ravel().astype(np.int64)
        off = np.abs(_LEVELS - v) > _TOL * v + 5.0
        n_off = int(counts[off].sum())
        dark = n_off == 0 or int((counts * _LEVELS)[off].sum()) / n_off < v
        kernel = np.ones((erase, erase), np.uint8)
        crop = cv2.morphologyEx(crop, cv2.MORPH_CLOSE if dark else cv2.MORPH_OPEN, kernel)
        grad = cv2.morphologyEx(cv2.LUT(crop, _TONE), cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        mask[1:-1, 1:-1] = cv2.threshold(grad, level - 1, 1, cv2.THRESH_BINARY)[1]
    else:
        # steps stop the fill
        mask[1:-1, 1:-1] = wall[level][y0:y1, x0:x1]
    v = float(crop[sy, sx])
    tol = min(_TOL * v + 5.0, tol_max)
    flags = 4 | cv2.FLOODFILL_FIXED_RANGE | cv2.FLOODFILL_MASK_ONLY | (2 << 8)
    if colour is not None and not erase:
        crop = colour[y0:y1, x0:x1]
        # each colour's range as the brightness's, and a JPEG's chroma noise more
        tols = tuple(_TOL * float(c) + 5.0 + _CHROMA for c in crop[sy, sx])
        _, _, _, (fx, fy, fw, fh) = cv2.floodFill(crop, mask, (int(sx), int(sy)), 0, tols, tols, flags)
    else:
        _, _, _, (fx, fy, fw, fh) = cv2.floodFill(crop, mask, (int(sx), int(sy)), 0, tol, tol, flags)
    if within is None and (fx <= 0 or fy <= 0 or fx + fw >= x1 - x0 or fy + fh >= y1 - y0):
        return None
    # the fill's box is its outline's bounding box: its size is judged before the outline is traced (`_outline`)
    return mask[1 + fy : 1 + fy + fh, 1 + fx : 1 + fx + fw], (x0 + fx, y0 + fy), (int(sx) + x0, int(sy) + y0)


def _outline(filled: np.ndarray, at: tuple[int, int]) -> np.ndarray | None:
    """The outline (N, 1, 2) in frame px of a fill (`_grow_face`: its box of the mask, 2 where filled, at `at` in
    the frame), or None."""
    outlines, _ = cv2.findContours(cv2.compare(filled, 2, cv2.CMP_EQ), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE,
                                   offset=at)
    if not outlines:
        return None
    return outlines[0] if len(outlines) == 1 else max(outlines, key=cv2.contourArea)


def _edge_angle(grey: np.ndarray) -> float:
    """The dominant edge direction in a crop, modulo 90 degrees (the face's rim; round pips favour none): the
    magnitude-weighted mean of exp(4i theta) over the gradients, as g^4 / |g|^3."""
    if grey.dtype == np.uint8 and min(grey.shape[:2]) >= 3:
        # both 3x3 Sobel gradients in one pass, in whole numbers: the same values as two float Sobels
        gx, gy = (g.astype(np.float32) for g in cv2.spatialGradient(grey))
    else:
        gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    # z = gx + i gy; z^2 = c + i d; z^4 = (c^2 - d^2) + 2i cd; |z|^3 = (gx^2 + gy^2)^1.5, in real arithmetic
    # (in float32, each product once, in place where its operand is done with)
    gx2, gy2 = gx * gx, gy * gy
    c = gx2 - gy2
    np.multiply(gx, 2.0, out=gx)
    d = np.multiply(gx, gy, out=gx)
    w = cv2.pow(np.add(gx2, gy2, out=gx2), 1.5)
    np.add(w, 1e-6, out=w)
    np.divide(1.0, w, out=w)
    cd = np.multiply(c, 2.0, out=gy)
    np.multiply(cd, d, out=cd)
    np.multiply(cd, w, out=cd)
    np.multiply(c, c, out=c)
    np.multiply(d, d, out=d)
    np.subtract(c, d, out=c)
    np.multiply(c, w, out=c)
    return math.atan2(float(cd.sum()), float(c.sum())) / 4.0


def _face_rect(contour: np.ndarray, grey: np.ndarray, angles: dict | None = None) -> tuple | None:
    """The face's rectangle ((cx, cy), (w, h), angle_deg) around a flat region's outline, or None if it is no
    square. The turn comes from the rim's edges (`_edge_angle`), not from `cv2.minAreaRect`: pips near the corners
    bite the flat region's corners off, and an octagon's smallest rectangle may lie at 45 degrees. `angles`: the
    rim's turns already measured in `grey`, by crop (a fill within more walls often has the same box)."""
    (_, _), (mw, mh), rect_angle = cv2.minAreaRect(contour)
    if min(mw, mh) < 0.7 * max(mw, mh):
        return None
    hull = cv2.convexHull(contour).reshape(-1, 2).astype(np.float64)
    hull_area = cv2.contourArea(hull.astype(np.float32))
    if hull_area < 0.72 * 0.99 * mw * mh:
        # no rectangle round the hull is smaller than the smallest (to float32's precision, well within 1 %): a
        # hull filling too little of that fills too little of the rectangle chosen below (no rim's turn needed)
        return None
    x, y, w, h = cv2.boundingRect(contour)
    pad = 2
    box = (max(y - pad, 0), y + h + pad, max(x - pad, 0), x + w + pad)
    edge = angles.get(box) if angles is not None else None
    if edge is None:
        edge = _edge_angle(grey[box[0] : box[1], box[2] : box[3]])
        if angles is not None:
            angles[box] = edge
    best = None
    # the rim's direction, or the smallest rectangle's where the face came whole: whichever fits the outline closer
    for a in (edge, math.radians(rect_angle)):
        axes = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
        proj = hull @ axes.T
        lo, hi = proj.min(0), proj.max(0)
        extent = hi - lo
        if best is None or extent[0] * extent[1] < 0.97 * best[0]:
            best = (float(extent[0] * extent[1]), a, axes, lo, hi)
    _, a, axes, lo, hi = best
    rw, rh = hi - lo
    if min(rw, rh) < 1 or hull_area < 0.72 * rw * rh or min(rw, rh) < 0.78 * max(rw, rh):
        return None
    centre = axes.T @ ((lo + hi) / 2.0)
    # the flat region stops a pixel short of the face's edge on every side (the gradient's own width)
    return (float(centre[0]), float(centre[1])), (float(rw) + 1.5, float(rh) + 1.5), math.degrees(a)


def _patch(image: np.ndarray, rect) -> np.ndarray:
    (cx, cy), (rw, rh), angle = rect
    side = 0.5 * (rw + rh)
    a = math.radians(angle)
    u = np.array([math.cos(a), math.sin(a)]) * side / _PATCH
    v = np.array([-math.sin(a), math.cos(a)]) * side / _PATCH
    c = np.array([cx, cy])
    # patch pixel (i, j) centre -> image point; invert the affine map for warpAffine's dst -> src convention
    origin = c - (u + v) * (_PATCH / 2.0) + 0.5 * (u + v)
    m = np.column_stack([u, v, origin])
    return cv2.warpAffine(image, m, (_PATCH, _PATCH), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def _fit_layout(points: np.ndarray) -> tuple[float, float]:
    """The best fit of n pip centres (patch half-widths from the centre) to the n-pip faces: (error, spacing).

    The pattern is fitted as a tilted camera sees it: for 4-6 pips an affine map (a square face foreshortened to a
    parallelogram, its sides' ratio at least `_SQUASH`, the centre off by at most 0.15 half-widths), for 2-3 pips a
    turn of at most `_TURN` and one scale, for 1 pip none. Error is the largest distance (in pip spacings) between a
    pip and its place in the fitted pattern."""
    n = len(points)
    best = (math.inf, 0.0)
    layouts = _LAYOUTS.get(n, ())
    if not layouts:
        return best
    # each pip's nearest place in every layout at every spacing, in one pass (the same distances as one by one)
    places = np.stack([layout * spacing for layout in layouts for spacing in _SPACINGS])
    nearest = np.argmin(np.linalg.norm(points[None, :, None, :] - places[:, None, :, :], axis=3), axis=2).tolist()
    for i, layout in enumerate(layouts):
        orders = set()
        for order in nearest[i * len(_SPACINGS) : (i + 1) * len(_SPACINGS)]:
            order = tuple(order)
            if len(set(order)) == n:
                orders.add(order)  # the pips' places, once each (the spacings mostly agree)
        for order in orders:
            matched = layout[list(order)]
            fit = _fit_map(points, matched)
            if fit is None:
                continue
            err, s = fit
            if err < best[0]:
                best = (err, s)
    return best


_SPACINGS = (0.5, 0.58, 0.66)  # the pips' spacings (patch half-widths) a pattern's places are first matched at
_SQUASH = 0.72  # a face's least side ratio in the patch (a 30 degree camera's frame edge; a side face is narrower)
_TURN = math.radians(12.0)  # the largest turn of a 2 or 3 off the rim's direction


def _fit_map(points: np.ndarray, model: np.ndarray) -> tuple[float, float] | None:
    """(error in spacings, mean spacing) of the pips `points` to their places `model` (unit spacing), or None when
    the map that fits them is no die's view (too squashed, turned, small or large)."""
    n = len(points)
    if n == 1:
        # a lone pip off the centre by its rectangle's error (a face's rectangle holding some of its rim or a side
        # face in a tilted view is off by a tenth of a half-width): judged in a pip spacing of 0.8
        return float(np.linalg.norm(points[0])) / 0.8, 0.5
    if n <= 3:
        q2 = float((model * model).sum())
        a = float((points * model).sum()) / q2
        b = float((model[:, 0] * points[:, 1] - model[:, 1] * points[:, 0]).sum()) / q2
        s = math.hypot(a, b)
        if abs(math.atan2(b, a)) > _TURN:
            return None
        fitted = model @ (np.array([[a, b], [-b, a]]))
    else:
        design = np.column_stack([model, np.ones(n)])
        coef, *_ = np.linalg.lstsq(design, points, rcond=None)
        lin, shift = coef[:2], coef[2]
        sv = np.linalg.svd(lin, compute_uv=False)
        if sv[1] < _SQUASH * sv[0] or float(np.linalg.norm(shift)) > 0.15 or np.linalg.det(lin) <= 0:
            return None
        s = float(math.sqrt(sv[0] * sv[1]))
        fitted = design @ coef
    if not 0.42 <= s <= 0.8:
        return None
    return float(np.linalg.norm(points - fitted, axis=1).max()) / max(s, 0.42), s


def median_of(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """`np.median(values, axis)` by partition alone (a tenth of the time on the small arrays the readers take it of,
    once per candidate face or group of pips); the same values, in the same dtype as numpy's."""
    n = values.shape[axis]
    k = n // 2
    if n % 2:
        return np.take(np.partition(values, k, axis=axis), k, axis=axis)
    return np.take(np.partition(values, (k - 1, k), axis=axis), (k - 1, k), axis=axis).mean(axis=axis)


def _median_colour(patch: np.ndarray) -> np.ndarray:
    """The patch's median in each colour (float64)."""
    return np.asarray(median_of(patch.reshape(-1, patch.shape[-1]) if patch.ndim == 3 else patch.reshape(-1, 1)),
                      np.float64)


def _percentile_99(values: np.ndarray) -> float:
    """The 99th percentile of `values` (linear between the two nearest, as `np.percentile`'s default)."""
    flat = values.ravel()
    at = 0.99 * (flat.size - 1)
    lo = int(math.floor(at))
    hi = min(lo + 1, flat.size - 1)
    part = np.partition(flat, (lo, hi))
    a, b, t = float(part[lo]), float(part[hi]), at - lo
    return a + (b - a) * t if t < 0.5 else b - (b - a) * (1.0 - t)


def _read_face(patch: np.ndarray) -> tuple[int | None, float] | None:
    """(value or None, confidence) for a face patch; None when the patch is no die's face."""
    colour = _median_colour(patch)
    diff = np.abs(patch.astype(np.int16) - colour.astype(np.int16))
    dist = (diff.max(axis=2) if diff.ndim == 3 else diff).astype(np.uint8)
    b = int(round(_BORDER * _PATCH))
    inner = dist[b:-b, b:-b]
    contrast = _percentile_99(inner)
    if contrast < 45:
        return None  # a blank square: no pips
    otsu, _ = cv2.threshold(inner, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    level = max(float(otsu), 0.45 * contrast, 30.0)
    mask = (inner > level).astype(np.uint8)
    n, _, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    cents = centroids[1:]
    side = float(_PATCH - 2 * b)
    expected = math.pi * (0.09 * _PATCH) ** 2  # a pip of 0.18 face sides across
    if np.any(areas > 4.0 * expected) or np.any(areas > 0.12 * side * side):
        return None  # a spot too big for a pip: a marker, a symbol, no die
    keep = areas >= 0.22 * expected
    areas, cents = areas[keep], cents[keep]
    if len(areas) == 0:
        return None
    bw = stats[1:, cv2.CC_STAT_WIDTH][keep].astype(np.float64)
    bh = stats[1:, cv2.CC_STAT_HEIGHT][keep].astype(np.float64)
    fill = areas / (bw * bh)
    if np.any(np.minimum(bw, bh) < 0.6 * np.maximum(bw, bh)) or np.any((fill < 0.5) | (fill > 0.93)):
        return None  # a spot that is no round pip (a printed line, a marker's square cell): no die
    # a spot cut by the patch's edge and smaller than the others is a neighbour's or a side face's pip
    box = stats[1:][keep]
    at_edge = (box[:, cv2.CC_STAT_LEFT] == 0) | (box[:, cv2.CC_STAT_TOP] == 0) | \
        (box[:, cv2.CC_STAT_LEFT] + box[:, cv2.CC_STAT_WIDTH] >= side) | \
        (box[:, cv2.CC_STAT_TOP] + box[:, cv2.CC_STAT_HEIGHT] >= side)
    partial = at_edge & (areas < 0.6 * median_of(areas))
    # a whole spot on the patch's edge: no pip of this face (a die's pips keep off its rim), or no face at all
    cut = bool((at_edge & ~partial).any())
    areas, cents = areas[~partial], cents[~partial]
    points = (cents - (side - 1) / 2.0) / (_PATCH / 2.0)
    sure = min(1.0, (contrast - 30.0) / 60.0)
    if not 1 <= len(areas) <= 6:
        return None if cut else (None, 0.5 * sure)
    err, _ = _fit_layout(points)
    if len(areas) == 1 and float(np.linalg.norm(points[0])) > 0.3:
        return None  # one spot far off the centre: a die's lone pip is at its centre (a grid's cross, a corner)
    spread = float(areas.max() / areas.min()) if len(areas) > 1 else 1.0
    if err == math.inf or spread > 3.0:
        return None if cut else (None, 0.5 * sure)
    confidence = max(0.0, 1.0 - err / 0.35) * sure * (1.0 if spread < 2.0 else 0.7)
    if cut and confidence < DiceOptions.min_confidence:
        return None  # a pattern fitted badly, a spot on the edge: a marker's cells or a printed sign, no die
    return (len(areas), confidence)


def _seeds(outlines, lo: float, hi: float, taken: np.ndarray):
    """The flat regions that may be part of a face of `lo`-`hi` px (work px): not too small or large, and not on a
    face already grown (a strip between its pips)."""
    for seed in outlines:
        if len(seed) < 3:
            continue
        _, _, w, h = cv2.boundingRect(seed)
        if not 0.25 * lo <= max(w, h) <= 1.5 * hi or cv2.contourArea(seed) < 0.04 * lo * lo:
            continue
        px, py = seed[0, 0]
        if not taken[py, px]:
            yield seed


def _face_candidates(work: np.ndarray, options: DiceOptions, scale: float, colour: np.ndarray | None = None):
    """Each flat region of a die's face's size grown to its whole face, once per face: rectangles in work px, and
    whether found by its faint steps alone (`_faint_candidates`)."""
    lo, hi = 0.6 * options.min_side_px * scale, 1.1 * options.max_side_px * scale
    smooth = cv2.GaussianBlur(work, (3, 3), 0)
    if colour is not None:
        colour = cv2.GaussianBlur(colour, (3, 3), 0)
    flat, walls, outlines = _flat_outlines(smooth, options.flat_threshold)
    taken = np.zeros_like(flat)
    tried = np.zeros_like(flat)
    reach = int(math.ceil(hi))
    angles: dict = {}  # the rims' turns measured, by crop of `work`
    for seed in _seeds(outlines, lo, hi, taken):
        # the steep steps alone first (a face whose pips nearly touch its rim comes whole), then every step the
        # flat mask has (a face kept off a side face of nearly its brightness); both are read, the surer kept
        partial, found, at = 0, [], None
        point = _seed_point(seed, flat)  # the fills of every level start there
        within = None
        for level in (2, 1):
            # (every step walls off more than the steep ones: the second fill is part of the first, if that one
            # did not leak, and is filled in the first's box alone)
            rect, at_level, longest, within = _grown_rect(smooth, flat, walls, seed, reach, level, work, lo, hi,
                                                          colour=colour, at=point, within=within,
                                                          angles=angles)
            at = at_level or at
            if at is not None and taken[at[1], at[0]]:
                break  # a piece of a face already grown
            if rect is not None:
                found.append((rect, level == 1))
            elif at is not None:
                partial = max(partial, longest)
        if not any(mark for _, mark in found) and 0.5 * lo <= partial <= hi and not tried[at[1], at[0]] and \
                _inner_radius(seed) >= 0.1 * partial:
            # a piece of a face cut off by its pips: filled again with its pips erased (once about one place: the
            # other pieces of that face would fill alike; not a thin line's, as a grid's cross or a map's road)
            r = int(0.5 * partial)
            cv2.rectangle(tried, (at[0] - r, at[1] - r), (at[0] + r, at[1] + r), 1, -1)
            k = max(3, int(round(0.3 * partial)) | 1)
            rect = _grown_rect(smooth, flat, walls, seed, min(reach, int(1.6 * partial) + 2),
                                     int(_WALL * options.flat_threshold), work, lo, hi, k, at=point,
                                     angles=angles)[0]
            if rect is not None:
                found.append((rect, True))
        for rect, mark in found:
            yield *rect[:3], False
            # a face kept within every step: its pixels are read, the other flat pieces of the face (strips between
            # its pips) are not grown again (a face grown within the steep steps alone may hold a side face; a dark
            # one may hold its side faces, nearly as dark: it is looked for again by its faint rim)
            if mark and smooth[at[1], at[0]] >= _FAINT:
                cv2.drawContours(taken, [rect[3]], 0, 1, -1)
    yield from _faint_candidates(smooth, taken, lo, hi, work)


def _faint_candidates(smooth: np.ndarray, taken: np.ndarray, lo: float, hi: float, work):
    """Dark faces bounded by faint steps (a black die: its rim and side faces a few grey levels off its top, so that
    the flat mask runs across touching dice): light pips erased (a grey opening a large pip across), a smoother copy
    in plain grey levels, its flat regions where it is dark grown within a narrow range."""
    if cv2.minMaxLoc(smooth)[0] >= _FAINT:
        return
    # an opening by an octagon a large pip across (a diamond's and a square's sum: a square kernel would cut a
    # turned face's corners to an octagon of its own)
    # (the largest face's pip, but within five times the smallest face's: options' loose upper bounds)
    r = max(2, int(round(0.12 * min(hi, 5.0 * lo))))
    a, b = (r + 1) // 2, r // 2
    cross, square = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)), np.ones((2 * b + 1, 2 * b + 1), np.uint8)
    opened = cv2.erode(cv2.erode(smooth, cross, iterations=a), square)
    opened = cv2.dilate(cv2.dilate(opened, square), cross, iterations=a)
    soft = cv2.GaussianBlur(opened, (5, 5), 0)
    grad = cv2.morphologyEx(soft, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    wall = cv2.threshold(grad, _FAINT_WALL - 1, 1, cv2.THRESH_BINARY)[1]
    # and the faint dark lines of the rims between touching dark dice (a valley's depth shows more than its slopes)
    valley = cv2.morphologyEx(soft, cv2.MORPH_BLACKHAT, np.ones((5, 5), np.uint8))
    wall = cv2.bitwise_or(wall, cv2.threshold(valley, _FAINT_WALL - 1, 1, cv2.THRESH_BINARY)[1])
    wall = cv2.dilate(wall, np.ones((3, 3), np.uint8))  # a faint rim comes broken: its gaps closed
    # (dark, off the walls and off the faces taken: all masks 0/1, in OpenCV's whole-frame passes)
    flat = cv2.bitwise_and(cv2.threshold(soft, _FAINT - 1, 1, cv2.THRESH_BINARY_INV)[1],
                           cv2.compare(cv2.bitwise_or(wall, taken), 0, cv2.CMP_EQ))
    contours, hierarchy = cv2.findContours(flat, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return
    outlines = [c for c, h in zip(contours, hierarchy[0], strict=True) if h[3] < 0]  # a face may lie in a hole
    reach = int(math.ceil(hi))
    angles: dict = {}  # the rims' turns measured, by crop of `soft`
    for seed in _seeds(outlines, lo, hi, taken):
        # (its turn from the smoother copy's edges: its pips gone, the rim and the die's outline show)
        rect = _grown_rect(soft, flat, {1: wall}, seed, reach, 1, soft, lo, hi, tol_max=_FAINT_TOL, angles=angles)[0]
        if rect is not None:
            # the smoother copy's steps are wider, and the walls widened: the fill stops about 2.5 px further
            # inside each edge
            yield rect[0], (rect[1][0] * _FAINT_GROW + 5.0, rect[1][1] * _FAINT_GROW + 5.0), rect[2], True
            cv2.drawContours(taken, [rect[3]], 0, 1, -1)


def _inner_radius(contour: np.ndarray) -> float:
    """The largest disc's radius (px) inside a region's outline."""
    x, y, w, h = cv2.boundingRect(contour)
    region = np.zeros((h + 2, w + 2), np.uint8)
    cv2.drawContours(region, [contour], 0, 1, -1, offset=(1 - x, 1 - y))
    return float(cv2.distanceTransform(region, cv2.DIST_L2, 3).max())


def _grown_rect(smooth, flat, wall, seed, reach, level, work, lo, hi, erase=0, tol_max=255.0, colour=None, at=None,
                within=None, angles=None):
    """(face rect + outline, or None; the seed pixel, or None when the fill leaked; the fill's longest side; the
    fill's box (x0, y0, x1, y1) in frame px, or None when it leaked)."""
    grown = _grow_face(smooth, flat, wall, seed, reach, level, erase, tol_max, colour, at, within)
    if grown is None:
        return None, None, 0, None
    filled, corner, at = grown
    h, w = filled.shape
    box = (corner[0], corner[1], corner[0] + w, corner[1] + h)
    longest = max(w, h)
    if not lo <= longest <= 1.5 * hi or min(w, h) < 0.55 * longest:
        return None, at, longest, box
    contour = _outline(filled, corner)
    if contour is None:
        return None, None, 0, None
    area = cv2.contourArea(contour)
    if not 0.2 * lo * lo <= area <= hi * hi or area < 0.25 * w * h:
        return None, at, longest, box
    rect = _face_rect(contour, work, angles)
    return (None if rect is None else (*rect, contour)), at, longest, box


def read_in_region(reader, image: np.ndarray, options: DiceOptions, region,
                   margin_px: float | None = None) -> list[DieReading]:
    """`reader(image, options)` (a dice reader) on the part of `image` about `region`, a polygon (N, 2) in frame px:
    the frame cut to its bounding box and a margin (`margin_px`, by default the largest die's side: a die whose
    centre is inside lies whole in the cut, with the table round it), cheaper by the share of the frame it leaves
    out; only the dice whose top face's centre lies within the polygon, in frame px. ValueError for fewer than 3
    corners."""
    poly = np.asarray(region, np.float64).reshape(-1, 2)
    if len(poly) < 3:
        raise ValueError(f"dice region: a polygon needs 3 corners or more, got {len(poly)}")
    H, W = image.shape[:2]
    margin = int(math.ceil(options.max_side_px if margin_px is None else margin_px))
    x0, y0 = (max(int(math.floor(v)) - margin, 0) for v in poly.min(0))
    x1, y1 = min(int(math.ceil(poly[:, 0].max())) + margin, W), min(int(math.ceil(poly[:, 1].max())) + margin, H)
    if x1 <= x0 or y1 <= y0:
        return []
    inside = poly.astype(np.float32).reshape(-1, 1, 2)
    found = reader(image[y0:y1, x0:x1], options)
    moved = [replace(d, centre_px=(d.centre_px[0] + x0, d.centre_px[1] + y0)) for d in found]
    return [d for d in moved if cv2.pointPolygonTest(inside, (float(d.centre_px[0]), float(d.centre_px[1])),
                                                      False) >= 0]


def read_dice(image: np.ndarray, options: DiceOptions = DiceOptions(),
              region: np.ndarray | None = None) -> list[DieReading]:
    """Every die whose top face shows in a BGR (or grey) image, in reading order (top to bottom, left to right).

    `region`: a polygon (N, 2) in frame px (a dice tray's outline seen through the camera): only the dice whose top
    face's centre lies within it (`read_in_region`)."""
    if region is not None:
        return read_in_region(read_dice, image, options, region)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    # faces are looked for at a pyramid level where the smallest is still about _WORK_SIDE px (fast at 4K, less
    # noise); the pips are read in the full frame
    work, colour, scale = grey, image, 1.0
    while options.min_side_px * scale >= 2.0 * _WORK_SIDE:
        work, colour, scale = cv2.pyrDown(work), cv2.pyrDown(colour), scale / 2.0
    out: list[DieReading] = []
    k = 1.0 / scale
    seen: list[tuple[float, float, float, float]] = []
    for (cx, cy), (rw, rh), a, faint in _face_candidates(work, options, scale, colour):
        rect = ((cx * k + 0.5 * (k - 1), cy * k + 0.5 * (k - 1)), (rw * k, rh * k), a)
        side = math.sqrt(rect[1][0] * rect[1][1])
        if not options.min_side_px <= side <= options.max_side_px:
            continue
        if any(abs(cx - sx) + abs(cy - sy) < 1.0 and abs(side - ss) < 0.03 * ss and abs((a - sa + 45.0) % 90.0 - 45.0)
               < 3.0 for sx, sy, ss, sa in seen):
            continue  # the same face grown twice (within the steep steps and within every step): read once
        seen.append((cx, cy, side, a))
        read = _read_face(_patch(image, rect))
        if read is None:
            continue
        value, confidence = read
        if value is not None and confidence < options.min_confidence:
            value = None
        if faint and value is None:
            continue  # a dark patch within faint steps is a die only if it reads as one (a marker's black is not)
        out.append(DieReading(value, (float(rect[0][0]), float(rect[0][1])), side, float(a) % 90.0,
                              round(confidence, 3)))
    return sorted(_one_per_die(out, options.min_confidence), key=lambda d: (d.centre_px[1], d.centre_px[0]))


_SURE = 0.8  # a reading this confident, of a rectangle `_WITHIN` times another's side, overrules it
_WITHIN = 1.12
_SMALLER = 0.8  # of two agreeing readings the smaller is the face, if no smaller than this (face and rim: about 0.87)


def _one_per_die(readings: list[DieReading], sure: float) -> list[DieReading]:
    """One reading per die: of readings closer than half a side the surest is kept, or, of two at least `sure` that
    agree, the smaller (the face alone, not with its rim); two that disagree on the value make the die unreadable,
    unless one is sure and round the other."""
    kept: list[DieReading] = []
    for r in sorted(readings, key=lambda d: -d.confidence):
        same = next((i for i, k in enumerate(kept) if math.hypot(r.centre_px[0] - k.centre_px[0],
                                                                 r.centre_px[1] - k.centre_px[1]) < 0.5 * k.side_px),
                    None)
        if same is None:
            kept.append(r)
        elif r.value is not None and kept[same].value is not None and r.value != kept[same].value:
            # a rectangle round the other that reads a face surely is the face (the other lies within it and misses
            # some of its pips); else neither is sure
            if r.confidence >= _SURE and r.side_px >= _WITHIN * kept[same].side_px:
                kept[same] = r
            elif kept[same].confidence < _SURE or kept[same].side_px < _WITHIN * r.side_px:
                kept[same] = replace(kept[same], value=None)
        elif r.value is not None and r.value == kept[same].value and r.confidence >= sure and \
                _SMALLER * kept[same].side_px <= r.side_px < kept[same].side_px:
            kept[same] = replace(kept[same], centre_px=r.centre_px, side_px=r.side_px, angle_deg=r.angle_deg)
    return kept


DIE_SIZES_MM = (12.0, 20.0)  # the ordinary dice the reader is tuned for (the 12-20 mm)
READABLE_FACE_PX = 20.0
"""The smallest top face (px a side) whose pips the readers count (the pip reader works at that scale):
`fieldglass plan`, `fieldglass check-setup` and the dashboard's watch all judge a camera by it. The benchmark's
smallest faces are 28 px (12 mm dice at 1080p)."""
FLAT_OF_SIDE = 0.88  # the flat top face's side as a share of the die's (the rest is the rounded rim)


def px_per_mm(intrinsics, pose, at_mm: np.ndarray) -> np.ndarray:
    """Pixels per mm (N,) of the table plane's points `at_mm` (N, 3), at their heights: the mean of a mm along x
    and along y there, through the lens."""
    at = np.asarray(at_mm, np.float64).reshape(-1, 3)
    px = table_to_pixels(np.vstack([at, at + (1.0, 0.0, 0.0), at + (0.0, 1.0, 0.0)]), intrinsics, pose)
    n = len(at)
    return 0.5 * (np.linalg.norm(px[n : 2 * n] - px[:n], axis=1) + np.linalg.norm(px[2 * n :] - px[:n], axis=1))


def options_for_table(intrinsics, pose, width_mm: float, depth_mm: float,
                      sizes_mm: tuple[float, float] = DIE_SIZES_MM) -> DiceOptions:
    """The faces' sizes in pixels for dice of `sizes_mm` anywhere on a table seen through a camera (its lens and
    pose): the smallest over the table's corners and centre, the largest likewise, with a margin."""
    z = 0.5 * (sizes_mm[0] + sizes_mm[1])
    pts = np.array([[x, y, z] for x in (0.0, width_mm / 2.0, width_mm) for y in (0.0, depth_mm / 2.0, depth_mm)])
    scale = px_per_mm(intrinsics, pose, pts)
    return DiceOptions(min_side_px=0.75 * FLAT_OF_SIDE * sizes_mm[0] * float(scale.min()),
                       max_side_px=1.25 * sizes_mm[1] * float(scale.max()))


def dice_on_table(readings: list[DieReading], intrinsics, pose) -> list[tuple[float, float, float]]:
    """Each reading's top face centre on the table (x, y mm) and the die's side (mm), from a camera's lens and pose:
    the face lies one die's side above the cloth, and the die's side follows from the face's size there (twice
    round: the size depends on the height and the height on the size)."""
    out = []
    for r in readings:
        side = 16.0
        xy = np.array([np.nan, np.nan])
        for _ in range(3):
            xy = pixels_to_table(np.array([r.centre_px]), intrinsics, pose, side)[0]
            scale = float(px_per_mm(intrinsics, pose, np.array([[xy[0], xy[1], side]]))[0])
            side = r.side_px / scale / FLAT_OF_SIDE
        out.append((float(xy[0]), float(xy[1]), float(side)))
    return out
