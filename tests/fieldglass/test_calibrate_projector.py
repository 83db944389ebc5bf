"""fieldglass calibrate projector: end to end against the simulated projector over the synthetic table (its light
composited on the cloth and a raised hill), and the one-line errors of a real set-up's missing options."""

import json
from pathlib import Path

import numpy as np
import pytest

import fieldglass
from calibration.projector import load_projector
from fieldglass.cli import main


def test_synthetic_calibration_puts_projected_points_within_2_mm(tmp_path, capsys):
    out = tmp_path / "projector.json"
    assert main(["calibrate", "projector", "--source", "synthetic", "--json", "--out", str(out)]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["max_mm"] < 2.0 and figures["raised_max_mm"] < 2.0  # issue 30's done-when
    assert figures["rms_mm"] < figures["max_mm"]
    model = load_projector(out)
    assert model.heights_mm == (0.0, 40.0) and model.homography is None  # the hill made it a full pinhole
    assert model.points >= 100
    assert np.isclose(model.rms_mm, figures["fit_rms_mm"], atol=1e-3)


@pytest.mark.parametrize("argv, words", [
    (["--screen", "1"], "--camera, --layout required"),
    (["--source", "synthetic", "--raised", "1,2,3:4"], "--raised '1,2,3:4': expected X0,Y0,X1,Y1:HEIGHT"),
    (["--screen", "1", "--camera", "none.json", "--layout", "none.toml", "--raised", "0,0,10,10:-5"], "0 < HEIGHT"),
    (["--screen", "1", "--camera", "none.json", "--layout", "none.toml"], "none.json: camera file not found"),
])
def test_bad_options_are_one_line_errors(argv, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["calibrate", "projector", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_a_display_that_is_not_there_is_named_with_those_that_are(tmp_path, capsys, monkeypatch):
    pytest.importorskip("PySide6")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    from calibration.camera import save_camera  # noqa: PLC0415
    from vision.synthetic import SyntheticSource  # noqa: PLC0415

    source = SyntheticSource(frames=1)
    save_camera(source.camera.intrinsics, tmp_path / "cam.json")
    layout = Path(fieldglass.__file__).parent / "data" / "demo_layout.toml"
    argv = ["calibrate", "projector", "--screen", "7", "--camera", str(tmp_path / "cam.json"), "--layout",
            str(layout), "--source", "0", "--out", str(tmp_path / "p.json")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "--screen 7: no such display (there are 1:" in err and "\n" not in err
    assert not (tmp_path / "p.json").exists()
