"""A Marengo recording stopped after a turn and resumed goes on with the rules' state (round, side to move,
commands, morale, the blocks' flags) where it was, not from the start: the same record as one run without a stop.

The camera is the script's true block places (tests/gui/test_marengo_record.py), the recorder the real one."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6")

from fieldglass.record import Record  # noqa: E402
from fieldglass.recording import GameRecorder, record_stream  # noqa: E402
from fieldglass.replay_session import ReplaySession  # noqa: E402
from rules.marengo.model import load_demo_board  # noqa: E402
from tests.gui.test_marengo_record import FPS, record_meta, script  # noqa: E402
from vision.pieces import PiecePose, TableReading  # noqa: E402
from vision.tracking import TrackerConfig  # noqa: E402

CONFIG = TrackerConfig(settle_s=1.0, missing_after_s=30.0)


def new_record(path, board):
    return Record.create(path, record_meta(board))


def play(recorder, frames, inputs, first: int, stop: int) -> None:
    current = {}

    def stream():
        for i in range(first, stop):
            current["seen"] = frames[i]
            yield i, i / FPS, np.zeros((4, 4, 3), np.uint8)

    def read(_image):
        poses = tuple(PiecePose(pid, m, float(x), float(y), 0.0) for pid, (m, x, y) in current["seen"].items())
        return TableReading(object(), poses, (), ())

    record_stream(recorder, stream(), read, inputs)


def test_a_resumed_marengo_recording_goes_on_with_the_rules_state(tmp_path):
    board = load_demo_board()
    frames, inputs = script(board)
    whole = new_record(tmp_path / "whole.fgr", board)
    play(GameRecorder.start(whole, config=CONFIG), frames, inputs, 0, len(frames))

    split = new_record(tmp_path / "split.fgr", board)
    recorder = GameRecorder.start(split, config=CONFIG)
    play(recorder, frames, inputs, 0, 27)  # stopped after Austria's turn of round 16 ended
    before = recorder.position()
    split.close()
    split = Record.open(tmp_path / "split.fgr", writable=True)
    recorder = GameRecorder.start(split, config=CONFIG)
    assert recorder.position() == before
    assert (before.round, before.side) == (16, "FR")
    play(recorder, frames, inputs, 27, len(frames))

    def rules_events(rec):
        return [(e.type, e.piece, {k: v for k, v in e.data.items() if k != "input"}) for e in rec.events()
                if e.type in ("combat", "turn")]

    assert rules_events(split) == rules_events(whole)
    assert split.meta["winner"] == whole.meta["winner"] and split.meta["game_over"] is True
    replay = ReplaySession(split)
    assert replay.position_at(len(replay)) == ReplaySession(whole).position_at(len(replay))
