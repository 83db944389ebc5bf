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
