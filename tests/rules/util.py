"""Small builders for rules tests: positions from compact specs, through the real JSON parser."""

from __future__ import annotations

from common.dice import Dice
from common.fields import field_name
from rules.wiener.model import WienerPosition, position_from_dict


def piece(pid, side, ptype, fld, facing="N", **kw) -> dict:
    d = {"id": pid, "side": side, "type": ptype, "field": fld, "facing": facing}
    d.update(kw)
    return d


def make(*pieces, fields=None, edges=None, night=False, cols=20, rows=20) -> WienerPosition:
    return position_from_dict(
        {
            "system": "wiener",
            "grid": {"cols": cols, "rows": rows},
            "night": night,
            "fields": fields or {},
            "edges": [{"fields": list(e[:2]), "obstacle": e[2]} for e in (edges or [])],
            "pieces": list(pieces),
        },
        "test",
    )


def at(col: int, row: int) -> str:
    return field_name(col, row)


def dice(*rolls: int) -> Dice:
    """Fixed rolls; any further roll would come from a seeded generator, so tests name every roll they use."""
    return Dice(rolls, seed=0)
