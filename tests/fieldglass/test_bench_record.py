"""`fieldglass bench record --video`: the scripted game filmed and recorded through the command's plan, the moves
checked against the script (figures are printed, never asserted: these are not timed tests); and the decode thread
that feeds a record from a video file."""

from __future__ import annotations

import threading

import pytest

from fieldglass.benchmarks.record import VIDEOS, measure_video, video_lines, write_video
from fieldglass.recording import prefetched
from vision.scripted import scripted_game

STOP = 46  # the pieces still, a hand, fr-i-1 slid to F4 and au-c-1 lifted to M7


@pytest.fixture(scope="module")
def short_game():
    game = scripted_game()
    game.frames = game.frames[:STOP]
    game.inputs = [i for i in game.inputs if i["frame"] < STOP]
    game.truth = [t for t in game.truth if t.get("frame", 0) < STOP]
    return game


def test_the_video_bench_records_the_script_from_the_file_and_from_decoded_frames(short_game, tmp_path):
    video = write_video(short_game, tmp_path / "still.avi", (1280, 720), **VIDEOS["still"])
    fig = measure_video(short_game, video, (1280, 720), repeats=1)
    assert fig.frames == STOP and sum(fig.work.values()) == STOP and fig.work["full"] == 1
    assert [m[:3] for m in fig.moves] == [("fr-i-1", "F3", "F4"), ("au-c-1", "O8", "M7")]
    assert fig.moves == fig.truth
    assert min(fig.decode_s, fig.plain_s, fig.record_s, fig.read_s) > 0
    lines = video_lines("still", (1280, 720), fig)
    assert lines[0] == f"still camera, 1280x720, {STOP} frames:"
    assert any("record / plain detector:" in x for x in lines)
    assert any("the same as the script" in x for x in lines)


def test_prefetched_frames_come_in_order_and_an_error_is_raised_to_the_reader():
    assert list(prefetched(iter(range(50)), depth=3)) == list(range(50))

    def broken():
        yield 1
        raise ValueError("a damaged frame")

    with pytest.raises(ValueError, match="a damaged frame"):
        list(prefetched(broken()))


def test_a_reader_that_stops_early_stops_the_decode_thread():
    closed = threading.Event()

    def endless():
        try:
            n = 0
            while True:
                yield n
                n += 1
        finally:
            closed.set()

    frames = prefetched(endless(), depth=2)
    assert [next(frames) for _ in range(5)] == [0, 1, 2, 3, 4]
    frames.close()
    assert closed.wait(5)
    assert not any(t.name == "fieldglass-decode" and t.is_alive() for t in threading.enumerate())
