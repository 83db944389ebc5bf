"""Every command's --help prints, shows examples and exits 0: a help text is what a new user reads first.

The commands are found from the files in fieldglass/commands/, not from the list the CLI keeps, so a new command
module that was never registered (or registered without examples) fails here."""

import argparse
import importlib
import pkgutil
import re

import pytest

import fieldglass.commands
from fieldglass.cli import COMMANDS, build_parser, main


def _command_modules():
    """Every module in fieldglass/commands/ that defines a subcommand (has `add_parser`)."""
    mods = [importlib.import_module(f"fieldglass.commands.{m.name}")
            for m in pkgutil.iter_modules(fieldglass.commands.__path__)]
    return [m for m in mods if callable(getattr(m, "add_parser", None))]


def _names(module) -> list[str]:
    """The subcommand names a module registers, on a parser of its own."""
    sub = argparse.ArgumentParser(prog="fieldglass").add_subparsers()
    module.add_parser(sub)
    return list(sub.choices)


MODULES = _command_modules()


def _command_paths():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        yield [name]
        for action in p._actions:
            if getattr(action, "choices", None) and isinstance(action.choices, dict):
                for child in action.choices:
                    yield [name, child]


def _help(words, capsys) -> str:
    with pytest.raises(SystemExit) as done:
        main([*words, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_help_prints_and_exits_0(capsys):
    out = _help([], capsys)
    assert "usage: fieldglass" in out and len(out.splitlines()) > 3


@pytest.mark.parametrize("words", list(_command_paths()), ids=" ".join)
def test_every_command_help_prints_with_examples(words, capsys):
    out = _help(words, capsys)
    assert out.startswith(f"usage: fieldglass {' '.join(words)}"), out[:200]
    examples = out.split("\nexamples:\n", 1)
    assert len(examples) == 2, f"fieldglass {' '.join(words)} --help has no 'examples:' section"
    first = examples[1].splitlines()[0]
    assert first.startswith(f"  fieldglass {words[0]}"), first  # an example of this command, not another's


def test_the_command_modules_are_found():
    # a floor, so that an empty discovery cannot pass the tests below
    assert {"gui", "demo", "record", "replay", "resolve", "calibrate", "print", "bench"} <= \
        {n for m in MODULES for n in _names(m)}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_command_module_is_registered_and_listed(module, capsys):
    assert module in COMMANDS, f"{module.__name__} defines a subcommand but fieldglass.cli does not register it"
    names = _names(module)
    assert names, f"{module.__name__}.add_parser registers no subcommand"
    listing = _help([], capsys)
    for name in names:
        assert re.search(rf"^    {re.escape(name)}(\s|$)", listing, re.M), f"{name} missing from fieldglass --help"
        out = _help([name], capsys)
        assert "\nexamples:\n" in out and f"  fieldglass {name}" in out


def test_every_registered_command_is_a_module_of_fieldglass_commands():
    assert len({m.__name__ for m in COMMANDS}) == len(COMMANDS)
    assert set(COMMANDS) == set(MODULES)


def test_no_command_is_an_error(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out
