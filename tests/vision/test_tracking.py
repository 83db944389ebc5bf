"""The tracker on hand-made observation streams: settle time, hands, lifting, missing pieces, removals."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.pieces import PiecePose, TableReading
from vision.roster import Piece, Roster
from vision.tracking import Appeared, Kept, Missing, Moved, Observation, Place, Removed, Tracker, TrackerConfig

DT = 0.2  # 5 frames a second


def roster(n=4):
    return Roster("DICT_4X4_250", tuple(Piece(f"p{i}", 10 + i, "FR" if i % 2 else "AU", "infantry", (40, 30), 20, 3)
                                        for i in range(n)))


HOME = {"p0": Place(100, 100, 0), "p1": Place(300, 100, 0), "p2": Place(100, 400, 180), "p3": Place(600, 400, 180)}


class Run:
    """Feeds frames of observations at 5 fps and collects events."""

    def __init__(self, config=None, places=None):
        self.tracker = Tracker(roster(), config or TrackerConfig())
        self.places = dict(places or HOME)
        self.frame = 0
        self.events = []

    def step(self, n=1, hide=(), lifted=(), at=None):
        at = at or {}
        for _ in range(n):
            obs = {}
            for pid, pl in {**self.places, **at}.items():
                if pid in hide or pl is None:
                    continue
                obs[pid] = Observation(pl, pid in lifted)
            self.events += self.tracker.step(obs, self.frame * DT, self.frame)
            self.frame += 1
        return self

    def settle_in(self):
        self.step(7)
        assert [type(e) for e in self.events] == [Appeared] * 4
        self.events.clear()
        return self


def test_pieces_appear_after_the_settle_time_and_not_before():
    r = Run()
    r.step(5)  # t = 0 .. 0.8
    assert r.events == []
    r.step(1)  # t = 1.0
    assert sorted(e.piece for e in r.events) == ["p0", "p1", "p2", "p3"]
    assert all(isinstance(e, Appeared) and e.t == 1.0 and e.frame == 5 for e in r.events)
    assert r.tracker.states() == {p: "seen" for p in HOME}


def test_a_move_commits_once_the_piece_stands_still_for_the_settle_time():
    r = Run().settle_in()
    r.places["p0"] = Place(100, 160, 45, "B3", "NE")
    r.step(5)
    assert r.events == [] and r.tracker.states()["p0"] == "moving"
    r.step(1)
    (ev,) = r.events
    assert isinstance(ev, Moved) and ev.piece == "p0"
    assert (ev.src.x_mm, ev.src.y_mm, ev.dst.y_mm) == (100, 100, 160)
    assert round(ev.turned_deg) == 45 and ev.data()["facing"] == [None, "NE"]
    assert r.tracker.committed()["p0"].y_mm == 160


def test_a_longer_settle_time_is_honoured():
    r = Run(TrackerConfig(settle_s=2.0)).step(11)
    assert len(r.events) == 4 and r.events[0].t == 2.0


def test_a_slide_commits_only_the_final_place():
    r = Run().settle_in()
    for k in range(1, 8):  # carried 20 mm a frame: never still
        r.step(1, at={"p1": Place(300, 100 + 20 * k, 0)})
    assert r.events == []
    r.places["p1"] = Place(300, 240, 0)
    r.step(8)
    assert [(e.piece, e.dst.y_mm) for e in r.events] == [("p1", 240)]


def test_a_piece_hidden_by_a_hand_keeps_its_place_and_no_event_is_made():
    r = Run().settle_in()
    r.step(15, hide={"p0", "p1"})  # 3 s under a hand
    assert r.tracker.states()["p0"] == "occluded"
    r.step(6)
    assert r.events == []
    assert r.tracker.states()["p0"] == "seen" and r.tracker.committed()["p0"] == HOME["p0"]


def test_a_hand_over_a_neighbour_of_the_new_place_delays_the_commit():
    r = Run().settle_in()
    r.places["p0"] = Place(260, 110, 0)  # next to p1
    r.step(10, hide={"p1"})  # the hand hides p1, 40 mm from the new place: the view is not clear
    assert r.events == []
    r.step(5)
    assert r.events == []  # the settle time restarted when the view cleared
    r.step(1)
    assert [e.piece for e in r.events] == ["p0"]


def test_a_lifted_piece_held_still_is_never_committed_and_put_back_makes_no_event():
    r = Run().settle_in()
    r.step(10, at={"p2": Place(130, 440, 180)}, lifted={"p2"})  # held up in the air, quite still, for 2 s
    assert r.events == [] and r.tracker.states()["p2"] == "moving"
    r.step(8)
    assert r.events == [] and r.tracker.states()["p2"] == "seen"


def test_without_lift_detection_the_same_hold_would_be_a_ghost_move():
    """The control for the test above: the lift flag is what prevents the ghost."""
    r = Run().settle_in()
    r.step(10, at={"p2": Place(130, 440, 180)})
    assert [e.piece for e in r.events if isinstance(e, Moved)] == ["p2"]


def test_a_piece_gone_too_long_is_reported_missing_once_and_never_removed_silently():
    r = Run(TrackerConfig(missing_after_s=3.0)).settle_in()
    r.step(100, hide={"p3"})  # 20 s
    assert [type(e) for e in r.events] == [Missing]
    ev = r.events[0]
    assert ev.piece == "p3" and abs(ev.t - ev.last_seen_t - 3.2) < 1e-6 and ev.place == HOME["p3"]
    assert r.tracker.states()["p3"] == "missing"
    removed = r.tracker.confirm("p3", True, "AU player")
    assert isinstance(removed, Removed) and removed.by == "AU player" and removed.place == HOME["p3"]
    assert "p3" not in r.tracker.committed()


def test_a_missing_piece_kept_by_a_player_is_reported_again_later():
    r = Run(TrackerConfig(missing_after_s=2.0)).settle_in()
    r.step(12, hide={"p3"})
    assert [type(e) for e in r.events] == [Missing]
    kept = r.tracker.confirm("p3", False, "AU player")
    assert isinstance(kept, Kept) and r.tracker.states()["p3"] == "occluded"
    r.events.clear()
    r.step(9, hide={"p3"})
    assert r.events == []
    r.step(2, hide={"p3"})
    assert [type(e) for e in r.events] == [Missing]


def test_a_missing_piece_seen_again_at_its_place_is_back():
    r = Run(TrackerConfig(missing_after_s=2.0)).settle_in()
    r.step(12, hide={"p1"})
    r.step(1)
    assert [type(e) for e in r.events] == [Missing, Appeared] and r.events[1].data()["returned"] is True


def test_a_piece_removed_by_the_rules_is_not_reappeared_while_still_standing():
    r = Run().settle_in()
    r.tracker.expect_removal("p1", "rules")
    r.step(10)  # the player has not taken it off yet
    assert r.events == []
    r.step(8, hide={"p1"})  # taken off
    assert r.events == []
    r.places["p1"] = Place(700, 100, 0)  # later brought back (a rally, a mistake): a new appearance
    r.step(6)
    assert [(type(e), e.piece) for e in r.events] == [(Appeared, "p1")] and r.events[0].returned


def test_frames_without_a_table_pose_change_nothing():
    tr = Tracker(roster())
    reading = TableReading(None, (PiecePose("p0", 10, 5, 5, 0),), (), ())
    for i in range(20):
        assert tr.update(reading, i * DT, i) == []
    assert tr.states()["p0"] == "unplaced"


def test_conflicting_markers_are_not_observations():
    tr = Tracker(roster())
    reading = TableReading(object(), (PiecePose("p0", 10, 5, 5, 0), PiecePose("p1", 11, 50, 5, 0)), (), (10,))
    assert set(tr.observations(reading)) == {"p1"}


def _poses(places, skip=()):
    return tuple(PiecePose(pid, 10 + int(pid[1]), pl.x_mm, pl.y_mm, pl.heading_deg) for pid, pl in places.items()
                 if pid not in skip)


def test_a_held_piece_keeps_its_place_and_its_unseen_time_does_not_count():
    """A rig's camera gone: the pieces only it saw are held, occluded, never reported missing while it is gone;
    once they are in view again and unseen, their time counts from there."""
    tr = Tracker(roster(), TrackerConfig(missing_after_s=1.0))
    events = []
    for i in range(7):
        events += tr.update(TableReading(object(), _poses(HOME), (), ()), i * DT, i)
    assert [type(e) for e in events] == [Appeared] * 4
    events.clear()
    for i in range(7, 40):  # 6.6 s with p3's camera gone
        events += tr.update(TableReading(object(), _poses(HOME, ("p3",)), (), (), held=("p3",)), i * DT, i)
    assert events == [] and tr.states()["p3"] == "occluded" and tr.committed()["p3"] == HOME["p3"]
    for i in range(40, 46):  # its place in view again, and it is not there
        events += tr.update(TableReading(object(), _poses(HOME, ("p3",)), (), ()), i * DT, i)
    assert [(type(e), e.piece, e.frame) for e in events] == [(Missing, "p3", 45)]


def test_a_reading_that_says_a_piece_is_lifted_is_never_committed():
    tr = Tracker(roster())  # no lens: the reading says which pieces are lifted (a rig's fused reading)
    held = {**HOME, "p1": Place(500, 100, 0)}
    events = []
    for i in range(7):
        events += tr.update(TableReading(object(), _poses(HOME), (), ()), i * DT, i)
    for i in range(7, 30):
        events += tr.update(TableReading(object(), _poses(held), (), (), lifted=("p1",)), i * DT, i)
    assert [type(e) for e in events] == [Appeared] * 4 and tr.states()["p1"] == "moving"


def test_restore_starts_from_committed_places():
    tr = Tracker(roster())
    tr.restore({"p0": Place(1, 2, 0), "p1": None}, {"p1": "removed", "p2": "unplaced"})
    assert tr.states()["p0"] == "occluded" and tr.states()["p1"] == "removed"
    assert tr.committed() == {"p0": Place(1, 2, 0)}


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_detection_jitter_alone_never_moves_a_piece(seed):
    rng = np.random.default_rng(seed)
    tr = Tracker(roster())
    events = []
    for i in range(60):
        obs = {}
        for pid, pl in HOME.items():
            if rng.random() < 0.2:  # hands and misses
                continue
            obs[pid] = Observation(Place(pl.x_mm + rng.normal(0, 1.5), pl.y_mm + rng.normal(0, 1.5),
                                         (pl.heading_deg + rng.normal(0, 2)) % 360))
        events += tr.step(obs, i * DT, i)
    assert all(isinstance(e, Appeared) for e in events)
    assert len(events) <= 4


def resumed_from(r: Run, pending: dict, stale=()) -> Tracker:
    """A new tracker over `r`'s committed places and standings (as a record restores them), then `pending`."""
    t = Tracker(roster(), r.tracker.config)
    standing = {pid: "missing" if tr.reported_missing else ("removed" if tr.state == "removed" else "on")
                for pid, tr in r.tracker.tracks.items()}
    t.restore(r.tracker.committed(), standing)
    t.resume(pending, stale)
    return t


def test_a_resumed_tracker_goes_on_settling_and_missing_from_where_it_was():
    r = Run().settle_in()
    moved = Place(160, 100, 0)
    r.step(3, at={"p0": moved}, hide=("p3",))  # p0 settling for 0.4 s, p3 out of sight as long
    pending = r.tracker.pending()
    assert set(pending) == {"p0", "p3"} and pending["p0"]["moving"] and pending["p0"]["standing"] == "placed"
    fresh = resumed_from(r, pending)
    r.tracker = fresh
    r.places["p0"] = moved
    r.step(3, hide=("p3",))
    moves = [e for e in r.events if isinstance(e, Moved)]
    assert [(e.piece, e.frame) for e in moves] == [("p0", 12)]  # 1.0 s after it was first seen there, not after
    r.step(45, hide=("p3",))
    missing = [e for e in r.events if isinstance(e, Missing)]
    assert [(e.piece, e.frame, round(e.last_seen_t, 6)) for e in missing] == [("p3", 57, 1.2)]  # 10 s unseen


def test_a_resumed_piece_an_event_was_written_about_since_starts_afresh_and_bad_entries_are_passed_over():
    r = Run().settle_in()
    r.step(3, at={"p0": Place(160, 100, 0)})
    pending = r.tracker.pending()
    stale = resumed_from(r, pending, stale={"p0"})
    assert stale.tracks["p0"].candidate is None and stale.tracks["p0"].state == "occluded"
    bad = resumed_from(r, {"p0": {**pending["p0"], "since": "soon"}, "p1": "nothing", "zz": {}})
    assert bad.tracks["p0"].candidate is None
    other = resumed_from(r, {"p0": {**pending["p0"], "standing": "removed"}})  # it was removed since
    assert other.tracks["p0"].candidate is None


# ---------------------------------------------------------------------------------------------- placed by a player


def test_a_piece_a_player_corrected_stays_while_the_camera_reads_it_where_it_misread_it():
    """The camera read p0 at (100, 130); a player says it stands at (100, 160): no move back to the misreading,
    and once the piece really moves on it is the camera's again."""
    r = Run().settle_in()
    misread = Place(100, 130, 0)
    r.step(7, at={"p0": misread})
    assert [(type(e), e.piece) for e in r.events] == [(Moved, "p0")]
    r.events.clear()
    r.tracker.place_by_hand("p0", Place(100, 160, 0), seen_at=misread)
    r.step(20, at={"p0": misread})  # 4 s read where it was misread
    assert r.events == [] and r.tracker.committed()["p0"] == Place(100, 160, 0)
    r.step(7, at={"p0": Place(250, 250, 90)})  # carried elsewhere: a move from the player's place
    assert [(type(e), e.piece) for e in r.events] == [(Moved, "p0")]
    assert r.events[0].src == Place(100, 160, 0) and r.events[0].dst == Place(250, 250, 90)


def test_a_piece_placed_where_the_camera_cannot_see_it_is_never_reported_missing():
    r = Run(TrackerConfig(missing_after_s=2.0)).settle_in()
    r.tracker.place_by_hand("p1", Place(300, 200, 0))  # behind a hill: out of the camera's sight
    r.step(30, hide=("p1",))  # 6 s unseen
    assert r.events == [] and r.tracker.states()["p1"] == "occluded"
    r.step(1, at={"p1": Place(300, 200, 0)})  # seen at its place: tracked as any other from now on
    r.step(15, hide=("p1",))
    assert [(type(e), e.piece) for e in r.events] == [(Missing, "p1")]


def test_a_placed_piece_is_kept_through_a_resume():
    r = Run().settle_in()
    r.tracker.place_by_hand("p2", Place(100, 450, 180), seen_at=Place(100, 420, 180))
    pending = r.tracker.pending()
    again = Tracker(roster(), TrackerConfig())
    again.restore(r.tracker.committed(), {p: "on" for p in HOME})
    again.resume(pending)
    track = again.tracks["p2"]
    assert track.by_hand and track.seen_at == Place(100, 420, 180)
