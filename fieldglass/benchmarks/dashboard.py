"""`fieldglass bench dashboard`: how many frames a second the dashboard shows, at 1080p with 100 pieces.

The default system's demo table grown to 100 pieces (the demo's pieces copied, each copy with a marker of its own,
on free fields), filmed at 1920x1080 by the synthetic camera while one piece slides 6 mm a frame; every frame read
by the vision pipeline beforehand (`LiveReader` reading every change at once, so that the moving piece is in every
frame's reading, and the board view rectified, as the capture worker does). Then the
real main window (gui/app.py `MainWindow`, 1920x1080, the busiest piece selected so its targets are drawn) is handed
those frames, made for the size its views show them at as the capture worker makes them, on a 30 fps clock, and
again as fast as it shows them, then frames of the table standing still (the camera noise fresh in each) on the
clock and as fast as shown; the live view's repaints are counted
(gui/repaint.py): frames shown per second, the time from a frame's hand-over to the repaint that showed it (p50,
p95), the window's own work per frame.

On a screen: with no DISPLAY set and Xvfb installed (`make sysdeps`), the bench starts Xvfb on a free display itself
(and stops it at the end); without Xvfb it says so and paints offscreen. The figures are printed, never asserted:
this machine is shared, note the load average printed with them.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import platform
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from calibration.registration import TableRegistration
from common.errors import InputError
from fieldglass.benchmarks.live import _resolution
from fieldglass.progress import progress
from fieldglass.setup import Setup, load_setup
from rules.system import default_system, game_system
from vision.rectify import BoardRectifier
from vision.roster import Roster
from vision.stream import ChangeConfig, LiveReader
from vision.synthetic import PlacedPiece, RenderOptions, VirtualCamera, render_table

EPILOG = """\
examples:
  fieldglass bench dashboard              1080p, 100 pieces, one moving and all still: at 30 fps and as fast as shown
  fieldglass bench dashboard --quick      shorter runs
  fieldglass bench dashboard --pieces 200 --seconds 10
"""

BOARD_MM_PER_PX = 2.0
MARKERS = 250  # the 4x4 dictionaries' markers the copies may wear


def crowded_setup(n_pieces: int, system: str | None = None) -> Setup:
    """`system`'s synthetic set-up (default: the default system) with its demo pieces copied up to `n_pieces`:
    each copy a new id and marker, its original's state, on a free place (a field centre of a gridded table)."""
    setup = load_setup(system or default_system(), "synthetic")
    scene, lay = setup.scene, setup.layout
    placed = list(scene.placements)
    if not placed:
        raise InputError(f"--system {setup.system}: its demo table has no pieces to copy")
    used = {p.marker for p in setup.roster.pieces} | set(lay.anchor_ids)
    free_markers = [m for m in range(MARKERS) if m not in used]
    spots = _free_spots(lay, placed)
    missing = n_pieces - len(placed)
    if missing > min(len(free_markers), len(spots)):
        raise InputError(f"--pieces {n_pieces}: the demo table holds at most "
                         f"{len(placed) + min(len(free_markers), len(spots))}")
    states = dict(setup.initial_states)
    pieces = list(setup.roster.pieces)
    for k in range(max(0, missing)):
        src = placed[k % len(placed)]
        piece = dataclasses.replace(src.piece, id=f"{src.piece.id}-c{k + 1}", marker=free_markers[k])
        x, y = spots[k]
        placed.append(PlacedPiece(piece, x, y, src.heading_deg))
        pieces.append(piece)
        if src.piece.id in states:
            states[piece.id] = states[src.piece.id]
    roster = Roster(setup.roster.dictionary, tuple(pieces))
    scene = dataclasses.replace(scene, roster=roster, placements=tuple(placed))
    return dataclasses.replace(setup, roster=roster, scene=scene, initial_states=states)


def _free_spots(lay, placed) -> list[tuple[float, float]]:
    """Places at least 110 mm from every piece and anchor and 90 mm inside the table: every other field centre of
    a grid (clear of the field edges), else a 110 mm lattice; spread over the table in a shuffled order."""
    if lay.grid is not None:
        g = lay.grid
        cand = [g.field_centre(c, r) for r in range(0, g.rows, 2) for c in range(0, g.cols, 2)]
    else:
        xs, ys = np.arange(90.0, lay.width_mm - 89.0, 110.0), np.arange(90.0, lay.depth_mm - 89.0, 110.0)
        cand = [(float(x), float(y)) for y in ys for x in xs]
    taken = np.array([(p.x_mm, p.y_mm) for p in placed] + [(a.x_mm, a.y_mm) for a in lay.anchors], float)
    out = [(float(x), float(y)) for x, y in cand
           if 90.0 <= x <= lay.width_mm - 90.0 and 90.0 <= y <= lay.depth_mm - 90.0
           and np.min(np.hypot(taken[:, 0] - x, taken[:, 1] - y)) >= 110.0]
    order = np.random.default_rng(14).permutation(len(out))
    return [out[i] for i in order]


def read_frames(setup: Setup, resolution: tuple[int, int], n_frames: int, slide_mm: float = 6.0
                ) -> tuple[list[tuple], int]:
    """`n_frames` frames of the crowded table, one piece sliding `slide_mm` a frame (0: a still table, each frame
    with its own camera noise), each read as the capture worker reads it: [(frame, reading, lens, board)], and the
    pieces the first frame found."""
    lay, scene = setup.layout, setup.scene
    camera = VirtualCamera.looking_at_table(lay.width_mm, lay.depth_mm, resolution)
    registration = TableRegistration(lay, camera.intrinsics)
    # every change read at once (as `fieldglass record` reads): the sliding piece is in every frame's reading at its
    # new place, so the dashboard has that piece to redraw in every frame (the settling reader would leave it out
    # while it moves, and most frames would read the same)
    reader = LiveReader(registration, setup.roster, ChangeConfig(settle=False))
    rectifier = BoardRectifier(lay)
    mover = len(scene.placements) - 1
    out, found = [], 0
    what = "a piece moving" if slide_mm else "still"
    for k in progress(range(n_frames), n_frames, f"rendering and reading {resolution[0]}x{resolution[1]}, {what}"):
        p = scene.placements[mover]
        placements = list(scene.placements)
        placements[mover] = dataclasses.replace(p, x_mm=p.x_mm + slide_mm * k)
        options = RenderOptions(blur_sigma_px=0.6, noise_sigma=2.5, uneven_light=0.25, jpeg_quality=92, seed=k)
        frame, _ = render_table(dataclasses.replace(scene, placements=tuple(placements)), camera, options)
        reading = reader.read(frame)
        board = None
        if reading.pose is not None:
            board = rectifier.rectify(frame, registration.lens, reading.pose, BOARD_MM_PER_PX)
        out.append((frame, reading, registration.lens, board))
        found = found or len(reading.pieces)
    return out, found


@contextmanager
def screen() -> Iterator[str]:
    """A display for the window: the one set, else Xvfb started on a free display (stopped afterwards), else Qt's
    offscreen platform. Yields what it is, for the printout."""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        yield f"the display {os.environ.get('DISPLAY') or os.environ.get('WAYLAND_DISPLAY')}"
        return
    xvfb = shutil.which("Xvfb")
    proc, number = (_start_xvfb(xvfb) if xvfb else (None, None))
    if proc is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        yield ("Qt offscreen (no DISPLAY, " + ("Xvfb did not start" if xvfb else "no Xvfb: apt-get install xvfb")
               + "): painting into memory, no X server")
        return
    old = {k: os.environ.get(k) for k in ("DISPLAY", "QT_QPA_PLATFORM")}
    os.environ.update(DISPLAY=f":{number}", QT_QPA_PLATFORM="xcb")
    try:
        yield f"Xvfb :{number} (1920x1200, 24 bit; started for this run)"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        for k, v in old.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _start_xvfb(xvfb: str) -> tuple[subprocess.Popen | None, int | None]:
    """Xvfb on the first display from :99 that has no lock, once its socket is there; (None, None) if it fails."""
    for number in range(99, 160):
        if Path(f"/tmp/.X{number}-lock").exists() or Path(f"/tmp/.X11-unix/X{number}").exists():
            continue
        proc = subprocess.Popen([xvfb, f":{number}", "-screen", "0", "1920x1200x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 10.0:
            if Path(f"/tmp/.X11-unix/X{number}").exists():
                return proc, number
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        proc.kill()
        proc.wait()
    return None, None


def _line(name: str, run, repaint) -> str:
    lat = run.latency_ms
    return (f"{name:<24} offered {run.offered / run.seconds:5.1f} fps, shown {run.shown_fps:5.1f} fps "
            f"({run.shown}/{run.offered} frames in {run.seconds:.1f} s); frame to screen p50 "
            f"{repaint.percentile(lat, 50):.0f} / p95 {repaint.percentile(lat, 95):.0f} ms; window's work per "
            f"frame p50 {repaint.percentile(run.show_ms, 50):.0f} / p95 {repaint.percentile(run.show_ms, 95):.0f} ms;"
            f" GUI thread CPU per frame shown {run.cpu_ms_per_frame:.0f} ms (a free core: "
            f"{1000.0 / run.cpu_ms_per_frame:.0f} fps); repaints live {run.paints[0]}, board {run.paints[1]}; "
            f"overlay items redrawn {run.updates}")


def add_parser(which) -> None:
    p = which.add_parser("dashboard", help="the dashboard's repaint rate and frame-to-screen latency (1080p, 100 "
                         "pieces, under Xvfb)", description=__doc__, epilog=EPILOG,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--system", metavar="NAME", help="whose demo table (default: the registry's default system)")
    p.add_argument("--pieces", type=int, default=100, help="pieces on the table (default 100)")
    p.add_argument("--resolution", type=_resolution, default=(1920, 1080), metavar="WxH",
                   help="camera frames (default 1920x1080)")
    p.add_argument("--fps", type=float, default=30.0, help="the clocked run's frame rate (default 30)")
    p.add_argument("--seconds", type=float, default=8.0, help="length of each run (default 8)")
    p.add_argument("--frames", type=int, default=12, help="distinct frames rendered and read (default 12)")
    p.add_argument("--quick", action="store_true", help="4 s runs of 6 frames")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.pieces < 1 or args.frames < 1 or args.seconds <= 0 or args.fps <= 0:
        raise InputError("--pieces, --frames, --seconds and --fps must be positive")
    if args.quick:
        args.seconds, args.frames = min(args.seconds, 4.0), min(args.frames, 6)
    system = args.system or default_system()
    game_system(system)  # an unknown name is a one-line error before any rendering
    setup = crowded_setup(args.pieces, system)
    frames, found = read_frames(setup, args.resolution, args.frames)
    still, _ = read_frames(setup, args.resolution, max(2, args.frames // 2), slide_mm=0.0)
    with screen() as where:
        try:
            repaint = importlib.import_module("gui.repaint")  # Qt only now: after the display is chosen
        except ImportError as exc:
            raise InputError(f"the dashboard needs PySide6: pip install 'fieldglass[gui]' ({exc})") from None
        with tempfile.TemporaryDirectory() as settings:
            window = repaint.open_bench_window(setup, (1920, 1080), settings)
            try:
                # made for the views' sizes, as the capture worker makes them once the window is shown
                repaint.measure_repaint(window, repaint.frame_results(frames[:1], BOARD_MM_PER_PX), None, 0.2)
                results = repaint.frame_results(frames, BOARD_MM_PER_PX, window)
                still_results = repaint.frame_results(still, BOARD_MM_PER_PX, window)
                clocked = repaint.measure_repaint(window, results, args.fps, args.seconds)
                flat_out = repaint.measure_repaint(window, results, None, args.seconds, select=False)
                still_run = repaint.measure_repaint(window, still_results, args.fps, args.seconds, select=False)
                still_flat = repaint.measure_repaint(window, still_results, None, args.seconds, select=False)
                views = (f"live view {_size(window.live_view)}, board view {_size(window.board_view)}; frames made "
                         f"{_shape(results[0].shown)} and boards {_shape(results[0].board_shown)} for them")
            finally:
                window.close()
                repaint.flush()
        load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
        print(f"fieldglass bench dashboard  ({system}'s demo table grown to {len(setup.roster.pieces)} pieces, "
              f"{found} found in the first frame; {args.resolution[0]}x{args.resolution[1]} frames, {len(frames)} "
              f"distinct, one piece moving)")
        print(f"  on {where}, Qt platform {repaint.platform_name()}; window 1920x1080: {views}")
        print(f"  machine: {os.cpu_count()} cores {platform.machine()}, load average {load} (1, 5, 15 min)")
        print("  " + _line(f"clocked at {args.fps:g} fps", clocked, repaint))
        print("  " + _line("as fast as shown", flat_out, repaint))
        print("  " + _line(f"still table at {args.fps:g} fps", still_run, repaint))
        print("  " + _line("still, as fast as shown", still_flat, repaint))
    return 0


def _size(view) -> str:
    return f"{view.width()}x{view.height()}"


def _shape(image) -> str:
    return "none" if image is None else f"{image.shape[1]}x{image.shape[0]}"
