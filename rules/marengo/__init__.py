"""Triomphe à Marengo on a printed board of areas (digest: shared/rules/triomphe-a-marengo.md).

    from rules import position
    pos = position.load("game.json")                   # a MarengoPosition on its board
    from rules.marengo import engine, analysis
    analysis.analyze_areas(pos, "3", "5")              # adjacency, approaches, roads, legal actions and costs
    engine.thrust(pos, ["au-cav-1"], "5")              # Outcome: legal, cost, events, position after

The digest's best reading of each §11 ambiguity is the default; `load_options(path)` reads alternatives.
"""

from rules.marengo.model import SYSTEM, Block, MarengoPosition, dumps, position_from_dict, position_to_dict
from rules.marengo.options import DEFAULT, Options, load_options
from rules.position import System, register_system

register_system(System(SYSTEM, position_from_dict, position_to_dict, dumps))

__all__ = ["DEFAULT", "Block", "MarengoPosition", "Options", "load_options"]
