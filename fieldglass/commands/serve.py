"""fieldglass serve: a game shown live to spectators' browsers, read-only, as it is recorded."""

from __future__ import annotations

import argparse
import sys

import uvicorn

from fieldglass.web.live import GameFeed, check_viewer, live_app, parse_address, serve_url

EPILOG = """\
examples:
  fieldglass serve game.fgr                             spectators open http://127.0.0.1:8765/ (this computer only)
  fieldglass serve game.fgr --address 0.0.0.0:8080 --as FR    on the local network, as FR sees the game
  fieldglass record --source 0 ... --out game.fgr       beside it: the recorder writes the game

The server follows the record read-only (it never writes to it, and the recorder does not wait for it): each
committed event reaches the spectators within a fraction of a second. A spectator that loses the connection catches
up when it comes back. The record may not exist yet: the page waits for the recorder's first event.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="show a game live to spectators' browsers (read-only)",
        description="Serve a game record as it is written: the board view, the recent moves and the current "
        "combat, in any browser, updated as each event is committed.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("record", metavar="GAME.fgr")
    p.add_argument("--address", default="127.0.0.1:8765", metavar="HOST:PORT",
                   help="where to listen (default 127.0.0.1:8765, this computer only; 0.0.0.0:8765 for the "
                   "local network)")
    p.add_argument("--as", dest="viewer", metavar="VIEW", help="whose view the spectators see: a side, 'public' "
                   "(default) or 'umpire'")
    p.add_argument("--poll", type=float, default=0.1, metavar="S", help="how often to look for new events "
                   "(default 0.1 s)")
    p.set_defaults(run=run)


def run(args) -> int:
    host, port = parse_address(args.address)
    check_viewer(args.record, args.viewer)
    app = live_app(GameFeed(args.record, args.viewer), max(0.02, args.poll))
    print(f"serving {args.record} ({args.viewer or 'public'} view) on {serve_url(host, port)}", file=sys.stderr,
          flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, timeout_graceful_shutdown=1)
    return 0
