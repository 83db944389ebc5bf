"""Triomphe à Marengo state: blocks on a printed board, the turn, morale; the JSON position file.

::

    {"system": "marengo", "board": "demo",              # "demo" or a board TOML path (relative to the file)
     "round": 1, "side": "AU", "phase": 3, "commands": 3,
     "blocks": [{"id": "au-cav-1", "side": "AU", "type": "cavalry", "strength": 2, "area": "3", "approach": "5"},
                {"id": "fr-inf-1", "side": "FR", "type": "infantry", "strength": 3, "area": "5", "ready": false},
                {"id": "au-art-1", "side": "AU", "type": "artillery", "strength": 1, "box": "ALESSANDRIA"}],
     "morale": {"pool": {"AU": 0, "FR": 3}, "committed": {"3": {"AU": 1}}, "track": {"1": {"AU": 2}}},
     "turn": {"thrusts": {"5>3": 1}, "crossings": {"2>3": [1, 2]}, "road_thrusts": ["10>3"],
              "forbidden": ["5>4"], "no_road_entry": ["4"], "pontoon_used": false},
     "last_occupant": {"3": "FR"}}

A block's `approach` names the neighbouring area its approach faces (absent: reserve); `box` puts it off-map.
Per-block flags the camera cannot see: `ready` (French, §5.4), `acted`, `rallied`, `revealed`, `began_in_reserve`,
`bombard` ("announced" or "executed", with `bombard_round`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from common.errors import InputError
from rules.board import Board, approach_id, load_board
from rules.position import Position

SYSTEM = "marengo"
SIDES = ("AU", "FR")


def demo_board_path() -> Path:
    """The invented demo board shipped with the Marengo package (the rulebooks carry no map)."""
    return Path(str(resources.files("rules.marengo").joinpath("data/demo_board.toml")))


def load_demo_board() -> Board:
    """The small invented Marengo demo board shipped with the package (not the published map)."""
    return load_board(demo_board_path())
TYPES = ("infantry", "cavalry", "artillery")
ROUNDS = 16
ROUND_LABELS = ("6h", "7h", "8h", "9h", "10h", "11h", "12h", "1h", "2h", "3h", "4h", "5h", "6h pm", "7h pm", "8h pm",
                "9h pm")
"""§11.1: 16 hourly rounds 06:00..21:00, on the track as 6h..12h, 1h..9h."""
COMMANDS = 3  # §5.1


def other(side: str) -> str:
    return "FR" if side == "AU" else "AU"


def round_clock(rnd: int) -> str:
    return f"{5 + rnd:02d}:00"


@dataclass(frozen=True)
class Block:
    id: str
    side: str
    type: str
    strength: int
    area: str | None = None
    approach: str | None = None  # the neighbour area whose approach it blocks; None = reserve
    box: str | None = None
    ready: bool = True
    acted: bool = False
    rallied: bool = False
    revealed: bool = False
    began_in_reserve: bool = True
    bombard: str | None = None  # "announced" / "executed"
    bombard_round: int | None = None
    unit: str | None = None

    @property
    def position(self) -> str:
        """"reserve", an approach id like "3>5", or "box:NAME"."""
        if self.box is not None:
            return f"box:{self.box}"
        return "reserve" if self.approach is None else approach_id(self.area, self.approach)

    def where(self) -> tuple[str, str]:
        """Its area and position (reserve or an approach), or its box off the map."""
        return (self.area or f"box {self.box}"), (self.position or "")

    @property
    def on_map(self) -> bool:
        return self.area is not None


@dataclass(frozen=True)
class Turn:
    thrusts: Mapping[str, int] = field(default_factory=dict)  # defender approach id -> thrusts across it
    crossings: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # "a>b" -> road-move steps used
    road_thrusts: frozenset[str] = frozenset()  # crossings used by a road-move thrust (§5.3)
    forbidden: frozenset[str] = frozenset()  # defender approaches of lost assaults (§8.3 step 9)
    no_road_entry: frozenset[str] = frozenset()  # areas captured by assault (§8.3 step 9)
    pontoon_used: bool = False
    rally_areas: frozenset[str] = frozenset()  # areas where a rally began this turn (all-or-nothing §5.4)


@dataclass(frozen=True)
class Morale:
    pool: Mapping[str, int] = field(default_factory=lambda: {"AU": 0, "FR": 3})
    committed: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    track: Mapping[int, Mapping[str, int]] = field(default_factory=dict)

    def level(self, side: str) -> int:
        """§8.6: pool + committed (the time track does not count)."""
        return self.pool.get(side, 0) + sum(c.get(side, 0) for c in self.committed.values())


@dataclass(frozen=True)
class MarengoPosition(Position):
    board: Board | None = None
    board_ref: str = "demo"
    blocks: tuple[Block, ...] = ()
    round: int = 1
    side: str = "AU"
    phase: int = 3
    commands: int = COMMANDS
    turn: Turn = field(default_factory=Turn)
    morale: Morale = field(default_factory=Morale)
    last_occupant: Mapping[str, str] = field(default_factory=dict)
    winner: str | None = None
    victory: str | None = None

    @cached_property
    def blocks_by_id(self) -> dict[str, Block]:
        return {b.id: b for b in self.blocks}

    def block(self, block_id: str) -> Block:
        try:
            return self.blocks_by_id[block_id]
        except KeyError:
            raise InputError(f"no block {block_id!r} in the position") from None

    def in_area(self, area: str) -> list[Block]:
        return [b for b in self.blocks if b.area == area]

    def at(self, area: str, approach: str | None) -> list[Block]:
        """Blocks in one position: the reserve (approach None) or the approach facing `approach`."""
        return [b for b in self.blocks if b.area == area and b.approach == approach]

    def occupant(self, area: str) -> str | None:
        """§3.2: the side with blocks in the area (an area never holds both)."""
        sides = {b.side for b in self.in_area(area)}
        return next(iter(sides)) if len(sides) == 1 else (None if not sides else "both")

    def with_blocks(self, blocks) -> MarengoPosition:
        return replace(self, blocks=tuple(blocks))

    def replace_block(self, new: Block) -> MarengoPosition:
        return self.with_blocks(new if b.id == new.id else b for b in self.blocks)


# ---------------------------------------------------------------- parsing


_BOOL_KEYS = ("ready", "acted", "rallied", "revealed", "began_in_reserve")


def _block_place(d: Mapping, w: str, board: Board) -> tuple[str | None, str | None, str | None]:
    """(area, approach, box): a block stands in an area's reserve or approach, or in a box (§5.6)."""
    area, appr, box = d.get("area"), d.get("approach"), d.get("box")
    if (area is None) == (box is None):
        raise InputError(f"{w}: give exactly one of 'area' or 'box'")
    if area is not None and area not in board.areas:
        raise InputError(f"{w}: area {area!r} is not on the board {board.name!r}")
    if box is not None and box not in board.boxes:
        raise InputError(f"{w}: box {box!r} is not on the board {board.name!r}")
    if appr is not None:
        if area is None or not board.adjacent(area, appr):
            raise InputError(f"{w}: area {area} has no approach toward {appr!r}")
    return area, appr, box


def _block_flags(d: Mapping, w: str) -> dict[str, bool]:
    flags = {}
    for k in _BOOL_KEYS:
        if k in d:
            if not isinstance(d[k], bool):
                raise InputError(f"{w}: {k} must be true or false")
            flags[k] = d[k]
    return flags


def _block(d: Any, source: str, board: Board) -> Block:
    if not isinstance(d, Mapping) or not isinstance(d.get("id"), str):
        raise InputError(f"{source}: every block needs a text 'id'")
    w = f"{source} block {d['id']}"
    side, typ, strength = d.get("side"), d.get("type"), d.get("strength")
    if side not in SIDES:
        raise InputError(f"{w}: side must be AU or FR, not {side!r}")
    if typ not in TYPES:
        raise InputError(f"{w}: type must be one of {' '.join(TYPES)}, not {typ!r}")
    if isinstance(strength, bool) or not isinstance(strength, int) or not 1 <= strength <= 6:
        raise InputError(f"{w}: strength must be a whole number 1..6, not {strength!r}")
    area, appr, box = _block_place(d, w, board)
    flags = _block_flags(d, w)
    bomb = d.get("bombard")
    if bomb not in (None, "announced", "executed"):
        raise InputError(f"{w}: bombard must be announced or executed, not {bomb!r}")
    if bomb and typ != "artillery":
        raise InputError(f"{w}: only artillery bombards")
    unknown = set(d) - {"id", "side", "type", "strength", "area", "approach", "box", "bombard", "bombard_round",
                        "unit", *_BOOL_KEYS}
    if unknown:
        raise InputError(f"{w}: unknown key(s) {', '.join(sorted(unknown))}")
    return Block(d["id"], side, typ, strength, area, appr, box, bombard=bomb, bombard_round=d.get("bombard_round"),
                 unit=d.get("unit"), **flags)


def _board(ref: Any, source: str) -> Board:
    if ref in (None, "demo"):
        return load_demo_board()
    if not isinstance(ref, str):
        raise InputError(f"{source}: 'board' must be \"demo\" or a board file path")
    path = Path(ref)
    if not path.is_absolute() and source not in ("position", "test"):
        path = Path(source).resolve().parent / path
    return load_board(path)


def position_from_dict(data: Mapping[str, Any], source: str = "position", board: Board | None = None
                       ) -> MarengoPosition:
    board = board or _board(data.get("board"), source)
    blocks = tuple(_block(b, source, board) for b in data.get("blocks", []))
    ids = [b.id for b in blocks]
    if len(set(ids)) != len(ids):
        raise InputError(f"{source}: block id(s) {sorted({i for i in ids if ids.count(i) > 1})} listed twice")
    for area in board.areas:
        if len({b.side for b in blocks if b.area == area}) > 1:
            raise InputError(f"{source} area {area}: holds blocks of both sides (§3.2: enemies never share)")
    rnd, side, phase, cmd = data.get("round", 1), data.get("side", "AU"), data.get("phase", 3), data.get("commands", 3)
    if isinstance(rnd, bool) or not isinstance(rnd, int) or not 1 <= rnd <= ROUNDS:
        raise InputError(f"{source}: round must be 1..16, not {rnd!r}")
    if side not in SIDES:
        raise InputError(f"{source}: side must be AU or FR, not {side!r}")
    if phase not in (1, 2, 3, 4) or isinstance(cmd, bool) or not isinstance(cmd, int) or not 0 <= cmd <= 9:
        raise InputError(f"{source}: phase must be 1..4 and commands 0..9")
    t = data.get("turn", {}) or {}
    turn = Turn(
        {str(k): int(v) for k, v in t.get("thrusts", {}).items()},
        {str(k): tuple(int(s) for s in v) for k, v in t.get("crossings", {}).items()},
        frozenset(t.get("road_thrusts", [])), frozenset(t.get("forbidden", [])),
        frozenset(t.get("no_road_entry", [])), bool(t.get("pontoon_used", False)), frozenset(t.get("rally_areas", [])),
    )
    m = data.get("morale", {}) or {}
    try:
        morale = Morale(
            {s: int(m.get("pool", {}).get(s, 3 if s == "FR" else 0)) for s in SIDES},
            {str(a): {s: int(n) for s, n in c.items()} for a, c in m.get("committed", {}).items()},
            {int(r): {s: int(n) for s, n in c.items()} for r, c in m.get("track", {}).items()},
        )
    except (TypeError, ValueError, AttributeError):
        raise InputError(f"{source}: morale must hold pool, committed and track counts") from None
    for a in morale.committed:
        if a not in board.areas:
            raise InputError(f"{source} morale: committed discs in unknown area {a!r}")
    ref = data.get("board", "demo")
    return MarengoPosition(SYSTEM, (), board, ref if isinstance(ref, str) else "demo", blocks, rnd, side, phase,
                           cmd, turn, morale, dict(data.get("last_occupant", {})), data.get("winner"),
                           data.get("victory"))


def _block_dict(b: Block) -> dict:
    d: dict[str, Any] = {"id": b.id, "side": b.side, "type": b.type, "strength": b.strength}
    if b.box is not None:
        d["box"] = b.box
    else:
        d["area"] = b.area
        if b.approach is not None:
            d["approach"] = b.approach
    for k in _BOOL_KEYS:
        v = getattr(b, k)
        if v != Block.__dataclass_fields__[k].default:
            d[k] = v
    if b.bombard:
        d["bombard"] = b.bombard
        d["bombard_round"] = b.bombard_round
    if b.unit:
        d["unit"] = b.unit
    return d


def position_to_dict(p: MarengoPosition) -> dict:
    t = p.turn
    turn = {}
    if t.thrusts:
        turn["thrusts"] = dict(sorted(t.thrusts.items()))
    if t.crossings:
        turn["crossings"] = {k: list(v) for k, v in sorted(t.crossings.items())}
    for k in ("road_thrusts", "forbidden", "no_road_entry", "rally_areas"):
        if getattr(t, k):
            turn[k] = sorted(getattr(t, k))
    if t.pontoon_used:
        turn["pontoon_used"] = True
    out = {"system": SYSTEM, "board": p.board_ref, "round": p.round, "side": p.side, "phase": p.phase,
           "commands": p.commands, "blocks": [_block_dict(b) for b in p.blocks],
           "morale": {"pool": dict(p.morale.pool),
                      "committed": {a: dict(c) for a, c in sorted(p.morale.committed.items()) if any(c.values())},
                      "track": {str(r): dict(c) for r, c in sorted(p.morale.track.items())}}}
    if turn:
        out["turn"] = turn
    if p.last_occupant:
        out["last_occupant"] = dict(sorted(p.last_occupant.items()))
    if p.winner:
        out["winner"], out["victory"] = p.winner, p.victory
    return out


def dumps(p: MarengoPosition) -> str:
    return json.dumps(position_to_dict(p), indent=1, ensure_ascii=False) + "\n"
