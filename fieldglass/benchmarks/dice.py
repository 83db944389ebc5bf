"""`fieldglass bench dice`: dice read from rendered photos against their truth, phantom dice on empty tables, speed.

The scenes (vision.synthetic_dice): a 640 mm wide table seen whole (about 3 px per mm at 1080p, 6 at 4K), a tray
of cloth, felt, bare wood or a printed map, three bases with their markers beside it, anchors in the corners;
12-20 mm dice, white, cream, coloured or black, black, white, red or blue pips, turned at random, lit from 0.75 to 1.05,
alone or touching in rows of 2-4; cameras straight down and tilted 20 and 30 degrees (side faces in view); blur
0.4-1 px, noise 1-4, JPEG 80-95, uneven light. A die is found when a reading lies within a third of its side of its
top face's centre; a reading near no die is a phantom.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field

import numpy as np

from fieldglass.benchmarks.dice_watch import watch_costs
from fieldglass.progress import progress
from vision.dice import DiceOptions, DieReading, read_dice
from vision.dice_both import read_dice_both
from vision.dice_pips import read_dice_pips
from vision.synthetic import render_table
from vision.synthetic_dice import SURFACES, dice_camera, dice_options, dice_scene

EPILOG = """\
examples:
  fieldglass bench dice            200 photos with dice, 40 empty tables, speed at 1080p and 4K, and the
                                   dashboard's live watch: ms a still frame, ms to read a settled throw
  fieldglass bench dice --quick    a smaller run for a first look
  fieldglass bench dice --real     real photos of thrown dice (tests/data/dice_real) against their truth
"""
SURE = 0.8  # a wrong value at or above this confidence is counted apart: the issue allows none
# --reader: both merged (vision/dice_both.py, what `fieldglass dice` and the dashboard use), or either alone
READERS = {"both": read_dice_both, "faces": read_dice, "pips": read_dice_pips}


@dataclass
class DiceTally:
    photos: int = 0
    dice: int = 0
    right: int = 0
    wrong: int = 0
    wrong_sure: int = 0
    unreadable: int = 0
    missed: int = 0
    phantoms: int = 0
    empty_photos: int = 0
    empty_phantoms: int = 0
    seconds: list[float] = field(default_factory=list)

    def lines(self) -> list[str]:
        n = max(self.dice, 1)
        return [
            f"photos with dice {self.photos}, dice {self.dice}: right {self.right} ({100 * self.right / n:.2f} %),"
            f" wrong {self.wrong} (of them at confidence >= {SURE}: {self.wrong_sure}), unreadable (None)"
            f" {self.unreadable}, not found {self.missed}, phantom dice {self.phantoms}",
            f"empty tables {self.empty_photos}: phantom dice {self.empty_phantoms}",
        ]


def tally_photo(tally: DiceTally, truth_dice, readings: list[DieReading]) -> None:
    """Match readings to the visible dice (nearest centre within a third of a side) and count the outcomes."""
    used: set[int] = set()
    for die in truth_dice:
        if not die.visible:
            continue
        tally.dice += 1
        best, best_d = None, math.inf
        for i, r in enumerate(readings):
            d = math.hypot(r.centre_px[0] - die.centre_px[0], r.centre_px[1] - die.centre_px[1])
            if i not in used and d < best_d:
                best, best_d = i, d
        if best is None or best_d > die.side_px / 3.0:
            tally.missed += 1
            continue
        used.add(best)
        r = readings[best]
        if r.value is None:
            tally.unreadable += 1
        elif r.value == die.value:
            tally.right += 1
        else:
            tally.wrong += 1
            tally.wrong_sure += r.confidence >= SURE
    near_edge = [r for i, r in enumerate(readings) if i not in used and not any(
        not d.visible and math.hypot(r.centre_px[0] - d.centre_px[0], r.centre_px[1] - d.centre_px[1]) < d.side_px
        for d in truth_dice)]
    tally.phantoms += len(near_edge)


def side_range(camera, sizes_mm=(12.0, 20.0), width_mm: float = 640.0) -> DiceOptions:
    """The options for a camera over the dice scene: 12-20 mm dice in its pixels at the table's centre (as a camera
    file and layout give them to `fieldglass dice`)."""
    c = np.array([width_mm / 2.0, width_mm * 9.0 / 32.0, 16.0])
    px = camera.project(np.array([c, c + (1.0, 0.0, 0.0), c + (0.0, 1.0, 0.0)]))
    px_per_mm = float(np.mean(np.linalg.norm(px[1:] - px[0], axis=1)))
    return DiceOptions(min_side_px=0.6 * sizes_mm[0] * px_per_mm, max_side_px=1.3 * sizes_mm[1] * px_per_mm)


def measure(photos: int, empty: int, seed: int, resolution=(1920, 1080), label: str = "dice",
            reader=read_dice_both) -> DiceTally:
    rng = np.random.default_rng(seed)
    tally = DiceTally()
    tilts = (0.0, 20.0, 30.0)
    for k in progress(range(photos + empty), photos + empty, label):
        cam = dice_camera(resolution, tilt_deg=tilts[k % 3], yaw_deg=180.0 * (k % 2))
        surface = SURFACES[k % len(SURFACES)]
        n = 0 if k >= photos else int(rng.integers(3, 13))
        scene = dice_scene(rng, n, surface=surface, touching=bool(k % 2), pieces=3)
        frame, truth = render_table(scene, cam, dice_options(rng))
        t = time.perf_counter()
        readings = reader(frame, side_range(cam))
        tally.seconds.append(time.perf_counter() - t)
        if n:
            tally.photos += 1
            tally_photo(tally, truth.dice, readings)
        else:
            tally.empty_photos += 1
            tally.empty_phantoms += len(readings)
    return tally


def add_parser(which) -> None:
    p = which.add_parser("dice", help="dice read from rendered photos: values right, phantom dice, time per frame",
                         description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--photos", type=int, default=200, help="photos with dice at 1080p (default 200)")
    p.add_argument("--empty", type=int, default=40, help="empty tables (default 40)")
    p.add_argument("--photos-4k", type=int, default=30, help="photos with dice at 4K (default 30)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="40 photos, 12 empty tables, 6 at 4K")
    p.add_argument("--reader", choices=sorted(READERS), default="both",
                   help="both: the two readers merged, as `fieldglass dice` and the dashboard read (default); faces: "
                        "vision/dice.py's face-first reader alone; pips: vision/dice_pips.py's pip-first alone")
    p.set_defaults(run=run)


def run(args) -> int:
    photos, empty, photos_4k = (40, 12, 6) if args.quick else (args.photos, args.empty, args.photos_4k)
    print(f"fieldglass bench dice (reader: {args.reader})")
    for res, n, e in (((1920, 1080), photos, empty), ((3840, 2160), photos_4k, max(2, photos_4k // 5))):
        tally = measure(n, e, args.seed + res[0], res, f"dice {res[0]}x{res[1]}", READERS[args.reader])
        print(f"\n{res[0]}x{res[1]}")
        for line in tally.lines():
            print("  " + line)
        s = np.array(tally.seconds) * 1000.0
        print(f"  time per frame: median {np.median(s):.1f} ms, 95th percentile {np.percentile(s, 95):.1f} ms")
        for line in watch_costs(res):  # the dashboard's live watch (vision/dice_watch.py)
            print("  " + line)
    return 0
