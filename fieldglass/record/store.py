"""The game record file (`.fgr`): one SQLite database per game.

Tables (schema version 2, kept in ``PRAGMA user_version``):

* ``meta(key, value)``   JSON values: format = "fieldglass-record", system, rules_options, layout, roster,
  calibration, start_time, players, snapshot_every, progress (last frame read, for --resume).
* ``events(seq, type, t, wall, turn, phase, frame, piece, data, undone)``   the ordered events; `t` is seconds of
  game time (frame timestamps), `wall` the computer's clock, `data` a JSON object, `undone` 1 when taken back.
* ``snapshots(seq, state)``   the full clean state (`BoardState` JSON) after event `seq`, every N events.
* ``thumbnails(id, seq, kind, jpeg)``   small JPEGs of the table at each turn and each combat.

WAL journal with synchronous=FULL and one transaction per event (the event, its snapshot and its thumbnail
together): a process killed at any moment loses at most the event it was writing. Older files are migrated
forward when opened; a file that is not a record, or is damaged, raises `RecordError` with one line, and a
damaged record still yields the events that can be read (`Record.problems` says what could not).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from common.errors import InputError
from fieldglass.record.state import EVENT_TYPES, BoardState

FORMAT = "fieldglass-record"
SCHEMA_VERSION = 2
SNAPSHOT_EVERY = 25

SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    type TEXT NOT NULL,
    t REAL NOT NULL,
    wall REAL,
    turn INTEGER NOT NULL DEFAULT 0,
    phase TEXT,
    frame INTEGER,
    piece TEXT,
    data TEXT NOT NULL DEFAULT '{}',
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS snapshots (seq INTEGER PRIMARY KEY, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS thumbnails (
    id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, kind TEXT NOT NULL, jpeg BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS thumbnails_seq ON thumbnails(seq);
"""

# Version 1 (the first release) had no phases, no undo, no snapshots or thumbnails, and kept the piece inside
# the event's data. Kept here as the reference for the migration and its test.
SCHEMA_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY, type TEXT NOT NULL, t REAL NOT NULL, turn INTEGER NOT NULL DEFAULT 0,
    frame INTEGER, data TEXT NOT NULL DEFAULT '{}'
);
"""


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE events ADD COLUMN wall REAL")
    conn.execute("ALTER TABLE events ADD COLUMN phase TEXT")
    conn.execute("ALTER TABLE events ADD COLUMN piece TEXT")
    conn.execute("ALTER TABLE events ADD COLUMN undone INTEGER NOT NULL DEFAULT 0")
    conn.execute("UPDATE events SET piece = json_extract(data, '$.piece') WHERE json_valid(data)")
    conn.execute("UPDATE events SET data = json_remove(data, '$.piece') WHERE json_valid(data)")
    _create_tables(conn)  # snapshots and thumbnails; the others exist


def _create_tables(conn: sqlite3.Connection) -> None:
    for stmt in SCHEMA_V2.split(";"):
        if stmt.strip():
            conn.execute(stmt)


MIGRATIONS = {1: _migrate_1_to_2}  # from version -> function bringing it to version + 1


class RecordError(InputError):
    """A file that is not a game record, is from a newer Fieldglass, or is damaged beyond reading."""


@dataclass(frozen=True)
class Event:
    seq: int
    type: str
    t: float
    turn: int
    phase: str | None
    frame: int | None
    piece: str | None
    data: dict
    undone: bool = False
    wall: float | None = None

    def to_json(self) -> dict:
        out = {"seq": self.seq, "type": self.type, "t": round(self.t, 3), "turn": self.turn, "phase": self.phase,
               "frame": self.frame, "undone": self.undone}
        if self.piece is not None:
            out["piece"] = self.piece
        out.update(self.data)
        return out


_COLUMNS = "seq, type, t, turn, phase, frame, piece, data, undone, wall"


def _row_event(row) -> Event:
    seq, kind, t, turn, phase, frame, piece, data, undone, wall = row
    try:
        d = json.loads(data) if data else {}
    except (TypeError, json.JSONDecodeError):
        d = {"unreadable": str(data)[:80]}
    return Event(int(seq), str(kind), float(t), int(turn or 0), phase, None if frame is None else int(frame), piece,
                 d if isinstance(d, dict) else {"value": d}, bool(undone), wall)


class Record:
    """An open game record. `Record.create(...)` starts one, `Record.open(...)` opens one (migrating it)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, writable: bool):
        self.conn = conn
        self.path = path
        self.writable = writable
        self.problems: list[str] = []  # what could not be read of a damaged file
        self.meta: dict = {}
        self._state: BoardState | None = None
        self._count: int | None = None
        self.snapshot_every = SNAPSHOT_EVERY

    # ------------------------------------------------------------------ opening

    @classmethod
    def create(cls, path: str | Path, meta: dict, overwrite: bool = False,
               snapshot_every: int = SNAPSHOT_EVERY) -> Record:
        path = Path(path)
        if path.exists():
            if not overwrite:
                raise RecordError(f"{path}: already exists (use --resume to go on with it, or another --out)")
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(str(path), isolation_level=None)
        except sqlite3.Error as exc:
            raise RecordError(f"{path}: cannot create the record ({exc})") from None
        _pragmas(conn)
        conn.execute("BEGIN")
        _create_tables(conn)
        full = {"format": FORMAT, "schema": SCHEMA_VERSION, "snapshot_every": int(snapshot_every),
                "start_time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **meta}
        conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                         [(k, json.dumps(v)) for k, v in full.items()])
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
        rec = cls(conn, path, True)
        rec.meta = full
        rec.snapshot_every = int(snapshot_every)
        rec._state = BoardState.initial(full.get("roster") or [])
        return rec

    @classmethod
    def open(cls, path: str | Path, writable: bool = False) -> Record:
        """Open a record; migrate an older one forward; read what can be read of a damaged one.

        Raises RecordError for a missing file, a file that is not a record, or a newer schema.
        """
        path = Path(path)
        if not path.exists():
            raise RecordError(f"{path}: record not found")
        if path.is_dir():
            raise RecordError(f"{path}: is a folder, expected a game record (.fgr)")
        with open(path, "rb") as fh:
            head = fh.read(16)
        if head != b"SQLite format 3\x00":
            raise RecordError(f"{path}: not a Fieldglass game record (not an SQLite file)")
        try:
            conn = sqlite3.connect(str(path), isolation_level=None)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise RecordError(f"{path}: damaged beyond reading ({exc})") from None
        if "meta" not in names or "events" not in names:
            conn.close()
            raise RecordError(f"{path}: not a Fieldglass game record (an SQLite file without its tables)")
        rec = cls(conn, path, writable)
        rec.meta = rec._read_meta()
        if rec.meta.get("format") != FORMAT:
            conn.close()
            raise RecordError(f"{path}: not a Fieldglass game record (no fieldglass metadata)")
        if version > SCHEMA_VERSION:
            conn.close()
            raise RecordError(f"{path}: written by a newer Fieldglass (record version {version}, this one reads "
                              f"up to {SCHEMA_VERSION})")
        if version < SCHEMA_VERSION:
            rec._migrate(version)
        if writable:
            _pragmas(conn)
        rec.snapshot_every = int(rec.meta.get("snapshot_every", SNAPSHOT_EVERY))
        rec._check()
        return rec

    def _migrate(self, version: int) -> None:
        if version < 1:
            raise RecordError(f"{self.path}: record version {version} is unknown")
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            while version < SCHEMA_VERSION:
                MIGRATIONS[version](conn)
                version += 1
                conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)", (json.dumps(version),))
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            conn.execute("ROLLBACK")
            if "readonly" not in str(exc):
                raise RecordError(f"{self.path}: cannot migrate the record to version {SCHEMA_VERSION} ({exc})") \
                    from None
            # a read-only file: migrate a copy in memory
            mem = sqlite3.connect(":memory:", isolation_level=None)
            conn.backup(mem)
            conn.close()
            self.conn, self.writable = mem, False
            self._migrate(version)
        self.meta["schema"] = SCHEMA_VERSION

    def _check(self) -> None:
        try:
            rows = [r[0] for r in self.conn.execute("PRAGMA quick_check(5)")]
        except sqlite3.DatabaseError as exc:
            rows = [str(exc)]
        if rows != ["ok"]:
            self.problems.append("the file is damaged (" + "; ".join(rows)[:160] + ")")

    def _read_meta(self) -> dict:
        out = {}
        try:
            rows = self.conn.execute("SELECT key, value FROM meta").fetchall()
        except sqlite3.DatabaseError as exc:
            self.problems.append(f"metadata unreadable ({exc})")
            return out
        for k, v in rows:
            try:
                out[k] = json.loads(v)
            except (TypeError, json.JSONDecodeError):
                out[k] = v
        return out

    # ------------------------------------------------------------------ reading

    def events(self, clean: bool = False) -> list[Event]:
        """All events in order (the clean view leaves out undone ones). A damaged file yields what it can."""
        where = " WHERE undone = 0" if clean else ""
        try:
            rows = self.conn.execute(f"SELECT {_COLUMNS} FROM events{where} ORDER BY seq").fetchall()
            return [_row_event(r) for r in rows]
        except sqlite3.DatabaseError as exc:
            evs = self._salvage(str(exc))
            return [e for e in evs if not (clean and e.undone)]

    def _salvage(self, why: str) -> list[Event]:
        """Events read one by one around the damaged pages."""
        out: list[Event] = []
        lost: list[int] = []
        try:
            hi = int(self.conn.execute("SELECT max(seq) FROM events").fetchone()[0] or 0)
        except sqlite3.DatabaseError:
            hi = None
        seq, misses, limit = 1, 0, hi if hi is not None else 10**7
        while seq <= limit and (hi is not None or misses < 5000):
            try:
                row = self.conn.execute(f"SELECT {_COLUMNS} FROM events WHERE seq = ?", (seq,)).fetchone()
            except sqlite3.DatabaseError:
                row = None
                lost.append(seq)
            if row is None:
                misses += 1
            else:
                misses = 0
                out.append(_row_event(row))
            seq += 1
        msg = f"events table damaged ({why}): read {len(out)} events"
        if lost:
            msg += f", {len(lost)} unreadable (seq {lost[0]}..{lost[-1]})"
        if msg not in self.problems:
            self.problems.append(msg)
        return out

    def snapshot_before(self, seq: int) -> BoardState | None:
        """The latest snapshot at or before event `seq`."""
        try:
            row = self.conn.execute("SELECT state FROM snapshots WHERE seq <= ? ORDER BY seq DESC LIMIT 1",
                                    (seq,)).fetchone()
        except sqlite3.DatabaseError:
            return None
        if row is None:
            return None
        try:
            return BoardState.from_json(json.loads(row[0]))
        except (TypeError, ValueError, KeyError):
            return None

    def thumbnails(self) -> list[tuple[int, str, bytes]]:
        """(event seq, kind, JPEG bytes) in order."""
        try:
            return [(int(s), k, bytes(j)) for s, k, j in
                    self.conn.execute("SELECT seq, kind, jpeg FROM thumbnails ORDER BY seq, id")]
        except sqlite3.DatabaseError as exc:
            self.problems.append(f"thumbnails unreadable ({exc})")
            return []

    def roster(self) -> list[dict]:
        return list(self.meta.get("roster", []))

    def initial_state(self) -> BoardState:
        return BoardState.initial(self.roster())

    def state(self) -> BoardState:
        """The clean state after the last event."""
        if self._state is None:
            st = self.initial_state()
            for ev in self.events(clean=True):
                st.apply(ev)
            self._state = st
        return self._state

    @property
    def progress(self) -> dict:
        """The last frame the recorder read (frame, t), for --resume."""
        p = self._read_meta().get("progress") or {}
        return p if isinstance(p, dict) else {}

    # ------------------------------------------------------------------ writing

    def _need_writable(self) -> None:
        if not self.writable:
            raise RecordError(f"{self.path}: opened read-only")

    def append(self, kind: str, t: float, frame: int | None = None, piece: str | None = None,
               data: dict | None = None, thumbnail: bytes | None = None, thumbnail_kind: str | None = None) -> Event:
        """Write one event (and its snapshot and thumbnail) in one transaction; returns it with its seq."""
        self._need_writable()
        if kind not in EVENT_TYPES:
            raise ValueError(f"unknown event type {kind!r}")
        state = self.state()
        data = dict(data or {})
        turn, phase = state.turn, state.phase
        if kind == "turn":
            turn = int(data.setdefault("turn", state.turn + 1))
            phase = data.get("phase")
        elif kind == "phase":
            phase = data.get("phase")
        conn = self.conn
        if self._count is None:
            self._count = self._clean_count()
        conn.execute("BEGIN IMMEDIATE")
        try:
            cur = conn.execute(
                "INSERT INTO events(type, t, wall, turn, phase, frame, piece, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (kind, float(t), time.time(), turn, phase, frame, piece, json.dumps(data, separators=(",", ":"))),
            )
            ev = Event(int(cur.lastrowid), kind, float(t), turn, phase, frame, piece, data)
            after = state.copy()
            after.apply(ev)
            if (self._count + 1) % self.snapshot_every == 0:
                conn.execute("INSERT OR REPLACE INTO snapshots(seq, state) VALUES (?, ?)",
                             (ev.seq, json.dumps(after.to_json(), separators=(",", ":"))))
            if thumbnail is not None:
                conn.execute("INSERT INTO thumbnails(seq, kind, jpeg) VALUES (?, ?, ?)",
                             (ev.seq, thumbnail_kind or kind, sqlite3.Binary(thumbnail)))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self._state = after
        self._count += 1
        return ev

    def _clean_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM events WHERE undone = 0").fetchone()[0])

    def undo(self, n: int = 1, tag: str | None = None) -> list[Event]:
        """Take back the last `n` events still standing: they stay in the file, marked undone.

        `tag` names the request (a player's input) in the same transaction, so a resumed recording can tell it
        was done (`undo_tags()`)."""
        self._need_writable()
        # a surface's pose is what the camera saw, not a player's doing: an undo passes over it
        rows = self.conn.execute(f"SELECT {_COLUMNS} FROM events WHERE undone = 0 AND type != 'surface' "
                                 "ORDER BY seq DESC LIMIT ?", (int(n),)).fetchall()
        if not rows:
            return []
        evs = [_row_event(r) for r in rows]
        first = min(e.seq for e in evs)
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("UPDATE events SET undone = 1 WHERE seq = ?", [(e.seq,) for e in evs])
            conn.execute("DELETE FROM snapshots WHERE seq >= ?", (first,))
            if tag is not None:
                conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                             (f"undo:{tag}", json.dumps([e.seq for e in evs])))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self._state = None
        self._count = None
        return evs

    def undo_tags(self) -> set[str]:
        return {k[5:] for k in self._read_meta() if k.startswith("undo:")}

    def set_meta(self, key: str, value) -> None:
        self._need_writable()
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value)))
        self.meta[key] = value

    def heartbeat(self, frame: int, t: float) -> None:
        """Note how far the recorder has read (its own small transaction)."""
        self.set_meta("progress", {"frame": int(frame), "t": round(float(t), 4)})

    def close(self) -> None:
        try:
            self.conn.close()
        except sqlite3.Error:
            pass

    def __enter__(self) -> Record:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _pragmas(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")


def write_v1_record(path: str | Path, meta: dict, events: Iterable[dict]) -> None:
    """Write a record in the old version-1 layout (for tests of the migration and of old files)."""
    conn = sqlite3.connect(str(path))
    conn.executescript(SCHEMA_V1)
    full = {"format": FORMAT, "schema": 1, **meta}
    conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", [(k, json.dumps(v)) for k, v in full.items()])
    for e in events:
        data = dict(e.get("data", {}))
        if e.get("piece"):
            data["piece"] = e["piece"]
        conn.execute("INSERT INTO events(type, t, turn, frame, data) VALUES (?, ?, ?, ?, ?)",
                     (e["type"], e.get("t", 0.0), e.get("turn", 0), e.get("frame"), json.dumps(data)))
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
