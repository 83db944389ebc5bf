"""The dashboard's model for Triomphe à Marengo (Qt-free): blocks located on a printed board, hidden identities.

`MarengoSession` is a `fieldglass.session.Session` whose position is the Marengo engine's: each block's marker point
(measured by the vision pipeline as usual) maps to board mm (the board registered from its own anchors by
calibration/board.py, given the board's layout built by fieldglass/boards.py) and `rules.board.Board.locate` names
its area and position (reserve or approach); a block on a border is flagged and left out, not guessed. What the
camera cannot see (round, side to move, commands, morale, each block's strength, readiness and revealed flag) is the
session's game state, updated by the engine's resolutions. `viewer` is "umpire" or a side: a player view shows the
opponent's blocks only as blocks of their colour unless the rules revealed them (rules/marengo/hidden.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from calibration.board import BoardRegistration
from common.errors import InputError
from fieldglass.boards import board_layout, board_scene
from fieldglass.session import PieceView, Session, Setup
from rules.board import Board, Placement, load_board, load_demo_board
from rules.live import PendingChange
from rules.marengo.adapter import parse_roster_type
from rules.marengo.hidden import UMPIRE, BlockWatch, Sighting, UnitState, player_view, roster_blocks, unit_roster
from vision.synthetic_board import DEMO_BLOCKS

VIEWERS = (UMPIRE, "AU", "FR")
BLOCK_KEYS = ("ready", "acted", "rallied", "revealed", "began_in_reserve", "bombard", "bombard_round")
"""A block's flags the camera cannot see (rules/marengo/model.py Block)."""


@dataclass(frozen=True)
class MarengoSetup(Setup):
    """A Setup with the board: `board_on_table` when the board itself is the table (its anchors register the
    camera), else the board lies on a table registered by `layout` and is found from its anchors every frame."""

    board: Board | None = None
    board_on_table: bool = True
    scene: Any = None  # the synthetic scene (fieldglass/boards.py board_scene) for --source synthetic
    game: Any = None  # the initial MarengoPosition (--game), blocks' state the camera cannot see
    blocks: Any = None  # rules.marengo.hidden.BlockRoster: each unit's blocks per strength (None: from the roster)

    def make_session(self) -> MarengoSession:
        return MarengoSession(self)


def load_marengo_setup(source: str, camera: str | None = None, layout: str | None = None, roster: str | None = None,
                       board: str | None = None, game: str | None = None) -> MarengoSetup:
    """Files for `fieldglass gui --system marengo`: --board (synthetic: the demo board), --roster of blocks
    (synthetic: the demo blocks), --layout only when the board lies on a table with its own anchors."""
    from calibration.camera import load_camera
    from calibration.layout import load_layout
    from vision.roster import load_roster

    brd = load_board(board) if board else None
    names = {"source": source, "board": str(board or "demo board")}
    scene = None
    if source == "synthetic":
        brd = brd or load_demo_board()
        areas = set(brd.areas)
        scene = board_scene(brd, tuple(b for b in DEMO_BLOCKS if b[5] in areas))
    if brd is None:
        raise InputError(f"source {source!r}: --system marengo needs --board BOARD.toml (only --source synthetic "
                         "brings the demo board)")
    if source != "synthetic":
        missing = [n for n, v in (("--camera", camera), ("--roster", roster)) if not v]
        if missing:
            raise InputError(f"source {source!r} needs {' and '.join(missing)}")
    cam = load_camera(camera) if camera else None
    ros = load_roster(roster) if roster else scene.roster
    blocks = roster_blocks(ros.pieces, roster_units(roster) if roster else None, str(roster or "demo blocks"))
    lay = load_layout(layout) if layout else (scene.layout if scene is not None else board_layout(brd))
    names.update(camera=str(camera or "synthetic camera"), layout=str(layout or "the board's anchors"),
                 roster=str(roster or "demo blocks"))
    pos = None
    if game:
        import json

        from rules.marengo.model import position_from_dict

        try:
            data = json.loads(Path(game).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{game}: cannot read the position ({exc})") from None
        if not isinstance(data, dict) or data.get("system") != "marengo":
            raise InputError(f"{game}: not a Marengo position")
        pos = position_from_dict(data, str(game), board=brd)  # the blocks' state on this board
        names["game"] = str(game)
    return MarengoSetup(source, cam, lay, ros, "marengo", names=names, board=brd, board_on_table=layout is None,
                        scene=scene, game=pos, blocks=blocks)


def roster_units(path) -> dict[str, dict]:
    """Roster piece id -> {unit, strength} for the [[piece]] tables of a roster TOML that name their unit: the blocks
    of one unit at its strengths (rules/marengo/README.md, "Block rosters")."""
    from calibration.files import read_toml

    data = read_toml(path, "roster file")
    return {p["id"]: {"unit": p["unit"], "strength": p.get("strength")} for p in data.get("piece", [])
            if isinstance(p, dict) and isinstance(p.get("id"), str) and p.get("unit")}


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


def marengo_position(places, roster, system, state, game, locate, initial=None):
    """The Marengo engine's position from where each unit's block stands: the one placement of Marengo, used live
    (`MarengoSession`), by the recorder (fieldglass/recording_marengo.py) and by the replay.

    `places`: unit id -> anything with x_mm, y_mm (a tracking Place, a record's PieceState); `locate(x, y)` names
    the area and position (reserve or approach) there; `state` (fieldglass.session.GameState) holds each unit's
    type, strength and flags (BLOCK_KEYS), the units the rules removed, the moves the rules ordered (pending until
    the board matches), the round (`turn`) and the side to move (`active`); `game` the position's round, commands and
    morale without blocks; `initial` the starting blocks (reinforcements wait in their boxes until placed).
    A block on a border or outside every area is left out, not guessed. Returns (position, notes, placements)."""
    from rules.marengo.model import Block

    initial = initial or {}
    blocks, notes, placements = [], [], {}
    for rp in roster.pieces:
        if rp.id in state.removed:
            continue
        st = state.states.get(rp.id, {})
        typ = st.get("type") or system.piece_type(rp.type)
        if typ is None:
            notes.append(f"{rp.id}: roster type {rp.type!r} is not a Marengo block type (infantry, cavalry, "
                         "artillery)")
            continue
        pend = state.pending.get(rp.id)
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


class MarengoSession(Session):
    """The live model for Marengo: readings in, the engine's MarengoPosition out, with a player or umpire view."""

    viewers = VIEWERS  # who may watch: the dashboard's View menu offers these

    def __init__(self, setup: MarengoSetup, system=None, settle_s: float = 1.0):
        from rules.marengo.model import position_from_dict

        self.board = setup.board
        self.viewer = UMPIRE
        self.choices: dict[str, str] = {}
        self.placements: dict[str, Placement] = {}
        self.board_registration = None
        if not setup.board_on_table and setup.camera is not None:
            self.board_registration = BoardRegistration(board_layout(setup.board), setup.camera)
        base = setup.game or position_from_dict({"system": "marengo", "round": 2, "side": "AU", "blocks": []},
                                                "dashboard", board=setup.board)
        self.game = replace(base, blocks=())
        initial = {b.id: b for b in (setup.game.blocks if setup.game is not None else ())}
        self._initial = initial
        self._aliases: dict[str, str] = {}
        # the camera reads every block's marker; the session follows units (a unit's blocks per strength, so a block
        # replaced after a loss is the same unit losing a step: rules/marengo/hidden.py's BlockWatch)
        self.blocks = setup.blocks or roster_blocks(setup.roster.pieces)
        self.marker_roster = setup.roster
        self.watch = BlockWatch(self.blocks)
        self.step_losses: list = []  # hidden.StepLoss, in the order seen
        self._seen_units: set[str] = set()
        units = unit_roster(setup.roster, self.blocks)
        super().__init__(setup if units is setup.roster else replace(setup, roster=units), system, settle_s)
        self.state.turn, self.state.active = self.game.round, self.game.side
        for rp in self.roster.pieces:
            st = self.state.states.setdefault(rp.id, {})
            typ, strength = parse_roster_type(rp.type)
            if rp.id in initial:
                st.update(self.system.piece_state(initial[rp.id]))
                st.setdefault("type", initial[rp.id].type)
            st.setdefault("type", typ)
            st.setdefault("strength", strength or self.system.default_state(typ or "")["strength"])
        self._rebuild(force=True)

    @property
    def to_table(self):
        """Board mm -> table mm through the board's registered pose; None while the board is the table."""
        if self.board_registration is None or self.board_pose is None:
            return None
        return self.board_pose.board_to_table

    @property
    def board_pose(self):
        return self.board_registration.pose if self.board_registration is not None else None

    # ---- readings: board mm and areas

    def update_reading(self, reading, t: float | None = None) -> None:
        if self.board_registration is not None and reading.pose is not None:
            anchors = {m.id: m.corners for m in reading.markers if m.id in {a.id for a in self.board.anchors}}
            self.board_registration.update(anchors, reading.pose)
        super().update_reading(self._units_reading(reading), t)

    def _units_reading(self, reading):
        """The reading with each block's marker read as its unit (the block followed: BlockWatch); a marker swap in
        the same area is a step loss: the unit's strength follows the marker seen."""
        if reading.pose is None:
            return reading
        poses, sightings = {}, []
        for p in reading.pieces:
            if self.blocks.identify(p.marker) is None:
                continue
            pl = self.locate(p.x_mm, p.y_mm)
            sightings.append(Sighting(p.marker, pl.area, pl.position))
            poses[p.marker] = p
        now, swaps, _ = self.watch.update(sightings, self.frames)
        for sw in swaps:
            rp = self.roster.piece(sw.unit)
            if rp is None:
                continue
            self.state.states.setdefault(sw.unit, {})["strength"] = sw.new_strength
            self.step_losses.append(sw)
            if sw.steps > 0:
                text = (f"{sw.unit} loses {sw.steps} step(s): block {sw.old_marker} (strength {sw.old_strength}) "
                        f"replaced by block {sw.new_marker} (strength {sw.new_strength})"
                        + ("" if sw.same_area else f" in another area ({sw.area}): check the board"))
            else:
                text = f"{sw.unit}: block {sw.new_marker} seen again, strength back to {sw.new_strength}"
            self._log(text)
            self.events.message.emit(text)
        for unit, u in now.items():  # first seen: a unit with several blocks takes its strength from the one seen
            if unit not in self._seen_units and len(self.blocks.units[unit].markers) > 1 and unit not in self._initial:
                self.state.states.setdefault(unit, {})["strength"] = u.strength
            self._seen_units.add(unit)
        pieces = tuple(replace(poses[u.marker], piece=unit) for unit, u in now.items())
        return replace(reading, pieces=pieces)

    def to_board(self, x_mm: float, y_mm: float) -> tuple[float, float] | None:
        """Table mm (the marker point at its height, as the pipeline measured it) -> board mm."""
        if self.board_registration is None:
            return x_mm, y_mm
        if self.board_pose is None:
            return None
        p = self.board_pose.table_to_board([(x_mm, y_mm)])[0]
        return float(p[0]), float(p[1])

    def locate(self, x_mm: float, y_mm: float) -> Placement:
        xy = self.to_board(x_mm, y_mm)
        if xy is None:
            return Placement(None, None, False, "the board is not registered (fewer than 2 board anchors)")
        return self.board.locate(*xy)

    def _placed_as(self, pose, change) -> bool:
        """In the area and position (reserve or the approach) the rules moved the block to."""
        pl = self.locate(pose.x_mm, pose.y_mm)
        want = "reserve" if change.approach is None else f"{change.area}>{change.approach}"
        return pl.area == change.area and pl.position == want

    def _rebuild(self, force: bool = False) -> None:
        if not hasattr(self, "game"):
            return
        pos, notes, placements = marengo_position(self.committed_places(), self.roster, self.system, self.state,
                                                  self.game, self.locate, self._initial)
        self.placements = placements
        self.notes = notes
        if force or pos != self.position:
            self.position = pos
            self._cache.clear()
            self.events.position.emit(pos)

    # ---- hidden information

    def set_viewer(self, viewer: str) -> None:
        if viewer not in VIEWERS:
            raise InputError(f"view: one of {', '.join(VIEWERS)}, not {viewer!r}")
        self.viewer = viewer
        self._cache.clear()
        self._log(f"view: {'umpire (everything)' if viewer == UMPIRE else f'{viewer} player'}")
        self.events.state.emit()

    def block_views(self) -> dict[str, Any]:
        """Block id -> hidden.BlockView for the current viewer (own and revealed blocks in full, others hidden)."""
        pos = self.position
        if pos is None:
            return {}
        units = [UnitState(b.id, b.side, b.type, b.strength, -1, b.area, b.position) for b in pos.blocks]
        revealed = {b.id for b in pos.blocks if b.revealed}
        views = player_view(units, self.viewer, revealed, game_over=pos.winner is not None)
        out = {}
        # player_view sorts by side, area, position, unit: the same order as `units` sorted
        for u, v in zip(sorted(units, key=lambda u: (u.side, u.area or "", u.position or "", u.unit)), views,
                        strict=True):
            out[u.unit] = v
        self._aliases = {v.label: bid for bid, v in out.items() if v.hidden}
        return out

    def label(self, bid: str) -> str:
        v = self.block_views().get(bid)
        return v.label if v is not None else bid

    def hidden(self, bid: str) -> bool:
        v = self.block_views().get(bid)
        return bool(v and v.hidden)

    def piece_views(self) -> list[PieceView]:
        views = self.block_views()
        out = []
        for v in super().piece_views():
            st = dict(self.state.states.get(v.piece.id, {}))
            st["bases"] = st.get("strength", 1)  # the game panel's "bases" column shows a block's strength
            bv = views.get(v.piece.id)
            if bv is not None and bv.hidden:
                piece = replace(v.piece, id=bv.label, type="block")
                out.append(PieceView(piece, v.pose, v.status, None, {"bases": "?"}, v.pending, bv.label, True))
                continue
            out.append(PieceView(v.piece, v.pose, v.status, v.type, st, v.pending))
        return out

    def select(self, pid: str | None, second: bool = False) -> None:
        if pid is not None and self.roster.piece(pid) is None:
            self.block_views()
            if pid in self._aliases:
                pid = self._aliases[pid]
            elif pid in self.board.areas:
                self.events.message.emit(f"area {pid}: {self.board.areas[pid].name}")
                return
        super().select(pid, second)

    def title(self) -> str:
        return self.selection_title()

    def selection_title(self) -> str:
        s = self.selected
        if not self.in_position(s):
            return f"{self.label(s)}: not on the board now (not seen, on a border or removed)"
        b = self.position.block(s)
        if self.hidden(s):
            return f"<b>{self.label(s)}</b> ({b.side}, identity hidden) in area {b.area}, {b.position}"
        sel = self.selection_overlay()
        n = len(sel.options) if sel is not None else 0
        return (f"<b>{b.id}</b> {b.side} {b.type} strength {b.strength} in area {b.area}, {b.position}"
                f"{'' if b.ready else ', unready'}: {n} neighbouring area(s) it can act toward "
                f"({self.position.commands} command(s) left)")

    def selection_overlay(self):
        if self.selected is not None and self.hidden(self.selected):
            return None  # the opponent's hidden block: its options would tell its type
        return super().selection_overlay()

    def targets(self):
        if self.selected is not None and self.hidden(self.selected):
            return []
        rows = super().targets()
        views = self.block_views()
        return [replace(r, target=views[r.target].label) if r.target in views and views[r.target].hidden else r
                for r in rows]

    def pair(self):
        out = super().pair()
        if out is None:
            return None
        data, lines = out
        for bid in (self.selected, self.second):
            if bid and self.hidden(bid):  # the analysis of areas stays; the hidden block's identity goes
                label = self.label(bid)
                lines = [ln.replace(bid, label) for ln in lines if not ln.startswith(f"{bid}:")]
                data = {}
        return data, lines

    def unalias(self, pid: str | None) -> str | None:
        """A hidden block's label ("FR block 2") -> its id; anything else unchanged."""
        if pid and pid not in self.board.areas and self.roster.piece(pid) is None:
            self.block_views()
        return self._aliases.get(pid, pid) if pid else pid

    def supporter_candidates(self, attacker: str, target: str, action: str) -> list[str]:
        return super().supporter_candidates(self.unalias(attacker), self.unalias(target), action)

    # ---- game state

    def set_piece_state(self, pid: str, key: str, value: Any) -> None:
        pid = self._aliases.get(pid, pid)
        if self.roster.piece(pid) is None:
            raise InputError(f"no block {pid!r} in the roster")
        if key in ("formation", "markers"):
            raise InputError(f"a Marengo block has no {key}")
        value = self.system.check_state("", key, value)
        self.state.states.setdefault(pid, {})["strength" if key == "bases" else key] = value
        self._log(f"{pid}: {'strength' if key == 'bases' else key} set to {value}")
        self.events.state.emit()
        self._rebuild()

    def set_turn(self, turn: int, active: str | None = None) -> None:
        self.state.turn = max(1, min(16, int(turn)))
        if active in ("AU", "FR"):
            self.state.active = active
        self.events.state.emit()
        self._rebuild()

    def next_phase(self) -> None:
        """End the side's turn and start the other's (engine: §4 phase 4, morale checks, then phases 1-2)."""
        from rules.marengo import engine

        out = engine.end_turn(self.position, self.system.opts)
        q = out.position
        events = list(out.events)
        if q.winner is None:
            st = engine.start_turn(q, self.system.opts)
            q, events = st.position, events + st.events
        self._take(q, events)
        self._log(f"round {q.round} ({q.side} to move, {q.commands} commands)")

    def _take(self, after, events=()) -> list[PendingChange]:
        """Adopt the engine's position: the game state now, moves and removals pending until the board matches."""
        before = self.position
        pending = []
        after_by = after.blocks_by_id
        for b in before.blocks:
            q = after_by.get(b.id)
            if q is None:
                self.state.removed.add(b.id)
                ch = BlockMove(b.id, removed=True)
            else:
                self.state.states.setdefault(b.id, {}).update(self.system.piece_state(q))
                if (q.area, q.approach) == (b.area, b.approach):
                    continue
                ch = BlockMove(b.id, area=q.area, approach=q.approach)
            self.state.pending[b.id] = ch
            pending.append(ch)
        self.game = replace(after, blocks=(), pieces=())
        self.state.turn, self.state.active = after.round, after.side
        for e in events:
            self._log(e)
        for ch in pending:
            self._log(f"waiting for the board: {ch.describe()}")
        self.events.state.emit()
        self._rebuild()
        return pending

    # ---- combat

    def combat_modifiers(self, attacker: str, target: str, action: str, supporters=()):
        attacker, target = self.unalias(attacker), self.unalias(target)
        self._need(attacker, *(() if self._single(action) else (target,)))
        return self.system.combat_modifiers(self.position, attacker, target, action, supporters, self.choices)

    def resolve(self, action: str, attacker: str, target: str, **kw):
        attacker, target = self.unalias(attacker), self.unalias(target)
        self._need(attacker)
        return self.system.resolve(self.position, action, attacker, target or None,
                                   supporters=kw.get("supporters", ()), choices=self.choices)

    def apply(self, outcome) -> list[PendingChange]:
        res = outcome.resolution
        self._log(f"{res.action} by {', '.join(res.blocks)}")
        return self._take(res.after, res.outcome.events)

    def _need(self, *pids: str) -> None:
        for pid in pids:
            if pid in self.board.areas:
                continue
            if not self.in_position(pid):
                raise InputError(f"{pid!r} is not on the board (not seen, on a border, or removed)")

    # ---- text (headless printout)

    def describe_lines(self) -> list[str]:
        lines = [f"  round {self.position.round} ({self.position.side} to move, {self.position.commands} commands), "
                 f"view: {self.viewer}",
                 f"  {'block':<12}{'side':<6}{'type':<11}{'str':<4}{'area':<6}{'position':<10}{'status':<10}"]
        views = self.block_views()
        for v in super().piece_views():
            pid = v.piece.id
            b = self.position.blocks_by_id.get(pid)
            bv = views.get(pid)
            pl = self.placements.get(pid)
            area = b.area if b else (pl.area if pl and pl.area else "-")
            where = b.position if b else (f"border? {pl.note}" if pl and pl.on_border else "-")
            if bv is not None and bv.hidden:
                lines.append(f"  {bv.label:<12}{v.piece.side:<6}{'?':<11}{'?':<4}{area:<6}{where:<10}{v.status:<10}")
            else:
                st = self.state.states.get(pid, {})
                lines.append(f"  {pid:<12}{v.piece.side:<6}{(v.type or '?'):<11}{st.get('strength', '?')!s:<4}"
                             f"{area or '-':<6}{where:<10}{v.status:<10}")
        for n in self.notes:
            lines.append(f"  note: {n}")
        sel = self.selection_overlay()
        if sel is not None:
            lines.append(f"selected {sel.piece} in area {sel.area} ({sel.position}):")
            for o in sel.options:
                lines.append(f"  -> area {o.area:<4}{'attack' if o.attack else 'reach':<8}{o.text}")
        return lines


__all__ = ["BLOCK_KEYS", "BlockMove", "MarengoSession", "MarengoSetup", "VIEWERS", "load_marengo_setup",
           "marengo_position"]
