"""The web tests' real parts: Debian's chromium driven by Playwright (never a browser of Playwright's own: the
machine's network is closed), and records of every registered system."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from fieldglass.web.scripted import live_systems, record_scripted
from tests.web.postgres import TempPostgres

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


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server of the tests' own (tests/web/postgres.py), for the session."""
    server = TempPostgres()
    try:
        server.start()
        yield server
    finally:
        server.remove()


@pytest.fixture
def archive_db(postgres, request) -> str:
    """A new, empty database on the tests' server: its URL."""
    name = "t_" + "".join(c if c.isalnum() else "_" for c in request.node.name.lower())[:50]
    return postgres.create_db(name)
