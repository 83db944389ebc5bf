"""Every pair at once: the dashboard's frame, computed with numpy over the whole position.

`analyze_all(pos)` answers, for every ordered pair of enemy pieces, the table columns of `analyze_pair`:
distance, adjacency, side field, both arcs, line of sight (§6), recognition (§6.4, §6.5), fire permission and its
capped net modifier (§7, §8.4), counter-fire, melee permission, net modifier and defence (§8.7). The full answer
with every modifier and reason is built lazily, only for the pair a player selects (`PairTable.details`), by the
per-pair reference `analysis._pair`, so the two can never disagree on what they both report.

How it is fast:
- the fields a centre-to-centre line crosses, and the grid corners it passes, depend only on the offset (dx, dy)
  between its two fields (§6.1), so they are computed once per grid size (`_grid_lines`) and gathered for all
  pairs at once against per-position rasters of blocking terrain, heights and troops;
- distances, arcs, side fields, ranges, recognition limits and fire modifiers are array arithmetic over pairs;
- only melee (adjacent pairs, a handful) and cover behind walls run the per-pair Python rules;
- `analyze_all(pos, previous=table)` returns `table` itself when the position is unchanged, and when a few pieces
  moved recomputes only the pairs that touch them or whose lines cross their old or new fields (`_lines_through`).

The fast path mirrors `sight.trace`, `combat.fire_check` and `sight.recognition_limit` rule by rule; the property
test `test_fast_pair_table_equals_the_per_pair_reference` checks it against them on random positions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from common.errors import InputError
from rules.geometry import VECTORS, line_offsets, turn
from rules.wiener.analysis import _pair
from rules.wiener.combat import cover, defence_reason, melee_check
from rules.wiener.model import WienerPosition
from rules.wiener.options import DEFAULT, Options
from rules.wiener.sight import deep
from rules.wiener.tables import (
    BLOCKING_TERRAIN,
    RANGES,
    all_round,
    dispersed,
    fires_all_round,
    is_artillery,
    is_cavalry,
    is_skirmisher,
    marker_penalty,
    weapon,
)

_SMALL, _ART = 1, 2  # weapon codes; 0 = cannot fire


# ---------------------------------------------------------------- lines per grid size (§6.1)


class _GridLines:
    """Every centre-to-centre line on a cols x rows grid, by offset k = (dx + cols - 1) * (2 rows - 1) + dy + rows - 1:
    the crossed fields (as offsets from the start, with their position `along` the line) and the corners with their
    two side fields, flattened into arrays with a start and a length per offset."""

    def __init__(self, cols: int, rows: int):
        self.cols, self.rows = cols, rows
        self.h2 = 2 * rows - 1
        n = (2 * cols - 1) * self.h2
        self.cr_start = np.zeros(n, np.int64)
        self.cr_len = np.zeros(n, np.int64)
        self.co_start = np.zeros(n, np.int64)
        self.co_len = np.zeros(n, np.int64)
        cx, cy, cal = [], [], []
        px, py, qx, qy, pal, qal = [], [], [], [], [], []
        for dx in range(-(cols - 1), cols):
            for dy in range(-(rows - 1), rows):
                k = (dx + cols - 1) * self.h2 + dy + rows - 1
                crossed, corners = line_offsets(dx, dy)
                self.cr_start[k], self.cr_len[k] = len(cx), len(crossed)
                for x, y in crossed:
                    cx.append(x)
                    cy.append(y)
                    cal.append(x * dx + y * dy)
                self.co_start[k], self.co_len[k] = len(px), len(corners)
                for (x1, y1), (x2, y2) in corners:
                    px.append(x1)
                    py.append(y1)
                    qx.append(x2)
                    qy.append(y2)
                    pal.append(x1 * dx + y1 * dy)
                    qal.append(x2 * dx + y2 * dy)
        self.cx, self.cy, self.cal = (np.array(v, np.int32) for v in (cx, cy, cal))
        self.px, self.py, self.qx, self.qy = (np.array(v, np.int32) for v in (px, py, qx, qy))
        self.pal, self.qal = np.array(pal, np.int32), np.array(qal, np.int32)
        # the same offsets as steps in a raster indexed x * rows + y
        self.cflat = self.cx * rows + self.cy
        self.pflat, self.qflat = self.px * rows + self.py, self.qx * rows + self.qy

    def key(self, dx, dy):
        return (dx + self.cols - 1) * self.h2 + dy + self.rows - 1

    @cached_property
    def touches(self) -> np.ndarray:
        """touches[k, j]: the line with offset k crosses, or passes at a corner beside, the field at offset j
        (same indexing). Used to find the lines a moved piece's old or new field lies on."""
        n = len(self.cr_len)
        out = np.zeros((n, n), bool)
        ks = np.repeat(np.arange(n), self.cr_len)
        out[ks, self.key(self.cx, self.cy)] = True
        kc = np.repeat(np.arange(n), self.co_len)
        out[kc, self.key(self.px, self.py)] = True
        out[kc, self.key(self.qx, self.qy)] = True
        return out


@lru_cache(maxsize=4)
def _grid_lines(cols: int, rows: int) -> _GridLines:
    return _GridLines(cols, rows)


def _expand(start: np.ndarray, length: np.ndarray):
    """CSR gather: (pair index of every element, index into the flat offset arrays)."""
    total = int(length.sum())
    pid = np.repeat(np.arange(len(length)), length)
    first = np.cumsum(length) - length
    src = np.repeat(start - first, length) + np.arange(total)
    return pid, src


def _seg(ufunc, values: np.ndarray, pid: np.ndarray, n: int, fill) -> np.ndarray:
    """ufunc-reduce values per pair (pid sorted); pairs without elements get fill."""
    out = np.full(n, fill, dtype=values.dtype)
    if len(values):
        starts = np.flatnonzero(np.r_[True, pid[1:] != pid[:-1]])
        out[pid[starts]] = ufunc.reduceat(values, starts)
    return out


# ---------------------------------------------------------------- per-position rasters and per-piece columns


@dataclass
class _Board:
    """What the fast rules need of a position, as arrays: fields (index x * rows + y) and pieces (index in
    pos.pieces)."""

    code: np.ndarray  # per field: 1 blocking terrain (§6.1), 2 troops, 4 all of them skirmishers (§6.3), height << 3
    occ_side: np.ndarray  # side code of the occupants, -1 when empty
    x: np.ndarray
    y: np.ndarray
    side: np.ndarray
    fx: np.ndarray  # facing vector
    fy: np.ndarray
    lx: np.ndarray  # the two side-field vectors (§3.4)
    ly: np.ndarray
    rx: np.ndarray
    ry: np.ndarray
    weapon: np.ndarray  # 0 none, 1 small arms, 2 artillery (§7)
    rng: np.ndarray
    black: np.ndarray
    active_barred: np.ndarray  # road march, artillery moved, already fired (§5.2, §5.4): not for responses
    fires_round: np.ndarray  # §8.4 Wirkungsbereich all round
    sees_round: np.ndarray  # §3.6
    general: np.ndarray
    fought: np.ndarray
    in_cover_terrain: np.ndarray  # target in wood, town or church (§6.4)
    deep: np.ndarray
    square: np.ndarray
    dispersed: np.ndarray
    cavalry: np.ndarray
    cover_town: np.ndarray  # house / church / fortification cover of the target's field (§8.4)
    in_wood: np.ndarray
    wall_cover: np.ndarray  # the field has a wall or barricade edge: cover needs the line's entry edge (§11 A37)
    own_pos: np.ndarray  # own positive factors (elite)
    own_neg: np.ndarray  # own negative factors (markers, negative elite)


def _board(pos: WienerPosition, opts: Options, sides: dict[str, int]) -> _Board:
    cols, rows = pos.cols, pos.rows
    n = cols * rows
    code = np.zeros(n, np.int32)
    for (fx_, fy_), s in pos.fields.items():
        code[fx_ * rows + fy_] = (s.height << 3) | (s.terrain in BLOCKING_TERRAIN)
    occ_side = np.full(n, -1, np.int32)
    for f, ps in pos.occupants.items():
        _occupy(code, occ_side, f[0] * rows + f[1], ps, sides)
    walled = {f for e in pos.edges if e.obstacle in ("wall", "barricade") for f in e.fields}
    cols_ = {k: [] for k in _Board.__dataclass_fields__ if k not in
             ("code", "occ_side")}
    for p in pos.pieces:
        w = weapon(p, opts)
        s = pos.field_state(p.field)
        vx, vy = VECTORS[p.facing]
        cols_["x"].append(p.field[0])
        cols_["y"].append(p.field[1])
        cols_["side"].append(sides[p.side])
        cols_["fx"].append(vx)
        cols_["fy"].append(vy)
        for key, v in zip(("lx", "ly", "rx", "ry"), _side_vectors_of(p.facing), strict=True):
            cols_[key].append(v)
        cols_["weapon"].append(0 if w is None else _ART if w == "artillery" else _SMALL)
        cols_["rng"].append(0 if w is None else RANGES[w])
        cols_["black"].append(p.black)
        cols_["active_barred"].append(p.road_march or (is_artillery(p) and p.moved) or p.fired)
        cols_["fires_round"].append(fires_all_round(p))
        cols_["sees_round"].append(all_round(p))
        cols_["general"].append(p.type == "general")
        cols_["fought"].append(p.fought)
        cover_terrain = s.terrain in ("wood", "town", "church")
        cols_["in_cover_terrain"].append(cover_terrain)
        cols_["deep"].append(cover_terrain and deep(pos, p.field))
        cols_["square"].append(p.formation == "square")
        cols_["dispersed"].append(dispersed(p, opts))
        cols_["cavalry"].append(is_cavalry(p))
        cv = 0
        if s.terrain == "town":
            cv = max(0, 1 - s.cover_lost)
        elif s.terrain == "church":
            cv = max(0, 2 - s.cover_lost)
        if s.fortification:
            cv = max(cv, 1 if s.fortification == "light" else 2)
        cols_["cover_town"].append(cv)
        cols_["in_wood"].append(s.terrain == "wood")
        cols_["wall_cover"].append(p.field in walled)
        cols_["own_pos"].append(max(p.elite, 0))
        cols_["own_neg"].append(min(p.elite, 0) - marker_penalty(p, opts))
    arrays = {k: np.array(v, dtype=bool if k in _BOOLS else np.int32) for k, v in cols_.items()}
    return _Board(code, occ_side, **arrays)


def _occupy(code: np.ndarray, occ_side: np.ndarray, i: int, ps, sides: dict[str, int]) -> None:
    """Set the troop bits of field i for its occupants ps (§6.1 troops block, §6.3 skirmisher screens)."""
    code[i] &= ~6
    occ_side[i] = -1
    if ps:
        code[i] |= 2 | (4 if all(is_skirmisher(p) for p in ps) else 0)
        occ_side[i] = sides[ps[0].side]


_BOOLS = {"black", "active_barred", "fires_round", "sees_round", "general", "fought", "in_cover_terrain", "deep",
          "square", "dispersed", "cavalry", "in_wood", "wall_cover"}


# ---------------------------------------------------------------- the vectorised rules


def _in_arc(dx, dy, fx, fy):
    """geometry.in_front_arc over arrays (§3.6, boundary included)."""
    dot = dx * fx + dy * fy
    return (dot > 0) & (2 * dot * dot >= (dx * dx + dy * dy) * (fx * fx + fy * fy))


class _Elements:
    """The fields of the lines of pairs i -> j, classified for both directions (§6.1-§6.3): per crossed field and per
    corner side field (p, q), for direction d: free, overshot, screened, blocking."""

    def __init__(self, g: _GridLines, b: _Board, i, j, screen, opts: Options):
        rows = g.rows
        ax, ay = b.x[i], b.y[i]
        self.k = k = g.key(b.x[j] - ax, b.y[j] - ay)
        base = ax * rows + ay
        obs = (b.code[base] >> 3, b.code[b.x[j] * rows + b.y[j]] >> 3)
        top = np.maximum(*obs)
        lifted = [bool(o.any()) for o in obs]  # nobody can overshoot from the ground
        screening = [bool(sc.any()) for sc in screen]

        def classify(ln, flats):
            rep = [np.repeat(v, ln) for v in (base, top)]
            per = [(np.repeat(obs[d], ln) if lifted[d] else None,
                    np.repeat(screen[d], ln) if screening[d] else None,
                    np.repeat((b.side[i], b.side[j])[d], ln) if not opts.overshoot_enemy_troops else None)
                   for d in (0, 1)]
            out = []
            for flat in flats:
                f = rep[0] + flat
                code = b.code[f]
                h = code >> 3
                hard = ((code & 1) != 0) | (h > rep[1])  # §6.1 terrain, §6.2 higher than both ends
                troops = ((code & 2) != 0) & ~hard
                free = ((code & 3) == 0) & ~hard
                dirs = []
                for d in (0, 1):
                    o, sc, sd = per[d]
                    over = troops & (o > h) if o is not None else np.zeros(len(f), bool)  # §6.2 overshooting
                    if sd is not None:
                        over &= b.occ_side[f] == sd
                    scr = troops & ~over & ((code & 4) != 0) & sc if sc is not None else np.zeros(len(f), bool)
                    dirs.append((free, over, scr, hard | (troops & ~over & ~scr)))  # §6.3 screens
                out.append(dirs)
            return out

        cl, ol = g.cr_len[k], g.co_len[k]
        self.cpid, self.csrc = _expand(g.cr_start[k], cl)
        self.opid, self.osrc = _expand(g.co_start[k], ol)
        (self.crossed,) = classify(cl, [g.cflat[self.csrc]])
        self.p, self.q = classify(ol, [g.pflat[self.osrc], g.qflat[self.osrc]])


def _clear(g: _GridLines, b: _Board, i, j, screen, artillery, opts: Options) -> tuple[np.ndarray, np.ndarray]:
    """sight.trace(pos, a, b, observer=a, weapon).clear for the pairs i -> j and j -> i at once (§6.1-§6.3, §11 A13).

    A line crosses the same fields and corners in both directions (§6.1), so they are gathered once; what depends
    on the observer (overshooting from its height, its weapon) is evaluated per direction. `screen` and
    `artillery` are (forward, reverse) flags per pair: the weapon passes skirmisher screens, the weapon is artillery.
    """
    n = len(i)
    el = _Elements(g, b, i, j, screen, opts)
    blocked, need = [], []
    for d in (0, 1):
        _, over, _, block = el.crossed[d]
        (pf, po, pscr, _), (qf, qo, qscr, _) = el.p[d], el.q[d]
        shut = ~pf & ~qf & ~pscr & ~qscr  # §3.5 diagonal rule: one of the two fields at the corner must be free
        bl = np.bincount(el.cpid[block], minlength=n) + np.bincount(el.opid[shut & ~po & ~qo], minlength=n) > 0
        ov = np.bincount(el.cpid[over], minlength=n) + np.bincount(el.opid[shut & (po | qo)], minlength=n) > 0
        blocked.append(bl)
        need.append(ov & ~bl)
    sub = np.flatnonzero(need[0] | need[1])
    if len(sub):
        fails = _overshoot_fails(g, b, i[sub], j[sub], tuple(v[sub] for v in screen),
                                 tuple(v[sub] for v in artillery), opts)
        for d in (0, 1):
            blocked[d][sub] |= need[d][sub] & fails[d]
    return ~blocked[0], ~blocked[1]


def _overshoot_fails(g, b, i, j, screen, artillery, opts: Options) -> list[np.ndarray]:
    """§6.2 / §11 A13 for lines that pass only over troops: a free field between the overshot troops and the
    target, and for artillery also one next to the firer. Positions along the line are measured forward; backwards
    their order reverses."""
    n = len(i)
    el = _Elements(g, b, i, j, screen, opts)
    lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    cpid, opid = el.cpid, el.opid
    cal = g.cal[el.csrc]
    free = el.crossed[0][0]
    free_last = _seg(np.maximum, np.where(free, cal, lo), cpid, n, lo)
    free_first = _seg(np.minimum, np.where(free, cal, hi), cpid, n, hi)
    out = []
    for d in (0, 1):
        over = el.crossed[d][1]
        (pf, po, pscr, _), (qf, qo, qscr, _) = el.p[d], el.q[d]
        c_over = ~pf & ~qf & ~pscr & ~qscr & (po | qo)
        c_al = np.where(po, g.pal[el.osrc], g.qal[el.osrc])  # the corner field overshot: p if p is, else q
        last = np.maximum(_seg(np.maximum, np.where(over, cal, lo), cpid, n, lo),
                          _seg(np.maximum, np.where(c_over, c_al, lo), opid, n, lo))
        first = np.minimum(_seg(np.minimum, np.where(over, cal, hi), cpid, n, hi),
                           _seg(np.minimum, np.where(c_over, c_al, hi), opid, n, hi))
        if d == 0:
            target_side, firer_side = free_last > last, free_first < first
        else:
            target_side, firer_side = free_first < first, free_last > last
        fail = ~target_side
        if opts.artillery_overshoot_free_field_at_firer:
            fail |= artillery[d] & ~firer_side
        out.append(fail)
    return out


def _recognised(b: _Board, j, d, night: bool, opts: Options) -> np.ndarray:
    """sight.recognition_limit is None (§6.4, §6.5)."""
    lim = b.general[j] & (d > 2)
    if night:
        lim |= d > 1
    unfought = ~b.fought[j] if opts.edge_visibility_only_unfought else np.ones(len(j), bool)
    lim |= b.in_cover_terrain[j] & ((b.deep[j] & (d > 1)) | ((d > 3) & unfought))
    return ~lim


def _fire(g, b, pos, i, j, d, arc, los, recog, opts: Options):
    """combat.fire_check(...).allowed in the active phase before target priority, as a response (counter-fire,
    Gegenzug), and the capped net modifier (§7, §8.4)."""
    w = b.weapon[i]
    ok = (w > 0) & ~b.black[i] & (d <= b.rng[i]) & (b.fires_round[i] | arc) & recog
    art = w == _ART
    line = los.copy()
    redo = np.flatnonzero(ok & art)  # artillery: through screens (§6.3), a free field at the firer (§11 A13)
    if len(redo):
        m = len(redo)
        flags = (np.full(m, opts.artillery_fires_through_skirmishers), np.zeros(m, bool))
        line[redo] = _clear(g, b, i[redo], j[redo], flags, (np.ones(m, bool), np.zeros(m, bool)), opts)[0]
    ok &= line
    # modifiers (§7 range, §8.4 table, §8.3 own markers, §9 elite), positive and negative sums for the caps (§8.1)
    rb = np.where(art, np.select([d <= 1, d == 2, d <= 4], [3, 2, 1], 0),
                  np.where(d <= 1, opts.small_arms_point_blank_bonus, 0))
    plus = rb + b.own_pos[i] + b.square[j]
    cv = np.maximum(b.cover_town[j], b.in_wood[j] & ~b.in_wood[i])  # inside the wood: no cover (§6.4)
    minus = b.own_neg[i] - b.dispersed[j] - cv
    if opts.cavalry_beyond_4_le_penalty:
        minus = minus - (b.cavalry[j] & (d > 4)).astype(np.int64)
    walls = np.flatnonzero(ok & b.wall_cover[j])
    if len(walls):  # §11 A37 the wall or barricade counts only on the edge the line enters through
        pieces = pos.pieces
        for k in walls:
            c, _ = cover(pos, pieces[i[k]].field, pieces[j[k]])
            minus[k] += cv[k] - c
    if opts.cap_mode == "net":
        net = np.clip(plus + minus, -4, 4)
    else:
        net = np.minimum(plus, 4) + np.maximum(minus, -4)
    active = ok & ~b.active_barred[i]  # §5.2, §5.4: not after moving (artillery), road march or firing
    return active, ok, np.where(active, net, 0)


# ---------------------------------------------------------------- the table


COLUMNS = ("distance", "adjacent", "side_field", "target_in_arc", "attacker_in_target_arc", "sees_all_round",
           "line_of_sight", "recognised", "fire_allowed", "fire_net", "counter_fire", "melee_allowed", "melee_net",
           "melee_defence")


@dataclass
class PairTable:
    """Every ordered pair of enemy pieces (`src[k]` acts on `dst[k]`, indices into `position.pieces`), one array per
    column. `counter_fire` and `melee_defence` are meaningful only where fire / melee is allowed."""

    position: WienerPosition
    opts: Options
    src: np.ndarray
    dst: np.ndarray
    distance: np.ndarray
    adjacent: np.ndarray
    side_field: np.ndarray
    target_in_arc: np.ndarray
    attacker_in_target_arc: np.ndarray
    sees_all_round: np.ndarray
    line_of_sight: np.ndarray
    recognised: np.ndarray
    fire_allowed: np.ndarray
    fire_net: np.ndarray
    counter_fire: np.ndarray
    melee_allowed: np.ndarray
    melee_net: np.ndarray
    melee_defence: np.ndarray
    # internals kept for incremental updates
    _board: _Board = field(repr=False, default=None)
    _sides: dict = field(repr=False, default_factory=dict)
    _fire_raw: np.ndarray = field(repr=False, default=None)  # before target priority (§11 A29)
    _fire_resp: np.ndarray = field(repr=False, default=None)  # as a response: counter-fire (§8.1)
    _fire_net_raw: np.ndarray = field(repr=False, default=None)
    _index: np.ndarray = field(repr=False, default=None)  # [i, j] -> k, -1 for friends
    _details: dict = field(repr=False, default_factory=dict)

    def __len__(self) -> int:
        return len(self.src)

    @cached_property
    def _order(self) -> dict[str, int]:
        return {p.id: n for n, p in enumerate(self.position.pieces)}

    def _at(self, pid: str) -> int:
        self.position.piece(pid)  # InputError for an unknown id
        return self._order[pid]

    def index(self, from_id: str, to_id: str) -> int:
        k = int(self._index[self._at(from_id), self._at(to_id)])
        if k < 0:
            raise InputError(f"{from_id} and {to_id} are on the same side")
        return k

    def row(self, k: int) -> dict:
        """The table's columns for pair k as plain values (None where not applicable, as in analyze_pair)."""
        pieces = self.position.pieces
        out = {"from": pieces[self.src[k]].id, "to": pieces[self.dst[k]].id}
        for c in COLUMNS:
            v = getattr(self, c)[k]
            out[c] = v.item()
        if not out["fire_allowed"]:
            out["counter_fire"] = None
        if not out["melee_allowed"]:
            out["melee_defence"] = None
        return out

    def details(self, from_id: str, to_id: str) -> dict:
        """The full per-pair answer (every modifier and reason), built on demand and kept."""
        k = self.index(from_id, to_id)
        if k not in self._details:
            pos = self.position
            self._details[k] = _pair(pos, pos.pieces[self.src[k]], pos.pieces[self.dst[k]], self.opts, "find")
        return self._details[k]

    def targets(self, from_id: str) -> list[int]:
        """The pairs of one acting piece, nearest first (the order of analyze_from)."""
        pos = self.position
        ks = [int(k) for k in self._index[self._at(from_id)] if k >= 0]
        return sorted(ks, key=lambda k: (int(self.distance[k]), pos.pieces[self.dst[k]].id))


def _compute(t: PairTable, ks: np.ndarray) -> None:
    """Fill every column of t for the pairs ks (the arrays exist)."""
    pos, opts, b = t.position, t.opts, t._board
    g = _grid_lines(pos.cols, pos.rows)
    i, j = t.src[ks], t.dst[ks]
    dx, dy = b.x[j] - b.x[i], b.y[j] - b.y[i]
    d = np.maximum(np.abs(dx), np.abs(dy))  # §3.2 Chebyshev
    t.distance[ks] = d
    t.adjacent[ks] = d == 1
    t.side_field[ks] = ((dx == b.lx[i]) & (dy == b.ly[i])) | ((dx == b.rx[i]) & (dy == b.ry[i]))  # §3.4
    arc = _in_arc(dx, dy, b.fx[i], b.fy[i])  # §3.6
    t.target_in_arc[ks] = arc
    t.attacker_in_target_arc[ks] = _in_arc(-dx, -dy, b.fx[j], b.fy[j])
    t.sees_all_round[ks] = b.sees_round[i]
    n = len(ks)
    # lines of sight once per unordered pair, both directions (§6.1)
    rev = t._index[j, i]
    once = ks[(ks < rev) | ~np.isin(rev, ks)]
    fi, fj = t.src[once], t.dst[once]
    no = (np.zeros(len(once), bool),) * 2
    fwd, back = _clear(g, b, fi, fj, no, no, opts)
    t.line_of_sight[once] = fwd
    t.line_of_sight[t._index[fj, fi]] = back
    los = t.line_of_sight[ks]
    recog = _recognised(b, j, d, pos.night, opts)
    t.recognised[ks] = recog
    t._fire_raw[ks], t._fire_resp[ks], t._fire_net_raw[ks] = _fire(g, b, pos, i, j, d, arc, los, recog, opts)
    melee = np.zeros(n, bool)
    mnet = np.zeros(n, np.int64)
    mdef = np.zeros(n, bool)
    pieces = pos.pieces
    for m in np.flatnonzero(d == 1):  # §8.7 melee from a Nachbarfeld: the per-pair rules, few pairs
        a, tg = pieces[i[m]], pieces[j[m]]
        chk = melee_check(pos, a, tg, opts)
        melee[m], mnet[m] = chk.allowed, chk.net_modifier
        if chk.allowed:
            mdef[m] = defence_reason(pos, tg, a) is None
    t.melee_allowed[ks], t.melee_net[ks], t.melee_defence[ks] = melee, mnet, mdef


def _finish(t: PairTable) -> None:
    """Columns that depend on other pairs: target priority (§8.4, §11 A29) and counter-fire (§8.1)."""
    ok, net = t._fire_raw, t._fire_net_raw
    if t.opts.target_priority == "forbid":
        b = t._board
        i, j = t.src, t.dst
        dx, dy = b.x[j] - b.x[i], b.y[j] - b.y[i]
        nn = np.maximum(np.abs(dx), np.abs(dy))
        ray = (nn > 0) & (dx == nn * b.fx[i]) & (dy == nn * b.fy[i])
        has_main = np.bincount(i[ok & ray], minlength=len(t.position.pieces)) > 0
        ok = ok & (ray | ~has_main[i])
        net = np.where(ok, net, 0)
    t.fire_allowed[:] = ok
    t.fire_net[:] = net
    rev = t._index[t.dst, t.src]
    t.counter_fire[:] = ok & t._fire_resp[rev]


@lru_cache(maxsize=8)
def _side_vectors_of(facing: str) -> tuple[int, int, int, int]:
    (lx, ly), (rx, ry) = VECTORS[turn(facing, -2)], VECTORS[turn(facing, 2)]
    return lx, ly, rx, ry


def _empty(pos: WienerPosition, opts: Options, b: _Board, sides: dict) -> PairTable:
    side = b.side
    enemy = side[:, None] != side[None, :]
    src, dst = np.nonzero(enemy)
    index = np.full(enemy.shape, -1, np.int64)
    index[src, dst] = np.arange(len(src))
    n = len(src)
    ints = {c: np.zeros(n, np.int64) for c in ("distance", "fire_net", "melee_net")}
    bools = {c: np.zeros(n, bool) for c in COLUMNS if c not in ints}
    return PairTable(pos, opts, src, dst, **ints, **bools, _board=b, _sides=sides, _fire_raw=np.zeros(n, bool),
                     _fire_resp=np.zeros(n, bool), _fire_net_raw=np.zeros(n, np.int64), _index=index)


def _side_codes(pos: WienerPosition) -> dict[str, int]:
    return {s: n for n, s in enumerate(dict.fromkeys(p.side for p in pos.pieces))}


def analyze_all(pos: WienerPosition, opts: Options = DEFAULT, previous: PairTable | None = None) -> PairTable:
    """Every ordered pair of enemies (the dashboard's frame).

    With `previous` (the table of the last frame): the same table when nothing changed; when only pieces' states
    changed (same pieces, same terrain), only the pairs touching them or whose lines cross their old or new fields
    are recomputed."""
    if previous is not None and previous.opts == opts:
        old = previous.position
        if old is pos or old == pos:
            return previous
        if _same_ground(old, pos):
            return _update(previous, pos)
    sides = _side_codes(pos)
    b = _board(pos, opts, sides)
    t = _empty(pos, opts, b, sides)
    _compute(t, np.arange(len(t)))
    _finish(t)
    return t


def _same_ground(old: WienerPosition, new: WienerPosition) -> bool:
    return (
        (old.cols, old.rows, old.night, old.edges) == (new.cols, new.rows, new.night, new.edges)
        and old.fields == new.fields
        and len(old.pieces) == len(new.pieces)
        and all(p is q or (p.id == q.id and p.side == q.side) for p, q in zip(old.pieces, new.pieces, strict=True))
    )


def _update(prev: PairTable, pos: WienerPosition) -> PairTable:
    """Recompute only what the changed pieces can affect (§6.1 lines through their fields, §8.7 neighbours)."""
    old = prev.position
    changed = [n for n, (p, q) in enumerate(zip(old.pieces, pos.pieces, strict=True)) if p is not q and p != q]
    if len(changed) > 16:
        return analyze_all(pos, prev.opts)
    fields_ = {old.pieces[n].field for n in changed} | {pos.pieces[n].field for n in changed}
    b = _board_update(prev._board, old, pos, prev.opts, prev._sides, changed)
    t = PairTable(pos, prev.opts, prev.src, prev.dst,
                  **{c: getattr(prev, c).copy() for c in COLUMNS},
                  _board=b, _sides=prev._sides, _fire_raw=prev._fire_raw.copy(), _fire_resp=prev._fire_resp.copy(),
                  _fire_net_raw=prev._fire_net_raw.copy(), _index=prev._index)
    g = _grid_lines(pos.cols, pos.rows)
    i, j = t.src, t.dst
    mask = np.zeros(len(pos.pieces), bool)
    mask[changed] = True
    hit = mask[i] | mask[j]
    ax, ay, bx, by = b.x[i], b.y[i], b.x[j], b.y[j]
    x0, x1, y0, y1 = np.minimum(ax, bx), np.maximum(ax, bx), np.minimum(ay, by), np.maximum(ay, by)
    for fx_, fy_ in fields_:
        # §6.1 a line touches only fields inside the box of its two ends: test those against the line tables
        box = np.flatnonzero((x0 <= fx_) & (fx_ <= x1) & (y0 <= fy_) & (fy_ <= y1))
        kb = g.key(bx[box] - ax[box], by[box] - ay[box])
        hit[box[g.touches[kb, g.key(fx_ - ax[box], fy_ - ay[box])]]] = True
        # §8.7 melee of adjacent pairs depends on the fields around both ends (massing, diagonal rule)
        near = (np.maximum(np.abs(fx_ - ax), np.abs(fy_ - ay)) <= 1) | (
            np.maximum(np.abs(fx_ - bx), np.abs(fy_ - by)) <= 1)
        hit |= prev.adjacent & near
    _compute(t, np.flatnonzero(hit))
    _finish(t)
    return t


def _board_update(b: _Board, old: WienerPosition, pos: WienerPosition, opts: Options, sides: dict,
                  changed: list[int]) -> _Board:
    """The board of pos from the board of old: occupancy rasters for the touched fields, columns of changed pieces."""
    rows = pos.rows
    small = WienerPosition(pos.system, tuple(pos.pieces[n] for n in changed), pos.cols, pos.rows, night=pos.night,
                           fields=pos.fields, edges=pos.edges)
    nb = _board(small, opts, sides) if changed else None
    arrays = {}
    for name in _Board.__dataclass_fields__:
        arr = getattr(b, name).copy()
        if name not in ("code", "occ_side"):
            arr[changed] = getattr(nb, name)
        arrays[name] = arr
    nb2 = _Board(**arrays)
    touched = {old.pieces[n].field for n in changed} | {pos.pieces[n].field for n in changed}
    for f in touched:
        _occupy(nb2.code, nb2.occ_side, f[0] * rows + f[1], pos.occupants.get(f, ()), sides)
    # deep and wall cover depend only on terrain and edges, which did not change
    return nb2
