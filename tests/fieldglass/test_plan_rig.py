"""`fieldglass plan --rig-out`: a rig file for the advised cameras, read back by the rig file's own parser."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraIntrinsics, save_camera
from calibration.rig import footprint_overlap as overlap
from calibration.rig import load_rig, load_rig_entries
from fieldglass.cli import main
from fieldglass.planning import CameraSetup, plan, rig_parts, rig_skeleton

LOW = ["--table", "2400x1200", "--camera-resolution", "1920x1080", "--fov", "90", "--height", "1300"]


def _cameras(folder, names):
    k = np.array([[1400.0, 0.0, 959.5], [0.0, 1400.0, 539.5], [0.0, 0.0, 1.0]])
    for name in names:
        save_camera(CameraIntrinsics((1920, 1080), k, np.zeros(5)), folder / f"{name}.json")


def test_a_low_camera_gets_a_two_camera_rig_that_loads_once_the_cameras_are_calibrated(tmp_path, capsys):
    out = tmp_path / "rig.toml"
    assert main(["plan", *LOW, "--rig-out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "cameras: 2 (2 x 1)" in said and "rig file for 2 camera(s)" in said
    text = out.read_text()
    assert "# Overlaps: glue at least 2 anchors" in text and "cam1 and cam2: x 1150..1250, y 0..1200 mm" in text
    entries = load_rig_entries(out)  # readable before any camera file exists
    assert [(e.name, e.footprint_mm) for e in entries] == [("cam1", (0.0, 0.0, 1250.0, 1200.0)),
                                                           ("cam2", (1150.0, 0.0, 2400.0, 1200.0))]
    with pytest.raises(Exception, match="cam1.json: camera file not found"):
        load_rig(out)
    _cameras(tmp_path, ("cam1", "cam2"))
    rig = load_rig(out)
    assert rig.names == ("cam1", "cam2")
    assert [c.intrinsics_path.name for c in rig.cameras] == ["cam1.json", "cam2.json"]


def test_each_camera_sees_its_footprint_from_where_the_file_says_it_stands():
    p = plan(CameraSetup((2400.0, 1200.0), (1920, 1080), 90.0, 1300.0))
    parts = rig_parts(p)
    assert len(parts) == 2 and not p.whole_table
    for part in parts:
        f, v = part.footprint_mm, part.view_mm
        assert v[0] <= f[0] and v[1] <= f[1] and v[2] >= f[2] and v[3] >= f[3]  # the view holds the footprint
        assert part.view_mm[2] - part.view_mm[0] < 2400.0  # neither sees the whole table
    assert overlap(parts[0].footprint_mm, parts[1].footprint_mm) == (1150.0, 0.0, 1250.0, 1200.0)


def test_a_grid_of_cameras_names_them_row_by_row_with_every_overlap():
    p = plan(CameraSetup((3600.0, 2400.0), (1280, 720), 78.0, 1000.0))
    nx, ny, _ = p.cameras
    assert nx * ny >= 4 and ny >= 2
    parts = rig_parts(p)
    assert [q.name for q in parts] == [f"cam{i}" for i in range(1, nx * ny + 1)]
    assert parts[0].centre_mm[1] < parts[-1].centre_mm[1] and parts[0].centre_mm[0] < parts[1].centre_mm[0]
    lo = min(q.footprint_mm[0] for q in parts), min(q.footprint_mm[1] for q in parts)
    hi = max(q.footprint_mm[2] for q in parts), max(q.footprint_mm[3] for q in parts)
    assert lo == (0.0, 0.0) and hi == (3600.0, 2400.0)
    text = rig_skeleton(p)
    assert text.count("[[camera]]") == nx * ny
    assert "cam1 and cam2:" in text and f"cam1 and cam{nx + 1}:" in text


def test_one_camera_is_enough_writes_a_one_camera_rig_saying_so(tmp_path, capsys):
    out = tmp_path / "rig.toml"
    argv = ["plan", "--table", "1200x800", "--camera-resolution", "3840x2160", "--fov", "78", "--height", "1500"]
    assert main([*argv, "--rig-out", str(out)]) == 0
    assert "cameras: one is enough" in capsys.readouterr().out
    text = out.read_text()
    assert text.count("[[camera]]") == 1 and "a rig is not needed" in text
    assert load_rig_entries(out)[0].footprint_mm == (0.0, 0.0, 1200.0, 800.0)
    assert "tilted" not in text
    assert main([*argv, "--tilt", "10", "--rig-out", str(out)]) == 0
    assert "It may stay as planned: tilted 10 deg" in out.read_text()


def test_rig_out_mistakes_are_one_line_and_write_nothing(tmp_path, capsys):
    roster = tmp_path / "roster.toml"
    roster.write_text('dictionary = "DICT_4X4_250"\n')
    assert main(["plan", *LOW, "--roster", str(roster), "--rig-out", str(roster)]) == 2
    err = capsys.readouterr().err.strip()
    assert "is the input" in err and len(err.splitlines()) == 1
    assert roster.read_text() == 'dictionary = "DICT_4X4_250"\n'
    out = tmp_path / "rig.toml"
    high = ["plan", "--table", "9000x9000", "--camera-resolution", "640x480", "--fov", "40", "--height", "300"]
    assert main([*high, "--rig-out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--rig-out: no split" in err and len(err.splitlines()) == 1 and not out.exists()
