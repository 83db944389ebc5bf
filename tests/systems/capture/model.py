"""Capture positions: stones on a grid, one per field. The position file: {"system": "capture", "grid": {"cols": C,
"rows": R}, "pieces": [{"id", "side", "field", "facing"}]}."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from common.errors import InputError
from rules.position import GridPiece, GridPosition, parse_facing, parse_grid_field

SYSTEM = "capture"


@dataclass(frozen=True)
class Stone(GridPiece):
    pass


@dataclass(frozen=True)
class CapturePosition(GridPosition):
    pass


def position_from_dict(data: Mapping[str, Any], source: str = "position") -> CapturePosition:
    grid = data.get("grid")
    if not isinstance(grid, Mapping) or not all(isinstance(grid.get(k), int) and 0 < grid[k] <= 100
                                                for k in ("cols", "rows")):
        raise InputError(f"{source}: grid must be {{\"cols\": 1..100, \"rows\": 1..100}}")
    cols, rows = grid["cols"], grid["rows"]
    pieces, seen = [], set()
    for i, p in enumerate(data.get("pieces") or []):
        what = f"{source}: piece {i + 1}"
        if not isinstance(p, Mapping) or not isinstance(p.get("id"), str) or not isinstance(p.get("side"), str):
            raise InputError(f"{what}: needs an id and a side")
        f = parse_grid_field(p.get("field"), cols, rows, f"{source}: piece {p['id']!r}")
        if f in seen:
            raise InputError(f"{source}: two stones in field {p['field']}")
        seen.add(f)
        pieces.append(Stone(p["id"], p["side"], "stone", f, parse_facing(p.get("facing", "N"), what)))
    return CapturePosition(SYSTEM, tuple(pieces), cols, rows)


def position_to_dict(pos: CapturePosition) -> dict:
    return {"system": SYSTEM, "grid": {"cols": pos.cols, "rows": pos.rows},
            "pieces": [{"id": p.id, "side": p.side, "field": p.field_name, "facing": p.facing} for p in pos.pieces]}


def dumps(pos: CapturePosition) -> str:
    return json.dumps(position_to_dict(pos), indent=1) + "\n"
