"""The game record: one SQLite file per game (`.fgr`), its events, and the replay model over it.

    from fieldglass.record import Record, Replay
    rec = Record.open("game.fgr")
    replay = Replay(rec)
    replay.position_at(10)          # the state after the first 10 (clean) events
    replay.markers()                # turns, combats, bookmarks for the timeline
"""

from fieldglass.record.replay import Replay, TimelineMarker, combat_label
from fieldglass.record.state import EVENT_TYPES, BoardState, PieceState
from fieldglass.record.store import FORMAT, SCHEMA_VERSION, Event, Record, RecordError, salvage, write_v1_record

__all__ = [
    "EVENT_TYPES",
    "FORMAT",
    "SCHEMA_VERSION",
    "BoardState",
    "Event",
    "PieceState",
    "Record",
    "RecordError",
    "Replay",
    "TimelineMarker",
    "combat_label",
    "salvage",
    "write_v1_record",
]
