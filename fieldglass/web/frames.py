"""A record seen by one viewer, as plain JSON for a browser: the system's picture at each moment (rules/picture.py
items, tones resolved to colours), the events as that viewer may read them, and the timeline's marks.

Coordinates stay in table mm (x along the width, y along the depth, north = +y); the page flips y to draw north up,
as the PNG export does (fieldglass/record/board.py `Board.px`). Each distinct item is kept once and every moment
lists the items it shows, so a page with hundreds of moments stays small (most items repeat from one to the next).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from common.clock import clock
from common.errors import InputError
from fieldglass.record import Event
from fieldglass.record.marks import event_items
from fieldglass.replay_session import ReplaySession
from rules.picture import (
    LEGEND,
    Area,
    Dot,
    Item,
    Label,
    LabelLayout,
    LegendEntry,
    Line,
    grid_labels,
    place_labels,
    rgb,
)
from rules.system import UMPIRE

LEVELS = (0.12, 0.17, 0.24, 0.34, 0.48, 0.68, 0.96, 1.36, 1.92)
"""The screen px per table mm the pages place their labels for: the page draws the labels of the largest level
not above the scale it shows the board at, so the labels keep at least their size (a 7-point label 12 px) and
stay clear of each other and of the pieces, from a phone to a wide screen."""
PX_PER_PT = 12.0 / 7.0
MIN_FONT_PX = 11.5
"""A page label's text: 12 px for a 7-point label, never under MIN_FONT_PX (a phone's labels are read too)."""


def font_px(size: float) -> float:
    return max(MIN_FONT_PX, size * PX_PER_PT)

PAD_X, PAD_Y = 3.0, 1.5
FONT = "DejaVu Sans, Verdana, sans-serif"
"""The pages' label font (Debian's chromium: DejaVu Sans): `web_measure` knows its widths; the page also sets each
label's width (SVG textLength), so the box the placer gave it holds on any browser's font."""

_WIDTHS = {False: (318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636,
                   636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575,
                   775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685,
                   390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634,
                   612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838),
           True: (348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696,
                  696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821,
                  837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457,
                  365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
                  716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838)}
"""DejaVu Sans's advance widths (1/1000 em) of the characters 32-126, regular and bold."""


def line_widths(text: str, size: float, bold: bool) -> list[float]:
    """The px width of each line of a label's text in the pages' font at `size` points."""
    widths = _WIDTHS[bool(bold)]
    px = font_px(size)
    return [sum(widths[ord(c) - 32] if 32 <= ord(c) < 127 else 720 for c in line) / 1000.0 * px
            for line in text.split("\n")]


def web_measure(text: str, size: float, bold: bool) -> tuple[float, float]:
    """A page label's box in px: its text in the pages' font at `size` points (a line under the other), and its
    plate."""
    lines = line_widths(text, size, bold)
    return max(lines) + 2 * PAD_X, font_px(size) * 1.2 * len(lines) + 2 * PAD_Y


def margin_mm(width_mm: float) -> float:
    """The board's surround on the pages (room for the grid's letters and numbers)."""
    return max(32.0, 0.04 * width_mm)


class PageBoard:
    """The board as the pages draw it: a moment's items, and its labels placed at each of the LEVELS (with the
    grid's coordinates), each level's placement kept from one moment to the next so labels keep their places."""

    def __init__(self, table: dict[str, Any]):
        self.width_mm, self.depth_mm = float(table["width_mm"]), float(table["depth_mm"])
        self.margin = margin_mm(self.width_mm)
        g = table.get("grid")
        self.grid = SimpleNamespace(**g) if g else None
        self.layouts = [LabelLayout() for _ in LEVELS]

    def split(self, items) -> tuple[list[Item], list[list[Item]]]:
        """(the items that are not labels, the placed labels at each level)."""
        items = tuple(items)
        others = [it for it in items if not isinstance(it, Label)]
        levels = []
        m, w, d = self.margin, self.width_mm, self.depth_mm
        for s, layout in zip(LEVELS, self.layouts, strict=True):
            extra = grid_labels(self.grid, self.grid.field_mm * s) if self.grid is not None else []

            def to_px(xy, z=0.0, s=s):
                xy = np.asarray(xy, float).reshape(-1, 2)
                return np.column_stack([xy[:, 0] * s, (d - xy[:, 1]) * s])

            placed = place_labels((*items, *extra), to_px, web_measure, (-m * s, -m * s, (w + m) * s, (d + m) * s),
                                  layout=layout, view_key=s)
            levels.append([it for it in placed if isinstance(it, Label)])
        return others, levels


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
        out = {"t": "a", "p": polys, "c": colour(it.tone), "f": round(it.fill, 3), "pen": it.pen,
               "w": it.width, "e": colour(it.edge_tone or it.tone), "h": it.pattern == "hatch", **common}
        if it.body:
            out["bd"] = 1  # a piece's own outline (labels keep off it)
        return out
    if isinstance(it, Line):
        return {"t": "l", "p": [_flat(p) for p in it.paths if len(p) >= 2], "c": colour(it.tone), "pen": it.pen,
                "w": it.width, **common}
    if isinstance(it, Label):
        if it.screen:
            return None
        w, h = web_measure(it.text, it.size, it.bold)
        out = {"t": "t", "at": _flat([it.at]), "s": it.text, "c": colour(it.tone), "z": round(font_px(it.size), 2),
               "b": it.bold, "o": [round(it.offset_px[0], 1), round(it.offset_px[1], 1)], "w": round(w, 1),
               "h": round(h, 1), **common}
        if it.leader_px is not None:
            out["ld"] = [round(v, 1) for v in it.leader_px]
        if "\n" in it.text:
            out["lw"] = [round(v, 1) for v in line_widths(it.text, it.size, it.bold)]
        return out
    if isinstance(it, Dot):
        return {"t": "d", "at": _flat([it.at]), "c": colour(it.tone), "r": it.radius_px, **common}
    return None


@dataclass
class ItemTable:
    """Distinct items, each once; `index(picture)` gives a moment's list of item numbers in layer order."""

    items: list[dict] = field(default_factory=list)
    _seen: dict[str, int] = field(default_factory=dict)
    _by_id: dict[int, tuple[Item, int | None]] = field(default_factory=dict)  # the very same item: its number

    def index(self, picture) -> list[int]:
        out = []
        for it in sorted(picture or (), key=lambda it: it.layer):
            got = self._by_id.get(id(it))
            if got is not None and got[0] is it:
                if got[1] is not None:
                    out.append(got[1])
                continue
            d = item_json(it)
            if d is None:
                self._by_id[id(it)] = (it, None)
                continue
            key = json.dumps(d, sort_keys=True, separators=(",", ":"))
            if key not in self._seen:
                self._seen[key] = len(self.items)
                self.items.append(d)
            self._by_id[id(it)] = (it, self._seen[key])
            out.append(self._seen[key])
        return out


def table_json(meta: dict) -> dict[str, Any]:
    """The table's size (mm) and grid, from the record's layout."""
    lay = meta.get("layout") or {}
    out: dict[str, Any] = {"width_mm": float(lay.get("width_mm") or 1200.0),
                           "depth_mm": float(lay.get("depth_mm") or 600.0)}
    out["margin_mm"] = margin_mm(out["width_mm"])
    out["levels"], out["pad"], out["font"] = list(LEVELS), [PAD_X, PAD_Y], FONT
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


class LegendSeen:
    """The legend entries (rules.picture.LEGEND and the system's) whose marks the pages' pictures have shown."""

    def __init__(self, session: ReplaySession):
        self.entries = [*LEGEND, *session.live.legend]
        self.found: set[str] = set()

    def look(self, items) -> None:
        items = list(items)
        for e in self.entries:
            if e.key not in self.found and (e.shows is None or any(e.shows(it) for it in items)):
                self.found.add(e.key)

    def json(self) -> list[dict[str, Any]]:
        return [legend_json(e) for e in self.entries if e.key in self.found]


def legend_json(e: LegendEntry) -> dict[str, Any]:
    """A legend entry for the pages: its text and its sample's items (sample units, y up)."""
    sample = []
    for it in e.sample:
        if isinstance(it, Label):
            sample.append({"t": "t", "at": _flat([it.at]), "s": it.text, "c": colour(it.tone), "b": it.bold})
        else:
            d = item_json(it)
            if d is not None:
                sample.append(d)
    return {"key": e.key, "text": e.text, "sample": sample}


def marks_now(session: ReplaySession) -> list[Item]:
    """The marks of the event just played (a move's arrow, a combat's line: fieldglass/record/marks.py)."""
    e = session.current_event()
    if e is None or e.undone:
        return []
    hidden = set(session.hidden_at(e))
    return event_items([e], session.state(session.index - 1),
                       lambda pid, ev: session.public_name(pid, ev) if pid in hidden else pid)


def moment(session: ReplaySession, table: ItemTable, index: int, board: PageBoard | None = None,
           seen: LegendSeen | None = None) -> tuple[list[int], list[list[int]]]:
    """The item numbers of the picture after the first `index` events, with the marks of the event just played,
    and of its labels placed at each level (empty where the record's system cannot place its pieces:
    `session.problems` says why)."""
    session.seek(index)
    if session.position is None:
        return [], [[] for _ in LEVELS]
    board = board or PageBoard(table_json(session.meta))
    others, levels = board.split((*session.picture(live=False, labels=True), *marks_now(session)))
    if seen is not None:
        seen.look((*others, *levels[len(levels) // 2]))
    return table.index(others), [table.index(labels) for labels in levels]


def replay_json(session: ReplaySession, title: str, progress=None) -> dict[str, Any]:
    """Everything the replay page shows, for `session`'s viewer: the picture at every moment 0..N, the events,
    the timeline marks and where each turn starts."""
    table = ItemTable()
    board = PageBoard(table_json(session.meta))
    n = len(session)
    steps = range(n + 1) if progress is None else progress(range(n + 1), n + 1, "html")
    frames, labels, sets, seen = [], [], [], {}
    legend = LegendSeen(session)
    for k in steps:
        ids, levels = moment(session, table, k, board, legend)
        frames.append(ids)
        row = []
        for level in levels:  # a moment's labels at a level, each distinct list once (most repeat)
            key = tuple(level)
            if key not in seen:
                seen[key] = len(sets)
                sets.append(level)
            row.append(seen[key])
        labels.append(row)
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
            "table": table_json(session.meta), "items": table.items, "frames": frames, "labels": labels,
            "label_sets": sets, "levels": list(LEVELS), "legend": legend.json(), "events": events,
            "marks": marks, "turns": turns, "problems": list(session.problems)}
