"""Coalitions ("Koalicje", Polish edition; digest: shared/rules/coalitions.md): six Powers, Generals with Troops on a
map of Territories and Sea Routes, the Wheel of War's six actions, battles of Strength and Battle cards, no dice.

    from rules import position
    pos = position.load("game.json")                     # a CoalitionsPosition (map, Generals, statuses, tracks)
    from rules.coalitions import battle, movement
    movement.start_movement(pos, "britain", "ottoman")   # Result: lines, changes, the position after

The digest's best reading of each §11 ambiguity is the default; `load_options(path)` reads a group's own values.
Registered as `coalitions = "rules.coalitions:GAME"` in the `fieldglass.systems` entry points.
"""

from rules.coalitions.adapter import ACTIONS, CoalitionsSystem, adapter
from rules.coalitions.live import POWER_TONES, CoalitionsLive
from rules.coalitions.model import (
    POWERS,
    SYSTEM,
    CoalitionsPosition,
    General,
    dumps,
    position_from_dict,
    position_to_dict,
    position_view,
)
from rules.coalitions.options import DEFAULT, Options, load_options
from rules.system import GameSystem

GAME = GameSystem(
    name=SYSTEM,
    title="Coalitions (Koalicje): six Powers on a map of Territories, the Wheel of War, no dice",
    table="board",
    sides=POWERS,
    actions=ACTIONS,
    from_dict=position_from_dict,
    to_dict=position_to_dict,
    dumps=dumps,
    adapter=adapter,
    commands="rules.coalitions.commands",
    live=CoalitionsLive,
    view=position_view,
    examples={
        "analyze": """\
  fieldglass analyze rules/coalitions/data/example.json --from britain        its action, taxes, Arbiters, relations
  fieldglass analyze rules/coalitions/data/example.json --from gb-2 --to lisboa    the kind of move, its path
  fieldglass analyze rules/coalitions/data/example.json --from holland             a Territory""",
        "resolve": (
            "  fieldglass resolve rules/coalitions/data/example.json --action start_movement --attacker france"
            " --target austria\n"
            "  fieldglass resolve rules/coalitions/data/example.json --action taxation --attacker austria"),
    },
    side_tones=POWER_TONES,
    digest="shared/rules/coalitions.md",
    notes=("The shipped map (rules/coalitions/data/europe_demo.toml) has INVENTED borders, values, stripes, ports, "
           "sea routes and geometry: the rulebook text has no map.",),
)

__all__ = ["DEFAULT", "GAME", "CoalitionsPosition", "CoalitionsSystem", "General", "Options", "load_options"]
