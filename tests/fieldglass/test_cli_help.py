"""Every command's --help prints and exits 0: a help text is what a new user reads first."""

import pytest

from fieldglass.cli import COMMANDS, build_parser, main


def _command_paths():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        yield [name]
        for action in p._actions:
            if getattr(action, "choices", None) and isinstance(action.choices, dict):
                for child in action.choices:
                    yield [name, child]


@pytest.mark.parametrize("words", [[]] + list(_command_paths()), ids=lambda w: " ".join(w) or "fieldglass")
def test_help_prints_and_exits_0(words, capsys):
    with pytest.raises(SystemExit) as done:
        main([*words, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "usage: fieldglass" in out and len(out.splitlines()) > 3


def test_every_command_module_is_listed():
    assert len({m.__name__ for m in COMMANDS}) == len(COMMANDS)


def test_no_command_is_an_error(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out
