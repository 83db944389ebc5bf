"""The roster file (TOML): which marker is which piece.

::

    dictionary = "DICT_4X4_250"
    system = "NAME"                 # optional: the game system it is for (its types and sides are checked)
    [[piece]]
    id = "fr-1-1"
    marker = 10
    side = "FR"
    type = "infantry"
    base_mm = [40, 40]              # width (left-right), depth (front-back)
    marker_mm = 20                  # side of the black square
    marker_height_mm = 3            # height of the printed marker above the cloth
    marker_offset_mm = [0, 0]       # marker centre relative to base centre: (right, forward)

The marker is printed with its top edge toward the base's front, so its orientation is the piece's heading.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from calibration.layout import TableLayout, check_dictionary, check_marker_id, dictionary_size
from common.errors import InputError
from common.files import MAX_MM, check_keys, number, read_toml, toml_string


@dataclass(frozen=True)
class Piece:
    id: str
    marker: int
    side: str
    type: str
    base_mm: tuple[float, float]
    marker_mm: float
    marker_height_mm: float
    marker_offset_mm: tuple[float, float] = (0.0, 0.0)
    short: str = ""  # what a crowded view calls it ("" : its id without the side's prefix)


@dataclass(frozen=True)
class Roster:
    """The pieces and their markers; `system` the game system the file says it is for ("" : any), by name only:
    the wiring checks the pieces' types and sides against that system (fieldglass/setup_checks.py)."""

    dictionary: str
    pieces: tuple[Piece, ...]
    system: str = ""

    def by_marker(self) -> dict[int, Piece]:
        return {p.marker: p for p in self.pieces}

    def piece(self, piece_id: str) -> Piece | None:
        return next((p for p in self.pieces if p.id == piece_id), None)


_TOP_KEYS = ("dictionary", "system", "piece")
# "unit": the unit a piece belongs to (its unit card, fieldglass/printing.py roster_units; a unit's blocks)
_PIECE_KEYS = ("id", "marker", "side", "type", "base_mm", "marker_mm", "marker_height_mm", "marker_offset_mm", "unit",
               "short")


def _check_piece_keys(p: dict, where: str, system_keys: Iterable[str] | None) -> None:
    """Every key of a piece is known: its own, and `system_keys` (those the game systems read from its table,
    `LiveRules.roster_keys`). A typo ("marker_heigth_mm") would otherwise be ignored and move the piece. With
    `system_keys` None (a reader that knows no system) only the geometry keys are checked."""
    for key in p:
        if key in _PIECE_KEYS or (system_keys is not None and key in system_keys):
            continue
        if system_keys is not None or key.endswith("_mm") or key.startswith(("marker", "base")):
            known = [*_PIECE_KEYS, *(system_keys or ())]
            raise InputError(f"{where}: unknown key {key!r} (known: {', '.join(known)})")


def _pair(table: dict, key: str, where: str, default=None) -> tuple[float, float]:
    value = table.get(key, default)
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise InputError(f"{where}: {key!r} must be two numbers like [40, 20]")
    if not all(math.isfinite(v) and abs(v) <= MAX_MM for v in value):
        raise InputError(f"{where}: {key!r} must be two finite numbers of at most {MAX_MM:g} mm, not {value!r}")
    return float(value[0]), float(value[1])


def check_against_layout(roster: Roster, layout: TableLayout, where: str) -> None:
    """The roster fits the layout: the same marker dictionary (another one makes phantom markers and loses
    pieces), and no piece marker that is also an anchor (the table would be registered on a moving piece)."""
    problems = layout_fit_problems(roster, layout, where)
    if problems:
        raise InputError(problems[0])


def layout_fit_problems(roster: Roster, layout: TableLayout, where: str) -> list[str]:
    """Every way the roster does not fit the layout (`check_against_layout`), one line each naming `where`."""
    if roster.dictionary != layout.dictionary:
        return [f"{where}: dictionary {roster.dictionary} differs from the layout's {layout.dictionary}; markers of "
                "one are misread in the other; did you mean dictionary = " + toml_string(layout.dictionary) + "?"]
    anchors = layout.anchor_ids
    taken = {p.marker for p in roster.pieces} | set(anchors)
    out = []
    for p in roster.pieces:
        if p.marker in anchors:
            free = next((m for m in range(dictionary_size(roster.dictionary)) if m not in taken), None)
            hint = f"; did you mean marker = {free}?" if free is not None else ""
            if free is not None:
                taken.add(free)
            out.append(f"{where} piece {p.id!r}: marker {p.marker} is also an anchor of the layout{hint}")
    return out


def parse_roster(data: dict, where: str = "roster", system_keys: Iterable[str] | None = None,
                 findings: list[str] | None = None) -> Roster:
    """Build a Roster from parsed TOML; every error names `where`, the piece and the key at fault. `system_keys`:
    the piece keys the game systems read besides the roster's own (see `_check_piece_keys`). With `findings` (a
    list) a piece in error is left out and its error added to the list instead of raised, so that every bad piece
    is said at once (`fieldglass check-setup`)."""
    check_keys(data, _TOP_KEYS, where)
    dictionary = check_dictionary(data.get("dictionary", "DICT_4X4_250"), where)
    system = data.get("system", "")
    if not isinstance(system, str):
        raise InputError(f"{where}: 'system' must be a game system's name (fieldglass systems), not {system!r}")
    raw = data.get("piece", [])
    if not isinstance(raw, list):
        raise InputError(f"{where}: pieces must be [[piece]] tables")
    pieces: list[Piece] = []
    seen_ids: set[str] = set()
    seen_markers: dict[int, str] = {}
    for i, p in enumerate(raw, 1):
        try:
            piece = _piece(p, f"{where} piece {i}", where, dictionary, system_keys, seen_ids, seen_markers)
        except InputError as exc:
            if findings is None:
                raise
            findings.append(str(exc))
            continue
        pieces.append(piece)
        seen_ids.add(piece.id)
        seen_markers[piece.marker] = piece.id
    return Roster(dictionary, tuple(pieces), system)


def _piece(p, w: str, where: str, dictionary: str, system_keys, seen_ids: set[str], seen_markers: dict[int, str]
           ) -> Piece:
    """One [[piece]] table read and checked against those before it (ids and markers taken)."""
    if not isinstance(p, dict) or not isinstance(p.get("id"), str) or not p["id"]:
        raise InputError(f"{w}: needs a text 'id'")
    w = f"{where} piece {p['id']!r}"
    _check_piece_keys(p, w, system_keys)
    marker = p.get("marker")
    if not isinstance(marker, int) or isinstance(marker, bool) or marker < 0:
        raise InputError(f"{w}: 'marker' must be an integer id >= 0")
    check_marker_id(marker, dictionary, w)
    if p["id"] in seen_ids:
        raise InputError(f"{w}: piece id listed twice")
    if marker in seen_markers:
        raise InputError(f"{w}: marker {marker} already belongs to {seen_markers[marker]!r}")
    base = _pair(p, "base_mm", w)
    if min(base) <= 0:
        raise InputError(f"{w}: 'base_mm' must be positive")
    short = p.get("short", "")
    if not isinstance(short, str) or len(short) > 12:
        raise InputError(f"{w}: 'short' must be a short name (text of at most 12 characters)")
    return Piece(
        id=p["id"],
        marker=marker,
        side=str(p.get("side", "")),
        type=str(p.get("type", "")),
        base_mm=base,
        marker_mm=number(p, "marker_mm", w, positive=True),
        marker_height_mm=number(p, "marker_height_mm", w, default=0.0),
        marker_offset_mm=_pair(p, "marker_offset_mm", w, default=[0, 0]),
        short=short,
    )


def load_roster(path: str | Path, system_keys: Iterable[str] | None = None, findings: list[str] | None = None
                ) -> Roster:
    return parse_roster(read_toml(path, "roster file"), str(path), system_keys, findings)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return toml_string(str(value))


def roster_to_toml(roster: Roster, extra: Mapping[str, Mapping[str, object]] | None = None) -> str:
    """The roster as TOML text that `load_roster` reads back, whatever its ids and names hold; `extra` the keys a
    game system reads besides the geometry (text, whole or real numbers, true/false), by piece id."""
    lines = [f"dictionary = {toml_string(roster.dictionary)}"]
    if roster.system:
        lines.append(f"system = {toml_string(roster.system)}")
    for p in roster.pieces:
        lines += [
            "",
            "[[piece]]",
            f"id = {toml_string(p.id)}",
            f"marker = {p.marker}",
            f"side = {toml_string(p.side)}",
            f"type = {toml_string(p.type)}",
            f"base_mm = [{p.base_mm[0]:g}, {p.base_mm[1]:g}]",
            f"marker_mm = {p.marker_mm:g}",
            f"marker_height_mm = {p.marker_height_mm:g}",
            f"marker_offset_mm = [{p.marker_offset_mm[0]:g}, {p.marker_offset_mm[1]:g}]",
            *([f"short = {toml_string(p.short)}"] if p.short else []),
        ]
        for key, value in (extra or {}).get(p.id, {}).items():
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"
