"""`fieldglass bench dbx`: the engine work of one element selection on the DBX dashboard.

The scene is the synthetic DBX demo (rules/dbx/demo.py: DEMO_GAME on a 600 x 600 mm table with a wood and a
gentle hill). For every element the dashboard's selection is asked of a fresh adapter (`DbxSystem.selection` then
`DbxSystem.targets`: rules.dbx.analysis.analyze_from, zone of control, fire zone, reachable area, contacts), on a new
position object each time, so nothing is remembered from an earlier selection. Printed: the time per selection
(median and worst over the elements), and with --profile the hottest engine functions.
"""

from __future__ import annotations

import cProfile
import dataclasses
import io
import os
import platform
import pstats
import statistics
import time

from rules.dbx.adapter import DbxSystem
from rules.dbx.demo import demo_position  # the table the dashboard shows with --source synthetic
from rules.system import CliOption

EPILOG = """\
examples:
  fieldglass bench dbx                    every demo element selected, 3 rounds
  fieldglass bench dbx --repeats 10       more rounds
  fieldglass bench dbx --profile          also the 25 hottest functions (cProfile, cumulative)
"""


def select_once(pos, pid: str, options=None):
    """One selection as the dashboard asks it: a fresh adapter, the overlay and the targets panel."""
    system = DbxSystem(options)
    sel = system.selection(pos, pid)
    rows = system.targets(pos, pid)
    return sel, rows


def measure(repeats: int = 3) -> dict:
    """Seconds per selection for every demo element, `repeats` rounds (each on a new position object)."""
    base = demo_position()
    select_once(base, base.pieces[0].id)  # imports and first-use tables out of the timing
    times: dict[str, list[float]] = {p.id: [] for p in base.pieces}
    for _ in range(repeats):
        for p in base.pieces:
            pos = dataclasses.replace(base, pieces=tuple(dataclasses.replace(q) for q in base.pieces))
            t0 = time.perf_counter()
            select_once(pos, p.id)
            times[p.id].append(time.perf_counter() - t0)
    per = {pid: min(ts) for pid, ts in times.items()}
    allt = [t for ts in times.values() for t in ts]
    return {"per_piece": per, "median": statistics.median(allt), "worst": max(allt), "mean": statistics.mean(allt),
            "elements": len(per), "repeats": repeats}


def profile(limit: int = 25) -> str:
    pos = demo_position()
    select_once(pos, pos.pieces[0].id)
    pr = cProfile.Profile()
    pr.enable()
    for p in pos.pieces:
        select_once(demo_position(), p.id)
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(limit)
    return s.getvalue()


NAME = "dbx"
HELP = "DBX dashboard: engine time of one element selection on the synthetic demo table"
OPTIONS = (
    CliOption(("--repeats",), "rounds over every demo element (default 3)", {"type": int, "default": 3}),
    CliOption(("--profile",), "also print the hottest functions (cProfile)", {"action": "store_true"}),
)


def run(args) -> int:
    print(f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} cores, "
          f"python {platform.python_version()}")
    r = measure(max(1, int(getattr(args, "repeats", 3))))
    print(f"DBX selection on the synthetic demo ({r['elements']} elements, {r['repeats']} rounds): "
          f"median {r['median'] * 1000:.1f} ms, mean {r['mean'] * 1000:.1f} ms, worst {r['worst'] * 1000:.1f} ms "
          "per selection")
    for pid, t in r["per_piece"].items():
        print(f"  {pid:4s} {t * 1000:8.1f} ms")
    if getattr(args, "profile", False):
        print(profile())
    return 0
