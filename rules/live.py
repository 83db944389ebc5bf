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

Before there is a session, the wiring's one set-up loader (fieldglass/setup.py `load_setup`) asks the system's
`LiveRules` class what differs in its set-up: `demo(board)` the table it shows with `--source synthetic` (plain data,
`DemoTable`), `start_from(...)` what a position file (`--game`, or the demo's) gives a new session (`Start`), and
`setup_roster(...)` its check of the roster and what it keeps of it. What is about the kind of table comes from
`GameSystem.table`: a board system reads `--board`, a grid system needs the layout's grid.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common.errors import InputError
from rules.picture import Item, Scene
from rules.system import UMPIRE


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


@dataclass(frozen=True)
class Start:
    """What a new session starts from besides the camera (`LiveRules.start_from`): `ground` the rules' terrain (None:
    the adapter's empty ground), `states` each piece's state the camera cannot see, by id, and `game` what else the
    system keeps of the position for its live rules (`Setup.game`: a template without pieces, a starting position)."""

    ground: Any = None
    states: Mapping[str, dict] = field(default_factory=dict)
    game: Any = None


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

    @property
    def uses_dice(self) -> bool:
        return any(i.kind == "dice" for i in self.inputs)

    # ---- the set-up (classmethods: the wiring's load_setup asks them before there is a session)

    @classmethod
    def demo(cls, board=None) -> DemoTable | None:
        """The table this system shows with `--source synthetic`, as plain data; `board` the printed board given with
        `--board` (a system on a printed board: the demo's pieces on it), else None. None: the synthetic table's own
        demo (a 2400 x 1200 mm table with a 60 mm grid, two armies of infantry, cavalry and guns, a wood, a hill and a
        town)."""
        return None

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
        """A game-state value set by hand: (piece, key, value) checked by the adapter; InputError when not allowed."""
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

    # ---- what a viewer sees

    def look(self, s, view):
        """A piece as the current viewer may see it (a hidden block: an anonymous label); default: as it is."""
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
