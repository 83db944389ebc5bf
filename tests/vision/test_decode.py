import threading
import time

import cv2
import numpy as np
import pytest

from common.errors import InputError
from vision.decode import FrameDecoder, decode_jpeg, is_jpeg


def _jpeg(level: int, size=(48, 64)) -> bytes:
    ok, data = cv2.imencode(".jpg", np.full((*size, 3), level, np.uint8))
    assert ok
    return data.tobytes()


def test_jpeg_buffers_are_told_from_frames():
    data = _jpeg(100)
    assert is_jpeg(data)
    assert is_jpeg(np.frombuffer(data, np.uint8)[None, :])  # a V4L2 backend's one-row buffer
    assert is_jpeg(np.frombuffer(data, np.uint8)[:, None])
    assert not is_jpeg(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR))  # a BGR frame
    grey = np.zeros((48, 64), np.uint8)
    grey[0, :2] = (0xFF, 0xD8)
    assert not is_jpeg(grey)  # a grey frame whose first pixels happen to read FF D8
    assert not is_jpeg(b"\x89PNG") and not is_jpeg(np.zeros(1, np.uint8))


def test_frames_come_out_in_order_though_decoded_out_of_order():
    started = []

    def slow_evens(data):  # the even frames take longer: the pool finishes them after the odd ones
        started.append(threading.current_thread().name)
        time.sleep(0.03 if decode_jpeg(data)[0, 0, 0] // 20 % 2 == 0 else 0.0)
        return decode_jpeg(data)

    decoder = FrameDecoder(workers=2, waiting=8, decode=slow_evens)
    out = list(decoder.decoded((n, _jpeg(20 * n)) for n in range(8)))
    assert [n for n, _ in out] == list(range(8))
    assert [int(round(f.mean() / 20)) for _, f in out] == list(range(8))
    assert all(f.shape == (48, 64, 3) for _, f in out)
    assert len(set(started)) == 2  # both threads decoded
    assert decoder.dropped == 0 and decoder.corrupt == 0


def _held_decode():
    """A decode that holds its thread until `gate` is set (`first_started` says it has begun): a decoder behind."""
    gate, first_started = threading.Event(), threading.Event()

    def held(data):
        first_started.set()
        gate.wait(5)
        return decode_jpeg(data)

    return held, gate, first_started


def test_frames_that_are_not_jpegs_pass_in_their_place():
    frame = np.full((48, 64, 3), 7, np.uint8)
    out = list(FrameDecoder(2).decoded([("a", _jpeg(200)), ("b", frame), ("c", _jpeg(50))]))
    assert [t for t, _ in out] == ["a", "b", "c"]
    assert out[1][1] is frame


def test_a_decoder_behind_drops_the_oldest_waiting_and_counts_them():
    held, gate, first_started = _held_decode()

    def camera():
        yield 0, _jpeg(0)
        first_started.wait(5)  # frame 0 is being decoded, the only thread busy
        for n in range(1, 5):  # each arrives while 0 is still decoding: one waits, the older waiting one goes
            yield n, _jpeg(40 * n)
        gate.set()

    decoder = FrameDecoder(workers=1, waiting=1, decode=held)
    out = list(decoder.decoded(camera()))
    assert [n for n, _ in out] == [0, 4]  # the newest kept, the oldest waiting ones dropped
    assert decoder.dropped == 3


def test_a_corrupt_jpeg_is_skipped_and_counted():
    decoder = FrameDecoder(2)
    out = list(decoder.decoded([(0, _jpeg(10)), (1, b"\xff\xd8 not a jpeg at all"), (2, _jpeg(90))]))
    assert [n for n, _ in out] == [0, 2]
    assert decoder.corrupt == 1


def test_the_sources_error_reaches_the_reader():
    def camera():
        yield 0, _jpeg(10)
        raise InputError("camera 0: gone")

    with pytest.raises(InputError, match="gone"):
        list(FrameDecoder(2).decoded(camera()))


def test_a_reader_that_stops_early_stops_the_reading():
    read = []

    def camera():
        for n in range(100):
            read.append(n)
            yield n, _jpeg(n)

    frames = FrameDecoder(2).decoded(camera())
    assert next(frames)[0] == 0
    frames.close()
    count = len(read)
    time.sleep(0.05)
    assert len(read) == count < 100  # nothing read after the close


def test_a_negative_backlog_is_refused():
    with pytest.raises(ValueError, match="negative"):
        FrameDecoder(2, waiting=-1)


def test_with_no_backlog_a_frame_is_dropped_only_when_every_thread_is_busy():
    out = list(FrameDecoder(workers=1, waiting=0).decoded((n, _jpeg(10 * n)) for n in range(5)))
    assert out  # a free thread takes the frame that comes (it is not "waiting" the moment it is handed over)
    held, gate, first_started = _held_decode()

    def camera():
        yield 0, _jpeg(0)
        first_started.wait(5)
        yield 1, _jpeg(40)  # the only thread is busy: dropped at once
        gate.set()

    decoder = FrameDecoder(workers=1, waiting=0, decode=held)
    assert [n for n, _ in decoder.decoded(camera())] == [0] and decoder.dropped == 1
