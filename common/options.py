"""Rules options files shared by every system: the §11 readings a group may choose, as TOML over the defaults.

Each system keeps a frozen dataclass of its options (its fields are the defaults) and the allowed values of the
non-boolean ones; this module checks a user's values against them and reads the files.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from common.errors import InputError


def checked_values(
    defaults: Any,
    values: dict[str, Any],
    source: str,
    ranges: dict[str, tuple[float, float]],
    choices: dict[str, tuple[str, ...]],
    system: str,
) -> dict[str, Any]:
    """`values` checked against the dataclass instance `defaults`: known keys, booleans for booleans, numbers in
    `ranges` (whole numbers where the default is whole), text among `choices`. InputError naming `source` otherwise."""
    known = {f.name for f in fields(defaults)}
    checked = {}
    for key, value in values.items():
        if key not in known:
            raise InputError(f"{source}: unknown option {key!r} (see rules/{system}/options.toml)")
        default = getattr(defaults, key)
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise InputError(f"{source}: option {key} must be true or false, not {value!r}")
        elif isinstance(default, int | float):
            lo, hi = ranges[key]
            whole = isinstance(default, int)
            ok = not isinstance(value, bool) and isinstance(value, int | float) and lo <= value <= hi
            if not ok or (whole and not float(value).is_integer()):
                kind = "whole number" if whole else "number"
                raise InputError(f"{source}: option {key} must be a {kind} {lo}..{hi}, not {value!r}")
            value = type(default)(value)
        elif value not in choices[key]:
            raise InputError(f"{source}: option {key} must be one of {' '.join(choices[key])}, not {value!r}")
        checked[key] = value
    return checked


def read_options_file(path: str | Path) -> dict[str, Any]:
    """The TOML table of an options file; InputError naming the file when it cannot be read or parsed."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the options file ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not TOML ({exc})") from None


def load_layered(defaults: Any, defaults_file: Path, path: str | Path | None = None) -> Any:
    """`defaults` (an options dataclass with `with_values`) with the system's defaults file on top, then the user's
    file at `path` on top of that; unknown keys and bad values are InputErrors naming the file."""
    opts = defaults.with_values(read_options_file(defaults_file), str(defaults_file))
    if path is not None:
        opts = opts.with_values(read_options_file(path), str(path))
    return opts


def options_from(options: Any, defaults_cls: type, load: Any) -> Any:
    """A system's options from what a caller has: a TOML file's path (read by `load`), a record's stored values
    (a mapping, checked against `defaults_cls`), an options object, or None (the digest's defaults, `load()`)."""
    if isinstance(options, Mapping):
        return defaults_cls().with_values(dict(options), "the record's rules options")
    if options is None or isinstance(options, str | Path):
        return load(options)
    return options
