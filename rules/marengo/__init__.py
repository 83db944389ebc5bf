"""Triomphe à Marengo on a printed board of areas (digest: shared/rules/triomphe-a-marengo.md).

    from rules import position
    pos = position.load("game.json")                   # a MarengoPosition on its board
    from rules.marengo import engine, analysis
    analysis.analyze_areas(pos, "3", "5")              # adjacency, approaches, roads, legal actions and costs
    engine.thrust(pos, ["au-cav-1"], "5")              # Outcome: legal, cost, events, position after

The digest's best reading of each §11 ambiguity is the default; `load_options(path)` reads alternatives.
"""

from collections.abc import Mapping
from pathlib import Path

from rules.marengo.adapter import MarengoSystem
from rules.marengo.hidden import position_view
from rules.marengo.live import MarengoLive
from rules.marengo.model import SIDES, SYSTEM, Block, MarengoPosition, dumps, position_from_dict, position_to_dict
from rules.marengo.options import DEFAULT, Options, load_options
from rules.marengo.picture import SIDE_TONES
from rules.system import GameSystem


def adapter(options: str | Path | Mapping | None = None) -> MarengoSystem:
    """The dashboard adapter with the rules options: a TOML file's path, a record's stored values, or None for the
    digest's defaults."""
    if isinstance(options, Mapping):
        options = Options().with_values(dict(options), "the record's rules options")
    return MarengoSystem(str(options) if isinstance(options, Path) else options)


GAME = GameSystem(
    name=SYSTEM,
    title="Triomphe à Marengo (blocks on a board of areas)",
    table="board",
    sides=SIDES,
    actions=MarengoSystem.actions,
    from_dict=position_from_dict,
    to_dict=position_to_dict,
    dumps=dumps,
    adapter=adapter,
    commands="rules.marengo.commands",
    live=MarengoLive,
    view=position_view,
    side_tones=SIDE_TONES,
    digest="shared/rules/triomphe-a-marengo.md",
)

__all__ = ["DEFAULT", "GAME", "Block", "MarengoPosition", "Options", "load_options"]
