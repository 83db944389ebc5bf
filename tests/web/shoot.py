"""Screenshots of the replay page (at 1400 px and on a phone) and of the spectator page, in Debian's chromium, for the
README and for a person to look at:

    python -m tests.web.shoot --out docs/screenshots

The Wiener scripted game (fieldglass/web/scripted.py) with a fire added after its last move, so that the page shows
a combat's line; saved as web-replay.jpg (the fire), web-replay-phone.jpg and web-live.jpg (JPEG quality 85)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS


def game_with_a_fire(folder: Path) -> Path:
    from fieldglass.record import Record  # noqa: PLC0415
    from fieldglass.web.scripted import record_scripted  # noqa: PLC0415

    path = record_scripted("wiener", folder / "wiener.fgr")
    with Record.open(path, writable=True) as rec:
        last = rec.events()[-1]
        rec.append("combat", last.t + 2.0, (last.frame or 0) + 10, "fr-a-1",
                   {"action": "fire", "pieces": ["fr-a-1", "au-1-2"], "sides": {"fr-a-1": "FR", "au-1-2": "AU"},
                    "winner": "attacker", "effect": "grey", "dice": [6, 2], "changes": []})
    return path


def main(argv=None) -> int:
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    from fieldglass.cli import main as cli  # noqa: PLC0415
    from fieldglass.web.live import GameFeed, live_app  # noqa: PLC0415
    from fieldglass.web.server import app_in_thread  # noqa: PLC0415

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("out/screenshots"))
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="fg-web-shoot-"))
    record = game_with_a_fire(folder)
    page_path = folder / "wiener.html"
    if cli(["export", str(record), "--format", "html", "--out", str(page_path), "--as", "umpire"]) != 0:
        return 2
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(page_path.as_uri() + "#9999")  # the end: the fire just resolved
            page.screenshot(path=str(args.out / "web-replay.jpg"), type="jpeg", quality=85)
            page.set_viewport_size({"width": 390, "height": 844})
            page.screenshot(path=str(args.out / "web-replay-phone.jpg"), type="jpeg", quality=85, full_page=True)
            with app_in_thread(live_app(GameFeed(record, "umpire"))) as url:
                live = browser.new_page(viewport={"width": 1400, "height": 900})
                live.goto(url)
                live.wait_for_selector("#status.live")
                live.screenshot(path=str(args.out / "web-live.jpg"), type="jpeg", quality=85)
                live.goto("about:blank")
        finally:
            browser.close()
    for name in ("web-replay.jpg", "web-replay-phone.jpg", "web-live.jpg"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
