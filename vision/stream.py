"""Marker detection over a video stream: look again only where the picture changed.

A game table is still most of the time: between two moves nothing changes but a hand. `ChangeDetector` compares
each frame with the last settled picture at low resolution (cells of `cell_px` px, grey means) and re-detects
markers only in the regions that changed, padded by a marker's size; every marker outside them is kept as it was
(its pixels did not change, so neither did its corners). A region still changing from one frame to the next (a
hand in motion) is read once it has settled; meanwhile its markers count as seen only where their corners and
code are found again (`track_markers`: a hand over one hides it, one beside the hand stays). A
full scan runs at the start and when much of the picture changed at once (the light); and, spread over the frames,
on a slow background schedule: one tile of the frame is re-detected on every `refresh_every`-th frame that has
nothing else to read, so no frame pays for a whole scan. When half the anchors changed at once the camera was
knocked: its markers are looked for again only around their places (`rebase_markers`: the anchors where the view's
shift moved them, the new pose fitted to them, every piece's marker where the new pose puts it), and the picture
compared from then on is the knocked view; a full scan only when that fails or the camera is still moving.

`LiveReader` puts it in front of `read_table`: the table pose is kept while the anchors' corners stay put (no
registration on a still frame) and fitted again as soon as an anchor is re-detected anywhere else (a bumped camera
heals at its next frame).

`StreamDetector`, the older scheme (last frame's markers tracked, a full scan every `full_every` frames), stays for
sources whose every frame moves (a hand-held camera).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.pose import estimate_pose
from calibration.projection import pixels_to_table, table_to_pixels
from calibration.registration import MIN_ANCHORS, TableRegistration
from vision.markers import MarkerDetection, detect_markers, mean_side_px, to_gray, track_markers
from vision.pieces import TableReading, locate_pieces, read_table
from vision.roster import Roster


class StreamDetector:
    """`detect(frame)` for consecutive frames of one camera; returns what `detect_markers` would, sorted by id."""

    def __init__(self, dictionary: str, full_every: int = 10):
        self.dictionary = dictionary
        self.full_every = max(1, full_every)
        self.known: list[MarkerDetection] = []
        self.frames_since_full = 0
        self.last_was_full = False

    def reset(self) -> None:
        """Forget what was seen: the next frame gets a full scan (after a camera change or a jump in a video)."""
        self.known = []

    def detect(self, frame: np.ndarray) -> list[MarkerDetection]:
        full = not self.known or self.frames_since_full + 1 >= self.full_every
        if full:
            found = detect_markers(frame, self.dictionary)
            self.frames_since_full = 0
        else:
            found = track_markers(frame, self.known, self.dictionary)
            self.frames_since_full += 1
        self.last_was_full = full
        # A marker lost while tracking (hidden, or moved too far) comes back with the next full scan.
        self.known = found
        return found


@dataclass(frozen=True)
class ChangeConfig:
    """Tuning of `ChangeDetector`: grey levels 0-255, sizes in full-resolution pixels."""

    cell_px: int = 8  # the picture is compared in cells of this many px square (grey means)
    threshold: float = 16.0  # a cell changed when its mean moved by this many grey levels: a hand, a piece, not
    # noise (2-4 levels, averaged over a cell) nor a camera trembling by half a px (under 10 levels at an edge)
    full_share: float = 0.35  # more of the frame changed than this: a full scan (a bump, the light) is cheaper
    refresh_tiles: tuple[int, int] = (12, 6)  # the background scan: the frame in columns x rows of tiles (more
    # of them in a frame whose tiles would be larger than `refresh_tile_px`) ...
    refresh_every: int = 4  # ... and one tile re-detected every this many frames when nothing changed (a whole
    # pass in 288 still frames up to 1440p, 10 s at 30 fps); a frame with changes to read does no background
    # work. A tile costs about a frame's interval at 1080p (its 2x pass for small markers), so every 2nd frame
    # left the reader no room to catch up after a slower frame (issue 14: still frames dropped in `bench live`)
    refresh_tile_px: int = 240 * 240  # a background tile holds at most this many px: a 4K frame's 12 x 6 tiles
    # of 320 x 360 px, read with their margins, cost 11 ms p50 each, in 18 x 9 tiles 7.5 ms (one after the other,
    # shared machine); in its 17 x 9 tiles of 226 x 240 px a pass takes 612 still frames, 20 s at 30 fps
    marker_px: float = 40.0  # the largest marker's side before any was seen (then measured)
    settle: bool = True  # read a changed region once it stopped changing; meanwhile its markers are tracked
    rebase: bool = True  # a bumped camera re-registered from its markers' neighbourhoods (`rebase_markers`), a
    # full scan only when that fails or the camera is still moving
    bump_pad: tuple[float, float] = (1.0, 3.0)  # a marker looked for after a bump within this many of its sides
    # around where it was (anchors) or is predicted (pieces), and then within the wider second


@dataclass
class FrameWork:
    """What `ChangeDetector.detect` did for one frame: 'full', 'bump' (the camera moved: every marker looked for
    again only around its place, `rebase_markers`), 'regions', 'moving' (nothing re-detected, a region still in
    motion) or 'still' (nothing re-detected), the share of the frame's pixels it re-detected (a full scan is 1.0),
    the regions (x0, y0, x1, y1 px), and whether the only region was the slow background scan's tile."""

    kind: str
    share: float
    regions: list[tuple[int, int, int, int]] = field(default_factory=list)
    background: bool = False


class ChangeDetector:
    """`detect(frame)` for consecutive frames of one still camera; returns what `detect_markers` would."""

    def __init__(self, dictionary: str, config: ChangeConfig | None = None, anchor_ids: frozenset[int] = frozenset()):
        self.dictionary = dictionary
        self.config = config or ChangeConfig()
        self.anchor_ids = frozenset(anchor_ids)  # the table's anchors: when they change together the camera moved
        self.known: list[MarkerDetection] = []
        self.reference: np.ndarray | None = None  # the last settled picture, one grey mean per cell (float32)
        self.frames = 0
        self.tile = 0
        self.last = FrameWork("none", 0.0)
        self.previous: np.ndarray | None = None  # the last frame's cells: what is still changing
        self._side, self._side_of = self.config.marker_px, None
        self._boxes_of: tuple | None = None  # (known markers, cells' shape) the anchors' cell boxes are of
        self._boxes: list[tuple[int, int, int, int]] = []  # each anchor's cells: row0, row1, col0, col1
        # (frame, markers before, the picture's shift (dx, dy) px) -> (the markers found again, the share of the
        # frame read) or None: a bumped camera's markers without a full scan (`LiveReader` sets it: it knows the
        # pose and the roster)
        self.rebase: Callable[[np.ndarray, list[MarkerDetection], tuple[float, float]],
                              tuple[list[MarkerDetection], float] | None] | None
        self.rebase = None
        self.camera_moving = False  # the anchors moved at the last frame
        self._hann: np.ndarray | None = None

    def reset(self) -> None:
        """Forget what was seen: the next frame gets a full scan (a camera change, a jump in a video)."""
        self.reference = None
        self.previous = None
        self.known = []
        self.camera_moving = False

    def detect(self, frame: np.ndarray) -> list[MarkerDetection]:
        cfg = self.config
        h, w = frame.shape[:2]
        small = self._grid(frame)
        self.frames += 1
        previous, self.previous = self.previous, small
        if self.reference is None or self.reference.shape != small.shape or previous is None:
            return self._full(frame, small)
        changed = np.abs(small - self.reference) >= cfg.threshold
        if self._anchors_moved(changed):
            return self._bumped(frame, small)
        self.camera_moving = False
        if changed.mean() > cfg.full_share:  # the light, or most of the view covered
            return self._full(frame, small)
        reach, margin = self._reach()
        # Cells still changing since the last frame (a hand in motion) are read once they have settled; until
        # then the markers around them count only where they are found again at their place.
        moving = _grown(np.abs(small - previous) >= cfg.threshold, cfg.cell_px, reach) if cfg.settle else None
        settled = changed if moving is None else changed & ~moving
        regions = _regions(settled, cfg.cell_px, reach, w, h)
        if not regions and moving is not None and moving.any():
            self.last = FrameWork("moving", 0.0)
            return self._visible(frame, self.known, moving, changed)
        background = not regions and self.frames % cfg.refresh_every == 0
        if background:  # a frame with nothing else to do
            regions.append(self._next_tile(w, h))
        if not regions:
            self.last = FrameWork("still", 0.0)
            return self.known
        crops = _merge([(inner, _box(*_grow(inner, margin), cfg.cell_px, w, h)) for inner in regions])
        share = sum((x1 - x0) * (y1 - y0) for _, (x0, y0, x1, y1) in crops) / float(w * h)
        if share > cfg.full_share:
            return self._full(frame, small)
        markers = self.known
        for inner, crop in crops:
            markers = self._redetect(frame, inner, crop, markers)
            # The picture there is settled now: later frames are compared with this one.
            cx0, cy0, cx1, cy1 = (v // cfg.cell_px for v in inner)
            self.reference[cy0:cy1, cx0:cx1] = small[cy0:cy1, cx0:cx1]
        self.known = _sorted(markers)
        self.last = FrameWork("regions", share, [crop for _, crop in crops], background)
        return self._visible(frame, self.known, moving, changed)

    def _grid(self, frame: np.ndarray) -> np.ndarray:
        """The cells `detect` compares (`_cells`): a subclass may give another picture's (the record's reader: the
        frame's brought back to where a trembling camera stood, vision/record_reader.py)."""
        return _cells(frame, self.config.cell_px)

    def _anchors_moved(self, changed: np.ndarray) -> bool:
        """Half or more of the anchors in view (two at least) changed at once: the camera moved, not a hand. The
        anchors' cells are worked out once per list of known markers (not every frame: a tenth of a still frame's
        cost)."""
        key = (self.known, changed.shape)
        if self._boxes_of is None or self._boxes_of[0] is not self.known or self._boxes_of[1] != changed.shape:
            cell = self.config.cell_px
            rows, cols = changed.shape
            corners = np.array([m.corners for m in self.known if m.id in self.anchor_ids]).reshape(-1, 4, 2)
            lo = np.clip(np.floor_divide(corners.min(axis=1), cell), 0, (cols, rows)).astype(int)
            hi = np.clip(np.floor_divide(corners.max(axis=1), cell) + 1, 0, (cols, rows)).astype(int)
            self._boxes = [(int(a[1]), int(b[1]), int(a[0]), int(b[0])) for a, b in zip(lo, hi, strict=True)]
            self._boxes_of = key
        touched = [bool(changed[r0:r1, c0:c1].any()) for r0, r1, c0, c1 in self._boxes]
        return sum(touched) >= max(2, (len(touched) + 1) // 2)

    def _visible(self, frame: np.ndarray, markers: list[MarkerDetection], moving: np.ndarray | None,
                 changed: np.ndarray) -> list[MarkerDetection]:
        """`markers`, but those whose centre lies in a cell still changing (grown by a marker's reach) and changed
        since it settled only if they are still seen there: corners measured again from the edges and the code
        read (`track_markers`, no search). A hand over a marker hides it; a marker beside a moving hand (its own
        cell as it was), or in a flicker of light, stays."""
        if moving is None or not moving.any():
            return markers
        cell = self.config.cell_px
        rows, cols = moving.shape
        centre = _centres(markers)
        r = np.clip((centre[:, 1] // cell).astype(int), 0, rows - 1)
        c = np.clip((centre[:, 0] // cell).astype(int), 0, cols - 1)
        under = moving[r, c] & changed[r, c]
        steady = [m for m, u in zip(markers, under, strict=True) if not u]
        unsure = [m for m, u in zip(markers, under, strict=True) if u]
        if not unsure:
            return markers
        return _sorted(steady + track_markers(frame, unsure, self.dictionary))

    def _bumped(self, frame: np.ndarray, small: np.ndarray) -> list[MarkerDetection]:
        """The anchors moved together: the camera was knocked. Its markers are looked for again around their
        places (`rebase`), and the picture compared from now on is the knocked view; a full scan when that fails,
        and when the camera moved at the frame before too (still shaking: the cheap way is for one knock)."""
        moving, self.camera_moving = self.camera_moving, True
        found = None
        if self.config.rebase and self.rebase is not None and not moving:
            # how far the view moved as a whole, from the cells (to a px or two): where to look first
            # (copies: OpenCV 5's phaseCorrelate applies the window to its inputs in place)
            (dx, dy), _ = cv2.phaseCorrelate(self.reference.copy(), small.copy(), self._window(small.shape))
            found = self.rebase(frame, self.known, (dx * self.config.cell_px, dy * self.config.cell_px))
        if found is None:
            return self._full(frame, small)
        self.known, share = _sorted(found[0]), found[1]
        self.reference = small
        self.last = FrameWork("bump", share)
        return self.known

    def _window(self, shape: tuple[int, ...]) -> np.ndarray:
        """A Hann window of the cells' shape (the picture's borders do not count as an edge moving)."""
        if self._hann is None or self._hann.shape != shape:
            self._hann = cv2.createHanningWindow((shape[1], shape[0]), cv2.CV_32F)
        return self._hann

    def _full(self, frame: np.ndarray, small: np.ndarray) -> list[MarkerDetection]:
        self.known = detect_markers(frame, self.dictionary)
        self.reference = small
        self.last = FrameWork("full", 1.0)
        return self.known

    def _reach(self) -> tuple[int, int]:
        """(reach, margin) px from the largest marker's side: a changed cell concerns every marker whose centre is
        within `reach` of it (three quarters of a side: any marker it touches), and a marker is read in a crop
        reaching `margin` beyond its centre's region (its half-diagonal, quiet zone and edge search)."""
        if self._side_of is not self.known:  # measured once per new list of markers
            corners = np.array([m.corners for m in self.known]).reshape(-1, 4, 2)
            sides = np.linalg.norm(corners - np.roll(corners, 1, axis=1), axis=2)
            self._side = float(sides.max()) if len(corners) else self.config.marker_px
            self._side_of = self.known
        side = self._side
        return int(np.ceil(0.75 * side)) + self.config.cell_px, int(np.ceil(side)) + self.config.cell_px

    def _tile_grid(self, w: int, h: int) -> tuple[int, int]:
        """The background scan's columns and rows for a w x h px frame: `refresh_tiles`, or as many more in the
        same proportion as keep a tile within `refresh_tile_px`."""
        cols, rows = self.config.refresh_tiles
        grow = np.sqrt(w * h / (cols * rows) / max(self.config.refresh_tile_px, 1))
        if grow > 1.0:
            cols, rows = int(np.ceil(cols * grow)), int(np.ceil(rows * grow))
        return cols, rows

    def _next_tile(self, w: int, h: int) -> tuple[int, int, int, int]:
        cols, rows = self._tile_grid(w, h)
        c, r = self.tile % cols, (self.tile // cols) % rows
        self.tile += 1
        return _box(c * w // cols, r * h // rows, (c + 1) * w // cols, (r + 1) * h // rows, self.config.cell_px, w, h)

    def _redetect(self, frame: np.ndarray, inner: tuple[int, int, int, int], crop: tuple[int, int, int, int],
                  markers: Sequence[MarkerDetection]) -> list[MarkerDetection]:
        """`markers` with those whose centre lies in `inner` replaced by what a detection in `crop` (`inner` and
        a margin) finds there; one found with its centre in the margin belongs to another region, or to none and
        then it did not change."""
        x0, y0, x1, y1 = crop
        found = detect_markers(frame[y0:y1, x0:x1], self.dictionary, frame_side_px=max(frame.shape[:2]))
        shifted = [MarkerDetection(m.id, m.corners + (x0, y0)) for m in found]
        return ([m for m, k in zip(markers, _inside(markers, inner), strict=True) if not k]
                + [m for m, k in zip(shifted, _inside(shifted, inner), strict=True) if k])


def _centres(markers: Sequence[MarkerDetection]) -> np.ndarray:
    """The markers' centres (N, 2) px, all at once: a mean per marker costs ~10 us, a hundred markers every frame."""
    return np.array([m.corners for m in markers]).reshape(-1, 4, 2).mean(axis=1)


def _inside(markers: Sequence[MarkerDetection], box: tuple[int, int, int, int]) -> np.ndarray:
    """For each marker whether its centre lies in `box` (x0, y0, x1, y1 px, the end exclusive): all at once, not
    one marker at a time (a hundred markers, every region of every frame)."""
    if not markers:
        return np.zeros(0, bool)
    x, y = _centres(markers).T
    return (box[0] <= x) & (x < box[2]) & (box[1] <= y) & (y < box[3])


def _cells(frame: np.ndarray, cell: int) -> np.ndarray:
    """The frame's grey level per cell x cell px (float32): shrunk first, converted to grey after (cheaper). Not
    the mean of all its pixels: a bilinear shrink to twice the cells (4 of every cell/2 x cell/2 px) and then the
    mean of 2 x 2 (16 px of a cell of 64, the sensor's noise down to under a grey level) costs a quarter of
    INTER_AREA's full mean on a 4K frame."""
    h, w = frame.shape[:2]
    size = (max(w // cell, 1), max(h // cell, 1))
    if cell >= 4 and cell % 2 == 0:
        frame = cv2.resize(frame, (2 * size[0], 2 * size[1]), interpolation=cv2.INTER_LINEAR)
    return _cell_means(frame, size)


def _cell_means(picked: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`picked` (the points read of each cell, BGR or grey) averaged down to `size` (cols, rows) cells, grey,
    float32: the last step of `_cells` (and of the record's reader's cells read through a map)."""
    return to_gray(cv2.resize(picked, size, interpolation=cv2.INTER_AREA)).astype(np.float32)


Box = tuple[int, int, int, int]  # x0, y0, x1, y1 px, the end exclusive


def _grow(box: Box, by: int) -> Box:
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def _box(x0: int, y0: int, x1: int, y1: int, cell: int, w: int, h: int) -> Box:
    """A box clipped to the frame, its edges on cell boundaries (outward)."""
    x0, y0 = max(0, x0 // cell * cell), max(0, y0 // cell * cell)
    x1, y1 = min(w, -(-x1 // cell) * cell), min(h, -(-y1 // cell) * cell)
    return int(x0), int(y0), int(x1), int(y1)


def _grown(cells: np.ndarray, cell: int, reach: int) -> np.ndarray:
    """The cells within `reach` px of a True cell."""
    if not cells.any():
        return cells
    grow = 2 * (-(-reach // cell)) + 1
    return cv2.dilate(cells.astype(np.uint8), np.ones((grow, grow), np.uint8)).astype(bool)


def _regions(changed: np.ndarray, cell: int, reach: int, w: int, h: int) -> list[Box]:
    """Boxes (px) around each group of changed cells, grown by `reach` px."""
    if not changed.any():
        return []
    grow = 2 * (-(-reach // cell)) + 1
    mask = cv2.dilate(changed.astype(np.uint8), np.ones((grow, grow), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return [_box(int(x) * cell, int(y) * cell, int(x + bw) * cell, int(y + bh) * cell, cell, w, h)
            for x, y, bw, bh, _ in stats[1:n]]


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _union(a: Box, b: Box) -> Box:
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _merge(pairs: list[tuple[Box, Box]]) -> list[tuple[Box, Box]]:
    """(inner, crop) pairs whose crops overlap replaced by their unions, until no crops overlap: a marker
    between two regions is read once, whole."""
    pairs = list(pairs)
    i = 0
    while i < len(pairs):
        for j in range(i + 1, len(pairs)):
            if _overlap(pairs[i][1], pairs[j][1]):
                (ai, ac), (bi, bc) = pairs[i], pairs.pop(j)
                pairs[i] = (_union(ai, bi), _union(ac, bc))
                i = -1  # start again: the union may overlap earlier crops
                break
        i += 1
    return pairs


def _sorted(markers: Sequence[MarkerDetection]) -> list[MarkerDetection]:
    """As detect_markers sorts them: by id, then top to bottom, then left to right."""
    if not markers:
        return []
    centre = _centres(markers)
    order = np.lexsort((centre[:, 0], centre[:, 1], np.array([m.id for m in markers])))
    return [markers[k] for k in order]


STILL_ANCHOR_PX = 1.0
"""Anchors found again all within this of where they were did not move with a knocked camera (a knock of 3 px and
0.2 degrees moves them by several px)."""


def find_near(frame: np.ndarray, near: Sequence[MarkerDetection], dictionary: str, pad_sides: float
              ) -> tuple[list[MarkerDetection], float]:
    """The markers of `near` detected again, each only in a box around its corners there grown by `pad_sides` of
    its side (+ 8 px): a marker moved by a knocked camera, or one whose new place was predicted. Crops that overlap
    are read once, as one; a detection counts only with the id it is looked for with and its centre in that
    marker's box. Returns them sorted like `detect_markers`, and the share of the frame's pixels read."""
    if not near:
        return [], 0.0
    h, w = frame.shape[:2]
    corners = np.array([m.corners for m in near], dtype=np.float64).reshape(-1, 4, 2)
    pads = pad_sides * mean_side_px(corners) + 8.0
    lo, hi = corners.min(axis=1) - pads[:, None], corners.max(axis=1) + pads[:, None]
    boxes = [_box(int(a[0]), int(a[1]), int(np.ceil(b[0])) + 1, int(np.ceil(b[1])) + 1, 1, w, h)
             for a, b in zip(lo, hi, strict=True)]
    crops = _merge([(b, b) for b in boxes if b[2] > b[0] + 1 and b[3] > b[1] + 1])
    ids = np.array([m.id for m in near])
    found = []
    for _, (x0, y0, x1, y1) in crops:
        for m in detect_markers(frame[y0:y1, x0:x1], dictionary, frame_side_px=max(h, w)):
            c = m.corners + (x0, y0)
            x, y = c.mean(axis=0)
            if ((ids == m.id) & (lo[:, 0] <= x) & (x <= hi[:, 0]) & (lo[:, 1] <= y) & (y <= hi[:, 1])).any():
                found.append(MarkerDetection(m.id, c))
    share = sum((x1 - x0) * (y1 - y0) for _, (x0, y0, x1, y1) in crops) / float(w * h)
    return _sorted(found), share


def rebase_markers(frame: np.ndarray, known: Sequence[MarkerDetection], registration: TableRegistration,
                   roster: Roster, shift_px: tuple[float, float] = (0.0, 0.0),
                   pad_sides: tuple[float, float] = (1.0, 3.0)) -> tuple[list[MarkerDetection], float] | None:
    """A knocked camera's markers without a full scan: `known` (the markers before the knock, fitted to
    `registration.pose`) looked for again where the knock moved them. Returns them and the share of the frame read,
    or None when a full scan is needed (too few anchors found, or no pose fits them).

    1. The anchors are looked for where the view's shift (`shift_px`, estimated from the whole picture) moved
       them: their corners measured there and their codes read (`track_markers`, no search); when fewer than half
       of them (MIN_ANCHORS at least) are found so, the others are detected in boxes around those places
       (`find_near`, `pad_sides[0]` of a side, then `pad_sides[1]`): a knock moves them a few px to tens of px.
       Half of them must be found, and one at least moved by STILL_ANCHOR_PX (else hands over them changed their
       cells, the camera did not move, and a full scan reads whatever else changed).
    2. The new pose is fitted to them (`estimate_pose`, with the registration's lens; within its
       `max_reprojection_px`). The registration itself is not updated: `read_table` does that with the result.
    3. Every other marker's corners are cast onto the table at its piece's marker height (an unknown id at the
       cloth's) with the old pose and projected with the new one (an anchor not found yet: its printed corners);
       it is kept where its corners are measured again and its code read there (`track_markers`), else looked
       for in boxes around that place (`find_near`, the wider pad); a marker found nowhere near is left out (a
       hand took it during the knock).
    Usable for any stream of one camera that knows its registration (the recorder as well as `LiveReader`)."""
    layout, lens, before = registration.layout, registration.lens, registration.pose
    anchors = [m for m in known if m.id in layout.anchor_ids]
    need = max(MIN_ANCHORS, (len(anchors) + 1) // 2)
    if before is None or len(anchors) < need:
        return None
    frame = to_gray(frame)  # once for every search below, not once each (a 4K frame: ~10 ms each)
    found, share = _anchors_again(frame, anchors, shift_px, layout.dictionary, need, pad_sides)
    if len({m.id for m in found}) < need:
        return None
    old = {m.id: m.corners for m in anchors}
    if max(np.abs(m.corners - old[m.id]).max() for m in found) < STILL_ANCHOR_PX:
        return None  # the anchors did not move: hands over them, not a knock; a full scan reads what changed
    after = estimate_pose({m.id: m.corners for m in found}, layout, lens)
    if after is None or after.reprojection_px > registration.max_reprojection_px:
        return None
    # The anchors not found yet where the new pose puts their printed corners; the other markers where it puts
    # the table points the old pose gave their corners.
    unseen = [i for i in old if i not in {m.id for m in found}]
    predicted = [MarkerDetection(i, table_to_pixels(layout.anchor(i).corners_mm(), lens, after)) for i in unseen]
    others = [m for m in known if m.id not in layout.anchor_ids]
    if others:
        pieces = roster.by_marker()
        heights = np.repeat([pieces[m.id].marker_height_mm if m.id in pieces else 0.0 for m in others], 4)
        table = pixels_to_table(np.concatenate([m.corners for m in others]), lens, before, heights)
        px = table_to_pixels(np.column_stack([table, heights]), lens, after).reshape(-1, 4, 2)
        predicted += [MarkerDetection(m.id, c) for m, c in zip(others, px, strict=True) if np.isfinite(c).all()]
    seen = track_markers(frame, predicted, layout.dictionary)
    lost = [m for m, t in zip(predicted, _retracked(predicted, seen), strict=True) if not t]
    wider, extra = find_near(frame, lost, layout.dictionary, pad_sides[1])
    return found + seen + wider, share + extra


def _anchors_again(frame: np.ndarray, anchors: list[MarkerDetection], shift_px: tuple[float, float],
                   dictionary: str, need: int, pad_sides: tuple[float, float]) -> tuple[list[MarkerDetection], float]:
    """`anchors` found again after a knock: tracked where the view's shift moved them; when fewer than `need` are,
    the others detected in boxes around those places, `pad_sides[0]` and then `pad_sides[1]` of a side out.
    Returns them and the share of the frame searched."""
    shifted = [MarkerDetection(m.id, m.corners + shift_px) for m in anchors]
    found, share = track_markers(frame, shifted, dictionary), 0.0
    for pad in pad_sides:
        if len(found) >= need:
            break
        missing = [m for m, t in zip(shifted, _retracked(shifted, found), strict=True) if not t]
        more, extra = find_near(frame, missing, dictionary, pad)
        found, share = _sorted(found + more), share + extra
    return found, share


def _retracked(predicted: Sequence[MarkerDetection], seen: Sequence[MarkerDetection]) -> list[bool]:
    """For each predicted marker whether one of `seen` is it: the same id, its centre within a side (4 px at
    least) of the predicted centre."""
    if not seen or not predicted:
        return [False] * len(predicted)
    ids = np.array([m.id for m in seen])
    centres = np.array([m.corners for m in seen]).mean(axis=1)
    corners = np.array([m.corners for m in predicted], dtype=np.float64)
    reach = np.maximum(mean_side_px(corners), 4.0)
    dist = np.linalg.norm(corners.mean(axis=1)[:, None] - centres[None], axis=2)
    same = np.array([m.id for m in predicted])[:, None] == ids[None]
    return [bool(v) for v in ((dist <= reach[:, None]) & same).any(axis=1)]


class LiveReader:
    """`read(frame)` -> TableReading for consecutive frames of one camera, re-detecting only what changed.

    The table pose is re-fitted only when an anchor's corners moved (by more than `anchor_px` since the pose was
    fitted) or the anchors in view changed: on a still table, or with a hand over the pieces, the pose stands.
    With the anchors and the pieces in two dictionaries every frame is read in full (`read_table`)."""

    def __init__(self, registration: TableRegistration, roster: Roster, config: ChangeConfig | None = None):
        self.registration = registration
        self.roster = roster
        layout = registration.layout
        same = roster.dictionary == layout.dictionary
        self.detector = ChangeDetector(layout.dictionary, config, layout.anchor_ids) if same else None
        if self.detector is not None:
            pads = self.detector.config.bump_pad
            self.detector.rebase = lambda frame, known, shift: rebase_markers(
                frame, known, self.registration, self.roster, shift, pads)
        self._anchors: dict[int, np.ndarray] | None = None
        self._last: TableReading | None = None
        # Anchors read again (a background tile, a hand nearby) whose corners moved less than this stand still:
        # the sensor's noise moves a measured corner by some hundredths of a px, a knocked camera by px.
        self.anchor_px = 0.25

    def reset(self, registration: TableRegistration | None = None) -> None:
        """Start again with a full scan (and a new registration when the camera changed)."""
        if registration is not None:
            self.registration = registration
        if self.detector is not None:
            self.detector.reset()
        self._anchors = None
        self._last = None

    @property
    def work(self) -> FrameWork:
        return self.detector.last if self.detector is not None else FrameWork("full", 1.0)

    def adopt(self, reading: TableReading) -> None:
        """Go on from `reading` as the last frame's: its pieces placed again with a lens chosen for the stream and the
        pose fitted again with it (vision/table_lens.py `StreamLens`; the registration holds both)."""
        if self.detector is not None and self._last is not None:
            self._last = reading

    def read(self, frame: np.ndarray) -> TableReading:
        if self.detector is None:
            return read_table(frame, self.registration, self.roster)
        markers = self.detector.detect(frame)
        if self.detector.last.kind == "still" and self._last is not None:
            return self._last  # nothing re-detected: the same markers, the same pose, the same pieces
        anchor_ids = self.registration.layout.anchor_ids
        anchors = {m.id: m.corners for m in markers if m.id in anchor_ids}
        pose = self.registration.pose
        if pose is None or not _put(anchors, self._anchors, self.anchor_px):
            reading = read_table(frame, self.registration, self.roster, markers)
            self._anchors = anchors  # the corners the pose was fitted to
        else:  # the anchors stood still, and so did the camera: the pose stands
            reading = self._locate(markers, pose)
        self._last = reading
        return reading

    def _locate(self, markers: list[MarkerDetection], pose) -> TableReading:
        """The reading of `markers` with the standing `pose`: only markers not seen last frame (new objects) are
        located again; the others keep their piece poses."""
        layout = self.registration.layout
        last = self._last
        twice = max(Counter(m.id for m in markers).values(), default=0) > 1
        if last is None or last.pose is not pose or last.conflicts or twice:  # (conflicts are rare)
            pieces, unknown, conflicts = locate_pieces(markers, self.roster, layout, self.registration.lens, pose)
            return TableReading(pose, tuple(pieces), tuple(unknown), tuple(conflicts), tuple(markers))
        old = {id(m) for m in last.markers}
        fresh = [m for m in markers if id(m) not in old]
        kept_ids = {m.id for m in markers if id(m) in old}
        new_pieces, new_unknown, _ = locate_pieces(fresh, self.roster, layout, self.registration.lens, pose)
        pieces = [p for p in last.pieces if p.marker in kept_ids] + new_pieces
        pieces.sort(key=lambda p: p.piece)
        unknown = sorted({i for i in last.unknown if i in kept_ids} | set(new_unknown))
        return TableReading(pose, tuple(pieces), tuple(unknown), last.conflicts, tuple(markers))


def _put(now: dict[int, np.ndarray], then: dict[int, np.ndarray] | None, tolerance_px: float) -> bool:
    """The same anchors in view as when the pose was fitted, none of their corners moved by `tolerance_px`."""
    if then is None or now.keys() != then.keys():
        return False
    return all(now[k] is then[k] or np.abs(now[k] - then[k]).max() <= tolerance_px for k in now)
