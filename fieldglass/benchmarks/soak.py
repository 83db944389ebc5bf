"""`fieldglass bench soak`: a long game recorded at accelerated speed, watched for leaks.

The scripted game (fieldglass/scripted_feed.py: the real recorder, tracker and record, the camera replaced by the
pieces' true places, 5 frames a second of game time) is played for the equivalent of `--hours` hours; at `--samples`
even intervals the process's memory (resident set size), its open file handles and the record's size are taken.
Memory and handles must stay flat (growth under 5 % from the first sample after warming up to the last) and the
record must grow linearly with the events (every event costs about the same bytes)."""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from common.errors import InputError
from fieldglass.record import Record
from fieldglass.recording import GameRecorder
from fieldglass.scripted_feed import FRAME_S, FRAMES_PER_STEP, TRACKER, play, scripted_feed

EPILOG = """\
examples:
  fieldglass bench soak                   four hours of play (about 9,000 turns and 18,000 events)
  fieldglass bench soak --hours 0.25      a quarter of an hour, for a first look
"""

GROWTH_LIMIT = 0.05
"""Memory and open handles may grow by at most 5 % over the soak."""

STEP_S = FRAMES_PER_STEP * FRAME_S
"""Seconds of game time in one round of the scripted game (a turn and a move)."""


@dataclass(frozen=True)
class SoakSample:
    """One look at the recorder: game time (s), wall time (s), events in the record, resident memory (bytes), open
    file handles, the record's size (bytes, `record_size`)."""

    game_s: float
    wall_s: float
    events: int
    rss: int
    handles: int
    size: int


@dataclass(frozen=True)
class SoakResult:
    samples: list[SoakSample]
    memory_growth: float  # relative, from the first sample to the last
    handle_growth: float
    bytes_per_event: float  # the slope of size against events
    size_nonlinearity: float  # the largest distance of a sample's size from that line, relative to the final size
    memory_per_event: float  # bytes of memory grown per event recorded, from the first sample to the last

    @property
    def flat(self) -> bool:
        return self.memory_growth < GROWTH_LIMIT and self.handle_growth < GROWTH_LIMIT


def rss_bytes() -> int:
    """The process's resident memory now (Linux: /proc; elsewhere the peak, which can only hide a leak's start)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def open_handles() -> int:
    """The process's open file descriptors (Linux and macOS: the fd folder)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        if os.path.isdir(folder):
            return len(os.listdir(folder))
    return 0


def record_size(rec: Record) -> int:
    """The record's size as its clean close leaves it (bytes): its pages, wherever they are now (the side file is
    reused after each checkpoint, so the two files on disk say little of the record's growth)."""
    pages = rec.conn.execute("PRAGMA page_count").fetchone()[0]
    return pages * rec.conn.execute("PRAGMA page_size").fetchone()[0]


def soak(path: Path, hours: float, samples: int = 10, system: str | None = None) -> SoakResult:
    """Record `hours` of the scripted game into `path`, taking `samples` looks at even intervals after a warm-up
    (the first tenth of the game, when imports, caches and SQLite's page cache fill)."""
    rounds = max(2, round(hours * 3600 / STEP_S))
    feed = scripted_feed(system, rounds)
    rec = Record.create(path, feed.meta, overwrite=True)
    recorder = GameRecorder.start(rec, None, TRACKER)
    steps = feed.steps()
    total = rounds * (FRAMES_PER_STEP + 1) + 2 * FRAMES_PER_STEP + 3  # the steps of script(): frames and inputs
    warm = total // 10
    chunk = max(1, (total - warm) // samples)
    out: list[SoakSample] = []
    t0 = time.perf_counter()
    try:
        play(recorder, itertools.islice(steps, warm))
        while True:
            gc.collect()
            out.append(SoakSample(recorder.tracker.t or 0.0, time.perf_counter() - t0, rec.state().seq,
                                  rss_bytes(), open_handles(), record_size(rec)))
            batch = itertools.islice(steps, chunk)  # never a list: the soak must hold no more than a recorder does
            first = next(batch, None)
            if first is None:
                break
            play(recorder, itertools.chain([first], batch))
    finally:
        rec.close()
    return summarise(out)


def summarise(samples: list[SoakSample]) -> SoakResult:
    """Growth of memory and handles, and how straight the record's size runs against its events."""
    first, last = samples[0], samples[-1]
    n = len(samples)
    mx = sum(s.events for s in samples) / n
    my = sum(s.size for s in samples) / n
    var = sum((s.events - mx) ** 2 for s in samples)
    slope = sum((s.events - mx) * (s.size - my) for s in samples) / var if var else 0.0
    worst = max(abs(s.size - (my + slope * (s.events - mx))) for s in samples)
    return SoakResult(samples, (last.rss - first.rss) / first.rss, (last.handles - first.handles) / first.handles,
                      slope, worst / max(last.size, 1), (last.rss - first.rss) / max(last.events - first.events, 1))


def add_parser(which) -> None:
    p = which.add_parser("soak", help="a long scripted game recorded at speed: memory, handles, record size",
                         description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hours", type=float, default=4.0, help="hours of play to record (default 4)")
    p.add_argument("--samples", type=int, default=10, help="looks at the recorder (default 10)")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.hours <= 0 or args.samples < 2:
        raise InputError("--hours must be positive and --samples at least 2")
    with tempfile.TemporaryDirectory() as folder:
        result = soak(Path(folder) / "soak.fgr", args.hours, args.samples)
    print(f"soak: {args.hours:g} h of play recorded (game time / wall time / events / memory / handles / record)")
    for s in result.samples:
        print(f"  {s.game_s / 3600:5.2f} h  {s.wall_s:7.1f} s  {s.events:6d} events  {s.rss / 2**20:7.1f} MiB  "
              f"{s.handles:3d} handles  {s.size / 2**20:7.2f} MiB")
    print(f"memory {100 * result.memory_growth:+.1f} %, handles {100 * result.handle_growth:+.1f} % "
          f"(limit {100 * GROWTH_LIMIT:.0f} %); memory {result.memory_per_event:.0f} bytes/event; "
          f"record {result.bytes_per_event:.0f} bytes/event, "
          f"{100 * result.size_nonlinearity:.1f} % off a straight line")
    return 0 if result.flat else 1
