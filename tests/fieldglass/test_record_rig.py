"""`fieldglass record --rig`: the two-camera scripted game (vision/scripted_rig.py), one folder of frames per camera,
recorded against its true event list; a camera whose frames end early; the rig's mistakes in one line."""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest

from common.errors import InputError
from fieldglass.cli import main
from fieldglass.record import Record
from fieldglass.recording import FrameStream
from vision.rig_capture import CameraCapture, paired
from vision.scripted_rig import CAMERAS, rig_scripted_game

EAST_FRAMES = 36  # the east camera's short video: it ends after the second move is committed ...
WEST_FRAMES = 48  # ... and the west reads on for 2.4 s, longer than --missing-after


@pytest.fixture(scope="module")
def filmed(tmp_path_factory):
    """The script, its frames in rig/west and rig/east, the rig file (sources relative to it), the layout, roster
    and inputs; and rig/east-short, the east's first EAST_FRAMES frames only."""
    folder = tmp_path_factory.mktemp("rig")
    script = rig_scripted_game()
    script.write_rig(folder)
    short = folder / "east-short"
    short.mkdir()
    for path in sorted((folder / "east").iterdir())[:EAST_FRAMES]:
        (short / path.name).symlink_to(path)
    return folder, script


def args(folder, out, *extra):
    return ["record", "--rig", str(folder / "rig.toml"), "--layout", str(folder / "layout.toml"), "--roster",
            str(folder / "roster.toml"), "--fps", "5", "--inputs", str(folder / "inputs.jsonl"), "--missing-after",
            "1.5", "--out", str(out), *extra]


def moves(record):
    return [(e.piece, e.data["from"]["cell"], e.data["to"]["cell"], e.data["to"]["facing"])
            for e in record.events(clean=True) if e.type == "move"]


def true_moves(script, stop=None):
    return [(m["piece"], m["from"], m["to"], m["to_facing"]) for m in script.game.true_moves()
            if stop is None or m["frame"] < stop]


def test_the_rig_records_the_script_across_both_halves_and_past_a_hand_one_camera_sees(filmed, tmp_path, capsys):
    folder, script = filmed
    out = tmp_path / "game.fgr"
    assert main(args(folder, out)) == 0
    assert capsys.readouterr().err.count("no frame") == 0  # both videos end together: nothing to say
    record = Record.open(out)
    assert moves(record) == true_moves(script)
    assert ("fr-c-1", "D3", "Q4", "E") in moves(record)  # from the west's half to the east's
    events = record.events(clean=True)
    gun = [e.type for e in events if e.piece == "fr-a-1"]
    assert gun == ["appeared"]  # the hand over it, seen by the west only, made nothing
    assert [e.type for e in events if e.piece == "au-c-1"] == ["appeared", "missing", "removed"]
    assert {e.piece for e in events if e.type == "appeared"} == set(script.game.frames[0].places)
    assert [c["name"] for c in record.meta["rig"]["cameras"]] == list(CAMERAS)
    record.close()


def test_the_rig_records_the_script_from_one_video_per_camera(filmed, tmp_path):
    """The same game as two MJPG videos (a capture card's or a webcam's own format), one per camera, at the script's
    5 frames a second: the same moves, the carry across the halves among them."""
    folder, script = filmed
    videos = []
    for name in CAMERAS:
        frames = sorted((folder / name).iterdir())
        h, w = cv2.imread(str(frames[0])).shape[:2]
        path = tmp_path / f"{name}.avi"
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (w, h))
        for f in frames:
            writer.write(cv2.imread(str(f)))
        writer.release()
        videos += ["--source", str(path)]
    out = tmp_path / "video.fgr"
    assert main(args(folder, out, *videos)) == 0
    record = Record.open(out)
    assert moves(record) == true_moves(script)
    assert ("fr-c-1", "D3", "Q4", "E") in moves(record)
    assert [m["source"] for m in record.meta["rig"]["cameras"]] == videos[1::2]
    record.close()


def test_a_camera_whose_video_ends_early_is_said_once_and_the_other_goes_on(filmed, tmp_path, capsys):
    folder, script = filmed
    out = tmp_path / "short.fgr"
    assert main(args(folder, out, "--source", str(folder / "west"), "--source", str(folder / "east-short"),
                     "--frames", str(WEST_FRAMES))) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if "no frame" in line]
    assert err == [f"east: no frame after frame {EAST_FRAMES - 1} (its source ended); going on with west"]
    record = Record.open(out)
    assert moves(record) == true_moves(script, EAST_FRAMES)
    events = record.events(clean=True)
    # the pieces only the east saw keep their places: none is reported missing because its camera is gone
    assert [e.type for e in events if e.type == "missing"] == []
    assert [e.type for e in events if e.piece == "fr-c-1"] == ["appeared", "move"]
    assert record.progress["frame"] == WEST_FRAMES - 1  # the west read on
    record.close()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--source", "a"), "--rig: 2 camera(s) (west, east) but 1 --source"),
        (("--camera", "cam.json"), "--camera and --rig exclude each other"),
    ],
)
def test_rig_mistakes_are_one_line(filmed, tmp_path, capsys, extra, message):
    folder, _ = filmed
    assert main(args(folder, tmp_path / "x.fgr", *extra)) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.fgr").exists()


def test_a_rig_file_without_sources_needs_them_given(filmed, tmp_path, capsys):
    folder, _ = filmed
    (tmp_path / "rig.toml").write_text((folder / "rig.toml").read_text().replace('source = "east"\n', "").replace(
        'intrinsics = "', f'intrinsics = "{folder}/'))
    argv = args(folder, tmp_path / "x.fgr")
    argv[2] = str(tmp_path / "rig.toml")
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "camera east has no 'source'" in err and len(err.splitlines()) == 1


def test_two_sources_without_a_rig_are_one_line(filmed, tmp_path, capsys):
    folder, _ = filmed
    assert main(["record", "--source", "a", "--source", "b", "--out", str(tmp_path / "x.fgr")]) == 2
    err = capsys.readouterr().err.strip()
    assert "several cameras need --rig RIG.toml" in err and len(err.splitlines()) == 1


def _stream(n, gate=None):
    def gen():
        for i in range(n):
            if gate is not None and i == 2:
                gate.wait()
            yield i, i / 5.0, np.full((2, 2, 3), i, np.uint8)
    return FrameStream(gen(), n, "fake")


def test_pairing_gives_frame_i_of_each_camera_and_goes_on_without_one_that_ended():
    said = []
    workers = [CameraCapture("west", _stream(6).frames, False), CameraCapture("east", _stream(3).frames, False)]
    shots = list(paired(workers, said.append))
    assert [i for i, _, _ in shots] == list(range(6))
    assert all(s.images[0][0, 0, 0] == i for i, _, s in shots)
    assert [s.images[1] is None for _, _, s in shots] == [False] * 3 + [True] * 3
    assert all(s.images[1][0, 0, 0] == i for i, _, s in shots[:3])
    assert said == ["east: no frame after frame 2 (its source ended); going on with west"]


def test_a_stalled_camera_is_said_once_left_out_and_welcomed_back():
    said = []
    gate = threading.Event()
    workers = [CameraCapture("west", _stream(8).frames, False), CameraCapture("east", _stream(8, gate).frames, False)]
    shots = []
    for item in paired(workers, said.append, stall_s=0.3):
        shots.append(item)
        if len(shots) == 4:
            gate.set()  # the east delivers again, before the next instant is paired
            while workers[1].queue.empty():
                time.sleep(0.01)
    assert [i for i, _, _ in shots][:2] == [0, 1] and shots[2][2].images[1] is None
    assert said[0] == "east: no frame for 0.3 s after frame 1 (stalled); going on with west"
    assert said[1].startswith("east: frames again from frame 2")
    assert sum(s.images[1] is not None for _, _, s in shots) == 8  # every east frame came, late


def test_a_camera_whose_frame_cannot_be_read_drops_out_with_the_reason():
    def broken():
        yield 0, 0.0, np.zeros((2, 2, 3), np.uint8)
        raise InputError("east/frame-00001.jpg: not an image OpenCV can read")

    said = []
    workers = [CameraCapture("west", _stream(3).frames, False), CameraCapture("east", broken(), False)]
    shots = list(paired(workers, said.append))
    assert [s.images[1] is not None for _, _, s in shots] == [True, False, False]
    assert said == ["east: no frame after frame 0 (east/frame-00001.jpg: not an image OpenCV can read); going on "
                    "with west"]
