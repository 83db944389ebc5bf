"""The system contract: what every game system gives the rest of Fieldglass, and the one registry that finds it.

A game system is one package under rules/ (or in another installed distribution) plus one entry point in the
`fieldglass.systems` group whose value is a `GameSystem`:

    [project.entry-points."fieldglass.systems"]
    wiener = "rules.wiener:SYSTEM"

`game_system("wiener")` finds it by name; `game_systems()` lists them. No code outside a system's own package
names a system or branches on one: the command line, the dashboard, the recorder and the exports ask the
`GameSystem` and its `TableSystem` adapter (python-chess style: each variant overrides a few hooks, no caller
branches on the variant).

`GameSystem` is the static description (name, title, kind of table, sides, actions, position file hooks,
commands, views); `TableSystem` is the live adapter built with a group's rules options: it maps the camera's
pieces to engine state and answers every rules question as plain data (rows of text, overlays in fields or table
mm, outcomes), never Qt, OpenCV or argparse.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

from common.errors import InputError
from common.text import nearest_name

Field = tuple[int, int]
"""0-based (col, row) of a grid field: A1 = (0, 0), letters along +x, numbers along +y."""

ENTRY_POINT_GROUP = "fieldglass.systems"
UMPIRE = "umpire"
"""The viewer who sees everything (`fieldglass view --as umpire`)."""
PUBLIC = "public"
"""The viewer of a replay shown to anyone: every side's hidden information withheld."""

TABLE_KINDS = ("grid", "free", "board")
"""Three kinds of table, none the base of another: a square grid of fields, a free-measured table in mm, a printed
board of areas."""


class PositionMemo:
    """A system's answers about a position (or anything else that stays the same object while it is unchanged: a
    selection overlay, the ground), remembered for the last `size` (object, question) asked, the latest asked
    first: the selection overlay and the targets table ask the same question of the same position on every frame.
    Positions are frozen: the same object is the same position (an equal one made anew is asked again)."""

    def __init__(self, size: int = 4):
        self.size = size
        self._last: list[tuple[Any, Any, Any]] = []

    def get(self, pos, question, answer: Callable[[], Any]) -> Any:
        """The answer to `question` (compared with ==) about `pos`, from `answer()` the first time."""
        for k, (p0, q0, out) in enumerate(self._last):
            if p0 is pos and q0 == question:
                self._last.insert(0, self._last.pop(k))
                return out
        out = answer()
        self._last.insert(0, (pos, question, out))
        del self._last[self.size:]
        return out


# ---------------------------------------------------------------------------------------------- plain descriptions


@dataclass(frozen=True)
class PieceSpec:
    """One piece as the camera (or the game state) places it on a grid: id, side, the engine's type, field, facing."""

    id: str
    side: str
    type: str
    field: Field
    facing: str


@dataclass(frozen=True)
class Shade:
    """A set of fields drawn in one style: kind is "melee", "small_arms", "artillery", "neighbour", "side"."""

    kind: str
    label: str
    fields: tuple[Field, ...]


@dataclass(frozen=True)
class FireLine:
    """A line from the acting piece's field centre to a target's (the rules trace centre to centre)."""

    target: str
    start: Field
    end: Field
    clear: bool
    kind: str  # "fire" (may fire), "melee" (may attack), "blocked" (in range and arc but the line is blocked)
    blockers: tuple[Field, ...] = ()
    reason: str | None = None


@dataclass(frozen=True)
class Arc:
    """The front arc: from the piece's field centre, bearings heading-half..heading+half, out to `reach` fields."""

    field: Field
    bearing_deg: float
    half_deg: float
    reach: int
    all_round: bool = False


@dataclass(frozen=True)
class SelectionOverlay:
    piece: str
    arc: Arc | None
    shades: tuple[Shade, ...]
    lines: tuple[FireLine, ...]


@dataclass(frozen=True)
class AreaSelection:
    """A selected piece on a map of areas (`TableSystem.selection`): the area it stands in (`where`), the areas a
    move may take it to (`moves`) and the pieces it may attack (`targets`); nothing for the grid views (no shaded
    fields, lines or arc)."""

    piece: str
    where: str
    moves: tuple[str, ...]
    targets: tuple[str, ...]
    shades: tuple = ()
    lines: tuple = ()
    arc: None = None


@dataclass(frozen=True)
class TargetRow:
    """One enemy as seen from the acting piece (the engine's pair analysis, flattened for a table).

    `field` is where the target stands in the system's own terms (a field name, a contact type, an area)."""

    target: str
    field: str
    distance: int
    weapon: str
    fire: bool
    fire_net: int | None
    melee: bool
    melee_net: int | None
    line_of_sight: bool
    note: str


@dataclass
class CombatOutcome:
    """A resolved action: the engine's Resolution, the dice used (with the seed when the app rolled), and text."""

    resolution: Any
    rolled: list[int]
    seed: int | None
    lines: list[str]
    changes: list[dict]

    @property
    def after(self):
        return self.resolution.after


@dataclass(frozen=True)
class CliOption:
    """One command-line option a system's `analyze` or `resolve` reads: its flags, its help and argparse's keyword
    arguments (type, choices, metavar, dest, action, default) as plain data, so the engine never imports argparse."""

    flags: tuple[str, ...]
    help: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------- the contract


@runtime_checkable
class TableSystem(Protocol):
    """The live adapter of one system with one group's rules options (`GameSystem.adapter(options_path)`).

    Every answer comes from the system's engine; the adapter only gathers it into plain descriptions."""

    name: str
    actions: tuple[str, ...]
    """Every action the combat panel and `fieldglass resolve` offer, in the order to show them."""
    single_piece_actions: frozenset[str]
    """Actions of one piece alone: no target, no supporters, no opposing roll."""

    def piece_type(self, roster_type: str) -> str | None:
        """The engine's type for a roster's type word ("hussars" -> "light_cavalry"), None when it has none."""

    def default_state(self, piece_type: str) -> dict:
        """The state the camera cannot see, for a fresh piece of this type."""

    def piece_state(self, piece) -> dict:
        """The state of an engine piece the camera cannot see (everything but id, side, type and where it stands)."""

    def check_state(self, piece_type: str, key: str, value: Any) -> Any:
        """A game-state value set by hand, checked; InputError when the rules do not allow it."""

    def empty_ground(self) -> Any:
        """The terrain of a table with none."""

    def selection(self, pos, pid: str):
        """What a selected piece shows: its arcs, zones, reach and lines to targets."""

    def targets(self, pos, pid: str) -> list[TargetRow]:
        """One row per enemy as the selected piece sees it."""

    def pair(self, pos, a: str, b: str) -> tuple[dict, list[str]]:
        """The engine's full analysis of a pair, and its text with every modifier and its rule."""

    def supporter_candidates(self, pos, attacker: str, target: str, action: str) -> list[str]:
        """Pieces the engine accepts as supporters of `attacker` against `target`."""

    def combat_modifiers(self, pos, attacker: str, target: str, action: str, supporters: Sequence[str] = ()
                         ) -> tuple[list[str], list[str]]:
        """Both sides' modifiers with their rules, before the dice: (attacker lines, defender lines)."""

    def resolve(self, pos, action: str, attacker: str, target: str | None, **inputs) -> CombatOutcome:
        """The action resolved by the engine with the player's inputs (dice, seed, supporters, choices...)."""

    def next_phase(self, turn: int, active: str, sides: Sequence[str]) -> tuple[int, str]:
        """The turn and active side after the current phase ends."""

    def phase_reset(self) -> dict:
        """The per-turn state cleared when a side's active phase begins."""


@dataclass(frozen=True)
class GameSystem:
    """One game system as the registry holds it (the value of its `fieldglass.systems` entry point).

    `from_dict`/`to_dict`/`dumps` read and write its position files (`rules/position.py`); `adapter(options)`
    builds its `TableSystem` (options: a TOML file's path, a record's stored values or None); `commands` names its
    module with `analyze(args)` and `resolve(args)` for positions of this system; `view(position, viewer)` is the
    position as one side (or the umpire) may see it, as a JSON object of the position file's form with hidden
    information withheld (None: nothing is hidden)."""

    name: str
    title: str
    table: str
    sides: tuple[str, ...]
    actions: tuple[str, ...]
    from_dict: Callable[[Mapping[str, Any], str], Any]
    to_dict: Callable[[Any], dict]
    dumps: Callable[[Any], str]
    adapter: Callable[..., TableSystem]
    commands: str
    view: Callable[[Any, str], dict] | None = None
    live: type | None = None
    """The system's `rules.live.LiveRules` subclass: its part of the one live session."""
    cli: Mapping[str, tuple[CliOption, ...]] = field(default_factory=dict)
    """Its own options of `fieldglass analyze` and `resolve` ({"analyze": (...), "resolve": (...)})."""
    examples: Mapping[str, str] = field(default_factory=dict)
    """Example lines of those commands for --help."""
    default: bool = False
    """The system a command uses when none is named, and the one of records made before records named their system
    (the flagship's package sets it)."""
    bench: str | None = None
    """The module of its engine benchmark (`fieldglass bench ...`): it declares NAME, HELP, __doc__, EPILOG, OPTIONS
    (CliOption data) and `run(args)`; None for none."""
    side_tones: Mapping[str, str] = field(default_factory=dict)
    """A side's own colour (a tone of rules/picture.py, e.g. a power's "#4682ff"); any other side is `side:N`."""
    digest: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.table not in TABLE_KINDS:
            raise ValueError(f"system {self.name!r}: table must be one of {TABLE_KINDS}, not {self.table!r}")

    def sides_of(self, position) -> tuple[str, ...]:
        """The sides in play: the system's fixed powers, or (systems of any armies) those of the position's pieces."""
        if self.sides:
            return self.sides
        return tuple(dict.fromkeys(p.side for p in getattr(position, "pieces", ())))

    def side_tone(self, side: str, index: int) -> str:
        """The tone (rules/picture.py) a side is drawn in: its own, else `side:N` by its index among the sides."""
        return self.side_tones.get(side) or f"side:{index}"

    def view_of(self, position, viewer: str) -> dict:
        """The position as `viewer` (a side or "umpire") may see it; InputError for a viewer not in the game."""
        sides = self.sides_of(position)
        if viewer != UMPIRE and viewer not in sides:
            raise InputError(f"--as {viewer!r}: one of {', '.join((*sides, UMPIRE))}")
        if self.view is None:  # nothing is hidden in this system
            return self.to_dict(position)
        return self.view(position, viewer)

    def describe(self) -> dict:
        """Name, title, kind of table, sides and actions, for `fieldglass systems --json`."""
        return {"name": self.name, "title": self.title, "table": self.table,
                "sides": list(self.sides) or "any (from the roster)", "actions": list(self.actions),
                "digest": self.digest, "default": self.default}


# ---------------------------------------------------------------------------------------------- the registry

_registered: dict[str, GameSystem] = {}
_loaded: dict[str, GameSystem] | None = None


def register(system: GameSystem) -> None:
    """Add a system at run time (a test's own system, a plugin loaded by hand); entry points need no call."""
    _registered[system.name] = system


def unregister(name: str) -> None:
    _registered.pop(name, None)


def _entry_points() -> dict[str, GameSystem]:
    global _loaded
    if _loaded is None:
        found: dict[str, GameSystem] = {}
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
            try:
                obj = ep.load()
            except ImportError as exc:
                raise InputError(f"game system {ep.name!r} ({ep.value}) cannot be loaded: {exc}") from None
            if not isinstance(obj, GameSystem):
                raise InputError(f"game system {ep.name!r} ({ep.value}) is not a GameSystem")
            found[ep.name] = obj
        _loaded = found
    return _loaded


def game_systems() -> dict[str, GameSystem]:
    """Every registered system by name: the installed entry points, then those registered at run time."""
    return {**_entry_points(), **_registered}


def game_system(name: str, source: str = "--system") -> GameSystem:
    """The system called `name`; InputError naming `source` and the known systems otherwise."""
    systems = game_systems()
    try:
        return systems[name]
    except (KeyError, TypeError):
        known = " ".join(sorted(systems)) or "none: reinstall fieldglass (pip install -e .)"
        near = nearest_name(name, systems)
        hint = f"; did you mean {near!r}?" if near else ""
        raise InputError(f"{source}: unknown game system {name!r}{hint} (known: {known})") from None


def table_system(name: str, options=None) -> TableSystem:
    """The live adapter of a system by name with its rules options (a file's path, stored values, or None)."""
    return game_system(name).adapter(options)


def system_names() -> tuple[str, ...]:
    return tuple(game_systems())


def default_system() -> str:
    """The name of the registered system marked `default`, else the first by name; InputError when none is."""
    systems = game_systems()
    marked = sorted(n for n, g in systems.items() if g.default)
    if marked or systems:
        return (marked or sorted(systems))[0]
    raise InputError("no game system is installed: reinstall fieldglass (pip install -e .)")


def registered_names() -> tuple[str, ...]:
    """Every registered system's name, sorted, without loading any (for help texts: a command's parser stays quick
    and a plugin that fails to load is reported when it is used, not when any command starts)."""
    if _loaded is not None:
        return tuple(sorted({*_loaded, *_registered}))
    return tuple(sorted({*(ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)), *_registered}))

