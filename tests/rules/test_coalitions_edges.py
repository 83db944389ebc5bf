"""Coalitions at the rules' edges (issue 27): unknown names answered as unknown with the valid ones, and the secret
choices (statuses §9.3, bids §9.6) kept sealed per Power in the position file. Each test is written from the
digest's words (the section in its name and comment), not from the engine's output, and run through the real
`fieldglass resolve / view` where the issue found the gap."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from fieldglass.cli import main as run_cli
from rules.coalitions import GAME
from rules.system import register, unregister

EXAMPLE = Path(__file__).resolve().parents[2] / "rules" / "coalitions" / "data" / "example.json"
POWERS = "one of britain france austria prussia russia ottoman"


@pytest.fixture(autouse=True)
def registered():
    register(GAME)
    yield
    unregister("coalitions")


def cli(capsys, line: str) -> tuple[int, str, str]:
    code = run_cli(shlex.split(line))
    out, err = capsys.readouterr()
    return code, out, err


def diplomacy_game(tmp_path, **extra) -> Path:
    """The example's 1805 set-up in round 2's Diplomacy phase (§4.1: none in round 1), the Ottomans a Minor Power
    controlled by Russia (§9.6) unless `extra` says otherwise."""
    data = {**json.loads(EXAMPLE.read_text()), "round": 2, "phase": "diplomacy", "minors": {"ottoman": "russia"},
            **extra}
    path = tmp_path / "round2.json"
    path.write_text(json.dumps(data))
    return path


# ---------------------------------------------------------------------------------------------- unknown names


@pytest.mark.parametrize(("line", "says"), [
    ("--action taxation --attacker narnia", f"--attacker: unknown Power 'narnia' ({POWERS})"),
    ("--action move --attacker narnia --target holland", "move: --attacker: unknown General 'narnia' (one of at-1 "),
    ("--action start_movement --attacker france --target narnia", f"Arbiter (--target): unknown Power 'narnia' "
                                                                  f"({POWERS})"),
    ("--action move --attacker fr-1 --target hollnd", "unknown Territory 'hollnd'; did you mean holland? (one of "),
    ("--action subsidies --attacker britain --choice offer.narnia=3", f"unknown Power 'narnia' ({POWERS})"),
    ("--action mobilisation --attacker france --choice troops.zz=1", "troops.zz: unknown General 'zz' (one of "),
])
def test_an_unknown_name_is_named_as_unknown_with_the_valid_ones(capsys, line, says):
    """Bad input of any kind: a one-line error naming the thing and what is wrong, listing the valid values."""
    code, _, err = cli(capsys, f"resolve {EXAMPLE} {line}")
    assert code == 2 and says in err and err.count("\n") == 1, err


@pytest.mark.parametrize(("line", "says"), [
    ("--action declare --attacker any --choice status.spain=french", f"status.spain: unknown Power 'spain' "
                                                                       f"({POWERS})"),
    ("--action declare --attacker any --choice expel.spain=neutral", f"expel.spain: unknown Power 'spain' ({POWERS})"),
    ("--action bid --attacker any --target narnia --choice bid.austria=1", f"unknown Power 'narnia' ({POWERS})"),
    ("--action bid --attacker any --target ottoman --choice bid.narnia=1", "bid.narnia: unknown Power 'narnia'"),
    ("--action choose --attacker austria --choice bid.narnia=1", f"bid.narnia: unknown Power 'narnia' ({POWERS})"),
    ("--action declare --attacker any --choice status.austria=french --choice to.zz=off",
     "--choice to.zz: unknown General 'zz' (one of "),
    ("--action declare --attacker any --choice status.austria=french --choice rps.narnia=austria",
     "--choice rps.narnia (empire side of the map): unknown Territory 'narnia'"),
])
def test_an_unknown_power_in_the_diplomacy_phase_is_named_as_unknown(capsys, tmp_path, line, says):  # §9.3, §9.6
    code, _, err = cli(capsys, f"resolve {diplomacy_game(tmp_path)} {line}")
    assert code == 2 and says in err and err.count("\n") == 1, err


def test_a_known_power_that_chooses_no_status_still_says_why(capsys, tmp_path):  # §9.2
    """§9.2: "Only Austria, Prussia, Russia and the Ottoman Empire choose a status"."""
    code, _, err = cli(capsys, f"resolve {diplomacy_game(tmp_path)} --action declare --attacker any "
                               "--choice status.britain=neutral")
    assert code == 2 and "britain chooses no status (Britain and France lead their Coalitions, §9.2)" in err


def test_analyze_names_an_unknown_from_as_unknown(capsys):
    code, _, err = cli(capsys, f"analyze {EXAMPLE} --from hollnd")
    assert code == 2 and "--from: unknown Power, Territory, General or wheel 'hollnd'; did you mean holland?" in err
