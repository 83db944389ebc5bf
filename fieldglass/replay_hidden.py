"""Hidden blocks in a replay (Qt-free): the record stores every identity, the replay shows them only where the rules
revealed them, or everywhere from the moment the game ended on (rules/marengo/hidden.py's player view).

Revealed blocks are read from the record's combat events (a change `{"piece": ID, "revealed": true}` reveals it, a
later `false` hides it again, as the Marengo engine reports them); the game has ended when the record's metadata
says `game_over` or an event carries `game_winner`. `viewer` is "public" (both sides hidden: a replay shown to
anyone), a side ("AU", "FR": that side's own blocks in full) or "umpire" (everything, for the record's owner).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

PUBLIC = "public"


def revealed_at(events: Iterable) -> set[str]:
    """The blocks revealed after these events (undone events do not count)."""
    out: set[str] = set()
    for ev in events:
        if getattr(ev, "undone", False):
            continue
        for ch in (ev.data or {}).get("changes", []) or []:
            if "revealed" in ch and ch.get("piece"):
                (out.add if ch["revealed"] else out.discard)(ch["piece"])
        if (ev.data or {}).get("revealed") is not None and ev.piece:
            (out.add if ev.data["revealed"] else out.discard)(ev.piece)
    return out


def game_over(meta: Mapping, events: Iterable) -> bool:
    """Whether the game had ended by the moment after `events` (the timeline up to the moment shown): one of them
    carries `game_winner` (the recorder writes it on the event that ended the game, fieldglass/recording_marengo.py)
    or the metadata says `game_over`; with `game_over_seq` too, only from that event on."""
    done = [ev for ev in events if not getattr(ev, "undone", False)]
    if any((ev.data or {}).get("game_winner") for ev in done):
        return True
    if not meta.get("game_over"):
        return False
    at = meta.get("game_over_seq")
    return at is None or any(ev.seq >= int(at) for ev in done)


def hide(views: list, viewer: str, revealed: set[str], over: bool) -> tuple[list, dict[str, str]]:
    """PieceViews with the hidden blocks anonymised ("FR block 2", type unknown); and label -> block id."""
    if viewer == "umpire" or over:
        return views, {}
    out, aliases, n = [], {}, {}
    # numbered by where they stand (south to north, west to east), never by anything that hints at identity
    for v in sorted(views, key=lambda v: (v.piece.side, round(v.pose.y_mm) if v.pose else 0,
                                          round(v.pose.x_mm) if v.pose else 0, v.piece.id)):
        p = v.piece
        if p.side == viewer or p.id in revealed:
            out.append(v)
            continue
        n[p.side] = n.get(p.side, 0) + 1
        label = f"{p.side} block {n[p.side]}"
        aliases[label] = p.id
        out.append(replace(v, piece=replace(p, id=label, type="block"), type=None, state={}, label=label, hidden=True))
    return out, aliases


__all__ = ["PUBLIC", "game_over", "hide", "revealed_at"]
