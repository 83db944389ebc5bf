"""A scripted game on the synthetic table: moves and combats with hands reaching in, pieces hidden and lifted,
lighting changes and camera jitter, rendered frame by frame with its true event list.

The proof of the game record: `fieldglass record` turns these frames into events, and tests compare the
committed moves with `ScriptedGame.truth`. The frames come from `vision.synthetic`'s exact renderer (its
internal drawing steps are reused to aim a hand at a chosen piece and to lift a piece off the table); the
lighting change and the camera jitter are applied to the finished frame (a global gain and gradient, a sub-pixel
to few-pixel shift and a small rotation, as a camera on a tripod that is touched now and then).

Timeline (5 frames a second by default):

* all pieces stand still, then the game starts (turn 1, movement);
* a piece is slid to its new field, another lifted and carried to its new field and turned;
* a piece is lifted and held still in the air, then put back where it stood (no move);
* a hand hovers over a group of pieces for longer than the settle time (no move);
* a gun fires (a combat input with fixed dice) and its target loses its only base; the player takes it off;
* turn 2: a cavalry piece is lifted and wheeled to a new field while the light dims, an infantry piece slides;
* a piece is knocked off the table without anyone saying so: it must be reported missing, never removed,
  until a player confirms (an input).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from common.fields import parse_field, snap_facing
from vision import synthetic
from vision.roster import Piece, Roster
from vision.synthetic import PlacedPiece, RenderOptions, SyntheticScene, VirtualCamera, standard_layout

FPS = 5.0
LIFT_MM = 70.0


def field_centre(cell: str, field_mm: float = 60.0) -> tuple[float, float]:
    """The centre (table mm) of a field named like "F3" on a grid of `field_mm` fields from the origin."""
    c, r = parse_field(cell)
    return (c + 0.5) * field_mm, (r + 0.5) * field_mm


def scripted_roster() -> Roster:
    def piece(pid, marker, side, kind):
        base, height = {"infantry": ((40.0, 30.0), 3.0), "cavalry": ((40.0, 40.0), 15.0),
                        "artillery": ((40.0, 40.0), 20.0)}[kind]
        return Piece(pid, marker, side, kind, base, 20.0, height)

    return Roster("DICT_4X4_250", (
        piece("fr-i-1", 10, "FR", "infantry"), piece("fr-i-2", 11, "FR", "infantry"),
        piece("fr-c-1", 12, "FR", "cavalry"), piece("fr-a-1", 13, "FR", "artillery"),
        piece("au-i-1", 14, "AU", "infantry"), piece("au-i-2", 15, "AU", "infantry"),
        piece("au-c-1", 16, "AU", "cavalry"),
    ))


START = {  # piece -> (field, heading)
    "fr-i-1": ("F3", 0.0), "fr-i-2": ("H3", 0.0), "fr-c-1": ("D3", 0.0), "fr-a-1": ("J3", 0.0),
    "au-i-1": ("J6", 180.0), "au-i-2": ("L7", 180.0), "au-c-1": ("O8", 180.0),
}


@dataclass
class FrameSpec:
    """What one frame shows: where each piece is (None: off the table), the hand, light and jitter."""

    places: dict[str, tuple[float, float, float, float]]  # piece -> (x, y, heading, lift_mm)
    hand: tuple[float, float, float] | None = None  # (target x, y, reach 0..1)
    hand_seed: int = 0
    gain: float = 1.0
    shift: tuple[float, float, float] = (0.0, 0.0, 0.0)  # dx, dy px, rotation deg


@dataclass
class ScriptedGame:
    """The script: frames (`FrameSpec`), the players' inputs (by frame), and the true events."""

    roster: Roster
    layout: object
    frames: list[FrameSpec] = field(default_factory=list)
    inputs: list[dict] = field(default_factory=list)
    truth: list[dict] = field(default_factory=list)
    fps: float = FPS

    # ------------------------------------------------------------------ building

    @property
    def now(self) -> int:
        return len(self.frames)

    def _add(self, places, hand=None, seed=0, n=1):
        for _ in range(n):
            self.frames.append(FrameSpec({k: v for k, v in places.items()}, hand, seed))

    def still(self, places, n):
        self._add(places, None, 0, n)

    def add(self, places, hand: tuple[float, float, float] | None = None, seed: int = 0, n: int = 1) -> None:
        """`n` frames of the pieces at `places` (id -> (x mm, y mm, heading, lift mm)) with a hand (x mm, y mm,
        reach 0-1) over the table or none: for scripts of their own (the live benchmark's)."""
        self._add(places, hand, seed, n)

    def move(self, places: dict, pid: str, to_cell: str, to_heading: float, style: str, seed: int,
             rest: int = 7) -> None:
        x0, y0, h0, _ = places[pid]
        x1, y1 = field_centre(to_cell)
        for r in (0.35, 0.7, 1.0):  # the hand reaches in over the piece
            self._add(places, (x0, y0, r), seed)
        steps = (1 / 3, 2 / 3) if style == "lift" else (0.25, 0.5, 0.75)
        for s in steps:
            x, y = x0 + s * (x1 - x0), y0 + s * (y1 - y0)
            h = h0 + s * ((to_heading - h0 + 180) % 360 - 180)
            places[pid] = (x, y, h % 360, LIFT_MM if style == "lift" else 0.0)
            self._add(places, (x, y, 1.0), seed)
        places[pid] = (x1, y1, to_heading % 360, 0.0)
        self._add(places, (x1, y1, 1.0), seed, 2)  # put down, the hand still over it
        for r in (0.6, 0.25):
            self._add(places, (x1, y1, r), seed)
        placed_at = self.now
        self.still(places, rest)
        self.truth.append({"type": "move", "piece": pid, "from": self._cell(x0, y0), "to": to_cell,
                           "from_facing": snap_facing(h0)[0], "to_facing": snap_facing(to_heading)[0],
                           "x_mm": x1, "y_mm": y1, "heading_deg": to_heading % 360, "frame": placed_at})

    def lift_and_return(self, places, pid, hold: int, seed: int) -> None:
        x0, y0, h0, _ = places[pid]
        for r in (0.35, 0.7, 1.0):
            self._add(places, (x0, y0, r), seed)
        places[pid] = (x0 + 25.0, y0 + 40.0, h0, LIFT_MM)  # held up and a little aside, still
        self._add(places, (x0 + 25.0, y0 + 40.0, 1.0), seed, hold)
        places[pid] = (x0, y0, h0, 0.0)
        self._add(places, (x0, y0, 1.0), seed)
        for r in (0.6, 0.25):
            self._add(places, (x0, y0, r), seed)
        self.still(places, 5)

    def hover(self, places, x, y, n: int, seed: int) -> None:
        for r in (0.35, 0.7):
            self._add(places, (x, y, r), seed)
        self._add(places, (x, y, 1.0), seed, n)
        for r in (0.6, 0.25):
            self._add(places, (x, y, r), seed)
        self.still(places, 3)

    def take_off(self, places, pid, seed: int, rest: int) -> None:
        x0, y0, _, _ = places[pid]
        for r in (0.35, 0.7, 1.0):
            self._add(places, (x0, y0, r), seed)
        del places[pid]
        for r in (0.7, 0.35):
            self._add(places, (x0, y0, r), seed)
        self.still(places, rest)

    def _cell(self, x, y) -> str:
        return self.layout.grid.name_at(x, y)

    # ------------------------------------------------------------------ rendering

    def camera(self, resolution=(1280, 720)) -> VirtualCamera:
        lay = self.layout
        return VirtualCamera.looking_at_table(lay.width_mm, lay.depth_mm, resolution, height_mm=1000.0,
                                              tilt_deg=8.0)

    def render(self, resolution=(1280, 720), start: int = 0, stop: int | None = None, *, camera=None,
               tremble: bool = True, light: bool = True, bump_at: int | None = None,
               ) -> Iterator[tuple[int, float, np.ndarray]]:
        """(frame number, t seconds, BGR frame) for the script's frames. By default the camera trembles a little
        every frame (0.5 px), the light dims in the second turn and the tripod is knocked half-way (3 px); without
        `tremble` and `light` the camera stands still and the light stays, and `bump_at` says at which frame the
        tripod is knocked. `camera`: another VirtualCamera than `self.camera(resolution)`."""
        camera = camera or self.camera(resolution)
        geom = synthetic._geometry(camera)
        by_id = {p.id: p for p in self.roster.pieces}
        static_key, static = None, None
        rng = np.random.default_rng(20260511)
        shifts = [(rng.normal(0, 0.5), rng.normal(0, 0.5), rng.normal(0, 0.05)) for _ in self.frames]
        bump = len(self.frames) // 2 if bump_at is None else bump_at  # the view shifts by a few px and stays
        for i in range(start, len(self.frames) if stop is None else min(stop, len(self.frames))):
            spec = self.frames[i]
            key = tuple(sorted((k, tuple(round(v, 3) for v in p)) for k, p in spec.places.items()))
            if key != static_key:
                placements = []
                for pid, (x, y, h, lift) in sorted(spec.places.items()):
                    piece = by_id[pid]
                    if lift:
                        piece = replace(piece, marker_height_mm=piece.marker_height_mm + lift)
                    placements.append(PlacedPiece(piece, x, y, h))
                scene = SyntheticScene(self.layout, self.roster, tuple(placements))
                static = synthetic._render_static(scene, geom)
                static_key = key
            canvas = static.canvas
            if spec.hand is not None:
                tx, ty, reach = spec.hand
                canvas = canvas.copy()
                hand = synthetic._hand_shapes(self.layout, [(tx, ty)], spec.hand_seed, reach)
                synthetic._draw_hand(canvas, geom, hand)
            frame = geom.distort(canvas)
            frame = synthetic._finish(frame, RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, seed=i),
                              np.random.default_rng([i, 0x4E4F49]))
            if light:
                frame = _light(frame, self.gain(i), i)
            dx, dy, rot = shifts[i] if tremble else (0.0, 0.0, 0.0)
            if i >= bump:
                dx, dy, rot = dx + 3.0, dy - 2.0, rot + 0.2
            if (dx, dy, rot) != (0.0, 0.0, 0.0):
                frame = _jitter(frame, dx, dy, rot)
            yield i, i / self.fps, frame

    def gain(self, i: int) -> float:
        """Lighting: daylight, a cloud (dimming to 0.6 and back) in the second turn."""
        n = len(self.frames)
        a, b = int(n * 0.62), int(n * 0.8)
        if i < a or i > b:
            return 1.0
        u = (i - a) / max(b - a, 1)
        return 1.0 - 0.4 * math.sin(math.pi * u)

    def write_frames(self, folder: str | Path, resolution=(1280, 720), quality: int = 92) -> list[Path]:
        return write_frames(self.render(resolution), folder, quality)

    def write_inputs(self, path: str | Path) -> Path:
        return write_inputs(self.inputs, path)

    def true_moves(self) -> list[dict]:
        return [e for e in self.truth if e["type"] == "move"]


def _light(frame: np.ndarray, gain: float, i: int) -> np.ndarray:
    if abs(gain - 1.0) < 1e-6:
        return frame
    h, w = frame.shape[:2]
    ramp = np.linspace(gain * 0.9, gain * 1.05, w, dtype=np.float32)[None, :, None]
    return np.clip(frame.astype(np.float32) * ramp, 0, 255).astype(np.uint8)


def _jitter(frame: np.ndarray, dx: float, dy: float, rot_deg: float) -> np.ndarray:
    h, w = frame.shape[:2]
    m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), rot_deg, 1.0)
    m[:, 2] += (dx, dy)
    return cv2.warpAffine(frame, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def write_frames(frames, folder: str | Path, quality: int = 92) -> list[Path]:
    """Each (number, t, BGR frame) of a script's `render` as folder/frame-NNNNN.jpg (what `fieldglass record
    --source FOLDER` reads); the paths written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, _t, frame in frames:
        p = folder / f"frame-{i:05d}.jpg"
        cv2.imwrite(str(p), frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        out.append(p)
    return out


def write_inputs(inputs, path: str | Path) -> Path:
    """The players' inputs as JSON Lines (what `fieldglass record --inputs` reads)."""
    path = Path(path)
    path.write_text("".join(json.dumps(x) + "\n" for x in inputs), encoding="utf-8")
    return path


def scripted_game(fps: float = FPS) -> ScriptedGame:
    """The standard scripted game (about 130 frames, 26 s at 5 frames a second)."""
    layout = standard_layout(1200.0, 600.0)
    roster = scripted_roster()
    g = ScriptedGame(roster, layout, fps=fps)
    places = {pid: (*field_centre(cell), h, 0.0) for pid, (cell, h) in START.items()}
    g.still(places, 7)
    for pid, (cell, _h) in START.items():
        g.truth.append({"type": "appeared", "piece": pid, "to": cell})
    g.inputs.append({"frame": g.now - 1, "type": "turn", "turn": 1, "phase": "movement"})

    g.move(places, "fr-i-1", "F4", 0.0, "slide", seed=3)
    g.move(places, "au-c-1", "M7", 225.0, "lift", seed=4)
    g.lift_and_return(places, "fr-i-2", hold=6, seed=5)
    g.hover(places, 570.0, 240.0, 7, seed=6)  # over the gun and its target

    g.inputs.append({"frame": g.now - 1, "type": "phase", "phase": "fire"})
    g.inputs.append({"frame": g.now - 1, "type": "combat", "action": "fire", "attacker": "fr-a-1",
                     "target": "au-i-1", "dice": [6, 1], "loss_die": 6})
    g.truth.append({"type": "combat", "pieces": ["fr-a-1", "au-i-1"], "removed": ["au-i-1"]})
    g.take_off(places, "au-i-1", seed=7, rest=4)

    g.inputs.append({"frame": g.now - 1, "type": "turn", "turn": 2, "phase": "movement"})
    g.move(places, "fr-c-1", "E5", 45.0, "lift", seed=8)
    g.move(places, "au-i-2", "L6", 180.0, "slide", seed=9)
    g.inputs.append({"frame": g.now - 1, "type": "bookmark", "label": "lines closing"})

    g.take_off(places, "fr-i-2", seed=10, rest=15)  # knocked off: nobody says so
    g.truth.append({"type": "missing", "piece": "fr-i-2"})
    g.inputs.append({"frame": g.now - 1, "type": "confirm", "piece": "fr-i-2", "removed": True, "by": "FR player"})
    g.truth.append({"type": "removed", "piece": "fr-i-2", "by": "FR player"})
    g.inputs.append({"frame": g.now - 1, "type": "note", "text": "fr-i-2 fell off the table", "by": "FR player"})
    g.still(places, 1)
    return g
