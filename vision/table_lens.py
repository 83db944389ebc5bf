"""The lens refined from the table (calibration/lens.py), wired to the detector and the roster: for one photo
(`choose_from_markers`, `fieldglass locate`) and for a camera's stream (`StreamLens`, the dashboard and the
recorder), the lens refined where that is measurably better (`calibration.lens.choose_lens`), else the camera
file's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.layout import TableLayout
from calibration.lens import LensChoice, LensFit, MarkerSighting, choose_lens, refine_lens
from calibration.pose import estimate_pose
from calibration.registration import TableRegistration, bumped
from vision.markers import MarkerDetection, detect_markers
from vision.pieces import TableReading, locate_pieces
from vision.roster import Roster


def detect_table_markers(frame: np.ndarray, layout: TableLayout, roster: Roster | None) -> list[MarkerDetection]:
    """Every marker in the photo, in the layout's dictionary and the roster's if that differs."""
    markers = detect_markers(frame, layout.dictionary)
    if roster is not None and roster.dictionary != layout.dictionary:
        markers += detect_markers(frame, roster.dictionary)
    return markers


def sightings(
    markers: Sequence[MarkerDetection], layout: TableLayout, roster: Roster | None
) -> tuple[dict[int, np.ndarray], list[MarkerSighting]]:
    """The anchors' corners by id, and the roster pieces' markers with their size and height. A marker seen twice
    is left out: we cannot tell which one is real."""
    seen = Counter(m.id for m in markers)
    pieces = roster.by_marker() if roster is not None else {}
    anchors, found = {}, []
    for m in markers:
        if seen[m.id] > 1:
            continue
        if m.id in layout.anchor_ids:
            anchors[m.id] = np.asarray(m.corners, float)
        elif m.id in pieces:
            p = pieces[m.id]
            found.append(MarkerSighting(np.asarray(m.corners, float), p.marker_mm, p.marker_height_mm))
    return anchors, found


def refine_from_markers(
    markers: Sequence[MarkerDetection], layout: TableLayout, roster: Roster | None, camera: CameraIntrinsics
) -> LensFit | None:
    """`refine_lens` on one photo's detected markers; None when its anchors give no pose."""
    anchors, pieces = sightings(markers, layout, roster)
    return refine_lens(anchors, layout, camera, pieces)


def choose_from_markers(
    markers: Sequence[MarkerDetection], layout: TableLayout, roster: Roster | None, camera: CameraIntrinsics,
    check: bool = True,
) -> LensChoice:
    """`choose_lens` on one photo's detected markers: the refined lens where measurably better, else `camera`."""
    anchors, pieces = sightings(markers, layout, roster)
    return _choose(anchors, layout, camera, pieces, check)


def _choose(anchors, layout, camera, pieces, check: bool = True) -> LensChoice:
    """`choose_lens`, a fit that breaks down (a degenerate view) said as a reason and the camera file's lens kept:
    refining is a gain, never a reason to lose a reading."""
    try:
        return choose_lens(anchors, layout, camera, pieces, check=check)
    except (cv2.error, np.linalg.LinAlgError, FloatingPointError, ValueError) as exc:
        return LensChoice(camera, False, f"refining it failed ({type(exc).__name__}: {str(exc)[:80]})")


class StreamLens:
    """The lens a camera's stream is read with (the dashboard, the recorder), kept in its `registration`.

    The camera file's lens until a frame allows the choice (`choose_lens` on the frame's anchors and piece markers),
    then what was chosen, kept while the camera stays put: a frame's reading is handed to `after`, which places its
    pieces again when the lens changed. The choice is made again when the camera moves (its centre BUMP_MM, as
    `calibration.registration.bumped`) and, after a refusal for want of anchors, when more come into view; a check
    that found no gain is final until the camera moves. The first choice is made in the frame that allows it, so
    the first places read (a record's start) are read with it; a later one, with `background` (a live camera),
    in a thread of its own and taken up at the first frame after it is done, so no frame of a game under way waits
    for it; without (a video, photos), in the frame that allows it, so the same frames get the same lens every run.
    Disabled (`--no-refine-lens`), the camera file's lens is used throughout.
    """

    def __init__(self, registration: TableRegistration, roster: Roster, *, enabled: bool = True,
                 background: bool = False, name: str = "the camera file",
                 on_note: Callable[[str], None] | None = None):
        self.registration, self.roster, self.enabled = registration, roster, enabled
        self.background, self.name, self.on_note = background, name, on_note
        self.camera = registration.camera  # the camera file's lens (at the frames' size): every choice starts there
        self.choice: LensChoice | None = None  # the last choice made, None before one
        self.note = (f"lens: {name} as calibrated (--no-refine-lens)" if not enabled else
                     f"lens: {name} as calibrated (not refined yet: waiting for a frame with the anchors in view)")
        self._settled_pose: CameraPose | None = None  # where the camera was when the lens was last settled
        self._tried_anchors = 0  # anchors in view when the choice was last not tried for want of them
        self._pending: CameraIntrinsics | None = None  # a lens chosen whose frame's pose could not be refitted
        self._job: Future | None = None
        self._job_pose: CameraPose | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._settled_once = False  # a choice was checked (refined or not) since the stream began

    def after(self, reading: TableReading) -> TableReading | None:
        """The frame just read: None when the lens stays, else the reading with its pieces placed again with the
        newly chosen lens (and the pose fitted again with it); the registration then holds that lens and pose."""
        if not self.enabled or reading.pose is None:
            return None
        if self._pending is not None:
            return self._relocate(self._pending, reading)
        if self._job is not None:
            if not self._job.done():
                return None
            job, self._job = self._job, None
            if bumped(self._job_pose, reading.pose):  # chosen for where the camera was before: choose again
                return None
            return self._take(job.result(), reading)
        if self._settled_pose is not None and not bumped(self._settled_pose, reading.pose):
            return None
        anchors, pieces = sightings(reading.markers, self.registration.layout, self.roster)
        if self._settled_pose is None and self._tried_anchors and len(anchors) <= self._tried_anchors:
            return None  # not tried for want of anchors: wait for more of them
        layout = self.registration.layout
        if self.background and self._settled_once:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="fieldglass-lens")
            self._job = self._pool.submit(_choose, anchors, layout, self.camera, pieces)
            self._job_pose = reading.pose
            return None
        return self._take(_choose(anchors, layout, self.camera, pieces), reading)

    def _take(self, choice: LensChoice, reading: TableReading) -> TableReading | None:
        self.choice = choice
        if not choice.tried:  # too few anchors, too little of the table: the lens in use stays
            self._tried_anchors = len(sightings(reading.markers, self.registration.layout, None)[0])
            self._settled_pose = None
            if self.registration.lens is self.camera:
                self._say(choice.describe(self.name))
            return None
        self._tried_anchors, self._settled_pose, self._settled_once = 0, reading.pose, True
        self._say(choice.describe(self.name))
        if choice.camera is self.registration.lens:
            return None
        return self._relocate(choice.camera, reading)

    def _relocate(self, lens: CameraIntrinsics, reading: TableReading) -> TableReading | None:
        """The registration's lens set to `lens`, the pose fitted again with it from this frame's anchors and the
        reading's pieces placed again; None (and tried again next frame) when the anchors give no good pose."""
        registration = self.registration
        anchors = {m.id: m.corners for m in reading.markers if m.id in registration.layout.anchor_ids}
        pose = estimate_pose(anchors, registration.layout, lens)
        if pose is None or pose.reprojection_px > registration.max_reprojection_px:
            self._pending = lens
            return None
        self._pending = None
        registration.pose, registration.lens, registration.fresh = pose, lens, True
        self._settled_pose = pose
        pieces, unknown, conflicts = locate_pieces(reading.markers, self.roster, registration.layout, lens, pose)
        return TableReading(pose, tuple(pieces), tuple(unknown), tuple(conflicts), reading.markers)

    def _say(self, note: str) -> None:
        if note != self.note:
            self.note = note
            if self.on_note is not None:
                self.on_note(note)

    def wait(self) -> None:
        """Until a choice worked out in the background is done (it is taken up at the next frame)."""
        if self._job is not None:
            self._job.exception()

    def close(self) -> None:
        """Let go of the background thread (a choice under way is dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
