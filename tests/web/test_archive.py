"""The club archive on a real PostgreSQL the tests start themselves (tests/web/postgres.py): push, list, pull for
every registered system, a pushed record fetched back equal event for event (and exported alike), idempotent and
resumable pushes, a versioned schema, a recording streamed to the archive while its server is killed and started
again, and the archive's pages in headless chromium. Screenshot: out/screenshots/web-archive.png."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import threading
import time

import psycopg
import pytest

from fieldglass.archive.schema import SCHEMA_VERSION, migrate, schema_version
from fieldglass.archive.store import Follower, connect, following, list_games, pull, push
from fieldglass.archive.web import ArchiveSite
from fieldglass.cli import main as cli_main
from fieldglass.record import Record
from fieldglass.web.scripted import live_systems, record_scripted
from fieldglass.web.server import app_in_thread
from tests.web.conftest import SHOTS
from tests.web.test_replay_page import check_pieces_at


def contents(path) -> dict:
    """Everything a record holds: meta, every event (undone and wall clock included), snapshots, thumbnails."""
    with Record.open(path) as rec:
        return {"meta": rec.meta, "events": rec.events(),
                "snapshots": rec.conn.execute("SELECT seq, state FROM snapshots ORDER BY seq").fetchall(),
                "thumbnails": rec.conn.execute("SELECT id, seq, kind, jpeg FROM thumbnails ORDER BY id").fetchall()}


def exported(path, fmt: str, tmp_path, capsys, *extra) -> str:
    out = tmp_path / f"export-{path.parent.name}.{fmt}"
    assert cli_main(["export", str(path), "--format", fmt, "--out", str(out), *extra]) == 0
    capsys.readouterr()
    return out.read_text(encoding="utf-8")


def cli_push(path, url, capsys, *extra) -> tuple[int, str]:
    assert cli_main(["archive", "push", str(path), "--db", url, *extra]) == 0
    out, err = capsys.readouterr()
    return int(out.strip()), err


def test_every_systems_record_comes_back_equal_event_for_event(records, archive_db, tmp_path, capsys):
    ids = {}
    for system, path in records.items():
        gid, err = cli_push(path, archive_db, capsys, "--table", f"table {system}")
        assert "already archived" not in err
        ids[system] = gid
        again, err = cli_push(path, archive_db, capsys)
        assert again == gid and "0 of" in err and "already archived" in err
        copy = tmp_path / system / path.name  # the same name: the replay page's title comes from it
        copy.parent.mkdir()
        assert cli_main(["archive", "pull", str(gid), "--db", archive_db, "--out", str(copy)]) == 0
        assert contents(copy) == contents(path)
        for fmt in ("jsonl", "report"):
            assert exported(copy, fmt, tmp_path, capsys) == exported(path, fmt, tmp_path, capsys)
        if system == live_systems()[0]:  # the replay page too (one system: a page takes seconds to build)
            assert exported(copy, "html", tmp_path, capsys, "--as", "umpire") == \
                exported(path, "html", tmp_path, capsys, "--as", "umpire")
    assert len(set(ids.values())) == len(records)
    assert cli_main(["archive", "list", "--db", archive_db, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {g["id"] for g in listed} == set(ids.values())
    with Record.open(records[live_systems()[0]]) as rec:
        first = next(g for g in listed if g["id"] == ids[live_systems()[0]])
        assert first["events"] == len(rec.events(clean=True)) and first["table"] == f"table {live_systems()[0]}"


def test_pushing_twice_changes_nothing_and_an_undo_sends_only_its_mark(records, archive_db, tmp_path):
    path = tmp_path / "game.fgr"
    shutil.copy(records[live_systems()[0]], path)
    with connect(archive_db) as conn:
        with Record.open(path) as rec:
            first = push(conn, rec)
        dump = conn.execute("SELECT g.pushed_at, g.meta::text, count(e.*) FROM games g JOIN events e ON e.game = g.id "
                            "GROUP BY g.id").fetchall()
        with Record.open(path) as rec:
            assert push(conn, rec).events == 0
        assert conn.execute("SELECT g.pushed_at, g.meta::text, count(e.*) FROM games g JOIN events e ON e.game = g.id "
                            "GROUP BY g.id").fetchall() == dump
        with Record.open(path, writable=True) as rec:
            undone = rec.undo(2)
        with Record.open(path) as rec:
            again = push(conn, rec)
        assert again.game == first.game and again.events == 2
        assert conn.execute("SELECT seq FROM events WHERE undone ORDER BY seq").fetchall() == \
            sorted((e.seq,) for e in undone)
        pull(conn, first.game, tmp_path / "copy.fgr")
    assert contents(tmp_path / "copy.fgr") == contents(path)


def test_a_push_cut_off_half_way_is_finished_by_the_next(records, archive_db, tmp_path):
    path = records[live_systems()[-1]]

    def cut(sent: int, total: int) -> None:
        if sent >= 6:
            raise KeyboardInterrupt  # the player pulls the cable after two batches

    with connect(archive_db) as conn:
        with Record.open(path) as rec, pytest.raises(KeyboardInterrupt):
            push(conn, rec, batch=3, progress=cut)
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 6
        with Record.open(path) as rec:
            result = push(conn, rec, batch=3)
        assert result.events == result.total - 6
        pull(conn, result.game, tmp_path / "copy.fgr")
    assert contents(tmp_path / "copy.fgr") == contents(path)


def test_search_by_system_player_table_and_date(records, archive_db, capsys):
    with connect(archive_db) as conn:
        for k, path in enumerate(records.values()):
            with Record.open(path) as rec:
                push(conn, rec, table=f"table {k + 1}")
        some = live_systems()[1]
        assert [g.system for g in list_games(conn, system=some)] == [some]
        assert len(list_games(conn, table="TABLE 2")) == 1
        started = list_games(conn)[0].started
        assert started and len(list_games(conn, date=started[:10])) == len(records)
        assert list_games(conn, date="1999") == []
        assert list_games(conn, player="nobody at all") == []
        assert len(list_games(conn, player="ANNA")) == len(records)
    assert cli_main(["archive", "list", "--db", archive_db, "--system", some]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and f" {some} " in out[1]


def test_the_schema_is_versioned_and_a_newer_archive_is_one_line(archive_db, capsys):
    with psycopg.connect(archive_db, autocommit=True) as conn:
        assert schema_version(conn) == 0
        assert migrate(conn) == 0 and schema_version(conn) == SCHEMA_VERSION
        assert migrate(conn) == SCHEMA_VERSION  # nothing to do the second time
        conn.execute("UPDATE fieldglass_schema SET version = %s", (SCHEMA_VERSION + 1,))
    assert cli_main(["archive", "list", "--db", archive_db]) == 2
    err = capsys.readouterr().err
    assert "newer Fieldglass" in err and err.count("\n") == 1


def test_an_unreachable_archive_or_a_missing_game_is_one_line(postgres, archive_db, tmp_path, capsys):
    assert cli_main(["archive", "list", "--db", postgres.url("no_such_db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fieldglass: error: --db: cannot reach the archive database") and err.count("\n") == 1
    assert cli_main(["archive", "pull", "42", "--db", archive_db, "--out", str(tmp_path / "x.fgr")]) == 2
    assert "no game 42 in the archive" in capsys.readouterr().err


def test_a_recording_streamed_to_the_archive_survives_the_server_being_killed(postgres, archive_db, tmp_path):
    path = tmp_path / "live.fgr"
    messages: list[str] = []
    follower = Follower(path, archive_db, table="table 9", poll_s=0.05, retry_s=0.2, log=messages.append)
    thread = threading.Thread(target=follower.run)
    thread.start()
    steps = {"n": 0}

    def step() -> None:
        steps["n"] += 1
        if steps["n"] == 2:
            postgres.kill()  # the archive's server dies mid-game
        elif steps["n"] == 5:
            postgres.start()  # and comes back

    try:
        record_scripted(live_systems()[0], path, rounds=3, between=step)
    finally:
        follower.stop()
        thread.join(60)
    assert not thread.is_alive()
    assert follower.outages >= 1 and any("unreachable" in m for m in messages) and "archive back: caught up" in \
        messages
    with connect(archive_db) as conn:
        gid = list_games(conn, table="table 9")[0].id
        pull(conn, gid, tmp_path / "copy.fgr")
    assert contents(tmp_path / "copy.fgr") == contents(path)


def test_the_archive_site_searches_and_opens_a_games_replay_page(records, archive_db, page):
    with connect(archive_db) as conn:
        ids = {}
        for system, path in records.items():
            with Record.open(path) as rec:
                ids[system] = push(conn, rec, table=f"table of {system}").game
    some = live_systems()[-1]
    with app_in_thread(ArchiveSite(archive_db, "umpire").app()) as url:
        page.goto(url)
        assert page.locator("#games tbody tr").count() == len(records)
        page.select_option("select[name=system]", some)
        page.click("button[type=submit]")
        page.wait_for_selector("#games tbody tr >> nth=0")
        assert page.locator("#games tbody tr").count() == 1
        assert page.get_attribute("#games tbody tr", "data-id") == str(ids[some])
        page.screenshot(path=str(SHOTS / "web-archive.png"))
        page.click("#games tbody tr a")
        page.wait_for_selector("#board[data-index='0']")
        page.click("#last")
        n = page.locator("#events li").count()
        check_pieces_at(page, records[some], n)
        assert page.request.get(url + "games/99999").status == 404


def test_push_follow_from_the_command_line_ends_on_sigterm_after_a_last_push(records, archive_db, tmp_path):
    path = records[live_systems()[0]]
    with Record.open(path) as rec:
        n = len(rec.events(clean=True))
    proc = subprocess.Popen([sys.executable, "-m", "fieldglass", "archive", "push", str(path), "--db", archive_db,
                             "--follow"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with connect(archive_db) as conn:
            while not [g for g in list_games(conn) if g.events == n]:  # until it has pushed the whole record
                assert proc.poll() is None, proc.stderr.read()
                time.sleep(0.05)
            gid = list_games(conn)[0].id
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.strip() == str(gid) and "following" in err


def test_the_recorders_archive_hook_pushes_while_recording_and_says_the_id(archive_db, tmp_path):
    path = tmp_path / "game.fgr"
    said: list[str] = []
    with following(path, archive_db, said.append) as follower:
        record_scripted(live_systems()[0], path)
    assert said[-1] == f"archive id {follower.game}" and follower.pushes >= 1
    with connect(archive_db) as conn:
        pull(conn, follower.game, tmp_path / "copy.fgr")
    assert contents(tmp_path / "copy.fgr") == contents(path)
    with following(path, None) as nothing:
        assert nothing is None
