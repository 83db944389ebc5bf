"""Triomphe à Marengo on a printed board of areas (digest: shared/rules/triomphe-a-marengo.md).

    from rules import position
    pos = position.load("game.json")                   # a MarengoPosition on its board
    from rules.marengo import engine, analysis
    analysis.analyze_areas(pos, "3", "5")              # adjacency, approaches, roads, legal actions and costs
    engine.thrust(pos, ["au-cav-1"], "5")              # Outcome: legal, cost, events, position after

The digest's best reading of each §11 ambiguity is the default; `load_options(path)` reads alternatives.
"""

from common.options import options_from
from rules.marengo.adapter import MarengoSystem
from rules.marengo.hidden import position_view
from rules.marengo.live import MarengoLive
from rules.marengo.model import SIDES, SYSTEM, Block, MarengoPosition, dumps, position_from_dict, position_to_dict
from rules.marengo.options import DEFAULT, Options, load_options
from rules.marengo.picture import SIDE_TONES
from rules.system import GameSystem


def adapter(options=None) -> MarengoSystem:
    """The dashboard adapter with the rules options: a TOML file's path, a record's stored values, or None for the
    digest's defaults (common/options.py `options_from`)."""
    return MarengoSystem(options_from(options, Options, load_options))


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
    examples={
        "analyze": """\
  fieldglass analyze marengo.json --from 3 --to 5 --json          two areas: adjacency, approaches, legal actions
  fieldglass analyze marengo.json --from au-cav-1 --to fr-inf-1   two blocks""",
        "resolve": """\
  fieldglass resolve marengo.json --action thrust --attacker a,b --target 5 --choice push=f1
  fieldglass resolve marengo.json --action road --attacker a --choice path=1,2,3""",
    },
    view=position_view,
    side_tones=SIDE_TONES,
    digest="shared/rules/triomphe-a-marengo.md",
)

__all__ = ["DEFAULT", "GAME", "Block", "MarengoPosition", "Options", "load_options"]
