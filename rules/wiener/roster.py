"""Roster words -> Wiener Napoleon troop types: the one map, used by the live dashboard, the recorder and the replay.

A roster's `type` is free text ("Hussars", "light cavalry", "guns"); the engine knows only the §2.1 troop types
(`rules.wiener.model.TYPES`). `piece_type` reads a troop type itself (any case, spaces for underscores) or one of
the words below; anything else is None (the dashboard asks for the type, the recorder stops with one line).

What the digest (shared/rules/wiener-napoleon-2022.md §2.1) settles:

* the troop types are an exhaustive list: infantry, light cavalry, heavy cavalry (cuirassiers), artillery (horse
  artillery only as an exception), pioneers, generals (staffs);
* heavy cavalry is the cavalry *with a cuirass* (the rulebook: "nur leichte Kavallerie und schwere Kavallerie, diese
  mit Kürass"), so every other mounted troop is light cavalry: hussars, dragoons;
* lancers (Ulanen) count as light cavalry (their first charge as heavy cavalry is the piece's `lancer` flag, §8.7);
* a generic "cavalry" is read as light cavalry, the kind that may also dismount.
"""

from __future__ import annotations

from rules.wiener.model import TYPES

ROSTER_WORDS: dict[str, str] = {
    "cavalry": "light_cavalry",
    "hussars": "light_cavalry",
    "lancers": "light_cavalry",
    "uhlans": "light_cavalry",
    "dragoons": "light_cavalry",  # no cuirass: light cavalry by §2.1 (heavy cavalry = cuirassiers)
    "cuirassiers": "heavy_cavalry",
    "guns": "artillery",
    "battery": "artillery",
    "pioneer": "pioneers",
    "engineers": "pioneers",
    "commander": "general",
    "staff": "general",
}


def piece_type(roster_type: str) -> str | None:
    """A roster type as a Wiener Napoleon troop type (`rules.wiener.model.TYPES`), or None when it names none."""
    t = " ".join(str(roster_type).split()).lower()
    t = ROSTER_WORDS.get(t, t.replace(" ", "_"))
    return t if t in TYPES else None


__all__ = ["ROSTER_WORDS", "piece_type"]
