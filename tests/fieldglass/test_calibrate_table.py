"""`fieldglass calibrate table`: a camera file's lens refined from a rendered photo of a table with raised anchors."""

import json

import cv2
import numpy as np
import pytest

from calibration.camera import load_camera, save_camera
from calibration.layout import layout_to_toml, load_layout
from calibration.registration import TableRegistration
from fieldglass.benchmarks.lens import RAISED_MM
from fieldglass.cli import main
from vision.pieces import read_table
from vision.roster import load_roster, roster_to_toml
from vision.synthetic import RenderOptions, VirtualCamera, random_scene, render_table, standard_layout


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """A 1080p photo of a table whose corner anchors stand on blocks, a camera file whose lens is off, the true lens
    and the visible pieces' true places."""
    folder = tmp_path_factory.mktemp("calibrate-table")
    layout = standard_layout(raised_mm=RAISED_MM)
    scene = random_scene(layout, 60, np.random.default_rng(11))
    cam = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, (1920, 1080), 1700.0, 18.0)
    frame, truth = render_table(scene, cam, RenderOptions(blur_sigma_px=0.8, noise_sigma=2.0, jpeg_quality=92, seed=5))
    cv2.imwrite(str(folder / "table.png"), frame)
    true = cam.intrinsics
    k, d = true.camera_matrix.copy(), true.dist_coeffs.copy()
    k[0, 0] *= 1.003
    k[1, 1] *= 1.003
    k[0, 2] -= 1.0
    d[0] += 0.005
    save_camera(type(true)(true.image_size, k, d, 0.3), folder / "cam.json")
    (folder / "table.toml").write_text(layout_to_toml(layout))
    (folder / "roster.toml").write_text(roster_to_toml(scene.roster))
    return folder, true, {t.piece_id: t for t in truth.pieces if t.visible}


def _args(folder, out, *extra):
    return ["calibrate", "table", str(folder / "table.png"), "--camera", str(folder / "cam.json"),
            "--layout", str(folder / "table.toml"), "--out", str(out), *extra]


def test_calibrate_table_writes_a_lens_closer_to_the_truth_with_its_residuals(setup, tmp_path, capsys):
    folder, true, _ = setup
    out = tmp_path / "cam2.json"
    assert main(_args(folder, out, "--roster", str(folder / "roster.toml"))) == 0
    printed = capsys.readouterr().out
    assert "refined from 1 photo(s): k1, focal, centre" in printed and f"saved camera file {out}" in printed
    given, refined = load_camera(folder / "cam.json"), load_camera(out)
    f_true = true.camera_matrix[0, 0]
    assert abs(refined.camera_matrix[0, 0] / f_true - 1) < 0.5 * abs(given.camera_matrix[0, 0] / f_true - 1)
    assert abs(refined.dist_coeffs[0] - true.dist_coeffs[0]) < 0.5 * abs(given.dist_coeffs[0] - true.dist_coeffs[0])
    fit = refined.table_fit
    assert fit["photos"] == 1 and fit["refined"] == ["k1", "focal", "centre"]
    assert fit["after_px"] < fit["before_px"]
    assert refined.rms_px == 0.3  # the board calibration's own figure is kept


def test_without_a_roster_the_anchors_alone_refine_it(setup, tmp_path, capsys):
    folder, _, _ = setup
    out = tmp_path / "cam2.json"
    assert main(_args(folder, out)) == 0
    assert load_camera(out).table_fit["after_px"] < load_camera(out).table_fit["before_px"]


def test_calibrate_table_never_writes_over_its_camera_file(setup, capsys):
    folder, _, _ = setup
    before = (folder / "cam.json").read_text()
    assert main(_args(folder, folder / "cam.json")) == 2
    assert (folder / "cam.json").read_text() == before
    assert "cam.json" in capsys.readouterr().err


def test_a_photo_without_anchors_is_refused_naming_it(setup, tmp_path, capsys):
    folder, _, _ = setup
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((1080, 1920, 3), 90, np.uint8))
    args = _args(folder, tmp_path / "cam2.json")
    args[2] = str(blank)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "blank.png" in err and "anchor" in err and not (tmp_path / "cam2.json").exists()


def test_locate_with_raised_anchors_and_with_refine_lens_puts_pieces_closer_than_the_lens_as_given(setup, capsys):
    folder, _, truth = setup

    def p95(pieces) -> float:
        return float(np.percentile([np.hypot(p["x_mm"] - truth[p["piece"]].x_mm, p["y_mm"] - truth[p["piece"]].y_mm)
                                    for p in pieces], 95))

    as_given = read_table(cv2.imread(str(folder / "table.png")),
                          TableRegistration(load_layout(folder / "table.toml"), load_camera(folder / "cam.json"),
                                            refine_lens=False), load_roster(folder / "roster.toml"))
    unrefined = p95([p.to_json() for p in as_given.pieces])
    for extra in ([], ["--refine-lens"]):  # the raised anchors refine the lens in plain locate too
        argv = ["locate", str(folder / "table.png"), "--camera", str(folder / "cam.json"), "--layout",
                str(folder / "table.toml"), "--roster", str(folder / "roster.toml"), "--json", *extra]
        assert main(argv) == 0
        (result,) = json.loads(capsys.readouterr().out)
        assert len(result["pieces"]) == len(as_given.pieces) >= 50
        assert p95(result["pieces"]) < 0.3 and p95(result["pieces"]) < 0.5 * unrefined, (extra, unrefined)
