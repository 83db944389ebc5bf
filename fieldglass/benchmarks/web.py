"""`fieldglass bench web`: many spectators on one live game on loopback: is every event delivered to each, how soon
after it was committed, and does the server's memory stay flat."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from fieldglass.record import Record
from fieldglass.web.scripted import live_systems, record_scripted
from fieldglass.web.server import serve_subprocess

EPILOG = """\
examples:
  fieldglass bench web                        50 spectators for 60 s on one game being recorded
  fieldglass bench web --spectators 200 --seconds 30 --system dbx
"""

STEP_S = 0.25  # the scripted game commits a step (a turn, a move) this often


@dataclass
class Spectator:
    """What one spectator got: every event seq in the order received, and when (wall clock, s) each arrived."""

    seqs: list[int] = field(default_factory=list)
    arrived: dict[int, float] = field(default_factory=dict)
    reconnects: int = 0


@dataclass
class LoadFigures:
    spectators: int
    seconds: float
    events: list[int]
    got: list[Spectator]
    latency_s: list[float]
    rss_kb: list[tuple[float, int]]  # (s since start, the server's resident memory)

    def complete(self) -> int:
        """How many spectators got every event exactly once, in order."""
        return sum(1 for s in self.got if s.seqs == self.events)

    def rss_growth_kb(self) -> int:
        """The server's memory at the end less its memory once the first spectators were served."""
        settled = [kb for t, kb in self.rss_kb if t >= min(2.0, self.seconds / 4)]
        return (settled[-1] - settled[0]) if len(settled) >= 2 else 0

    def lines(self) -> list[str]:
        lat = sorted(self.latency_s)
        out = [f"{self.spectators} spectators, {self.seconds:.0f} s, {len(self.events)} events committed",
               f"  every event to every spectator: {self.complete()}/{self.spectators} spectators complete, "
               f"{sum(len(s.seqs) for s in self.got)} deliveries",
               f"  reconnects: {sum(s.reconnects for s in self.got)}"]
        if lat:
            out.append(f"  commit -> spectator: median {statistics.median(lat) * 1000:.0f} ms, "
                       f"95% {lat[int(0.95 * (len(lat) - 1))] * 1000:.0f} ms, max {lat[-1] * 1000:.0f} ms")
        if self.rss_kb:
            out.append(f"  server memory: {self.rss_kb[0][1] / 1024:.1f} MB at the start, "
                       f"{self.rss_kb[-1][1] / 1024:.1f} MB at the end, growth after warm-up "
                       f"{self.rss_growth_kb() / 1024:+.1f} MB")
        return out


def rss_kb(pid: int) -> int:
    """A process's resident memory (Linux /proc), kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def spectate(client: httpx.AsyncClient, url: str, got: Spectator, done: asyncio.Event) -> None:
    """Follow the stream until `done` is set, reconnecting with the last seq had (as a browser does)."""
    last: str | None = None
    while not done.is_set():
        headers = {"Last-Event-ID": last} if last else {}
        try:
            async with client.stream("GET", url + "events", headers=headers, timeout=None) as resp:
                async for line in resp.aiter_lines():
                    if line.startswith("id: "):
                        last = line[4:]
                    elif line.startswith("data: "):
                        now = time.time()  # the wall clock, as the record's commit times
                        for row in json.loads(line[6:])["new"]:
                            got.seqs.append(row["seq"])
                            got.arrived[row["seq"]] = now
                    if done.is_set():
                        return
        except (httpx.TransportError, httpx.HTTPStatusError):
            got.reconnects += 1
            await asyncio.sleep(0.2)


async def _crowd(url: str, n: int, got: list[Spectator], done: asyncio.Event) -> None:
    limits = httpx.Limits(max_connections=n + 4, max_keepalive_connections=0)
    async with httpx.AsyncClient(limits=limits) as client:
        tasks = [asyncio.create_task(spectate(client, url, g, done)) for g in got]
        await done.wait()
        await asyncio.sleep(0)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def run_load(system: str, spectators: int, seconds: float, folder: Path) -> LoadFigures:
    """`spectators` following `fieldglass serve` (a child process) while the scripted game of `system` is recorded
    for about `seconds`; returns what each got and the server's memory over time."""
    path = folder / "live.fgr"  # written only once the server and the crowd wait for it
    got = [Spectator() for _ in range(spectators)]
    rss: list[tuple[float, int]] = []
    with serve_subprocess(path, "umpire") as (url, pid):
        loop = asyncio.new_event_loop()
        done = asyncio.Event()
        crowd = threading.Thread(target=loop.run_until_complete, args=(_crowd(url, spectators, got, done),))
        crowd.start()
        t0 = time.monotonic()
        time.sleep(1.0)  # every spectator connected, waiting for the game
        rounds = max(1, int(seconds / (2 * STEP_S)))

        def pace() -> None:
            rss.append((time.monotonic() - t0, rss_kb(pid)))
            time.sleep(STEP_S)

        record_scripted(system, path, rounds=rounds, between=pace)
        with Record.open(path) as rec:
            events = [e.seq for e in rec.events(clean=True)]
            committed = {e.seq: e.wall for e in rec.events() if e.wall is not None}
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and any(s.seqs[-1:] != events[-1:] for s in got):
            time.sleep(0.1)
        rss.append((time.monotonic() - t0, rss_kb(pid)))
        loop.call_soon_threadsafe(done.set)
        crowd.join()
        loop.close()
        elapsed = time.monotonic() - t0
    lat = [s.arrived[q] - committed[q] for s in got for q in s.arrived if q in committed]
    return LoadFigures(spectators, elapsed, events, got, lat, rss)


def add_parser(which) -> None:
    p = which.add_parser("web", help="live spectators: delivery, latency and memory with many at once",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spectators", type=int, default=50, help="spectators at once (default 50)")
    p.add_argument("--seconds", type=float, default=60.0, help="how long the game is recorded (default 60)")
    p.add_argument("--system", default=None, help="the game system (default the first registered with live rules)")
    p.set_defaults(run=run)


def run(args) -> int:
    system = args.system or live_systems()[0]
    with tempfile.TemporaryDirectory() as folder:
        figures = run_load(system, args.spectators, args.seconds, Path(folder))
    for line in figures.lines():
        print(line)
    return 0 if figures.complete() == figures.spectators else 1
