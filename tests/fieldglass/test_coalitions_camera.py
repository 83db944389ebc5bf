"""What the camera reads of a Coalitions table besides the pawns (rules/coalitions/camera.py, issue 13, §13.1):
Garrison/Troop tokens with a marker per face, the Fortress, control markers, the Morale and Influence markers on
their track spaces, the status discs and the Wheel of War's dial. Readings are fed by hand to the generic Session,
and a synthetic board is rendered and read back through the camera pipeline (vision.pieces.read_table)."""

from __future__ import annotations

import tomllib

import pytest

from calibration.registration import TableRegistration
from common.errors import InputError
from fieldglass.boards import board_layout
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, system_meta
from fieldglass.scripted_board import BoardFrame, ScriptedBoardGame
from fieldglass.session import Session
from fieldglass.setup import Setup, demo_roster, load_setup
from rules.board import board_to_toml, parse_board
from rules.coalitions import GAME
from rules.coalitions.board import demo_board, map_point
from rules.coalitions.camera import (
    MarkerReading,
    bearing_on_board,
    marker_kind,
    read_markers,
    track_areas,
    track_point,
    wheel_turn,
)
from rules.coalitions.demo import demo, demo_game, marker_pieces
from rules.coalitions.live import CoalitionsLive, merge_markers, one_face
from rules.coalitions.model import load_europe, position_from_dict
from rules.system import register, unregister
from vision.pieces import PiecePose, TableReading, read_table
from vision.tracking import TrackerConfig

EUROPE = load_europe("demo")
PAWNS = {"gb-1": "london", "gb-2": "cornwall", "fr-1": "normandie_bretagne", "fr-2": "picardie", "fr-3": "lorraine",
         "at-1": "bavaria", "at-2": "tyrol", "pr-1": "berlin", "ru-1": "livonia", "ot-1": "istanbul"}
TOKENS = {f"tk{k}": tid for k, tid in enumerate(sorted(demo_game()["garrisons"]), 1)}
"""The demo's seven tokens -> the Territory each lies on (the 1805 Garrisons, §9.9)."""


@pytest.fixture(autouse=True)
def registered():
    register(GAME)
    yield
    unregister("coalitions")


def make_session() -> Session:
    board = demo_board()
    roster = demo_roster("coalitions", board)
    tokens = {rp.id: rp.id.split("-")[0] for rp in roster.pieces if marker_kind(rp.type) in ("troop", "garrison")}
    setup = Setup("by hand", None, board_layout(board), roster, "coalitions", board=board,
                  game=position_from_dict(demo_game(), "the demo"), extra={"tokens": tokens})
    return Session(setup, settle_s=0.0)


def layout(game: dict, faces: dict[str, str]) -> dict[str, tuple[float, float, float]]:
    """Every pawn where the demo has it and the markers as `game` (position file form: Morale, Influence, statuses,
    Fortresses, the turn) puts them, `faces` each token face on the table -> its Territory: id -> (x, y, heading)."""
    pawns = {p.id: (p.x_mm, p.y_mm, p.heading_deg) for p in demo().pieces if p.id in PAWNS}
    marks = marker_pieces(game, demo_board(), faces, [(x, y) for x, y, _ in pawns.values()])
    return {**pawns, **{p.id: (p.x_mm, p.y_mm, p.heading_deg) for p in marks}}


def see(s: Session, t: float, where: dict[str, tuple[float, float, float]]) -> None:
    markers = {p.id: p.marker for p in s.setup.roster.pieces}
    poses = tuple(PiecePose(pid, markers[pid], x, y, h) for pid, (x, y, h) in where.items())
    for dt in (0.0, 0.5):
        s.update_reading(TableReading(object(), poses, (), ()), t + dt)


def game_with(**changes) -> dict:
    return {**demo_game(), **changes}


GARRISONS = {f"tk{k}-g": tid for k, tid in enumerate(sorted(demo_game()["garrisons"]), 1)}


def test_the_dial_gives_the_action_turn_and_markers_their_kind():
    assert [wheel_turn(60.0 * k)[0] for k in range(6)] == [1, 2, 3, 4, 5, 6]
    assert wheel_turn(355.0)[0] == 1 and wheel_turn(130.0)[0] == 3  # within 15 degrees of a space
    turn, why = wheel_turn(30.0)
    assert turn is None and "between two turns" in why
    # the board turned 90 degrees counter-clockwise on the table: a marker heading 270 on the table points north
    assert bearing_on_board(270.0, 90.0) == 0.0 and bearing_on_board(350.0, 130.0) == 120.0
    assert marker_kind("Status disc") == "status" and marker_kind("dial") == "wheel" and marker_kind("general") is None


def test_the_track_areas_are_apart_from_the_map_and_the_board_file_round_trips():
    board = demo_board()
    assert all(board.areas[a].attribute("apart") for a in track_areas())
    assert board.areas["morale-7"].attribute("value") == 7 and board.areas["influence-25"].attribute("track") \
        == "influence"
    again = parse_board(tomllib.loads(board_to_toml(board)), "written")
    assert again.areas["status-neutral"].attribute("status") == "neutral"


def test_the_demo_table_is_read_back_to_the_set_up():
    s = make_session()
    see(s, 0.0, layout(demo_game(), GARRISONS))
    st, want = s.position.state, demo_game()
    assert {g: st.generals[g].at for g in PAWNS} == PAWNS
    assert st.garrisons == want["garrisons"] and st.fortresses == {"istanbul"}
    assert st.morale == want["morale"] and st.influence == want["influence"] and st.statuses == want["statuses"]
    assert st.turn == 1 and s.notes == []
    text = "\n".join(s.describe_lines())
    assert "the Wheel's dial shows action turn 1" in text and "morale: austria 9" in text
    # what the rules changed and the table does not show yet is drawn where to do it (as a resolution leaves it)
    s.live.expected.update({("garrison", "bavaria"): None, ("garrison", "tyrol"): "austria", ("turn", ""): 2})
    see(s, 2.0, layout(demo_game(), GARRISONS))
    waiting = {it.data[0]: it.tip for it in s.picture() if it.kind == "coalitions-waiting"}
    assert waiting == {"bavaria": "waiting for the map: take the Garrison token off",
                       "tyrol": "waiting for the map: put a austria Garrison token here",
                       "wheel": "waiting for the map: turn the dial to action turn 2"}
    assert s.position.state.turn == 2 and "bavaria" not in s.position.state.garrisons


def test_tracks_statuses_and_the_wheel_set_the_game():
    s = make_session()
    changed = game_with(morale={"britain": 7, "france": 13, "austria": 0, "prussia": 4, "russia": 15, "ottoman": 2},
                        influence={"britain": 21, "france": 3, "austria": 3, "prussia": 0, "russia": 9, "ottoman": 25},
                        statuses={"austria": "french", "prussia": "expansionist", "russia": "neutral",
                                  "ottoman": "british"})
    for k, t in enumerate((1, 4, 6, 2)):
        see(s, 10.0 * k, layout({**changed, "turn": t}, GARRISONS))
        st = s.position.state
        assert st.turn == t and st.morale == changed["morale"] and st.influence == changed["influence"]
        assert st.statuses == changed["statuses"]
    # the turn's actions follow from the dial (§4.2): Britain over Taxation in turn 2
    assert "britain taxation" in s.describe_lines()[0]
    # a dial between two spaces is not guessed: the game's turn (1) stands, with a note
    where = layout(changed, GARRISONS)
    where["dial"] = (*where["dial"][:2], 95.0)
    see(s, 50.0, where)
    assert s.position.state.turn == 1 and any("dial" in n and "between two turns" in n for n in s.notes)


def test_a_token_turned_over_shows_its_other_face():
    s = make_session()
    see(s, 0.0, layout(demo_game(), GARRISONS))
    assert s.position.state.controller("bavaria") == "austria"
    troops = s.position.state.generals["at-1"].troops
    where = layout(demo_game(), GARRISONS)
    where["tk1-t"] = where.pop("tk1-g")  # the Bavarian Garrison turned over: its Troop face up, beside at-1
    see(s, 5.0, where)
    st = s.position.state
    assert "bavaria" not in st.garrisons and st.garrisons["lombardia"] == "france"
    fanned = [n for n in s.notes if n.startswith("at-1:") and "fanned" in n]
    assert bool(fanned) == (troops != 1)  # one Troop fanned beside the pawn, checked against the history (§13.2)
    # and back: the Garrison face seen last wins again
    see(s, 9.0, layout(demo_game(), GARRISONS))
    assert s.position.state.garrisons["bavaria"] == "austria"


def test_markers_where_they_cannot_be_read_are_notes():
    s = make_session()
    where = layout(demo_game(), GARRISONS)
    where["mor-fr"] = where["inf-fr"]  # France's Morale marker on an Influence space
    where["st-ru"] = (*map_point(EUROPE, "paris"), 0.0)  # a status disc on the map
    x, y = map_point(EUROPE, "holland")
    where["tk2-g"] = (x + 18.0, y, 0.0)  # Hellas' Garrison carried to Holland, beside a second one
    where["tk3-g"] = (x - 18.0, y, 0.0)
    see(s, 0.0, where)
    st, notes = s.position.state, " | ".join(s.notes)
    assert st.morale["france"] == 11 and "mor-fr: france's morale marker on influence-0" in notes
    assert st.statuses["russia"] == "british" and "st-ru: russia's status disc on paris" in notes
    assert "a second Garrison on holland" in notes and st.garrisons.get("holland") == "ottoman"
    assert "hellas" not in st.garrisons and "istanbul" not in st.garrisons


def test_the_roster_binds_faces_to_tokens_and_refuses_unknown_markers():
    setup = load_setup("coalitions", "synthetic")
    assert setup.tokens["tk1-g"] == setup.tokens["tk1-t"] == "tk1" and "dial" not in setup.tokens

    class Piece:
        def __init__(self, pid, side, typ):
            self.id, self.side, self.type = pid, side, typ

    class Bad:
        pieces = (Piece("x", "france", "flag"),)

    with pytest.raises(InputError, match="type 'flag' is no General .* nor a marker"):
        CoalitionsLive.setup_roster(GAME.adapter(), Bad, {}, None, "r.toml")
    Bad.pieces = (Piece("m", "martians", "morale"),)
    with pytest.raises(InputError, match="side 'martians' is no Power"):
        CoalitionsLive.setup_roster(GAME.adapter(), Bad, {}, None, "r.toml")
    Bad.pieces = (Piece("d", "", "wheel"), Piece("f", "", "fortress"), Piece("t", "gb", "troop"))
    assert CoalitionsLive.setup_roster(GAME.adapter(), Bad, {"t": {"token": "gb-token"}}, None, "r.toml") == \
        {"tokens": {"t": "gb-token"}}


def test_a_rendered_board_is_read_back_through_the_camera():
    """The acceptance test's first half (issue 13): a synthetic board with the pawns, tokens on both faces, the
    track markers and the Wheel at several rotations, rendered and read by the camera pipeline, is read back to the
    right Territories, faces, track values and wheel assignment."""
    board = demo_board()
    s = make_session()
    changed = game_with(morale={"britain": 8, "france": 14, "austria": 6, "prussia": 1, "russia": 3, "ottoman": 10},
                        influence={"britain": 12, "france": 2, "austria": 0, "prussia": 7, "russia": 19, "ottoman": 4},
                        statuses={"austria": "british", "prussia": "french", "russia": "expansionist",
                                  "ottoman": "neutral"})
    faces = {**GARRISONS, "tk5-t": "livonia"}
    faces.pop("tk5-g")  # Livonia's token lies on its Troop face: a Troop fanned beside ru-1, no Garrison (§13.2)
    script = ScriptedBoardGame(board, {}, s.setup.roster)
    for t in (3, 5):
        where = layout({**changed, "turn": t}, faces)
        script.add(BoardFrame({pid: ("", x, y, h, 0.0) for pid, (x, y, h) in where.items()}, {}))
    cam = script.camera((1920, 1080))
    reg = TableRegistration(board_layout(board), cam.intrinsics)
    want_garrisons = {tid: p for tid, p in demo_game()["garrisons"].items() if tid != "livonia"}
    for i, _t, img in script.render((1920, 1080)):
        s.update_reading(read_table(img, reg, s.setup.roster), 10.0 * i, camera=cam.intrinsics)
        s.update_reading(read_table(img, reg, s.setup.roster), 10.0 * i + 0.5, camera=cam.intrinsics)
        st = s.position.state
        assert {g: st.generals[g].at for g in PAWNS} == PAWNS
        assert st.garrisons == want_garrisons and st.fortresses == {"istanbul"}
        assert st.morale == changed["morale"] and st.influence == changed["influence"]
        assert st.statuses == changed["statuses"] and st.turn == (3, 5)[i]
        assert s.live.markers.faces["tk5"] == "troop" and s.live.markers.faces["tk1"] == "garrison"
        assert not [n for n in s.notes if "not read" in n]


def test_secret_statuses_and_bids_are_seen_only_in_their_powers_view_until_revealed():
    """§13.2: a status chosen (or a bid made) before the reveal is entered in the Power's own view; the others see
    only that it was made; the umpire's view reveals them all with `declare` (or `bid`) from the panel."""
    board = demo_board()
    game = position_from_dict({**demo_game(), "round": 2, "phase": "diplomacy", "minors": {"ottoman": "russia"}},
                              "round 2")
    s = Session(Setup("by hand", None, board_layout(board), demo_roster("coalitions", board), "coalitions",
                      board=board, game=game), settle_s=0.0)
    see(s, 0.0, {pid: xyz for pid, xyz in layout(demo_game(), GARRISONS).items() if pid in PAWNS})
    s.choices = {"status": "french"}
    out = s.resolve("choose", "prussia", "")
    assert "french" not in " ".join(out.lines)  # the lines say a choice was made, not what
    assert s.apply(out) == [] and s.position.state.statuses["prussia"] == "neutral"  # nothing changes yet
    s.choices = {"status": "expansionist", "bid.ottoman": "2"}
    s.apply(s.resolve("choose", "austria", ""))
    with pytest.raises(InputError, match="bid.ottoman=20: austria may bid 0 to its Morale 9"):
        s.choices = {"bid.ottoman": "20"}
        s.resolve("choose", "austria", "")
    with pytest.raises(InputError, match="britain chooses no status"):
        s.choices = {"status": "neutral"}
        s.resolve("choose", "britain", "")

    def secrets() -> dict:
        panel = next(p for p in s.panels() if p.key == "secrets")
        return {r[0]: r[1:] for r in panel.rows}, panel.actions

    s.set_viewer("prussia")
    rows, acts = secrets()
    assert rows["prussia"] == ("french", "-") and rows["austria"] == ("chosen", "ottoman ?") and acts == ()
    s.set_viewer("austria")
    rows, _ = secrets()
    assert rows["prussia"] == ("chosen", "-") and rows["austria"] == ("expansionist", "ottoman 2")
    s.set_viewer("umpire")
    rows, acts = secrets()
    reveal = next(a for a in acts if a.action == "declare")
    assert dict(reveal.choices) == {"status.austria": "expansionist", "status.prussia": "french"}
    s.choices = dict(reveal.choices)
    s.apply(s.resolve("declare", "any", ""))
    st = s.position.state
    assert st.statuses["prussia"] == "french" and st.statuses["austria"] == "expansionist"
    rows, acts = secrets()
    assert rows["prussia"] == ("-", "-") and [a.action for a in acts] == ["bid"]  # the bid waits for its reveal


def test_a_move_seen_before_it_is_resolved_is_proposed_from_two_snapshots():
    """§13.3: the camera sees fr-2 already in Holland; the engine proposes the move from where the game has it
    (a March, §5.3; a Sea Move fits too, so the player may choose), and the chosen proposal resolves it."""
    board = demo_board()
    game = position_from_dict(demo_game(), "demo")
    s = Session(Setup("by hand", None, board_layout(board), demo_roster("coalitions", board), "coalitions",
                      board=board, game=game), settle_s=0.0)
    pawns = {pid: xyz for pid, xyz in layout(demo_game(), GARRISONS).items() if pid in PAWNS}
    see(s, 0.0, pawns)
    s.apply(s.resolve("start_movement", "france", "ottoman"))

    def moves():
        return next(p for p in s.panels() if p.key == "moves")

    assert moves().rows == ()
    see(s, 2.0, {**pawns, "fr-2": (*map_point(EUROPE, "holland"), 0.0), "gb-2": (*map_point(EUROPE, "moskva"), 0.0)})
    rows = {r[0]: r for r in moves().rows}
    assert rows["fr-2"][1:4] == ("picardie", "holland", "march")
    assert "no March, Strategic or Sea Move gets there" in rows["gb-2"][4]
    act = next(a for a in moves().actions if a.attacker == "fr-2" and dict(a.choices)["kind.fr-2"] == "march")
    assert act.allowed and dict(act.choices)["from.fr-2"] == "picardie"
    s.choices = dict(act.choices)
    out = s.resolve(act.action, act.attacker, act.target)
    assert out.lines[0] == "fr-2 (france, 3 Troops) march: picardie -> holland (§5.3)"
    assert s.apply(out) == []  # the map shows it already: nothing pending
    assert set(r[0] for r in moves().rows) == {"gb-2"} and s.position.state.generals["fr-2"].at == "holland"
    # the Troops under a pawn set by hand are checked against the history (§13.2)
    s.set_piece_state("fr-1", "troops", 1)
    assert s.position.state.generals["fr-1"].troops == 1
    assert "fr-1: 1 Troops set by hand, the history of purchases and losses says 3 (§13.2)" in s.notes


class _P:
    """A roster piece as read_markers needs it."""

    def __init__(self, pid: str, side: str = "", typ: str = "board_side"):
        self.id, self.side, self.type = pid, side, typ


class _At:
    def __init__(self, x: float, y: float, heading: float = 0.0):
        self.x_mm, self.y_mm, self.heading_deg = x, y, heading


def test_control_markers_and_fans_are_checked_against_the_rules():
    board = demo_board()
    st = position_from_dict(demo_game(), "demo").draft()
    marks = [(_P("c1"), "control", "france"), (_P("c2"), "control", "austria"), (_P("f1"), "fortress", None),
             (_P("t1"), "troop", "austria"), (_P("t2"), "troop", "austria"), (_P("t3"), "troop", "russia")]
    places = {"c1": _At(*map_point(EUROPE, "bavaria")), "c2": _At(*map_point(EUROPE, "wien")),
              "f1": _At(*track_point("morale", 3, "britain")), "t1": _At(440.0, 426.0), "t2": _At(425.0, 415.0),
              "t3": _At(-50.0, -50.0)}
    reading = read_markers(marks, places, board.locate, board, st.europe.territories)
    assert reading.control == {"bavaria": "france", "wien": "austria"} and reading.fans == {"bavaria": {"austria": 2}}
    assert reading.notes == ["f1: a fortress marker on morale-3, which is no Territory - not read"]  # t3 off board
    notes = merge_markers(st, reading)
    # tokens on the table: the camera has the Garrisons, and it sees none (Bavaria's is not among these markers)
    assert notes[0] == ("control marker on bavaria says france, the rules say nobody (§3.2: the Garrison's Power, "
                        "else the Home's)")
    assert len(notes) == 1  # at-1 commands 2 Troops (§9.9): the two fanned tokens agree with the history


def test_the_board_side_marker_says_which_side_is_up():
    board = demo_board()
    st = position_from_dict(demo_game(), "demo").draft()
    side = _P("side-r", "revolution")
    reading = read_markers([(side, "board_side", None)], {"side-r": _At(-80.0, 20.0)}, board.locate, board,
                           st.europe.territories)
    assert reading.board_side == "revolution" and reading.notes == []
    assert merge_markers(st, reading) == ["the table shows the revolution side of the board, the game is on the "
                                          "empire side (§3.2): start from that side's board and position"]
    with pytest.raises(InputError, match="board_side marker's side is the board side"):
        CoalitionsLive.setup_roster(GAME.adapter(), type("R", (), {"pieces": (_P("s", "france"),)}), {}, None, "r")


def test_what_the_rules_changed_waits_for_the_map_then_the_table_wins_again():
    st = position_from_dict(demo_game(), "demo").draft()
    seen = MarkerReading(kinds={"morale", "garrison"}, tracks={"morale": {"france": 11}},
                         garrisons={"bavaria": "austria"})
    expected = {("morale", "france"): 10, ("garrison", "tyrol"): "austria"}
    notes = merge_markers(st, seen, expected)
    assert st.morale["france"] == 10 and st.garrisons["tyrol"] == "austria"
    assert "waiting for the map: france's morale 10 (the table shows france's morale 11)" in notes
    assert "waiting for the map: austria Garrison on tyrol (the table shows no Garrison on tyrol)" in notes
    st = position_from_dict(demo_game(), "demo").draft()
    seen.tracks["morale"]["france"] = 10
    seen.garrisons["tyrol"] = "austria"
    assert merge_markers(st, seen, expected) == [] and expected == {}  # shown: nothing waits any more
    st = position_from_dict(demo_game(), "demo").draft()
    seen.tracks["morale"]["france"] = 12  # a player's later correction wins
    merge_markers(st, seen, expected)
    assert st.morale["france"] == 12


def test_a_token_shows_the_face_seen_last():
    places = {"a-g": _At(0, 0), "a-t": _At(0, 0), "b-g": _At(0, 0)}
    tokens = {"a-g": "a", "a-t": "a", "b-g": "b"}
    shown, notes = one_face(places, tokens, {"a-g": 1.0, "a-t": 2.0, "b-g": 0.0}.get)
    assert set(shown) == {"a-t", "b-g"} and notes == []
    shown, notes = one_face(places, tokens, lambda pid: 1.0)
    assert set(shown) == {"b-g"} and notes == ["token a: faces a-g, a-t all on the table - not read"]


def test_a_recorded_resolution_does_not_adopt_a_move_not_yet_resolved(tmp_path):
    """In a record too, a pawn seen moved without its move resolved stays where the game has it in the engine
    state a later resolution keeps (§13.3: a move is the game's once confirmed)."""
    s = make_session()
    rec = Record.create(tmp_path / "c.fgr", system_meta("coalitions", None, s.setup.roster, setup=s.setup))
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=0.0))
    markers = {p.id: p.marker for p in s.setup.roster.pieces}
    where = {pid: xyz for pid, xyz in layout(demo_game(), GARRISONS).items() if pid in PAWNS}
    for i, t in enumerate((0.0, 0.5)):
        recorder.feed(TableReading(object(), tuple(PiecePose(p, markers[p], *xyz) for p, xyz in where.items()), (),
                                   ()), t, i)
    where["fr-2"] = (*map_point(EUROPE, "holland"), 0.0)
    for i, t in enumerate((1.0, 1.5)):
        recorder.feed(TableReading(object(), tuple(PiecePose(p, markers[p], *xyz) for p, xyz in where.items()), (),
                                   ()), t, 2 + i)
    ev = recorder.apply({"type": "combat", "action": "taxation", "attacker": "austria"}, 2.0, 4)[0]
    assert {p["id"]: p["area"] for p in ev.data["engine"]["pieces"]}["fr-2"] == "picardie"
    ev = recorder.apply({"type": "combat", "action": "start_movement", "attacker": "france", "target": "ottoman"},
                        2.5, 5)[0]
    ev = recorder.apply({"type": "combat", "action": "move", "attacker": "fr-2", "target": "holland",
                         "choices": {"from.fr-2": "picardie"}}, 3.0, 6)[0]
    assert {p["id"]: p["area"] for p in ev.data["engine"]["pieces"]}["fr-2"] == "holland"  # now resolved
    rec.close()
