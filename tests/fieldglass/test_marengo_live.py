"""Marengo's part of the one live session (rules/marengo/live.py `MarengoLive`) through the generic
`fieldglass.session.Session`, without Qt: readings fed by hand, each block's marker point where
fieldglass/boards.py `block_point` puts it on the demo board (the board is the table)."""

from __future__ import annotations

import pytest

from common.errors import InputError
from fieldglass.boards import block_point, board_layout
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, system_meta
from fieldglass.replay_session import ReplaySession
from fieldglass.session import Session
from fieldglass.setup import Setup, demo_roster
from rules.marengo import GAME
from rules.marengo.demo import DEMO_BLOCKS
from rules.marengo.live import BlockMove, MarengoLive
from rules.marengo.model import load_demo_board
from vision.pieces import PiecePose, TableReading
from vision.tracking import TrackerConfig

DEMO = {bid: (area, position) for bid, _, _, _, _, area, position in DEMO_BLOCKS}
"""au-inf-1 and au-cav-1 in the reserve of 3, au-art-1 in the approach 4>5, fr-inf-1 in 5, fr-inf-2 in 9, fr-cav-1
in 7."""


@pytest.fixture()
def session():
    board = load_demo_board()
    setup = Setup("by hand", None, board_layout(board), demo_roster("marengo", board), "marengo", board=board)
    return Session(setup, settle_s=0.0)


def see(s: Session, t: float, where: dict[str, tuple[str, str] | tuple[float, float]]) -> None:
    """One reading: each block (id -> area and position, or board mm) where the camera sees it; twice, so the
    tracker commits it."""
    markers = {p.id: p.marker for p in s.setup.roster.pieces}
    poses = []
    for bid, at in where.items():
        x, y = block_point(s.board, *at) if isinstance(at[0], str) else at
        poses.append(PiecePose(bid, markers[bid], float(x), float(y), 0.0))
    for dt in (0.0, 0.5):
        s.update_reading(TableReading(object(), tuple(poses), (), ()), t + dt)


def test_blocks_are_located_in_their_areas_by_the_generic_session(session):
    s = session
    assert type(s) is Session and isinstance(s.live, MarengoLive) and s.board is not None and s.to_table is None
    assert [p.id for p in s.roster.pieces] == list(DEMO)  # one unit per block in the demo roster
    assert s.state.active == GAME.sides[0] and s.state.turn == 2  # no position file: round 2, the first side
    see(s, 0.0, DEMO)
    assert {b.id: (b.area, b.position.split(">")[-1] if ">" in b.position else b.position)
            for b in s.position.blocks} == DEMO
    assert s.position.block("au-art-1").position == "4>5" and s.position.block("au-art-1").approach == "5"
    pl = s.locate(*block_point(s.board, "4", "5"))
    assert (pl.area, pl.position, pl.on_border) == ("4", "4>5", False)
    assert s.live.placements["fr-cav-1"].area == "7" and s.notes == []
    # a block put down on the border of 4 and 5 is flagged and left out, not guessed
    see(s, 2.0, {**DEMO, "au-art-1": (360.0, 250.0)})
    assert "au-art-1" not in s.position.blocks_by_id and s.live.placements["au-art-1"].on_border
    assert any(n.startswith("au-art-1:") and "not placed" in n for n in s.notes)
    text = "\n".join(s.describe_lines())
    assert "round 2" in text and "border?" in text and "fr-inf-1" in text


def test_a_player_view_hides_the_opponents_blocks(session):
    s = session
    see(s, 0.0, DEMO)
    au, fr = GAME.sides
    s.set_viewer(au)
    views = {v.piece.id: v for v in s.piece_views()}
    hidden = sorted(pid for pid, v in views.items() if v.hidden)
    assert hidden == [f"{fr} block 1", f"{fr} block 2", f"{fr} block 3"]
    assert all(v.type is None and v.state == {"bases": "?"} and v.piece.type == "block" for v in views.values()
               if v.hidden)
    assert views["au-inf-1"].state["bases"] == 3 and not views["au-inf-1"].hidden
    # the same labels as `fieldglass view --as AU` (rules/marengo/hidden.py position_views)
    seen = GAME.view_of(s.position, au)
    assert sorted(b["id"] for b in seen["blocks"] if b.get("hidden")) == hidden
    for label in hidden:  # a label names its block for the rules, and the block is shown by its label
        bid = s.piece_id(label)
        assert bid.startswith("fr-") and s.visible_id(bid) == label and s.hidden(bid)
    assert not any(n.startswith("fr-") for n in s.piece_names())
    s.select("au-cav-1")
    rows = [r.target for r in s.targets()]
    assert rows and not any(t.startswith("fr-") for t in rows)
    s.select(hidden[0])
    assert s.selected.startswith("fr-") and s.selection_overlay() is None and s.targets() == []
    assert "identity hidden" in s.title() and "fr-" not in s.title()
    s.select("au-cav-1")
    s.select(s.visible_id("fr-inf-1"), second=True)
    assert "fr-inf-1" not in "\n".join(s.pair()[1])
    text = "\n".join(s.describe_lines())
    assert f"{fr} block 1" in text and "fr-inf-1" not in text
    picture = s.picture()
    assert sum(it.kind == "marengo-block-hidden" for it in picture) == 3
    assert not any("fr-" in getattr(it, "tip", "") + getattr(it, "text", "") for it in picture)
    # a move the rules ordered for a hidden block is told by its label
    s.state.pending["fr-inf-2"] = BlockMove("fr-inf-2", area="8")
    moving = [v for v in s.piece_views() if v.pending is not None]
    assert len(moving) == 1 and moving[0].hidden and "fr-inf-2" not in moving[0].pending.describe()
    # a hidden block's state set by its label
    s.set_piece_state(s.visible_id("fr-cav-1"), "bases", 1)
    assert s.state.states["fr-cav-1"]["strength"] == 1
    with pytest.raises(InputError, match="no formation"):
        s.set_piece_state("au-inf-1", "formation", "line")
    s.set_viewer("umpire")
    assert not any(v.hidden for v in s.piece_views()) and s.title() and "fr-inf-1" in "\n".join(s.describe_lines())
    with pytest.raises(InputError, match="view: one of umpire, AU, FR"):
        s.set_viewer("spectator")


def test_an_area_named_is_no_block(session):
    s = session
    see(s, 0.0, DEMO)
    said = []
    s.events.message.connect(said.append)
    s.select("au-cav-1")
    s.select("5")
    assert s.selected == "au-cav-1" and said[-1].startswith("area 5: ")
    with pytest.raises(InputError, match="no block 'nobody'"):
        s.select("nobody")
    # an area as an action's target: the engine judges it
    att, _ = s.combat_modifiers("au-cav-1", "5", "thrust")
    assert any("legal" in line for line in att)


def test_a_resolutions_moves_wait_until_the_board_matches(session):
    s = session
    see(s, 0.0, DEMO)
    commands = s.position.commands
    out = s.resolve("thrust", "au-cav-1", "fr-inf-1")
    pending = s.apply(out)
    assert {ch.piece: (ch.area, ch.approach, ch.removed) for ch in pending} == {
        "au-cav-1": ("5", None, False), "fr-inf-1": ("10", None, False)}
    assert all(isinstance(ch, BlockMove) for ch in pending) and s.state.pending.keys() == {"au-cav-1", "fr-inf-1"}
    assert "waiting for the board: move au-cav-1 to area 5 (reserve)" in s.state.log[-2]
    # the rules' word until the camera sees it: the blocks stand where the rules put them
    assert s.position.commands == commands - 1
    assert s.position.block("au-cav-1").area == "5" and s.position.block("fr-inf-1").area == "10"
    assert s.position.block("fr-inf-1").strength == 1
    see(s, 2.0, DEMO)  # nothing moved yet
    assert s.state.pending.keys() == {"au-cav-1", "fr-inf-1"} and s.position.block("au-cav-1").area == "5"
    see(s, 4.0, {**DEMO, "fr-inf-1": ("10", "reserve")})  # the retreat done first
    assert s.state.pending.keys() == {"au-cav-1"}
    assert s.state.log[-1].endswith("the table matches: move fr-inf-1 to area 10 (reserve) done")
    see(s, 6.0, {**DEMO, "fr-inf-1": ("10", "reserve"), "au-cav-1": ("5", "reserve")})
    assert s.state.pending == {}
    assert (s.position.block("au-cav-1").area, s.position.block("fr-inf-1").area) == ("5", "10")
    assert s.notes == []


def test_turn_and_phase(session):
    s = session
    see(s, 0.0, DEMO)
    au, fr = GAME.sides
    s.next_phase()  # the engine ends the Austrian turn and starts the French one
    assert s.state.active == fr and s.position.side == fr and "to move" in s.state.log[-1]
    s.set_turn(40, "nobody")
    assert s.state.turn == 16 and s.state.active == fr
    s.set_turn(3, au)
    assert (s.position.round, s.position.side) == (3, au)


def test_the_replay_names_hidden_blocks_as_the_dashboard_does(session, tmp_path):
    """A record of the same readings, replayed for the same player: the same anonymous label for each block
    (rules/marengo/hidden.py position_views, shared by the dashboard, the replay and fieldglass view)."""
    s = session
    # two blocks of one side in one area: their numbers must not come from where each one's record starts
    where = {**DEMO, "fr-cav-1": ("5", "reserve")}
    path = tmp_path / "m.fgr"
    rec = Record.create(path, system_meta("marengo", None, s.setup.roster, setup=s.setup))
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=0.0))
    markers = {p.id: p.marker for p in s.setup.roster.pieces}
    poses = tuple(PiecePose(bid, markers[bid], *block_point(s.board, *at), 0.0) for bid, at in where.items())
    for i, t in enumerate((0.0, 0.5, 1.0)):
        s.update_reading(TableReading(object(), poses, (), ()), t)
        recorder.feed(TableReading(object(), poses, (), ()), t, i)
    rec.close()
    au, fr = GAME.sides
    s.set_viewer(au)
    live = {s.piece_id(v.piece.id): v.piece.id for v in s.piece_views() if v.hidden}
    replay = ReplaySession(Record.open(path))
    replay.seek(len(replay))
    assert replay.viewers == ("public", au, fr, "umpire")
    replay.set_viewer(au)
    shown = {replay.aliases[v.piece.id]: v.piece.id for v in replay.piece_views() if v.hidden}
    assert shown == live and len(live) == 3 and not replay.problems
    replay.set_viewer("public")
    assert sum(v.hidden for v in replay.piece_views()) == 6
    with pytest.raises(InputError, match="view: public, AU, FR or umpire"):
        replay.set_viewer("spectator")
