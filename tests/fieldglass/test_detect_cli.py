"""`fieldglass detect`: JSON and table output, globs, and one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from fieldglass.cli import main

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"


@pytest.fixture(scope="module")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f"real photos not found at {REALDATA}")
    return REALDATA


def write_marker_photo(path: Path, marker_id: int, x0: int = 100, y0: int = 60, side: int = 48) -> np.ndarray:
    """A sharp 4x4 marker whose black square covers pixels x0 .. x0+side-1; returns its corners in OpenCV px."""
    dic = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
    img = np.full((240, 320, 3), 190, np.uint8)
    img[y0 - 8 : y0 + side + 8, x0 - 8 : x0 + side + 8] = 255
    img[y0 : y0 + side, x0 : x0 + side] = cv2.aruco.generateImageMarker(dic, marker_id, side)[..., None]
    cv2.imwrite(str(path), img)
    return np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]]) - 0.5


def test_json_shape_on_real_photos(realdata, capsys):
    tags = realdata / "apriltag-nasa" / "33369213973_9d9bb4cc96_c.jpg"
    qr = realdata / "pyzbar" / "qrcode.png"
    assert main(["detect", str(tags), str(qr), "--dictionary", "DICT_APRILTAG_36h11", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [entry["image"] for entry in out] == [str(tags), str(qr)]
    for entry in out:
        assert set(entry) == {"image", "markers", "qr"}
    assert len(out[0]["markers"]) >= 10
    for m in out[0]["markers"]:
        assert set(m) == {"id", "corners"} and m["id"] == 0
        corners = np.array(m["corners"])
        assert corners.shape == (4, 2) and ((corners > 0) & (corners < 800)).all()
    assert out[0]["qr"] == [] and out[1]["markers"] == []
    [code] = out[1]["qr"]
    assert code["payload"] == "Thalassiodracon"
    assert np.array(code["polygon"]).shape == (4, 2)


def test_json_default_dictionary_glob_and_exact_corners(tmp_path, capsys):
    expected = {7: write_marker_photo(tmp_path / "a.png", 7), 201: write_marker_photo(tmp_path / "b.png", 201)}
    assert main(["detect", str(tmp_path / "*.png"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [Path(e["image"]).name for e in out] == ["a.png", "b.png"]
    for entry, (marker_id, corners) in zip(out, expected.items(), strict=True):
        [m] = entry["markers"]
        assert m["id"] == marker_id
        np.testing.assert_allclose(m["corners"], corners, atol=0.05)


def test_table_output(tmp_path, capsys):
    write_marker_photo(tmp_path / "one.png", 12)
    assert main(["detect", str(tmp_path / "one.png")]) == 0
    out = capsys.readouterr().out
    assert "one.png: 1 marker (DICT_4X4_250), 0 QR codes" in out
    assert "12" in out and "123.50" in out  # id and centre x


def _one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert captured.out == ""
    return lines[0]


def test_missing_file_is_one_line_and_exit_2(tmp_path, capsys):
    missing = tmp_path / "photo.jpg"
    assert main(["detect", str(missing)]) == 2
    line = _one_error_line(capsys)
    assert str(missing) in line and "file not found" in line


def test_not_an_image_is_one_line_and_exit_2(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a picture\n")
    write_marker_photo(tmp_path / "good.png", 3)
    assert main(["detect", str(tmp_path / "good.png"), str(notes), "--json"]) == 2
    line = _one_error_line(capsys)  # no half-printed JSON for the good image either
    assert str(notes) in line and "not an image" in line


def test_unknown_dictionary_is_one_line_and_exit_2(tmp_path, capsys):
    write_marker_photo(tmp_path / "good.png", 3)
    assert main(["detect", str(tmp_path / "good.png"), "--dictionary", "DICT_9X9_1"]) == 2
    assert "DICT_9X9_1" in _one_error_line(capsys)


def test_help_explains_options_and_conventions(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["detect", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    for words in ("--dictionary", "--json", "DICT_4X4_250", "top-left", "globs"):
        assert words in out
