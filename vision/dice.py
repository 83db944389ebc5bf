"""Dice read from a photo of the table: every die whose top face shows, and its value by the pips on that face.

How (pure functions over a BGR image, OpenCV primitives throughout):

1. *Faces.* A die's top face is a flat patch of one colour bounded by edges (its rounded rim, or the shading step to
   a side face). The frame's colour gradient (a 3x3 morphological gradient, the largest over the channels, of a
   lightly smoothed frame) is thresholded; the flat pixels' connected components of a die's size whose convex hull
   fills a near-square rotated rectangle (`cv2.minAreaRect`) are candidate faces. A side face seen obliquely is
   foreshortened to a narrow rectangle and fails the squareness test; a top face merged with a side face fails it
   too, or shows a pip pattern no face has and is said unreadable.
2. *Pips.* Each candidate face is cut out along its rectangle into a square patch (`cv2.warpAffine`); the pips are
   the pixels far from the face's own (median) colour, split by Otsu, counted with `cv2.connectedComponentsWithStats`.
3. *Value.* The pips' centres must sit where a die's pips sit (the six faces' patterns, both turns of 2, 3 and 6, at
   one free spacing): a pattern that fits is the value, with a confidence from the fit, the pips' contrast and their
   sizes' agreement. A face with pip-like spots that fit no pattern is reported unreadable (value None), never
   guessed; a patch with no pips, or with a spot too big to be a pip (a marker's black square, a base's marker),
   is no die at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["DiceOptions", "DieReading", "read_dice"]

_PATCH = 40  # px: the side of the normalised face patch
_BORDER = 0.04  # of the patch: the rim, left out when looking for pips
# the six faces' pips at unit spacing (x, y); 2, 3 and 6 also turned by 90 degrees
_LAYOUTS: dict[int, tuple[np.ndarray, ...]] = {
    1: (np.array([[0.0, 0.0]]),),
    2: (np.array([[-1.0, -1.0], [1.0, 1.0]]), np.array([[-1.0, 1.0], [1.0, -1.0]])),
    3: (np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]]), np.array([[-1.0, 1.0], [0.0, 0.0], [1.0, -1.0]])),
    4: (np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]),),
    5: (np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [0.0, 0.0]]),),
    6: (np.array([[-1.0, -1.0], [-1.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 0.0], [1.0, 1.0]]),
        np.array([[-1.0, -1.0], [0.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [0.0, 1.0], [1.0, 1.0]])),
}


@dataclass(frozen=True)
class DiceOptions:
    """What to look for. `min_side_px` / `max_side_px`: the top face's side in the frame (from a camera and layout
    these follow from 12-20 mm dice, see `side_range_px`); `flat_threshold`: the colour step (grey levels) that
    bounds a face; `min_confidence`: a fitted pattern below it is said unreadable."""

    min_side_px: float = 14.0
    max_side_px: float = 160.0
    flat_threshold: int = 14
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
_TONE = np.clip(np.sqrt(np.arange(256) / 255.0) * 255.0 * 0.75 + np.arange(256) * 0.25, 0, 255).astype(np.uint8)


def _flat_components(image: np.ndarray, threshold: int):
    smooth = cv2.LUT(cv2.GaussianBlur(image, (3, 3), 0), _TONE)
    grad = cv2.morphologyEx(smooth, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    if grad.ndim == 3:
        grad = cv2.max(cv2.max(grad[..., 0], grad[..., 1]), grad[..., 2])
    flat = (grad < threshold).astype(np.uint8)
    return cv2.connectedComponentsWithStats(flat, connectivity=4, ltype=cv2.CV_32S)


def _edge_angle(grey: np.ndarray) -> float:
    """The dominant edge direction in a crop, modulo 90 degrees (the face's rim; round pips favour none)."""
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag, ang = cv2.cartToPolar(gx, gy)
    z = (mag * np.exp(4j * ang)).sum()
    return float(np.angle(z) / 4.0)


def _face_rect(labels: np.ndarray, grey: np.ndarray, label: int, box) -> tuple | None:
    """The face's rectangle ((cx, cy), (w, h), angle_deg) around a flat component, or None if it is no square.

    The turn comes from the rim's edges, not from the outline: pips near the corners bite the flat region's
    corners off, and an octagon's smallest rectangle may lie at 45 degrees."""
    x, y, w, h = box
    mask = (labels[y : y + h, x : x + w] == label).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(contour).reshape(-1, 2).astype(np.float64)
    hull_area = cv2.contourArea(hull.astype(np.float32))
    pad = 3
    crop = grey[max(y - pad, 0) : y + h + pad, max(x - pad, 0) : x + w + pad]
    a = _edge_angle(crop)
    axes = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    proj = hull @ axes.T
    lo, hi = proj.min(0), proj.max(0)
    rw, rh = hi - lo
    if min(rw, rh) < 1 or hull_area < 0.72 * rw * rh or min(rw, rh) < 0.78 * max(rw, rh):
        return None
    centre = axes.T @ ((lo + hi) / 2.0) + (x, y)
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

    Error is the largest distance (in pip spacings) between a pip and its place in the pattern."""
    n = len(points)
    best = (math.inf, 0.0)
    for layout in _LAYOUTS.get(n, ()):
        for spacing in (0.5, 0.58, 0.66):
            target = layout * spacing
            d = np.linalg.norm(points[:, None, :] - target[None, :, :], axis=2)
            order = np.argmin(d, axis=1)
            if len(set(order.tolist())) != n:
                continue
            matched = layout[order]
            denom = float((matched * matched).sum())
            s = float((points * matched).sum() / denom) if denom > 0 else spacing
            if n > 1 and not 0.42 <= s <= 0.8:
                continue
            err = float(np.linalg.norm(points - matched * s, axis=1).max()) / max(s, 0.42)
            if err < best[0]:
                best = (err, s)
    return best


def _read_face(patch: np.ndarray) -> tuple[int | None, float] | None:
    """(value or None, confidence) for a face patch; None when the patch is no die's face."""
    colour = np.median(patch.reshape(-1, patch.shape[-1]) if patch.ndim == 3 else patch.reshape(-1, 1), axis=0)
    diff = np.abs(patch.astype(np.int16) - colour.astype(np.int16))
    dist = (diff.max(axis=2) if diff.ndim == 3 else diff).astype(np.uint8)
    b = int(round(_BORDER * _PATCH))
    inner = dist[b:-b, b:-b]
    contrast = float(np.percentile(inner, 99))
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
    # the pips touching the patch's inner edge belong to a neighbour or a side face
    w = stats[1:][keep]
    at_edge = (w[:, cv2.CC_STAT_LEFT] == 0) | (w[:, cv2.CC_STAT_TOP] == 0) | \
        (w[:, cv2.CC_STAT_LEFT] + w[:, cv2.CC_STAT_WIDTH] >= side) | \
        (w[:, cv2.CC_STAT_TOP] + w[:, cv2.CC_STAT_HEIGHT] >= side)
    points = (cents - (side - 1) / 2.0) / (_PATCH / 2.0)
    sure = min(1.0, (contrast - 30.0) / 60.0)
    if len(areas) > 6 or np.any(at_edge):
        return (None, 0.5 * sure)
    err, _ = _fit_layout(points)
    spread = float(areas.max() / areas.min()) if len(areas) > 1 else 1.0
    if err == math.inf or spread > 3.0:
        return (None, 0.5 * sure)
    confidence = max(0.0, 1.0 - err / 0.35) * sure * (1.0 if spread < 2.0 else 0.7)
    return (len(areas), confidence)


def read_dice(image: np.ndarray, options: DiceOptions = DiceOptions()) -> list[DieReading]:
    """Every die whose top face shows in a BGR (or grey) image, in reading order (top to bottom, left to right)."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    n, labels, stats, _ = _flat_components(image, options.flat_threshold)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    lo, hi = 0.6 * options.min_side_px, 1.1 * options.max_side_px
    w, h = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    area = stats[:, cv2.CC_STAT_AREA]
    longest = np.maximum(w, h)
    candidates = np.nonzero((longest >= lo) & (longest <= 1.5 * hi) & (area >= 0.2 * lo * lo)
                            & (area <= hi * hi) & (np.minimum(w, h) >= 0.55 * longest))[0]
    out: list[DieReading] = []
    for label in candidates:
        if label == 0 and stats[0, cv2.CC_STAT_AREA] == 0:
            continue
        rect = _face_rect(labels, grey, int(label), stats[label, :4])
        if rect is None:
            continue
        side = math.sqrt(rect[1][0] * rect[1][1])
        if not options.min_side_px <= side <= options.max_side_px:
            continue
        read = _read_face(_patch(image, rect))
        if read is None:
            continue
        value, confidence = read
        if value is not None and confidence < options.min_confidence:
            value = None
        angle = float(rect[2]) % 90.0
        out.append(DieReading(value, (float(rect[0][0]), float(rect[0][1])), side, angle, round(confidence, 3)))
    return sorted(out, key=lambda d: (round(d.centre_px[1] / max(d.side_px, 1.0)), d.centre_px[0]))
