"""Triomphe à Marengo's part of the live session (rules/live.py): blocks located on a printed board of areas, with
player views that hide the opponent's identities (§13).

The session (fieldglass/session.py) registers the board and locates a table point on it (`s.locate`: area and
position, reserve or approach). The camera reads every block's marker; `read` turns them into units (a unit's blocks
per strength: a weaker block put down after a loss is the same unit losing a step, hidden.BlockWatch) and `position`
places each unit in the area and position its marker point lies in: `marengo_position` is the one placement of
Marengo, used live, by the recorder (fieldglass/recording.py) and by the replay. A block on a border is
flagged and left out, not guessed. What the camera cannot see (round, side to move, commands, morale, each block's
strength, readiness and revealed flag) is the game state, updated by the engine's resolutions and turn ends; the
moves the rules ordered wait as `BlockMove`s until the board matches. A player view shows the opponent's blocks only
as blocks of their colour unless the rules revealed them (hidden.position_views, shared with the replay and
`fieldglass view`).

A game record (the one recorder, fieldglass/recording.py, through the record hooks below) stores identities:

* its roster is one piece per unit (`bases` = the unit's strength at the start), `blocks` maps each unit to its
  markers per strength (`BlockRoster.from_dict`), `game` the starting position; `board` (any system on a printed
  board) keeps the board so the replay draws the areas, and `move` / `appeared` events carry the unit's `area`
  and `position` ("reserve" or "A>B") besides table mm;
* a step loss seen by the camera is a `combat` event with action "step loss" and the change `{"piece": UNIT,
  "bases": N, "strength": N}`; a rules resolution (a player's input) is a `combat` event with the engine's changes
  (`revealed`, `strength`, `area`, removals), which is where the replay learns what the rules revealed
  (hidden.revealed_at);
* every event the engine made (a resolution, the end of a turn: the input {"type": "turn"}) keeps its position
  after as `engine` (round, side, commands, morale, every block's flags): a resumed recording, an undo and the
  replay go on from it;
* when the engine's victory says the game is over, that event carries `game_winner` and `victory`, and the
  metadata `game_over: true`, `winner`, `victory` and `game_over_seq`: the replay reveals every identity from that
  event on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from common.errors import InputError
from rules.live import ActionInput, DemoTable, GameState, LiveRules, PendingChange, Start, in_play
from rules.marengo import engine
from rules.marengo.adapter import parse_roster_type
from rules.marengo.demo import DEMO_BLOCKS, data_path
from rules.marengo.demo import demo as demo_table
from rules.marengo.hidden import (
    BlockRoster,
    BlockView,
    BlockWatch,
    Sighting,
    UnitState,
    position_views,
    replay_hide,
    reveal,
    revealed_at,
    roster_blocks,
    unit_roster,
)
from rules.marengo.model import (
    ROUNDS,
    SIDES,
    SYSTEM,
    TYPES,
    Block,
    load_demo_board,
    position_from_dict,
    position_to_dict,
)
from rules.marengo.picture import LEGEND as MARENGO_LEGEND
from rules.marengo.picture import picture
from rules.picture import Item, Scene

CHOICES = ActionInput("choices", "choices", "choices",
                      "push=ID lead=ID fire=yes counter=ID retreat.ID=AREA ... (as for fieldglass resolve --choice)")

BLOCK_KEYS = ("ready", "acted", "rallied", "revealed", "began_in_reserve", "bombard", "bombard_round")
"""A block's flags the camera cannot see (rules/marengo/model.py Block)."""


@dataclass
class BlockMove(PendingChange):
    """A block the rules moved (area and position) or removed, shown until the camera sees it there."""

    area: str | None = None
    approach: str | None = None

    def describe(self) -> str:
        if self.removed:
            return f"take {self.piece} off the board"
        where = "reserve" if self.approach is None else f"approach {self.area}>{self.approach}"
        return f"move {self.piece} to area {self.area} ({where})"


def empty_game(board, source: str = "dashboard"):
    """The game a session or a record starts from without a position file: round 2, the first side to move, no
    blocks (they come from the camera)."""
    return position_from_dict({"system": SYSTEM, "round": 2, "side": SIDES[0], "blocks": []}, source, board=board)


def marengo_position(places, roster, system, state, game, locate, initial=None):
    """The Marengo engine's position from where each unit's block stands: the one placement of Marengo, used live
    (`MarengoLive.position`), by the recorder (fieldglass/recording.py) and by the replay (the record hooks below).

    `places`: unit id -> anything with x_mm, y_mm (a tracking Place, a record's PieceState); `locate(x, y)` names
    the area and position (reserve or approach) there; `state` (rules.live.GameState) holds each unit's type,
    strength and flags (BLOCK_KEYS), the units the rules removed, the moves the rules ordered (pending until the
    board matches), the round (`turn`) and the side to move (`active`); `game` the position's round, commands and
    morale without blocks; `initial` the starting blocks (reinforcements wait in their boxes until placed).
    A block on a border or outside every area is left out, not guessed. Returns (position, notes, placements)."""
    initial = initial or {}
    blocks, placements = [], {}
    playing, notes = in_play(roster.pieces, state, system, "a Marengo block type (infantry, cavalry, artillery)")
    for rp, st, typ, pend in playing:
        init = initial.get(rp.id)
        if pend is not None and not pend.removed:
            area, approach = pend.area, pend.approach
        elif rp.id in places:
            pl = locate(places[rp.id].x_mm, places[rp.id].y_mm)
            placements[rp.id] = pl
            if pl.area is None or pl.on_border or pl.position is None:
                notes.append(f"{rp.id}: {pl.note or 'not in an area'} - not placed")
                continue
            area = pl.area
            approach = None if pl.position == "reserve" else pl.position.split(">", 1)[1]
        elif init is not None and init.box is not None:
            blocks.append(replace(init, **{k: v for k, v in st.items() if k in BLOCK_KEYS}))
            continue
        else:
            continue
        kw = {k: v for k, v in st.items() if k in BLOCK_KEYS}
        blocks.append(Block(rp.id, rp.side, typ, int(st.get("strength", 2)), area, approach, **kw))
    areas: dict[str, set[str]] = {}
    for b in blocks:
        if b.area:
            areas.setdefault(b.area, set()).add(b.side)
    for a, sides in areas.items():
        if len(sides) > 1:
            notes.append(f"area {a} holds blocks of both sides (§3.2): move one side out")
    pos = replace(game, blocks=tuple(blocks), pieces=tuple(blocks), round=state.turn, side=state.active or game.side)
    return pos, notes, placements


class MarengoLive(LiveRules):
    """Units (a unit's blocks per strength) read from block markers and placed by area on the session's board; the
    engine's resolutions and turn ends change the game state at once and move or remove blocks through pending
    `BlockMove`s; player views hide the opponent's identities.

    Besides the hooks: `blocks` (hidden.BlockRoster: each unit's markers per strength), `game` (the engine's round,
    side, commands and morale, without blocks), `initial` (the set-up's blocks by id), `placements` (where each unit
    was located in the last position: rules.board.Placement), `step_losses` (hidden.StepLoss, in the order seen)."""

    legend = MARENGO_LEGEND

    viewers = SIDES
    viewer_titles = {"umpire": "Umpire view (all identities)", "AU": "Austrian player view",
                     "FR": "French player view"}
    inputs = (CHOICES,)
    noun = "block"
    roster_keys = ("strength",)  # a block's strength on the marker of its [[piece]] (with its "unit", §2.1)
    target_headers = ("target", "area", "steps", "action", "legal", "cost", "attack", "", "", "outcome")
    target_hint = "an enemy block (its area is the target) or, for a move, a block in the destination"
    removal_events = True
    roster_types = (*TYPES, "inf", "cav", "art", "guns")  # a type word and the block's strength: "infantry 3"
    roster_sides = SIDES
    sides_ignore_case = False  # a unit's blocks are matched by their side as written
    type_noun = "Marengo block type (with its strength: infantry 3)"

    def __init__(self, system, setup) -> None:
        super().__init__(system, setup)
        roster = getattr(setup, "roster", None)
        self.blocks = getattr(setup, "blocks", None) or (roster_blocks(roster.pieces) if roster is not None else None)
        self.watch = BlockWatch(self.blocks) if self.blocks is not None else None
        self.step_losses: list = []
        self.placements: dict[str, Any] = {}
        self.game = None
        self.initial: dict[str, Any] = {}
        self._seen_units: set[str] = set()
        self._views_of: tuple = (None, None, None)
        self._views: dict[str, BlockView] = {}
        self._record_watch: BlockWatch | None = None
        self._start: tuple | None = None

    # ---- the set-up

    @classmethod
    def demo(cls, board=None) -> DemoTable:
        """The demo blocks on the demo board, or on the board given (rules/marengo/demo.py)."""
        return demo_table(board)

    @classmethod
    def starting_roster(cls):
        """A new table's blocks: the demo's, one block a unit (data/demo_blocks.toml, `DEMO_BLOCKS`)."""
        return data_path("demo_blocks.toml")

    @classmethod
    def start_position(cls, board=None) -> dict:
        """A new table starts from the demo blocks where `DEMO_BLOCKS` sets them up (those whose area `board` has: a
        reserve, or the approach toward a neighbour), round 2 with the first side to move, as `empty_game`."""
        board = board or load_demo_board()
        blocks = []
        for bid, _, side, typ, strength, area, position in DEMO_BLOCKS:
            if area not in board.areas:
                continue
            block = {"id": bid, "side": side, "type": typ, "strength": strength, "area": area}
            if position != "reserve" and board.adjacent(area, position):
                block["approach"] = position
            blocks.append(block)
        return {"system": SYSTEM, "board": "demo", "round": 2, "side": SIDES[0], "blocks": blocks}

    @classmethod
    def start_from(cls, system, position, terrain=(), table=None) -> Start:
        """The position file's game on the set-up's board (`Setup.game`): round, side, commands, morale and its
        blocks' state (see `start`)."""
        return Start(game=position)

    @classmethod
    def setup_roster(cls, system, roster, tables, start, source) -> dict:
        """`blocks`: each unit's blocks per strength, from the [[piece]] tables that name their `unit` (and
        `strength`; rules/marengo/README.md, "Block rosters"); any other piece is a unit of its own."""
        units = {pid: {"unit": t["unit"], "strength": t.get("strength")} for pid, t in tables.items()
                 if t.get("unit")}
        return {"blocks": roster_blocks(roster.pieces, units, source)}

    # ---- start and readings

    def tracked_roster(self, roster):
        """One piece per unit (the camera reads every block's marker; a unit's weaker blocks are the same unit)."""
        return unit_roster(roster, self.blocks)

    def start(self, s) -> None:
        """Round, side to move, commands and morale from the set-up's position (else round 2, the first side), and
        each unit's type and strength: the set-up's block's, else its roster type's."""
        game = getattr(self.setup, "game", None)
        self.game = replace(game or empty_game(s.board), blocks=(), pieces=())
        self.initial = {b.id: b for b in (game.blocks if game is not None else ())}
        s.state.turn, s.state.active = self.game.round, self.game.side
        for rp in s.roster.pieces:
            st = s.state.states.setdefault(rp.id, {})
            typ, strength = parse_roster_type(rp.type)
            if rp.id in self.initial:
                st.update(s.system.piece_state(self.initial[rp.id]))
                st.setdefault("type", self.initial[rp.id].type)
            st.setdefault("type", typ)
            st.setdefault("strength", strength or s.system.default_state(typ or "")["strength"])

    def read(self, s, reading):
        """The reading with each block's marker read as its unit (the block followed: BlockWatch); a marker swap is a
        step loss: the unit's strength follows the marker seen."""
        if reading.pose is None:
            return reading
        poses, sightings = {}, []
        for p in reading.pieces:
            if self.blocks.identify(p.marker) is None:
                continue
            pl = s.locate(p.x_mm, p.y_mm)
            sightings.append(Sighting(p.marker, pl.area, pl.position))
            poses[p.marker] = p
        now, swaps, _ = self.watch.update(sightings, s.frames)
        for sw in swaps:
            if s.roster.piece(sw.unit) is None:
                continue
            s.state.states.setdefault(sw.unit, {})["strength"] = sw.new_strength
            self.step_losses.append(sw)
            if sw.steps > 0:
                text = (f"{sw.unit} loses {sw.steps} step(s): block {sw.old_marker} (strength {sw.old_strength}) "
                        f"replaced by block {sw.new_marker} (strength {sw.new_strength})"
                        + ("" if sw.same_area else f" in another area ({sw.area}): check the board"))
            else:
                text = f"{sw.unit}: block {sw.new_marker} seen again, strength back to {sw.new_strength}"
            s.log(text)
        for unit, u in now.items():  # first seen: a unit with several blocks takes its strength from the one seen
            if unit not in self._seen_units and len(self.blocks.units[unit].markers) > 1 and unit not in self.initial:
                s.state.states.setdefault(unit, {})["strength"] = u.strength
            self._seen_units.add(unit)
        pieces = tuple(replace(poses[u.marker], piece=unit) for unit, u in now.items())
        return replace(reading, pieces=pieces)

    def position(self, s):
        pos, notes, self.placements = marengo_position(s.committed_places(), s.roster, s.system, s.state, self.game,
                                                       s.locate, self.initial)
        return pos, notes

    def placed_as(self, s, pose, change) -> bool:
        """In the area and position (reserve or the approach) the rules moved the block to."""
        pl = s.locate(pose.x_mm, pose.y_mm)
        want = "reserve" if change.approach is None else f"{change.area}>{change.approach}"
        return pl.area == change.area and pl.position == want

    # ---- the game state

    def check_state(self, s, pid: str, key: str, value: Any) -> tuple[str, str, Any]:
        """A block's strength ("bases" in the game panel), type or flags. `pid` is the unit's id (the session
        resolves a hidden block's label; a record's inputs name units)."""
        if s.roster.piece(pid) is None:
            raise InputError(f"no block {pid!r} in the roster")
        if key in ("formation", "markers"):
            raise InputError(f"a Marengo block has no {key}")
        value = s.system.check_state("", key, value)
        return pid, "strength" if key == "bases" else key, value

    def set_turn(self, s, turn: int, active: str | None) -> None:
        s.state.turn = max(1, min(ROUNDS, int(turn)))
        if active in SIDES:
            s.state.active = active

    def next_phase(self, s) -> None:
        """End the side's turn and start the other's (engine: §4 phase 4, morale checks, then phases 1-2)."""
        out = engine.end_turn(s.position, s.system.opts)
        q = out.position
        events = list(out.events)
        if q.winner is None:
            st = engine.start_turn(q, s.system.opts)
            q, events = st.position, events + st.events
        for ch in self._take(s, q, events):
            s.log(f"waiting for the board: {ch.describe()}")
        s.log(f"round {q.round} ({q.side} to move, {q.commands} commands)")

    def apply(self, s, outcome) -> list[PendingChange]:
        res = outcome.resolution
        s.log(f"{res.action} by {', '.join(res.blocks)}")
        return self._take(s, res.after, res.outcome.events)

    def _take(self, s, after, events=()) -> list[PendingChange]:
        """Adopt the engine's position: the game state now, moves and removals pending until the board matches."""
        pending: list[PendingChange] = []
        after_by = after.blocks_by_id
        for b in s.position.blocks:
            q = after_by.get(b.id)
            if q is None:
                s.state.removed.add(b.id)
                ch = BlockMove(b.id, removed=True)
            else:
                s.state.states.setdefault(b.id, {}).update(s.system.piece_state(q))
                if (q.area, q.approach) == (b.area, b.approach):
                    continue
                ch = BlockMove(b.id, area=q.area, approach=q.approach)
            s.state.pending[b.id] = ch
            pending.append(ch)
        self.game = replace(after, blocks=(), pieces=())
        s.state.turn, s.state.active = after.round, after.side
        for e in events:
            s.log(e)
        return pending

    # ---- what a viewer sees

    def block_views(self, s) -> dict[str, BlockView]:
        """Unit -> hidden.BlockView for the current viewer: every block of the position and every block seen but left
        out of it (on a border), own and revealed ones in full, the others hidden."""
        key = (s.position, s.viewer, self.placements)
        old = self._views_of
        if old[0] is key[0] and old[1] == key[1] and old[2] is key[2]:
            return self._views
        pos = s.position
        others = []
        for pid, pl in self.placements.items():
            rp = s.roster.piece(pid)
            if rp is None or (pos is not None and pid in pos.blocks_by_id):
                continue
            st = s.state.states.get(pid, {})
            others.append(UnitState(pid, rp.side, st.get("type") or "", int(st.get("strength", 0)), -1, pl.area,
                                    pl.position))
        self._views = position_views(pos, s.viewer, others)
        self._views_of = key
        return self._views

    def _hidden_view(self, s, pid: str | None) -> BlockView | None:
        v = self.block_views(s).get(pid) if pid else None
        return v if v is not None and v.hidden else None

    def look(self, s, view):
        """A hidden block as a block of its side's colour under its anonymous label (type and strength unknown, the
        move the rules ordered named by the label); a visible one with its strength as the game panel's "bases"."""
        hv = self._hidden_view(s, view.piece.id)
        if hv is not None:
            pending = None if view.pending is None else replace(view.pending, piece=hv.label)
            return replace(view, piece=replace(view.piece, id=hv.label, type="block"), type=None,
                           state={"bases": "?"}, pending=pending, label=hv.label, hidden=True)
        st = dict(s.state.states.get(view.piece.id, {}))
        st["bases"] = st.get("strength", 1)  # the game panel's "bases" column shows a block's strength
        return replace(view, state=st)

    def visible_id(self, s, pid: str) -> str:
        hv = self._hidden_view(s, pid)
        return hv.label if hv is not None else pid

    def resolve_id(self, s, pid: str) -> str | None:
        """A hidden block's label ("FR block 2") -> its unit; an area of the board is no block (None)."""
        for unit, v in self.block_views(s).items():
            if v.hidden and v.label == pid:
                return unit
        if s.board is not None and pid in s.board.areas:
            return None
        return pid

    def title(self, s) -> str | None:
        sel = s.selected
        if sel is None:
            return None
        label = self.visible_id(s, sel)
        if not s.in_position(sel):
            return f"{label}: not on the board now (not seen, on a border or removed)"
        b = s.position.block(sel)
        if label != sel:
            return f"<b>{label}</b> ({b.side}, identity hidden) in area {b.area}, {b.position}"
        ov = s.selection_overlay()
        n = len(ov.options) if ov is not None else 0
        return (f"<b>{b.id}</b> {b.side} {b.type} strength {b.strength} in area {b.area}, {b.position}"
                f"{'' if b.ready else ', unready'}: {n} neighbouring area(s) it can act toward "
                f"({s.position.commands} command(s) left)")

    def describe(self, s) -> list[str]:
        """Every block with its area, position and status as the viewer may see it; the selection's options."""
        pos = s.position
        lines = [f"  round {pos.round} ({pos.side} to move, {pos.commands} commands), view: {s.viewer}",
                 f"  {'block':<12}{'side':<6}{'type':<11}{'str':<4}{'area':<6}{'position':<10}{'status':<10}"]
        for v in s.true_views():
            pid = v.piece.id
            b = pos.blocks_by_id.get(pid)
            hv = self._hidden_view(s, pid)
            pl = self.placements.get(pid)
            area = b.area if b else (pl.area if pl and pl.area else "-")
            where = b.position if b else (f"border? {pl.note}" if pl and pl.on_border else "-")
            if hv is not None:
                lines.append(f"  {hv.label:<12}{v.piece.side:<6}{'?':<11}{'?':<4}{area:<6}{where:<10}{v.status:<10}")
            else:
                st = s.state.states.get(pid, {})
                lines.append(f"  {pid:<12}{v.piece.side:<6}{(v.type or '?'):<11}{st.get('strength', '?')!s:<4}"
                             f"{area or '-':<6}{where:<10}{v.status:<10}")
        lines += [f"  note: {n}" for n in s.notes]
        sel = s.selection_overlay()
        if sel is not None:
            lines.append(f"selected {sel.piece} in area {sel.area} ({sel.position}):")
            for o in sel.options:
                lines.append(f"  -> area {o.area:<4}{'attack' if o.attack else 'reach':<8}{o.text}")
        return lines

    def context(self, s) -> dict:
        return {"placements": self.placements}

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        return picture(scene)

    # ---- the game record

    def record_meta(self, meta: dict) -> dict:
        """Each unit's strength at the start (`bases`), its blocks per strength, and the starting position."""
        game = getattr(self.setup, "game", None)
        init = {b.id: b for b in game.blocks} if game is not None else {}
        for p in meta["roster"]:
            u = self.blocks.units[p["id"]]
            p["bases"] = init[p["id"]].strength if p["id"] in init else max(u.markers)
        meta["blocks"] = {u.unit: {"side": u.side, "type": u.type,
                                   "markers": {str(k): m for k, m in u.markers.items()}}
                          for u in self.blocks.units.values()}
        if game is not None:
            meta["game"] = position_to_dict(game)
        return meta

    def _record_blocks(self, s) -> BlockRoster:
        if self.blocks is None:  # the rules of a record, without a set-up: the blocks the record keeps
            self.blocks = BlockRoster.from_dict(s.meta.get("blocks") or {}, "the record's blocks")
        return self.blocks

    def _record_start(self, s):
        """The record's starting position on its board, and its blocks by id (reinforcements wait in their boxes)."""
        if self._start is None or self._start[0] is not s.meta:
            start = (position_from_dict(s.meta["game"], "the record", board=s.board) if s.meta.get("game")
                     else empty_game(s.board, "the record"))
            self._start = (s.meta, start)
        return self._start[1]

    def keep(self, s, kept: dict, event) -> None:
        """Of a record's history: the blocks its events revealed so far (`hidden.reveal`) and the engine's state the
        last event that made one kept."""
        reveal(kept.setdefault("revealed", set()), event)
        if isinstance(event.data.get("engine"), dict):
            kept["engine"] = event.data["engine"]

    def restore(self, s) -> None:
        """Each unit in the game state at its recorded strength, revealed where the rules revealed it, with the
        engine's flags, round and side from the last event that kept the engine's state (else the start; older
        records kept none: their round and side come from the turn events)."""
        st = s.record_state
        types = {u: d.get("type", "") for u, d in (s.meta.get("blocks") or {}).items()}
        shown = s.kept.get("revealed") or set()
        start = self._record_start(s)
        self.initial = {b.id: b for b in start.blocks}
        kept = s.kept.get("engine")
        engine = position_from_dict(kept, "the record's engine state", board=s.board) if kept else None
        flags_of = {b.id: b for b in (engine.blocks if engine is not None else start.blocks)}
        side = (st.phase or "").split(" ", 1)[0]
        if engine is not None:
            base, turn, active = engine, engine.round, engine.side
        else:
            base = start
            turn = max(1, st.turn) if st.turn else start.round
            active = side if side in s.sides else start.side
        game = GameState(turn=turn, active=active, removed=set(s.state.removed))
        for pid, p in st.pieces.items():
            b = flags_of.get(pid)
            flags = {k: getattr(b, k) for k in BLOCK_KEYS} if b is not None else {}
            game.states[pid] = {**flags, **({"type": types[pid]} if types.get(pid) else {}),
                                "strength": max(1, int(p.bases)),
                                "revealed": pid in shown or bool(flags.get("revealed"))}
        s.state = game
        self.game = replace(base, blocks=(), pieces=())

    def record_read(self, s, reading, t: float):
        """Block markers read as units (the block followed: BlockWatch over the recording's settle time); a marker
        swap the rules have not already made is a step loss, a `combat` event of the camera."""
        if reading.pose is None:
            return reading, []
        blocks = self._record_blocks(s)
        if self._record_watch is None:
            self._record_watch = BlockWatch(blocks, s.settle_s)
        sightings, poses = [], {}
        for p in reading.pieces:
            if p.marker in reading.conflicts or blocks.identify(p.marker) is None:
                continue
            pl = s.locate(p.x_mm, p.y_mm)
            sightings.append(Sighting(p.marker, pl.area, pl.position))
            poses[p.marker] = p
        now, swaps, _ = self._record_watch.update(sightings, t)
        units = tuple(replace(poses[u.marker], piece=unit, cell=None, facing=None) for unit, u in now.items())
        events = []
        state = s.record_state
        for sw in swaps:
            if state.pieces[sw.unit].bases == sw.new_strength:
                continue  # the rules already took the step (a resolution): the camera agrees
            what = "loses a step" if sw.steps == 1 else f"loses {sw.steps} steps" if sw.steps > 0 else \
                "is back at a higher strength"
            summary = f"{sw.unit} {what}: block replaced" + ("" if sw.same_area else f" (in area {sw.area})")
            events.append({"type": "combat", "piece": sw.unit, "data": {
                "action": "step loss", "pieces": [sw.unit], "summary": summary, "by": "camera",
                "markers": [sw.old_marker, sw.new_marker], "area": sw.area,
                "changes": [{"piece": sw.unit, "bases": sw.new_strength, "strength": sw.new_strength}]}})
        return replace(reading, pieces=units, markers=()), events

    def check_input(self, s, inp: dict) -> None:
        kind = inp.get("type")
        if kind in ("marker", "formation"):
            raise InputError(f"input {kind!r}: a Marengo block has no {kind}")

    def record_start(self, s) -> None:
        """A record begun at the dashboard starts as it is: a turn input here ends the side's turn."""
        return None

    def record_turn(self, s, inp: dict) -> dict:
        """The side's turn ends (engine: §4 phase 4, morale checks, victory) and the other's starts."""
        out = engine.end_turn(s.position, s.system.opts)
        q, events = out.position, list(out.events)
        if q.winner is None:
            st = engine.start_turn(q, s.system.opts)
            q, events = st.position, events + st.events
        data = {"turn": q.round, "phase": f"{q.side} to move", "events": events, "engine": position_to_dict(q)}
        if q.winner:
            data.update(game_winner=q.winner, victory=q.victory, phase=f"game over: {q.winner} wins")
        return data

    def record_combat(self, s, inp: dict) -> dict:
        """An action resolved by the engine on the recorded position, with its changes and the engine after."""
        pos = s.position
        frame = inp.get("frame")
        action, attacker, target = inp.get("action"), inp.get("attacker"), inp.get("target")
        if not isinstance(attacker, str) or attacker not in pos.blocks_by_id:
            raise InputError(f"combat at frame {frame}: {attacker!r} is not a block on the board")
        supporters = list(inp.get("supporters", []))
        outcome = s.system.resolve(pos, action, attacker, target, supporters=supporters,
                                   choices={str(k): str(v) for k, v in (inp.get("choices") or {}).items()})
        res = outcome.resolution
        after = res.after
        changes = []
        for ch in outcome.changes:
            ch = dict(ch)
            if "strength" in ch:
                ch["bases"] = ch["strength"]
            changes.append(ch)
        pieces = [attacker, *supporters] + ([target] if target in pos.blocks_by_id else [])
        data = {"action": action, "pieces": pieces, "target": target, "changes": changes,
                "events": list(res.outcome.events), "cost": res.outcome.cost,
                "summary": f"{action} by {attacker}" + (f" toward {target}" if target else "")
                + (f": {res.outcome.events[-1]}" if res.outcome.events else "")}
        data["engine"] = position_to_dict(after)
        if after.winner:
            data.update(game_winner=after.winner, victory=after.victory)
        return data

    # ---- the replay

    def hidden_ids(self, s, events) -> list[str]:
        """The opponent's blocks (every block for the public) the rules have not revealed."""
        shown = revealed_at(events)
        return sorted((p.id for p in s.roster.pieces if p.side != s.viewer and p.id not in shown), key=len,
                      reverse=True)

    def replay_views(self, s, views, events, over):
        """Hidden blocks under the dashboard's anonymous labels (hidden.replay_hide)."""
        return replay_hide(views, s.viewer, revealed_at(events), over, s.position, s.board)


__all__ = ["BLOCK_KEYS", "BlockMove", "MarengoLive", "empty_game", "marengo_position"]
