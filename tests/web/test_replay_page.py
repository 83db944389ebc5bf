"""The replay page (`fieldglass export --format html`) in a real headless chromium, for every registered system:
it loads nothing from the network, goes to an event by its row, by the step buttons, the keyboard, the scrubber and
the turn list, and the pieces it draws there stand where the record puts them; a side's page withholds what that
side may not see. Screenshots: out/screenshots/web-replay-*.png."""

from __future__ import annotations

import re

import pytest

from fieldglass.cli import main as cli_main
from fieldglass.record import Record, Replay
from fieldglass.replay_session import ReplaySession
from fieldglass.web.scripted import live_systems
from tests.web.conftest import SHOTS

PIECE_CENTRES = """() => Array.from(document.querySelectorAll(
  '#board path.area[data-piece], #board circle.dot[data-piece]')).map(e => {
  const b = e.getBBox(); return [e.dataset.piece, e.dataset.kind, b.x + b.width / 2, b.y + b.height / 2]; })"""


def export(record, out, *extra) -> None:
    assert cli_main(["export", str(record), "--format", "html", "--out", str(out), *extra]) == 0


def drawn_pieces(page) -> dict[str, list[tuple[float, float]]]:
    """piece id -> the centres (table mm) of the areas (a base) and dots (a marker) drawn for it."""
    depth = float(page.get_attribute("#board", "data-depth-mm"))
    out: dict[str, list[tuple[float, float]]] = {}
    for pid, _kind, cx, cy in page.evaluate(PIECE_CENTRES):
        out.setdefault(pid, []).append((cx, depth - cy))
    return out


def check_pieces_at(page, record_path, k: int) -> None:
    """The page shows moment k, and every piece the record has on the table there is drawn at its place (within
    1 mm), and no other piece."""
    assert page.get_attribute("#board", "data-index") == str(k)
    with Record.open(record_path) as rec:
        state = Replay(rec).position_at(k)
    on_table = {p.id: (p.x_mm, p.y_mm) for p in state.on_table()}
    drawn = drawn_pieces(page)
    assert set(drawn) == set(on_table)
    for pid, (x, y) in on_table.items():
        assert min(abs(cx - x) + abs(cy - y) for cx, cy in drawn[pid]) < 1.0, (pid, (x, y), drawn[pid])


@pytest.mark.parametrize("system", live_systems())
def test_the_page_goes_to_event_n_and_draws_the_pieces_of_the_record_there(system, records, page, tmp_path):
    out = tmp_path / f"{system}.html"
    export(records[system], out, "--as", "umpire")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.as_uri())
    assert requests == [out.as_uri()]  # self-contained: nothing else is fetched

    with Record.open(records[system]) as rec:
        session = ReplaySession(rec)
        n = len(session)
        timeline = session.timeline
        first_move = next(i for i, e in enumerate(timeline) if e.type == "move") + 1
        turn2 = session.turn_index(session.turns()[-1])
    assert page.get_attribute("#board", "data-index") == "0"
    assert page.locator("#events li").count() == n

    page.click(f"#events li[data-index='{first_move}']")  # the event's row: the moment after it
    check_pieces_at(page, records[system], first_move)
    assert "current" in page.get_attribute(f"#events li[data-index='{first_move}']", "class")
    assert page.locator("#caption").inner_text().endswith(page.locator(
        f"#events li[data-index='{first_move}'] .what").inner_text())

    page.click("#next")
    check_pieces_at(page, records[system], first_move + 1)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    check_pieces_at(page, records[system], first_move - 1)
    page.select_option("#turn", str(turn2))
    check_pieces_at(page, records[system], turn2)
    page.locator("#scrub").fill(str(n))  # the scrubber dragged to the end
    check_pieces_at(page, records[system], n)
    page.click("#first")
    check_pieces_at(page, records[system], 0)
    page.click(".mark.bookmark")
    assert timeline[int(page.get_attribute("#board", "data-index")) - 1].type == "bookmark"
    page.screenshot(path=str(SHOTS / f"web-replay-{system}.png"))


def test_play_runs_to_the_end_and_a_link_opens_at_its_moment(records, page, tmp_path):
    system = live_systems()[0]
    out = tmp_path / "game.html"
    export(records[system], out)
    with Record.open(records[system]) as rec:
        n = len(Replay(rec))
    page.goto(out.as_uri() + "#3")
    check_pieces_at(page, records[system], 3)
    page.select_option("#speed", "8")
    page.click("#play")
    page.wait_for_selector(f"#board[data-index='{n}']")  # played on to the end, one event at a time
    check_pieces_at(page, records[system], n)
    assert page.inner_text("#play") == "play"  # stopped at the end


def test_a_sides_page_withholds_what_that_side_may_not_see(records, tmp_path):
    """For every side of every system with hidden information: no piece the side may not name at the end of the
    game appears anywhere in its page (the umpire's page names them all)."""
    checked = 0
    for system, path in records.items():
        with Record.open(path) as rec:
            session = ReplaySession(rec)
            session.to_end()
            sides = [v for v in session.viewers if v not in ("public", "umpire")]
            hidden = {}
            for side in sides:
                session.set_viewer(side)
                session.piece_views()
                hidden[side] = session.hidden_at()
        if not any(hidden.values()):
            continue
        umpire = tmp_path / f"{system}-umpire.html"
        export(path, umpire, "--as", "umpire")
        umpire_text = umpire.read_text(encoding="utf-8")
        for side in sides:
            if not hidden[side]:
                continue
            out = tmp_path / f"{system}-{side}.html"
            export(path, out, "--as", side)
            text = out.read_text(encoding="utf-8")
            for pid in hidden[side]:
                assert re.search(rf"\b{re.escape(pid)}\b", umpire_text)
                assert not re.search(rf"\b{re.escape(pid)}\b", text), (system, side, pid)
                checked += 1
    assert checked, "no registered system hides anything: this test checked nothing"


def test_a_wrong_viewer_or_as_for_another_format_is_one_line(records, tmp_path, capsys):
    path = records[live_systems()[0]]
    assert cli_main(["export", str(path), "--format", "html", "--as", "nobody", "--out", str(tmp_path / "x.html")]) \
        == 2
    err = capsys.readouterr().err
    assert err.startswith("fieldglass: error: view:") and "nobody" in err and err.count("\n") == 1
    assert cli_main(["export", str(path), "--format", "csv", "--as", "umpire"]) == 2
    assert "--as is for --format html" in capsys.readouterr().err


def test_the_page_fits_a_phone(records, page, tmp_path):
    out = tmp_path / "game.html"
    export(records[live_systems()[0]], out)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(out.as_uri())
    board, events = page.locator("#board").bounding_box(), page.locator("#events").bounding_box()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing runs off the side
    assert board["width"] > 300 and board["x"] + board["width"] <= 390
    assert events["y"] >= board["y"] + board["height"]  # the events under the board, one column
    page.click("#next")
    assert page.get_attribute("#board", "data-index") == "1"
    page.screenshot(path=str(SHOTS / "web-replay-phone.png"), full_page=True)
