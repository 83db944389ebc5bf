"""Registering every camera of a rig, and what the calibration wizard shows of it (plain data, no Qt).

Each camera is registered on its own from the layout's anchors in its photo (calibration.registration.estimate_pose,
the single camera's registration); the summary says which anchors each camera sees and which are shared (seen by two
or more cameras: the overlaps that tie the views together), which pairs of cameras share too few anchors, and each
registered camera's view on the table (the border of its image mapped onto the cloth, table mm).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.layout import TableLayout
from calibration.projection import pixels_to_table
from calibration.registration import estimate_pose
from vision.markers import detect_markers

MIN_SHARED = 2  # anchors two overlapping cameras should both see
BORDER_STEPS = 24  # points per image edge in a view's outline


@dataclass(frozen=True)
class CameraRegistration:
    """One camera's registration: the layout's anchors found in its photo (`corners`: id -> (4, 2) px), the pose
    (None with fewer than 2 anchors) and the anchors it kept, and its view on the table (`view_mm`, (N, 2) table mm,
    the image border on the cloth; empty without a pose)."""

    name: str
    camera: CameraIntrinsics
    corners: dict[int, np.ndarray]
    pose: CameraPose | None
    view_mm: np.ndarray

    @property
    def seen(self) -> tuple[int, ...]:
        return tuple(sorted(self.corners))

    @property
    def registered(self) -> bool:
        return self.pose is not None

    @property
    def used(self) -> tuple[int, ...]:
        return tuple(sorted(self.pose.anchors)) if self.pose is not None else ()


@dataclass(frozen=True)
class RigRegistration:
    """Every camera's registration, in the rig's order."""

    cameras: tuple[CameraRegistration, ...]

    def shared(self) -> dict[int, tuple[str, ...]]:
        """Anchor id -> the cameras that see it, for the anchors seen by two or more (the overlaps)."""
        by_anchor: dict[int, list[str]] = {}
        for cam in self.cameras:
            for i in cam.seen:
                by_anchor.setdefault(i, []).append(cam.name)
        return {i: tuple(names) for i, names in sorted(by_anchor.items()) if len(names) > 1}

    def pairs(self) -> list[tuple[str, str, tuple[int, ...]]]:
        """Every pair of cameras with the anchors both see."""
        out = []
        for i, a in enumerate(self.cameras):
            for b in self.cameras[i + 1:]:
                out.append((a.name, b.name, tuple(sorted(set(a.seen) & set(b.seen)))))
        return out

    def problems(self) -> list[str]:
        """What to fix: cameras not registered, and cameras sharing anchors with no other camera (a camera that
        shares none is tied to the rest by nothing but its own registration)."""
        out = [f"{c.name}: only {len(c.seen)} anchor(s) seen, not registered (at least 2 needed)"
               for c in self.cameras if not c.registered]
        if len(self.cameras) > 1:
            for cam in self.cameras:
                best = max((len(ids) for a, b, ids in self.pairs() if cam.name in (a, b)), default=0)
                if best < MIN_SHARED:
                    out.append(f"{cam.name}: shares {best} anchor(s) with any other camera; put at least "
                               f"{MIN_SHARED} in its overlap with a neighbour")
        return out

    def lines(self) -> list[str]:
        """The summary as text, one camera a line, then the shared anchors and the problems."""
        out = []
        for c in self.cameras:
            if c.registered:
                out.append(f"{c.name}: sees anchors {_ids(c.seen)}; registered from {_ids(c.used)}, reprojection "
                           f"{c.pose.reprojection_px:.2f} px")
            else:
                out.append(f"{c.name}: sees anchors {_ids(c.seen)}; NOT registered")
        shared = self.shared()
        out.append("shared anchors: " + ("; ".join(f"{i} ({', '.join(n)})" for i, n in shared.items()) or "none"))
        out += [f"problem: {p}" for p in self.problems()]
        return out

    def to_json(self) -> dict:
        return {
            "cameras": [{"name": c.name, "anchors": list(c.seen), "registered": c.registered, "used": list(c.used),
                         "reprojection_px": None if c.pose is None else round(float(c.pose.reprojection_px), 3)}
                        for c in self.cameras],
            "shared": {str(i): list(n) for i, n in self.shared().items()},
            "pairs": [{"cameras": [a, b], "anchors": list(ids)} for a, b, ids in self.pairs()],
            "problems": self.problems(),
        }


def _ids(ids: Sequence[int]) -> str:
    return ", ".join(map(str, ids)) or "none"


def view_on_table(camera: CameraIntrinsics, pose: CameraPose) -> np.ndarray:
    """The border of the camera's image mapped onto the cloth (z = 0), (4 * BORDER_STEPS, 2) table mm."""
    w, h = camera.image_size
    t = np.linspace(0.0, 1.0, BORDER_STEPS, endpoint=False)
    edges = [np.column_stack([t * (w - 1), np.zeros_like(t)]), np.column_stack([np.full_like(t, w - 1), t * (h - 1)]),
             np.column_stack([(1 - t) * (w - 1), np.full_like(t, h - 1)]), np.column_stack([np.zeros_like(t),
                                                                                           (1 - t) * (h - 1)])]
    return pixels_to_table(np.vstack(edges), camera, pose)


def register_camera(name: str, frame: np.ndarray, camera: CameraIntrinsics, layout: TableLayout,
                    ) -> CameraRegistration:
    """Register one camera from the layout's anchors in its photo (`camera` at the photo's resolution)."""
    corners = {m.id: m.corners for m in detect_markers(frame, layout.dictionary) if m.id in layout.anchor_ids}
    pose = estimate_pose(corners, layout, camera)
    view = view_on_table(camera, pose) if pose is not None else np.zeros((0, 2))
    return CameraRegistration(name, camera, corners, pose, view)


def register_rig(photos: Sequence[tuple[str, np.ndarray, CameraIntrinsics]], layout: TableLayout,
                 ) -> RigRegistration:
    """Every camera registered from its own photo: `photos` are (name, BGR frame, lens at the frame's size)."""
    return RigRegistration(tuple(register_camera(n, f, c, layout) for n, f, c in photos))
