"""Issue 26 item 2: every value of a set-up checked where it is read, with the nearest valid one suggested, one line
naming the file, the piece or anchor and the key; `fieldglass check-setup` lists every finding at once, worst first."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.camera import save_camera
from common.errors import InputError
from fieldglass.cli import main
from fieldglass.setup import load_setup
from fieldglass.setup_checks import ERROR, WARNING, roster_problems
from fieldglass.setup_report import camera_findings, camera_setup
from vision.roster import load_roster
from vision.synthetic import VirtualCamera, demo_files

LAYOUT_PATH, ROSTER_PATH = demo_files()
LAYOUT = LAYOUT_PATH.read_text(encoding="utf-8")
ROSTER = ROSTER_PATH.read_text(encoding="utf-8")
WIENER = ROSTER.replace('dictionary = "DICT_4X4_250"\n', 'dictionary = "DICT_4X4_250"\nsystem = "wiener"\n', 1)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fieldglass: error: "), err
    return err[0]


def _nth(text: str, old: str, new: str, n: int) -> str:
    """`text` with the n-th (1-based) `old` replaced."""
    parts = text.split(old)
    assert len(parts) > n, (old, n)
    return old.join(parts[:n]) + new + old.join(parts[n:])


# ---------------------------------------------------------------- one line naming the file, the key, a suggestion


@pytest.mark.parametrize(("change", "says"), [
    ((WIENER, 'type = "artillery"', 'type = "artilery"', 1),
     "piece 'fr-a-1': type 'artilery' is not a Wiener troop type; did you mean 'artillery'? Types: infantry, "
     "light_cavalry, heavy_cavalry, artillery"),
    ((WIENER, 'type = "cavalry"', 'type = "cavlary"', 1), "piece 'fr-c-1': type 'cavlary' is not a Wiener troop "
                                                          "type; did you mean 'cavalry'?"),
    ((WIENER, 'side = "FR"', 'side = "Fr"', 2), "piece 'fr-1-2': side 'Fr' is spelt 'FR' on 11 other piece(s); did "
                                               "you mean 'FR'?"),
    ((WIENER, 'side = "FR"', 'side = ""', 5), "piece 'fr-2-1': has no side (every piece plays for one); did you "
                                             "mean side = 'FR'?"),
    ((WIENER, 'system = "wiener"', 'system = "weiner"', 1), "system 'weiner' is not a game system; did you mean "
                                                           "'wiener'? Systems: coalitions, dbx"),
    ((WIENER, '"DICT_4X4_250"', '"DICT_4X4_25"', 1), "unknown marker dictionary 'DICT_4X4_25'; did you mean "
                                                     "'DICT_4X4_250'?"),
    ((ROSTER, 'type = "artillery"', 'type = "artilery"', 1),
     "piece 'fr-a-1': type 'artilery' is no game system's type; did you mean 'artillery' (dbx, marengo, nie, "
     "wiener)?"),
])
def test_print_markers_refuses_a_bad_value_in_one_line(tmp_path, capsys, change, says):
    """`print markers` names no system: the roster's own `system` key says which, else every system is asked."""
    text, old, new, n = change
    roster = write(tmp_path, "roster.toml", _nth(text, old, new, n))
    out = tmp_path / "labels.pdf"
    assert main(["print", "markers", "--roster", str(roster), "--out", str(out)]) == 2
    line = one_error_line(capsys)
    assert line.startswith(f"fieldglass: error: {roster}") and says in line, line
    assert not out.exists()


def test_locate_and_record_refuse_a_mistyped_type_before_any_work(tmp_path, capsys):
    roster = write(tmp_path, "roster.toml", ROSTER.replace('type = "artillery"', 'type = "artilery"', 1))
    cam = tmp_path / "cam.json"
    save_camera(VirtualCamera.looking_at_table(2400, 1200, (128, 72)).intrinsics, cam)
    photo = tmp_path / "p.png"
    photo.write_bytes(b"not read: the roster is refused first")
    assert main(["locate", str(photo), "--camera", str(cam), "--layout", str(LAYOUT_PATH), "--roster",
                 str(roster)]) == 2
    assert "piece 'fr-a-1': type 'artilery' is no game system's type; did you mean 'artillery'" in \
        one_error_line(capsys)
    game = tmp_path / "game.fgr"
    assert main(["record", "--source", "synthetic", "--layout", str(LAYOUT_PATH), "--roster", str(roster), "--out",
                 str(game), "--frames", "2"]) == 2
    assert "piece 'fr-a-1': type 'artilery' is not a Wiener troop type; did you mean 'artillery'?" in \
        one_error_line(capsys)
    assert not game.exists()


def test_a_roster_for_one_system_is_refused_by_another(tmp_path, capsys):
    roster = write(tmp_path, "roster.toml", WIENER)
    assert main(["record", "--system", "dbx", "--source", "synthetic", "--layout", str(LAYOUT_PATH), "--roster",
                 str(roster), "--out", str(tmp_path / "g.fgr")]) == 2
    assert f"{roster}: a wiener roster (its system key), but --system is 'dbx'" in one_error_line(capsys)


def test_a_system_of_fixed_sides_suggests_the_nearest_side(tmp_path):
    figures = Path(str(demo_files()[0])).parents[2] / "rules" / "nie" / "data" / "demo_figures.toml"
    bad = write(tmp_path, "figures.toml", figures.read_text(encoding="utf-8").replace('side = "france"',
                                                                                      'side = "frnace"', 1))
    with pytest.raises(InputError, match=r"side 'frnace' is not a nie side; did you mean 'france'\? Sides: france"):
        load_setup("nie", "synthetic", roster=str(bad))


def test_a_marker_that_is_an_anchor_gets_a_free_one(tmp_path, capsys):
    roster = write(tmp_path, "roster.toml", WIENER.replace("marker = 10\n", "marker = 3\n", 1))
    assert main(["check-setup", "--layout", str(LAYOUT_PATH), "--roster", str(roster)]) == 2
    out = capsys.readouterr().out
    assert f"error: {roster} piece 'fr-1-1': marker 3 is also an anchor of the layout; did you mean marker = 8?" in out


def test_every_value_a_system_reads_passes():
    """Each system's own demo roster has nothing to say: the checks take every word the system reads."""
    for system, path in (("wiener", ROSTER_PATH),):
        assert roster_problems(load_roster(path), str(path), system) == []
    for system in ("dbx", "marengo", "nie", "coalitions"):
        setup = load_setup(system, "synthetic")
        assert roster_problems(setup.roster, "demo", system) == [], system


# ---------------------------------------------------------------- check-setup: every finding at once, worst first


def test_check_setup_lists_every_finding_worst_first(tmp_path, capsys):
    layout = write(tmp_path, "table.toml", LAYOUT.replace("x_mm = 2358", "x_mm = 2450", 1)
                   .replace("cols = 40", "cols = 41"))
    text = _nth(WIENER, 'type = "artillery"', 'type = "artilery"', 1)
    text = _nth(text, 'side = "AU"', 'side = "au"', 1)
    text = text.replace("marker_mm = 20\n", "marker_mm = 29\n", 1)  # crowds its 40 x 30 mm base: a warning
    text = text.replace("marker = 33\n", "marker = 33\nmarker_heigth_mm = 3\n", 1)  # a piece that cannot be read
    roster = write(tmp_path, "roster.toml", text)

    assert main(["check-setup", "--layout", str(layout), "--roster", str(roster)]) == 2

    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == f"5 error(s), 1 warning(s) in {layout}, {roster}"
    body = lines[:-1]
    assert [line.split(": ", 1)[0] for line in body] == ["error"] * 5 + ["warning"]
    expected = [  # file by file: the layout, then the roster
        f"{layout} anchor 1: x_mm 2450 puts its 50 mm square off",
        f"{layout} [grid]: 41 cols of 60 mm from x 0 reach x 2460 mm, beyond the table's 2400 mm; did you mean cols",
        f"{roster} piece 'au-a-2': unknown key 'marker_heigth_mm'",
        f"{roster} piece 'fr-a-1': type 'artilery' is not a Wiener troop type; did you mean 'artillery'?",
        f"{roster} piece 'au-1-1': side 'au' is spelt 'AU' on 10 other piece(s); did you mean 'AU'?",  # au-a-2: unread
        f"{roster} piece 'fr-1-1': marker_mm 29 and its white margin need 38.7 mm, more than its 40 x 30 mm base "
        "holds; did you mean marker_mm = 21?",
    ]
    for line, start in zip(body, expected, strict=True):
        assert line.split(": ", 1)[1].startswith(start), (line, start)


def test_check_setup_of_a_good_set_up_is_ok(tmp_path, capsys):
    roster = write(tmp_path, "roster.toml", WIENER)
    assert main(["check-setup", "--layout", str(LAYOUT_PATH), "--roster", str(roster)]) == 0
    assert capsys.readouterr().out.strip() == f"set-up OK: {LAYOUT_PATH}, {roster}"


def test_check_setup_goes_on_past_a_file_it_cannot_read(tmp_path, capsys):
    roster = write(tmp_path, "roster.toml", WIENER.replace('type = "infantry"', 'type = "infantery"', 1))
    assert main(["check-setup", "--layout", str(tmp_path / "missing.toml"), "--roster", str(roster)]) == 2
    out = capsys.readouterr().out
    assert f"error: {tmp_path / 'missing.toml'}: layout file not found" in out
    assert "type 'infantery' is not a Wiener troop type; did you mean 'infantry'?" in out


# ---------------------------------------------------------------- markers under what the camera reads


def test_markers_under_what_the_camera_reads_are_errors_with_what_would_do(tmp_path, capsys):
    """A 1280 x 720 camera over the 2400 x 1200 demo table reads 24 mm markers at the worst place (plan): the demo's
    20 mm markers on 40 x 30 mm bases are too small, and no marker that fits such a base is large enough."""
    cam = tmp_path / "cam.json"
    save_camera(VirtualCamera.looking_at_table(2400, 1200, (1280, 720)).intrinsics, cam)
    roster = write(tmp_path, "roster.toml", WIENER)
    assert main(["check-setup", "--layout", str(LAYOUT_PATH), "--roster", str(roster), "--camera", str(cam)]) == 2
    out = capsys.readouterr().out
    assert (f"error: {roster} piece 'fr-1-1': marker_mm 20 is under the 24 mm that {cam} (1280x720 px, 1760 mm above "
            "the table) reads everywhere; its 40 x 30 mm base holds at most 21 mm: a larger base (label) or a "
            "sharper, nearer camera") in out
    assert out.count("error: ") == 24


def test_the_camera_check_suggests_a_marker_that_is_read_and_fits():
    roster = load_roster(write_roster_with(marker_mm=10.0, base=(60.0, 60.0)))
    cam = VirtualCamera.looking_at_table(2400, 1200, (1920, 1080)).intrinsics
    setup = camera_setup(cam, (2400.0, 1200.0))
    found = camera_findings(setup, roster, None, "r.toml", "t.toml", "cam.json")
    assert [f.level for f in found] == [ERROR]
    assert found[0].text.endswith("did you mean marker_mm = 35.5?"), found[0].text  # read in a soft image too
    soft = camera_findings(setup, load_roster(write_roster_with(marker_mm=20.0, base=(60.0, 60.0))), None, "r.toml",
                           "t.toml", "cam.json")
    assert [f.level for f in soft] == [WARNING] and "read only while the image is sharp" in soft[0].text


def write_roster_with(marker_mm: float, base: tuple[float, float]) -> Path:
    import tempfile  # noqa: PLC0415

    path = Path(tempfile.mkdtemp()) / "r.toml"
    path.write_text(f'system = "wiener"\n[[piece]]\nid = "fr-1"\nmarker = 10\nside = "FR"\ntype = "infantry"\n'
                    f"base_mm = [{base[0]:g}, {base[1]:g}]\nmarker_mm = {marker_mm:g}\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------- dice the dashboard will read (issue 29)


def test_check_setup_says_when_the_camera_reads_no_dice_and_a_tray_nearer_reads_them(tmp_path, capsys):
    """A 1920 x 1080 camera over the whole 2400 x 1200 table sees a 20 mm die at about 16 px: the dashboard will not
    read dice there (a warning; the game goes on with typed dice). The same camera file at 4K reads them from 15 mm."""
    roster = write(tmp_path, "roster.toml", WIENER)
    cam = tmp_path / "cam.json"
    save_camera(VirtualCamera.looking_at_table(2400, 1200, (1920, 1080)).intrinsics, cam)
    main(["check-setup", "--layout", str(LAYOUT_PATH), "--roster", str(roster), "--camera", str(cam)])
    out = capsys.readouterr().out
    assert (f"warning: {LAYOUT_PATH} (no [dice_tray]: the whole table): {cam} (1920x1080 px, ") in out
    assert "too small to read (a face of 20 px at least): the dashboard will not read the dice" in out
    save_camera(VirtualCamera.looking_at_table(2400, 1200, (3840, 2160)).intrinsics, cam)
    tray = write(tmp_path, "table.toml", LAYOUT + "\n[dice_tray]\npolygon_mm = [[1000, 950], [1400, 950], "
                                                  "[1400, 1100], [1000, 1100]]\n")
    main(["check-setup", "--layout", str(tray), "--roster", str(roster), "--camera", str(cam)])
    out = capsys.readouterr().out
    assert f"warning: {tray} [dice_tray]: {cam} (3840x2160 px, " in out
    assert "reads dice of 15 mm and larger there; smaller ones are not read" in out

