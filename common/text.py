"""Text shown to people, kept to a size a line, a label or a list row can hold."""

from __future__ import annotations

# The most of a note (or any free text from a record) a one-line summary shows; the record and its JSON Lines
# export keep it whole. Qt lays out a long unbroken text at a cost that grows faster than its length: a 30 KB note
# took 1.5 GB in the replay viewer.
MAX_SHOWN = 2000
MAX_LABEL = 300  # on the board and in the caption


def shorten(text: object, limit: int = MAX_SHOWN) -> str:
    """`text` as a string of at most about `limit` characters, saying how much was left out."""
    s = str(text)
    if len(s) <= limit:
        return s
    return f"{s[:limit]}… ({len(s) - limit} more characters)"


def name_list(names, most: int = 12) -> str:
    """Names for an error line that says what would be valid: 'a, b, c' (at most `most`, then how many more)."""
    names = [str(n) for n in names]
    shown = ", ".join(names[:most])
    return shown + (f", … ({len(names) - most} more)" if len(names) > most else "") if names else "none"


def nearest_name(name: object, names) -> str | None:
    """The valid name closest to a mistyped one (difflib), None when none is close."""
    import difflib  # noqa: PLC0415  (only on an error's path)

    hits = difflib.get_close_matches(str(name), [str(n) for n in names], n=1, cutoff=0.6)
    return hits[0] if hits else None
