"""`fieldglass locate --rig`: two rendered photos, one per camera, read as one table."""

import json
import math

import cv2
import numpy as np
import pytest

from calibration.camera import save_camera
from calibration.layout import layout_to_toml
from fieldglass.cli import main
from vision.roster import roster_to_toml
from vision.synthetic import RenderOptions, random_scene, render_table, standard_layout
from vision.synthetic_rig import cameras_along_table


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    """A rig file of two 720p cameras, a photo from each, the layout and roster files, and the truth."""
    folder = tmp_path_factory.mktemp("rig")
    layout = standard_layout()
    scene = random_scene(layout, 40, np.random.default_rng(7))
    truths = {}
    for i, (name, cam) in enumerate(cameras_along_table(2400.0, 1200.0, ("west", "east"), 800.0, (1280, 720)).items()):
        frame, truth = render_table(scene, cam, RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, seed=i))
        cv2.imwrite(str(folder / f"{name}.png"), frame)
        save_camera(cam.intrinsics, folder / f"{name}.json")
        truths[name] = truth
    (folder / "rig.toml").write_text(
        '[[camera]]\nname = "west"\nintrinsics = "west.json"\n[[camera]]\nname = "east"\nintrinsics = "east.json"\n')
    (folder / "layout.toml").write_text(layout_to_toml(layout))
    (folder / "roster.toml").write_text(roster_to_toml(scene.roster))
    return folder, scene, truths


def _args(folder, *images, camera=("--rig", "rig.toml")):
    return ["locate", *(str(folder / i) for i in images), camera[0], str(folder / camera[1]),
            "--layout", str(folder / "layout.toml"), "--roster", str(folder / "roster.toml")]


def test_locate_rig_json_is_one_table_with_views(shots, capsys):
    folder, scene, truths = shots
    assert main([*_args(folder, "west.png", "east.png"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in result["cameras"]] == ["west", "east"]
    assert all(c["registered"] and {4, 6} <= set(c["anchors"]) for c in result["cameras"])
    assert result["conflicts"] == [] and result["disagreements"] == [] and result["unknown"] == []
    true = {p.piece.id: p for p in scene.placements}
    seen = {t.piece_id for truth in truths.values() for t in truth.pieces if t.visible}
    names = [p["piece"] for p in result["pieces"]]
    assert len(names) == len(set(names)) and set(names) == seen
    for p in result["pieces"]:
        assert math.hypot(p["x_mm"] - true[p["piece"]].x_mm, p["y_mm"] - true[p["piece"]].y_mm) < 1.0
        expected = [n for n in ("west", "east") if truths[n].piece(p["piece"]).visible]
        assert p["views"] == expected
    assert any(p["views"] == ["west", "east"] for p in result["pieces"])


def test_locate_rig_prints_the_cameras_and_views(shots, capsys):
    folder, _, _ = shots
    assert main(_args(folder, "west.png", "east.png")) == 0
    out = capsys.readouterr().out
    assert "from 2 cameras" in out and "west (" in out and "west, east" in out


def test_a_camera_without_anchors_is_reported_and_the_other_still_read(shots, tmp_path, capsys):
    folder, _, truths = shots
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 90, np.uint8))
    args = _args(folder, "west.png", "east.png")
    args[2] = str(blank)
    assert main([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [c["registered"] for c in result["cameras"]] == [True, False]
    west = {t.piece_id for t in truths["west"].pieces if t.visible}
    assert {p["piece"] for p in result["pieces"]} == west
    assert all(p["views"] == ["west"] for p in result["pieces"])


@pytest.mark.parametrize(
    ("images", "camera", "message"),
    [
        (("west.png",), ("--rig", "rig.toml"), "2 camera(s) (west, east) but 1 photo(s)"),
        (("west.png", "east.png"), ("--rig", "nowhere.toml"), "nowhere.toml: rig file not found"),
    ],
)
def test_rig_mistakes_are_one_line(shots, capsys, images, camera, message):
    folder, _, _ = shots
    assert main(_args(folder, *images, camera=camera)) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and len(captured.err.strip().splitlines()) == 1


def test_camera_and_rig_exclude_each_other_in_one_line(shots, capsys):
    folder, _, _ = shots
    assert main([*_args(folder, "west.png"), "--camera", str(folder / "west.json")]) == 2
    both = capsys.readouterr().err.strip()
    assert "--camera and --rig exclude each other" in both and len(both.splitlines()) == 1
    args = _args(folder, "west.png")
    del args[2:4]
    assert main(args) == 2
    assert "needs --camera CAM.json (one camera) or --rig RIG.toml" in capsys.readouterr().err
