"""The game record file (`.fgr`): one SQLite database per game.

Tables (schema version 2, kept in ``PRAGMA user_version``):

* ``meta(key, value)``   JSON values: format = "fieldglass-record", system, rules_options, layout, roster,
  calibration, start_time, players, snapshot_every, progress (for --resume: the last frame read, `frame`, and
  its time `t`; the recorder adds `seq`, the last event written then, and `tracker`, what its tracker held
  unsettled after that frame, vision/tracking.py `Tracker.pending`; a progress without them, as older records
  keep it, resumes the tracker from the committed places alone). The progress is written at each heartbeat and
  in the transaction of the first event of each frame (naming the frame before).
* ``events(seq, type, t, wall, turn, phase, frame, piece, data, undone)``   the ordered events; `t` is seconds of
  game time (frame timestamps), `wall` the computer's clock, `data` a JSON object, `undone` 1 when taken back.
* ``snapshots(seq, state)``   the full clean state (`BoardState` JSON) after event `seq`, every N events.
* ``thumbnails(id, seq, kind, jpeg)``   small JPEGs of the table at each turn and each combat.

WAL journal with synchronous=FULL and one transaction per event (the event, its snapshot and its thumbnail
together): a process killed at any moment loses at most the event it was writing. While a record is written its
newest events live in the side file `GAME.fgr-wal`; they are checkpointed into `GAME.fgr` every
`CHECKPOINT_EVERY` events, and a clean close checkpoints everything and leaves the journal mode at DELETE, so a
closed record is one file (after a crash, the events since the last checkpoint are only in the side file until
the record is opened again beside it). One writer per record: a writer holds an exclusive `flock` on the file,
which dies with its process. Readers open the file read-only (`mode=ro`, or `immutable=1` on read-only media).

Older files are migrated forward when opened; a file that is not a record, or is damaged, raises `RecordError`
with one line, and a damaged record still yields the events that can be read (`Record.problems` says what could
not; an event whose data is damaged is skipped and named there). `salvage(record, out)` copies what can be read
into a new record (`fieldglass check GAME.fgr --repair OUT`).
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock; records are written unlocked there
    fcntl = None

from calibration.layout import MAX_GRID_COLS, MAX_GRID_FIELDS, MAX_GRID_ROWS
from common.errors import InputError
from common.outfiles import output_file
from fieldglass.record.state import EVENT_TYPES, BoardState

FORMAT = "fieldglass-record"
SCHEMA_VERSION = 2
SNAPSHOT_EVERY = 25
CHECKPOINT_EVERY = 50  # events between checkpoints of the WAL side file into the record while recording

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


class _DamagedEvent(ValueError):
    """One event row whose columns or data cannot be read (it is skipped and named in `Record.problems`)."""


def _finite(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and abs(v) < 1e12


def _place(v) -> bool:
    """A place as events keep it: finite x_mm and y_mm (heading_deg if given)."""
    return (isinstance(v, dict) and _finite(v.get("x_mm")) and _finite(v.get("y_mm"))
            and (v.get("heading_deg") is None or _finite(v.get("heading_deg"))))


def _text(v) -> bool:
    return v is None or isinstance(v, str)


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) < 10**9


def _texts(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _change(c) -> bool:
    """One entry of a combat's `changes`, as `BoardState._change` reads it."""
    return (isinstance(c, dict) and _text(c.get("piece")) and ("bases" not in c or _finite(c["bases"]))
            and (c.get("marker") is None or isinstance(c["marker"], str | list)))


def _sound_grid(g) -> bool:
    """A record's layout grid as its readers use it (the same bounds as a layout file's)."""
    return (isinstance(g, dict) and _whole(g.get("cols")) and _whole(g.get("rows"))
            and 0 < g["cols"] <= MAX_GRID_COLS and 0 < g["rows"] <= MAX_GRID_ROWS
            and g["cols"] * g["rows"] <= MAX_GRID_FIELDS
            and all(_finite(g.get(k, 0.0)) for k in ("origin_x_mm", "origin_y_mm", "field_mm"))
            and _finite(g.get("field_mm", 1.0)) and g.get("field_mm", 1.0) > 0)


def _names(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str | int) and not isinstance(x, bool) for x in v)


# What the keys every reader relies on must be where an event gives them (the replay's state, the exports, the
# stats); a key not given is left to its readers' defaults, and any other key is the system's own, kept as it is.
# `to` is required by the events that place a piece.
_DATA_CHECKS = {
    "to": _place, "from": lambda v: v is None or _place(v), "at": lambda v: v is None or _place(v),
    "turn": _whole, "phase": _text, "markers": lambda v: isinstance(v, list), "pieces": _names,
    "changes": lambda v: isinstance(v, list) and all(_change(c) for c in v),
    "sides": lambda v: isinstance(v, dict), "fields": lambda v: isinstance(v, dict) and all(
        isinstance(x, str) for x in v.values()),
}


def _data_problem(kind: str, d: dict) -> str | None:
    if kind in ("move", "appeared") and "to" not in d:
        return "a move without its 'to' place"
    for key, ok in _DATA_CHECKS.items():
        if key in d and not ok(d[key]):
            return f"its {key!r} is {str(d[key])[:40]!r}"
    return None


def _row_event(row) -> Event:
    seq, kind, t, turn, phase, frame, piece, data, undone, wall = row
    try:
        d = json.loads(data) if data else {}
        ev = Event(int(seq), str(kind), float(t), int(turn or 0), phase, None if frame is None else int(frame),
                   piece, d, bool(undone), None if wall is None else float(wall))
    except (TypeError, ValueError, OverflowError) as exc:
        raise _DamagedEvent(f"event {seq}: damaged ({str(exc)[:60]})") from None
    if not isinstance(d, dict):
        raise _DamagedEvent(f"event {seq}: damaged (its data is not a JSON object)")
    if not (isinstance(phase, str | None) and isinstance(piece, str | None) and kind in EVENT_TYPES):
        raise _DamagedEvent(f"event {seq}: damaged (type, phase or piece of the wrong kind)")
    if not (math.isfinite(ev.t) and (ev.wall is None or math.isfinite(ev.wall))):
        raise _DamagedEvent(f"event {seq}: damaged (its time is not a finite number)")
    problem = _data_problem(ev.type, d)
    if problem:
        raise _DamagedEvent(f"event {seq}: damaged ({problem})")
    return ev


def _connect(path: Path, mode: str) -> sqlite3.Connection:
    """An SQLite connection: mode "rw" to write, "ro" to read (no writes, no new side files where it cannot),
    "immutable" to read from read-only media where not even the WAL's `-shm` can be made."""
    uri = "file:" + urllib.parse.quote(str(path.resolve()))
    if mode == "ro":
        uri += "?mode=ro"
    elif mode == "immutable":
        uri += "?mode=ro&immutable=1"
    return sqlite3.connect(uri, uri=True, isolation_level=None)


def _lock(path: Path) -> int:
    """An exclusive lock on the record file for one writer; it dies with the process (flock on its own descriptor,
    apart from SQLite's own byte-range locks). Raises RecordError when another process holds it."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError as exc:
        raise RecordError(f"{path}: cannot open the record for writing ({exc.strerror or exc})") from None
    if fcntl is None:
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EAGAIN, errno.EACCES):
            return fd  # a file system without locks (some network shares): write unlocked, as before
        os.close(fd)
        raise RecordError(f"{path}: is being written by another fieldglass (one writer per record; wait for it "
                          "to stop, or record to another --out)") from None
    return fd


_SALVAGE_HINT = "salvage it into a new record with: fieldglass check {path} --repair NEW.fgr"


def _wal_header(path: Path) -> bool:
    """True if the file's header says WAL mode (bytes 18 and 19 are 2): a record whose writer did not close it."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(20)
    except OSError:
        return False
    return len(head) == 20 and head[18] == 2 and head[19] == 2


def _read_tables(conn: sqlite3.Connection) -> tuple[int, set[str]]:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return int(version), names


def _open_tables(path: Path, writable: bool) -> tuple[sqlite3.Connection, int, set[str], str | None]:
    """Connect and read the schema: read-only for readers (immutable on read-only media, where a WAL record's
    `-shm` cannot be made); with SQLite's schema check off for a file cut short, whose schema refers to pages it
    no longer has (every table that is still there stays readable). Returns (connection, user_version, table
    names, the problem met or None)."""
    modes = ["rw"] if writable else ["ro", "immutable"]
    if not writable and _wal_header(path) and not Path(f"{path}-wal").exists():
        modes = ["immutable", "ro"]  # a WAL record nobody is writing: read it without making side files
    last: Exception | None = None
    for mode in modes:
        try:
            conn = _connect(path, mode)
        except sqlite3.Error as exc:
            last = exc
            continue
        try:
            version, names = _read_tables(conn)
            problem = None
            if mode == "immutable" and Path(f"{path}-wal").exists():
                problem = (f"read-only media: the events in the side file {path.name}-wal (a recording that did not "
                           "stop cleanly) cannot be read here; copy both files to a writable folder")
            return conn, version, names, problem
        except sqlite3.DatabaseError as exc:
            last = exc
            if "unable to open" in str(exc) or "readonly" in str(exc):
                conn.close()
                continue  # read-only media: try the next mode
            try:
                conn.execute("PRAGMA writable_schema = ON")  # a connection setting: nothing is written
                version, names = _read_tables(conn)
            except sqlite3.DatabaseError:
                conn.close()
                break
            return conn, version, names, (f"the file is cut short or damaged ({exc}); "
                                          + _SALVAGE_HINT.format(path=path))
    raise RecordError(f"{path}: damaged beyond reading ({last})")


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
        self._lock_fd: int | None = None  # the one writer's lock (see `_lock`)
        self._since_checkpoint = 0

    # ------------------------------------------------------------------ opening

    @classmethod
    def create(cls, path: str | Path, meta: dict, overwrite: bool = False,
               snapshot_every: int = SNAPSHOT_EVERY) -> Record:
        path = Path(path)
        if path.is_dir():
            raise RecordError(f"{path}: is a folder, expected a game record (.fgr)")
        if path.exists():
            if not overwrite:
                raise RecordError(f"{path}: already exists (use --resume to go on with it, or another --out)")
            fd = _lock(path)  # a record another process is writing is never deleted under it
            try:
                for suffix in ("", "-wal", "-shm"):
                    Path(str(path) + suffix).unlink(missing_ok=True)
            finally:
                os.close(fd)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), isolation_level=None)
            lock = _lock(path)
        except (OSError, sqlite3.Error) as exc:
            raise RecordError(f"{path}: cannot create the record ({exc})") from None
        try:
            _pragmas(conn)
            conn.execute("BEGIN")
            _create_tables(conn)
            full = {"format": FORMAT, "schema": SCHEMA_VERSION, "snapshot_every": int(snapshot_every),
                    "start_time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **meta}
            conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                             [(k, json.dumps(v)) for k, v in full.items()])
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.close()
            os.close(lock)
            raise RecordError(f"{path}: cannot create the record ({exc})") from None
        rec = cls(conn, path, True)
        rec._lock_fd = lock
        rec.meta = full
        rec.snapshot_every = int(snapshot_every)
        rec._state = BoardState.initial(rec.roster())
        return rec

    @classmethod
    def open(cls, path: str | Path, writable: bool = False) -> Record:
        """Open a record; migrate an older one forward; read what can be read of a damaged one.

        Read-only unless `writable` (then this process becomes its one writer, or RecordError says another is).
        Raises RecordError for a missing file, a file that is not a record, or a newer schema.
        """
        path = Path(path)
        if not path.exists():
            raise RecordError(f"{path}: record not found")
        if path.is_dir():
            raise RecordError(f"{path}: is a folder, expected a game record (.fgr)")
        try:
            with open(path, "rb") as fh:
                head = fh.read(16)
        except OSError as exc:
            raise RecordError(f"{path}: cannot read the record ({exc.strerror or exc})") from None
        if head != b"SQLite format 3\x00":
            raise RecordError(f"{path}: not a Fieldglass game record (not an SQLite file)")
        lock = _lock(path) if writable else None
        try:
            rec = cls._open_checked(path, writable)
        except BaseException:
            if lock is not None:
                os.close(lock)
            raise
        rec._lock_fd = lock
        return rec

    @classmethod
    def _open_checked(cls, path: Path, writable: bool) -> Record:
        conn, version, names, problem = _open_tables(path, writable)
        if "meta" not in names or "events" not in names:
            conn.close()
            raise RecordError(f"{path}: not a Fieldglass game record (an SQLite file without its tables)")
        rec = cls(conn, path, writable and not problem)  # a damaged file is never written to: salvage it instead
        if problem:
            rec.problems.append(problem)
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
        rec._sound_meta()
        every = rec.meta.get("snapshot_every", SNAPSHOT_EVERY)
        rec.snapshot_every = every if isinstance(every, int) and 0 < every < 10**6 else SNAPSHOT_EVERY
        rec._check()
        if rec.writable:
            _pragmas(conn)
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
            self.problems.append("the file is damaged (" + "; ".join(rows)[:160] + "); "
                                 + _SALVAGE_HINT.format(path=self.path))
            self.writable = False  # never written to: salvage it instead

    def _read_meta(self) -> dict:
        try:
            rows = self.conn.execute("SELECT key, value FROM meta").fetchall()
        except sqlite3.DatabaseError as exc:
            self.problems.append(f"metadata unreadable ({exc})")
            return {}
        return decode_meta(rows)

    # ------------------------------------------------------------------ reading

    def events(self, clean: bool = False) -> list[Event]:
        """All events in order (the clean view leaves out undone ones). A damaged file yields what it can; an event
        whose own data is damaged is skipped and named in `problems`."""
        where = " WHERE undone = 0" if clean else ""
        try:
            rows = self.conn.execute(f"SELECT {_COLUMNS} FROM events{where} ORDER BY seq").fetchall()
        except sqlite3.DatabaseError as exc:
            evs = self._salvage(str(exc))
            return [e for e in evs if not (clean and e.undone)]
        return [e for e in (self._event(r) for r in rows) if e is not None]

    def _event(self, row) -> Event | None:
        try:
            return _row_event(row)
        except _DamagedEvent as exc:
            self._problem(f"{exc}; skipped")
            return None

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
            ev = None if row is None else self._event(row)
            if ev is None:
                misses += 1
            else:
                misses = 0
                out.append(ev)
            seq += 1
        msg = f"events table damaged ({why}): read {len(out)} events"
        if lost:
            msg += f", {len(lost)} unreadable (seq {lost[0]}..{lost[-1]})"
        self._problem(msg)
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
        """The roster metadata: one dict per piece with a text "id"; damaged entries are left out and named in
        `problems`."""
        raw = self.meta.get("roster", [])
        if not isinstance(raw, list):
            self._problem("roster metadata damaged (not a list of pieces); reading the events without it")
            return []
        good = [p for p in raw if isinstance(p, dict) and isinstance(p.get("id"), str)
                and _text(p.get("side")) and _text(p.get("type")) and ("bases" not in p or _finite(p["bases"]))]
        if len(good) < len(raw):
            self._problem(f"roster metadata: {len(raw) - len(good)} damaged piece(s) left out")
        return good

    def _sound_meta(self) -> None:
        """Damaged metadata every reader relies on is named in `problems` and replaced by what can be used: the
        roster by its readable pieces, a layout that is not a table by none, players that are not names by none."""
        self.meta["roster"] = self.roster()
        layout = self.meta.get("layout")
        if layout is not None and not isinstance(layout, dict):
            self._problem("layout metadata damaged (not a table); drawing without it")
            self.meta["layout"] = {}
        elif layout and layout.get("grid") is not None and not _sound_grid(layout["grid"]):
            self._problem("layout metadata: its grid is damaged; drawing without it")
            self.meta["layout"] = {k: v for k, v in layout.items() if k != "grid"}
        players = self.meta.get("players")
        if players is not None and not _texts(players):
            self._problem("players metadata damaged (not a list of names); left out")
            self.meta.pop("players")

    def _problem(self, msg: str) -> None:
        if msg not in self.problems:
            self.problems.append(msg)

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
               data: dict | None = None, thumbnail: bytes | None = None, thumbnail_kind: str | None = None,
               progress: tuple[int, float, dict | None] | None = None, extra_thumbnails: tuple = ()) -> Event:
        """Write one event (and its snapshot and thumbnails: `thumbnail` of the table, `extra_thumbnails` (kind,
        JPEG) pairs such as a combat's throw of dice) in one transaction; returns it with its seq. With
        `progress` (frame, t, tracker state) the record's progress is written in the same transaction, before the
        event, as `heartbeat` writes it: the event and where a resume goes on from cannot part."""
        self._need_writable()
        if kind not in EVENT_TYPES:
            raise ValueError(f"unknown event type {kind!r}")
        state = self.state()
        data = dict(data or {})
        problem = _data_problem(kind, data)
        if problem:  # written, it would be read back as damaged and left out: refused instead, the record as it was
            raise RecordError(f"{self.path}: a {kind} event cannot be recorded: {problem}")
        turn, phase = state.turn, state.phase
        if kind == "turn":
            turn = int(data.setdefault("turn", state.turn + 1))
            phase = data.get("phase")
        elif kind == "phase":
            phase = data.get("phase")
        conn = self.conn
        if self._count is None:
            self._count = self._clean_count()
        beat = None if progress is None else self._progress(*progress)
        with self._transaction():
            if beat is not None:
                conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('progress', ?)", (json.dumps(beat),))
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
            for extra_kind, jpeg in extra_thumbnails:
                conn.execute("INSERT INTO thumbnails(seq, kind, jpeg) VALUES (?, ?, ?)",
                             (ev.seq, extra_kind, sqlite3.Binary(jpeg)))
        self._state = after
        if beat is not None:
            self.meta["progress"] = beat
        self._count += 1
        self._since_checkpoint += 1
        if self._since_checkpoint >= CHECKPOINT_EVERY:
            self.checkpoint()
        return ev

    @contextlib.contextmanager
    def _transaction(self):
        """One write transaction; a write the disk refuses (full, gone read-only) is one RecordError line, and
        every event committed before it stays in the file."""
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            raise RecordError(f"{self.path}: cannot write to the record ({exc}); every event recorded before "
                              "this one is kept (go on with --resume once there is room)") from None

    def checkpoint(self) -> None:
        """Copy the events from the WAL side file into the record file itself (a copy of GAME.fgr alone then holds
        them); a busy reader only delays it."""
        self._since_checkpoint = 0
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

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
        evs = [e for e in (self._event(r) for r in rows) if e is not None]
        if not evs:
            return []
        first = min(e.seq for e in evs)
        conn = self.conn
        with self._transaction():
            conn.executemany("UPDATE events SET undone = 1 WHERE seq = ?", [(e.seq,) for e in evs])
            conn.execute("DELETE FROM snapshots WHERE seq >= ?", (first,))
            if tag is not None:
                conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                             (f"undo:{tag}", json.dumps([e.seq for e in evs])))
        self._state = None
        self._count = None
        return evs

    def undo_tags(self) -> set[str]:
        return {k[5:] for k in self._read_meta() if k.startswith("undo:")}

    def set_meta(self, key: str, value) -> None:
        self._need_writable()
        with self._transaction():
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value)))
        self.meta[key] = value

    def heartbeat(self, frame: int, t: float, tracker: dict | None = None) -> None:
        """Note how far the recorder has read (its own small transaction): the last frame read and its time, and
        with `tracker` what the recorder's tracker held unsettled after it (vision/tracking.py `Tracker.pending`)
        with the seq of the last event written then (`seq`, undone or not), for a resume to go on from exactly
        there."""
        self.set_meta("progress", self._progress(frame, t, tracker))

    def _progress(self, frame: int, t: float, tracker: dict | None) -> dict:
        progress: dict = {"frame": int(frame), "t": round(float(t), 4)}
        if tracker is not None:
            last = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
            progress.update(seq=int(last), tracker=tracker)
        return progress

    def close(self) -> None:
        """Close; a writer first checkpoints everything and leaves the journal mode at DELETE, so the closed record
        is one file (a reader still attached keeps it in WAL mode until the next close), then drops its lock."""
        if self.writable:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self.conn.execute("PRAGMA journal_mode = DELETE")
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> Record:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def decode_meta(rows) -> dict:
    """The meta table's (key, value) rows as a dict: each value its JSON, or the text itself where it is none."""
    out = {}
    for k, v in rows:
        try:
            out[k] = json.loads(v)
        except (TypeError, json.JSONDecodeError):
            out[k] = v
    return out


def _pragmas(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")


def salvage(record: Record, out: str | Path) -> int:
    """Copy what can be read of `record` into a new record at `out` (written whole under a temporary name, then
    renamed; never over the record itself): its metadata, every readable event with its own seq and undone mark,
    and the readable thumbnails. Snapshots are left out: they only speed up replay, which works without them.
    Returns the number of events copied."""
    events = record.events()
    thumbs = record.thumbnails()
    meta = {**record.meta, "format": FORMAT, "schema": SCHEMA_VERSION}
    with output_file(out, (record.path,)) as tmp:
        conn = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            conn.execute("BEGIN")
            _create_tables(conn)
            conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                             [(k, json.dumps(v)) for k, v in meta.items()])
            conn.executemany(
                "INSERT INTO events(seq, type, t, wall, turn, phase, frame, piece, data, undone) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(e.seq, e.type, e.t, e.wall, e.turn, e.phase, e.frame, e.piece,
                  json.dumps(e.data, separators=(",", ":")), int(e.undone)) for e in events])
            conn.executemany("INSERT INTO thumbnails(seq, kind, jpeg) VALUES (?, ?, ?)",
                             [(seq, kind, sqlite3.Binary(jpeg)) for seq, kind, jpeg in thumbs])
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        finally:
            conn.close()
    return len(events)


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


class FollowedRecord:
    """A record another process is writing, followed read-only: `version()` tells a new commit (SQLite's
    `PRAGMA data_version` on one connection counts the commits others made) and a file replaced by a new recording
    (`record --overwrite`: another inode, followed from then on). The file may not exist yet, or not be a record
    yet: then there is no version, and the next call tries again. Used by the web live feed and the archive
    follower."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.record: Record | None = None
        self._ino: int | None = None

    def version(self) -> tuple[int, int] | None:
        """(the file's inode, its data_version): another value after every commit and on a new file; None while
        there is no record to read."""
        try:
            ino = self.path.stat().st_ino
        except OSError:
            ino = None
        if self.record is not None and ino != self._ino:
            self.close()
        if self.record is None:
            if ino is None:
                return None
            try:
                self.record = Record.open(self.path)
            except RecordError:
                return None  # created but not yet written through
            self._ino = ino
        try:
            return ino, int(self.record.conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            return None

    def close(self) -> None:
        if self.record is not None:
            self.record.close()
            self.record = None
