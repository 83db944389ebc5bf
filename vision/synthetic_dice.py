"""Rendered dice as ground truth: scenes of thrown dice on a tray or table, and the cameras that see them.

A scene is a small table (`standard_layout`, its anchors at the corners) with a tray of one surface (cloth, felt,
bare wood, a printed map) and a few bases with their markers beside it; dice of 12-20 mm, white, cream, coloured or
black with black, white, red or blue pips, turned at random, lit unevenly, alone or touching in rows. An empty tray
(no dice) is the phantom test.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from vision.roster import Roster
from vision.synthetic import (
    PlacedDie,
    RenderOptions,
    SyntheticScene,
    TerrainPiece,
    VirtualCamera,
    random_scene,
    standard_layout,
)

SURFACES = ("cloth", "felt", "planks", "map")
# (body, pips) BGR: white/black, cream/red, red/white, blue/white, green/white, white/red, white/blue, ivory/black,
# purple/white, black/white (the common cheap die)
DIE_COLOURS = (
    ((236, 238, 240), (30, 28, 26)), ((196, 228, 240), (40, 40, 190)), ((40, 40, 190), (236, 236, 236)),
    ((170, 80, 30), (236, 236, 236)), ((60, 140, 40), (240, 240, 240)), ((236, 238, 240), (40, 40, 200)),
    ((236, 238, 240), (170, 70, 30)), ((210, 235, 245), (26, 26, 26)), ((120, 60, 200), (240, 240, 240)),
    ((34, 32, 30), (236, 236, 236)),
)


def dice_camera(resolution: tuple[int, int] = (1920, 1080), width_mm: float = 640.0, tilt_deg: float = 0.0,
                yaw_deg: float = 0.0) -> VirtualCamera:
    """A camera over a table of `width_mm` (16:9), from about 3 px per mm at 1080p (a dice tray's view)."""
    depth = width_mm * resolution[1] / resolution[0]
    return VirtualCamera.looking_at_table(width_mm, depth, resolution, height_mm=2.4 * width_mm, tilt_deg=tilt_deg,
                                          distortion=(-0.04, 0.01, 0.0, 0.0, 0.0), margin_mm=10.0, yaw_deg=yaw_deg)


def dice_scene(rng: np.random.Generator, n_dice: int, width_mm: float = 640.0, surface: str = "cloth",
               touching: bool = False, pieces: int = 3, sizes_mm: tuple[float, float] = (12.0, 20.0),
               ) -> SyntheticScene:
    """A table `width_mm` wide (16:9) with a tray of `surface` in its middle, `pieces` bases beside it and
    `n_dice` dice in the tray (in touching rows of 2-4 when `touching`). Dice of different sizes keep 8 mm apart
    (so no die hides another's top); dice in a row share their size and touch face to face."""
    depth = width_mm * 9.0 / 16.0
    layout = standard_layout(width_mm, depth, field_mm=width_mm / 8.0, anchor_mm=30.0)
    base = random_scene(layout, 0, rng)
    tray = np.array([[0.2, 0.18], [0.8, 0.18], [0.8, 0.82], [0.2, 0.82]]) * (width_mm, depth)
    terrain = () if surface == "cloth" else (TerrainPiece(surface, tray),)
    placements = []
    for i, y in enumerate(np.linspace(0.3, 0.7, pieces) if pieces else ()):
        # bases beside the tray, on the long edges' margins (clear of the anchors in the corners and middles)
        p = random_scene(layout, 1, rng, heights_mm=(3.0,), first_marker=10 + i).placements[0]
        placements.append(replace(p, x_mm=float(0.1 * width_mm if i % 2 else 0.9 * width_mm),
                                  y_mm=float(y * depth)))
    if placements:
        roster = Roster(layout.dictionary, tuple(p.piece for p in placements))
        base = SyntheticScene(layout, roster, tuple(placements))
    dice: list[PlacedDie] = []
    lo, hi = tray.min(0) + 15.0, tray.max(0) - 15.0
    attempts = 0
    while len(dice) < n_dice and attempts < 5000:
        attempts += 1
        size = float(rng.uniform(*sizes_mm))
        count = min(int(rng.integers(2, 5)), n_dice - len(dice)) if touching else 1
        turn = float(rng.uniform(0, 360))
        fwd = np.array([math.sin(math.radians(turn)), math.cos(math.radians(turn))])
        start = rng.uniform(lo, hi)
        centres = [start + fwd * size * k for k in range(count)]
        if any(np.any(c < lo) or np.any(c > hi) for c in centres):
            continue
        if any(math.hypot(*(c - (d.x_mm, d.y_mm))) < 0.75 * (size + d.side_mm) + 8.0 for c in centres for d in dice):
            continue
        colours = DIE_COLOURS[int(rng.integers(len(DIE_COLOURS)))]
        light = float(rng.uniform(0.75, 1.05))
        for c in centres:
            dice.append(PlacedDie(float(c[0]), float(c[1]), size, int(rng.integers(1, 7)), turn,
                                  tuple(float(v) for v in colours[0]), tuple(float(v) for v in colours[1]), light))
    return SyntheticScene(layout, base.roster, base.placements, terrain, tuple(dice))


def dice_options(rng: np.random.Generator, hard: bool = True) -> RenderOptions:
    """Camera imperfections for a dice photo: blur 0.4-1.0 px, noise 1-4, uneven light, JPEG."""
    return RenderOptions(blur_sigma_px=float(rng.uniform(0.4, 1.0 if hard else 0.6)),
                         noise_sigma=float(rng.uniform(1.0, 4.0 if hard else 2.0)),
                         jpeg_quality=int(rng.integers(80, 95)) if hard else None,
                         uneven_light=float(rng.uniform(0.0, 0.35 if hard else 0.1)), seed=int(rng.integers(1 << 30)))


def a_throw(rng: np.random.Generator, n: int, centre_mm: tuple[float, float], side_mm: float = 18.0,
            tumbling: int = 3, spread_mm: float = 60.0) -> list[tuple[PlacedDie, ...]]:
    """The states of `n` dice thrown round `centre_mm` (table mm): `tumbling` frames of them rolling (each in
    another place, turn and face), then where they come to rest (at least 1.6 sides apart). White dice with black
    pips, values at random."""
    cx, cy = centre_mm
    rest: list[PlacedDie] = []
    while len(rest) < n:
        x, y = cx + rng.uniform(-spread_mm, spread_mm), cy + rng.uniform(-0.5 * spread_mm, 0.5 * spread_mm)
        if all(math.hypot(x - d.x_mm, y - d.y_mm) > 1.6 * side_mm for d in rest):
            rest.append(PlacedDie(float(x), float(y), side_mm, int(rng.integers(1, 7)), float(rng.uniform(0, 90))))
    states = []
    for k in range(tumbling, 0, -1):
        states.append(tuple(replace(d, x_mm=d.x_mm - 25.0 * k, y_mm=d.y_mm + 8.0 * k, value=int(rng.integers(1, 7)),
                                    turn_deg=float(rng.uniform(0, 90))) for d in rest))
    return [*states, tuple(rest)]


def throw_spot(width_mm: float, depth_mm: float, tray_mm, pieces, anchors) -> tuple[tuple[float, float], float]:
    """Where a throw lands (table mm) and how far its dice spread: the tray's centre (a third of its smaller
    side), else the point of the table farthest from every piece and anchor, 120 mm in from the edges (40 mm)."""
    if tray_mm:
        pts = np.asarray(tray_mm, float)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        return (float(pts[:, 0].mean()), float(pts[:, 1].mean())), float(min(hi - lo) / 3.0)
    others = np.asarray([*pieces, *anchors], float).reshape(-1, 2)
    best, best_d = (width_mm / 2.0, depth_mm / 2.0), -1.0
    for x in np.linspace(120.0, width_mm - 120.0, 25):
        for y in np.linspace(120.0, depth_mm - 120.0, 13):
            d = float(np.min(np.hypot(others[:, 0] - x, others[:, 1] - y))) if len(others) else 0.0
            if d > best_d:
                best, best_d = (float(x), float(y)), d
    return best, 40.0
