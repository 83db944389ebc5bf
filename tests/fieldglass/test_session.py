"""The dashboard's model answers from the committed state: a piece in a hand keeps its place until it settles."""

import dataclasses

import numpy as np
import pytest

from calibration.camera import CameraPose
from calibration.registration import TableRegistration
from common.dice import Dice
from common.errors import InputError
from common.fields import field_ambiguous
from fieldglass.session import Session
from fieldglass.setup import load_setup
from rules.live import PendingChange
from rules.wiener.resolve import resolve_melee
from vision.pieces import PiecePose, TableReading, read_table
from vision.synthetic import SyntheticSource

STD = np.array([1.5, 1.5, 1.2, 1.2, 0.002, 0.004, 0.0002, 0.0002, 0.003])  # a good board calibration's
POSE = CameraPose(np.zeros(3), np.array([0.0, 0.0, 1000.0]), 0.1, (0, 1))


def _reading(setup, moved: dict[str, tuple[float, float]] | None = None) -> TableReading:
    """Every roster piece seen in the middle of a field of its own; `moved` puts some elsewhere."""
    grid = setup.layout.grid
    pieces = []
    for k, rp in enumerate(setup.roster.pieces):
        x, y = grid.field_centre(2 + 2 * (k % 12), 2 + 6 * (k // 12))
        if moved and rp.id in moved:
            x, y = moved[rp.id]
        facing = "N" if rp.side == setup.roster.pieces[0].side else "S"
        heading = 0.0 if facing == "N" else 180.0
        pieces.append(PiecePose(rp.id, rp.marker, x, y, heading, facing, 0.0, grid.name_at(x, y), 30.0))
    return TableReading(POSE, tuple(pieces), (), ())


def _field(session, pid):
    return session.position.by_id[pid].field_name


def test_rules_follow_committed_places_not_a_piece_in_transit():
    setup = load_setup("wiener", "synthetic")
    session = Session(setup, settle_s=1.0)
    first = setup.roster.pieces[0].id
    session.update_reading(_reading(setup), t=0.0)
    start = _field(session, first)  # a table being set up is answered at once
    session.update_reading(_reading(setup), t=1.5)
    assert _field(session, first) == start

    elsewhere = {first: setup.layout.grid.field_centre(30, 10)}
    session.update_reading(_reading(setup, elsewhere), t=2.0)
    assert session.reading.pieces[0].cell == "AE11"  # the view shows where it is now
    assert _field(session, first) == start  # the rules still see it where it was committed
    session.update_reading(_reading(setup, elsewhere), t=2.5)
    assert _field(session, first) == start
    session.update_reading(_reading(setup, elsewhere), t=3.2)  # stood still for over a second: committed
    assert _field(session, first) == "AE11"


# ---------------------------------------------------------------------------------------------- a small battle

HEADING = {"N": 0.0, "E": 90.0, "S": 180.0, "W": 270.0}
# 0-based (col, row) and facing: two French pieces facing north, each in front contact with an Austrian one
BATTLE = {"fr-1-1": ((10, 5), "N"), "au-1-1": ((10, 6), "S"), "fr-1-2": ((14, 5), "N"), "au-a-1": ((14, 6), "S")}


def _battle(setup, places=BATTLE, edge_mm: float = 30.0) -> TableReading:
    """A reading of exactly the pieces in `places`, each in the middle of its field."""
    grid = setup.layout.grid
    out = []
    for rp in setup.roster.pieces:
        if rp.id not in places:
            continue
        (col, row), facing = places[rp.id]
        x, y = grid.field_centre(col, row)
        out.append(PiecePose(rp.id, rp.marker, x, y, HEADING[facing], facing, 0.0, grid.name_at(x, y), edge_mm))
    return TableReading(POSE, tuple(out), (), ())


def _listen(session) -> list[tuple[str, tuple]]:
    """Every signal the session emits, in order, as (name, args)."""
    got = []
    for name in ("reading", "position", "selection", "state", "message"):
        getattr(session.events, name).connect(lambda *args, n=name: got.append((n, args)))
    return got


def _names(got) -> list[str]:
    return [n for n, _ in got]


def test_a_reading_becomes_the_rules_position_with_its_signals():
    setup = load_setup("wiener", "synthetic")
    session = Session(setup, settle_s=1.0)
    got = _listen(session)
    reading = _reading(setup)
    session.update_reading(reading, t=0.0)
    assert _names(got) == ["reading", "position"]
    assert got[0][1] == (reading,) and got[1][1] == (session.position,)
    pos = session.position
    assert {p.id for p in pos.pieces} == {rp.id for rp in setup.roster.pieces}
    for pose in reading.pieces:
        p = pos.piece(pose.piece)
        assert (p.field_name, p.facing) == (pose.cell, pose.facing)
        assert p.type == session.system.piece_type(setup.roster.piece(pose.piece).type)
    assert session.counts() == (24, 24)
    # the same table again: a new reading, but no new position (and now the places are committed)
    got.clear()
    session.update_reading(_reading(setup), t=1.5)
    assert _names(got) == ["reading"]
    # a piece hidden by a hand keeps its committed place (occluded); one near a field edge is ambiguous
    first, second = setup.roster.pieces[0].id, setup.roster.pieces[1].id
    hidden = _reading(setup)
    near = next(p for p in hidden.pieces if p.piece == second)
    hidden = TableReading(POSE, tuple(dataclasses.replace(p, edge_mm=2.0) if p is near else p
                                      for p in hidden.pieces if p.piece != first), (), ())
    session.update_reading(hidden, t=2.0)
    assert _field(session, first) == reading.pieces[0].cell
    status = {v.piece.id: v.status for v in session.piece_views()}
    assert status[first] == "occluded" and status[second] == "ambiguous"
    assert session.counts() == (23, 24)


def test_a_piece_never_seen_is_not_in_the_position():
    setup = load_setup("wiener", "synthetic")
    session = Session(setup)
    session.update_reading(_battle(setup), t=0.0)
    assert {p.id for p in session.position.pieces} == set(BATTLE)
    status = {v.piece.id: v.status for v in session.piece_views()}
    assert status["fr-1-1"] == "seen" and status["fr-c-1"] == "unseen"


def test_one_instant_reads_the_pieces_once_and_a_new_instant_reads_them_again():
    setup = load_setup("wiener", "synthetic")
    session = Session(setup)
    session.update_reading(_battle(setup), t=0.0)
    assert session.piece_views() is not session.piece_views()  # outside: read afresh each time
    with session.one_instant():
        views = session.piece_views()
        with session.one_instant():  # nested: still the same instant
            assert session.piece_views() is views
        assert session.piece_views() is views
    session.update_reading(_reading(setup), t=1.0)  # every roster piece seen now
    with session.one_instant():
        status = {v.piece.id: v.status for v in session.piece_views()}
    assert status["fr-c-1"] == "seen" and {v.piece.id: v.status for v in views}["fr-c-1"] == "unseen"


def test_selection_and_second_selection():
    setup = load_setup("wiener", "synthetic")
    session = Session(setup)
    session.update_reading(_battle(setup), t=0.0)
    got = _listen(session)

    session.select("fr-1-1")
    session.select("au-1-1", second=True)
    assert (session.selected, session.second) == ("fr-1-1", "au-1-1")
    assert got == [("selection", ("fr-1-1", None)), ("selection", ("fr-1-1", "au-1-1"))]
    analysis, lines = session.pair()
    assert analysis["distance"] == 1 and analysis["adjacent"] and analysis["target_in_arc"]  # K6 north of K7
    assert lines[0].startswith("fr-1-1 (FR infantry") and "au-1-1 (AU infantry" in lines[0]
    overlay = session.selection_overlay()
    assert overlay.piece == "fr-1-1" and session.selection_overlay() is overlay  # asked once per position
    assert "au-1-1" in {line.target for line in overlay.lines}
    rows = {r.target: r for r in session.targets()}
    assert rows["au-1-1"].distance == 1 and rows["au-1-1"].melee

    session.select("fr-1-2", second=True)  # a new second piece replaces the old one: same side, no combat
    assert session.second == "fr-1-2" and session.selected == "fr-1-1"
    assert session.pair() == ({}, ["fr-1-1 and fr-1-2 are on the same side: no combat between them"])
    session.select("fr-1-1", second=True)  # the selected piece again: the second selection goes
    assert (session.selected, session.second) == ("fr-1-1", None)
    session.select("au-a-1")  # a plain selection starts over
    assert (session.selected, session.second) == ("au-a-1", None) and session.pair() is None

    got.clear()
    with pytest.raises(InputError, match="no piece 'xx-9' in the roster"):
        session.select("xx-9")
    assert got == [] and session.selected == "au-a-1"

    session.select("fr-c-1")  # in the roster but never seen: selected, nothing to draw or list
    assert session.selection_overlay() is None and session.targets() == []
    session.clear_selection()
    assert (session.selected, session.second) == (None, None) and got[-1] == ("selection", (None, None))
    session.select("au-1-1", second=True)  # a second selection with nothing selected is a first one
    assert (session.selected, session.second) == ("au-1-1", None)


def test_set_piece_state_checks_the_value_and_updates_the_position():
    setup = load_setup("wiener", "synthetic")
    session = Session(setup)
    session.update_reading(_battle(setup), t=0.0)
    got = _listen(session)
    bad = [("fr-1-1", "formation", "wedge", "formation 'wedge'"), ("fr-1-1", "markers", "purple", "marker 'purple'"),
           ("fr-1-1", "bases", 13, "bases 13"), ("fr-1-1", "bases", "two", "bases 'two'"),
           ("fr-1-1", "colour", "blue", "'colour' is not part"), ("fr-1-1", "type", "dragoons", "type 'dragoons'"),
           ("xx-9", "bases", 2, "no piece 'xx-9'")]
    for pid, key, value, text in bad:
        with pytest.raises(InputError, match=text):
            session.set_piece_state(pid, key, value)
    assert got == [] and session.state.states.get("fr-1-1", {}) == {} and session.state.log == []

    before = session.position
    session.set_piece_state("fr-1-1", "markers", "red+grey")
    assert session.state.states["fr-1-1"] == {"markers": ("red", "grey")}
    assert session.position.piece("fr-1-1").markers == ("red", "grey") and session.position != before
    assert _names(got) == ["message", "state", "position"]
    assert got[0][1] == ("fr-1-1: markers set to red+grey",) and session.state.log[-1].endswith(got[0][1][0])

    session.set_piece_state("fr-1-1", "formation", "column")
    assert session.position.piece("fr-1-1").formation == "column"
    session.set_piece_state("fr-1-1", "type", "light_cavalry")  # a new type drops the old type's formation
    assert "formation" not in session.state.states["fr-1-1"]
    p = session.position.piece("fr-1-1")
    assert p.type == "light_cavalry" and p.formation == "mounted"


def test_next_phase_clears_the_per_turn_flags_of_the_side_that_becomes_active():
    setup = load_setup("wiener", "synthetic")
    session = Session(setup)
    session.update_reading(_battle(setup), t=0.0)
    assert (session.state.turn, session.state.active) == (1, "FR")  # the roster's first side begins
    for pid in ("fr-1-1", "au-1-1"):
        session.set_piece_state(pid, "fired", True)
        session.set_piece_state(pid, "moved", True)
    session.set_piece_state("au-1-1", "fought", True)  # not a per-turn flag (§6.4): kept
    got = _listen(session)

    session.next_phase()
    assert (session.state.turn, session.state.active) == (1, "AU")
    au, fr = session.position.piece("au-1-1"), session.position.piece("fr-1-1")
    assert not au.fired and not au.moved and au.fought
    assert fr.fired and fr.moved  # France is not active now: its flags stay until its own next phase
    assert _names(got) == ["message", "state", "position"] and got[0][1] == ("turn 1: AU active",)

    session.next_phase()
    assert (session.state.turn, session.state.active) == (2, "FR")
    fr = session.position.piece("fr-1-1")
    assert not fr.fired and not fr.moved
    assert session.position.piece("au-1-1").fought


def test_resolve_and_apply_make_pending_changes_that_clear_when_the_table_matches():
    setup = load_setup("wiener", "synthetic")
    session = Session(setup, settle_s=1.0)
    session.update_reading(_battle(setup), t=0.0)
    got = _listen(session)

    # a melee the Austrian loses: the engine makes it flee (a move)
    expected = resolve_melee(session.position, "fr-1-1", "au-1-1", Dice([4, 3]))
    out = session.resolve("melee", "fr-1-1", "au-1-1", dice=[4, 3])
    assert out.rolled == [4, 3] and out.seed is None and out.changes == expected.as_dict()["changes"]
    fled = expected.after.piece("au-1-1")
    assert fled.field != (10, 6) and "black" in fled.markers
    assert got == []  # resolving alone changes nothing
    pending = session.apply(out)
    assert [(c.piece, c.field, c.facing, c.removed) for c in pending] == [("au-1-1", fled.field, fled.facing, False)]
    assert session.state.pending == {"au-1-1": pending[0]} and isinstance(pending[0], PendingChange)
    au = session.position.piece("au-1-1")  # the rules' place until the table shows it
    assert (au.field, au.facing, au.markers) == (fled.field, fled.facing, fled.markers)
    assert session.state.states["fr-1-1"]["fought"] and session.state.states["au-1-1"]["markers"] == fled.markers
    assert "state" in _names(got) and "position" in _names(got)
    assert f"waiting for the table: {pending[0].describe()}" in session.state.log[-1]
    assert next(v for v in session.piece_views() if v.piece.id == "au-1-1").pending == pending[0]

    session.update_reading(_battle(setup), t=1.0)  # the camera still sees it in K7: still pending
    assert "au-1-1" in session.state.pending
    moved = dict(BATTLE, **{"au-1-1": (fled.field, fled.facing)})
    session.update_reading(_battle(setup, moved), t=2.0)  # put there, not settled yet
    assert "au-1-1" in session.state.pending and session.position.piece("au-1-1").field == fled.field
    session.update_reading(_battle(setup, moved), t=2.5)
    assert session.position.piece("au-1-1").field == fled.field  # never back at its old place meanwhile
    got.clear()
    session.update_reading(_battle(setup, moved), t=3.2)  # settled there: done
    assert session.state.pending == {}
    assert ("state", ()) in got and session.state.log[-1].endswith(f"the table matches: {pending[0].describe()} done")
    au = session.position.piece("au-1-1")
    assert (au.field, au.facing) == (fled.field, fled.facing)

    # the guns lose the next melee and its loss test: the engine removes them
    expected = resolve_melee(session.position, "fr-1-2", "au-a-1", Dice([6, 1]), loss_die=6)
    assert "au-a-1" not in expected.after.by_id
    out = session.resolve("melee", "fr-1-2", "au-a-1", dice=[6, 1], loss_die=6)
    pending = session.apply(out)
    assert [(c.piece, c.removed) for c in pending] == [("au-a-1", True)]
    assert "au-a-1" in session.state.removed and "au-a-1" not in session.position.by_id
    assert session.counts() == (4, 23)
    session.update_reading(_battle(setup, moved), t=4.0)  # still on the table
    assert "au-a-1" in session.state.pending
    gone = {k: v for k, v in moved.items() if k != "au-a-1"}
    session.update_reading(_battle(setup, gone), t=4.5)  # taken off: done at once
    assert session.state.pending == {} and "au-a-1" not in session.position.by_id
    status = {v.piece.id: v.status for v in session.piece_views()}
    assert status["au-a-1"] == "removed"


def test_resolve_refuses_a_piece_that_is_not_on_the_table():
    setup = load_setup("wiener", "synthetic")
    session = Session(setup)
    session.update_reading(_battle(setup), t=0.0)
    with pytest.raises(InputError, match="'fr-c-1' is not on the table"):
        session.resolve("melee", "fr-c-1", "au-1-1", dice=[4, 3])
    with pytest.raises(InputError, match="action 'charge'"):
        session.resolve("charge", "fr-1-1", "au-1-1", dice=[4, 3])


def test_the_live_session_gives_each_piece_the_lens_uncertainty_and_an_unsure_piece_is_ambiguous():
    """Issue 17, live: with the camera file's standard deviations each piece read carries its expected error, and a
    piece whose two standard deviations reach its field's edge is shown ambiguous, not silently placed."""
    setup = load_setup("wiener", "synthetic")
    source = SyntheticSource(setup.scene, resolution=(1280, 720), frames=1)
    (_, frame), = list(source)
    lens = source.camera.intrinsics
    reading = read_table(frame, TableRegistration(setup.layout, lens), setup.roster)
    statuses = {}
    for name, std in (("none", None), ("loose", 8 * STD)):
        session = Session(setup)
        session.update_reading(reading, t=0.0, camera=dataclasses.replace(lens, std_devs=std))
        sigma = {p.piece: p.uncertainty_mm for p in session.reading.pieces}
        statuses[name] = {v.piece.id: v.status for v in session.piece_views()}
        if std is None:
            assert set(sigma.values()) == {None}
            continue
        assert all(0.1 < s < 50 for s in sigma.values())
        for p in session.reading.pieces:  # the field-edge rule with each piece's own doubt
            assert (statuses[name][p.piece] == "ambiguous") == field_ambiguous(p.edge_mm, sigma[p.piece])
    unsure = {pid for pid, st in statuses["loose"].items() if st == "ambiguous"}
    sure = {pid for pid, st in statuses["none"].items() if st == "ambiguous"}
    assert sure < unsure  # the loose lens makes more pieces ambiguous than the edge rule alone
