"""Wiener Napoleon Kriegsspielregeln 2022 on the square grid (digest: shared/rules/wiener-napoleon-2022.md).

    from rules import position
    pos = position.load("game.json")                      # a WienerPosition
    from rules.wiener import analyze_pair, resolve_fire
    analyze_pair(pos, "fr-art-1", "au-ir4-1")             # distance, arcs, line of sight, modifiers

The digest's best reading of each §11 ambiguity is the default; `load_options(path)` reads alternatives.
"""

from common.options import options_from
from rules.system import GameSystem
from rules.wiener import cli
from rules.wiener.adapter import WienerSystem
from rules.wiener.live import WienerLive
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


def adapter(options=None) -> WienerSystem:
    """The dashboard adapter with the rules options: a TOML file's path, a record's stored values, or None for the
    digest's defaults (common/options.py `options_from`)."""
    return WienerSystem(options_from(options, Options, load_options))


GAME = GameSystem(
    name=SYSTEM,
    title="Wiener Napoleon Kriegsspielregeln 2022",
    table="grid",
    sides=(),  # any armies: the sides are the roster's
    actions=WienerSystem.actions,
    from_dict=position_from_dict,
    to_dict=position_to_dict,
    dumps=dumps,
    adapter=adapter,
    commands="rules.wiener.commands",
    bench="rules.wiener.bench",
    default=True,  # the flagship: the system of commands that name none, and of the first records
    live=WienerLive,
    cli={"analyze": cli.ANALYZE, "resolve": cli.RESOLVE},
    examples=cli.EXAMPLES,
    digest="shared/rules/wiener-napoleon-2022.md",
)

__all__ = [
    "DEFAULT",
    "GAME",
    "Edge",
    "FieldState",
    "Options",
    "WienerPiece",
    "WienerPosition",
    "load_options",
]
