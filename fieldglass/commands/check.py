"""fieldglass check: is this game record whole? What can be read of it, and a salvaged copy with --repair."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from common.outfiles import check_output
from fieldglass.record import Record, salvage

EPILOG = """\
examples:
  fieldglass check game.fgr                          what the record holds and what is wrong with it
  fieldglass check game.fgr --repair saved.fgr       copy every readable event into a new record

Exit code 0 when the record is whole, 1 when it is damaged (what can be read is still listed), 2 when it cannot
be read at all. A record left with its side file GAME.fgr-wal (a recording that did not stop cleanly) is read
together with it; keep the two files together until the record has been opened once in a writable folder.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check",
        help="check a game record (.fgr) and salvage what can be read of a damaged one",
        description="Check a game record: its system, its events, and what is damaged; with --repair, write "
        "every event that can still be read into a new record.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("record", metavar="GAME.fgr")
    p.add_argument("--repair", metavar="OUT.fgr", help="write what can be read into this new record")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.repair:
        check_output(args.repair, (args.record,))  # never over the record being checked
    record = Record.open(args.record)
    try:
        events = record.events()
        kinds = Counter(e.type for e in events)
        record.roster()  # names damaged roster metadata among the problems
        held = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "no events"
        print(f"{args.record}: {record.meta.get('system', '?')} record, {len(events)} events ({held})")
        wal = Path(f"{args.record}-wal")
        if wal.exists() and wal.stat().st_size:
            print(f"{args.record}: its side file {wal.name} holds events not yet in the file (a recording that did "
                  "not stop cleanly, or one still running); keep the two files together")
        for problem in record.problems:
            print(f"{args.record}: damaged: {problem}")
        if args.repair:
            n = salvage(record, args.repair)
            print(f"{args.repair}: {n} events salvaged into a new record")
        return 1 if record.problems else 0
    finally:
        record.close()
