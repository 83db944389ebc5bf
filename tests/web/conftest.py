"""The web tests' real parts: Debian's chromium driven by Playwright (never a browser of Playwright's own: the
machine's network is closed), and records of every registered system."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from fieldglass.web.scripted import live_systems, record_scripted

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = Path(__file__).resolve().parents[2] / "out" / "screenshots"


@pytest.fixture(scope="session")
def browser_context():
    """One headless chromium for the session, with a fresh profile (removed afterwards)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make sysdeps` installs Debian's chromium")
    profile = tempfile.mkdtemp(prefix="fieldglass-chromium-")
    with sync_api.sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                                    headless=True, viewport={"width": 1280, "height": 900})
        try:
            yield ctx
        finally:
            ctx.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser_context):
    """A new tab; its script errors fail the test."""
    errors: list[str] = []
    pg = browser_context.new_page()
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    pg.close()
    assert not errors, errors


@pytest.fixture(scope="session")
def records(tmp_path_factory) -> dict[str, Path]:
    """system -> the record of its short game (fieldglass/web/scripted.py)."""
    folder = tmp_path_factory.mktemp("records")
    return {name: record_scripted(name, folder / f"{name}.fgr") for name in live_systems()}
