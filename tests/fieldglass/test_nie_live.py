"""Napoleon in Europe's part of the one live session (rules/nie/live.py `NieLive`) through the generic
`fieldglass.session.Session`, without Qt: readings fed by hand, each figure's marker point at the map's centre of its
area (rules/nie/board.py `map_point`) on the demo map's cells (the board is the table)."""

from __future__ import annotations

import tomllib
from dataclasses import replace

import numpy as np
import pytest

from calibration.board import BoardPose, anchor_corners_mm
from common.errors import InputError
from fieldglass.boards import board_layout
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, system_meta
from fieldglass.replay_session import ReplaySession
from fieldglass.session import Session
from fieldglass.setup import Setup, demo_roster, load_setup
from rules import position as positions
from rules.board import board_to_toml, parse_board
from rules.nie import GAME
from rules.nie.battle import Result
from rules.nie.board import battle_board, demo_board, map_point, voronoi_cells
from rules.nie.demo import DEMO_BATTLE, DEMO_FIGURES, DEMO_GAME, demo_game
from rules.nie.live import FigureMove, NieLive, nation_of
from rules.nie.model import load_europe, position_from_dict, with_changes
from rules.picture import check
from rules.system import CombatOutcome
from vision.markers import MarkerDetection
from vision.pieces import PiecePose, TableReading
from vision.synthetic import VirtualCamera
from vision.tracking import TrackerConfig

DEMO = {fid: area for fid, _, _, area in DEMO_FIGURES}
EUROPE = load_europe("demo")


@pytest.fixture()
def session():
    board = demo_board()
    game = position_from_dict(DEMO_GAME, "the demo")
    setup = Setup("by hand", None, board_layout(board), demo_roster("nie", board), "nie", board=board, game=game)
    return Session(setup, settle_s=0.0)


def point(area: str, k: int = 0) -> tuple[float, float]:
    x, y = map_point(EUROPE, area)
    return x + 24.0 * k, y


def see(s: Session, t: float, where: dict[str, str | tuple[float, float]]) -> None:
    """One reading: each figure (id -> area, or board mm) where the camera sees it, a second figure in one area
    beside the first; twice, so the tracker commits it."""
    markers = {p.id: p.marker for p in s.setup.roster.pieces}
    poses, count = [], {}
    for fid, at in where.items():
        if isinstance(at, str):
            k = count.get(at, 0)
            count[at] = k + 1
            x, y = point(at, k)
        else:
            x, y = at
        poses.append(PiecePose(fid, markers[fid], float(x), float(y), 0.0))
    for dt in (0.0, 0.5):
        s.update_reading(TableReading(object(), tuple(poses), (), ()), t + dt)


def test_the_map_cells_hold_their_centres_and_the_board_file_round_trips():
    board = demo_board()
    assert set(board.areas) == set(EUROPE.regions) | set(EUROPE.seas) and not board.approaches
    for aid in board.areas:
        pl = board.locate(*map_point(EUROPE, aid))
        assert (pl.area, pl.position, pl.on_border) == (aid, "reserve", False)
    again = parse_board(tomllib.loads(board_to_toml(board)), "written")  # a board file that validates
    assert set(again.areas) == set(board.areas) and again.locate(*map_point(EUROPE, "paris")).area == "paris"
    cells = voronoi_cells(np.array([[25.0, 50.0], [75.0, 50.0]]), 100.0, 100.0)
    assert [sorted(map(tuple, c.tolist())) for c in cells] == [
        [(0.0, 0.0), (0.0, 100.0), (50.0, 0.0), (50.0, 100.0)], [(50.0, 0.0), (50.0, 100.0), (100.0, 0.0),
                                                                  (100.0, 100.0)]]


def test_figures_are_located_to_regions_seas_and_ports(session):
    s = session
    assert type(s) is Session and isinstance(s.live, NieLive) and s.board is not None and s.to_table is None
    assert s.state.active == "france" and s.state.turn == 1
    see(s, 0.0, DEMO)
    at = {u.id: u.at for u in s.position.units.values()}
    assert at == {**DEMO, "gb-sq-2": "port:london"}  # a squadron in a port region is in its port
    assert {u.id: (u.nation, u.type) for u in s.position.units.values()}["fr-cav-1"] == ("france", "cav")
    assert s.position.at_war("france", "britain") and s.position.pp["france"] == 20 and s.notes == []
    # a land figure at sea and a figure on a cell border are left out with a note, not guessed
    paris, picardy = map_point(EUROPE, "paris"), map_point(EUROPE, "picardy")
    mid = ((paris[0] + picardy[0]) / 2, (paris[1] + picardy[1]) / 2)
    see(s, 2.0, {**DEMO, "fr-inf-1": point("channel", 1), "fr-cav-1": mid})
    assert "fr-inf-1" not in s.position.units and "fr-cav-1" not in s.position.units
    assert any(n.startswith("fr-inf-1: a land figure in sea area channel") for n in s.notes)
    assert any(n.startswith("fr-cav-1:") and "border" in n for n in s.notes)
    text = "\n".join(s.describe_lines())
    assert "1805-01, round 1, france to move" in text and "port:london" in text and "fr-cav-1" in text


def test_a_land_move_waits_until_the_map_shows_it(session):
    s = session
    see(s, 0.0, DEMO)
    s.select("fr-cav-1")
    assert s.selection_overlay().moves == ("belgium", "burgundy", "paris")  # cavalry's first step (§5.1)
    out = s.resolve("land_move", "fr-cav-1", "belgium")
    assert "fr-cav-1 move picardy -> belgium (§5.1)" in out.lines[0]
    pending = s.apply(out)
    assert [(type(ch), ch.piece, ch.at, ch.removed) for ch in pending] == [(FigureMove, "fr-cav-1", "belgium", False)]
    assert s.state.log[-1].endswith("waiting for the board: move fr-cav-1 to belgium")
    # the rules' word until the camera sees it: the figure stands where the rules put it, and it has moved
    assert s.position.unit("fr-cav-1").at == "belgium" and "fr-cav-1" in s.position.moved
    with pytest.raises(InputError, match="already moved this month"):
        s.resolve("land_move", "fr-cav-1", "holland")
    see(s, 2.0, DEMO)  # nothing moved yet
    assert s.state.pending.keys() == {"fr-cav-1"} and s.position.unit("fr-cav-1").at == "belgium"
    see(s, 4.0, {**DEMO, "fr-cav-1": "belgium"})
    assert s.state.pending == {} and s.state.log[-1].endswith("the table matches: move fr-cav-1 to belgium done")
    assert s.position.unit("fr-cav-1").at == "belgium" and "fr-cav-1" in s.position.moved
    # an entry the rules refuse is one line; the game state is unchanged
    with pytest.raises(InputError, match="land move"):
        s.resolve("land_move", "fr-inf-1", "london")


def test_the_map_picture(session):
    s = session
    see(s, 0.0, DEMO)
    s.select("fr-inf-1")
    out = s.apply(s.resolve("land_move", "fr-inf-2", "rhineland"))
    assert [ch.at for ch in out] == ["rhineland"]
    items = s.picture()
    check(items)
    kinds = {}
    for it in items:
        kinds.setdefault(it.kind, []).append(it)
    assert len(kinds["nie-region"]) == len(EUROPE.regions) and len(kinds["nie-sea"]) == len(EUROPE.seas)
    paris = next(it for it in kinds["nie-region"] if it.data == ("paris",))
    assert paris.tone == GAME.side_tones["france"] and "capital of france" in paris.tip
    assert {it.data[0] for it in kinds["nie-reach"]} == {"burgundy", "picardy", "vendee"}
    assert {it.piece for it in kinds["nie-figure"]} == set(DEMO)
    gb = next(it for it in kinds["nie-figure"] if it.piece == "gb-inf-1")
    assert gb.tone == GAME.side_tones["britain"]
    assert any("rhineland" in it.text for it in kinds["pending-label"])
    # an occupier's outline: French troops ordered into the Rhineland (a minor), British troops in the Vendée
    see(s, 2.0, {**DEMO, "gb-inf-1": "vendee"})
    occ = {it.data[0]: it.tone for it in s.picture() if it.kind == "nie-occupied"}
    assert occ == {"rhineland": GAME.side_tones["france"], "vendee": GAME.side_tones["britain"]}


def test_turns_follow_the_engine(session):
    s = session
    see(s, 0.0, DEMO)
    s.next_phase()
    assert s.state.active == "britain" and s.position.active == "britain"
    s.next_phase()
    s.next_phase()  # austria's turn ends: the month ends (the players' nations only move)
    assert (s.state.active, s.position.month, s.state.turn) == ("france", 2, 2)
    s.set_turn(5, "nobody")
    assert s.state.turn == 5 and s.state.active == "france" and s.position.round == 5


def test_roster_sides_and_types_are_checked():
    assert nation_of("FR") == "france" and nation_of("Austria") == "austria" and nation_of("AU-1") is None
    s = load_setup("nie", "synthetic")
    assert s.board is not None and s.game is not None and s.game.players["austria"] == "cara"
    roster = s.roster

    class Bad:
        pieces = (type("P", (), {"id": "x", "side": "martians", "type": "infantry"})(),)

    with pytest.raises(InputError, match="side 'martians' is no Great Nation"):
        NieLive.setup_roster(GAME.adapter(), Bad, {}, None, "r.toml")
    assert NieLive.setup_roster(GAME.adapter(), roster, {}, None, "r.toml") == {}


def test_a_record_keeps_the_game_and_the_replay_places_the_figures(session, tmp_path):
    s = session
    path = tmp_path / "n.fgr"
    rec = Record.create(path, system_meta("nie", None, s.setup.roster, setup=s.setup))
    assert rec.meta["game"]["players"]["britain"] == "ben" and rec.meta["game"]["units"] == []
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=0.0))
    markers = {p.id: p.marker for p in s.setup.roster.pieces}

    def poses(where):
        count, out = {}, []
        for fid, area in where.items():
            k = count.get(area, 0)
            count[area] = k + 1
            out.append(PiecePose(fid, markers[fid], *point(area, k), 0.0))
        return tuple(out)

    for i, t in enumerate((0.0, 0.5)):
        recorder.feed(TableReading(object(), poses(DEMO), (), ()), t, i)
    ev = recorder.apply({"type": "combat", "action": "land_move", "attacker": "fr-cav-1", "target": "belgium"},
                        1.0, 2)[0]
    assert ev.data["changes"] == [{"unit": "fr-cav-1", "at": "belgium", "piece": "fr-cav-1"}]
    assert "fr-cav-1" in ev.data["engine"]["moved"]
    for i, t in enumerate((1.5, 2.0)):
        recorder.feed(TableReading(object(), poses({**DEMO, "fr-cav-1": "belgium"}), (), ()), t, 3 + i)
    recorder.apply({"type": "turn"}, 2.5, 5)
    rec.close()
    replay = ReplaySession(Record.open(path))
    replay.seek(len(replay))
    pos = replay.position
    assert pos.unit("fr-cav-1").at == "belgium" and pos.unit("gb-sq-2").at == "port:london"
    assert pos.active == "britain" and "fr-cav-1" in pos.moved and not replay.problems
    items = replay.picture()
    check(items)
    assert {it.piece for it in items if it.kind == "nie-figure"} == set(DEMO)
    assert sum(it.kind == "nie-region" for it in items) == len(EUROPE.regions)


def test_a_battle_waits_for_its_figures():
    """A position file's battle (rules/nie/data/example.json: Belgium) is left out while its units are not all on
    the map, and kept in the game through the resolutions meanwhile."""
    game = positions.load("rules/nie/data/example.json")
    board = demo_board()
    setup = Setup("by hand", None, board_layout(board), demo_roster("nie", board), "nie", board=board, game=game)
    s = Session(setup, settle_s=0.0)
    see(s, 0.0, DEMO)
    assert s.position.battle is None and s.live.game.battle.region == "belgium"
    assert any(n.startswith("the battle in belgium is left out") for n in s.notes)
    s.apply(s.resolve("land_move", "fr-inf-1", "vendee"))
    assert s.live.game.battle is not None and s.position.unit("fr-inf-1").at == "vendee"


def test_a_removal_waits_until_the_figure_is_taken_off(session):
    """An outcome whose position after lacks a unit (a sea battle's or an interception's losses): the figure is
    removed from the game at once and shown "take off" until the camera no longer sees it."""
    s = session
    see(s, 0.0, DEMO)
    after = with_changes(s.position, units={k: u for k, u in s.position.units.items() if k != "gb-sq-1"})
    pending = s.apply(CombatOutcome(Result("sea_battle", after, ["gb-sq-1 sunk"]), [], None, ["gb-sq-1 sunk"], []))
    assert [(ch.piece, ch.removed, ch.describe()) for ch in pending] == [("gb-sq-1", True, "take gb-sq-1 off the map")]
    assert "gb-sq-1" not in s.position.units and "gb-sq-1" in s.state.removed
    assert any(it.kind == "pending-remove" for it in s.picture())
    see(s, 2.0, DEMO)  # still on the map
    assert s.state.pending.keys() == {"gb-sq-1"}
    see(s, 4.0, {k: v for k, v in DEMO.items() if k != "gb-sq-1"})
    assert s.state.pending == {} and "gb-sq-1" not in s.position.units


def battle_reading(s: Session, cam, at: BoardPose, zones: dict[str, str], also=()) -> TableReading:
    """One frame: the battle board's anchors lying at `at` (their corners as the camera sees them) and each figure
    (id -> zone) at its zone's centre on it; `also` more figure poses in table mm."""
    brd = battle_board()
    markers = tuple(MarkerDetection(a.id, cam.project(np.column_stack([at.board_to_table(anchor_corners_mm(a)),
                                                                       np.zeros(4)])))
                    for a in brd.anchors)
    ids = {p.id: p.marker for p in s.setup.roster.pieces}
    poses = [PiecePose(fid, ids[fid], *map(float, at.board_to_table([brd.areas[z].centre])[0]), 0.0)
             for fid, z in zones.items()]
    return TableReading(cam.pose, (*poses, *also), (), (), markers)


def test_the_battle_board_is_read_on_its_own_and_may_be_moved():
    """Two surfaces (digest §13.3): the map is the table, the battle board lies beside it and is registered from its
    own anchors every frame; its figures stand in the demo battle's zones, and still do once the board is turned
    and pushed aside between frames; a figure off both surfaces is noted, not placed."""
    board = demo_board()
    setup = Setup("by hand", None, board_layout(board), demo_roster("nie", board), "nie", board=board,
                  game=position_from_dict(demo_game(), "the demo"), surfaces=NieLive.surface_boards(board))
    s = Session(setup, settle_s=0.0)
    cam = VirtualCamera.looking_at_table(1400.0, 800.0, (1920, 1080))
    zones = {uid: st["zone"] for uid, st in DEMO_BATTLE["units"].items()}
    paris = PiecePose("fr-inf-1", 30, *point("paris"), 0.0)
    for t, at in enumerate((BoardPose(0.0, 1040.0, 150.0), BoardPose(25.0, 1100.0, 180.0))):
        if t:  # the board turned and pushed aside: its figures go with it, fr-inf-3 steps to the middle
            zones["fr-inf-3"] = "M-centre"
        for dt in (0.0, 0.5):
            s.update_reading(battle_reading(s, cam, at, zones, (paris,)), 10.0 * t + dt, camera=cam.intrinsics)
        pose = s.surface_pose("battle")
        assert pose is not None and abs(pose.rotation_deg - at.rotation_deg) < 0.5
        assert abs(pose.x_mm - at.x_mm) < 1.0 and abs(pose.y_mm - at.y_mm) < 1.0
        battle = s.position.battle
        assert {uid: bu.zone.name(True) for uid, bu in battle.units.items()} == zones
        assert {uid: s.position.unit(uid).at for uid in zones} == dict.fromkeys(zones, "bohemia")
        assert s.live.placements["fr-inf-3"].surface == "battle" and s.live.placements["fr-inf-1"].surface == "map"
        assert s.position.unit("fr-inf-1").at == "paris"
    assert s.live.game.battle.units["fr-inf-3"].zone.name(True) == "A-centre"  # the engine's game is not changed
    off = s.locate(1060.0, 100.0)  # beside the map, off the battle board turned aside
    assert (off.surface, off.area, off.note) == ("", None, "off every surface")
    items = s.picture()
    zone_items = [it for it in items if it.kind == "nie-zone"]
    assert len(zone_items) == 13
    check(items)
    centre = next(it for it in zone_items if it.data == ("M-centre",))
    assert "fr-inf-3" in centre.tip  # drawn through the board's new pose, with the figure now in it


def test_a_figure_on_the_battle_board_without_a_battle_is_not_placed():
    board = demo_board()
    setup = Setup("by hand", None, board_layout(board), demo_roster("nie", board), "nie", board=board,
                  game=position_from_dict(DEMO_GAME, "the demo"), surfaces=NieLive.surface_boards(board))
    s = Session(setup, settle_s=0.0)
    cam = VirtualCamera.looking_at_table(1400.0, 800.0, (1920, 1080))
    for dt in (0.0, 0.5):
        s.update_reading(battle_reading(s, cam, BoardPose(0.0, 1040.0, 150.0), {"fr-inf-3": "A-left"}), dt,
                         camera=cam.intrinsics)
    assert "fr-inf-3" not in s.position.units
    assert "fr-inf-3: on the battle board, but there is no battle - not placed" in s.notes


def _with_spares(roster, *spares):
    """The demo roster and spare figures (id, side, type) on markers of their own (figures in the box, §9.5)."""
    last = max(p.marker for p in roster.pieces)
    extra = tuple(replace(roster.pieces[0], id=pid, side=side, type=typ, marker=last + 1 + k)
                  for k, (pid, side, typ) in enumerate(spares))
    return replace(roster, pieces=roster.pieces + extra)


def test_a_purchase_takes_a_spare_figure_of_the_roster():
    board = demo_board()
    # in France's production turn (§4.1 step 4), each nation's PP totalled already: its `pp` are what it may spend
    nations = ["france", "britain", "austria"]
    game = position_from_dict({**DEMO_GAME, "month": 4, "production": {"nations": nations,
                                                                       "totalled": dict.fromkeys(nations, 0)}},
                              "the demo")
    roster = _with_spares(demo_roster("nie", board), ("fr-box-1", "france", "cavalry"),
                          ("fr-box-2", "france", "infantry"), ("gb-box-1", "britain", "infantry"))
    s = Session(Setup("by hand", None, board_layout(board), roster, "nie", board=board, game=game), settle_s=0.0)
    see(s, 0.0, DEMO)
    out = s.resolve("purchase", "france", "", choices={"buy": "inf:1", "place": "paris"})
    pending = s.apply(out)
    # the bought infantry is the spare French infantry figure (not the cavalry, not Britain's): put it in Paris
    assert [(ch.piece, ch.at) for ch in pending] == [("fr-box-2", "paris")]
    assert any(line.endswith("in paris is figure fr-box-2 (a spare figure of the roster)") for line in s.state.log)
    assert s.position.unit("fr-box-2").at == "paris" and s.position.unit("fr-box-2").type == "inf"
    see(s, 2.0, {**DEMO, "fr-box-2": "paris"})
    assert s.state.pending == {} and s.position.unit("fr-box-2").at == "paris"
    # Britain buys cavalry: its only spare figure is infantry, so none is taken; said, not guessed
    s.next_phase()  # France's production turn ends: Britain's (§4.1)
    before = len(s.state.log)
    s.apply(s.resolve("purchase", "britain", "", choices={"buy": "cav:1", "place": "london"}))
    assert [line for line in s.state.log[before:] if "no spare britain figure in the roster" in line]
    assert "gb-box-1" not in s.state.pending and "gb-box-1" not in s.position.units
