"""Whether a window opens on the display or runs offscreen (gui/qtapp.py), for every command that opens one."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("PySide6")

from gui.qtapp import headless_reason  # noqa: E402


def test_a_window_runs_offscreen_when_asked_or_without_a_display_and_opens_on_one_otherwise(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    assert headless_reason(False) == "no display found (no DISPLAY or WAYLAND_DISPLAY)"
    assert os.environ["QT_QPA_PLATFORM"] == "offscreen"
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.setenv("DISPLAY", ":0")
    assert headless_reason(False) is None and "QT_QPA_PLATFORM" not in os.environ
    assert headless_reason(True) == "--headless" and os.environ["QT_QPA_PLATFORM"] == "offscreen"
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")  # a platform chosen by the user is kept
    assert headless_reason(True) == "--headless" and os.environ["QT_QPA_PLATFORM"] == "xcb"
