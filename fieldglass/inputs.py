"""The players' inputs to a recording: what each kind says, the inputs file of a filmed game, and their checks.

One input is one plain dict, the same whether it comes from a line of an inputs file (`fieldglass record --inputs`)
or from a player's action in the dashboard (fieldglass/session.py `Session.events.action`): the one recorder
(fieldglass/recording.py `GameRecorder.apply`) writes both alike. An inputs file is JSON Lines, one object per
line with the `frame` it follows (applied after that frame's reading); blank lines and lines starting with `#` are
skipped. Every problem is one line naming the file and the line, what is wrong and what would be valid.
"""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from common.errors import InputError
from common.fields import facing_bearing, snap_facing
from common.text import name_list, nearest_name
from vision.tracking import Place

if TYPE_CHECKING:
    from calibration.layout import TableLayout


@dataclass(frozen=True)
class InputKind:
    """One kind of player's input: its `type`, the keys it needs, the keys it may have, what it does, an example."""

    type: str
    needs: tuple[str, ...]
    may: tuple[str, ...]
    does: str
    example: str


KINDS: tuple[InputKind, ...] = (
    InputKind("turn", (), ("turn", "active", "phase"), "a new turn (the next one unless `turn` says), the side it "
              "makes active", '{"frame": 40, "type": "turn", "turn": 2, "active": "french"}'),
    InputKind("phase", ("phase",), (), "a new phase of the turn", '{"frame": 41, "type": "phase", "phase": "fire"}'),
    InputKind("combat", (), ("action", "attacker", "target", "supporters", "dice", "seed", "dice_read"),
              "a combat or any action of the system, resolved by its engine on the committed position (the "
              "system's own inputs by key: loss_die, choices...; dice empty: rolled with `seed`; `dice_read`: the "
              'dice the camera read, {"values": [5, 3], "taken": true} when they were the dice, false when typed over)',
              '{"frame": 90, "type": "combat", "action": "fire", "attacker": "fr-a-1", "target": "au-1-1", '
              '"dice": [6, 2], "loss_die": 5}'),
    InputKind("marker", ("piece", "markers"), (), "a piece's markers (the camera cannot see them)",
              '{"frame": 92, "type": "marker", "piece": "au-1-1", "markers": ["red"]}'),
    InputKind("formation", ("piece", "formation"), (), "a piece's formation",
              '{"frame": 93, "type": "formation", "piece": "au-1-1", "formation": "square"}'),
    InputKind("state", ("piece", "key", "value"), (), "anything else of a piece the camera cannot see (its type, "
              "nation, a hidden block's identity...)",
              '{"frame": 94, "type": "state", "piece": "fr-1-1", "key": "type", "value": "line"}'),
    InputKind("confirm", ("piece",), ("removed", "by"), "a player's answer to a piece reported missing: removed "
              "(the default) or still there (`removed`: false)",
              '{"frame": 95, "type": "confirm", "piece": "au-1-1", "removed": true, "by": "AU player"}'),
    InputKind("place", ("piece",), ("field", "x_mm", "y_mm", "heading_deg", "facing", "by"),
              "a piece put where a player says: a misread place corrected, or a piece the camera cannot see "
              "(behind a hill) placed by hand (`field`, or `x_mm` and `y_mm`)",
              '{"frame": 96, "type": "place", "piece": "fr-1-2", "field": "E7", "by": "FR player"}'),
    InputKind("note", (), ("text", "piece", "by"), "a player's note (about a piece, if it names one)",
              '{"frame": 99, "type": "note", "text": "the left flank holds", "by": "FR player"}'),
    InputKind("bookmark", (), ("label",), "a bookmark for the replay",
              '{"frame": 100, "type": "bookmark", "label": "the charge"}'),
    InputKind("undo", (), ("count",), "take back the last `count` events (1): they stay in the record, marked",
              '{"frame": 120, "type": "undo", "count": 1}'),
    InputKind("redo", (), ("count",), "write again the events the last undo took back",
              '{"frame": 121, "type": "redo"}'),
    InputKind("end", (), ("winner", "text", "by"), "the end of the game: the system's victory where the rules gave "
              "one, else the winner the players name (or none: a draw)",
              '{"frame": 400, "type": "end", "winner": "french", "text": "Austrians withdraw"}'),
)
BY_TYPE = {k.type: k for k in KINDS}
PIECE_KEYS = ("piece",)
"""The keys that name a piece of the roster (a combat's attacker and target may also name what the system lets act:
a nation, an area; its engine judges them)."""


def help_text(width: int = 116) -> str:
    """The inputs file's format for `fieldglass record --help`: one line and one example per kind."""
    lines = ["players' inputs (--inputs FILE: JSON Lines, one object per line with the frame it follows; "
             "[optional] keys):"]
    for k in KINDS:
        keys = ", ".join([*k.needs, *(f"[{m}]" for m in k.may)])
        text = f"{k.type:<9} {k.does}" + (f"; keys: {keys}" if keys else "")
        lines += textwrap.wrap(text, width, initial_indent="  ", subsequent_indent=" " * 12)
        lines += textwrap.wrap(k.example, width, initial_indent=" " * 12, subsequent_indent=" " * 14,
                               break_on_hyphens=False)
    return "\n".join(lines)


def check_input(inp: dict, where: str, pieces=None) -> None:
    """One input's form: a known type, the keys it needs, a piece of the roster where it names one (`pieces`: the
    ids, None: not checked). InputError naming `where` (file:line) otherwise."""
    kind = inp.get("type")
    k = BY_TYPE.get(kind) if isinstance(kind, str) else None
    if k is None:
        near = nearest_name(kind, BY_TYPE)
        hint = f"; did you mean {near!r}?" if near else ""
        raise InputError(f"{where}: unknown input type {kind!r}{hint} (types: {' '.join(BY_TYPE)})")
    missing = [key for key in k.needs if key not in inp]
    if missing:
        raise InputError(f"{where}: a {kind} input needs {' and '.join(repr(m) for m in missing)} "
                         f"(e.g. {k.example})")
    if kind == "place" and "field" not in inp and not ("x_mm" in inp and "y_mm" in inp):
        raise InputError(f"{where}: a place input needs 'field' or both 'x_mm' and 'y_mm' (e.g. {k.example})")
    if pieces is not None:
        for key in PIECE_KEYS:
            pid = inp.get(key)
            if pid is not None and pid not in pieces:
                raise InputError(unknown_piece(where, pid, pieces))
    for key in ("count", "turn"):
        if key in inp and (not isinstance(inp[key], int) or isinstance(inp[key], bool) or inp[key] < 1):
            raise InputError(f"{where}: {key!r} must be a whole number from 1 on, not {inp[key]!r}")


def check_pieces(inputs: dict[int, list[dict]], pieces) -> None:
    """Every input that names a piece names one of `pieces` (the record's roster ids); InputError otherwise."""
    for frame in sorted(inputs):
        for inp in inputs[frame]:
            for key in PIECE_KEYS:
                pid = inp.get(key)
                if pid is not None and pid not in pieces:
                    raise InputError(unknown_piece(str(inp.get("_where") or f"frame {frame}"), pid, pieces))


def unknown_piece(where: str, pid, pieces) -> str:
    """'inputs.jsonl:7: no piece 'au-cav-9' in the roster; did you mean 'au-cav-1'? pieces: …'."""
    near = nearest_name(pid, pieces)
    hint = f"; did you mean {near!r}?" if near else ""
    return f"{where}: no piece {pid!r} in the roster{hint} (pieces: {name_list(sorted(pieces))})"


def load_inputs(path: str | Path | None, pieces=None) -> dict[int, list[dict]]:
    """Players' inputs (JSON Lines) by frame number, each checked (`check_input`; `pieces`: the roster's ids) and
    given its `_id` (line N: a resumed recording skips those already in the record) and `_where` (FILE:N, for the
    errors it may still meet when the engine applies it)."""
    if path is None:
        return {}
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the inputs file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file (the inputs file is JSON Lines, one object per line)") from None
    out: dict[int, list[dict]] = {}
    for i, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{i}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{where}: not a JSON object (one input per line, like {KINDS[0].example})")
        frame = obj.get("frame")
        if not isinstance(frame, int) or isinstance(frame, bool) or frame < 0:
            raise InputError(f"{where}: needs a whole 'frame' number from 0 on (the frame it follows), not "
                             f"{frame!r}")
        check_input(obj, where, pieces)
        obj.setdefault("_id", f"line{i}")
        obj["_where"] = where
        out.setdefault(frame, []).append(obj)
    return out


def place_from_input(inp: dict, layout: TableLayout, old: Place | None) -> Place:
    """The place a `place` input names: a grid field's centre (`field`) or `x_mm`, `y_mm` (table mm), facing
    `heading_deg` or `facing`, else as the piece faced before; its field and facing on a grid."""
    grid = layout.grid
    if "field" in inp:
        if grid is None:
            raise InputError(f"{where(inp)}: this table has no grid, so no field {inp['field']!r}: give x_mm and y_mm")
        x, y = grid.centre_of(str(inp["field"]))
    else:
        try:
            x, y = float(inp["x_mm"]), float(inp["y_mm"])
        except (TypeError, ValueError):
            raise InputError(f"{where(inp)}: x_mm and y_mm must be numbers (table mm)") from None
        if not (math.isfinite(x) and math.isfinite(y) and 0 <= x <= layout.width_mm and 0 <= y <= layout.depth_mm):
            raise InputError(f"{where(inp)}: ({x:g}, {y:g}) mm is off the {layout.width_mm:g} x "
                             f"{layout.depth_mm:g} mm table")
    if inp.get("heading_deg") is not None:
        heading = float(inp["heading_deg"]) % 360.0
    elif inp.get("facing"):
        heading = facing_bearing(str(inp["facing"]))
    else:
        heading = old.heading_deg if old is not None else 0.0
    if grid is None:
        return Place(float(x), float(y), heading)
    return Place(float(x), float(y), heading, grid.name_at(x, y), snap_facing(heading)[0])


def where(inp: dict) -> str:
    """Where an input came from, for an error: FILE:LINE, else its frame."""
    return str(inp.get("_where") or f"input at frame {inp.get('frame')}")
