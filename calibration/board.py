"""Board registration: where a printed board lies on the table, from its anchor markers.

A board carries its own anchors (stickers at known board positions, each maybe turned: `TurnedAnchor`), so it may
lie anywhere on the table, turned any way. Here a board is plain data: its own `TableLayout` in board mm (size,
marker dictionary, anchors); the wiring (fieldglass/boards.py) builds it from a `rules.board.Board`. Two ways to
find it:

* with a registered table (`TableRegistration` from the table's anchors): the board anchors' corners are mapped
  to the table at the board's thickness (`projection.pixels_to_table`), then a rigid 2-D fit gives the board's
  pose on the table (`BoardPose`: rotation and offset);
* without table anchors: the board *is* the table: its layout registers the camera (`camera_pose_on_board`,
  `registration.estimate_pose`) and gives the camera pose in board mm directly.

A piece's marker point (at its height above the board) then maps to board mm (`pixels_to_board`); naming its area
is the rules' business (`rules.board.Board.locate`), done by the caller. `rectify_board_image` shows a photo of the
board straight from above, for the board editor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.layout import Anchor, TableLayout, square_corners_mm
from calibration.pose import estimate_pose
from calibration.projection import pixels_to_table

MAX_ANCHOR_ERROR_MM = 4.0
"""A board anchor whose corners miss the fitted board pose by more than this is dropped (a hand, a misread)."""


def anchor_corners_mm(anchor) -> np.ndarray:
    """(4, 2) corners of an anchor's black square in board mm, ArUco order.

    `anchor` is any anchor record with `x_mm`, `y_mm` (centre, board mm), `size_mm` (side of the black square) and
    optionally `heading_deg` (compass bearing of its top edge; 0 when absent, i.e. toward +y)."""
    heading = float(getattr(anchor, "heading_deg", 0.0))
    return square_corners_mm(anchor.x_mm, anchor.y_mm, anchor.size_mm, heading)[:, :2]


@dataclass(frozen=True)
class TurnedAnchor(Anchor):
    """A layout anchor that may be turned: board stickers need not point along +y. `heading_deg` is the compass
    bearing of the marker's top edge in board mm (0 = +y, 90 = +x)."""

    heading_deg: float = 0.0

    def corners_mm(self) -> np.ndarray:
        return square_corners_mm(self.x_mm, self.y_mm, self.size_mm, self.heading_deg, self.z_mm)


@dataclass(frozen=True)
class BoardPose:
    """Board mm -> table mm: table = R(rotation_deg) @ board + (x_mm, y_mm) (counter-clockwise, table axes)."""

    rotation_deg: float
    x_mm: float
    y_mm: float
    rms_mm: float = 0.0
    anchors: tuple[int, ...] = ()

    @property
    def matrix(self) -> np.ndarray:
        t = np.radians(self.rotation_deg)
        return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])

    def board_to_table(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, float).reshape(-1, 2)
        return pts @ self.matrix.T + np.array([self.x_mm, self.y_mm])

    def table_to_board(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, float).reshape(-1, 2)
        return (pts - np.array([self.x_mm, self.y_mm])) @ self.matrix


def fit_rigid(board_pts: np.ndarray, table_pts: np.ndarray) -> tuple[float, np.ndarray, float]:
    """Least-squares rotation (deg) and offset with table = R @ board + t (2-D Kabsch, no scaling); rms in mm."""
    a = np.asarray(board_pts, float).reshape(-1, 2)
    b = np.asarray(table_pts, float).reshape(-1, 2)
    ca, cb = a.mean(0), b.mean(0)
    h = (a - ca).T @ (b - cb)
    angle = np.arctan2(h[0, 1] - h[1, 0], h[0, 0] + h[1, 1])
    r = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    t = cb - r @ ca
    rms = float(np.sqrt(np.mean(np.sum((a @ r.T + t - b) ** 2, axis=1))))
    return float(np.degrees(angle)), t, rms


def estimate_board_pose(
    anchor_corners_px: Mapping[int, np.ndarray],
    board: TableLayout,
    camera: CameraIntrinsics,
    table_pose: CameraPose,
    board_thickness_mm: float = 0.0,
) -> BoardPose | None:
    """The board's pose on the table from the corners (4, 2 px) of its anchors seen in one frame.

    `board` is the board's own layout (board mm, its anchors); `board_thickness_mm` the height of its face above
    the table. Needs 2 anchors (8 corners); an anchor that disagrees with the rest by more than MAX_ANCHOR_ERROR_MM
    is dropped and the fit repeated. Markers that are not board anchors are ignored.
    """
    by_id = {a.id: a for a in board.anchors}
    used = sorted(i for i in anchor_corners_px if i in by_id)
    while len(used) >= 2:
        px = np.concatenate([np.asarray(anchor_corners_px[i], float).reshape(4, 2) for i in used])
        on_table = pixels_to_table(px, camera, table_pose, board_thickness_mm)
        if np.isnan(on_table).any():
            return None
        on_board = np.concatenate([anchor_corners_mm(by_id[i]) for i in used])
        deg, t, rms = fit_rigid(on_board, on_table)
        pose = BoardPose(deg, float(t[0]), float(t[1]), rms, tuple(used))
        err = np.linalg.norm(pose.board_to_table(on_board) - on_table, axis=1).reshape(-1, 4).max(axis=1)
        worst = int(np.argmax(err))
        if err[worst] > MAX_ANCHOR_ERROR_MM and len(used) > 2:
            used.pop(worst)
            continue
        return pose
    return None


def camera_pose_on_board(
    anchor_corners_px: Mapping[int, np.ndarray], board: TableLayout, camera: CameraIntrinsics
) -> CameraPose | None:
    """Without table anchors: the camera pose in board mm (the board, given as its own layout, is the table)."""
    return estimate_pose(anchor_corners_px, board, camera)


def pixels_to_board(
    pixels: np.ndarray,
    camera: CameraIntrinsics,
    table_pose: CameraPose,
    board_pose: BoardPose | None,
    height_mm: float | np.ndarray = 0.0,
) -> np.ndarray:
    """Marker points (N, 2 px) at `height_mm` above the table -> board mm (N, 2).

    With `board_pose` None, `table_pose` is taken to be the camera pose on the board itself.
    """
    on_table = pixels_to_table(pixels, camera, table_pose, height_mm)
    return on_table if board_pose is None else board_pose.table_to_board(on_table)


@dataclass
class BoardRegistration:
    """Keeps the board pose over a stream of frames (the last good pose when its anchors are hidden). `board` is
    the board's own layout (board mm, its anchors)."""

    board: TableLayout
    camera: CameraIntrinsics
    board_thickness_mm: float = 0.0
    max_rms_mm: float = 2.0
    pose: BoardPose | None = None
    fresh: bool = False

    def update(self, anchor_corners_px: Mapping[int, np.ndarray], table_pose: CameraPose) -> BoardPose | None:
        pose = estimate_board_pose(anchor_corners_px, self.board, self.camera, table_pose, self.board_thickness_mm)
        self.fresh = pose is not None and pose.rms_mm <= self.max_rms_mm
        if self.fresh:
            self.pose = pose
        return self.pose


def rectify_board_image(
    image: np.ndarray, anchor_corners_px: Mapping[int, np.ndarray], board: TableLayout, px_per_mm: float,
    border_bgr: tuple[int, int, int] = (40, 40, 40),
) -> tuple[np.ndarray | None, tuple[int, ...], float]:
    """The image seen straight from above in board mm, north (+y) up, at `px_per_mm`.

    A homography from the detected corners (4, 2 px each) of the board's anchors (at least 2: 8 corners) to board
    mm: a flat board needs no lens model for this. `board` is the board's own layout. Returns (image or None, the
    anchor ids used, the corners' RMS misfit in board mm); None when fewer than 2 anchors were seen or the corners
    give no homography."""
    by_id = {a.id: a for a in board.anchors}
    used = tuple(sorted(i for i in anchor_corners_px if i in by_id))
    if len(used) < 2:
        return None, used, float("nan")
    src = np.concatenate([np.asarray(anchor_corners_px[i], np.float64).reshape(4, 2) for i in used])
    mm = np.concatenate([anchor_corners_mm(by_id[i]) for i in used])
    dst = np.column_stack([mm[:, 0] * px_per_mm, (board.depth_mm - mm[:, 1]) * px_per_mm])  # image rows run south
    hom, _ = cv2.findHomography(src, dst, 0)
    if hom is None:
        return None, used, float("nan")
    size = (int(round(board.width_mm * px_per_mm)), int(round(board.depth_mm * px_per_mm)))
    out = cv2.warpPerspective(image, hom, size, flags=cv2.INTER_LINEAR, borderValue=border_bgr)
    err = cv2.perspectiveTransform(src.reshape(-1, 1, 2), hom).reshape(-1, 2) - dst
    rms = float(np.sqrt(np.mean(np.sum(err ** 2, axis=1)))) / px_per_mm
    return out, used, rms
