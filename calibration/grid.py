"""The square grid drawn (or implied) on the table: fields, their names, and the 8 facings.

Fields are named like a spreadsheet: column letters A..Z, AA, AB.. along +x from the grid origin,
row numbers from 1 along +y. Columns and rows are 0-based in code, named 1-based.
Headings are compass bearings in degrees: 0 = +y ("north"), 90 = +x ("east").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from fieldglass.errors import InputError

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
    i = int(np.floor(h / 45.0 + 0.5)) % 8
    residual = (h - 45.0 * i + 180.0) % 360.0 - 180.0
    return FACINGS[i], residual


def facing_bearing(facing: str) -> float:
    """'NE' -> 45.0."""
    try:
        return 45.0 * FACINGS.index(facing.upper())
    except ValueError:
        raise InputError(f"{facing!r} is not a facing (one of {' '.join(FACINGS)})") from None


@dataclass(frozen=True)
class Grid:
    """A square grid on the table: `cols` x `rows` fields of `field_mm`, field A1's corner at the origin."""

    origin_x_mm: float
    origin_y_mm: float
    field_mm: float
    cols: int
    rows: int

    def field_at(self, x_mm: float, y_mm: float) -> tuple[int, int] | None:
        """0-based (col, row) of the field holding the table point, or None off the grid."""
        col = int(np.floor((x_mm - self.origin_x_mm) / self.field_mm))
        row = int(np.floor((y_mm - self.origin_y_mm) / self.field_mm))
        if 0 <= col < self.cols and 0 <= row < self.rows:
            return col, row
        return None

    def name_at(self, x_mm: float, y_mm: float) -> str | None:
        cell = self.field_at(x_mm, y_mm)
        return None if cell is None else field_name(*cell)

    def field_centre(self, col: int, row: int) -> tuple[float, float]:
        """Centre of the field in table mm."""
        return (
            self.origin_x_mm + (col + 0.5) * self.field_mm,
            self.origin_y_mm + (row + 0.5) * self.field_mm,
        )

    def centre_of(self, name: str) -> tuple[float, float]:
        col, row = parse_field(name)
        if not (0 <= col < self.cols and 0 <= row < self.rows):
            raise InputError(f"field {name} is off the {self.cols}x{self.rows} grid")
        return self.field_centre(col, row)

    def edge_distance_mm(self, x_mm: float, y_mm: float) -> float:
        """Distance from the point to the nearest edge of the field it stands in (0 on an edge)."""
        fx = (x_mm - self.origin_x_mm) % self.field_mm
        fy = (y_mm - self.origin_y_mm) % self.field_mm
        return float(min(fx, self.field_mm - fx, fy, self.field_mm - fy))
