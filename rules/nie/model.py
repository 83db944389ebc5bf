"""Napoleon in Europe (German standard rules): nations, unit types, the strategic map's topology, the battle board's
zones and the JSON position file (digest: shared/rules/napoleon-in-europe.md).

The position file::

    {"system": "nie", "board": "demo",            # "demo" (data/europe_demo.toml, INVENTED), a map file or a
                                                  # digitised board file (TOML path), "table": the live board
     "year": 1805, "month": 1, "round": 1, "start_nation": "france", "active": "france",
     "historical": false,
     "players": {"france": "anna", "britain": "ben"},          # controlled nations (absent: neutral Great Nation)
     "relations": [{"nations": ["britain", "france"], "status": "war", "declared_by": ["britain"]}],
     "passage": [["prussia", "austria"]],                       # [guest, host]
     "truces": [{"victor": "austria", "loser": "france", "until_round": 14}],
     "pp": {"france": 20}, "pap": {"france": 2},
     "c_values": {"britain": 8}, "diplomacy_values": {"france": {"prussia": 6}},   # scenario data (§9.10, §9.8)
     "owners": {"belgium": "france"}, "uprisings": ["ireland"], "moved": ["fr-inf-1"],
     "resisting": {"holland": "france"},                      # a minor resisting annexation (§9.8)
     "production": {"nations": ["france", "britain"],         # the production round under way (§4.1 step 4):
                    "totalled": {"france": 20},               #   income added once a round (§9.4)
                    "built": {"france": {"inf": 2}}},         #   bought this round (§9.5, §8.1 limits)
     "congresses": [{"loser": "spain", "victors": ["france", "britain"], "turn": "britain", "passed": []}],  # §9.8
     "port_attacks": {"port:picardy": ["gb-sq-1"]},           # this player turn (§5.3: at most 2 a port)
     "suppressed": ["ireland"],                               # uprisings rolled for this player turn (§9.9)
     "units": [{"id": "fr-inf-1", "nation": "france", "type": "inf", "at": "belgium"},
               {"id": "gb-sq-1", "nation": "britain", "type": "ship", "at": "bay_of_biscay"}],
     "battle": {"region": "belgium", "attacker": ["france"], "defender": ["britain"], "major": true,
                "amphibious": false, "round": 1, "phase": "cavalry", "acting": "A", "quiet_rounds": 0,
                "came_from": {"fr-inf-1": "picardy"},
                "units": {"fr-inf-1": {"zone": "A-left", "square": false, "used": 0}},
                "deployed": ["A", "B"], "loser": null, "end_reason": null,
                "eliminated": [{"id": "gb-inf-9", "nation": "britain", "type": "inf", "how": "fire"}], "log": []}}

Units in a battle keep their strategic `at` (the battle's region); their zone is in `battle.units`. Zone names:
`A-rout`, `A-reserve`, `A-left`, `A-centre`, `A-right`, `M-left`, `M-centre`, `M-right`, `B-left`, `B-centre`,
`B-right`, `B-reserve`, `B-rout`. A is the attacker (the side that moved in), B the defender; a side's flanks are
named from its own point of view (A-left faces B-right, §3.3), the middle zones from the attacker's (M-left lies
between A-left and B-right). A skirmish has one column: `A-line`, `M`, `B-line` (and the reserves and routs).
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from common.errors import InputError
from common.files import read_toml
from rules.board import Board, links, parse_board
from rules.position import Piece, Position

SYSTEM = "nie"
NATIONS = ("france", "britain", "prussia", "russia", "ottoman", "austria", "spain")
"""The 7 Great Nations in the map's clockwise turn order from France (§3.2)."""
COLOURS = {"france": "blue", "britain": "red", "prussia": "purple", "russia": "green", "ottoman": "beige",
           "austria": "grey", "spain": "yellow"}
"""§2.1: homeland border and figure colours. Light-blue figures (French allies, resisting minors) carry a nation."""
MINOR = "minor"
"""The owner of a resisting minor nation's light-blue army (§9.8)."""
RELATIONS = ("neutral", "allied", "war")

INFANTRY, CAVALRY, ARTILLERY, LEADER, NAVAL = "infantry", "cavalry", "artillery", "leader", "naval"


def unknown(kind: str, name: Any, valid: Iterable[str], what: str = "") -> InputError:
    """The one-line answer to a name the position or the map does not know: it names the name, says it is unknown
    and lists the valid ones (the closest first when some are near)."""
    valid = sorted(valid)
    near = difflib.get_close_matches(str(name), valid, n=3, cutoff=0.75)
    hint = f"; did you mean {' or '.join(near)}?" if near else ""
    listed = " ".join(valid) if valid else "none"
    return InputError(f"{what + ': ' if what else ''}unknown {kind} {name!r}{hint} (one of {listed})")


def known_nation(name: Any, what: str, minor_ok: bool = False) -> str:
    """`name` if it is a Great Nation (or, `minor_ok`, a resisting minor's army, §9.8), else `unknown`'s answer."""
    if name in NATIONS or (minor_ok and name == MINOR):
        return name
    raise unknown("nation", name, NATIONS + ((MINOR,) if minor_ok else ()), what)


@dataclass(frozen=True)
class UnitType:
    """One unit profile of §8.1 [R-UNITS]; cost of heavy cavalry comes from the options (A3)."""

    key: str
    name: str
    base: str
    cost: int
    move: int | None  # regions per turn; None: unlimited at sea
    actions: int
    fire_mod: int = 0  # on all fire rolls (elite +1, militia -1)
    charge_mod: int = 0  # on charge rolls (elite/heavy +1, militia/irregular -1; A11 for the cavalry)
    rally: int = 8  # 2d6 target to rally (§8.6)
    fire_elim: int = 3  # 1d6 <= this: eliminated by a fire hit, else routed (§8.3)
    charge_elim: int = 3  # loses a charge by >= this: eliminated, else routed (§8.4)

    @property
    def army(self) -> bool:
        """'Armee'/'Truppen': infantry, cavalry and artillery, not leaders nor ships (§2.1)."""
        return self.base in (INFANTRY, CAVALRY, ARTILLERY)


UNIT_TYPES = {
    "inf": UnitType("inf", "Infantry", INFANTRY, 6, 1, 1),
    "elite": UnitType("elite", "Elite Infantry", INFANTRY, 9, 1, 1, fire_mod=1, charge_mod=1, rally=7, fire_elim=2,
                      charge_elim=4),
    "militia": UnitType("militia", "Militia", INFANTRY, 4, 1, 1, fire_mod=-1, charge_mod=-1, rally=9, fire_elim=4),
    "cav": UnitType("cav", "Cavalry", CAVALRY, 10, 2, 2),
    "hcav": UnitType("hcav", "Heavy Cavalry", CAVALRY, 14, 2, 2, charge_mod=1),
    "icav": UnitType("icav", "Irregular Cavalry", CAVALRY, 7, 2, 2, charge_mod=-1, rally=9),
    "art": UnitType("art", "Artillery", ARTILLERY, 12, 1, 1),
    "leader": UnitType("leader", "Leader", LEADER, 12, 2, 2),
    "ship": UnitType("ship", "Naval squadron", NAVAL, 15, None, 0),
}
TYPE_WORDS = {"infantry": "inf", "elite infantry": "elite", "elite": "elite", "militia": "militia", "miliz": "militia",
              "cavalry": "cav", "heavy cavalry": "hcav", "irregular cavalry": "icav", "artillery": "art",
              "leader": "leader", "general": "leader", "squadron": "ship", "ship": "ship", "fleet": "ship",
              "naval squadron": "ship", "guns": "art"}


# ---------------------------------------------------------------------------------------------- the strategic map


@dataclass(frozen=True)
class Region:
    id: str
    name: str
    neighbours: frozenset[str]
    home: str | None = None  # None: a minor nation of its own (§3.2)
    capital: bool = False
    north_africa: bool = False
    uprising_homeland: bool = False  # Ireland, Vendée, Don Basin (§9.9)
    port: frozenset[str] = frozenset()  # sea areas its anchor touches (§3.2)
    xy: tuple[float, float] = (0.0, 0.0)  # INVENTED centre in the demo file


@dataclass(frozen=True)
class Sea:
    id: str
    name: str
    neighbours: frozenset[str]
    straits: frozenset[str] = frozenset()
    xy: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Europe:
    """The strategic map's topology: regions and sea areas (§3.2 [R-MAP])."""

    name: str
    regions: Mapping[str, Region]
    seas: Mapping[str, Sea]
    source: str = "demo"
    invented: bool = True

    def region(self, rid: str, what: str = "region") -> Region:
        try:
            return self.regions[rid]
        except (KeyError, TypeError):
            raise unknown("region", rid, self.regions, f"{what} (map {self.source})") from None

    def sea(self, sid: str, what: str = "sea area") -> Sea:
        try:
            return self.seas[sid]
        except (KeyError, TypeError):
            raise unknown("sea area", sid, self.seas, f"{what} (map {self.source})") from None

    def homeland(self, nation: str) -> list[str]:
        return [r.id for r in self.regions.values() if r.home == nation]

    def capitals(self, nation: str) -> list[str]:
        return [r.id for r in self.regions.values() if r.home == nation and r.capital]

    def adjacent(self, a: str, b: str) -> bool:
        """Two regions sharing a border (§3.2)."""
        return a in self.regions and b in self.regions[a].neighbours


DEMO_FILE = Path(__file__).with_name("data") / "europe_demo.toml"


def _names(value: Any, what: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{what}: must be a list of ids")
    return frozenset(value)


def _xy(value: Any, what: str) -> tuple[float, float]:
    if value is None:
        return (0.0, 0.0)
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int | float) for v in value)):
        raise InputError(f"{what}: xy must be [x, y]")
    return (float(value[0]), float(value[1]))


def europe_from_dict(data: Mapping[str, Any], source: str) -> Europe:
    regions = _regions_from_dict(data.get("regions") or {}, source)
    seas = _seas_from_dict(data.get("seas") or {}, source)
    if not regions:
        raise InputError(f"{source}: no [regions.*] tables")
    both = set(regions) & set(seas)
    if both:
        raise InputError(f"{source}: {sorted(both)[0]!r} is both a region and a sea area")
    _check_region_links(regions, seas, source)
    _check_sea_links(seas, source)
    board = data.get("board") or {}
    return Europe(str(board.get("name", source)), regions, seas, source, bool(board.get("invented", False)))


def _regions_from_dict(tables: Mapping[str, Any], source: str) -> dict[str, Region]:
    regions = {}
    for rid, r in tables.items():
        what = f"{source}: region {rid!r}"
        if not isinstance(r, Mapping):
            raise InputError(f"{what}: must be a table")
        home = r.get("home")
        if home is not None and home not in NATIONS:
            raise InputError(f"{what}: home {home!r} is not a Great Nation ({' '.join(NATIONS)})")
        regions[rid] = Region(rid, str(r.get("name", rid)), _names(r.get("neighbours", []), what), home,
                              bool(r.get("capital", False)), bool(r.get("north_africa", False)),
                              bool(r.get("uprising_homeland", False)), _names(r.get("port", []), what),
                              _xy(r.get("xy"), what))
    return regions


def _seas_from_dict(tables: Mapping[str, Any], source: str) -> dict[str, Sea]:
    seas = {}
    for sid, s in tables.items():
        what = f"{source}: sea area {sid!r}"
        if not isinstance(s, Mapping):
            raise InputError(f"{what}: must be a table")
        seas[sid] = Sea(sid, str(s.get("name", sid)), _names(s.get("neighbours", []), what),
                        _names(s.get("straits", []), what), _xy(s.get("xy"), what))
    return seas


def _check_region_links(regions: dict[str, Region], seas: dict[str, Sea], source: str) -> None:
    """Every region's neighbours are regions that name it back; its ports are sea areas."""
    for r in regions.values():
        for n in r.neighbours:
            if n not in regions:
                raise InputError(f"{source}: region {r.id!r}: neighbour {n!r} is not a region")
            if r.id not in regions[n].neighbours:
                raise InputError(f"{source}: region {r.id!r} lists {n!r} as neighbour but not the reverse")
        for s in r.port:
            if s not in seas:
                raise InputError(f"{source}: region {r.id!r}: port sea {s!r} is not a sea area")


def _check_sea_links(seas: dict[str, Sea], source: str) -> None:
    """Every sea area's neighbours and straits are sea areas that name it back."""
    for s in seas.values():
        for n in s.neighbours | s.straits:
            if n not in seas:
                raise InputError(f"{source}: sea area {s.id!r}: neighbour {n!r} is not a sea area")
            if s.id not in seas[n].neighbours | seas[n].straits:
                raise InputError(f"{source}: sea area {s.id!r} lists {n!r} but not the reverse")


# ---------------------------------------------------------------------------------------------- a digitised map

MAP_KINDS = ("region", "sea")
"""The `kind` attribute of a digitised map's areas (§3.2): a land region or a sea area."""
REGION_FLAGS = ("capital", "north_africa", "uprising_homeland")
MAP_ATTRIBUTES = ("kind", "home", "port", "name", *REGION_FLAGS)
"""The area attributes a digitised map's reader knows; any other is an error (a typo would silently drop a rule)."""
TABLE_REF = "table"
"""A position's `board` when its map is the live table's board file, which no path names (a record's own copy)."""


def carries_topology(board: Board) -> bool:
    """Whether a board file is a digitised map (§3.2): its areas say what they are (`kind` = region or sea)."""
    return any(a.attribute("kind") in MAP_KINDS for a in board.areas.values())


def europe_from_board(board: Board) -> Europe:
    """The map's topology read from a digitised board (rules/board.py form, area ids the region and sea ids):

    - each area's `kind` is "region" or "sea"; a region's `home` a Great Nation (absent or "": a minor nation of
      its own), `capital`, `north_africa`, `uprising_homeland` true or false, `port` the sea areas its anchor
      touches (§3.2; a list, or one id);
    - two regions sharing a drawn border, or joined by a `land` connection, are neighbours; two sea areas sharing
      one, or joined by a `sea` or `strait` connection, too, and a `strait` connection is one of the straits
      (§5.4a); a `closed` connection shuts a drawn border; a region and a sea area are linked only by the port;
    - every Great Nation with a homeland has a capital.

    Errors are one line naming the board file and the area. The areas' centres become `xy` (the map file's frame:
    board mm with y turned to grow southward)."""
    src = board.source
    kinds = {}
    for a in board.areas.values():
        kind = a.attribute("kind")
        if kind not in MAP_KINDS:
            raise InputError(f"{src}: area {a.id!r}: kind must be region or sea, not {kind!r}")
        unknown = [k for k, _ in a.attributes if k not in MAP_ATTRIBUTES]
        if unknown:
            raise InputError(f"{src}: area {a.id!r}: unknown attribute {unknown[0]!r} (one of "
                             f"{' '.join(MAP_ATTRIBUTES)})")
        kinds[a.id] = kind
    land: dict[str, set[str]] = {i: set() for i, k in kinds.items() if k == "region"}
    water: dict[str, set[str]] = {i: set() for i, k in kinds.items() if k == "sea"}
    straits: dict[str, set[str]] = {i: set() for i in water}
    for (a, b), hows in links(board).items():
        _link(a, b, hows, kinds, land, water, straits, src)
    regions = {i: _board_region(board, i, land[i], water, src) for i in land}
    seas = {i: Sea(i, board.areas[i].name, frozenset(water[i]), frozenset(straits[i]), _board_xy(board, i))
            for i in water}
    _check_capitals(regions, src)
    return Europe(board.name, regions, seas, src, False)


def _link(a: str, b: str, hows: tuple[str, ...], kinds: dict[str, str], land: dict, water: dict, straits: dict,
          src: str) -> None:
    """One linked pair of a digitised map: region neighbours, sea neighbours and straits; a region and a sea area
    touch on the coast (their link means nothing: the port attribute says where squadrons land, §3.2)."""
    pair = (kinds[a], kinds[b])
    if pair == ("region", "region"):
        wrong = [h for h in hows if h not in ("border", "land")]
        if wrong:
            raise InputError(f"{src}: regions {a!r} and {b!r}: a {wrong[0]} connection joins two regions (land)")
        land[a].add(b)
        land[b].add(a)
    elif pair == ("sea", "sea"):
        if "land" in hows:
            raise InputError(f"{src}: sea areas {a!r} and {b!r}: a land connection joins two sea areas (sea, strait)")
        water[a].add(b)
        water[b].add(a)
        if "strait" in hows:
            straits[a].add(b)
            straits[b].add(a)
    else:
        wrong = [h for h in hows if h in ("land", "strait")]
        if wrong:
            raise InputError(f"{src}: areas {a!r} and {b!r}: a {wrong[0]} connection joins a region and a sea area "
                             "(a port is the region's port attribute)")


def _board_region(board: Board, rid: str, neighbours: set[str], water: Mapping[str, Any], src: str) -> Region:
    """A region from its area's attributes (`europe_from_board`); InputError naming the file and the area."""
    area = board.areas[rid]
    what = f"{src}: region {rid!r}"
    home = area.attribute("home") or None
    if home is not None and home not in NATIONS:
        raise InputError(f"{what}: home {home!r} is not a Great Nation ({' '.join(NATIONS)})")
    flags = {}
    for key in REGION_FLAGS:
        value = area.attribute(key, False)
        if not isinstance(value, bool):
            raise InputError(f"{what}: {key} must be true or false, not {value!r}")
        flags[key] = value
    port = area.attribute("port", ())
    port = (port,) if isinstance(port, str) else port
    for sea in port:
        if sea not in water:
            raise InputError(f"{what}: port sea {sea!r} is not a sea area of the board")
    if flags["capital"] and home is None:
        raise InputError(f"{what}: a capital needs its Great Nation (home)")
    return Region(rid, area.name, frozenset(neighbours), home, flags["capital"], flags["north_africa"],
                  flags["uprising_homeland"], frozenset(port), _board_xy(board, rid))


def _board_xy(board: Board, area: str) -> tuple[float, float]:
    x, y = board.areas[area].centre
    return (round(x, 1), round(board.depth_mm - y, 1))


def _check_capitals(regions: Mapping[str, Region], src: str) -> None:
    """Every Great Nation with a homeland has its capital (§3.2 capital table)."""
    for nation in NATIONS:
        home = [r for r in regions.values() if r.home == nation]
        if home and not any(r.capital for r in home):
            raise InputError(f"{src}: {nation} has homeland regions ({', '.join(sorted(r.id for r in home))}) but "
                             "no capital (capital = true)")


_demo: Europe | None = None
_read: dict[Any, tuple[Any, Europe]] = {}
"""Digitised maps already read (deriving the borders takes a while): by (path, modification time) for files, by
identity for a live board (kept beside its map, so the identity stays its)."""


def _remember(key: Any, holder: Any, make) -> Europe:
    hit = _read.get(key)
    if hit is not None and hit[0] is holder:
        return hit[1]
    if len(_read) > 8:
        _read.clear()
    europe = make()
    _read[key] = (holder, europe)
    return europe


def load_europe(ref: str = "demo", base: Path | None = None, board: Board | None = None) -> Europe:
    """The map's topology: the shipped demo ("demo"), a map file or a digitised board file (TOML, relative to
    `base`), or `board`, the live table's board, for "table" (`TABLE_REF`)."""
    global _demo
    if ref == "demo":
        if _demo is None:
            _demo = _read_europe(DEMO_FILE, "demo")
        return _demo
    if ref == TABLE_REF:
        if board is None or not carries_topology(board):
            raise InputError("the position's map is the table's board (board = \"table\"), but no digitised board "
                             "is given: name the board file instead")
        return _remember(id(board), board, lambda: europe_from_board(board))
    path = Path(ref)
    if base is not None and not path.is_absolute():
        path = base / path
    return _read_europe(path, ref)


def _read_europe(path: Path, ref: str) -> Europe:
    """A map file ([regions.*], [seas.*]) or a digitised board file ([[area]]s with kind = region or sea)."""
    data = read_toml(path, "map file")
    if "area" in data:
        key = (str(path.resolve()), path.stat().st_mtime_ns)
        europe = _remember(key, None, lambda: _board_map(data, path))
    else:
        europe = europe_from_dict(data, str(path))
    return Europe(europe.name, europe.regions, europe.seas, ref, europe.invented)


def _board_map(data: dict, path: Path) -> Europe:
    board = parse_board(data, str(path))
    if not carries_topology(board):
        raise InputError(f"{path}: a board file whose areas carry no map topology (kind = region or sea): digitise "
                         "it with the board editor's area attributes")
    return europe_from_board(board)


def map_ref(ref: Any, board: Board | None) -> str:
    """The position's map reference: its own `board` when it names a map or board file, else (absent or "demo") the
    live table's board when that is a digitised map: its file's path when it is one, else "table"."""
    if ref not in (None, "demo") or board is None or not carries_topology(board):
        return "demo" if ref is None else ref
    path = Path(board.source)
    return str(path.resolve()) if path.suffix == ".toml" and path.is_file() else TABLE_REF


# ---------------------------------------------------------------------------------------------- the battle board

ROWS = ("A-rout", "A-reserve", "A-line", "M", "B-line", "B-reserve", "B-rout")
"""§3.3: rows 0..6 from the attacker's rout zone to the defender's."""
A_ROUT, A_RESERVE, A_LINE, MIDDLE, B_LINE, B_RESERVE, B_ROUT = range(7)
PHASES = ("cavalry", "artillery", "infantry", "leader")
"""§4.2: the four phases of a combat round; in each the attacker acts first, then the defender."""
PHASES_ALL = ("setup", *PHASES, "pursuit", "over")
COLS = ("left", "centre", "right")
"""Absolute columns, named from the attacker's point of view: A's left faces B's right (§3.3)."""


@dataclass(frozen=True, order=True)
class Zone:
    row: int
    col: int | None = None  # None for the full-width reserve and rout rows; 1 (centre) for a skirmish's column

    def name(self, major: bool = True) -> str:
        if self.col is None:
            return ROWS[self.row]
        if not major:
            return ROWS[self.row]
        if self.row == B_LINE:
            return f"B-{COLS[2 - self.col]}"  # the defender names its own flanks
        return f"{'A' if self.row == A_LINE else 'M'}-{COLS[self.col]}"

    @property
    def side(self) -> str | None:
        """'A' or 'B' for a side's own zones, None for the middle row."""
        if self.row < MIDDLE:
            return "A"
        return "B" if self.row > MIDDLE else None


def parse_zone(text: Any, major: bool, what: str) -> Zone:
    if not isinstance(text, str):
        raise InputError(f"{what}: zone must be a name like 'A-left', not {text!r}")
    t = text.strip()
    if t in ("A-rout", "A-reserve", "B-reserve", "B-rout"):
        return Zone(ROWS.index(t))
    if not major:
        if t in ("A-line", "M", "B-line"):
            return Zone(ROWS.index(t), 1)
        raise InputError(f"{what}: {t!r} is not a skirmish zone (A-rout A-reserve A-line M B-line B-reserve B-rout)")
    head, _, flank = t.partition("-")
    if head in ("A", "M", "B") and flank in COLS:
        col = COLS.index(flank)
        row = {"A": A_LINE, "M": MIDDLE, "B": B_LINE}[head]
        return Zone(row, 2 - col if head == "B" else col)
    raise InputError(f"{what}: {t!r} is not a zone of a major battle (A-left, M-centre, B-right, A-reserve, ...)")


def zones(major: bool) -> list[Zone]:
    """Every zone of the board (§3.3): 3 columns in a major battle, 1 in a skirmish."""
    cols = (0, 1, 2) if major else (1,)
    out = [Zone(A_ROUT), Zone(A_RESERVE)]
    out += [Zone(r, c) for r in (A_LINE, MIDDLE, B_LINE) for c in cols]
    return out + [Zone(B_RESERVE), Zone(B_ROUT)]


# ---------------------------------------------------------------------------------------------- the position


@dataclass(frozen=True)
class Unit(Piece):
    """One figure or squadron: id (its marker), nation (the piece's side), type key, where it stands."""

    at: str = ""

    def where(self) -> tuple[str, str]:
        return self.at, ""

    @property
    def nation(self) -> str:
        return self.side

    @property
    def kind(self) -> UnitType:
        return UNIT_TYPES[self.type]


@dataclass
class BattleUnit:
    zone: Zone
    square: bool = False
    used: int = 0  # combat actions spent this phase


@dataclass
class Battle:
    """A tactical battle in one region (§4.2, §8): sides A (attackers) and B (defenders)."""

    region: str
    attacker: list[str]
    defender: list[str]
    major: bool
    amphibious: bool = False
    round: int = 1
    phase: str = "setup"
    acting: str = "A"
    quiet_rounds: int = 0  # full rounds with no fire into and no move into the middle (A16)
    middle_activity: bool = False  # this round so far
    units: dict[str, BattleUnit] = field(default_factory=dict)
    came_from: dict[str, str] = field(default_factory=dict)
    eliminated: list[dict] = field(default_factory=list)  # {"id", "nation", "type", "how"}
    retreated: str | None = None  # the side that retreated (voluntarily or by the stalemate rule)
    loser: str | None = None
    end_reason: str | None = None
    deployed: list[str] = field(default_factory=list)  # sides whose hidden set-up is done (§4.2)
    log: list[dict] = field(default_factory=list)

    def side_of_nation(self, nation: str) -> str | None:
        if nation in self.attacker:
            return "A"
        if nation in self.defender:
            return "B"
        return None


@dataclass(frozen=True)
class Production:
    """The production round under way (§4.1 step 4): the nations in its turn order (the one whose production turn it
    is is the position's `active`), the PP income each has totalled and added to its saved PP (once a round, §9.4)
    and the units each has bought this round (§9.5, §8.1: Britain's 2 land units, 2 infantry per elite)."""

    nations: tuple[str, ...]
    totalled: Mapping[str, int] = field(default_factory=dict)
    built: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Congress:
    """The congress after a war (§9.8): the victors take turns in the order they declared war on the loser, each
    annexing (or liberating) one region a turn, until none wants to or can afford to. `turn` is the victor to act,
    `passed` the victors that passed or could not pay since the last annexation."""

    loser: str
    victors: tuple[str, ...]
    turn: str
    passed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class NiePosition(Position):
    europe: Europe = None  # type: ignore[assignment]
    board_ref: str = "demo"
    year: int = 1805
    month: int = 1
    round: int = 1
    start_nation: str = "france"
    active: str = "france"
    historical: bool = False
    players: Mapping[str, str] = field(default_factory=dict)
    relations: tuple[tuple[frozenset, str], ...] = ()
    declarations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # target -> declarers in order
    passage: frozenset[tuple[str, str]] = frozenset()
    truces: tuple[tuple[str, str, int], ...] = ()
    pp: Mapping[str, int] = field(default_factory=dict)
    pap: Mapping[str, int | float] = field(default_factory=dict)  # halves after a liberation (§9.8)
    c_values: Mapping[str, int] = field(default_factory=dict)
    diplomacy_values: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    owners: Mapping[str, str] = field(default_factory=dict)
    uprisings: frozenset[str] = frozenset()
    battle: Battle | None = None
    moved: frozenset[str] = frozenset()  # land units that moved in this player turn (§4.1)
    resisting: Mapping[str, str] = field(default_factory=dict)  # minor region -> annexer it resists (§9.8)
    sued: frozenset[str] = frozenset()  # nations that have sued for peace (historical game's end, §9.1)
    controlled: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Each player's Great Nations in the order he gained them, the first his own, never shortened: §9.1 judges a
    player by every nation he controlled, "even if he later loses control of it"."""
    production: Production | None = None
    """The production round under way (§4.1 step 4); None outside one."""
    congresses: tuple[Congress, ...] = ()
    """The congresses under way (§9.8), one per loser."""
    port_attacks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """`port:REGION` -> the squadrons that attacked it this player turn (§5.3: at most 2); cleared as the turn ends."""
    suppressed: frozenset[str] = frozenset()
    """Regions whose owner rolled to suppress their uprising this player turn (§9.9: once, at the end of his turn)."""

    @cached_property
    def units(self) -> dict[str, Unit]:
        return {u.id: u for u in self.pieces}  # type: ignore[misc]

    def unit(self, uid: str) -> Unit:
        try:
            return self.units[uid]
        except (KeyError, TypeError):
            raise unknown("unit", uid, self.units, "the position") from None

    def relation(self, a: str, b: str) -> str:
        if a == b:
            return "allied"
        key = frozenset((a, b))
        for k, v in self.relations:
            if k == key:
                return v
        return "neutral"  # §9.6: all nations start neutral unless the scenario says otherwise

    def at_war(self, a: str, b: str) -> bool:
        """At war on the diplomacy table; a resisting minor's light-blue army is at war with its annexer (§9.8)."""
        if MINOR in (a, b):
            other = b if a == MINOR else a
            return other in self.resisting.values()
        return a != b and self.relation(a, b) == "war"

    def inactive(self, nation: str) -> bool:
        """A neutral Great Nation (no player controls it) that has joined no alliance and is at war with nobody: no
        PP, no new units, no movement (§9.6). Without a `players` list every nation is active."""
        if not self.players or nation in self.players or nation not in NATIONS:
            return False
        return not any(n != nation and (self.allied(nation, n) or self.at_war(nation, n)) for n in NATIONS)

    def allied(self, a: str, b: str) -> bool:
        return a == b or self.relation(a, b) == "allied"

    def owner(self, rid: str) -> str | None:
        """The owning nation (§9.3): a control marker, else the homeland's nation, else None (a neutral minor)."""
        if rid in self.owners:
            return self.owners[rid]
        return self.europe.region(rid).home

    def units_at(self, where: str) -> list[Unit]:
        return [u for u in self.units.values() if u.at == where]

    def congress(self, loser: str) -> Congress | None:
        """The congress under way after `loser`'s war (§9.8), else None."""
        return next((c for c in self.congresses if c.loser == loser), None)

    def battle_copy(self) -> Battle:
        if self.battle is None:
            raise InputError("the position has no battle (\"battle\": {...})")
        return copy.deepcopy(self.battle)


def _int_map(value: Any, what: str, keys=NATIONS) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{what}: must be an object of nation: number")
    out = {}
    for k, v in value.items():
        if k not in keys:
            noun = "a Great Nation" if set(keys) <= set(NATIONS) else "one of"
            raise InputError(f"{what}: {k!r} is not {noun} ({' '.join(keys)})")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise InputError(f"{what}: {k}: {v!r} is not a whole number >= 0")
        out[k] = v
    return out


def _pap_map(value: Any, what: str) -> dict[str, int | float]:
    """PAP per nation: whole numbers, or halves (liberation costs ½ PAP a region, §9.8)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{what}: must be an object of nation: number")
    out: dict[str, int | float] = {}
    for k, v in value.items():
        if k not in NATIONS:
            raise InputError(f"{what}: {k!r} is not a Great Nation ({' '.join(NATIONS)})")
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0 or not float(2 * v).is_integer():
            raise InputError(f"{what}: {k}: {v!r} is not a whole or half number >= 0")
        out[k] = int(v) if float(v).is_integer() else float(v)
    return out


def _nation(value: Any, what: str, minor_ok: bool = False) -> str:
    return known_nation(value, what, minor_ok)


def _battle_from_dict(b: Any, source: str, units: Mapping[str, Unit], europe: Europe) -> Battle:
    what = f"{source}: battle"
    if not isinstance(b, Mapping):
        raise InputError(f"{what}: must be an object")
    region = b.get("region")
    if region not in europe.regions:
        raise InputError(f"{what}: region {region!r} is not a region of the map")
    att = [_nation(n, f"{what}: attacker", True) for n in b.get("attacker") or []]
    dfn = [_nation(n, f"{what}: defender", True) for n in b.get("defender") or []]
    if not att or not dfn or set(att) & set(dfn):
        raise InputError(f"{what}: needs attacker and defender nations, none on both sides")
    major = b.get("major")
    if not isinstance(major, bool):
        raise InputError(f"{what}: major must be true (major battle) or false (skirmish)")
    phase = b.get("phase", "setup")
    if phase not in PHASES_ALL:
        raise InputError(f"{what}: phase {phase!r}: one of {' '.join(PHASES_ALL)}")
    acting = b.get("acting", "A")
    if acting not in ("A", "B"):
        raise InputError(f"{what}: acting must be \"A\" (attacker) or \"B\" (defender)")
    bunits = {uid: _battle_unit(uid, st, what, units, region, att, dfn, major)
              for uid, st in (b.get("units") or {}).items()}
    came, elim, log, dep, ret, loser = _battle_records(b, what, europe)
    return Battle(region, att, dfn, major, bool(b.get("amphibious", False)), int(b.get("round", 1)), phase, acting,
                  int(b.get("quiet_rounds", 0)), bool(b.get("middle_activity", False)), bunits, dict(came),
                  [dict(e) for e in elim], ret, loser, b.get("end_reason"), deployed=list(dep), log=list(log))


def _battle_unit(uid: str, st: Any, what: str, units: Mapping[str, Unit], region: str, att: list[str],
                 dfn: list[str], major: bool) -> BattleUnit:
    """One unit on the battle board: a unit of the position, in the battle's region, of a side, in its zone."""
    uw = f"{what}: unit {uid!r}"
    if uid not in units:
        raise InputError(f"{uw}: not in the position's units")
    if units[uid].at != region:
        raise InputError(f"{uw}: stands at {units[uid].at!r}, not in the battle's region {region!r}")
    if units[uid].nation not in att + dfn:
        raise InputError(f"{uw}: its nation {units[uid].nation} fights on neither side")
    if not isinstance(st, Mapping):
        raise InputError(f"{uw}: must be an object with a zone")
    zone = parse_zone(st.get("zone"), major, uw)
    side = "A" if units[uid].nation in att else "B"
    if zone.side not in (None, side):
        raise InputError(f"{uw}: zone {st.get('zone')} belongs to the other side")
    square = bool(st.get("square", False))
    if square and units[uid].kind.base != INFANTRY:
        raise InputError(f"{uw}: only infantry forms square (§8.5)")
    used = st.get("used", 0)
    if not isinstance(used, int) or not 0 <= used <= units[uid].kind.actions:
        raise InputError(f"{uw}: used must be 0..{units[uid].kind.actions} combat actions")
    return BattleUnit(zone, square, used)


def _battle_records(b: Mapping[str, Any], what: str, europe: Europe) -> tuple:
    """What a battle keeps of its course: where the attackers came from, the eliminated, the log, who deployed,
    who retreated and who lost."""
    came = b.get("came_from") or {}
    if not isinstance(came, Mapping) or not all(v in europe.regions for v in came.values()):
        raise InputError(f"{what}: came_from must map unit ids to regions of the map")
    elim = b.get("eliminated") or []
    if not isinstance(elim, list) or not all(isinstance(e, Mapping) and e.get("type") in UNIT_TYPES
                                             and isinstance(e.get("nation"), str) for e in elim):
        raise InputError(f"{what}: eliminated must be a list of {{\"id\", \"nation\", \"type\"}}")
    log = b.get("log") or []
    if not isinstance(log, list):
        raise InputError(f"{what}: log must be a list")
    dep = b.get("deployed") or []
    if not isinstance(dep, list) or not set(dep) <= {"A", "B"}:
        raise InputError(f"{what}: deployed must list \"A\" and/or \"B\"")
    ret, loser = b.get("retreated"), b.get("loser")
    if ret not in (None, "A", "B") or loser not in (None, "A", "B"):
        raise InputError(f"{what}: retreated and loser must be \"A\", \"B\" or absent")
    return came, elim, log, dep, ret, loser


def _resisting(data: Mapping[str, Any], europe: Europe, source: str) -> dict[str, str]:
    value = data.get("resisting") or {}
    if not isinstance(value, Mapping):
        raise InputError(f"{source}: resisting must map a minor region to the nation it resists")
    for rid, n in value.items():
        europe.region(rid, f"{source}: resisting")
        _nation(n, f"{source}: resisting {rid}")
    return dict(value)


def _moved(value: Any, units: Mapping[str, Unit], source: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(v in units for v in value):
        raise InputError(f"{source}: moved must list unit ids of the position")
    return value


def position_from_dict(data: Mapping[str, Any], source: str = "position", board: Any = None) -> NiePosition:
    """The position file read. `board` is the live table's printed board (rules.board.Board, given by the set-up
    loader to every system on a board): the topology is the file's own `board` (a map or digitised board file);
    when that is absent or "demo" and the table's board is a digitised map (`carries_topology`), that board's."""
    base = Path(source).parent if source not in ("position", "") else None
    board_ref = data.get("board", "demo")
    if not isinstance(board_ref, str):
        raise InputError(f"{source}: board must be \"demo\" or a map TOML path")
    board_ref = map_ref(board_ref, board)
    europe = load_europe(board_ref, base, board)
    units = _units_from_dict(data.get("units") or [], europe, source)
    relations, declarations = _relations_from_dict(data.get("relations") or [], source)
    declarations.update(_declaration_order(data.get("declaration_order") or {}, source))
    passage = _passage_from_dict(data.get("passage") or [], source)
    truces = _truces_from_dict(data.get("truces") or [], source)
    owners = {}
    for rid, n in (data.get("owners") or {}).items():
        europe.region(rid, f"{source}: owners")
        owners[rid] = _nation(n, f"{source}: owners {rid}")
    upr = data.get("uprisings") or []
    for rid in upr:
        europe.region(rid, f"{source}: uprisings")
    dv = {}
    for a, row in (data.get("diplomacy_values") or {}).items():
        _nation(a, f"{source}: diplomacy_values")
        dv[a] = _int_map(row, f"{source}: diplomacy_values {a}")
    players = data.get("players") or {}
    if not isinstance(players, Mapping):
        raise InputError(f"{source}: players must map nations to player names")
    for n in players:
        _nation(n, f"{source}: players")
    month = data.get("month", 1)
    if not isinstance(month, int) or not 1 <= month <= 12:
        raise InputError(f"{source}: month must be 1..12")
    pos = NiePosition(
        SYSTEM, tuple(units.values()), europe, board_ref, int(data.get("year", 1805)), month,
        int(data.get("round", 1)), _nation(data.get("start_nation", "france"), f"{source}: start_nation"),
        _nation(data.get("active", data.get("start_nation", "france")), f"{source}: active"),
        bool(data.get("historical", False)), dict(players), tuple(relations),
        {k: tuple(v) for k, v in declarations.items()}, frozenset(passage), tuple(truces),
        _int_map(data.get("pp"), f"{source}: pp"), _pap_map(data.get("pap"), f"{source}: pap"),
        _int_map(data.get("c_values"), f"{source}: c_values"), dv, owners, frozenset(upr),
        moved=frozenset(_moved(data.get("moved"), units, source)), resisting=_resisting(data, europe, source),
        sued=frozenset(_nation(n, f"{source}: sued") for n in data.get("sued") or []),
        controlled=gained_control(_controlled(data.get("controlled"), source), players),
        production=_production(data.get("production"), source),
        congresses=_congresses(data.get("congresses"), source),
        port_attacks=_port_attacks(data.get("port_attacks"), europe, source),
        suppressed=frozenset(_regions(data.get("suppressed"), europe, f"{source}: suppressed")))
    if data.get("battle") is not None:
        object.__setattr__(pos, "battle", _battle_from_dict(data["battle"], source, units, europe))
    return pos


def _regions(value: Any, europe: Europe, what: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{what}: must be a list of regions")
    for rid in value:
        europe.region(rid, what)
    return value


def _production(data: Any, source: str) -> Production | None:
    """The position's `production`: the production round under way (§4.1 step 4), null or absent outside one:
    {"nations": [its turn order], "totalled": {nation: PP income added}, "built": {nation: {type: count}}}."""
    if data is None:
        return None
    what = f"{source}: production"
    if not isinstance(data, Mapping):
        raise InputError(f"{what}: must be an object {{\"nations\", \"totalled\", \"built\"}} or null")
    nations = data.get("nations")
    if not isinstance(nations, list) or not nations:
        raise InputError(f"{what}: nations must list the production round's nations in turn order")
    nations = tuple(_nation(n, f"{what}: nations") for n in nations)
    totalled = _int_map(data.get("totalled"), f"{what}: totalled", nations)
    built_in = data.get("built") or {}
    if not isinstance(built_in, Mapping):
        raise InputError(f"{what}: built must map nations to {{type: count}}")
    built = {}
    for n, row in built_in.items():
        _nation(n, f"{what}: built")
        built[n] = _int_map(row, f"{what}: built {n}", tuple(UNIT_TYPES))
    return Production(nations, totalled, built)


def _congresses(data: Any, source: str) -> tuple[Congress, ...]:
    """The position's `congresses` (§9.8): [{"loser", "victors" (in order of declaration), "turn" (the victor to
    act), "passed" (victors that passed since the last annexation)}]."""
    if data is None:
        return ()
    if not isinstance(data, list):
        raise InputError(f"{source}: congresses must be a list")
    out = []
    for i, c in enumerate(data):
        what = f"{source}: congress {i + 1}"
        if not isinstance(c, Mapping):
            raise InputError(f"{what}: must be an object {{\"loser\", \"victors\", \"turn\", \"passed\"}}")
        loser = _nation(c.get("loser"), f"{what}: loser")
        victors = c.get("victors")
        if not isinstance(victors, list) or not victors or loser in victors:
            raise InputError(f"{what}: victors must list the nations that defeated {loser}, in order of declaration")
        victors = tuple(_nation(v, f"{what}: victors") for v in victors)
        if c.get("turn") not in victors:
            raise InputError(f"{what}: turn {c.get('turn')!r} is not one of its victors ({' '.join(victors)})")
        passed = c.get("passed") or []
        if not isinstance(passed, list) or not set(passed) <= set(victors):
            raise InputError(f"{what}: passed must list some of its victors ({' '.join(victors)})")
        if any(o.loser == loser for o in out):
            raise InputError(f"{what}: a second congress after {loser}'s war")
        out.append(Congress(loser, victors, c["turn"], frozenset(passed)))
    return tuple(out)


def _port_attacks(data: Any, europe: Europe, source: str) -> dict[str, tuple[str, ...]]:
    """The position's `port_attacks`: {"port:REGION": [squadron ids that attacked it this player turn]} (§5.3)."""
    if data is None:
        return {}
    what = f"{source}: port_attacks"
    if not isinstance(data, Mapping):
        raise InputError(f"{what}: must map \"port:REGION\" to the squadrons that attacked it this turn")
    out = {}
    for port, ids in data.items():
        region = port[5:] if isinstance(port, str) and port.startswith("port:") else None
        if region not in europe.regions or not europe.regions[region].port:
            raise InputError(f"{what}: {port!r} is not a port (\"port:REGION\" of a region with a port)")
        if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
            raise InputError(f"{what}: {port}: a list of squadron ids")
        out[port] = tuple(ids)
    return out


def _controlled(data: Any, source: str) -> dict[str, tuple[str, ...]]:
    """The position's `controlled`: player -> Great Nations in the order he gained them (absent: each player's
    nations of `players`)."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise InputError(f"{source}: controlled must map players to lists of nations")
    out = {}
    for player, nations in data.items():
        if not isinstance(nations, list | tuple) or not nations:
            raise InputError(f"{source}: controlled {player}: a list of Great Nations, the first his own")
        out[str(player)] = tuple(_nation(n, f"{source}: controlled {player}") for n in nations)
    return out


def _units_from_dict(items: Any, europe: Europe, source: str) -> dict[str, Unit]:
    """The position's units, each with a unique id, a Great Nation, a type and a place on the map (a squadron in a
    sea area or a port)."""
    units: dict[str, Unit] = {}
    for i, u in enumerate(items):
        what = f"{source}: unit {i + 1}"
        if not isinstance(u, Mapping) or not isinstance(u.get("id"), str) or not u["id"]:
            raise InputError(f"{what}: needs an id")
        what = f"{source}: unit {u['id']!r}"
        if u["id"] in units:
            raise InputError(f"{what}: two units with this id")
        nation = _nation(u.get("nation"), f"{what}: nation", True)
        typ = u.get("type")
        if typ not in UNIT_TYPES:
            raise InputError(f"{what}: type {typ!r}: one of {' '.join(UNIT_TYPES)}")
        at = u.get("at")
        if typ == "ship":
            port = at[5:] if isinstance(at, str) and at.startswith("port:") else None
            if not (at in europe.seas or (port in europe.regions and europe.regions[port].port)):
                raise InputError(f"{what}: a squadron stands in a sea area or a port (\"port:REGION\"), not {at!r}")
        elif at not in europe.regions:
            raise unknown("region", at, europe.regions, f"{what}: at")
        units[u["id"]] = Unit(u["id"], nation, typ, at)
    return units


def _relations_from_dict(items: Any, source: str) -> tuple[list, dict[str, list[str]]]:
    """The relations between pairs of Great Nations, and for each nation at war the nations that declared on it."""
    relations, declarations = [], {}
    for i, r in enumerate(items):
        what = f"{source}: relation {i + 1}"
        if not isinstance(r, Mapping):
            raise InputError(f"{what}: must be an object")
        ns = r.get("nations")
        if not (isinstance(ns, list) and len(ns) == 2 and ns[0] != ns[1]):
            raise InputError(f"{what}: nations must be two different Great Nations")
        for n in ns:
            _nation(n, what)
        status = r.get("status")
        if status not in RELATIONS:
            raise InputError(f"{what}: status {status!r}: one of {' '.join(RELATIONS)}")
        relations.append((frozenset(ns), status))
        if status == "war":
            decl = r.get("declared_by") or []
            if not isinstance(decl, list) or not all(d in ns for d in decl):
                raise InputError(f"{what}: declared_by must list nations of this pair")
            for d in decl:
                target = ns[1] if d == ns[0] else ns[0]
                declarations.setdefault(target, []).append(d)
    return relations, declarations


def _declaration_order(order: Any, source: str) -> dict[str, list[str]]:
    """A target's declarers in the order they declared (over the relations' order)."""
    if not isinstance(order, Mapping):
        raise InputError(f"{source}: declaration_order must map a target to its declarers in order")
    out = {}
    for target, decl in order.items():
        _nation(target, f"{source}: declaration_order")
        out[target] = [_nation(d, f"{source}: declaration_order {target}") for d in decl]
    return out


def _passage_from_dict(items: Any, source: str) -> set[tuple[str, str]]:
    passage = set()
    for p in items:
        if not (isinstance(p, list) and len(p) == 2):
            raise InputError(f"{source}: passage entries are [guest, host]")
        passage.add((_nation(p[0], f"{source}: passage"), _nation(p[1], f"{source}: passage")))
    return passage


def _truces_from_dict(items: Any, source: str) -> list[tuple[str, str, int]]:
    truces = []
    for t in items:
        if not isinstance(t, Mapping) or not isinstance(t.get("until_round"), int):
            raise InputError(f"{source}: truces are {{\"victor\", \"loser\", \"until_round\"}}")
        truces.append((_nation(t.get("victor"), f"{source}: truce"), _nation(t.get("loser"), f"{source}: truce"),
                       t["until_round"]))
    return truces


def battle_to_dict(b: Battle) -> dict:
    return {"region": b.region, "attacker": list(b.attacker), "defender": list(b.defender), "major": b.major,
            "amphibious": b.amphibious, "round": b.round, "phase": b.phase, "acting": b.acting,
            "quiet_rounds": b.quiet_rounds, "middle_activity": b.middle_activity,
            "units": {uid: {"zone": bu.zone.name(b.major), "square": bu.square, "used": bu.used}
                      for uid, bu in b.units.items()},
            "came_from": dict(b.came_from), "eliminated": list(b.eliminated), "retreated": b.retreated,
            "loser": b.loser, "end_reason": b.end_reason, "deployed": list(b.deployed), "log": list(b.log)}


def position_to_dict(pos: NiePosition) -> dict:
    out: dict[str, Any] = {
        "system": SYSTEM, "board": pos.board_ref, "year": pos.year, "month": pos.month, "round": pos.round,
        "start_nation": pos.start_nation, "active": pos.active, "historical": pos.historical,
        "players": dict(pos.players),
        "relations": [{"nations": sorted(k), "status": v} for k, v in pos.relations],
        "declaration_order": {k: list(v) for k, v in pos.declarations.items()},
        "passage": [list(p) for p in sorted(pos.passage)],
        "truces": [{"victor": v, "loser": lo, "until_round": r} for v, lo, r in pos.truces],
        "pp": dict(pos.pp), "pap": dict(pos.pap), "c_values": dict(pos.c_values),
        "diplomacy_values": {k: dict(v) for k, v in pos.diplomacy_values.items()},
        "owners": dict(pos.owners), "uprisings": sorted(pos.uprisings), "moved": sorted(pos.moved),
        "resisting": dict(pos.resisting), "sued": sorted(pos.sued),
        "controlled": {p: list(ns) for p, ns in pos.controlled.items()},
        "units": [{"id": u.id, "nation": u.nation, "type": u.type, "at": u.at} for u in pos.units.values()],
    }
    if pos.production is not None:
        pr = pos.production
        out["production"] = {"nations": list(pr.nations), "totalled": dict(pr.totalled),
                             "built": {n: dict(row) for n, row in pr.built.items()}}
    if pos.congresses:
        out["congresses"] = [{"loser": c.loser, "victors": list(c.victors), "turn": c.turn,
                              "passed": [v for v in c.victors if v in c.passed]} for c in pos.congresses]
    if pos.port_attacks:
        out["port_attacks"] = {k: list(v) for k, v in sorted(pos.port_attacks.items())}
    if pos.suppressed:
        out["suppressed"] = sorted(pos.suppressed)
    if pos.battle is not None:
        out["battle"] = battle_to_dict(pos.battle)
    return out


def dumps(pos: NiePosition) -> str:
    return json.dumps(position_to_dict(pos), indent=1, ensure_ascii=False) + "\n"


def gained_control(controlled: Mapping[str, tuple[str, ...]], players: Mapping[str, str]
                   ) -> dict[str, tuple[str, ...]]:
    """`controlled` (player -> nations in the order gained) with every nation `players` gives a player added at the
    end of his list (§9.1: a nation once controlled counts for its player for good)."""
    out = {p: tuple(ns) for p, ns in controlled.items()}
    for nation, player in players.items():
        if nation not in out.get(player, ()):
            out[player] = (*out.get(player, ()), nation)
    return out


def with_changes(pos: NiePosition, **changes) -> NiePosition:
    """A new position with fields replaced (units given as a dict id -> Unit keep their order); a change of players
    adds the nations a player gains to his `controlled` list."""
    if "players" in changes and "controlled" not in changes:
        changes["controlled"] = gained_control(pos.controlled, changes["players"])
    if "units" in changes:
        changes["pieces"] = tuple(changes.pop("units").values())
    new = replace(pos, **{k: v for k, v in changes.items() if k != "battle"})
    object.__setattr__(new, "battle", changes.get("battle", pos.battle))
    return new


def ports_to_leave(pos: NiePosition) -> dict[str, list[str]]:
    """§5.3: when enemy armies hold a port region (and its owner's side has no army there), the squadrons in that
    port must move out to an adjacent sea area: {port: squadrons}."""
    out = {}
    for rid, r in pos.europe.regions.items():
        if not r.port:
            continue
        ships = [u for u in pos.units_at(f"port:{rid}") if u.kind.base == NAVAL]
        if not ships:
            continue
        land = [u for u in pos.units_at(rid) if u.kind.army]
        for sq in ships:
            foes = [u for u in land if pos.at_war(sq.nation, u.nation)]
            friends_ = [u for u in land if pos.allied(sq.nation, u.nation)]
            if foes and not friends_:
                out.setdefault(f"port:{rid}", []).append(sq.id)
    return out
