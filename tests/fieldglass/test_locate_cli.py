"""`fieldglass locate` and `fieldglass demo` on rendered photos of the synthetic table."""

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.camera import load_camera, save_camera
from common.fields import AMBIGUOUS_EDGE_MM
from fieldglass.cli import main
from fieldglass.commands.locate import piece_json
from vision.pieces import PiecePose
from vision.synthetic import RenderOptions, VirtualCamera, demo_files, demo_scene, render_table


@pytest.fixture(scope="module")
def shot(tmp_path_factory):
    """A 1080p photo of the demo table, its camera file, and the truth."""
    folder = tmp_path_factory.mktemp("locate")
    scene = demo_scene()
    camera = VirtualCamera.looking_at_table(2400, 1200, (1920, 1080), 1700.0, 20.0)
    frame, truth = render_table(scene, camera, RenderOptions(blur_sigma_px=0.7, noise_sigma=2.0, seed=3))
    cv2.imwrite(str(folder / "table.png"), frame)
    save_camera(camera.intrinsics, folder / "cam.json")
    layout, roster = demo_files()
    return folder, str(layout), str(roster), truth


def _args(folder, layout, roster, *images):
    return ["locate", *images, "--camera", str(folder / "cam.json"), "--layout", layout, "--roster", roster]


def test_locate_json_gives_every_piece_within_a_millimetre(shot, capsys):
    folder, layout, roster, truth = shot
    assert main([*_args(folder, layout, roster, str(folder / "table.png")), "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    assert result["image"].endswith("table.png")
    assert sorted(result["pose"]["anchors"]) == list(range(8)) and result["pose"]["reprojection_px"] < 0.5
    assert result["unknown"] == [] and result["conflicts"] == []
    found = {p["piece"]: p for p in result["pieces"]}
    visible = [t for t in truth.pieces if t.visible]
    assert len(found) == len(visible) == 24
    for t in visible:
        p = found[t.piece_id]
        assert set(p) == {"piece", "marker", "x_mm", "y_mm", "heading_deg", "facing", "cell", "edge_mm",
                          "uncertainty_mm", "ambiguous"}
        assert p["ambiguous"] == (p["edge_mm"] < AMBIGUOUS_EDGE_MM)  # no std_devs: the edge rule alone
        assert p["uncertainty_mm"] is None  # the camera file gives no standard deviations
        assert abs(p["x_mm"] - t.x_mm) < 1.0 and abs(p["y_mm"] - t.y_mm) < 1.0
        assert abs((p["heading_deg"] - t.heading_deg + 180) % 360 - 180) < 2.0


def test_locate_prints_a_readable_table(shot, capsys):
    folder, layout, roster, _ = shot
    assert main(_args(folder, layout, roster, str(folder / "table.png"))) == 0
    out = capsys.readouterr().out
    assert "24 pieces" in out and "fr-1-1" in out and "facing" in out


def test_a_photo_without_anchors_is_refused_naming_it(shot, tmp_path, capsys):
    folder, layout, roster, _ = shot
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), cv2.imread(str(folder / "table.png"))[:200, :200])
    assert main(_args(folder, layout, roster, str(folder / "table.png"), str(blank))) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing half-printed
    assert "blank.png" in captured.err and "anchor" in captured.err
    assert len(captured.err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("which", "content", "message"),
    [("camera", "{not json", "not valid JSON"), ("layout", "[table", "not valid TOML"), ("roster", "x = ", "TOML")],
)
def test_corrupt_files_give_one_line_and_exit_2(shot, tmp_path, capsys, which, content, message):
    folder, layout, roster, _ = shot
    bad = tmp_path / f"bad.{which}"
    bad.write_text(content)
    args = _args(folder, layout, roster, str(folder / "table.png"))
    args[args.index(f"--{which}") + 1] = str(bad)
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and str(bad) in err and len(err.splitlines()) == 1


def test_demo_runs_headless_and_saves_a_screenshot(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    shot_path = tmp_path / "demo.png"
    assert main(["demo", "--screenshot", str(shot_path)]) == 0
    out = capsys.readouterr().out
    assert "headless" in out and "24 of 24 pieces found" in out
    assert cv2.imread(str(shot_path)).shape == (1080, 1920, 3)


def test_locate_json_gives_each_piece_an_uncertainty_from_the_camera_files_standard_deviations(shot, capsys):
    folder, layout, roster, _ = shot
    camera = load_camera(folder / "cam.json")
    std = np.array([2.0, 2.0, 1.5, 1.5, 0.003, 0.006, 0.0003, 0.0003, 0.005])
    save_camera(replace(camera, std_devs=std), folder / "cam_std.json")
    save_camera(replace(camera, std_devs=std / 10), folder / "cam_sure.json")
    widths = []
    for name in ("cam_std.json", "cam_sure.json"):
        argv = ["locate", str(folder / "table.png"), "--camera", str(folder / name), "--layout", layout,
                "--roster", roster, "--json"]
        assert main(argv) == 0
        (result,) = json.loads(capsys.readouterr().out)
        widths.append(np.array([p["uncertainty_mm"] for p in result["pieces"]]))
    assert np.all(widths[0] > 0.05) and np.all(widths[0] < 10.0)
    np.testing.assert_allclose(widths[1], widths[0] / 10, atol=0.02)


def test_a_piece_whose_uncertainty_reaches_a_field_edge_is_flagged_ambiguous():
    """Issue 17: a piece is not silently assigned a field when its place's uncertainty reaches the field's edge (two
    standard deviations), nor when it stands closer than AMBIGUOUS_EDGE_MM to it; off a grid there is no field."""
    def at(edge):
        return PiecePose("p", 1, 100.0, 100.0, 0.0, "N", 0.0, "B2", edge)

    assert piece_json(at(AMBIGUOUS_EDGE_MM - 1.0), None)["ambiguous"] is True
    assert piece_json(at(8.0), None)["ambiguous"] is False
    assert piece_json(at(8.0), 1.0)["ambiguous"] is False  # 2 sigma = 2 mm < 8 mm
    assert piece_json(at(8.0), 5.0)["ambiguous"] is True  # 2 sigma = 10 mm reaches the edge
    assert piece_json(at(8.0), 5.0)["uncertainty_mm"] == 5.0
    assert "ambiguous" not in piece_json(PiecePose("p", 1, 1.0, 2.0, 0.0), 5.0)
