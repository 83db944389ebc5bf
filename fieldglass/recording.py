"""Recording a game headless: frames -> detection -> tracking -> the game record.

`GameRecorder` ties a `vision.tracking.Tracker` to a `fieldglass.record.Record`: every event the tracker commits
is written at once (one transaction each), and the players' inputs (turns and phases, combats resolved by the
rules engine on the *committed* position, markers, formations, notes, bookmarks, answers to missing reports,
undo) are written in between. `record_stream` runs it over any frame source; `fieldglass record` is its CLI.

The players' inputs of a filmed game come from a JSON Lines file (fieldglass/inputs.py: every kind, its keys and
an example), those of a game played at the dashboard from its actions (fieldglass/table_recording.py); both are the
same dicts, applied after the frame they follow.
"""

from __future__ import annotations

import json
import math
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from calibration.layout import TableLayout, layout_to_toml
from calibration.registration import TableRegistration
from common.errors import InputError
from common.files import read_toml
from fieldglass.boards import board_layout
from fieldglass.inputs import check_pieces, place_from_input, unknown_piece, where
from fieldglass.progress import progress
from fieldglass.record import Event, Record
from fieldglass.recorded import RecordedGame, board_meta, system_of
from fieldglass.surfaces import SURFACE_EVENT, SurfaceRegistry, pose_data, pose_moved
from rules.live import LiveRules
from rules.system import game_system, table_system
from vision.pieces import camera_for_frame
from vision.record_reader import RECORD_CHANGES, RecordChanges
from vision.roster import Roster, roster_to_toml
from vision.sources import ImageSource, VideoSource, image_folder, is_live, open_source, read_image
from vision.stream import ChangeConfig, FrameWork, LiveReader
from vision.synthetic import SyntheticSource, demo_scene
from vision.table_lens import StreamLens
from vision.tracking import Appeared, Moved, Place, Tracker, TrackerConfig, TrackEvent

_PLAIN_INPUTS = ("phase", "note", "bookmark", "marker", "formation", "state")
THUMB_WIDTH = 320
HEARTBEAT_S = 1.0

def record_meta(system: str, layout: TableLayout, roster: Roster, camera=None, rules_options: dict | None = None,
                players: list[str] | None = None, source: str | None = None) -> dict:
    """The metadata a new record starts with."""
    grid = layout.grid
    return {
        "system": system,
        "rules_options": rules_options or {},
        "layout": {
            "toml": layout_to_toml(layout),
            "width_mm": layout.width_mm,
            "depth_mm": layout.depth_mm,
            "grid": None if grid is None else {"origin_x_mm": grid.origin_x_mm, "origin_y_mm": grid.origin_y_mm,
                                               "field_mm": grid.field_mm, "cols": grid.cols, "rows": grid.rows},
        },
        "roster": [{"id": p.id, "marker": p.marker, "side": p.side, "type": p.type, "base_mm": list(p.base_mm),
                    "marker_mm": p.marker_mm, "marker_height_mm": p.marker_height_mm,
                    "marker_offset_mm": list(p.marker_offset_mm), **({"short": p.short} if p.short else {})}
                   for p in roster.pieces],
        "roster_toml": roster_to_toml(roster),
        "calibration": None if camera is None else camera.to_json(),
        "players": players or [],
        "source": source,
    }


def system_meta(system: str, layout: TableLayout | None, roster: Roster, camera=None,
                rules_options: dict | None = None, players: list[str] | None = None, source: str | None = None,
                setup=None, board_path: str | None = None) -> dict:
    """The metadata a new record of any system starts with: `record_meta` over the roster as the system's live
    session tracks it, what the system keeps to rebuild its game (its live rules' `record_meta`, from `setup`: a
    set-up of today's loaders, None where the system needs none) and, for a system on a printed board (by its kind
    of table), the board (`board_path`: its file, None for the demo board), which is then the record's table."""
    game = game_system(system)
    live = (game.live or LiveRules)(table_system(system), setup)
    board = getattr(setup, "board", None) if game.table == "board" else None
    if board is not None:
        layout = board_layout(board)  # a record keeps a printed board's places in board mm: the board is the table
    meta = record_meta(system, layout, live.tracked_roster(roster), camera, rules_options, players, source)
    if board is not None:
        meta["board"] = board_meta(board_path)
    return live.record_meta(meta)


def thumbnail(image: np.ndarray | None, width: int = THUMB_WIDTH) -> bytes | None:
    if image is None:
        return None
    h, w = image.shape[:2]
    small = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 70])
    return buf.tobytes() if ok else None


@dataclass
class GameRecorder:
    """The tracker's events and the players' inputs, written to the record as they happen, for every system: the
    record's game (fieldglass/recorded.py `RecordedGame`) asks the system's live rules (rules/live.py) how the camera's
    readings are tracked (`record_read`), which inputs it takes (`check_input`), what a turn and a combat resolved by
    its engine write (`record_turn`, `record_combat`) on the position placed as the live dashboard places it."""

    record: Record
    roster: Roster
    tracker: Tracker
    on_event: Callable[[Event], None] | None = None
    written: int = 0  # events this recorder wrote (a count: the events themselves are not kept)
    game: RecordedGame | None = None
    surface_registry: SurfaceRegistry | None = None
    _input_id: str | None = None
    _applied: set[str] | None = None
    _kept_up: bool = False  # the game has folded in every event of the record (`now`)
    _read: tuple[int, float] | None = None  # the frame read last (frame, t)
    _before: tuple[int, float, dict] | None = None  # the frame read before it, with the tracker's pending state then
    _beat: int = -1  # the frame the record's progress names
    _undone: list = field(default_factory=list)  # the events each undo of this recorder took back (`redo`)

    @classmethod
    def start(cls, record: Record, roster: Roster | None = None, config: TrackerConfig | None = None, camera=None,
              on_event=None) -> GameRecorder:
        """A recorder over a new or resumed record: the tracker starts from the record's committed places.
        `roster` is the tracked roster (default: the record's own), `camera` the intrinsics the tracker tells a
        lifted marker with."""
        config = config or TrackerConfig()
        game = RecordedGame(record.meta, roster=roster, settle_s=config.settle_s)
        tracker = Tracker(game.roster, config, camera)
        rec = cls(record, game.roster, tracker, on_event, game=game,
                  surface_registry=SurfaceRegistry(game.surface_boards, camera))
        rec.sync_tracker()
        rec.resume_tracker()
        return rec

    def sync_tracker(self) -> None:
        """Committed places and states from the record's clean state (a resume, an undo)."""
        places, states = {}, {}
        for p in self.record.state().pieces.values():
            if p.x_mm is not None and p.status in ("on", "missing"):
                places[p.id] = Place(p.x_mm, p.y_mm, p.heading_deg or 0.0, p.cell, p.facing)
            states[p.id] = p.status
        self.tracker.restore(places, states, self._placed_by_hand())
        self.now()  # the other surfaces' poses as last recorded: a figure is located on them until they move

    def _placed_by_hand(self) -> dict[str, Place | None]:
        """The pieces whose last place a player gave (a `place` input), each with where the camera read it then."""
        out: dict[str, Place | None] = {}
        for e in self.record.events(clean=True):
            if e.type in ("move", "appeared") and e.piece:
                if e.data.get("by_hand"):
                    seen = e.data.get("seen_at")
                    out[e.piece] = None if not isinstance(seen, dict) else Place.from_json(seen)
                else:
                    out.pop(e.piece, None)
            elif e.type == "removed" and e.piece:
                out.pop(e.piece, None)
        return out

    def resume_tracker(self) -> None:
        """A resumed record: the tracker goes on with what it held unsettled when the record's progress was last
        written (a piece settling, one out of sight, `Tracker.resume`), so that the frames read again from the
        progress on commit exactly what an uninterrupted recording commits, in the same order among the players'
        inputs. A piece an event was written about since then starts afresh; a record whose progress keeps no
        tracker state (older records) resumes as before: each unsettled piece settles again from the resume."""
        progress = self.record.progress
        if "frame" in progress:
            self._beat = int(progress["frame"])
            self._read = (self._beat, float(progress.get("t", 0.0)))
        pending, seq = progress.get("tracker"), progress.get("seq")
        if not isinstance(pending, dict) or not isinstance(seq, int):
            return
        stale: set[str] = set()
        for e in self.record.events():
            if e.seq > seq:
                stale.update(p for p in (e.piece, *(ch.get("piece") for ch in e.data.get("changes") or ()
                                                    if isinstance(ch, dict))) if isinstance(p, str))
        self.tracker.resume(pending, stale)

    def use_camera(self, camera) -> None:
        """The intrinsics the frames are read with from now on (a source that brings its own camera, as the
        dashboard's synthetic table does, where the set-up has none): the tracker tells a lifted marker with them and
        the other surfaces are registered with them, as `fieldglass record` does with its source's camera."""
        self.tracker.camera = camera

    def heartbeat(self, frame: int, t: float) -> None:
        """Note in the record that every frame up to `frame` (at `t`) and its inputs are in, with what the
        tracker holds unsettled now (the record's progress: where and how a resume goes on)."""
        self.record.heartbeat(frame, t, self.tracker.pending())
        self._beat = frame

    def _forget_pending(self) -> None:
        """An undo starts the tracker afresh from the clean record (`sync_tracker`): the unsettled state the
        record's progress keeps, and the one before this frame, are no longer the tracker's. Until the next frame
        is read a resume starts afresh too (as records without it do); the progress is not moved on, since this
        frame's later inputs are still to come."""
        self._before = None
        progress = self.record.progress
        if "tracker" in progress:
            self.record.heartbeat(int(progress["frame"]), float(progress.get("t", 0.0)))

    def _progress_before(self, frame: int | None) -> tuple[int, float, dict] | None:
        """The progress written with the first event of the frame being read (in its transaction): the frame read
        before it, with the tracker's state then. A recorder killed while writing the events of a frame resumes at
        that frame (`open_record`: from the last event's frame) with the tracker as it was before reading it, so
        it commits the frame's events not yet written exactly as it would have. None: the progress is there."""
        b = self._before
        if frame is None or b is None or self._read is None or frame != self._read[0] or self._beat >= b[0]:
            return None
        return b

    def _write(self, kind: str, t: float, frame: int | None, piece: str | None = None, data: dict | None = None,
               image: np.ndarray | None = None, extra_thumbnails: tuple = ()) -> Event:
        if self._input_id is not None:
            data = {**(data or {}), "input": self._input_id}
        beat = self._progress_before(frame)
        ev = self.record.append(kind, t, frame, piece, data, thumbnail=thumbnail(image) if image is not None else None,
                                progress=beat, extra_thumbnails=extra_thumbnails)
        if beat is not None:
            self._beat = beat[0]
        self.written += 1
        if self._kept_up:
            self.game.add(ev)
        if self.on_event:
            self.on_event(ev)
        return ev

    def write_track_event(self, e: TrackEvent, extra: dict | None = None) -> Event:
        """A tracker's event (with `extra` data: a player's `place`); on a printed board a move or an appearance
        keeps the area and position it ends in (and on a table of several surfaces, the surface)."""
        data = {**e.data(), **(extra or {})}
        place = data.get("to") or data.get("at")
        if self.game.board is not None and place and e.type in ("move", "appeared"):
            pl = self.game.locate(float(place["x_mm"]), float(place["y_mm"]))
            data["area"], data["position"] = pl.area, pl.position
            if pl.surface:
                data["surface"] = pl.surface
            if pl.on_border:
                data["on_border"] = True
        return self._write(e.type, e.t, e.frame, e.piece, data)

    def now(self) -> RecordedGame:
        """The record's game after its last event. The events are read from the record once (a start, a resume, an
        undo) and folded into the game's summary of them (`RecordedGame.add`), which then takes each event this
        recorder writes: reading them all again at every turn made a four-hour game's recording slow down as it
        grew, and keeping them all made its memory grow (`fieldglass bench soak`)."""
        if not self._kept_up:
            self.game.at(self.record.state(), self.record.events())
            self._kept_up = True
        return self.game.moment(self.record.state())

    def feed(self, reading, t: float, frame: int, image: np.ndarray | None = None) -> list[Event]:
        """One frame's reading: the events it commits, already written."""
        self._before = None if self._read is None else (*self._read, self.tracker.pending())
        self._read = (frame, t)
        if reading is None or reading.pose is None:
            return []
        self.game.record_state = self.record.state()
        out = self.register_surfaces(reading, t, frame, image)
        reading, more = self.game.live.record_read(self.game, reading, t)
        out += [self.write_track_event(e) for e in self.tracker.update(reading, t, frame)]
        for ev in more:
            out.append(self._write(ev["type"], t, frame, ev.get("piece"), ev.get("data"), image))
        return out

    def camera_gap(self) -> None:
        """The camera is gone until its next frame: that time is not counted (vision/tracking.py `camera_gap`)."""
        self.tracker.camera_gap()

    def register_surfaces(self, reading, t: float, frame: int, image: np.ndarray | None = None) -> list[Event]:
        """Each other surface registered from its own anchors in this frame; its pose written (a `surface` event)
        when it is first found and whenever it has moved or turned beyond the threshold (fieldglass/surfaces.py), so
        that the figures committed from now on are located on it where it lies."""
        if self.surface_registry is None or not self.surface_registry.boards:
            return []
        camera = self.tracker.camera
        if camera is not None and image is not None:
            camera = camera_for_frame(camera, image)  # the intrinsics at this frame's resolution
        self.surface_registry.update(reading, camera)
        out = []
        for name, pose in self.surface_registry.poses().items():
            if pose_moved(self.game.surface_pose(name), pose):
                out.append(self._write(SURFACE_EVENT, t, frame, None, pose_data(name, pose)))
                self.game.surface_poses[name] = pose
        return out

    def position(self):
        """The engine's position from the record's committed state, placed as the live session places it."""
        return self.now().position

    # ------------------------------------------------------------------ players' inputs

    def applied_inputs(self) -> set[str]:
        """Ids of the inputs already in the record (a resumed recording skips them)."""
        done = {e.data["input"] for e in self.record.events() if "input" in e.data}
        return done | self.record.undo_tags()

    def apply(self, inp: dict, t: float, frame: int | None, image: np.ndarray | None = None,
              dice_photo: bytes | None = None) -> list[Event]:
        """Apply one player input; an input with an "_id" that the record held before this recorder's first input
        (a resumed recording's inputs already written) is skipped. The ids of the inputs applied since are not kept
        (they are unique in an inputs file, and a four-hour game's would grow the recorder's memory)."""
        if inp.get("_id") is not None:
            if self._applied is None:
                self._applied = self.applied_inputs()
            if inp["_id"] in self._applied:
                return []
        self._input_id = inp.get("_id")
        try:
            return self._apply(inp, t, frame, image, dice_photo)
        finally:
            self._input_id = None

    def _apply(self, inp: dict, t: float, frame: int | None, image: np.ndarray | None = None,
               dice_photo: bytes | None = None) -> list[Event]:
        kind = inp.get("type")
        self.game.live.check_input(self.game, inp)
        if kind not in ("undo", "redo"):
            self._undone.clear()  # a new input: what was undone before it is not written again
        if kind == "turn":
            data = self.game.live.record_turn(self.now(), inp)
            return [self._ruled(self._write("turn", t, frame, None, data, image))]
        if kind in _PLAIN_INPUTS:
            event, piece, data = self._plain(kind, inp)
            return [self._write(event, t, frame, piece, data)]
        if kind == "confirm":
            pid = self._piece(inp)
            e = self.tracker.confirm(pid, bool(inp.get("removed", True)), str(inp.get("by", "player")), t, frame)
            return [self.write_track_event(e)]
        if kind == "undo":
            return self.undo(int(inp.get("count", 1)), inp.get("_id"))
        if kind == "redo":
            return self.redo(int(inp.get("count", 1)), t, frame)
        if kind == "combat":
            return [self.combat(inp, t, frame, image, dice_photo)]
        if kind == "place":
            return [self.place(inp, t, frame)]
        if kind == "end":
            return [self.end(inp, t, frame)]
        raise InputError(f"{where(inp)}: unknown input type {kind!r} (types: turn phase combat marker formation "
                         "state confirm place note bookmark undo redo end)")

    def _plain(self, kind: str, inp: dict) -> tuple[str, str | None, dict]:
        """(event type, piece, data) of an input the recorder writes as it comes."""
        if kind == "phase":
            return "phase", None, {"phase": str(inp["phase"])}
        if kind == "note":
            piece = self._piece(inp) if inp.get("piece") is not None else None
            return "note", piece, {"text": str(inp.get("text", "")), "by": inp.get("by")}
        if kind == "bookmark":
            return "bookmark", None, {"label": str(inp.get("label", "bookmark"))}
        if kind == "marker":
            return "marker", self._piece(inp), {"markers": list(inp.get("markers", []))}
        if kind == "formation":
            return "formation", self._piece(inp), {"formation": inp.get("formation")}
        # a piece's type, nation... bound by a player (the game panel's setting)
        pid, key, value = self.game.live.check_state(self.game, self._piece(inp), str(inp.get("key")),
                                                     inp.get("value"))
        return "piece_state", pid, {"key": key, "value": value}

    def undo(self, count: int, tag: str | None = None) -> list[Event]:
        """Take back the last `count` events (marked in the record, not deleted); a `redo` writes them again."""
        undone = self.record.undo(count, tag)
        if undone:
            self._undone.append(sorted(undone, key=lambda e: e.seq))
        self._kept_up = False  # undone events are marked in the record: read them again
        self.sync_tracker()
        self._forget_pending()
        return undone

    def _piece(self, inp: dict) -> str:
        pid = inp.get("piece")
        if not isinstance(pid, str) or self.roster.piece(pid) is None:
            raise InputError(unknown_piece(where(inp), pid, [p.id for p in self.roster.pieces]))
        return pid

    def redo(self, count: int, t: float, frame: int | None) -> list[Event]:
        """The events the last `count` undos took back, written again as they were (each naming the event it
        redoes, `redo_of`): the replay shows them at the moment of the redo. Only this recorder's undos since the
        last other input can be redone."""
        out: list[Event] = []
        for _ in range(count):
            if not self._undone:
                break
            for e in self._undone.pop():
                data = {**e.data, "redo_of": e.seq}
                if "input" in e.data:
                    data["redoes_input"] = e.data["input"]  # the player's action it writes again
                out.append(self._write(e.type, t, frame, e.piece, data))
        if not out:
            raise InputError("nothing to redo (an undo since the last input can be redone)")
        self._kept_up = False
        self.sync_tracker()
        return out

    def place(self, inp: dict, t: float, frame: int | None) -> Event:
        """A piece put where a player says (a `place` input): a misread place corrected, or a piece the camera
        cannot see placed by hand. Written as a move (or its appearance) marked `by_hand`, with where the camera read
        it then (`seen_at`); the tracker keeps it there until the camera sees it at its place or moved on
        (vision/tracking.py `place_by_hand`)."""
        pid = self._piece(inp)
        track = self.tracker.tracks[pid]
        if track.state == "removed":
            raise InputError(f"{where(inp)}: {pid} was removed from the game; undo its removal to place it")
        old = track.place
        place = place_from_input(inp, self.game.layout, old)
        seen = track.seen_now
        extra: dict = {"by_hand": True, "by": str(inp.get("by") or "player")}
        if seen is not None:
            extra["seen_at"] = seen.to_json()
        when = (self.tracker.t if t is None else t) or 0.0
        at = frame if frame is not None else (self.tracker.frame or 0)
        e = Moved(pid, when, at, old, place) if old is not None else Appeared(pid, when, at, place)
        self.tracker.place_by_hand(pid, place, seen)
        return self.write_track_event(e, extra)

    def end(self, inp: dict, t: float, frame: int | None) -> Event:
        """The end of the game (an `end` input): the system's victory where the rules gave one, else the winner
        the players name (none: a draw). The record's metadata says so from this event on."""
        meta = self.record.meta
        ruled = meta.get("winner") if meta.get("game_over") else None
        winner = inp.get("winner") or ruled
        sides = self.game.sides
        if winner and sides and winner not in sides and winner != ruled:
            raise InputError(f"{where(inp)}: {winner!r} is not a side of this game (sides: {', '.join(sides)})")
        data = {"winner": winner, "by_rules": bool(ruled) and winner == ruled, "text": str(inp.get("text") or ""),
                "by": str(inp.get("by") or "players")}
        if meta.get("victory") and data["by_rules"]:
            data["victory"] = meta.get("victory")
        ev = self._write("end", t, frame, None, data)
        self.record.set_meta("game_over", True)
        self.record.set_meta("winner", winner)
        self.record.set_meta("ended_seq", ev.seq)
        return ev

    def rules_system(self):
        """The rules adapter of the record's system with the record's rules options (as the replay makes it)."""
        return self.game.system

    def combat(self, inp: dict, t: float, frame: int | None, image: np.ndarray | None = None,
               dice_photo: bytes | None = None) -> Event:
        """Resolve a combat with the system's engine on the committed position and write it with its changes: the
        pieces the rules removed leave the tracker (expected off the table). The dice a camera read for it
        (`dice_read`: their values and whether they were taken or typed over) are kept with it, and `dice_photo`
        (the throw's JPEG) as its picture of kind "dice"."""
        dice_read = _dice_read(inp)
        data = self.game.live.record_combat(self.now(), inp)
        if dice_read is not None:
            data["dice_read"] = dice_read
        pieces = data.get("pieces") or []
        ev = self._write("combat", t, frame, pieces[0] if pieces else inp.get("attacker"), data, image,
                         extra_thumbnails=(("dice", dice_photo),) if dice_photo else ())
        for ch in data.get("changes", []):
            if ch.get("removed"):
                gone = self.tracker.expect_removal(ch["piece"], "rules", t, frame)
                if self.game.live.removal_events:
                    self.write_track_event(gone)
        return self._ruled(ev)

    def _ruled(self, ev: Event) -> Event:
        """An event the rules made: when it ended the game (`game_winner`), the metadata says so from it on."""
        if ev.data.get("game_winner") and not self.record.meta.get("game_over"):
            self.record.set_meta("game_over", True)
            self.record.set_meta("winner", ev.data["game_winner"])
            self.record.set_meta("victory", ev.data.get("victory"))
            self.record.set_meta("game_over_seq", ev.seq)
        return ev


# ---------------------------------------------------------------------------------------------------- the loop


@dataclass
class FrameStream:
    """Frames with their timestamps: (frame number, t seconds, BGR image)."""

    frames: Iterator[tuple[int, float, np.ndarray]]
    total: int | None
    name: str


def open_frames(spec: str, fps: float | None = None, start: int = 0, frames: int | None = None,
                prefetch: bool = True) -> FrameStream:
    """The frames a `--source` names, from frame number `start` on (earlier ones are skipped, not decoded).

    A folder or a glob of images (timestamps from --fps, default 10), a video file (its own frame rate, decoded
    ahead in a thread of its own unless `prefetch` is False: a caller that reads it on a thread already), a camera
    index (the computer's clock), or 'synthetic' (the demo table, standing still).
    """
    paths = _image_paths(spec)
    if paths is not None:
        return _image_stream(spec, paths, fps, start, frames)
    if spec == "synthetic":
        return _synthetic_stream(fps, start, frames)
    return _video_stream(spec, fps, start, frames, prefetch)


def _image_paths(spec: str) -> list[str] | None:
    """The images a folder or a glob of images names, in order; None for any other source."""
    p = Path(spec)
    if p.is_dir():
        return image_folder(p)
    if spec != "synthetic" and not is_live(spec) and isinstance(
            src := open_source(spec), ImageSource):
        return src.paths
    return None


def _image_stream(spec: str, paths: list[str], fps: float | None, start: int, frames: int | None) -> FrameStream:
    """A folder or glob of images: timestamps from --fps (default 10)."""
    rate = fps or 10.0
    sel = paths[start:frames]

    def gen_images():
        for i, path in enumerate(sel, start):
            yield i, i / rate, read_image(path)

    return FrameStream(gen_images(), len(paths[:frames]), spec)


def _synthetic_stream(fps: float | None, start: int, frames: int | None) -> FrameStream:
    """The demo table, standing still (a hand passing now and then)."""
    rate = fps or 10.0
    n = frames if frames is not None else 100
    src = SyntheticSource(demo_scene(), frames=n, hand_period=max(2, int(rate * 4)))

    def gen_synth():
        for i, img in src:
            if i >= start:
                yield i, i / rate, img

    return FrameStream(gen_synth(), n, "synthetic")


def _video_stream(spec: str, fps: float | None, start: int, frames: int | None, prefetch: bool = True
                  ) -> FrameStream:
    """A video file (its own frame rate, earlier frames grabbed, not decoded) or a live camera (the clock)."""
    src = VideoSource(int(spec) if spec.isdigit() else spec)
    live = is_live(spec)
    rate = fps or float(src.capture.get(cv2.CAP_PROP_FPS) or 0) or 30.0
    total = None if live else int(src.capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0) or None

    def gen_video():
        t0 = time.monotonic()
        try:
            if not live:
                for _ in range(start):
                    if not src.capture.grab():
                        return
            for j, img in src:
                i = start + j
                t = (time.monotonic() - t0) + start / rate if live else i / rate
                if frames is not None and i >= frames:
                    return
                yield i, t, img
        finally:
            src.close()

    return FrameStream(prefetched(gen_video()) if prefetch and not live else gen_video(), total, src.name)


def prefetched(items: Iterator, depth: int = 4) -> Iterator:
    """The items of `items`, produced `depth` ahead by a thread of their own: a video file's frames are decoded (3-4
    ms a 720p frame, OpenCV lets go of the GIL meanwhile) beside the reading of the one before. A consumer that
    stops early stops the thread; an error raised by `items` is raised here."""
    q: queue.Queue = queue.Queue(depth)
    stop = threading.Event()
    end = object()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        try:
            for item in items:
                if not put((item, None)):
                    return
        except Exception as exc:  # handed to the consumer, which raises it
            put((end, exc))
            return
        finally:
            close = getattr(items, "close", None)
            if close is not None and stop.is_set():
                close()
        put((end, None))

    worker = threading.Thread(target=run, name="fieldglass-decode", daemon=True)
    worker.start()
    try:
        while True:
            item, exc = q.get()
            if exc is not None:
                raise exc
            if item is end:
                return
            yield item
    finally:
        stop.set()
        worker.join()


def record_stream(
    recorder: GameRecorder,
    frames: Iterable[tuple[int, float, np.ndarray]],
    read: Callable[[np.ndarray], object],
    inputs: dict[int, list[dict]] | None = None,
    heartbeat_s: float = HEARTBEAT_S,
    picture: Callable[[object], np.ndarray | None] | None = None,
) -> int:
    """Run frames through `read` (image -> TableReading), the tracker and the record. Returns frames read.

    A frame may be anything `read` takes (a rig's: one image per camera); `picture(frame)` is then the image kept
    with the events it makes (thumbnails). A reading None says no camera gave a frame: that time is a camera gap
    (vision/tracking.py `camera_gap`), and the frame is not counted."""
    inputs = inputs or {}
    last_beat = -math.inf
    n = 0
    last = None
    for i, t, shot in frames:
        reading = read(shot)
        if reading is None:
            recorder.camera_gap()
            continue
        image = shot if picture is None else picture(shot)
        recorder.feed(reading, t, i, image)
        for inp in inputs.get(i, []):
            try:
                recorder.apply(inp, t, i, image)
            except InputError as exc:
                text = str(exc)
                origin = where(inp)
                if not text.startswith(origin):
                    text = f"{origin}: {text}"
                if "_where" in inp and recorder.written:
                    text += f" ({recorder.record.path} keeps every event before it: fix the line, then --resume)"
                raise InputError(text) from None
        n += 1
        last = (i, t)
        if t - last_beat >= heartbeat_s:
            recorder.heartbeat(i, t)
            last_beat = t
    if last is not None:
        recorder.heartbeat(*last)
    return n


def play_into_record(record: Record, out: Path, recorder, frames: Callable, start: int, read: Callable,
                     inputs, resume: bool, picture: Callable | None = None) -> int | None:
    """Open the frames from `start` (with a progress bar when their number is known) and record them.

    Returns the number of frames read, or None when the user interrupted (every event so far is kept). A source that
    never delivered a frame (no camera, an unreadable video) leaves no empty record behind to block the next try;
    a record with events is kept whatever happens."""
    try:
        stream, total = frames(start)
        if total:
            stream = progress(stream, max(total - start, 0), "recording")
        return record_stream(recorder, stream, read, inputs, picture=picture)
    except InputError:
        if not resume:
            drop_if_empty(record, out)
        record.close()  # every event so far kept, the record one file again and free for --resume
        raise
    except KeyboardInterrupt:
        record.close()
        print(f"stopped; {out} keeps every event so far (go on with --resume)", file=sys.stderr)
        return None


def drop_if_empty(record: Record, out: Path) -> None:
    """A new record that got no event is closed and deleted, so that it does not block the next try."""
    if not record.events():
        record.close()
        for leftover in (out, Path(f"{out}-wal"), Path(f"{out}-shm")):
            leftover.unlink(missing_ok=True)


def holdings(record: Record) -> str:
    """What a record holds, by event type: '7 appeared, 2 move, ...'."""
    kinds: dict[str, int] = {}
    for e in record.events(clean=True):
        kinds[e.type] = kinds.get(e.type, 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())) or "no events"


# ---------------------------------------------------------------------------------------------------- the command


def _plain(value):
    """A metadata value as the record keeps it (JSON: tuples are lists)."""
    return json.loads(json.dumps(value))


def _roster_differs(kept: list[dict], given: list[dict]) -> str | None:
    old = {p["id"]: p for p in kept}
    new = {p["id"]: p for p in given}
    if set(old) != set(new):
        gone, added = sorted(set(old) - set(new)), sorted(set(new) - set(old))
        what = "; ".join(x for x in (f"not in the roster: {', '.join(gone)}" if gone else "",
                                     f"not in the record: {', '.join(added)}" if added else "") if x)
        return f"the record was made with another roster ({what})"
    for pid, p in old.items():
        for key in ("marker", "side", "type"):
            if key in p and p[key] != new[pid].get(key):
                return (f"the record was made with another roster ({pid}: {key} {p[key]!r} in the record, "
                        f"{new[pid].get(key)!r} now)")
    return None


def _layout_differs(kept: dict | None, given: dict | None) -> bool:
    kept, given = kept or {}, given or {}
    if kept.get("toml") and given.get("toml"):
        return kept["toml"] != given["toml"]
    return any(kept.get(k) != given.get(k) for k in ("width_mm", "depth_mm", "grid"))


def _board_key(board) -> object:
    if isinstance(board, dict):
        return "demo" if board.get("demo") else board.get("toml")
    return board


def resume_mismatch(kept: dict, given: dict) -> str | None:
    """Why a record cannot go on with the set-up given now (None when it can): another system, roster, layout,
    board, units' blocks, starting position or rules options than the record was made with. `given` is the
    metadata a new record would start with; the players, the source and the camera may change."""
    kept, given = _plain(kept), _plain(given)
    old_sys, new_sys = system_of(kept), system_of(given)
    if old_sys != new_sys:
        return f"a {old_sys} record, but --system is {new_sys}"
    why = _roster_differs(kept.get("roster") or [], given.get("roster") or [])
    if why:
        return why
    if _layout_differs(kept.get("layout"), given.get("layout")):
        return "the record was made with another table layout"
    if _board_key(kept.get("board")) != _board_key(given.get("board")):
        return "the record was made with another board"
    if kept.get("blocks") != given.get("blocks"):
        return "the record was made with other blocks for its units"
    if given.get("game") is not None and kept.get("game") != given.get("game"):
        return "the record was made with another starting position (--game)"
    if "piece_states" in given and (kept.get("piece_states") or {}) != given["piece_states"]:
        return "the record was made with another starting position (--game)"
    if given.get("rules_options") and kept.get("rules_options") != given.get("rules_options"):
        return "the record was made with other rules options (--options)"
    for key in sorted(set(given) - _CHECKED - _MAY_CHANGE):  # anything else a system's `record_meta` keeps
        if kept.get(key) != given[key]:
            return f"the record was made with another {key.replace('_', ' ')}"
    return None


_CHECKED = {"system", "roster", "layout", "board", "blocks", "game", "piece_states", "rules_options"}
_MAY_CHANGE = {"players", "source", "calibration", "roster_toml", "rig"}


def open_record(out: str | Path, meta: dict, resume: bool = False, overwrite: bool = False) -> tuple[Record, int]:
    """The one way `fieldglass record` opens its record, whatever the rules system: a new record from `meta`
    (an existing file only with `overwrite`), or with `resume` the existing one, after checking that it exists,
    is not damaged, can be written, and was made with the same system, roster, layout, board and starting position
    as `meta` describes. Returns (record, the first frame to read)."""
    out = Path(out)
    if resume and overwrite:
        raise InputError("--resume and --overwrite exclude each other: --resume goes on with the record, "
                         "--overwrite replaces it")
    if not resume:
        return Record.create(out, meta, overwrite=overwrite), 0
    if not out.exists():
        raise InputError(f"{out}: no record to resume (leave out --resume to start one)")
    record = Record.open(out, writable=True)
    try:
        events = record.events()
        if record.problems:
            raise InputError(f"{out}: cannot resume a damaged record ({record.problems[0]})")
        if not record.writable:
            raise InputError(f"{out}: cannot resume a record that cannot be written")
        why = resume_mismatch(record.meta, meta)
        if why:
            raise InputError(f"{out}: cannot resume: {why}")
    except InputError:
        record.close()
        raise
    last_event = max((e.frame or 0 for e in events), default=-1)
    start = max(int(record.progress.get("frame", -1)) + 1, last_event, 0)
    return record, start


@dataclass
class RecordingPlan:
    """What a rules system brings to `fieldglass record`; `record_game` does the rest the same for every system.

    `meta`: the metadata a new record starts with (a resumed one must agree with it); `frames(start)`: (frames from
    `start` on, their number or None); `read(image)`: a TableReading; `inputs`: the players' inputs by frame;
    `start_recorder(record, config, on_event)`: the system's recorder over the opened record; `summary(record)`:
    anything to add to the last line."""

    meta: dict
    frames: Callable[[int], tuple[Iterable, int | None]]
    read: Callable[[np.ndarray], object]
    inputs: dict[int, list[dict]]
    start_recorder: Callable[[Record, TrackerConfig, Callable], GameRecorder]
    summary: Callable[[Record], str] = lambda record: ""
    picture: Callable[[object], np.ndarray | None] | None = None  # the image of a frame `read` takes, if not it


def options_and_players(args) -> tuple[dict, list[str]]:
    """The rules options (--options, a TOML file) and the players' names (--players) a new record keeps."""
    opts = {}
    if getattr(args, "options", None):
        opts = read_toml(args.options, "rules options file")
    players = [s.strip() for s in (getattr(args, "players", None) or "").split(",") if s.strip()]
    return opts, players


TREMBLE_FULLS = (3, 5)
"""Full scans by the change detector among the last frames (3 of 5) that mean a trembling camera (or a flickering
light): the frames are then compared through the anchors' movement (`RecordChanges.steady`) for a while ..."""
PLAIN_FRAMES = 60
"""... this many frames at least, and on while the picture still moves (`RecordChanges.shaking`), then as they are
again."""


class RecordReader:
    """image -> TableReading for a record's consecutive frames: only what changed since the frame before is read
    again (vision.stream.LiveReader with vision/record_reader.py `RecordChanges`, each change at once: the committed
    events of a full scan of every frame, tests/fieldglass/test_record_reader.py); while the camera trembles the
    frames are compared through the anchors' movement (`RecordChanges.steady`) instead of being read in full."""

    def __init__(self, registration: TableRegistration, roster, config: ChangeConfig | None = None):
        self.registration, self.roster = registration, roster
        config = config or RECORD_CHANGES
        self.live = LiveReader(registration, roster, config)
        self.changes: RecordChanges | None = None
        if self.live.detector is not None:  # a changed region read the record's cheaper way
            self.changes = RecordChanges(self.live.detector.dictionary, config, self.live.detector.anchor_ids)
            self.live.detector = self.changes
        self.recent: deque[bool] = deque(maxlen=TREMBLE_FULLS[1])  # the last frames: full scans or not
        self.steady_left = 0  # frames still to compare through the anchors' movement

    @property
    def work(self) -> FrameWork:
        """What was read again of the last frame."""
        return self.live.work

    def read(self, image: np.ndarray):
        reading = self.live.read(image)
        if self.changes is None:
            return reading
        if self.steady_left:
            self.steady_left -= 1
            if self.steady_left == 0 and self.changes.shaking():
                self.steady_left = PLAIN_FRAMES  # still trembling: go on following it
            elif self.steady_left == 0:
                self.changes.steady = False
                self.live.reset()
            return reading
        self.recent.append(self.live.work.kind == "full")
        # following: full scans in a row (a trembling camera), or the reader began following a camera whose
        # anchors moved together (RecordChanges._bumped)
        if self.changes.steady or sum(self.recent) >= TREMBLE_FULLS[0]:
            self.recent.clear()
            self.steady_left, self.changes.steady = PLAIN_FRAMES, True
        return reading


class TableReader:
    """image -> TableReading for consecutive frames (`RecordReader`), the table registered from its anchors (the
    camera fitted to the first frame's size) with the lens refined from the table where measurably better
    (`vision.table_lens.StreamLens`: chosen in the first frame that allows it, again when the camera moves; a live
    camera's later choices worked out in a thread), or with `refine_lens` False the camera file's as it is; each
    lens chosen is said through `say`. `reader` is the RecordReader once the first frame came."""

    def __init__(self, layout, roster, intr, source: str, config: ChangeConfig | None = None,
                 refine_lens: bool = True, camera_name: str = "the camera file",
                 say: Callable[[str], None] | None = None):
        self.layout, self.roster, self.intr, self.source, self.config = layout, roster, intr, source, config
        self.refine_lens, self.camera_name, self.say = refine_lens, camera_name, say
        self.reader: RecordReader | None = None
        self.lens: StreamLens | None = None

    def __call__(self, image: np.ndarray):
        if self.reader is None:
            reg = TableRegistration(self.layout, camera_for_frame(self.intr, image, self.source), refine_lens=False)
            self.reader = RecordReader(reg, self.roster, self.config)
            self.lens = StreamLens(reg, self.roster, enabled=self.refine_lens, background=is_live(self.source),
                                   name=self.camera_name, on_note=self.say)
            if not self.refine_lens and self.say is not None:
                self.say(self.lens.note)
        reading = self.reader.read(image)
        again = self.lens.after(reading)
        if again is None:
            return reading
        self.reader.live.adopt(again)
        return again


def table_reader(layout, roster, intr, source: str, config: ChangeConfig | None = None, refine_lens: bool = True,
                 camera_name: str = "the camera file", say: Callable[[str], None] | None = None) -> TableReader:
    """image -> TableReading for consecutive frames (`TableReader`)."""
    return TableReader(layout, roster, intr, source, config, refine_lens, camera_name, say)


def check_timing(args) -> None:
    if args.settle <= 0 or args.missing_after <= 0:
        raise InputError("--settle and --missing-after must be positive seconds")


def record_game(args, plan: RecordingPlan) -> int:
    """Open (or resume) the record, run the frames through the system's recorder, say what the record holds."""
    out = Path(args.out)
    pieces = {p["id"] for p in plan.meta.get("roster") or ()}
    if not args.resume:
        check_pieces(plan.inputs, pieces)  # a typo leaves no record behind
    record, start = open_record(out, plan.meta, args.resume, args.overwrite)
    if args.resume:
        try:
            check_pieces(plan.inputs, pieces)  # after the record's own checks: another roster is said first
        except InputError:
            record.close()
            raise

    def show(ev):
        if args.events:
            piece = f" {ev.piece}" if ev.piece else ""
            print(f"event {ev.seq} {ev.type}{piece} frame {ev.frame} t {ev.t:.2f}", flush=True)

    config = TrackerConfig(settle_s=args.settle, missing_after_s=args.missing_after)
    try:
        recorder = plan.start_recorder(record, config, show)
    except InputError:
        if not args.resume:
            drop_if_empty(record, out)
        record.close()
        raise
    t0 = time.perf_counter()
    n = play_into_record(record, out, recorder, plan.frames, start, plan.read, plan.inputs, args.resume,
                         plan.picture)
    if n is None:
        return 130
    if n == 0 and not args.resume:  # issue 15 case 17: a source without frames leaves no empty record
        drop_if_empty(record, out)
        raise InputError(f"{args.source}: no frame could be read (an empty video, or --frames too small); "
                         "no record written")
    dt = time.perf_counter() - t0
    resumed = f" (resumed at frame {start})" if args.resume else ""
    print(f"{out}: {n} frames in {dt:.1f} s{resumed}; {recorder.written} new events; "
          f"record holds {holdings(record)}{plan.summary(record)}")
    record.close()
    return 0


def _dice_read(inp: dict) -> dict | None:
    """A combat input's `dice_read` as the record keeps it ({"values": [1-6 or null, ...], "taken": bool, "throws":
    the throws' numbers}), None without one; InputError naming the input when it is not that."""
    raw = inp.get("dice_read")
    if raw is None:
        return None
    values = raw.get("values") if isinstance(raw, dict) else None
    if not isinstance(values, list) or not all(v is None or (isinstance(v, int) and not isinstance(v, bool)
                                                             and 1 <= v <= 6) for v in values):
        raise InputError(f"{where(inp)}: dice_read {raw!r}: needs \"values\", the dice read (1-6, null for a die "
                         'that could not be read), e.g. {"values": [5, 3], "taken": true}')
    out = {"values": list(values), "taken": bool(raw.get("taken", True))}
    throws = raw.get("throws")
    if isinstance(throws, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in throws):
        out["throws"] = list(throws)
    return out

