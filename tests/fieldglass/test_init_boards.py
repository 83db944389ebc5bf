"""Issue 26 item 1 for the systems played on a printed board: `fieldglass init --system S` writes the roster of the
pieces the system ships (markers after every board's anchors, sizes the camera reads on that board), the board's
file, the start position, the sheets and GAME.md; with those files alone `print`, the rehearsal on the synthetic
table (`gui --source synthetic --board ... --roster ... --game ...`) and `record` work."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from fieldglass.cli import main
from fieldglass.planning import CameraSetup, plan
from fieldglass.record import Record
from fieldglass.setup import load_setup, read_position
from fieldglass.setup_checks import largest_marker
from fieldglass.setup_report import setup_findings
from rules.board import load_board
from rules.system import game_system
from tests.fieldglass.test_init import one_error_line
from vision.roster import load_roster

SHEETS = ("markers.pdf", "anchors.pdf", "calibration-board.pdf")
BOARD_SYSTEMS = {"marengo": (), "nie": ("anchors-battle.pdf",), "coalitions": ()}


def _init(folder, system, *extra) -> int:
    return main(["init", str(folder), "--yes", "--system", system, *extra])


@pytest.mark.parametrize("system", sorted(BOARD_SYSTEMS))
def test_yes_writes_the_shipped_board_its_pieces_and_start(tmp_path, capsys, system):
    folder = tmp_path / system
    assert _init(folder, system) == 0
    expected = {"roster.toml", "board.toml", "start.json", "GAME.md", *SHEETS, *BOARD_SYSTEMS[system]}
    assert {p.name for p in folder.iterdir()} == expected  # no temporary file left
    gs = game_system(system)
    board = load_board(folder / "board.toml")
    shipped = gs.live.demo(None).board
    assert (board.width_mm, board.depth_mm, set(board.areas)) == (shipped.width_mm, shipped.depth_mm,
                                                                 set(shipped.areas))
    roster = load_roster(folder / "roster.toml", ("strength", "unit", "token"))
    start_set = load_roster(gs.live.starting_roster(), ("strength", "unit", "token"))
    assert roster.system == system and roster.dictionary == board.dictionary
    assert [(p.id, p.side, p.type, p.base_mm) for p in roster.pieces] == [
        (p.id, p.side, p.type, p.base_mm) for p in start_set.pieces]
    anchors = {a.id for b in (board, *gs.live.surface_boards(board).values()) for a in b.anchors}
    markers = [p.marker for p in roster.pieces]
    assert len(set(markers)) == len(markers) and not set(markers) & anchors
    # each marker the largest its base holds, and read everywhere by the default 4K camera over the table
    text = (folder / "GAME.md").read_text(encoding="utf-8")
    height = float(re.search(r", (\d+) mm above the board's centre", text).group(1))
    seen = re.search(r"seeing (\d+) x (\d+) mm", text)
    need = plan(CameraSetup((float(seen.group(1)), float(seen.group(2))), (3840, 2160), 78.0, height)
                ).smallest_marker_mm
    assert (float(seen.group(1)), float(seen.group(2))) >= (board.width_mm, board.depth_mm)
    for p in roster.pieces:
        assert need <= p.marker_mm == largest_marker(p.base_mm, roster.dictionary)
    assert setup_findings(folder / "roster.toml", system=system, board_path=folder / "board.toml") == []
    start = read_position(str(folder / "start.json"), gs, board)  # as gui --game reads it
    assert start is not None and json.loads((folder / "start.json").read_text())["system"] == system
    assert (f"fieldglass gui --system {system} --source synthetic --board board.toml --roster roster.toml --game "
            "start.json") in text
    assert f"--system {system} --source 0 --camera cam.json --board board.toml" in text
    assert f"{folder / 'roster.toml'}: {len(roster.pieces)} {system} pieces" in capsys.readouterr().out


def test_the_systems_own_keys_are_kept(tmp_path):
    assert _init(tmp_path / "c", "coalitions") == 0
    pieces = {p["id"]: p for p in tomllib.loads((tmp_path / "c" / "roster.toml").read_text())["piece"]}
    assert pieces["tk1-g"]["token"] == pieces["tk1-t"]["token"] == "tk1"  # a token's two faces (camera.py)
    assert "token" not in pieces["gb-1"]


def test_marengo_starts_from_the_demo_blocks_areas(tmp_path):
    assert _init(tmp_path / "m", "marengo") == 0
    blocks = {b["id"]: b for b in json.loads((tmp_path / "m" / "start.json").read_text())["blocks"]}
    assert blocks["au-art-1"] == {"id": "au-art-1", "side": "AU", "type": "artillery", "strength": 2, "area": "4",
                                  "approach": "5"}
    assert blocks["fr-inf-2"]["area"] == "9" and "approach" not in blocks["fr-inf-2"]


def test_a_board_not_digitised_yet_says_to_digitise_it_first(tmp_path):
    folder = tmp_path / "n"
    assert _init(folder, "marengo", "--board", "none") == 0
    assert {p.name for p in folder.iterdir()} == {"roster.toml", "GAME.md", "markers.pdf", "calibration-board.pdf"}
    text = (folder / "GAME.md").read_text(encoding="utf-8")
    assert "Tools > Board editor" in text and "fieldglass print anchors --board board.toml" in text
    shipped_anchors = {a.id for a in game_system("marengo").live.demo(None).board.anchors}
    assert not {p.marker for p in load_roster(folder / "roster.toml", ("strength",)).pieces} & shipped_anchors


def test_the_players_own_board_is_named_not_copied(tmp_path):
    assert _init(tmp_path / "a", "marengo") == 0
    mine = tmp_path / "a" / "board.toml"
    folder = tmp_path / "b"
    assert _init(folder, "marengo", "--board", str(mine)) == 0
    assert not (folder / "board.toml").exists() and (folder / "anchors.pdf").exists()
    assert f"--board {mine.resolve()} --roster roster.toml --game start.json" in (folder / "GAME.md").read_text()


@pytest.mark.parametrize(("extra", "says"), [
    (["--army", "AU=infantry:3"], "--army: marengo is played on its printed board with the pieces its package ships"),
    (["--board", "nope.toml"], "--board nope.toml: no such board file (or 'shipped'"),
    (["--camera-resolution", "320x240"], "the camera reads markers of"),
    (["--height", "300"], "--height 300: the camera sees"),
])
def test_what_cannot_be_played_on_the_board_is_refused_in_one_line(tmp_path, capsys, extra, says):
    folder = tmp_path / "t"
    assert _init(folder, "marengo", *extra) == 2
    assert says in one_error_line(capsys)
    assert not folder.exists()


def test_it_never_writes_over_the_start_position(tmp_path, capsys):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "start.json").write_text("mine\n", encoding="utf-8")
    assert _init(folder, "nie") == 2
    assert one_error_line(capsys).endswith(f"{folder / 'start.json'}: already exists; fieldglass init never writes "
                                           "over a file (choose another folder, or move it away)")
    assert [p.name for p in folder.iterdir()] == ["start.json"]


# ---------------------------------------------------------------- with init's files alone (the done-when)


@pytest.mark.parametrize("system", sorted(BOARD_SYSTEMS))
def test_print_rehearse_and_record_with_inits_files_alone(tmp_path, capsys, system):
    folder = tmp_path / system
    assert _init(folder, system) == 0
    board, roster, start = (str(folder / n) for n in ("board.toml", "roster.toml", "start.json"))
    assert main(["print", "markers", "--roster", roster, "--out", str(tmp_path / "m.pdf")]) == 0
    assert main(["print", "anchors", "--board", board, "--out", str(tmp_path / "a.pdf")]) == 0
    scene = load_setup(system, "synthetic", board=board, roster=roster, game=start).scene
    placed = sorted(pl.piece.id for pl in scene.placements)
    demo = game_system(system).live.demo(load_board(board))
    assert placed == sorted(p.id for p in demo.pieces)  # the starting set where the system sets it up
    ros = load_roster(roster, ("strength", "unit", "token"))
    assert {pl.piece.marker for pl in scene.placements} <= {p.marker for p in ros.pieces}  # init's markers drawn
    n_anchors = len(scene.layout.anchors)
    capsys.readouterr()
    assert main(["gui", "--system", system, "--source", "synthetic", "--board", board, "--roster", roster, "--game",
                 start, "--headless", "--frames", "2", "--screenshot", str(tmp_path / "gui.png")]) == 0
    out = capsys.readouterr().out
    assert f"frame 1: {len(placed)}/{len(ros.pieces)} pieces, calibration good: {n_anchors}/{n_anchors} anchors" \
        in out, out[:600]
    record = tmp_path / "game.fgr"
    assert main(["record", "--system", system, "--source", "synthetic", "--board", board, "--roster", roster,
                 "--game", start, "--frames", "4", "--fps", "2", "--out", str(record)]) == 0
    rec = Record.open(record)
    try:
        appeared = sorted(e.piece for e in rec.events() if e.type == "appeared")
    finally:
        rec.close()
    assert appeared and set(appeared) <= set(placed)
    if system != "coalitions":  # Coalitions' markers, tokens and discs are read as the game's state, not pieces
        assert appeared == placed


def test_coalitions_record_reads_inits_markers_as_the_shipped_ones(tmp_path):
    """init's smaller markers (the largest each base holds with its white margin, 9-12 mm on 16-20 mm bases) are
    filmed at the rehearsal's resolution and none is taken for lifted by its size's noise: every piece appears, as
    with the shipped sizes (before, gb-1, tk7-g and four others never did)."""
    folder = tmp_path / "c"
    assert _init(folder, "coalitions") == 0
    args = ["--system", "coalitions", "--source", "synthetic", "--board", str(folder / "board.toml"), "--game",
            str(folder / "start.json"), "--frames", "4", "--fps", "2"]

    def appeared(roster, out):
        assert main(["record", *args, "--roster", str(roster), "--out", str(out)]) == 0
        rec = Record.open(out)
        try:
            return sorted(e.piece for e in rec.events() if e.type == "appeared")
        finally:
            rec.close()

    shipped = game_system("coalitions").live.starting_roster()
    assert appeared(folder / "roster.toml", tmp_path / "a.fgr") == appeared(shipped, tmp_path / "b.fgr")


def test_the_board_and_camera_are_asked_with_their_defaults(tmp_path, monkeypatch):
    answers = iter(["nie", "", "1920x1080", "", ""])
    asked = []

    def fake_input(prompt):
        asked.append(prompt)
        return next(answers)

    monkeypatch.setattr("builtins.input", fake_input)
    folder = tmp_path / "nie"
    assert main(["init", str(folder)]) == 0
    assert asked[1] == "Board: shipped (the one nie ships), your board file, or none (digitise it first) [shipped]: "
    assert asked[2] == "Camera resolution [3840x2160]: "
    assert asked[4].startswith("Camera height above the board in mm (the lowest that sees it all) [")
    assert "1920x1080" in (folder / "GAME.md").read_text(encoding="utf-8")
    assert (folder / "anchors-battle.pdf").exists()
