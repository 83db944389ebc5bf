"""Hidden blocks: what each player may see, and a step loss recognised across a marker swap. No Qt, no OpenCV.

The camera sees every block's marker, so it knows every identity; the dashboard must not show them. A *player view*
shows the viewer's own blocks in full and the opponent's only as blocks of their colour (type and strength hidden)
unless the rules have revealed them (digest §2.4, §13); the *umpire view* shows everything. The record keeps
identities; `replay_view` reveals them only where the rules did, or everywhere once the game has ended.

A block that takes a loss is swapped for a block of the same type with a lower strength, hence a new marker (§2.1).
The `BlockRoster` maps each unit to its markers per strength, so `track_losses` reads "marker 11 gone, marker 12
(same unit, strength 2) in the same position" as one step loss, not a death and an arrival.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from common.errors import InputError
from rules.marengo.adapter import parse_roster_type
from rules.marengo.model import SIDES, position_to_dict
from rules.system import PUBLIC, UMPIRE


@dataclass(frozen=True)
class UnitMarkers:
    unit: str
    side: str
    type: str
    markers: Mapping[int, int]  # strength -> marker id


@dataclass(frozen=True)
class BlockRoster:
    """unit -> markers per strength; every marker belongs to one unit at one strength."""

    units: Mapping[str, UnitMarkers]

    def __post_init__(self):
        seen: dict[int, str] = {}
        for u in self.units.values():
            for s, m in u.markers.items():
                if m in seen:
                    raise InputError(f"block roster: marker {m} is listed for {seen[m]} and {u.unit}")
                seen[m] = f"{u.unit} strength {s}"

    def identify(self, marker: int) -> tuple[UnitMarkers, int] | None:
        for u in self.units.values():
            for s, m in u.markers.items():
                if m == marker:
                    return u, s
        return None

    @classmethod
    def from_dict(cls, data: Mapping, source: str = "block roster") -> BlockRoster:
        """{"au-inf-1": {"side": "AU", "type": "infantry", "markers": {"3": 10, "2": 11, "1": 12}}, ...}"""
        units = {}
        for unit, d in data.items():
            try:
                markers = {int(s): int(m) for s, m in d["markers"].items()}
                units[unit] = UnitMarkers(unit, str(d["side"]), str(d["type"]), markers)
            except (KeyError, TypeError, ValueError, AttributeError):
                raise InputError(f"{source}: unit {unit!r} needs side, type and markers {{strength: marker}}") from None
        return cls(units)


def roster_blocks(pieces, extra: Mapping[str, Mapping] | None = None, source: str = "roster") -> BlockRoster:
    """The units of a roster of block pieces (vision.roster.Piece: id, marker, side, type).

    A roster piece whose entry in `extra` (its [[piece]] table in the roster TOML) has `unit = "au-inf-1"` and
    `strength = 2` is that unit's block at that strength: the unit is replaced by it after a loss (§2.1). Any other
    piece is a unit of its own (the unit is the piece id), its strength read from its type ("infantry 3") or the
    type's full strength. Old rosters, one piece per block, keep working unchanged.
    """
    full = {"infantry": 3, "cavalry": 2, "artillery": 2}
    extra = extra or {}
    units: dict[str, dict] = {}
    for p in pieces:
        typ, strength = parse_roster_type(p.type)
        more = extra.get(p.id) or {}
        unit = str(more.get("unit") or p.id)
        if more.get("strength") is not None:
            try:
                strength = int(more["strength"])
            except (TypeError, ValueError):
                raise InputError(f"{source}: piece {p.id!r}: strength must be a whole number") from None
        if strength is None:
            if more.get("unit"):
                raise InputError(f"{source}: piece {p.id!r} of unit {unit!r} needs its strength (strength = N)")
            strength = full.get(typ or "", 2)
        u = units.setdefault(unit, {"side": p.side, "type": typ or "", "markers": {}})
        if u["side"] != p.side:
            raise InputError(f"{source}: unit {unit!r} has blocks of two sides ({u['side']}, {p.side})")
        if strength in u["markers"]:
            raise InputError(f"{source}: unit {unit!r} has two blocks of strength {strength}")
        u["markers"][strength] = int(p.marker)
    return BlockRoster({k: UnitMarkers(k, v["side"], v["type"], dict(v["markers"])) for k, v in units.items()})


def unit_roster(roster, blocks: BlockRoster):
    """`roster` (vision.roster.Roster of every block's marker) as one piece per unit: the unit's strongest block,
    renamed to the unit ("infantry 3"); a roster whose pieces are each a unit of their own comes back as it is."""
    by_marker = {p.marker: p for p in roster.pieces}
    if all(len(u.markers) == 1 and by_marker[next(iter(u.markers.values()))].id == u.unit
           for u in blocks.units.values()):
        return roster
    pieces = []
    for u in blocks.units.values():
        top = max(u.markers)
        pieces.append(replace(by_marker[u.markers[top]], id=u.unit, type=f"{u.type} {top}".strip()))
    return replace(roster, pieces=tuple(pieces))


@dataclass(frozen=True)
class Sighting:
    """One block marker seen on the board: where (area and position, from rules.board.Board.locate)."""

    marker: int
    area: str | None
    position: str | None


@dataclass(frozen=True)
class UnitState:
    unit: str
    side: str
    type: str
    strength: int
    marker: int
    area: str | None
    position: str | None


@dataclass(frozen=True)
class StepLoss:
    unit: str
    old_marker: int
    new_marker: int
    old_strength: int
    new_strength: int
    area: str | None = None  # where the new block stands
    same_area: bool = True  # the new block stands in the old one's area (else: replaced and moved, worth a look)

    @property
    def steps(self) -> int:
        return self.old_strength - self.new_strength


def read_units(roster: BlockRoster, sightings: Iterable[Sighting]) -> tuple[dict[str, UnitState], list[int]]:
    """Units seen in one frame, and the markers the roster does not know."""
    units, unknown = {}, []
    for s in sightings:
        hit = roster.identify(s.marker)
        if hit is None:
            unknown.append(s.marker)
            continue
        u, strength = hit
        units[u.unit] = UnitState(u.unit, u.side, u.type, strength, s.marker, s.area, s.position)
    return units, unknown


def track_losses(before: Mapping[str, UnitState], after: Mapping[str, UnitState]
                 ) -> tuple[list[StepLoss], list[str], list[str]]:
    """Step losses (same unit, lower strength, new marker), removed units (strength 0 or off the board), arrivals."""
    losses = []
    for unit, old in before.items():
        new = after.get(unit)
        if new is not None and new.strength < old.strength:
            losses.append(StepLoss(unit, old.marker, new.marker, old.strength, new.strength, new.area,
                                   old.area == new.area))
    removed = sorted(set(before) - set(after))
    arrived = sorted(set(after) - set(before))
    return losses, removed, arrived


class BlockWatch:
    """Which block of each unit stands on the board, frame after frame: marker sightings in, the block followed for
    each unit and its step losses out (`track_losses` over the last block known of each unit, so a unit unseen while
    a hand swaps its block is still recognised when its weaker block appears).

    Two blocks of one unit seen at once (the new one put down before the old one is taken off): the known one is
    followed until it is gone. A new block must be seen `settle_s` seconds before the swap counts. A block of a
    higher strength seen again (the old block put back) sets the strength back: strength follows the marker seen.
    """

    def __init__(self, roster: BlockRoster, settle_s: float = 0.0):
        self.roster = roster
        self.settle_s = settle_s
        self.known: dict[str, UnitState] = {}
        self._since: dict[str, tuple[int, float]] = {}

    def update(self, sightings: Iterable[Sighting], t: float = 0.0
               ) -> tuple[dict[str, UnitState], list[StepLoss], list[int]]:
        """(unit -> the block followed this frame, the committed marker swaps, the markers the roster does not know).
        A swap to a weaker block is a step loss (`steps` > 0); back to a stronger one, `steps` < 0."""
        seen: dict[str, list[UnitState]] = {}
        unknown = []
        for s in sightings:
            units, unk = read_units(self.roster, [s])
            unknown += unk
            for u in units.values():
                seen.setdefault(u.unit, []).append(u)
        now = {}
        for unit, blocks in seen.items():
            old = self.known.get(unit)
            same = [b for b in blocks if old is not None and b.marker == old.marker]
            now[unit] = same[0] if same else min(blocks, key=lambda b: b.strength)
        before = {}
        for unit, new in now.items():
            old = self.known.get(unit)
            if old is None or new.marker == old.marker:
                self.known[unit] = new
                self._since.pop(unit, None)
                continue
            cand = self._since.get(unit)
            if cand is None or cand[0] != new.marker:
                cand = self._since[unit] = (new.marker, t)
            if t - cand[1] + 1e-9 >= self.settle_s:
                before[unit] = old
        after = {u: now[u] for u in before}
        swaps, _, _ = track_losses(before, after)
        swaps += [StepLoss(u, before[u].marker, after[u].marker, before[u].strength, after[u].strength,
                           after[u].area, before[u].area == after[u].area)
                  for u in before if after[u].strength > before[u].strength]
        for u in before:
            self.known[u] = after[u]
            self._since.pop(u, None)
        return now, swaps, unknown


@dataclass(frozen=True)
class BlockView:
    """One block as a viewer sees it: `label` is the unit for visible blocks, an anonymous "AU block 3" otherwise."""

    label: str
    side: str
    area: str | None
    position: str | None
    type: str | None
    strength: int | None
    hidden: bool


"""A spectator's view (a replay shown to anyone): every block hidden unless the rules revealed it."""


def place_order(u: UnitState) -> tuple:
    """The order hidden blocks are numbered in: by side, then where they stand (area, position), never by type or
    strength."""
    return (u.side, u.area or "", u.position or "", u.unit)


def player_view(units: Iterable[UnitState], viewer: str, revealed: Iterable[str] = (), game_over: bool = False,
                order: Callable[[UnitState], Any] = place_order) -> list[BlockView]:
    """`viewer` a side (AU, FR): own blocks and revealed ones in full, the opponent's as colour only; "umpire": all;
    "public": only the revealed ones. In `order` (the anonymous labels are numbered in it)."""
    if viewer not in (*SIDES, UMPIRE, PUBLIC):
        raise InputError(f"view: viewer must be {', '.join((*SIDES, UMPIRE, PUBLIC))}, not {viewer!r}")
    shown = set(revealed)
    out, n = [], {}
    for u in sorted(units, key=order):
        visible = viewer == UMPIRE or u.side == viewer or u.unit in shown or game_over
        if visible:
            out.append(BlockView(u.unit, u.side, u.area, u.position, u.type, u.strength, False))
        else:
            n[u.side] = n.get(u.side, 0) + 1
            out.append(BlockView(f"{u.side} block {n[u.side]}", u.side, u.area, u.position, None, None, True))
    return out


def views_by_unit(units: Iterable[UnitState], viewer: str, revealed: Iterable[str] = (), game_over: bool = False,
                  order: Callable[[UnitState], Any] = place_order) -> dict[str, BlockView]:
    """`player_view` keyed by unit."""
    ordered = sorted(units, key=order)
    return dict(zip((u.unit for u in ordered), player_view(ordered, viewer, revealed, game_over, order), strict=True))


@dataclass(frozen=True)
class RecordFrame:
    """One recorded moment: every unit (identities stored) and which units the rules had revealed then."""

    units: tuple[UnitState, ...]
    revealed: frozenset[str] = frozenset()


def replay_view(record: Iterable[RecordFrame], viewer: str, game_over: bool = False) -> list[list[BlockView]]:
    """The record as `viewer` may replay it: identities only where the rules revealed them, or after the game."""
    return [player_view(f.units, viewer, f.revealed, game_over) for f in record]


def units_from_position(pos) -> tuple[list[UnitState], set[str]]:
    """A Marengo position's blocks as units (the block id is the unit) and the ids currently revealed."""
    units = [UnitState(b.unit or b.id, b.side, b.type, b.strength, -1, b.area or (f"box:{b.box}" if b.box else None),
                       b.position) for b in pos.blocks]
    return units, {b.unit or b.id for b in pos.blocks if b.revealed}


def position_views(pos, viewer: str, others: Iterable[UnitState] = (), revealed: Iterable[str] = (),
                   game_over: bool | None = None, order: Callable[[UnitState], Any] = place_order
                   ) -> dict[str, BlockView]:
    """Unit -> how `viewer` sees it at one moment: every block of the position `pos` (None: none) and `others`, the
    blocks seen but left out of it (on a border); revealed where the position or `revealed` says so; everything once
    the game is over (`game_over`, by default: the position has a winner). One function for the dashboard's player
    views (rules/marengo/live.py), the replay (`replay_hide`) and `fieldglass view` (`position_view`),
    so a hidden block has the same anonymous label in each."""
    units, shown = units_from_position(pos) if pos is not None else ([], set())
    over = (pos is not None and pos.winner is not None) if game_over is None else game_over
    return views_by_unit([*units, *others], viewer, shown | set(revealed), over, order)


def position_view(pos, viewer: str) -> dict:
    """The position file of `pos` as `viewer` ("AU", "FR" or "umpire") may see it: every block the viewer may not
    identify (the opponent's, unless the rules revealed it or the game is over, §13) keeps only its side and where
    it stands, under the anonymous label the dashboard and the replay use ("FR block 2"), with `"hidden": true`.
    One function for `fieldglass view`, the dashboard's player views and the replay (`position_views`)."""
    out = position_to_dict(pos)
    views = position_views(pos, viewer)
    blocks = []
    for b in out["blocks"]:
        v = views[b.get("unit") or b["id"]]
        if not v.hidden:
            blocks.append(b)
            continue
        where = {k: b[k] for k in ("box", "area", "approach") if k in b}
        blocks.append({"id": v.label, "side": b["side"], **where, "hidden": True})
    out["blocks"] = blocks
    out["viewer"] = viewer
    return out


# ---------------------------------------------------------------------------------------------- in a replay


def revealed_at(events: Iterable) -> set[str]:
    """The blocks a game record's events revealed (undone events do not count): a combat's change
    `{"piece": ID, "revealed": true}` reveals it, a later `false` hides it again, as the engine reports them."""
    out: set[str] = set()
    for ev in events:
        reveal(out, ev)
    return out


def reveal(shown: set[str], ev) -> None:
    """`shown` (the blocks revealed before `ev`) brought up to date with one more of a record's events (an undone
    one changes nothing), as `revealed_at` counts them."""
    if getattr(ev, "undone", False):
        return
    for ch in (ev.data or {}).get("changes", []) or []:
        if "revealed" in ch and ch.get("piece"):
            (shown.add if ch["revealed"] else shown.discard)(ch["piece"])
    if (ev.data or {}).get("revealed") is not None and ev.piece:
        (shown.add if ev.data["revealed"] else shown.discard)(ev.piece)


def replay_hide(views: list, viewer: str, revealed: set[str], over: bool, pos=None, board=None
                ) -> tuple[list, dict[str, str]]:
    """A replay's PieceViews with the hidden blocks anonymised ("FR block 2", type unknown); and label -> block id.

    The record stores every identity; the replay shows them only where the rules revealed them (`revealed`), or
    everywhere once the game has ended (`over`), under the labels of the live dashboard (`position_views`): over the
    blocks of the replay's position `pos` and those on the table but left out of it (on a border: located on
    `board`), numbered by side and where they stand; a record that keeps no board (`board` None) numbers them by
    where they stand on the table (south to north, west to east), never by anything that hints at identity.
    `viewer` is "public" (both sides hidden), a side (its own blocks in full) or "umpire" (everything)."""
    if viewer == UMPIRE or over:
        return views, {}
    placed = pos.blocks_by_id if pos is not None else {}
    others = []
    for v in views:
        if v.piece.id in placed:
            continue
        pl = board.locate(v.pose.x_mm, v.pose.y_mm) if board is not None and v.pose is not None else None
        others.append(UnitState(v.piece.id, v.piece.side, v.type or "", 0, -1, pl.area if pl else None,
                                pl.position if pl else None))
    order = place_order
    if board is None:
        at = {v.piece.id: (round(v.pose.y_mm), round(v.pose.x_mm)) if v.pose else (0, 0) for v in views}

        def order(u):
            return (u.side, *at.get(u.unit, (0, 0)), u.unit)

    blocks = position_views(pos, viewer, others, revealed, over, order)
    out, aliases = [], {}
    for v in views:
        bv = blocks.get(v.piece.id)
        if bv is None or not bv.hidden:
            out.append(v)
            continue
        aliases[bv.label] = v.piece.id
        out.append(replace(v, piece=replace(v.piece, id=bv.label, type="block"), type=None, state={}, label=bv.label,
                           hidden=True))
    return out, aliases
