"""`fieldglass archive serve`: the club's games in a browser: an index searched by system, player, date and table,
and each game's replay page (fieldglass/web/page.py), built from the archive on first asking and kept while the
game is unchanged."""

from __future__ import annotations

import asyncio
import html
import tempfile
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from common.errors import InputError
from fieldglass.archive.store import GameInfo, connect, game_id, list_games, pull
from fieldglass.record import Record
from fieldglass.web.page import asset, export_html

FILTERS = ("system", "player", "table", "date")

INDEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>{css}
form {{ display: flex; gap: 8px; flex-wrap: wrap; padding: 10px; }}
form input, form select, form button {{ background: #34383c; color: #eee; border: 1px solid #50555a;
  border-radius: 4px; padding: 4px 6px; }}
table {{ border-collapse: collapse; margin: 0 10px 10px; width: calc(100% - 20px); }}
td, th {{ padding: 4px 8px; border-bottom: 1px solid #2e3236; text-align: left; }}
th {{ color: #a8b4a0; font-weight: normal; }} a {{ color: #7fd4ff; }}
</style></head><body>
<header><h1>{title}</h1><span class="who">{count}</span></header>
<form method="get" action="./">
<select name="system" aria-label="system"><option value="">every system</option>{systems}</select>
<input name="player" placeholder="player" value="{player}" aria-label="player">
<input name="table" placeholder="table" value="{table}" aria-label="table">
<input name="date" placeholder="date: 2026-11" value="{date}" aria-label="date">
<button type="submit">search</button></form>
<table id="games"><thead><tr><th>#</th><th>game</th><th>system</th><th>players</th><th>table</th><th>started</th>
<th>events</th><th>turns</th></tr></thead><tbody>
{rows}
</tbody></table></body></html>
"""


def _row(g: GameInfo) -> str:
    e = html.escape
    return (f'<tr data-id="{g.id}"><td>{g.id}</td><td><a href="games/{g.id}">{e(g.title)}</a></td>'
            f"<td>{e(g.system)}</td><td>{e(', '.join(g.players))}</td><td>{e(g.table or '')}</td>"
            f"<td>{e(g.started or '')}</td><td>{g.events}</td><td>{g.turns}</td></tr>")


def index_page(games: list[GameInfo], systems: list[str], query: dict[str, str], title: str) -> str:
    opts = "".join(f'<option value="{html.escape(s)}"{" selected" if s == query.get("system") else ""}>'
                   f"{html.escape(s)}</option>" for s in systems)
    return INDEX.format(title=html.escape(title), css=asset("page.css"), systems=opts,
                        count=f"{len(games)} game{'s' if len(games) != 1 else ''}",
                        rows="\n".join(_row(g) for g in games) or '<tr><td colspan="8">no game found</td></tr>',
                        **{k: html.escape(query.get(k, "")) for k in ("player", "table", "date")})


class ArchiveSite:
    """The archive's pages for one database; blocking database work runs in threads (one connection each)."""

    def __init__(self, url: str, viewer: str | None = None, title: str = "Club archive"):
        self.url, self.viewer, self.title = url, viewer, title
        self.pages: dict[tuple[int, int], str] = {}

    def _index(self, query: dict[str, str]) -> tuple[list[GameInfo], list[str]]:
        with connect(self.url) as conn:
            games = list_games(conn, **{k: query.get(k) or None for k in FILTERS})
            systems = [r[0] for r in conn.execute("SELECT DISTINCT system FROM games ORDER BY 1").fetchall()]
        return games, systems

    def _replay(self, text: str) -> str:
        with connect(self.url) as conn:
            gid = game_id(conn, text)
            count = conn.execute("SELECT count(*) FROM events WHERE game = %s", (gid,)).fetchone()[0]
            key = (gid, int(count))
            if key not in self.pages:
                with tempfile.TemporaryDirectory() as folder:
                    title = conn.execute("SELECT title FROM games WHERE id = %s", (gid,)).fetchone()[0]
                    path = Path(folder) / "game.fgr"
                    pull(conn, gid, path)
                    with Record.open(path) as rec:
                        export_html(rec, Path(folder) / "game.html", self.viewer, title)
                    self.pages = {k: v for k, v in self.pages.items() if k[0] != gid}
                    self.pages[key] = (Path(folder) / "game.html").read_text(encoding="utf-8")
            return self.pages[key]

    def app(self) -> Starlette:
        async def index(request: Request) -> Response:
            query = {k: request.query_params.get(k, "").strip() for k in FILTERS}
            games, systems = await asyncio.to_thread(self._index, query)
            return HTMLResponse(index_page(games, systems, query, self.title))

        async def games_json(request: Request) -> Response:
            query = {k: request.query_params.get(k, "").strip() for k in FILTERS}
            games, _ = await asyncio.to_thread(self._index, query)
            return JSONResponse([g.to_json() for g in games])

        async def replay(request: Request) -> Response:
            try:
                page = await asyncio.to_thread(self._replay, request.path_params["gid"])
            except InputError as exc:
                return HTMLResponse(f"<p>{html.escape(str(exc))}</p><p><a href='../'>the archive</a></p>",
                                    status_code=404)
            return HTMLResponse(page)

        return Starlette(routes=[Route("/", index), Route("/games.json", games_json),
                                 Route("/games/{gid}", replay)])

