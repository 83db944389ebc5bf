"""Builders for Marengo tests: positions on the invented demo board, through the real JSON parser."""

from __future__ import annotations

from rules.marengo.model import MarengoPosition, load_demo_board, position_from_dict

BOARD = load_demo_board()


def blk(bid, side, typ, strength, area=None, approach=None, box=None, **kw) -> dict:
    d = {"id": bid, "side": side, "type": typ, "strength": strength}
    if box:
        d["box"] = box
    else:
        d["area"] = area
    if approach:
        d["approach"] = approach
    d.update(kw)
    return d


def mk(*blocks, side="AU", round=1, commands=3, pool=None, committed=None, turn=None, track=None,
       **kw) -> MarengoPosition:
    data = {"system": "marengo", "board": "demo", "round": round, "side": side, "commands": commands,
            "blocks": list(blocks), "morale": {"pool": pool or {"AU": 5, "FR": 5}, "committed": committed or {}},
            **({"turn": turn} if turn else {}), **kw}
    return position_from_dict(data, "test", board=BOARD)
