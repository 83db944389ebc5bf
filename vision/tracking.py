"""From a noisy stream of table readings to committed game events.

Each frame's `TableReading` says where the pieces it could see are. A hand reaching over the table hides some,
a piece carried across is seen at places it never stood, a lifted piece is seen bigger (nearer the camera) than
it is printed. The `Tracker` keeps, per roster piece, its *committed* place and a state:

* ``seen``      seen at its committed place;
* ``occluded``  not seen, but nothing says it moved away: it keeps its place (a hand over it; a rig's reading
                that holds it, its time unseen not counted);
* ``moving``    seen off its committed place (or lifted), not yet settled;
* ``missing``   not seen for longer than `missing_after_s`: reported once, for a player to confirm;
* ``removed``   confirmed removed by a player, or taken off by the rules;
* ``unplaced``  never seen yet.

A move is committed when the piece has stood still at its new place for `settle_s` seconds (frame timestamps,
so tests are deterministic) while the view of its old and new places was clear: every other committed piece
within `clear_radius_mm` of either place was seen in each of those frames (a hand that hides its neighbours
hides the place too). A piece that disappears is never removed silently: after `missing_after_s` it is reported
`missing`, and only `confirm(piece, removed=True, by=...)` removes it.

Pure logic: no drawing, no Qt, no clock of its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from calibration.projection import pixels_to_table
from vision.pieces import PiecePose, TableReading
from vision.roster import Roster

STATES = ("unplaced", "seen", "occluded", "moving", "missing", "removed")
LIFT_NOISE_PX = 0.3
"""How far a marker's measured side may be off in pixels (its corners refined to about 0.1 px each): a marker is
taken as lifted only when it reads larger than printed by `lift_ratio` plus this share of its side."""


@dataclass(frozen=True)
class TrackerConfig:
    """Tuning of the tracker; times in seconds of frame timestamps, distances in table mm."""

    settle_s: float = 1.0  # a piece must stand still this long at its new place before the move is committed
    missing_after_s: float = 10.0  # unseen this long: reported missing
    move_mm: float = 12.0  # seen farther than this from its place: it is moving
    turn_deg: float = 12.0  # or turned by more than this
    still_mm: float = 4.0  # jitter allowed while standing still
    still_deg: float = 5.0
    clear_radius_mm: float = 120.0  # a place is in clear view when no committed piece this close to it is hidden
    lift_ratio: float = 0.03  # a marker seen this much bigger than printed is off the table (in a hand)


@dataclass(frozen=True)
class Place:
    """Where a piece stands: base centre (table mm), compass heading, and its field and facing with a grid."""

    x_mm: float
    y_mm: float
    heading_deg: float
    cell: str | None = None
    facing: str | None = None
    uncertainty_mm: float | None = field(default=None, compare=False)
    """One standard deviation (mm) of the measured base centre, None when not known (not kept in a record)."""

    @classmethod
    def of(cls, pose: PiecePose) -> Place:
        return cls(pose.x_mm, pose.y_mm, pose.heading_deg % 360.0, pose.cell, pose.facing, pose.uncertainty_mm)

    def distance(self, other: Place) -> float:
        return math.hypot(self.x_mm - other.x_mm, self.y_mm - other.y_mm)

    def turn(self, other: Place) -> float:
        """Signed heading change from self to other, -180..180 degrees."""
        return (other.heading_deg - self.heading_deg + 180.0) % 360.0 - 180.0

    def to_json(self) -> dict:
        out = {"x_mm": round(self.x_mm, 1), "y_mm": round(self.y_mm, 1), "heading_deg": round(self.heading_deg, 1)}
        if self.cell is not None or self.facing is not None:
            out.update(cell=self.cell, facing=self.facing)
        return out

    @classmethod
    def from_json(cls, d: dict) -> Place:
        return cls(float(d["x_mm"]), float(d["y_mm"]), float(d["heading_deg"]), d.get("cell"), d.get("facing"))


# ---------------------------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class TrackEvent:
    piece: str
    t: float
    frame: int

    type = "event"

    def data(self) -> dict:
        return {}


@dataclass(frozen=True)
class Moved(TrackEvent):
    src: Place
    dst: Place
    returned: bool = False  # the piece had been reported missing

    type = "move"

    @property
    def turned_deg(self) -> float:
        return self.src.turn(self.dst)

    def data(self) -> dict:
        out = {"from": self.src.to_json(), "to": self.dst.to_json(), "turned_deg": round(self.turned_deg, 1)}
        if self.src.facing != self.dst.facing:
            out["facing"] = [self.src.facing, self.dst.facing]
        if self.returned:
            out["returned"] = True
        return out


@dataclass(frozen=True)
class Appeared(TrackEvent):
    place: Place
    returned: bool = False  # back at its place after being reported missing (or back after a removal)

    type = "appeared"

    def data(self) -> dict:
        out = {"to": self.place.to_json()}
        if self.returned:
            out["returned"] = True
        return out


@dataclass(frozen=True)
class Missing(TrackEvent):
    place: Place
    last_seen_t: float

    type = "missing"

    def data(self) -> dict:
        return {"at": self.place.to_json(), "last_seen_t": round(self.last_seen_t, 3)}


@dataclass(frozen=True)
class Removed(TrackEvent):
    place: Place | None
    by: str

    type = "removed"

    def data(self) -> dict:
        return {"at": self.place.to_json() if self.place else None, "by": self.by}


@dataclass(frozen=True)
class Kept(TrackEvent):
    """A player confirmed that a piece reported missing is still on the table at its place."""

    place: Place | None
    by: str

    type = "kept"

    def data(self) -> dict:
        return {"at": self.place.to_json() if self.place else None, "by": self.by}


# ---------------------------------------------------------------------------------------------------- tracker


@dataclass
class PieceTrack:
    """What the tracker knows about one piece."""

    piece: str
    state: str = "unplaced"
    place: Place | None = None  # committed place
    last_seen_t: float | None = None
    unseen_since: float | None = None  # first frame (t) of the current unseen stretch
    candidate: Place | None = None  # where it has been standing (off its place) since candidate_since
    candidate_since: float | None = None
    seen_now: Place | None = None
    lifted: bool = False
    reported_missing: bool = False
    expected_gone: bool = False  # removed by the rules: its disappearance is expected
    by_hand: bool = False  # placed by a player (`place_by_hand`): the camera's reading does not overrule it
    seen_at: Place | None = None  # where the camera read it when a player placed it: seen there, it is at its place


@dataclass
class Observation:
    """One piece in one frame: where it was seen and whether its marker looked lifted off the table."""

    place: Place
    lifted: bool = False


class Tracker:
    """Feed it `update(reading, t, frame)` frame after frame; it returns the events those frames commit."""

    def __init__(self, roster: Roster, config: TrackerConfig | None = None, camera=None):
        self.roster = roster
        self.config = config or TrackerConfig()
        self.camera = camera  # CameraIntrinsics: with it, lifted markers are recognised by their size
        self.tracks: dict[str, PieceTrack] = {p.id: PieceTrack(p.id) for p in roster.pieces}
        self.t: float | None = None
        self.frame: int | None = None
        self.gap = False  # the camera went away after the last frame (`camera_gap`)
        self._lift_memo: dict[int, tuple[object, object, bool]] = {}  # id(marker) -> (marker, pose, lifted)

    # ------------------------------------------------------------------ state from outside

    def restore(self, places: dict[str, Place | None], states: dict[str, str] | None = None,
                by_hand: dict[str, Place | None] | None = None) -> None:
        """Start from committed places (a resumed record): pieces with a place are `occluded` until seen. `by_hand`:
        the pieces whose last place a player gave (`place_by_hand`), each with where the camera read it then."""
        states, by_hand = states or {}, by_hand or {}
        for pid, track in self.tracks.items():
            place = places.get(pid)
            st = states.get(pid)
            track.place = place
            track.candidate = track.candidate_since = None
            track.unseen_since = None
            track.reported_missing = st == "missing"
            track.by_hand = pid in by_hand and place is not None and st != "removed"
            track.seen_at = by_hand.get(pid) if track.by_hand else None
            if st == "removed":
                track.state = "removed"
            elif place is None:
                track.state = "unplaced"
            else:
                track.state = "missing" if st == "missing" else "occluded"

    def pending(self) -> dict[str, dict]:
        """What the tracker knows beyond the committed places and states (which a record keeps), as JSON: for each
        piece with something unsettled, where it has been settling (`candidate`: x_mm, y_mm, heading_deg, cell,
        facing) and since when (`since`, s), since when it has been out of sight (`unseen_since`) and when it was
        last seen (`last_seen_t`), whether it is `moving` or looked `lifted`, whether its leaving the table is
        `expected_gone`, and its `standing` then (`standing`: placed, missing, removed or unplaced), by which
        `resume` tells whether the committed state it comes back to is still the one these belong to."""
        out: dict[str, dict] = {}
        for pid, tr in self.tracks.items():
            d: dict = {}
            if tr.candidate is not None:
                c = tr.candidate
                d["candidate"] = [c.x_mm, c.y_mm, c.heading_deg, c.cell, c.facing]
            if tr.candidate_since is not None:
                d["since"] = tr.candidate_since
            if tr.unseen_since is not None:
                d["unseen_since"], d["last_seen_t"] = tr.unseen_since, tr.last_seen_t
            for flag in ("lifted", "expected_gone"):
                if getattr(tr, flag):
                    d[flag] = True
            if tr.state == "moving":
                d["moving"] = True
            if tr.by_hand:
                s = tr.seen_at
                d["by_hand"] = True if s is None else [s.x_mm, s.y_mm, s.heading_deg, s.cell, s.facing]
            if d:
                d["standing"] = _standing(tr)
                out[pid] = d
        return out

    def resume(self, pending: dict, stale: Iterable[str] = ()) -> None:
        """After `restore` (a resumed record): each piece's unsettled observation as `pending()` gave it when the
        record's progress was written, so that a resumed recording commits a move, a missing piece and a return
        exactly when an uninterrupted one does (a piece half settled is not settled again from the resume, which
        could commit its move after a player's later input). A piece in `stale` (an event about it was written
        since) or whose standing differs from the restored one keeps what `restore` gave it (a piece removed since
        is expected to leave the table); entries that cannot be read are passed over."""
        stale = set(stale)
        for pid, track in self.tracks.items():
            d = pending.get(pid) if isinstance(pending, dict) else None
            if pid in stale or not isinstance(d, dict) or d.get("standing") != _standing(track):
                track.expected_gone = track.expected_gone or (pid in stale and track.state == "removed")
                continue
            try:
                c = d.get("candidate")
                candidate = None if c is None else Place(float(c[0]), float(c[1]), float(c[2]), c[3], c[4])
                since, unseen = _time(d.get("since")), _time(d.get("unseen_since"))
                last_seen = _time(d.get("last_seen_t"))
            except (TypeError, ValueError, IndexError):
                continue
            track.candidate, track.candidate_since = candidate, since
            track.unseen_since, track.last_seen_t = unseen, last_seen
            track.lifted, track.expected_gone = bool(d.get("lifted")), bool(d.get("expected_gone"))
            hand = d.get("by_hand")
            if hand and track.place is not None:
                track.by_hand = True
                track.seen_at = None if hand is True else Place(float(hand[0]), float(hand[1]), float(hand[2]),
                                                                hand[3], hand[4])
            if d.get("moving") and track.state in ("occluded", "seen", "missing"):
                track.state = "moving"

    def confirm(self, piece: str, removed: bool, by: str, t: float | None = None,
                frame: int | None = None) -> TrackEvent:
        """A player's answer to a missing report (or a removal asked for at any time): removed, or still there."""
        track = self._track(piece)
        t = self.t if t is None else t
        frame = self.frame if frame is None else frame
        t, frame = (0.0 if t is None else t), (0 if frame is None else frame)
        if removed:
            place = track.place
            track.state, track.place, track.candidate = "removed", None, None
            track.reported_missing = False
            track.expected_gone = True  # until it has been off the table for a while, seeing it means nothing
            return Removed(piece, t, frame, place, by)
        track.reported_missing = False
        track.unseen_since = t  # counted again from now
        if track.state == "missing":
            track.state = "occluded"
        return Kept(piece, t, frame, track.place, by)

    def camera_gap(self) -> None:
        """The camera is gone (stalled, unplugged) after the last frame: the time until its next frame is no time
        a piece was unseen or stood still. On that frame every unseen piece's count is moved on by the gap (no
        piece reported missing because the camera was gone) and a piece settling starts its settle again (no move
        committed from frames before the gap)."""
        self.gap = True

    def _skip_gap(self, t: float) -> None:
        gap = t - self.t if self.t is not None else 0.0
        for track in self.tracks.values():
            if track.unseen_since is not None:
                track.unseen_since += gap
            track.candidate_since = None
        self.gap = False

    @staticmethod
    def _held(track: PieceTrack, since: float) -> None:
        """A piece held by the reading: occluded at its place, the `since` seconds not counted unseen."""
        if track.unseen_since is not None:
            track.unseen_since += since
        track.candidate_since = None
        track.lifted = False
        if track.state in ("seen", "moving"):
            track.state = "occluded"

    def expect_removal(self, piece: str, by: str, t: float | None = None, frame: int | None = None) -> Removed:
        """The rules took the piece off (a combat): removed now, its leaving the table is expected."""
        return self.confirm(piece, True, by, t, frame)

    def place_by_hand(self, piece: str, place: Place, seen_at: Place | None = None) -> None:
        """A player says where a piece stands: a misread place corrected, or a piece the camera cannot see (behind a
        hill, under a hand that stays) placed. It is committed there; while the camera reads it where it read it
        when the player placed it (`seen_at`) it is at its place, and while the camera cannot see it at all it
        is never reported missing. Once the camera sees it at its place, or moved elsewhere, it is tracked as
        any other piece."""
        track = self._track(piece)
        track.place, track.by_hand, track.seen_at = place, True, seen_at
        track.candidate = track.candidate_since = None
        track.unseen_since, track.reported_missing, track.lifted = None, False, False
        track.expected_gone = False
        track.state = "seen" if seen_at is not None else "occluded"

    def set_place(self, piece: str, place: Place | None) -> None:
        """Force a committed place (an undo puts a piece back where the clean record has it)."""
        track = self._track(piece)
        track.place = place
        track.candidate = track.candidate_since = None
        track.state = "occluded" if place is not None else "unplaced"

    def _track(self, piece: str) -> PieceTrack:
        try:
            return self.tracks[piece]
        except KeyError:
            raise KeyError(f"no piece {piece!r} in the roster") from None

    def states(self) -> dict[str, str]:
        return {pid: t.state for pid, t in self.tracks.items()}

    def committed(self) -> dict[str, Place]:
        return {pid: t.place for pid, t in self.tracks.items() if t.place is not None and t.state != "removed"}

    # ------------------------------------------------------------------ observations

    def observations(self, reading: TableReading) -> dict[str, Observation]:
        """The pieces a reading saw, each with its place and whether it looked lifted (by its marker's size with
        this tracker's lens, or as the reading says: a rig's fused reading)."""
        out: dict[str, Observation] = {}
        lifted = set(reading.lifted)
        if self.camera is not None:
            lifted |= self._lifted(reading)
        for p in reading.pieces:
            if p.marker in reading.conflicts:
                continue
            out[p.piece] = Observation(Place.of(p), p.piece in lifted)
        return out

    def _lifted(self, reading: TableReading) -> set[str]:
        """`lifted_pieces` of the reading, each marker's answer kept while the same detection is read with the same
        pose: a change-driven reader (vision/stream.py) hands back the unchanged markers and the standing pose as the
        same objects, and projecting every marker of every frame again was most of the tracker's time in a record."""
        return lifted_pieces(reading, self.camera, self.roster, self.config.lift_ratio, self._lift_memo)

    def update(self, reading: TableReading | None, t: float, frame: int,
               observations: dict[str, Observation] | None = None) -> list[TrackEvent]:
        """One frame at time `t` (seconds). A reading without a table pose tells nothing and changes nothing."""
        if reading is None or reading.pose is None:
            return []
        if observations is None:
            observations = self.observations(reading)
        return self.step(observations, t, frame, frozenset(reading.held))

    def step(self, seen: dict[str, Observation], t: float, frame: int,
             held: frozenset[str] = frozenset()) -> list[TrackEvent]:
        """The core: one frame's observations (piece id -> Observation) at time `t`. The pieces `held` and not
        seen (a rig's reading: known to stand where they stood while no camera shows them) are occluded at their
        place, and the time since the last frame is not counted for them (as `camera_gap` for the whole table)."""
        if self.gap:
            self._skip_gap(t)
        since = t - self.t if self.t is not None else 0.0
        for pid in held - seen.keys():
            self._held(self._track(pid), since)
        self.t, self.frame = t, frame
        events: list[TrackEvent] = []
        hidden = [tr.place for tr in self.tracks.values()
                  if tr.place is not None and tr.state != "removed" and tr.piece not in seen]
        for pid, track in self.tracks.items():
            obs = seen.get(pid)
            track.seen_now = obs.place if obs else None
            if obs is None and pid in held:
                continue
            if obs is None:
                self._unseen(track, t, frame, events)
            else:
                self._seen(track, obs, t, frame, events, hidden)
        return events

    def _clear(self, place: Place | None, me: str, hidden: list[Place]) -> bool:
        """No other piece that is out of sight this frame stands near `place` (a hand may be there)."""
        if place is None:
            return True
        mine = self.tracks[me].place
        for h in hidden:
            if h is mine:
                continue
            if h.distance(place) <= self.config.clear_radius_mm:
                return False
        return True

    def _seen(self, track: PieceTrack, obs: Observation, t: float, frame: int, events: list[TrackEvent],
              hidden: list[Place]) -> None:
        cfg = self.config
        if (track.state == "removed" and track.expected_gone and track.unseen_since is not None
                and t - track.unseen_since >= cfg.settle_s):
            track.expected_gone = False  # it was taken off the table: seen again, it is back in the game
        track.unseen_since = None
        track.last_seen_t = t
        if obs.lifted:
            track.lifted = True
            track.candidate = track.candidate_since = None
            if track.state in ("seen", "occluded", "missing"):
                track.state = "moving"
            return
        track.lifted = False
        here = obs.place
        if track.state == "removed" and track.expected_gone:
            return  # still standing where the rules removed it: the player has not taken it off yet
        if track.by_hand and track.state != "removed":
            if track.seen_at is not None and self._at(track.seen_at, here):
                track.state = "seen"  # where the camera misread it when a player corrected it: at its place
                track.candidate = track.candidate_since = None
                return
            track.by_hand, track.seen_at = False, None  # seen at its place, or moved on: the camera's again
        if track.place is not None and track.state != "removed" and self._at(track.place, here):
            if track.state == "missing" or track.reported_missing:
                track.reported_missing = False
                events.append(Appeared(track.piece, t, frame, track.place, returned=True))
            track.state = "seen"
            track.candidate = track.candidate_since = None
            return
        self._settle(track, here, t, frame, events, hidden)

    def _settle(self, track: PieceTrack, here: Place, t: float, frame: int, events: list[TrackEvent],
                hidden: list[Place]) -> None:
        """Seen off its place (or with no place): settling at a candidate place, committed once it has stood
        still for settle_s with no hand near it."""
        if track.state in ("seen", "occluded", "missing"):
            track.state = "moving"
        if track.candidate is None or not self._still(track.candidate, here):
            track.candidate, track.candidate_since = here, t
        else:
            # keep a running mean of the candidate so jitter does not drift it
            c = track.candidate
            track.candidate = Place((c.x_mm + here.x_mm) / 2, (c.y_mm + here.y_mm) / 2,
                                    here.heading_deg, here.cell, here.facing)
        old = track.place if track.state != "removed" else None
        if not (self._clear(here, track.piece, hidden) and self._clear(old, track.piece, hidden)):
            track.candidate_since = None  # a hand near the place: the settle time starts again once clear
            return
        if track.candidate_since is None:
            track.candidate_since = t
        if t - track.candidate_since + 1e-9 < self.config.settle_s:
            return
        dst = here
        if old is None:
            events.append(Appeared(track.piece, t, frame, dst, returned=track.state == "removed"))
        else:
            events.append(Moved(track.piece, t, frame, old, dst, returned=track.reported_missing))
        track.place, track.state = dst, "seen"
        track.candidate = track.candidate_since = None
        track.reported_missing = False

    def _unseen(self, track: PieceTrack, t: float, frame: int, events: list[TrackEvent]) -> None:
        cfg = self.config
        if track.unseen_since is None:
            track.unseen_since = t
        track.lifted = False
        if track.state in ("unplaced", "removed"):
            track.candidate = track.candidate_since = None
            return
        if track.state in ("seen", "moving"):
            track.state = "occluded"
        if track.by_hand and track.seen_at is None:
            track.unseen_since = None  # placed by a player where the camera cannot see it: never missing
            return
        # a candidate survives a short gap (a hand passing over the new place) but its settle time restarts
        if track.candidate is not None:
            track.candidate_since = None
        if not track.reported_missing and t - track.unseen_since + 1e-9 >= cfg.missing_after_s:
            last = track.last_seen_t if track.last_seen_t is not None else track.unseen_since
            track.reported_missing = True
            track.state = "missing"
            events.append(Missing(track.piece, t, frame, track.place, last))

    def _at(self, place: Place, here: Place) -> bool:
        cfg = self.config
        return place.distance(here) <= cfg.move_mm and abs(place.turn(here)) <= cfg.turn_deg

    def _still(self, a: Place, b: Place) -> bool:
        cfg = self.config
        return a.distance(b) <= cfg.still_mm and abs(a.turn(b)) <= cfg.still_deg


def lifted_pieces(reading: TableReading, camera, roster: Roster, lift_ratio: float,
                  memo: dict[int, tuple[object, object, bool]] | None = None) -> set[str]:
    """Pieces whose marker, cast onto the plane of its printed height with `camera` (CameraIntrinsics at the
    reading's resolution), is bigger than printed by more than `lift_ratio`: held off the table.

    `memo` (kept by the caller from frame to frame, refilled here): each marker's answer while the same detection is
    read with the same pose. A change-driven reader (vision/stream.py) hands back unchanged markers and the standing
    pose as the same objects, and projecting every marker of every frame again was most of a record's tracking."""
    if reading.pose is None:
        return set()
    by_marker = roster.by_marker()
    seen: dict[int, tuple[object, object, bool]] = {}
    out = set()
    for m in reading.markers:
        piece = by_marker.get(m.id)
        if piece is None or m.id in reading.conflicts:
            continue
        hit = memo.get(id(m)) if memo is not None else None
        if hit is not None and hit[0] is m and hit[1] is reading.pose:
            up = hit[2]
        else:
            up = marker_lifted(m.corners, piece, camera, reading.pose, lift_ratio)
        seen[id(m)] = (m, reading.pose, up)
        if up:
            out.add(piece.id)
    if memo is not None:
        memo.clear()
        memo.update(seen)
    return out


def marker_lifted(corners: np.ndarray, piece, camera, pose, lift_ratio: float) -> bool:
    """A piece's marker (corners px) cast onto the plane of its printed height is bigger than printed by more than
    `lift_ratio`: held off the table. False when the projection is degenerate."""
    try:
        c = pixels_to_table(np.asarray(corners, float), camera, pose, piece.marker_height_mm)
    except Exception:  # noqa: BLE001 - a degenerate projection says nothing about lifting
        return False
    c = np.asarray(c, float)[:, :2]
    side = float(np.mean([np.linalg.norm(c[i] - c[i - 1]) for i in range(4)]))
    px = np.asarray(corners, float)
    side_px = float(np.mean([np.linalg.norm(px[i] - px[i - 1]) for i in range(4)]))
    # a side measured to about LIFT_NOISE_PX: a small marker's size cannot tell lift_ratio apart from that noise
    # (a 9 px marker reads 3-7 % large on the cloth), so its margin grows by the noise's share of its side
    return side > piece.marker_mm * (1.0 + lift_ratio + LIFT_NOISE_PX / max(side_px, 1.0))


def _standing(track: PieceTrack) -> str:
    """A piece's committed standing as a record keeps it: removed, unplaced, missing (reported) or placed."""
    if track.state in ("removed", "unplaced"):
        return track.state
    return "missing" if track.reported_missing else "placed"


def _time(v) -> float | None:
    """A time of `Tracker.pending` (None stays None)."""
    if v is None:
        return None
    t = float(v)
    if not math.isfinite(t):
        raise ValueError(v)
    return t


def run_tracker(tracker: Tracker, frames: Iterable[tuple[float, int, TableReading]]) -> list[TrackEvent]:
    """All events of a stream of (t, frame number, reading)."""
    out: list[TrackEvent] = []
    for t, n, reading in frames:
        out.extend(tracker.update(reading, t, n))
    return out


__all__ = [
    "STATES", "Appeared", "Kept", "Missing", "Moved", "Observation", "PieceTrack", "Place", "Removed", "TrackEvent",
    "Tracker", "TrackerConfig", "lifted_pieces", "marker_lifted", "run_tracker",
]
