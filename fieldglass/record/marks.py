"""What a record's events leave on the board, in the drawing language (rules/picture.py): a move as an arrow from
where the piece stood to where it went, a combat as a line from the attacker to its target (fire yellow, melee and
every other action red) with its action and result named beside it. The PNG and MP4 exports and the HTML replay
and spectator pages draw these over the system's picture of the moment, so they agree on what happened where."""

from __future__ import annotations

import math
from collections.abc import Iterable

from fieldglass.record.state import BoardState
from fieldglass.record.store import Event
from rules.picture import NOTE_PRIORITY, Dot, Item, Label, Line

ARROW_HEAD_MM = 12.0


def _arrow(a: tuple[float, float], b: tuple[float, float], head_mm: float = ARROW_HEAD_MM):
    """A shaft from a to b and the two halves of its head at b (table mm)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy) or 1.0
    ux, uy = dx / n, dy / n
    h = min(head_mm, n / 2)
    left = (b[0] - ux * h - uy * h * 0.6, b[1] - uy * h + ux * h * 0.6)
    right = (b[0] - ux * h + uy * h * 0.6, b[1] - uy * h - ux * h * 0.6)
    return (a, b), (left, b, right)


def _at(state: BoardState, pid: str | None) -> tuple[float, float] | None:
    p = state.pieces.get(pid) if pid else None
    return None if p is None or p.x_mm is None else (float(p.x_mm), float(p.y_mm))


def event_items(events: Iterable[Event], before: BoardState, name=None) -> list[Item]:
    """The marks of `events` (a turn's, or the one event just played) with the pieces where `before` has them;
    `name(piece, event)` what the viewer may call a piece (a hidden block's anonymous name), default its id."""
    out: list[Item] = []
    for e in events:
        d = e.data
        call = (lambda pid, e=e: pid) if name is None else (lambda pid, e=e: name(pid, e))
        if e.type == "move":
            a, b = d.get("from") or {}, d.get("to") or {}
            if "x_mm" in a and "x_mm" in b:
                src, dst = (float(a["x_mm"]), float(a["y_mm"])), (float(b["x_mm"]), float(b["y_mm"]))
                out.append(Line("event-move", _arrow(src, dst), "pending", "dash", 2.0,
                                tip=f"{call(e.piece)}: {a.get('cell') or ''} -> {b.get('cell') or ''}".strip(),
                                layer=7.4,
                                data=(e.seq,)))
        elif e.type == "combat":
            pieces = d.get("pieces") or []
            if len(pieces) < 2:
                continue
            src, dst = _at(before, pieces[0]), _at(before, pieces[1])
            if src is None or dst is None:
                continue
            action = str(d.get("action") or "combat")
            tone = "fire" if action == "fire" else "melee"
            won = f": {d['winner']} wins" if d.get("winner") else ""
            text = f"{action} {call(pieces[0])} → {call(pieces[1])}{won}"
            out += [Line(f"event-{tone}", _arrow(src, dst, 16.0), tone, "solid", 3.0, tip=text, layer=7.5,
                         data=(e.seq, action)),
                    Dot(f"event-{tone}-target", dst, tone, 5.0, tip=text, layer=7.6),
                    Label(f"event-{tone}-label", ((src[0] + dst[0]) / 2, (src[1] + dst[1]) / 2), text, tone, 7.0,
                          True, tip=text, layer=9, priority=NOTE_PRIORITY + 5, align="centre",
                          short=f"{action}{won}")]
    return out
