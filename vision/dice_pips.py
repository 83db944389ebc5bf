"""Dice read pip-first: the pips are found first, grouped into faces, and each group is fitted to a die's pattern.

A second reader beside `vision.dice.read_dice` (which finds each top face's flat region first): on real photos a
white die's face runs into pale wood and its side faces, while its pips stay the most distinctive thing on it. Same
contract: `read_dice_pips(image, options) -> list[DieReading]`, a value only when the face is read for sure.

How (pure functions over a BGR or grey image; OpenCV primitives; all sizes in image pixels; a frame whose
smallest face is 40 px or more is read at half size):

1. *Pip candidates.* Dark pips are the black-hat (closing minus image) of the grey image, light pips (on dark dice)
   its top-hat, with a square kernel wider than the largest pip (radius 0.16 x `options.max_side_px`). Each blob
   above a contrast floor is cut at half its peak (so a pip's size does not depend on the blur; each part apart:
   two pips of a 6's column touch lower down; a blob as big as a die's body is first split at its Otsu level) and
   a part is kept if its size fits a pip of a face between `min_side_px` and `max_side_px` (radius 0.05-0.16 of a
   side), it is convex, fills its moments' ellipse and is no more elongated than 0.45, and the ring round it is a
   plain face it stands out of by 28 grey levels and a quarter of the face's tone. Its second moments give its
   ellipse: a round pip seen obliquely is an ellipse, and every pip of one face is the same one. (Speed: the
   blobs, a few hundred a frame and most of them the table's clutter, are packed side by side into one small
   image, cut and measured there all at once; only a blob with a part that passes size, elongation and fill is
   cut and measured again on its own for the full tests.)
2. *Faces.* Two candidates may be pips of one face when they agree in tone, size, elongation and orientation,
   lie within a face's diagonal of each other (in pip radii) and the line between them crosses only face: off
   the pips of their tone, within a tenth of the room towards the pips' tone and a little away from it (the gap
   between two touching dice, a rim, the table stop it). Connected groups are faces; a group of more than 6 pips
   (two touching pale dice whose gap is faint) is split at the longest edge of its pips' minimum spanning tree.
3. *Value.* A group whose pips are on average flatter than 0.7 (cos 45 degrees) is a side face. A group's positions
   are whitened by its pips' mean ellipse (undoing the face's foreshortening: the face becomes a turned, scaled
   square) and fitted, by angle order round their centroid, to each n-pip pattern with a free turn and spacing (a
   complex least-squares similarity; 4-6 pips also a free linear map, as the pips' shapes give the foreshortening
   only roughly). The spacing must be 1.5-4.3 pip radii (real dice sit their pips closer to the centre than
   rendered ones), the largest misfit under 0.35 of it. A group that fits no face is dropped (its pips without a
   side face's smaller, flatter one are tried once more).
4. *Check.* The face is cut out along the fitted frame (`cv2.warpAffine`): inside the pattern it must be of one
   tone with no further spot, and along its four directions it must end (a rim, a shadow, the table) at a die's
   size and about as far on each side (2-3 pips: three sides, a pattern off its face's middle is part of a 4-6); a
   3 with pips beside all three at twice their spacing is a 6's column; a spot of the group's tone on the same face
   (a clear line to it) makes the group incomplete. A lone pip ("1") must have a plain face round it that ends
   all round at a square's distances (16 rays): a dark blob on the open table, a knot in wood, a printed town
   on a map is no "1". Value None (unsure) between confidence 0.3 and `options.min_confidence`; below, no die.

Measured by `fieldglass bench dice --reader pips` (synthetic) and `--real`; never in tests.
"""

from __future__ import annotations

import itertools
import logging
import math
import statistics
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.dice import _LAYOUTS, DiceOptions, DieReading, median_of

__all__ = ["read_dice_pips"]

_MIN_CONTRAST = 28.0  # grey levels: a pip's peak contrast above the face round it
_R_MIN, _R_MAX = 0.05, 0.16  # a pip's radius as a share of its face's side
_RATIO_MIN, _RATIO_MAX = 1.5, 4.3  # a corner pip's offset from the face's centre along each axis, in pip radii
_Q_MIN = 0.45  # a pip's minor / major axis: below it a pip is on a side face seen edge-on
_Q_TOP = 0.7  # a top face's pips' mean minor / major axis: cos 45 degrees; below it they are a side face's
_UNIT_PX = 8.0
_WORK_SIDE = 20.0  # px: the smallest face's side at the scale pips are looked for
_log = logging.getLogger(__name__)  # debug: why each group was not read  # px per pattern unit in the cut-out face


@dataclass(frozen=True)
class _Pip:
    centre: np.ndarray  # (2,) x, y px
    cov: np.ndarray  # (2, 2) second moments, px^2
    radius: float  # px: of the disc with the same area
    q: float  # minor / major axis
    angle: float  # major axis direction, radians (mod pi)
    dark: bool  # darker than the face round it
    contrast: float  # grey levels: its darkest (lightest) pixel from the face round it
    face: float  # grey level of the face round it


def _candidates(grey: np.ndarray, options: DiceOptions) -> tuple[list[_Pip], np.ndarray]:
    """Pip candidates of both polarities and a mask of every candidate's pixels (dilated a little; bit 1 the dark
    ones', bit 2 the light ones')."""
    rmin = _R_MIN * options.min_side_px
    rmax = _R_MAX * options.max_side_px
    k = int(2 * math.ceil(1.25 * rmax) + 1) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    pips: list[_Pip] = []
    every = np.zeros(grey.shape, np.uint8)  # bit 1: dark candidates' pixels, bit 2: light ones'
    for dark, op in ((True, cv2.MORPH_BLACKHAT), (False, cv2.MORPH_TOPHAT)):
        hat = cv2.morphologyEx(grey, op, kernel)
        for x0, y0, x1, y1, own in _blobs(hat, rmin, rmax):
            sub = np.where(own, hat[y0:y1, x0:x1], 0)
            # each part at half the blob's height is a pip (two pips of a 6's column, a pip and a rim's highlight
            # may touch lower down); a part that is no pip is cut again at three quarters of its own height
            for part in _parts(sub, 0.5 * float(sub.max())):
                pip = _measure(grey, part, x0, y0, dark, rmin, rmax)
                if pip is None and part.sum() > 2.0 * math.pi * rmin * rmin:
                    for piece in _parts(np.where(part > 0, sub, 0), 0.75 * float(sub[part > 0].max())):
                        pip = _measure(grey, piece, x0, y0, dark, rmin, rmax)
                        if pip is not None:
                            pips.append(pip)
                            every[y0:y1, x0:x1] |= piece * (1 if dark else 2)
                elif pip is not None:
                    pips.append(pip)
                    every[y0:y1, x0:x1] |= part * (1 if dark else 2)
    every = cv2.dilate(every, np.ones((3, 3), np.uint8))
    return pips, every


def _parts(sub: np.ndarray, level: float) -> list[np.ndarray]:
    """The 8-connected parts (uint8 masks of the box) of a box's hat values at or above `level`."""
    n, lab = cv2.connectedComponents((sub >= level).astype(np.uint8), connectivity=8)
    return [(lab == i).astype(np.uint8) for i in range(1, n)]


def _measure(grey: np.ndarray, mask: np.ndarray, x0: int, y0: int, dark: bool, rmin: float,
             rmax: float) -> _Pip | None:
    """A pip from its mask (in the box at x0, y0), or None when it is none: too small or big, not round enough
    (seen more than ~60 degrees from its face's normal), not filling its moments' ellipse, not convex, not on a
    plain face of a tone it stands out of."""
    m = cv2.moments(mask, binaryImage=True)
    a = m["m00"]
    if a < max(0.7 * math.pi * rmin * rmin, 4.0):
        return None
    cx, cy = x0 + m["m10"] / a, y0 + m["m01"] / a
    sxx, sxy, syy = m["mu20"] / a, m["mu11"] / a, m["mu02"] / a
    # the 2 x 2 second moments' eigenvalues and major axis in closed form (numpy's eigh costs more per call)
    mid, dev = 0.5 * (sxx + syy), math.hypot(0.5 * (sxx - syy), sxy)
    if mid - dev <= 0:
        return None
    major, minor = 2.0 * math.sqrt(mid + dev), 2.0 * math.sqrt(mid - dev)
    radius = math.sqrt(a / math.pi)
    q = minor / major
    if not rmin <= radius <= rmax or q < _Q_MIN or not 0.8 <= a / (math.pi * major * minor) <= 1.2:
        return None
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    c = max(cnts, key=cv2.contourArea)
    hull = cv2.contourArea(cv2.convexHull(c))
    if hull > 0 and cv2.contourArea(c) < 0.8 * hull:
        return None
    face = _ring_level(grey, cx, cy, major)
    if face is None:
        return None
    level, spread = face
    # its contrast to the face round it (the hat's peak is to the kernel's opening, which may be the cloth)
    h, w = mask.shape
    tone = grey[y0 : y0 + h, x0 : x0 + w][mask > 0]
    contrast = level - float(tone.min()) if dark else float(tone.max()) - level
    if contrast < _MIN_CONTRAST or spread > 0.5 * contrast:
        return None  # the ring round it is no plain face
    if contrast < 0.25 * (level if dark else 255.0 - level):
        return None  # a faint spot on a black (white) thing: a pip is at least a quarter of its face's tone
    cov = np.array([[sxx, sxy], [sxy, syy]])
    return _Pip(np.array([cx, cy]), cov, radius, q, (0.5 * math.atan2(2.0 * sxy, sxx - syy)) % math.pi, dark,
                contrast, level)


def _blobs(hat: np.ndarray, rmin: float, rmax: float):
    """Blobs of a black-hat (top-hat) image above the contrast floor that could be pips: (x0, y0, x1, y1, own
    mask of the box). A blob too big for a pip (a light die's whole body on a dark cloth stands out of the top-hat
    too) is split once at its own Otsu level, which keeps its pips apart from the body round them."""
    H, W = hat.shape
    # outlines rather than a labelled image: a tenth of the time on a 1080p frame
    # (each component's outer outline, its holes below it: a pip inside a die's dark rim is its own component)
    outlines, hierarchy = cv2.findContours((hat >= _MIN_CONTRAST).astype(np.uint8), cv2.RETR_CCOMP,
                                           cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return
    hierarchy = hierarchy[0]
    big_area = 1.4 * math.pi * rmax ** 2
    boxes = []
    for i, outline in enumerate(outlines):
        if hierarchy[i][3] >= 0:
            continue  # a hole
        x, y, w, h = cv2.boundingRect(outline)
        if w * h >= 0.5 * math.pi * rmin * rmin:
            boxes.append((i, x, y, w, h))
    # most blobs are table clutter (a marker's edge, a printed map's lines): those of a pip's size are judged all
    # at once first, and only those that may give a pip are looked at one by one
    small = [(x, y, w, h, i) for i, x, y, w, h in boxes if max(w, h) <= 2.6 * rmax + 2]
    judged = _hopeful(hat, small, outlines, hierarchy, rmin, rmax, big_area)
    hopeless = {b[4] for b, ok in zip(small, judged, strict=True) if not ok}
    found, split = [], []  # (x0, y0, x1, y1, own) in the order read; the parts split off big blobs, to judge
    for i, x, y, w, h in boxes:
        if i in hopeless:
            continue
        outline = outlines[i]
        x0, y0, x1, y1 = max(x - 1, 0), max(y - 1, 0), min(x + w + 1, W), min(y + h + 1, H)
        fill = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(fill, [outline], 0, 1, -1, offset=(-x0, -y0))
        hole = hierarchy[i][2]
        while hole >= 0:
            cv2.drawContours(fill, [outlines[hole]], 0, 0, -1, offset=(-x0, -y0))
            hole = hierarchy[hole][0]
        own = (fill > 0) & (hat[y0:y1, x0:x1] >= _MIN_CONTRAST)
        area = int(own.sum())
        if area < 0.5 * math.pi * rmin * rmin:
            continue
        if max(w, h) <= 2.6 * rmax + 2 and area <= big_area:
            found.append((x0, y0, x1, y1, own))
            continue
        if max(w, h) > 16.0 * rmax:
            continue  # far bigger than a die: a shadow, a cloth's edge, a printed area
        parts = _otsu_split(hat, own, x0, y0, rmin, rmax, big_area)
        found.extend(parts)
        split.extend(parts)
    tiles = [(b[0], b[1], b[2] - b[0], b[3] - b[1], b[4]) for b in split]
    judged = _hopeful(hat, tiles, outlines, hierarchy, rmin, rmax, big_area)
    hopeless = {id(b) for b, ok in zip(split, judged, strict=True) if not ok}
    yield from (b for b in found if id(b) not in hopeless)


def _otsu_split(hat: np.ndarray, own: np.ndarray, x0: int, y0: int, rmin: float, rmax: float,
                big_area: float) -> list[tuple[int, int, int, int, np.ndarray]]:
    """The parts of a blob too big for a pip (own mask of the box at x0, y0) above its Otsu level that are of a
    pip's size: (x0, y0, x1, y1, own mask of the box) each."""
    h, w = own.shape
    sub = hat[y0 : y0 + h, x0 : x0 + w]
    vals = sub[own].reshape(-1, 1)
    t, _ = cv2.threshold(vals, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    inner = (own & (sub > t)).astype(np.uint8)
    m, lab2, st2, _ = cv2.connectedComponentsWithStats(inner, connectivity=8)
    out = []
    for j in range(1, m):
        sx, sy, sw, sh, sa = st2[j]
        if sa < 0.5 * math.pi * rmin * rmin or max(sw, sh) > 2.6 * rmax + 2 or sa > big_area:
            continue
        bx0, by0 = max(sx - 1, 0), max(sy - 1, 0)
        bx1, by1 = min(sx + sw + 1, w), min(sy + sh + 1, h)
        out.append((x0 + bx0, y0 + by0, x0 + bx1, y0 + by1, own[by0:by1, bx0:bx1] & (lab2[by0:by1, bx0:bx1] == j)))
    return out


def _hopeful(hat: np.ndarray, tiles: list, outlines, hierarchy: np.ndarray, rmin: float, rmax: float,
             big_area: float) -> np.ndarray:
    """Per blob of `tiles` (x, y, w, h of its box, and its outline's index or its own mask of the box), whether it
    may give a pip: False only where every part of its own mask at half its peak, and every piece of such a part
    at three quarters of the part's own peak (as `_candidates` cuts them), fails `_measure`'s size, elongation and
    fill tests; True too where the blob is too big for a pip (`_blobs` splits it). The blobs' own masks (drawn as
    `_blobs` draws them) and hat values are packed side by side, a pixel apart, into one small image, so that each
    cut is labelled and measured once for all of them."""
    if not tiles:
        return np.zeros(0, bool)
    width = max(1024, max(b[2] for b in tiles) + 1)
    places, ox, oy, shelf = [], 0, 0, 0
    for _, _, w, h, _ in tiles:
        if ox + w > width:
            ox, oy, shelf = 0, oy + shelf + 1, 0
        places.append((ox, oy))
        ox, shelf = ox + w + 1, max(shelf, h)
    ids = np.zeros((oy + shelf, width), np.int32)
    vals = np.zeros((oy + shelf, width), np.uint8)
    for t, ((x, y, w, h, own), (ox, oy)) in enumerate(zip(tiles, places, strict=True), 1):
        if isinstance(own, np.ndarray):
            ids[oy : oy + h, ox : ox + w][own] = t
        else:
            cv2.drawContours(ids, [outlines[own]], 0, t, -1, offset=(ox - x, oy - y))
            hole = hierarchy[own][2]
            while hole >= 0:
                cv2.drawContours(ids, [outlines[hole]], 0, 0, -1, offset=(ox - x, oy - y))
                hole = hierarchy[hole][0]
        vals[oy : oy + h, ox : ox + w] = hat[y : y + h, x : x + w]
    n = len(tiles) + 1
    at = np.flatnonzero((ids > 0) & (vals >= _MIN_CONTRAST))  # each blob's own mask
    lab, val = ids.ravel()[at], vals.ravel()[at]
    areas = np.bincount(lab, minlength=n)
    peak = np.zeros(n, np.uint8)
    np.maximum.at(peak, lab, val)
    top = val >= 0.5 * peak[lab].astype(np.float64)  # as `_parts`: at or above half the blob's peak
    at, lab, val = at[top], lab[top], val[top]
    m, part, fits = _cut_fits(ids.shape, at, rmin, rmax)
    owner = np.zeros(m, np.intp)
    owner[part] = lab
    # a part that is no pip is cut again at three quarters of its own peak when it is big enough
    again = ~fits & (np.bincount(part, minlength=m) > 2.0 * math.pi * rmin * rmin)
    peak = np.zeros(m, np.uint8)
    np.maximum.at(peak, part, val)
    top = again[part] & (val >= 0.75 * peak[part].astype(np.float64))
    k, piece, piece_fits = _cut_fits(ids.shape, at[top], rmin, rmax)
    of = np.zeros(k, np.intp)
    of[piece] = part[top]
    fits[of[piece_fits]] = True
    fits[0] = False
    hopeful = areas > big_area
    hopeful[owner[fits]] = True
    return hopeful[1:]


def _cut_fits(shape: tuple[int, int], at: np.ndarray, rmin: float, rmax: float):
    """(number of labels, label of each pixel, per label whether `_measure`'s size, elongation and fill tests may
    pass) for the 8-connected parts of the pixels at flat indices `at` of an image of `shape`. The moments are
    the parts' own (not `cv2.moments` on a box, which rounds otherwise): a margin keeps a pass a pass."""
    cut = np.zeros(shape, np.uint8)
    cut.ravel()[at] = 1
    m, labels = cv2.connectedComponents(cut, connectivity=8)
    part = labels.ravel()[at]
    y, x = np.divmod(at, shape[1])
    x, y = x.astype(np.float64), y.astype(np.float64)
    a = np.bincount(part, minlength=m).astype(np.float64)
    a[0] = 1.0  # the background, never read
    cx, cy = np.bincount(part, x, m) / a, np.bincount(part, y, m) / a
    dx, dy = x - cx[part], y - cy[part]
    sxx, sxy, syy = (np.bincount(part, d, m) / a for d in (dx * dx, dx * dy, dy * dy))
    mid, dev = 0.5 * (sxx + syy), np.hypot(0.5 * (sxx - syy), sxy)
    lo = np.maximum(mid - dev, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.sqrt(lo / (mid + dev))
        fill = a / (4.0 * math.pi * np.sqrt((mid + dev) * lo))
    radius = np.sqrt(a / math.pi)
    eps = 1e-6
    fits = ((a >= max(0.7 * math.pi * rmin * rmin, 4.0)) & (radius >= rmin * (1 - eps))
            & (radius <= rmax * (1 + eps)) & (q >= _Q_MIN - eps) & (fill >= 0.8 - eps) & (fill <= 1.2 + eps))
    fits[0] = False
    return m, part, fits


def _ring_level(grey: np.ndarray, cx: float, cy: float, major: float) -> tuple[float, float] | None:
    """(median, inter-quartile range) of the grey levels in a ring 1.5-2.2 x the pip's major radius round it."""
    r0, r1 = 1.5 * major, 2.2 * major
    H, W = grey.shape
    x0, x1 = int(max(cx - r1, 0)), int(min(cx + r1 + 1, W))
    y0, y1 = int(max(cy - r1, 0)), int(min(cy + r1 + 1, H))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    # (aranges rather than np.ogrid: the same numbers, a tenth of the call's cost)
    xx, yy = np.arange(x0, x1) - cx, (np.arange(y0, y1) - cy)[:, None]
    d2 = xx * xx + yy * yy
    vals = grey[y0:y1, x0:x1][(d2 >= r0 * r0) & (d2 <= r1 * r1)]
    if len(vals) < 8:
        return None
    vals = np.sort(vals)
    n = len(vals)
    return float(vals[n // 2]), float(vals[(3 * n) // 4] - vals[n // 4])


def _compatible(a: _Pip, b: _Pip) -> bool:
    """Could these two be pips of one face: polarity, size, elongation, orientation, face level, distance."""
    if a.dark != b.dark or max(a.radius, b.radius) > 1.5 * min(a.radius, b.radius):
        return False
    if abs(a.q - b.q) > 0.2:
        return False
    if max(a.q, b.q) < 0.8:  # the orientation of a near-round blob of a few px is noise
        d = abs(a.angle - b.angle) % math.pi
        if min(d, math.pi - d) > math.radians(35):
            return False
    if abs(a.face - b.face) > 0.15 * max(a.face, b.face) + 10:
        return False
    r = 0.5 * (a.radius + b.radius)
    dist = float(np.linalg.norm(a.centre - b.centre))
    return dist <= 2.0 * math.sqrt(2.0) * _RATIO_MAX * r / max(min(a.q, b.q), 0.7) + 1.0


def _clear_between(grey: np.ndarray, every: np.ndarray, a: _Pip, b: _Pip) -> bool:
    """The line between two pips crosses only face: off other pips of their tone, no sample (a 3-sample mean) leaves
    the faces' level by more than a tenth of the room towards the pips' tone or 15 % away from it. A gap between
    two touching dice, a rim, a side face, the table stop it."""
    d = b.centre - a.centre
    length = float(np.linalg.norm(d))
    if length < 1e-6:
        return False
    n = max(int(length), 4)
    t = np.linspace(0.0, 1.0, n)
    pts = a.centre[None, :] + t[:, None] * d[None, :]
    far = (t * length > 1.6 * a.radius) & ((1.0 - t) * length > 1.6 * b.radius)
    pts = pts[far]
    if len(pts) == 0:
        return True
    xi = np.clip(np.round(pts[:, 0]).astype(int), 0, grey.shape[1] - 1)
    yi = np.clip(np.round(pts[:, 1]).astype(int), 0, grey.shape[0] - 1)
    off = (every[yi, xi] & (1 if a.dark else 2)) == 0  # only pips of their own tone are skipped
    vals = grey[yi, xi][off].astype(np.float64)
    if len(vals) == 0:
        return True
    if len(vals) >= 3:
        vals = np.convolve(vals, np.ones(3) / 3.0, mode="valid")  # noise, not a gap a px wide
    level = max(a.face, b.face) if a.dark else min(a.face, b.face)
    # a face is of one brightness (within its shading); the table, a rim, a gap or a shadow between dice is not:
    # towards the pips' tone a tenth of the room there (at most 40 % of their contrast), away from it 15 % (a gap
    # between two dark dice is only a quarter darker than their faces)
    room_dark, room_light = level, 255.0 - level
    toward = min(0.4 * min(a.contrast, b.contrast), max(15.0, 0.1 * (room_dark if a.dark else room_light)))
    # (brighter than a light face is a highlight, and the ring's median is dimmed by the pips' blur: more room)
    away = max(15.0, 0.3 * room_light) if a.dark else max(10.0, 0.15 * room_dark)
    lo, hi = (level - toward, level + away) if a.dark else (level - away, level + toward)
    return bool(vals.min() >= lo and vals.max() <= hi)


def _groups(grey: np.ndarray, every: np.ndarray, pips: list[_Pip]) -> list[list[int]]:
    """Connected groups of mutually compatible pips (union-find over compatible, clear pairs)."""
    parent = list(range(len(pips)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    centres = np.array([p.centre for p in pips]) if pips else np.zeros((0, 2))
    for i, a in enumerate(pips):
        near = np.nonzero(np.linalg.norm(centres[i + 1 :] - a.centre, axis=1) < 14.0 * a.radius / 0.7 + 2)[0]
        for j in near + i + 1:
            b = pips[j]
            if _compatible(a, b) and _clear_between(grey, every, a, b):
                parent[find(i)] = find(int(j))
    groups: dict[int, list[int]] = {}
    for i in range(len(pips)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _whitener(pips: list[_Pip]) -> tuple[np.ndarray, np.ndarray, float]:
    """(W, W^-1, r): W maps image offsets to a frame where the pips are round discs of radius 2 (so the face is a
    turned square); r the pips' mean radius in px."""
    cov = np.mean([p.cov / (p.radius * p.radius) for p in pips], axis=0)  # unit-area shape
    r = float(np.mean([p.radius for p in pips]))
    ev, evec = np.linalg.eigh(cov * r * r)
    w = evec @ np.diag(1.0 / np.sqrt(ev)) @ evec.T
    wi = evec @ np.diag(np.sqrt(ev)) @ evec.T
    return w, wi, r


def _fit(points: np.ndarray) -> tuple[float, complex, int, np.ndarray] | None:
    """Best fit of whitened, centred pip positions (n, 2) to the n-pip patterns: (largest misfit in pattern
    spacings, a: the complex turn and scale mapping pattern to points, layout index, each point's place in the
    pattern (n, 2)), or None."""
    n = len(points)
    z = points[:, 0] + 1j * points[:, 1]
    best = None
    for li, layout in enumerate(_LAYOUTS.get(n, ())):
        w = layout[:, 0] + 1j * layout[:, 1]
        wr, zr = np.abs(w), np.abs(z)
        # centre pips (of 3 and 5) are matched by being nearest the centroid, the rest by angle order
        nc = int((wr < 1e-9).sum())
        zc = np.argsort(zr)[:nc]
        zo = np.setdiff1d(np.arange(n), zc)
        wo = np.nonzero(wr >= 1e-9)[0]
        zo = zo[np.argsort(np.angle(z[zo]))]
        wo = wo[np.argsort(np.angle(w[wo]))]
        m = len(wo)
        for shift in range(m):
            order = np.empty(n, int)
            order[zc] = np.nonzero(wr < 1e-9)[0]
            order[zo] = np.roll(wo, shift)
            ww = w[order]
            denom = float((np.abs(ww) ** 2).sum())
            a = complex((z * np.conj(ww)).sum() / denom)
            if abs(a) < 1e-9:
                continue
            err = float(np.abs(z - a * ww).max() / abs(a))
            if best is None or err < best[0]:
                best = (err, a, li, layout[order])
    return best


def _affine_misfit(points: np.ndarray, places: np.ndarray) -> float:
    """The largest misfit (in pattern spacings) of whitened pip positions to their places under a free linear map,
    for 4-6 pips: the pips' shapes give the foreshortening only roughly (a few px each), and real dice space a 6's
    rows a little apart from its columns. A map far from a turned square (the whitening was wrong) gives inf."""
    m, *_ = np.linalg.lstsq(places, points, rcond=None)  # points ~ places @ m
    sv = np.linalg.svd(m, compute_uv=False)
    # a 6's columns sit anywhere from its rows' spacing (an even grid) to its face's corners: between the two
    # layouts a 6 is stretched by up to 1 / 0.6; a 4 or 5 is a square's corners (and centre)
    if sv[1] < (0.6 if len(points) == 6 else 0.75) * sv[0]:
        return math.inf
    scale = math.sqrt(sv[0] * sv[1])
    return float(np.linalg.norm(points - places @ m, axis=1).max() / scale)


_CHECK_REACH = 4.0  # pattern units: how far round a group its face is checked
_CHECK_SIZE = int(2 * _CHECK_REACH * _UNIT_PX) + 1  # px: the checked patch's side
_CHECK_C = (_CHECK_SIZE - 1) / 2.0
_CHECK_VV, _CHECK_UU = (np.mgrid[0:_CHECK_SIZE, 0:_CHECK_SIZE] - _CHECK_C) / _UNIT_PX  # each patch pixel's (u, v)


def _face_check(grey: np.ndarray, centre: np.ndarray, frame: np.ndarray, layout: np.ndarray, pip_r: float,
                dark: bool, contrast: float) -> tuple[float, float] | None:
    """Check the face round a fitted group in its own frame (`frame` (2, 2): pattern units -> image px, `pip_r`
    the pips' radius in pattern units). Returns (half-side in pattern units, uniformity 0-1), or None when the face
    holds a spot the pattern does not, or does not end at a die's size."""
    reach, size, c = _CHECK_REACH, _CHECK_SIZE, _CHECK_C
    # patch pixel (i, j) -> pattern (u, v) = ((j - c) / UNIT, (i - c) / UNIT) -> image centre + frame @ (u, v)
    m = np.column_stack([frame[:, 0] / _UNIT_PX, frame[:, 1] / _UNIT_PX,
                         centre - frame @ np.array([c, c]) / _UNIT_PX])
    patch = cv2.warpAffine(grey, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0 if dark else 255).astype(np.float32)
    vv, uu = _CHECK_VV, _CHECK_UU
    on_pip = np.zeros(patch.shape, bool)
    for u, v in layout:
        on_pip |= (uu - u) ** 2 + (vv - v) ** 2 <= (1.6 * pip_r) ** 2
    if len(layout) > 1:
        inner_extent = 1.0 + 1.3 * pip_r
        inner = (np.abs(uu) <= inner_extent) & (np.abs(vv) <= inner_extent) & ~on_pip
    else:
        # a lone pip: the face round it, to where another face's pips would sit (4 pip radii), holds no spot; a
        # die with a large "1" (its face ends within 4 of its radii) is looked at only to near its face's end
        r2 = uu * uu + vv * vv
        inner_extent = _lone_pip_reach(patch, c, r2, pip_r, dark)
        inner = (r2 <= inner_extent ** 2) & ~on_pip
    face = float(median_of(patch[inner]))
    # a spot within the pattern: pixels half way to the pips' level
    spot = (patch < face - 0.5 * contrast) if dark else (patch > face + 0.5 * contrast)
    if spot[inner].mean() > 0.01:
        return _why(f"spot {spot[inner].mean():.3f}")
    dev = np.abs(patch - face)
    uniform = float(1.0 - min(1.0, np.percentile(dev[inner], 90) / max(0.35 * contrast, 1.0)))
    # the face's end along each of its four directions: the first step away from the face's level, beyond the pips
    # a step towards the pips' tone of an eighth of the room there, or away from it of a fifth (a blue die on a
    # dark red felt is only a quarter brighter than it)
    toward, away = _end_steps(face, dark)
    ends = _axis_ends(patch, c, inner_extent, reach, face, toward, away, dark)
    _log.debug("face ends %s, tone %.0f, steps %.0f / %.0f, uniform %.2f", ends, face, toward, away, uniform)
    if len(layout) == 1:
        # a lone pip: its face round it on all four sides alike (a pip of a 2 or 3 whose fellows were missed
        # sits off its face's centre), and no further spot anywhere on that face
        if uniform < 0.6 or sum(e is None for e in ends) > 1:
            return _why(f"lone pip ends {ends}")
        ends = sorted(4.0 if e is None else e for e in ends)
        if ends[3] > 1.4 * ends[2]:
            ends.pop()  # one side runs on into a side face of the face's tone
        if max(ends) > 1.5 * min(ends):
            return _why(f"lone pip ends {ends}")
        half = float(np.mean(ends))
        # a die's face ends all round at a square's distances (half to 1.41 x half): a printed dot on an area of
        # one colour has its area's edge far off on some sides. 16 rays; a visible side face may carry 3 on.
        rays = _ray_ends(patch, c, face, toward, away, dark, 1.6 * pip_r, reach)
        off = sum(e is None or not 0.8 * half <= e <= 1.6 * half for e in rays)
        if off > 3:
            return _why(f"lone pip: face outline no square ({off} rays off)")
        # within the top face (a visible side face's pips lie beyond 5 pip radii)
        face_area = (uu * uu + vv * vv <= min(0.95 * half, 5.2 * pip_r) ** 2) & ~on_pip
        if spot[face_area].mean() > 0.005:
            return _why("lone pip: a spot on its face")
        return half, uniform
    if len(layout) == 6 and np.ptp(layout[:, 0]) != np.ptp(layout[:, 1]) and (
            None in ends and (ends.count(None) > 1 or uniform < 0.4)):
        # a 6 on an even grid is a 2 x 3 block of pips, which two touching dice's pips make too: its face must end
        # on all four sides, or on three and be plain (its real faces: uniform 0.5-0.96 where one side runs into a
        # neighbour, marbled ones 0-0.25 with every end found; the gap between two touching dice: 0.24, one end
        # missing)
        return _why(f"even-grid 6: ends {ends}, uniform {uniform:.2f}")
    ends = [e for e in ends if e is not None]
    # a face may run on into a side face or a touching die of its tone on one side (two for a 4-6, whose pips
    # already say it is a face); 2-3 pips, which printed dots could fake, need their face's end on three sides
    if len(ends) < (3 if len(layout) <= 3 else 2):
        return _why(f"ends {len(ends)}")
    ends.sort()
    few = len(layout) <= 3
    if len(ends) > (3 if few else 2) and ends[-1] > 1.6 * ends[0]:
        ends.pop()  # run on into a touching die or a side face of the face's tone
    half = float(np.mean(ends))
    # the pattern sits in the middle of its face: a 2 or 3 off it is part of a 4-6 whose other pips were missed
    # (a 2 or 3 off its middle by half a pip spacing or more gives 2 or more; a face's shading and a lens's
    # vignette shift one end by up to half as much again, allowed where all four ends show well beyond the pips:
    # two pips of a 3 seen obliquely end within half a spacing of them on one side)
    roomy = len(ends) == 4 and min(ends) >= 1.8
    if max(ends) > (1.6 if not few or roomy else 1.45) * min(ends):
        return _why("ends unequal")
    return half, uniform


def _end_steps(face: float, dark: bool) -> tuple[float, float]:
    """The steps (grey levels) that end a face of level `face`: towards the pips' tone an eighth of the room there,
    away from it a fifth (a blue die on a dark red felt is only a quarter brighter than it); 10 at least."""
    return max(0.12 * (face if dark else 255.0 - face), 10.0), max(0.2 * (255.0 - face if dark else face), 10.0)


def _lone_pip_reach(patch: np.ndarray, c: float, r2: np.ndarray, pip_r: float, dark: bool) -> float:
    """How far round a lone pip (pattern units; `r2` each patch pixel's squared distance from it) its face is
    judged: to where another face's pips would sit (4.2 pip radii), or to near its face's end where that ends
    closer on three sides at least (a die with a large "1")."""
    level = float(median_of(patch[(r2 >= (1.6 * pip_r) ** 2) & (r2 <= (2.8 * pip_r) ** 2)]))
    toward, away = _end_steps(level, dark)
    near = sorted(e for e in _axis_ends(patch, c, 1.8 * pip_r, _CHECK_REACH, level, toward, away, dark)
                  if e is not None)
    if len(near) >= 3 and near[2] <= 1.4 * near[0]:
        return max(min(4.2 * pip_r, 0.9 * near[0]), 2.4 * pip_r)
    return 4.2 * pip_r


def _axis_ends(patch: np.ndarray, c: float, start: float, reach: float, face: float, toward: float, away: float,
               dark: bool) -> list[float | None]:
    """Along the face's four directions (+u, -u, +v, -v; pattern units from `start` to `reach`), where a band's
    median across (0.7 x `start` either side) first leaves the face's tone, or None."""
    size = patch.shape[0]
    half_band = int(0.7 * start * _UNIT_PX)
    ci = int(round(c))
    rows = slice(max(ci - half_band, 0), ci + half_band + 1)
    prof_u = np.median(patch[rows, :], axis=0) - face
    prof_v = np.median(patch[:, rows], axis=1) - face
    t = np.arange(start, reach - 0.1 + 1e-9, 1.0 / _UNIT_PX)
    steps = np.round(t * _UNIT_PX).astype(int)
    ends: list[float | None] = []
    for prof, sign in ((prof_u, 1), (prof_u, -1), (prof_v, 1), (prof_v, -1)):
        d = prof[np.clip(ci + sign * steps, 0, size - 1)]
        hit = (d < -toward) | (d > away) if dark else (d > toward) | (d < -away)
        idx = np.nonzero(hit)[0]
        ends.append(float(t[idx[0]]) if len(idx) else None)
    return ends


def _ray_ends(patch: np.ndarray, c: float, face: float, toward: float, away: float, dark: bool, start: float,
              reach: float, n: int = 16) -> list[float | None]:
    """Along n rays from the patch's centre (pattern units from `start` to `reach`), where the tone first leaves
    the face's (by `toward` towards the pips' tone or `away` away from it, on a 3-sample mean), or None."""
    t = np.arange(start, reach, 1.0 / _UNIT_PX)
    out: list[float | None] = []
    for k in range(n):
        a = 2.0 * math.pi * k / n
        xs = np.clip(np.round(c + t * math.cos(a) * _UNIT_PX).astype(int), 0, patch.shape[1] - 1)
        ys = np.clip(np.round(c + t * math.sin(a) * _UNIT_PX).astype(int), 0, patch.shape[0] - 1)
        d = np.convolve(patch[ys, xs] - face, np.ones(3) / 3.0, mode="same")
        hit = (d < -toward) | (d > away) if dark else (d > toward) | (d < -away)
        idx = np.nonzero(hit[1:-1])[0]
        out.append(float(t[idx[0] + 1]) if len(idx) else None)
    return out


_DEFAULT_OPTIONS = DiceOptions()


def read_dice_pips(image: np.ndarray, options: DiceOptions = _DEFAULT_OPTIONS) -> list[DieReading]:
    """Every die whose top face's pips show in a BGR (or grey) image, in reading order (top to bottom, left to
    right): value 1-6, or None where a group of pips fits no face for sure; centre and side in image px."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    # read on a pyramid level where the smallest face is still _WORK_SIDE px or more (a 4K frame at half size):
    # the pips keep 2 px of radius or more, the hats and the checks cost a quarter
    scale = 1.0
    while options.min_side_px * scale >= 2.0 * _WORK_SIDE:
        grey, scale = cv2.pyrDown(grey), scale / 2.0
    if scale < 1.0:
        work = replace(options, min_side_px=options.min_side_px * scale, max_side_px=options.max_side_px * scale)
        k = 1.0 / scale
        return [replace(r, centre_px=(r.centre_px[0] * k + 0.5 * (k - 1), r.centre_px[1] * k + 0.5 * (k - 1)),
                        side_px=r.side_px * k) for r in _read(grey, work)]
    return _read(grey, options)


def _read(grey: np.ndarray, options: DiceOptions) -> list[DieReading]:
    """`read_dice_pips` on a grey image at the working scale."""
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    pips, every = _candidates(grey, options)
    found = []
    for members, beside in _faces_of_groups([[pips[i] for i in g] for g in _groups(grey, every, pips)]):
        read = _read_group(grey, members, options, pips)
        if (read is None or read[0].value is None) and len(members) >= 3:
            # a side face's pip (smaller, more elongated) joined to a top face's: without it the face may fit
            r = float(statistics.median([p.radius for p in members]))
            q = float(statistics.median([p.q for p in members]))
            core = [p for p in members if p.radius >= 0.8 * r and p.q >= q - 0.15]
            if 0 < len(core) < len(members):
                again = _read_group(grey, core, options, pips)
                if again is not None and (read is None or again[0].value is not None):
                    read = again
        if read is None and 3 <= len(members) <= 5:
            read = _completed(grey, members, options, pips)
        if read is not None and _incomplete(grey, every, read[1], pips, beside):
            read = None
        if read is not None:
            found.append(read)
        elif len(members) >= 3 and _gap_ratio(members) >= _STRAY_GAP:
            # a touching die's pip joined to a face across a faint gap, farther off than the face's own pips are
            # from each other: the two parts read apart, each with the other's pips as another face's
            parts = _split_at_widest_gap(members)
            for part, other in (parts, parts[::-1]):
                again = _read_group(grey, part, options, pips) if len(part) >= 2 else None
                if again is not None and again[0].value is not None and not _incomplete(
                        grey, every, again[1], pips, beside | {id(p) for p in other}):
                    found.append(again)
    found = _drop_side_faces(found)
    out = [r for r, _ in found]
    return sorted(out, key=lambda d: (d.centre_px[1], d.centre_px[0]))


def _missing_pip(points: np.ndarray) -> list[tuple[float, int, np.ndarray]]:
    """Where one missing pip of a face would lie: for each (n+1)-pip pattern that whitened pip positions `points`
    (n, 2) fit with one of its places empty (a similarity with a free shift, every order of the points tried), the
    fit's largest misfit in pattern spacings, the full pattern's value and the empty place's position in the
    points' frame; best first, misfits under 0.25 only."""
    n = len(points)
    z = points[:, 0] + 1j * points[:, 1]
    zc = z - z.mean()
    perms = _PERMS[n]
    out = []
    for layout in _LAYOUTS.get(n + 1, ()):
        w_all = layout[:, 0] + 1j * layout[:, 1]
        for k in range(n + 1):
            w = np.delete(w_all, k)[perms]  # (P, n): each order of the kept places
            wc = w - w.mean(axis=1, keepdims=True)
            a = (zc[None, :] * np.conj(wc)).sum(axis=1) / (np.abs(wc) ** 2).sum(axis=1)
            err = np.abs(zc[None, :] - a[:, None] * wc).max(axis=1) / np.maximum(np.abs(a), 1e-9)
            j = int(np.argmin(err))
            if err[j] < 0.25:
                at = z.mean() + a[j] * (w_all[k] - w[j].mean())
                out.append((float(err[j]), n + 1, np.array([at.real, at.imag])))
    return sorted(out, key=lambda t: t[0])


_PERMS = {n: np.array(list(itertools.permutations(range(n)))) for n in (3, 4, 5)}


def _completed(grey: np.ndarray, group: list[_Pip], options: DiceOptions, pips: list[_Pip]):
    """A face read with one pip its candidates missed (a pip run into a rim or the gap beside a touching die is
    no round blob): where the group fits a pattern of one pip more with one place empty, and a spot of the pips'
    tone (half their contrast) lies at that place, the group with a pip put there is read as usual
    (`_read_group`, its face checked). None when no such face reads."""
    centre = np.mean([p.centre for p in group], axis=0)
    w, wi, r = _whitener(group)
    pts = (np.array([p.centre for p in group]) - centre) @ w.T
    contrast = float(statistics.median([p.contrast for p in group]))
    face = float(statistics.median([p.face for p in group]))
    dark = group[0].dark
    H, W = grey.shape
    for _, _, at in _missing_pip(pts):
        xy = centre + wi @ at
        x0, y0 = int(round(xy[0] - 0.6 * r)), int(round(xy[1] - 0.6 * r))
        x1, y1 = int(round(xy[0] + 0.6 * r)) + 1, int(round(xy[1] + 0.6 * r)) + 1
        if x0 < 0 or y0 < 0 or x1 > W or y1 > H:
            continue
        core = grey[y0:y1, x0:x1].astype(np.float32)
        level = float(np.median(core))
        if (face - level if dark else level - face) < 0.5 * contrast:
            continue  # no pip there
        like = group[0]
        pip = replace(like, centre=xy, cov=np.mean([p.cov for p in group], axis=0), radius=r,
                      contrast=float(face - core.min() if dark else core.max() - face), face=face)
        read = _read_group(grey, [*group, pip], options, pips)
        if read is not None and read[0].value is not None:
            return read
    return None


def _faces_of_groups(groups: list[list[_Pip]]) -> list[tuple[list[_Pip], set[int]]]:
    """The groups to read as faces, each with the ids of the pips split off it (another face's, not this one's
    missing pips: `_incomplete`). A group of more than 6 pips is no one face (two touching dice whose pips run
    together, on a pale die where the gap between them is faint) and is split where its pips lie farthest apart:
    at the longest edge of their minimum spanning tree, again while a part has more than 6. A part of one pip is
    dropped (a pip cut off another face's group is no "1" of its own)."""
    out: list[tuple[list[_Pip], set[int]]] = []
    for group in groups:
        todo = [group]
        while todo:
            part = todo.pop()
            if len(part) > 6:
                todo.extend(p for p in _split_at_widest_gap(part) if len(p) > 1)
                continue
            mine = {id(p) for p in part}
            out.append((part, {id(p) for p in group if id(p) not in mine}))
    return out


_STRAY_GAP = 1.4  # a group's longest spanning-tree edge over its next longest: a stray pip off the face


def _gap_ratio(group: list[_Pip]) -> float:
    """The longest edge of the minimum spanning tree of the group's pip centres over its second longest (a face's
    own pips are about evenly spaced: a 5's and a 6's edges alike, a 4's sides)."""
    lengths = sorted(e[0] for e in _spanning_edges(group))
    return lengths[-1] / max(lengths[-2], 1e-9)


def _spanning_edges(group: list[_Pip]) -> list[tuple[float, int, int]]:
    """The edges (length px, i, j) of the minimum spanning tree of the group's pip centres (Prim's)."""
    centres = np.array([p.centre for p in group])
    n = len(group)
    dist = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    inside = np.zeros(n, bool)
    inside[0] = True
    best, link = dist[0].copy(), np.zeros(n, int)
    edges = []
    for _ in range(n - 1):
        j = int(np.argmin(np.where(inside, np.inf, best)))
        edges.append((float(best[j]), int(link[j]), j))
        inside[j] = True
        closer = dist[j] < best
        best[closer], link[closer] = dist[j][closer], j
    return edges


def _split_at_widest_gap(group: list[_Pip]) -> tuple[list[_Pip], list[_Pip]]:
    """The group cut in two at the longest edge of its pips' minimum spanning tree (`_spanning_edges`)."""
    n = len(group)
    edges = _spanning_edges(group)
    longest = max(edges)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for e in edges:
        if e is not longest:
            parent[find(e[1])] = find(e[2])
    root = find(longest[1])
    return [p for i, p in enumerate(group) if find(i) == root], [p for i, p in enumerate(group) if find(i) != root]


def _incomplete(grey: np.ndarray, every: np.ndarray, group: list[_Pip], pips: list[_Pip],
                beside: set[int] = frozenset()) -> bool:
    """Whether a pip-like spot of the group's tone, not in it, lies on the same face: within twice the group's
    reach from its centre with a clear line of face to one of its pips (a 6's other column beside a "3", a pip the
    grouping missed). A touching die's pips are behind a gap, a side face's are more elongated: neither counts;
    nor do the pips `beside` (ids: another face's, split off the same group)."""
    centre = np.mean([p.centre for p in group], axis=0)
    r = float(np.mean([p.radius for p in group]))
    reach = 2.2 * max(max(float(np.linalg.norm(p.centre - centre)) for p in group), 2.0 * r)
    ids = {id(p) for p in group} | beside
    q = float(np.mean([p.q for p in group]))
    for o in pips:
        if id(o) in ids or o.dark != group[0].dark or float(np.linalg.norm(o.centre - centre)) > reach:
            continue
        if o.radius < 0.5 * r or o.radius > 2.0 * r or o.q < min(_Q_TOP, q - 0.2):
            continue  # a side face's pips are more elongated
        near = min(group, key=lambda p: float(np.linalg.norm(p.centre - o.centre)))
        if _clear_between(grey, every, near, o):
            _why(f"incomplete: a spot at {o.centre.round()}")
            return True
    return False


def _read_group(grey: np.ndarray, group: list[_Pip], options: DiceOptions, others: list[_Pip] = ()):
    """(DieReading, the group's pips) for one group, or None when it is no die's top face (`others`: every pip
    candidate, for the checks that look beside the group)."""
    n = len(group)
    centre = np.mean([p.centre for p in group], axis=0)
    w, wi, r = _whitener(group)
    contrast = float(statistics.median([p.contrast for p in group]))
    dark = group[0].dark
    if n > 6:
        return _why("more than six pips: faces run together")
    if float(np.mean([p.q for p in group])) < _Q_TOP:
        return _why("side face")  # seen more than 45 degrees from its normal: a side face (tilts up to 45)
    if n == 1:
        # no pattern to fit: a pattern unit of 3 pip radii (a face's half-side is about 4.5-6.5 pip radii)
        frame = wi * 6.0  # a whitened pip has radius 2
        layout = _LAYOUTS[1][0]
        pip_r = 1.0 / 3.0
        err = 0.0
    else:
        pts = (np.array([p.centre for p in group]) - centre) @ w.T
        fit = _fit(pts)
        if fit is None:
            _why("no fit")
            return None
        err, a, li, places = fit
        if n >= 4:
            err = min(err, _affine_misfit(pts, places))
        ratio = abs(a) / 2.0  # offset in pip radii (a whitened pip has radius 2)
        if err > 0.35 or not _RATIO_MIN <= ratio <= _RATIO_MAX:
            _why(f"fit err {err:.2f} ratio {ratio:.2f}")
            return None
        rot = np.array([[a.real, -a.imag], [a.imag, a.real]])
        frame = wi @ rot
        layout = _LAYOUTS[n][li]
        pip_r = 2.0 / abs(a)
        if n == 3 and _column_of_six(centre, frame, layout, group, others):
            return _why("a 6's column")
    check = _face_check(grey, centre, frame, layout, pip_r, dark, contrast)
    if check is None:
        _why("face check")
        return None
    half, uniform = check
    side = float(2.0 * half * math.sqrt(abs(np.linalg.det(frame))))
    if not 0.8 * options.min_side_px <= side <= 1.2 * options.max_side_px:
        _why(f"side {side:.1f}")
        return None
    if n == 1 and not 3.5 <= half / pip_r <= 9.0:
        return _why(f"lone pip half {half / pip_r:.2f}")
    if n > 1 and not 1.3 <= half <= 3.2:
        _why(f"half {half:.2f}")
        return None
    sure = min(1.0, (contrast - 20.0) / 60.0)
    _log.debug("misfit %.3f, contrast %.0f, uniform %.2f, half-side %.2f", err, contrast, uniform, half)
    radii = [p.radius for p in group]
    agree = 1.0 if max(radii) < 1.35 * min(radii) else 0.7
    confidence = max(0.0, 1.0 - err / 0.35) * sure * agree * (0.6 + 0.4 * uniform)
    if confidence < 0.3:
        return _why("not surely a die")
    value = n if confidence >= options.min_confidence else None
    if value is None and n == 1:
        return _why("unsure lone pip")  # a lone spot that is not surely a die's "1" is no die at all
    angle = 0.0 if n == 1 else math.degrees(math.atan2(frame[1, 0], frame[0, 0])) % 90.0
    return DieReading(value, (float(centre[0]), float(centre[1])), side, angle, round(confidence, 3)), group


def _column_of_six(centre: np.ndarray, frame: np.ndarray, layout: np.ndarray, group: list[_Pip],
                   others: list[_Pip]) -> bool:
    """Whether three pips fitted as a 3 are one column of a 6: pip candidates of their tone beside all three, twice
    their spacing off to one side (beside a 3's diagonal lie its face's blank corners and the rim)."""
    step = (layout[-1] - layout[0]) / 2.0
    side = 2.0 * np.array([-step[1], step[0]])
    spacing = float(np.linalg.norm(frame @ step))
    near = np.array([o.centre for o in others if o.dark == group[0].dark]) if others else np.zeros((0, 2))
    if len(near) == 0:
        return False
    for sign in (1.0, -1.0):
        spots = [centre + frame @ (u + sign * side) for u in layout]
        if all(float(np.min(np.linalg.norm(near - p, axis=1))) < 0.4 * spacing for p in spots):
            return True
    return False


def _why(what: str) -> None:
    """Log why a group is not read (at debug level) and say None."""
    _log.debug("not read: %s", what)
    return None


def _drop_side_faces(found):
    """Drop a group that is a die's side face: its pips clearly more elongated than a neighbouring group's and
    foreshortened (minor axis) towards it."""
    keep = []
    for i, (ri, gi) in enumerate(found):
        qi = float(np.mean([p.q for p in gi]))
        side = False
        for j, (rj, gj) in enumerate(found):
            if i == j:
                continue
            qj = float(np.mean([p.q for p in gj]))
            d = np.subtract(rj.centre_px, ri.centre_px)
            dist = float(np.linalg.norm(d))
            if dist > 1.3 * max(ri.side_px, rj.side_px) or qi > 0.85 * qj:
                continue
            ang = 0.5 * float(np.angle(np.sum([np.exp(2j * p.angle) for p in gi])))  # axes are mod 180 degrees
            minor = np.array([-math.sin(ang), math.cos(ang)])
            if abs(float(minor @ d)) > 0.7 * dist:
                side = True
        if not side:
            keep.append((ri, gi))
    return keep
