"""Which rule system a position file is for, and handing a command to that system's own module.

`fieldglass analyze` and `fieldglass resolve` speak Wiener Napoleon themselves; a position of another system
(`"system": "dbx"`, `"marengo"`, ...) goes to `rules/<system>/commands.py`, whose `analyze(args)` and
`resolve(args)` take the parsed arguments (system-specific choices arrive as `args.choice`, a list of KEY=VALUE).
"""

from __future__ import annotations

import importlib

from calibration.files import read_json
from common.choices import choices  # noqa: F401  (moved to common/ so rules/ can use it; kept importable here)
from common.errors import InputError


def position_system(path: str) -> str:
    data = read_json(path, "position file")
    if not isinstance(data, dict) or not isinstance(data.get("system"), str):
        raise InputError(f'{path}: a position file is a JSON object with a "system" name, like "wiener"')
    return data["system"]


def delegate(system: str, command: str, args) -> int:
    """Run `command` ("analyze" or "resolve") with the commands module of `system`."""
    try:
        module = importlib.import_module(f"rules.{system}.commands")
    except ModuleNotFoundError:
        raise InputError(f"{args.position}: no rules engine for system {system!r} is installed") from None
    return int(getattr(module, command)(args) or 0)
