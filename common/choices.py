"""System-specific choices given on the command line as `--choice KEY=VALUE` (repeatable).

Here, below the rules engines, so that `rules/<system>/commands.py` can read them without importing the CLI wiring
(fieldglass/) above it.
"""

from __future__ import annotations

from common.errors import InputError


def choices(args) -> dict[str, str]:
    """The --choice KEY=VALUE arguments (`args.choice`, a list of str or None) as a dict, keys and values stripped;
    a malformed one is a one-line InputError."""
    out = {}
    for item in getattr(args, "choice", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--choice {item!r}: expected KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def split_ids(text: str | None) -> list[str]:
    """"a, b,c" -> ["a", "b", "c"]: the pieces (or areas) a comma-separated option names, blanks left out."""
    return [t.strip() for t in (text or "").split(",") if t.strip()]
