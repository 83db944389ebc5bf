"""Coalitions through the registry and the command line: `systems`, `analyze`, `resolve`, `view`, with the system
registered at run time (the entry point is in pyproject.toml; the shared environment is installed from elsewhere)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from fieldglass.cli import main as run_cli
from rules import position as positions
from rules.coalitions import GAME
from rules.coalitions.model import POWERS
from rules.system import TableSystem, game_system, register, table_system, unregister

EXAMPLE = Path(__file__).resolve().parents[2] / "rules" / "coalitions" / "data" / "example.json"


@pytest.fixture(autouse=True)
def registered():
    register(GAME)
    yield
    unregister("coalitions")


def cli(capsys, line: str) -> tuple[int, str, str]:
    code = run_cli(shlex.split(line))
    out, err = capsys.readouterr()
    return code, out, err


def test_registry_entry():
    assert isinstance(table_system("coalitions"), TableSystem)
    g = game_system("coalitions")
    assert g.table == "board" and g.sides == POWERS
    assert {"move", "battle", "declare", "bid", "napoleon_card"} <= set(g.actions)
    assert table_system("coalitions", {"card5_penalty": "per_five"}).opts.card5_penalty == "per_five"
    assert table_system("coalitions").piece_type("Wellington") == "wellington"
    assert table_system("coalitions").piece_type("zeppelin") is None


def test_the_pyproject_registers_the_entry_point():
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert 'coalitions = "rules.coalitions:GAME"' in text


def test_example_round_trips():
    p = positions.load(EXAMPLE)
    assert positions.dumps(p) == EXAMPLE.read_text()
    assert positions.loads(positions.dumps(p)) == p


def test_analyze_a_power_and_a_move(capsys):
    code, out, _ = cli(capsys, f"analyze {EXAMPLE} --from britain --json")
    data = json.loads(out)
    assert code == 0 and data["action"] == "drill" and set(data["arbiters"]) == {"france", "prussia", "ottoman"}
    code, out, _ = cli(capsys, f"analyze {EXAMPLE} --from gb-2 --to lisboa --json")
    data = json.loads(out)
    assert (data["kind"], data["path"]) == ("sea", ["oporto", "lisboa"])
    code, out, _ = cli(capsys, f"analyze {EXAMPLE} --from fr-5 --to tyrol --json")
    assert json.loads(out)["battle_with"] == ["austria"]
    code, out, _ = cli(capsys, f"analyze {EXAMPLE} --from bavaria")
    assert "controlled by austria" in out


def test_resolve_writes_the_position_after(capsys, tmp_path):
    after = tmp_path / "after.json"
    code, out, _ = cli(capsys, f"resolve {EXAMPLE} --action start_movement --attacker france --target austria "
                               f"--out {after}")
    assert code == 0 and "austria +1 Morale" in out
    code, out, _ = cli(capsys, f"resolve {after} --action move --attacker fr-5 --target tyrol --json")
    data = json.loads(out)
    assert data["battles"] == ["tyrol"]
    assert any("march" in line for line in data["lines"])


def test_resolve_a_battle_with_cards(capsys, tmp_path):
    p = positions.load(EXAMPLE)
    s = p.state
    after = tmp_path / "a.json"
    cli(capsys, f"resolve {EXAMPLE} --action start_movement --attacker france --target austria --out {after}")
    cli(capsys, f"resolve {after} --action move --attacker fr-5 --target tyrol --out {after}")
    code, out, err = cli(capsys, f"resolve {after} --action battle --attacker france --target tyrol "
                                 f"--choice cards.fr-5=6 --choice cards.at-2=1 --json --out {after}")
    data = json.loads(out)
    assert code == 0, err
    assert data["strength"]["attacker"]["total"] == 2 + 6 and data["strength"]["defender"]["total"] == 2 + 1
    assert data["winner"] == "attacker"
    st = positions.load(after).state
    assert (st.generals["at-2"].at, st.generals["at-2"].troops) == ("wien", 0)
    assert st.influence["france"] == 1 and st.morale["france"] == s.morale["france"] - 1
    assert s.generals["fr-5"].troops == 1  # the file read before is untouched


def test_errors_are_one_line(capsys, tmp_path):
    code, _, err = cli(capsys, f"resolve {EXAMPLE} --action battle --attacker france --target bavaria --dice 3")
    assert code == 2 and "no dice" in err and len(err.strip().splitlines()) == 1
    code, _, err = cli(capsys, f"resolve {EXAMPLE} --action fly --attacker france")
    assert code == 2 and "Coalitions knows" in err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"system": "coalitions", "pieces": [{"id": "x", "side": "prussia", "area": "alps"}]}))
    code, _, err = cli(capsys, f"analyze {bad} --from prussia")
    assert code == 2 and "Impassable" in err and "piece 'x'" in err


def test_view_lists_the_generals(capsys):
    code, out, _ = cli(capsys, f"view {EXAMPLE} --as austria")
    assert code == 0 and "fr-1" in out and "normandie_bretagne" in out
