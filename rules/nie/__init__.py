"""Napoleon in Europe, German standard rules (digest: shared/rules/napoleon-in-europe.md): 7 Great Nations on a
strategic map of regions and sea areas, and a tactical battle board of zones.

    from rules import position
    pos = position.load("nie.json")                      # a NiePosition (map topology, units, diplomacy, battle)
    from rules.nie import battle, strategic, politics
    battle.fire(pos, "fr-art-1", "gb-inf-2", Dice([4, 5, 3]))   # Result: lines, rolls (raw and total), position

The digest's best reading of each §11 ambiguity and lost table cell is the default; `load_options(path)` reads a
group's own values. Registered as `nie = "rules.nie:GAME"` in the `fieldglass.systems` entry points.
"""

from rules.nie.adapter import ACTIONS, NieSystem
from rules.nie.battle import position_view
from rules.nie.live import NieLive
from rules.nie.model import NATIONS, SYSTEM, NiePosition, Unit, dumps, position_from_dict, position_to_dict
from rules.nie.options import DEFAULT, Options, get_options, load_options
from rules.nie.picture import NATION_TONES
from rules.system import GameSystem


def adapter(options=None) -> NieSystem:
    """The adapter with the rules options: a TOML file's path, a record's stored values, or None for the digest's
    defaults (common/options.py `options_from`)."""
    return NieSystem(get_options(options))


GAME = GameSystem(
    name=SYSTEM,
    title="Napoleon in Europe (strategic map of Europe and tactical battle board)",
    table="board",
    sides=NATIONS,
    actions=ACTIONS,
    from_dict=position_from_dict,
    to_dict=position_to_dict,
    dumps=dumps,
    adapter=adapter,
    commands="rules.nie.commands",
    live=NieLive,
    examples={
        "analyze": """\
  fieldglass analyze rules/nie/data/example.json --from fr-art-1 --to gb-inf-2   fire/charge: number, modifiers
  fieldglass analyze rules/nie/data/example.json --from picardy --to belgium     regions: neighbours, entry rights
  fieldglass analyze rules/nie/data/example.json --from france                   PP, placement, victory level""",
        "resolve": (
            "  fieldglass resolve rules/nie/data/example.json --action fire --attacker fr-art-1 --target gb-inf-2"
            " --dice 4,5,3\n"
            "  fieldglass resolve rules/nie/data/example.json --action land_move --attacker fr-inf-2 --target"
            " belgium\n"
            "  fieldglass resolve rules/nie/data/example.json --action amphibious --attacker gb-inf-1,gb-inf-4"
            " --target illyria --choice route=bay_of_biscay,mid_atlantic,barbary_coast,tyrrhenian,ionian,adriatic"
            " --dice 2,5"),
    },
    view=position_view,
    side_tones={n: t for n, t in NATION_TONES.items() if n in NATIONS},
    digest="shared/rules/napoleon-in-europe.md",
    notes=("The shipped map (rules/nie/data/europe_demo.toml) has INVENTED adjacency and geometry: the rulebook has "
           "no map.",),
)

__all__ = ["DEFAULT", "GAME", "NiePosition", "Options", "Unit", "load_options"]
