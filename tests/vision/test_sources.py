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
