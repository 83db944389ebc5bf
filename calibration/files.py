"""Reading the project's text files with one-line errors that name the file."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from common.errors import InputError


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, expected a {what}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read {what} ({exc})") from None


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """Parse a TOML file; `what` names the kind of file in error messages ("layout file")."""
    path = Path(path)
    text = _read_text(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML ({exc})") from None


def read_json(path: str | Path, what: str) -> Any:
    path = Path(path)
    text = _read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None


def number(table: dict, key: str, where: str, *, positive: bool = False, default: float | None = None) -> float:
    """A number from a parsed table, with a one-line error naming `where` and `key`."""
    if key not in table:
        if default is not None:
            return float(default)
        raise InputError(f"{where}: missing {key!r}")
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: {key!r} must be a number, not {value!r}")
    if positive and value <= 0:
        raise InputError(f"{where}: {key!r} must be positive, not {value!r}")
    return float(value)
