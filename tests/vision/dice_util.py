"""What the dice readers' tests share: a rendered die of a colour pair, and the reading of a rendered die."""

from __future__ import annotations

import numpy as np

from vision.synthetic import PlacedDie
from vision.synthetic_dice import DIE_COLOURS


def die(x, y, value, colours=0, side=16.0, turn=0.0) -> PlacedDie:
    """A die at (x, y) table mm showing `value`, of DIE_COLOURS[colours]."""
    body, pips = DIE_COLOURS[colours]
    return PlacedDie(x, y, side, value, turn, body, pips)


def match(readings, truth_die):
    """The one reading within a third of a side of a rendered die's top face (None: not found); two: a failure."""
    near = [r for r in readings if np.hypot(r.centre_px[0] - truth_die.centre_px[0],
                                            r.centre_px[1] - truth_die.centre_px[1]) < truth_die.side_px / 3]
    assert len(near) <= 1, "one die read twice"
    return near[0] if near else None
