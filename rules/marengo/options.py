"""Rules options: each §11 ambiguity's alternative reading, defaults in `options.toml` next to this file."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from fieldglass.errors import InputError

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
        known = {f.name for f in fields(self)}
        checked = {}
        for key, value in values.items():
            if key not in known:
                raise InputError(f"{source}: unknown option {key!r} (see rules/marengo/options.toml)")
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
