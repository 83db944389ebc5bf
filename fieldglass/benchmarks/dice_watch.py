"""The live dice watch's cost (`fieldglass bench dice` prints it): per frame on a still table, and the read once a
throw has settled, at 1080p and 4K, watching a tray and a whole table (what it reads of many throws:
`fieldglass.benchmarks.dice.watch_accuracy`)."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from vision.dice_watch import DiceWatch
from vision.synthetic import RenderOptions, render_table
from vision.synthetic_dice import a_throw, dice_camera, dice_scene


def watch_costs(resolution: tuple[int, int], repeats: int = 30) -> list[str]:
    """Lines: the median ms a still frame costs the watch and the ms of the read at a throw, tray and whole
    table, on the dice scene (a 640 mm table) at `resolution`; and whether the throw read was right."""
    rng = np.random.default_rng(3)
    scene = dice_scene(rng, 0, surface="felt", pieces=3)
    cam = dice_camera(resolution)
    depth = scene.layout.depth_mm
    tray = ((128.0, 0.18 * depth), (512.0, 0.18 * depth), (512.0, 0.82 * depth), (128.0, 0.82 * depth))
    states = a_throw(rng, 3, (320.0, depth / 2.0), spread_mm=80.0)
    opts = RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, jpeg_quality=90, seed=5)
    still = render_table(scene, cam, opts)[0]
    thrown = [render_table(replace(scene, dice=s), cam, replace(opts, seed=6 + k))[0] for k, s in enumerate(states)]
    lines = []
    for name, region in (("tray", tray), ("whole table", None)):
        watch = DiceWatch(scene.layout.width_mm, scene.layout.depth_mm, region,
                          base_mm={p.piece.id: p.piece.base_mm for p in scene.placements})
        per_frame, t, k = [], 0.0, 0
        for _ in range(repeats):
            t0 = time.perf_counter()
            watch.feed(still, t, k, cam.intrinsics, cam.pose)
            per_frame.append(time.perf_counter() - t0)
            t, k = t + 0.04, k + 1
        for frame in thrown[:-1]:
            watch.feed(frame, t, k, cam.intrinsics, cam.pose)
            t, k = t + 0.04, k + 1
        got, read_s = None, 0.0
        while got is None and k < 200:
            t0 = time.perf_counter()
            got = watch.feed(thrown[-1], t, k, cam.intrinsics, cam.pose)
            read_s = time.perf_counter() - t0
            t, k = t + 0.04, k + 1
        truth = tuple(d.value for d in sorted(states[-1], key=lambda d: d.x_mm))
        said = "no throw read" if got is None else f"read {got.text()} ({'right' if got.values == truth else 'WRONG'})"
        lines.append(f"watch, {name}: {1000 * float(np.median(per_frame)):.1f} ms a still frame, "
                     f"{1000 * read_s:.0f} ms to read the settled throw; {said}")
    return lines

