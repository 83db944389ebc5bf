"""Detection limits of our marker detector: how small, how blurred and how oblique a marker can be and still be read.

A sweep over the marker's side in pixels, optical blur and viewing tilt on the synthetic table (vision/synthetic.py,
with sensor noise, JPEG and uneven light as in `fieldglass bench vision`), read with vision.markers.detect_markers.
Each frame holds 24 markers (DICT_4X4_250, 20 mm, on 2 mm cards) on a table scaled so that they come out near the
wanted size; every marker is scored by its own measured size: the SHORTEST side of its black square in the image
(the foreshortened one under tilt). A marker counts as read when its id is found with corners within 1 px (mean).

The limit for one blur and tilt is the smallest size from which every 1 px bin (up to the largest size swept) reads
at least 99 % of its markers. `fieldglass plan` reads the stored result, fieldglass/data/detection_limits.json;
`python -m fieldglass.benchmarks.limits --write` measures it again and rewrites that file.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from fieldglass.progress import progress
from vision.markers import detect_markers
from vision.roster import Piece, Roster
from vision.synthetic import PlacedPiece, RenderOptions, SyntheticScene, VirtualCamera, render_table, standard_layout

SIZES_PX = (6, 8, 10, 12, 14, 16, 18, 20, 24, 28, 32)
BLURS_PX = (0.5, 1.0, 1.5, 2.0, 2.5)
TILTS_DEG = (0, 30, 50, 65)
RESOLUTION = (1280, 720)
MARKER_MM = 20.0
GRID = (6, 4)
DICTIONARY = "DICT_4X4_250"
REQUIRED_RATE = 0.99
IN_FOCUS_BLUR_PX = 1.0
DATA_FILE = "detection_limits.json"


@dataclass(frozen=True)
class Reading:
    side_px: float  # shortest side of the black square in the image
    blur_px: float
    tilt_deg: float
    found: bool


def _scene_for(size_px: float, tilt_deg: float, rng: np.random.Generator) -> tuple[SyntheticScene, VirtualCamera]:
    """A table scaled so that 20 mm markers at its centre show `size_px` on their shortest side, 24 markers on it."""
    w_px, h_px = RESOLUTION
    # Straight down, the table fills the frame's width: px per mm ~ w_px / width. The foreshortened side shrinks by
    # about cos(tilt); the camera is then aimed at the centre from the same height.
    c = math.cos(math.radians(tilt_deg))
    width = w_px * MARKER_MM / size_px * c
    depth = width * h_px / w_px
    layout = standard_layout(width, depth, field_mm=width / 8, anchor_mm=min(50.0, width / 30))
    # Heights scale with the table, so the field of view (and so the viewing angle spread) stays the same.
    camera = VirtualCamera.looking_at_table(width, depth, RESOLUTION, 1.4 * width, tilt_deg, (0.0,) * 5, width / 40)
    cols, rows = GRID
    pieces, placements = [], []
    base = MARKER_MM * 1.6
    for k in range(cols * rows):
        i, j = divmod(k, rows)
        x = width * (0.14 + 0.72 * (i + 0.5) / cols) + rng.uniform(-0.2, 0.2) * base
        y = depth * (0.12 + 0.76 * (j + 0.5) / rows) + rng.uniform(-0.2, 0.2) * base
        piece = Piece(f"m-{k}", 10 + k, "FR", "card", (base, base), MARKER_MM, 2.0)
        pieces.append(piece)
        placements.append(PlacedPiece(piece, x, y, float(rng.uniform(0, 360))))
    return SyntheticScene(layout, Roster(DICTIONARY, tuple(pieces)), tuple(placements)), camera


def _shortest_side(corners: np.ndarray) -> float:
    return float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).min())


def sweep_frame(size_px: float, blur_px: float, tilt_deg: float, seed: int) -> list[Reading]:
    """Render one frame of 24 markers near `size_px` and score each marker."""
    rng = np.random.default_rng(seed)
    scene, camera = _scene_for(size_px * rng.uniform(0.93, 1.07), tilt_deg, rng)
    options = RenderOptions(blur_sigma_px=blur_px, noise_sigma=2.5, jpeg_quality=90, uneven_light=0.2, seed=seed)
    frame, truth = render_table(scene, camera, options)
    found = {m.id: m.corners for m in detect_markers(frame, DICTIONARY)}
    out = []
    for t in truth.pieces:
        if not t.visible:
            continue
        got = found.get(t.marker)
        ok = got is not None and float(np.linalg.norm(got - t.marker_corners_px, axis=1).mean()) <= 1.0
        out.append(Reading(_shortest_side(t.marker_corners_px), blur_px, tilt_deg, ok))
    return out


def run_sweep(
    sizes=SIZES_PX, blurs=BLURS_PX, tilts=TILTS_DEG, frames: int = 2, seed: int = 7
) -> list[Reading]:
    jobs = [(s, b, t, seed + 1000 * k + f) for k, (s, b, t) in enumerate(
        (s, b, t) for b in blurs for t in tilts for s in sizes) for f in range(frames)]
    readings: list[Reading] = []
    for s, b, t, sd in progress(jobs, len(jobs), "detection limits"):
        readings += sweep_frame(s, b, t, sd)
    return readings


def _bins(readings: list[Reading]) -> dict[int, tuple[int, int]]:
    """1 px bins of the shortest side -> (found, total)."""
    out: dict[int, list[int]] = {}
    for r in readings:
        b = out.setdefault(int(math.floor(r.side_px)), [0, 0])
        b[0] += r.found
        b[1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def min_side(readings: list[Reading], rate: float = REQUIRED_RATE) -> int | None:
    """The smallest size (px) from which every bin reads at least `rate` of its markers; None if even the largest
    bins fail."""
    bins = _bins(readings)
    limit = None
    for k in sorted(bins, reverse=True):
        found, total = bins[k]
        if found < rate * total:
            break
        limit = k
    return limit


def limits_table(readings: list[Reading]) -> dict:
    """The stored limits: blur -> tilt -> smallest reliable shortest side in px (None: never reliable)."""
    blurs = sorted({r.blur_px for r in readings})
    tilts = sorted({r.tilt_deg for r in readings})
    table = {
        f"{b:g}": {f"{t:g}": min_side([r for r in readings if r.blur_px == b and r.tilt_deg == t]) for t in tilts}
        for b in blurs
    }
    focus = [table[f"{b:g}"][f"{t:g}"] for b in blurs if b <= IN_FOCUS_BLUR_PX for t in tilts if t <= 50]
    in_focus = None if any(v is None for v in focus) else max(focus)
    return {
        "dictionary": DICTIONARY,
        "side": "shortest side of the marker's black square in the image, px",
        "criterion": f"at least {100 * REQUIRED_RATE:g} % of the markers in every 1 px bin from that size up read "
        "with the right id and corners within 1 px",
        "conditions": "synthetic table: sensor noise 2.5 grey levels, JPEG 90, uneven light 0.2, 20 mm markers on "
        "2 mm cards with a one-module quiet zone, any rotation",
        "blur": "Gaussian sigma in px",
        "tilt": "camera tilt from straight down, deg (the viewing angle of the markers)",
        "in_focus_blur_px": IN_FOCUS_BLUR_PX,
        "in_focus_max_tilt_deg": 50,
        "in_focus_min_side_px": in_focus,
        "rule": f"a marker is read reliably when its shortest side is at least {in_focus} px in the image, in focus "
        f"(blur sigma <= {IN_FOCUS_BLUR_PX:g} px) and seen at up to 50 deg from straight on",
        "min_side_px": table,
        "opencv": cv2.__version__,
        "measured": time.strftime("%Y-%m-%d"),
        "markers_scored": len(readings),
    }


def format_report(readings: list[Reading], limits: dict) -> list[str]:
    lines = ["smallest reliable marker (shortest side px) by blur sigma (rows) and camera tilt (columns):"]
    tilts = sorted({r.tilt_deg for r in readings})
    lines.append("  blur px " + "".join(f"{f'tilt {t:g}':>10}" for t in tilts))
    for b, row in limits["min_side_px"].items():
        cells = "".join(f"{'-' if row[f'{t:g}'] is None else row[f'{t:g}']:>10}" for t in tilts)
        lines.append(f"  {b:>7} " + cells)
    lines.append("share read per 1 px bin, in focus (blur <= 1 px), all tilts:")
    bins = _bins([r for r in readings if r.blur_px <= IN_FOCUS_BLUR_PX])
    lines += [f"  {k:>3} px  {f}/{n} = {100 * f / n:5.1f} %" for k, (f, n) in bins.items() if k <= 24]
    lines.append("rule: " + limits["rule"])
    return lines


def stored_limits() -> dict:
    """The limits stored in fieldglass/data/detection_limits.json."""
    return json.loads(resources.files("fieldglass").joinpath("data", DATA_FILE).read_text(encoding="utf-8"))


def data_path() -> Path:
    return Path(__file__).resolve().parents[1] / "data" / DATA_FILE


def add_arguments(p) -> None:
    p.add_argument("--frames", type=int, default=2, help="frames per size, blur and tilt (24 markers each; default 2)")
    p.add_argument("--quick", action="store_true", help="one frame per cell, every other size")
    p.add_argument("--write", action="store_true", help=f"store the result in fieldglass/data/{DATA_FILE}")
    p.add_argument("--seed", type=int, default=7)


EPILOG = f"""\
examples:
  fieldglass bench limits --quick         one frame per cell, every other size: a first look
  fieldglass bench limits                 the full sweep, printed
  fieldglass bench limits --write         the full sweep, stored in fieldglass/data/{DATA_FILE} for `plan`
"""


def add_parser(which) -> None:
    """Register `bench limits` on the bench command's sub-parsers."""
    r = which.add_parser(
        "limits",
        help="detection limits: marker size in px x blur x tilt on the synthetic table (what `plan` uses)",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(r)
    r.set_defaults(run=run)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m fieldglass.benchmarks.limits", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return run(p.parse_args(argv))


def run(args) -> int:
    sizes = SIZES_PX[::2] if args.quick else SIZES_PX
    frames = 1 if args.quick else args.frames
    print(f"fieldglass bench limits  (OpenCV {cv2.__version__}, {RESOLUTION[0]}x{RESOLUTION[1]} frames, {DICTIONARY})")
    readings = run_sweep(sizes, BLURS_PX, TILTS_DEG, frames, args.seed)
    limits = limits_table(readings)
    for line in format_report(readings, limits):
        print(line)
    if args.write:
        data_path().write_text(json.dumps(limits, indent=2) + "\n", encoding="utf-8")
        print(f"written to {data_path()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
