"""The replay page: one self-contained HTML file (inline SVG drawing, JavaScript and CSS; nothing loaded from the
network) that shows a record as its viewer may see it, moment by moment.

The data is embedded as JSON (fieldglass/web/frames.py); the page's scripts are fieldglass/web/assets/*.js."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from common.errors import InputError
from common.outfiles import write_text
from fieldglass.record import Record
from fieldglass.replay_session import ReplaySession
from fieldglass.web.frames import replay_json, viewer_of

ASSETS = Path(__file__).with_name("assets")


def asset(name: str) -> str:
    """The text of one of the pages' scripts or style sheets."""
    return (ASSETS / name).read_text(encoding="utf-8")


def json_for_script(value: Any) -> str:
    """JSON safe inside a <script> element: `<`, `>` and `&` escaped, so no text in a record can close it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def who(data: dict[str, Any]) -> str:
    viewer = data["viewer"]
    return "umpire's view: everything" if data["umpire"] else f"{viewer}'s view" if viewer != "public" else \
        "public view"


REPLAY_BODY = """<header><h1>{title}</h1><span class="who">{system} game · {players} · {who}</span></header>
<main>
<div id="board-col">
<div class="board-scroll"><svg id="board" class="board" xmlns="http://www.w3.org/2000/svg" role="img"
 aria-label="the board"></svg></div>
<div id="caption"></div>
<div class="timeline"><div id="marks" class="marks"></div><input id="scrub" type="range" min="0" value="0"
 aria-label="moment"></div>
<div class="legend"><span><i style="background:#e8e8e8"></i>turn</span>
<span><i style="background:#ff5050"></i>combat</span>
<span><i style="background:#40c0ff"></i>bookmark</span><span><i style="background:#ffd040"></i>note</span></div>
<div class="controls">
<button id="first" title="start">|◀</button><button id="back" title="one event back">◀</button>
<button id="play" title="play (space)">play</button><button id="next" title="one event on">▶</button>
<button id="last" title="end">▶|</button>
<select id="speed" aria-label="speed"><option value="0.5">½×</option><option value="1" selected>1×</option>
<option value="2">2×</option><option value="4">4×</option><option value="8">8×</option></select>
<select id="turn" aria-label="jump to turn"></select>
</div>
<details class="box marks-legend" open><summary>what the marks on the board mean</summary>
<div id="legend-entries"></div></details>
</div>
<div id="side-col"><ol id="events"></ol></div>
</main>"""


def document(title: str, body: str, data: Any, script: str) -> str:
    """A whole HTML page: the style sheet, `body`, the data as JSON and the board's and the page's scripts."""
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            f"style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; connect-src 'self'\">\n"
            f"<title>{html.escape(title)}</title>\n<style>\n{asset('page.css')}</style></head>\n<body>\n{body}\n"
            f"<script type=\"application/json\" id=\"fg-data\">{json_for_script(data)}</script>\n"
            f"<script>\n{asset('board.js')}</script>\n<script>\n{script}</script>\n</body></html>\n")


def replay_page(data: dict[str, Any]) -> str:
    """The replay page of `data` (frames.replay_json)."""
    body = REPLAY_BODY.format(title=html.escape(data["title"]), system=html.escape(str(data["system"])),
                              players=html.escape(", ".join(data["players"]) or "players not named"),
                              who=html.escape(who(data)))
    return document(data["title"], body, data, asset("replay.js"))


def export_html(record: Record, path: Path, viewer: str | None = None, title: str | None = None,
                progress=None) -> int:
    """Write `record`'s replay page for `viewer` (None: the public view; "umpire": everything) to `path`.
    Returns the number of moments (events + 1)."""
    session = ReplaySession(record)
    viewer_of(session, viewer)
    data = replay_json(session, title or record.path.stem, progress)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, replay_page(data), (record.path,))  # whole or not at all, never over the record
    except OSError as exc:
        raise InputError(f"{path}: cannot write the replay page ({exc.strerror or exc})") from None
    return len(data["frames"])
