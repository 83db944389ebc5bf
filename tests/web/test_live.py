"""Live spectators (`fieldglass serve`): a page in headless chromium follows a scripted recording event by event,
a page opened late catches up, the stream gives a reconnecting spectator exactly the events it missed, and a bounded
load test (50 spectators, about 10 s, the server a child process) delivers every event to each with the server's
memory flat. `fieldglass bench web` is the 60 s version. Screenshot: out/screenshots/web-live.png."""

from __future__ import annotations

import json
import re
import shutil
import time

import httpx
import pytest

from common.errors import InputError
from fieldglass.benchmarks.web import run_load
from fieldglass.cli import main as cli_main
from fieldglass.record import Record
from fieldglass.replay_session import ReplaySession
from fieldglass.web.live import GameFeed, live_app, parse_address
from fieldglass.web.scripted import live_systems, record_scripted
from fieldglass.web.server import app_in_thread, free_port, spectators
from tests.web.conftest import SHOTS
from tests.web.test_replay_page import check_pieces_at


def last_seq(path) -> int:
    with Record.open(path) as rec:
        return max(e.seq for e in rec.events())


def test_a_live_page_follows_a_recording_and_a_late_one_catches_up(browser_context, page, tmp_path):
    system = live_systems()[0]
    path = tmp_path / "live.fgr"  # not there yet: the server waits for the recorder
    steps = []
    with app_in_thread(live_app(GameFeed(path, "umpire"), poll_s=0.05)) as url:
        page.goto(url)
        page.wait_for_selector("#status.live")

        def follow() -> None:
            seq = last_seq(path)
            page.wait_for_selector(f"#board[data-seq='{seq}']")  # the page shows the newest committed event
            with Record.open(path) as rec:
                n = len(rec.events(clean=True))
            assert page.get_attribute("#board", "data-count") == str(n)
            # the live page draws what the replay draws at the same moment: the record's pieces
            page.evaluate("() => document.getElementById('board').setAttribute('data-index', "
                          "document.getElementById('board').dataset.count)")
            check_pieces_at(page, path, n)
            steps.append(seq)

        record_scripted(system, path, between=follow)
        assert len(steps) >= 5
        with Record.open(path) as rec:
            events = rec.events(clean=True)
        newest = page.locator("#events li").first
        assert newest.get_attribute("data-seq") == str(events[-1].seq)
        assert int(page.get_attribute("#board", "data-received")) == len(events)  # each event once
        page.screenshot(path=str(SHOTS / "web-live.png"))

        late = browser_context.new_page()  # a spectator who comes (back) after the game
        late.goto(url)
        late.wait_for_selector(f"#board[data-seq='{events[-1].seq}']")
        assert int(late.get_attribute("#board", "data-received")) == len(events)
        assert late.locator("#events li").count() == min(len(events), 12)
        late.close()
        page.goto("about:blank")  # the stream closed before the server stops


def test_a_reconnecting_spectator_gets_exactly_the_events_it_missed(records):
    path = records[live_systems()[0]]
    with Record.open(path) as rec:
        seqs = [e.seq for e in rec.events(clean=True)]
    with app_in_thread(live_app(GameFeed(path, "umpire"))) as url, httpx.Client(timeout=10) as client:
        state = client.get(url + "state").json()
        assert state["seq"] == seqs[-1] and state["count"] == len(seqs)
        missed_from = seqs[len(seqs) // 2]
        with client.stream("GET", url + "events", headers={"Last-Event-ID": str(missed_from)}) as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            data = next(json.loads(line[6:]) for line in resp.iter_lines() if line.startswith("data: "))
        assert [r["seq"] for r in data["new"]] == [s for s in seqs if s > missed_from]
        assert data["items"]  # and the whole board, to draw at once
        bad = client.get(url + "events", headers={"Last-Event-ID": "yesterday"})
        assert bad.status_code == 400


def test_the_feed_rebuilds_only_when_the_record_changed(tmp_path):
    path = tmp_path / "game.fgr"
    feed = GameFeed(path)
    assert not feed.poll() and feed.view is None  # no record yet
    record_scripted(live_systems()[0], path)
    assert feed.poll() and feed.version == 1
    assert not feed.poll()  # nothing new
    with Record.open(path, writable=True) as rec:
        rec.heartbeat(999, 99.0)  # a commit no spectator sees
    assert not feed.poll() and feed.version == 1
    with Record.open(path, writable=True) as rec:
        rec.append("bookmark", 100.0, 1000, None, {"label": "later"})
    assert feed.poll() and feed.version == 2 and feed.view.rows[-1]["text"] == "bookmark: later"
    feed.close()


def test_addresses_are_loopback_unless_named_and_bad_ones_are_one_line(records, capsys):
    assert parse_address(":9000") == ("127.0.0.1", 9000)
    assert parse_address("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_address("[::1]:8080") == ("::1", 8080)
    assert cli_main(["serve", str(records[live_systems()[0]]), "--address", "localhost:http"]) == 2
    assert "the port must be a number" in capsys.readouterr().err
    assert cli_main(["serve", str(records[live_systems()[0]]), "--as", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err


def test_fifty_spectators_get_every_event_and_the_server_memory_stays_flat(tmp_path):
    figures = run_load(live_systems()[0], spectators=50, seconds=10.0, folder=tmp_path)
    print("\n".join(figures.lines()))
    assert len(figures.events) > 20
    assert figures.complete() == 50, [len(s.seqs) for s in figures.got]
    assert figures.rss_growth_kb() < 8 * 1024, figures.rss_kb


def test_the_current_combat_and_its_result_show_until_the_next_turn(records, tmp_path):
    path = tmp_path / "game.fgr"
    shutil.copy(records[live_systems()[0]], path)
    with Record.open(path) as rec:
        ids = [p["id"] for p in rec.meta["roster"]]
    feed = GameFeed(path, "umpire")
    assert feed.poll() and feed.view.combat is None
    with Record.open(path, writable=True) as rec:
        rec.append("combat", 50.0, 500, None, {"action": "melee", "pieces": [ids[0], ids[-1]], "winner": ids[0],
                                               "effect": "retreat"})
        rec.append("note", 51.0, 510, None, {"text": "what a charge"})
    assert feed.poll()
    combat = feed.view.combat
    assert combat is not None and combat["type"] == "combat"
    assert ids[0] in combat["text"] and ids[-1] in combat["text"] and "retreat" in combat["text"]
    with Record.open(path, writable=True) as rec:
        rec.append("turn", 60.0, 600, None, {})
    assert feed.poll() and feed.view.combat is None  # a new turn: no combat yet
    feed.close()


def test_the_feed_follows_a_record_replaced_by_a_new_recording(records, tmp_path):
    path = tmp_path / "game.fgr"
    shutil.copy(records[live_systems()[0]], path)
    feed = GameFeed(path)
    assert feed.poll() and feed.view.count > 5
    with Record.open(path) as old:
        meta = old.meta
    with Record.create(path, meta, overwrite=True) as new:  # `fieldglass record --overwrite` starts again
        new.append("bookmark", 1.0, 1, None, {"label": "a new game"})
    assert feed.poll() and feed.view.count == 1 and feed.view.rows[0]["text"] == "bookmark: a new game"
    feed.close()


def test_the_recorders_serve_hook_shows_the_record_while_it_runs(records):
    path = records[live_systems()[0]]
    port = free_port()
    with spectators(path, f"127.0.0.1:{port}", "umpire") as url:
        assert url == f"http://127.0.0.1:{port}/"
        state = httpx.get(url + "state", timeout=10).json()
        with Record.open(path) as rec:
            assert state["count"] == len(rec.events(clean=True)) and state["viewer"] == "umpire"
        with pytest.raises(InputError, match=f"cannot listen on 127.0.0.1:{port}"), \
                spectators(path, f"127.0.0.1:{port}"):
            pass
    with spectators(path, None) as url:
        assert url is None
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/state", timeout=2)  # stopped with the recording


def test_a_record_that_cannot_be_shown_is_said_and_the_server_stays_up(records, tmp_path):
    path = tmp_path / "game.fgr"
    feed = GameFeed(path, "nobody")  # no record yet, so the view could not be checked when the server started
    with app_in_thread(live_app(feed, poll_s=0.02)) as url, httpx.Client(timeout=10) as client:
        assert client.get(url + "state").json()["count"] == 0
        shutil.copy(records[live_systems()[0]], path)
        for _ in range(500):  # until the poller has looked at the new file (it looks every 20 ms)
            state = client.get(url + "state").json()
            if "error" in state:
                break
            time.sleep(0.02)
        assert "nobody" in state["error"] and state["count"] == 0
        assert client.get(url).status_code == 200


def test_a_sides_live_view_withholds_what_that_side_may_not_see(records):
    """For every side of every system with hidden information: nothing a spectator of that side is sent names a
    piece the side may not name yet (the umpire's view names them all)."""
    checked = 0
    for path in records.values():
        with Record.open(path) as rec:
            session = ReplaySession(rec)
            session.to_end()
            hidden = {}
            for side in (v for v in session.viewers if v not in ("public", "umpire")):
                session.set_viewer(side)
                session.piece_views()
                hidden[side] = session.hidden_at()
        for side, ids in hidden.items():
            if not ids:
                continue
            feeds = {view: GameFeed(path, view) for view in (side, "umpire")}
            sent = {}
            for view, feed in feeds.items():
                assert feed.poll()
                sent[view] = json.dumps(feed.view.message(None))
                feed.close()
            for pid in ids:
                assert re.search(rf"\b{re.escape(pid)}\b", sent["umpire"])
                assert not re.search(rf"\b{re.escape(pid)}\b", sent[side]), (path.name, side, pid)
                checked += 1
    assert checked, "no registered system hides anything: this test checked nothing"
