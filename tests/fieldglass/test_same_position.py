"""The same places on the table give the same rules position live (the dashboard's session), in the recorder and
in the replay, for every system: each places pieces with the system's one function (rules/wiener/live.py
`grid_position`, rules/marengo/live.py `marengo_position`, rules/dbx/live.py `dbx_position`).

The camera is replaced by readings of the true places, given again and again until every piece has settled."""

from __future__ import annotations

import dataclasses

import numpy as np

from calibration.camera import CameraPose
from fieldglass.boards import block_point
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, record_meta, system_meta
from fieldglass.replay_session import ReplaySession
from fieldglass.session import Session
from fieldglass.setup import load_setup
from rules.dbx.demo import DEMO_GAME
from rules.marengo.demo import DEMO_BLOCKS
from vision.pieces import PiecePose, TableReading
from vision.roster import Piece, Roster
from vision.tracking import TrackerConfig

POSE = CameraPose(np.zeros(3), np.array([0.0, 0.0, 1000.0]), 0.1, (0, 1))
TIMES = [k * 0.2 for k in range(16)]  # 3 s: every piece seen, settled and committed

# roster words the dashboard's and the recorder's maps used to read differently (rules/wiener/roster.py)
WIENER_WORDS = {"Infantry": "infantry", "Hussars": "light_cavalry", "lancers": "light_cavalry",
                "dragoons": "light_cavalry", "cuirassiers": "heavy_cavalry", "battery": "artillery",
                "horse artillery": "horse_artillery", "engineers": "pioneers", "commander": "general"}


def reading(poses) -> TableReading:
    return TableReading(POSE, tuple(poses), (), ())


def replayed(path):
    replay = ReplaySession(Record.open(path))
    pos = replay.position_at(len(replay))
    assert not replay.problems, replay.problems
    return pos


def test_wiener_session_recorder_and_replay_agree(tmp_path):
    base = load_setup("wiener", "synthetic")
    grid = base.layout.grid
    pieces = tuple(Piece(f"p{k}", 100 + k, "FR" if k % 2 else "AU", word, (40.0, 30.0), 20.0, 10.0)
                   for k, word in enumerate(WIENER_WORDS))
    roster = Roster(base.roster.dictionary, pieces)
    setup = dataclasses.replace(base, roster=roster, ground=None, terrain=())  # no terrain: a record keeps none
    poses = []
    for k, rp in enumerate(roster.pieces):
        x, y = grid.field_centre(2 + 3 * k, 3 + k % 4)
        facing, heading = ("N", 0.0) if rp.side == "AU" else ("SE", 135.0)
        poses.append(PiecePose(rp.id, rp.marker, x, y, heading, facing, 0.0, grid.name_at(x, y), 30.0))

    session = Session(setup, settle_s=1.0)
    path = tmp_path / "wiener.fgr"
    rec = Record.create(path, record_meta("wiener", setup.layout, roster))
    recorder = GameRecorder.start(rec, roster, TrackerConfig(settle_s=1.0))
    for i, t in enumerate(TIMES):
        session.update_reading(reading(poses), t=t)
        recorder.feed(reading(poses), t, i)
    # what the camera cannot see, given to both: markers and a formation
    session.set_piece_state("p0", "markers", "red")
    session.set_piece_state("p0", "formation", "column")
    recorder.apply({"type": "marker", "piece": "p0", "markers": ["red"]}, TIMES[-1], len(TIMES))
    recorder.apply({"type": "formation", "piece": "p0", "formation": "column"}, TIMES[-1], len(TIMES))
    rec.close()

    live = session.position
    assert {p.id: p.type for p in live.pieces} == {f"p{k}": kind for k, kind in enumerate(WIENER_WORDS.values())}
    assert live.by_id["p0"].markers == ("red",) and live.by_id["p0"].formation == "column"
    with Record.open(path) as rec:
        assert GameRecorder.start(rec, roster).position() == live
    assert replayed(path) == live


def test_marengo_session_recorder_and_replay_agree(tmp_path):
    setup = load_setup("marengo", "synthetic")
    board = setup.board
    markers = {p.id: p.marker for p in setup.roster.pieces}
    poses = [PiecePose(bid, markers[bid], *block_point(board, area, pos), 0.0)
             for bid, _, _, _, _, area, pos in DEMO_BLOCKS]

    session = Session(setup, settle_s=1.0)
    path = tmp_path / "marengo.fgr"
    rec = Record.create(path, system_meta("marengo", None, setup.roster, setup=setup))
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=1.0))
    for i, t in enumerate(TIMES):
        session.update_reading(reading(poses), t=t)
        recorder.feed(reading(poses), t, i)
    live = session.position
    assert {b.id: b.area for b in live.blocks} == {b[0]: b[5] for b in DEMO_BLOCKS}
    assert recorder.position() == live
    rec.close()
    assert replayed(path) == live


def test_dbx_session_recorder_and_replay_agree(tmp_path):
    setup = load_setup("dbx", "synthetic")
    markers = {p.id: p.marker for p in setup.roster.pieces}
    # a little off the demo's round numbers, as a camera measures
    poses = [PiecePose(pid, markers[pid], x + 0.37, y - 0.21, (h + 1.3) % 360.0)
             for pid, _, _, x, y, h in DEMO_GAME]

    session = Session(setup, settle_s=1.0)
    path = tmp_path / "dbx.fgr"
    rec = Record.create(path, system_meta("dbx", setup.layout, setup.roster, setup=setup))
    recorder = GameRecorder.start(rec, setup.roster, TrackerConfig(settle_s=1.0))
    for i, t in enumerate(TIMES):
        session.update_reading(reading(poses), t=t)
        recorder.feed(reading(poses), t, i)
    live = session.position
    assert len(live.pieces) == len(DEMO_GAME) and live.terrain
    assert recorder.position() == live
    rec.close()
    assert replayed(path) == live
