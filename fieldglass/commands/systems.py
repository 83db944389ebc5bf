"""fieldglass systems: the registered game systems; and handing a position's command to its system.

`fieldglass analyze` and `fieldglass resolve` read the position file's `"system"` and hand the parsed arguments to
that system's `commands` module (rules/system.py `GameSystem.commands`, e.g. rules/wiener/commands.py), whose
`analyze(args)` and `resolve(args)` print the answer (system-specific choices arrive as `args.choice`, KEY=VALUE).
"""

from __future__ import annotations

import argparse
import importlib

from calibration.files import read_json
from common import jsonout
from common.errors import InputError
from rules.system import game_system, game_systems


def position_system(path: str) -> str:
    data = read_json(path, "position file")
    if not isinstance(data, dict) or not isinstance(data.get("system"), str):
        raise InputError(f'{path}: a position file is a JSON object with the name of its "system" '
                         "(one of fieldglass systems)")
    return data["system"]


def add_system_options(parser, command: str) -> None:
    """Every registered system's own options of `command` ("analyze" or "resolve"), each system's under its title;
    an option two systems share is added once, with the first one's help."""
    for game in game_systems().values():
        options = game.cli.get(command, ())
        if not options:
            continue
        group = parser.add_argument_group(f"{game.title} ({game.name})")
        for o in options:
            try:
                group.add_argument(*o.flags, help=o.help, **dict(o.kwargs))
            except argparse.ArgumentError:  # another system's option of the same name: it serves both
                continue


def system_examples(command: str) -> str:
    """The examples every registered system gives for `command`, for --help."""
    parts = [f"{game.examples[command]}\n  ^ {game.title}" for game in game_systems().values()
             if game.examples.get(command)]
    return "examples:\n" + "\n\n".join(parts) + "\n"


def delegate(system: str, command: str, args) -> int:
    """Run `command` ("analyze" or "resolve") with the commands module of `system`."""
    module = importlib.import_module(game_system(system, args.position).commands)
    return int(getattr(module, command)(args) or 0)


EPILOG = """\
examples:
  fieldglass systems                 name, title, kind of table, sides and actions of each system
  fieldglass systems --json          the same as JSON for tools

A system is a package (rules/wiener, rules/dbx, rules/marengo, or one from another installed distribution)
registered in the `fieldglass.systems` entry-point group; `--system NAME` and a position file's "system" name one.
"""


def add_parser(sub) -> None:
    p = sub.add_parser("systems", help="list the game systems Fieldglass knows",
                       description="List the registered game systems: name, title, kind of table, sides, actions.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    rows = [s.describe() for s in game_systems().values()]
    if args.json:
        print(jsonout.dumps({"systems": rows}))
        return 0
    width = max((len(r["name"]) for r in rows), default=0) + 2  # a long name never runs into its title
    for r in rows:
        sides = " ".join(r["sides"]) if isinstance(r["sides"], list) else r["sides"]
        print(f"{r['name']:<{width}}{r['title']}" + ("  (the default)" if r["default"] else ""))
        print(f"{'':<{width}}table: {r['table']}; sides: {sides}; actions: {' '.join(r['actions'])}")
    return 0
