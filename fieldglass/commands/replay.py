"""fieldglass replay: a recorded game (.fgr) in the replay viewer, or headless without a display."""

from __future__ import annotations

import argparse
from pathlib import Path

from common.errors import InputError
from common.outfiles import check_image_name
from fieldglass.commands.export import open_for_reading
from fieldglass.record import Record
from fieldglass.replay_session import ReplaySession

EPILOG = """\
examples:
  fieldglass replay game.fgr                       the replay viewer: play, step, scrub, jump to a turn or phase
  fieldglass replay game.fgr --at 12               open at the position after event 12
  fieldglass replay game.fgr --headless --at 12 --screenshot out/replay.png

In the viewer: Space play / pause, Left / Right step one event, Home / End the start / the end, PgUp / PgDn the
previous / next turn, [ and ] slower / faster (0.5x to 8x), U show undone events (greyed), L every fire line,
click a piece for its arc, ranges and fire lines (from the rules engine).

Without a display (no DISPLAY or WAYLAND_DISPLAY, QT_QPA_PLATFORM unset), or with --headless, the viewer runs
offscreen: it prints the timeline (turns, phases, combats, bookmarks, notes) and the position at --at (default: the
end of the game) with its fire lines, saves a screenshot to --screenshot and exits.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "replay",
        help="replay a recorded game (.fgr): timeline, board with fire lines, event list",
        description="Open a game record in the replay viewer: media-player controls, a timeline with turns, "
        "combats and bookmarks, the board at any moment with its fire lines, the event list and the notes.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("record", metavar="GAME.fgr")
    p.add_argument("--at", type=int, metavar="SEQ", help="show the position after event SEQ (default: the start; "
                   "headless: the end)")
    p.add_argument("--select", metavar="ID", help="select this piece: its arc, ranges and fire lines")
    p.add_argument("--undone", action="store_true", help="show undone events (greyed) in the timeline")
    p.add_argument("--headless", action="store_true", help="run offscreen even with a display")
    p.add_argument("--screenshot", type=Path, default=Path("out/replay.png"), metavar="PNG",
                   help="headless: where to save the window (default out/replay.png)")
    p.set_defaults(run=run)


def run(args) -> int:
    """Open the record, build its replay session (the model) and hand it to the viewer (gui/replay.py), headless
    without a display; the record is closed whatever happens."""
    check_image_name(args.screenshot, (args.record,))  # never over the record; before any work
    Record.open(args.record).close()  # a bad file: one line, before any window
    try:
        from gui.qtapp import headless_reason  # noqa: PLC0415  (PySide6: the command line starts without Qt)
        from gui.replay import show_replay  # noqa: PLC0415  (PySide6: the command line starts without Qt)
    except ImportError as exc:
        raise InputError(f"the replay viewer needs PySide6: pip install 'fieldglass[gui]' ({exc})") from None
    record = open_for_reading(args.record, "showing what can be read")
    try:
        reason = headless_reason(bool(args.headless))  # before show_replay creates Qt's application
        session = ReplaySession(record, bool(getattr(args, "undone", False)))
        return show_replay(session, headless=reason is not None, reason=reason or "", at=args.at,
                           select=getattr(args, "select", None), screenshot=args.screenshot)
    finally:
        record.close()
