"""A rig's cameras read frame after frame: one table reading per instant, as one camera's stream gives it.

At each instant every camera's frame (None when that camera gave none: stalled, ended) is read by that camera's own
reader (registered to the table from the anchors it sees, only what changed read again: vision/stream.py
`LiveReader`), and the cameras' readings are fused (vision/rig.py `fuse_views`) into one `TableReading` in table
mm, the shape the tracker (vision/tracking.py) consumes.

Two things a plain fusion would get wrong:

* A hand seen by one camera only. A camera that loses a piece where its picture changed (a hand over it) keeps it
  *hidden*: while it is, the piece is left out of the fused reading even when another camera still sees it there,
  and the reading says it is `held` (the tracker keeps it `occluded` at its place without counting the time, and
  commits no neighbour's move beside it). It stops being
  hidden when that camera sees it again, when another camera sees it away from where it was hidden (it was carried
  off), or when the camera's picture around it has stood still for `hold_s` without showing it (no hand there now).
* A camera that is gone (no frame, or no anchors seen). The pieces it saw last, where no working camera can see
  their place, are `held` too: they keep their place and their time unseen does not count, so a stalled camera
  makes no piece missing; the others go on reading.

Pure logic over the frames it is given (no capture, no clock of its own: times are the frames' timestamps).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from calibration.camera import CameraIntrinsics
from calibration.layout import TableLayout
from calibration.projection import table_to_pixels
from calibration.registration import TableRegistration
from vision.pieces import PiecePose, TableReading, camera_for_frame
from vision.rig import CameraView, RigReading, fuse_views
from vision.roster import Roster
from vision.stream import ChangeConfig, FrameWork, LiveReader
from vision.tracking import TrackerConfig, lifted_pieces

HOLD_S = 1.0
"""Seconds a piece stays hidden in a camera whose picture around it stands still without showing it."""

# A camera's status at one instant: its frame read with the table registered, read without anchors enough to
# register it, or no frame from it.
READING, UNREGISTERED, NO_FRAME = "reading", "unregistered", "no frame"

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 px, the end exclusive


class CameraReader(Protocol):
    """One camera's consecutive frames -> TableReading, and what it re-read for the last one."""

    def read(self, image: np.ndarray) -> TableReading: ...

    @property
    def work(self) -> FrameWork: ...


def live_reader(registration: TableRegistration, roster: Roster) -> CameraReader:
    """The default reader of one camera: each change read at once (as a record reads a single camera)."""
    return LiveReader(registration, roster, ChangeConfig(settle=False))


@dataclass(frozen=True)
class Hidden:
    """A piece one camera lost under a hand: where that camera last saw it (table mm, its marker's centre px) and
    the last time (s) the camera's picture changed around it."""

    place: PiecePose
    centre_px: tuple[float, float]
    touched_t: float


@dataclass
class _Camera:
    """What the rig reader keeps of one camera between instants."""

    name: str
    intrinsics: CameraIntrinsics  # as calibrated
    camera: CameraIntrinsics | None = None  # at its frames' resolution, from its first frame
    reader: CameraReader | None = None
    size: tuple[int, int] = (0, 0)  # its frames' width and height px
    seen: dict[str, tuple[PiecePose, tuple[float, float]]] = field(default_factory=dict)  # last reading's pieces
    hidden: dict[str, Hidden] = field(default_factory=dict)
    reading: TableReading | None = None  # this instant's (None: no frame)
    lift_memo: dict = field(default_factory=dict)  # its markers' lifted answers (vision/tracking.py lifted_pieces)


@dataclass(frozen=True)
class RigFrame:
    """One instant of the rig read.

    `reading`: the fused table reading the tracker consumes (pose None when no camera is registered); `fused`: the
    fusion itself (views per piece, disagreements); `views`: each camera's own reading this instant; `status`:
    camera name -> READING, UNREGISTERED or NO_FRAME; `hidden`: camera name -> the pieces it holds hidden under a
    hand; `regions`: camera name -> the boxes (px) of its picture read again this instant (a full scan: the whole
    frame)."""

    reading: TableReading
    fused: RigReading
    views: tuple[CameraView, ...]
    status: dict[str, str]
    hidden: dict[str, tuple[str, ...]]
    regions: dict[str, tuple[Box, ...]]


class RigStreamReader:
    """`read(images, t)` -> RigFrame for consecutive instants of the rig's cameras (`cameras`: (name, intrinsics)
    in the rig's order; `images` one frame or None per camera, in that order; `t` seconds)."""

    def __init__(self, layout: TableLayout, roster: Roster, cameras: Sequence[tuple[str, CameraIntrinsics]],
                 reader: Callable[[TableRegistration, Roster], CameraReader] = live_reader,
                 tracker: TrackerConfig | None = None, hold_s: float = HOLD_S):
        self.layout, self.roster = layout, roster
        self.cameras = [_Camera(name, intr) for name, intr in cameras]
        self.make_reader = reader
        self.config = tracker or TrackerConfig()
        self.hold_s = hold_s
        self.heights = {p.id: p.marker_height_mm for p in roster.pieces}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.cameras)

    def read(self, images: Sequence[np.ndarray | None], t: float) -> RigFrame:
        if len(images) != len(self.cameras):
            raise ValueError(f"{len(images)} frames for {len(self.cameras)} cameras")
        regions: dict[str, tuple[Box, ...]] = {}
        lifted: set[str] = set()
        for cam, image in zip(self.cameras, images, strict=True):
            regions[cam.name] = self._read_camera(cam, image, t)
            if cam.reading is not None and cam.reading.pose is not None:
                lifted |= lifted_pieces(cam.reading, cam.camera, self.roster, self.config.lift_ratio, cam.lift_memo)
        views = tuple(CameraView(c.name, c.camera, c.reading) for c in self.cameras if c.reading is not None)
        fused = fuse_views(views, self.roster, self.layout.grid)
        pieces, under_hands = self._unhidden(fused)
        ids = {p.piece for p in pieces}
        pose = next((v.reading.pose for v in views if v.reading.pose is not None), None)
        reading = TableReading(pose, tuple(pieces), fused.unknown, fused.conflicts, (),
                               tuple(sorted(lifted & ids)), tuple(sorted(under_hands | self._out_of_view(ids))))
        status = {c.name: NO_FRAME if c.reading is None else READING if c.reading.pose is not None else UNREGISTERED
                  for c in self.cameras}
        hidden = {c.name: tuple(sorted(c.hidden)) for c in self.cameras}
        return RigFrame(reading, fused, views, status, hidden, regions)

    # ------------------------------------------------------------------ one camera

    def _read_camera(self, cam: _Camera, image: np.ndarray | None, t: float) -> tuple[Box, ...]:
        """Read one camera's frame; keep what it saw and what it lost under a hand. Returns the boxes it re-read."""
        if image is None:
            cam.reading = None
            return ()
        if cam.reader is None:
            cam.camera = camera_for_frame(cam.intrinsics, image, cam.name)
            cam.reader = self.make_reader(TableRegistration(self.layout, cam.camera), self.roster)
            cam.size = (image.shape[1], image.shape[0])
        reading = cam.reader.read(image)
        cam.reading = reading
        work = cam.reader.work
        boxes = ((0, 0, *cam.size),) if work.kind == "full" else tuple(work.regions)
        if reading.pose is None:
            return boxes  # what it saw before stands for the rig as out of view; nothing new is hidden
        centres = {m.id: tuple(np.asarray(m.corners, float).mean(axis=0)) for m in reading.markers}
        now = {p.piece: (p, centres.get(p.marker, (math.nan, math.nan))) for p in reading.pieces
               if p.marker not in reading.conflicts}
        for pid, (pose, centre) in cam.seen.items():
            if pid not in now and _inside(centre, boxes):
                cam.hidden[pid] = Hidden(pose, centre, t)  # lost where its picture changed: a hand over it
        for pid, h in list(cam.hidden.items()):
            if pid in now:
                del cam.hidden[pid]  # seen again
            elif _inside(h.centre_px, boxes):
                cam.hidden[pid] = Hidden(h.place, h.centre_px, t)
            elif t - h.touched_t > self.hold_s:
                del cam.hidden[pid]  # its picture stood still without showing it: no hand there now
        cam.seen = now
        return boxes

    # ------------------------------------------------------------------ the rig

    def _unhidden(self, fused: RigReading) -> tuple[list[PiecePose], set[str]]:
        """The fused pieces less those a camera holds hidden where another still sees them (and those, held); a
        piece seen away from where a camera hid it was carried off: that camera lets it go."""
        out, held = [], set()
        for fp in fused.pieces:
            p = fp.pose
            holders = [c for c in self.cameras if p.piece in c.hidden and c.reading is not None]
            here = [c for c in holders if math.hypot(c.hidden[p.piece].place.x_mm - p.x_mm,
                                                     c.hidden[p.piece].place.y_mm - p.y_mm) <= self.config.move_mm]
            for c in holders:
                if c not in here:
                    del c.hidden[p.piece]
            if here:
                held.add(p.piece)
            else:
                out.append(p)
        return out, held

    def _out_of_view(self, seen: set[str]) -> set[str]:
        """Pieces a camera that is gone (no frame, no anchors) saw last, unseen now, whose place no working camera
        can see: their camera is gone, not the pieces."""
        working = [c for c in self.cameras if c.reading is not None and c.reading.pose is not None]
        out = set()
        for cam in self.cameras:
            if cam in working:
                continue
            last = {pid: pose for pid, (pose, _) in cam.seen.items()}
            last.update({pid: h.place for pid, h in cam.hidden.items()})
            for pid, pose in last.items():
                if pid not in seen and not any(self._in_view(c, pose) for c in working):
                    out.add(pid)
        return out

    def _in_view(self, cam: _Camera, pose: PiecePose) -> bool:
        """Whether `cam`'s frame shows the table point where `pose` stands (its marker's height), a marker's width
        inside the frame's edges."""
        pt = np.array([[pose.x_mm, pose.y_mm, self.heights.get(pose.piece, 0.0)]])
        x, y = table_to_pixels(pt, cam.camera, cam.reading.pose)[0]
        w, h = cam.size
        margin = 0.02 * max(w, h)
        return bool(margin <= x <= w - margin and margin <= y <= h - margin)


def _inside(centre: tuple[float, float], boxes: Sequence[Box]) -> bool:
    x, y = centre
    return any(x0 <= x < x1 and y0 <= y < y1 for x0, y0, x1, y1 in boxes)


__all__ = ["HOLD_S", "NO_FRAME", "READING", "UNREGISTERED", "CameraReader", "Hidden", "RigFrame", "RigStreamReader",
           "live_reader"]
