"""Where a picture's labels go on the screen: the one label placer of the drawing language (rules/picture.py), used
by the dashboard, the PNG/MP4 exports and the HTML pages alike. Pure functions over boxes in screen pixels; no
toolkit, no text measuring of its own (the renderer measures each text in its own font).

Each label wants to stand beside what it names (a piece's outline, a point) without covering another label, a
piece's outline or what else the renderer draws (anchors, a caption), inside the view. It is tried beside its
subject first (below, above, right, left, the corners), with its full text and then its short one; where neither
fits it is moved further out with a leader line back to its subject; where nothing fits it is left out (the labels
thin out as the view zooms out) unless it must be shown (the selected piece's). Labels are placed in order of
priority, so the more important keeps its place and the others make way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Point = tuple[float, float]
Box = tuple[float, float, float, float]
"""left, top, right, bottom in screen pixels (y down)."""

GAP_PX = 2.0
"""The least space kept between a label and anything else."""

RINGS = (0.0, 1.0, 2.0, 3.0)
"""How far out a label is tried beyond its subject (0: touching it, no leader), in steps of its own height or of
its subject's size, the larger (out of a block of bases, not only off its own)."""

MUST_RINGS = (*RINGS, 4.5, 6.0, 8.0, 11.0)
"""The same for a label that must be shown: further out before it is placed over something."""


@dataclass(frozen=True)
class Want:
    """One label to place: `sizes` the box (width, height) of each of its texts, fullest first; `around` the box of
    its subject (its piece's outline), or None for a point label about `anchor`; `first` the top-left its system
    asked for, tried before the rest; `fixed` only there (a title, a caption: never moved, never left out);
    `must`: never left out; `near_only`: beside its subject or left out; higher `priority` placed earlier."""

    anchor: Point
    sizes: tuple[tuple[float, float], ...]
    around: Box | None = None
    first: Point | None = None
    priority: float = 0.0
    must: bool = False
    fixed: bool = False
    near_only: bool = False  # near its subject (at most one ring out) or not at all: never with a leader line
    within: Box | None = None  # the box of the area it names: it may stand anywhere inside, nearest its point first


@dataclass(frozen=True)
class Spot:
    """Where a label went: its `box` (None: left out), which of its texts (`text`, an index into `Want.sizes`) and
    the leader line from its subject to the box (None where it stands beside its subject)."""

    box: Box | None
    text: int = 0
    leader: tuple[Point, Point] | None = None


def overlaps(a: Box, b: Box, gap: float = 0.0) -> bool:
    """Whether two boxes come closer than `gap` (touching edges do not overlap)."""
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def inside(a: Box, bounds: Box) -> bool:
    return a[0] >= bounds[0] and a[1] >= bounds[1] and a[2] <= bounds[2] and a[3] <= bounds[3]


def bbox(points: Iterable[Sequence[float]]) -> Box:
    xs, ys = zip(*((float(p[0]), float(p[1])) for p in points), strict=True)
    return min(xs), min(ys), max(xs), max(ys)


def hull(points: Iterable[Sequence[float]]) -> list[Point]:
    """The convex hull of points (Andrew's monotone chain), counter-clockwise in y-up terms."""
    pts = sorted({(float(p[0]), float(p[1])) for p in points})
    if len(pts) <= 2:
        return pts

    def turn(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[Point] = []
    for p in pts:
        while len(lower) >= 2 and turn(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[Point] = []
    for p in reversed(pts):
        while len(upper) >= 2 and turn(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


class Shape:
    """Something a label keeps off: a convex outline (the hull of a piece's outline, an anchor) or a box, with what
    the separating-axis test needs made once."""

    __slots__ = ("box", "axes")

    def __init__(self, points: Iterable[Sequence[float]] | None = None, box: Box | None = None):
        if box is not None:
            self.box, self.axes = tuple(map(float, box)), ()
            return
        h = hull(points)
        self.box = bbox(h)
        axes = []
        for i, (x0, y0) in enumerate(h):  # each edge's normal, with the outline's extent along it
            x1, y1 = h[(i + 1) % len(h)]
            nx, ny = y0 - y1, x1 - x0
            n = math.hypot(nx, ny)
            if n < 1e-9 or abs(nx) < 1e-9 * n or abs(ny) < 1e-9 * n:
                continue  # an edge along an axis: the box test covers it
            nx, ny = nx / n, ny / n
            proj = [x * nx + y * ny for x, y in h]
            axes.append((nx, ny, min(proj), max(proj)))
        self.axes = tuple(axes)

    def hits(self, b: Box, gap: float) -> bool:
        """Whether box `b` comes closer than `gap` to this shape."""
        if not overlaps(self.box, b, gap):
            return False
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        hw, hh = (b[2] - b[0]) / 2 + gap, (b[3] - b[1]) / 2 + gap
        for nx, ny, lo, hi in self.axes:
            c = cx * nx + cy * ny
            r = hw * abs(nx) + hh * abs(ny)
            if c + r <= lo or c - r >= hi:
                return False
        return True


class _Index:
    """Shapes and placed boxes by the cells of a coarse grid they cover: a box is tested only against its
    neighbours. A shape can be taken out again (the next frame's placement starts from this one's index)."""

    def __init__(self, cell: float = 48.0):
        self.cell = cell
        self.cells: dict[tuple[int, int], list[int]] = {}
        self.shapes: list[Shape | None] = []
        self.dead = 0

    def add(self, shape: Shape) -> int:
        k = len(self.shapes)
        self.shapes.append(shape)
        c, b = self.cell, shape.box
        cells = self.cells
        for i in range(math.floor(b[0] / c), math.floor(b[2] / c) + 1):
            for j in range(math.floor(b[1] / c), math.floor(b[3] / c) + 1):
                got = cells.get((i, j))
                if got is None:
                    cells[(i, j)] = [k]
                else:
                    got.append(k)
        return k

    def remove(self, k: int) -> None:
        if self.shapes[k] is not None:
            self.shapes[k] = None
            self.dead += 1

    def near(self, b: Box, gap: float) -> list[Shape]:
        """The shapes in the cells `b` (grown by `gap`) covers."""
        c = self.cell
        cells, shapes = self.cells, self.shapes
        i0, i1 = math.floor((b[0] - gap) / c), math.floor((b[2] + gap) / c)
        j0, j1 = math.floor((b[1] - gap) / c), math.floor((b[3] + gap) / c)
        if i0 == i1 and j0 == j1:
            return [s for k in cells.get((i0, j0), ()) if (s := shapes[k]) is not None]
        ks: set[int] = set()
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                got = cells.get((i, j))
                if got:
                    ks.update(got)
        return [s for k in ks if (s := shapes[k]) is not None]

    def hits(self, b: Box, gap: float) -> bool:
        x0, y0, x1, y1 = b[0] - gap, b[1] - gap, b[2] + gap, b[3] + gap
        for s in self.near(b, gap):
            o = s.box
            if x0 < o[2] and o[0] < x1 and y0 < o[3] and o[1] < y1 and (not s.axes or s.hits(b, gap)):
                return True
        return False

    def cost(self, b: Box, gap: float) -> float:
        """How much of `b` the shapes cover (their boxes', roughly): to choose the least bad place."""
        total = 0.0
        for s in self.near(b, gap):
            if s.hits(b, gap):
                o = s.box
                total += max(0.0, min(b[2], o[2]) - max(b[0], o[0])) * max(0.0, min(b[3], o[3]) - max(b[1], o[1]))
        return total


def _candidates(around: Box, w: float, h: float, d: float, gap: float):
    """Top-left corners of a w x h box all around `around`, `d` beyond a `gap`: below, above, right, left (each
    centred, then aligned with either end), then the four corners."""
    x0, y0, x1, y1 = around
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    e = gap + d
    below, above = y1 + e, y0 - e - h
    right, left = x1 + e, x0 - e - w
    yield cx - w / 2, below
    yield cx - w / 2, above
    yield right, cy - h / 2
    yield left, cy - h / 2
    yield x0, below
    yield x1 - w, below
    yield x0, above
    yield x1 - w, above
    yield right, y0
    yield right, y1 - h
    yield left, y0
    yield left, y1 - h
    yield right, below
    yield left, below
    yield right, above
    yield left, above


def _leader(around: Box, b: Box) -> tuple[Point, Point]:
    """From the subject's edge to the label's, along the shortest way between the two boxes."""
    cx, cy = (around[0] + around[2]) / 2, (around[1] + around[3]) / 2
    px, py = min(max(cx, b[0]), b[2]), min(max(cy, b[1]), b[3])  # the label's point nearest the subject's centre
    qx, qy = min(max(px, around[0]), around[2]), min(max(py, around[1]), around[3])
    return (qx, qy), (px, py)


@dataclass
class Placement:
    """The spots of one `place`, kept so that the next one (the view's next frame) starts from them: a label whose
    want is the same and whose box is still clear stays where it was, one left out stays out unless something near
    it changed, and only the others are looked for again. Labels then do not jump about as a piece moves, and a frame
    with one piece moved places few labels anew: the next placement takes this one's index and changes only what
    changed in it."""

    spots: list[Spot]
    by_key: dict = None  # key -> (Want, Spot, the index's numbers of its box and leader)
    obstacles: dict = None  # id(shape) -> (shape, its number in the index)
    bounds: Box | None = None
    searched: int = 0  # labels looked for anew (the others kept their spot)
    index: _Index | None = None
    gap: float = GAP_PX


def _step(around: Box, h: float, gap: float) -> float:
    """One ring further out: a label's height, or its subject's smaller side where that is larger."""
    return max(h + gap, min(around[2] - around[0], around[3] - around[1]))


def _sees(bounds: Box | None, p: Point) -> bool:
    return bounds is not None and bounds[0] <= p[0] <= bounds[2] and bounds[1] <= p[1] <= bounds[3]


def _reach(want: Want, gap: float) -> Box:
    """The box a label's candidates can cover."""
    ax, ay = want.anchor
    a = want.around or (ax, ay, ax, ay)
    if want.within is not None:
        a = (min(a[0], want.within[0]), min(a[1], want.within[1]), max(a[2], want.within[2]), max(a[3], want.within[3]))
    w = max(s[0] for s in want.sizes)
    h = max(s[1] for s in want.sizes)
    rings = MUST_RINGS if want.must else RINGS[:2] if want.near_only else RINGS
    d = rings[-1] * _step(a, h, gap) + gap
    return a[0] - d - w, a[1] - d - h, a[2] + d + w, a[3] + d + h


def place(wants: Sequence[Want], obstacles: Iterable[Shape], bounds: Box, gap: float = GAP_PX,
          keys: Sequence | None = None, previous: Placement | None = None) -> Placement:
    """A place for each of `wants` (in their order) that overlaps no other placed label and no obstacle (each a
    `Shape`), inside `bounds`. Greedy, in order of priority (fixed labels first, then those that must be shown).
    With `keys` (one per want, stable from one call to the next) and the `previous` placement, labels keep their
    spots where they can (see `Placement`); in the same bounds only what changed is looked at."""
    obstacles = list(obstacles)
    bounds = tuple(map(float, bounds))
    if previous is not None and keys is not None and previous.index is not None and previous.bounds == bounds \
            and previous.gap == gap and previous.index.dead < max(400, len(previous.index.shapes) // 2) \
            and not _new_must(wants, keys, previous):
        return _place_again(wants, obstacles, bounds, gap, list(keys), previous)
    index = _Index()
    ids = {id(s): (s, index.add(s)) for s in obstacles}
    prev = previous.by_key if previous is not None and keys is not None else None
    moved = prev is not None and previous.bounds != bounds  # scrolled: what came into view is looked at
    dirty: list[Box] = []
    if prev is not None:
        old = {sid for sid in (previous.obstacles or {})}
        dirty = [s.box for sid, (s, _) in ids.items() if sid not in old]
        dirty += [s.box for sid, (s, _) in (previous.obstacles or {}).items() if sid not in ids]
        gone = set(prev) - set(keys)
        dirty += [prev[k][1].box for k in gone if prev[k][1].box is not None]
    out: list[Spot | None] = [None] * len(wants)
    by_key = {} if keys is not None else None
    searched = 0
    for i in _order(wants, range(len(wants))):
        want = wants[i]
        old = prev.get(keys[i]) if prev is not None else None
        spot = None
        if old is not None and old[0] == want:
            ob = old[1].box
            if ob is None:
                was_out = moved and not _sees(previous.bounds, want.anchor)
                if not was_out and not any(overlaps(_reach(want, gap), d) for d in dirty):
                    spot = old[1]  # left out, and nothing near it changed
            elif want.fixed or (inside(ob, bounds) and not index.hits(ob, gap)):
                spot = old[1]
        if spot is None:
            spot = _place_one(want, index, bounds, gap)
            searched += 1
            if old is not None and old[1].box is not None and old[1].box != spot.box:
                dirty.append(old[1].box)
        out[i] = spot
        numbers = _add_spot(index, spot)
        if by_key is not None:
            by_key[keys[i]] = (want, spot, numbers)
    return Placement(out, by_key, ids, bounds, searched, index if keys is not None else None, gap)


def _new_must(wants: Sequence[Want], keys: Sequence, previous: Placement) -> bool:
    """Whether a label that must be shown is new or changed (a piece just selected): then every label is placed
    again in order of priority, so that it comes first and the others make way (kept spots would hold it off)."""
    prev = previous.by_key
    for w, key in zip(wants, keys, strict=True):
        if w.must:
            old = prev.get(key)
            if old is None or (old[0] is not w and old[0] != w):
                return True
    return False


def _order(wants: Sequence[Want], which) -> list[int]:
    """Fixed labels first, then those that must be shown, then by priority, then as given."""
    return sorted(which, key=lambda i: (not wants[i].fixed, not wants[i].must, -wants[i].priority, i))


def _add_spot(index: _Index, spot: Spot) -> tuple[int, ...]:
    """A placed label's box in the index, and its leader's line (kept clear of the labels placed after it)."""
    numbers = []
    if spot.box is not None:
        numbers.append(index.add(Shape(box=spot.box)))
    if spot.leader is not None:
        (ax, ay), (bx, by) = spot.leader
        if math.hypot(bx - ax, by - ay) > 1.0:
            numbers.append(index.add(Shape(points=((ax, ay), (bx, by), (bx + 0.01, by + 0.01)))))
    return tuple(numbers)


def _place_again(wants: Sequence[Want], obstacles: list[Shape], bounds: Box, gap: float, keys: list,
                 previous: Placement) -> Placement:
    """The previous placement brought up to date in its own index: the obstacles that came and went, and only the
    labels whose want changed, whose box an obstacle now covers, or (left out) near which something changed, placed
    again; every other label keeps its spot untouched."""
    index, ids = previous.index, dict(previous.obstacles)
    previous.index = None  # this placement's now: the previous one cannot start another
    freed, added = _swap_obstacles(index, ids, obstacles)
    prev = previous.by_key
    kept: dict = {}
    todo: list[int] = []
    for i, key in enumerate(keys):
        old = prev.get(key)
        if old is None or (old[0] is not wants[i] and old[0] != wants[i]):
            todo.append(i)
            continue
        box = old[1].box
        if added and box is not None and any(s.hits(box, gap) for s in added):
            todo.append(i)  # something new covers it
            continue
        kept[key] = old
    for key, old in prev.items():  # what no longer stands where it stood
        if key not in kept:
            for k in old[2]:
                index.remove(k)
            if old[1].box is not None:
                freed.append(old[1].box)
    for i, key in enumerate(keys):  # a label left out is looked for again where room was freed near it
        old = kept.get(key) if freed else None
        if old is not None and old[1].box is None and any(overlaps(_reach(wants[i], gap), d) for d in freed):
            del kept[key]
            todo.append(i)
    by_key = dict(kept)
    out: list[Spot | None] = [kept[key][1] if key in kept else None for key in keys]
    for i in _order(wants, todo):
        old = prev.get(keys[i])
        spot = _follow(old, wants[i], index, bounds, gap) if old is not None else None
        if spot is None:
            spot = _place_one(wants[i], index, bounds, gap)
        out[i] = spot
        by_key[keys[i]] = (wants[i], spot, _add_spot(index, spot))
    return Placement(out, by_key, ids, bounds, len(todo), index, gap)


def _swap_obstacles(index: _Index, ids: dict, obstacles: list[Shape]) -> tuple[list[Box], list[Shape]]:
    """The obstacles gone out of the index and the new ones into it: (the boxes freed, the shapes added). Only freed
    room can let a label that was left out in; what was added is tested by the labels kept."""
    now = {id(s): s for s in obstacles}
    freed, added = [], []
    for sid, (s, k) in list(ids.items()):
        if now.get(sid) is not s:
            index.remove(k)
            freed.append(s.box)
            del ids[sid]
    for sid, s in now.items():
        if sid not in ids:
            ids[sid] = (s, index.add(s))
            added.append(s)
    return freed, added


def _follow(old: tuple, want: Want, index: _Index, bounds: Box, gap: float) -> Spot | None:
    """A label whose subject moved, where it stood beside it before (moved with it), if that is still clear: it
    follows its piece instead of jumping about, and costs one test."""
    was, spot = old[0], old[1]
    if spot.box is None or want.fixed or was.sizes != want.sizes:
        return None
    dx, dy = want.anchor[0] - was.anchor[0], want.anchor[1] - was.anchor[1]
    b = (spot.box[0] + dx, spot.box[1] + dy, spot.box[2] + dx, spot.box[3] + dy)
    if not inside(b, bounds) or index.hits(b, gap):
        return None
    if want.around is not None and overlaps(b, want.around, gap - 1e-6):
        return None
    leader = None if spot.leader is None else ((spot.leader[0][0] + dx, spot.leader[0][1] + dy),
                                               (spot.leader[1][0] + dx, spot.leader[1][1] + dy))
    return Spot(b, spot.text, leader)


def _first_clear(boxes: list, index: _Index, bounds: Box, gap: float) -> int | None:
    """The first of `boxes` inside `bounds` and clear of everything in `index` (each a box, or (box, ...)): the
    shapes near any of them looked up once, then each box against those."""
    boxes = [b if isinstance(b[0], float | int) else b[0] for b in boxes]
    shown = [(n, b) for n, b in enumerate(boxes) if inside(b, bounds)]
    if not shown:
        return None
    reach = (min(b[0] for _, b in shown), min(b[1] for _, b in shown), max(b[2] for _, b in shown),
             max(b[3] for _, b in shown))
    near = [(s, s.box) for s in index.near(reach, gap)]
    for n, b in shown:
        x0, y0, x1, y1 = b[0] - gap, b[1] - gap, b[2] + gap, b[3] + gap
        for s, o in near:
            if x0 < o[2] and o[0] < x1 and y0 < o[3] and o[1] < y1 and (not s.axes or s.hits(b, gap)):
                break
        else:
            return n
    return None


WITHIN_STEPS = 5


def _within(want: Want) -> list[tuple[Box, int]]:
    """(box, text) spots inside the area a label names, on a grid over its box, nearest its point first."""
    x0, y0, x1, y1 = want.within
    ax, ay = want.anchor
    out = []
    for k, (w, h) in enumerate(want.sizes):
        if x1 - x0 < w or y1 - y0 < h:
            continue
        for i in range(WITHIN_STEPS):
            for j in range(WITHIN_STEPS):
                x = x0 + (x1 - x0 - w) * i / (WITHIN_STEPS - 1)
                y = y0 + (y1 - y0 - h) * j / (WITHIN_STEPS - 1)
                out.append(((x, y, x + w, y + h), k, (x + w / 2 - ax) ** 2 + (y + h / 2 - ay) ** 2 + k * 1e-3))
    out.sort(key=lambda t: (t[1], t[2]))  # the full text anywhere inside before the short one
    return [(b, k) for b, k, _ in out]


def _place_one(want: Want, index: _Index, bounds: Box, gap: float) -> Spot:
    ax, ay = want.anchor
    if want.fixed:
        w, h = want.sizes[0]
        x, y = want.first if want.first is not None else (ax, ay)
        return Spot(_clamped(x, y, w, h, bounds), 0)  # kept inside the view, never left out
    if not (bounds[0] <= ax <= bounds[2] and bounds[1] <= ay <= bounds[3]):
        return Spot(None)  # what it names is out of view
    around = want.around or (ax, ay, ax, ay)
    if want.first is not None:
        for k, (w, h) in enumerate(want.sizes):
            b = (want.first[0], want.first[1], want.first[0] + w, want.first[1] + h)
            if inside(b, bounds) and not index.hits(b, gap):
                return Spot(b, k)  # where its system put it
    if want.within is not None:
        n = _first_clear(inside_spots := _within(want), index, bounds, gap)
        if n is not None:
            return Spot(inside_spots[n][0], inside_spots[n][1])
    rings = MUST_RINGS if want.must else RINGS[:2] if want.near_only else RINGS
    tried: list[Box] = []
    which: list[tuple[int, float]] = []
    for ring in rings:
        for k, (w, h) in enumerate(want.sizes):
            for x, y in _candidates(around, w, h, ring * _step(around, h, gap), gap):
                tried.append((x, y, x + w, y + h))
                which.append((k, ring))
    n = _first_clear(tried, index, bounds, gap)
    if n is not None:
        k, ring = which[n]
        return Spot(tried[n], k, _leader(around, tried[n]) if ring > 0 and not want.near_only else None)
    return _least_bad(want, around, index, bounds, gap) if want.must else Spot(None)


def _clamped(x: float, y: float, w: float, h: float, bounds: Box) -> Box:
    x = min(max(x, bounds[0]), max(bounds[0], bounds[2] - w))
    y = min(max(y, bounds[1]), max(bounds[1], bounds[3] - h))
    return x, y, x + w, y + h


def _least_bad(want: Want, around: Box, index: _Index, bounds: Box, gap: float) -> Spot:
    """Nowhere clear for a label that must be shown (the selected piece's): the least covered place near its
    subject."""
    best, best_cost = None, math.inf
    w, h = want.sizes[-1]
    for ring in RINGS:
        for x, y in _candidates(around, w, h, ring * _step(around, h, gap), gap):
            b = (x, y, x + w, y + h)
            if inside(b, bounds):
                c = index.cost(b, gap)
                if c < best_cost:
                    best, best_cost = b, c
    if best is None:
        best = _clamped(want.anchor[0], want.anchor[1], w, h, bounds)
    return Spot(best, len(want.sizes) - 1, _leader(around, best))
