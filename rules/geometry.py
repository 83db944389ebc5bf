"""Geometry of a square grid with 8 facings, shared by the grid-based systems.

All functions take 0-based fields (col, row) and facing names from `calibration.grid.FACINGS` (N = +y, E = +x).
Lines run centre to centre; a field is the open square of side 1 around its centre.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from common.fields import FACINGS

Field = tuple[int, int]

VECTORS: dict[str, tuple[int, int]] = {
    "N": (0, 1),
    "NE": (1, 1),
    "E": (1, 0),
    "SE": (1, -1),
    "S": (0, -1),
    "SW": (-1, -1),
    "W": (-1, 0),
    "NW": (-1, 1),
}
NEIGHBOUR_OFFSETS: tuple[tuple[int, int], ...] = tuple(VECTORS[f] for f in FACINGS)


def distance(a: Field, b: Field) -> int:
    """Distance in LE: Chebyshev, a diagonal step is 1 LE (digest §3.2, §11 A11)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def neighbours(f: Field) -> tuple[Field, ...]:
    """The 8 Nachbarfelder (§3.4), in facing order N, NE, .. NW; callers clip to the grid."""
    return tuple((f[0] + dx, f[1] + dy) for dx, dy in NEIGHBOUR_OFFSETS)


def is_neighbour(a: Field, b: Field) -> bool:
    """A Nachbarfeld: one of the 8 touching fields, never the field itself (§3.4)."""
    return distance(a, b) == 1


def turn(facing: str, eighths: int) -> str:
    """The facing turned clockwise by `eighths` x 45 degrees."""
    return FACINGS[(FACINGS.index(facing) + eighths) % 8]


def step(f: Field, facing: str, n: int = 1) -> Field:
    dx, dy = VECTORS[facing]
    return (f[0] + n * dx, f[1] + n * dy)


def side_fields(f: Field, facing: str) -> tuple[Field, Field]:
    """The 2 Nebenfelder left and right of a faced unit (§3.4); for diagonal facings the diagonal
    neighbours at +-90 degrees (§11 A10)."""
    return step(f, turn(facing, -2)), step(f, turn(facing, 2))


def in_front_arc(src: Field, facing: str, tgt: Field) -> bool:
    """Target within facing +-45 degrees, boundary included (§3.6). Exact integer test:
    angle <= 45 deg  <=>  dot >= 0 and 2 dot^2 >= |v|^2 |f|^2. The own field is in no arc."""
    dx, dy = tgt[0] - src[0], tgt[1] - src[1]
    if dx == 0 and dy == 0:
        return False
    fx, fy = VECTORS[facing]
    dot = dx * fx + dy * fy
    return dot > 0 and 2 * dot * dot >= (dx * dx + dy * dy) * (fx * fx + fy * fy)


def on_facing_ray(src: Field, facing: str, tgt: Field) -> bool:
    """The target lies on the facing's own file or diagonal: the main combat direction (§8.4, §11 A29)."""
    dx, dy = tgt[0] - src[0], tgt[1] - src[1]
    fx, fy = VECTORS[facing]
    n = max(abs(dx), abs(dy))
    return n > 0 and (dx, dy) == (n * fx, n * fy)


def facing_towards(src: Field, tgt: Field) -> str:
    """The facing nearest to the direction src -> tgt (ties go clockwise from N)."""
    dx, dy = tgt[0] - src[0], tgt[1] - src[1]
    bearing = math.degrees(math.atan2(dx, dy)) % 360.0
    return FACINGS[int(bearing / 45.0 + 0.5) % 8]


def diagonal_side_fields(a: Field, b: Field) -> tuple[Field, Field] | None:
    """For diagonal neighbours a, b: the two orthogonal fields that form the diagonal (§3.5); else None."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if abs(dx) == 1 and abs(dy) == 1:
        return (b[0], a[1]), (a[0], b[1])
    return None


@lru_cache(maxsize=16384)
def line_offsets(dx: int, dy: int) -> tuple[tuple[Field, ...], tuple[tuple[Field, Field], ...]]:
    """The centre-to-centre line from (0, 0) to (dx, dy) (§6.1).

    Returns (crossed, corners): the fields whose interior the line crosses, endpoints excluded, in order;
    and for every grid corner the line passes exactly through, the two side fields there (one must be free).
    Exact integer arithmetic: the line meets x = k + 1/2 at t = (2k + 1) / (2|dx|).
    """
    sx = 1 if dx > 0 else -1
    sy = 1 if dy > 0 else -1
    ax, ay = abs(dx), abs(dy)
    crossed: list[Field] = []
    corners: list[tuple[Field, Field]] = []
    x = y = 0
    i = j = 0  # vertical / horizontal grid lines crossed so far
    while i < ax or j < ay:
        # compare t_x = (2i + 1) / (2 ax) with t_y = (2j + 1) / (2 ay)
        if j >= ay:
            cmp = -1
        elif i >= ax:
            cmp = 1
        else:
            cmp = (2 * i + 1) * ay - (2 * j + 1) * ax
        if cmp < 0:
            x += sx
            i += 1
        elif cmp > 0:
            y += sy
            j += 1
        else:  # exactly through a corner: the diagonal rule
            corners.append(((x + sx, y), (x, y + sy)))
            x += sx
            y += sy
            i += 1
            j += 1
        if (x, y) != (dx, dy):
            crossed.append((x, y))
    return tuple(crossed), tuple(corners)


def line_fields(a: Field, b: Field) -> tuple[tuple[Field, ...], tuple[tuple[Field, Field], ...]]:
    """`line_offsets` placed between fields a and b."""
    crossed, corners = line_offsets(b[0] - a[0], b[1] - a[1])
    ax, ay = a
    return (
        tuple((ax + x, ay + y) for x, y in crossed),
        tuple(((ax + p[0], ay + p[1]), (ax + q[0], ay + q[1])) for p, q in corners),
    )


def clip_half_plane(poly: np.ndarray, normal: np.ndarray, offset: float) -> np.ndarray:
    """The part of a convex polygon (N x 2, mm) where normal . p <= offset (Sutherland-Hodgman against one
    half-plane)."""
    out = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        da, db = float(normal @ a) - offset, float(normal @ b) - offset
        if da <= 0:
            out.append(a)
        if (da < 0 < db) or (db < 0 < da):
            out.append(a + (b - a) * (da / (da - db)))
    return np.asarray(out, float).reshape(-1, 2)


def voronoi_cells(sites: np.ndarray, width: float, depth: float) -> list[np.ndarray]:
    """Each site's cell inside the rectangle 0..width x 0..depth (mm): the points nearer it than any other site, as
    counter-clockwise polygons rounded to 0.1 mm (a map's invented outlines around its invented centres)."""
    frame = np.array([[0.0, 0.0], [width, 0.0], [width, depth], [0.0, depth]])
    cells = []
    for i, p in enumerate(sites):
        poly = frame
        for j, q in enumerate(sites):
            if i == j or len(poly) == 0:
                continue
            poly = clip_half_plane(poly, q - p, float(q @ q - p @ p) / 2.0)  # the points nearer p than q
        cells.append(np.round(poly, 1))
    return cells
