"""Rules options: each §11 ambiguity's alternative reading, defaults in `options.toml` next to this file."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from fieldglass.errors import InputError

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
        known = {f.name: f for f in fields(self)}
        checked = {}
        for key, value in values.items():
            if key not in known:
                raise InputError(f"{source}: unknown option {key!r} (see rules/wiener/options.toml)")
            default = getattr(self, key)
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise InputError(f"{source}: option {key} must be true or false, not {value!r}")
            elif isinstance(default, int):
                lo, hi = _RANGES[key]
                if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                    raise InputError(f"{source}: option {key} must be a whole number {lo}..{hi}, not {value!r}")
            elif value not in _CHOICES[key]:
                raise InputError(f"{source}: option {key} must be one of {' '.join(_CHOICES[key])}, not {value!r}")
            checked[key] = value
        return replace(self, **checked)


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the options file ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not TOML ({exc})") from None


def load_options(path: str | Path | None = None) -> Options:
    """The defaults file, then the user's file on top (unknown keys and bad values are InputErrors)."""
    opts = Options().with_values(_read(DEFAULTS_FILE), str(DEFAULTS_FILE))
    if path is not None:
        opts = opts.with_values(_read(Path(path)), str(path))
    return opts


DEFAULT = Options()
