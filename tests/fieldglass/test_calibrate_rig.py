"""`fieldglass calibrate rig`: each camera of a rig registered from its rendered photo, the anchors each sees and the
shared ones, as text, JSON, or the wizard's screenshots headless."""

import json

import cv2
import numpy as np
import pytest

from calibration.camera import save_camera
from calibration.layout import layout_to_toml
from fieldglass.cli import main
from vision.synthetic import RenderOptions, random_scene, render_table, standard_layout
from vision.synthetic_rig import cameras_along_table


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rig")
    layout = standard_layout()
    scene = random_scene(layout, 10, np.random.default_rng(9))
    for i, (name, cam) in enumerate(cameras_along_table(2400.0, 1200.0, ("west", "east"), 800.0, (1280, 720),
                                                        1150.0).items()):
        cv2.imwrite(str(folder / f"{name}.png"), render_table(scene, cam, RenderOptions(seed=i))[0])
        save_camera(cam.intrinsics, folder / f"{name}.json")
    (folder / "rig.toml").write_text(
        '[[camera]]\nname = "west"\nintrinsics = "west.json"\n[[camera]]\nname = "east"\nintrinsics = "east.json"\n')
    (folder / "layout.toml").write_text(layout_to_toml(layout))
    return folder


def _args(folder, *photos):
    return ["calibrate", "rig", *(str(folder / p) for p in photos), "--rig", str(folder / "rig.toml"),
            "--layout", str(folder / "layout.toml")]


def test_text_and_json_say_what_each_camera_sees_and_shares(folder, capsys):
    assert main(_args(folder, "west.png", "east.png")) == 0
    out = capsys.readouterr().out
    assert "west: sees anchors 0, 3, 4, 6, 7; registered from" in out
    assert "shared anchors: 4 (west, east); 6 (west, east)" in out and "problem" not in out
    assert main([*_args(folder, "west.png", "east.png"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["registered"] for c in data["cameras"]] == [True, True]
    assert data["shared"] == {"4": ["west", "east"], "6": ["west", "east"]} and data["problems"] == []


def test_photos_in_the_wrong_number_are_one_line(folder, capsys):
    assert main(_args(folder, "west.png")) == 2
    err = capsys.readouterr().err.strip()
    assert "2 camera(s) (west, east) but 1 photo(s)" in err and len(err.splitlines()) == 1


def test_the_wizard_headless_saves_every_tab(folder, capsys, monkeypatch):
    pytest.importorskip("PySide6")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    shot = folder / "shots" / "rig.png"
    assert main([*_args(folder, "west.png", "east.png"), "--gui", "--screenshot", str(shot)]) == 0
    out = capsys.readouterr().out
    for path in (shot, shot.with_name("rig-west.png"), shot.with_name("rig-east.png")):
        assert f"screenshot: {path}" in out and cv2.imread(str(path)) is not None
    assert main([*_args(folder, "west.png", "east.png"), "--gui", "--screenshot", str(folder / "west.png")]) == 2
    assert "is the input" in capsys.readouterr().err
