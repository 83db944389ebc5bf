"""Napoleon in Europe's record on both surfaces: the recorder registers the battle board from its own anchors and
records its pose when it is first found and when it moves (fieldglass/surfaces.py), the replay locates each figure
with the pose recorded at that moment, an undo passes over a pose, and the demo table's record reads the demo
battle's figures back into their zones. (The scripted campaign filmed end to end: test_nie_campaign.py.)"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.board import BoardPose, anchor_corners_mm
from common.errors import InputError
from fieldglass.boards import board_layout
from fieldglass.cli import main as cli_main
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, system_meta
from fieldglass.replay_session import ReplaySession
from fieldglass.setup import Setup, demo_roster
from fieldglass.surfaces import MOVED_MM, TURNED_DEG, locate, pose_data, pose_moved, recorded_poses
from rules import system as rules_system
from rules.nie import GAME
from rules.nie.board import battle_board, demo_board, map_point, skirmish_zone
from rules.nie.demo import DEMO_BATTLE, demo_game
from rules.nie.live import NieLive
from rules.nie.model import load_europe, position_from_dict
from vision.markers import MarkerDetection
from vision.pieces import PiecePose, TableReading
from vision.synthetic import VirtualCamera
from vision.tracking import TrackerConfig

ZONES = {uid: st["zone"] for uid, st in DEMO_BATTLE["units"].items()}
FIRST, BUMPED = BoardPose(0.0, 1040.0, 150.0), BoardPose(25.0, 1100.0, 180.0)


@pytest.fixture(autouse=True)
def nie_registered():
    rules_system.register(GAME)


def test_a_pose_is_recorded_when_first_found_and_when_moved_beyond_the_threshold():
    assert pose_moved(None, FIRST) and not pose_moved(FIRST, None)
    assert not pose_moved(FIRST, BoardPose(TURNED_DEG * 0.8, 1040.0 + MOVED_MM * 0.7, 150.0))
    assert pose_moved(FIRST, BoardPose(0.0, 1040.0, 150.0 + MOVED_MM * 1.5))
    assert pose_moved(FIRST, BoardPose(TURNED_DEG * 1.5, 1040.0, 150.0))
    assert not pose_moved(BoardPose(359.9, 0.0, 0.0), BoardPose(0.1, 0.0, 0.0))  # across north: 0.2 degrees


class Ev:
    def __init__(self, kind, data, undone=False):
        self.type, self.data, self.undone = kind, data, undone


def test_the_recorded_pose_is_the_last_standing_one():
    evs = [Ev("surface", pose_data("battle", FIRST)), Ev("note", {}), Ev("surface", pose_data("battle", BUMPED)),
           Ev("surface", pose_data("battle", BoardPose(90.0, 0.0, 0.0)), undone=True),
           Ev("surface", {"surface": "battle", "x_mm": "?"})]  # a damaged one: the last good pose stays
    pose = recorded_poses(evs)["battle"]
    assert (pose.rotation_deg, pose.x_mm, pose.y_mm) == (25.0, 1100.0, 180.0)
    assert recorded_poses(evs[:2])["battle"].x_mm == 1040.0 and recorded_poses(evs[1:2]) == {}


def test_a_point_is_located_on_the_surface_that_holds_it():
    brd, main = battle_board(), demo_board()
    boards = {"battle": brd}
    x, y = (float(v) for v in BUMPED.board_to_table([brd.areas["B-centre"].centre])[0])
    pl = locate(x, y, main, (x, y), "map", boards, {"battle": BUMPED}.get)
    assert (pl.surface, pl.area) == ("battle", "B-centre")
    pl = locate(x, y, main, (x, y), "map", boards, {"battle": FIRST}.get)  # the pose of another moment: another zone
    assert (pl.surface, pl.area) == ("battle", "B-reserve")
    pl = locate(1380.0, 100.0, main, (1380.0, 100.0), "map", boards, {"battle": FIRST}.get)
    assert (pl.surface, pl.area, pl.note) == ("", None, "off every surface")
    pl = locate(400.0, 300.0, main, (400.0, 300.0), "map", boards, {}.get)
    assert pl.surface == "map" and pl.area == main.locate(400.0, 300.0).area


def reading(cam, at: BoardPose, markers: dict[str, int]) -> TableReading:
    """One frame: the battle board's anchors lying at `at` (their corners as `cam` sees them) and the demo battle's
    figures at their zones' centres on it."""
    brd = battle_board()
    anchors = tuple(MarkerDetection(a.id, cam.project(np.column_stack([at.board_to_table(anchor_corners_mm(a)),
                                                                       np.zeros(4)])))
                    for a in brd.anchors)
    poses = tuple(PiecePose(fid, markers[fid], *map(float, at.board_to_table([brd.areas[z].centre])[0]), 0.0)
                  for fid, z in ZONES.items())
    return TableReading(cam.pose, poses, (), (), anchors)


def test_a_bumped_battle_board_is_recorded_again_and_the_replay_places_each_moment_with_its_pose(tmp_path):
    board = demo_board()
    setup = Setup("by hand", None, board_layout(board), demo_roster("nie", board), "nie", board=board,
                  game=position_from_dict(demo_game(), "the demo"), surfaces=NieLive.surface_boards(board))
    path = tmp_path / "bumped.fgr"
    rec = Record.create(path, system_meta("nie", None, setup.roster, setup=setup))
    cam = VirtualCamera.looking_at_table(1400.0, 800.0, (1920, 1080))
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=0.0), camera=cam.intrinsics)
    markers = {p.id: p.marker for p in setup.roster.pieces}
    shaken = BoardPose(0.3, 1040.8, 150.5)  # nudged less than the threshold: no new pose
    for i, at in enumerate((FIRST, FIRST, shaken, shaken, BUMPED, BUMPED)):
        recorder.feed(reading(cam, at, markers), 0.5 * i, i)
    events = rec.events()
    poses = [e for e in events if e.type == "surface"]
    assert [(e.frame, e.data["surface"]) for e in poses] == [(0, "battle"), (4, "battle")]
    assert abs(poses[1].data["rotation_deg"] - 25.0) < 0.3 and abs(poses[1].data["x_mm"] - 1100.0) < 1.0
    bump = events.index(poses[1])
    assert all(e.type == "move" and e.data["surface"] == "battle" for e in events[bump + 1:])  # its figures with it
    assert {e.piece: e.data["area"] for e in events if e.type == "appeared"} == ZONES
    assert {e.piece: e.data["area"] for e in events[bump + 1:]} == ZONES
    rec.close()
    with Record.open(path) as r:
        rs = ReplaySession(r)
        assert rs.surface_pose("battle") is None  # at the start: no pose recorded yet
        for index, pose in ((bump, FIRST), (len(rs), BUMPED), (bump, FIRST)):  # before the bump, the end, back
            rs.seek(index)
            assert abs(rs.surface_pose("battle").rotation_deg - pose.rotation_deg) < 0.3
            battle = rs.position.battle
            assert {uid: bu.zone.name(True) for uid, bu in battle.units.items()} == ZONES, index
            assert not rs.problems and rs.game.notes == []
    with Record.open(path, writable=True) as r:
        undone = r.undo(1)  # a player's undo takes back a move, never what the camera saw of the board
        assert undone[0].type == "move" and not r.events()[bump].undone


def test_the_demo_table_s_record_reads_the_battle_into_its_zones(tmp_path):
    out = tmp_path / "demo.fgr"
    assert cli_main(["record", "--system", "nie", "--source", "synthetic", "--frames", "10", "--settle", "0.5",
                     "--out", str(out)]) == 0
    with Record.open(out) as r:
        events = r.events()
        assert [e.type for e in events].count("surface") == 1  # found once; the camera's noise is no move
        seen = {e.piece: (e.data.get("surface"), e.data.get("area")) for e in events if e.type == "appeared"}
        assert {pid: seen[pid] for pid in ZONES} == {pid: ("battle", z) for pid, z in ZONES.items()}
        rs = ReplaySession(r)
        rs.to_end()
        assert {uid: bu.zone.name(True) for uid, bu in rs.position.battle.units.items()} == ZONES
        assert rs.surface_to_table("battle") is not None and not rs.problems


def test_the_replay_hides_each_side_s_set_up_from_the_other(tmp_path):
    """§4.2: while the battle (a skirmish: four figures fill its lines) is set up behind the screen, the replay's
    nation view shows its own side's figures on the battle board and not the other's, the public view neither, the
    umpire both; once `deploy` removed the screen (both sides set up), everyone sees every figure."""
    board = demo_board()
    game = demo_game()
    game = {**game, "battle": {**game["battle"], "phase": "setup", "deployed": [], "major": False,
                               "units": {uid: {"zone": skirmish_zone(z)} for uid, z in ZONES.items()}}}
    setup = Setup("by hand", None, board_layout(board), demo_roster("nie", board), "nie", board=board,
                  game=position_from_dict(game, "the demo in its set-up"), surfaces=NieLive.surface_boards(board))
    path = tmp_path / "setup.fgr"
    rec = Record.create(path, system_meta("nie", None, setup.roster, setup=setup))
    cam = VirtualCamera.looking_at_table(1400.0, 800.0, (1920, 1080))
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=0.0), camera=cam.intrinsics)
    markers = {p.id: p.marker for p in setup.roster.pieces}
    for i in range(3):
        recorder.feed(reading(cam, FIRST, markers), 0.5 * i, i)
    recorder.apply({"type": "combat", "action": "deploy", "attacker": "any", "target": "",
                    "choices": {f"zone.{uid}": skirmish_zone(z) for uid, z in ZONES.items()}}, 1.5, 3)
    recorder.feed(reading(cam, FIRST, markers), 2.0, 4)
    rec.close()
    french = {uid for uid in ZONES if uid.startswith("fr-")}
    with Record.open(path) as r:
        rs = ReplaySession(r)
        deploy = next(i for i, e in enumerate(rs.timeline) if e.type == "combat")
        rs.seek(deploy)  # the set-up: both sides' figures on the battle board, the screen up
        assert rs.position.battle.phase == "setup"

        def shown(viewer):
            rs.set_viewer(viewer)
            return {v.piece.id for v in rs.piece_views()} & set(ZONES)

        assert shown("umpire") == set(ZONES)
        assert shown("france") == french and shown("austria") == set(ZONES) - french
        assert shown("public") == set()
        assert set(rs.hidden_at()) == set(ZONES)  # the public: no figure of the battle is named
        rs.set_viewer("austria")
        assert set(rs.hidden_at()) == french  # austria's view: the French figures' names are withheld too
        rs.to_end()  # the screen removed
        assert rs.position.battle.phase != "setup"
        assert shown("austria") == set(ZONES) and shown("public") == set(ZONES) and rs.hidden_at() == []


def test_a_type_asked_at_set_up_is_recorded_and_replayed(tmp_path):
    """§13.2: a Russian `cavalry` may be irregular cavalry (its marker under the figure): the set-up asks, the player
    binds it (a `state` input, as the game panel sets it) and the record keeps it: the replay places the figure
    with that type only from then on."""
    board = demo_board()
    roster = demo_roster("nie", board)
    ru = replace(roster.pieces[0], id="ru-cav-9", side="russia", type="cavalry",
                 marker=max(p.marker for p in roster.pieces) + 1)
    roster = replace(roster, pieces=(*roster.pieces, ru))
    setup = Setup("by hand", None, board_layout(board), roster, "nie", board=board,
                  game=position_from_dict({**demo_game(), "battle": None, "units": []}, "the demo"))
    path = tmp_path / "asked.fgr"
    rec = Record.create(path, system_meta("nie", None, setup.roster, setup=setup))
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=0.0))
    x, y = map_point(load_europe("demo"), "moscow")
    seen = TableReading(object(), (PiecePose("ru-cav-9", ru.marker, x, y, 0.0),), (), ())
    for i in range(2):
        recorder.feed(seen, 0.5 * i, i)
    with pytest.raises(InputError, match="no piece 'ru-cav-99' in the roster"):
        recorder.apply({"type": "state", "piece": "ru-cav-99", "key": "type", "value": "icav"}, 1.0, 2)
    with pytest.raises(InputError, match="has no formation"):
        recorder.apply({"type": "state", "piece": "ru-cav-9", "key": "formation", "value": "square"}, 1.0, 2)
    recorder.apply({"type": "state", "piece": "ru-cav-9", "key": "type", "value": "irregular cavalry"}, 1.0, 2)
    recorder.feed(seen, 1.5, 3)
    rec.close()
    with Record.open(path) as r:
        bound = [e for e in r.events() if e.type == "piece_state"]
        assert [(e.piece, e.data) for e in bound] == [("ru-cav-9", {"key": "type", "value": "icav"})]
        rs = ReplaySession(r)
        rs.seek(rs.index_of(bound[0].seq))  # before it is bound: asked, not placed
        assert "ru-cav-9" not in rs.position.units
        assert any("ru-cav-9" in n and "asked at set-up" in n for n in rs.game.notes)
        rs.to_end()
        assert rs.position.units["ru-cav-9"].type == "icav" and rs.position.units["ru-cav-9"].at == "moscow"
