"""The proof that a game system is one folder: Capture (tests/systems/capture/), registered through the registry,
gets `systems`, `analyze`, `resolve`, `view` and the dashboard with its pictures, panels and actions; nothing
outside its folder names it."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import CameraPose
from common.errors import InputError
from fieldglass.cli import main as run_cli
from fieldglass.session import Session, load_setup
from rules.system import register, unregister
from tests.systems.capture import GAME
from tests.systems.capture.live import CaptureLive
from vision.pieces import PiecePose, TableReading

ROOT = Path(__file__).resolve().parents[2]
POSITION = {"system": "capture", "grid": {"cols": 8, "rows": 8},
            "pieces": [{"id": "w1", "side": "white", "field": "C3", "facing": "N"},
                       {"id": "b1", "side": "black", "field": "D4", "facing": "S"},
                       {"id": "b2", "side": "black", "field": "F6", "facing": "S"}]}


@pytest.fixture(autouse=True)
def capture_registered():
    register(GAME)
    yield
    unregister("capture")


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "capture.json"
    path.write_text(json.dumps(POSITION))
    return str(path)


def test_nothing_outside_its_folder_names_the_system():
    files = subprocess.run(["git", "ls-files", "*.py", "*.toml", "Makefile"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    pattern = re.compile(r"[\"']capture[\"']|systems[./]capture")  # its name as a value, or its package
    named = [f for f in files if not f.startswith("tests/systems/") and pattern.search((ROOT / f).read_text())]
    assert named == []


def test_systems_lists_it(capsys):
    assert run_cli(["systems", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["systems"]}
    assert rows["capture"]["table"] == "grid" and rows["capture"]["actions"] == ["capture"]


def test_analyze_resolve_and_view(game, tmp_path, capsys):
    assert run_cli(["analyze", game, "--from", "w1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"from": "w1", "captures": ["b1"]}
    assert run_cli(["analyze", game, "--from", "w1", "--to", "b2"]) == 0
    assert "may capture: b1" in capsys.readouterr().out
    after = tmp_path / "after.json"
    assert run_cli(["resolve", game, "--action", "capture", "--attacker", "w1", "--target", "b1",
                    "--out", str(after)]) == 0
    assert "w1 takes b1 in D4" in capsys.readouterr().out
    pieces = {p["id"]: p for p in json.loads(after.read_text())["pieces"]}
    assert set(pieces) == {"w1", "b2"} and pieces["w1"]["field"] == "D4" and pieces["w1"]["facing"] == "NE"
    assert run_cli(["resolve", game, "--action", "capture", "--attacker", "w1", "--target", "b2"]) == 2
    assert "cannot capture b2: not an adjacent enemy stone" in capsys.readouterr().err
    assert run_cli(["view", game, "--as", "black", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["pieces"]) == 3  # nothing hidden in this game


def test_the_one_set_up_loader_brings_its_synthetic_table():
    """`load_setup` asked for Capture with nothing but the synthetic source: Capture declares no demo, so the
    synthetic table's own (its grid, camera, roster and terrain); the ground is what its adapter reads from the
    terrain templates; the session it makes plays Capture."""
    setup = load_setup("capture", "synthetic")
    assert setup.system == "capture" and setup.source == "synthetic" and setup.camera is None
    assert setup.layout.grid is not None and setup.board is None and setup.game is None
    assert setup.scene is not None and setup.scene.layout == setup.layout and setup.scene.roster == setup.roster
    assert setup.terrain and setup.ground == {} and setup.initial_states == {}
    assert {"source", "camera", "layout", "roster"} <= set(setup.names)
    assert isinstance(setup.make_session().live, CaptureLive)


def test_the_one_set_up_loader_reads_its_position_file(game, tmp_path):
    """A position of the table's grid size starts the pieces' states; another size is a one-line error."""
    with pytest.raises(InputError, match=r"capture.json: grid 8x8 differs from the layout's 40x20"):
        load_setup("capture", "synthetic", game=game)
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({**POSITION, "grid": {"cols": 40, "rows": 20}}))
    setup = load_setup("capture", "synthetic", game=str(path))
    assert setup.names["game"] == str(path) and set(setup.initial_states) == {"w1", "b1", "b2"}


def test_the_gui_command_lists_it(capsys):
    with pytest.raises(SystemExit):
        run_cli(["gui", "--help"])
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "--system NAME" in ln and "rules system" in ln)
    assert "capture" in line


POSE = CameraPose(np.zeros(3), np.array([0.0, 0.0, 1000.0]), 0.1, (0, 1))


def _reading(setup, places: dict[str, tuple[int, int]]) -> TableReading:
    grid = setup.layout.grid
    pieces = []
    for rp in setup.roster.pieces:
        if rp.id in places:
            x, y = grid.field_centre(*places[rp.id])
            pieces.append(PiecePose(rp.id, rp.marker, x, y, 0.0, "N", 0.0, grid.name_at(x, y), 30.0))
    return TableReading(POSE, tuple(pieces), (), ())


def _two_stones(setup):
    sides = list(dict.fromkeys(p.side for p in setup.roster.pieces))
    a = next(p.id for p in setup.roster.pieces if p.side == sides[0])
    b = next(p.id for p in setup.roster.pieces if p.side == sides[1])
    return a, b, {a: (10, 5), b: (11, 6)}


def test_the_one_session_plays_it():
    setup = load_setup("capture", "synthetic")
    a, b, places = _two_stones(setup)
    s = Session(setup, settle_s=0.5)
    s.update_reading(_reading(setup, places), t=0.0)
    assert {p.id for p in s.position.pieces} == {a, b}
    s.select(a)
    assert [t.target for t in s.targets() if t.melee] == [b]
    kinds = {it.kind for it in s.picture()}
    assert {"capture-reach", "capture-line", "stone:seen", "facing", "label"} <= kinds
    pending = s.apply(s.resolve("capture", a, b))
    assert [p.describe() for p in pending] == [f"take {b} off the table", f"move {a} to L7"]
    assert s.position.piece(a).field_name == "L7" and b not in s.position.by_id  # the rules' word at once
    s.update_reading(_reading(setup, {a: (11, 6)}), t=1.0)
    s.update_reading(_reading(setup, {a: (11, 6)}), t=2.0)
    assert s.state.pending == {}  # the table matches


def test_the_dashboard_draws_it_and_resolves_from_its_panel(qapp, tmp_path):
    from tests.gui.helpers import SHOTS, open_window, refresh

    setup = load_setup("capture", "synthetic")
    a, b, places = _two_stones(setup)
    win = open_window(qapp, setup, tmp_path)
    try:
        s = win.session
        s.update_reading(_reading(setup, places), t=100.0)
        s.select(a)
        s.select(b, second=True)
        refresh(qapp, win)
        assert win.board_view.items_of("capture-line") and win.live_view.items_of("capture-line")
        cp = win.combat_panel
        assert [cp.action.itemText(i) for i in range(cp.action.count())] == ["capture"]
        assert not cp.roll_button.isVisible() and cp.extra == {}  # no dice, no inputs: built from the system
        cp.follow_selection()
        cp.resolve_button.click()
        assert "takes" in cp.result.toPlainText()
        cp.apply_button.click()
        refresh(qapp, win)
        assert win.board_view.items_of("pending-remove") and win.board_view.items_of("pending-move")
        SHOTS.mkdir(parents=True, exist_ok=True)
        win.save_screenshot(SHOTS / "capture-dashboard.png")
    finally:
        win.stop()
        win.close()


def test_the_gui_command_runs_it_headless(tmp_path, capsys):
    shot = tmp_path / "capture.png"
    env_display = {k: os.environ.pop(k) for k in ("DISPLAY", "WAYLAND_DISPLAY") if k in os.environ}
    try:
        assert run_cli(["gui", "--system", "capture", "--frames", "1", "--resolution", "1280x720",
                        "--screenshot", str(shot)]) == 0
    finally:
        os.environ.update(env_display)
    assert shot.exists() and "running headless" in capsys.readouterr().out
