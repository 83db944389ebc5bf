"""Coalitions ("Koalicje") model: the six Powers, the map of both board sides, the position file and the Result.

Digest: shared/rules/coalitions.md. A grand-strategic area game: no dice, no measuring. Where things stand is a
Territory id of the map file (or None: off-map); every count is a whole number of Troops, Morale, Influence (IP) or
Money. The position (`CoalitionsPosition`) is immutable; the engine works on a `State` copy (`pos.draft()`) and
returns a new position in a `Result`.
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from common.errors import InputError
from common.files import read_toml
from rules.position import Piece, Position
from rules.system import UMPIRE

SYSTEM = "coalitions"
POWERS = ("britain", "france", "austria", "prussia", "russia", "ottoman")
"""The six Powers in the Power Order (§4.3): it breaks bidding ties and orders everything else."""
CHOOSERS = ("austria", "prussia", "russia", "ottoman")
"""The Powers that choose a Diplomatic Status (§9.2); Britain and France lead their Coalitions for good."""
STATUSES = ("british", "french", "neutral", "expansionist")
"""British Coalition (Red Lion), French Coalition (Blue Eagle), Neutral (Brown Chaise-longue), Expansionist
(Grey Cannon), §2.2, §9.2."""
FIXED_STATUS = {"britain": "british", "france": "french"}
ACTIONS = ("drill", "taxation", "leadership", "mobilisation", "influence", "movement")
"""The Wheel of War's six actions in their order (§4.2): Drill 1 ... Movement 6."""
KINDS = ("home", "capital", "contested", "uncontested", "impassable")
SIDES = ("revolution", "empire")
ABBR = {"britain": "gb", "france": "fr", "austria": "at", "prussia": "pr", "russia": "ru", "ottoman": "ot"}
"""Short names for General ids ("gb-1") and messages."""
SPECIALS = ("napoleon", "wellington", "schwarzenberg", "blucher", "kutuzov", "grand_vizier")
SPECIAL_POWER = {"napoleon": "france", "wellington": "britain", "schwarzenberg": "austria", "blucher": "prussia",
                 "kutuzov": "russia", "grand_vizier": "ottoman"}
GENERALS = {"britain": 3, "france": 7, "austria": 4, "prussia": 3, "russia": 4, "ottoman": 3}
"""General pawns per Power (§2.1, 24 in all)."""
TOKENS = {"britain": 21, "france": 49, "austria": 28, "prussia": 21, "russia": 28, "ottoman": 21}
"""Troop/Garrison tokens per Power (§2.1, 168 in all): Troops under Generals plus Garrisons never exceed these."""
FORTRESSES = 6
MAX_TROOPS = 3
HAND_LIMIT = {"france": 10}
DEFAULT_HAND_LIMIT = 6
WIN_IP = 25
DEFAULT_DIAL = ("britain", "austria", "russia", "prussia", "ottoman", "france")
"""The dial's order of Power symbols, Britain first (over Drill at a round's start). NOT in the text (A27): read it
from the physical wheel. This default only keeps the digest's two constraints (§4.2): Russia sits 3 places after
France, France one place behind Britain; Austria, Prussia and the Ottomans are placed arbitrarily."""
DATA = Path(__file__).with_name("data")


def unknown(kind: str, name: Any, valid: Iterable[str], what: str = "") -> InputError:
    """The one-line answer to a name the position or the map does not know: it names the name, says it is unknown
    and lists the valid ones (the closest first when some are near)."""
    valid = list(valid)
    near = difflib.get_close_matches(str(name), valid, n=3, cutoff=0.75)
    hint = f"; did you mean {' or '.join(near)}?" if near else ""
    listed = " ".join(valid) or "none"
    return InputError(f"{what + ': ' if what else ''}unknown {kind} {name!r}{hint} (one of {listed})")


def known_power(name: Any, what: str) -> str:
    """`name` if it is one of the six Powers (§4.3), else `unknown`'s answer listing them."""
    if name in POWERS:
        return name
    raise unknown("Power", name, POWERS, what)


# ---------------------------------------------------------------------------------------------- the map (§3)


@dataclass(frozen=True)
class Territory:
    """One Territory of the map (§3.2): its kind, the Power whose Home it is, its printed value, its stripes."""

    id: str
    name: str
    kind: str
    home: str | None = None
    value: int = 0
    stripes: frozenset[str] = frozenset()
    port: bool = False
    island: str | None = None
    spain: bool = False
    xy: tuple[float, float] = (0.0, 0.0)
    """An INVENTED centre in mm of the demo frame (no polygons)."""

    @property
    def is_home(self) -> bool:
        return self.kind in ("home", "capital")


@dataclass(frozen=True)
class Europe:
    """One side of the board: territories, land borders and sea routes (both mutual)."""

    name: str
    side: str
    invented: bool
    territories: Mapping[str, Territory]
    land: Mapping[str, frozenset[str]]
    routes: Mapping[str, frozenset[str]]

    def territory(self, tid: Any, what: str = "territory") -> Territory:
        if not isinstance(tid, str) or tid not in self.territories:
            raise unknown("Territory", tid, sorted(self.territories), f"{what} ({self.side} side of the map)")
        return self.territories[tid]

    def adjacent(self, a: str, b: str) -> bool:
        return b in self.land.get(a, frozenset())

    def capital(self, power: str) -> str | None:
        return next((t.id for t in self.territories.values() if t.kind == "capital" and t.home == power), None)

    def homes(self, power: str) -> list[str]:
        return [t.id for t in self.territories.values() if t.is_home and t.home == power]

    def ports(self) -> list[str]:
        return [t.id for t in self.territories.values() if t.port]


def _str_list(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{what}: a list of names")
    return value


def _territory(tid: str, t: Any, src: str) -> tuple[Territory, list[str]]:
    what = f"{src}: territory {tid!r}"
    if not isinstance(t, Mapping):
        raise InputError(f"{what}: a table")
    kind = t.get("kind")
    if kind not in KINDS:
        raise InputError(f"{what}: kind must be one of {' '.join(KINDS)}, not {kind!r}")
    home = t.get("home")
    if (home is None) == (kind in ("home", "capital")) or (home is not None and home not in POWERS):
        raise InputError(f"{what}: home must name a Power for home and capital territories only, not {home!r}")
    stripes = frozenset(_str_list(t.get("stripes", []), f"{what}: stripes"))
    if stripes - set(POWERS) or (stripes and kind != "contested"):
        raise InputError(f"{what}: stripes are Powers' colours on contested territories only")
    value = t.get("value", 0)
    if not isinstance(value, int) or not 0 <= value <= 9:
        raise InputError(f"{what}: value must be a whole number 0..9, not {value!r}")
    xy = t.get("xy", [0, 0])
    if not (isinstance(xy, list) and len(xy) == 2 and all(isinstance(v, int | float) for v in xy)):
        raise InputError(f"{what}: xy must be [x, y] in mm")
    terr = Territory(tid, str(t.get("name", tid)), kind, home, value, stripes, bool(t.get("port", False)),
                     t.get("island"), bool(t.get("spain", False)), (float(xy[0]), float(xy[1])))
    return terr, _str_list(t.get("neighbours", []), f"{what}: neighbours")


def europe_from_dict(data: Mapping[str, Any], side: str, src: str) -> Europe:
    """The map of one board side: the file's territories, with the [revolution] table's on the Revolution side."""
    if side not in SIDES:
        raise InputError(f"{src}: board side must be one of {' '.join(SIDES)}, not {side!r}")
    tables = dict(data.get("territories") or {})
    rev = data.get("revolution") or {}
    removed = [tuple(p) for p in rev.get("remove_neighbours", [])] if side == "revolution" else []
    if side == "revolution":
        tables.update(rev.get("territories") or {})
    terrs, links = {}, []
    for tid, t in tables.items():
        terr, near = _territory(tid, t, src)
        terrs[tid] = terr
        links += [(tid, n) for n in near]
    land: dict[str, set[str]] = {t: set() for t in terrs}
    for a, b in links:
        if b not in terrs:
            raise InputError(f"{src}: territory {a!r}: unknown neighbour {b!r}")
        if {a, b} in [set(r) for r in removed]:
            continue
        land[a].add(b)
        land[b].add(a)
    routes: dict[str, set[str]] = {t: set() for t in terrs}
    for pair in (data.get("routes") or {}).get("pairs", []):
        a, b = pair
        for x in pair:
            if x not in terrs or not terrs[x].port:
                raise InputError(f"{src}: sea route {a}-{b}: {x!r} is not a port of the map")
        if b in land[a]:
            raise InputError(f"{src}: sea route {a}-{b}: sea routes join territories with no land border (§3.2)")
        routes[a].add(b)
        routes[b].add(a)
    board = data.get("board") or {}
    return Europe(str(board.get("name", src)), side, bool(board.get("invented", False)), terrs,
                  {k: frozenset(v) for k, v in land.items()}, {k: frozenset(v) for k, v in routes.items()})


@lru_cache(maxsize=16)
def _read_map(path: str, side: str) -> Europe:
    return europe_from_dict(read_toml(path, "map file"), side, path)


def load_europe(ref: str = "demo", side: str = "empire", base: Path | None = None) -> Europe:
    """The map named by a position ("demo": the shipped INVENTED map; else a TOML path, relative to `base`)."""
    if ref == "demo":
        return _read_map(str(DATA / "europe_demo.toml"), side)
    path = Path(ref)
    if not path.is_absolute() and base is not None:
        path = base / path
    return _read_map(str(path), side)


# ---------------------------------------------------------------------------------------------- pieces and state


@dataclass
class General:
    """A General pawn (§2.2): its Power, where it stands (None: off-map), the Troops under it (0-3), special name."""

    id: str
    power: str
    at: str | None = None
    troops: int = 0
    special: str | None = None


@dataclass(frozen=True)
class GeneralPiece(Piece):
    """A General as the neutral position model's piece: side = its Power, type = "general" or its special name."""

    at: str | None = None
    troops: int = 0

    def where(self) -> tuple[str, str]:
        return self.at or "off-map", f"{self.troops} troops"


@dataclass
class Movement:
    """The Movement action in progress (§5.1): who moves, the Arbiter (None: none eligible), the Move Turns granted
    and played, the Generals that moved this turn, the battles waiting (territory ids, in the mover's order)."""

    power: str
    arbiter: str | None = None
    granted: int = 1
    played: int = 0
    battles: list[str] = field(default_factory=list)
    entered: dict[str, str] = field(default_factory=dict)
    """general id -> where it came from, for the battles of this Move Turn (a tie sends the attacker back, §8.6)."""
    napoleon: bool = False
    supported: list[str] = field(default_factory=list)
    """Generals that supported a battle in this Move Turn: they support no other (§8.3)."""


@dataclass
class State:
    """Everything a position holds, mutable: the engine edits a copy (`CoalitionsPosition.draft`)."""

    europe: Europe
    board: str = "demo"
    side: str = "empire"
    scenario: str = ""
    mode: str = "competitive"
    round: int = 1
    turn: int = 1
    dial: tuple[str, ...] = DEFAULT_DIAL
    phase: str = "action"
    statuses: dict[str, str] = field(default_factory=dict)
    minors: dict[str, str | None] = field(default_factory=dict)
    """Minor Powers (3-5 players, §9.6) -> their controller (None: uncontrolled, round 1 before its Drill)."""
    players: dict[str, str] = field(default_factory=dict)
    morale: dict[str, int] = field(default_factory=dict)
    influence: dict[str, int] = field(default_factory=dict)
    money: dict[str, int] = field(default_factory=dict)
    hands: dict[str, int] = field(default_factory=dict)
    generals: dict[str, General] = field(default_factory=dict)
    garrisons: dict[str, str] = field(default_factory=dict)
    fortresses: set[str] = field(default_factory=set)
    movement: Movement | None = None
    spain_open: bool = True
    armee_dorient: bool = False
    """1792: France still holds the Armée d'Orient card (§5.4)."""
    deck: int | None = None
    winner: list[str] = field(default_factory=list)
    done: dict[str, list[str]] = field(default_factory=dict)
    """The Wheel's actions each Power has performed this round (§4.2: every action once per round; Subsidies and
    Napoleon's Move once beside Leadership): Power -> actions in the order done; cleared when a round begins."""
    secrets: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The secret choices made before their reveal, sealed per Power (§9.3 the status token placed face down, §9.6
    the closed-fist bid of Morale): Power -> {"status": STATUS, "bids": {MINOR: N}}. `declare` reveals the statuses,
    `bid` the bids for its Minor; a Power's view shows only its own (`sealed_view`)."""

    # ---- reading

    def general(self, gid: Any, what: str = "the position") -> General:
        if not isinstance(gid, str) or gid not in self.generals:
            raise unknown("General", gid, sorted(self.generals), what)
        return self.generals[gid]

    def generals_at(self, tid: str) -> list[General]:
        return [g for g in self.generals.values() if g.at == tid]

    def controller(self, tid: str) -> str | None:
        """Who controls a Territory (§3.2): the Garrison's owner, else the Power whose Home it is, else nobody."""
        if tid in self.garrisons:
            return self.garrisons[tid]
        return self.europe.territories[tid].home

    def status(self, power: str) -> str:
        """A Power's Diplomatic Status (§9.2); a controlled Minor follows its controller's at once (§9.6)."""
        if power in FIXED_STATUS:
            return FIXED_STATUS[power]
        ctrl = self.minors.get(power)
        if ctrl is not None:
            return self.status(ctrl)
        return self.statuses.get(power, "neutral")

    def major_of(self, power: str) -> str:
        """The Major Power taking a Minor's actions and its IP (§9.6); a Major is its own."""
        return self.minors.get(power) or power

    def is_minor(self, power: str) -> bool:
        return power in self.minors

    def morale_of(self, power: str) -> int:
        return self.morale.get(power, 0)

    def troops_in_use(self, power: str) -> int:
        return (sum(g.troops for g in self.generals.values() if g.power == power)
                + sum(1 for p in self.garrisons.values() if p == power))

    def copy(self) -> State:
        """A deep copy sharing the (immutable) map."""
        return copy.deepcopy(self, {id(self.europe): self.europe})


@dataclass(frozen=True)
class CoalitionsPosition(Position):
    """A Coalitions position: the neutral pieces (the Generals) and the whole `State`."""

    state: State = None  # type: ignore[assignment]

    def draft(self) -> State:
        return self.state.copy()

    @property
    def europe(self) -> Europe:
        return self.state.europe


def freeze(s: State) -> CoalitionsPosition:
    pieces = tuple(GeneralPiece(g.id, g.power, g.special or "general", g.at, g.troops)
                   for g in sorted(s.generals.values(), key=lambda g: g.id))
    return CoalitionsPosition(SYSTEM, pieces, s)


def state_of(pos: CoalitionsPosition | State) -> State:
    return pos.state if isinstance(pos, CoalitionsPosition) else pos


# ---------------------------------------------------------------------------------------------- the result


@dataclass
class Result:
    """One resolved action: the position after, the lines to show (each citing its digest section), the changes,
    notes where an option's reading decided the outcome, and data for --json."""

    action: str
    position: CoalitionsPosition
    lines: list[str] = field(default_factory=list)
    changes: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)

    @property
    def after(self) -> CoalitionsPosition:
        return self.position

    def to_json(self) -> dict:
        return {"action": self.action, "lines": self.lines, "changes": self.changes, "notes": self.notes,
                **self.data}


class Log:
    """Lines and changes gathered while an action is resolved."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.changes: list[dict] = []
        self.notes: list[str] = []

    def say(self, text: str, **change: Any) -> None:
        self.lines.append(text)
        if change:
            self.changes.append(change)

    def result(self, action: str, s: State, **data: Any) -> Result:
        return Result(action, freeze(s), self.lines, self.changes, self.notes, data)


# ---------------------------------------------------------------------------------------------- the position file


def _power(value: Any, what: str) -> str:
    return known_power(value, what)


def _counts(value: Any, what: str, lo: int = 0, hi: int = 999) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise InputError(f"{what}: must map Powers to whole numbers")
    out = {}
    for k, v in value.items():
        _power(k, what)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise InputError(f"{what} {k}: a whole number {lo}..{hi}, not {v!r}")
        out[k] = v
    return out


def _int(data: Mapping[str, Any], key: str, default: int, lo: int, hi: int, src: str) -> int:
    v = data.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise InputError(f"{src}: {key} must be a whole number {lo}..{hi}, not {v!r}")
    return v


def _generals(items: Any, europe: Europe, src: str) -> dict[str, General]:
    """The "pieces": every General pawn as {"id", "side" (its Power), "type" ("general" or its special name, §8.9),
    "area" (a Territory, null off-map), "troops" (0-3, §3.6)}."""
    if not isinstance(items, list):
        raise InputError(f"{src}: pieces must be a list")
    out: dict[str, General] = {}
    for i, g in enumerate(items):
        if not isinstance(g, Mapping) or not isinstance(g.get("id"), str):
            raise InputError(f"{src}: pieces[{i}] needs an \"id\"")
        what = f"{src}: piece {g['id']!r}"
        if g["id"] in out:
            raise InputError(f"{what}: the id is used twice")
        power = _power(g.get("side"), f"{what}: side")
        at = g.get("area")
        if at is not None:
            terr = europe.territory(at, f"{what}: area")
            if terr.kind == "impassable":
                raise InputError(f"{what}: area {at}: no General may enter an Impassable Territory (§3.2)")
        troops = _int(g, "troops", 0, 0, MAX_TROOPS, what)
        if at is None and troops:
            raise InputError(f"{what}: an off-map General has no Troops (§8.6)")
        kind = g.get("type", "general")
        if kind != "general" and SPECIAL_POWER.get(kind) != power:
            raise InputError(f"{what}: type must be general or the {power} special General, not {kind!r} (§8.9)")
        out[g["id"]] = General(g["id"], power, at, troops, None if kind == "general" else kind)
    return out


def _statuses(value: Any, minors: Mapping[str, Any], src: str) -> dict[str, str]:
    out = {}
    for p, st in (value or {}).items():
        if p not in CHOOSERS and p not in minors:
            raise InputError(f"{src}: statuses: {p!r} chooses no status (Britain and France lead their Coalitions)")
        if st not in STATUSES:
            raise InputError(f"{src}: statuses {p}: one of {' '.join(STATUSES)}, not {st!r}")
        out[p] = st
    return out


def _minors(value: Any, src: str) -> dict[str, str | None]:
    if not isinstance(value, Mapping):
        raise InputError(f"{src}: minors must map Minor Powers to their controller (or null)")
    out = {}
    for m, c in value.items():
        _power(m, f"{src}: minors")
        if m in FIXED_STATUS:
            raise InputError(f"{src}: minors: {m} is never a Minor Power (§9.6)")
        if c is not None and (c not in POWERS or c in value):
            raise InputError(f"{src}: minors {m}: the controller must be a Major Power, not {c!r}")
        out[m] = c
    if len(out) > 3:
        raise InputError(f"{src}: minors: at most 3 Minor Powers (3 players, §9.6)")
    return out


def _movement(m: Any, s: State, src: str) -> Movement | None:
    if m is None:
        return None
    what = f"{src}: movement"
    if not isinstance(m, Mapping):
        raise InputError(f"{what}: an object")
    arb = m.get("arbiter")
    if arb is not None:
        _power(arb, f"{what}: arbiter")
    battles = _str_list(m.get("battles", []), f"{what}: battles")
    for b in battles:
        s.europe.territory(b, f"{what}: battles")
    entered = m.get("entered") or {}
    for gid, t in entered.items():
        s.general(gid)
        s.europe.territory(t, f"{what}: entered {gid}")
    return Movement(_power(m.get("power"), f"{what}: power"), arb, _int(m, "granted", 1, 1, 3, what),
                    _int(m, "played", 0, 0, 3, what), list(battles), dict(entered), bool(m.get("napoleon", False)),
                    [s.general(g).id for g in _str_list(m.get("supported", []), f"{what}: supported")])


def state_from_dict(data: Mapping[str, Any], src: str = "position") -> State:
    """A position file's object read into a State; one-line InputErrors naming the file and the field."""
    base = Path(src).parent if src not in ("position", "") else None
    board_ref = data.get("board", "demo")
    side = data.get("side", "empire")
    if not isinstance(board_ref, str):
        raise InputError(f"{src}: board must be \"demo\" or a map TOML path")
    if side not in SIDES:
        raise InputError(f"{src}: side must be one of {' '.join(SIDES)} (§3.2), not {side!r}")
    europe = load_europe(board_ref, side, base)
    dial = tuple(data.get("dial", DEFAULT_DIAL))
    if sorted(dial) != sorted(POWERS):
        raise InputError(f"{src}: dial must list the six Powers once each in the wheel's order, not {list(dial)}")
    mode = data.get("mode", "competitive")
    if mode not in ("competitive", "lempereur"):
        raise InputError(f"{src}: mode must be competitive or lempereur, not {mode!r}")
    phase = data.get("phase", "action")
    if phase not in ("diplomacy", "action"):
        raise InputError(f"{src}: phase must be diplomacy or action, not {phase!r}")
    minors = _minors(data.get("minors") or {}, src)
    s = State(europe, board_ref, side, str(data.get("scenario", "")), mode, _int(data, "round", 1, 1, 99, src),
              _int(data, "turn", 1, 1, 6, src), dial, phase, _statuses(data.get("statuses"), minors, src), minors)
    players = data.get("players") or {}
    if not isinstance(players, Mapping):
        raise InputError(f"{src}: players must map Powers to player names")
    s.players = {_power(k, f"{src}: players"): str(v) for k, v in players.items()}
    s.morale = _counts(data.get("morale") or {}, f"{src}: morale", 0, 15)
    s.influence = _counts(data.get("influence") or {}, f"{src}: influence", 0, 99)
    s.money = _counts(data.get("money") or {}, f"{src}: money")
    s.hands = _counts(data.get("hands") or {}, f"{src}: hands", 0, 40)
    s.generals = _generals(data.get("pieces") or [], europe, src)
    for tid, p in (data.get("garrisons") or {}).items():
        europe.territory(tid, f"{src}: garrisons")
        s.garrisons[tid] = _power(p, f"{src}: garrisons {tid}")
    forts = _str_list(data.get("fortresses") or [], f"{src}: fortresses")
    for tid in forts:
        europe.territory(tid, f"{src}: fortresses")
    if len(forts) > FORTRESSES or len(set(forts)) != len(forts):
        raise InputError(f"{src}: fortresses: at most {FORTRESSES}, one per territory (§3.6)")
    s.fortresses = set(forts)
    s.movement = _movement(data.get("movement"), s, src)
    s.spain_open = bool(data.get("spain_open", True))
    s.armee_dorient = bool(data.get("armee_dorient", False))
    deck = data.get("deck")
    s.deck = None if deck is None else _int(data, "deck", 0, 0, 40, src)
    s.winner = [_power(p, f"{src}: winner") for p in data.get("winner", [])]
    s.secrets = _secrets(data.get("secrets"), s, src)
    s.done = _done(data.get("done"), src)
    _check_tokens(s, src)
    return s


ONCE_A_ROUND = (*ACTIONS, "subsidies", "napoleon")
"""What each Power does once a round (§4.2, §9.5, §5.6): the Wheel's six actions, Britain's Subsidies and France's
Napoleon's Move beside Leadership."""


def _done(value: Any, src: str) -> dict[str, list[str]]:
    """The position's `done`: Power -> the Wheel's actions it has performed this round (§4.2); absent in older
    files."""
    if value is None:
        return {}
    what = f"{src}: done"
    if not isinstance(value, Mapping):
        raise InputError(f"{what}: must map Powers to the actions they performed this round")
    out = {}
    for p, acts in value.items():
        _power(p, what)
        if not isinstance(acts, list) or not all(a in ONCE_A_ROUND for a in acts) or len(set(acts)) != len(acts):
            raise InputError(f"{what} {p}: a list of different actions, each one of {' '.join(ONCE_A_ROUND)}")
        if acts:
            out[p] = list(acts)
    return out


SEALED = "sealed"
"""What a Power's view shows of another Power's secret choice (`sealed_view`): that it was made, not what it is."""


def _secrets(value: Any, s: State, src: str) -> dict[str, dict[str, Any]]:
    """The position's `secrets`: Power -> {"status": STATUS (a Power that chooses one, §9.2), "bids": {MINOR: N}
    (Morale bid for a Minor of this game, §9.6)}; absent in older files."""
    if value is None:
        return {}
    what = f"{src}: secrets"
    if not isinstance(value, Mapping):
        raise InputError(f"{what}: must map Powers to their sealed choices {{\"status\", \"bids\"}}")
    out: dict[str, dict[str, Any]] = {}
    for p, choice in value.items():
        _power(p, what)
        if not isinstance(choice, Mapping) or set(choice) - {"status", "bids"}:
            raise InputError(f"{what} {p}: an object with \"status\" and/or \"bids\"")
        mine: dict[str, Any] = {}
        if "status" in choice:
            if p not in CHOOSERS:
                raise InputError(f"{what} {p}: {p} chooses no status (§9.2)")
            if choice["status"] not in STATUSES:
                raise InputError(f"{what} {p}: status one of {' '.join(STATUSES)}, not {choice['status']!r}")
            mine["status"] = choice["status"]
        if "bids" in choice:
            bids = _counts(choice["bids"], f"{what} {p}: bids", 0, 15)
            for minor in bids:
                if minor not in s.minors:
                    raise InputError(f"{what} {p}: bids: {minor} is not a Minor Power of this game (§9.6)")
            if bids:
                mine["bids"] = bids
        if mine:
            out[p] = mine
    return out


def sealed_view(secrets: Mapping[str, Mapping[str, Any]], viewer: str, sees_all: bool = False) -> dict:
    """The secret choices as `viewer` may see them (§9.3, §9.6, §13.2): its own in full, every other Power's only as
    made (`SEALED`); all of them when `sees_all` (the umpire)."""
    out: dict[str, dict[str, Any]] = {}
    for p in POWERS:
        mine = secrets.get(p)
        if not mine:
            continue
        if sees_all or p == viewer:
            out[p] = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in mine.items()}
        else:
            out[p] = {k: ({m: SEALED for m in v} if isinstance(v, Mapping) else SEALED) for k, v in mine.items()}
    return out


def _check_tokens(s: State, src: str) -> None:
    for p in POWERS:
        n = sum(1 for g in s.generals.values() if g.power == p)
        if n > GENERALS[p]:
            raise InputError(f"{src}: {p} has {n} Generals; the game has {GENERALS[p]} (§2.1)")
        if s.troops_in_use(p) > TOKENS[p]:
            raise InputError(f"{src}: {p} uses {s.troops_in_use(p)} Troop/Garrison tokens; it has {TOKENS[p]} (§2.1)")


def position_from_dict(data: Mapping[str, Any], source: str = "position", board: Any = None
                       ) -> CoalitionsPosition:
    return freeze(state_from_dict(data, source))


def state_to_dict(s: State) -> dict:
    out: dict[str, Any] = {"system": SYSTEM, "board": s.board, "side": s.side}
    if s.scenario:
        out["scenario"] = s.scenario
    out.update({"mode": s.mode, "round": s.round, "turn": s.turn, "phase": s.phase, "dial": list(s.dial)})
    if s.players:
        out["players"] = dict(s.players)
    out["statuses"] = {p: s.statuses[p] for p in POWERS if p in s.statuses}
    if s.minors:
        out["minors"] = {p: s.minors[p] for p in POWERS if p in s.minors}
    for key in ("morale", "influence", "money", "hands"):
        out[key] = {p: getattr(s, key)[p] for p in POWERS if p in getattr(s, key)}
    out["pieces"] = [{"id": g.id, "side": g.power, "type": g.special or "general", "area": g.at, "troops": g.troops}
                     for g in sorted(s.generals.values(), key=lambda g: (POWERS.index(g.power), g.id))]
    out["garrisons"] = dict(sorted(s.garrisons.items()))
    out["fortresses"] = sorted(s.fortresses)
    if s.movement is not None:
        m = s.movement
        out["movement"] = {"power": m.power, "arbiter": m.arbiter, "granted": m.granted, "played": m.played,
                           "battles": list(m.battles), "entered": dict(m.entered), "napoleon": m.napoleon,
                           "supported": list(m.supported)}
    if not s.spain_open:
        out["spain_open"] = False
    if s.armee_dorient:
        out["armee_dorient"] = True
    if s.deck is not None:
        out["deck"] = s.deck
    if s.winner:
        out["winner"] = list(s.winner)
    if s.done:
        out["done"] = {p: list(s.done[p]) for p in POWERS if s.done.get(p)}
    if s.secrets:
        out["secrets"] = sealed_view(s.secrets, "", sees_all=True)
    return out


def position_to_dict(pos: CoalitionsPosition) -> dict:
    return state_to_dict(pos.state)


def position_view(pos: CoalitionsPosition, viewer: str) -> dict:
    """The position as `viewer` (a Power or "umpire") may see it (rules/system.py `GameSystem.view`): each Power sees
    its own secret choices and only that the others made theirs (§9.3, §9.6, §13.2); the umpire sees them all.
    Nothing else in the file is hidden (Battle cards are entered only when played)."""
    out = state_to_dict(pos.state)
    if "secrets" in out:
        out["secrets"] = sealed_view(pos.state.secrets, viewer, sees_all=viewer == UMPIRE)
    return out


def dumps(pos: CoalitionsPosition) -> str:
    return json.dumps(position_to_dict(pos), indent=1, ensure_ascii=False) + "\n"


def names(items: Iterable[str]) -> str:
    return ", ".join(items) or "none"
