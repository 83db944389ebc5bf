"""Capture: a two-player test-only game on a grid, registered through the registry like any system.

The proof that a game system is one folder: nothing outside tests/systems/capture/ names it, and it gets
`analyze`, `resolve`, `view`, `systems` and the dashboard with its pictures and actions. Rules (invented, small):
each side's stones stand one to a field; on its turn a stone may capture an enemy stone in one of the 8 neighbouring
fields: the enemy is taken off and the capturer moves into its field, facing the way it moved.

Registered in a test with `rules.system.register(GAME)` (an installed plugin would use the `fieldglass.systems`
entry-point group instead).
"""

from __future__ import annotations

from rules.system import GameSystem
from tests.systems.capture.adapter import CaptureSystem
from tests.systems.capture.live import CaptureLive
from tests.systems.capture.model import SYSTEM, dumps, position_from_dict, position_to_dict


def adapter(options=None) -> CaptureSystem:
    return CaptureSystem()


GAME = GameSystem(
    name=SYSTEM,
    title="Capture (a test-only game on a grid)",
    table="grid",
    sides=(),
    actions=CaptureSystem.actions,
    from_dict=position_from_dict,
    to_dict=position_to_dict,
    dumps=dumps,
    adapter=adapter,
    commands="tests.systems.capture.commands",
    live=CaptureLive,
)
