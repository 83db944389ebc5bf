"""Wiener Napoleon Kriegsspielregeln 2022 on the square grid (digest: shared/rules/wiener-napoleon-2022.md).

    from rules import position
    pos = position.load("game.json")                      # a WienerPosition
    from rules.wiener import analyze_pair, resolve_fire
    analyze_pair(pos, "fr-art-1", "au-ir4-1")             # distance, arcs, line of sight, modifiers

The digest's best reading of each §11 ambiguity is the default; `load_options(path)` reads alternatives.
"""

from rules.position import System, register_system
from rules.wiener.model import (
    SYSTEM,
    Edge,
    FieldState,
    WienerPiece,
    WienerPosition,
    dumps,
    position_from_dict,
    position_to_dict,
)
from rules.wiener.options import DEFAULT, Options, load_options

register_system(System(SYSTEM, position_from_dict, position_to_dict, dumps))

__all__ = [
    "DEFAULT",
    "Edge",
    "FieldState",
    "Options",
    "WienerPiece",
    "WienerPosition",
    "load_options",
]
