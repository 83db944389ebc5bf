"""Rules options: each §11 ambiguity's alternative reading, defaults in `options.toml` next to this file."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from common.options import checked_values, load_layered

DEFAULTS_FILE = Path(__file__).with_name("options.toml")

_CHOICES = {
    "extra_pip_costs": ("plus_one", "none"),
    "victory_rule": ("and", "or"),
    "results_going_of": ("loser", "winner"),
    "tribal_gg_applies_to": ("cuirassiers", "both"),
    "tribal_bua_exemption_of": ("loser", "winner"),
    "move_distances": ("table", "text"),
    "fire_zone_target": ("partly", "wholly"),
    "crest_blocks": ("always", "never"),
    "mounted_target_bonus_to": ("shooter", "target"),
    "fire_exchange": ("one", "two"),
    "rain_affects": ("bows", "all"),
    "contact_turns": ("contacted", "mover"),
    "skirmisher_second_move": ("game", "every"),
    "skirmish_fire_factor": ("becomes_2", "plus_2"),
    "light_foot": ("pl_jae_hi_dr", "with_gu"),
    "littoral_landing": ("either", "attacker"),
    "first_bound": ("attacker", "defender"),
    "river_bank_touch": ("corners", "edge"),
    "zoc_extent": ("front", "widened"),
}
_RANGES = {
    "tolerance_mm": (0.0, 20.0),
    "general_cf": (0, 4),
    "rain_range_bb": (0, 10),
    "fog_fire_modifier": (-6, 0),
    "clansmen_pips_to_shoot": (0, 6),
    "flee_max_swerve_deg": (0, 90),
}


@dataclass(frozen=True)
class Options:
    tolerance_mm: float = 1.5
    extra_pip_costs: str = "plus_one"
    extra_pips_open_terrain_only: bool = False
    victory_rule: str = "and"
    general_counts_as_lost: bool = True
    camp_counts_in_standard_game: bool = False
    results_going_of: str = "loser"
    tribal_gg_applies_to: str = "cuirassiers"
    tribal_bua_exemption_of: str = "loser"
    general_cf: int = 0
    move_distances: str = "table"
    fire_zone_target: str = "partly"
    crest_blocks: str = "always"
    troops_block_unless_elevated: bool = True
    mounted_target_bonus_to: str = "shooter"
    fire_exchange: str = "one"
    rain_range_bb: int = 1
    rain_affects: str = "bows"
    fog_fire_modifier: int = -1
    contact_turns: str = "contacted"
    overlap_while_engaged: bool = True
    unform_square_within_move: bool = True
    partly_outside_shoots_normally: bool = True
    skirmisher_second_move: str = "game"
    skirmish_fire_factor: str = "becomes_2"
    light_foot: str = "pl_jae_hi_dr"
    english_mounted_impetuous: bool = True
    littoral_landing: str = "either"
    first_bound: str = "attacker"
    river_bank_touch: str = "corners"
    zoc_extent: str = "front"
    clansmen_pips_to_shoot: int = 1
    flee_max_swerve_deg: int = 45

    def with_values(self, values: dict[str, Any], source: str = "options") -> Options:
        return replace(self, **checked_values(self, values, source, _RANGES, _CHOICES, "dbx"))



def load_options(path: str | Path | None = None) -> Options:
    """The defaults file, then the user's file on top (unknown keys and bad values are InputErrors)."""
    return load_layered(Options(), DEFAULTS_FILE, path)


DEFAULT = Options()
