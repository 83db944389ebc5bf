"""Issue 26 item 1: `fieldglass init` writes a new table's files from a few answers (asked, flags, or --yes), never
over a file; and from box to first game with those files alone: print, calibrate, the rehearsal on the synthetic
table, locate and record, no file written by hand."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import load_camera
from calibration.intrinsics import charuco_board, parse_board
from calibration.layout import load_layout
from fieldglass.cli import main
from fieldglass.new_table import BOARD
from fieldglass.planning import CameraSetup, plan
from fieldglass.record import Record
from fieldglass.setup import load_setup
from fieldglass.setup_report import setup_findings
from vision.roster import load_roster
from vision.synthetic import VirtualCamera, render_table

FILES = ("table.toml", "roster.toml", "GAME.md", "markers.pdf", "anchors.pdf", "board.pdf")


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fieldglass: error: "), err
    return err[0]


# ---------------------------------------------------------------- what init writes


def test_yes_writes_a_wiener_table_whose_files_check_clean(tmp_path, capsys):
    folder = tmp_path / "mytable"
    assert main(["init", str(folder), "--yes", "--system", "wiener", "--table", "1800x1200"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == sorted(FILES)  # nothing else, no temporary file left
    layout, roster = load_layout(folder / "table.toml"), load_roster(folder / "roster.toml")
    assert (layout.width_mm, layout.depth_mm, layout.grid.cols, layout.grid.rows, layout.grid.field_mm) == (
        1800.0, 1200.0, 30, 20, 60.0)
    assert roster.system == "wiener" and len(roster.pieces) == 24  # the demo's French and Austrians
    assert not {p.marker for p in roster.pieces} & layout.anchor_ids
    # each base holds its marker with the white margin, and the default 4K camera reads it everywhere (plan)
    need = plan(CameraSetup((1800.0, 1200.0), (3840, 2160), 78.0, 1670.0)).smallest_marker_mm
    for p in roster.pieces:
        assert need <= p.marker_mm and p.marker_mm * 8 / 6 <= min(p.base_mm) - 2.0
    assert {p.type: p.base_mm for p in roster.pieces}["infantry"] == (40.0, 14.0)  # Wiener §2.1
    assert setup_findings(folder / "roster.toml", folder / "table.toml") == []
    game = (folder / "GAME.md").read_text(encoding="utf-8")
    assert "fieldglass gui --source synthetic --layout table.toml --roster roster.toml" in game
    assert f"--board {BOARD} --out cam.json" in game and "--record game.fgr" in game
    # what the default 4K camera 1670 mm up reads of the dice (plan: a top face of 20 px at the farthest point)
    die = math.ceil(plan(CameraSetup((1800.0, 1200.0), (3840, 2160), 78.0, 1670.0)).smallest_die_mm * 2 - 1e-9) / 2
    assert die <= 20.0 and (f"- Dice: throw them under the camera and the dashboard puts them into the combat panel; "
                            f"this camera reads dice of {die:g} mm and larger anywhere on the table.") in game
    out = capsys.readouterr().out
    assert f"{folder / 'roster.toml'}: 24 wiener pieces (FR 12, AU 12)" in out


def test_every_answer_is_asked_with_its_default(tmp_path, monkeypatch, capsys):
    answers = iter(["dbx", "", "", "1920x1080", "", "", "blue, red", "europe_1700/Preussen",
                    "Li:8,Hu:2,Art:2,Gen:1"])
    asked = []

    def fake_input(prompt):
        asked.append(prompt)
        return next(answers)

    monkeypatch.setattr("builtins.input", fake_input)
    folder = tmp_path / "dbx"
    assert main(["init", str(folder)]) == 0
    assert asked[:2] == ["Game system (coalitions, dbx, marengo, nie, wiener) [wiener]: ",
                         "Table width x depth in mm [600x600]: "]
    assert asked[2] == "Grid field side in mm, or none [none]: "  # a free table: no grid by default
    assert asked[5].startswith("Camera height above the table in mm (the lowest that sees it all) [")
    roster = load_roster(folder / "roster.toml")
    assert load_layout(folder / "table.toml").grid is None and roster.system == "dbx"
    red = [p.type for p in roster.pieces if p.side == "red"]
    assert red == ["Li"] * 8 + ["Hu"] * 2 + ["Art"] * 2 + ["Gen"]
    blue = [p.type for p in roster.pieces if p.side == "blue"]
    assert blue[0] == "Gen" and len(blue) == 13  # §9.7: 12 elements and the general
    assert {p.base_mm for p in roster.pieces if p.type == "Gen"} == {(20.0, 40.0)}  # DBX §2.2


def test_a_bad_answer_is_said_and_asked_again(tmp_path, monkeypatch, capsys):
    answers = iter(["weiner", "wiener", "1800x1200", "none", "60", "", "", "", "", "", ""])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    assert main(["init", str(tmp_path / "t")]) == 0
    err = capsys.readouterr().err
    assert "unknown game system 'weiner'; did you mean 'wiener'?" in err
    assert "--grid none: the wiener rules are played on a square grid" in err


@pytest.mark.parametrize(("extra", "says"), [
    (["--camera-resolution", "1280x720"],
     "infantry: a 40 x 14 mm base holds at most a 9 mm marker, but the camera reads 22.5 mm at the worst place of the "
     "table: a larger base or label (--base infantry=WxD), a higher --camera-resolution or a lower --height"),
    (["--height", "900"], "--height 900: the camera sees 41 % of the table; raise it to 1520 mm"),
    (["--grid", "none"], "--grid none: the wiener rules are played on a square grid"),
    (["--table", "100x100"], "--table 100x100: a table from 175 mm (room for its 8 anchors of 40 mm at the corners "
                             "and edge midpoints) to 100000 mm a side"),
    (["--table", "200000x1000"], "--table 200000x1000: at most 100000 mm a side"),
    (["--grid", "5"], "--table 1800x1200 --grid 5 [grid]: a 360 x 240 grid is too large"),
    (["--army", "FR=french-demos"], "--army FR: 'french-demos' is not a wiener army; did you mean 'french-demo'?"),
    (["--army", "FR=infantery:4"], "--army FR: 'infantery' is not a kind of wiener piece; did you mean 'infantry'?"),
    (["--system", "marengo"], "--table: the board is the table (720 x 400 mm); leave it out, or give --board none"),
])
def test_what_cannot_be_played_is_refused_in_one_line_and_nothing_is_written(tmp_path, capsys, extra, says):
    folder = tmp_path / "t"
    argv = ["init", str(folder), "--yes", "--system", "wiener", "--table", "1800x1200", *extra]
    assert main(argv) == 2
    line = one_error_line(capsys)
    assert says in line, line
    assert not folder.exists() or not any(folder.iterdir())


def test_a_larger_base_lets_a_1080p_camera_read_the_infantry(tmp_path):
    folder = tmp_path / "t"
    assert main(["init", str(folder), "--yes", "--system", "wiener", "--table", "1800x1200", "--camera-resolution",
                 "1920x1080", "--base", "infantry=40x30", "--army", "FR=french-brigade",
                 "--army", "AU=infantry:6,heavy_cavalry:2,artillery:1,general:1"]) == 0
    roster = load_roster(folder / "roster.toml")
    assert [p.id for p in roster.pieces if p.side == "AU"][:2] == ["au-i-1", "au-i-2"]
    assert {p.type: p.base_mm for p in roster.pieces}["infantry"] == (40.0, 30.0)
    assert "1920x1080 camera" in (folder / "GAME.md").read_text(encoding="utf-8")


def test_armies_the_rehearsal_table_cannot_deploy_are_a_warning(tmp_path, capsys):
    assert main(["init", str(tmp_path / "t"), "--yes", "--system", "dbx", "--table", "200x200"]) == 0
    assert "fieldglass: warning: the rehearsal table cannot deploy every piece: side 'blue': its deployment zone " \
           "(50 x 150 mm) holds 0 of its 13 pieces" in capsys.readouterr().err


def test_it_never_writes_over_a_file(tmp_path, capsys):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "roster.toml").write_text("mine\n", encoding="utf-8")
    assert main(["init", str(folder), "--yes"]) == 2
    assert one_error_line(capsys) == (f"fieldglass: error: {folder / 'roster.toml'}: already exists; fieldglass init "
                                      "never writes over a file (choose another folder, or move it away)")
    assert [p.name for p in folder.iterdir()] == ["roster.toml"]
    assert (folder / "roster.toml").read_text(encoding="utf-8") == "mine\n"


def test_list_armies_names_each_with_what_it_holds(capsys):
    assert main(["init", "--list-armies", "--system", "wiener"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("french-demo ") and "kinds of piece (for counts): infantry, light_cavalry" in out


# ---------------------------------------------------------------- from box to first game (the done-when)


def _board_views(folder: Path, camera: VirtualCamera) -> None:
    """Photos of the printed calibration board through `camera`'s lens (distortion included), tilted about."""
    spec = parse_board(BOARD)
    px = 8  # texture px per mm
    texture = charuco_board(spec).generateImage((spec.cols * int(spec.square_mm) * px,
                                                 spec.rows * int(spec.square_mm) * px), marginSize=0)
    k, dist = camera.intrinsics.camera_matrix, camera.intrinsics.dist_coeffs
    w, h = camera.image_size
    step = 8  # the ideal pinhole position of each distorted pixel, on a coarse grid, then interpolated
    gx, gy = np.meshgrid(np.arange(0, w + step, step, dtype=np.float32), np.arange(0, h + step, step, dtype=np.float32))
    ideal = cv2.undistortPoints(np.stack([gx.ravel(), gy.ravel()], 1).reshape(-1, 1, 2), k, dist, P=k)
    ideal = ideal.reshape(gx.shape + (2,))
    full = cv2.resize(ideal, (gx.shape[1] * step, gx.shape[0] * step), interpolation=cv2.INTER_LINEAR)[:h, :w]
    mm = np.array([[1.0 / px, 0, 0], [0, 1.0 / px, 0], [0, 0, 1]])
    centre = np.array([spec.cols * spec.square_mm / 2, spec.rows * spec.square_mm / 2, 0.0])
    poses = [((-25, 0, 0), (-150, -80)), ((25, 0, 0), (150, 80)), ((0, -25, 0), (-200, 60)),
             ((0, 25, 0), (180, -60)), ((-18, 18, 30), (0, 0)), ((18, -18, -30), (90, 110)),
             ((15, 15, 90), (-110, -100)), ((-15, -20, 10), (60, -30))]
    for n, ((ax, ay, az), (ox, oy)) in enumerate(poses):
        rot = cv2.Rodrigues(np.radians([ax, ay, 0.0]))[0] @ cv2.Rodrigues(np.array([0.0, 0.0, np.radians(az)]))[0]
        t = np.array([ox, oy, 700.0]) - rot @ centre
        hom = k @ np.column_stack([rot[:, 0], rot[:, 1], t]) @ mm
        pinhole = cv2.warpPerspective(texture, hom, (w, h), flags=cv2.INTER_LINEAR, borderValue=200)
        photo = cv2.remap(pinhole, full[..., 0], full[..., 1], cv2.INTER_LINEAR, borderValue=200)
        cv2.imwrite(str(folder / f"board{n}.jpg"), photo, [cv2.IMWRITE_JPEG_QUALITY, 95])


def test_from_box_to_first_game_with_no_file_written_by_hand(tmp_path, capsys):
    """A Wiener player with a 4K webcam and a 180 x 120 cm table: init --yes, then print, calibrate, rehearse on
    the synthetic table, locate a photo and record a filmed game, with only the files init wrote (and the photos)."""
    game = tmp_path / "game"
    assert main(["init", str(game), "--yes", "--system", "wiener", "--table", "1800x1200"]) == 0
    layout, roster = str(game / "table.toml"), str(game / "roster.toml")
    # print: every sheet again, by the ordinary command
    for argv in (["markers", "--roster", roster], ["anchors", "--layout", layout], ["board", BOARD]):
        assert main(["print", *argv, "--out", str(tmp_path / f"{argv[0]}.pdf")]) == 0
    capsys.readouterr()

    # calibrate: the board's photos through the camera's lens, the camera mounted as GAME.md says
    true = VirtualCamera.looking_at_table(1800.0, 1200.0, (3840, 2160), height_mm=1670.0)
    shots = tmp_path / "shots"
    shots.mkdir()
    _board_views(shots, true)
    cam = tmp_path / "cam.json"
    assert main(["calibrate", "camera", str(shots / "*.jpg"), "--board", BOARD, "--out", str(cam)]) == 0
    fx = load_camera(cam).camera_matrix[0, 0]
    assert abs(fx - true.intrinsics.camera_matrix[0, 0]) / fx < 0.01
    assert main(["check-setup", "--layout", layout, "--roster", roster, "--camera", str(cam), "--height",
                 "1670"]) == 0

    # the rehearsal: their own table, every piece seen
    assert main(["gui", "--source", "synthetic", "--layout", layout, "--roster", roster, "--headless", "--frames",
                 "1", "--screenshot", str(tmp_path / "gui.png")]) == 0
    out = capsys.readouterr().out
    assert "frame 0: 24/24 pieces, calibration good: 8/8 anchors" in out, out[:500]

    # locate: a photo of the table set up as the rehearsal showed it
    scene = load_setup("wiener", "synthetic", layout=layout, roster=roster).scene
    frame, _ = render_table(scene, true)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    capsys.readouterr()
    assert main(["locate", str(photo), "--camera", str(cam), "--layout", layout, "--roster", roster, "--json"]) == 0
    found = {p["piece"]: p for p in json.loads(capsys.readouterr().out)[0]["pieces"]}
    assert set(found) == {pl.piece.id for pl in scene.placements}
    for pl in scene.placements:
        p = found[pl.piece.id]
        assert np.hypot(p["x_mm"] - pl.x_mm, p["y_mm"] - pl.y_mm) < 2.0, (pl.piece.id, p)
        assert p["cell"] == load_layout(layout).grid.name_at(pl.x_mm, pl.y_mm)

    # record: the table filmed (a folder of frames), each piece appears once in the record
    frames = tmp_path / "frames"
    frames.mkdir()
    for n in range(4):
        shutil.copy(photo, frames / f"f{n:03d}.jpg")
    record = tmp_path / "game.fgr"
    assert main(["record", "--source", str(frames), "--fps", "2", "--camera", str(cam), "--layout", layout,
                 "--roster", roster, "--out", str(record)]) == 0
    rec = Record.open(record)
    try:
        appeared = sorted(e.piece for e in rec.events() if e.type == "appeared")
    finally:
        rec.close()
    assert appeared == sorted(pl.piece.id for pl in scene.placements)
