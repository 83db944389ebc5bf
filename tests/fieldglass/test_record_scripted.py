"""The proof: the scripted game on the synthetic table, recorded headless, against its true event list.

Frames are rendered once per session (about 140 frames at 1280x720) into a folder, with the players' inputs as
JSON Lines, and recorded through the `fieldglass record` command: in process, and in a subprocess that is killed
with SIGKILL mid-game and then resumed.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.camera import save_camera
from calibration.layout import layout_to_toml
from common.errors import InputError
from fieldglass.commands import record as record_cmd
from fieldglass.record import Record, Replay
from vision.roster import roster_to_toml
from vision.scripted import scripted_game

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def game():
    return scripted_game()


@pytest.fixture(scope="session")
def frames(game, tmp_path_factory):
    folder = tmp_path_factory.mktemp("scripted") / "frames"
    game.write_frames(folder)
    inputs = game.write_inputs(folder.parent / "inputs.jsonl")
    return folder, inputs


def record_args(*argv):
    parser = argparse.ArgumentParser()
    record_cmd.add_parser(parser.add_subparsers())
    return parser.parse_args(["record", *argv])


def cli(folder, inputs, out, *extra):
    return ["--source", str(folder), "--fps", "5", "--inputs", str(inputs), "--missing-after", "3",
            "--out", str(out), *extra]


@pytest.fixture(scope="session")
def recorded(frames, tmp_path_factory):
    folder, inputs = frames
    out = tmp_path_factory.mktemp("rec") / "game.fgr"
    args = record_args(*cli(folder, inputs, out), "--camera", "x", "--layout", "x", "--roster", "x")
    # the folder source needs the scripted game's camera, layout and roster files
    game = scripted_game()
    cam, lay, ros = write_setup(game, out.parent)
    args.camera, args.layout, args.roster = str(cam), str(lay), str(ros)
    assert args.run(args) == 0
    return out


def write_setup(game, folder: Path):
    cam = folder / "cam.json"
    save_camera(game.camera().intrinsics, cam)
    lay = folder / "layout.toml"
    lay.write_text(layout_to_toml(game.layout))
    ros = folder / "roster.toml"
    ros.write_text(roster_to_toml(game.roster))
    return cam, lay, ros


def moves_of(events):
    return [(e.piece, e.data["from"]["cell"], e.data["to"]["cell"], e.data["to"]["facing"])
            for e in events if e.type == "move"]


def true_moves(game):
    return [(m["piece"], m["from"], m["to"], m["to_facing"]) for m in game.true_moves()]


def check_against_truth(game, events):
    """Every real move committed, in order, at the true place; no ghost moves; no silent removals."""
    assert moves_of(events) == true_moves(game)
    truth = {m["piece"]: m for m in game.true_moves()}
    for e in events:
        if e.type == "move":
            t = truth[e.piece]
            assert abs(e.data["to"]["x_mm"] - t["x_mm"]) < 3 and abs(e.data["to"]["y_mm"] - t["y_mm"]) < 3
            assert abs((e.data["to"]["heading_deg"] - t["heading_deg"] + 180) % 360 - 180) < 3
    appeared = [e.piece for e in events if e.type == "appeared"]
    assert sorted(appeared) == sorted(p.id for p in game.roster.pieces)  # each once, at the start
    assert all(e.t <= 1.5 for e in events if e.type == "appeared")
    # removals: only with a confirmation, and the knocked-off piece was reported missing first
    removed = [(e.piece, e.data["by"]) for e in events if e.type == "removed"]
    assert removed == [("fr-i-2", "FR player")]
    missing = [e for e in events if e.type == "missing"]
    assert [e.piece for e in missing] == ["fr-i-2"]
    assert missing[0].seq < next(e.seq for e in events if e.type == "removed")
    # the combat came from the rules engine on the committed position; its removal is in its changes
    (combat,) = [e for e in events if e.type == "combat"]
    assert combat.data["pieces"] == ["fr-a-1", "au-i-1"] and combat.data["fields"] == {"fr-a-1": "J3",
                                                                                          "au-i-1": "J6"}
    assert {"piece": "au-i-1", "removed": True} == {k: v for k, v in combat.data["changes"][1].items()
                                                    if k != "why"}
    assert combat.data["dice"] == [6] and combat.data["loss_test"]["roll"] == 6


def test_the_recorded_game_matches_the_truth(game, recorded):
    rec = Record.open(recorded)
    events = rec.events(clean=True)
    check_against_truth(game, events)
    # turns, phases, bookmarks and notes in their places; every event has time, turn, phase and frame
    kinds = [e.type for e in events]
    assert kinds.count("turn") == 2 and "bookmark" in kinds and "note" in kinds
    assert all(e.frame is not None and e.t == pytest.approx(e.frame / 5.0) for e in events)
    move_turns = [(e.piece, e.turn, e.phase) for e in events if e.type == "move"]
    assert move_turns == [("fr-i-1", 1, "movement"), ("au-c-1", 1, "movement"), ("fr-c-1", 2, "movement"),
                          ("au-i-2", 2, "movement")]
    # a move is committed within the settle time (plus a frame or two) of the hand leaving
    truth = {m["piece"]: m["frame"] for m in game.true_moves()}
    for e in events:
        if e.type == "move":
            assert 0 < e.frame - truth[e.piece] <= 8
    # thumbnails at each turn and the combat
    thumbs = rec.thumbnails()
    assert [k for _, k, _ in thumbs] == ["turn", "combat", "turn"]
    assert all(j[:2] == b"\xff\xd8" and len(j) < 40_000 for _, _, j in thumbs)
    # the final state
    st = rec.state()
    assert {p.id for p in st.on_table()} == {"fr-i-1", "fr-c-1", "fr-a-1", "au-i-2", "au-c-1"}
    assert st.pieces["fr-c-1"].cell == "E5" and st.pieces["fr-c-1"].facing == "NE"
    assert Replay(rec).position_at(9).pieces["fr-i-1"].cell == "F4"


def test_resume_of_a_finished_record_adds_nothing(frames, recorded, tmp_path):
    folder, inputs = frames
    copy = tmp_path / "copy.fgr"
    src = Record.open(recorded)
    dst = __import__("sqlite3").connect(copy)
    src.conn.backup(dst)
    dst.close()
    before = len(Record.open(copy).events())
    cam, lay, ros = write_setup(scripted_game(), tmp_path)
    args = record_args(*cli(folder, inputs, copy, "--resume"), "--camera", str(cam), "--layout", str(lay),
                       "--roster", str(ros))
    assert args.run(args) == 0
    assert len(Record.open(copy).events()) == before


def test_kill_9_mid_game_loses_nothing_committed_and_resume_finishes_the_game(game, frames, tmp_path):
    folder, inputs = frames
    cam, lay, ros = write_setup(game, tmp_path)
    out = tmp_path / "killed.fgr"
    argv = [sys.executable, "-m", "fieldglass", "record",
            *cli(folder, inputs, out, "--events"), "--camera", str(cam), "--layout", str(lay), "--roster", str(ros)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
    printed = []
    try:
        for line in proc.stdout:
            if line.startswith("event "):
                printed.append(line.split())
            if sum(1 for p in printed if p[2] == "move") == 2:
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert len(printed) == 10  # 7 appeared, the turn, two moves
    assert Path(str(out) + "-wal").exists()  # killed: the log was not checkpointed by a clean close
    rec = Record.open(out)
    assert rec.problems == []
    on_disk = [(str(e.seq), e.type, e.piece or "") for e in rec.events()]
    for p in printed:  # every event the process had reported as written is in the file
        piece = p[3] if p[3] != "frame" else ""
        assert (p[1], p[2], piece) in on_disk
    rec.close()
    # resume: the game goes on from the last frame read (here up to the fire phase, to keep the test short)
    # with nothing committed twice and nothing lost across the gap
    stop = next(x["frame"] for x in game.inputs if x["type"] == "combat") + 1
    args = record_args(*cli(folder, inputs, out, "--resume", "--frames", str(stop)), "--camera", str(cam),
                       "--layout", str(lay), "--roster", str(ros))
    assert args.run(args) == 0
    events = Record.open(out).events(clean=True)
    assert moves_of(events) == true_moves(game)[:2]
    assert sorted(e.piece for e in events if e.type == "appeared") == sorted(p.id for p in game.roster.pieces)
    assert [e.type for e in events].count("turn") == 1  # the input before the kill was not applied twice
    assert [e.type for e in events][-2:] == ["phase", "combat"]  # inputs after the kill were applied
    assert Record.open(out).progress["frame"] == stop - 1


def test_record_needs_its_setup_files_for_a_file_source(frames, tmp_path):
    folder, _ = frames
    args = record_args("--source", str(folder), "--out", str(tmp_path / "x.fgr"))
    with pytest.raises(InputError, match="needs --camera, --layout, --roster"):
        args.run(args)


def test_resume_needs_a_record_and_the_same_roster(frames, recorded, tmp_path):
    folder, inputs = frames
    cam, lay, ros = write_setup(scripted_game(), tmp_path)
    args = record_args(*cli(folder, inputs, tmp_path / "none.fgr", "--resume"), "--camera", str(cam),
                       "--layout", str(lay), "--roster", str(ros))
    with pytest.raises(InputError, match="no record to resume"):
        args.run(args)
    other = tmp_path / "other.toml"
    other.write_text('dictionary = "DICT_4X4_250"\n[[piece]]\nid = "x"\nmarker = 40\nmarker_mm = 20\n'
                     'base_mm = [40, 30]\nside = "FR"\ntype = "infantry"\n')  # a roster the system reads
    args = record_args(*cli(folder, inputs, recorded, "--resume"), "--camera", str(cam), "--layout", str(lay),
                       "--roster", str(other))
    with pytest.raises(InputError, match="another roster"):
        args.run(args)
