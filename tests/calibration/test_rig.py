"""The rig file: cameras by name, camera files relative to the rig file, one-line errors naming file and key."""

import numpy as np
import pytest

from calibration.camera import CameraIntrinsics, save_camera
from calibration.rig import load_rig, load_rig_entries, rig_to_toml
from common.errors import InputError


@pytest.fixture
def folder(tmp_path):
    k = np.array([[1000.0, 0.0, 959.5], [0.0, 1000.0, 539.5], [0.0, 0.0, 1.0]])
    (tmp_path / "cams").mkdir()
    save_camera(CameraIntrinsics((1920, 1080), k, np.zeros(5)), tmp_path / "cams" / "west.json")
    save_camera(CameraIntrinsics((1280, 720), k * [[2 / 3], [2 / 3], [1]], np.zeros(5)), tmp_path / "east.json")
    return tmp_path


def _write(folder, text):
    path = folder / "rig.toml"
    path.write_text(text)
    return path


GOOD = """
[[camera]]
name = "west"
intrinsics = "cams/west.json"
source = 0
[[camera]]
name = "east"
intrinsics = "east.json"
source = "rtsp://table/east"
"""


def test_a_rig_reads_its_cameras_in_order_relative_to_the_rig_file(folder, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path / "cams")  # paths are the rig file's, not the working folder's
    rig = load_rig(_write(folder, GOOD))
    assert rig.names == ("west", "east")
    west, east = rig.cameras
    assert west.intrinsics.image_size == (1920, 1080) and east.intrinsics.image_size == (1280, 720)
    assert west.source == 0 and east.source == "rtsp://table/east"
    again = load_rig(_write(folder, rig_to_toml(rig, folder)))
    assert again.names == rig.names and [c.source for c in again.cameras] == [0, "rtsp://table/east"]
    assert [c.intrinsics_path for c in again.cameras] == [c.intrinsics_path for c in rig.cameras]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "needs [[camera]] tables"),
        ("[[camera]]\nintrinsics = 'east.json'", "camera 1: missing 'name'"),
        ("[[camera]]\nname = 'a'", "camera 1: missing 'intrinsics'"),
        ("[[camera]]\nname = 'a'\nintrinsics = 'east.json'\nlens = 3", "camera 1: unknown key 'lens'"),
        ("[[camera]]\nname = 'a'\nintrinsics = 'east.json'\nsource = -1", "camera 1: 'source' must be"),
        ("[[camera]]\nname = 'a'\nintrinsics = 'east.json'\n[[camera]]\nname = 'a'\nintrinsics = 'east.json'",
         "camera 2: name 'a' is used by another camera"),
        ("[[camera]]\nname = 'a'\nintrinsics = 'nowhere.json'", "nowhere.json: camera file not found"),
        ("[cameras]", "unknown key 'cameras'"),
        ("[[camera]]\nname = 'a'\nintrinsics = 'east.json'\nfootprint_mm = [0, 0, 100]", "'footprint_mm' must be"),
        ("[[camera]]\nname = 'a'\nintrinsics = 'east.json'\nfootprint_mm = [0, 0, 'x', 5]",
         "'footprint_mm' must be a number"),
        ("[[camera]]\nname = 'a'\nintrinsics = 'east.json'\nfootprint_mm = [500, 0, 100, 900]", "x0 < x1"),
        ("[[camera]\n", "not valid TOML"),
    ],
)
def test_a_bad_rig_file_is_one_line_naming_the_file_and_key(folder, text, message):
    path = _write(folder, text)
    with pytest.raises(InputError) as err:
        load_rig(path)
    said = str(err.value)
    assert message in said and len(said.splitlines()) == 1
    assert "rig.toml" in said or "nowhere.json" in said


def test_a_missing_rig_file_is_named(tmp_path):
    with pytest.raises(InputError, match="rig.toml: rig file not found"):
        load_rig(tmp_path / "rig.toml")


def test_footprints_are_read_kept_and_readable_before_the_camera_files_exist(folder):
    text = GOOD.replace('source = 0', 'source = 0\nfootprint_mm = [0, 0, 1250.5, 1200]')
    rig = load_rig(_write(folder, text))
    assert [c.footprint_mm for c in rig.cameras] == [(0.0, 0.0, 1250.5, 1200.0), None]
    again = load_rig(_write(folder, rig_to_toml(rig, folder)))
    assert [c.footprint_mm for c in again.cameras] == [(0.0, 0.0, 1250.5, 1200.0), None]
    (folder / "east.json").unlink()  # anchors are placed before the cameras are calibrated
    entries = load_rig_entries(_write(folder, text))
    assert [(e.name, e.footprint_mm) for e in entries] == [("west", (0.0, 0.0, 1250.5, 1200.0)), ("east", None)]
    with pytest.raises(InputError, match="east.json: camera file not found"):
        load_rig(folder / "rig.toml")
