"""`fieldglass calibrate projector` and the dashboard's projector window on two displays of one X server (Xvfb with
two screens, as a laptop and a projector): the patterns shown full screen on display 1 and thrown from there by the
simulated projector, and `gui --projector` putting a borderless full-screen window on display 1 that shows exactly
the projected frame while the dashboard stays on display 0. Skipped without Xvfb."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
XVFB = shutil.which("Xvfb")
pytestmark = pytest.mark.skipif(XVFB is None, reason="no Xvfb (apt-get install xvfb)")

WINDOW_SCRIPT = r"""
import json, sys, time
import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from calibration.projector import load_projector
from fieldglass.setup import load_setup
from gui.app import MainWindow
from gui.projector import attach_projector, grab_screen
from gui.qtapp import application

app = application()
win = MainWindow(load_setup("wiener", "synthetic"), source_options={"resolution": (1280, 720)})
win.show()
projector = attach_projector(win, load_projector(sys.argv[1]))
win.start(frames=2)
t0 = time.monotonic()
while not (win.worker is not None and win.worker.isFinished() and win.last_result is not None):
    app.processEvents(); time.sleep(0.01)
    if time.monotonic() - t0 > 120: raise SystemExit("no frame")
win.session.select("fr-art-1" if win.session.roster.piece("fr-art-1") else win.session.roster.pieces[0].id)
win._refresh_all()
t0 = time.monotonic()
while time.monotonic() - t0 < 2.0:
    app.processEvents(); time.sleep(0.02)
shown = grab_screen(1).astype(int)
frame = projector.frame_array().astype(int)
screens = app.screens()
print(json.dumps({
    "screens": len(screens),
    "projector_screen": screens.index(projector.screen()),
    "dashboard_screen": screens.index(win.screen()),
    "geometry": [projector.geometry().width(), projector.geometry().height()],
    "screen1": [screens[1].geometry().width(), screens[1].geometry().height()],
    "frameless": bool(projector.windowFlags() & Qt.WindowType.FramelessWindowHint),
    "full_screen": bool(projector.isFullScreen()),
    "lit": float((frame.max(axis=2) > 100).mean()),
    "grab_vs_frame": float(np.abs(shown - frame).mean()),
    "frames": projector.frames,
}))
win.stop()
"""


@pytest.fixture(scope="module")
def display():
    for number in range(140, 200):
        if Path(f"/tmp/.X{number}-lock").exists() or Path(f"/tmp/.X11-unix/X{number}").exists():
            continue
        proc = subprocess.Popen([XVFB, f":{number}", "-screen", "0", "1280x720x24", "-screen", "1", "1024x768x24",
                                 "-nolisten", "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 10 and not Path(f"/tmp/.X11-unix/X{number}").exists():
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        if proc.poll() is None:
            break
    else:
        pytest.skip("Xvfb did not start")
    env = dict(os.environ, DISPLAY=f":{number}", QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    yield env
    proc.terminate()
    proc.wait(10)


def test_calibrate_and_project_on_the_second_display(display, tmp_path):
    out = tmp_path / "projector.json"
    run = subprocess.run([sys.executable, "-m", "fieldglass", "calibrate", "projector", "--source", "synthetic",
                          "--screen", "1", "--json", "--out", str(out)], env=display, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    figures = json.loads(run.stdout)
    assert figures["image_size"] == [1024, 768] and figures["screen"] == 1
    assert figures["max_mm"] < 2.0 and figures["raised_max_mm"] < 2.0
    saved = json.loads(out.read_text())
    assert saved["screen"] == 1 and saved["image_size"] == [1024, 768]

    run = subprocess.run([sys.executable, "-c", WINDOW_SCRIPT, str(out)], env=display, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["screens"] == 2
    assert got["projector_screen"] == 1 and got["dashboard_screen"] == 0
    assert got["geometry"] == got["screen1"] == [1024, 768]
    assert got["frameless"] and got["full_screen"]
    assert 0.0005 < got["lit"] < 0.5  # the selection's pictures, bright on black
    assert got["grab_vs_frame"] < 2.0  # display 1 shows exactly the projected frame
    assert got["frames"] >= 2
