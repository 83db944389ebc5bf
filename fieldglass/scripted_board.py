"""A scripted game on a printed board with other surfaces (a battle board beside a map), rendered frame by frame: the
frames a test records with `fieldglass record` to prove the recorder on every surface (vision/scripted.py is the
grid's scripted game).

Each frame (`BoardFrame`) says where every figure stands, on which surface in that surface's own mm, lifted or not,
and where each other surface lies on the table; the main board is the table (its own anchors register the camera),
the other surfaces are drawn with their anchors and areas where the frame puts them (fieldglass/setup.py
`with_surfaces`), so a surface moved between frames is found again only from its own anchors. No system is named
here: a system's script (its plain data) builds the frames.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.board import BoardPose
from fieldglass.boards import board_scene
from fieldglass.setup import with_surfaces
from vision.hand_frames import HandRenderer
from vision.roster import Roster
from vision.scripted import write_frames, write_inputs
from vision.synthetic import VirtualCamera

LIFT_MM = 70.0
"""How high a carried figure is held above the cloth (its marker seen bigger: the tracker waits)."""


@dataclass(frozen=True)
class BoardFrame:
    """One frame: `places` figure id -> (surface, x_mm, y_mm, heading_deg, lift_mm), the surface "" or the main
    board's name for the main board (table mm), another surface's name for a point and a heading (compass bearing)
    in its board's frame; `surfaces`
    each other surface's pose (x_mm, y_mm of its origin on the table, rotation_deg counter-clockwise)."""

    places: Mapping[str, tuple[str, float, float, float, float]]
    surfaces: Mapping[str, tuple[float, float, float]]
    hand: tuple[float, float, float] | None = None
    """A player's hand reaching toward (x_mm, y_mm) on the table, reach 0..1 (1: over it); None: no hand."""
    hand_seed: int = 0


@dataclass
class ScriptedBoardGame:
    """The frames of a scripted game on `board` (the table) with the other `surfaces` (name -> rules.board.Board),
    the players' inputs (each with the frame it follows) and the figures' `roster`."""

    board: Any
    surfaces: Mapping[str, Any]
    roster: Roster
    frames: list[BoardFrame] = field(default_factory=list)
    inputs: list[dict] = field(default_factory=list)
    fps: float = 5.0

    @property
    def now(self) -> int:
        return len(self.frames)

    def add(self, frame: BoardFrame, n: int = 1) -> None:
        self.frames.extend([frame] * n)

    def input(self, inp: dict) -> None:
        """A player's input after the last frame so far."""
        self.inputs.append({"frame": self.now - 1, **inp})

    def table_point(self, frame: BoardFrame, surface: str, x: float, y: float) -> tuple[float, float]:
        """A figure's point in table mm (a point on another surface through that surface's pose in `frame`)."""
        if surface not in self.surfaces:
            return x, y
        px, py, rot = frame.surfaces[surface]
        p = BoardPose(float(rot), float(px), float(py)).board_to_table([(x, y)])[0]
        return float(p[0]), float(p[1])

    def extent(self) -> tuple[float, float]:
        """The table's width and depth holding the main board and every surface wherever a frame lays it."""
        width, depth = self.board.width_mm, self.board.depth_mm
        for f in self.frames:
            for name, (x, y, rot) in f.surfaces.items():
                brd = self.surfaces[name]
                c = BoardPose(float(rot), float(x), float(y)).board_to_table(
                    [(0, 0), (brd.width_mm, 0), (brd.width_mm, brd.depth_mm), (0, brd.depth_mm)])
                width, depth = max(width, float(c[:, 0].max()) + 40.0), max(depth, float(c[:, 1].max()) + 40.0)
        return width, depth

    def camera(self, resolution: tuple[int, int] = (1280, 720)) -> VirtualCamera:
        """A camera looking straight down at the whole table (the same for every frame)."""
        width, depth = self.extent()
        return VirtualCamera.looking_at_table(width, depth, resolution, height_mm=1400.0)

    def scene(self, frame: BoardFrame):
        """The synthetic table of one frame (vision.synthetic.SyntheticScene)."""
        placed, roster = [], self.roster
        lifted = {}
        for pid, (surface, x, y, heading, lift) in sorted(frame.places.items()):
            tx, ty = self.table_point(frame, surface, x, y)
            turned = frame.surfaces[surface][2] if surface in self.surfaces else 0.0  # counter-clockwise
            placed.append((pid, tx, ty, (float(heading) - float(turned)) % 360.0))
            if lift:
                lifted[pid] = lift
        if lifted:  # a carried figure: its marker higher above the cloth
            roster = replace(roster, pieces=tuple(
                replace(p, marker_height_mm=p.marker_height_mm + lifted[p.id]) if p.id in lifted else p
                for p in roster.pieces))
        scene = board_scene(self.board, roster, placed)
        return with_surfaces(scene, self.surfaces, frame.surfaces)

    def render(self, resolution: tuple[int, int] = (1280, 720), start: int = 0, stop: int | None = None
               ) -> Iterator[tuple[int, float, np.ndarray]]:
        """(frame number, t seconds, BGR frame) for the script's frames, each with its own sensor noise (the table
        is drawn again only when it changed; the hand every frame it is in)."""
        renderer = HandRenderer(self.camera(resolution))
        for i in range(start, len(self.frames) if stop is None else min(stop, len(self.frames))):
            spec = self.frames[i]
            table = (spec.places, spec.surfaces)
            yield i, i / self.fps, renderer.render(self.scene(spec), table, i, spec.hand, spec.hand_seed)

    def write_frames(self, folder: str | Path, resolution: tuple[int, int] = (1280, 720), quality: int = 92
                     ) -> list[Path]:
        return write_frames(self.render(resolution), folder, quality)

    def write_inputs(self, path: str | Path) -> Path:
        return write_inputs(self.inputs, path)


__all__ = ["LIFT_MM", "BoardFrame", "ScriptedBoardGame"]
