"""The dashboard over a rig (`fieldglass gui --rig`), offscreen: the two-camera scripted game (vision/scripted_rig.py)
read from one folder of frames per camera. Each camera's live view shows its own frames with the pieces drawn as it
sees them, the board view composes the whole table from both, the session reads one table (a piece carried from the
west camera's half to the east's is one piece, moved), and a camera whose frames end leaves the other reading with
no piece missing. Screenshot for the README: out/screenshots/dashboard-rig.png."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from fieldglass.cli import build_parser, main  # noqa: E402
from fieldglass.commands import gui as gui_command  # noqa: E402
from gui.rig_worker import RigCaptureWorker  # noqa: E402
from tests.gui.helpers import SHOTS, open_window, pump  # noqa: E402
from vision.faulty import Fault, FaultySource  # noqa: E402
from vision.scripted import field_centre  # noqa: E402
from vision.scripted_rig import CAMERAS, rig_scripted_game  # noqa: E402
from vision.sources import ImageSource, image_folder  # noqa: E402

CARRIED = "fr-c-1"  # carried from D3 (only the west sees it) to Q4 (only the east)


@pytest.fixture(scope="module")
def filmed(tmp_path_factory):
    """The script's frames up to just after the cross-half carry settled, one folder per camera, the rig file, the
    layout and roster; and east-short, the east's first frames only."""
    folder = tmp_path_factory.mktemp("rig-gui")
    script = rig_scripted_game()
    carry = next(m for m in script.game.true_moves() if m["piece"] == CARRIED)
    stop = carry["frame"] + 4
    script.write_rig(folder, stop=stop)
    short = folder / "east-short"
    short.mkdir()
    for path in sorted((folder / "east").iterdir())[:4]:
        (short / path.name).symlink_to(path)
    return folder, script, stop


def _setup(folder, *sources):
    argv = ["gui", "--rig", str(folder / "rig.toml"), "--layout", str(folder / "layout.toml"), "--roster",
            str(folder / "roster.toml")]
    for src in sources:
        argv += ["--source", str(src)]
    args = build_parser().parse_args(argv)
    args.system = "wiener"
    gui_command._check_sources(args)
    return gui_command.load_gui_setup(args)


def test_each_camera_has_its_live_view_and_the_board_is_the_whole_table(qapp, filmed, tmp_path):
    folder, script, stop = filmed
    win = open_window(qapp, _setup(folder), tmp_path, frames=stop)
    try:
        assert list(win.camera_views) == list(CAMERAS)
        r = win.last_result
        assert [v.name for v in r.views] == list(CAMERAS)
        assert all(v.status == "reading" and v.pose is not None for v in r.views)
        for name, view in win.camera_views.items():
            assert not view.pixmap.pixmap().isNull(), name
            assert view.mapper is not None and view.isVisible()
            assert win.worker.camera_display_px[name] == view.display_px()  # its frames made for its view's size
            rect = view.sceneRect()  # in the camera frame's pixels, whatever the size of the copy shown
            assert (rect.width(), rect.height()) == (r.views[0].frame.shape[1], r.views[0].frame.shape[0])
        # each view draws the pieces with its own camera: the carried piece's place lands in the east's frame only
        x, y = field_centre("Q4")
        at = {n: win.camera_views[n].mapper.points(np.array([[x, y]]))[0] for n in CAMERAS}
        w, h = r.views[0].frame.shape[1], r.views[0].frame.shape[0]
        inside = {n: bool(0 <= px <= w and 0 <= py <= h) for n, (px, py) in at.items()}
        assert inside == {"west": False, "east": True}
        # the board view: one picture of the whole table, both halves filled (no camera's blank border left)
        board = r.board
        assert board is not None
        lay = script.game.layout
        mmpp, margin = r.board_mm_per_px, 30.0
        cols = [int((margin + xm) / mmpp) for xm in (0.1 * lay.width_mm, 0.9 * lay.width_mm)]
        row = int((margin + lay.depth_mm / 2) / mmpp)
        assert all(tuple(board[row, c]) != (40, 40, 40) for c in cols)
        # one table: every piece once, the carried one where the east saw it set down
        seen = {p.piece: p for p in win.session.reading.pieces}
        assert set(seen) == {p.id for p in script.game.roster.pieces}
        assert abs(seen[CARRIED].x_mm - x) < 3 and abs(seen[CARRIED].y_mm - y) < 3
        assert win.session.counts()[0] == len(seen)
        health = win.calibration_health()
        assert "west" in health and "east" in health and "anchors" in health
        SHOTS.mkdir(parents=True, exist_ok=True)
        assert win.grab().save(str(SHOTS / "dashboard-rig.png"), "PNG")
        # Ctrl+K: the rig's calibration wizard on each camera's last frame, anchors 4 and 6 shared
        wiz = win.open_calibration()
        assert [c.name for c in wiz.registration.cameras] == list(CAMERAS)
        assert all(c.registered for c in wiz.registration.cameras)
        assert {4, 6} <= set(wiz.registration.shared())
        wiz.close()
    finally:
        win.stop()
        win.close()


def test_a_camera_whose_frames_end_is_said_and_the_other_goes_on_with_no_piece_missing(qapp, filmed, tmp_path):
    folder, script, stop = filmed
    win = open_window(qapp, _setup(folder, folder / "west", folder / "east-short"), tmp_path, frames=stop)
    try:
        assert win.worker.notes == ["east: no frame after frame 3 (its source ended); going on with west"]
        east = next(v for v in win.last_result.views if v.name == "east")
        assert east.frame is None and east.status == "no frame"
        assert "east: no frame" in win.camera_views["east"].empty_text.text()
        assert win.last_result.number == stop - 1  # the west read to its end
        states = win.session.tracker.tracks
        assert not [pid for pid, t in states.items() if t.state == "missing"]
    finally:
        win.stop()
        win.close()


def test_rig_mistakes_are_one_line(capsys, filmed, tmp_path):
    folder, _, _ = filmed
    base = ["gui", "--headless", "--rig", str(folder / "rig.toml"), "--layout", str(folder / "layout.toml"),
            "--roster", str(folder / "roster.toml"), "--screenshot", str(tmp_path / "x.png")]
    assert main([*base, "--camera", str(folder / "west.json")]) == 2
    assert "--rig and --camera" in capsys.readouterr().err
    assert main([*base, "--source", str(folder / "west")]) == 2
    assert "1 --source" in capsys.readouterr().err
    assert main(["gui", "--headless", "--source", "a.mp4", "--source", "b.mp4"]) == 2
    assert "--source given 2 times" in capsys.readouterr().err


def test_headless_gui_over_a_rig_prints_the_table_and_saves_a_screenshot(capsys, filmed, tmp_path):
    folder, script, _ = filmed
    shot = tmp_path / "rig.png"
    assert main(["gui", "--headless", "--frames", "2", "--rig", str(folder / "rig.toml"), "--layout",
                 str(folder / "layout.toml"), "--roster", str(folder / "roster.toml"), "--screenshot",
                 str(shot)]) == 0
    out = capsys.readouterr().out
    n = len(script.game.roster.pieces)
    assert f"{n}/{n} pieces" in out and shot.exists()


def test_an_unplugged_camera_of_the_rig_is_reconnected_and_said_while_the_other_reads_on(qapp, filmed):
    folder, _, stop = filmed
    setup = _setup(folder)
    frames = {n: ImageSource(image_folder(folder / n)) for n in CAMERAS}
    east = FaultySource(frames["east"], [Fault(3, "disconnect", refusals=1)], name="east")
    cameras = [(n, intr, east if n == "east" else frames[n]) for n, intr, _ in setup.rig]
    worker = RigCaptureWorker(setup, cameras, live=[False, False], stall_s=10.0)
    worker.start()
    pump(qapp, worker.isFinished, timeout=120)
    assert worker.notes == ["east: camera connection lost; reconnecting",
                            "east: not back after 1 attempt(s); trying again", "east: connected again"]
    assert east.attempts == 2 and worker.processed == stop  # every instant read, none lost to the unplugging
    assert all(v.frame is not None for v in worker.last_result.views)
