"""fieldglass stats: bases lost per side per turn, combats won, and where the fighting was."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from common import jsonout
from common.errors import InputError
from common.outfiles import check_not_input, output_file
from fieldglass.commands.export import open_for_reading, replay_pictures
from fieldglass.record.export import compute_stats, stats_png, stats_text

EPILOG = """\
examples:
  fieldglass stats game.fgr                     text, and game-stats.png beside the record
  fieldglass stats game.fgr --png plots.png --json
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "stats",
        help="statistics of a game record: losses per turn, combats won, a heatmap of the fighting",
        description="Bases lost per side per turn, combats won per side and a heatmap of where the fighting "
        "was, as text and as a PNG.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("record", metavar="GAME.fgr")
    p.add_argument("--png", metavar="PATH", help="where to write the plots (default GAME-stats.png)")
    p.add_argument("--no-png", action="store_true", help="text only")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(run=run)


def _check_png(path: Path, src: Path) -> None:
    """Before any work: the plots go to a .png that is not the record."""
    if path.suffix.lower() != ".png":
        raise InputError(f"{path}: --png must name a .png file")
    check_not_input(path, (src,))


def run(args) -> int:
    src = Path(args.record)
    path = Path(args.png) if args.png else src.with_name(src.stem + "-stats.png")
    if not args.no_png:
        _check_png(path, src)
    record = open_for_reading(args.record)
    try:
        stats = compute_stats(record)
        print(jsonout.dumps(stats.to_json()) if args.json else stats_text(stats))
        if not args.no_png:
            with output_file(path, (src,)) as tmp:
                picture = replay_pictures(record)(len(record.events()))  # the last moment (seek stops there)
                if not cv2.imwrite(str(tmp), stats_png(record, stats, picture)):
                    raise InputError(f"{path}: cannot write the plots")
            if not args.json:
                print(f"plots: {path}")
    finally:
        record.close()
    return 0
