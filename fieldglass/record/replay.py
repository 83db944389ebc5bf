"""The replay model: what the replay viewer (in the dashboard) and the exports ask of a record.

No drawing and no Qt: the events up to a moment, the position at any event (from the nearest snapshot and the
events after it), and the timeline's markers for turns, combats and bookmarks.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from fieldglass.record.state import BoardState
from fieldglass.record.store import Event, Record


@dataclass(frozen=True)
class TimelineMarker:
    kind: str  # turn | phase | combat | bookmark | note
    t: float
    seq: int
    index: int  # position in the replay's event list (the position *after* it is position_at(index + 1))
    label: str


class Replay:
    """A record seen as a timeline. `events` is the clean view (undone events left out) unless asked otherwise."""

    def __init__(self, record: Record, include_undone: bool = False):
        self.record = record
        self.events: list[Event] = record.events(clean=not include_undone)
        self._clean = [e for e in self.events if not e.undone]
        self._times = [e.t for e in self.events]
        self._cache: dict[int, BoardState] = {}

    def __len__(self) -> int:
        return len(self.events)

    @property
    def duration(self) -> float:
        return self._times[-1] if self._times else 0.0

    def index_at(self, t: float) -> int:
        """How many events happened at or before time t."""
        return bisect.bisect_right(self._times, t)

    def events_until(self, t: float) -> list[Event]:
        return self.events[: self.index_at(t)]

    def position_at(self, k: int) -> BoardState:
        """The clean state after the first `k` events of `self.events` (k = 0: before any)."""
        k = max(0, min(int(k), len(self.events)))
        if k in self._cache:
            return self._cache[k].copy()
        upto = self.events[k - 1].seq if k else 0
        state = self.record.snapshot_before(upto) if upto else None
        if state is None:
            state = self.record.initial_state()
        for ev in self._clean:
            if ev.seq > upto:
                break
            if ev.seq > state.seq:
                state.apply(ev)
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[k] = state
        return state.copy()

    def position_at_time(self, t: float) -> BoardState:
        return self.position_at(self.index_at(t))

    def markers(self) -> list[TimelineMarker]:
        """Turns, phases, combats, bookmarks and notes on the timeline, in order."""
        out = []
        for i, e in enumerate(self.events):
            if e.undone:
                continue
            if e.type == "turn":
                label = f"turn {e.data.get('turn', e.turn)}"
            elif e.type == "phase":
                label = f"{e.data.get('phase')}"
            elif e.type == "combat":
                label = combat_label(e)
            elif e.type == "bookmark":
                label = str(e.data.get("label", "bookmark"))
            elif e.type == "note":
                label = str(e.data.get("text", ""))[:60]
            else:
                continue
            out.append(TimelineMarker(e.type, e.t, e.seq, i, label))
        return out

    def turn_starts(self) -> dict[int, int]:
        """Turn number -> index of its turn event."""
        return {int(e.data.get("turn", e.turn)): i for i, e in enumerate(self.events)
                if e.type == "turn" and not e.undone}

    def turns(self) -> list[int]:
        return sorted({e.turn for e in self._clean} | set(self.turn_starts()))

    def thumbnail_for(self, seq: int, kind: str | None = None) -> bytes | None:
        """The event's picture of the table (`kind` None), or of that kind ("dice": the throw the camera read). An
        event a redo wrote again (`redo_of`) has the picture of the event it redoes: a picture is kept once."""
        pictures = {s: jpeg for s, k, jpeg in self.record.thumbnails()
                    if (k == kind if kind is not None else k != "dice")}
        by_seq = {e.seq: e for e in self.record.events()}  # the undone too: a redo of a redo names one
        seen: set[int] = set()
        while seq not in pictures:
            seen.add(seq)
            e = by_seq.get(seq)
            seq = e.data.get("redo_of") if e is not None else None
            if not isinstance(seq, int) or seq in seen:
                return None
        return pictures[seq]


def dice_read_text(d: dict) -> str:
    """What the camera read of a combat's dice: "camera read 5, 3, taken", or "camera read 5, 3, typed over as
    5, 4"; "" when no throw was read for it."""
    read = d.get("dice_read")
    if not isinstance(read, dict) or not isinstance(read.get("values"), list):
        return ""
    seen = ", ".join("?" if v is None else str(v) for v in read["values"])
    if read.get("taken", True):
        return f"camera read {seen}, taken"
    used = d.get("dice") or []
    return f"camera read {seen}, typed over" + (f" as {', '.join(map(str, used))}" if used else "")


def combat_label(e: Event) -> str:
    d = e.data
    pieces = d.get("pieces") or []
    who = " vs ".join(pieces) if pieces else ""
    return f"{d.get('action', 'combat')} {who}: {d.get('winner') or '-'} ({d.get('effect', 'none')})".strip()
