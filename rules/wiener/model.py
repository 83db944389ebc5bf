"""The Wiener Napoleon position: terrain per field, obstacles on field edges, pieces with formation and markers.

Field names, facings and distances come from `rules.position` / `rules.geometry`; this module adds the
vocabulary of the Wiener Napoleon Kriegsspielregeln 2022 and its JSON position file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any

from common.errors import InputError
from common.fields import field_name
from rules.position import Field, GridPiece, GridPosition, parse_facing, parse_grid_field

SYSTEM = "wiener"

# §3.1 one terrain per field; roads are tape in a field (`"road": true` puts one through other terrain)
TERRAINS = ("open", "road", "wood", "town", "church", "swamp", "water", "mountain")
# §5.6 linear obstacles on field edges
OBSTACLES = ("ditch", "stream", "wall", "fence", "barricade", "chevaux_de_frise")
TYPES = ("infantry", "light_cavalry", "heavy_cavalry", "artillery", "horse_artillery", "pioneers", "general")
FORMATIONS: dict[str, tuple[str, ...]] = {
    "infantry": ("line", "column", "square", "skirmish", "buildings"),  # §3.7
    "light_cavalry": ("mounted", "dismounted"),
    "artillery": ("limbered", "unlimbered"),  # §2.2 barrel direction; limbering is no action (§11 A33)
    "horse_artillery": ("limbered", "unlimbered"),
}
DEFAULT_FORMATION = {"infantry": "line", "light_cavalry": "mounted", "artillery": "unlimbered",
                     "horse_artillery": "unlimbered"}
MARKERS = ("none", "red", "grey", "black")  # §8.3
MARKER_PENALTY = {"red": 1, "grey": 2}
BRIDGES = ("wood", "stone")
FORTIFICATIONS = ("light", "heavy")

# Per-turn state the camera cannot see (§13): kept in the position so that a rule can be asked later.
FLAGS = (
    "fired",  # fired this turn: may not attack in melee (§8.7)
    "shot_out",  # fired in a Gegenzug: no melee defence (§8.4)
    "moved",  # moved this phase: artillery may not fire (§5.2)
    "road_march",  # moved at road speed: may not fire or attack (§5.4)
    "fought",  # has fought: seen beyond 3 LE at a wood/town edge (§6.4, §11 A14)
    "downhill",  # came down from a height this turn: +1 in melee (§8.7)
    "charged",  # a lancer's first charge is used (§2.1)
    "rerolled",  # an attached general's re-roll is used (§8.11)
    "working",  # at work: unformed, no combat (§5.2)
)


@dataclass(frozen=True)
class FieldState:
    terrain: str = "open"
    height: int = 0  # height plates (§3.1)
    road: bool = False  # a road through a non-road field (§3.1)
    bridge: str | None = None  # wood | stone (§9)
    damaged: bool = False  # bridge made unusable (§8.4)
    cover_lost: int = 0  # cover values shot away (§8.4)
    burning: bool = False  # §9
    fortification: str | None = None  # light | heavy, scenario only (§8.4)

    @property
    def has_road(self) -> bool:
        return self.terrain == "road" or self.road or (self.bridge is not None and not self.damaged)


@dataclass(frozen=True)
class Edge:
    """An obstacle on the line between two orthogonally adjacent fields (§3.1, §5.6)."""

    fields: tuple[Field, Field]
    obstacle: str
    crossing: bool = False  # a ford or fixed crossing: artillery may pass a ditch/stream (§5.6)


@dataclass(frozen=True)
class WienerPiece(GridPiece):
    formation: str | None = None
    bases: int = 1
    markers: tuple[str, ...] = ()
    unit: str | None = None  # battalion / regiment the piece belongs to
    parent: str | None = None  # a skirmisher's parent piece (§8.9)
    attached_to: str | None = None  # a general attached to a fighting piece (§8.11)
    elite: int = 0  # scenario combat bonus (§9)
    loss_test: int = 4  # loss test succeeds (base lost) on this or more (§8.2)
    rally: int = 4  # rally roll needed (§8.10)
    lancer: bool = False
    fired: bool = False
    shot_out: bool = False
    moved: bool = False
    road_march: bool = False
    fought: bool = False
    downhill: bool = False
    charged: bool = False
    rerolled: bool = False
    working: bool = False
    gegenzug: tuple[str, ...] = ()  # the targets it fired a Gegenzug at this turn: one per target (§8.4)

    @property
    def black(self) -> bool:
        return "black" in self.markers


@dataclass(frozen=True, eq=True)
class WienerPosition(GridPosition):
    night: bool = False
    fields: Mapping[Field, FieldState] = field(default_factory=dict)
    edges: tuple[Edge, ...] = ()

    def field_state(self, f: Field) -> FieldState:
        return self.fields.get(f, _OPEN)

    def terrain(self, f: Field) -> str:
        return self.fields.get(f, _OPEN).terrain

    def height(self, f: Field) -> int:
        return self.fields.get(f, _OPEN).height

    @cached_property
    def edge_map(self) -> dict[frozenset, Edge]:
        return {frozenset(e.fields): e for e in self.edges}

    def edge(self, a: Field, b: Field) -> Edge | None:
        return self.edge_map.get(frozenset((a, b)))

    def with_pieces(self, pieces) -> WienerPosition:
        return replace(self, pieces=tuple(pieces))


_OPEN = FieldState()

# ---------------------------------------------------------------- JSON

_PIECE_KEYS = ("id", "side", "type", "field", "facing", "formation", "bases", "marker", "unit", "parent",
               "attached_to", "elite", "loss_test", "rally", "lancer", "gegenzug") + FLAGS
_FIELD_KEYS = tuple(f.name for f in fields(FieldState))
_TOP_KEYS = ("system", "grid", "night", "fields", "edges", "pieces")


def _check_keys(obj: Any, allowed: tuple[str, ...], what: str) -> Mapping:
    if not isinstance(obj, Mapping):
        raise InputError(f"{what}: must be a JSON object")
    for k in obj:
        if k not in allowed:
            raise InputError(f"{what}: unknown key {k!r} (known: {' '.join(allowed)})")
    return obj


def _int(v: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InputError(f"{what}: must be a whole number {lo}..{hi}, not {v!r}")
    return v


def _bool(v: Any, what: str) -> bool:
    if not isinstance(v, bool):
        raise InputError(f"{what}: must be true or false, not {v!r}")
    return v


def _choice(v: Any, choices: tuple[str, ...], what: str) -> str:
    if v not in choices:
        raise InputError(f"{what}: unknown value {v!r} (one of {' '.join(choices)})")
    return v


def _opt_str(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v:
        raise InputError(f"{what}: must be a non-empty string, not {v!r}")
    return v


def _field_state(spec: Any, what: str) -> FieldState:
    _check_keys(spec, _FIELD_KEYS, what)
    kw: dict[str, Any] = {}
    if "terrain" in spec:
        kw["terrain"] = _choice(spec["terrain"], TERRAINS, f"{what} terrain")
    if "height" in spec:
        kw["height"] = _int(spec["height"], f"{what} height", 0, 20)
    for k in ("road", "damaged", "burning"):
        if k in spec:
            kw[k] = _bool(spec[k], f"{what} {k}")
    if "bridge" in spec:
        kw["bridge"] = _choice(spec["bridge"], BRIDGES, f"{what} bridge")
    if "fortification" in spec:
        kw["fortification"] = _choice(spec["fortification"], FORTIFICATIONS, f"{what} fortification")
    if "cover_lost" in spec:
        kw["cover_lost"] = _int(spec["cover_lost"], f"{what} cover_lost", 0, 2)
    return FieldState(**kw)


def _fields_from_dict(raw_fields: Any, cols: int, rows: int, source: str) -> dict[Field, FieldState]:
    """The fields that are not open ground; an all-default field is canonically left out."""
    fmap: dict[Field, FieldState] = {}
    seen_fields: set[Field] = set()
    if not isinstance(raw_fields, Mapping):
        raise InputError(f"{source}: fields must be an object of field name -> terrain")
    for name, spec in raw_fields.items():
        what = f"{source}: field {name}"
        f = parse_grid_field(name, cols, rows, what)
        if f in seen_fields:
            raise InputError(f"{what}: given twice")
        seen_fields.add(f)
        state = _field_state(spec, what)
        if state != FieldState():
            fmap[f] = state
    return fmap


def _edges_from_dict(raw_edges: Any, cols: int, rows: int, source: str) -> tuple[Edge, ...]:
    edges: list[Edge] = []
    seen: set[frozenset] = set()
    if not isinstance(raw_edges, list):
        raise InputError(f"{source}: edges must be a list")
    for i, spec in enumerate(raw_edges):
        what = f"{source}: edge {i + 1}"
        _check_keys(spec, ("fields", "obstacle", "crossing"), what)
        names = spec.get("fields")
        if not isinstance(names, list) or len(names) != 2:
            raise InputError(f"{what}: fields must be a list of two field names")
        a = parse_grid_field(names[0], cols, rows, what)
        b = parse_grid_field(names[1], cols, rows, what)
        what = f"{source}: edge {names[0]}-{names[1]}"
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            raise InputError(f"{what}: an obstacle lies on a field line, between two orthogonal neighbours")
        if frozenset((a, b)) in seen:
            raise InputError(f"{what}: given twice")
        seen.add(frozenset((a, b)))
        obstacle = _choice(spec.get("obstacle"), OBSTACLES, f"{what} obstacle")
        crossing = _bool(spec.get("crossing", False), f"{what} crossing")
        edges.append(Edge((a, b), obstacle, crossing))
    return tuple(edges)


def _formation(spec: Mapping, ptype: str, what: str) -> str | None:
    if "formation" not in spec:
        return DEFAULT_FORMATION.get(ptype)
    allowed = FORMATIONS.get(ptype, ())
    if not allowed:
        raise InputError(f"{what}: a {ptype} piece has no formation")
    return _choice(spec["formation"], allowed, f"{what} formation ({ptype})")


def _markers(m: Any, what: str) -> tuple[str, ...]:
    """§8.3 a marker name or a list of them; "none" alone for no marker."""
    ms = [m] if isinstance(m, str) else m
    if not isinstance(ms, list):
        raise InputError(f"{what}: marker must be a name or a list of names")
    ms = [_choice(x, MARKERS, f"{what} marker") for x in ms]
    if m == "none":
        return ()
    if "none" in ms:
        raise InputError(f"{what}: marker 'none' cannot stand in a list")
    return tuple(ms)


def _piece_from_dict(spec: Mapping, pid: str, what: str, cols: int, rows: int) -> WienerPiece:
    for k in ("side", "type", "field", "facing"):
        if k not in spec:
            raise InputError(f"{what}: missing {k!r}")
    side = _opt_str(spec["side"], f"{what} side")
    ptype = _choice(spec["type"], TYPES, f"{what} type")
    f = parse_grid_field(spec["field"], cols, rows, what)
    facing = parse_facing(spec["facing"], what)
    kw: dict[str, Any] = {"formation": _formation(spec, ptype, what)}
    if "bases" in spec:
        kw["bases"] = _int(spec["bases"], f"{what} bases", 1, 12)
    if "marker" in spec:
        kw["markers"] = _markers(spec["marker"], what)
    for k in ("unit", "parent", "attached_to"):
        if k in spec:
            kw[k] = _opt_str(spec[k], f"{what} {k}")
    if "elite" in spec:
        kw["elite"] = _int(spec["elite"], f"{what} elite", -2, 2)
    for k in ("loss_test", "rally"):
        if k in spec:
            kw[k] = _int(spec[k], f"{what} {k}", 2, 6)
    for k in ("lancer",) + FLAGS:
        if k in spec:
            kw[k] = _bool(spec[k], f"{what} {k}")
    if "gegenzug" in spec:
        g = spec["gegenzug"]
        if not isinstance(g, list):
            raise InputError(f"{what}: gegenzug must be a list of the piece ids it fired a Gegenzug at")
        kw["gegenzug"] = tuple(_opt_str(x, f"{what} gegenzug") for x in g)
    if kw.get("lancer") and ptype != "light_cavalry":
        raise InputError(f"{what}: only light cavalry can be lancers")
    return WienerPiece(pid, side, ptype, f, facing, **kw)


def _pieces_from_dict(raw_pieces: Any, cols: int, rows: int, source: str) -> list[WienerPiece]:
    if not isinstance(raw_pieces, list):
        raise InputError(f"{source}: pieces must be a list")
    pieces: list[WienerPiece] = []
    ids: set[str] = set()
    for i, spec in enumerate(raw_pieces):
        pid = spec.get("id") if isinstance(spec, Mapping) else None
        what = f"{source}: piece {pid!r}" if isinstance(pid, str) else f"{source}: piece {i + 1}"
        _check_keys(spec, _PIECE_KEYS, what)
        pid = _opt_str(pid, f"{what} id")
        if pid in ids:
            raise InputError(f"{what}: id given twice")
        ids.add(pid)
        pieces.append(_piece_from_dict(spec, pid, what, cols, rows))
    return pieces


def _check_references(pieces: list[WienerPiece], source: str) -> None:
    """A skirmisher's parent (§8.9) and an attached general's piece (§8.11) are friends in the position."""
    by_id = {p.id: p for p in pieces}
    for p in pieces:
        what = f"{source}: piece {p.id!r}"
        for k in ("parent", "attached_to"):
            ref = getattr(p, k)
            if ref is None:
                continue
            if ref not in by_id:
                raise InputError(f"{what}: {k} names no piece ({ref!r})")
            if by_id[ref].side != p.side:
                raise InputError(f"{what}: {k} {ref!r} is an enemy piece")
        if p.attached_to is not None and p.type != "general":
            raise InputError(f"{what}: only a general can be attached to another piece")


def _check_one_side_per_field(pieces: list[WienerPiece], source: str) -> None:
    occupants: dict[Field, str] = {}
    for p in pieces:
        other = occupants.setdefault(p.field, p.side)
        if other != p.side:
            raise InputError(f"{source}: field {field_name(*p.field)} holds pieces of both sides")


def position_from_dict(data: Mapping[str, Any], source: str = "position") -> WienerPosition:
    _check_keys(data, _TOP_KEYS, source)
    if data.get("system") != SYSTEM:
        raise InputError(f"{source}: system must be {SYSTEM!r}")
    grid = _check_keys(data.get("grid"), ("cols", "rows"), f"{source}: grid")
    cols = _int(grid.get("cols"), f"{source}: grid cols", 1, 702)
    rows = _int(grid.get("rows"), f"{source}: grid rows", 1, 999)
    night = _bool(data.get("night", False), f"{source}: night")
    fmap = _fields_from_dict(data.get("fields", {}), cols, rows, source)
    edges = _edges_from_dict(data.get("edges", []), cols, rows, source)
    pieces = _pieces_from_dict(data.get("pieces", []), cols, rows, source)
    _check_references(pieces, source)
    _check_one_side_per_field(pieces, source)
    return WienerPosition(SYSTEM, tuple(pieces), cols, rows, night=night, fields=fmap, edges=edges)


def piece_to_dict(p: WienerPiece) -> dict:
    out: dict[str, Any] = {"id": p.id, "side": p.side, "type": p.type, "field": field_name(*p.field),
                           "facing": p.facing}
    if p.formation is not None and p.formation != DEFAULT_FORMATION.get(p.type):
        out["formation"] = p.formation
    out["bases"] = p.bases
    if p.markers:
        out["marker"] = p.markers[0] if len(p.markers) == 1 else list(p.markers)
    for k in ("unit", "parent", "attached_to"):
        if getattr(p, k) is not None:
            out[k] = getattr(p, k)
    if p.elite:
        out["elite"] = p.elite
    if p.loss_test != 4:
        out["loss_test"] = p.loss_test
    if p.rally != 4:
        out["rally"] = p.rally
    for k in ("lancer",) + FLAGS:
        if getattr(p, k):
            out[k] = True
    if p.gegenzug:
        out["gegenzug"] = list(p.gegenzug)
    return out


def field_to_dict(s: FieldState) -> dict:
    out: dict[str, Any] = {}
    for f in fields(FieldState):
        v = getattr(s, f.name)
        if v != f.default:
            out[f.name] = v
    return out


def position_to_dict(pos: WienerPosition) -> dict:
    out: dict[str, Any] = {"system": SYSTEM, "grid": {"cols": pos.cols, "rows": pos.rows}, "night": pos.night}
    fs = {field_name(*f): field_to_dict(s) for f, s in pos.fields.items()}
    out["fields"] = {k: v for k, v in fs.items() if v}
    out["edges"] = []
    for e in pos.edges:
        d: dict[str, Any] = {"fields": [field_name(*e.fields[0]), field_name(*e.fields[1])], "obstacle": e.obstacle}
        if e.crossing:
            d["crossing"] = True
        out["edges"].append(d)
    out["pieces"] = [piece_to_dict(p) for p in pos.pieces]
    return out


def dumps(pos: WienerPosition) -> str:
    """The canonical text: one top-level key per line, one field, edge or piece per line."""
    d = position_to_dict(pos)

    def j(v):
        return json.dumps(v, ensure_ascii=False)

    def block(items: list[str], opening: str, closing: str) -> str:
        if not items:
            return opening + closing
        return opening + "\n" + ",\n".join("    " + s for s in items) + "\n  " + closing

    lines = [
        f'  "system": {j(d["system"])}',
        f'  "grid": {j(d["grid"])}',
        f'  "night": {j(d["night"])}',
        '  "fields": ' + block([f"{j(k)}: {j(v)}" for k, v in d["fields"].items()], "{", "}"),
        '  "edges": ' + block([j(e) for e in d["edges"]], "[", "]"),
        '  "pieces": ' + block([j(p) for p in d["pieces"]], "[", "]"),
    ]
    return "{\n" + ",\n".join(lines) + "\n}\n"
