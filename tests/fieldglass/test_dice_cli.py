"""fieldglass dice: the JSON the issue gives, table mm with a camera and layout, one-line errors (exit 2)."""

import json
from dataclasses import replace

import cv2
import numpy as np

from calibration.camera import save_camera
from calibration.layout import layout_to_toml
from fieldglass.cli import main
from vision.synthetic import PlacedDie, RenderOptions, render_table
from vision.synthetic_dice import dice_camera, dice_scene


def _photo(tmp_path):
    scene = replace(dice_scene(np.random.default_rng(2), 0, width_mm=200.0, surface="felt", pieces=0),
                    dice=(PlacedDie(80.0, 50.0, 16.0, 3, 20.0), PlacedDie(125.0, 62.0, 16.0, 5, 70.0)))
    camera = dice_camera((640, 360), width_mm=200.0, tilt_deg=15.0)
    frame, truth = render_table(scene, camera, RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, seed=1))
    path = tmp_path / "throw.png"
    cv2.imwrite(str(path), frame)
    save_camera(camera.intrinsics, tmp_path / "cam.json")
    kept = []  # a 200 mm tray's table: the anchors whose printed papers do not overlap (the layout's check)
    for a in scene.layout.anchors:
        if all(max(abs(a.x_mm - b.x_mm), abs(a.y_mm - b.y_mm)) >= 45.0 for b in kept):
            kept.append(a)
    (tmp_path / "table.toml").write_text(layout_to_toml(replace(scene.layout, anchors=tuple(kept))))
    return path, truth


def test_json_lists_each_image_with_its_dice(tmp_path, capsys):
    path, truth = _photo(tmp_path)
    assert main(["dice", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [e["image"] for e in out] == [str(path)]
    dice = out[0]["dice"]
    assert sorted(d["value"] for d in dice) == [3, 5]
    assert all(set(d) == {"value", "centre_px", "side_px", "confidence"} for d in dice)
    for d in dice:
        x, y = d["centre_px"]
        t = min(truth.dice, key=lambda t: np.hypot(t.centre_px[0] - x, t.centre_px[1] - y))
        assert d["value"] == t.value and 0 < d["confidence"] <= 1


def test_camera_and_layout_place_the_dice_in_table_mm(tmp_path, capsys):
    path, truth = _photo(tmp_path)
    assert main(["dice", str(path), "--json", "--camera", str(tmp_path / "cam.json"),
                 "--layout", str(tmp_path / "table.toml")]) == 0
    dice = json.loads(capsys.readouterr().out)[0]["dice"]
    by_value = {d["value"]: d for d in dice}
    for t in truth.dice:
        x, y = by_value[t.value]["table_mm"]
        assert np.hypot(x - t.x_mm, y - t.y_mm) < 1.5


def test_text_says_the_values(tmp_path, capsys):
    path, _ = _photo(tmp_path)
    assert main(["dice", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 dice, 2 read" in out and "(total 8)" in out


def test_a_missing_or_unreadable_photo_is_one_line_exit_2(tmp_path, capsys):
    path, _ = _photo(tmp_path)
    assert main(["dice", str(path), str(tmp_path / "none.jpg")]) == 2
    err = capsys.readouterr()
    assert err.out == "" and err.err.strip().count("\n") == 0 and "none.jpg" in err.err
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not an image")
    assert main(["dice", str(bad), "--json"]) == 2
    assert "bad.jpg" in capsys.readouterr().err
    assert main(["dice", str(path), "--camera", str(tmp_path / "cam.json")]) == 2
    assert "--layout" in capsys.readouterr().err
