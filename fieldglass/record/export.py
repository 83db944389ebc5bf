"""Exports of a game record: JSON Lines, CSV, a Markdown after-action report, PNG board diagrams per turn, an MP4
replay of the board view; and the statistics (bases lost per side per turn, combats won, where the fighting was).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from common.errors import InputError
from common.fields import column_letters, parse_field
from common.outfiles import output_file
from common.text import shorten
from fieldglass import render
from fieldglass.record.board import Board
from fieldglass.record.marks import event_items
from fieldglass.record.replay import Replay, dice_read_text
from fieldglass.record.store import Event, Record
from fieldglass.recorded import system_of
from rules.charts import bar_chart
from rules.charts import to_px as chart_px
from rules.live import LiveRules, ReportTerms
from rules.picture import Line
from rules.system import game_system

Progress = Callable[[Iterable, int, str], Iterable]


def _no_progress(items, total, label):
    return items


def _place_name(place: dict | None, grid: bool) -> str | None:
    if not place:
        return None
    if grid and place.get("cell"):
        return place["cell"]
    return f"({place['x_mm']:.0f}, {place['y_mm']:.0f})"


def event_json(e: Event, grid: bool = True) -> dict:
    """One event as an export object: seq, type, t, turn, phase, frame, undone, and its own fields."""
    out = {"seq": e.seq, "type": e.type, "t": round(e.t, 3), "turn": e.turn, "phase": e.phase, "frame": e.frame,
           "undone": e.undone}
    if e.piece is not None:
        out["piece"] = e.piece
    d = e.data
    if e.type in ("move", "appeared"):
        src, dst = d.get("from"), d.get("to") or {}
        out["from"] = _place_name(src, grid)
        out["to"] = _place_name(dst, grid)
        out["x_mm"], out["y_mm"], out["heading_deg"] = dst.get("x_mm"), dst.get("y_mm"), dst.get("heading_deg")
        out["facing"] = dst.get("facing")
        if src:
            out["from_x_mm"], out["from_y_mm"] = src.get("x_mm"), src.get("y_mm")
            out["from_heading_deg"], out["from_facing"] = src.get("heading_deg"), src.get("facing")
            out["turned_deg"] = d.get("turned_deg")
        for k in ("returned",):
            if k in d:
                out[k] = d[k]
    else:
        for k, v in d.items():
            if k == "at" and isinstance(v, dict):
                out["at"] = _place_name(v, grid)
            elif k not in out:
                out[k] = v
    return out


def export_jsonl(record: Record, out, clean: bool = False) -> int:
    grid = bool((record.meta.get("layout") or {}).get("grid"))
    n = 0
    for e in record.events(clean=clean):
        out.write(json.dumps(event_json(e, grid), ensure_ascii=False) + "\n")
        n += 1
    return n


CSV_COLUMNS = ("seq", "type", "t", "turn", "phase", "frame", "undone", "piece", "from", "to", "x_mm", "y_mm",
               "heading_deg", "summary")


# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection): such text gets a leading
# apostrophe, which spreadsheets show as plain text. Numbers are written as they are.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value) -> object:
    """A value for a CSV cell: text that a spreadsheet would run as a formula is made plain text."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def export_csv(record: Record, out, clean: bool = False) -> int:
    """One row per event; its summary in the game's own terms where its system gives them (`report_terms`)."""
    grid = bool((record.meta.get("layout") or {}).get("grid"))
    terms = report_terms(record.meta, record.events(clean=True))
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    n = 0
    for e in record.events(clean=clean):
        j = event_json(e, grid)
        row = [j.get(c) for c in CSV_COLUMNS[:-1]]
        row[6] = int(bool(row[6]))
        text = None if e.undone else terms.event_lines.get(e.seq)
        w.writerow([csv_cell("" if v is None else v) for v in row] + [csv_cell(text or summary(e, grid))])
        n += 1
    return n


def summary(e: Event, grid: bool = True) -> str:
    """One line for an event, in field notation when the layout has a grid."""
    d = e.data
    if e.type == "move":
        src, dst = d.get("from") or {}, d.get("to") or {}
        text = f"{e.piece} {_place_name(src, grid)} -> {_place_name(dst, grid)}"
        if src.get("facing") != dst.get("facing"):
            text += f", {src.get('facing')} -> {dst.get('facing')}"
        elif dst.get("facing"):
            text += f" ({dst.get('facing')})"
        return text + (" (back after missing)" if d.get("returned") else "") + _area_text(d) + _by_hand(d, grid)
    if e.type == "appeared":
        dst = d.get("to") or {}
        return f"{e.piece} on the table at {_place_name(dst, grid)} {dst.get('facing') or ''}".rstrip() + (
            " (back)" if d.get("returned") else "") + _area_text(d) + _by_hand(d, grid)
    line = _LINES.get(e.type)
    return line(e, d, grid) if line is not None else e.type


def _by_hand(d: dict, grid: bool) -> str:
    """What a place a player gave says besides the move: who placed it, and where the camera had read it."""
    if not d.get("by_hand"):
        return ""
    seen = f", the camera read {_place_name(d['seen_at'], grid)}" if isinstance(d.get("seen_at"), dict) else ""
    return f" (placed by {d.get('by') or 'a player'}{seen})"


def _end_text(d: dict) -> str:
    winner = d.get("winner")
    how = " by the rules" if d.get("by_rules") else (f", as {d['by']} say" if d.get("by") else "")
    text = f"end of the game: {winner} wins{how}" if winner else "end of the game: a draw"
    return text + (f" ({shorten(d['text'], 200)})" if d.get("text") else "")


_LINES = {
    "end": lambda e, d, grid: _end_text(d),
    "missing": lambda e, d, grid: f"{e.piece} missing from {_place_name(d.get('at'), grid)}: a player must confirm",
    "removed": lambda e, d, grid: f"{e.piece} removed (confirmed by {d.get('by')})",
    "kept": lambda e, d, grid: f"{e.piece} still on the table (confirmed by {d.get('by')})",
    "combat": lambda e, d, grid: combat_text(d),
    "turn": lambda e, d, grid: f"turn {d.get('turn')}" + (f", {d['phase']}" if d.get("phase") else ""),
    "phase": lambda e, d, grid: f"phase: {d.get('phase')}",
    "note": lambda e, d, grid: f"note{' by ' + shorten(d['by'], 80) if d.get('by') else ''}: {shorten(d.get('text'))}",
    "bookmark": lambda e, d, grid: f"bookmark: {d.get('label')}",
    "marker": lambda e, d, grid: f"{e.piece} markers: {', '.join(d.get('markers', [])) or 'none'}",
    "formation": lambda e, d, grid: f"{e.piece} formation: {d.get('formation')}",
    "piece_state": lambda e, d, grid: f"{e.piece}: {d.get('key')} set to {d.get('value')}",
}
"""One line for each other kind of event (`summary`)."""


def _roller(label: str, s: dict | None) -> str | None:
    if not s:
        return None
    if s.get("roll") is None:
        return f"{label} {s.get('piece')} does not roll" + (f" ({s['reason']})" if s.get("reason") else "")
    mods = " ".join(f"{m['value']:+d} ({m['rule']})" for m in s.get("modifiers", []))
    return f"{label} {s.get('piece')} rolls {s['roll']}{' ' + mods if mods else ''} = WZ {s.get('wz')}"


def _area_text(d: dict) -> str:
    """The area and position a move ends in on a printed board (the recorder writes them with its moves)."""
    if not d.get("area"):
        return ""
    pos = d.get("position")
    return f" in area {d['area']}" + (", reserve" if pos == "reserve" else f", approach {pos}" if pos else "")


def combat_text(d: dict) -> str:
    read = dice_read_text(d)
    if d.get("summary"):  # the system's own line (its live rules' `record_combat`, a step loss the camera saw...)
        return str(d["summary"]) + (f" ({read})" if read else "")
    where = d.get("fields") or {}
    pieces = d.get("pieces") or []
    head = f"{d.get('action', 'combat')}: " + " at ".join(
        f"{p}" + (f" ({where[p]})" if p in where else "") for p in pieces)
    parts = [head]
    for label in ("attacker", "defender"):
        r = _roller(label, d.get(label))
        if r:
            parts.append(r)
    if d.get("dice"):
        parts.append("dice " + ", ".join(map(str, d["dice"])) + (f" ({read})" if read else ""))
    elif read:
        parts.append(read)
    lt = d.get("loss_test")
    if lt and "base_lost" in lt:
        parts.append(f"loss test {lt['roll']} (needs {lt['needed']}+): {'base lost' if lt['base_lost'] else 'held'}")
    parts.append(f"winner {d.get('winner')}, effect {d.get('effect')}")
    for ch in d.get("changes", []):
        if ch.get("removed"):
            parts.append(f"{ch['piece']} removed")
        elif "bases" in ch:
            parts.append(f"{ch['piece']} down to {ch['bases']} bases")
        elif "marker" in ch:
            parts.append(f"{ch['piece']} marker {ch['marker']}")
        elif "field" in ch:
            parts.append(f"{ch['piece']} to {ch['field']}")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------------- statistics


@dataclass
class Stats:
    sides: list[str]
    turns: list[int]
    lost: dict[int, dict[str, int]]  # turn -> side -> bases lost
    removed: dict[int, dict[str, list[str]]]  # turn -> side -> pieces gone
    combats: int
    won: dict[str, int]  # side -> combats won
    draws: int
    heat: np.ndarray | None  # (rows, cols) combats per field
    moves: dict[str, int] = field(default_factory=dict)  # side -> moves

    def to_json(self) -> dict:
        return {"sides": self.sides, "turns": self.turns,
                "bases_lost": {str(t): v for t, v in self.lost.items()},
                "pieces_removed": {str(t): v for t, v in self.removed.items()},
                "combats": self.combats, "combats_won": self.won, "draws": self.draws, "moves": self.moves,
                "heat": None if self.heat is None else self.heat.astype(int).tolist()}


def compute_stats(record: Record) -> Stats:
    meta = record.meta
    sides = sorted({p.get("side", "") for p in record.roster()})
    grid = (meta.get("layout") or {}).get("grid")
    heat = np.zeros((int(grid["rows"]), int(grid["cols"])), np.int32) if grid else None
    state = record.initial_state()
    lost: dict[int, dict[str, int]] = {}
    removed: dict[int, dict[str, list[str]]] = {}
    won = {s: 0 for s in sides}
    moves = {s: 0 for s in sides}
    combats = draws = 0
    turns = set()
    for e in record.events(clean=True):
        before = {pid: (p.status, p.bases, p.side) for pid, p in state.pieces.items()}
        state.apply(e)
        turns.add(e.turn)
        for pid, p in state.pieces.items():
            st, bases, side = before.get(pid, ("unplaced", 1, p.side))
            n = 0
            if p.status == "removed" and st != "removed":
                n = bases
                removed.setdefault(e.turn, {}).setdefault(side, []).append(pid)
            elif p.bases < bases:
                n = bases - p.bases
            if n:
                d = lost.setdefault(e.turn, {})
                d[side] = d.get(side, 0) + n
        if e.type == "move" and e.piece in state.pieces:
            side = state.pieces[e.piece].side
            moves[side] = moves.get(side, 0) + 1
        if e.type == "combat":
            combats += 1
            d = e.data
            pieces, sides_of = d.get("pieces") or [], d.get("sides") or {}
            w = d.get("winner")
            if w == "attacker" and pieces:
                s = sides_of.get(pieces[0])
                won[s] = won.get(s, 0) + 1
            elif w == "defender" and len(pieces) > 1:
                s = sides_of.get(pieces[1])
                won[s] = won.get(s, 0) + 1
            elif w == "draw":
                draws += 1
            if heat is not None:
                for name in (d.get("fields") or {}).values():
                    try:
                        c, r = parse_field(name)
                    except Exception:  # noqa: BLE001 - a field name the grid cannot place is left out
                        continue
                    if 0 <= r < heat.shape[0] and 0 <= c < heat.shape[1]:
                        heat[r, c] += 1
    return Stats(sides, sorted(turns), lost, removed, combats, won, draws, heat, moves)


def stats_text(stats: Stats) -> str:
    lines = ["bases lost per side per turn:"]
    head = f"  {'turn':<6}" + "".join(f"{s:>8}" for s in stats.sides)
    lines.append(head)
    for t in stats.turns:
        row = stats.lost.get(t, {})
        lines.append(f"  {t:<6}" + "".join(f"{row.get(s, 0):>8}" for s in stats.sides))
    total = {s: sum(stats.lost.get(t, {}).get(s, 0) for t in stats.turns) for s in stats.sides}
    lines.append(f"  {'total':<6}" + "".join(f"{total[s]:>8}" for s in stats.sides))
    lines.append(f"combats: {stats.combats}; won: " + ", ".join(f"{s} {stats.won.get(s, 0)}" for s in stats.sides)
                 + f"; draws {stats.draws}")
    lines.append("moves: " + ", ".join(f"{s} {stats.moves.get(s, 0)}" for s in stats.sides))
    if stats.heat is not None and stats.heat.any():
        lines.append("where the fighting was (combats per field, north at the top):")
        rows, cols = np.nonzero(stats.heat)
        c0, c1 = int(cols.min()), int(cols.max())
        lines.append("      " + "".join(f"{column_letters(c):>3}" for c in range(c0, c1 + 1)))
        for r in range(int(rows.max()), int(rows.min()) - 1, -1):
            cells = "".join(f"{(str(stats.heat[r, c]) if stats.heat[r, c] else '.'):>3}" for c in range(c0, c1 + 1))
            lines.append(f"  {r + 1:>3} {cells}")
    return "\n".join(lines)


def stats_png(record: Record, stats: Stats, picture=None) -> np.ndarray:
    """The final board with the fighting shaded field by field (the system's `picture` of the last moment drawn
    over it, as the PNG export draws it), and under it a bar chart of bases lost per turn per side with its axes,
    ticks, titles and units (rules/charts.py: the drawing language, drawn by the same renderer)."""
    board = Board(record.meta)
    most = int(stats.heat.max()) if stats.heat is not None and stats.heat.size else 0
    title = "where the fighting was: " + (f"combats per field, the brighter the more (at most {most})" if most > 1
                                          else "the field of each combat, shaded" if most else "no combat")
    top = board.draw(record.state(), title=title, heat=stats.heat, picture=picture)
    w, h = top.shape[1], 260
    chart = np.full((h, w, 3), 40, np.uint8)
    turns = stats.turns or [0]
    tones = ["#{2:02x}{1:02x}{0:02x}".format(*board.colour(s)) for s in stats.sides]  # BGR -> #rrggbb
    values = [[stats.lost.get(t, {}).get(s, 0) for s in stats.sides] for t in turns]
    items = bar_chart((w, h), ["set-up" if t == 0 else f"turn {t}" for t in turns], stats.sides, values, tones,
                      f"bases lost per turn ({sum(map(sum, values))} in all)", "bases lost (bases)", "turn")
    render.draw(chart, items, chart_px(h))
    return np.vstack([top, chart])


# ---------------------------------------------------------------------------------------------------- report


def _clock(t: float) -> str:
    m, s = divmod(int(t), 60)
    return f"{m:02d}:{s:02d}"


def report_terms(meta: dict, events: list[Event]) -> ReportTerms:
    """The record's system's words for its report (rules/live.py `LiveRules.report_terms`; a record whose system is
    not registered here: none)."""
    try:
        live = game_system(system_of(meta), "the record's system").live or LiveRules
    except InputError:
        return ReportTerms()
    return live.report_terms(meta, events)


def export_report(record: Record, name: str = "game") -> str:
    """The after-action report (Markdown): a section per turn, each event on a line, the totals; in the game's own
    terms where its system gives them (`report_terms`: a turn's heading, an event's line, sections of its own)."""
    meta = record.meta
    grid = bool((meta.get("layout") or {}).get("grid"))
    events = record.events(clean=True)
    stats = compute_stats(record)
    terms = report_terms(meta, events)
    lines = [f"# After-action report: {name}", ""]
    lines.append(f"- system: {meta.get('system')}")
    lines.append(f"- started: {meta.get('start_time')}")
    if meta.get("players"):
        lines.append(f"- players: {', '.join(meta['players'])}")
    undone = sum(1 for e in record.events() if e.undone)
    lines.append(f"- {len(events)} events" + (f" ({undone} undone, left out)" if undone else ""))
    if record.problems:
        lines.append(f"- **damaged record**: {'; '.join(record.problems)}")
    by_turn: dict[int, list[Event]] = {}
    for e in events:
        by_turn.setdefault(e.turn, []).append(e)
    for turn in sorted(by_turn):
        lines += ["", f"## {terms.turn_titles.get(turn, 'Set-up' if turn == 0 else f'Turn {turn}')}", ""]
        phase = None
        for e in by_turn[turn]:
            if e.type == "turn" and e.seq not in terms.event_lines:
                continue
            if e.phase != phase and e.phase:
                phase = e.phase
                lines += ["", f"### {phase.capitalize()}", ""]
            if e.type == "phase":
                continue
            text = terms.event_lines.get(e.seq) or summary(e, grid)
            if e.type == "combat" and ":" in text:
                text = "**" + text.split(":", 1)[0] + "**:" + text.split(":", 1)[1]
            lines.append(f"- {_clock(e.t)} {text}")
        row = stats.lost.get(turn, {})
        losses = ", ".join(f"{s} {row.get(s, 0)}" for s in stats.sides)
        gone = stats.removed.get(turn, {})
        extra = "; ".join(f"{s}: {', '.join(v)} gone" for s, v in gone.items())
        if terms.losses:
            lines += ["", f"Losses (bases): {losses}" + (f" ({extra})" if extra else "")]
    for title, body in terms.sections:
        lines += ["", f"## {title}", "", *(f"- {x}" for x in body)]
    lines += ["", "## Totals", "", "```", stats_text(stats), "```", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------- pictures


def _turn_segments(replay: Replay) -> list[tuple[int, int, int]]:
    """(turn, first index, end index) over replay.events."""
    out: list[tuple[int, int, int]] = []
    for i, e in enumerate(replay.events):
        if out and out[-1][0] == e.turn:
            out[-1] = (e.turn, out[-1][1], i + 1)
        else:
            out.append((e.turn, i, i + 1))
    return out


def export_png(record: Record, folder: Path, progress: Progress = _no_progress,
               picture_at: Callable[[int], object] | None = None) -> list[Path]:
    """One board diagram per turn: the position at the turn's end, its moves as arrows, its combats in red.
    `picture_at(k)`: the system's picture after the first k events (the replay's), drawn for the pieces."""
    folder.mkdir(parents=True, exist_ok=True)
    replay = Replay(record)
    board = Board(record.meta)
    out = []
    segs = _turn_segments(replay)
    for turn, i0, i1 in progress(segs, len(segs), "png"):
        before = replay.position_at(i0)
        marks = event_items(replay.events[i0:i1], before)
        moves = sum(it.kind == "event-move" for it in marks)
        combats = sum(isinstance(it, Line) and it.kind in ("event-fire", "event-melee") for it in marks)
        after = replay.position_at(i1)
        img = board.draw(after, f"{'set-up' if turn == 0 else f'turn {turn}'}: {moves} moves, {combats} combats",
                         picture=picture_at(i1) if picture_at is not None else None, marks=marks)
        path = folder / f"turn-{turn:02d}.png"
        with output_file(path, (record.path,)) as tmp:
            if not cv2.imwrite(str(tmp), img):
                raise InputError(f"{path}: cannot write the diagram")
        out.append(path)
    return out


def export_mp4(record: Record, path: Path, fps: float = 10.0, hold_s: float = 0.6,
               progress: Progress = _no_progress, picture_at: Callable[[int], object] | None = None) -> int:
    """The board view event by event (each held `hold_s`), written with cv2.VideoWriter (mp4v). Returns frames.
    `picture_at(k)` as for `export_png`."""
    replay = Replay(record)
    board = Board(record.meta)
    w, h = board.size
    w2, h2 = w + (w % 2), h + (h % 2)
    with output_file(path, (record.path,)) as tmp:
        writer = cv2.VideoWriter(str(tmp), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w2, h2))
        if not writer.isOpened():
            raise InputError(f"{path}: cannot open an mp4v video writer")
        try:
            return _write_frames(writer, replay, board, (w, h, w2, h2), fps, hold_s, progress, picture_at)
        finally:
            writer.release()


def _write_frames(writer, replay: Replay, board: Board, sizes: tuple[int, int, int, int], fps: float, hold_s: float,
                  progress: Progress, picture_at: Callable[[int], object] | None) -> int:
    w, h, w2, h2 = sizes
    hold = max(1, int(round(hold_s * fps)))
    frames = 0
    grid = bool((replay.record.meta.get("layout") or {}).get("grid"))
    for k in progress(range(len(replay) + 1), len(replay) + 1, "mp4"):
        state = replay.position_at(k)
        if k:
            e = replay.events[k - 1]
            marks = event_items([e], replay.position_at(k - 1))
            title = f"{_clock(e.t)}  turn {e.turn}{' ' + e.phase if e.phase else ''}  {summary(e, grid)}"[:110]
        else:
            marks, title = [], "start"
        img = board.draw(state, title, picture=picture_at(k) if picture_at is not None else None, marks=marks)
        if (w2, h2) != (w, h):
            img = cv2.copyMakeBorder(img, 0, h2 - h, 0, w2 - w, cv2.BORDER_CONSTANT, value=(40, 40, 40))
        for _ in range(hold):
            writer.write(img)
            frames += 1
    return frames


def text_of(fn, record: Record, **kw) -> str:
    buf = io.StringIO()
    fn(record, buf, **kw)
    return buf.getvalue()
