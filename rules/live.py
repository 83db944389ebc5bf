"""A game system's part of the one live session: the game state the camera cannot see, and the hooks a system
overrides (python-chess style: the session is one class; each system subclasses `LiveRules` in rules/<s>/live.py
and overrides a few hooks; no caller branches on the system).

The session (fieldglass/session.py) owns the camera's readings, the tracker, the selection and the signals; it
calls these hooks with itself as `s`, of which a hook may use: `s.system` (the TableSystem adapter), `s.roster`,
`s.layout`, `s.state` (GameState), `s.position`, `s.notes`, `s.selected`, `s.second`, `s.viewer`, `s.ground`,
`s.frames` (readings so far), `s.committed_places()`, `s.true_views()`, `s.piece_views()`, `s.in_position(pid)`,
`s.piece_id(name)`, `s.selection_overlay()`, `s.targets()`, `s.log(text)` and `s.events`; and for a system on a
printed board (`GameSystem.table == "board"`): `s.board` (rules.board.Board), `s.locate(x_mm, y_mm)` (a point of the
table on the board: area and position), `s.to_board` (table mm -> board mm) and `s.to_table` (board mm -> table mm,
None where the board is the table).

A board system may have more than one surface on its table (`LiveRules.surfaces`, the main one first: a strategic
map and a battle board): the main surface is `s.board`; each other one's board comes from `surface_boards` and is
registered from its own anchors every frame, like a board lying on a table. Then `s.locate` names the surface a
point lies on (`Placement.surface`; "" off every surface), `s.surface_boards` holds the other surfaces' boards by
name and `s.surface_to_table(name)` maps that surface's board mm to table mm (None while it is not registered).

Before there is a session, the wiring's one set-up loader (fieldglass/setup.py `load_setup`) asks the system's
`LiveRules` class what differs in its set-up: `demo(board)` the table it shows with `--source synthetic` (plain data,
`DemoTable`), `start_from(...)` what a position file (`--game`, or the demo's) gives a new session (`Start`), and
`setup_roster(...)` its check of the roster and what it keeps of it. What is about the kind of table comes from
`GameSystem.table`: a board system reads `--board`, a grid system needs the layout's grid.

Besides its own panels, the dashboard lays out a system's game-state panels (`panels`: plain `Panel` data, e.g. a
strategic game's date, production and diplomacy, with `PanelAction`s that fill the combat panel) and offers the
names besides pieces that may act (`actors`, e.g. nations); a record's report takes the system's own words from
`report_terms` (`ReportTerms`). Every default keeps a system without them as it was.

The same live rules serve the one recorder and the one replay of every system (fieldglass/recording.py,
fieldglass/replay_session.py): there `s` is a game record's game at one moment (fieldglass/recorded.py
`RecordedGame`), with `s.system`, `s.roster` (as the record tracks it), `s.layout`, `s.sides`, `s.ground`,
`s.board` and `s.locate`, `s.state`, `s.committed_places()` and `s.position` as above, and besides: `s.meta` (the
record's metadata), `s.kept` (what the system keeps of the record's events up to the moment: a running summary its
`keep` hook brings up to date one event at a time, never the events themselves, so that a recorder's memory stays
flat over a game of hours), `s.record_state` (the state the events built: a fieldglass.record.BoardState, each
piece's place, status, bases, markers, formation; turn and phase) and `s.settle_s` (the recording's settle time).
The record hooks (`record_meta`, `keep`, `restore`, `record_read`, `check_input`, `record_turn`, `record_combat`) say
what a record keeps for the system and how its recorded moments are placed; the replay hooks (`pair_lines`,
`replay_views`, `hidden_ids`) what a replay draws and hides.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common.dice import parse_d6
from common.errors import InputError
from common.files import check_keys, read_toml
from common.text import name_list, nearest_name
from rules.picture import Item, Scene
from rules.system import UMPIRE, CombatOutcome


@dataclass
class PendingChange:
    """A change the rules made that the physical pieces do not show yet: take `piece` off the table (`removed`), or
    (a system's subclass) move it where the rules put it. Shown on the table views until the camera sees it done."""

    piece: str
    removed: bool = False
    why: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"take {self.piece} off the table" if self.removed else f"move {self.piece}"


@dataclass
class GameState:
    """What the camera cannot see: turn, active side, each piece's state (markers, formation, bases, flags...),
    pieces taken off by the rules, and changes waiting for the physical pieces to match."""

    turn: int = 1
    active: str = ""
    states: dict[str, dict] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    pending: dict[str, PendingChange] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ActionInput:
    """One input the combat panel offers for this system's actions, passed to `TableSystem.resolve` as `key`.

    kind: "dice" (D6 rolls typed, attacker first; empty: the app rolls, with a seed shown), "die" (one D6 or none),
    "choice" (one of `options`, passed as `values[i]`), "flag" (true or None), "choices" (KEY=VALUE words, passed as
    a dict)."""

    key: str
    label: str
    kind: str
    hint: str = ""
    options: tuple[str, ...] = ()
    values: tuple[Any, ...] = ()


@dataclass(frozen=True)
class DemoPiece:
    """One roster piece standing on a demo table: its id, its base centre in table mm and the compass heading of its
    front (0 = +y)."""

    id: str
    x_mm: float
    y_mm: float
    heading_deg: float = 0.0


@dataclass(frozen=True)
class DemoTerrain:
    """A flat terrain template drawn on the demo table's cloth: `kind` its look for the synthetic renderer ("wood",
    "hill", "town", "river", "field"; anything else plain ground), `polygon_mm` its outline in table mm."""

    kind: str
    polygon_mm: tuple[tuple[float, float], ...]
    height_mm: float = 0.0


@dataclass(frozen=True)
class DemoTable:
    """The table a system shows with `--source synthetic`, as plain data: the wiring renders it with vision's
    synthetic table (fieldglass/setup.py) and a session reads it like any other table.

    `layout` and `roster` are the files it uses (a layout TOML; None on a printed board, whose own anchors register
    the camera), `pieces` where the roster's pieces stand, `terrain` the templates on the cloth (a grid system's
    ground is read from them, `LiveRules.start_from`), `board` the printed board that is the table (a system on a
    printed board: a rules.board.Board, its areas drawn as terrain), `game` a position in the form of the system's
    position file (a dict) the session starts from as it would from `--game` (None: none), and `names` what the
    window title and messages call the layout, roster and board it brings (default: their files)."""

    roster: Path
    layout: Path | None = None
    pieces: tuple[DemoPiece, ...] = ()
    terrain: tuple[DemoTerrain, ...] = ()
    board: Any = None
    game: Mapping[str, Any] | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    surfaces: Mapping[str, tuple[float, float, float]] = field(default_factory=dict)
    """Where each surface besides the main board lies on the demo table (`LiveRules.surfaces`): name -> (x_mm, y_mm,
    rotation_deg) of its board's origin in table mm, turned counter-clockwise; the table grows to hold them."""


@dataclass(frozen=True)
class Start:
    """What a new session starts from besides the camera (`LiveRules.start_from`): `ground` the rules' terrain (None:
    the adapter's empty ground), `states` each piece's state the camera cannot see, by id, and `game` what else the
    system keeps of the position for its live rules (`Setup.game`: a template without pieces, a starting position)."""

    ground: Any = None
    states: Mapping[str, dict] = field(default_factory=dict)
    game: Any = None


@dataclass(frozen=True)
class PieceKind:
    """A kind of piece `fieldglass init` puts in a new roster (`LiveRules.piece_kinds`): its roster `type` word, the
    prefix of its pieces' ids ("fr-i-1"), its base (width along its front, depth; mm) and the height of its marker's
    printed face above the cloth (mm)."""

    type: str
    prefix: str
    base_mm: tuple[float, float]
    marker_height_mm: float = 3.0


@dataclass(frozen=True)
class ArmyList:
    """An army a system knows (`LiveRules.armies`), chosen by `name` (`fieldglass init --army SIDE=NAME`): `title`
    one line saying what it is, `pieces` (roster type, count) in the order the roster lists them, `side` the side it
    usually takes ("": any)."""

    name: str
    title: str
    pieces: tuple[tuple[str, int], ...]
    side: str = ""


@dataclass(frozen=True)
class Zone:
    """Where one side deploys on a table (`LiveRules.deployment`): x0..x1, y0..y1 in table mm, its pieces facing
    `heading_deg` (a compass bearing: 0 = +y)."""

    side: str
    x0: float
    y0: float
    x1: float
    y1: float
    heading_deg: float


@dataclass(frozen=True)
class PanelAction:
    """One action a game-state panel offers: the adapter's action `action` with what it fills in the combat panel
    (`attacker`, `target`, `choices` as KEY=VALUE pairs), so that the player only types or rolls the dice and
    resolves; `allowed` False, with `why`, when the rules forbid it now (shown greyed with the reason, not hidden)."""

    label: str
    action: str
    attacker: str = ""
    target: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    allowed: bool = True
    why: str = ""

    @property
    def choice_text(self) -> str:
        """The choices as the combat panel's free choices line takes them: "buy=inf:1 place=paris"."""
        return " ".join(f"{k}={v}" for k, v in self.choices)


@dataclass(frozen=True)
class Panel:
    """One game-state panel of a system (`LiveRules.panels`), as plain data the dashboard lays out: `title`, `lines`
    of text above a table of `rows` (cells as text) under `headers`, and `actions` offered below it. Built from the
    engine's position each time the game changes; the dashboard never interprets its cells."""

    key: str
    title: str
    lines: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    actions: tuple[PanelAction, ...] = ()


@dataclass(frozen=True)
class ReportTerms:
    """A record's after-action report in the game's own terms (`LiveRules.report_terms`), all optional: `turn_titles`
    the heading of each turn's section by turn number ("Round 2: 1805-02"; absent: "Turn N", turn 0 "Set-up"),
    `event_lines` an event's line by its sequence number (absent: the generic summary; a `turn` event is shown only
    with a line of its own), `sections` (title, lines) added before the
    totals (the battles, the purchases...), `losses` False when the generic bases-lost line means nothing here."""

    turn_titles: Mapping[int, str] = field(default_factory=dict)
    event_lines: Mapping[int, str] = field(default_factory=dict)
    sections: tuple[tuple[str, tuple[str, ...]], ...] = ()
    losses: bool = True


def load_armies(path: str | Path) -> tuple[ArmyList, ...]:
    """The armies of a system's data file (TOML: [[army]] tables with `name`, `title`, optional `side` and `pieces`,
    a list of [TYPE, COUNT] pairs); InputError naming the file and the army at fault."""
    data = read_toml(path, "army list file")
    check_keys(data, ("army",), str(path))
    out = []
    for i, a in enumerate(data.get("army", []), 1):
        where = f"{path} army {i}"
        if not isinstance(a, dict):
            raise InputError(f"{where}: must be an [[army]] table")
        check_keys(a, ("name", "title", "side", "pieces"), where)
        name, pieces = a.get("name"), a.get("pieces")
        if not isinstance(name, str) or not name:
            raise InputError(f"{where}: needs a text 'name'")
        if not isinstance(pieces, list) or not pieces or not all(
                isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) and isinstance(e[1], int)
                and not isinstance(e[1], bool) and e[1] > 0 for e in pieces):
            raise InputError(f"{where} {name!r}: 'pieces' must be [TYPE, COUNT] pairs with counts above 0")
        out.append(ArmyList(name, str(a.get("title", name)), tuple((t, n) for t, n in pieces), str(a.get("side", ""))))
    return tuple(out)


DICE = ActionInput("dice", "dice", "dice", "physical dice, attacker first: 5,3 (empty: the app rolls)")


def in_play(pieces, state: GameState, system, kind: str) -> tuple[list[tuple[Any, dict, str, Any]], list[str]]:
    """The roster's pieces the rules may place: (piece, its game state, its engine type, its pending change or None)
    for each one the rules did not remove, and a note for each whose type the system does not know (`kind` says
    what a type is in this system, e.g. "a DBX element code (Li, Jä, ...) or a known word")."""
    out, notes = [], []
    for rp in pieces:
        if rp.id in state.removed:
            continue
        st = state.states.get(rp.id, {})
        ptype = st.get("type") or system.piece_type(rp.type)
        if ptype is None:
            notes.append(f"{rp.id}: roster type {rp.type!r} is not {kind}; set its type in the game state")
            continue
        out.append((rp, st, ptype, state.pending.get(rp.id)))
    return out, notes


def input_dice(inp: dict, key: str = "dice") -> list[int]:
    """The dice a recorded combat input gives (none: the recorder rolls, from its seed); InputError unless D6 rolls."""

    raw = inp.get(key, [])
    what = f"combat at frame {inp.get('frame')}: {key}"
    if not isinstance(raw, list | tuple):
        raise InputError(f"{what} {raw!r}: a list of die rolls, e.g. [6, 2]")
    return parse_d6(",".join(str(v) for v in raw), what)


def plain(value: Any) -> Any:
    """A value as a game record keeps it (JSON: tuples become lists, keys strings)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    return value


class LiveRules:
    """The defaults of every hook; a system overrides what its game needs.

    Declarations the dashboard builds itself from: `viewers`, the player views besides the umpire's (a system
    with hidden information lists its sides, with `viewer_titles`); `inputs`, what its actions take besides
    attacker, target and supporters; `target_headers`, the ten columns of its target rows (rules.system.TargetRow);
    `state_headers`, the ten columns of its game-state table; `target_hint`, the combat panel's word on targets."""

    viewers: tuple[str, ...] = ()
    viewer_titles: dict[str, str] = {}
    inputs: tuple[ActionInput, ...] = (DICE,)
    target_headers: tuple[str, ...] = ("target", "field", "LE", "weapon", "fire", "net", "melee", "net", "sight",
                                       "note")
    state_headers: tuple[str, ...] = ("piece", "side", "type", "field", "facing", "formation", "bases", "markers",
                                      "seen", "waiting for")
    target_hint: str = ""
    noun: str = "piece"
    surfaces: tuple[str, ...] = ()
    """The surfaces on this system's table when it has more than one printed board, the main one (`s.board`)
    first: each other one's board comes from `surface_boards` and is registered from its own anchors. () : one
    board (or none)."""
    roster_keys: tuple[str, ...] = ()
    """The keys of a roster's [[piece]] tables this system reads besides the geometry (`setup_roster`'s `tables`);
    any other key in a roster for this system is an error naming it (a typo is never ignored)."""
    legend: tuple = ()
    """The marks its pictures draw besides those every system shares (rules.picture.LEGEND): rules.picture.LegendEntry
    items, for View > Legend and the pages' legend."""
    removal_events: bool = False
    """Whether a piece a recorded resolution removes also gets its own `removed` event after the resolution (the
    record's state takes it off either way, from the resolution's changes)."""

    # ---- what a roster of this system may hold (checked where a roster is read: fieldglass/setup_checks.py)

    roster_types: tuple[str, ...] = ()
    """The words a roster's `type` may hold, the engine's own first: listed when a piece's is none of them, the
    nearest suggested. A type is valid when it is one of them (any case, spaces for underscores) or the adapter's
    `piece_type` reads it. () : types are not checked."""
    open_types: tuple[str, ...] = ()
    """Type words that leave a piece's type to be set at the table (the game-state panel): valid, never suggested."""
    roster_sides: tuple[str, ...] | None = ()
    """The words a roster's `side` may hold (the system's powers and their short codes). () : any side, the roster's
    sides are the armies (a piece without a side, or one side spelt two ways, "FR" and "Fr", is then the error);
    None: the system's `setup_roster` checks each piece's side itself (it depends on the piece)."""
    sides_ignore_case: bool = True
    """Whether a side matches `roster_sides` in any case ("France" for france); False: exactly as listed."""
    type_noun: str = "type"
    """A type in this system's words, for messages: "type 'artilery' is not a Wiener troop type"."""

    # ---- a new table (`fieldglass init`; a system without them gets the defaults below)

    table_mm: tuple[float, float] = (1800.0, 1200.0)
    """The table (width, depth in mm) `fieldglass init` suggests."""
    grid_field_mm: float = 60.0
    """A grid system's field side (mm) `fieldglass init` suggests."""
    default_sides: tuple[str, ...] = ("blue", "red")
    """The sides `fieldglass init` suggests when the armies name none."""

    @classmethod
    def piece_kinds(cls) -> tuple[PieceKind, ...]:
        """The kinds of piece `fieldglass init` can make, with their bases. Default: none (init needs them)."""
        return ()

    @classmethod
    def armies(cls) -> tuple[ArmyList, ...]:
        """The armies (army lists, piece sets) this system knows, shipped as data in its own package. Default: none
        (armies are given as counts per type and side)."""
        return ()

    @classmethod
    def starting_roster(cls) -> Path | None:
        """A system on a printed board: the roster of the pieces a new table starts with, shipped in its package (its
        demo's blocks, figures or pawns), whose ids its `demo` and `start_position` place; `fieldglass init` gives
        them the player's markers (after the board's anchors) and the sizes the camera reads, keeping every other
        key. Default: none (a grid or free table builds its roster from `piece_kinds` and `armies`)."""
        return None

    @classmethod
    def start_position(cls, board) -> Mapping[str, Any] | None:
        """The position a new table starts from, in the form of the system's position file (`--game`), on `board`
        (a printed board; None on a grid or free table): `fieldglass init` writes it as the table's start. Default:
        the demo's position (`DemoTable.game`), None without one."""
        demo = cls.demo(board)
        return copy.deepcopy(dict(demo.game)) if demo is not None and demo.game is not None else None

    @classmethod
    def deployment(cls, width_mm: float, depth_mm: float, sides) -> tuple[Zone, ...]:
        """Where each side deploys on a table of this size (the synthetic table spreads a roster's pieces there, a
        rehearsal before the camera arrives). Default: the first side along the south edge facing north, the next
        along the north edge facing south, further sides sharing those edges in turn; each zone a quarter of the
        table deep (at most 300 mm), 100 mm clear of the side edges."""
        sides = list(sides)
        if not sides:
            return ()
        deep = min(depth_mm / 4.0, 300.0)
        margin = min(100.0, width_mm / 10.0)
        south, north = sides[0::2], sides[1::2]
        zones = []
        for row, heading, y0, y1 in ((south, 0.0, 0.0, deep), (north, 180.0, depth_mm - deep, depth_mm)):
            width = (width_mm - 2 * margin) / max(1, len(row))
            for k, side in enumerate(row):
                zones.append(Zone(side, margin + k * width, y0, margin + (k + 1) * width, y1, heading))
        return tuple(sorted(zones, key=lambda z: sides.index(z.side)))

    @classmethod
    def position_places(cls, position, table) -> tuple[DemoPiece, ...]:
        """Where the pieces of a position file (read by the system) stand on `table` (the layout: `width_mm`,
        `depth_mm`, `grid`), for the synthetic table: each piece's base centre in table mm and heading. Default:
        none (the synthetic table spreads the roster's pieces in their deployment zones)."""
        return ()

    @property
    def uses_dice(self) -> bool:
        return any(i.kind == "dice" for i in self.inputs)

    def dice_wanted(self, s, action: str, attacker: str | None, target: str | None) -> tuple[str, ...] | None:
        """Whose each die of a throw at the table is, for `action` by `attacker` on `target` in the session `s`, in
        the order the engine takes them: ("attacker", "defender"), ("2d6", "2d6")... The dashboard fills them with
        a throw the camera read (vision/dice_watch.py), its dice left to right along the table; a throw of fewer
        dice fills the next ones (each player throws their own die). None: as many dice as are thrown, in that
        order; (): the action takes no dice (a throw is not offered to it). Default: None for a system that rolls
        dice, () for one that does not."""
        return None if self.uses_dice else ()

    # ---- the set-up (classmethods: the wiring's load_setup asks them before there is a session)

    @classmethod
    def demo(cls, board=None) -> DemoTable | None:
        """The table this system shows with `--source synthetic`, as plain data; `board` the printed board given with
        `--board` (a system on a printed board: the demo's pieces on it), else None. None: the synthetic table's own
        demo (a 2400 x 1200 mm table with a 60 mm grid, two armies of infantry, cavalry and guns, a wood, a hill and a
        town)."""
        return None

    @classmethod
    def surface_boards(cls, board) -> dict[str, Any]:
        """The boards of the surfaces besides the main one (`surfaces[1:]`), by name, for the main `board`: each a
        rules.board.Board with its own anchors (their marker ids apart from the main board's and the pieces').
        Default: none."""
        return {}

    @classmethod
    def start_from(cls, system, position, terrain=(), table=None) -> Start:
        """What a new session starts from: `system` the adapter (with the set-up's rules options), `position` the
        one read from `--game` or the demo's `game` (None: neither), `terrain` the synthetic table's templates (each
        with `kind` and `polygon_mm`; () on a real table), `table` the layout (`width_mm`, `depth_mm`, `grid`).

        The default suits a grid system: the position's ground and each of its pieces' state (the adapter's
        `ground_from_position` and `piece_state`), else the ground the templates lie on (`ground_from_terrain`)."""
        if position is not None:
            ground = getattr(system, "ground_from_position", None)
            return Start(ground(position) if ground else None,
                         {p.id: system.piece_state(p) for p in position.pieces})
        from_terrain = getattr(system, "ground_from_terrain", None)
        grid = getattr(table, "grid", None)
        if terrain and from_terrain is not None and grid is not None:
            return Start(from_terrain(terrain, grid))
        return Start()

    @classmethod
    def setup_roster(cls, system, roster, tables: Mapping[str, Mapping], start: Start, source: str) -> dict[str, Any]:
        """The roster checked for this system once read (InputError naming `source`, the roster file, when the system
        cannot play it) and what the system keeps of it besides, by name (`Setup.extra`, read back as
        `setup.NAME`): `tables` holds each roster piece's own [[piece]] table by id, with any keys the system
        defines; `start` what the position gave. Default: nothing to check or keep."""
        return {}

    def __init__(self, system, setup) -> None:
        self.system = system
        self.setup = setup

    # ---- a player's undo (fieldglass/session.py)

    def game_state(self) -> dict:
        """A copy of what these live rules keep of the game besides the adapter and the set-up (the engine's state,
        a strategic game's date and purses...), for a player's undo to go back to. Override where something kept
        is not the game's."""
        return copy.deepcopy({k: v for k, v in vars(self).items() if k not in ("system", "setup")})

    def set_game_state(self, kept: dict) -> None:
        """Go back to what `game_state` copied."""
        for k, v in copy.deepcopy(kept).items():
            setattr(self, k, v)

    # ---- start and readings

    def tracked_roster(self, roster):
        """The roster the session tracks (a system whose units have several markers tracks units)."""
        return roster

    def start(self, s) -> None:
        """Set the game state a new session starts from (turn, side to move, each piece's state)."""

    def read(self, s, reading):
        """A new camera reading as this system reads it (e.g. block markers as units); the default keeps it."""
        return reading

    def position(self, s) -> tuple[Any, list[str]]:
        """The engine's position from the committed places and the game state: (position, notes naming every
        piece left out and why). Every system overrides this: it is the one placement of the system."""
        raise NotImplementedError

    def placed_as(self, s, pose, change: PendingChange) -> bool:
        """Whether a piece seen at `pose` stands where a pending change wants it."""
        return False

    # ---- the game state

    def check_state(self, s, pid: str, key: str, value: Any) -> tuple[str, str, Any]:
        """A game-state value set by hand: (piece, key, value) checked by the adapter; InputError when not allowed.
        `pid` is a roster id (the session resolves the name a viewer knows a piece by); `s` the live session or a
        record's game (the recorder checks a player's `state` input with it), so only what both have."""
        rp = s.roster.piece(pid)
        if rp is None:
            raise InputError(f"no {self.noun} {pid!r} in the roster")
        st = s.state.states.get(pid, {})
        ptype = st.get("type") or s.system.piece_type(rp.type) or ""
        return pid, key, s.system.check_state(ptype if key != "type" else "", key, value)

    def set_turn(self, s, turn: int, active: str | None) -> None:
        s.state.turn = max(1, int(turn))
        if active is not None:
            s.state.active = active

    def next_phase(self, s) -> None:
        """End the active side's phase: the next side (or turn) becomes active, its per-turn flags cleared."""
        turn, active = s.system.next_phase(s.state.turn, s.state.active, s.sides)
        reset = s.system.phase_reset()
        for rp in s.roster.pieces:
            if rp.side == active:
                st = s.state.states.setdefault(rp.id, {})
                for k, v in reset.items():
                    if st.get(k):
                        st[k] = v
        s.state.turn, s.state.active = turn, active
        s.log(f"turn {turn}: {active} active")

    def apply(self, s, outcome) -> list[PendingChange]:
        """Apply a resolution to the game state; moves and removals become pending changes."""
        raise NotImplementedError

    def actors(self, s) -> tuple[str, ...]:
        """Names besides the pieces that may act in or be the target of an action (e.g. the nations of a strategic
        game), offered by the combat panel and accepted by the session as an attacker. Default: none."""
        return ()

    def panels(self, s) -> tuple[Panel, ...]:
        """The system's game-state panels (date, production, diplomacy...) for the session's current position, as
        plain data the dashboard shows beside its own panels, refreshed whenever the game changes. Default: none."""
        return ()

    # ---- what a viewer sees

    def look(self, s, view):
        """A piece as the current viewer may see it (a hidden block: an anonymous label), or None when the viewer may
        not see it at all (a figure of the other side behind a battle's set-up screen: left out of the views, the
        picture and the tables); default: as it is."""
        return view

    def resolve_id(self, s, pid: str) -> str | None:
        """The roster id a click or a typed name means (an anonymous label -> its block), None when it is not a
        piece (the session then leaves the selection alone)."""
        return pid

    def visible_id(self, s, pid: str) -> str:
        """What the current viewer calls a piece."""
        return pid

    def title(self, s) -> str | None:
        """One line of rich text about the selection for the selection panel, None for the panel's own."""
        return None

    def describe(self, s) -> list[str]:
        """The headless printout: every piece with where it stands, then the selection's answers."""
        return []

    def context(self, s) -> Any:
        """What this system's picture needs beyond the scene (`Scene.context`), e.g. where each block was located."""
        return None

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        """Everything to draw for this scene, in the drawing language of rules/picture.py."""
        return ()

    def check_viewer(self, viewer: str) -> str:
        if viewer != UMPIRE and viewer not in self.viewers:
            raise InputError(f"view: one of {', '.join((UMPIRE, *self.viewers))}, not {viewer!r}")
        return viewer

    # ---- the game record: what it keeps, how a recorded moment is placed (fieldglass/recording.py, recorded.py)

    def record_meta(self, meta: dict) -> dict:
        """A new record's metadata: `meta` is the generic part (system, the roster as the session tracks it, layout,
        rules options, players, source, a printed board's `board`); add what this system needs to rebuild its game
        from the record (a starting position, identities...), from this rules' set-up (`self.setup`)."""
        return meta

    def keep(self, s, kept: dict, event) -> None:
        """What this system keeps of a record's history (`kept`, a dict of its own, empty before the first event)
        brought up to date with one more `event` (the record's events in order; never an undone one): e.g. the
        engine's state the last event made, the blocks revealed so far. `s` is the record's game (`s.meta`,
        `s.board`; not yet at the moment). The recorder keeps this summary instead of the events, so it must stay
        bounded as the game goes on (the latest value of each thing, not every one: `fieldglass bench soak`);
        `restore` reads it as `s.kept`. The default keeps nothing."""

    def restore(self, s) -> None:
        """The game state at a recorded moment, before `position(s)` places it as the live session did: `s.state`
        comes with the record's turn (at least 1), the active side its last turn event named (else the first side)
        and the pieces the rules removed; set each piece's state and this system's own (its starting position, the
        engine's state) from `s.meta`, `s.kept` (what `keep` made of the events up to the moment) and
        `s.record_state`. The default keeps what it is given."""

    def record_read(self, s, reading, t: float) -> tuple[Any, list[dict]]:
        """A camera reading as the recorder tracks it at time `t` (seconds), and the events it makes besides moves
        (each {"type", "piece", "data"}, written after the reading's moves): the default keeps the reading and makes
        none. `s.record_state` is the record's state before the reading."""
        return reading, []

    def check_input(self, s, inp: dict) -> None:
        """A player's input to a recording, before anything is written: InputError when this game has no use
        for it."""

    def record_turn(self, s, inp: dict) -> dict:
        """The data of the `turn` event a player's turn input makes: the turn it names (else the next), the side it
        makes active and the phase it names. An event that ends the game carries `game_winner` (and `victory`)."""
        data: dict[str, Any] = {"turn": int(inp.get("turn", s.record_state.turn + 1))}
        if inp.get("active"):
            data["active"] = str(inp["active"])
        if inp.get("phase"):
            data["phase"] = str(inp["phase"])
        return data

    def record_start(self, s) -> dict | None:
        """The input a record begun at the dashboard starts with: the turn and side the game is at (a live session
        starts at turn 1 with a side to move, a record before its first turn), so that what is played from the
        first move on is that turn's. None for a system whose turn input ends a side's turn rather than naming one
        (its record's turns are its own)."""
        return {"type": "turn", "turn": int(s.state.turn), "active": s.state.active}

    def record_combat(self, s, inp: dict) -> dict:
        """Resolve a player's combat input ({"action", "attacker", "target", "supporters", "seed", and this
        system's `inputs` by key}) with the engine on the recorded position `s.position`, and return what the
        `combat` event keeps: action, pieces (acting first), their sides (and grid fields), the dice, winner and
        effect, the engine's `changes` (a removed piece: `"removed": true`; "field", "facing", "bases", "marker",
        "formation" as the record's state reads them), its text (`lines`, `summary`) and the seed the recorder
        rolled with. An event that ends the game carries `game_winner` (and `victory`)."""
        pos = s.position
        frame = inp.get("frame")
        action = inp.get("action") or (s.system.actions[0] if s.system.actions else "")
        attacker, target = inp.get("attacker"), inp.get("target")
        for pid in (attacker, *(() if target is None else (target,))):
            if not isinstance(pid, str) or pid not in pos.by_id:
                near = nearest_name(pid, pos.by_id)
                hint = f"; did you mean {near!r}?" if near else ""
                raise InputError(f"combat at frame {frame}: {pid!r} is not a {self.noun} on the table{hint} "
                                 f"({self.noun}s on the table: {name_list(sorted(pos.by_id))})")
        kw: dict[str, Any] = {}
        for i in self.inputs:
            if i.kind == "dice":
                kw[i.key] = input_dice(inp, i.key)
                kw["seed"] = inp.get("seed")
            elif i.key in inp:
                kw[i.key] = inp[i.key]
        supporters = [str(p) for p in inp.get("supporters", [])]
        outcome: CombatOutcome = s.system.resolve(pos, action, attacker, target, supporters=supporters, **kw)
        res = outcome.resolution
        pieces = [attacker, *(() if target is None else (target,))]
        data: dict[str, Any] = {"action": action, "pieces": pieces,
                                "sides": {pid: pos.by_id[pid].side for pid in pieces}}
        fields = {pid: pos.by_id[pid].field_name for pid in pieces
                  if getattr(pos.by_id[pid], "field_name", None) is not None}  # a piece off the grid has none
        if fields:
            data["fields"] = fields
        data.update(dice=list(outcome.rolled), winner=getattr(res, "winner", None),
                    effect=getattr(res, "effect", None), changes=plain(outcome.changes), lines=list(outcome.lines),
                    summary=outcome.lines[0] if outcome.lines else f"{action} {' -> '.join(pieces)}")
        if supporters:
            data["supporters"] = supporters
        if outcome.seed is not None:
            data["seed"] = outcome.seed
        return data

    @classmethod
    def report_terms(cls, meta: Mapping[str, Any], events) -> ReportTerms:
        """What a record's after-action report (fieldglass/record/export.py) says in this game's own terms: `meta`
        the record's metadata, `events` its events in order without the undone ones (each with `seq`, `type`, `t`,
        `turn`, `phase`, `piece` and `data`). The default: nothing of its own (turns, pieces and combats as
        recorded)."""
        return ReportTerms()

    # ---- the replay: what it draws and what it hides (fieldglass/replay_session.py)

    def pair_lines(self, s, pos) -> list[tuple[str, str, Any, Any, str]]:
        """Every line along which a piece may act on an enemy in `pos`, for the replay's "every fire line":
        (piece, target, its grid field, the target's, kind "fire" or "melee"). None by default."""
        return []

    def hidden_ids(self, s, events) -> list[str]:
        """The pieces whose identity the replay's viewer (`s.viewer`, neither the umpire nor after the game ended)
        may not know after `events`, longest id first. None by default: nothing is hidden."""
        return []

    def replay_views(self, s, views: list, events, over: bool) -> tuple[list, dict[str, str]]:
        """The replay's pieces (PieceViews) as its viewer `s.viewer` may see them after `events` (`over`: the game
        had ended), and each anonymous label -> the piece it stands for. The default shows them as they are."""
        return views, {}
