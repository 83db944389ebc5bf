"""A record seen by one viewer, as plain JSON for a browser: the system's picture at each moment (rules/picture.py
items, tones resolved to colours), the events as that viewer may read them, and the timeline's marks.

Coordinates stay in table mm (x along the width, y along the depth, north = +y); the page flips y to draw north up,
as the PNG export does (fieldglass/record/board.py `Board.px`). Each distinct item is kept once and every moment
lists the items it shows, so a page with hundreds of moments stays small (most items repeat from one to the next).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from common.clock import clock
from common.errors import InputError
from fieldglass.record import Event
from fieldglass.replay_session import ReplaySession
from rules.picture import Area, Dot, Item, Label, Line, rgb
from rules.system import UMPIRE


def colour(tone: str) -> str:
    """A picture tone as the browser's `#rrggbb` (the same RGB every renderer uses: rules.picture.rgb)."""
    r, g, b = rgb(tone)
    return f"#{r:02x}{g:02x}{b:02x}"


def _flat(points) -> list[float]:
    return [round(float(v), 1) for p in points for v in p]


def item_json(it: Item) -> dict[str, Any] | None:
    """One picture item as a compact dict (None: an item that belongs to the camera view only, a screen-fixed
    caption, as fieldglass/render.py leaves it out)."""
    common = {"k": it.kind, "l": it.layer}
    if getattr(it, "piece", None) is not None:
        common["pc"] = it.piece
    if getattr(it, "tip", ""):
        common["tip"] = it.tip
    if isinstance(it, Area):
        polys = [_flat(p) for p in it.polygons if len(p) >= 3]
        if not polys:
            return None
        return {"t": "a", "p": polys, "c": colour(it.tone), "f": round(it.fill, 3), "pen": it.pen,
                "w": it.width, "e": colour(it.edge_tone or it.tone), "h": it.pattern == "hatch", **common}
    if isinstance(it, Line):
        return {"t": "l", "p": [_flat(p) for p in it.paths if len(p) >= 2], "c": colour(it.tone), "pen": it.pen,
                "w": it.width, **common}
    if isinstance(it, Label):
        if it.screen:
            return None
        return {"t": "t", "at": _flat([it.at]), "s": it.text, "c": colour(it.tone), "z": it.size, "b": it.bold,
                "o": [it.offset_px[0], it.offset_px[1]], **common}
    if isinstance(it, Dot):
        return {"t": "d", "at": _flat([it.at]), "c": colour(it.tone), "r": it.radius_px, **common}
    return None


@dataclass
class ItemTable:
    """Distinct items, each once; `index(picture)` gives a moment's list of item numbers in layer order."""

    items: list[dict] = field(default_factory=list)
    _seen: dict[str, int] = field(default_factory=dict)

    def index(self, picture) -> list[int]:
        out = []
        for it in sorted(picture or (), key=lambda it: it.layer):
            d = item_json(it)
            if d is None:
                continue
            key = json.dumps(d, sort_keys=True, separators=(",", ":"))
            if key not in self._seen:
                self._seen[key] = len(self.items)
                self.items.append(d)
            out.append(self._seen[key])
        return out


def table_json(meta: dict) -> dict[str, Any]:
    """The table's size (mm) and grid, from the record's layout."""
    lay = meta.get("layout") or {}
    out: dict[str, Any] = {"width_mm": float(lay.get("width_mm") or 1200.0),
                           "depth_mm": float(lay.get("depth_mm") or 600.0)}
    g = lay.get("grid")
    if g:
        out["grid"] = {k: float(g[k]) for k in ("cols", "rows", "field_mm", "origin_x_mm", "origin_y_mm")}
    return out


def redacted(session: ReplaySession, e: Event, text: str) -> str:
    """`text` about event `e` with every piece the viewer may not name yet replaced by its anonymous name."""
    for pid in session.hidden_at(e):
        text = text.replace(pid, session.public_name(pid, e))
    return text


def event_row(session: ReplaySession, index: int, e: Event) -> dict[str, Any]:
    """One event as the page's event list shows it: `i` the moment after it (1-based timeline index)."""
    text = redacted(session, e, session.headline(e))
    return {"i": index, "seq": e.seq, "type": e.type, "t": round(e.t, 3), "clock": clock(e.t), "turn": e.turn,
            "phase": e.phase, "text": text}


def viewer_of(session: ReplaySession, viewer: str | None) -> str:
    """Set the session's viewer (None: the public view, as the replay window starts); InputError naming the
    viewers on a wrong one."""
    session.set_viewer(viewer or session.viewer)
    return session.viewer


def moment(session: ReplaySession, table: ItemTable, index: int) -> list[int]:
    """The item numbers of the picture after the first `index` events (empty where the record's system cannot
    place its pieces: `session.problems` says why)."""
    session.seek(index)
    if session.position is None:
        return []
    return table.index(session.picture(live=False, labels=True))


def replay_json(session: ReplaySession, title: str, progress=None) -> dict[str, Any]:
    """Everything the replay page shows, for `session`'s viewer: the picture at every moment 0..N, the events,
    the timeline marks and where each turn starts."""
    table = ItemTable()
    n = len(session)
    steps = range(n + 1) if progress is None else progress(range(n + 1), n + 1, "html")
    frames = [moment(session, table, k) for k in steps]
    events = [event_row(session, i + 1, e) for i, e in enumerate(session.timeline)]
    marks = [{"i": m.index + 1, "kind": m.kind, "clock": clock(m.t),
              "label": redacted(session, session.timeline[m.index], m.label)} for m in session.markers()]
    turns = {}
    for turn in session.turns():
        try:
            turns[str(turn)] = session.turn_index(turn)
        except InputError:  # a turn without a start event is left off the jump list
            continue
    return {"title": title, "system": session.meta.get("system"), "viewer": session.viewer,
            "umpire": session.viewer == UMPIRE, "players": session.meta.get("players") or [],
            "table": table_json(session.meta), "items": table.items, "frames": frames, "events": events,
            "marks": marks, "turns": turns, "problems": list(session.problems)}
