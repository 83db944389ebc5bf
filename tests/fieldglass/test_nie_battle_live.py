"""Napoleon in Europe's battle board at the live table (rules/nie/live.py, issue 12): squares read from a figure's
rotation (§13.1, §8.5), zone changes the rules order pending until the figure stands there, a skirmish's merged
zones (§3.3), the hidden set-up behind the screen (§4.2, §13.2), and what the set-up asks (§13.2). Readings are fed by
hand (the battle board's anchors projected through a virtual camera) or, for the demo table, rendered by the
synthetic table and read through the camera pipeline."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import rules.nie.demo as nie_demo
from calibration.board import BoardPose, anchor_corners_mm
from calibration.registration import TableRegistration
from common.errors import InputError
from fieldglass.boards import board_layout
from fieldglass.session import Session
from fieldglass.setup import Setup, demo_roster, load_setup
from rules.nie import GAME
from rules.nie.board import battle_board, demo_board, map_point
from rules.nie.demo import DEMO_BATTLE, DEMO_FIGURES, battle_heading, demo_game
from rules.nie.live import FigureMove, NieLive, nie_position, turned_deg
from rules.nie.model import load_europe, position_from_dict
from rules.nie.options import DEFAULT
from rules.picture import check
from vision.markers import MarkerDetection
from vision.pieces import PiecePose, TableReading, read_table
from vision.synthetic import SyntheticSource, VirtualCamera

EUROPE = load_europe("demo")
ZONES = {uid: st["zone"] for uid, st in DEMO_BATTLE["units"].items()}
SQUARES = {uid: bool(st.get("square")) for uid, st in DEMO_BATTLE["units"].items()}
AT = BoardPose(30.0, 1300.0, 100.0)
"""The battle board lying turned 30 degrees counter-clockwise beside the map."""


def game_with(**battle) -> dict:
    """The demo's game, its battle changed."""
    g = demo_game()
    return {**g, "battle": {**g["battle"], **battle}}


def make_session(game: dict, roster=None) -> Session:
    board = demo_board()
    setup = Setup("by hand", None, board_layout(board), roster or demo_roster("nie", board), "nie", board=board,
                  game=position_from_dict(game, "the game"), surfaces=NieLive.surface_boards(board))
    return Session(setup, settle_s=0.0)


CAM = VirtualCamera.looking_at_table(1700.0, 800.0, (1920, 1080))


def zone_point(zone: str, at: BoardPose = AT, dx: float = 0.0) -> tuple[float, float]:
    bx, by = battle_board().areas[zone].centre
    x, y = at.board_to_table([(bx + dx, by)])[0]
    return float(x), float(y)


def see(s: Session, t: float, figures: dict, at: BoardPose = AT) -> None:
    """Two frames (so the tracker commits them): the battle board's anchors lying at `at` and each figure (id ->
    (zone, heading) on the battle board, or (x, y, heading) in table mm); the map's figures in their areas."""
    brd = battle_board()
    markers = tuple(MarkerDetection(a.id, CAM.project(np.column_stack([at.board_to_table(anchor_corners_mm(a)),
                                                                       np.zeros(4)])))
                    for a in brd.anchors)
    ids = {p.id: p.marker for p in s.setup.roster.pieces}
    poses = [PiecePose(fid, ids[fid], *map_point(EUROPE, area), 0.0) for fid, _, _, area in DEMO_FIGURES
             if fid in ids]
    for fid, where in figures.items():
        x, y, h = (*zone_point(where[0], at), where[1]) if isinstance(where[0], str) else where
        poses.append(PiecePose(fid, ids[fid], float(x), float(y), float(h)))
    for dt in (0.0, 0.5):
        s.update_reading(TableReading(CAM.pose, tuple(poses), (), (), markers), t + dt, camera=CAM.intrinsics)


def facing(zone: str, square: bool = False, at: BoardPose = AT) -> tuple[str, float]:
    return zone, battle_heading(zone, square, at.rotation_deg)


def battle_state(s: Session) -> dict:
    b = s.position.battle
    return {uid: (bu.zone.name(b.major), bu.square) for uid, bu in b.units.items()}


# ---- squares from the marker's rotation (§13.1, §8.5)


def test_turned_from_the_front_on_a_turned_board():
    # a bearing on the board is the table's plus the board's counter-clockwise rotation
    assert turned_deg(330.0, 30.0, "A") == pytest.approx(0.0) and turned_deg(150.0, 30.0, "B") == pytest.approx(0.0)
    assert turned_deg(60.0, 30.0, "A") == pytest.approx(90.0) and turned_deg(0.0, 0.0, "B") == pytest.approx(180.0)
    assert turned_deg(350.0, 0.0, "A") == pytest.approx(10.0)


@pytest.mark.parametrize("battle_at", [None, (300.0, 100.0, 30.0)])
def test_the_demo_table_through_the_camera(monkeypatch, battle_at):
    """The synthetic demo table rendered and read like a camera's frames: every figure in its region, the battle's in
    their zones, the Austrian infantry in square (turned 90 degrees, §8.5) and no other; also with the battle board
    turned 30 degrees (the sign of the board's rotation: the French figures, turned with the board, still face the
    enemy)."""
    if battle_at is not None:
        monkeypatch.setattr(nie_demo, "BATTLE_AT", battle_at)
    setup = load_setup("nie", "synthetic")
    s = setup.make_session()
    src = SyntheticSource(setup.scene, frames=2, resolution=(1920, 1080))
    cam = src.camera.intrinsics
    reg = TableRegistration(setup.layout, cam)
    for i, img in src:
        s.update_reading(read_table(img, reg, setup.roster), float(i), camera=cam)
    assert len(s.reading.pieces) == len(DEMO_FIGURES) + len(ZONES)
    want = {fid: ("port:" + area if typ == "squadron" and area == "london" else area)
            for fid, _, typ, area in DEMO_FIGURES}
    assert {u.id: u.at for u in s.position.units.values()} == {**want, **dict.fromkeys(ZONES, "bohemia")}
    assert battle_state(s) == {uid: (ZONES[uid], SQUARES[uid]) for uid in ZONES}
    assert SQUARES["au-inf-2"] and s.notes == []
    rot = battle_at[2] if battle_at else 0.0
    assert abs(s.surface_pose("battle").rotation_deg - rot) < 0.5
    square = [it for it in s.picture() if it.kind == "nie-zone" and it.data == ("B-centre",)][0]
    assert "au-inf-2 (square)" in square.tip
    assert "bohemia, zone B-centre, square" in "\n".join(s.describe_lines())


def test_only_infantry_on_the_battle_board_forms_square_past_the_threshold():
    s = make_session(demo_game())
    # infantry turned 40 degrees: facing the enemy still; the cavalry turned sideways: rotation means nothing
    see(s, 0.0, {"fr-inf-3": ("A-centre", battle_heading("A-centre", False, 30.0) + 40.0),
                 "fr-cav-2": facing("A-reserve", True), "au-inf-2": facing("B-centre", True),
                 "au-art-1": facing("B-reserve", True)})
    assert battle_state(s) == {"fr-inf-3": ("A-centre", False), "fr-cav-2": ("A-reserve", False),
                               "au-inf-2": ("B-centre", True), "au-art-1": ("B-reserve", False)}
    see(s, 2.0, {"fr-inf-3": ("A-centre", battle_heading("A-centre", False, 30.0) - 50.0),
                 "fr-cav-2": facing("A-reserve"), "au-inf-2": facing("B-centre", True),
                 "au-art-1": facing("B-reserve")})
    assert battle_state(s)["fr-inf-3"] == ("A-centre", True)  # the camera's reading wins (§13.1)
    # the threshold is an option
    strict = make_session(demo_game())
    strict.system = GAME.adapter(dataclasses.replace(DEFAULT, square_turn_deg=60))
    see(strict, 0.0, {"fr-inf-3": ("A-centre", battle_heading("A-centre", False, 30.0) - 50.0),
                      "fr-cav-2": facing("A-reserve"), "au-inf-2": facing("B-centre", True),
                      "au-art-1": facing("B-reserve")})
    assert battle_state(strict)["fr-inf-3"] == ("A-centre", False)
    # a record's place without a heading leaves the formation as the game has it
    game = position_from_dict(demo_game(), "the demo")
    places = {uid: type("P", (), {"x_mm": zone_point(z)[0], "y_mm": zone_point(z)[1], "heading_deg": None})()
              for uid, z in ZONES.items()}
    pos, _, _ = nie_position(places, s.roster, s.system, s.state, game, s.locate, s.surface_pose)
    assert {uid: bu.square for uid, bu in pos.battle.units.items()} == SQUARES


# ---- zone changes and formations the rules order wait for the figure


def test_a_zone_change_the_rules_order_waits_until_the_camera_sees_it():
    s = make_session(demo_game())
    there = {uid: facing(z, SQUARES[uid]) for uid, z in ZONES.items()}
    see(s, 0.0, there)
    out = s.apply(s.resolve("move", "fr-inf-3", "M-centre"))
    assert [(type(ch), ch.piece, ch.at, ch.zone, ch.moved, ch.turned) for ch in out] == [
        (FigureMove, "fr-inf-3", "bohemia", "M-centre", True, False)]
    assert out[0].describe() == "move fr-inf-3 to zone M-centre"
    see(s, 2.0, there)  # not moved yet: the rules' word meanwhile
    assert battle_state(s)["fr-inf-3"] == ("M-centre", False) and s.state.pending.keys() == {"fr-inf-3"}
    ghost = [it for it in s.picture() if it.kind == "pending-label"]
    assert [it.text for it in ghost] == ["→ move fr-inf-3 to zone M-centre"]
    assert np.hypot(*(np.array(ghost[0].at) - zone_point("M-centre"))) < 1.0
    see(s, 4.0, {**there, "fr-inf-3": facing("M-centre")})
    assert s.state.pending == {} and battle_state(s)["fr-inf-3"] == ("M-centre", False)
    assert s.state.log[-1].endswith("the table matches: move fr-inf-3 to zone M-centre done")


def test_leaving_square_waits_until_the_figure_faces_the_enemy():
    s = make_session(game_with(acting="B"))
    there = {uid: facing(z, SQUARES[uid]) for uid, z in ZONES.items()}
    see(s, 0.0, there)
    out = s.apply(s.resolve("leave_square", "au-inf-2", None))
    assert [(ch.zone, ch.square, ch.moved, ch.turned) for ch in out] == [("B-centre", False, False, True)]
    assert out[0].describe() == "turn au-inf-2 to face the enemy (out of square)"
    see(s, 2.0, there)  # still turned sideways: the rules' word (out of square) until it is turned back
    assert battle_state(s)["au-inf-2"] == ("B-centre", False) and "au-inf-2" in s.state.pending
    see(s, 4.0, {**there, "au-inf-2": facing("B-centre")})
    assert s.state.pending == {} and battle_state(s)["au-inf-2"] == ("B-centre", False)
    describe = FigureMove("x", at="r", zone="A-rout", square=False, moved=True, turned=True).describe()
    assert describe == "move x to zone A-rout, facing the enemy (out of square)"


def test_a_map_move_is_not_done_on_the_battle_board():
    s = make_session(demo_game())
    see(s, 0.0, {uid: facing(z, SQUARES[uid]) for uid, z in ZONES.items()})
    pose = type("P", (), {"x_mm": zone_point("A-left")[0], "y_mm": zone_point("A-left")[1], "heading_deg": 0.0})()
    assert not s.live.placed_as(s, pose, FigureMove("fr-inf-3", at="A-left"))
    assert s.live.placed_as(s, pose, FigureMove("fr-inf-3", at="bohemia", zone="A-left", square=False, moved=True))


# ---- a skirmish: each row one zone (§3.3)


def skirmish() -> dict:
    return game_with(major=False, units={"fr-inf-3": {"zone": "A-line"}, "fr-cav-2": {"zone": "A-reserve"},
                                         "au-inf-2": {"zone": "B-line"}, "au-art-1": {"zone": "B-reserve"}})


def test_a_skirmish_reads_each_row_as_one_zone():
    s = make_session(skirmish())
    border = tuple(AT.board_to_table([(120.0, 190.0)])[0])  # between A-left and A-centre: inside A-line
    see(s, 0.0, {"fr-inf-3": (*border, battle_heading("A-left", False, 30.0)), "fr-cav-2": facing("A-reserve"),
                 "au-inf-2": facing("B-right"), "au-art-1": facing("B-reserve")})
    assert battle_state(s) == {"fr-inf-3": ("A-line", False), "fr-cav-2": ("A-reserve", False),
                               "au-inf-2": ("B-line", False), "au-art-1": ("B-reserve", False)}
    assert s.notes == []
    items = s.picture()
    check(items)
    zones = {it.data[0]: it for it in items if it.kind == "nie-zone"}
    assert set(zones) == {"A-rout", "A-reserve", "A-line", "M", "B-line", "B-reserve", "B-rout"}
    assert {it.text for it in items if it.kind == "nie-zone-name"} == set(zones)
    assert "skirmish in bohemia" in zones["A-line"].tip and "fr-inf-3" in zones["A-line"].tip
    # the merged row spans the three zones of the board
    xs = [p[0] for p in AT.table_to_board(np.asarray(zones["M"].polygons[0], float))]
    assert min(xs) == pytest.approx(40.0, abs=0.01) and max(xs) == pytest.approx(280.0, abs=0.01)
    # in a major battle the same point is on a border, asked, not guessed
    major = make_session(demo_game())
    see(major, 0.0, {"fr-inf-3": (*border, 0.0), "fr-cav-2": facing("A-reserve"), "au-inf-2": facing("B-centre"),
                     "au-art-1": facing("B-reserve")})
    assert any(n.startswith("fr-inf-3: on the battle board, on the border") for n in major.notes)


# ---- the hidden set-up behind the screen (§4.2, §13.2)


def test_each_side_sets_up_behind_the_screen_and_confirms():
    s = make_session(game_with(major=False, phase="setup", deployed=[], units={}))
    setup = {"fr-inf-3": facing("A-centre"), "fr-cav-2": facing("A-reserve"), "au-inf-2": facing("B-centre"),
             "au-art-1": facing("B-reserve")}
    see(s, 0.0, setup)
    assert battle_state(s) == {"fr-inf-3": ("A-line", False), "fr-cav-2": ("A-reserve", False),
                               "au-inf-2": ("B-line", False), "au-art-1": ("B-reserve", False)}
    assert {v.piece.id for v in s.piece_views()} >= set(ZONES)  # the umpire sees all

    def shown(viewer: str) -> tuple[set, str, str]:
        s.set_viewer(viewer)
        views = {v.piece.id for v in s.piece_views()}
        tips = " ".join(it.tip for it in s.picture() if it.kind == "nie-zone")
        return views, "\n".join(s.describe_lines()), tips

    views, text, tips = shown("austria")
    assert not views & {"fr-inf-3", "fr-cav-2"} and {"au-inf-2", "au-art-1"} <= views
    assert "fr-inf-3" not in text and "fr-cav-2" not in text and "behind the screen (§4.2): 2 figure(s)" in text
    assert "fr-" not in tips and "au-inf-2" in tips
    assert not any(it.piece == "fr-inf-3" for it in s.picture())
    assert s.visible_id("fr-inf-3") in {"A-hidden-1", "A-hidden-2"} and s.piece_id(s.visible_id("fr-inf-3")) == \
        "fr-inf-3"
    views, text, tips = shown("france")
    assert not views & {"au-inf-2", "au-art-1"} and "au-" not in tips and "fr-inf-3" in tips
    # each side confirms with the engine's deploy: the zones the camera sees
    s.set_viewer("umpire")
    s.apply(s.resolve("deploy", "fr-inf-3", None))
    assert s.live.game.battle.deployed == ["A"] and s.live.game.battle.phase == "setup"
    assert not shown("austria")[0] & {"fr-inf-3", "fr-cav-2"}  # still behind the screen until both are done
    s.set_viewer("umpire")
    with pytest.raises(InputError, match="side A has already deployed"):
        s.resolve("deploy", "fr-cav-2", None)
    s.apply(s.resolve("deploy", "au-inf-2", None))
    assert s.live.game.battle.phase == "cavalry" and s.state.pending == {}
    views, text, tips = shown("austria")
    assert set(ZONES) <= views and "fr-inf-3" in tips and "behind the screen" not in text


def test_a_side_set_up_wrongly_is_refused_in_one_line():
    s = make_session(game_with(major=False, phase="setup", deployed=[], units={}))
    see(s, 0.0, {"fr-inf-3": facing("A-reserve"), "fr-cav-2": facing("A-reserve"), "au-inf-2": facing("B-centre"),
                 "au-art-1": facing("B-reserve")})
    with pytest.raises(InputError, match=r"deploy: A-line needs at least one unit \(§4.2\)"):
        s.resolve("deploy", "fr-inf-3", None)


# ---- what the set-up asks (§13.2)


def test_the_set_up_asks_what_the_camera_cannot_see():
    board = demo_board()
    roster = demo_roster("nie", board)
    changed = {"fr-inf-1": {"type": "?"}, "au-cav-1": {"side": "russia"}, "gb-inf-1": {"side": "lightblue"}}
    roster = dataclasses.replace(roster, pieces=tuple(dataclasses.replace(p, **changed.get(p.id, {}))
                                                      for p in roster.pieces))
    assert NieLive.setup_roster(GAME.adapter(), roster, {}, None, "r.toml") == {}
    s = make_session(demo_game(), roster)
    see(s, 0.0, {uid: facing(z, SQUARES[uid]) for uid, z in ZONES.items()})
    for fid in changed:
        assert fid not in s.position.units
    notes = "\n".join(s.notes)
    assert "fr-inf-1: asked at set-up (§13.2): its roster type '?' names no unit kind; set its type" in notes
    assert "au-cav-1: asked at set-up (§13.2): plain cavalry of russia may be irregular cavalry" in notes
    assert "gb-inf-1: asked at set-up (§13.2): a light-blue figure" in notes
    assert "fr-cav-1" in s.position.units and s.position.unit("fr-cav-1").type == "cav"  # France has no irregulars
    s.set_piece_state("fr-inf-1", "type", "elite")
    s.set_piece_state("au-cav-1", "type", "irregular cavalry")
    s.set_piece_state("gb-inf-1", "nation", "minor")
    got = {fid: (s.position.unit(fid).nation, s.position.unit(fid).type) for fid in changed}
    assert got == {"fr-inf-1": ("france", "elite"), "au-cav-1": ("russia", "icav"), "gb-inf-1": ("minor", "inf")}
    with pytest.raises(InputError, match="nation 'martians'"):
        s.set_piece_state("gb-inf-1", "nation", "martians")
    with pytest.raises(InputError, match="side 'martians' is no Great Nation"):
        bad = dataclasses.replace(roster, pieces=(dataclasses.replace(roster.pieces[0], side="martians"),))
        NieLive.setup_roster(GAME.adapter(), bad, {}, None, "r.toml")


def test_when_the_battle_is_over_its_figures_go_back_onto_the_map():
    s = make_session(game_with(phase="pursuit", loser="B", end_reason="the defender's line is broken"))
    see(s, 0.0, {uid: facing(z, SQUARES[uid]) for uid, z in ZONES.items()})
    out = s.apply(s.resolve("end_battle", "fr-inf-3", None, choices={"retreat.*": "vienna"}))
    assert {ch.piece: (ch.at, ch.zone) for ch in out} == {"fr-inf-3": ("bohemia", None), "fr-cav-2": ("bohemia", None),
                                                          "au-inf-2": ("vienna", None), "au-art-1": ("vienna", None)}
    assert s.position.battle.phase == "over" and s.position.unit("fr-inf-3").at == "bohemia"
    see(s, 2.0, {})  # the figures taken off the battle board and put on the map
    poses = {"fr-inf-3": "bohemia", "fr-cav-2": "bohemia", "au-inf-2": "vienna", "au-art-1": "vienna"}
    ids = {p.id: p.marker for p in s.setup.roster.pieces}
    markers = tuple(MarkerDetection(a.id, CAM.project(np.column_stack([AT.board_to_table(anchor_corners_mm(a)),
                                                                       np.zeros(4)])))
                    for a in battle_board().anchors)
    for dt in (4.0, 4.5):
        pp = [PiecePose(fid, ids[fid], *map_point(EUROPE, area), 0.0) for fid, _, _, area in DEMO_FIGURES]
        pp += [PiecePose(fid, ids[fid], map_point(EUROPE, area)[0] + 8.0 * (k % 2), map_point(EUROPE, area)[1]
                         + 8.0 * (1 - k % 2), 0.0) for k, (fid, area) in enumerate(poses.items())]
        s.update_reading(TableReading(CAM.pose, tuple(pp), (), (), markers), dt, camera=CAM.intrinsics)
    assert s.state.pending == {} and {fid: s.position.unit(fid).at for fid in poses} == poses


# ---- who may fire or charge at whom, drawn on the battle board (§8.3, §8.4)


def test_the_battle_board_draws_who_may_fire_or_charge_at_whom():
    s = make_session(game_with(phase="infantry", acting="A"))
    see(s, 0.0, {"fr-inf-3": facing("A-centre"), "fr-cav-2": facing("A-reserve"),
                 "au-inf-2": facing("M-centre"), "au-art-1": facing("B-reserve")})
    assert s.position.battle.units["au-inf-2"].zone.name(True) == "M-centre"
    rows = {r.target: r for r in s.system.targets(s.position, "fr-inf-3")}
    lines = [it for it in s.picture() if it.kind in ("nie-fire", "nie-charge")]
    drawn = {(it.piece, it.data[0], it.kind) for it in lines}
    want = {("fr-inf-3", t, kind) for t, r in rows.items() for kind, ok in (("nie-fire", r.fire),
                                                                               ("nie-charge", r.melee)) if ok}
    assert ("fr-inf-3", "au-inf-2", "nie-fire") in want and drawn == want  # the acting side's attacks, no other
    fire = next(it for it in lines if it.kind == "nie-fire")
    assert fire.tip == f"fr-inf-3 may fire at au-inf-2 (needs {rows['au-inf-2'].fire_net})"
    # the French line at the Austrian in the middle zone: the line runs from A-centre toward M-centre (+y on the board)
    (x0, y0), (x1, y1) = fire.paths[0]
    (ax, ay), (mx, my) = zone_point("A-centre"), zone_point("M-centre")
    assert np.hypot(x1 - x0, y1 - y0) > 0.8 * np.hypot(mx - ax, my - ay)
    assert (x1 - x0) * (mx - ax) + (y1 - y0) * (my - ay) > 0
    # the other side acts: now its attacks are drawn; nothing is drawn for a figure out of reach
    s2 = make_session(game_with(phase="infantry", acting="B"))
    see(s2, 0.0, {"fr-inf-3": facing("A-centre"), "fr-cav-2": facing("A-reserve"),
                  "au-inf-2": facing("M-centre"), "au-art-1": facing("B-reserve")})
    allowed = {(uid, r.target) for uid in ("au-inf-2", "au-art-1") for r in s2.system.targets(s2.position, uid)
               if r.fire or r.melee}
    assert allowed and {(it.piece, it.data[0]) for it in s2.picture() if it.kind in ("nie-fire", "nie-charge")} \
        == allowed
    # during the set-up nothing is drawn (§4.2)
    s3 = make_session(game_with(phase="setup"))
    see(s3, 0.0, {"fr-inf-3": facing("A-centre"), "au-inf-2": facing("M-centre")})
    assert not [it for it in s3.picture() if it.kind in ("nie-fire", "nie-charge")]
