"""The other surfaces of a table (rules/live.py `LiveRules.surfaces[1:]`: a battle board beside a map), shared by the
live session (fieldglass/session.py), the recorder (fieldglass/recording.py) and a record's game
(fieldglass/recorded.py): each lies anywhere on the table and is registered from its own anchors every frame, so it
may be moved or bumped; a point is located on the first surface whose board holds it, else on the main board.

A record keeps each surface's pose as a `surface` event (`pose_data`), written when the surface is first found and
whenever it has moved by more than `MOVED_MM` or turned by more than `TURNED_DEG` since the last one: the replay and
a resumed recording locate a figure on the surface it stood on at that moment (`recorded_poses`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from calibration.board import BoardPose, BoardRegistration
from fieldglass.boards import board_layout
from rules.board import Placement

MOVED_MM = 2.0
"""A surface whose origin moved by more than this (table mm) since its recorded pose is recorded again."""
TURNED_DEG = 0.5
"""A surface turned by more than this (degrees) since its recorded pose is recorded again."""

SURFACE_EVENT = "surface"
"""The record's event of a surface's pose: data `surface` (its name), `rotation_deg`, `x_mm`, `y_mm` (table mm)."""


class SurfaceRegistry:
    """The registrations of the other surfaces' boards (name -> rules.board.Board), each from its own anchors in a
    reading (the last good pose kept while they are hidden)."""

    def __init__(self, boards: Mapping[str, Any] | None, camera=None):
        self.boards: dict[str, Any] = dict(boards or {})
        self.camera = camera
        self.registrations = {name: BoardRegistration(board_layout(b), camera) for name, b in self.boards.items()}
        self.anchor_ids = {name: frozenset(a.id for a in b.anchors) for name, b in self.boards.items()}

    def update(self, reading, camera=None) -> None:
        """Each surface's pose from its anchors' corners in `reading` (vision.pieces.TableReading, the table's pose
        known); `camera` the intrinsics it was read with (default: the registry's)."""
        if camera is not None:
            self.camera = camera
        if reading is None or reading.pose is None or self.camera is None:
            return
        for name, reg in self.registrations.items():
            reg.camera = self.camera
            anchors = self.anchor_ids[name]
            reg.update({m.id: m.corners for m in reading.markers if m.id in anchors}, reading.pose)

    def pose(self, name: str) -> BoardPose | None:
        """A surface's pose on the table (board mm -> table mm), None while it is not registered."""
        reg = self.registrations.get(name)
        return reg.pose if reg is not None else None

    def poses(self) -> dict[str, BoardPose | None]:
        return {name: self.pose(name) for name in self.boards}


def locate(x_mm: float, y_mm: float, main, main_xy: tuple[float, float] | None, main_name: str,
           surfaces: Mapping[str, Any], pose_of) -> Placement:
    """Where a table point lies: on the first other surface (`surfaces`: name -> board, `pose_of(name)` its
    BoardPose or None) whose registered board holds it, else on the `main` board at `main_xy` (the point in its board
    mm; None while it is not registered), else off every surface. `Placement.surface` names the surface (the main
    one `main_name`) when there are other surfaces; with none, the main board's placement as it is."""
    for name, brd in surfaces.items():
        pose = pose_of(name)
        if pose is None:
            continue
        bx, by = (float(v) for v in pose.table_to_board([(x_mm, y_mm)])[0])
        if 0.0 <= bx <= brd.width_mm and 0.0 <= by <= brd.depth_mm:
            return replace(brd.locate(bx, by), surface=name)
    if main_xy is None:
        return Placement(None, None, False, "the board is not registered (fewer than 2 board anchors)")
    if not surfaces:
        return main.locate(*main_xy)
    if not (0.0 <= main_xy[0] <= main.width_mm and 0.0 <= main_xy[1] <= main.depth_mm):
        return Placement(None, None, False, "off every surface")
    return replace(main.locate(*main_xy), surface=main_name)


def pose_moved(old: BoardPose | None, new: BoardPose | None) -> bool:
    """Whether a surface's pose `new` differs from the recorded `old` enough to be recorded (first found, moved by
    more than MOVED_MM or turned by more than TURNED_DEG)."""
    if new is None:
        return False
    if old is None:
        return True
    turned = abs((new.rotation_deg - old.rotation_deg + 180.0) % 360.0 - 180.0)
    moved = ((new.x_mm - old.x_mm) ** 2 + (new.y_mm - old.y_mm) ** 2) ** 0.5
    return moved > MOVED_MM or turned > TURNED_DEG


def pose_data(name: str, pose: BoardPose) -> dict:
    """A surface event's data: the surface's name and its pose (degrees counter-clockwise, table mm)."""
    return {"surface": name, "rotation_deg": round(float(pose.rotation_deg), 3), "x_mm": round(float(pose.x_mm), 2),
            "y_mm": round(float(pose.y_mm), 2), "rms_mm": round(float(pose.rms_mm), 3),
            "anchors": [int(a) for a in pose.anchors]}


def recorded_pose(event) -> tuple[str, BoardPose] | None:
    """The surface and its pose a record's event recorded; None for any other event, an undone one or a damaged
    surface event (the last good pose stays)."""
    if event.type != SURFACE_EVENT or getattr(event, "undone", False):
        return None
    d = event.data or {}
    try:
        return str(d["surface"]), BoardPose(float(d["rotation_deg"]), float(d["x_mm"]), float(d["y_mm"]),
                                            float(d.get("rms_mm", 0.0)), tuple(d.get("anchors") or ()))
    except (KeyError, TypeError, ValueError):
        return None


def recorded_poses(events: Iterable) -> dict[str, BoardPose]:
    """Each surface's last recorded pose among `events` (a record's, in order; undone ones skipped)."""
    return dict(pose for pose in map(recorded_pose, events) if pose is not None)


__all__ = ["MOVED_MM", "SURFACE_EVENT", "TURNED_DEG", "SurfaceRegistry", "locate", "pose_data", "pose_moved",
           "recorded_pose", "recorded_poses"]
