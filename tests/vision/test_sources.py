import cv2
import numpy as np
import pytest

from common.errors import InputError
from vision.sources import ImageSource, VideoSource, open_source, read_image


def _write_images(tmp_path, n=3):
    paths = []
    for i in range(n):
        p = tmp_path / f"shot{i}.png"
        cv2.imwrite(str(p), np.full((20, 30, 3), 40 * i, np.uint8))
        paths.append(p)
    return paths


def test_images_and_globs_are_read_in_order(tmp_path):
    _write_images(tmp_path)
    source = open_source(str(tmp_path / "shot*.png"))
    assert isinstance(source, ImageSource)
    frames = list(source)
    assert [n for n, _ in frames] == [0, 1, 2]
    assert [int(f[0, 0, 0]) for _, f in frames] == [0, 40, 80]


def test_a_video_file_is_played_frame_by_frame(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), 50 * i, np.uint8))
    writer.release()
    source = open_source(str(path))
    assert isinstance(source, VideoSource)
    frames = list(source)
    source.close()
    assert len(frames) == 5 and frames[0][1].shape == (48, 64, 3)
    assert not source.lost  # a file that ends is not a lost camera


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.png", "file not found"),
        (lambda d: (d / "notes.png").write_text("hello") and d / "notes.png", "not an image"),
        (lambda d: d, "is a folder"),
    ],
)
def test_bad_images_name_the_file(tmp_path, make, message):
    path = make(tmp_path)
    with pytest.raises(InputError) as err:
        read_image(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_unknown_source_and_unopenable_video(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        open_source(str(tmp_path / "nothing.mp4"))
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all")
    with pytest.raises(InputError, match="cannot open"):
        open_source(str(junk))


class FakeCamera:
    """A stand-in for cv2.VideoCapture on a camera: `backend`, the formats it `offers`, and what it hands over with
    CAP_PROP_CONVERT_RGB off (`raw`: 'jpeg' a one-row JPEG buffer as V4L2 does, 'yuyv' two channels a pixel)."""

    backend, offers, raw, frames = "V4L2", ("YUYV", "MJPG"), "jpeg", 4

    def __init__(self, spec):
        self.fourcc, self.convert, self.n = cv2.VideoWriter_fourcc(*"YUYV"), True, 0
        self.sets: list[tuple[int, float]] = []

    def isOpened(self):
        return True

    def getBackendName(self):
        return self.backend

    def get(self, prop):
        return float(self.fourcc) if prop == cv2.CAP_PROP_FOURCC else 0.0

    def set(self, prop, value):
        self.sets.append((prop, value))
        if prop == cv2.CAP_PROP_FOURCC:
            if any(value == cv2.VideoWriter_fourcc(*f) for f in self.offers):
                self.fourcc = int(value)
            return True
        if prop == cv2.CAP_PROP_CONVERT_RGB:
            self.convert = bool(value)
            return True
        return False

    def read(self):
        if self.n >= self.frames:
            return False, None
        self.n += 1
        image = np.full((48, 64, 3), 30 * self.n, np.uint8)
        if self.convert:
            return True, image
        if self.raw == "yuyv":
            return True, np.zeros((48, 64, 2), np.uint8)
        return True, cv2.imencode(".jpg", image)[1].reshape(1, -1)

    def release(self):
        pass


def _camera_frames(monkeypatch, **kind):
    monkeypatch.setattr(cv2, "VideoCapture", type("Camera", (FakeCamera,), kind))
    source = VideoSource(0)
    frames = list(source)
    return source, frames


def test_a_v4l2_camera_hands_its_jpegs_to_the_decoder(monkeypatch):
    source, frames = _camera_frames(monkeypatch)
    assert source.raw_jpeg and (cv2.CAP_PROP_CONVERT_RGB, 0) in source.capture.sets
    assert source.capture.fourcc == cv2.VideoWriter_fourcc(*"MJPG")
    assert [n for n, _ in frames] == [0, 1, 2, 3]
    assert all(f.shape == (48, 64, 3) for _, f in frames)  # decoded
    assert [round(float(f.mean())) for _, f in frames] == pytest.approx([30, 60, 90, 120], abs=2)
    assert source.lost and source.decode_dropped == 0  # a camera that stops delivering was unplugged


@pytest.mark.parametrize("kind", [{"backend": "MSMF"}, {"offers": ("YUYV",)}])
def test_other_backends_and_cameras_without_mjpg_are_left_to_convert(monkeypatch, kind):
    source, frames = _camera_frames(monkeypatch, **kind)
    assert not source.raw_jpeg and source.capture.convert
    assert all(prop != cv2.CAP_PROP_CONVERT_RGB for prop, _ in source.capture.sets)
    assert [n for n, _ in frames] == [0, 1, 2, 3]
    assert [int(f[0, 0, 0]) for _, f in frames] == [30, 60, 90, 120]  # as they came


def test_a_buffer_that_is_not_a_jpeg_turns_the_conversion_back_on(monkeypatch):
    source, frames = _camera_frames(monkeypatch, raw="yuyv")
    assert not source.raw_jpeg and source.capture.convert
    assert [int(f[0, 0, 0]) for _, f in frames] == [60, 90, 120]  # the raw one skipped, the rest converted
    assert all(f.shape == (48, 64, 3) for _, f in frames)
