"""The game state a record's events build up: where every piece stands, its bases and markers, turn and phase.

`BoardState.apply(event)` is the one place that says what each event type does to the state; the record keeps
a snapshot of it every N events and the replay rebuilds any moment from the nearest snapshot before it.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field

EVENT_TYPES = (
    "move",  # a piece moved: data from/to places (x_mm, y_mm, heading_deg, cell, facing), turned_deg
    "appeared",  # a piece came onto the table (first seen, or back): data to
    "missing",  # a piece unseen too long, waiting for a player: data at, last_seen_t
    "removed",  # a piece taken off: data at, by (who confirmed: a player, or "rules" after a combat)
    "kept",  # a player confirmed a missing piece is still there: data at, by
    "combat",  # a rules engine resolution: action, pieces, dice, modifiers, winner, effect, changes
    "marker",  # a marker put on or taken off a piece: data markers
    "formation",  # a piece changed formation: data formation
    "piece_state",  # what the camera cannot see of a piece, set by a player (its unit type, nation...): data key, value
    "turn",  # a new turn: data turn (and phase)
    "phase",  # a new phase: data phase
    "note",  # a player's note: data text, by
    "bookmark",  # a bookmark: data label
    "end",  # the game ended: data winner (None: a draw), by_rules, victory, text, by
    "surface",  # another surface of the table (a battle board) found or moved: data surface, rotation_deg, x_mm, y_mm
)


@dataclass
class PieceState:
    id: str
    side: str = ""
    type: str = ""
    status: str = "unplaced"  # unplaced | on | missing | removed
    x_mm: float | None = None
    y_mm: float | None = None
    heading_deg: float | None = None
    cell: str | None = None
    facing: str | None = None
    bases: int = 1
    markers: list[str] = field(default_factory=list)
    formation: str | None = None

    @property
    def on_table(self) -> bool:
        return self.status in ("on", "missing") and self.x_mm is not None

    def place(self) -> dict:
        return {"x_mm": self.x_mm, "y_mm": self.y_mm, "heading_deg": self.heading_deg, "cell": self.cell,
                "facing": self.facing}

    def set_place(self, p: dict) -> None:
        self.x_mm, self.y_mm = float(p["x_mm"]), float(p["y_mm"])
        self.heading_deg = float(p.get("heading_deg", 0.0))
        self.cell, self.facing = p.get("cell"), p.get("facing")


@dataclass
class BoardState:
    """The state after the events up to `seq` (0 = before the first)."""

    pieces: dict[str, PieceState]
    turn: int = 0
    phase: str | None = None
    seq: int = 0

    @classmethod
    def initial(cls, roster: list[dict]) -> BoardState:
        """Every roster piece unplaced; `roster` as stored in a record's metadata (`bases`: a piece's bases or a
        unit's strength at the start, where its system's `record_meta` keeps them)."""
        return cls({p["id"]: PieceState(p["id"], p.get("side", ""), p.get("type", ""), bases=int(p.get("bases", 1)))
                    for p in roster})

    def copy(self) -> BoardState:
        return copy.deepcopy(self)

    def piece(self, pid: str) -> PieceState:
        if pid not in self.pieces:
            self.pieces[pid] = PieceState(pid)
        return self.pieces[pid]

    def apply(self, ev) -> None:
        """Apply one event (anything with .seq, .type, .piece, .data, .turn, .phase); undone events are skipped."""
        if getattr(ev, "undone", False):
            return
        d = ev.data or {}
        kind = ev.type
        if kind == "turn":
            self.turn = int(d.get("turn", self.turn + 1))
            self.phase = d.get("phase")
        elif kind == "phase":
            self.phase = d.get("phase")
        elif kind in ("move", "appeared") and ev.piece:
            p = self.piece(ev.piece)
            p.set_place(d["to"])
            p.status = "on"
        elif kind == "missing" and ev.piece:
            self.piece(ev.piece).status = "missing"
        elif kind == "kept" and ev.piece:
            p = self.piece(ev.piece)
            if p.status == "missing":
                p.status = "on"
        elif kind == "removed" and ev.piece:
            self.piece(ev.piece).status = "removed"
        elif kind == "marker" and ev.piece:
            self.piece(ev.piece).markers = list(d.get("markers", []))
        elif kind == "formation" and ev.piece:
            self.piece(ev.piece).formation = d.get("formation")
        elif kind == "combat":
            for ch in d.get("changes", []):
                self._change(ch)
        self.seq = ev.seq

    def _change(self, ch: dict) -> None:
        """One entry of a rules engine resolution's `changes`."""
        pid = ch.get("piece")
        if not pid:
            return
        p = self.piece(pid)
        if ch.get("removed"):
            p.status = "removed"
            return
        if "bases" in ch:
            p.bases = int(ch["bases"])
        if "marker" in ch:
            m = ch["marker"]
            p.markers = [] if m in (None, "none") else ([m] if isinstance(m, str) else list(m))
        if "formation" in ch:
            p.formation = ch["formation"]
        if "facing" in ch:
            p.facing = ch["facing"]
        if "field" in ch:
            p.cell = ch["field"]

    def on_table(self) -> list[PieceState]:
        return [p for p in self.pieces.values() if p.on_table]

    def to_json(self) -> dict:
        return {"turn": self.turn, "phase": self.phase, "seq": self.seq,
                "pieces": [asdict(p) for p in self.pieces.values()]}

    @classmethod
    def from_json(cls, d: dict) -> BoardState:
        pieces = {p["id"]: PieceState(**p) for p in d.get("pieces", [])}
        return cls(pieces, int(d.get("turn", 0)), d.get("phase"), int(d.get("seq", 0)))
