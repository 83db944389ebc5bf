"""The neutral position model (pieces, grid positions) and the JSON position file (the FEN of this project).

A position file is a JSON object whose "system" key names the game system ("wiener", "dbx", ...).
Each registered system (rules/system.py) turns the object into its own `Position` subclass and back; the text
form round-trips exactly: `dumps(loads(text)) == text` for a canonical file, `loads(dumps(p)) == p` always.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from common.errors import InputError
from common.fields import FACINGS, field_name, parse_field
from common.outfiles import write_text
from rules.system import GameSystem, game_systems

Field = tuple[int, int]
"""0-based (col, row): A1 = (0, 0), letters along +x, numbers along +y."""


@dataclass(frozen=True)
class Piece:
    """One playing element: its id, side and type. Each kind of table adds where it stands in its own terms: a
    grid field and facing (`GridPiece`), a base in table mm (rules/dbx), an area of a board (rules/marengo)."""

    id: str
    side: str
    type: str
    uncertainty_mm: float | None = field(default=None, kw_only=True, compare=False)
    """One standard deviation (mm) of where the camera measured the piece (the lens's, calibration/uncertainty.py),
    None when unknown or exact (a position file, a record). A system's rules may treat a decision whose measured
    distance lies within reach of it as uncertain rather than choose; it never moves the piece. Not compared: two
    positions with the same pieces in the same places are equal however surely they were measured."""

    def where(self) -> tuple[str, str]:
        """Where it stands and which way it faces, as two short texts for a table of pieces."""
        return "", ""


@dataclass(frozen=True)
class GridPiece(Piece):
    """A piece standing in one field of a square grid with one of the 8 facings."""

    field: Field
    facing: str

    @property
    def field_name(self) -> str:
        return field_name(*self.field)

    def where(self) -> tuple[str, str]:
        return self.field_name, self.facing


@dataclass(frozen=True)
class Position:
    """A game state: the system's name and its pieces. Systems subclass it with their table and their own state."""

    system: str
    pieces: tuple[Piece, ...]

    @cached_property
    def by_id(self) -> dict[str, Piece]:
        return {p.id: p for p in self.pieces}

    def piece(self, piece_id: str) -> Piece:
        try:
            return self.by_id[piece_id]
        except KeyError:
            raise InputError(f"no piece {piece_id!r} in the position") from None


@dataclass(frozen=True)
class GridPosition(Position):
    """A position on a square grid of `cols` x `rows` fields."""

    cols: int = 0
    rows: int = 0

    @cached_property
    def occupants(self) -> dict[Field, tuple[Piece, ...]]:
        """The pieces in each occupied field."""
        out: dict[Field, list[Piece]] = {}
        for p in self.pieces:
            out.setdefault(p.field, []).append(p)
        return {f: tuple(ps) for f, ps in out.items()}

    def on_grid(self, f: Field) -> bool:
        return 0 <= f[0] < self.cols and 0 <= f[1] < self.rows


# ---------------------------------------------------------------- reading and writing through the registry


def get_system(name: str, source: str = "position") -> GameSystem:
    """The registered system a position file names (rules/system.py); InputError naming `source` otherwise."""
    systems = game_systems()
    if name not in systems:
        raise InputError(f"{source}: unknown rule system {name!r} (known: {' '.join(sorted(systems))})")
    return systems[name]


def from_dict(data: Any, source: str = "position") -> Position:
    if not isinstance(data, Mapping):
        raise InputError(f"{source}: a position file must hold a JSON object")
    system = data.get("system")
    if not isinstance(system, str):
        raise InputError(f"{source}: missing \"system\" (e.g. \"wiener\")")
    game = get_system(system, source)
    try:
        return game.from_dict(data, source)
    except InputError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # A system's parser that met a value of a kind it did not check: still one line naming the file (each
        # system names the key itself where it checks it).
        what = f"missing {exc.args[0]!r}" if isinstance(exc, KeyError) and exc.args else str(exc)
        raise InputError(f"{source}: not a valid {system} position ({what[:120]})") from None


def _no_constant(name: str):
    raise InputError(f"{name} is not a number a position file may hold")


def loads(text: str, source: str = "position") -> Position:
    """A position from JSON text; NaN and Infinity (which Python's JSON reads, and no rule means) are refused."""
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    return from_dict(data, source)


def load(path: str | Path) -> Position:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the position file ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: cannot read the position file (not UTF-8 text: {exc.reason})") from None
    return loads(text, str(path))


def to_dict(position: Position) -> dict:
    return get_system(position.system).to_dict(position)


def dumps(position: Position) -> str:
    return get_system(position.system).dumps(position)


def save(position: Position, path: str | Path) -> None:
    """Write the position file whole or not at all (InputError naming `path` if it cannot be written)."""
    write_text(path, dumps(position))


# ---------------------------------------------------------------- helpers for systems' parsers


def parse_grid_field(name: Any, cols: int, rows: int, what: str) -> Field:
    """A field name on a cols x rows grid, or InputError naming `what` (e.g. "piece 'x'")."""
    if not isinstance(name, str):
        raise InputError(f"{what}: field must be a name like 'D5', not {name!r}")
    try:
        f = parse_field(name)
    except InputError:
        raise InputError(f"{what}: {name!r} is not a field name (letters then a row number, like 'D5')") from None
    if not (0 <= f[0] < cols and 0 <= f[1] < rows):
        raise InputError(f"{what}: field {name} is off the {cols}x{rows} grid")
    return f


def parse_facing(value: Any, what: str) -> str:
    if not isinstance(value, str) or value.upper() not in FACINGS:
        raise InputError(f"{what}: facing must be one of {' '.join(FACINGS)}, not {value!r}")
    return value.upper()
