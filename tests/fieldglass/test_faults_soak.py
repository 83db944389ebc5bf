"""Issue 15, the soak in its short form: the scripted game recorded for about five minutes of play (a few seconds
of wall time); memory and open handles stay flat, the record grows linearly with its events. The full form is
`fieldglass bench soak` (four hours of play; figures in the README)."""

from __future__ import annotations

import gc
import itertools
import tracemalloc

from fieldglass.benchmarks.soak import GROWTH_LIMIT, SoakSample, soak, summarise
from fieldglass.cli import main
from fieldglass.record import Record
from fieldglass.recording import GameRecorder
from fieldglass.scripted_feed import TRACKER, play, scripted_feed


def test_a_short_soak_keeps_memory_and_handles_flat_and_the_record_growing_linearly(tmp_path):
    path = tmp_path / "soak.fgr"
    result = soak(path, hours=0.08, samples=5)
    first, last = result.samples[0], result.samples[-1]
    assert last.game_s >= 0.07 * 3600 and last.events > 5 * first.events > 0
    assert last.handles <= first.handles  # not one file handle more
    # memory: flat over the second half (the first samples still fill SQLite's page cache and Python's pools)
    half = result.samples[len(result.samples) // 2]
    assert (last.rss - half.rss) / half.rss < GROWTH_LIMIT
    assert result.size_nonlinearity < 0.05 and 100 < result.bytes_per_event < 2000
    rec = Record.open(path)
    assert len(rec.events()) == last.events and rec.problems == []  # the record is whole after the soak
    rec.close()


def test_the_recorder_holds_no_memory_per_event_it_writes(tmp_path):
    """The Python objects a recorder holds after a stretch of the scripted game, against before it (tracemalloc:
    the interpreter's own count, none of the resident set's noise), once a first stretch has filled what only fills
    once (the tracker's and the record's state at their size, caches): well under 100 bytes per event (the few KB
    either way are what is current at the moment). Keeping the events (the live rules once read the whole history)
    held about 700 bytes per event here, 800 in `fieldglass bench soak`: +14 % over four hours."""
    feed = scripted_feed(rounds=400)
    rec = Record.create(tmp_path / "held.fgr", feed.meta)
    recorder = GameRecorder.start(rec, None, TRACKER)
    steps = feed.steps()
    play(recorder, itertools.islice(steps, 300))  # imports, the first turns
    tracemalloc.start()
    try:
        held = []
        for _ in range(2):
            play(recorder, itertools.islice(steps, 900))
            gc.collect()
            held.append((tracemalloc.get_traced_memory()[0], rec.state().seq))
    finally:
        tracemalloc.stop()
        rec.close()
    (first, at), (last, to) = held
    assert to - at > 150 and (last - first) / (to - at) < 100  # a few KB of whatever is current at the moment


def sample(i: int, rss: int, handles: int = 10, size: int | None = None) -> SoakSample:
    return SoakSample(i * 60.0, i * 1.0, i * 100, rss, handles, 300 * i * 100 if size is None else size)


def test_the_summary_tells_a_leak_and_a_record_that_does_not_grow_linearly():
    steady = summarise([sample(i, 100_000_000 + (i % 2) * 1000) for i in range(1, 11)])
    assert steady.flat and abs(steady.bytes_per_event - 300) < 1e-6 and steady.size_nonlinearity < 1e-9
    leaking = summarise([sample(i, 100_000_000 + i * 1_000_000) for i in range(1, 11)])
    assert not leaking.flat and 0.08 < leaking.memory_growth < 0.1
    handles = summarise([sample(i, 100_000_000, handles=10 + i) for i in range(1, 11)])
    assert not handles.flat
    quadratic = summarise([sample(i, 100_000_000, size=1000 * i * i) for i in range(1, 11)])
    assert quadratic.size_nonlinearity > 0.05


def test_bench_soak_wants_positive_hours(capsys):
    assert main(["bench", "soak", "--hours", "0"]) == 2
    assert "--hours must be positive" in capsys.readouterr().err
