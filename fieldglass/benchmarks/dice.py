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
from dataclasses import dataclass, field, replace

import numpy as np

from fieldglass.benchmarks.dice_watch import watch_costs
from fieldglass.progress import progress
from vision.dice import DiceOptions, DieReading, read_dice
from vision.dice_both import read_dice_both
from vision.dice_pips import read_dice_pips
from vision.dice_watch import SETTLE_S, DiceWatch
from vision.synthetic import render_table
from vision.synthetic_dice import SURFACES, dice_camera, dice_options, dice_scene

EPILOG = """\
examples:
  fieldglass bench dice            200 photos with dice, 40 empty tables, speed at 1080p and 4K, and the
                                   dashboard's live watch: ms a still frame, ms to read a settled throw, and
                                   60 throws read by it (values right, phantoms, ms a read)
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


def watch_accuracy(resolution: tuple[int, int], throws: int, seed: int, tally: DiceTally) -> DiceTally:
    """Each of `throws` scenes of the bench (`measure`'s: 3-12 dice, every surface,
    camera straight down and tilted 20 and 30 degrees, alone or touching) thrown onto its own empty table under a
    watch of the whole table: the empty table's frames, then the thrown dice's until the watch reads them. Adds
    each throw's dice to `tally` (a `DiceTally`: right, wrong, missed, phantoms) and the read's seconds to
    `tally.seconds`. The frames are rendered alike but for the dice (light, blur, noise and JPEG of one seed)."""
    rng = np.random.default_rng(seed)
    for k in progress(range(throws), throws, f"watch {resolution[0]}x{resolution[1]}"):
        cam = dice_camera(resolution, tilt_deg=(0.0, 20.0, 30.0)[k % 3], yaw_deg=180.0 * (k % 2))
        scene = dice_scene(rng, int(rng.integers(3, 13)), surface=SURFACES[k % len(SURFACES)], touching=bool(k % 2),
                           pieces=3)
        opts = dice_options(rng)
        empty = replace(scene, dice=())
        watch = DiceWatch(scene.layout.width_mm, scene.layout.depth_mm,
                          base_mm={p.piece.id: p.piece.base_mm for p in scene.placements})
        t, n, got, seconds = 0.0, 0, None, 0.0
        before = render_table(empty, cam, opts)[0]
        for _ in range(3):
            watch.feed(before, t, n, cam.intrinsics, cam.pose)
            t, n = t + 0.04, n + 1
        thrown, truth = render_table(scene, cam, opts)
        while got is None and t < 3 * SETTLE_S + 1.0:
            t0 = time.perf_counter()
            got = watch.feed(thrown, t, n, cam.intrinsics, cam.pose)
            seconds = time.perf_counter() - t0
            t, n = t + 0.04, n + 1
        tally.photos += 1
        tally.seconds.append(seconds)
        tally_photo(tally, truth.dice, list(got.readings) if got is not None else [])
    return tally


def add_parser(which) -> None:
    p = which.add_parser("dice", help="dice read from rendered photos: values right, phantom dice, time per frame",
                         description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--photos", type=int, default=200, help="photos with dice at 1080p (default 200)")
    p.add_argument("--empty", type=int, default=40, help="empty tables (default 40)")
    p.add_argument("--photos-4k", type=int, default=30, help="photos with dice at 4K (default 30)")
    p.add_argument("--throws", type=int, default=60,
                   help="throws the dashboard's live watch reads at 1080p (a sixth as many at 4K; default 60)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="40 photos, 12 empty tables, 6 at 4K, 12 throws")
    p.add_argument("--reader", choices=sorted(READERS), default="both",
                   help="both: the two readers merged, as `fieldglass dice` and the dashboard read (default); faces: "
                        "vision/dice.py's face-first reader alone; pips: vision/dice_pips.py's pip-first alone")
    p.set_defaults(run=run)


def run(args) -> int:
    photos, empty, photos_4k, throws = (40, 12, 6, 12) if args.quick else (args.photos, args.empty, args.photos_4k,
                                                                           args.throws)
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
        n_throws = throws if res[0] == 1920 else max(2, throws // 6)
        watched = watch_accuracy(res, n_throws, args.seed + res[1], DiceTally())
        s = np.array(watched.seconds) * 1000.0
        print(f"  watch, whole table, {watched.photos} throws of 3-12 dice: {watched.lines()[0].split(': ', 1)[1]}")
        print(f"  watch, read of a settled throw: median {np.median(s):.1f} ms, 95th percentile"
              f" {np.percentile(s, 95):.1f} ms")
    return 0
