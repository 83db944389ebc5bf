"""Triomphe à Marengo's part of the live session (rules/live.py): blocks located on a printed board of areas, with
player views that hide the opponent's identities (§13).

The dashboard builds its Marengo panels and views from these declarations; the placement and the changes a
resolution makes are still fieldglass/session_marengo.py's until they move here.
"""

from __future__ import annotations

from rules.live import ActionInput, LiveRules
from rules.marengo.model import SIDES
from rules.marengo.picture import picture
from rules.picture import Item, Scene

CHOICES = ActionInput("choices", "choices", "choices",
                      "push=ID lead=ID fire=yes counter=ID retreat.ID=AREA ... (as for fieldglass resolve --choice)")


class MarengoLive(LiveRules):
    viewers = SIDES
    viewer_titles = {"umpire": "Umpire view (all identities)", "AU": "Austrian player view",
                     "FR": "French player view"}
    inputs = (CHOICES,)
    noun = "block"
    target_headers = ("target", "area", "steps", "action", "legal", "cost", "attack", "", "", "outcome")
    target_hint = "an enemy block (its area is the target) or, for a move, a block in the destination"

    def visible_id(self, s, pid: str) -> str:
        return s.label(pid)

    def resolve_id(self, s, pid: str) -> str | None:
        return s.unalias(pid)

    def context(self, s) -> dict:
        return {"placements": s.placements}

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        return picture(scene)
