"""Where to glue the anchors of a rig: enough in every camera's footprint to register it, and some in every overlap.

Each camera of a rig is registered on its own from the anchors it sees (calibration.registration: at least 2, and
4 spread over its view pin the pose down much better), and the views agree only as well as their registrations do,
so every overlap holds anchors both cameras see. The footprints are the parts of the table each camera must see
(table mm, as `fieldglass plan --rig-out` writes them in the rig file). Anchors are placed whole inside them: the
black square, its one-module quiet zone and a module of cloth, like the standard layout's edge anchors.

Order: first REQUIRED_IN_OVERLAP anchors at the two ends of every seam's long axis (as far apart as the strip
allows), then each camera's footprint is filled up to PER_CAMERA from its corners, then its edge midpoints. A seam is
the overlap of two neighbours side by side (its long side at least half the shorter footprint's along it); the small
corner two diagonal neighbours of a grid share is no seam: those two are tied together through their neighbours.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from calibration.layout import Anchor, dictionary_size
from calibration.rig import Footprint, footprint_overlap
from common.errors import InputError

PER_CAMERA = 4  # anchors each camera should see (registration needs 2; 4 spread over the view pin it down)
REQUIRED_IN_OVERLAP = 2  # anchors every pair of overlapping cameras shares
MIN_PER_CAMERA = 2  # the registration's minimum: fewer is an error


def anchor_inset_mm(size_mm: float, dictionary: str) -> float:
    """How far (mm) an anchor's centre must stay from the edge of the part it must lie in: half the black square,
    the one-module quiet zone and a module of cloth, rounded up to whole mm (vision.synthetic.standard_layout's)."""
    bits = int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).markerSize)
    module = size_mm / (bits + 2)  # data bits plus the one-module black border
    return float(math.ceil(size_mm / 2.0 + 2.0 * module))


def _inner(rect: Footprint, inset: float) -> Footprint | None:
    x0, y0, x1, y1 = rect[0] + inset, rect[1] + inset, rect[2] - inset, rect[3] - inset
    return (x0, y0, x1, y1) if x0 <= x1 and y0 <= y1 else None


def _inside(p: tuple[float, float], rect: Footprint) -> bool:
    return rect[0] - 1e-6 <= p[0] <= rect[2] + 1e-6 and rect[1] - 1e-6 <= p[1] <= rect[3] + 1e-6


def _along_strip(r: Footprint) -> list[tuple[float, float]]:
    """Candidate centres in an overlap (already inset): its long axis's two ends first, then points between."""
    cx, cy = (r[0] + r[2]) / 2.0, (r[1] + r[3]) / 2.0
    if r[2] - r[0] >= r[3] - r[1]:
        return [(float(x), cy) for x in (r[0], r[2], *np.linspace(r[0], r[2], 7)[1:-1])]
    return [(cx, float(y)) for y in (r[1], r[3], *np.linspace(r[1], r[3], 7)[1:-1])]


def _around(r: Footprint) -> list[tuple[float, float]]:
    """Candidate centres in a footprint (already inset): its corners, then its edge midpoints."""
    cx, cy = (r[0] + r[2]) / 2.0, (r[1] + r[3]) / 2.0
    return [(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3]), (cx, r[1]), (r[2], cy), (cx, r[3]), (r[0], cy)]


def is_seam(shared: Footprint, a: Footprint, b: Footprint) -> bool:
    """Whether the overlap `shared` of footprints `a` and `b` is a seam between neighbours side by side (see the
    module's docstring), not a corner diagonal neighbours touch in."""
    along_x = shared[2] - shared[0] >= shared[3] - shared[1]
    if along_x:
        return shared[2] - shared[0] >= 0.5 * min(a[2] - a[0], b[2] - b[0])
    return shared[3] - shared[1] >= 0.5 * min(a[3] - a[1], b[3] - b[1])


class _Placer:
    def __init__(self, gap_mm: float):
        self.gap = gap_mm
        self.placed: list[tuple[float, float]] = []

    def free(self, p: tuple[float, float]) -> bool:
        return all(math.hypot(p[0] - q[0], p[1] - q[1]) >= self.gap for q in self.placed)

    def count(self, rect: Footprint) -> int:
        return sum(_inside(q, rect) for q in self.placed)

    def fill(self, rect: Footprint, candidates: list[tuple[float, float]], want: int) -> int:
        """Add candidates in turn (skipping those too near a placed anchor) until `rect` holds `want`; returns how
        many it holds."""
        for p in candidates:
            if self.count(rect) >= want:
                break
            if self.free(p):
                self.placed.append(p)
        return self.count(rect)


def place_rig_anchors(
    footprints: Sequence[tuple[str, Footprint]], table_mm: tuple[float, float], size_mm: float, dictionary: str,
    first_id: int = 0,
) -> tuple[Anchor, ...]:
    """Anchors (flat, side `size_mm`, ids from `first_id`) for a rig whose cameras must see `footprints`
    ((name, (x0, y0, x1, y1)) in table mm, clipped here to the `table_mm` = (width, depth) table).

    Every overlap of two footprints gets REQUIRED_IN_OVERLAP anchors and every footprint PER_CAMERA where there is
    room (at least MIN_PER_CAMERA). InputError (one line naming the cameras) when an overlap or a footprint is too
    small to hold them, or the dictionary has too few ids.
    """
    w, d = table_mm
    inset = anchor_inset_mm(size_mm, dictionary)
    clipped = []
    for name, f in footprints:
        c = (max(0.0, f[0]), max(0.0, f[1]), min(w, f[2]), min(d, f[3]))
        if not (c[0] < c[2] and c[1] < c[3]):
            raise InputError(f"rig camera {name}: its footprint_mm {list(f)} lies off the {w:g} x {d:g} mm table")
        clipped.append((name, c))
    placer = _Placer(2.0 * inset)  # two quiet zones and two modules of cloth between neighbouring squares
    for i, (a, fa) in enumerate(clipped):
        for b, fb in clipped[i + 1:]:
            shared = footprint_overlap(fa, fb)
            if shared is None or not is_seam(shared, fa, fb):
                continue
            strip = _inner(shared, inset)
            if strip is None or placer.fill(strip, _along_strip(strip), REQUIRED_IN_OVERLAP) \
                    < REQUIRED_IN_OVERLAP:
                raise InputError(
                    f"rig cameras {a} and {b}: their overlap ({shared[2] - shared[0]:.0f} x {shared[3] - shared[1]:.0f}"
                    f" mm) cannot hold {REQUIRED_IN_OVERLAP} anchors of {size_mm:g} mm (each needs "
                    f"{2 * inset:g} x {2 * inset:g} mm): widen the overlap or use smaller anchors")
    for name, f in clipped:
        room = _inner(f, inset)
        if room is None or placer.fill(room, _around(room), PER_CAMERA) < MIN_PER_CAMERA:
            raise InputError(f"rig camera {name}: its footprint cannot hold {MIN_PER_CAMERA} anchors of {size_mm:g} mm")
    ids = range(first_id, first_id + len(placer.placed))
    if ids[-1] >= dictionary_size(dictionary):
        raise InputError(f"{dictionary}: has ids 0..{dictionary_size(dictionary) - 1}, the rig needs up to {ids[-1]}")
    placed = sorted(placer.placed, key=lambda p: (round(p[1], 6), round(p[0], 6)))
    return tuple(Anchor(i, round(x, 1), round(y, 1), float(size_mm)) for i, (x, y) in zip(ids, placed, strict=True))


def anchors_seen(anchors: Sequence[Anchor], footprint: Footprint, size_mm: float | None = None,
                 dictionary: str = "DICT_4X4_250") -> tuple[int, ...]:
    """Ids of the anchors lying whole (with their quiet zone and a module of cloth) inside `footprint`."""
    out = []
    for a in anchors:
        room = _inner(footprint, anchor_inset_mm(size_mm or a.size_mm, dictionary))
        if room is not None and _inside((a.x_mm, a.y_mm), room):
            out.append(a.id)
    return tuple(out)
