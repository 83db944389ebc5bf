"""Issue 26: `record` reads the table with the lens refined from it where that is measurably better, from the first
frame on, says which lens it used, and with --no-refine-lens reads with the camera file's as it is."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import save_camera
from fieldglass.benchmarks.lens import perturbed
from fieldglass.cli import main
from fieldglass.record import Record
from vision.synthetic import RenderOptions, VirtualCamera, demo_files, demo_scene, render_table


@pytest.fixture(scope="module")
def filmed(tmp_path_factory):
    """Three 1080p frames of the demo table from straight above (fresh noise), a camera file off as users' are,
    and the pieces' true places."""
    folder = tmp_path_factory.mktemp("record-lens")
    scene = demo_scene()
    cam = VirtualCamera.looking_at_table(2400.0, 1200.0, (1920, 1080), 1700.0, 0.0)
    (folder / "frames").mkdir()
    for i in range(3):
        frame, truth = render_table(scene, cam, RenderOptions(blur_sigma_px=0.7, noise_sigma=2.0, seed=i))
        cv2.imwrite(str(folder / "frames" / f"f{i:03d}.png"), frame)
    save_camera(perturbed(cam.intrinsics, np.random.default_rng(1)), folder / "cam.json")
    return folder, {t.piece_id: t for t in truth.pieces if t.visible}


def _record(folder, out, capsys, *extra):
    layout, roster = demo_files()
    argv = ["record", "--source", str(folder / "frames"), "--fps", "1", "--settle", "0.5", "--camera",
            str(folder / "cam.json"), "--layout", str(layout), "--roster", str(roster), "--out", str(out), *extra]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    record = Record.open(out)
    placed = {e.piece: e.data["to"] for e in record.events() if e.type == "appeared"}
    record.close()
    return printed, placed


def _p95(placed, truth) -> float:
    return float(np.percentile([np.hypot(p["x_mm"] - truth[k].x_mm, p["y_mm"] - truth[k].y_mm)
                                for k, p in placed.items()], 95))


def test_record_places_the_start_with_the_refined_lens_and_says_so(filmed, tmp_path, capsys):
    folder, truth = filmed
    printed, placed = _record(folder, tmp_path / "game.fgr", capsys)
    assert "lens: cam.json refined from 8 anchors and 24 piece markers on the table" in printed
    plain_printed, plain = _record(folder, tmp_path / "plain.fgr", capsys, "--no-refine-lens")
    assert "lens: cam.json as calibrated (--no-refine-lens)" in plain_printed
    assert sorted(placed) == sorted(plain) == sorted(truth)
    assert _p95(placed, truth) < 0.5 and _p95(plain, truth) > 2 * _p95(placed, truth)
