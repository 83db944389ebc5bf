"""Line of sight and fire lines (§6): centre to centre, troops and terrain block, the diagonal rule at grid
corners, heights, overshooting, skirmisher screens; and who can be recognised at what range (§6.4, §6.5)."""

from __future__ import annotations

from common.fields import field_name
from rules.geometry import Field, distance, line_offsets, neighbours
from rules.wiener.model import WienerPiece, WienerPosition
from rules.wiener.options import DEFAULT, Options
from rules.wiener.tables import BLOCKING_TERRAIN, is_skirmisher

_NAMES: dict[Field, str] = {}


def name(f: Field) -> str:
    """field_name, memoised: lines name many fields."""
    n = _NAMES.get(f)
    if n is None:
        n = _NAMES[f] = field_name(*f)
    return n


class Line:
    """A traced line: clear or not, and its blockers as (kind, field, detail), named lazily."""

    __slots__ = ("clear", "blockers", "overshot", "screened", "_extra")

    def __init__(self, clear: bool, blockers=(), overshot=(), screened=(), extra: str | None = None):
        self.clear = clear
        self.blockers = blockers
        self.overshot = overshot
        self.screened = screened
        self._extra = extra

    @property
    def blocked_by(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(name(f) for _, f, _ in self.blockers))

    @property
    def first_reason(self) -> str | None:
        if self.blockers:
            return _reason(*self.blockers[0])
        return self._extra

    @property
    def reasons(self) -> tuple[str, ...]:
        out = [_reason(k, f, d) for k, f, d in self.blockers]
        if self._extra:
            out.append(self._extra)
        return tuple(dict.fromkeys(out))


def _reason(kind: str, f: Field, detail) -> str:
    if kind == "terrain":
        return f"{detail} at {name(f)} (§6.1)"
    if kind == "height":
        return f"height {detail} at {name(f)} is above both ends (§6.2)"
    if kind == "troops":
        return f"troops at {name(f)} (§6.1)"
    if kind == "corner":
        return f"both fields beside the corner at {name(f)} and {name(detail)} are blocked (§3.5 diagonal rule)"
    if kind == "overshoot_target":
        return "overshooting needs a free field between the troops fired over and the target (§6.2)"
    return "artillery overshooting needs a free field next to the battery (§6.2, §11 A13)"


def _maps(pos: WienerPosition):
    """Per-position lookups for the tracer: blocking terrain, heights, occupied fields (cached on the position)."""
    m = pos.__dict__.get("_sight_maps")
    if m is None:
        terrain = {f: s.terrain for f, s in pos.fields.items() if s.terrain in BLOCKING_TERRAIN}
        heights = {f: s.height for f, s in pos.fields.items() if s.height}
        special = set(terrain) | set(heights) | set(pos.occupants)
        m = pos.__dict__["_sight_maps"] = (terrain, heights, pos.occupants, special)
    return m


def _passed_fields(a: Field, crossed, special, why) -> tuple[list, list[Field], list[Field]]:
    """The fields the line crosses: (blockers, troops overshot, skirmisher screens passed)."""
    ax, ay = a
    blockers = []
    over: list[Field] = []
    screen: list[Field] = []
    for x, y in crossed:
        f = (ax + x, ay + y)
        if f not in special:  # the common case: an empty open field at ground level
            continue
        w = why(f)
        if w is None:
            continue
        k, d = w
        if k == "over":
            over.append(f)
        elif k == "screen":
            screen.append(f)
        else:
            blockers.append((k, f, d))
    return blockers, over, screen


def _corner_blockers(a: Field, corners, special, why) -> tuple[list, list[Field]]:
    """§6.1 diagonal rule: one of the two fields at each corner the line passes must be free; (blockers, troops
    overshot at a corner)."""
    ax, ay = a
    blockers = []
    over: list[Field] = []
    for (px, py), (qx, qy) in corners:
        p, q = (ax + px, ay + py), (ax + qx, ay + qy)
        if p not in special or q not in special:
            continue
        wp, wq = why(p), why(q)
        if wp is None or wq is None:
            continue
        if wp[0] == "screen" or wq[0] == "screen":
            continue
        if wp[0] == "over" or wq[0] == "over":
            over.append(p if wp[0] == "over" else q)
            continue
        blockers.append(("corner", p, q))
    return blockers, over


def _overshoot_blocker(a: Field, b: Field, crossed, over: list[Field], why, weapon: str | None, opts: Options):
    """§6.2 / §11 A13: overshooting needs a free field between the overshot troops and the target (all troops,
    [L:Höhenfeld]); artillery also one next to the firer ([L:Feuerkampf]). The blocker if one is missing."""
    ax, ay = a
    vx, vy = b[0] - ax, b[1] - ay

    def along(f: Field) -> int:
        return (f[0] - ax) * vx + (f[1] - ay) * vy

    free = [(ax + x, ay + y) for x, y in crossed if why((ax + x, ay + y)) is None]
    last = max(along(f) for f in over)
    first = min(along(f) for f in over)
    if not any(along(f) > last for f in free):
        return ("overshoot_target", over[-1], None)
    at_firer = weapon == "artillery" and opts.artillery_overshoot_free_field_at_firer
    if at_firer and not any(along(f) < first for f in free):
        return ("overshoot_firer", over[0], None)
    return None


def trace(
    pos: WienerPosition,
    a: Field,
    b: Field,
    observer: WienerPiece | None = None,
    weapon: str | None = None,
    opts: Options = DEFAULT,
) -> Line:
    """The line from a to b (§6.1). Without an observer only terrain, heights and troops count (symmetric);
    with one, it may overshoot troops from a height (§6.2) and artillery fires through skirmishers (§6.3)."""
    crossed, corners = line_offsets(b[0] - a[0], b[1] - a[1])
    if not crossed and not corners:
        return Line(True)
    terrain, heights, occ, special = _maps(pos)
    top = max(heights.get(a, 0), heights.get(b, 0))
    obs_h = heights.get(a, 0) if observer is not None else None
    skirm_ok = weapon == "artillery" and opts.artillery_fires_through_skirmishers

    def why(f: Field):
        """(kind, detail) of a blocker, ("over"|"screen", None) for passed troops, or None if free."""
        t = terrain.get(f)
        if t is not None:
            return "terrain", t
        h = heights.get(f, 0)
        if h > top:  # §6.2 heights: a field blocks when higher than both ends
            return "height", h
        troops = occ.get(f)
        if not troops:
            return None
        if obs_h is not None and obs_h >= h + 1:  # §6.2 overshooting from a height
            if opts.overshoot_enemy_troops or all(t.side == observer.side for t in troops):
                return "over", None
        if skirm_ok and all(is_skirmisher(t) for t in troops):  # §6.3 artillery fires through skirmishers
            return "screen", None
        return "troops", None

    blockers, over, screen = _passed_fields(a, crossed, special, why)
    at_corners, over_corners = _corner_blockers(a, corners, special, why)
    blockers += at_corners
    over += over_corners
    if over and not blockers and observer is not None:
        blocker = _overshoot_blocker(a, b, crossed, over, why, weapon, opts)
        if blocker:
            blockers.append(blocker)
    return Line(not blockers, tuple(blockers), tuple(over), tuple(screen))


def deep(pos: WienerPosition, f: Field) -> bool:
    """§6.4 a wood/town field with no edge: every neighbour on the grid is wood or town too."""
    kind = ("wood",) if pos.terrain(f) == "wood" else ("town", "church")
    return all(pos.terrain(n) in kind for n in neighbours(f) if pos.on_grid(n))


def recognition_limit(pos: WienerPosition, target: WienerPiece, d: int, opts: Options = DEFAULT) -> str | None:
    """Why the target cannot be recognised (so not engaged) at distance d, or None (§6.4, §6.5)."""
    if pos.night and d > 1:
        return "at night sight and fire reach 1 LE (§6.5)"
    if target.type == "general" and d > 2:
        return "a general is not recognised beyond 2 LE (§6.5)"
    t = pos.terrain(target.field)
    if t in ("wood", "town", "church"):
        if d > 1 and deep(pos, target.field):
            return f"troops deep in a {t} are recognised only at 1 LE (§6.4)"
        if d > 3 and not (target.fought and opts.edge_visibility_only_unfought):
            return f"troops at a {t} edge are seen at 3 LE (§6.4)"
    return None


def line_of_sight(pos: WienerPosition, a: Field, b: Field) -> bool:
    """The plain §6.1 line: terrain, heights, troops and the corner rule; symmetric in a and b."""
    return trace(pos, a, b).clear


def sees(pos: WienerPosition, observer: WienerPiece, target: WienerPiece, opts: Options = DEFAULT) -> Line:
    """The observer's line to the target, with recognition limits folded in as a reason."""
    line = trace(pos, observer.field, target.field, observer, None, opts)
    lim = recognition_limit(pos, target, distance(observer.field, target.field), opts)
    if line.clear and lim:
        return Line(False, extra=lim)
    return line
