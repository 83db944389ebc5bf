"""`fieldglass bench record`: how fast crash-safe game events are written, and how large they are; with `--video`,
how fast `fieldglass record --source VIDEO` reads a filmed game against OpenCV's plain tuned detector."""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from common.errors import InputError
from fieldglass.benchmarks.vision import plain_tuned_detector
from fieldglass.progress import progress
from fieldglass.record import Record
from fieldglass.recording import GameRecorder, RecordingPlan, open_frames, record_game, system_meta, table_reader
from rules.system import default_system
from vision.markers import to_gray
from vision.scripted import ScriptedGame, scripted_game
from vision.sources import VideoSource

EPILOG = """\
examples:
  fieldglass bench record                 300 move events, one transaction each (WAL, synchronous=FULL)
  fieldglass bench record --video         the scripted game filmed at 720p (a still camera, then a trembling one):
                                          `fieldglass record` against the plain tuned detector over every frame
  fieldglass bench record --video --resolution 1920x1080 --repeats 1
"""


def measure_writes(n: int = 300) -> tuple[float, float]:
    """Events per second and bytes per event for `n` move events written one transaction each."""
    meta = {"system": default_system(), "players": ["bench"],
            "roster": [{"id": "fr-1", "side": "FR", "type": "infantry"}]}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.fgr"
        record = Record.create(path, meta)
        t0 = time.perf_counter()
        for i in range(n):
            place_from = {"field": "F3", "x_mm": 330.0, "y_mm": 150.0, "heading_deg": 0.0, "facing": "N"}
            place_to = {"field": "F4", "x_mm": 330.0, "y_mm": 210.0, "heading_deg": 0.0, "facing": "N"}
            record.append("move", float(i), i, "fr-1", {"from": place_from, "to": place_to})
        elapsed = time.perf_counter() - t0
        record.close()
        size = path.stat().st_size
    return n / elapsed, size / n


def add_parser(which) -> None:
    p = which.add_parser("record", help="game record: crash-safe event writes per second, bytes per event",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=300, help="events to write (default 300)")
    p.add_argument("--video", action="store_true",
                   help="instead: record the scripted game from MJPG videos, timed against the plain detector")
    p.add_argument("--resolution", default="1280x720", metavar="WxH", help="the videos' size (default 1280x720)")
    p.add_argument("--repeats", type=int, default=2,
                   help="runs of each, in turn; the fastest counts (default 2: the machine may be shared)")
    p.add_argument("--only", choices=("still", "trembling"), help="one of the two videos")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.video:
        return run_video(args)
    rate, size = measure_writes(args.events)
    print(f"record: {rate:.0f} events/s written (one transaction each, WAL, synchronous=FULL), {size:.0f} bytes/event")
    return 0


# ---------------------------------------------------------------------------------------------------- --video

VIDEOS = {
    # name -> ScriptedGame.render options: the camera on a still tripod in a steady light; the script's own
    # trembling camera (0.5 px every frame), the light dimming in the second turn and the tripod knocked half-way
    "still": {"tremble": False, "light": False, "bump_at": 1 << 30},
    "trembling": {},
}


@dataclass
class VideoFigures:
    """Seconds over the whole video (the fastest of the runs) and what the record committed."""

    frames: int
    decode_s: float  # decoding the video alone
    plain_s: float  # the plain tuned detector over every decoded frame, grey conversion included (no decode)
    record_s: float  # `fieldglass record` end to end, from the video file (decoded in a thread beside the reading)
    read_s: float  # the same from the frames decoded beforehand: record's own cost
    work: Counter = field(default_factory=Counter)  # frames by what the reader re-read (full, regions, ...)
    moves: list = field(default_factory=list)  # (piece, from, to, facing) as committed
    truth: list = field(default_factory=list)  # as scripted
    holds: str = ""


def write_video(game: ScriptedGame, path: Path, resolution: tuple[int, int], **render) -> Path:
    """The script's frames as an MJPG .avi at the script's frame rate."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), game.fps, resolution)
    for _i, _t, frame in progress(game.render(resolution, **render), len(game.frames), f"rendering {path.name}"):
        writer.write(frame)
    writer.release()
    return path


def decode_all(video: Path) -> tuple[list[np.ndarray], float]:
    """Every frame of the video, and the seconds their decoding took."""
    src = VideoSource(str(video))
    frames, decode = [], 0.0
    try:
        while True:
            t0 = time.perf_counter()
            ok, frame = src.capture.read()
            decode += time.perf_counter() - t0
            if not ok or frame is None:
                return frames, decode
            frames.append(frame)
    finally:
        src.close()


def time_plain(frames: list[np.ndarray], dictionary: str) -> float:
    """Seconds the plain tuned detector takes over every frame, grey conversion included."""
    detector = plain_tuned_detector(dictionary)
    t0 = time.perf_counter()
    for frame in frames:
        detector.detectMarkers(to_gray(frame))
    return time.perf_counter() - t0


def time_record(game: ScriptedGame, video: Path, resolution: tuple[int, int], out: Path,
                decoded: list[np.ndarray] | None = None):
    """`fieldglass record --source VIDEO` in process (the command's plan for a grid system: its metadata, the
    video's frames, its reader, the script's inputs, the one recorder), or with `decoded` the same over frames
    decoded beforehand: (seconds, frames by work kind, record)."""
    intr = game.camera(resolution).intrinsics
    meta = system_meta(default_system(), game.layout, game.roster, intr, source=str(video))
    reader = table_reader(game.layout, game.roster, intr, str(video))
    work: Counter = Counter()

    def read(image):
        reading = reader(image)
        work[reader.reader.work.kind] += 1
        return reading

    def frames(start):
        if decoded is not None:
            return ((i, i / game.fps, f) for i, f in enumerate(decoded) if i >= start), len(decoded)
        stream = open_frames(str(video), None, start, None)
        return stream.frames, stream.total

    def start(record, config, on_event):
        return GameRecorder.start(record, None, config, intr, on_event=on_event)

    inputs: dict[int, list[dict]] = {}
    for k, inp in enumerate(game.inputs):
        inputs.setdefault(inp["frame"], []).append({**inp, "_id": f"script{k}"})
    plan = RecordingPlan(meta, frames, read, inputs, start)
    args = argparse.Namespace(out=str(out), resume=False, overwrite=True, events=False, settle=1.0,
                              missing_after=3.0, source=str(video))
    t0 = time.perf_counter()
    record_game(args, plan)
    return time.perf_counter() - t0, work, Record.open(out)


def measure_video(game: ScriptedGame, video: Path, resolution: tuple[int, int], repeats: int) -> VideoFigures:
    """The plain detector and the record (from the file, and from the frames decoded beforehand) over the same
    video, in turn `repeats` times; the fastest of each. The committed moves are those of the last run."""
    best = {"decode": np.inf, "plain": np.inf, "record": np.inf, "read": np.inf}
    fig = VideoFigures(0, 0.0, 0.0, 0.0, 0.0)
    for k in range(max(1, repeats)):
        frames, decode = decode_all(video)
        best["decode"] = min(best["decode"], decode)
        best["plain"] = min(best["plain"], time_plain(frames, game.roster.dictionary))
        dt, _, record = time_record(game, video, resolution, video.with_name(f"{video.stem}-{k}.fgr"))
        best["record"] = min(best["record"], dt)
        record.close()
        dt, work, record = time_record(game, video, resolution, video.with_name(f"{video.stem}-{k}-mem.fgr"), frames)
        best["read"] = min(best["read"], dt)
        del frames
        events = record.events(clean=True)
        fig.frames, fig.work = sum(work.values()), work
        fig.moves = [(e.piece, e.data["from"]["cell"], e.data["to"]["cell"], e.data["to"]["facing"])
                     for e in events if e.type == "move"]
        kinds = Counter(e.type for e in events)
        fig.holds = ", ".join(f"{v} {t}" for t, v in sorted(kinds.items()))
        record.close()
    fig.truth = [(m["piece"], m["from"], m["to"], m["to_facing"]) for m in game.true_moves()]
    fig.decode_s, fig.plain_s, fig.record_s, fig.read_s = best["decode"], best["plain"], best["record"], best["read"]
    return fig


def video_lines(name: str, resolution: tuple[int, int], fig: VideoFigures) -> list[str]:
    n = max(fig.frames, 1)
    work = ", ".join(f"{v} {k}" for k, v in sorted(fig.work.items()))
    same = "the same as the script" if fig.moves == fig.truth else f"NOT the script's: {fig.moves} != {fig.truth}"
    return [
        f"{name} camera, {resolution[0]}x{resolution[1]}, {fig.frames} frames:",
        f"  decode {1000 * fig.decode_s / n:.1f} ms/frame; plain tuned detector {1000 * fig.plain_s / n:.1f} ms/frame; "
        f"record {1000 * fig.read_s / n:.1f} ms/frame from decoded frames, {1000 * fig.record_s / n:.1f} from the file",
        f"  record / plain detector: {fig.read_s / fig.plain_s:.2f} without the decode, "
        f"{fig.record_s / fig.plain_s:.2f} from the file (its decode included, the detector's not)",
        f"  reader's frames: {work}",
        f"  committed moves: {len(fig.moves)}, {same}; record holds {fig.holds}",
    ]


def parse_resolution(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InputError(f"--resolution {text!r}: expected WIDTHxHEIGHT, e.g. 1280x720") from None
    return w, h


def run_video(args) -> int:
    resolution = parse_resolution(args.resolution)
    game = scripted_game()
    names = [args.only] if args.only else list(VIDEOS)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            video = write_video(game, Path(folder) / f"{name}.avi", resolution, **VIDEOS[name])
            lines += video_lines(name, resolution, measure_video(game, video, resolution, args.repeats))
    after = os.getloadavg() if hasattr(os, "getloadavg") else None
    for line in lines:
        print(line)
    if load and after:
        print(f"load average (1 min) {load[0]:.1f} before, {after[0]:.1f} after, on {os.cpu_count()} cores; "
              f"the fastest of {max(1, args.repeats)} runs each")
    return 0
