"""Recording a Triomphe à Marengo game headless: frames -> block markers -> units in areas -> the game record.

`MarengoRecorder` is the Wiener `GameRecorder` (fieldglass/recording.py) with blocks on a printed board: the camera
reads every block's marker, `rules.marengo.hidden.BlockWatch` turns them into units (a unit's weaker block, put down
after a loss, is the same unit losing a step) and the tracker commits units' moves. The record stores identities:

* its roster is one piece per unit (`bases` = the unit's strength at the start), `blocks` maps each unit to its
  markers per strength (`BlockRoster.from_dict`), `board` keeps the board (`{"demo": true}` or `{"toml": TEXT}`) so
  the replay draws the areas;
* `move` / `appeared` events carry the unit's `area` and `position` ("reserve" or "A>B") besides table mm;
* a step loss seen by the camera is a `combat` event with action "step loss" and the change `{"piece": UNIT,
  "bases": N, "strength": N}`; a rules resolution (a player's input) is a `combat` event with the engine's changes
  (`revealed`, `strength`, `area`, removals), which is where the replay learns what the rules revealed
  (fieldglass/replay_hidden.py);
* every event the engine made (a resolution, the end of a turn) keeps its position after as `engine` (round, side,
  commands, morale, every block's flags): a resumed recording, an undo and the replay go on from it;
* when the engine's victory says the game is over (after a resolution or the end of a turn), that event carries
  `game_winner` and `victory`, and the metadata `game_over: true`, `winner`, `victory` and `game_over_seq` (the
  event's seq): the replay reveals every identity from that event on.

The players' inputs (JSON Lines, as for Wiener) for Marengo::

    {"frame": 40, "type": "combat", "action": "bombard", "attacker": "au-art-1", "choices": {"phase": "announce"}}
    {"frame": 60, "type": "combat", "action": "thrust", "attacker": "au-cav-1", "target": "5",
     "supporters": [], "choices": {"push": "fr-inf-1"}}
    {"frame": 90, "type": "turn"}            the side's turn ends (engine: §4 phase 4, morale checks, victory)
    {"frame": 95, "type": "note", "text": "...", "by": "FR player"}    also bookmark, confirm, undo

The board is the table (its anchors register the camera): `--layout` is not used.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from common.errors import InputError
from fieldglass.boards import board_layout
from fieldglass.recording import GameRecorder, record_meta
from rules.marengo.hidden import BlockRoster, BlockWatch, Sighting, unit_roster
from rules.marengo.live import BLOCK_KEYS, empty_game, marengo_position
from vision.tracking import Observation, Place, Tracker, TrackerConfig


def board_meta(board_path: str | None) -> dict:
    """What the record keeps of the board: the demo board by name, any other as its TOML text."""
    if board_path is None or board_path == "demo":
        return {"demo": True}
    try:
        return {"toml": Path(board_path).read_text(encoding="utf-8"), "name": Path(board_path).name}
    except OSError as exc:
        raise InputError(f"{board_path}: cannot read the board ({exc.strerror or exc})") from None


def board_from_meta(meta: dict):
    """The board a Marengo record keeps (None when it keeps none)."""
    from rules.board import load_demo_board, parse_board

    b = meta.get("board")
    if not b:
        return None
    if b == "demo" or (isinstance(b, dict) and b.get("demo")):
        return load_demo_board()
    import tomllib

    try:
        return parse_board(tomllib.loads(b["toml"]), "the record's board")
    except (tomllib.TOMLDecodeError, KeyError, TypeError, InputError):
        return None


def marengo_meta(board, board_path: str | None, marker_roster, blocks: BlockRoster, camera=None, game=None,
                 rules_options: dict | None = None, players: list[str] | None = None, source: str | None = None
                 ) -> dict:
    """The metadata of a new Marengo record: the units as its roster, their blocks, the board."""
    units = unit_roster(marker_roster, blocks)
    meta = record_meta("marengo", board_layout(board), units, camera, rules_options, players, source)
    init = {b.id: b for b in game.blocks} if game is not None else {}
    for p in meta["roster"]:
        u = blocks.units[p["id"]]
        p["bases"] = init[p["id"]].strength if p["id"] in init else max(u.markers)
    meta["blocks"] = {u.unit: {"side": u.side, "type": u.type, "markers": {str(s): m for s, m in u.markers.items()}}
                      for u in blocks.units.values()}
    meta["board"] = board_meta(board_path)
    if game is not None:
        from rules.marengo.model import position_to_dict

        meta["game"] = position_to_dict(game)
    return meta


@dataclass
class MarengoRecorder(GameRecorder):
    """Block markers -> units -> the record; Marengo inputs resolved on the engine (rules/marengo)."""

    board: object = None
    blocks: BlockRoster | None = None
    watch: BlockWatch | None = None
    game: object = None  # MarengoPosition without blocks: round, side, commands, morale
    flags: dict | None = None  # unit -> the block flags the camera cannot see (ready, revealed...)
    system: object = None
    initial: dict | None = None
    start_game: object = None  # the game at the start of the record (without blocks)

    @classmethod
    def start_marengo(cls, record, board, config: TrackerConfig | None = None, on_event=None, game=None,
                      options=None) -> MarengoRecorder:
        from fieldglass.replay_session import record_system, roster_from_meta
        from rules.marengo.adapter import MarengoSystem
        from rules.marengo.model import position_from_dict

        units = roster_from_meta(record.meta)
        blocks = BlockRoster.from_dict(record.meta["blocks"], "the record's blocks")
        tracker = Tracker(units, config)
        if game is None and record.meta.get("game"):
            game = position_from_dict(record.meta["game"], "the record's game", board=board)
        base = game or empty_game(board, "recording")
        init = {b.id: b for b in (game.blocks if game is not None else ())}
        rec = cls(record, units, tracker, on_event, board=board, blocks=blocks,
                  watch=BlockWatch(blocks, config.settle_s if config else 1.0),
                  game=replace(base, blocks=(), pieces=()),
                  system=MarengoSystem(options) if options is not None else record_system(record.meta),
                  flags={bid: {k: getattr(b, k) for k in BLOCK_KEYS} for bid, b in init.items()}, initial=init)
        rec.start_game = rec.game
        rec.sync_tracker()
        return rec

    def sync_tracker(self) -> None:
        """The tracker from the record's clean state, and the engine's state the camera cannot see (round, side,
        commands, morale, the blocks' flags) from the last clean event that kept it: a resumed recording and an
        undo go on from where the rules were, not from the start."""
        super().sync_tracker()
        if self.board is None:
            return
        from rules.marengo.model import position_from_dict

        kept = next((e.data["engine"] for e in reversed(self.record.events()) if not e.undone
                     and isinstance(e.data.get("engine"), dict)), None)
        if kept is None:
            self.flags = {bid: {k: getattr(b, k) for k in BLOCK_KEYS} for bid, b in self.initial.items()}
            self.game = self.start_game or self.game
            return
        q = position_from_dict(kept, "the record's engine state", board=self.board)
        self.flags = {}
        self._adopt(q)

    # ---- the camera

    def feed(self, reading, t: float, frame: int, image: np.ndarray | None = None):
        if reading is None or reading.pose is None:
            return []
        sightings, poses = [], {}
        for p in reading.pieces:
            if p.marker in reading.conflicts or self.blocks.identify(p.marker) is None:
                continue
            pl = self.board.locate(p.x_mm, p.y_mm)
            sightings.append(Sighting(p.marker, pl.area, pl.position))
            poses[p.marker] = p
        now, swaps, _ = self.watch.update(sightings, t)
        seen = {}
        for unit, u in now.items():
            p = poses[u.marker]
            seen[unit] = Observation(Place(p.x_mm, p.y_mm, p.heading_deg % 360.0))
        out = [self.write_track_event(e) for e in self.tracker.step(seen, t, frame)]
        state = self.record.state()
        for sw in swaps:
            if state.pieces[sw.unit].bases == sw.new_strength:
                continue  # the rules already took the step (a resolution): the camera agrees
            what = "loses a step" if sw.steps == 1 else f"loses {sw.steps} steps" if sw.steps > 0 else \
                "is back at a higher strength"
            summary = f"{sw.unit} {what}: block replaced" + ("" if sw.same_area else f" (in area {sw.area})")
            data = {"action": "step loss", "pieces": [sw.unit], "summary": summary, "by": "camera",
                    "markers": [sw.old_marker, sw.new_marker], "area": sw.area,
                    "changes": [{"piece": sw.unit, "bases": sw.new_strength, "strength": sw.new_strength}]}
            out.append(self._write("combat", t, frame, sw.unit, data, image))
        return out

    def write_track_event(self, e):
        data = e.data()
        place = data.get("to") or data.get("at")
        if place and e.type in ("move", "appeared"):
            pl = self.board.locate(float(place["x_mm"]), float(place["y_mm"]))
            data["area"], data["position"] = pl.area, pl.position
            if pl.on_border:
                data["on_border"] = True
        return self._write(e.type, e.t, e.frame, e.piece, data)

    # ---- the engine

    def position(self):
        """The engine's position from the record's committed state and the game state the camera cannot see,
        placed as the live session places it (rules/marengo/live.py `marengo_position`)."""
        from rules.live import GameState

        state = self.record.state()
        places = {p.id: p for p in state.pieces.values() if p.status in ("on", "missing") and p.x_mm is not None}
        game = GameState(turn=self.game.round, active=self.game.side,
                         removed={pid for pid, p in state.pieces.items() if p.status == "removed"})
        for pid, p in state.pieces.items():
            unit = self.blocks.units.get(pid)
            game.states[pid] = {**({"type": unit.type} if unit else {}), "strength": int(p.bases),
                                **self.flags.get(pid, {})}
        pos, _, _ = marengo_position(places, self.roster, self.system, game, self.game, self.board.locate,
                                     self.initial)
        return pos

    def _adopt(self, after) -> None:
        for b in after.blocks:
            self.flags[b.id] = {k: getattr(b, k) for k in BLOCK_KEYS}
        self.game = replace(after, blocks=(), pieces=())

    def _ended(self, ev, after) -> None:
        if after.winner and not self.record.meta.get("game_over"):
            self.record.set_meta("game_over", True)
            self.record.set_meta("winner", after.winner)
            self.record.set_meta("victory", after.victory)
            self.record.set_meta("game_over_seq", ev.seq)

    def _apply(self, inp: dict, t: float, frame: int | None, image: np.ndarray | None = None):
        kind = inp.get("type")
        if kind == "turn":
            return [self.end_turn(t, frame, image)]
        if kind == "combat":
            return [self.combat(inp, t, frame, image)]
        if kind in ("marker", "formation"):
            raise InputError(f"input {kind!r}: a Marengo block has no {kind}")
        return super()._apply(inp, t, frame, image)

    def end_turn(self, t: float, frame: int | None, image=None):
        from rules.marengo import engine
        from rules.marengo.model import position_to_dict

        pos = self.position()
        out = engine.end_turn(pos, self.system.opts)
        q, events = out.position, list(out.events)
        if q.winner is None:
            st = engine.start_turn(q, self.system.opts)
            q, events = st.position, events + st.events
        data = {"turn": q.round, "phase": f"{q.side} to move", "events": events, "engine": position_to_dict(q)}
        if q.winner:
            data.update(game_winner=q.winner, victory=q.victory, phase=f"game over: {q.winner} wins")
        self._adopt(q)
        ev = self._write("turn", t, frame, None, data, image)
        self._ended(ev, q)
        return ev

    def combat(self, inp: dict, t: float, frame: int | None, image=None):
        from rules.marengo.model import position_to_dict

        pos = self.position()
        action, attacker, target = inp.get("action"), inp.get("attacker"), inp.get("target")
        if not isinstance(attacker, str) or attacker not in pos.blocks_by_id:
            raise InputError(f"combat at frame {frame}: {attacker!r} is not a block on the board")
        supporters = list(inp.get("supporters", []))
        outcome = self.system.resolve(pos, action, attacker, target, supporters=supporters,
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
        self._adopt(after)
        ev = self._write("combat", t, frame, attacker, data, image)
        for ch in changes:
            if ch.get("removed"):
                self.write_track_event(self.tracker.expect_removal(ch["piece"], "rules", t, frame))
        self._ended(ev, after)
        return ev


# ---------------------------------------------------------------------------------------------------- the command


def marengo_plan(args):
    """`fieldglass record --system marengo`: the board is the table; --source synthetic films the demo board."""
    from fieldglass.recording import RecordingPlan, load_inputs, open_frames, options_and_players, table_reader
    from fieldglass.session_marengo import load_marengo_setup

    source = args.source
    if source == "scripted":
        raise InputError("--source scripted is the Wiener scripted game: for Marengo use 'synthetic' or a camera")
    setup = load_marengo_setup(source, args.camera, None, args.roster, getattr(args, "board", None),
                               getattr(args, "game", None))
    board = setup.board
    if source == "synthetic":
        from vision.synthetic import SyntheticSource

        n = args.frames if args.frames is not None else 100
        rate = args.fps or 10.0
        src = SyntheticSource(setup.scene, frames=n, resolution=(1280, 720))
        intr = src.camera.intrinsics

        def frames(start):
            return ((i, i / rate, img) for i, img in src if i >= start), n
    else:
        intr = setup.camera

        def frames(start):
            stream = open_frames(source, args.fps, start, args.frames)
            return stream.frames, stream.total
    opts, players = options_and_players(args)
    meta = marengo_meta(board, getattr(args, "board", None), setup.roster, setup.blocks, intr, setup.game,
                        opts, players, source)

    def start(record, config, on_event):
        return MarengoRecorder.start_marengo(record, board, config, on_event, setup.game)

    def summary(record):
        return f"; game over: {record.meta.get('winner')} wins" if record.meta.get("game_over") else ""

    return RecordingPlan(meta, frames, table_reader(setup.layout, setup.roster, intr, source), load_inputs(args.inputs),
                         start, summary)


def run_marengo(args) -> int:
    """`fieldglass record --system marengo` (fieldglass/commands/record.py dispatches here through `marengo_plan`)."""
    from fieldglass.recording import check_timing, record_game

    check_timing(args)
    return record_game(args, marengo_plan(args))


__all__ = ["MarengoRecorder", "board_from_meta", "board_meta", "marengo_meta", "marengo_plan", "run_marengo"]
