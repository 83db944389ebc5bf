"""Records in the club archive: push (idempotent and resumable), list and search, pull (an equal record, event for
event), and follow a record being written (each committed event pushed as it comes; a lost server loses nothing:
the `.fgr` stays the source of truth and the next push catches up).

A push sends only what the archive lacks: the events it has not got or whose undone mark changed, the snapshots and
thumbnails it has not got, each batch in its own transaction. A push cut off half-way keeps the batches committed,
and the next push sends the rest; a record pushed twice changes nothing."""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Json

from common.errors import InputError
from fieldglass.archive.schema import migrate
from fieldglass.record import Event, Record
from fieldglass.record.store import FollowedRecord, decode_meta

BATCH = 500
IDENTITY = ("system", "start_time", "players", "roster", "layout")
"""The meta keys that name a record (the rest, like the recorder's progress mark, change while it is written)."""


def connect(url: str) -> psycopg.Connection:
    """A connection to the archive at `url` (a PostgreSQL URL or conninfo), its schema migrated; InputError in one
    line when it cannot be reached (the URL is not repeated: it may hold a password)."""
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"--db: cannot reach the archive database ({first})") from None
    migrate(conn)
    return conn


def record_uid(meta: dict) -> str:
    """A record's identity in the archive: a digest of what names it (its system, start time, players, roster and
    table), the same for the file as it grows and for a copy of it."""
    key = json.dumps({k: meta.get(k) for k in IDENTITY}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class PushResult:
    game: int  # the archive id
    events: int  # events sent (new, or whose undone mark changed)
    total: int  # events the record has

    @property
    def changed(self) -> bool:
        return self.events > 0


def current_meta(record: Record) -> dict:
    """The record's meta as the file holds it now (the recorder adds to it while it writes)."""
    rows = _raw(record, "SELECT key, value FROM meta")
    return decode_meta(rows) if rows else dict(record.meta)


def _game_row(conn: psycopg.Connection, record: Record, table: str | None, title: str | None) -> int:
    meta = current_meta(record)
    uid = record_uid(meta)
    row = conn.execute(
        """INSERT INTO games(uid, system, players, table_name, started, title, meta)
           VALUES (%s, %s, %s, %s, %s, %s, %s)
           ON CONFLICT (uid) DO UPDATE SET meta = EXCLUDED.meta,
               table_name = COALESCE(EXCLUDED.table_name, games.table_name)
           WHERE games.meta::text IS DISTINCT FROM EXCLUDED.meta::text
              OR EXCLUDED.table_name IS DISTINCT FROM games.table_name AND EXCLUDED.table_name IS NOT NULL
           RETURNING id""",
        (uid, str(meta.get("system") or "?"), [str(p) for p in meta.get("players") or []],
         table or meta.get("table"), meta.get("start_time"), title or record.path.stem, Json(meta))).fetchone()
    if row is None:
        row = conn.execute("SELECT id FROM games WHERE uid = %s", (uid,)).fetchone()
    return int(row[0])


def _compact(value) -> str:
    return json.dumps(value, separators=(",", ":"))  # as the record writes an event's data


def _event_row(game: int, e: Event) -> tuple:
    return (game, e.seq, e.type, e.t, e.wall, e.turn, e.phase, e.frame, e.piece, Json(e.data, dumps=_compact),
            e.undone)


def _chunks(items: list, n: int) -> Iterable[list]:
    for i in range(0, len(items), n):
        yield items[i:i + n]


def _raw(record: Record, sql: str) -> list[tuple]:
    try:
        return record.conn.execute(sql).fetchall()
    except sqlite3.DatabaseError:
        return []  # a damaged file's snapshots or thumbnails: its events still go (Record.events salvages them)


def push(conn: psycopg.Connection, record: Record, table: str | None = None, title: str | None = None,
         batch: int = BATCH, progress: Callable[[int, int], None] | None = None) -> PushResult:
    """Send `record` to the archive; `progress(sent, to_send)` after each committed batch."""
    with conn.transaction():
        game = _game_row(conn, record, table, title)
    have = dict(conn.execute("SELECT seq, undone FROM events WHERE game = %s", (game,)).fetchall())
    events = record.events()
    todo = [e for e in events if have.get(e.seq) is not e.undone]
    sent = 0
    for part in _chunks(todo, max(1, batch)):
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                """INSERT INTO events(game, seq, type, t, wall, turn, phase, frame, piece, data, undone)
                   VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                   ON CONFLICT (game, seq) DO UPDATE SET undone = EXCLUDED.undone""",
                [_event_row(game, e) for e in part])
        sent += len(part)
        if progress is not None:
            progress(sent, len(todo))
    _sync_extras(conn, record, game)
    return PushResult(game, sent, len(events))


def _ints(values: list[int]) -> str:
    """Integers as an SQL list's body (ints only: nothing to quote)."""
    return ", ".join(str(int(v)) for v in values)


def _sync_extras(conn: psycopg.Connection, record: Record, game: int) -> None:
    """The snapshots (an undo deletes the later ones in the file: here too) and the thumbnails."""
    # Ids first, the states and pictures only of those the archive lacks: a follower pushes after every commit of a
    # long game, and reading every JPEG again each time would cost as much as the whole game so far.
    snap_seqs = {int(s) for (s,) in _raw(record, "SELECT seq FROM snapshots")}
    have = {r[0] for r in conn.execute("SELECT seq FROM snapshots WHERE game = %s", (game,)).fetchall()}
    thumbs_have = {r[0] for r in conn.execute("SELECT id FROM thumbnails WHERE game = %s", (game,)).fetchall()}
    lacking = sorted({int(i) for (i,) in _raw(record, "SELECT id FROM thumbnails")} - thumbs_have)
    thumbs = (_raw(record, f"SELECT id, seq, kind, jpeg FROM thumbnails WHERE id IN ({_ints(lacking)})")
              if lacking else [])
    new_seqs = sorted(snap_seqs - have)
    with conn.transaction(), conn.cursor() as cur:
        gone = sorted(have - snap_seqs)
        if gone:
            cur.execute("DELETE FROM snapshots WHERE game = %s AND seq = ANY(%s)", (game, gone))
        new = ([(game, int(s), st) for s, st in _raw(record, f"SELECT seq, state FROM snapshots WHERE seq IN "
                                                             f"({_ints(new_seqs)})")]  # the file's text, as it is
               if new_seqs else [])
        if new:
            cur.executemany("INSERT INTO snapshots(game, seq, state) VALUES (%s, %s, %s::json)", new)
        if thumbs:
            cur.executemany("INSERT INTO thumbnails(game, id, seq, kind, jpeg) VALUES (%s, %s, %s, %s, %s)",
                            [(game, int(i), int(s), str(k), bytes(j)) for i, s, k, j in thumbs])


@dataclass(frozen=True)
class GameInfo:
    id: int
    title: str
    system: str
    players: list[str]
    table: str | None
    started: str | None
    events: int
    turns: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "system": self.system, "players": self.players,
                "table": self.table, "started": self.started, "events": self.events, "turns": self.turns}


def list_games(conn: psycopg.Connection, system: str | None = None, player: str | None = None,
               table: str | None = None, date: str | None = None) -> list[GameInfo]:
    """The archive's games, newest first; each filter narrows them: `system` exactly, `player` and `table` as a
    case-blind part of a name, `date` the start's beginning (2026, 2026-11, 2026-11-26)."""
    where, args = [], []
    if system:
        where.append("g.system = %s")
        args.append(system)
    if player:
        where.append("EXISTS (SELECT 1 FROM unnest(g.players) p WHERE p ILIKE %s)")
        args.append(f"%{player}%")
    if table:
        where.append("g.table_name ILIKE %s")
        args.append(f"%{table}%")
    if date:
        where.append("g.started LIKE %s")
        args.append(f"{date}%")
    sql = f"""SELECT g.id, g.title, g.system, g.players, g.table_name, g.started,
                     count(e.seq) FILTER (WHERE NOT e.undone),
                     count(e.seq) FILTER (WHERE e.type = 'turn' AND NOT e.undone)
              FROM games g LEFT JOIN events e ON e.game = g.id
              {'WHERE ' + ' AND '.join(where) if where else ''}
              GROUP BY g.id ORDER BY g.started DESC NULLS LAST, g.id DESC"""
    return [GameInfo(int(r[0]), r[1], r[2], list(r[3]), r[4], r[5], int(r[6]), int(r[7]))
            for r in conn.execute(sql, args).fetchall()]


def game_id(conn: psycopg.Connection, text: str) -> int:
    """An archive id given on the command line or in a URL; InputError when it is not one of the archive's."""
    try:
        gid = int(text)
    except ValueError:
        raise InputError(f"archive id {text!r}: a whole number, as `fieldglass archive list` shows") from None
    if conn.execute("SELECT 1 FROM games WHERE id = %s", (gid,)).fetchone() is None:
        raise InputError(f"no game {gid} in the archive (`fieldglass archive list` shows them)")
    return gid


def pull(conn: psycopg.Connection, gid: int, out: Path, overwrite: bool = False) -> int:
    """Write archive game `gid` to the record `out`: its meta, events, snapshots and thumbnails as they were in the
    file pushed. Returns the number of events."""
    meta = conn.execute("SELECT meta FROM games WHERE id = %s", (gid,)).fetchone()[0]
    rows = conn.execute("""SELECT seq, type, t, wall, turn, phase, frame, piece, data::text, undone FROM events
                           WHERE game = %s ORDER BY seq""", (gid,)).fetchall()
    snaps = conn.execute("SELECT seq, state::text FROM snapshots WHERE game = %s ORDER BY seq", (gid,)).fetchall()
    thumbs = conn.execute("SELECT id, seq, kind, jpeg FROM thumbnails WHERE game = %s ORDER BY id",
                          (gid,)).fetchall()
    rec = Record.create(out, meta, overwrite=overwrite, snapshot_every=int(meta.get("snapshot_every") or 25))
    try:
        c = rec.conn
        c.execute("BEGIN")
        c.execute("DELETE FROM meta")
        c.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()])
        c.executemany("INSERT INTO events(seq, type, t, wall, turn, phase, frame, piece, data, undone) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      [(*r[:9], int(r[9])) for r in rows])
        c.executemany("INSERT INTO snapshots(seq, state) VALUES (?, ?)", snaps)
        c.executemany("INSERT INTO thumbnails(id, seq, kind, jpeg) VALUES (?, ?, ?, ?)",
                      [(i, s, k, sqlite3.Binary(bytes(j))) for i, s, k, j in thumbs])
        c.execute("COMMIT")
    finally:
        rec.close()
    return len(rows)


class Follower:
    """Pushes a record as it is written: every `poll_s` it looks for a commit (SQLite's data_version) and pushes
    what is new. When the archive cannot be reached it says so once, keeps the record as it is, and tries again
    (every `retry_s`) until it is back; `stop()` ends it after a last push."""

    def __init__(self, path: str | Path, url: str, table: str | None = None, poll_s: float = 0.2,
                 retry_s: float = 1.0, log: Callable[[str], None] = print):
        self.path, self.url, self.table = Path(path), url, table
        self.poll_s, self.retry_s, self.log = poll_s, retry_s, log
        self.conn: psycopg.Connection | None = None
        self.followed = FollowedRecord(self.path)  # a file replaced by a new recording is followed from then on
        self.game: int | None = None
        self.pushes = 0
        self.outages = 0
        self._stop = threading.Event()
        self._down = False

    def stop(self) -> None:
        self._stop.set()

    @property
    def record(self) -> Record | None:
        return self.followed.record

    def push_once(self) -> bool:
        """One push of all that is new; False when the archive could not be reached (the next one catches up)."""
        try:
            if self.conn is None or self.conn.closed:
                self.conn = connect(self.url)
            result = push(self.conn, self.record, self.table)
        except (psycopg.Error, InputError) as exc:
            if not self._down:
                self.outages += 1
                self.log(f"archive unreachable ({str(exc).strip().splitlines()[0] if str(exc).strip() else exc});"
                         f" the record keeps everything, retrying")
            self._down = True
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            return False
        if self._down:
            self.log("archive back: caught up")
        self._down = False
        self.game = result.game
        self.pushes += 1
        return True

    def run_until_interrupted(self) -> int | None:
        """`run()`, where Ctrl-C (KeyboardInterrupt) means `stop()`: a last push, then the archive id. A second
        Ctrl-C while the archive is away ends it at once (the record keeps everything for a later push)."""
        try:
            return self.run()
        except KeyboardInterrupt:
            self.stop()
            return self.run()

    def run(self) -> int | None:
        """Follow until `stop()`; returns the archive id (None: never reached)."""
        seen = None
        try:
            while True:
                stopping = self._stop.is_set()
                dv = self.followed.version()
                if dv is not None and (dv != seen or self._down or stopping):
                    if self.push_once():
                        seen = dv
                    elif not stopping:
                        self._stop.wait(self.retry_s)
                        continue
                if stopping and not self._down:
                    return self.game
                if stopping:  # the archive is away at the end: keep trying, the caller may stop us hard
                    time.sleep(self.retry_s)
                    continue
                self._stop.wait(self.poll_s)
        finally:
            self.followed.close()
            if self.conn is not None:
                self.conn.close()


@contextlib.contextmanager
def following(path: str | Path, url: str | None, log: Callable[[str], None] = print,
              wait_s: float = 15.0) -> Iterator[Follower | None]:
    """While the block runs, push the record at `path` to the archive at `url` as it is written (None: not at all):
    the recorder's `--archive` hook. At the end a last push; if the archive is away then, the record keeps
    everything and says how to push it later."""
    if not url:
        yield None
        return
    follower = Follower(path, url, log=log)
    thread = threading.Thread(target=follower.run, name="archive-follower", daemon=True)
    thread.start()
    try:
        yield follower
    finally:
        follower.stop()
        thread.join(wait_s)
        if thread.is_alive():
            log(f"the archive is still away: `fieldglass archive push {path} --db URL` sends the rest later")
        elif follower.game is not None:
            log(f"archive id {follower.game}")
