"""Reading the project's text files with one-line errors that name the file."""

from __future__ import annotations

import json
import math
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


# The largest length any file may give, in mm (100 m): a table, a coordinate, a base, a field. Anything larger is a
# typo, and would only be blamed later on the photo or make a grid or a drawing run out of memory.
MAX_MM = 100_000.0


def number(table: dict, key: str, where: str, *, positive: bool = False, default: float | None = None,
           limit: float = MAX_MM) -> float:
    """A finite number from a parsed table, at most `limit` in size (mm unless said), with a one-line error naming
    `where` and `key`."""
    if key not in table:
        if default is not None:
            return float(default)
        raise InputError(f"{where}: missing {key!r}")
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: {key!r} must be a number, not {value!r}")
    if not math.isfinite(value) or abs(value) > limit:
        raise InputError(f"{where}: {key!r} must be a finite number of at most {limit:g}, not {value!r}")
    if positive and value <= 0:
        raise InputError(f"{where}: {key!r} must be positive, not {value!r}")
    return float(value)


def check_keys(table: dict, allowed: tuple[str, ...], where: str, later: dict[str, str] | None = None) -> dict:
    """`table` itself if every key is one of `allowed`; else InputError naming the first unknown key (a typo
    would otherwise be ignored silently). `later` maps keys of future features to why they are not read yet."""
    for key in table:
        if key not in allowed:
            why = (later or {}).get(key)
            if why:
                raise InputError(f"{where}: unknown key {key!r} ({why})")
            raise InputError(f"{where}: unknown key {key!r} (known: {', '.join(allowed)})")
    return table


def table_of(data: dict, key: str, where: str, default: dict | None = None) -> dict:
    """The sub-table `[key]` of parsed TOML, or InputError naming it when it is something else (`markers = 5`)."""
    value = data.get(key, default)
    if not isinstance(value, dict):
        raise InputError(f"{where}: [{key}] must be a table of keys, not {value!r}")
    return value


def toml_string(text: str) -> str:
    """`text` as a TOML basic string, quotes, backslashes and control characters escaped (JSON's escapes are
    TOML's; TOML also wants DEL escaped, which JSON leaves as it is)."""
    return json.dumps(str(text), ensure_ascii=False).replace("\x7f", "\\u007f")
