"""The proof that a game system is one folder: Capture (tests/systems/capture/), registered through the registry,
gets `systems`, `analyze`, `resolve`, `view` and the dashboard with its pictures, panels and actions, and the one
recorder (`fieldglass record`, its combats resolved by Capture's engine, `--resume`), the one replay (the window,
`fieldglass replay`) and every export and the statistics; nothing outside its folder names it."""

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
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, record_stream, system_meta
from fieldglass.replay_session import ReplaySession
from fieldglass.session import Session
from fieldglass.setup import load_setup
from rules.system import register, unregister
from tests.gui.helpers import SHOTS, open_window, refresh
from tests.systems.capture import GAME
from tests.systems.capture.live import CaptureLive
from vision.pieces import PiecePose, TableReading
from vision.tracking import TrackerConfig

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
        assert win.system_panels == {} and s.actors() == ()  # the contract's defaults: no panels, only pieces act
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


# ---------------------------------------------------------------------------------------------- the game record


def _record_capture(path):
    """A Capture game recorded by the one recorder (fieldglass/recording.py) from readings of the true places: two
    stones set up, a capture input resolved by Capture's engine, the capturer put into the field and the captured
    stone taken off, then the next turn and a note. Returns (the two stones, the second side)."""
    setup = load_setup("capture", "synthetic")
    a, b, places = _two_stones(setup)
    second = setup.roster.piece(b).side
    meta = system_meta("capture", setup.layout, setup.roster, None, {}, ["white", "black"], "scripted")
    rec = Record.create(path, meta)
    recorder = GameRecorder.start(rec, setup.roster, TrackerConfig(settle_s=0.5, missing_after_s=30.0))
    frames = [places] * 6 + [{a: places[b]}] * 6
    inputs = {5: [{"frame": 5, "type": "combat", "action": "capture", "attacker": a, "target": b, "_id": "c"}],
              11: [{"frame": 11, "type": "turn", "turn": 2, "active": second, "_id": "t"},
                   {"frame": 11, "type": "note", "piece": a, "text": "a clean capture", "by": "white", "_id": "n"}]}
    current = {}

    def stream():
        for i, seen in enumerate(frames):
            current["seen"] = seen
            yield i, i * 0.2, np.zeros((4, 4, 3), np.uint8)

    record_stream(recorder, stream(), lambda _image: _reading(setup, current["seen"]), inputs)
    rec.close()
    return a, b, second


@pytest.fixture
def recorded(tmp_path):
    path = tmp_path / "capture.fgr"
    return (path, *_record_capture(path))


def test_the_one_recorder_records_it(recorded):
    path, a, b, second = recorded
    with Record.open(path) as rec:
        assert rec.meta["system"] == "capture"
        evs = rec.events()
        (combat,) = [e for e in evs if e.type == "combat"]
        d = combat.data
        assert combat.piece == a and d["action"] == "capture" and d["pieces"] == [a, b]
        assert d["winner"] == "attacker" and d["effect"] == "captured" and d["fields"] == {a: "K6", b: "L7"}
        assert d["summary"] == f"capture: {a} takes {b} in L7" and d["changes"][0] == {
            "piece": b, "removed": True, "why": ["captured"]}
        moves = [e for e in evs if e.type == "move" and e.seq > combat.seq]
        assert [(e.piece, e.data["to"]["cell"]) for e in moves] == [(a, "L7")]  # the table matches the rules
        turn = next(e for e in evs if e.type == "turn")
        assert turn.data == {"turn": 2, "active": second, "input": "t"}
        st = rec.state()
        assert st.pieces[b].status == "removed" and (st.pieces[a].status, st.pieces[a].cell) == ("on", "L7")


def test_the_one_replay_replays_it(recorded):
    path, a, b, second = recorded
    s = ReplaySession(Record.open(path))
    try:
        at = next(i for i, e in enumerate(s.timeline) if e.type == "combat")
        s.seek(at)  # just before the capture: both stones, the capture the rules allow
        assert {p.id for p in s.position.pieces} == {a, b} and not s.problems
        assert [(ln.piece, ln.target, ln.kind) for ln in s.fire_lines()] == [(a, b, "melee"), (b, a, "melee")]
        s.select(a)
        kinds = {it.kind for it in s.picture()}
        assert {"capture-reach", "capture-line", "stone:seen"} <= kinds
        s.seek(at + 1)  # the rules' word at once: the capturer in the field, the captured off
        assert [(p.id, p.field_name, p.facing) for p in s.position.pieces] == [(a, "L7", "NE")]
        assert s.combat_shown()[:2] == (a, b) and s.fire_lines() == []
        assert s.describe_event(s.current_event()) == f"capture: {a} takes {b} in L7"
        s.to_end()
        assert s.position.piece(a).field_name == "L7" and s.state().turn == 2
        assert s.viewers == ("public", "umpire") and s.hidden_at() == []  # nothing hidden in this game
        lines = "\n".join(s.position_lines())
        assert f"{a}" in lines and "a clean capture" in lines
    finally:
        s.record.close()


def test_the_replay_window_and_command_show_it(qapp, recorded, tmp_path, capsys):
    from gui.replay import ReplayWindow  # noqa: PLC0415  (PySide6: only the tests given qapp need Qt)

    path, a, b, second = recorded
    win = ReplayWindow(ReplaySession(Record.open(path)))
    try:
        win.resize(1200, 800)
        win.show()
        s = win.session
        win.go(next(i for i, e in enumerate(s.timeline) if e.type == "combat"))
        s.select(a)
        qapp.processEvents()
        assert win.board.items_of("pair-line") and win.board.items_of("capture-line")
        win.go(len(s))
        qapp.processEvents()
        assert win.board.items_of("stone:seen") and not win.board.items_of("capture-line")
    finally:
        win.close()
        win.record.close()
    shot = tmp_path / "replay.png"
    assert run_cli(["replay", str(path), "--headless", "--screenshot", str(shot)]) == 0
    out = capsys.readouterr().out
    assert "capture game" in out and f"capture {a} vs {b}: attacker (captured)" in out and shot.exists()


def test_every_export_and_the_stats(recorded, tmp_path, capsys):
    path, a, b, second = recorded
    out = tmp_path / "out"
    for fmt, target in (("jsonl", "game.jsonl"), ("report", "game.md"), ("csv", "game.csv"), ("png", "png"),
                        ("mp4", "game.mp4")):
        assert run_cli(["export", str(path), "--format", fmt, "--out", str(out / target)]) == 0, fmt
    capsys.readouterr()
    combat = next(json.loads(x) for x in (out / "game.jsonl").read_text().splitlines()
                  if json.loads(x)["type"] == "combat")
    assert combat["action"] == "capture" and combat["winner"] == "attacker"
    report = (out / "game.md").read_text()
    assert f"**capture**: {a} takes {b} in L7" in report
    assert "## Set-up" in report and "Losses (bases)" in report  # no report terms of its own: the generic report
    assert f"capture: {a} takes {b} in L7" in (out / "game.csv").read_text()
    assert sorted(p.name for p in (out / "png").iterdir()) == ["turn-00.png", "turn-02.png"]
    assert (out / "game.mp4").stat().st_size > 1000
    assert run_cli(["stats", str(path), "--json", "--png", str(out / "stats.png")]) == 0
    stats = json.loads(capsys.readouterr().out)
    first = next(p.side for p in load_setup("capture", "synthetic").roster.pieces if p.id == a)
    assert stats["combats"] == 1 and stats["combats_won"][first] == 1 and stats["pieces_removed"]["0"] == {
        second: [b]}
    assert (out / "stats.png").exists()


def test_fieldglass_record_records_it_and_resumes_it(tmp_path, capsys):
    """The command on the synthetic grid table (detection included): no branch on the system's name."""
    out = tmp_path / "c.fgr"
    argv = ["record", "--system", "capture", "--source", "synthetic", "--settle", "0.1", "--out", str(out)]
    assert run_cli([*argv, "--frames", "2"]) == 0
    assert run_cli([*argv, "--frames", "3", "--resume"]) == 0
    assert "resumed at frame 2" in capsys.readouterr().out
    with Record.open(out) as rec:
        assert rec.meta["system"] == "capture" and rec.progress["frame"] == 2
        assert {e.type for e in rec.events()} == {"appeared"}
    other = tmp_path / "w.fgr"
    assert run_cli(["record", "--source", "synthetic", "--frames", "1", "--out", str(other)]) == 0
    capsys.readouterr()
    assert run_cli([*argv, "--frames", "2", "--resume", "--out", str(other)]) == 2
    assert "record, but --system is capture" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"frame": 2, "type": "combat", "action": "capture", "attacker": "fr-1-1",
                               "target": "au-1-1"}) + "\n")
    assert run_cli([*argv, "--frames", "3", "--overwrite", "--inputs", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "fr-1-1 cannot capture au-1-1: not an adjacent enemy stone" in err and len(err.splitlines()) == 1


def test_record_help_lists_the_registered_systems(capsys):
    with pytest.raises(SystemExit):
        run_cli(["record", "--help"])
    assert "capture (grid)" in " ".join(capsys.readouterr().out.split())
