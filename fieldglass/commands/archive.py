"""fieldglass archive: the club's games in one PostgreSQL database: push, list, pull, serve."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

import uvicorn

from common.errors import InputError
from fieldglass.archive.store import Follower, connect, game_id, list_games, pull, push
from fieldglass.archive.web import ArchiveSite
from fieldglass.commands.export import open_for_reading
from fieldglass.web.live import parse_address, serve_url

NOTES = """
--db may also come from FIELDGLASS_ARCHIVE (a PostgreSQL URL or conninfo; keep passwords in ~/.pgpass). Pushing a
record twice changes nothing, and a push cut off half-way is finished by the next one. With --follow the .fgr stays
the source of truth: if the archive goes away nothing is lost, and it catches up when it is back.
"""

EXAMPLES = {
    None: """\
  fieldglass archive push game.fgr --db postgresql://club@db.local/club --table "table 3"   prints the archive id
  fieldglass archive list --db $DB --player anna --json
  fieldglass archive pull 17 --db $DB --out copy.fgr      the record back, equal event for event
  fieldglass archive serve --db $DB --address 0.0.0.0:8080   the club's index and every game's replay page
""",
    "push": """\
  fieldglass archive push game.fgr --db postgresql://club@db.local/club --table "table 3"   prints the archive id
  fieldglass archive push game.fgr --db $DB --follow      while recording: each committed event as it comes
""",
    "list": """\
  fieldglass archive list --db $DB                        newest first
  fieldglass archive list --db $DB --player anna --date 2026-11 --json
""",
    "pull": """\
  fieldglass archive pull 17 --db $DB --out copy.fgr      the record back, equal event for event
""",
    "serve": """\
  fieldglass archive serve --db $DB                       http://127.0.0.1:8766/ (this computer only)
  fieldglass archive serve --db $DB --address 0.0.0.0:8080 --as public
""",
}


def _epilog(action: str | None) -> str:
    return "examples:\n" + EXAMPLES[action] + NOTES


def _db(p) -> None:
    p.add_argument("--db", metavar="URL", default=os.environ.get("FIELDGLASS_ARCHIVE"),
                   help="the archive's PostgreSQL URL (default $FIELDGLASS_ARCHIVE)")


def _filters(p) -> None:
    p.add_argument("--system", help="only this system's games")
    p.add_argument("--player", help="only games with a player whose name holds this")
    p.add_argument("--table", help="only games from a table whose name holds this")
    p.add_argument("--date", help="only games started on this date or in this month or year (2026-11-26, 2026-11)")


def add_parser(sub) -> None:
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("archive", help="the club archive on PostgreSQL: push, list, pull, serve",
                       description="Keep many tables' game records in one PostgreSQL database.",
                       epilog=_epilog(None), formatter_class=fmt)
    which = p.add_subparsers(dest="archive", metavar="ACTION", required=True)
    ps = which.add_parser("push", help="upload a record (idempotent, resumable); prints its archive id",
                          epilog=_epilog("push"), formatter_class=fmt)
    ps.add_argument("record", metavar="GAME.fgr")
    _db(ps)
    ps.add_argument("--table", help="the table the game was played on (searchable)")
    ps.add_argument("--follow", action="store_true", help="keep pushing each committed event as the recorder "
                    "writes it, until interrupted (Ctrl-C, SIGTERM)")
    ps.set_defaults(run=run_push)
    ls = which.add_parser("list", help="the archive's games, newest first", epilog=_epilog("list"),
                          formatter_class=fmt)
    _db(ls)
    _filters(ls)
    ls.add_argument("--json", action="store_true", help="one JSON array")
    ls.set_defaults(run=run_list)
    pl = which.add_parser("pull", help="write an archived game back to a record", epilog=_epilog("pull"),
                          formatter_class=fmt)
    pl.add_argument("id", metavar="ID")
    _db(pl)
    pl.add_argument("--out", required=True, metavar="COPY.fgr")
    pl.add_argument("--overwrite", action="store_true", help="replace COPY.fgr if it exists")
    pl.set_defaults(run=run_pull)
    sv = which.add_parser("serve", help="the club's index and each game's replay page, in a browser",
                          epilog=_epilog("serve"), formatter_class=fmt)
    _db(sv)
    sv.add_argument("--address", default="127.0.0.1:8766", metavar="HOST:PORT",
                    help="where to listen (default 127.0.0.1:8766, this computer only)")
    sv.add_argument("--as", dest="viewer", metavar="VIEW", help="whose view the replay pages show: 'public' "
                    "(default), 'umpire' or a side")
    sv.set_defaults(run=run_serve)


def _url(args) -> str:
    if not args.db:
        raise InputError("--db URL (or FIELDGLASS_ARCHIVE) names the archive's PostgreSQL database")
    return args.db


def run_push(args) -> int:
    url = _url(args)
    if args.follow:
        return _follow(args, url)
    record = open_for_reading(args.record)
    try:
        with connect(url) as conn:
            result = push(conn, record, args.table)
    finally:
        record.close()
    print(result.game)
    print(f"{args.record}: archive id {result.game}, {result.events} of {result.total} events sent"
          + ("" if result.changed else " (already archived)"), file=sys.stderr)
    return 0


def _follow(args, url: str) -> int:
    follower = Follower(args.record, url, args.table, log=lambda m: print(f"{args.record}: {m}", file=sys.stderr))
    signal.signal(signal.SIGTERM, lambda *_: follower.stop())
    print(f"{args.record}: following; Ctrl-C to stop after a last push", file=sys.stderr)
    try:
        gid = follower.run_until_interrupted()
    except KeyboardInterrupt:
        return 130
    if gid is not None:
        print(gid)
    return 0 if gid is not None else 1


def run_list(args) -> int:
    with connect(_url(args)) as conn:
        games = list_games(conn, args.system, args.player, args.table, args.date)
    if args.json:
        print(json.dumps([g.to_json() for g in games], ensure_ascii=False, indent=1))
        return 0
    print(f"{'id':>5}  {'started':<24} {'system':<9} {'events':>6} {'turns':>5}  {'table':<12} game (players)")
    for g in games:
        print(f"{g.id:>5}  {(g.started or '-'):<24} {g.system:<9} {g.events:>6} {g.turns:>5}  "
              f"{(g.table or '-'):<12} {g.title} ({', '.join(g.players) or 'players not named'})")
    return 0


def run_pull(args) -> int:
    out = Path(args.out)
    with connect(_url(args)) as conn:
        gid = game_id(conn, args.id)
        n = pull(conn, gid, out, overwrite=args.overwrite)
    print(f"{out}: archive game {gid}, {n} events", file=sys.stderr)
    return 0


def run_serve(args) -> int:
    url = _url(args)
    host, port = parse_address(args.address, 8766)
    with connect(url):  # reachable, and its schema migrated, before the first visitor
        pass
    print(f"serving the archive on {serve_url(host, port)}", file=sys.stderr, flush=True)
    uvicorn.run(ArchiveSite(url, args.viewer).app(), host=host, port=port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=1)
    return 0
