"""Thrown dice watched live: when a throw has settled in the tray, the dice on it, read once.

Each frame a small grey copy of the tray (`TRAY_WORK_PX` wide at least) is compared with the last one: pixels that
changed by more than `MOTION_LEVEL` grey levels are motion. A throw is read (`vision.dice_both.read_dice_both`, on
the full frame where the tray changed) once the tray has been still for `settle_s` after moving, and only if it now
looks different from when it was last read (a hand passing over the tray throws nothing). Without a tray in the
layout the whole table is watched and dice are read anywhere off the pieces' bases and the markers. Only dice where
the picture changed since it was last read count: a die left lying from the last throw, or a mark the reader might
take for a die, is not read again. The watcher is Qt-free and cheap on a still table (one small resize and
difference a frame); the capture worker runs it on every frame (gui/worker.py), the reads in a thread of their own.

The dice of a throw are given in order along the table's width, x (then y): the die on the left, as seen from the
table's near edge (y = 0), first. The crop of the throw numbers them so, so players can check what was read.
"""

from __future__ import annotations

import math
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.projection import table_to_pixels
from vision.dice import (
    DIE_SIZES_MM,
    FLAT_OF_SIDE,
    READABLE_FACE_PX,
    DiceOptions,
    DieReading,
    dice_on_table,
    px_per_mm,
    read_in_region,
)
from vision.dice_both import merge_readings, read_dice_both

__all__ = ["DiceSight", "DiceThrow", "DiceWatch", "SETTLE_S", "dice_sight", "number_dice", "throw_crop"]

SETTLE_S = 0.6
"""Seconds the tray must be still after moving before a throw is read (dice stop rolling within about half a
second; a shorter wait reads a die still rocking)."""
TRAY_WORK_PX = 240  # the small copy's width at least, px (a 16 mm die over a 400 mm tray is about 10 px there)
DIE_WORK_PX = 5.0  # the smallest die's top face in the small copy at least, px (a whole table's copy is larger)
MOTION_LEVEL = 18  # grey levels: a change beyond the sensor's noise on the averaged small copy
CHANGE_LEVEL = 8
"""Grey levels: a change of the settled tray since it was last read, where a die may have come (lower than
`MOTION_LEVEL`: a die of about the cloth's brightness changes the averaged copy by 15-18 only; the copy's noise is a
level or two)."""
MOTION_DIE_SHARE = 0.5  # of the smallest die's face changed in the small copy: motion
CHANGED_MARGIN = 0.5
"""Of the largest die's side: the margin read round each place the tray changed at (the change covers the die's
body and shadow; the margin is the table round it, where its rim ends)."""
CROP_WIDTH_PX = 320  # the throw's picture for the combat panel and the record


@dataclass(frozen=True)
class DiceThrow:
    """One settled throw: its `number` (1, 2, ... since the watch began), the frame and time `t` (seconds) it was
    read at, its dice in order (`readings`, their `values`: 1-6 or None for a face that could not be read for sure,
    `table_mm`: each die's top face centre (x, y) in table mm), and its picture: `crop` (BGR, the part of the frame
    holding the dice) with each die's place in it (`crop_dice`: x, y, side in crop px), `jpeg` the crop with the
    dice numbered from 1 (`numbered`), for the record."""

    number: int
    frame: int
    t: float
    readings: tuple[DieReading, ...]
    table_mm: tuple[tuple[float, float], ...]
    crop: np.ndarray
    crop_dice: tuple[tuple[float, float, float], ...]
    jpeg: bytes

    def numbered(self, first: int = 1) -> np.ndarray:
        """The crop with its dice numbered from `first` (a throw after another for the same action goes on from
        the other's last), BGR."""
        return number_dice(self.crop, self.crop_dice, first)

    @property
    def values(self) -> tuple[int | None, ...]:
        return tuple(r.value for r in self.readings)

    @property
    def readable(self) -> bool:
        """Every die's value read for sure."""
        return all(v is not None for v in self.values)

    def text(self) -> str:
        """'5, 3' (an unreadable die as '?')."""
        return ", ".join("?" if v is None else str(v) for v in self.values)


def tray_px_per_mm(tray_mm, camera, pose, sizes_mm: tuple[float, float] = DIE_SIZES_MM) -> np.ndarray:
    """Pixels per mm at a die's top (the middle of `sizes_mm` above the cloth) at the tray's corners and centre."""
    tray = np.asarray(tray_mm, np.float64).reshape(-1, 2)
    pts = np.vstack([tray, tray.mean(axis=0, keepdims=True)])
    return px_per_mm(camera, pose, np.column_stack([pts, np.full(len(pts), 0.5 * (sizes_mm[0] + sizes_mm[1]))]))


@dataclass(frozen=True)
class DiceSight:
    """What a camera makes of dice in a tray, where the tray is farthest from it: `large_face_px`, the top face of
    the largest die (20 mm) in px a side; `smallest_mm`, the smallest die whose top face is `READABLE_FACE_PX`
    there (the least whose pips the readers count), rounded up to a whole mm. The dashboard's watch and `fieldglass
    check-setup` both say these figures."""

    large_face_px: float
    smallest_mm: float

    @property
    def reads_none(self) -> bool:
        """Not even the largest die is read: the dashboard does not watch."""
        return self.large_face_px < READABLE_FACE_PX

    @property
    def reads_all(self) -> bool:
        """Every die of 12-20 mm is read everywhere in the tray."""
        return self.smallest_mm <= DIE_SIZES_MM[0]


def dice_sight(tray_mm, camera, pose) -> DiceSight:
    """What `camera` at table `pose` reads of dice in `tray_mm` (a polygon, table mm; the whole table's corners
    without a tray)."""
    scale = float(tray_px_per_mm(tray_mm, camera, pose).min())
    smallest = READABLE_FACE_PX / (FLAT_OF_SIDE * scale)
    return DiceSight(FLAT_OF_SIDE * DIE_SIZES_MM[1] * scale, float(math.ceil(smallest - 1e-9)))


class DiceWatch:
    """Watches a table (or its dice tray) frame by frame and reads each throw once it has settled.

    `tray_mm`: the tray's polygon (x, y) in table mm (the layout's `[dice_tray]`), None: the whole table
    (`width_mm` x `depth_mm`). `sizes_mm`: the dice's sides, smallest and largest. `settle_s`: how long the tray
    stays still before a throw is read. `feed` returns the throw read at that frame, else None. With `background`
    the throw is read in a thread of the watch's own (a read takes 0.1-0.2 s, several frames of a camera): `feed`
    returns it with the first frame after it is read; `close()` ends the thread."""

    def __init__(self, width_mm: float, depth_mm: float, tray_mm=None, sizes_mm: tuple[float, float] = DIE_SIZES_MM,
                 settle_s: float = SETTLE_S, base_mm: dict[str, tuple[float, float]] | None = None,
                 background: bool = False):
        self.tray = np.asarray(tray_mm if tray_mm is not None else
                               [(0.0, 0.0), (width_mm, 0.0), (width_mm, depth_mm), (0.0, depth_mm)], np.float64)
        self.whole_table = tray_mm is None
        self.sizes_mm = sizes_mm
        self.settle_s = float(settle_s)
        self.base_mm = base_mm or {}
        self.throws = 0
        self._key = None  # (frame size, camera, pose) the region below was projected with
        self._roi: tuple[int, int, int, int] | None = None
        self._outline_px: np.ndarray | None = None
        self._options: DiceOptions | None = None
        self._px_per_mm: float | None = None  # where the tray is farthest
        self._motion_px = 6.0  # changed pixels of the small copy that are motion (`_small`)
        self._last: np.ndarray | None = None
        self._reference: np.ndarray | None = None  # the tray as it was when last read (or first seen)
        self._moved_at: float | None = None  # when the tray last moved since it was last read
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="dice") if background else None
        self._reads: list[Future] = []  # throws being read in the background, oldest first

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def restart(self) -> None:
        """Watch afresh from the next frame on, as through another camera: the frames seen so far and the tray's
        place in them are forgotten (another camera's frame is no motion against this one's, nor a change since the
        last throw), the tray as the next frame shows it is where the next throw is read against. A throw being
        read in the background is read out first, with the frame and region it was seen in; throws go on being
        numbered."""
        if self._reads:
            wait(self._reads)  # (a read uses the region: it must not be projected anew under it; 0.1-0.2 s)
        self._key = None
        self._last = self._reference = None
        self._moved_at = None

    # ---- the region

    def _region(self, shape, camera, pose) -> bool:
        """Project the tray into the frame (once per camera pose): its bounding box in px, outline, dice sizes.
        False when the tray is not in view."""
        key = (shape[:2], id(camera), tuple(np.round(np.ravel(pose.rvec), 4)), tuple(np.round(np.ravel(pose.tvec), 1)))
        if key == self._key:
            return self._roi is not None
        self._key = key
        top = 0.5 * (self.sizes_mm[0] + self.sizes_mm[1])
        flat = np.column_stack([self.tray, np.zeros(len(self.tray))])
        raised = np.column_stack([self.tray, np.full(len(self.tray), top)])
        px = table_to_pixels(np.vstack([flat, raised]), camera, pose)
        h, w = shape[:2]
        x0, y0 = np.floor(px.min(axis=0)).astype(int)
        x1, y1 = np.ceil(px.max(axis=0)).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        self._reference = self._last = None
        self._moved_at = None
        if x1 - x0 < 8 or y1 - y0 < 8:
            self._roi = None
            return False
        self._roi = (int(x0), int(y0), int(x1), int(y1))
        self._outline_px = table_to_pixels(raised, camera, pose).astype(np.float32)
        self._options = self._dice_options(camera, pose)
        return True

    def _dice_options(self, camera, pose) -> DiceOptions:
        """The top faces' sides in px for dice of `sizes_mm` anywhere in the tray (its corners and centre)."""
        scale = tray_px_per_mm(self.tray, camera, pose, self.sizes_mm)
        self._px_per_mm = float(scale.min())
        return DiceOptions(min_side_px=0.75 * FLAT_OF_SIDE * self.sizes_mm[0] * float(scale.min()),
                           max_side_px=1.25 * self.sizes_mm[1] * float(scale.max()))

    # ---- frames

    def _small(self, frame: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self._roi
        crop = frame[y0:y1, x0:x1]
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
        face = FLAT_OF_SIDE * self.sizes_mm[0] * (self._px_per_mm or 1.0)
        # a whole number of pixels per small pixel: OpenCV's area resize is several times faster so (18 -> 3 ms at 4K)
        k = max(1, int(1.0 / min(1.0, max(TRAY_WORK_PX / grey.shape[1], DIE_WORK_PX / max(face, 1e-6)))))
        self._motion_px = max(6.0, MOTION_DIE_SHARE * (face / k) ** 2)
        h, w = (grey.shape[0] // k) * k, (grey.shape[1] // k) * k
        small = cv2.resize(grey[:h, :w], (w // k, h // k), interpolation=cv2.INTER_AREA) if k > 1 else grey
        return cv2.GaussianBlur(small, (3, 3), 0)

    @staticmethod
    def _difference(a: np.ndarray, b: np.ndarray, level: int = MOTION_LEVEL) -> np.ndarray:
        """The pixels of two small copies that changed by more than `level` beyond the whole copy's shift in
        brightness (a camera's exposure or a lamp stepping changes every pixel alike: no motion, no die)."""
        d = a.astype(np.int16) - b.astype(np.int16)
        return np.abs(d - int(np.median(d))) > level

    def _changed(self, a: np.ndarray, b: np.ndarray) -> bool:
        """Motion between two small copies: as many pixels changed as half the smallest die's face."""
        return float(np.count_nonzero(self._difference(a, b))) >= self._motion_px

    def moving(self) -> bool:
        """The tray moved since it was last read and has not yet settled."""
        return self._moved_at is not None

    def feed(self, frame: np.ndarray, t: float, number: int, camera, pose, pieces=(), markers=()) -> DiceThrow | None:
        """One frame (BGR) at `t` seconds, read with `camera` and table `pose` (None: the table is not registered;
        nothing is watched); `pieces` the frame's PiecePoses and `markers` its MarkerDetections (dice are not read
        on them). The settled throw read at this frame (in the background: read since the last frame), or None."""
        settled = self._settled(frame, t, number, camera, pose, pieces, markers)
        if self._pool is None:
            return settled
        if self._reads and self._reads[0].done():
            return self._reads.pop(0).result()
        return None

    def _settled(self, frame, t, number, camera, pose, pieces, markers) -> DiceThrow | None:
        """Watch one frame; read the throw if it settled now (in the background: start reading it, None)."""
        if pose is None or not self._region(frame.shape, camera, pose):
            return None
        small = self._small(frame)
        if self._last is None or self._last.shape != small.shape:
            self._last = self._reference = small
            return None
        if self._changed(small, self._last):
            self._moved_at = t
        self._last = small
        if self._moved_at is None or t - self._moved_at < self.settle_s:
            return None
        self._moved_at = None
        if not self._changed(small, self._reference):
            return None  # the tray is as it was when last read: a hand passed over it
        # (opened: a pixel or two of noise or JPEG over the change level is no die; a die is 5 small px across)
        changed = cv2.morphologyEx(self._difference(small, self._reference, CHANGE_LEVEL).astype(np.uint8),
                                   cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)) > 0
        self._reference = small
        if self._pool is not None:
            self._reads.append(self._pool.submit(self._read, frame, t, number, camera, pose, tuple(pieces),
                                                 tuple(markers), changed))
            return None
        return self._read(frame, t, number, camera, pose, pieces, markers, changed)

    def _read(self, frame, t, number, camera, pose, pieces, markers, changed) -> DiceThrow | None:
        found: list[DieReading] = []
        for box in self._changed_boxes(changed):
            # (a die in two boxes' margins is read in each: merged into one)
            found = merge_readings(found, read_in_region(read_dice_both, frame, self._options, box,
                                                         CHANGED_MARGIN * self._options.max_side_px))
        found = [r for r in found if cv2.pointPolygonTest(self._outline_px, r.centre_px, False) >= 0 and
                 not _on_marker(r, markers) and self._new(r, changed)]
        on_table = dice_on_table(found, camera, pose) if found else []
        kept = [(r, (x, y)) for r, (x, y, _) in zip(found, on_table, strict=True)
                if not self._on_base(x, y, pieces)]
        if not kept:
            return None
        kept.sort(key=lambda k: (round(k[1][0] / 10.0), k[1][1]))  # along x (10 mm steps), then y
        readings = tuple(r for r, _ in kept)
        self.throws += 1
        crop, places = throw_crop(frame, readings, self._roi)
        ok, buf = cv2.imencode(".jpg", number_dice(crop, places), [cv2.IMWRITE_JPEG_QUALITY, 85])
        return DiceThrow(self.throws, int(number), float(t), readings,
                         tuple((float(x), float(y)) for _, (x, y) in kept), crop, places, buf.tobytes() if ok else b"")

    def _changed_boxes(self, changed: np.ndarray) -> list[np.ndarray]:
        """The places the tray changed at since it was last read, as boxes (4 corners, frame px) round each group of
        changed small pixels (a die's face apart merged): the dice just thrown lie there, and only there are they
        read (a throw of three dice is a few per cent of a tray, let alone a table). A margin is read round each
        box (`CHANGED_MARGIN`)."""
        x0, y0, x1, y1 = self._roi
        k = (x1 - x0) / max(changed.shape[1], 1)  # frame px per small px
        near = max(1, int(math.ceil(0.5 * self._options.min_side_px / k)))
        grown = cv2.dilate(changed.astype(np.uint8), np.ones((2 * near + 1, 2 * near + 1), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
        boxes = []
        for sx, sy, sw, sh, _ in stats[1:n]:
            bx0, by0 = x0 + sx * k, y0 + sy * k
            bx1, by1 = x0 + (sx + sw) * k, y0 + (sy + sh) * k
            boxes.append(np.array([(bx0, by0), (bx1, by0), (bx1, by1), (bx0, by1)], np.float64))
        return boxes

    def _new(self, r: DieReading, changed: np.ndarray) -> bool:
        """Where the tray changed since it was last read (within the die's face): a die just thrown, not something
        that lay there before (a die left from the last throw, a mark on the cloth the reader takes for a die)."""
        x0, y0, x1, y1 = self._roi
        k = changed.shape[1] / max(x1 - x0, 1)
        cx, cy, half = (r.centre_px[0] - x0) * k, (r.centre_px[1] - y0) * k, max(1, int(0.5 * r.side_px * k))
        h, w = changed.shape
        ys, xs = slice(max(int(cy) - half, 0), min(int(cy) + half + 1, h)), slice(max(int(cx) - half, 0),
                                                                                  min(int(cx) + half + 1, w))
        return bool(changed[ys, xs].any())

    def _on_base(self, x: float, y: float, pieces) -> bool:
        """On a piece's base (a circle round its centre as wide as the base's diagonal, 5 mm more)."""
        for p in pieces:
            w, d = self.base_mm.get(p.piece, (40.0, 40.0))
            if math.hypot(x - p.x_mm, y - p.y_mm) <= 0.5 * math.hypot(w, d) + 5.0:
                return True
        return False


def _on_marker(r: DieReading, markers) -> bool:
    """Within a detected marker's square, grown by half (its quiet zone): a base's or an anchor's marker."""
    for m in markers:
        corners = np.asarray(getattr(m, "corners", ()), np.float32).reshape(-1, 2)
        if len(corners) != 4:
            continue
        c = corners.mean(axis=0)
        grown = (c + 1.5 * (corners - c)).astype(np.float32)
        if cv2.pointPolygonTest(grown, r.centre_px, False) >= 0:
            return True
    return False


def throw_crop(frame: np.ndarray, readings, roi: tuple[int, int, int, int] | None = None):
    """The part of `frame` holding the dice (a margin of one die round them, within `roi`), at most
    `CROP_WIDTH_PX` wide (BGR), and each die's (x, y, side) in it, px."""
    h, w = frame.shape[:2]
    rx0, ry0, rx1, ry1 = roi or (0, 0, w, h)
    pts = np.array([r.centre_px for r in readings], np.float64)
    side = max(r.side_px for r in readings)
    x0, y0 = np.maximum(pts.min(axis=0) - 1.5 * side, (rx0, ry0)).astype(int)
    x1, y1 = np.minimum(pts.max(axis=0) + 1.5 * side, (rx1, ry1)).astype(int)
    crop = np.ascontiguousarray(frame[y0:y1, x0:x1])
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    scale = min(1.0, CROP_WIDTH_PX / max(crop.shape[1], 1), CROP_WIDTH_PX / max(crop.shape[0], 1)) \
        if max(crop.shape[:2]) > CROP_WIDTH_PX else max(1.0, min(4.0, 160.0 / max(crop.shape[0], 1)))
    crop = cv2.resize(crop, (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale))),
                      interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    places = tuple(((r.centre_px[0] - x0) * scale, (r.centre_px[1] - y0) * scale, r.side_px * scale)
                   for r in readings)
    return crop, places


def number_dice(crop: np.ndarray, places, first: int = 1) -> np.ndarray:
    """A copy of `crop` with each die of `places` ((x, y, side) px) numbered from `first`, above its left corner."""
    out = crop.copy()
    font = cv2.FONT_HERSHEY_SIMPLEX
    for i, (cx, cy, side) in enumerate(places, first):
        at = (max(int(cx - 0.6 * side) - 14, 0), max(int(cy - 0.6 * side), 20))
        cv2.putText(out, str(i), at, font, 0.9, (0, 0, 0), 5, cv2.LINE_AA)
        cv2.putText(out, str(i), at, font, 0.9, (0, 255, 255), 2, cv2.LINE_AA)
    return out
