"""Field naming and the 8 facings, shared by every layer.

Fields are named like a spreadsheet: column letters A..Z, AA, AB.. along +x from the grid origin,
row numbers from 1 along +y. Columns and rows are 0-based in code, named 1-based.
Headings are compass bearings in degrees: 0 = +y ("north"), 90 = +x ("east").
"""

from __future__ import annotations

import math
import re

from common.errors import InputError

FACINGS: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
"""The 8 facings in compass order; facing i points along bearing 45 * i degrees."""


def column_letters(col: int) -> str:
    """0 -> 'A', 25 -> 'Z', 26 -> 'AA' (bijective base 26)."""
    if col < 0:
        raise ValueError(f"column must be >= 0, not {col}")
    letters = ""
    n = col + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return letters


def field_name(col: int, row: int) -> str:
    """The name of the field at 0-based (col, row): (0, 0) -> 'A1', (26, 4) -> 'AA5'."""
    return f"{column_letters(col)}{row + 1}"


_NAME = re.compile(r"^([A-Za-z]+)([1-9][0-9]*)$")


def parse_field(name: str) -> tuple[int, int]:
    """'A1' -> (0, 0), 'AA5' -> (26, 4); raise InputError for anything else."""
    m = _NAME.match(name.strip())
    if not m:
        raise InputError(f"{name!r} is not a field name (letters then a row number, like 'D5')")
    col = 0
    for ch in m.group(1).upper():
        col = col * 26 + (ord(ch) - ord("A") + 1)
    return col - 1, int(m.group(2)) - 1


def snap_facing(heading_deg: float) -> tuple[str, float]:
    """The nearest of the 8 facings and the residual angle in degrees (heading minus facing, -22.5..22.5)."""
    h = float(heading_deg) % 360.0
    i = int(math.floor(h / 45.0 + 0.5)) % 8
    residual = (h - 45.0 * i + 180.0) % 360.0 - 180.0
    return FACINGS[i], residual


def facing_bearing(facing: str) -> float:
    """'NE' -> 45.0."""
    try:
        return 45.0 * FACINGS.index(facing.upper())
    except ValueError:
        raise InputError(f"{facing!r} is not a facing (one of {' '.join(FACINGS)})") from None


AMBIGUOUS_EDGE_MM = 5.0
"""A base centre closer than this to a field edge stands ambiguously: the camera cannot be sure of its field."""


def field_ambiguous(edge_mm: float | None, sigma_mm: float | None = None, sigmas: float = 2.0) -> bool:
    """Whether a base centre `edge_mm` from its field's nearest edge stands ambiguously: nearer than
    AMBIGUOUS_EDGE_MM, or than `sigmas` standard deviations of its place (`sigma_mm`, None or NaN: unknown). No
    field (None): never."""
    if edge_mm is None:
        return False
    reach = AMBIGUOUS_EDGE_MM
    if sigma_mm is not None and math.isfinite(sigma_mm):
        reach = max(reach, sigmas * sigma_mm)
    return edge_mm < reach
