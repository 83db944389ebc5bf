"""Issue 15, the fault-injection harness for records: the recorder killed at 100 random moments of the scripted game
(seeded: the same moments every run), resumed each time as `fieldglass record --resume` resumes, and the disk filling
at random moments; every time the committed events must equal an uninterrupted run's: nothing lost beyond the event
being written (it is written again after the resume), nothing doubled.

The recorder reads the scripted game's true places (fieldglass/scripted_feed.py), not rendered frames, so that a
hundred resumes take seconds. 95 moments abandon the record in process: its files are copied as they stand on disk
(the record and its side file, as a crash leaves them; the copy is resumed, the old writer dropped). 5 moments are a
real SIGKILL of a forked recorder, struck inside an event's write transaction, before its commit."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import time
from pathlib import Path

import pytest

from fieldglass.record import Record, RecordError
from fieldglass.recording import GameRecorder, open_record
from fieldglass.scripted_feed import TRACKER, play, scripted_feed

SEED = 15
ROUNDS = 24


@pytest.fixture(scope="module")
def feed():
    return scripted_feed(rounds=ROUNDS)


@pytest.fixture(scope="module")
def steps(feed):
    return list(feed.steps())


def same_game(got: list[tuple], ref: list[tuple]) -> bool:
    """Nothing lost, nothing doubled, nothing reordered: the same events in the same order, each piece's history
    interleaved with the players' inputs as in the uninterrupted run (a piece half settled when the recorder died
    goes on settling from where it was: the record's progress keeps the tracker's unsettled state)."""
    return got == ref


def committed(path: Path) -> list[tuple]:
    """The record's events as a game sees them: type, piece and data (the time a move settled may differ after a
    resume: a piece half settled when the recorder died settles again), in order, seq 1..n without a gap."""
    rec = Record.open(path)
    try:
        evs = rec.events()
        assert rec.problems == []
    finally:
        rec.close()
    assert [e.seq for e in evs] == list(range(1, len(evs) + 1))
    return [(e.type, e.piece, e.data) for e in evs]


@pytest.fixture(scope="module")
def reference_record(feed, steps, tmp_path_factory) -> Path:
    """The scripted game recorded without an interruption."""
    path = tmp_path_factory.mktemp("ref") / "ref.fgr"
    rec = Record.create(path, feed.meta)
    assert play(GameRecorder.start(rec, None, TRACKER), steps) is None
    rec.close()
    return path


@pytest.fixture(scope="module")
def reference(reference_record) -> list[tuple]:
    events = committed(reference_record)
    kinds = {k for k, _, _ in events}
    assert len(events) > 50 and {"appeared", "move", "turn", "note", "bookmark"} <= kinds
    return events


def resumed(path: Path, feed) -> tuple[Record, GameRecorder, int]:
    """The record opened again as `fieldglass record --resume` opens it: (record, recorder, first frame to read)."""
    rec, start = open_record(path, feed.meta, resume=True)
    return rec, GameRecorder.start(rec, None, TRACKER), start


def crash_copy(path: Path, to: Path) -> Path:
    """The record's files as a crash leaves them on disk: the record and its side file (the WAL), no shared-memory
    index (SQLite rebuilds it)."""
    shutil.copyfile(path, to)
    wal = Path(f"{path}-wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{to}-wal"))
    return to


def test_the_recorder_abandoned_at_95_random_moments_commits_what_an_uninterrupted_run_does(feed, steps, reference,
                                                                                              tmp_path):
    moments = sorted(random.Random(SEED).sample(range(1, len(steps)), 95))
    path = tmp_path / "g0.fgr"
    rec = Record.create(path, feed.meta)
    recorder, start, done = GameRecorder.start(rec, None, TRACKER), 0, 0
    for n, moment in enumerate(moments, 1):
        assert play(recorder, steps[done:], start, stop=lambda k, m=moment - done: k == m) is not None  # it dies
        crashed = crash_copy(path, tmp_path / f"g{n}.fgr")
        rec.close()  # the dead writer's files are left behind; the crash copy goes on
        rec, recorder, start = resumed(crashed, feed)
        assert start <= steps[moment][1]  # it never skips a frame not yet read
        done = next(i for i, s in enumerate(steps) if s[1] >= start)
        path = crashed
    play(recorder, steps[done:], start)
    rec.close()
    assert same_game(committed(path), reference)


def test_a_recorder_killed_while_a_piece_settles_commits_its_move_before_the_next_input_after_the_resume(
        feed, steps, reference, reference_record, tmp_path):
    """The recorder dies while a moved piece is settling (seen at its new place for 2-3 frames of the 5 its settle
    takes), after a heartbeat and before the move is committed; the players' next input follows the move's commit
    within 2 frames. Resumed from the heartbeat, the piece must go on settling from where it was: settled again
    from the resume, its move was committed after that input."""
    with Record.open(reference_record) as ref:
        evs = ref.events()
    # moves committed at frame c with the next event a player's input at most 2 frames later
    tight = {e.frame: (e.piece, nxt.data["input"]) for e, nxt in zip(evs, evs[1:], strict=False)
             if e.type == "move" and "input" in nxt.data and nxt.frame - e.frame <= 2}
    assert tight
    path = tmp_path / "settling.fgr"
    rec = Record.create(path, feed.meta)
    killed_at = []

    def settling(k: int) -> bool:
        """Before reading the frame that commits a tight move, with the last heartbeat 2 or 3 frames before."""
        if steps[k][0] != "frame" or steps[k][1] not in tight:
            return False
        c = steps[k][1]
        if c - 3 <= rec.progress.get("frame", -1) <= c - 2:
            killed_at.append(c)
            return True
        return False

    assert play(GameRecorder.start(rec, None, TRACKER), steps, 0, stop=settling) is not None
    crashed = crash_copy(path, tmp_path / "crashed.fgr")
    rec.close()
    rec, recorder, start = resumed(crashed, feed)
    assert start > killed_at[0] - 5  # the resume reads again none of the frames the piece settled in
    play(recorder, steps, start)
    rec.close()
    got = committed(crashed)
    piece, input_id = tight[killed_at[0]]
    i = next(i for i, (_, _, data) in enumerate(got) if data.get("input") == input_id)
    assert got[i - 1][:2] == ("move", piece)  # the move just before the input, as uninterrupted
    assert got == reference


def test_a_recorder_killed_around_an_undo_commits_what_an_uninterrupted_run_does(feed, steps, tmp_path):
    """A player's undo (of the note) in the game's first rounds, the recorder killed at each step from just before
    it to a few frames after it and resumed: the same events as without the kill, the undone one marked."""
    at = next(i for i, s in enumerate(steps) if s[0] == "input" and s[2]["type"] == "note")
    game = [*steps[:at + 1], ("input", steps[at][1], {"type": "undo", "count": 1, "_id": "undo1"}),
            *steps[at + 1:at + 40]]
    ref = tmp_path / "ref.fgr"
    rec = Record.create(ref, feed.meta)
    play(GameRecorder.start(rec, None, TRACKER), game)
    rec.close()
    with Record.open(ref) as r:
        want = [(e.type, e.piece, e.data, e.undone) for e in r.events()]
    assert any(u for *_, u in want)
    for moment in range(at, at + 10):
        path = tmp_path / f"u{moment}.fgr"
        rec = Record.create(path, feed.meta)
        play(GameRecorder.start(rec, None, TRACKER), game, 0, stop=lambda k, m=moment: k == m)
        crashed = crash_copy(path, tmp_path / f"u{moment}-crashed.fgr")
        rec.close()
        rec, recorder, start = resumed(crashed, feed)
        play(recorder, game, start)
        rec.close()
        with Record.open(crashed) as r:
            assert [(e.type, e.piece, e.data, e.undone) for e in r.events()] == want, moment


def _killed_writer(path: Path, feed, steps, kill_at: int) -> None:
    """In a forked child: resume (or start) the record and die by SIGKILL inside the `kill_at`-th write transaction,
    after its rows are written and before its commit. Never returns."""
    try:
        real = Record._transaction
        count = [0]

        @contextlib.contextmanager
        def dying(self):
            with real(self):
                yield
                count[0] += 1
                if count[0] == kill_at:
                    os.kill(os.getpid(), signal.SIGKILL)

        Record._transaction = dying
        if path.exists():
            rec, recorder, start = resumed(path, feed)
        else:
            rec, start = Record.create(path, feed.meta), 0
            recorder = GameRecorder.start(rec, None, TRACKER)
        play(recorder, steps, start)
    finally:
        os._exit(3)  # not killed: the moment was past the end of the game


def wait_child(pid: int, bound_s: float = 120.0) -> int:
    """The forked child's exit status; a child stuck past `bound_s` (a lock another thread held at the fork) is killed
    and the test fails rather than hang the suite."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail(f"the forked recorder {pid} was still running after {bound_s:.0f} s")


def test_a_recorder_killed_by_sigkill_inside_a_write_loses_only_that_event_and_doubles_nothing(feed, steps,
                                                                                               reference, tmp_path):
    path = tmp_path / "k.fgr"
    for kill_at in random.Random(SEED + 1).sample(range(2, 40), 5):
        before = committed(path) if path.exists() else []
        pid = os.fork()
        if pid == 0:
            _killed_writer(path, feed, steps, kill_at)
        status = wait_child(pid)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        after = committed(path)
        assert after[:len(before)] == before and same_game(after, [e for e in reference if e in after])
    rec, recorder, start = resumed(path, feed)
    play(recorder, steps, start)
    rec.close()
    assert same_game(committed(path), reference)


def test_a_disk_filling_at_random_moments_loses_nothing_and_the_recording_goes_on(feed, steps, reference, tmp_path):
    """The disk fills at 10 random moments (SQLite's page limit stands in for it: no page more from then on); the
    write that fails is one RecordError line; once there is room the recording is resumed from the record."""
    path = tmp_path / "full.fgr"
    rec = Record.create(path, feed.meta)
    recorder, start, done, failures = GameRecorder.start(rec, None, TRACKER), 0, 0, 0
    for moment in sorted(random.Random(SEED + 2).sample(range(1, len(steps)), 10)):
        if moment <= done:
            continue
        play(recorder, steps[done:], start, stop=lambda k, m=moment - done: k == m)
        pages = rec.conn.execute("PRAGMA page_count").fetchone()[0]
        rec.conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full from now on
        with pytest.raises(RecordError, match="every event recorded before this one is kept"):
            play(recorder, steps[moment:], start)
        failures += 1
        rec.close()
        rec, recorder, start = resumed(path, feed)  # room again
        done = next(i for i, s in enumerate(steps) if s[1] >= start)
    play(recorder, steps[done:], start)
    rec.close()
    assert failures >= 3  # a full disk strikes at the next page the record needs: some moments fall together
    assert same_game(committed(path), reference)
