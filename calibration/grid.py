"""The square grid drawn (or implied) on the table: fields, their names, and the 8 facings.

Fields are named like a spreadsheet: column letters A..Z, AA, AB.. along +x from the grid origin,
row numbers from 1 along +y. Columns and rows are 0-based in code, named 1-based.
Headings are compass bearings in degrees: 0 = +y ("north"), 90 = +x ("east").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from common.errors import InputError
from common.fields import field_name, parse_field


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
