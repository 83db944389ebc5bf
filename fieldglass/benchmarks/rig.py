"""`fieldglass bench vision --rig`: two rendered cameras over one table, each seeing part of it, read as one table.

The scenario is the rig issue's low ceiling: a 2400 x 1200 table (the standard layout, anchors 4 and 6 in the middle
of the long edges), two cameras 1150 mm up looking straight down, each fitted to an 800 x 1200 part at one end and
seeing about 64 % of the table (vision.synthetic_rig.cameras_along_table), 60 pieces. Each photo is read on its own
(its own registration from the anchors it sees) and the readings fused (vision.rig.fuse_views). Clean photos (blur
0.6 px, noise 2) and degraded ones (blur 1 px, noise 4, JPEG 85, uneven light), at 1920x1080 and 3840x2160. Renders
use the true lens: the figures are the fusion's own error, not a real camera's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from calibration.registration import TableRegistration
from fieldglass.progress import progress
from vision.pieces import read_table
from vision.rig import CameraView, fuse_views
from vision.synthetic import RenderOptions, random_scene, render_table, standard_layout
from vision.synthetic_rig import cameras_along_table

PART_MM = 800.0
HEIGHT_MM = 1150.0
PIECES = 60
WRONG_MM = 10.0  # a reported piece this far from the truth is a misread, counted as a false piece
RESOLUTIONS = ((1920, 1080), (3840, 2160))
CLEAN = {"blur_sigma_px": 0.6, "noise_sigma": 2.0}
DEGRADED = {"blur_sigma_px": 1.0, "noise_sigma": 4.0, "jpeg_quality": 85, "uneven_light": 0.3}


@dataclass
class RigTally:
    """Counts over the scenes of one resolution and degradation: `seen` pieces visible to at least one camera,
    `both` visible to both; `found` reported once, `fused` reported with both views, `doubled` reported more than
    once, `false` reported but not seen (or more than WRONG_MM off), `disagreements` left out because the views
    disagreed; `errors_mm` each found piece's distance from the truth."""

    scenes: int = 0
    seen: int = 0
    both: int = 0
    found: int = 0
    fused: int = 0
    doubled: int = 0
    false: int = 0
    disagreements: int = 0
    unregistered: int = 0
    errors_mm: list[float] = field(default_factory=list)

    def row(self, label: str) -> str:
        err = np.array(self.errors_mm) if self.errors_mm else np.array([np.nan])
        found, fused = f"{self.found}/{self.seen}", f"{self.fused}/{self.both}"
        return (f"{label:<20} {self.scenes:>6} {found:>9} {100 * self.found / max(self.seen, 1):6.1f}"
                f" {np.percentile(err, 95):7.3f} {err.max():7.3f} {fused:>11} {self.doubled:>7}"
                f" {self.false:>5} {self.disagreements:>8} {self.unregistered:>6}")


HEADER = (f"{'photos':<20} {'scenes':>6} {'found':>9} {'recall':>6} {'p95 mm':>7} {'max mm':>7} {'fused':>11}"
          f" {'doubled':>7} {'false':>5} {'disagree':>8} {'unreg':>6}")


def measure_rig(resolution: tuple[int, int], scenes: int, seed: int, degraded: bool, n_pieces: int | None = None,
                ) -> RigTally:
    """Render `scenes` random tables from both cameras at `resolution`, read and fuse them, and tally the result
    against the truth (see RigTally)."""
    layout = standard_layout()
    cameras = cameras_along_table(layout.width_mm, layout.depth_mm, ("west", "east"), PART_MM, resolution, HEIGHT_MM)
    rng = np.random.default_rng(seed)
    tally = RigTally()
    label = f"rig {resolution[0]}x{resolution[1]}{' degraded' if degraded else ''}"
    for _ in progress(range(scenes), scenes, label):
        scene = random_scene(layout, n_pieces or PIECES, rng)
        views, visible = [], {}
        for name, cam in cameras.items():
            options = RenderOptions(**(DEGRADED if degraded else CLEAN), seed=int(rng.integers(1 << 30)))
            frame, truth = render_table(scene, cam, options)
            reading = read_table(frame, TableRegistration(layout, cam.intrinsics), scene.roster)
            views.append(CameraView(name, cam.intrinsics, reading))
            visible[name] = {t.piece_id for t in truth.pieces if t.visible}
        _tally(tally, fuse_views(views, scene.roster, layout.grid), scene, visible)
    return tally


def _tally(tally: RigTally, fused, scene, visible: dict[str, set[str]]) -> None:
    true = {p.piece.id: p for p in scene.placements}
    seen = set().union(*visible.values())
    both = set.intersection(*visible.values())
    names = [f.pose.piece for f in fused.pieces]
    tally.scenes += 1
    tally.seen += len(seen)
    tally.both += len(both)
    tally.doubled += len(names) - len(set(names))
    tally.disagreements += len(fused.disagreements)
    tally.unregistered += len(fused.unregistered)
    counted = set()
    for f in fused.pieces:
        if f.pose.piece in counted:
            continue  # a double, counted above
        counted.add(f.pose.piece)
        t = true.get(f.pose.piece)
        off = math.inf if t is None else math.hypot(f.pose.x_mm - t.x_mm, f.pose.y_mm - t.y_mm)
        if f.pose.piece not in seen or off > WRONG_MM:
            tally.false += 1
            continue
        tally.found += 1
        tally.errors_mm.append(off)
        tally.fused += f.pose.piece in both and len(f.views) == len(visible)


def rig_figures(quick: bool, seed: int) -> list[str]:
    """The bench's table: clean and degraded photos at 1080p and 4K (1 scene each with `quick`, else 3)."""
    scenes = 1 if quick else 3
    lines = [HEADER]
    for resolution in RESOLUTIONS:
        for degraded in (False, True):
            label = f"{resolution[0]}x{resolution[1]} {'degraded' if degraded else 'clean'}"
            lines.append(measure_rig(resolution, scenes, seed, degraded).row(label))
    return lines


def run_rig_bench(args) -> int:
    """Print the rig figures (bench vision --rig)."""
    print(f"fieldglass bench vision --rig: two cameras {HEIGHT_MM:g} mm over a 2400 x 1200 table, each seeing about"
          f" 64 % of it, {PIECES} pieces; fused with vision.rig.fuse_views")
    print("  found: reported once within 10 mm of the truth / seen by a camera; fused: pieces seen by both cameras"
          " reported once with both views; false: reported but not seen, or > 10 mm off")
    for line in rig_figures(args.quick, args.seed):
        print("  " + line)
    return 0
