"""Live spectators: a game record followed read-only as it is written, and a small Starlette app that shows it.

`GameFeed` watches the `.fgr` (SQLite's `PRAGMA data_version` on one read-only connection tells a commit by
another process at almost no cost), and on each change builds the view of the newest moment for the host's
viewer with the replay's model (fieldglass/replay_session.py), so the recorder is never touched and a
spectator sees exactly what the replay will show. `live_app` serves the page and one server-sent-events stream per
spectator: each message is the whole board (so a reconnect catches up at once) and the events the spectator has
not had yet (by the SSE `Last-Event-ID`, the last event seq it got), so every event reaches every spectator once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from common.errors import InputError
from fieldglass.record import Record
from fieldglass.record.store import FollowedRecord
from fieldglass.replay_session import ReplaySession
from fieldglass.web.frames import ItemTable, LegendSeen, PageBoard, event_row, moment, table_json, viewer_of
from fieldglass.web.page import asset, document

RECENT = 12  # the recent moves a spectator sees beside the board
KEEPALIVE_S = 15.0  # a comment line this often keeps proxies and browsers from closing a quiet stream


@dataclass
class View:
    """The newest moment as a spectator sees it: the picture's items, every event row (seq order) and the combat
    of the current turn (None: none yet)."""

    count: int
    last_seq: int
    items: list[dict]
    labels: list[list[dict]]  # the picture's labels placed at each of frames.LEVELS
    legend: list[dict]  # what the marks on the board mean (frames.legend_json)
    rows: list[dict]
    combat: dict | None
    caption: str
    table: dict
    title: str
    viewer: str
    problems: list[str] = field(default_factory=list)

    def message(self, after_seq: int | None) -> dict[str, Any]:
        """What a spectator that has had the events up to `after_seq` (None: none) is sent."""
        new = self.rows if after_seq is None else [r for r in self.rows if r["seq"] > after_seq]
        return {"count": self.count, "seq": self.last_seq, "items": self.items, "labels": self.labels,
                "legend": self.legend,
                "recent": self.rows[-RECENT:],
                "new": new, "combat": self.combat, "caption": self.caption, "table": self.table,
                "title": self.title, "viewer": self.viewer, "problems": self.problems}


def current_combat(session: ReplaySession) -> dict | None:
    """The latest combat of the turn shown, and its result, as the viewer may read it."""
    for i in range(len(session.timeline) - 1, -1, -1):
        e = session.timeline[i]
        if e.type == "turn":
            return None
        if e.type == "combat":
            return event_row(session, i + 1, e)
    return None


def build_view(record: Record, viewer: str | None, title: str, board: PageBoard | None = None) -> View:
    """The view of `record`'s newest moment for `viewer` (None: the public view); `board` the feed's own, so that
    its labels keep their places from one view to the next."""
    session = ReplaySession(record)
    viewer_of(session, viewer)
    session.to_end()
    table = ItemTable()
    seen = LegendSeen(session)
    ids, levels = moment(session, table, len(session), board or PageBoard(table_json(record.meta)), seen)
    rows = [event_row(session, i + 1, e) for i, e in enumerate(session.timeline)]
    last = rows[-1] if rows else None
    caption = f"{last['clock']}  turn {last['turn']}: {last['text']}" if last else "waiting for the first event"
    # the seq from the same reading as the rows: a later one would tell a spectator it had events it never got
    last_seq = max((e.seq for e in session.timeline), default=0)
    return View(len(rows), last_seq, [table.items[i] for i in ids],
                [[table.items[i] for i in level] for level in levels], seen.json(), rows, current_combat(session),
                caption, table_json(record.meta), title, session.viewer, list(session.problems))


class GameFeed:
    """A record followed read-only. `poll()` (blocking; run it off the event loop) rebuilds `view` when the file
    changed; `version` counts the views built. The file may not exist yet: the feed waits for the recorder."""

    def __init__(self, path: str | Path, viewer: str | None = None, title: str | None = None):
        self.path = Path(path)
        self.viewer = viewer
        self.title = title or self.path.stem
        self.view: View | None = None
        self.version = 0
        self.followed = FollowedRecord(self.path)
        self.board: PageBoard | None = None  # where its labels went, for the table `board_table`
        self.board_table: dict | None = None
        self._seen: tuple[int, int] | None = None  # the record's version the view was built from

    @property
    def record(self) -> Record | None:
        return self.followed.record

    def poll(self) -> bool:
        """Read the record again if another connection committed since; True when `view` changed."""
        seen = self.followed.version()
        if seen is None or (seen == self._seen and self.view is not None):
            return False
        self._seen = seen
        record = self.followed.record
        table = table_json(record.meta)
        if self.board is None or self.board_table != table:  # a record begun again may be of another table
            self.board, self.board_table = PageBoard(table), table
        view = build_view(record, self.viewer, self.title, self.board)
        if self.view is not None and (view.last_seq, view.count, view.items, view.labels) == (
                self.view.last_seq, self.view.count, self.view.items, self.view.labels):
            return False  # a commit that changed nothing a spectator sees (the recorder's progress mark)
        self.view = view
        self.version += 1
        return True

    def close(self) -> None:
        self.followed.close()


def check_viewer(path: str | Path, viewer: str | None) -> None:
    """InputError naming the viewers when `viewer` is not one of the record's (a record not written yet: any)."""
    if viewer is None or not Path(path).exists():
        return
    with Record.open(path) as rec:
        viewer_of(ReplaySession(rec), viewer)


class Hub:
    """The feed and its spectators on one event loop: a poller task reads the file every `poll_s` seconds and wakes
    every stream when the view changed."""

    def __init__(self, feed: GameFeed, poll_s: float = 0.1):
        self.feed = feed
        self.poll_s = poll_s
        self.cond: asyncio.Condition | None = None
        self.task: asyncio.Task | None = None
        self.spectators = 0
        self.error: str | None = None

    async def start(self) -> None:
        self.cond = asyncio.Condition()
        await self._poll()
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        self.feed.close()

    async def _poll(self) -> bool:
        """One look at the record; a record that cannot be shown (a view it does not have, a damaged file) is
        said once, on stderr and in /state, and looked at again: the server stays up for when it can."""
        try:
            changed = await asyncio.to_thread(self.feed.poll)
        except (InputError, sqlite3.Error, OSError) as exc:
            if str(exc) != self.error:
                print(f"fieldglass serve: {self.feed.path}: {exc}", file=sys.stderr, flush=True)
            self.error = str(exc)
            return False
        self.error = None
        return changed

    async def _run(self) -> None:
        while True:
            if await self._poll():
                async with self.cond:
                    self.cond.notify_all()
            await asyncio.sleep(self.poll_s)

    async def stream(self, after_seq: int | None, request: Request) -> AsyncIterator[str]:
        """One spectator's server-sent events: the view now, then each new view; a comment when quiet."""
        self.spectators += 1
        seen = -1
        try:
            yield "retry: 1000\n\n"
            while True:
                view = self.feed.view
                if view is not None and self.feed.version != seen:
                    seen = self.feed.version
                    msg = view.message(after_seq)
                    after_seq = view.last_seq
                    yield f"id: {view.last_seq}\ndata: {json.dumps(msg, separators=(',', ':'))}\n\n"
                try:
                    async with self.cond:
                        await asyncio.wait_for(self.cond.wait_for(lambda s=seen: self.feed.version != s),
                                               KEEPALIVE_S)
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    yield ": keep-alive\n\n"
        finally:
            self.spectators -= 1


LIVE_BODY = """<header><h1 id="title"></h1><span class="who" id="who"></span>
<span id="status" class="down">connecting…</span></header>
<main>
<div id="board-col">
<div class="board-scroll"><svg id="board" class="board" xmlns="http://www.w3.org/2000/svg" role="img"
 aria-label="the board"></svg></div>
<div id="caption"></div>
</div>
<div id="side-col">
<div class="box"><h2>combat</h2><div id="combat">none this turn</div></div>
<div class="box"><h2>recent moves</h2><ol id="events"></ol></div>
<details class="box marks-legend" open><summary>what the marks mean</summary><div id="legend-entries"></div></details>
</div>
</main>"""


def live_page(view: View | None = None) -> str:
    """The spectators' page, with the game as it stands now (`view`) in it: it shows the board at once, before its
    stream connects, and the stream then sends only what comes after."""
    return document("Fieldglass live", LIVE_BODY, view.message(None) if view else {},
                    asset("live.js"))


def live_app(feed: GameFeed, poll_s: float = 0.1) -> Starlette:
    """The spectators' server for `feed`: `/` the page, `/events` the stream, `/state` the view as JSON."""
    hub = Hub(feed, poll_s)

    async def index(_request: Request) -> Response:
        return HTMLResponse(live_page(feed.view))

    async def events(request: Request) -> Response:
        last = request.headers.get("last-event-id") or request.query_params.get("after")
        try:
            after = int(last) if last not in (None, "") else None
        except ValueError:
            return Response("Last-Event-ID: an event seq (a whole number)\n", status_code=400)
        return StreamingResponse(hub.stream(after, request), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def state(_request: Request) -> Response:
        view = feed.view
        body = view.message(None) if view is not None else {"count": 0, "seq": 0, "waiting": str(feed.path)}
        body["spectators"] = hub.spectators
        if hub.error:
            body["error"] = hub.error
        return JSONResponse(body)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()

    app = Starlette(routes=[Route("/", index), Route("/events", events), Route("/state", state)], lifespan=lifespan)
    app.state.hub = hub
    return app


def serve_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def parse_address(text: str, default_port: int = 8765) -> tuple[str, int]:
    """`HOST:PORT`, `HOST` or `:PORT` -> (host, port); loopback when no host is given."""
    host, port = text, default_port
    if text.count(":") == 1 or text.startswith("["):
        host, _, p = text.rpartition(":")
        try:
            port = int(p)
        except ValueError:
            raise InputError(f"address {text!r}: the port must be a number, like 127.0.0.1:8765") from None
    host = host.strip("[]") or "127.0.0.1"
    if not 0 <= port <= 65535:
        raise InputError(f"address {text!r}: port {port} is not 0..65535")
    return host, port

