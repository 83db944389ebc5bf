"""DBX 18th century ("DB7JK") on the free-measured table (digest: shared/rules/dbx-18th-century.md).

    from rules import position
    pos = position.load("game.json")                      # a DbxPosition
    from rules.dbx.analysis import analyze_pair
    analyze_pair(pos, "p1", "p2")                         # distance, contact, zone of control, sight, fire, melee

The digest's best reading of each §11 ambiguity is the default; `load_options(path)` reads alternatives.
"""

from common.options import options_from
from rules.dbx.adapter import DbxSystem
from rules.dbx.live import DbxLive
from rules.dbx.model import SYSTEM, DbxPiece, DbxPosition, Scale, Terrain, dumps, position_from_dict, position_to_dict
from rules.dbx.options import DEFAULT, Options, load_options
from rules.system import CliOption, GameSystem


def adapter(options=None) -> DbxSystem:
    """The dashboard adapter with the rules options: a TOML file's path, a record's stored values, or None for the
    digest's defaults (common/options.py `options_from`)."""
    return DbxSystem(options_from(options, Options, load_options))


GAME = GameSystem(
    name=SYSTEM,
    title="DBX 18th century (free-measured)",
    table="free",
    sides=(),  # any armies: the sides are the roster's
    actions=DbxSystem.actions,
    from_dict=position_from_dict,
    to_dict=position_to_dict,
    dumps=dumps,
    adapter=adapter,
    commands="rules.dbx.commands",
    bench="rules.dbx.bench",
    live=DbxLive,
    cli={"analyze": (
        CliOption(("--all",), "every ordered pair of enemies", {"action": "store_true"}),
        CliOption(("--path",), "analyze: a move to x,y mm (several points: a path; with --choice group=...: a group "
                  "move, §5.2)", {"metavar": "X,Y,.."}),
        CliOption(("--facing",), "analyze --path: the heading(s) in degrees after the move"))},
    examples={
        "analyze": """\
  fieldglass analyze dbx.json --from p1 --to p2 --json     distance in mm, paces and BB, contact, zone of control
  fieldglass analyze dbx.json --from p1 --path 300,200 --facing 90   a move: corner distances, cost, problems""",
        "resolve": """\
  fieldglass resolve dbx.json --action fire --attacker p1 --target p2 --dice 5,3 [--supporters a,b]
  fieldglass resolve dbx.json --action melee --attacker p1 --target p2 --dice 5,3""",
    },
    digest="shared/rules/dbx-18th-century.md",
)

__all__ = ["DEFAULT", "GAME", "DbxPiece", "DbxPosition", "Options", "Scale", "Terrain", "load_options"]
