"""A dashboard recording killed with SIGKILL mid-game (offscreen, in a child process) resumes with every event it had
committed: `fieldglass gui --record GAME.fgr --serve HOST:PORT` (spectators see it meanwhile), killed once its pieces
have appeared, then `--resume`."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("PySide6")

from fieldglass.record import Record  # noqa: E402
from fieldglass.web.server import free_port  # noqa: E402


def _committed(path) -> int:
    """Events committed so far, read as another process reads a record being written (WAL: never blocks it)."""
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0) as conn:
            return int(conn.execute("SELECT count(*) FROM events WHERE undone = 0").fetchone()[0])
    except sqlite3.Error:
        return 0


def _gui(*args: str) -> list[str]:
    return [sys.executable, "-m", "fieldglass", "gui", "--headless", "--resolution", "1280x720", *args]


def test_a_killed_dashboard_recording_resumes_with_every_committed_event(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FIELDGLASS_NO_DIALOGS": "1"}
    game = tmp_path / "game.fgr"
    port = free_port()
    proc = subprocess.Popen(_gui("--frames", "100000", "--record", str(game), "--screenshot", str(tmp_path / "a.png"),
                                 "--serve", f"127.0.0.1:{port}"), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        t0 = time.monotonic()
        while _committed(game) < 25 and time.monotonic() - t0 < 240:
            assert proc.poll() is None, proc.stderr.read().decode(errors="replace")
            time.sleep(0.2)
        seen = _committed(game)
        assert seen >= 25, "the demo table's 24 pieces never appeared in the record"
        # spectators see the game being recorded, as `record --serve` shows it
        t1, state = time.monotonic(), {}
        while time.monotonic() - t1 < 60:  # the spectators' feed follows the record's file (a poll behind it)
            state = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/state", timeout=10).read())
            if state.get("count", 0) > 24:
                break
            time.sleep(0.5)
        assert state.get("count", 0) > 24 and "fr-1-1" in json.dumps(state)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    with Record.open(game) as record:  # as the kill left it: every committed event is there
        assert len(record.events(clean=True)) >= seen
        assert {e.type for e in record.events()} >= {"appeared"}
    out = subprocess.run(_gui("--frames", "3", "--record", str(game), "--resume", "--screenshot",
                              str(tmp_path / "b.png")), env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "(resumed)" in out.stdout
    with Record.open(game) as record:
        events = record.events(clean=True)
        assert len(events) >= seen
        appeared = [e.piece for e in events if e.type == "appeared"]
        assert len(appeared) == len(set(appeared)) == 24  # none twice, none lost
        assert "frame" in record.progress
    # a second dashboard on a record being written is refused, in one line
    again = subprocess.run(_gui("--frames", "1", "--record", str(game)), env=env, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 2 and "already exists" in again.stderr
