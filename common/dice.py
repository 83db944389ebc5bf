"""Dice: given rolls parsed from the command line, or a seeded generator whose seed is printed for replay."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from common.errors import InputError


def parse_d6(text: str, what: str = "dice", count: int | None = None) -> list[int]:
    """'5,3' (or '5 3', as players type them at the table) -> [5, 3]; InputError if a value is not a D6 face or the
    count is wrong."""
    parts = [p for p in re.split(r"[,;\s]+", str(text)) if p]
    values = []
    for p in parts:
        try:
            v = int(p)
        except ValueError:
            raise InputError(f"{what}: {p!r} is not a die roll (1-6)") from None
        if not 1 <= v <= 6:
            raise InputError(f"{what}: {v} is not a D6 roll (1-6)")
        values.append(v)
    if count is not None and len(values) != count:
        raise InputError(f"{what}: expected {count} roll(s) separated by commas or spaces, got {len(values)}")
    return values


class Dice:
    """A source of D6 rolls: first the given ones in order, then a seeded generator.

    `rolled` records every roll taken, so a result can say which dice it used.
    """

    def __init__(self, given: Iterable[int] = (), seed: int | None = None):
        self.given = list(given)
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
        self._rng = random.Random(self.seed)
        self.rolled: list[int] = []
        self.generated = 0

    def d6(self) -> int:
        if self.given:
            v = self.given.pop(0)
        else:
            v = self._rng.randint(1, 6)
            self.generated += 1
        self.rolled.append(v)
        return v
