"""What the dashboard tests share: where screenshots go, and running Qt's event loop until something is true."""

from __future__ import annotations

import time
from pathlib import Path

SHOTS = Path(__file__).resolve().parents[2] / "out" / "screenshots"
"""Screenshots for a person to look at (named in the README)."""


def pump(app, until, timeout: float = 60.0) -> None:
    """Process Qt events until `until()` is true; fail after `timeout` seconds."""
    t0 = time.monotonic()
    while not until():
        app.processEvents()
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timed out waiting for the dashboard")
        time.sleep(0.01)
    app.processEvents()


def open_window(app, setup, settings_dir: Path, resolution=(1280, 720), size=(1500, 900), frames: int = 1):
    """A dashboard window on `setup` with its own settings file, shown, after `frames` frames are processed."""
    # helpers has no importorskip of its own: Qt only when a test that has one opens a window
    from PySide6.QtCore import QSettings  # noqa: PLC0415  (PySide6, gated by the calling test's importorskip)

    from gui.app import MainWindow  # noqa: PLC0415  (PySide6, gated by the calling test's importorskip)

    settings = QSettings(str(Path(settings_dir) / "gui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(setup, settings=settings, source_options={"resolution": resolution})
    win.resize(*size)
    win.show()
    win.start(frames=frames)
    pump(app, lambda: win.worker is not None and win.worker.isFinished() and win.last_result is not None)
    return win


def refresh(app, win) -> None:
    """Let the window catch up with everything the session said."""
    app.processEvents()
    win._refresh_all()
    app.processEvents()
