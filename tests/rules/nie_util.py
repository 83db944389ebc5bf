"""Helpers for the Napoleon in Europe tests: positions from short descriptions, dice that must all be used."""

from __future__ import annotations

from dataclasses import replace

from common.dice import Dice
from rules.nie.model import Production, position_from_dict


def dice(*rolls: int) -> Dice:
    """Given rolls only: a test fails (see `used_up`) if the engine rolls fewer, and the seed makes any extra roll
    visible as a different result."""
    return Dice(rolls, seed=12345)


def used_up(d: Dice) -> bool:
    return d.given == [] and d.generated == 0


def two(total: int) -> tuple[int, int]:
    """Two dice with this sum (the digest's examples give only the sums)."""
    a = max(1, total - 6)
    return a, total - a


def pos(units, relations=(("france", "britain", "war"),), **extra):
    data = {"system": "nie", "board": "demo",
            "relations": [{"nations": [a, b], "status": s, **({"declared_by": [a]} if s == "war" else {})}
                          for a, b, s in relations],
            "units": [{"id": i, "nation": n, "type": t, "at": at} for i, n, t, at in units]}
    data.update(extra)
    return position_from_dict(data)


def battle_pos(zones: dict, major: bool = False, phase: str = "infantry", acting: str = "A", region="belgium",
               attacker=("france",), defender=("britain",), relations=(("france", "britain", "war"),), **battle):
    """A position with a battle in `region`: zones maps unit id -> zone; ids start with the nation's letter
    (f/b/p/a) and the type after the dash's first letter: i inf, e elite, m militia, c cav, h hcav, r icav, a art,
    l leader (e.g. "f-i1", "b-e2")."""
    nations = {"f": "france", "b": "britain", "p": "prussia", "a": "austria", "r": "russia", "o": "ottoman"}
    types = {"i": "inf", "e": "elite", "m": "militia", "c": "cav", "h": "hcav", "r": "icav", "a": "art",
             "l": "leader"}
    units = [(u, nations[u[0]], types[u[2]], region) for u in zones]
    b = {"region": region, "attacker": list(attacker), "defender": list(defender), "major": major, "phase": phase,
         "acting": acting, "units": {u: {"zone": z} for u, z in zones.items()}, **battle}
    return pos(units, relations=relations, battle=b)


def producing(p, nation: str, nations=None, totalled: bool = True):
    """`p` in a production round (§4.1 step 4) in `nation`'s production turn; `totalled`: every nation of the round
    has totalled its PP already (the test's `pp` are what it may spend)."""
    order = tuple(nations or (nation,))
    return replace(p, active=nation, production=Production(order, dict.fromkeys(order, 0) if totalled else {}))
