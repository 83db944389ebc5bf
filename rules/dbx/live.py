"""DBX's part of the live session (rules/live.py): elements measured freely in table mm, no grid.

Every element stands where the camera measured its base centre (`x_mm`, `y_mm`) facing the compass bearing it
measured (`heading_deg`, 0 = +y), exactly the position-file convention of rules/dbx/README.md. Its type is the
roster's `type` read as a §2.1 element code; the usual words are mapped (rules/dbx/adapter.py `ROSTER_TYPES`):

    infantry, line infantry, foot, musketeers -> Li      grenadiers -> Gr (Li, quality Gr)   militia -> Fr
    light infantry, jaeger -> Jä    skirmishers -> Pl    cavalry, heavy cavalry, cuirassiers -> Kü
    light cavalry, hussars -> Hu    uhlans, lancers -> Ul    dragoons -> Dr (cavalry, A26)
    artillery, guns, battery -> Art    general, commander -> Gen    camp -> Camp

A generic "cavalry" becomes Kü, the period's battle cavalry; set the exact code in the roster (or the game panel's
type column) when it is something else. The terrain, the scale, the table size, each element's state the camera
cannot see (quality, dragoon mode, square markers, charged, defending, command...) and the game state (bound,
weather, river, losses) come from the set-up's template position (`setup.game`: an optional DBX position file,
`--game`, else an empty table of the layout's size): its pieces' poses are ignored, the camera places them.
Resolutions (rules/dbx/resolve.py) change the game state at once; recoils, flights and destroyed elements wait as
pending changes until the camera sees the table match (SETTLE_MM, SETTLE_DEG).

`dbx_position` is the one placement of the system: the dashboard, the recorder and the replay call it, so live,
recorded and replayed positions agree; `adopt_element_state` is the one way the live session and the recorder take
a resolution's element states.

A game record (fieldglass/recording.py, through `DbxLive`'s record hooks) keeps what the camera cannot see:

* the metadata `game` is the starting DBX position without its elements (terrain, scale, table, the game state:
  bound, weather, river, losses) and `piece_states` each element's state from `--game` (quality, square markers,
  command...; its `type` when the position file names one);
* a `combat` event carries the engine's resolution (`attacker_side`, `target_side`, `outcome`, `notes`, `changes`,
  `victory`), `winner` ("attacker", "defender" or "draw") and `effect` (the result), the dice (`dice`, and `seed`
  when the recorder rolled them), `summary` and `lines` (its text), `states` (the new state of each element whose
  state changed) and `game` (the game state after). A destroyed element's change says `removed`. Recoils and
  flights wait for the camera, as in the live dashboard: the element's committed place changes when it is moved;
* a `turn` event names the side it makes `active` (the players' input {"type": "turn", "turn": 2, "active": "red"}).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from common.errors import InputError
from rules.dbx.adapter import ROSTER_TYPES, STATE_KEYS
from rules.dbx.contact import contact
from rules.dbx.demo import demo as demo_table
from rules.dbx.lists import army_lists, composition
from rules.dbx.model import Scale, game_to_dict, piece_to_dict, position_from_dict, position_to_dict
from rules.dbx.picture import LEGEND as DBX_LEGEND
from rules.dbx.picture import picture
from rules.dbx.tables import ALIASES, DEPLOY_DEPTH, SIDE_EDGE_CLEAR, UNIT_TYPES
from rules.live import (
    ActionInput,
    ArmyList,
    DemoPiece,
    DemoTable,
    LiveRules,
    PendingChange,
    PieceKind,
    Start,
    Zone,
    in_play,
    input_dice,
)
from rules.picture import Item, Scene

DBX_DICE = ActionInput("dice", "dice", "dice", "two D6, the acting element first: 5,3 (empty: the app rolls)")

SETTLE_MM = 3.0
SETTLE_DEG = 5.0
"""A pending move is done once the camera sees the element within this distance and turn of where the rules put
it: a hand never places a base exactly."""

STATE_WORDS = {"formation": "quality", "markers": "square"}
"""The game panel's generic columns as DBX state keys: formation = quality (§8.1), markers = square markers (§5.11)."""


@dataclass
class PoseChange(PendingChange):
    """An element the rules moved (recoil, flight, pursuit, turn) or destroyed, shown until the camera sees it."""

    x_mm: float = 0.0
    y_mm: float = 0.0
    heading_deg: float = 0.0
    text: str = ""

    def describe(self) -> str:
        if self.removed:
            return f"take {self.piece} off the table" + (f" ({self.text})" if self.text else "")
        return (f"move {self.piece} to {self.x_mm:.0f},{self.y_mm:.0f} mm facing {self.heading_deg:.0f}°"
                + (f" ({self.text})" if self.text else ""))


def empty_template(width_mm: float, depth_mm: float, terrain=()):
    """A template position with no elements: a table of this size, the default scale and game, `terrain` (dicts as
    a position file writes them)."""
    return position_from_dict({"system": "dbx", "table": {"width_mm": width_mm, "depth_mm": depth_mm},
                               "terrain": list(terrain), "pieces": []}, "dashboard")


def at_bound(template, turn: int, active: str | None):
    """The template with the game's bound and active side set to the session's (or the record's) turn."""
    return replace(template, game=replace(template.game, bound=turn, active=active or ""))


def dbx_position(places, roster, system, state, template):
    """The engine's DbxPosition from where the camera (or a pending change) places each roster element: `places`
    maps piece id -> an object with x_mm, y_mm, heading_deg and optionally uncertainty_mm (a PiecePose or
    tracking Place; one standard deviation of the measure, §13 for borderline contacts); `system` the
    DbxSystem, `state` the GameState, `template` the position without elements (terrain, scale, table, game).
    Returns (position, notes): notes name every element left out and why."""
    specs = []
    playing, notes = in_play(roster.pieces, state, system,
                             "a DBX element code (Li, Jä, Kü, Art, Gen, ...) or a known word")
    for rp, st, code, pend in playing:
        if pend is not None and not pend.removed:
            x, y, h = pend.x_mm, pend.y_mm, pend.heading_deg
        elif rp.id in places:
            pl = places[rp.id]
            x, y, h = pl.x_mm, pl.y_mm, pl.heading_deg
        else:
            continue
        # to the precision a game record keeps a place (0.1 mm, 0.1 degree: vision/tracking.py Place.to_json), far
        # finer than the camera measures, so that the live, recorded and replayed positions are the same
        spec = {"id": rp.id, "side": rp.side, "type": code, "x_mm": round(float(x), 1), "y_mm": round(float(y), 1),
                "heading_deg": round(float(h), 1) % 360.0}
        for k in STATE_KEYS:
            v = st.get(k)
            if v not in (None, "", 0, False):
                spec[k] = v
        sigma = None if pend is not None else getattr(places[rp.id], "uncertainty_mm", None)
        if sigma is not None and math.isfinite(sigma):  # §13 the camera's doubt, for borderline contacts
            spec["uncertainty_mm"] = round(float(sigma), 2)
        specs.append(spec)
    try:
        pos = position_from_dict({"system": "dbx", "pieces": specs,
                                  "scale": {"mm_per_pace": template.scale.mm_per_pace, "bb_mm": template.scale.bb_mm},
                                  "table": {"width_mm": template.width_mm, "depth_mm": template.depth_mm}},
                                 "the camera's table")
    except InputError as exc:
        notes.append(str(exc))
        pos = template
    return replace(template, pieces=pos.pieces), notes


def adopt_element_state(st: dict, before, after) -> dict:
    """An element's state the camera cannot see (`st`, changed in place and returned) after a resolution took it
    from `before` to `after` (DbxPiece): the live session's and the recorder's one way to take the engine's state."""
    for k in STATE_KEYS:
        if not hasattr(after, k):  # e.g. a dragoon's mode: read into its type, kept as it was
            continue
        v = getattr(after, k)
        if v not in (None, "", 0, False):
            st[k] = v
        else:
            st.pop(k, None)
    if after.type != before.type:  # §5.10 Li <-> Jäger: the element changes its type, the base stays
        st["type"] = after.type
    return st


def dbx_turn(template, sides) -> tuple[int, str]:
    """The bound and the active side a DBX game starts with: the position file's, else the roster's first side."""
    g = template.game
    return max(1, g.bound), g.active if g.active in sides else (sides[0] if sides else "")


def keep_dbx_event(kept: dict, e) -> None:
    """What a DBX record's history comes to, brought up to date with one more event (an undone one changes
    nothing): each element's state the last resolution gave it (`states`), the engine's game state the last one
    kept (`game`) and the side the last turn event made active (`active`)."""
    if e.undone:
        return
    if e.type == "combat":
        states = kept.setdefault("states", {})
        for pid, st in (e.data.get("states") or {}).items():
            states[pid] = dict(st)
        if isinstance(e.data.get("game"), dict):
            kept["game"] = e.data["game"]
    elif e.type == "turn" and e.data.get("active"):
        kept["active"] = str(e.data["active"])


def dbx_game_kept(meta, kept: Mapping) -> tuple[Any, dict[str, dict], str | None]:
    """The DBX game after a record's events, from what `keep_dbx_event` made of them: (the template position
    without elements, each element's state the camera cannot see, the active side a turn event named or None)."""
    start = meta.get("game")
    game_dict = kept.get("game")
    states = copy.deepcopy(meta.get("piece_states") or {})
    states.update((pid, dict(st)) for pid, st in (kept.get("states") or {}).items())
    active = kept.get("active")
    if start:
        data = {**start, "pieces": []}
        if game_dict is not None:
            data["game"] = game_dict
        template = position_from_dict(data, "the record's DBX game")
    else:  # a record made before DBX combats were recorded: the table's size, nothing else
        lay = meta.get("layout") or {}
        template = empty_template(float(lay.get("width_mm") or 600.0), float(lay.get("depth_mm") or 600.0))
        if game_dict is not None:
            template = position_from_dict({**position_to_dict(template), "game": game_dict}, "the record's DBX game")
    return template, states, active


def _winner(outcome: dict, attacker: str, target: str | None, action: str) -> str | None:
    loser = outcome.get("loser")
    if loser and loser == attacker:
        return "defender"
    if loser and loser == target:
        return "attacker"
    return "draw" if action in ("fire", "melee") else None


def placed_within(pose, change) -> bool:
    """Whether an element seen at `pose` stands where a pending move wants it: within SETTLE_MM and SETTLE_DEG."""
    dh = abs((pose.heading_deg - change.heading_deg + 180.0) % 360.0 - 180.0)
    return math.hypot(pose.x_mm - change.x_mm, pose.y_mm - change.y_mm) <= SETTLE_MM and dh <= SETTLE_DEG


def contacts_of(pos, pid: str, opts) -> list[str]:
    """Every enemy contact of an element as "other kind" (the type as the element sees the edge it touches)."""
    p = pos.piece(pid)
    out = []
    for q in pos.pieces:
        if q.id == pid or q.side == p.side:
            continue
        c = contact(pos, p, q, opts)
        if c.kind:
            out.append(f"{q.id} {c.kind}{'' if c.valid or c.kind in ('corner', 'overlap') else ' (not valid)'}"
                       f"{' (contact uncertain)' if c.uncertain else ''}")
        elif c.uncertain:  # §13 apart as measured, touching within the measuring uncertainty
            out.append(f"{q.id} apart (contact uncertain)")
    return out


class DbxLive(LiveRules):
    """Elements stand where the camera measured them; resolutions change element states and the game (losses,
    river, weather) at once and move or remove elements through pending changes.

    `template` is this session's position without elements (terrain, scale, table and the game state), from the
    set-up's `game`; a resolution replaces its game with the engine's after. (A replay makes one without a set-up,
    for its `picture` only.)"""

    legend = DBX_LEGEND

    def dice_wanted(self, s, action, attacker, target):
        """A throw's dice by action (`THROWS`); a river crossing (§5.9) rolls one or two dice as the river is or is
        not yet known: as many as are thrown; the other actions roll none."""
        if action == "river":
            return None
        return self.THROWS.get(action, ())

    inputs = (DBX_DICE,)
    THROWS = {"fire": ("shooting element", "target"),  # §8.2 each side rolls 1D6, the acting element first
              "melee": ("attacker", "defender")}  # §8.4 likewise
    noun = "element"
    target_headers = ("target", "contact", "paces", "action", "fire", "net", "melee", "net", "sight", "note")
    state_headers = ("element", "side", "type", "x, y mm", "heading", "quality", "bases", "square", "seen",
                     "waiting for")
    target_hint = ("fire: the target (the nearest in the fire zone, §6.11); melee: the element in contact; turn: the "
                   "element contacted in flank or rear turns to face the attacker (§3.5)")

    # ---- what a roster holds, and a new table (rules/live.py)

    roster_types = (*(c for c in UNIT_TYPES if c not in ("DrI", "DrK")), "Dr", *ALIASES, *ROSTER_TYPES)
    type_noun = "DBX element code (§2.1) or word"
    table_mm = (600.0, 600.0)  # digest §1: the standard game's board, 60 x 60 cm
    default_sides = ("blue", "red")

    @classmethod
    def piece_kinds(cls):
        """Every §2.1 element on its base at the default scale (§3.1): 40 mm wide, its type's depth (dragoons as
        the cavalry of after 1720, 3 cm); the general 20 x 40 mm turned through 90 degrees (§2.2)."""
        bb = Scale().bb_mm
        kinds = []
        for code, ut in UNIT_TYPES.items():
            if code in ("DrI", "Camp"):
                continue
            name = "Dr" if code == "DrK" else code
            base = (bb / 2.0, bb) if code == "Gen" else (bb, ut.depth_cm * 10.0 * bb / 40.0)
            kinds.append(PieceKind(name, _ascii(name), base))
        for alias, code in ALIASES.items():
            normal = next(k for k in kinds if k.type == code)
            kinds.append(PieceKind(alias, _ascii(alias), normal.base_mm))
        return tuple(kinds)

    @classmethod
    def armies(cls):
        """The §9.7 army lists, each as one army the list allows (rules/dbx/lists.py `composition`: 12 elements)
        and its general; named GROUP/NAME (`napoleonic/Preussen`)."""
        out = []
        for a in army_lists():
            elements = composition(a)
            if elements is None:
                continue
            name = a.name.split(" (")[0]
            title = ", ".join(f"{n} {c}" for c, n in elements) + " and the general (§9.7)"
            out.append(ArmyList(f"{a.group}/{name}", f"{a.name}: {title}", (("Gen", 1), *elements)))
        return tuple(out)

    @classmethod
    def deployment(cls, width_mm, depth_mm, sides):
        """§4.1: each side within 600 paces of its base edge, none within 300 paces of the side edges (at the
        default scale, §3.1); the first side's base edge the south one, the second's the north one."""
        sides = list(sides)
        if len(sides) != 2:
            return super().deployment(width_mm, depth_mm, sides)
        scale = Scale()
        deep, clear = scale.mm(DEPLOY_DEPTH), scale.mm(SIDE_EDGE_CLEAR)
        return (Zone(sides[0], clear, 0.0, width_mm - clear, deep, 0.0),
                Zone(sides[1], clear, depth_mm - deep, width_mm - clear, depth_mm, 180.0))

    @classmethod
    def position_places(cls, position, table):
        """Each element of a DBX position where the file puts it."""
        return tuple(DemoPiece(p.id, p.x_mm, p.y_mm, p.heading_deg) for p in position.pieces)

    def __init__(self, system, setup) -> None:
        super().__init__(system, setup)
        self.template = getattr(setup, "game", None)

    # ---- the set-up

    @classmethod
    def demo(cls, board=None) -> DemoTable:
        """The DBX demo table (rules/dbx/demo.py)."""
        return demo_table(board)

    @classmethod
    def start_from(cls, system, position, terrain=(), table=None) -> Start:
        """The template position (`Setup.game`: terrain, scale, table and game state; the camera places the
        elements): the position file's (or the demo's) without its elements, else an empty table of the layout's
        size; each element's state the camera cannot see from the file (its STATE_KEYS and its type)."""
        if position is None:
            return Start(game=empty_template(table.width_mm, table.depth_mm))
        states = {}
        for p in position.pieces:
            d = piece_to_dict(p)
            st = {k: d[k] for k in STATE_KEYS if k in d}
            st["type"] = d["type"]
            states[p.id] = st
        return Start(states=states, game=position.with_pieces(()))

    @classmethod
    def setup_roster(cls, system, roster, tables, start, source) -> dict:
        """A roster none of whose types is an element code or a known word (and no position file naming them) is
        not a DBX roster."""
        bad = [rp.id for rp in roster.pieces if rp.id not in start.states and system.piece_type(rp.type) is None]
        if bad and len(bad) == len(roster.pieces):
            raise InputError(f"{source}: no roster type is a DBX element code or a known word "
                             f"(e.g. {roster.pieces[0].type!r}); use §2.1 codes such as Li, Kü, Art, Gen")
        return {}

    # ---- start and readings

    def start(self, s) -> None:
        if self.template is None:
            raise InputError("a DBX session needs a set-up with its template position (fieldglass load_setup)")
        s.state.turn, s.state.active = dbx_turn(self.template, s.sides)

    def position(self, s) -> tuple[Any, list[str]]:
        return dbx_position(s.committed_places(), s.roster, s.system, s.state,
                            at_bound(self.template, s.state.turn, s.state.active))

    def placed_as(self, s, pose, change) -> bool:
        return placed_within(pose, change)

    # ---- the game state

    def check_state(self, s, pid, key, value):
        """The game panel's columns as DBX keys (formation = quality, markers = square); an element is one base.
        The adapter reads the value under the column's own key first: the markers column as it shows it
        ("square 2"), a number, or nothing (cleared)."""
        if key == "bases":
            raise InputError("a DBX element is one base")
        pid, key, value = super().check_state(s, pid, key, value)
        return pid, STATE_WORDS.get(key, key), value

    def apply(self, s, outcome) -> list[PendingChange]:
        """The engine's position after: element states and the game (losses) at once; recoils, flights, pursuits,
        turns and destroyed elements become pending until the camera sees the table match."""
        before, after = outcome.resolution.before, outcome.after
        text: dict[str, list[str]] = {}
        for c in outcome.changes:
            text.setdefault(c["piece"], []).append(c.get("text", c.get("change", "")))
        pending: list[PendingChange] = []
        for p in before.pieces:
            q = after.by_id.get(p.id)
            why = tuple(text.get(p.id, ()))
            if q is None:
                s.state.removed.add(p.id)
                ch = PoseChange(p.id, removed=True, why=why, text="; ".join(why))
            else:
                adopt_element_state(s.state.states.setdefault(p.id, {}), p, q)
                if math.hypot(q.x_mm - p.x_mm, q.y_mm - p.y_mm) < 0.05 and \
                        abs((q.heading_deg - p.heading_deg + 180) % 360 - 180) < 0.05:
                    continue
                ch = PoseChange(p.id, why=why, x_mm=q.x_mm, y_mm=q.y_mm, heading_deg=q.heading_deg,
                                text="; ".join(why))
            s.state.pending[p.id] = ch
            pending.append(ch)
        for q in after.pieces:  # §5.10 the second Jäger: a new base the roster does not know yet
            if q.id not in before.by_id:
                s.log(f"place a new {q.type} element {q.id} at {q.x_mm:.0f},{q.y_mm:.0f} mm "
                      "(add it to the roster to track it)")
        self.template = replace(self.template, game=after.game)
        res = outcome.resolution
        s.log(f"{res.action}: {'; '.join(outcome.lines[1:3])}")
        return pending

    # ---- text

    def title(self, s) -> str | None:
        pid = s.selected
        if pid is None:
            return None
        if not s.in_position(pid):
            return f"{pid}: not on the table now (not seen, or removed)"
        p = s.position.piece(pid)
        sel = s.selection_overlay()
        if sel is None:
            return f"<b>{p.id}</b>"
        n = sum(1 for ln in sel.lines if ln.kind in ("fire", "melee"))
        a = sel.analysis
        return (f"<b>{p.id}</b> {p.side} {p.ut.name}{' ' + p.quality if p.quality else ''} at {p.x_mm:.0f},"
                f"{p.y_mm:.0f} mm facing {p.heading_deg:.0f}°: {a['going']} going, moves {sel.allowance_paces} p, "
                f"{'fires ' + str(sel.fire_range_paces) + ' p' if a['can_shoot'] else 'does not shoot'}; "
                f"{n} target(s) it may fire at or fight; {len(sel.contacts)} contact(s)")

    def describe(self, s) -> list[str]:
        """Every element with where it stands and its contacts, then the selection."""
        pos = s.position
        lines = [f"  bound {s.state.turn} ({s.state.active} active), scale {pos.scale.mm_per_pace} mm/pace, "
                 f"BB {pos.scale.bb_mm:g} mm, terrain: {', '.join(f'{t.id} {t.type}' for t in pos.terrain) or 'none'}",
                 f"  {'element':<9}{'side':<6}{'type':<7}{'x,y mm':<14}{'facing':<8}{'status':<10}contacts"]
        for v in s.piece_views():
            e = pos.by_id.get(v.piece.id)
            where = f"{e.x_mm:.1f},{e.y_mm:.1f}" if e else "-"
            fac = f"{round(e.heading_deg) % 360}°" if e else "-"
            con = ", ".join(contacts_of(pos, e.id, s.system.opts)) if e else ""
            lines.append(f"  {v.piece.id:<9}{v.piece.side:<6}{(v.type or '?'):<7}{where:<14}{fac:<8}{v.status:<10}"
                         f"{con or '-'}")
        for n in s.notes:
            lines.append(f"  note: {n}")
        sel = s.selection_overlay()
        if sel is not None:
            p = pos.piece(sel.piece)
            a = sel.analysis
            lines.append(f"selected {p.id} ({p.ut.name}, {a['going']} going): moves {sel.allowance_paces} paces "
                         f"({sel.allowance_reason}), fire range {sel.fire_range_paces} paces ({sel.fire_reason})")
            if sel.zoc_of:
                lines.append(f"  stands in the zone of control of {', '.join(sel.zoc_of)}")
            for c in sel.contacts:
                who = f"{c.by} touches" if c.by != p.id else "touches"
                legal = c.valid or c.kind in ("corner", "overlap", "apart")
                lines.append(f"  contact {c.piece:<6}{c.kind:<8}{who} the {c.edge or '?'} edge"
                             f"{'' if legal else ' (not a legal contact)'}"
                             f"{'; contact uncertain, confirm it (§13)' if c.uncertain else ''}")
            for t in s.targets():
                if t.fire or t.melee:
                    net = t.fire_net if t.fire else t.melee_net
                    lines.append(f"  -> {t.target:<6}{t.distance:>5} p  {t.weapon:<12} net {net:+d}  {t.field}")
                else:
                    lines.append(f"  .  {t.target:<6}{t.distance:>5} p  {t.field:<8} {t.note[:80]}")
        return lines

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        return picture(scene, s.system.opts)

    # ---- the game record

    def record_meta(self, meta: dict) -> dict:
        """The starting position without its elements (`game`) and each element's state from the set-up."""
        game = position_to_dict(self.template.with_pieces(()))
        game.pop("pieces", None)
        meta["game"] = game
        meta["piece_states"] = {pid: dict(st) for pid, st in getattr(self.setup, "initial_states", {}).items()}
        return meta

    def keep(self, s, kept: dict, event) -> None:
        keep_dbx_event(kept, event)

    def restore(self, s) -> None:
        """The template and each element's state after the record's resolutions; the bound the record names (else
        the starting position's), the side its last turn event made active (else the starting position's)."""
        template, states, active = dbx_game_kept(s.meta, s.kept)
        turn, first = dbx_turn(template, s.sides)
        if s.record_state.turn:
            turn = max(1, s.record_state.turn)
        self.template = template
        s.state.turn, s.state.active, s.state.states = turn, active or first, states

    def record_combat(self, s, inp: dict) -> dict:
        """Resolve a DBX action with the engine (given dice, or a seed: stored) on the recorded position; the event
        keeps the engine's resolution, the new element states and the game after."""
        pos = s.position
        frame = inp.get("frame")
        action = inp.get("action", "fire")
        attacker, target = inp.get("attacker"), inp.get("target")
        if not isinstance(attacker, str) or attacker not in pos.by_id:
            raise InputError(f"combat at frame {frame}: {attacker!r} is not an element on the table")
        if target is not None and target not in pos.by_id:
            raise InputError(f"combat at frame {frame}: {target!r} is not an element on the table")
        dice = input_dice(inp)
        supporters = list(inp.get("supporters", []))
        outcome = s.system.resolve(pos, action, attacker, target, dice=dice, seed=inp.get("seed"),
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
        states = s.state.states
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
        return data


def _ascii(code: str) -> str:
    """An element code as a piece id's prefix: "Kü" -> "ku"."""
    return code.lower().replace("ä", "a").replace("ü", "u").replace("ö", "o")
