"""Game time as the replay shows it, for the record's model (fieldglass/) and the viewer (gui/) alike."""

from __future__ import annotations


def clock(t: float) -> str:
    """Game time `t` (seconds since the record started; negative counts as 0) as m:ss.s."""
    m, s = divmod(max(0.0, float(t)), 60.0)
    return f"{int(m)}:{s:04.1f}"
