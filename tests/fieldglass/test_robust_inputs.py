"""Issue 15, inputs: every bad file is one line naming the file and the key at fault, exit 2 (cases 7, 11-18)."""

from __future__ import annotations

import csv
import io
import json
import struct
import tomllib
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import CameraIntrinsics, load_camera, save_camera
from calibration.layout import MAX_GRID_FIELDS, load_layout
from common.errors import InputError
from common.imagehead import MAX_IMAGE_PIXELS, image_size
from common.text import MAX_SHOWN
from fieldglass.cli import main
from fieldglass.commands.analyze import MAX_ALL_PAIRS
from fieldglass.record import Record
from fieldglass.record.export import export_csv, summary
from fieldglass.record.store import Event
from fieldglass.setup import load_setup, roster_keys
from rules import position as positions
from rules.board import load_board
from tests.fieldglass.test_analyze_cli import POSITION
from tests.fieldglass.test_detect_cli import REALDATA
from tests.fieldglass.test_record import META
from tests.rules.marengo_util import blk, mk
from vision import markers
from vision.roster import Piece, Roster, load_roster, parse_roster, roster_to_toml
from vision.sources import read_image
from vision.synthetic import VirtualCamera, demo_files

DATA = Path(__file__).resolve().parents[2] / "fieldglass" / "data"
LAYOUT = (DATA / "demo_layout.toml").read_text(encoding="utf-8")
ROSTER = (DATA / "demo_roster.toml").read_text(encoding="utf-8")


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fieldglass: error: "), err
    return err[0]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def camera_json() -> dict:
    return VirtualCamera.looking_at_table(2400, 1200, (1280, 720), 1700.0, 15.0).intrinsics.to_json()


# ---------------------------------------------------------------- cases 11, 13, 15: layouts


NO_GRID = LAYOUT[: LAYOUT.index("[grid]")]
NO_MARKERS = LAYOUT.replace('[markers]\ndictionary = "DICT_4X4_250"\n', "")


@pytest.mark.parametrize(("text", "message"), [
    ("markers = 5\n" + NO_MARKERS, "[markers] must be a table"),
    ("grid = 5\n" + NO_GRID, "[grid] must be a table"),
    ("colour = 'green'\n" + LAYOUT, "unknown key 'colour'"),
])
def test_layouts_with_sections_of_the_wrong_kind(tmp_path, text, message):
    path = write(tmp_path, "table.toml", text)
    with pytest.raises(InputError) as err:
        load_layout(path)
    assert message in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize(("change", "message"), [
    (("width_mm = 2400", "width_mm = nan"), "'width_mm' must be a finite number"),
    (("x_mm = 42", "x_mm = inf"), "'x_mm' must be a finite number"),
    (("x_mm = 42", "x_mm = 1e30"), "'x_mm' must be a finite number"),
    (("size_mm = 50", "size_mm = 50\nz_mm = -3"), "'z_mm' is the height of the anchor's face above the cloth"),
    (("size_mm = 50", "size_mm = 50\nz_mm = 600"), "'z_mm' must be a finite number of at most 500"),
    (("size_mm = 50", "size_mm = 50\nz_mm = nan"), "'z_mm' must be a finite number"),
    (("size_mm = 50", "size_mm = 50\nz_mm = '55'"), "'z_mm' must be a number"),
    (("size_mm = 50", "size_mm = 50\nsize = 3"), "unknown key 'size'"),
    (("cols = 40", "cols = 4000"), "too large"),
    (("rows = 20", "rows = 100000000"), "too large"),
    (("id = 0\n", "id = 250\n"), "marker 250 is not in DICT_4X4_250"),
])
def test_bad_layouts_name_the_file_and_the_key(tmp_path, change, message):
    assert change[0] in LAYOUT
    path = write(tmp_path, "table.toml", LAYOUT.replace(*change, 1))
    with pytest.raises(InputError) as err:
        load_layout(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_the_largest_grid_loads(tmp_path):
    rows = MAX_GRID_FIELDS // 200
    text = LAYOUT.replace("cols = 40", "cols = 200").replace("rows = 20", f"rows = {rows}").replace(
        "field_mm = 60", "field_mm = 10")  # 2000 x 2000 mm of fields: on the table, which grows to hold them
    text = text.replace("depth_mm = 1200", f"depth_mm = {rows * 10}")
    assert load_layout(write(tmp_path, "t.toml", text)).grid.rows == rows


def test_a_bad_layout_on_the_command_line_is_one_line(tmp_path, capsys):
    path = write(tmp_path, "table.toml", "markers = 5\n" + NO_MARKERS)
    assert main(["print", "anchors", "--layout", str(path), "--out", str(tmp_path / "a.pdf")]) == 2
    assert "[markers] must be a table" in one_error_line(capsys)
    assert not (tmp_path / "a.pdf").exists()


# ---------------------------------------------------------------- cases 11, 15, 16, 18: rosters


@pytest.mark.parametrize(("change", "message"), [
    (("marker_height_mm = 3", "marker_height_mm = nan"), "'marker_height_mm' must be a finite number"),
    (("base_mm = [40, 30]", "base_mm = [40, inf]"), "'base_mm' must be two finite numbers"),
    (("marker = 10", "marker = 5000"), "marker 5000 is not in DICT_4X4_250"),
    (("marker_height_mm = 3", "marker_heigth_mm = 3"), "unknown key 'marker_heigth_mm'"),
    (("base_mm = [40, 30]", "base_mm = [40, 30]\nbase_depth_mm = 3"), "unknown key 'base_depth_mm'"),
    (("[[piece]]", "pieces = 3\n[[piece]]"), "unknown key 'pieces'"),
])
def test_bad_rosters_name_the_file_and_the_key(tmp_path, change, message):
    assert change[0] in ROSTER
    path = write(tmp_path, "r.toml", ROSTER.replace(*change, 1))
    with pytest.raises(InputError) as err:
        load_roster(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_a_roster_must_fit_its_layout(tmp_path, capsys):
    layout, roster = demo_files()
    cam = tmp_path / "c.json"
    save_camera(CameraIntrinsics.from_json(camera_json()), cam)
    photo = tmp_path / "p.png"
    cv2.imwrite(str(photo), np.full((72, 128, 3), 128, np.uint8))
    anchor_marker = write(tmp_path, "a.toml", roster.read_text(encoding="utf-8").replace("marker = 10", "marker = 0"))
    other_dict = write(tmp_path, "d.toml", roster.read_text(encoding="utf-8").replace("DICT_4X4_250", "DICT_5X5_250"))
    for bad, message in ((anchor_marker, "marker 0 is also an anchor"), (other_dict, "differs from the layout's")):
        argv = ["locate", str(photo), "--camera", str(cam), "--layout", str(layout), "--roster", str(bad)]
        assert main(argv) == 2
        line = one_error_line(capsys)
        assert message in line and str(bad) in line


def test_roster_to_toml_reads_back_whatever_its_texts_hold():
    piece = Piece('fr "old" guard\\1\n', 7, 'FR"', "=cmd|' /C calc'!A0", (40.0, 30.0), 20.0, 3.0, (0.0, 0.0))
    roster = Roster("DICT_4X4_250", (piece, ))
    assert parse_roster(tomllib.loads(roster_to_toml(roster))) == roster


def test_csv_exports_never_start_a_cell_with_a_formula(tmp_path):
    meta = {**META, "roster": [{"id": "=HYPERLINK(\"http://x\")", "side": "FR", "type": "infantry",
                                "base_mm": [40, 30]}]}
    rec = Record.create(tmp_path / "c.fgr", meta)
    rec.append("appeared", 1.0, 1, "=HYPERLINK(\"http://x\")", {"to": {"x_mm": 30, "y_mm": 30, "heading_deg": 0,
                                                                      "cell": "A1", "facing": "N"}})
    rec.append("note", 2.0, 2, data={"text": "+1 for the French", "by": "@anna"})
    buf = io.StringIO()
    export_csv(rec, buf)
    rows = list(csv.reader(io.StringIO(buf.getvalue())))[1:]
    cells = [c for r in rows for c in r]
    assert "'=HYPERLINK(\"http://x\")" in cells
    assert not any(c[:1] in ("=", "+", "@") for c in cells)
    assert any(c.startswith("'note by @anna") or c.startswith("note by @anna") for c in cells)


# ---------------------------------------------------------------- case 15: camera files


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["camera_matrix"][0].__setitem__(0, float("nan")), "'camera_matrix' must hold finite numbers"),
    (lambda d: d["dist_coeffs"].__setitem__(0, float("inf")), "'dist_coeffs' must be finite"),
    (lambda d: d["dist_coeffs"].__setitem__(0, 1e300), "'dist_coeffs' must be finite"),
    (lambda d: d["camera_matrix"][0].__setitem__(0, -5.0), "fx, fy > 0"),
    (lambda d: d.__setitem__("image_size", [0, 720]), "'image_size'"),
    (lambda d: d.__setitem__("image_size", [10**9, 720]), "'image_size'"),
    (lambda d: d.__setitem__("image_size", [1280.5, 720]), "'image_size'"),
    (lambda d: d.__setitem__("rms_px", float("nan")), "'rms_px'"),
    (lambda d: d.__setitem__("lens", "wide"), "unknown key 'lens'"),
    (lambda d: d["camera_matrix"][1].__setitem__(1, "1000"), "not a camera file"),
    (lambda d: d.__setitem__("table_fit", 5), "table_fit: must be an object"),
    (lambda d: d.__setitem__("std_devs", [1.0] * 8), "'std_devs' must be 9 finite numbers >= 0"),
    (lambda d: d.__setitem__("std_devs", [1.0] * 8 + [-1.0]), "'std_devs' must be 9 finite numbers >= 0"),
    (lambda d: d.__setitem__("std_devs", [1.0] * 8 + [float("nan")]), "'std_devs' must be 9 finite numbers >= 0"),
    (lambda d: d.__setitem__("table_fit", {"photos": 1, "refined": ["k1"], "before_px": float("nan"), "after_px": 0.1}),
     "table_fit: 'before_px' must be a finite number"),
    (lambda d: d.__setitem__("table_fit", {"photos": 0, "refined": ["k1"], "before_px": 0.2, "after_px": 0.1}),
     "table_fit: 'photos' must be a positive integer"),
    (lambda d: d.__setitem__("table_fit", {"photos": 1, "refined": ["zoom"], "before_px": 0.2, "after_px": 0.1}),
     "table_fit: 'refined' must list some of k1, k2, focal, centre"),
])
def test_bad_camera_files_name_the_file_and_the_value(tmp_path, change, message):
    data = camera_json()
    change(data)
    path = write(tmp_path, "cam.json", json.dumps(data))
    with pytest.raises(InputError) as err:
        load_camera(path)
    assert message in str(err.value) and str(path) in str(err.value)


# ---------------------------------------------------------------- case 11: board files


@pytest.mark.parametrize(("change", "message"), [
    (("width_mm = 720", "width_mm = nan"), "'width_mm' must be a finite number"),
    (("[board]", "anchor = 5\n[board]"), "anchor must be [[anchor]] tables"),
    (("size_mm = 30", "size_mm = 30\nz_mm = 2"), "'z_mm' (an anchor's height is not supported yet"),
    (("polygon = [[0, 0]", "polygon = [[nan, 0]"), "finite points"),
])
def test_bad_boards_name_the_file_and_the_key(tmp_path, change, message):
    board = (Path(__file__).resolve().parents[2] / "rules" / "marengo" / "data" / "demo_board.toml")
    text = board.read_text(encoding="utf-8")
    if change[1].startswith("anchor = 5"):  # the anchors' own tables go: the key is the list's name
        text = text.replace("[[anchor]]", "[[anchor_]]")
    assert change[0] in text, change[0]
    path = write(tmp_path, "board.toml", text.replace(*change, 1))
    with pytest.raises(InputError) as err:
        load_board(path)
    assert message in str(err.value) and str(path) in str(err.value)


# ---------------------------------------------------------------- cases 11, 14, 17: images


def png_header(width: int, height: int) -> bytes:
    """A PNG's signature and IHDR chunk: all a reader needs to know its size, in 33 bytes."""
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr))


def test_a_huge_image_is_refused_by_its_header(tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.png"
    big.write_bytes(png_header(60000, 60000))
    decoded = []
    monkeypatch.setattr(cv2, "imread", lambda *a, **k: decoded.append(a) or None)
    assert main(["detect", str(big)]) == 2
    line = one_error_line(capsys)
    assert "60000 x 60000 pixels is too large" in line and str(big) in line
    assert decoded == []  # refused before any decoding


def test_image_sizes_from_headers(tmp_path):
    img = np.zeros((37, 53, 3), np.uint8)
    for suffix in (".png", ".jpg", ".bmp", ".webp", ".ppm"):
        ok, buf = cv2.imencode(suffix, img)
        assert ok and image_size(buf.tobytes()) == (53, 37), suffix
    assert image_size(png_header(20000, 20000))[0] * 20000 > MAX_IMAGE_PIXELS


def test_a_truncated_jpeg_is_one_line_not_zero_pieces(tmp_path, capsys):
    ok, buf = cv2.imencode(".jpg", np.random.default_rng(1).integers(0, 255, (200, 300, 3), np.uint8))
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(buf.tobytes()[: len(buf) // 2])
    with pytest.raises(InputError, match="cut short"):
        read_image(cut)
    whole = tmp_path / "whole.jpg"
    whole.write_bytes(buf.tobytes())
    assert read_image(whole).shape == (200, 300, 3)


# ---------------------------------------------------------------- case 7: pyzbar's odd orientations


def test_a_pyzbar_failure_costs_one_pass_not_the_batch(tmp_path, capsys, monkeypatch):
    calls = []

    def failing(img, symbols=None):
        calls.append(img.shape)
        raise ValueError("4294967295 is not a valid ZBarOrientation")

    monkeypatch.setattr(markers.pyzbar, "decode", failing)
    assert markers.detect_qr(np.full((120, 160), 255, np.uint8)) == []
    assert len(calls) > 1  # every pass was tried
    paths = []
    for i in range(2):
        paths.append(tmp_path / f"{i}.png")
        cv2.imwrite(str(paths[-1]), np.full((120, 160, 3), 200, np.uint8))
    assert main(["detect", *map(str, paths)]) == 0
    assert capsys.readouterr().out.count("0 QR codes") == 2


def test_the_real_photos_that_crashed_pyzbar_are_read_in_one_batch(capsys):
    photos = [REALDATA / "qrcode-zxing" / "qrcode-7" / f"01-0{i}.png" for i in range(1, 5)]
    if not all(p.exists() for p in photos):
        pytest.skip(f"the zxing qrcode-7 photos are not in {REALDATA}")
    assert main(["detect", *map(str, photos)]) == 0
    assert capsys.readouterr().out.count("QR code") == 4


# ---------------------------------------------------------------- cases 12, 14: bounded work


def test_a_huge_note_is_shortened_where_shown_and_kept_whole(tmp_path):
    text = "x" * 1_000_000
    e = Event(1, "note", 1.0, 0, None, 1, None, {"text": text, "by": "Anna"})
    assert len(summary(e)) < MAX_SHOWN + 100 and "more characters" in summary(e)
    rec = Record.create(tmp_path / "n.fgr", META)
    rec.append("note", 1.0, data={"text": text})
    rec.close()
    assert Record.open(tmp_path / "n.fgr").events()[0].data["text"] == text


def test_analyze_all_refuses_too_many_pairs_before_any_work(tmp_path, capsys):
    n = int(MAX_ALL_PAIRS ** 0.5) + 2
    pieces = [{"id": f"p{i}", "side": "FR" if i % 2 else "AU", "type": "infantry", "field": "C3", "facing": "N",
               "bases": 1} for i in range(n)]
    path = write(tmp_path, "big.json", json.dumps({**POSITION, "pieces": pieces}))
    assert main(["analyze", str(path), "--all"]) == 2
    assert "too many for --all" in one_error_line(capsys)


# ---------------------------------------------------------------- case 17: counts that record nothing


@pytest.mark.parametrize(("flag", "value"), [("--fps", "0"), ("--fps", "-5"), ("--fps", "nan"), ("--frames", "-5")])
def test_record_refuses_counts_that_record_nothing(tmp_path, capsys, flag, value):
    out = tmp_path / "x.fgr"
    assert main(["record", "--source", "synthetic", flag, value, "--out", str(out)]) == 2
    assert flag in one_error_line(capsys)
    assert not list(tmp_path.iterdir())


def test_a_video_without_frames_leaves_no_record(tmp_path, capsys):
    empty = tmp_path / "empty.mp4"
    writer = cv2.VideoWriter(str(empty), cv2.VideoWriter_fourcc(*"mp4v"), 10, (64, 48))
    writer.release()
    cam = tmp_path / "c.json"
    save_camera(CameraIntrinsics.from_json(camera_json()), cam)
    layout, roster = demo_files()
    out = tmp_path / "game.fgr"
    argv = ["record", "--source", str(empty), "--camera", str(cam), "--layout", str(layout), "--roster", str(roster),
            "--out", str(out)]
    assert main(argv) == 2
    assert "empty.mp4" in one_error_line(capsys)
    assert not list(tmp_path.glob("game.fgr*"))


# ---------------------------------------------------------------- case 17: what the rules engines answered silently


@pytest.fixture
def marengo_position(tmp_path) -> Path:
    pos = mk(blk("au1", "AU", "infantry", 3, area="1"), blk("fr1", "FR", "infantry", 3, area="2"))
    return write(tmp_path, "m.json", positions.dumps(pos))


def test_marengo_names_an_unknown_target_area(marengo_position, capsys):
    assert main(["resolve", str(marengo_position), "--action", "move", "--attacker", "au1", "--target", "ZZ"]) == 2
    assert "'ZZ': neither a block nor an area" in one_error_line(capsys)


def test_marengo_refuses_dice_it_would_ignore(marengo_position, capsys):
    argv = ["resolve", str(marengo_position), "--action", "thrust", "--attacker", "au1", "--target", "2"]
    assert main([*argv, "--dice", "3,4"]) == 2
    assert "--dice" in one_error_line(capsys)
    assert main(argv) == 0


def test_wiener_warns_of_artillery_and_infantry_sharing_a_field(tmp_path, capsys):
    shared = {**POSITION, "pieces": [*POSITION["pieces"], {"id": "fr-ir-9", "side": "FR", "type": "infantry",
                                                           "field": "C3", "facing": "N", "bases": 2}]}
    path = write(tmp_path, "w.json", json.dumps(shared))
    assert main(["analyze", str(path), "--from", "fr-art-1", "--to", "au-ir4-1"]) == 0
    err = capsys.readouterr().err
    assert f"fieldglass: warning: {path}: C3: fr-art-1 needs a whole field (§3.8)" in err
    assert main(["analyze", str(write(tmp_path, "ok.json", json.dumps(POSITION))), "--from", "fr-art-1"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_position_files_refuse_nan_and_infinity(tmp_path, capsys):
    text = json.dumps(POSITION).replace('"bases": 1', '"bases": NaN', 1)
    path = write(tmp_path, "nan.json", text)
    assert main(["analyze", str(path), "--from", "fr-art-1"]) == 2
    line = one_error_line(capsys)
    assert "NaN is not a number a position file may hold" in line and str(path) in line


def test_a_roster_key_no_system_reads_is_an_error_and_a_systems_own_key_is_not(tmp_path, capsys):
    _, roster = demo_files()
    text = roster.read_text(encoding="utf-8")
    typo = write(tmp_path, "typo.toml", text.replace('type = "infantry"', 'type = "infantry"\ncolour = "blue"', 1))
    blocks = write(tmp_path, "blocks.toml", text.replace('type = "infantry"', 'type = "infantry"\nstrength = 3', 1))
    assert main(["print", "markers", "--roster", str(typo), "--out", str(tmp_path / "a.pdf")]) == 2
    line = one_error_line(capsys)
    assert "unknown key 'colour'" in line and str(typo) in line
    with pytest.raises(InputError, match="unknown key 'strength'"):
        load_setup("wiener", "synthetic", roster=str(blocks))  # Wiener reads no strength: a typo for it
    assert load_roster(blocks, roster_keys("marengo")).pieces  # a Marengo block's strength
    shipped = Path(__file__).resolve().parents[2] / "rules" / "coalitions" / "data" / "demo_generals.toml"
    assert load_roster(shipped, roster_keys("coalitions")).pieces  # a Coalitions token face's `token`
    assert main(["print", "markers", "--roster", str(blocks), "--out", str(tmp_path / "b.pdf")]) == 0
