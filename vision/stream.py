"""Marker detection over a video stream: look again only where the picture changed.

A game table is still most of the time: between two moves nothing changes but a hand. `ChangeDetector` compares
each frame with the last settled picture at low resolution (cells of `cell_px` px, grey means) and re-detects
markers only in the regions that changed, padded by a marker's size; every marker outside them is kept as it was
(its pixels did not change, so neither did its corners). A region still changing from one frame to the next (a
hand in motion) is read once it has settled; meanwhile its markers count as seen only where their corners and
code are found again (`track_markers`: a hand over one hides it, one beside the hand stays). A
full scan runs at the start, when much of the picture changed at once (the light) or half the anchors did (a
bumped camera); and, spread over the frames, on a slow background schedule:
one tile of the frame is re-detected on every `refresh_every`-th frame that has nothing else to read, so no frame
pays for a whole scan.

`LiveReader` puts it in front of `read_table`: the table pose is kept while the anchors' corners stay put (no
registration on a still frame) and fitted again as soon as an anchor is re-detected anywhere else (a bumped camera
heals at its next frame).

`StreamDetector`, the older scheme (last frame's markers tracked, a full scan every `full_every` frames), stays for
sources whose every frame moves (a hand-held camera).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.registration import TableRegistration
from vision.markers import MarkerDetection, detect_markers, track_markers
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
    refresh_tiles: tuple[int, int] = (12, 6)  # the background scan: the frame in columns x rows of tiles ...
    refresh_every: int = 2  # ... and one tile re-detected every this many frames when nothing changed (a whole
    # pass in 144 still frames, 5 s at 30 fps); a frame with changes to read does no background work
    marker_px: float = 40.0  # the largest marker's side before any was seen (then measured)
    settle: bool = True  # read a changed region once it stopped changing; meanwhile its markers are tracked


@dataclass
class FrameWork:
    """What `ChangeDetector.detect` did for one frame: 'full', 'regions', 'moving' (nothing re-detected, a region
    still in motion) or 'still' (nothing re-detected), the share of the frame's pixels it re-detected (a full scan
    is 1.0), and the regions (x0, y0, x1, y1 px)."""

    kind: str
    share: float
    regions: list[tuple[int, int, int, int]] = field(default_factory=list)


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

    def reset(self) -> None:
        """Forget what was seen: the next frame gets a full scan (a camera change, a jump in a video)."""
        self.reference = None
        self.previous = None
        self.known = []

    def detect(self, frame: np.ndarray) -> list[MarkerDetection]:
        cfg = self.config
        h, w = frame.shape[:2]
        small = _cells(frame, cfg.cell_px)
        self.frames += 1
        previous, self.previous = self.previous, small
        if self.reference is None or self.reference.shape != small.shape or previous is None:
            return self._full(frame, small)
        changed = np.abs(small - self.reference) >= cfg.threshold
        if changed.mean() > cfg.full_share or self._anchors_moved(changed):
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
        if not regions and self.frames % cfg.refresh_every == 0:  # a frame with nothing else to do
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
        self.last = FrameWork("regions", share, [crop for _, crop in crops])
        return self._visible(frame, self.known, moving, changed)

    def _anchors_moved(self, changed: np.ndarray) -> bool:
        """Half or more of the anchors in view (two at least) changed at once: the camera moved, not a hand."""
        cell = self.config.cell_px
        rows, cols = changed.shape
        touched = []
        for m in self.known:
            if m.id not in self.anchor_ids:
                continue
            (x0, y0), (x1, y1) = m.corners.min(axis=0) // cell, m.corners.max(axis=0) // cell + 1
            r0, r1 = int(np.clip(y0, 0, rows)), int(np.clip(y1, 0, rows))
            c0, c1 = int(np.clip(x0, 0, cols)), int(np.clip(x1, 0, cols))
            touched.append(bool(changed[r0:r1, c0:c1].any()))
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
        steady, unsure = [], []
        for m in markers:
            x, y = m.corners.mean(axis=0)
            r, c = min(max(int(y // cell), 0), rows - 1), min(max(int(x // cell), 0), cols - 1)
            (unsure if moving[r, c] and changed[r, c] else steady).append(m)
        if not unsure:
            return markers
        return _sorted(steady + track_markers(frame, unsure, self.dictionary))

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

    def _next_tile(self, w: int, h: int) -> tuple[int, int, int, int]:
        cols, rows = self.config.refresh_tiles
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
        ix0, iy0, ix1, iy1 = inner

        def inside(c: np.ndarray) -> bool:
            x, y = c.mean(axis=0)
            return ix0 <= x < ix1 and iy0 <= y < iy1

        shifted = [MarkerDetection(m.id, m.corners + (x0, y0)) for m in found]
        return [m for m in markers if not inside(m.corners)] + [m for m in shifted if inside(m.corners)]


def _cells(frame: np.ndarray, cell: int) -> np.ndarray:
    """The frame's grey level per cell x cell px (float32): shrunk first, converted to grey after (cheaper). Not
    the mean of all its pixels: a bilinear shrink to twice the cells (4 of every cell/2 x cell/2 px) and then the
    mean of 2 x 2 (16 px of a cell of 64, the sensor's noise down to under a grey level) costs a quarter of
    INTER_AREA's full mean on a 4K frame."""
    h, w = frame.shape[:2]
    size = (max(w // cell, 1), max(h // cell, 1))
    if cell >= 4 and cell % 2 == 0:
        frame = cv2.resize(frame, (2 * size[0], 2 * size[1]), interpolation=cv2.INTER_LINEAR)
    small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    if small.ndim == 3:
        small = cv2.cvtColor(small, cv2.COLOR_BGRA2GRAY if small.shape[2] == 4 else cv2.COLOR_BGR2GRAY)
    return small.astype(np.float32)


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
    centre = np.array([m.corners for m in markers]).mean(axis=1)
    order = np.lexsort((centre[:, 0], centre[:, 1], np.array([m.id for m in markers])))
    return [markers[k] for k in order]


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
        self.detector = ChangeDetector(layout.dictionary, config, frozenset(layout.anchor_ids)) if same else None
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

    def read(self, frame: np.ndarray) -> TableReading:
        if self.detector is None:
            return read_table(frame, self.registration, self.roster)
        markers = self.detector.detect(frame)
        if self.detector.last.kind == "still" and self._last is not None:
            return self._last  # nothing re-detected: the same markers, the same pose, the same pieces
        layout = self.registration.layout
        anchors = {m.id: m.corners for m in markers if m.id in layout.anchor_ids}
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
