"""DBX's hooks (rules/dbx/live.py `DbxLive`) through the one generic Session: the synthetic DBX set-up with readings
fed by hand, no camera, no Qt. Placement, the game panel's keys, turn, a resolution's pending change cleared once the
camera sees the element within the settle tolerance, the selection's title and the headless printout."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraPose
from common.errors import InputError
from fieldglass.session import Session
from fieldglass.setup import load_setup
from rules.dbx.demo import DEMO_GAME
from rules.dbx.live import SETTLE_DEG, SETTLE_MM, DbxLive, PoseChange, contacts_of, dbx_position
from vision.pieces import PiecePose, TableReading

POSE = CameraPose(np.zeros(3), np.array([0.0, 0.0, 1000.0]), 0.1, (0, 1))
STEP_S = 0.2


class Table:
    """A session and the places of its elements as a camera would report them, fed a frame at a time."""

    def __init__(self):
        self.setup = load_setup("dbx", "synthetic")
        self.session = self.setup.make_session()
        self.markers = {p.id: p.marker for p in self.setup.roster.pieces}
        # a little off the demo's round numbers, as a camera measures
        self.at = {pid: (x + 0.37, y - 0.21, (h + 1.3) % 360.0) for pid, _, _, x, y, h in DEMO_GAME}
        self.t = 0.0

    def show(self, seconds: float = 3.0) -> None:
        """The table as it is now, frame after frame, long enough for every element to settle."""
        for _ in range(round(seconds / STEP_S)):
            poses = tuple(PiecePose(pid, self.markers[pid], x, y, h) for pid, (x, y, h) in self.at.items())
            self.session.update_reading(TableReading(POSE, poses, (), ()), t=self.t)
            self.t += STEP_S


@pytest.fixture
def table():
    tb = Table()
    tb.show()
    return tb


def test_a_dbx_setup_makes_the_generic_session_with_dbx_live():
    setup = load_setup("dbx", "synthetic")
    s = setup.make_session()
    assert type(s) is Session and isinstance(s.live, DbxLive)
    assert s.live.template is setup.game and [t.id for t in setup.game.terrain] == ["w1", "h1"]
    # the bound and the side to move: the template's, else the roster's first side
    assert (s.state.turn, s.state.active) == (1, "blue")
    assert s.position.pieces == () and s.notes == []


def test_elements_stand_where_the_camera_measured_them(table):
    s = table.session
    pos = s.position
    assert {p.id for p in pos.pieces} == {g[0] for g in DEMO_GAME}
    for pid, (x, y, h) in table.at.items():
        p = pos.piece(pid)
        assert (p.x_mm, p.y_mm, p.heading_deg) == (round(x, 1), round(y, 1), round(h, 1))
    assert pos.piece("r3").type == "Kü" and pos.piece("b3").type == "Art"
    assert [t.id for t in pos.terrain] == ["w1", "h1"] and pos.scale == table.setup.game.scale
    assert (pos.game.bound, pos.game.active) == (1, "blue")
    # the one placement: the same function the recorder and the replay call
    same, notes = dbx_position(s.committed_places(), s.roster, s.system, s.state, pos)
    assert same == pos and notes == []


def test_the_game_panels_columns_are_dbx_state_keys(table):
    s = table.session
    s.set_piece_state("b1", "formation", "Gr")  # formation = quality (§8.1)
    assert s.state.states["b1"]["quality"] == "Gr" and "formation" not in s.state.states["b1"]
    assert s.position.piece("b1").quality == "Gr"
    s.set_piece_state("b1", "markers", 2)  # markers = square markers (§5.11)
    assert s.state.states["b1"]["square"] == 2 and s.position.piece("b1").square == 2
    # the column as the panel shows it (rules/dbx/adapter.py piece_state), and the column emptied
    shown = "+".join(s.system.piece_state(s.position.piece("b1"))["markers"])
    assert shown == "square 2"
    s.set_piece_state("b1", "markers", shown.replace("2", "3"))
    assert s.position.piece("b1").square == 3
    s.set_piece_state("b1", "markers", ("square 1",))
    assert s.position.piece("b1").square == 1
    s.set_piece_state("b1", "markers", "")
    assert s.state.states["b1"]["square"] == 0 and s.position.piece("b1").square == 0
    with pytest.raises(InputError, match="0..5"):
        s.set_piece_state("b1", "markers", "square 9")
    with pytest.raises(InputError, match="one base"):
        s.set_piece_state("b1", "bases", 2)
    with pytest.raises(InputError, match="no element 'zz'"):
        s.set_piece_state("zz", "formation", "Gr")
    assert "bases" not in s.state.states["b1"]


def test_the_turn_is_the_engines_bound(table):
    s = table.session
    s.set_turn(3, "red")
    assert (s.position.game.bound, s.position.game.active) == (3, "red")
    s.next_phase()
    assert (s.state.turn, s.state.active) == (4, "blue")
    assert (s.position.game.bound, s.position.game.active) == (4, "blue")


def test_a_recoil_waits_for_the_table_within_the_settle_tolerance(table):
    s = table.session
    out = s.resolve("melee", "b2", "r1", dice=[6, 2])  # r1 loses by less than double: it recoils (§8.6)
    assert [c["change"] for c in out.changes] == ["recoil"]
    pending = s.apply(out)
    assert len(pending) == 1 and isinstance(pending[0], PoseChange)
    ch = pending[0]
    to = out.after.piece("r1")
    assert (ch.piece, ch.removed, ch.x_mm, ch.y_mm, ch.heading_deg) == ("r1", False, to.x_mm, to.y_mm, to.heading_deg)
    assert s.state.pending == {"r1": ch} and "recoils" in ch.describe()
    assert any(line.endswith(f"waiting for the table: {ch.describe()}") for line in s.state.log)
    # the rules answer from where the rules put it until the camera sees it there
    r1 = s.position.piece("r1")
    assert (r1.x_mm, r1.y_mm) == (round(to.x_mm, 1), round(to.y_mm, 1))
    # put down too far back: the table does not match, the change still waits
    table.at["r1"] = (to.x_mm, to.y_mm + 15.0, to.heading_deg)
    table.show()
    assert "r1" in s.state.pending and s.position.piece("r1").y_mm == round(to.y_mm, 1)
    # put down within the tolerance (a hand never places a base exactly): done, the camera's place counts again
    dx, dy, dh = 0.6 * SETTLE_MM, -0.6 * SETTLE_MM, 0.6 * SETTLE_DEG
    assert np.hypot(dx, dy) <= SETTLE_MM
    table.at["r1"] = (to.x_mm + dx, to.y_mm + dy, (to.heading_deg + dh) % 360.0)
    table.show()
    assert s.state.pending == {}
    assert any(line.endswith(f"the table matches: {ch.describe()} done") for line in s.state.log)
    r1 = s.position.piece("r1")
    assert abs(r1.x_mm - (to.x_mm + dx)) < 0.11 and abs(r1.y_mm - (to.y_mm + dy)) < 0.11
    assert abs((r1.heading_deg - to.heading_deg - dh + 180) % 360 - 180) < 0.11


def test_a_destroyed_element_leaves_the_position_until_taken_off(table):
    s = table.session
    out = s.resolve("melee", "b2", "r1", dice=[6, 1])  # double: destroyed (§8.5)
    (ch,) = s.apply(out)
    assert isinstance(ch, PoseChange) and ch.removed and "destroyed" in ch.describe()
    assert "r1" in s.state.removed and "r1" not in s.position.by_id
    assert s.position.game == out.after.game == s.live.template.game  # the game's losses taken at once
    table.show()
    assert "r1" in s.state.pending  # still on the table
    del table.at["r1"]
    table.show(0.4)
    assert s.state.pending == {} and "r1" not in s.position.by_id


def test_the_selection_title_and_the_printout(table):
    s = table.session
    assert s.title() is None  # nothing selected: the panel's own line
    s.select("b2")
    title = s.title()
    assert title.startswith("<b>b2</b> blue line infantry at 300,200 mm facing 1°: good going")
    assert title.endswith("2 contact(s)")
    assert contacts_of(s.position, "b2", s.system.opts) == ["r1 front", "r2 overlap"]
    lines = s.describe_lines()
    assert lines[0].startswith("  bound 1 (blue active), scale") and "terrain: w1 wood, h1 gentle_hill" in lines[0]
    b2 = next(ln for ln in lines if ln.startswith("  b2 "))
    assert "300.4,199.8" in b2 and b2.endswith("r1 front, r2 overlap")
    assert any(ln.startswith("selected b2 (line infantry, good going)") for ln in lines)
    assert any(ln.startswith("  contact r1    front") for ln in lines)
    s.state.removed.add("b2")  # as if the rules had taken it off
    s.set_turn(1)  # the position rebuilt
    assert s.title() == "b2: not on the table now (not seen, or removed)"
