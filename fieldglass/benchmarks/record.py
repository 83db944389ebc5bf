"""`fieldglass bench record`: how fast crash-safe game events are written, and how large they are."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from fieldglass.record import Record
from rules.system import default_system

EPILOG = """\
examples:
  fieldglass bench record                 300 move events, one transaction each (WAL, synchronous=FULL)
"""


def measure_writes(n: int = 300) -> tuple[float, float]:
    """Events per second and bytes per event for `n` move events written one transaction each."""
    meta = {"system": default_system(), "players": ["bench"],
            "roster": [{"id": "fr-1", "side": "FR", "type": "infantry"}]}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.fgr"
        record = Record.create(path, meta)
        t0 = time.perf_counter()
        for i in range(n):
            place_from = {"field": "F3", "x_mm": 330.0, "y_mm": 150.0, "heading_deg": 0.0, "facing": "N"}
            place_to = {"field": "F4", "x_mm": 330.0, "y_mm": 210.0, "heading_deg": 0.0, "facing": "N"}
            record.append("move", float(i), i, "fr-1", {"from": place_from, "to": place_to})
        elapsed = time.perf_counter() - t0
        record.close()
        size = path.stat().st_size
    return n / elapsed, size / n


def add_parser(which) -> None:
    p = which.add_parser("record", help="game record: crash-safe event writes per second, bytes per event",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=300, help="events to write (default 300)")
    p.set_defaults(run=run)


def run(args) -> int:
    rate, size = measure_writes(args.events)
    print(f"record: {rate:.0f} events/s written (one transaction each, WAL, synchronous=FULL), {size:.0f} bytes/event")
    return 0
