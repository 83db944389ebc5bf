"""Coalitions' part of the one live session (rules/coalitions/live.py `CoalitionsLive`) through the generic
`fieldglass.session.Session`, without Qt: readings fed by hand, each pawn's marker at the map's centre of its
Territory on the demo map's cells (the board is the table)."""

from __future__ import annotations

import tomllib

import pytest

from common.errors import InputError
from fieldglass.boards import board_layout
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, system_meta
from fieldglass.replay_session import ReplaySession
from fieldglass.session import Session
from fieldglass.setup import Setup, demo_roster, load_setup
from rules.board import board_to_toml, parse_board
from rules.coalitions import GAME, movement
from rules.coalitions.board import demo_board, map_point
from rules.coalitions.demo import demo, demo_game
from rules.coalitions.live import CoalitionsLive, GeneralMove, power_of
from rules.coalitions.model import POWERS, load_europe, position_from_dict
from rules.picture import check
from rules.system import register, unregister
from vision.pieces import PiecePose, TableReading
from vision.tracking import TrackerConfig

EUROPE = load_europe("demo")
DEMO = {"gb-1": "london", "gb-2": "cornwall", "fr-1": "normandie_bretagne", "fr-2": "picardie", "fr-3": "lorraine",
        "at-1": "bavaria", "at-2": "tyrol", "pr-1": "berlin", "ru-1": "livonia", "ot-1": "istanbul"}


@pytest.fixture(autouse=True)
def registered():
    register(GAME)
    yield
    unregister("coalitions")


def make_session(game):
    board = demo_board()
    setup = Setup("by hand", None, board_layout(board), demo_roster("coalitions", board), "coalitions", board=board,
                  game=game)
    return Session(setup, settle_s=0.0)


@pytest.fixture()
def session():
    return make_session(position_from_dict(demo_game(), "the demo"))


def see(s: Session, t: float, where: dict[str, str]) -> None:
    markers = {p.id: p.marker for p in s.setup.roster.pieces}
    poses = [PiecePose(gid, markers[gid], *map_point(EUROPE, at), 0.0) for gid, at in where.items()]
    for dt in (0.0, 0.5):
        s.update_reading(TableReading(object(), tuple(poses), (), ()), t + dt)


def test_the_map_cells_hold_their_centres_and_the_board_file_round_trips():
    board = demo_board()
    assert set(board.areas) == set(EUROPE.territories)
    for tid in board.areas:
        assert board.locate(*map_point(EUROPE, tid)).area == tid
    again = parse_board(tomllib.loads(board_to_toml(board)), "written")
    assert set(again.areas) == set(board.areas)
    assert {p.id for p in demo().pieces} == set(DEMO)


def test_pawns_are_located_with_the_games_troops(session):
    s = session
    assert isinstance(s.live, CoalitionsLive)
    see(s, 0.0, DEMO)
    st = s.position.state
    assert {g: st.generals[g].at for g in DEMO} == DEMO
    assert st.generals["fr-2"].troops == 3 and st.generals["fr-1"].special == "napoleon"
    assert st.generals["fr-6"].at is None  # an off-map General of the game, no pawn in the roster
    see(s, 2.0, {**DEMO, "fr-3": "alps"})
    assert s.position.state.generals["fr-3"].at == "lorraine"  # not guessed: where the game has it
    assert any(n.startswith("fr-3: alps is Impassable") and "lorraine" in n for n in s.notes)
    assert "round 1, turn 1" in "\n".join(s.describe_lines())


def test_a_move_waits_until_the_map_shows_it():
    # France's Movement under way (a Power's own actions go through resolve and the recorder: the session's actions
    # are a piece's)
    s = make_session(movement.start_movement(position_from_dict(demo_game(), "the demo"), "france", "austria")
                     .position)
    see(s, 0.0, DEMO)
    s.select("fr-2")
    assert "holland" in s.selection_overlay().moves
    pending = s.apply(s.resolve("move", "fr-2", "holland"))
    assert [(type(ch), ch.piece, ch.at) for ch in pending] == [(GeneralMove, "fr-2", "holland")]
    assert s.position.state.generals["fr-2"].at == "holland"  # the rules' word until the camera sees it
    see(s, 2.0, {**DEMO, "fr-2": "holland"})
    assert s.state.pending == {}
    with pytest.raises(InputError, match="no Move Turn left"):
        s.resolve("move", "fr-3", "pfalz")


def test_the_map_picture_and_the_turns(session):
    s = session
    see(s, 0.0, DEMO)
    s.select("fr-2")
    items = s.picture()
    check(items)
    kinds = {}
    for it in items:
        kinds.setdefault(it.kind, []).append(it)
    assert len(kinds["coalitions-territory"]) == len(EUROPE.territories)
    paris = next(it for it in kinds["coalitions-territory"] if it.data == ("paris",))
    assert paris.tone == GAME.side_tones["france"]
    assert "holland" in {it.data[0] for it in kinds["coalitions-reach"]}
    assert {it.piece for it in kinds["coalitions-pawn"]} == set(DEMO)
    s.next_phase()
    assert s.position.state.turn == 2


def test_roster_sides_and_the_synthetic_table():
    assert power_of("GB") == "britain" and power_of("Russia") == "russia" and power_of("xx") is None
    setup = load_setup("coalitions", "synthetic")
    assert setup.board is not None and setup.game is not None and setup.game.state.scenario == "1805"

    class Bad:
        pieces = (type("P", (), {"id": "x", "side": "martians", "type": "general"})(),)

    with pytest.raises(InputError, match="side 'martians' is no Power"):
        CoalitionsLive.setup_roster(GAME.adapter(), Bad, {}, None, "r.toml")


def test_a_record_keeps_the_game_and_its_engine_state(session, tmp_path):
    s = session
    rec = Record.create(tmp_path / "c.fgr", system_meta("coalitions", None, s.setup.roster, setup=s.setup))
    assert rec.meta["game"]["scenario"] == "1805"
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=0.0))
    markers = {p.id: p.marker for p in s.setup.roster.pieces}
    poses = tuple(PiecePose(g, markers[g], *map_point(EUROPE, at), 0.0) for g, at in DEMO.items())
    for i, t in enumerate((0.0, 0.5)):
        recorder.feed(TableReading(object(), poses, (), ()), t, i)
    ev = recorder.apply({"type": "combat", "action": "taxation", "attacker": "austria"}, 1.0, 2)[0]
    assert ev.data["engine"]["money"]["austria"] == 9 and "taxes" in ev.data["summary"]
    recorder.apply({"type": "turn"}, 1.5, 3)
    for i, t in enumerate((2.0, 2.5)):
        moved = tuple(PiecePose(g, markers[g], *map_point(EUROPE, "holland" if g == "fr-2" else at), 0.0)
                      for g, at in DEMO.items())
        recorder.feed(TableReading(object(), moved, (), ()), t, 4 + i)
    rec.close()
    replay = ReplaySession(Record.open(tmp_path / "c.fgr"))
    replay.seek(len(replay))
    st = replay.position.state
    assert st.generals["fr-2"].at == "holland" and st.money["austria"] == 9 and st.turn == 2
    assert not replay.problems
    items = replay.picture()
    check(items)
    assert {it.piece for it in items if it.kind == "coalitions-pawn"} == set(DEMO)


def test_a_power_acts_from_the_combat_panel(session):
    """The Powers are actors besides the Generals (the contract's `actors`): an action whose actor is a Power is
    resolved by the session as the combat panel sends it, and a name that is neither a figure nor a Power is one
    line."""
    s = session
    see(s, 0.0, DEMO)
    assert s.actors() == POWERS
    with pytest.raises(InputError, match="spain"):
        s.resolve("start_movement", "spain", "austria")
    out = s.resolve("start_movement", "france", "austria")
    assert out.lines[0] == "france chooses austria as Arbiter: austria +1 Morale, now 10 (§5.2)"
