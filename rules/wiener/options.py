"""Rules options: each §11 ambiguity's alternative reading, defaults in `options.toml` next to this file."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from common.options import checked_values, load_layered

DEFAULTS_FILE = Path(__file__).with_name("options.toml")

_CHOICES = {
    "failed_loss_test_marker": ("grey", "none"),
    "cap_mode": ("separate", "net"),
    "marker_stacking": ("sum", "worst"),
    "dispersed_target_penalty": ("all_unformed", "skirmishers_and_generals"),
    "target_priority": ("warn", "forbid"),
}
_RANGES = {"loss_test_from_wz": (6, 7), "flight_distance": (1, 2), "small_arms_point_blank_bonus": (0, 1)}


@dataclass(frozen=True)
class Options:
    loss_test_from_wz: int = 6
    failed_loss_test_marker: str = "grey"
    cap_mode: str = "separate"
    massing_counts_acting_base: bool = True
    support_requires_kampfwert: bool = True
    cavalry_beyond_4_le_penalty: bool = True
    support_requires_superiority: bool = False
    artillery_supporters_unlimited: bool = True
    melee_support_is_fire_support: bool = True
    diagonal_blocked_by_impassable: bool = True
    overshoot_enemy_troops: bool = True
    artillery_overshoot_free_field_at_firer: bool = True
    artillery_fires_through_skirmishers: bool = True
    edge_visibility_only_unfought: bool = True
    flight_distance: int = 2
    sweep_own_troops: bool = True
    absorb_fleeing_base: bool = True
    demoralise_along_flight_path: bool = False
    infantry_fire_then_retreat: bool = True
    undefended_melee_attacker_wins: bool = True
    artillery_defends_with_guns: bool = True
    marker_stacking: str = "sum"
    dispersed_target_penalty: str = "all_unformed"
    general_may_share_field: bool = True
    target_priority: str = "warn"
    gegenzug_requires_weapon_range: bool = True
    pioneers_fire: bool = False
    small_arms_point_blank_bonus: int = 1

    def with_values(self, values: dict[str, Any], source: str = "options") -> Options:
        return replace(self, **checked_values(self, values, source, _RANGES, _CHOICES, "wiener"))



def load_options(path: str | Path | None = None) -> Options:
    """The defaults file, then the user's file on top (unknown keys and bad values are InputErrors)."""
    return load_layered(Options(), DEFAULTS_FILE, path)


DEFAULT = Options()
