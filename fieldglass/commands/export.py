"""fieldglass export: a game record as JSON Lines, CSV, an after-action report, board diagrams or a replay video."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from common.errors import InputError
from common.outfiles import check_not_input, write_text
from fieldglass.progress import progress
from fieldglass.record import Record
from fieldglass.record import export as X
from fieldglass.replay_session import ReplaySession
from fieldglass.web.page import export_html

FORMATS = ("jsonl", "report", "csv", "png", "mp4", "html")

EPILOG = """\
examples:
  fieldglass export game.fgr --format jsonl                 one JSON object per event on stdout
  fieldglass export game.fgr --format report --out game.md  after-action report (Markdown), one section per turn
  fieldglass export game.fgr --format csv --out game.csv
  fieldglass export game.fgr --format png --out diagrams/   one board diagram per turn, moves as arrows
  fieldglass export game.fgr --format mp4 --out game.mp4    the board view, event by event
  fieldglass export game.fgr --format html --as FR --out game.html   one self-contained replay page, FR's view

Undone events are exported marked "undone": true (jsonl, csv) unless --clean leaves them out; the report,
diagrams and video always show the clean game. A damaged record exports what can be read of it, with a warning.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "export",
        help="export a game record: jsonl, report, csv, png, mp4 or html",
        description="Export a game record (.fgr) for reading, sharing or further analysis.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("record", metavar="GAME.fgr")
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument("--out", metavar="PATH", help="file (folder for png); default stdout for jsonl, report, csv "
                   "and GAME.mp4 / GAME-png/ beside the record")
    p.add_argument("--clean", action="store_true", help="leave out undone events (jsonl, csv)")
    p.add_argument("--fps", type=float, default=10.0, help="mp4 frame rate (default 10)")
    p.add_argument("--as", dest="viewer", metavar="SIDE", help="html: whose view (a side, 'public' or 'umpire'; "
                   "default public): what that viewer may not see yet is withheld from the page")
    p.set_defaults(run=run)


def open_for_reading(path: str, doing: str = "using what can be read"):
    """Open a record to read and warn, one line each, of everything damaged in it (its events are read first, so
    that a damaged event is named before any work)."""
    record = Record.open(path)
    record.events()
    record.roster()
    for problem in record.problems:
        print(f"fieldglass: warning: {path}: {problem}; {doing}", file=sys.stderr)
    return record


def replay_pictures(record):
    """The record's system's picture after the first k events, as the replay viewer draws it (None where the
    record's system cannot place its pieces: the export then draws plain bases)."""
    session = ReplaySession(record)

    def picture_at(k: int):
        session.seek(k)
        if session.position is None:
            return None
        return session.picture(live=False, labels=True)

    return picture_at


def run(args) -> int:
    if args.viewer and args.format != "html":
        raise InputError(f"--as is for --format html (a {args.format} export shows the whole record)")
    if args.out:
        check_not_input(args.out, (args.record,))  # before any work: never over the record itself
    record = open_for_reading(args.record)
    src = Path(args.record)
    try:
        if args.format in ("jsonl", "csv", "report"):
            if args.format == "report":
                text = X.export_report(record, src.stem)
            else:
                fn = X.export_jsonl if args.format == "jsonl" else X.export_csv
                text = X.text_of(fn, record, clean=args.clean)
            if args.out:
                write_text(args.out, text, (src,))
                print(f"{args.out}: {args.format} written", file=sys.stderr)
            else:
                sys.stdout.write(text)
        elif args.format == "png":
            folder = Path(args.out) if args.out else src.with_name(src.stem + "-png")
            paths = X.export_png(record, folder, progress, replay_pictures(record))
            print(f"{folder}: {len(paths)} board diagrams ({', '.join(p.name for p in paths)})")
        elif args.format == "html":
            path = Path(args.out) if args.out else src.with_suffix(".html")
            n = export_html(record, path, args.viewer, src.stem, progress)
            print(f"{path}: replay page, {n} moments")
        else:
            if args.fps <= 0:
                raise InputError("--fps must be positive")
            path = Path(args.out) if args.out else src.with_suffix(".mp4")
            n = X.export_mp4(record, path, args.fps, progress=progress, picture_at=replay_pictures(record))
            print(f"{path}: {n} frames at {args.fps:g} fps")
    except OSError as exc:
        raise InputError(str(exc)) from None
    finally:
        record.close()
    return 0
