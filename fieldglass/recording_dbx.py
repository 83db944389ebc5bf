"""Recording a DBX 18th-century game headless: elements measured freely in table mm -> the game record.

`DbxRecorder` is the Wiener `GameRecorder` (fieldglass/recording.py) on a free-measured table: the tracker commits
each element's moves in table mm (no grid), and a combat input is resolved by the DBX engine through its adapter
(rules/dbx/adapter.py `DbxSystem.resolve`) on the engine's position, placed exactly as the live dashboard
places it (rules/dbx/live.py `dbx_position`). The record keeps what the camera cannot see:

* the metadata `game` is the starting DBX position without its elements (terrain, scale, table, the game state:
  bound, weather, river, losses) and `piece_states` each element's state from `--game` (quality, square markers,
  command...; its `type` when the position file names one);
* a `combat` event carries the engine's resolution (`attacker_side`, `target_side`, `outcome`, `notes`, `changes`,
  `victory`), `winner` ("attacker", "defender" or "draw") and `effect` (the result), the dice (`dice`, and `seed`
  when the recorder rolled them), `summary` and `lines` (its text), `states` (the new state of each element whose
  state changed) and `game` (the game state after). A destroyed element's change says `removed`. Recoils and
  flights wait for the camera, as in the live dashboard: the element's committed place changes when it is moved.

The players' inputs (JSON Lines, as for Wiener)::

    {"frame": 40, "type": "combat", "action": "melee", "attacker": "b1", "target": "r1", "dice": [5, 2]}
    {"frame": 60, "type": "combat", "action": "fire", "attacker": "b3", "target": "r3", "seed": 7}
    {"frame": 90, "type": "turn", "turn": 2, "active": "red"}
    {"frame": 95, "type": "note", "text": "...", "by": "blue"}      also phase, bookmark, confirm, undo
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from common.errors import InputError
from fieldglass.recording import GameRecorder, input_dice, record_meta
from vision.tracking import Tracker, TrackerConfig


def dbx_meta(layout, roster, template, piece_states: dict, camera=None, rules_options: dict | None = None,
             players: list[str] | None = None, source: str | None = None) -> dict:
    """The metadata of a new DBX record: `record_meta` with the starting position and the elements' states."""
    from rules.dbx.model import position_to_dict

    meta = record_meta("dbx", layout, roster, camera, rules_options, players, source)
    game = position_to_dict(template.with_pieces(()))
    game.pop("pieces", None)
    meta["game"] = game
    meta["piece_states"] = {pid: dict(st) for pid, st in piece_states.items()}
    return meta


def dbx_game_at(meta: dict, events) -> tuple[object, dict[str, dict], str | None]:
    """The DBX game after `events` (a record's, in order; undone ones are skipped): (the template position
    without elements, each element's state the camera cannot see, the active side a turn event named or None)."""
    from rules.dbx.live import empty_template
    from rules.dbx.model import position_from_dict

    start = meta.get("game")
    game_dict = None
    states = copy.deepcopy(meta.get("piece_states") or {})
    active = None
    for e in events:
        if e.undone:
            continue
        if e.type == "combat":
            for pid, st in (e.data.get("states") or {}).items():
                states[pid] = dict(st)
            if isinstance(e.data.get("game"), dict):
                game_dict = e.data["game"]
        elif e.type == "turn" and e.data.get("active"):
            active = str(e.data["active"])
    if start:
        data = {**start, "pieces": []}
        if game_dict is not None:
            data["game"] = game_dict
        template = position_from_dict(data, "the record's DBX game")
    else:  # a record made before DBX combats were recorded: the table's size, nothing else
        lay = meta.get("layout") or {}
        template = empty_template(float(lay.get("width_mm") or 600.0), float(lay.get("depth_mm") or 600.0))
        if game_dict is not None:
            from rules.dbx.model import position_to_dict

            template = position_from_dict({**position_to_dict(template), "game": game_dict}, "the record's DBX game")
    return template, states, active


def dbx_record_position(meta: dict, state, events, system, roster):
    """The DBX engine's position of a record after `events`, with `state` (BoardState) the committed places then:
    placed by the live session's `dbx_position` (rules/dbx/live.py), the game state from the record."""
    from rules.dbx.live import at_bound, dbx_position, dbx_turn
    from rules.live import GameState

    template, states, active = dbx_game_at(meta, events)
    sides = list(dict.fromkeys(p.side for p in roster.pieces))
    turn, first = dbx_turn(template, sides)
    if state.turn:
        turn = max(1, state.turn)
    game = GameState(turn=turn, active=active or first, states=states,
                     removed={pid for pid, p in state.pieces.items() if p.status == "removed"})
    places = {p.id: p for p in state.pieces.values() if p.on_table}
    pos, _ = dbx_position(places, roster, system, game, at_bound(template, game.turn, game.active))
    return pos


def _winner(outcome: dict, attacker: str, target: str | None, action: str) -> str | None:
    loser = outcome.get("loser")
    if loser and loser == attacker:
        return "defender"
    if loser and loser == target:
        return "attacker"
    return "draw" if action in ("fire", "melee") else None


@dataclass
class DbxRecorder(GameRecorder):
    """Elements in table mm -> the record; DBX combats resolved on the engine (rules/dbx) through DbxSystem."""

    @classmethod
    def start_dbx(cls, record, roster=None, config: TrackerConfig | None = None, camera=None,
                  on_event=None) -> DbxRecorder:
        """A recorder over a new or resumed record (`roster`: the set-up's, else the record's own)."""
        if roster is None:
            from fieldglass.replay_session import roster_from_meta

            roster = roster_from_meta(record.meta)
        rec = cls(record, roster, Tracker(roster, config, camera), on_event)
        rec.sync_tracker()
        return rec

    def position(self):
        """The engine's position from the record's committed places and game state, as the dashboard places it."""
        return dbx_record_position(self.record.meta, self.record.state(), self.record.events(), self.rules_system(),
                                   self.roster)

    def _apply(self, inp: dict, t: float, frame: int | None, image: np.ndarray | None = None):
        if inp.get("type") == "turn" and inp.get("active"):
            data = {"turn": int(inp.get("turn", self.record.state().turn + 1)), "active": str(inp["active"])}
            if inp.get("phase"):
                data["phase"] = str(inp["phase"])
            return [self._write("turn", t, frame, None, data, image)]
        return super()._apply(inp, t, frame, image)

    def combat(self, inp: dict, t: float, frame: int | None, image: np.ndarray | None = None):
        """Resolve a DBX action with the engine (given dice, or a seed: stored) and write it with its changes."""
        from rules.dbx.live import adopt_element_state
        from rules.dbx.model import game_to_dict

        rules = self.rules_system()
        pos = self.position()
        action = inp.get("action", "fire")
        attacker, target = inp.get("attacker"), inp.get("target")
        if not isinstance(attacker, str) or attacker not in pos.by_id:
            raise InputError(f"combat at frame {frame}: {attacker!r} is not an element on the table")
        if target is not None and target not in pos.by_id:
            raise InputError(f"combat at frame {frame}: {target!r} is not an element on the table")
        dice = input_dice(inp)
        supporters = list(inp.get("supporters", []))
        outcome = rules.resolve(pos, action, attacker, target, dice=dice, seed=inp.get("seed"),
                                supporters=supporters)
        res = outcome.resolution
        out = res.result.as_dict()
        after = outcome.after
        changes = []
        for c in outcome.changes:
            c = dict(c)
            if c["piece"] not in after.by_id and "to" not in c:
                c["removed"] = True
            changes.append(c)
        _, states, _ = dbx_game_at(self.record.meta, self.record.events())
        new_states = {}
        for p in pos.pieces:
            q = after.by_id.get(p.id)
            if q is None:
                continue
            st = adopt_element_state(dict(states.get(p.id, {})), p, q)
            if st != states.get(p.id, {}):
                new_states[p.id] = st
        pieces = [attacker] + ([target] if target else [])
        o = out["outcome"]
        data = {"action": action, "pieces": pieces, "sides": {pid: pos.by_id[pid].side for pid in pieces},
                "poses": {pid: {"x_mm": round(pos.by_id[pid].x_mm, 1), "y_mm": round(pos.by_id[pid].y_mm, 1),
                             "heading_deg": round(pos.by_id[pid].heading_deg, 1)} for pid in pieces},
                "dice": list(outcome.rolled), "winner": _winner(o, attacker, target, action),
                "effect": o.get("result", ""), "outcome": o, "notes": list(out.get("notes", [])),
                "changes": changes, "victory": out.get("victory") or {}, "states": new_states,
                "game": game_to_dict(after.game), "lines": list(outcome.lines),
                "summary": f"{action} {attacker}" + (f" -> {target}" if target else "") + ": "
                + (f"{o['loser']} {o.get('result', '')}" if o.get("loser") else str(o.get("result", "no effect")))
                + f" (dice {', '.join(map(str, outcome.rolled)) or 'none'})"}
        if supporters:
            data["supporters"] = supporters
        for key in ("attacker_side", "target_side"):
            if out.get(key):
                data[key] = out[key]
        if outcome.seed is not None:
            data["seed"] = outcome.seed
        ev = self._write("combat", t, frame, attacker, data, image)
        for c in changes:
            if c.get("removed"):
                self.tracker.expect_removal(c["piece"], "rules", t, frame)
        return ev


# ---------------------------------------------------------------------------------------------------- the command


def dbx_plan(args):
    """`fieldglass record --system dbx`: --source synthetic films the DBX demo table (no files needed)."""
    from fieldglass.recording import RecordingPlan, load_inputs, open_frames, options_and_players, table_reader
    from fieldglass.session_dbx import load_dbx_setup

    source = args.source
    if source == "scripted":
        raise InputError("--source scripted is the Wiener scripted game: for DBX use 'synthetic' or a camera")
    setup = load_dbx_setup(source, args.camera, args.layout, args.roster, getattr(args, "game", None),
                           getattr(args, "options", None))
    if source == "synthetic":
        if setup.scene is None:
            raise InputError("--source synthetic films the DBX demo table: leave out --layout and --roster")
        from vision.synthetic import SyntheticSource

        n = args.frames if args.frames is not None else 100
        rate = args.fps or 10.0
        src = SyntheticSource(setup.scene, frames=n)
        intr = src.camera.intrinsics

        def frames(start):
            return ((i, i / rate, img) for i, img in src if i >= start), n
    else:
        intr = setup.camera

        def frames(start):
            stream = open_frames(source, args.fps, start, args.frames)
            return stream.frames, stream.total
    opts, players = options_and_players(args)
    meta = dbx_meta(setup.layout, setup.roster, setup.game, setup.initial_states, intr, opts, players, source)

    def start(record, config, on_event):
        return DbxRecorder.start_dbx(record, setup.roster, config, intr, on_event)

    return RecordingPlan(meta, frames, table_reader(setup.layout, setup.roster, intr, source),
                         load_inputs(args.inputs), start)


__all__ = ["DbxRecorder", "dbx_game_at", "dbx_meta", "dbx_plan", "dbx_record_position"]
