"""Rules options: each §11 ambiguity's alternative reading, defaults in `options.toml` next to this file."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from common.options import checked_values, load_layered

DEFAULTS_FILE = Path(__file__).with_name("options.toml")

_CHOICES = {
    "bombardment_cadence": ("strict", "reannounce"),
    "lead_width": ("own", "defender"),
    "rally_ready_count": ("map", "all"),
    "defensive_fire": ("once", "per_artillery"),
    "assault_strengths": ("after", "before"),
}
_RANGES = {"disc_return_last_round": (0, 16)}


@dataclass(frozen=True)
class Options:
    disc_return_last_round: int = 10
    destroyed_artillery_counts: bool = True
    no_retreat_destruction_counts: bool = False
    bombardment_cadence: str = "strict"
    lead_width: str = "own"
    pushed_back_may_road_move: bool = False
    rally_ready_count: str = "map"
    defensive_fire: str = "once"
    assault_strengths: str = "after"
    impassable_either_side: bool = True
    demoralise_on_fall_only: bool = True
    commit_counts_destroyed: bool = True
    unready_may_defend: bool = True
    pontoon_is_action: bool = True
    retreat_into_protected_entry: bool = False

    def with_values(self, values: dict[str, Any], source: str = "options") -> Options:
        return replace(self, **checked_values(self, values, source, _RANGES, _CHOICES, "marengo"))



def load_options(path: str | Path | None = None) -> Options:
    """The defaults file, then the user's file on top (unknown keys and bad values are InputErrors)."""
    return load_layered(Options(), DEFAULTS_FILE, path)


DEFAULT = Options()
