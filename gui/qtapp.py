"""The one QApplication of a Fieldglass window (the dashboard, the replay, the wizards) and whether a display is
there to show it on."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import qInstallMessageHandler
from PySide6.QtWidgets import QApplication


def has_display() -> bool:
    """A screen to open a window on: DISPLAY or WAYLAND_DISPLAY, or a Qt platform chosen that needs neither
    (eglfs, linuxfb...). QT_QPA_PLATFORM=offscreen or minimal means headless."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform in ("offscreen", "minimal"):
        return False
    return bool(platform or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def headless_reason(asked: bool) -> str | None:
    """Why a window runs offscreen - `asked` (--headless), or no display to show it on - with Qt's platform set to
    offscreen then (unless one was chosen); None: it opens on the display. Before the QApplication is made."""
    if not asked and has_display():
        return None
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return "--headless" if asked else "no display found (no DISPLAY or WAYLAND_DISPLAY)"


def _quiet_offscreen(mode, context, message) -> None:
    """Qt's message handler: drop the offscreen plugin's one harmless complaint, pass everything else on."""
    if "propagateSizeHints" not in message:
        sys.stderr.write(message + "\n")


def application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        qInstallMessageHandler(_quiet_offscreen)
        app = QApplication(sys.argv[:1])
        app.setOrganizationName("Fieldglass")
        app.setApplicationName("Fieldglass")
    return app
