"""Issue 28's done-when for the pages, in Debian's chromium: the replay page of every system's game at 1400 px (and
on a phone), at its start, half-way and at its end - every label's box read from the DOM overlaps no other label and
no piece's outline and stays on the board, its text at least 11 px; the board has its grid letters and numbers; a
fire event draws its line between the two pieces; the spectator page shows the game at once, before its stream
connects. Screenshots: out/screenshots/web-replay-*.png."""

from __future__ import annotations

import itertools

import pytest

from fieldglass.cli import main as cli_main
from fieldglass.record import Record, Replay
from fieldglass.web.live import GameFeed, live_app
from fieldglass.web.scripted import live_systems
from fieldglass.web.server import app_in_thread
from rules.labels import Shape, inside, overlaps
from tests.fieldglass.test_record import META, small_game
from tests.web.conftest import SHOTS

TOLERANCE_PX = 0.75

ON_SCREEN = """() => {
  const svg = document.getElementById('board');
  const r = svg.getBoundingClientRect();
  const labels = Array.from(svg.querySelectorAll('g.labels g.label')).map(g => {
    const b = g.querySelector('rect.plate').getBoundingClientRect();
    const t = g.querySelector('text');
    const px = parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a;
    return {text: Array.from(g.querySelectorAll('text')).map(x => x.textContent).join(' '), kind: g.dataset.kind,
            box: [b.left, b.top, b.right, b.bottom], px: px};
  });
  const outlines = Array.from(svg.querySelectorAll('path.area[data-body]')).map(p => {
    const m = p.getScreenCTM(), pts = [];
    const nums = p.getAttribute('d').match(/-?[0-9.]+/g).map(Number);
    for (let i = 0; i + 1 < nums.length; i += 2) {
      const q = svg.createSVGPoint(); q.x = nums[i]; q.y = nums[i + 1];
      const s = q.matrixTransform(m); pts.push([s.x, s.y]);
    }
    return {piece: p.dataset.piece, pts: pts};
  });
  return {board: [r.left, r.top, r.right, r.bottom], labels: labels, outlines: outlines,
          level: svg.dataset.level};
}"""


def export(record, out) -> None:
    assert cli_main(["export", str(record), "--format", "html", "--out", str(out), "--as", "umpire"]) == 0


def check_labels(page, where: str) -> dict:
    """Fails naming the first label over another, over a piece or off the board, or smaller than 11 px."""
    got = page.evaluate(ON_SCREEN)
    t = TOLERANCE_PX
    bounds = (got["board"][0] - t, got["board"][1] - t, got["board"][2] + t, got["board"][3] + t)
    shapes = [(o["piece"], Shape(o["pts"])) for o in got["outlines"] if len(o["pts"]) >= 3]
    for a, b in itertools.combinations(got["labels"], 2):
        assert not overlaps(a["box"], b["box"], -t), f"{where}: {a['text']!r} over {b['text']!r}"
    for lab in got["labels"]:
        assert inside(lab["box"], bounds), f"{where}: {lab['text']!r} {lab['box']} off the board {got['board']}"
        assert lab["px"] >= 11.0, f"{where}: {lab['text']!r} is {lab['px']:.1f} px"
        for pid, shape in shapes:
            assert not shape.hits(lab["box"], -t), f"{where}: {lab['text']!r} over {pid}'s outline"
    return got


@pytest.mark.parametrize("system", live_systems())
def test_the_replay_pages_labels_are_clear_and_readable_at_1400_px(system, records, page, tmp_path):
    out = tmp_path / f"{system}.html"
    export(records[system], out)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(out.as_uri())
    n = int(page.get_attribute("#scrub", "max"))
    for k in (0, n // 2, n):
        page.click("#first") if k == 0 else page.evaluate(f"location.hash = '#{k}'; location.reload()")
        page.wait_for_selector(f"#board[data-index='{k}']")
        got = check_labels(page, f"{system} moment {k}")
        assert got["labels"], f"{system} moment {k}: no label"
    if system == "wiener":  # a grid: its letters and numbers along the board's edges
        kinds = [lab["text"] for lab in got["labels"] if lab["kind"] == "grid-label"]
        assert "A" in kinds and "1" in kinds
    page.screenshot(path=str(SHOTS / f"web-replay-{system}.png"))


def test_on_a_phone_the_labels_are_as_large_and_as_clear(records, page, tmp_path):
    system = "coalitions" if "coalitions" in live_systems() else live_systems()[0]  # the most crowded map
    out = tmp_path / "game.html"
    export(records[system], out)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(out.as_uri() + "#9999")
    wide = check_labels(page, f"{system} at 1400 px")
    page.set_viewport_size({"width": 390, "height": 844})  # the page places its labels again for the new size
    page.wait_for_function(f"() => document.getElementById('board').dataset.level !== '{wide['level']}'")
    got = check_labels(page, f"{system} on a phone")
    assert got["labels"] and int(got["level"]) < int(wide["level"])  # a level of its own: fewer labels, as large
    assert len(got["labels"]) < len(wide["labels"])
    legend, events = page.locator("details.marks-legend").bounding_box(), page.locator("#events").bounding_box()
    assert page.locator("#legend-entries .entry").count() > 0
    assert events["y"] >= legend["y"] + legend["height"] - 1  # the legend's entries, then the events: no overlap
    page.screenshot(path=str(SHOTS / "web-replay-phone-labels.png"))


def test_a_fire_event_draws_its_line_between_the_two_pieces(page, tmp_path):
    path = tmp_path / "game.fgr"
    rec = Record.create(path, META, snapshot_every=4)
    small_game(rec)
    rec.close()
    with Record.open(path) as rec:
        events = rec.events(clean=True)
        k = next(i for i, e in enumerate(events, 1) if e.type == "combat")
        attacker, target = events[k - 1].data["pieces"][:2]
    out = tmp_path / "game.html"
    export(path, out)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(out.as_uri() + f"#{k}")
    assert page.locator("#board path.line[data-kind='event-fire']").count() == 1
    shaft = page.evaluate("""() => {
      const p = document.querySelector("#board path.line[data-kind='event-fire']");
      const n = p.getAttribute('d').match(/-?[0-9.]+/g).map(Number);
      return [[n[0], n[1]], [n[2], n[3]]]; }""")  # the shaft's ends, board units (x mm, depth - y mm)
    with Record.open(path) as rec:
        before = Replay(rec).position_at(k - 1)
    depth = float(page.get_attribute("#board", "data-depth-mm"))
    for (x, y), pid in zip(shaft, (attacker, target), strict=True):  # from the attacker to its target
        p = before.pieces[pid]
        assert abs(x - p.x_mm) < 0.2 and abs(depth - y - p.y_mm) < 0.2, (pid, (x, depth - y), (p.x_mm, p.y_mm))
    labels = [lab["text"] for lab in check_labels(page, "the fire")["labels"]]
    assert any(t.startswith("fire") for t in labels)  # named beside it: the action and who won
    page.click("#back")
    assert page.get_attribute("#board", "data-index") == str(k - 1)
    assert page.locator("#board path.line[data-kind='event-fire']").count() == 0  # only at its event


def test_the_spectator_page_shows_the_game_before_its_stream_connects(records, browser_context):
    path = records[live_systems()[0]]
    with Record.open(path) as rec:
        last = max(e.seq for e in rec.events())
    page = browser_context.new_page()
    try:
        with app_in_thread(live_app(GameFeed(path, "umpire"), poll_s=0.05)) as url:
            page.route("**/events*", lambda route: route.abort())  # the stream never connects
            page.goto(url)
            assert page.get_attribute("#board", "data-seq") == str(last)  # at once, from the page itself
            assert page.locator("#board path.area[data-piece]").count() > 0
            assert page.locator("#events li").count() > 0
            check_labels(page, "the spectator page")
            page.goto("about:blank")
    finally:
        page.close()
