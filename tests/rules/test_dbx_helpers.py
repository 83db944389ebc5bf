"""Builders for the DBX tests: positions from compact specs through the real JSON parser (no tests of rules here)."""

from __future__ import annotations

from common.dice import Dice
from rules.dbx.model import DbxPosition, base_size, dumps, position_from_dict
from rules.dbx.options import DEFAULT
from rules.dbx.tables import UNIT_TYPES


def el(pid: str, side: str, etype: str, x: float, y: float, h: float = 0.0, **kw) -> dict:
    d = {"id": pid, "side": side, "type": etype, "x_mm": x, "y_mm": y, "heading_deg": h}
    d.update(kw)
    return d


def make(*pieces: dict, terrain=(), game=None, width=600, depth=600, scale=None) -> DbxPosition:
    data = {"system": "dbx", "scale": scale or {"mm_per_pace": 0.25, "bb_mm": 40},
            "table": {"width_mm": width, "depth_mm": depth}, "terrain": list(terrain), "pieces": list(pieces)}
    if game:
        data["game"] = game
    return position_from_dict(data, "test")


def rect_terrain(tid: str, kind: str, x0, y0, x1, y1, **kw) -> dict:
    return {"id": tid, "type": kind, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], **kw}


def facing(pid: str, side: str, etype: str, other: dict, **kw) -> dict:
    """An element in exact front-to-front contact with `other` (which faces north or south)."""
    def depth(t):
        code = {"Dr": "DrK"}.get(t, t)
        return UNIT_TYPES[code].depth_cm * 10

    sign = 1 if other["heading_deg"] == 0 else -1
    y = other["y_mm"] + sign * (depth(other["type"]) / 2 + depth(etype) / 2)
    return el(pid, side, etype, other["x_mm"], y, (other["heading_deg"] + 180) % 360, **kw)


def dice(*rolls: int) -> Dice:
    return Dice(rolls, seed=0)


def test_helpers_round_trip():
    pos = make(el("a", "blue", "Li", 100, 100), el("b", "red", "Dr", 100, 200, 180, mode="mounted_infantry"),
               terrain=[rect_terrain("w", "wood", 0, 0, 50, 50)], game={"weather": "R", "lost": {"blue": 1}})
    text = dumps(pos)
    assert dumps(position_from_dict(__import__("json").loads(text), "again")) == text
    assert base_size(pos.piece("b"), pos.scale) == (40.0, 40.0)
    assert DEFAULT.tolerance_mm == 1.5
