"""DBX 18th century ("DB7JK") on the free-measured table (digest: shared/rules/dbx-18th-century.md).

    from rules import position
    pos = position.load("game.json")                      # a DbxPosition
    from rules.dbx.analysis import analyze_pair
    analyze_pair(pos, "p1", "p2")                         # distance, contact, zone of control, sight, fire, melee

The digest's best reading of each §11 ambiguity is the default; `load_options(path)` reads alternatives.
"""

from rules.dbx.model import SYSTEM, DbxPiece, DbxPosition, Scale, Terrain, dumps, position_from_dict, position_to_dict
from rules.dbx.options import DEFAULT, Options, load_options
from rules.position import System, register_system

register_system(System(SYSTEM, position_from_dict, position_to_dict, dumps))

__all__ = ["DEFAULT", "DbxPiece", "DbxPosition", "Options", "Scale", "Terrain", "load_options"]
