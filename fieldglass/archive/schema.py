"""The archive's tables, versioned and migrated forward like the `.fgr`'s (fieldglass/record/store.py): version N is
MIGRATIONS[:N] applied in order, each in its own transaction, the version kept in `fieldglass_schema`.

* ``games(id, uid, system, players, table_name, started, title, meta, pushed_at)``  one row per record; `uid` is
  the record's identity (fieldglass/archive/store.py `record_uid`), so pushing the same record again finds it.
* ``events(game, seq, type, t, wall, turn, phase, frame, piece, data, undone)``  the record's events as in its file.
* ``snapshots(game, seq, state)`` and ``thumbnails(game, id, seq, kind, jpeg)``  as in the file.
"""

from __future__ import annotations

import psycopg

from common.errors import InputError

V1 = """
CREATE TABLE games (
    id BIGSERIAL PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    system TEXT NOT NULL,
    players TEXT[] NOT NULL DEFAULT '{}',
    table_name TEXT,
    started TEXT,
    title TEXT NOT NULL,
    meta JSON NOT NULL,  -- json, not jsonb: kept as written, key order and all, so a pulled record is equal
    pushed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE events (
    game BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    t DOUBLE PRECISION NOT NULL,
    wall DOUBLE PRECISION,
    turn INTEGER NOT NULL,
    phase TEXT,
    frame INTEGER,
    piece TEXT,
    data JSON NOT NULL,
    undone BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (game, seq)
);
CREATE TABLE snapshots (
    game BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    state JSON NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE TABLE thumbnails (
    game BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    jpeg BYTEA NOT NULL,
    PRIMARY KEY (game, id)
);
CREATE INDEX games_system ON games(system);
CREATE INDEX games_started ON games(started);
"""

MIGRATIONS: tuple[str, ...] = (V1,)
SCHEMA_VERSION = len(MIGRATIONS)
LOCK = 0x46474C41  # an advisory lock: two tables migrating one archive at once take turns


def schema_version(conn: psycopg.Connection) -> int:
    """The archive's schema version (0: a database with no archive yet)."""
    row = conn.execute("SELECT to_regclass('fieldglass_schema')").fetchone()
    if row[0] is None:
        return 0
    row = conn.execute("SELECT version FROM fieldglass_schema").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: psycopg.Connection) -> int:
    """Bring the archive to SCHEMA_VERSION (creating it in an empty database); InputError for an archive written
    by a newer Fieldglass. Returns the version found before."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS fieldglass_schema (version INTEGER NOT NULL)")
        found = schema_version(conn)
        if found > SCHEMA_VERSION:
            raise InputError(f"the archive was written by a newer Fieldglass (archive version {found}, this one "
                             f"knows up to {SCHEMA_VERSION})")
        for version in range(found, SCHEMA_VERSION):
            for stmt in MIGRATIONS[version].split(";"):
                if stmt.strip():
                    conn.execute(stmt)
        conn.execute("DELETE FROM fieldglass_schema")
        conn.execute("INSERT INTO fieldglass_schema(version) VALUES (%s)", (SCHEMA_VERSION,))
    return found
