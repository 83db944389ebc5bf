"""Rules options: each §11 ambiguity or OCR-damaged value of the Coalitions digest as an option, the digest's best
reading the default (`options.toml` next to this file); a group's own file (`--options FILE`) goes on top.

Decided without an option (documented in README.md): A4 (the status-change restriction without the Capital is missing
from the text: nothing is restricted, the result says so), A5 (the damaged 1809 set-up is entered by the players),
A7 (Minors cannot win), A13 (the winning attacker loses its Troop first, then may garrison), A15 (after Kutuzov
withdraws the battle goes on against who is left), A18/A24/A25 (readings of the text), A22 (the listed cards),
A27 (the dial order is the position's `dial`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from common.errors import InputError
from common.options import checked_values, load_layered, options_from

DEFAULTS_FILE = Path(__file__).with_name("options.toml")

_CHOICES = {
    "card2_control": ("power", "side"),
    "card4_pairs": ("pile", "side"),
    "card5_penalty": ("per_card", "per_five"),
    "nearest_sea": ("british", "never", "always"),
    "expelled_may_join": ("neutral_or_expansionist", "any"),
    "napoleon_uncoloured": ("ip_only", "attack"),
}
_RANGES = {"morale_max": (13, 15), "france_morale_1805": (0, 15), "paris_bonus": (0, 20),
           "paris_bonus_british": (0, 20), "card2_bonus": (0, 9), "blucher_max_loss": (1, 3),
           "spain_influence": (0, 25)}


@dataclass(frozen=True)
class Options:
    morale_max: int = 15  # A1: "13" is an OCR 5->3 error
    france_morale_1805: int = 11  # A2: OCR "1", a two-digit value; verify against a printed copy
    paris_bonus: int = 6  # §9.1
    paris_bonus_british: int = 9  # A3: OCR "+g"
    paris_bonus_every_power: bool = True  # A3: every non-French Power with a General in Paris gets it
    expelled_may_join: str = "neutral_or_expansionist"  # A6
    strategic_through_enemy_general: bool = False  # A9: a friendly Territory with an enemy General blocks
    card2_bonus: int = 3  # A10: on top of the face value 2
    card2_control: str = "power"  # A10: the card player's Power controls the Territory (else its side)
    card5_penalty: str = "per_card"  # A11: 1 Morale per card played (else per "5" card)
    card4_pairs: str = "pile"  # A12: pairs within one General's pile
    blucher_max_loss: int = 2  # A14: the universal -1 included
    capital_blocked_by_any_general: bool = True  # A16: any General of the Power in the Capital sends it off-map
    nearest_sea: str = "british"  # A17: sea routes count for "nearest" only for British-Coalition Powers
    nearest_through_enemy: bool = True  # A17: the path to the nearest Territory may cross enemy Territory
    napoleon_uncoloured: str = "ip_only"  # A19: uncoloured Territories of a Napoleon card only give IP
    lempereur_garrisons_count: bool = True  # A20
    spain_influence: int = 11  # §5.4: the 1792 Spain ban ends when a Power has this much Influence

    def with_values(self, values: dict[str, Any], source: str = "options") -> Options:
        return replace(self, **checked_values(self, values, source, _RANGES, _CHOICES, "coalitions"))


def load_options(path: str | Path | None = None) -> Options:
    """The defaults file, then the user's file on top (unknown keys and bad values are InputErrors)."""
    return load_layered(Options(), DEFAULTS_FILE, path)


def get_options(options=None) -> Options:
    """Options from a path, a record's values, an Options or None (common/options.py `options_from`)."""
    return options_from(options, Options, load_options)


def check(opts: Any) -> Options:
    if not isinstance(opts, Options):
        raise InputError("options: a Coalitions Options")
    return opts


DEFAULT = Options()
