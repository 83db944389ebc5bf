"""Rules options: each §11 ambiguity's alternative reading and each table cell the rulebook's OCR lost (§8.3 fire,
§8.4 charge, §8.8 pursuit, §9.4 capitals, §9.10 C values), defaults in `options.toml` next to this file.

A lost cell's default is the digest's best reading of it (A1: "do not guess"): **unknown**, written 0 for a fire
or pursuit target number and -9 for a charge modifier. An action that needs an unknown cell is refused with an
InputError naming the option to set; a result that used a cell the group filled in says so ("filled in").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from common.errors import InputError
from common.options import checked_values, load_layered, options_from

DEFAULTS_FILE = Path(__file__).with_name("options.toml")
UNKNOWN = 0
"""A fire or pursuit target number, a capital's PP or a C value the rulebook's OCR lost."""
UNKNOWN_MOD = -9
"""A charge-table modifier the OCR lost."""

_CHOICES = {
    "charge_tie": ("no_effect", "both_rout", "attacker_routs", "defender_routs"),
    "militia_restriction": ("build", "pursuit"),
}
_TARGETS = ("fire_inf_inf", "fire_inf_cav", "fire_inf_art", "fire_art_inf_1", "fire_art_inf_2", "fire_art_cav_1",
            "fire_art_cav_2", "fire_art_art_1", "fire_art_art_2")
_PURSUIT = ("pursuit_inf_inf", "pursuit_inf_cav", "pursuit_inf_art", "pursuit_inf_leader", "pursuit_cav_inf",
            "pursuit_cav_cav", "pursuit_cav_art", "pursuit_cav_leader")
_CHARGE = ("charge_cav_inf", "charge_cav_cav", "charge_cav_art", "charge_inf_inf", "charge_inf_cav",
           "charge_inf_art")
_CAPITALS = ("capital_pp_paris", "capital_pp_london", "capital_pp_berlin", "capital_pp_st_petersburg",
             "capital_pp_moscow", "capital_pp_constantinople", "capital_pp_vienna", "capital_pp_madrid")
_C = ("c_france", "c_britain", "c_prussia", "c_russia", "c_ottoman", "c_austria", "c_spain")
_RANGES = {**{k: (0, 13) for k in _TARGETS}, **{k: (0, 7) for k in _PURSUIT}, **{k: (-9, 6) for k in _CHARGE},
           **{k: (0, 20) for k in _CAPITALS}, **{k: (0, 12) for k in _C},
           "militia_square_fail_max": (0, 6), "stalemate_rounds": (1, 10), "c_test_losses": (1, 50),
           "heavy_cavalry_cost": (1, 30), "medium_game_rounds": (1, 60), "gb_land_units_per_production": (0, 20),
           "square_turn_deg": (1, 179)}

DIGEST_CELLS = {"fire_inf_inf": 9, "fire_inf_cav": 8, "fire_art_inf_1": 8, "fire_art_inf_2": 9, "charge_cav_inf": 2,
                "pursuit_inf_inf": 6, "pursuit_inf_leader": 6, "pursuit_cav_art": 3,
                "capital_pp_paris": 10, "capital_pp_london": 10, "capital_pp_berlin": 10,
                "capital_pp_st_petersburg": 2, "capital_pp_moscow": 2, "capital_pp_constantinople": 2,
                "capital_pp_madrid": 2}
"""The cells the digest recovers (§8.3, §8.4, §8.8 from the worked example E4; §9.4 capitals, low confidence A2):
a different value in an options file is a filled-in value too."""


@dataclass(frozen=True)
class Options:
    # §8.3 fire table [R-FIRE], 2d6 target numbers (A1; 0 = unknown)
    fire_inf_inf: int = 9
    fire_inf_cav: int = 8
    fire_inf_art: int = 0
    fire_art_inf_1: int = 8
    fire_art_inf_2: int = 9
    fire_art_cav_1: int = 0
    fire_art_cav_2: int = 0
    fire_art_art_1: int = 0
    fire_art_art_2: int = 0
    # §8.4 charge table [R-CHARGE], the attacker's modifier (A1; -9 = unknown)
    charge_cav_inf: int = 2
    charge_cav_cav: int = -9
    charge_cav_art: int = -9
    charge_inf_inf: int = -9
    charge_inf_cav: int = -9
    charge_inf_art: int = -9
    # §8.8 pursuit table [R-PURSUIT], 1d6 target numbers (A1; 0 = unknown)
    pursuit_inf_inf: int = 6
    pursuit_inf_cav: int = 0
    pursuit_inf_art: int = 0
    pursuit_inf_leader: int = 6
    pursuit_cav_inf: int = 0
    pursuit_cav_cav: int = 0
    pursuit_cav_art: int = 3
    pursuit_cav_leader: int = 0
    # §9.4 capital PP (A2, low confidence; 0 = unknown)
    capital_pp_paris: int = 10
    capital_pp_london: int = 10
    capital_pp_berlin: int = 10
    capital_pp_st_petersburg: int = 2
    capital_pp_moscow: int = 2
    capital_pp_constantinople: int = 2
    capital_pp_vienna: int = 0
    capital_pp_madrid: int = 2
    # §9.10 C values (scenario data; the position file's "c_values" wins; 0 = unknown)
    c_france: int = 0
    c_britain: int = 0
    c_prussia: int = 0
    c_russia: int = 0
    c_ottoman: int = 0
    c_austria: int = 0
    c_spain: int = 0
    # §11 ambiguities
    heavy_cavalry_cost: int = 14  # A3
    medium_game_rounds: int = 18  # A4
    protected_artillery_blocks_fire: bool = False  # A6
    charge_tie: str = "no_effect"  # A8
    militia_restriction: str = "build"  # A9
    militia_square_fail_max: int = 3  # A10
    heavy_irregular_mod_defending: bool = True  # A11
    defender_roll_kills_leader: bool = False  # A12
    rally_name_before_roll: bool = True  # A13
    c_test_requires_lost_battle: bool = False  # A14
    c_test_counts_leaders: bool = True  # A14
    c_test_losses: int = 6  # A14
    stalemate_rounds: int = 2  # A16
    enter_enemy_zone: bool = False  # A17
    zoc_sideways: bool = True  # A18
    pap_floor_zero: bool = True  # A21
    pursue_rout_zone: bool = True  # A22
    gb_land_units_per_production: int = 2  # §9.5
    # §13.1 the live table: an infantry figure on the battle board turned more than this many degrees from facing
    # the enemy is in square (§8.5: "turned sideways or backwards"; the digest suggests 45)
    square_turn_deg: int = 45

    def with_values(self, values: dict[str, Any], source: str = "options") -> Options:
        return replace(self, **checked_values(self, values, source, _RANGES, _CHOICES, "nie"))

    def cell(self, key: str, what: str) -> tuple[int, str | None]:
        """A table cell's value and a note when the group filled it in; InputError when it is unknown."""
        value = getattr(self, key)
        unknown = UNKNOWN_MOD if key.startswith("charge_") else UNKNOWN
        if value == unknown:
            raise InputError(f"{what}: the rulebook's table cell is lost (digest A1/A2); set {key} in your "
                             "options file (--options FILE, see rules/nie/options.toml)")
        if DIGEST_CELLS.get(key) == value:
            return value, None
        return value, f"{key} = {value} filled in from the options (not in the digest)"


def load_options(path: str | Path | None = None) -> Options:
    """The defaults file, then the user's file on top (unknown keys and bad values are InputErrors)."""
    return load_layered(Options(), DEFAULTS_FILE, path)


def get_options(options=None) -> Options:
    """Options from a path, a record's values, an Options or None (common/options.py `options_from`)."""
    return options_from(options, Options, load_options)


DEFAULT = Options()
