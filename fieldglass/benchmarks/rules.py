"""`fieldglass bench rules`: every-pair analysis of a Wiener Napoleon position, as a dashboard would ask it each frame.

The scenario is the issue's: a 40 x 20 table with 200 pieces per side (half the fields occupied), some woods,
towns and heights; every piece is analysed against every enemy (2 x 200 x 200 = 80,000 ordered pairs):
distance, arcs, line of sight, recognition, fire and melee permission with modifiers, counter-fire and defence.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time

from calibration.grid import FACINGS, field_name

EPILOG = """\
examples:
  fieldglass bench rules                  200 pieces per side on 40 x 20, 3 repeats
  fieldglass bench rules --pieces 50      a lighter table
"""

TYPES = [("infantry", "line"), ("infantry", "column"), ("infantry", "skirmish"), ("light_cavalry", None),
         ("heavy_cavalry", None), ("artillery", None), ("general", None)]


def scenario(pieces_per_side: int = 200, cols: int = 40, rows: int = 20, seed: int = 1):
    """A random legal position: side FR in the south half, AU in the north half, terrain scattered."""
    from rules.wiener.model import position_from_dict

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


def measure(pieces_per_side: int = 200, repeats: int = 3, seed: int = 1) -> dict:
    from rules.geometry import line_offsets
    from rules.wiener.analysis import analyze_all

    pos = scenario(pieces_per_side, seed=seed)
    line_offsets.cache_clear()
    times = []
    pairs = 0
    for _ in range(repeats):
        fresh = scenario(pieces_per_side, seed=seed)  # a new frame: no per-position caches carried over
        t0 = time.perf_counter()
        pairs = analyze_all(fresh)
        times.append(time.perf_counter() - t0)
    from rules.wiener.analysis import analyze_from

    t0 = time.perf_counter()
    for p in pos.pieces[:50]:
        analyze_from(pos, p.id)
    one = (time.perf_counter() - t0) / 50
    return {"pieces": len(pos.pieces), "pairs": pairs, "cold_s": times[0], "best_s": min(times),
            "pairs_per_s": pairs / min(times), "one_piece_s": one}


def add_parser(which) -> None:
    """Register `bench rules` on the bench command's sub-parsers."""
    r = which.add_parser(
        "rules",
        help="Wiener Napoleon every-pair analysis on a 40 x 20 table with 200 pieces per side",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("--pieces", type=int, default=200, help="pieces per side (default 200)")
    r.add_argument("--repeats", type=int, default=3, help="frames to time (default 3)")
    r.add_argument("--seed", type=int, default=1)
    r.set_defaults(run=run_rules_bench)


def run_rules_bench(args) -> int:
    print(f"fieldglass bench rules  ({os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()})")
    m = measure(args.pieces, args.repeats, args.seed)
    print(f"position: 40 x 20 fields, {m['pieces']} pieces ({args.pieces} per side)")
    print(f"every enemy pair: {m['pairs']} ordered pairs per frame")
    print(f"  first frame  {m['cold_s'] * 1000:8.1f} ms")
    print(f"  best frame   {m['best_s'] * 1000:8.1f} ms   = {1 / m['best_s']:.2f} frames/s, "
          f"{m['pairs_per_s'] / 1000:.0f}k pairs/s")
    print(f"one piece against every enemy ({args.pieces} targets): {m['one_piece_s'] * 1000:.1f} ms")
    return 0
