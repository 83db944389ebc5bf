"""DBX's part of the live session (rules/live.py): elements as base rectangles in table mm.

The dashboard builds its DBX panels from these declarations; the placement and the changes a resolution makes are
still fieldglass/session_dbx.py's until they move here.
"""

from __future__ import annotations

from rules.dbx.picture import picture
from rules.live import ActionInput, LiveRules
from rules.picture import Item, Scene

DBX_DICE = ActionInput("dice", "dice", "dice", "two D6, the acting element first: 5,3 (empty: the app rolls)")


class DbxLive(LiveRules):
    inputs = (DBX_DICE,)
    noun = "element"
    target_headers = ("target", "contact", "paces", "action", "fire", "net", "melee", "net", "sight", "note")
    state_headers = ("element", "side", "type", "x, y mm", "heading", "quality", "bases", "square", "seen",
                     "waiting for")
    target_hint = ("fire: the target (the nearest in the fire zone, §6.11); melee: the element in contact; turn: the "
                   "element contacted in flank or rear turns to face the attacker (§3.5)")

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        return picture(scene, s.system.opts)
