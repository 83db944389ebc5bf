"""`fieldglass bench rules`: every-pair analysis of a Wiener Napoleon position, as a dashboard would ask it each
frame.

The scenario is the issue's: a 40 x 20 table with 100 + 100 and 200 + 200 pieces (200 per side is half the fields
occupied), some woods, towns and heights; every piece against every enemy (2 x 200 x 200 = 80,000 ordered pairs):
distance, arcs, line of sight, recognition, fire and melee permission with the capped net modifier, counter-fire
and defence (`rules.wiener.pairs.analyze_all`). Timed: a fresh position (a new frame, nothing cached but the line
tables of the grid size), the same position again, and a position where one piece moved (the last frame's table
is reused); with --reference also the per-pair Python rules on every pair (`analyze_from` for every piece).
"""

from __future__ import annotations

import os
import platform
import random
import time
from dataclasses import replace

from common.fields import FACINGS, field_name
from rules.system import CliOption
from rules.wiener.analysis import analyze_from
from rules.wiener.model import position_from_dict
from rules.wiener.pairs import _grid_lines, analyze_all

EPILOG = """\
examples:
  fieldglass bench rules                  100 and 200 pieces per side on 40 x 20
  fieldglass bench rules --pieces 50      one lighter table
  fieldglass bench rules --reference      also time the per-pair reference rules (about 5 s)
"""

TYPES = [("infantry", "line"), ("infantry", "column"), ("infantry", "skirmish"), ("light_cavalry", None),
         ("heavy_cavalry", None), ("artillery", None), ("general", None)]


def scenario(pieces_per_side: int = 200, cols: int = 40, rows: int = 20, seed: int = 1):
    """A random legal position: side FR in the south half, AU in the north half, terrain scattered."""
    rng = random.Random(seed)
    cells = [(c, r) for c in range(cols) for r in range(rows)]
    rng.shuffle(cells)
    fields = {}
    for c, r in cells[: cols * rows // 10]:
        fields[field_name(c, r)] = rng.choice([{"terrain": "wood"}, {"terrain": "town"}, {"height": 1},
                                               {"height": 2}, {"terrain": "road"}])
    pieces = []
    for side, rows_ in (("FR", range(0, rows // 2)), ("AU", range(rows // 2, rows))):
        free = [(c, r) for c in range(cols) for r in rows_]
        rng.shuffle(free)
        for i in range(pieces_per_side):
            c, r = free[i]
            ptype, formation = rng.choice(TYPES)
            if fields.get(field_name(c, r), {}).get("terrain") in ("wood", "town") and ptype != "infantry":
                ptype, formation = "infantry", "line"
            p = {"id": f"{side.lower()}-{i}", "side": side, "type": ptype, "field": field_name(c, r),
                 "facing": "N" if side == "FR" else "S"}
            if rng.random() < 0.3:
                p["facing"] = rng.choice(FACINGS)
            if formation:
                p["formation"] = formation
            if ptype == "infantry" and formation == "column":
                p["bases"] = 3
            pieces.append(p)
    return position_from_dict({"system": "wiener", "grid": {"cols": cols, "rows": rows}, "night": False,
                               "fields": fields, "edges": [], "pieces": pieces}, "bench scenario")


def measure(pieces_per_side: int = 200, repeats: int = 5, seed: int = 1, reference: bool = False) -> dict:
    _grid_lines.cache_clear()
    t0 = time.perf_counter()
    analyze_all(scenario(pieces_per_side, seed=seed + 1000))
    first = time.perf_counter() - t0
    fresh = []
    for r in range(repeats):
        pos = scenario(pieces_per_side, seed=seed + r)  # a new frame: no per-position caches carried over
        t0 = time.perf_counter()
        table = analyze_all(pos)
        fresh.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    same = analyze_all(pos, previous=table)
    unchanged = time.perf_counter() - t0
    assert same is table
    rng = random.Random(seed)
    moves = []
    for r in range(repeats * 4 + 1):
        free = [(c, w) for c in range(pos.cols) for w in range(pos.rows) if (c, w) not in pos.occupants]
        mover = rng.choice(pos.pieces)
        nxt = pos.with_pieces(replace(q, field=rng.choice(free), facing=rng.choice(FACINGS)) if q.id == mover.id
                              else q for q in pos.pieces)
        t0 = time.perf_counter()
        table = analyze_all(nxt, previous=table)
        if r:  # the first move also builds the grid's line-membership table, once per grid size
            moves.append(time.perf_counter() - t0)
        pos = nxt
    a = pos.pieces[0]
    b = next(p for p in pos.pieces if p.side != a.side)
    t0 = time.perf_counter()
    table.details(a.id, b.id)
    detail = time.perf_counter() - t0
    out = {"pieces": len(pos.pieces), "pairs": len(table), "first_s": first, "fresh_s": min(fresh),
           "fresh_median_s": sorted(fresh)[len(fresh) // 2], "unchanged_s": unchanged, "moved_s": min(moves),
           "moved_median_s": sorted(moves)[len(moves) // 2], "detail_s": detail,
           "fire_pairs": int(table.fire_allowed.sum()), "seen_pairs": int(table.line_of_sight.sum())}
    if reference:
        t0 = time.perf_counter()
        for p in pos.pieces:
            analyze_from(pos, p.id)
        out["reference_s"] = time.perf_counter() - t0
    return out


NAME = "rules"
HELP = "Wiener Napoleon every-pair analysis on a 40 x 20 table with 100 and 200 pieces per side"
OPTIONS = (
    CliOption(("--pieces",), "pieces per side (default: 100, then 200)", {"type": int}),
    CliOption(("--repeats",), "frames to time (default 5)", {"type": int, "default": 5}),
    CliOption(("--seed",), "the scenario's random seed", {"type": int, "default": 1}),
    CliOption(("--reference",), "also time the per-pair reference rules on every pair", {"action": "store_true"}),
)


def run(args) -> int:
    print(f"fieldglass bench rules  ({os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()})")
    for per in [args.pieces] if args.pieces else [100, 200]:
        m = measure(per, args.repeats, args.seed, args.reference)
        print(f"\n40 x 20 fields, {m['pieces']} pieces ({per} + {per}): {m['pairs']} ordered enemy pairs per frame "
              f"({m['seen_pairs']} in sight, {m['fire_pairs']} may fire)")
        print(f"  fresh position       {m['fresh_s'] * 1000:8.1f} ms  (median {m['fresh_median_s'] * 1000:.1f} ms; "
              f"{1 / m['fresh_s']:.0f} frames/s)")
        print(f"  first in a process   {m['first_s'] * 1000:8.1f} ms  (builds the line tables of the grid size once)")
        print(f"  unchanged position   {m['unchanged_s'] * 1000:8.3f} ms  (the last frame's table)")
        print(f"  one piece moved      {m['moved_s'] * 1000:8.1f} ms  (median {m['moved_median_s'] * 1000:.1f} ms; "
              f"only the pairs it touches)")
        print(f"  one pair in full     {m['detail_s'] * 1000:8.2f} ms  (every modifier and reason, on demand)")
        if "reference_s" in m:
            print(f"  per-pair reference   {m['reference_s'] * 1000:8.1f} ms  (analyze_from for every piece)")
    return 0
