"""Reading a filmed game for its record: only what changed since the frame before, as cheaply as that allows.

`fieldglass record` reads every frame of a video one after the other, as fast as it can: a frame's cost is the
cost of the record. `RecordChanges` is `vision.stream.ChangeDetector` (every change read at once: the same readings
as a full scan of every frame) with a cheaper re-read of a changed region:

* the region is read at the frame's own resolution, without the 2x upscaled pass and without the rescue of the
  squares OpenCV rejected (`detect_markers(upscale=False, rescue=False)`): a marker known in that region which
  this misses (one of 18-20 px, blurred) is looked for again where it stood (`track_markers`: corners measured
  again from its edges, its code read), so a piece that did not move keeps being seen; when one is neither found
  nor where it stood, the region is read again as a full scan reads it once it has stopped changing (while a hand
  moves there, it is left unsettled and read again at the next frame), so a piece put down where that pass alone
  would miss it is not lost; with markers under CHEAP_MIN_PX every region is read as a full scan reads it;
* the regions are grown by the pieces' markers' reach, not the anchors' (at 720p a piece's marker is 20 px, an
  anchor 45-50): a fraction of the pixels to read around a hand. An anchor a crop cuts off is found again in place
  as above (the anchors stand still while the camera does);
* no background scan: a video is read from its first frame to its last, and a region is read again as soon as
  it changes;
* a trembling or knocked camera (`steady` on: at the first frame whose anchors moved together, or when the
  record's reader saw full scans in a row) is followed instead of scanned in full every frame: the anchors'
  corners are followed from the picture of the last full scan (the *base*) into the frame (OpenCV's pyramidal
  Lucas-Kanade, in a patch around each anchor), an affine map fitted to them, and the base's cells (their grey
  level, as compared) read in the frame through it (the points each cell averages mapped there, not the frame
  warped: a picture shaken by a px does not change) and the base relit to the frame's light (so a cloud dimming
  it does not change either); what changed is read in the frame itself and kept in base px with the markers that
  did not change, so the table pose of the base holds for all of them. When the anchors cannot be followed
  (hidden, the camera moved too far, their corners no longer fit one map) the frame is scanned in full and
  becomes the base. Only the parts of the frame that are read are converted to grey.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import cv2
import numpy as np

from vision.markers import MarkerDetection, detect_markers, to_gray, track_markers
from vision.stream import ChangeConfig, ChangeDetector, _cell_means, _cells, _inside

FOLLOW_PX = 0.15
"""The anchors' corners fit one affine map from the base to the frame within this many px, or the frame is scanned
in full (a knocked camera seen from another place; an anchor found on something else)."""

_LK_WINDOW, _LK_LEVELS = (15, 15), 1  # px; a pyramid level above the frame: a knock of a few px is followed
_LK_MARGIN = 32  # px around an anchor's corners (where they were and where they are looked for): the patch its
# Lucas-Kanade reads, the window at the pyramid's top (2 x 7 px) and its filters' reach with room to spare
_LK_STOP = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 0.01)  # Lucas-Kanade: 30 steps or 0.01 px
SHAKE_PX, SHAKE_FRAMES = 0.1, 10  # a camera still trembles if its picture moved by this between two of these frames
LIGHT_BLOCKS = (8, 4)  # columns x rows of the frame over which a change of light is measured (`_relight`)
LIGHT_STEP = 0.03  # a change of light under this share of the grey level is left to the change threshold

CHEAP_MIN_PX = 18.0
"""A changed region is read at the frame's own resolution only while the smallest piece's marker seen is this big
(px a side): smaller ones (12-16 px) need the upscaled pass, and are read as a full scan reads them."""

RECORD_CHANGES = ChangeConfig(settle=False, refresh_every=1 << 30)
"""A record's change detection: every change read at once (the same events as a full scan of every frame), no
background scan."""


class RecordChanges(ChangeDetector):
    """`ChangeDetector` whose changed regions are read at native resolution, the known markers there that this
    misses looked for again in place (see the module's docstring)."""

    def __init__(self, dictionary: str, config: ChangeConfig | None = None, anchor_ids: frozenset[int] = frozenset()):
        super().__init__(dictionary, config or RECORD_CHANGES, anchor_ids)
        self.steady = False  # follow a trembling camera (see the module's docstring)
        self._raw: np.ndarray | None = None  # the frame being read (as it came, colour or grey), when steadied
        self._map: np.ndarray | None = None  # its 2x3 affine map from base px to frame px, when steadied
        self._warped: np.ndarray | None = None  # its cells brought back to base px, when steadied
        self._last_map: np.ndarray | None = None  # the last frame's, where its anchors are looked for
        self._before: np.ndarray | None = None  # the last frame's cells, while this one is read
        self.moves: deque[float] = deque(maxlen=SHAKE_FRAMES)  # px the picture moved a frame, as followed
        self._base: np.ndarray | None = None  # the grey picture of the last full scan
        self._min_side = 0.0  # the smallest piece's marker seen, side px (none seen: 0)
        self._unsettled: list[tuple[tuple[int, int, int, int], np.ndarray]] = []  # regions to read again, old cells

    def reset(self) -> None:
        super().reset()
        self._raw = self._map = self._warped = self._last_map = self._base = None
        self.moves.clear()

    def detect(self, frame: np.ndarray) -> list[MarkerDetection]:
        """As `ChangeDetector.detect`; steadied, the markers are in base px (the frame of the last full scan). A
        region left unsettled (`_redetect`) keeps its old picture, so it is read again at the next frame."""
        self._unsettled = []
        markers = self._detect(frame)
        for (x0, y0, x1, y1), cells in self._unsettled:
            if self.reference is not None and self.reference[y0:y1, x0:x1].shape == cells.shape:
                self.reference[y0:y1, x0:x1] = cells
        return markers

    def _detect(self, frame: np.ndarray, followed: np.ndarray | None = None) -> list[MarkerDetection]:
        """`followed`: the frame's map from the base, when the caller has followed it already (`_bumped`)."""
        self._raw = self._map = self._warped = None
        self._before = self.previous
        if not self.steady or self.reference is None:
            return super().detect(frame)
        self._raw = frame
        self._map = self._follow(frame) if followed is None else followed
        if self._map is None:
            self.reference = None  # lost: a full scan, and this frame is the new base
            return super().detect(frame)
        self._warped = _cells_through(frame, self._map, self.config.cell_px)
        self._relight(self._warped)
        return super().detect(frame)

    def _grid(self, frame: np.ndarray) -> np.ndarray:
        """The cells compared: steadied, the frame's brought back to base px (`_detect`)."""
        return super()._grid(frame) if self._warped is None else self._warped

    def _in_base(self, frame: np.ndarray) -> np.ndarray:
        """Steadied, the frame's grey picture warped back to base px (the whole frame: only for what is rare in a
        record, a knock the anchors' cells show (`_bumped`), a hand waited for (`_visible`, settle on))."""
        if self._map is None:
            return frame
        h, w = frame.shape[:2]
        return cv2.warpAffine(to_gray(frame), self._map, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)

    def _bumped(self, frame: np.ndarray, small: np.ndarray) -> list[MarkerDetection]:
        """The anchors' cells changed together: the camera moved. Not steadied yet, it is followed from now on
        when its anchors can be (`steady` on; the record's reader keeps it on a while): the frame is read again
        as a followed one, not scanned in full (a trembling camera's first frames, a knocked tripod). Else, and
        steadied (the map no longer holds them), as `ChangeDetector._bumped`."""
        followed = self._follow(frame) if not self.steady and self._base is not None else None
        if followed is not None:
            self.steady = True
            self.previous = self._before  # as it was before this frame's comparison
            return self._detect(frame, followed)
        # the frame warped back to the base only for a re-registration from it; a full scan reads the frame as it
        # came (`_full`)
        rebase = self.config.rebase and self.rebase is not None
        return super()._bumped(self._in_base(frame) if rebase else frame, small)

    def _visible(self, frame: np.ndarray, markers: list[MarkerDetection], moving: np.ndarray | None,
                 changed: np.ndarray) -> list[MarkerDetection]:
        """As `ChangeDetector._visible`; steadied, the markers (base px) tracked in the frame warped back."""
        if moving is None or not moving.any():
            return markers
        return super()._visible(self._in_base(frame), markers, moving, changed)

    def _relight(self, cells: np.ndarray) -> None:
        """The base picture brought to this frame's light (a cloud, a lamp dimming): the ratio of the two pictures'
        cells, its median over each of LIGHT_BLOCKS (a hand or a moved piece changes too few cells to move it),
        spread smoothly over the cells; applied when it is off 1 by more than LIGHT_STEP anywhere. A change of
        light moves no corner: the markers stand, only what changed besides it is read again."""
        ref = self.reference
        if ref is None or ref.shape != cells.shape:
            return
        cols, rows = LIGHT_BLOCKS
        bh, bw = ref.shape[0] // rows, ref.shape[1] // cols  # the cells of a block (the last few left out)
        if bh == 0 or bw == 0:
            return
        ratio = cells[: bh * rows, : bw * cols] / np.maximum(ref[: bh * rows, : bw * cols], 8.0)
        blocks = np.median(ratio.reshape(rows, bh, cols, bw).transpose(0, 2, 1, 3).reshape(rows, cols, -1), axis=2)
        blocks = blocks.astype(np.float32)
        if np.abs(blocks - 1.0).max() < LIGHT_STEP:
            return
        gain = cv2.resize(blocks, (ref.shape[1], ref.shape[0]), interpolation=cv2.INTER_LINEAR)
        self.reference = ref * gain

    def _follow(self, frame: np.ndarray) -> np.ndarray | None:
        """The affine map (2x3) from base px to this frame's px: the anchors' corners followed from the base picture
        into this frame by pyramidal Lucas-Kanade (`_followed`: a few hundred us for all of them; finding the
        anchors again from their edges cost several ms), starting where the last frame's map put them, the map
        fitted to those that agree (RANSAC within FOLLOW_PX: a hand over an anchor leaves its corners out). The
        four anchors nearest the picture's corners first (`_spread`: half the cost of following all of them), the
        others too when those do not fit one map. None when fewer than three anchors' worth of corners agree."""
        anchors = [m.corners for m in self.known if m.id in self.anchor_ids]
        if self._base is None or len(anchors) < 3:
            return None
        first = _spread(anchors)
        order = first + [k for k in range(len(anchors)) if k not in first]
        src = np.concatenate([anchors[k] for k in order]).astype(np.float32)
        guess = src if self._last_map is None else _mapped(src, self._last_map).astype(np.float32)
        dst, seen = np.empty_like(src), np.zeros(len(src), bool)
        parts = [slice(0, 4 * len(first))] + ([slice(4 * len(first), len(src))] if len(first) < len(anchors) else [])
        for part in parts:
            dst[part], seen[part] = _followed(self._base, frame, src[part], guess[part])
            solution, inliers = None, None
            if seen.sum() >= 12:
                solution, inliers = cv2.estimateAffine2D(src[seen], dst[seen], method=cv2.RANSAC,
                                                         ransacReprojThreshold=FOLLOW_PX, refineIters=10)
            if solution is not None and int(inliers.sum()) >= 12:
                break
        else:
            return None
        src = src[: part.stop]
        if self._last_map is not None:  # how far the picture moved since the last frame, at the anchors
            self.moves.append(float(np.abs(_mapped(src, solution - self._last_map)).max()))
        self._last_map = solution
        return solution

    def shaking(self) -> bool:
        """The picture moved by more than SHAKE_PX between two of the last frames followed: the camera trembles."""
        return any(m > SHAKE_PX for m in self.moves)

    def _full(self, frame: np.ndarray, small: np.ndarray) -> list[MarkerDetection]:
        """A full scan; steadied, of the frame as it came (`frame` may be it warped back to the base), its own
        cells compared from now on. Its grey picture is the base a trembling camera is followed from."""
        raw = frame if self._raw is None else self._raw
        if self._warped is not None:
            self.previous = small = _cells(raw, self.config.cell_px)
        self._raw = self._map = self._warped = self._last_map = None
        self._base = to_gray(raw)
        return super()._full(self._base, small)

    def _reach(self) -> tuple[int, int]:
        """(reach, margin) px as `ChangeDetector._reach`, from the largest piece's marker seen (not the anchors')."""
        if self._side_of is not self.known:
            pieces = [m.corners for m in self.known if m.id not in self.anchor_ids]
            corners = np.array(pieces).reshape(-1, 4, 2)
            sides = np.linalg.norm(corners - np.roll(corners, 1, axis=1), axis=2)
            self._side = float(sides.max()) if len(corners) else self.config.marker_px
            self._min_side = float(sides.mean(axis=1).min()) if len(corners) else 0.0
            self._side_of = self.known
        side = self._side
        return int(np.ceil(0.75 * side)) + self.config.cell_px, int(np.ceil(side)) + self.config.cell_px

    def _redetect(self, frame: np.ndarray, inner: tuple[int, int, int, int], crop: tuple[int, int, int, int],
                  markers: Sequence[MarkerDetection]) -> list[MarkerDetection]:
        """Steadied, `inner`, `crop` and `markers` are in base px: the region is read in the frame (the crop's
        corners mapped there, a px more each side) and what it finds mapped back to base px. A marker known in the
        region that OpenCV finds where it stood keeps its corners (`detect_markers(known=...)`): like one outside
        the changed cells, it was not touched."""
        raw, to_raw = frame, self._map
        h, w = raw.shape[:2]
        x0, y0, x1, y1 = crop
        if to_raw is not None:
            box = _mapped(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float), to_raw)
            x0, y0 = (int(max(np.floor(v) - 1, 0)) for v in box.min(axis=0))
            x1, y1 = (int(min(np.ceil(v) + 2, lim)) for v, lim in zip(box.max(axis=0), (w, h), strict=True))
        there = _inside(markers, inner)
        here = [m for m, k in zip(markers, there, strict=True) if k]
        kept = [m for m, k in zip(markers, there, strict=True) if not k]
        # the markers known there, in the crop's px: one OpenCV finds where it stood keeps its corners
        known = [MarkerDetection(m.id, (m.corners if to_raw is None else _mapped(m.corners, to_raw)) - (x0, y0))
                 for m in here]

        def read(**cheap) -> list[MarkerDetection]:
            found = detect_markers(raw[y0:y1, x0:x1], self.dictionary, frame_side_px=max(h, w), known=known, **cheap)
            based = [self._to_base(m.id, m.corners + (x0, y0)) for m in found]
            return [m for m, k in zip(based, _inside(based, inner), strict=True) if k]

        if self._min_side < CHEAP_MIN_PX:  # markers the plain pass alone misses: read as a full scan reads
            return kept + read()
        fresh = read(upscale=False, rescue=False)
        seen = {m.id for m in fresh}
        missed = [m for m in here if m.id not in seen]
        again = self._again(raw, missed)
        if len(again) == len(missed):
            return kept + fresh + again
        if not self._moving(inner):
            # one is neither seen nor where it stood, and nothing moves there any more: read as a full scan reads
            return kept + read()
        # one is neither seen nor where it stood while a hand moves there: read again at the next frame
        cell = self.config.cell_px
        box = tuple(v // cell for v in inner)
        self._unsettled.append((box, self.reference[box[1]:box[3], box[0]:box[2]].copy()))
        return kept + fresh + again

    def _moving(self, inner: tuple[int, int, int, int]) -> bool:
        """The region's picture changed since the last frame (a hand still in motion)."""
        if self._before is None or self._before.shape != self.previous.shape:
            return False
        cell = self.config.cell_px
        x0, y0, x1, y1 = (v // cell for v in inner)
        now, before = self.previous[y0:y1, x0:x1], self._before[y0:y1, x0:x1]
        return bool((np.abs(now - before) >= self.config.threshold).any())

    def _again(self, raw: np.ndarray, missed: list[MarkerDetection]) -> list[MarkerDetection]:
        """The markers (base px) found again where they stood in the frame `raw`, in base px."""
        if not missed:
            return []
        if self._map is not None:
            missed = [MarkerDetection(m.id, _mapped(m.corners, self._map)) for m in missed]
        return [self._to_base(m.id, m.corners) for m in track_markers(raw, missed, self.dictionary)]

    def _to_base(self, marker: int, corners: np.ndarray) -> MarkerDetection:
        """A marker found in the frame, in base px."""
        if self._map is None:
            return MarkerDetection(marker, corners)
        return MarkerDetection(marker, _mapped(corners, cv2.invertAffineTransform(self._map)))


def _mapped(points: np.ndarray, affine: np.ndarray) -> np.ndarray:
    """Points (N x 2 px) through a 2x3 affine map."""
    return points @ affine[:, :2].T + affine[:, 2]


def _spread(anchors: list[np.ndarray]) -> list[int]:
    """The anchors (corners, 4 x 2 px each) nearest the picture's four corners, each once (three at least, else
    all of them): a map fitted to their corners holds over the whole picture."""
    centres = np.array([a.mean(axis=0) for a in anchors])
    diagonals = (centres[:, 0] + centres[:, 1], centres[:, 0] - centres[:, 1])
    picked = sorted({int(f(d)) for d in diagonals for f in (np.argmin, np.argmax)})
    return picked if len(picked) >= 3 else list(range(len(anchors)))


def _followed(base: np.ndarray, frame: np.ndarray, src: np.ndarray, guess: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Anchors' corners (N x 2 px, four an anchor) followed from the grey picture `base` into `frame` by pyramidal
    Lucas-Kanade, from `guess`: (where they are, N x 2 px; whether each was followed). Each anchor in a patch of
    the two pictures around it (_LK_MARGIN): the pyramid and the gradients of the whole base cost 1-2 ms a frame
    at 720p, an anchor's patch a 50th of that; only the frame's patches are converted to grey. A patch whose light
    changed by LIGHT_STEP or more is brought to the base's first (a cloud dimming the table to 0.6 left a third of
    the corners 1 px off, too few to fit the map: a full scan)."""
    h, w = base.shape[:2]
    dst, seen = guess.copy(), np.zeros(len(src), bool)
    for k in range(0, len(src), 4):
        both = np.concatenate([src[k:k + 4], guess[k:k + 4]])
        x0, y0 = (int(max(np.floor(v) - _LK_MARGIN, 0)) for v in both.min(axis=0))
        x1, y1 = (int(min(np.ceil(v) + _LK_MARGIN + 1, lim)) for v, lim in zip(both.max(axis=0), (w, h), strict=True))
        if x1 - x0 < 2 * _LK_WINDOW[0] or y1 - y0 < 2 * _LK_WINDOW[1]:  # off the picture, or nearly
            continue
        origin = np.array([x0, y0], np.float32)
        before, now = base[y0:y1, x0:x1], to_gray(frame[y0:y1, x0:x1])
        gain = float(before.mean()) / max(float(now.mean()), 1.0)
        if abs(gain - 1.0) >= LIGHT_STEP:  # Lucas-Kanade assumes the light stays: a cloud lost its corners
            now = cv2.convertScaleAbs(now, alpha=gain)
        found, status, _ = cv2.calcOpticalFlowPyrLK(
            before, now, (src[k:k + 4] - origin).reshape(-1, 1, 2),
            (guess[k:k + 4] - origin).reshape(-1, 1, 2), winSize=_LK_WINDOW, maxLevel=_LK_LEVELS,
            criteria=_LK_STOP, flags=cv2.OPTFLOW_USE_INITIAL_FLOW)
        dst[k:k + 4], seen[k:k + 4] = found.reshape(-1, 2) + origin, status.ravel() == 1
    return dst, seen


def _cells_through(frame: np.ndarray, affine: np.ndarray, cell: int) -> np.ndarray:
    """The base's cells as `frame` shows them through `affine` (2x3, base px to frame px): what `_cells` of the
    frame warped back to the base would be, without warping the frame. `_cells` averages four points of each cell
    (a bilinear shrink to twice the cells, OpenCV's resize reading output px i at (i + 0.5) * scale - 0.5, then
    2 x 2 means): those points are mapped into the frame and read there (one `cv2.warpAffine` to twice the cells,
    a 16th of the frame's pixels), then averaged as `_cells` averages them. Other cell sizes (odd, or under 4 px:
    a mean of every px) warp the frame."""
    h, w = frame.shape[:2]
    if cell < 4 or cell % 2:
        return _cells(cv2.warpAffine(frame, affine, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE), cell)
    cols, rows = max(w // cell, 1), max(h // cell, 1)
    sx, sy = w / (2 * cols), h / (2 * rows)  # px of the frame per point read
    lin = affine[:, :2]
    points = np.hstack([lin * (sx, sy), (lin @ np.array([sx / 2 - 0.5, sy / 2 - 0.5]) + affine[:, 2])[:, None]])
    picked = cv2.warpAffine(frame, points, (2 * cols, 2 * rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_REPLICATE)
    return _cell_means(picked, (cols, rows))
