"""DBX position files: scale, table, terrain polygons, elements on rectangular bases, game state (§2, §3, §12).

    {"system": "dbx", "scale": {"mm_per_pace": 0.25, "bb_mm": 40}, "table": {"width_mm": 600, "depth_mm": 600},
     "terrain": [{"id": "w1", "type": "wood", "polygon": [[100, 100], [180, 100], [180, 160], [100, 160]]}],
     "pieces": [{"id": "p1", "side": "blue", "type": "Li", "x_mm": 300, "y_mm": 150, "heading_deg": 0}]}

A piece's `x_mm`, `y_mm` is its base centre and `heading_deg` the compass bearing its front faces (0 = +y).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from common.errors import InputError
from rules.dbx import geom
from rules.dbx.tables import ALIASES, HILLS, QUALITIES, TERRAIN_KINDS, UNIT_TYPES, WEATHERS, UnitType
from rules.position import Piece, Position

SYSTEM = "dbx"


@dataclass(frozen=True)
class Scale:
    """§3.1: 100 paces = 25 mm at 15 mm figures; one base width (BB) = 40 mm."""

    mm_per_pace: float = 0.25
    bb_mm: float = 40.0

    def mm(self, paces: float) -> float:
        return paces * self.mm_per_pace

    def paces(self, mm: float) -> float:
        return mm / self.mm_per_pace

    def bb(self, mm: float) -> float:
        return mm / self.bb_mm


@dataclass(frozen=True)
class Terrain:
    """§3.7 / §9.1 a terrain feature: area polygon(s), optional hill crest, river/road/waterway outline."""

    id: str
    type: str
    polygon: tuple[tuple[float, float], ...] = ()
    line: tuple[tuple[float, float], ...] = ()
    width_mm: float | None = None
    crest: tuple[tuple[float, float], ...] = ()
    ford: bool = False

    @cached_property
    def parts(self) -> tuple[np.ndarray, ...]:
        """The area as polygons (a line feature is buffered to its width)."""
        if self.polygon:
            return (np.array(self.polygon, float),)
        return tuple(geom.buffer_polyline(np.array(self.line, float), float(self.width_mm or 0.0)))

    @cached_property
    def crest_line(self) -> np.ndarray | None:
        if self.crest:
            return np.array(self.crest, float)
        if self.type in HILLS and self.polygon:
            return np.array(self.polygon, float).mean(axis=0)[None]
        return None

    @cached_property
    def part_points(self) -> tuple[tuple[list[tuple[float, float]], tuple[float, float, float, float]], ...]:
        """Each part's corners as float pairs with its bounding box (for geom's early outs)."""
        return tuple((geom._pts(q), geom._box(geom._pts(q))) for q in self.parts)

    def contains(self, p) -> bool:
        x, y = float(p[0]), float(p[1])
        return any(geom._pip(x, y, pts, box) for pts, box in self.part_points)

    def touches_rect(self, rect: np.ndarray, tol: float = 0.0) -> bool:
        """Part of the rectangle lies in the feature (reaching more than tol into it)."""
        return any(geom.polygon_area_overlap(rect, q, tol) for q in self.parts)

    def height(self, p) -> float:
        """§6.8 hill height model: 0 at the outline rising to 1 on the crest (a user-given polyline)."""
        if self.type not in HILLS or not self.contains(p):
            return 0.0
        de = min(geom.boundary_distance(p, q) for q in self.parts)
        dc = geom.point_polyline(p, self.crest_line)
        return de / (de + dc) if de + dc > 0 else 1.0


@dataclass(frozen=True)
class DbxPiece(Piece):
    """An element (§2.1) on a rectangular base. `type` is the resolved code (Dr -> DrI / DrK, aliases mapped)."""

    x_mm: float = 0.0
    y_mm: float = 0.0
    heading_deg: float = 0.0
    code: str = ""  # the type as written in the file
    quality: str = ""  # §8.1 "Gr" / "Fr"
    command: str = ""  # §9.4 the command (general) it belongs to
    horde: bool = False  # §5.1 / A1 St based as hordes: +1 PIP
    depth_mm: float | None = None  # St may stand on deeper bases (§2.1)
    square: int = 0  # §5.11 status markers: 0 = not in square
    moves: int = 0  # §5.5 tactical moves made this bound
    charged: bool = False  # §8.4 charged into contact this bound (1st round of melee)
    english: bool = False  # §8.6 / A16 English mounted
    defending: str = ""  # §8.4 "bua", "camp", "fortress", "bank" (defender bonuses)
    range_paces: int | None = None  # §7 a list's own range (English guns at Culloden: 700)
    saved_pips: int = 0  # §5.1 Ck saved PIPs to shoot
    c_in_c: bool = False  # §9.4
    ally: bool = False  # §9.4
    ammo_own: int = 0  # §8.8 camp fire phases used in its own bounds (of 3)
    ammo_enemy: int = 0  # §8.8 camp fire phases used in the enemy's bounds (of 3)

    @property
    def ut(self) -> UnitType:
        return UNIT_TYPES[self.type]

    def where(self) -> tuple[str, str]:
        return f"{self.x_mm:.0f}, {self.y_mm:.0f}", f"{self.heading_deg:.0f}°"


@dataclass(frozen=True)
class Game:
    """Game state the camera cannot see (§2.3): bound, weather, river type, losses."""

    bound: int = 1
    active: str = ""
    first_bound: tuple[str, ...] = ()  # sides still in their first bound (§5.1, §5.5)
    weather: str = "G"  # §9.2
    fog: bool = False  # §9.2 fog/blizzard still on
    river: str = ""  # §5.9 "", "shallow", "slow", "torrent"
    crossing_stopped: bool = False  # §5.9 a failed torrent crossing this bound
    lost: tuple[tuple[str, int], ...] = ()  # §9.3 elements lost per side
    start: tuple[tuple[str, int], ...] = ()  # §9.3 / §9.6 starting strength per side or command
    big_battle: bool = False  # §9.4
    demoralised: tuple[str, ...] = ()  # §9.6 demoralised commands (or sides)
    camp_sacked: tuple[str, ...] = ()  # §9.6 sides whose camp is sacked

    def lost_of(self, side: str) -> int:
        return dict(self.lost).get(side, 0)


@dataclass(frozen=True)
class DbxPosition(Position):
    scale: Scale = Scale()
    width_mm: float = 600.0
    depth_mm: float = 600.0
    terrain: tuple[Terrain, ...] = ()
    game: Game = field(default_factory=Game)

    @cached_property
    def terrain_by_id(self) -> dict[str, Terrain]:
        return {t.id: t for t in self.terrain}

    def with_pieces(self, pieces) -> DbxPosition:
        return replace(self, pieces=tuple(pieces))


def base_size(p: DbxPiece, scale: Scale) -> tuple[float, float]:
    """§2.1 / §3.2: (front width, depth) in mm. 40 mm x depth at 15 mm scaled by bb_mm; the general's base is
    turned 90 degrees, so its front is the short side."""
    k = scale.bb_mm / 40.0
    if p.type == "Gen":
        return scale.bb_mm / 2.0, scale.bb_mm
    if p.type == "Camp":
        return scale.bb_mm * 2.0, scale.bb_mm * 2.0  # §2.2 length + width <= 4 BB
    depth = p.depth_mm if p.depth_mm is not None else p.ut.depth_cm * 10.0 * k
    return scale.bb_mm, depth


def corners(p: DbxPiece, scale: Scale) -> np.ndarray:
    """The base's corners (geom.rectangle), remembered per pose and size: a read-only array, never modify it."""
    w, d = base_size(p, scale)
    return _rectangle(p.x_mm, p.y_mm, p.heading_deg, w, d)


@lru_cache(maxsize=8192)
def _rectangle(x: float, y: float, heading: float, w: float, d: float) -> np.ndarray:
    r = geom.rectangle(x, y, heading, w, d)
    r.setflags(write=False)
    return r


@lru_cache(maxsize=8192)
def _grown(x: float, y: float, heading: float, w: float, d: float, by: float) -> np.ndarray:
    r = geom.shrink(_rectangle(x, y, heading, w, d), -by)
    r.setflags(write=False)
    return r


def grown_corners(p: DbxPiece, scale: Scale, by: float) -> np.ndarray:
    """geom.shrink(corners(p, scale), -by), remembered (read-only)."""
    w, d = base_size(p, scale)
    return _grown(p.x_mm, p.y_mm, p.heading_deg, w, d, by)


# ---------------------------------------------------------------- parsing

_TOP = ("system", "scale", "table", "terrain", "pieces", "game")
_PIECE = (
    "id side type x_mm y_mm heading_deg quality command mode depth_mm square moves charged english defending "
    "range_paces saved_pips c_in_c ally ammo_own ammo_enemy uncertainty_mm"
).split()
_TERRAIN = ("id", "type", "polygon", "line", "width_mm", "crest", "ford")
_GAME = ("bound", "active", "first_bound", "weather", "fog", "river", "crossing_stopped", "lost", "start",
         "big_battle", "demoralised", "camp_sacked")
DEFENDING = ("", "bua", "camp", "fortress", "bank", "cover")


def _keys(obj: Any, allowed, what: str) -> Mapping:
    if not isinstance(obj, Mapping):
        raise InputError(f"{what}: must be a JSON object")
    extra = [k for k in obj if k not in allowed]
    if extra:
        raise InputError(f"{what}: unknown key {extra[0]!r} (allowed: {' '.join(allowed)})")
    return obj


def _num(v: Any, what: str, lo: float = -math.inf, hi: float = math.inf, positive: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise InputError(f"{what}: must be a number, not {v!r}")
    if positive and v <= 0:
        raise InputError(f"{what}: must be positive, not {v!r}")
    if not lo <= v <= hi:
        raise InputError(f"{what}: must be between {lo:g} and {hi:g}, not {v!r}")
    return float(v)


def _int(v: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InputError(f"{what}: must be a whole number {lo}..{hi}, not {v!r}")
    return v


def _bool(v: Any, what: str) -> bool:
    if not isinstance(v, bool):
        raise InputError(f"{what}: must be true or false, not {v!r}")
    return v


def _str(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v:
        raise InputError(f"{what}: must be a non-empty string, not {v!r}")
    return v


def _points(v: Any, what: str, min_n: int) -> tuple[tuple[float, float], ...]:
    if not isinstance(v, list) or len(v) < min_n:
        raise InputError(f"{what}: must be a list of at least {min_n} [x, y] points")
    out = []
    for i, pt in enumerate(v):
        if not isinstance(pt, list | tuple) or len(pt) != 2:
            raise InputError(f"{what}: point {i + 1} must be [x, y], not {pt!r}")
        out.append((_num(pt[0], f"{what} point {i + 1}"), _num(pt[1], f"{what} point {i + 1}")))
    return tuple(out)


def resolve_type(code: str, mode: str | None, what: str, dragoon_default: str = "cavalry") -> str:
    """The table row for a type code (§2.1): aliases (Lw, Pa, LH, Kä, ...), Dr by its mode (A26)."""
    if code in ("Dr", "DrI", "DrK"):
        if code != "Dr":
            return code
        m = mode or dragoon_default
        if m not in ("cavalry", "mounted_infantry"):
            raise InputError(f"{what}: dragoon mode must be cavalry or mounted_infantry, not {m!r}")
        return "DrK" if m == "cavalry" else "DrI"
    t = ALIASES.get(code, code)
    if t not in UNIT_TYPES:
        known = " ".join(sorted(set(UNIT_TYPES) - {"DrI", "DrK"} | {"Dr"} | set(ALIASES)))
        raise InputError(f"{what}: unknown element type {code!r} (known: {known})")
    return t


def _piece(spec: Any, i: int, source: str, scale: Scale) -> DbxPiece:
    what = f"{source}: piece {i + 1}"
    _keys(spec, _PIECE, what)
    pid = _str(spec.get("id"), f"{what} id")
    what = f"{source}: piece {pid!r}"
    for k in ("side", "type", "x_mm", "y_mm", "heading_deg"):
        if k not in spec:
            raise InputError(f"{what}: missing {k!r}")
    side = _str(spec["side"], f"{what} side")
    code = _str(spec["type"], f"{what} type")
    mode = spec.get("mode")
    if mode is not None and mode not in ("cavalry", "mounted_infantry", "horde"):
        raise InputError(f"{what}: mode must be cavalry, mounted_infantry or horde, not {mode!r}")
    ptype = resolve_type(code, mode if mode != "horde" else None, what)
    x = _num(spec["x_mm"], f"{what} x_mm")
    y = _num(spec["y_mm"], f"{what} y_mm")
    h = _num(spec["heading_deg"], f"{what} heading_deg") % 360.0
    quality = spec.get("quality", "")
    if code in QUALITIES:
        quality = quality or code
    if quality not in ("",) + QUALITIES:
        raise InputError(f"{what}: quality must be Gr or Fr, not {quality!r}")
    kw = _piece_state(spec, what)
    return DbxPiece(
        id=pid, side=side, type=ptype, x_mm=x, y_mm=y,
        heading_deg=h, code=code, quality=quality, horde=(mode == "horde"), **kw,
    )


def _piece_state(spec: Mapping, what: str) -> dict[str, Any]:
    """An element's optional fields: its base depth, status markers and counters, and its command."""
    kw: dict[str, Any] = {}
    if "depth_mm" in spec:
        kw["depth_mm"] = _num(spec["depth_mm"], f"{what} depth_mm", positive=True)
    if "square" in spec:
        kw["square"] = _int(spec["square"], f"{what} square", 0, 5)
    for k in ("moves", "saved_pips", "ammo_own", "ammo_enemy"):
        if k in spec:
            kw[k] = _int(spec[k], f"{what} {k}", 0, 99)
    for k in ("charged", "english", "c_in_c", "ally"):
        if k in spec:
            kw[k] = _bool(spec[k], f"{what} {k}")
    if "defending" in spec:
        if spec["defending"] not in DEFENDING:
            raise InputError(f"{what}: defending must be one of {' '.join(DEFENDING[1:])}, not {spec['defending']!r}")
        kw["defending"] = spec["defending"]
    if "range_paces" in spec:
        kw["range_paces"] = _int(spec["range_paces"], f"{what} range_paces", 0, 5000)
    if "command" in spec:
        kw["command"] = _str(spec["command"], f"{what} command")
    if spec.get("uncertainty_mm") is not None:  # one standard deviation of the camera's measure (rules/position.py)
        kw["uncertainty_mm"] = _num(spec["uncertainty_mm"], f"{what} uncertainty_mm", 0.0, 1000.0)
    return kw


def _terrain(spec: Any, i: int, source: str) -> Terrain:
    what = f"{source}: terrain {i + 1}"
    _keys(spec, _TERRAIN, what)
    tid = _str(spec.get("id"), f"{what} id")
    what = f"{source}: terrain {tid!r}"
    kind = spec.get("type")
    if kind not in TERRAIN_KINDS:
        raise InputError(f"{what}: type must be one of {' '.join(TERRAIN_KINDS)}, not {kind!r}")
    kw: dict[str, Any] = {}
    if "polygon" in spec:
        kw["polygon"] = _points(spec["polygon"], f"{what} polygon", 3)
    elif "line" in spec:
        kw["line"] = _points(spec["line"], f"{what} line", 2)
        kw["width_mm"] = _num(spec.get("width_mm"), f"{what} width_mm", positive=True)
    else:
        raise InputError(f"{what}: needs a polygon, or a line with width_mm")
    if "crest" in spec:
        if kind not in HILLS:
            raise InputError(f"{what}: only hills have a crest")
        kw["crest"] = _points(spec["crest"], f"{what} crest", 1)
    if "ford" in spec:
        kw["ford"] = _bool(spec["ford"], f"{what} ford")
    return Terrain(tid, kind, **kw)


def _counts(v: Any, what: str) -> tuple[tuple[str, int], ...]:
    if not isinstance(v, Mapping):
        raise InputError(f"{what}: must be an object of side -> number")
    return tuple(sorted((str(k), _int(n, f"{what} {k}", 0, 999)) for k, n in v.items()))


def _names(v: Any, what: str, of: str) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
        raise InputError(f"{what}: must be a list of {of}")
    return tuple(v)


def _game(spec: Any, source: str) -> Game:
    what = f"{source}: game"
    _keys(spec, _GAME, what)
    kw: dict[str, Any] = {}
    if "bound" in spec:
        kw["bound"] = _int(spec["bound"], f"{what} bound", 1, 999)
    if "active" in spec:
        kw["active"] = _str(spec["active"], f"{what} active")
    if "first_bound" in spec:
        kw["first_bound"] = _names(spec["first_bound"], f"{what} first_bound", "sides")
    if "weather" in spec:
        if spec["weather"] not in WEATHERS:
            raise InputError(f"{what} weather: must be one of {' '.join(WEATHERS)}, not {spec['weather']!r}")
        kw["weather"] = spec["weather"]
    if "river" in spec:
        if spec["river"] not in ("", "shallow", "slow", "torrent"):
            raise InputError(f"{what} river: must be shallow, slow or torrent, not {spec['river']!r}")
        kw["river"] = spec["river"]
    for k in ("fog", "crossing_stopped", "big_battle"):
        if k in spec:
            kw[k] = _bool(spec[k], f"{what} {k}")
    for k in ("lost", "start"):
        if k in spec:
            kw[k] = _counts(spec[k], f"{what} {k}")
    for k in ("camp_sacked", "demoralised"):
        if k in spec:
            kw[k] = _names(spec[k], f"{what} {k}", "names")
    return Game(**kw)


def position_from_dict(data: Mapping[str, Any], source: str = "position") -> DbxPosition:
    _keys(data, _TOP, source)
    if data.get("system") != SYSTEM:
        raise InputError(f"{source}: system must be {SYSTEM!r}")
    sc = _keys(data.get("scale", {}), ("mm_per_pace", "bb_mm"), f"{source}: scale")
    scale = Scale(
        _num(sc.get("mm_per_pace", 0.25), f"{source}: scale mm_per_pace", positive=True),
        _num(sc.get("bb_mm", 40.0), f"{source}: scale bb_mm", positive=True),
    )
    tb = _keys(data.get("table", {}), ("width_mm", "depth_mm"), f"{source}: table")
    width = _num(tb.get("width_mm", 600.0), f"{source}: table width_mm", positive=True)
    depth = _num(tb.get("depth_mm", 600.0), f"{source}: table depth_mm", positive=True)
    raw_t = data.get("terrain", [])
    if not isinstance(raw_t, list):
        raise InputError(f"{source}: terrain must be a list")
    terrain = tuple(_terrain(s, i, source) for i, s in enumerate(raw_t))
    if len({t.id for t in terrain}) != len(terrain):
        raise InputError(f"{source}: two terrain features share an id")
    raw_p = data.get("pieces", [])
    if not isinstance(raw_p, list):
        raise InputError(f"{source}: pieces must be a list")
    pieces = tuple(_piece(s, i, source, scale) for i, s in enumerate(raw_p))
    seen: set[str] = set()
    for p in pieces:
        if p.id in seen:
            raise InputError(f"{source}: piece {p.id!r} is given twice")
        seen.add(p.id)
    game = _game(data.get("game", {}), source)
    return DbxPosition(
        system=SYSTEM, pieces=pieces, scale=scale, width_mm=width, depth_mm=depth, terrain=terrain, game=game,
    )


def _n(v: float):
    r = round(float(v), 3)
    return int(r) if r == int(r) else r


def piece_to_dict(p: DbxPiece) -> dict:
    d: dict[str, Any] = {"id": p.id, "side": p.side, "type": p.code or p.type, "x_mm": _n(p.x_mm),
                         "y_mm": _n(p.y_mm), "heading_deg": _n(p.heading_deg)}
    if p.code == "Dr" or (p.code in ("", "Dr") and p.type in ("DrI", "DrK")):
        d["type"] = "Dr"
        d["mode"] = "cavalry" if p.type == "DrK" else "mounted_infantry"
    if p.horde:
        d["mode"] = "horde"
    if p.quality and p.quality != p.code:
        d["quality"] = p.quality
    for k, default in (("command", ""), ("depth_mm", None), ("square", 0), ("moves", 0), ("charged", False),
                       ("english", False), ("defending", ""), ("range_paces", None), ("saved_pips", 0),
                       ("c_in_c", False), ("ally", False), ("ammo_own", 0),
                       ("ammo_enemy", 0)):
        v = getattr(p, k)
        if v != default:
            d[k] = _n(v) if isinstance(v, float) else v
    if p.uncertainty_mm is not None:
        d["uncertainty_mm"] = _n(p.uncertainty_mm)
    return d


def terrain_to_dict(t: Terrain) -> dict:
    d: dict[str, Any] = {"id": t.id, "type": t.type}
    if t.polygon:
        d["polygon"] = [[_n(x), _n(y)] for x, y in t.polygon]
    else:
        d["line"] = [[_n(x), _n(y)] for x, y in t.line]
        d["width_mm"] = _n(t.width_mm or 0)
    if t.crest:
        d["crest"] = [[_n(x), _n(y)] for x, y in t.crest]
    if t.ford:
        d["ford"] = True
    return d


def game_to_dict(g: Game) -> dict:
    d: dict[str, Any] = {}
    base = Game()
    for k in _GAME:
        v = getattr(g, k)
        if v != getattr(base, k):
            d[k] = dict(v) if k in ("lost", "start") else (list(v) if isinstance(v, tuple) else v)
    return d


def position_to_dict(pos: DbxPosition) -> dict:
    d: dict[str, Any] = {
        "system": SYSTEM,
        "scale": {"mm_per_pace": _n(pos.scale.mm_per_pace), "bb_mm": _n(pos.scale.bb_mm)},
        "table": {"width_mm": _n(pos.width_mm), "depth_mm": _n(pos.depth_mm)},
        "terrain": [terrain_to_dict(t) for t in pos.terrain],
        "pieces": [piece_to_dict(p) for p in pos.pieces],
    }
    g = game_to_dict(pos.game)
    if g:
        d["game"] = g
    return d


def dumps(pos: DbxPosition) -> str:
    """The canonical text: one top-level key per line, one terrain feature or piece per line."""
    d = position_to_dict(pos)

    def j(v):
        return json.dumps(v, ensure_ascii=False)

    def block(items: list) -> str:
        if not items:
            return "[]"
        return "[\n" + ",\n".join("    " + j(s) for s in items) + "\n  ]"

    lines = [f'  "system": {j(d["system"])}', f'  "scale": {j(d["scale"])}', f'  "table": {j(d["table"])}',
             '  "terrain": ' + block(d["terrain"]), '  "pieces": ' + block(d["pieces"])]
    if "game" in d:
        lines.append(f'  "game": {j(d["game"])}')
    return "{\n" + ",\n".join(lines) + "\n}\n"


def moved(p: DbxPiece, x: float, y: float, heading: float | None = None, **kw) -> DbxPiece:
    """The piece at a new place (x, y in table mm, heading a compass bearing; None keeps it)."""
    h = p.heading_deg if heading is None else heading % 360.0
    return replace(p, x_mm=float(x), y_mm=float(y), heading_deg=h, **kw)
