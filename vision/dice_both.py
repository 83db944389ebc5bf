"""Dice read by both readers, merged: what `fieldglass dice`, the dashboard's dice watch and the benchmarks use.

The face-first reader (vision/dice.py: a die's flat top face, then its pips) reads rendered dice best (99.6 % on
the synthetic bench) but loses a white face on pale wood, where the face's flat region runs into the table's; the
pip-first reader (vision/dice_pips.py: the pips, grouped into faces, then the face round them checked) reads those
(about 95 % of the real photos) and misses more of the rendered ones. Both are cautious: neither gives a value it
is unsure of. So a die either reads is kept; one both read is kept once, with the surer reading where they agree
or one of them is unsure, and as unreadable where they give two values (never a guess between them).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from vision.dice import DiceOptions, DieReading, read_dice, read_in_region
from vision.dice_pips import read_dice_pips

__all__ = ["merge_readings", "read_dice_both"]


_DEFAULT = DiceOptions()


def read_dice_both(image: np.ndarray, options: DiceOptions = _DEFAULT, region=None) -> list[DieReading]:
    """Every die whose top face shows in a BGR (or grey) image, by both readers merged (`merge_readings`), in
    reading order; `region` a polygon (N, 2) in frame px: only the dice within it, both readers on the part of the
    frame about it (vision.dice.read_in_region)."""
    if region is not None:
        return read_in_region(read_dice_both, image, options, region)
    return merge_readings(read_dice(image, options), read_dice_pips(image, options))


def merge_readings(first: list[DieReading], second: list[DieReading]) -> list[DieReading]:
    """One reading per die from two readers' lists: two readings are of one die when their centres are within half
    the smaller side. Agreeing: the surer one. One unsure (value None): the sure one. Two values: unreadable (value
    None, the lower confidence). Reading order: top to bottom, left to right."""
    out = list(first)
    for r in second:
        same = next((i for i, k in enumerate(out) if math.hypot(r.centre_px[0] - k.centre_px[0],
                                                                r.centre_px[1] - k.centre_px[1])
                     < 0.5 * min(r.side_px, k.side_px)), None)
        if same is None:
            out.append(r)
            continue
        k = out[same]
        if k.value is not None and r.value is not None and k.value != r.value:
            out[same] = replace(k, value=None, confidence=min(k.confidence, r.confidence))
        elif k.value is None and r.value is not None:
            out[same] = r
        elif (k.value is None) == (r.value is None) and r.confidence > k.confidence:
            out[same] = replace(k, confidence=r.confidence)
    return sorted(out, key=lambda d: (d.centre_px[1], d.centre_px[0]))

