"""Screenshots of every system's dashboard in a real X window, for the README and for a person to look at.

    Xvfb :91 -screen 0 1920x1080x24 &   Xvfb :92 -screen 0 1366x768x24 &
    DISPLAY=:91 QT_QPA_PLATFORM=xcb python -m tests.gui.shoot --out docs/screenshots
    DISPLAY=:92 QT_QPA_PLATFORM=xcb python -m tests.gui.shoot --out docs/screenshots

Each system's demo table (`fieldglass gui --system S`, the synthetic camera) opens as a player opens it (no saved
settings: maximised on its screen), reads two frames, selects the busiest piece and is grabbed from the screen
(`QScreen.grabWindow(0)`), saved as `dashboard-SYSTEM-WIDTH.jpg` (JPEG quality 85; `--legend`: with View >
Legend open, `dashboard-SYSTEM-legend-WIDTH.jpg`)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

SYSTEMS = ("wiener", "dbx", "marengo", "nie", "coalitions")


def shoot(system: str, out: Path, frames: int = 2, select: str | None = None, legend: bool = False) -> Path:
    from PySide6.QtCore import QSettings  # noqa: PLC0415

    from fieldglass.setup import load_setup  # noqa: PLC0415
    from gui.app import MainWindow, busiest_piece, wait_for  # noqa: PLC0415
    from gui.qtapp import application  # noqa: PLC0415

    app = application()
    settings = QSettings(str(Path(tempfile.mkdtemp(prefix="fg-shoot-")) / "gui.ini"), QSettings.Format.IniFormat)
    screen = app.primaryScreen()
    size = screen.size()
    win = MainWindow(load_setup(system, "synthetic"), settings=settings,
                     source_options={"resolution": (1920, 1080)})
    win.show_on_screen()
    win.start(frames=frames)
    wait_for(win, frames)
    pid = select or busiest_piece(win.session)
    if pid:
        win.session.select(pid)
    for _ in range(5):
        app.processEvents()
    win._refresh_all()
    if legend:
        win.show_panel("legend")
    for _ in range(20):
        app.processEvents()
    path = out / f"dashboard-{system}{'-legend' if legend else ''}-{size.width()}.jpg"
    out.mkdir(parents=True, exist_ok=True)
    if not screen.grabWindow(0).save(str(path), "JPG", 85):
        raise SystemExit(f"{path}: cannot write the screenshot")
    win.stop()
    win.close()
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("out/screenshots"))
    p.add_argument("--system", action="append", choices=SYSTEMS, help="only these (default: every system)")
    p.add_argument("--legend", action="store_true", help="with View > Legend open")
    args = p.parse_args(argv)
    for system in args.system or SYSTEMS:
        print(shoot(system, args.out, legend=args.legend), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
