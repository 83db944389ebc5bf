"""Hidden blocks in a replay (Qt-free): the record stores every identity, the replay shows them only where the rules
revealed them, or everywhere from the moment the game ended on, under the anonymous labels of the live dashboard and
`fieldglass view` (rules/marengo/hidden.py `position_views`).

Revealed blocks are read from the record's combat events (a change `{"piece": ID, "revealed": true}` reveals it, a
later `false` hides it again, as the Marengo engine reports them); the game has ended when the record's metadata
says `game_over` or an event carries `game_winner`. `viewer` is "public" (both sides hidden: a replay shown to
anyone), a side (that side's own blocks in full) or "umpire" (everything, for the record's owner).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from rules.marengo.hidden import PUBLIC, UnitState, place_order, position_views
from rules.system import UMPIRE


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


def hide(views: list, viewer: str, revealed: set[str], over: bool, pos=None, board=None
         ) -> tuple[list, dict[str, str]]:
    """PieceViews with the hidden blocks anonymised ("FR block 2", type unknown); and label -> block id.

    The labels are the live dashboard's (rules/marengo/hidden.py `position_views`): over the blocks of the replay's
    position `pos` and those on the table but left out of it (on a border: located on `board`), numbered by side and
    where they stand; a record that keeps no board (`board` None) numbers them by where they stand on the table
    (south to north, west to east), never by anything that hints at identity."""
    if viewer == UMPIRE or over:
        return views, {}
    placed = pos.blocks_by_id if pos is not None else {}
    others = []
    for v in views:
        if v.piece.id in placed:
            continue
        pl = board.locate(v.pose.x_mm, v.pose.y_mm) if board is not None and v.pose is not None else None
        others.append(UnitState(v.piece.id, v.piece.side, v.type or "", 0, -1, pl.area if pl else None,
                                pl.position if pl else None))
    order = place_order
    if board is None:
        at = {v.piece.id: (round(v.pose.y_mm), round(v.pose.x_mm)) if v.pose else (0, 0) for v in views}

        def order(u):
            return (u.side, *at.get(u.unit, (0, 0)), u.unit)

    blocks = position_views(pos, viewer, others, revealed, over, order)
    out, aliases = [], {}
    for v in views:
        bv = blocks.get(v.piece.id)
        if bv is None or not bv.hidden:
            out.append(v)
            continue
        aliases[bv.label] = v.piece.id
        out.append(replace(v, piece=replace(v.piece, id=bv.label, type="block"), type=None, state={}, label=bv.label,
                           hidden=True))
    return out, aliases


__all__ = ["PUBLIC", "game_over", "hide", "revealed_at"]
