"""A scripted game played through the dashboard (offscreen) while it records, and the same game recorded headless.

The camera is replaced by the pieces' true places (fieldglass/scripted_feed.py: readings made from places, five
frames a second; on a table of several surfaces, a battle board beside a map, with the other surfaces' anchors as
the camera sees them, so that each is registered from them), handed to the window as the capture worker hands it
frames (`MainWindow.show_result`); the
players act through the window's own controls (a click's signal, the combat panel, the menus' slots). Every input
the dashboard sends its recorder is kept with the frame it followed, written as an inputs file, and recorded again
by `fieldglass record`'s loader and recorder (`load_inputs`, `GameRecorder`, `record_stream`) over the same
readings: the two records must hold the same events.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from calibration.board import anchor_corners_mm
from common.fields import snap_facing
from fieldglass.inputs import load_inputs
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, record_stream
from fieldglass.scripted_feed import FRAME_S
from fieldglass.table_recording import recording_meta
from gui.worker import FrameResult
from vision.markers import MarkerDetection
from vision.pieces import PiecePose, TableReading
from vision.synthetic import VirtualCamera
from vision.tracking import TrackerConfig

IGNORED = ("input", "redoes_input", "seed_rolled")
"""Data keys that name how an event came about, not what it is (the input's id, the id of the input a redo writes
again)."""


class TableGame:
    """Frames made from places, handed to a dashboard window; the inputs it recorded, by frame."""

    def __init__(self, app, window, setup, places: dict[str, list[float]]):
        self.app, self.win, self.setup = app, window, setup
        self.places = {pid: list(p) for pid, p in places.items()}
        self.markers = {p.id: p.marker for p in window.session.roster.pieces}
        self.grid = setup.layout.grid
        self.frame = -1
        self.rec = window.recording  # the dashboard's recording (kept: the window lets go of it at the end)
        self.readings: list[tuple[int, float, TableReading]] = []
        view = VirtualCamera.looking_at_table(setup.layout.width_mm, setup.layout.depth_mm, (320, 180))
        self.camera, self.camera_pose = view.intrinsics, view.pose
        self.anchors = surface_anchors(setup, view)

    def pose(self, pid: str, x: float, y: float, h: float) -> PiecePose:
        if self.grid is None:
            return PiecePose(pid, self.markers[pid], x, y, h)
        facing, residual = snap_facing(h)
        return PiecePose(pid, self.markers[pid], x, y, h, facing, residual, self.grid.name_at(x, y),
                         self.grid.edge_distance_mm(x, y))

    def reading(self, seen: dict | None = None) -> TableReading:
        seen = self.places if seen is None else seen
        return TableReading(self.camera_pose, tuple(self.pose(pid, *p) for pid, p in seen.items()), (), (),
                            self.anchors)

    def frames(self, n: int, seen: dict | None = None, throw=None) -> None:
        """`n` frames of the table as it stands (or `seen`), each shown by the window; `throw` (a DiceThrow) comes
        with the first, as the capture worker hands a throw of dice that settled."""
        for _ in range(n):
            self.frame += 1
            t = self.frame * FRAME_S
            reading = self.reading(seen)
            self.readings.append((self.frame, t, reading))
            result = FrameResult(self.frame, np.zeros((180, 320, 3), np.uint8), reading, self.camera, None, 2.0,
                                 5.0, 1.0, t=t, throw=throw)
            throw = None
            self.win.show_result(result)
            self.app.processEvents()

    def move(self, pid: str, x: float, y: float, h: float | None = None, settle: int = 8) -> None:
        h = self.places[pid][2] if h is None else h
        self.places[pid] = [x, y, h]
        self.frames(settle)

    def flush(self) -> None:
        self.win.recording.flush()
        self.win.poll_recording()
        self.app.processEvents()

    def inputs_file(self, path: Path) -> Path:
        """The inputs the dashboard recorded, as `fieldglass record --inputs` reads them."""
        lines = [json.dumps({k: v for k, v in inp.items() if k != "_id"}) for inp in self.rec.sent]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def record_headless(self, inputs: Path, out: Path) -> Path:
        """The same readings and inputs recorded as `fieldglass record --inputs` records them (with the intrinsics
        the frames were read with)."""
        meta = recording_meta(self.setup)
        record = Record.create(out, meta)
        recorder = GameRecorder.start(record, None, TrackerConfig(settle_s=1.0), self.camera)
        frames = ((i, t, reading) for i, t, reading in self.readings)
        record_stream(recorder, frames, lambda r: r, load_inputs(inputs, {p["id"] for p in meta["roster"]}),
                      picture=lambda r: None)
        record.close()
        return out


def surface_anchors(setup, view: VirtualCamera) -> tuple[MarkerDetection, ...]:
    """The anchors of the set-up's other surfaces (`Setup.surfaces`: a battle board beside a map) as `view` sees them
    where the layout has them on the table; none for a table of one surface."""
    ids = {a.id for board in (getattr(setup, "surfaces", None) or {}).values() for a in board.anchors}
    return tuple(MarkerDetection(a.id, view.project(np.column_stack([anchor_corners_mm(a), np.zeros(4)])))
                 for a in setup.layout.anchors if a.id in ids)


def events_of(path: Path) -> list[tuple]:
    """A record's events as the comparison reads them: type, piece, frame, turn and data (not wall times nor the
    input ids), undone ones marked."""
    with Record.open(path) as record:
        return [(e.type, e.piece, e.frame, e.turn, e.undone, _plain({k: v for k, v in e.data.items()
                                                                     if k not in IGNORED}))
                for e in record.events()]


def _plain(v):
    return json.loads(json.dumps(v, sort_keys=True))


__all__ = ["TableGame", "events_of"]
