"""`fieldglass bench live`: a synthetic camera on a clock, through a scripted stretch of play.

The table of `fieldglass bench vision` (2.4 x 1.2 m, 100 pieces with 20 mm markers, a camera 1.7 m up tilted
15 degrees) filmed on a steady tripod: the pieces still, a hand reaching in over a piece and leaving, a piece slid
to a new place by a hand, the tripod knocked (3 px and 0.2 degrees) and still again. The frames are rendered
first and JPEG-encoded as an MJPG camera sends them; then a camera thread emits them on the clock (30 or 60 fps),
a grabber decodes them in a pool of threads (`vision.decode.FrameDecoder`, one per core: a 4K JPEG takes about a
frame's interval on one core) and hands them on in order, and the processing (`LiveReader`) takes them from a
two-frame queue that drops the oldest when it falls behind - the dashboard worker's arrangement.

Reported: the per-frame processing cost (p50, p95, max) overall and per phase, the frames dropped (while the
table is still, and while pieces move), the latency from a frame's emission to its reading, the JPEG decode, and
in the same run the plain tuned ArucoDetector's cost on the same frames (and our own full scan), as ratios: these
machines are shared, only figures measured side by side compare. The still-table drops and the latency are given
also after the warm-up: the first frame has no table pose yet and is read by a full scan, and the frames the camera
emits meanwhile wait or are dropped (counted apart, and said so). The frames whose only work was the slow
background scan's tile are timed apart (it must not stall a frame).
"""

from __future__ import annotations

import argparse
import os
import platform
import threading
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.registration import TableRegistration
from fieldglass.benchmarks.vision import plain_tuned_detector
from fieldglass.progress import progress
from vision.decode import FrameDecoder, decode_jpeg
from vision.markers import to_gray
from vision.pieces import read_table
from vision.scripted import ScriptedGame
from vision.sources import FrameQueue
from vision.stream import LiveReader
from vision.synthetic import VirtualCamera, random_scene, standard_layout

EPILOG = """\
examples:
  fieldglass bench live                   1080p and 4K at 30 fps, 1080p at 60 fps (a few minutes: rendering)
  fieldglass bench live --quick           1080p at 30 fps only, a shorter stretch
  fieldglass bench live --resolution 3840x2160 --fps 30
"""

PHASES = ("still", "hand", "move", "bump")


@dataclass
class Stretch:
    """The rendered stretch: JPEG bytes per frame, the phase of each frame, the scene's setup."""

    jpegs: list[bytes]
    phases: list[str]
    game: ScriptedGame
    camera: VirtualCamera
    fps: float


def _free_spot(places: dict, rng: np.random.Generator, layout) -> tuple[str, float, float]:
    """A piece and a place 90 mm east or west of it with no other piece within 70 mm (a clear move)."""
    ids = list(places)
    for pid in rng.permutation(ids):
        x, y = places[pid][:2]
        for dx in (90.0, -90.0):
            nx = x + dx
            if not 80 < nx < layout.width_mm - 80:
                continue
            if all(np.hypot(nx - px, y - py) > 70.0 for q, (px, py, *_) in places.items() if q != pid):
                return str(pid), nx, y
    return str(ids[0]), places[ids[0]][0] + 90.0, places[ids[0]][1]


def build_stretch(resolution: tuple[int, int], fps: float, n_pieces: int = 100, scale: float = 1.0,
                  quality: int = 90, seed: int = 14) -> Stretch:
    """The scripted stretch at `fps`, each phase `scale` times its standard length (seconds: still 1.0, a hand
    1.4, still 0.5, a move 1.1, still 0.5, the knocked tripod and still 1.0), rendered and JPEG-encoded."""
    rng = np.random.default_rng(seed)
    layout = standard_layout()
    scene = random_scene(layout, n_pieces, rng)
    game = ScriptedGame(scene.roster, layout, fps=fps)
    places = {p.piece.id: (p.x_mm, p.y_mm, p.heading_deg, 0.0) for p in scene.placements}
    phases: list[str] = []

    def frames(seconds: float) -> int:
        return max(1, round(seconds * scale * fps))

    def add(phase: str, hand=None, n: int = 1) -> None:
        game.add(places, hand, seed=3, n=n)
        phases.extend([phase] * n)

    add("still", n=frames(1.0))
    pid, tx, ty = _free_spot(places, rng, layout)
    x0, y0, h0, _ = places[str(rng.choice(list(places)))]
    for r in np.linspace(0.35, 1.0, frames(0.4)):  # a hand reaches in over a piece, stays, leaves
        add("hand", (x0, y0, float(r)))
    add("hand", (x0, y0, 1.0), frames(0.6))
    for r in np.linspace(1.0, 0.25, frames(0.4)):
        add("hand", (x0, y0, float(r)))
    add("still", n=frames(0.5))
    x0, y0, h0, _ = places[pid]
    for r in np.linspace(0.35, 1.0, frames(0.3)):  # a piece slid to its new place by a hand
        add("move", (x0, y0, float(r)))
    steps = frames(0.5)
    for k in range(1, steps + 1):
        places[pid] = (x0 + k / steps * (tx - x0), y0 + k / steps * (ty - y0), h0, 0.0)
        add("move", (places[pid][0], places[pid][1], 1.0))
    for r in np.linspace(1.0, 0.25, frames(0.3)):
        add("move", (tx, ty, float(r)))
    add("still", n=frames(0.5))
    bump = len(phases)
    add("bump", n=1)
    add("still", n=frames(1.0))

    camera = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, resolution, 1700.0, 15.0)
    jpegs = []
    label = f"rendering {resolution[0]}x{resolution[1]}"
    for _, _, frame in progress(game.render(resolution, camera=camera, tremble=False, light=False, bump_at=bump),
                                len(phases), label):
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        jpegs.append(data.tobytes())
    return Stretch(jpegs, phases, game, camera, fps)


@dataclass
class LiveFigures:
    """One clocked run: per processed frame its number, cost (s), latency (s) and what was done."""

    frames: int
    processed: list[int] = field(default_factory=list)
    cost_s: list[float] = field(default_factory=list)
    latency_s: list[float] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    decode_s: list[float] = field(default_factory=list)
    background: list[bool] = field(default_factory=list)  # per processed frame: only a background tile was read
    warmup: int = 0  # frames after the first that the camera emitted while the first full scan ran
    decoders: int = 1  # the grabber's JPEG decoding threads
    decoder_dropped: int = 0  # JPEGs the decoder dropped undecoded (every thread busy, one waiting already)
    decoded_s: list[float] = field(default_factory=list)  # of the latency: from emission to decoded and handed on


def run_clocked(stretch: Stretch, workers: int | None = None) -> LiveFigures:
    """Emit the frames on the clock, decode them in a grabber's pool of `workers` threads (`FrameDecoder`, default
    one per core), read them in order through a two-frame queue."""
    driver: FrameQueue = FrameQueue(2)  # what the capture driver buffers of the camera's frames
    frames: FrameQueue = FrameQueue(2)  # decoded frames waiting for processing (the worker's queue)
    figures = LiveFigures(len(stretch.jpegs))

    emitted_at = [0.0] * len(stretch.jpegs)  # when the camera emitted each frame (s, perf_counter)

    def camera() -> None:
        start = time.perf_counter()
        for n, data in enumerate(stretch.jpegs):
            delay = start + n / stretch.fps - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            emitted_at[n] = time.perf_counter()
            driver.put((n, data, emitted_at[n]))
        driver.close()

    def timed_decode(data: bytes) -> np.ndarray | None:
        t0 = time.perf_counter()
        image = decode_jpeg(data)
        figures.decode_s.append(time.perf_counter() - t0)  # (list.append is atomic: the pool's threads share it)
        return image

    decoder = FrameDecoder(workers, decode=timed_decode)
    figures.decoders = decoder.workers

    def grabber() -> None:
        buffers = (((n, emitted), data) for n, data, emitted in iter(driver.get, None))
        for (n, emitted), image in decoder.decoded(buffers):
            frames.put((n, image, emitted, time.perf_counter()))
        frames.close()

    game = stretch.game
    reader = LiveReader(TableRegistration(game.layout, stretch.camera.intrinsics), game.roster)
    threads = [threading.Thread(target=camera, daemon=True), threading.Thread(target=grabber, daemon=True)]
    for t in threads:
        t.start()
    first_done = 0.0
    while (item := frames.get()) is not None:
        n, image, emitted, decoded = item
        t0 = time.perf_counter()
        reader.read(image)
        t1 = time.perf_counter()
        figures.processed.append(n)
        figures.cost_s.append(t1 - t0)
        figures.latency_s.append(t1 - emitted)
        figures.decoded_s.append(decoded - emitted)
        figures.kinds.append(reader.work.kind)
        figures.background.append(reader.work.background)
        if len(figures.processed) == 1:
            first_done = t1
    for t in threads:
        t.join()
    figures.decoder_dropped = decoder.dropped
    # The warm-up: there is no table pose before the first full scan, and the frames emitted meanwhile wait or drop.
    figures.warmup = sum(1 for n in range(1, figures.frames) if emitted_at[n] < first_done)
    return figures


def plain_costs(stretch: Stretch, every: int = 1) -> tuple[list[float], list[float]]:
    """Seconds per frame of the plain tuned detector (grey conversion included) on every `every`-th frame, and
    of our full scan with a new registration (read_table) on every fourth of those."""
    game = stretch.game
    detector = plain_tuned_detector(game.layout.dictionary)
    plain, full = [], []
    picked = list(range(0, len(stretch.jpegs), every))
    for k, n in enumerate(progress(picked, len(picked), "plain detector")):
        image = decode_jpeg(stretch.jpegs[n])
        t0 = time.perf_counter()
        detector.detectMarkers(to_gray(image))
        plain.append(time.perf_counter() - t0)
        if k % 4 == 0:
            t0 = time.perf_counter()
            read_table(image, TableRegistration(game.layout, stretch.camera.intrinsics), game.roster)
            full.append(time.perf_counter() - t0)
    return plain, full


def knock_costs(stretch: Stretch, repeats: int = 5) -> tuple[list[float], list[float]]:
    """Seconds to read the knocked frame: re-registered by `LiveReader` (the frame before it read first, so it sees
    the knock), and by our full scan with a new registration, one after the other `repeats` times."""
    game = stretch.game
    k = stretch.phases.index("bump")
    before, knocked = (decode_jpeg(stretch.jpegs[n]) for n in (k - 1, k))
    rebased, full = [], []
    for _ in range(repeats):
        reader = LiveReader(TableRegistration(game.layout, stretch.camera.intrinsics), game.roster)
        reader.read(before)
        t0 = time.perf_counter()
        reader.read(knocked)
        if reader.work.kind == "bump":  # (a full scan when the re-registration failed: not counted as one)
            rebased.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        read_table(knocked, TableRegistration(game.layout, stretch.camera.intrinsics), game.roster)
        full.append(time.perf_counter() - t0)
    return rebased, full


def _ms(values, q) -> float:
    return 1000.0 * float(np.percentile(values, q)) if len(values) else float("nan")


def report(stretch: Stretch, figures: LiveFigures, plain: list[float], full: list[float]) -> list[str]:
    """The figures as printed lines."""
    phases = stretch.phases
    cost = np.array(figures.cost_s)

    def spread(values) -> str:
        return f"p50 {_ms(values, 50):6.1f}   p95 {_ms(values, 95):6.1f}   max {_ms(values, 100):6.1f}"

    ratios = "   ".join(f"{name} {_ms(cost, q) / _ms(plain, q):6.2f}" for name, q in (("p50", 50), ("p95", 95),
                                                                                     ("max", 100)))
    lines = [
        f"per-frame cost ms        {spread(cost)}",
        f"plain tuned detector ms  {spread(plain)}   (the same frames, in the same run)",
        f"ratio to the plain       {ratios}",
        f"our full scan ms         p50 {_ms(full, 50):6.1f}   ({_ms(full, 50) / _ms(plain, 50):.2f} x the plain"
        " detector)",
    ]
    by_phase = []
    for phase in PHASES:
        c = [x for n, x in zip(figures.processed, figures.cost_s, strict=True) if phases[n] == phase]
        if c:
            by_phase.append(f"{phase} {_ms(c, 50):.1f} / {_ms(c, 95):.1f}")
    lines.append("cost by phase ms p50/p95  " + ",  ".join(by_phase))
    hand = [x for n, x in zip(figures.processed, figures.cost_s, strict=True) if phases[n] == "hand"]
    if hand and full:
        lines.append(f"a hand over a still table: p50 {100 * _ms(hand, 50) / _ms(full, 50):.1f} % of a full scan")
    done = set(figures.processed)
    dropped = [n for n in range(figures.frames) if n not in done]
    still = sum(1 for p in phases if p == "still")
    moving = sum(1 for p in phases if p in ("hand", "move"))
    lines.append(
        f"frames dropped           {len(dropped)} of {figures.frames}   (still table: "
        f"{sum(phases[n] == 'still' for n in dropped)} of {still}; hand or piece moving: "
        f"{sum(phases[n] in ('hand', 'move') for n in dropped)} of {moving})")
    warm = range(1, 1 + figures.warmup)  # emitted while the first full scan ran
    after = [n for n in range(figures.frames) if n > figures.warmup and phases[n] == "still"]
    lines.append(
        f"  after the warm-up        still table: {sum(n in after for n in dropped)} of {len(after)} dropped   "
        f"(warm-up: the {figures.warmup} frames emitted during the first full scan, {sum(n in warm for n in dropped)}"
        " of them dropped)")
    tile = [x for x, b in zip(figures.cost_s, figures.background, strict=False) if b]
    if tile:
        lines.append(f"background tile frames ms p50 {_ms(tile, 50):6.1f}   p95 {_ms(tile, 95):6.1f}   max"
                     f" {_ms(tile, 100):6.1f}   ({len(tile)} frames; one frame every {1000 / stretch.fps:.0f} ms)")
    lat = figures.latency_s
    lines.append(f"frame-to-result ms       {spread(lat)}")
    settled = [x for n, x in zip(figures.processed, lat, strict=True) if n > figures.warmup]
    lines.append(f"  after the warm-up       {spread(settled)}")
    if figures.decoded_s:
        waited = [x for n, x in zip(figures.processed, figures.decoded_s, strict=True) if n > figures.warmup]
        lines.append(f"    of it, to decoded     {spread(waited)}   (emitted to handed on by the grabber)")
    lines.append(f"JPEG decode ms           p50 {_ms(figures.decode_s, 50):6.1f}   p95 {_ms(figures.decode_s, 95):6.1f}"
                 f"   (the grabber's {figures.decoders} decoding threads; {figures.decoder_dropped} frames dropped"
                 " undecoded, all busy)")
    kinds = {k: figures.kinds.count(k) for k in ("full", "bump", "regions", "moving", "still")}
    lines.append(f"frames read              full scan {kinds['full']}, re-registered after a bump {kinds['bump']},"
                 f" changed regions {kinds['regions']} ({sum(figures.background)} of them a background tile),"
                 f" hand moving {kinds['moving']}, nothing new {kinds['still']}")
    return lines


def _resolution(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a resolution like 1920x1080") from None
    return w, h


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of threads (1 or more)")
    return int(text)


def _load() -> str:
    """The machine's load average (1, 5, 15 min): the figures of a shared machine depend on it."""
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else ""


def add_parser(which) -> None:
    p = which.add_parser("live", help="a synthetic MJPG camera on a clock: per-frame cost, drops, latency",
                         description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--resolution", type=_resolution, action="append", metavar="WxH",
                   help="one run at this resolution (repeatable; default 1920x1080 and 3840x2160)")
    p.add_argument("--fps", type=float, default=None, help="frames per second of the camera (default 30; with the"
                   " default resolutions also 1080p at 60)")
    p.add_argument("--pieces", type=int, default=100, help="pieces on the table (default 100)")
    p.add_argument("--quick", action="store_true", help="1080p at 30 fps, the stretch at half length")
    p.add_argument("--decoders", type=_count, default=None, metavar="N",
                   help="JPEG decoding threads of the grabber (default one per core; 1 as a single grabber thread)")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.quick:
        runs, scale = [((1920, 1080), args.fps or 30.0)], 0.5
    elif args.resolution:
        runs, scale = [(r, args.fps or 30.0) for r in args.resolution], 1.0
    else:
        runs = [((1920, 1080), args.fps or 30.0), ((3840, 2160), args.fps or 30.0)]
        if args.fps is None:
            runs.append(((1920, 1080), 60.0))
        scale = 1.0
    print(f"fieldglass bench live  (OpenCV {cv2.__version__}, {os.cpu_count()} cores, {platform.machine()},"
          f" OpenCV threads {cv2.getNumThreads()})")
    for resolution, fps in runs:
        stretch = build_stretch(resolution, fps, args.pieces, scale)
        load_before = _load()
        figures = run_clocked(stretch, args.decoders)
        load_after = _load()
        plain, full = plain_costs(stretch)
        rebased, scanned = knock_costs(stretch)
        seconds = len(stretch.jpegs) / fps
        print(f"\n{resolution[0]}x{resolution[1]} at {fps:g} fps, MJPG, {args.pieces} pieces, {len(stretch.jpegs)}"
              f" frames ({seconds:.1f} s): still, a hand, a piece moved, the tripod knocked")
        for line in report(stretch, figures, plain, full):
            print("  " + line)
        print(f"  the knocked frame ms     re-registered p50 {_ms(rebased, 50):6.1f}   our full scan p50"
              f" {_ms(scanned, 50):6.1f}   ({_ms(rebased, 50) / _ms(scanned, 50):.2f} x; {len(rebased)} of"
              f" {len(scanned)} re-registered, one after the other)")
        if load_before:
            print(f"  {load_before} before the clocked run, {load_after.removeprefix('load average ')} after it")
    return 0
