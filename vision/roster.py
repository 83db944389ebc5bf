"""The roster file (TOML): which marker is which piece.

::

    dictionary = "DICT_4X4_250"
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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from calibration.layout import TableLayout, check_dictionary, check_marker_id
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
    dictionary: str
    pieces: tuple[Piece, ...]

    def by_marker(self) -> dict[int, Piece]:
        return {p.marker: p for p in self.pieces}

    def piece(self, piece_id: str) -> Piece | None:
        return next((p for p in self.pieces if p.id == piece_id), None)


_TOP_KEYS = ("dictionary", "piece")
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
    if roster.dictionary != layout.dictionary:
        raise InputError(f"{where}: dictionary {roster.dictionary} differs from the layout's {layout.dictionary}; "
                         "markers of one are misread in the other")
    anchors = layout.anchor_ids
    for p in roster.pieces:
        if p.marker in anchors:
            raise InputError(f"{where} piece {p.id!r}: marker {p.marker} is also an anchor of the layout")


def parse_roster(data: dict, where: str = "roster", system_keys: Iterable[str] | None = None) -> Roster:
    """Build a Roster from parsed TOML; every error names `where`, the piece and the key at fault. `system_keys`:
    the piece keys the game systems read besides the roster's own (see `_check_piece_keys`)."""
    check_keys(data, _TOP_KEYS, where)
    dictionary = check_dictionary(data.get("dictionary", "DICT_4X4_250"), where)
    raw = data.get("piece", [])
    if not isinstance(raw, list):
        raise InputError(f"{where}: pieces must be [[piece]] tables")
    pieces: list[Piece] = []
    seen_ids: set[str] = set()
    seen_markers: dict[int, str] = {}
    for i, p in enumerate(raw, 1):
        w = f"{where} piece {i}"
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
        pieces.append(
            Piece(
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
        )
        seen_ids.add(p["id"])
        seen_markers[marker] = p["id"]
    return Roster(dictionary, tuple(pieces))


def load_roster(path: str | Path, system_keys: Iterable[str] | None = None) -> Roster:
    return parse_roster(read_toml(path, "roster file"), str(path), system_keys)


def roster_to_toml(roster: Roster) -> str:
    """The roster as TOML text that `load_roster` reads back, whatever its ids and names hold."""
    lines = [f"dictionary = {toml_string(roster.dictionary)}"]
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
    return "\n".join(lines) + "\n"
