"""Recording a Marengo game and replaying it: block moves, a step loss by marker swap, a bombardment that reveals a
block, the end of the game by the engine's victory; the replay draws the board's areas and shows identities only
where the rules revealed them, or from the end of the game on.

The record is made by the real recorder (fieldglass/recording.py with rules/marengo/live.py's record hooks:
BlockWatch, the tracker, the engine for the players' inputs, one transaction per event) with the camera replaced
by the script's true block places, so it takes a fraction of a second. Screenshot for a person to look at:
out/screenshots/marengo-replay-recorded.png."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")

from fieldglass.boards import block_point  # noqa: E402
from fieldglass.cli import main as cli_main  # noqa: E402
from fieldglass.record import Record  # noqa: E402
from fieldglass.record.export import summary  # noqa: E402
from fieldglass.recording import GameRecorder, record_stream, system_meta  # noqa: E402
from fieldglass.replay_session import ReplaySession  # noqa: E402
from fieldglass.setup import demo_roster  # noqa: E402
from gui.replay import ReplayWindow  # noqa: E402
from rules.marengo.demo import DEMO_BLOCKS  # noqa: E402
from rules.marengo.hidden import roster_blocks  # noqa: E402
from rules.marengo.model import (
    load_demo_board,  # noqa: E402
    position_from_dict,  # noqa: E402
)
from tests.gui.helpers import SHOTS  # noqa: E402
from vision.pieces import PiecePose, TableReading  # noqa: E402
from vision.roster import Piece  # noqa: E402
from vision.synthetic_board import BLOCK_MM  # noqa: E402
from vision.tracking import TrackerConfig  # noqa: E402

FPS = 5.0


def script(board):
    """Frame -> the blocks seen (roster piece id, marker, x, y); and the players' inputs by frame."""
    at = {bid: (m, *block_point(board, area, pos)) for bid, m, _, _, _, area, pos in DEMO_BLOCKS}
    m, x, y = at["au-cav-1"]
    at["au-cav-1"] = (m, x, y + 32.0)  # two blocks in the reserve of area 3, side by side
    frames = []
    for i in range(32):
        seen = dict(at)
        if 10 <= i <= 12:
            seen.pop("au-inf-1")  # a hand takes the strength-3 block away...
        elif i >= 13:
            seen.pop("au-inf-1")  # ...and puts the unit's strength-2 block (marker 30) in the same reserve
            seen["au-inf-1.2"] = (30, *block_point(board, "3", "reserve"))
        if 14 <= i <= 15:
            seen.pop("fr-cav-1")  # the French cavalry lifted...
        elif i >= 16:
            seen["fr-cav-1"] = (22, *block_point(board, "7", "9"))  # ...and put in the approach toward 9
        frames.append(seen)
    inputs = {
        8: [{"type": "combat", "action": "bombard", "attacker": "au-art-1", "choices": {"phase": "announce"}}],
        26: [{"type": "turn"}],  # Austria's turn of round 16 ends
        28: [{"type": "turn"}],  # France's: after the last round, the engine's victory
    }
    for k, (f, lst) in enumerate(sorted(inputs.items())):
        for j, inp in enumerate(lst):
            inp.update(frame=f, _id=f"s{k}.{j}")
    return frames, inputs


def record_meta(board):
    """A Marengo record's metadata for the demo board: its blocks, one unit (au-inf-1) with a weaker second block,
    and the game at round 16 (shared with tests/gui/test_marengo_resume.py)."""
    base = demo_roster("marengo", board)
    roster = replace(base, pieces=base.pieces + (Piece("au-inf-1.2", 30, "AU", "infantry 2", BLOCK_MM, 16.0, 12.0),))
    blocks = roster_blocks(roster.pieces, {"au-inf-1.2": {"unit": "au-inf-1", "strength": 2}})
    game = position_from_dict(
        {"system": "marengo", "round": 16, "side": "AU", "commands": 3,
         "blocks": [{"id": bid, "side": s, "type": t, "strength": st, "area": a,
                     **({} if p == "reserve" else {"approach": p})} for bid, _, s, t, st, a, p in DEMO_BLOCKS]},
        "test", board=board)
    setup = SimpleNamespace(board=board, roster=roster, blocks=blocks, game=game)
    return system_meta("marengo", None, roster, None, {}, ["AU", "FR"], "scripted", setup)


def make_record(path: Path) -> Path:
    board = load_demo_board()
    meta = record_meta(board)
    rec = Record.create(path, meta, overwrite=True)
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=1.0, missing_after_s=30.0))
    frames, inputs = script(board)
    current = {}

    def stream():
        for i, seen in enumerate(frames):
            current["seen"] = seen
            yield i, i / FPS, np.zeros((4, 4, 3), np.uint8)

    def read(_image):
        poses = tuple(PiecePose(pid, m, float(x), float(y), 0.0) for pid, (m, x, y) in current["seen"].items())
        return TableReading(object(), poses, (), ())

    record_stream(recorder, stream(), read, inputs)
    rec.close()
    return path


def last_text(rec, e) -> str:
    return summary(e, False)


@pytest.fixture(scope="module")
def record_path(tmp_path_factory):
    return make_record(tmp_path_factory.mktemp("marengo") / "marengo.fgr")


def test_the_record_stores_moves_step_losses_identities_board_and_winner(record_path):
    rec = Record.open(record_path)
    meta = rec.meta
    assert meta["system"] == "marengo" and meta["board"] == {"demo": True}
    assert meta["blocks"]["au-inf-1"]["markers"] == {"3": 10, "2": 30}
    assert [p["id"] for p in meta["roster"]] == [b[0] for b in DEMO_BLOCKS]  # units, not markers
    evs = rec.events()
    kinds = [(e.type, e.piece, e.data.get("action")) for e in evs]
    assert sum(1 for k in kinds if k[0] == "appeared") == 6
    assert ("combat", "au-art-1", "bombard") in kinds
    step = next(e for e in evs if e.data.get("action") == "step loss")
    assert step.piece == "au-inf-1" and step.data["changes"] == [{"piece": "au-inf-1", "bases": 2, "strength": 2}]
    assert step.data["markers"] == [10, 30] and step.data["area"] == "3"
    move = next(e for e in evs if e.type == "move" and e.piece == "fr-cav-1")
    assert move.data["area"] == "7" and move.data["position"] == "7>9"
    assert last_text(rec, move).endswith("in area 7, approach 7>9")
    # §9.2 (R19) after 9h: Austria wins only with 3+ blocks beyond the objective line (areas 13 and 24 of the demo
    # board); its blocks stand in 3 and 4, so France wins a marginal victory. Austria's level starts at 0 (no
    # track in this position) but never falls to 0, so no decisive victory (§11.16 best reading)
    assert {a.id for a in load_demo_board().areas.values() if a.beyond_objective} == {"13", "24"}
    last = [e for e in evs if e.type == "turn"][-1]
    assert last.data["game_winner"] == "FR" and last.data["victory"] == "marginal" and meta["game_over"] is True
    assert meta["winner"] == last.data["game_winner"] and meta["game_over_seq"] == last.seq
    st = rec.state()
    assert st.pieces["au-inf-1"].bases == 2 and st.pieces["fr-inf-2"].bases == 3
    assert not any(e.piece == "au-inf-1" and e.type in ("missing", "removed") for e in evs)
    rec.close()


def test_the_replay_hides_until_the_rules_reveal_or_the_game_ends(record_path):
    s = ReplaySession(Record.open(record_path))
    assert s.board is not None and not s.problems
    tl = s.timeline
    bomb = next(i for i, e in enumerate(tl) if e.data.get("action") == "bombard")
    step = next(i for i, e in enumerate(tl) if e.data.get("action") == "step loss")
    end = next(i for i, e in enumerate(tl) if e.data.get("game_winner"))
    s.set_viewer("FR")
    s.seek(bomb)  # before the bombardment: every Austrian block anonymous
    ids = {v.piece.id for v in s.piece_views()}
    assert {"fr-inf-1", "fr-inf-2", "fr-cav-1"} <= ids and not any(i.startswith("au-") for i in ids)
    assert sum(1 for i in ids if i.startswith("AU block")) == 3
    s.seek(bomb + 1)  # the rules revealed the artillery
    ids = {v.piece.id for v in s.piece_views()}
    assert "au-art-1" in ids and "au-inf-1" not in ids
    s.seek(step + 1)  # the step loss: the French player sees a block replaced, not whose or what strength
    assert s.describe_event(tl[step]).startswith("AU block loses a step")
    hidden = [v for v in s.piece_views() if v.piece.id.startswith("AU block")]
    assert hidden and all(v.state == {} and v.type is None for v in hidden)
    assert s.position.block("au-inf-1").strength == 2  # the record keeps it
    s.seek(end)  # the moment before the game ended: still hidden
    assert "au-inf-1" not in {v.piece.id for v in s.piece_views()}
    s.seek(end + 1)  # the game is over: every identity
    ids = {v.piece.id for v in s.piece_views()}
    assert {"au-inf-1", "au-cav-1", "au-art-1"} <= ids
    assert "au-inf-1" in s.describe_event(tl[step])
    s.set_viewer("umpire")
    s.seek(1)
    assert not any(v.piece.id.startswith("AU block") for v in s.piece_views())
    s.record.close()


def test_the_replay_window_draws_the_board_areas_and_hidden_blocks(qapp, record_path):
    win = ReplayWindow(ReplaySession(Record.open(record_path)))
    win.resize(1500, 900)
    win.show()
    qapp.processEvents()
    win.board.fit()
    win.set_viewer("FR")
    s = win.session
    end = next(i for i, e in enumerate(s.timeline) if e.data.get("game_winner"))
    win.go(end)  # after the step loss and the move, before the end
    qapp.processEvents()
    assert len(win.board.items_of("area")) >= 2 * len(s.board.areas)  # outline and label
    assert win.board.items_of("approach")
    texts = [f"{win.model.data(win.model.index(r, 5))} {win.model.data(win.model.index(r, 6))}"
             for r in range(win.model.rowCount())]
    assert any("AU block loses a step" in t for t in texts) and not any("au-inf-1" in t for t in texts)
    SHOTS.mkdir(parents=True, exist_ok=True)
    win.grab().save(str(SHOTS / "marengo-replay-recorded.png"))
    win.go(len(s))
    qapp.processEvents()
    texts = [win.model.data(win.model.index(r, 6)) for r in range(win.model.rowCount())]
    assert any("au-inf-1 loses a step" in t for t in texts)  # the game is over: every block named
    win.close()
    win.record.close()


def test_fieldglass_record_system_marengo_films_the_demo_board(tmp_path, capsys):
    """The command end to end on the synthetic demo board (1280x720, detection included): units appear in areas."""
    out = tmp_path / "m.fgr"
    assert cli_main(["record", "--system", "marengo", "--source", "synthetic", "--frames", "14", "--out",
                     str(out)]) == 0
    assert "6 appeared" in capsys.readouterr().out
    rec = Record.open(out)
    assert rec.meta["board"] == {"demo": True} and set(rec.meta["blocks"]) == {b[0] for b in DEMO_BLOCKS}
    areas = {e.piece: e.data["area"] for e in rec.events() if e.type == "appeared"}
    assert areas == {b[0]: b[5] for b in DEMO_BLOCKS}
    rec.close()
