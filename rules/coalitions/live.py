"""Coalitions' part of the live session (rules/live.py): General pawns located on the map's Territories like
Marengo's blocks on areas.

The session registers the map as a printed board (rules/coalitions/board.py: the demo map's cells, or a board file
whose area ids are the map's Territory ids) and locates a table point on it (`s.locate`). A roster piece is a
General pawn (its `side` a Power, name or short code; its `type` "general" or a special General's name, §8.9) or
one of the markers rules/coalitions/camera.py reads (token faces, Fortresses, control markers, track markers, status
discs, the Wheel's dial, §13.1). `coalitions_position` places every pawn in the Territory its marker lies in (on a
border or in an Impassable Territory it is left out with a note, not guessed; a pawn not on the map is off-map) and
sets what the markers show: it is the one placement of Coalitions, used live, by the recorder and by the replay.
What the camera cannot see (Money, cards, the Troops under each pawn (§13.2), the Generals not in the roster, and
whatever has no marker on the table) is the game: the engine's position, replaced by the position after each
resolution the players apply. The moves a resolution orders wait as `GeneralMove`s until the map shows them, the
markers it changes as `expected` values (`merge_markers`).

The only hidden information is the secret choices made before their reveal (§9.3 statuses, §9.6 bids), sealed per
Power in the position (`State.secrets`): each Power's player view (`viewers`) shows its own and only that the others
made theirs; cards are entered when played.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from common.errors import InputError
from rules.board import board_to_toml
from rules.board_picture import on_table
from rules.coalitions import panels as coalitions_panels
from rules.coalitions import turn
from rules.coalitions.board import map_point
from rules.coalitions.camera import MARKER_KINDS, TOKEN_FACES, MarkerReading, marker_kind, read_markers
from rules.coalitions.demo import data_path
from rules.coalitions.demo import demo as demo_table
from rules.coalitions.model import (
    ABBR,
    ACTIONS,
    POWERS,
    SIDES,
    SPECIALS,
    SYSTEM,
    CoalitionsPosition,
    General,
    freeze,
    position_from_dict,
    position_to_dict,
)
from rules.live import ActionInput, DemoTable, GameState, LiveRules, PendingChange, Start, in_play
from rules.picture import (
    AREA_PRIORITY,
    NOTE_PRIORITY,
    Area,
    Dot,
    Item,
    Label,
    LegendEntry,
    Scene,
    ScenePiece,
    abbreviation,
    base_items,
    marks,
    pending_items,
    points,
    sample_area,
)

CHOICES = ActionInput("choices", "choices", "choices",
                      "cards.GEN=4,4 support.GEN=defender agree=yes to.GEN=T ... (as for fieldglass resolve --choice)")
POWER_CODES = {code: power for power, code in ABBR.items()}


def power_of(side: str) -> str | None:
    """The Power a roster side names (its name or short code, any case), None when it names none."""
    s = side.strip().lower()
    return s if s in POWERS else POWER_CODES.get(s)


@dataclass
class GeneralMove(PendingChange):
    """A General the rules moved (`at` a Territory, None: off-map beside the board), shown until the camera sees it."""

    at: str | None = None

    def describe(self) -> str:
        return f"move {self.piece} to {self.at}" if self.at else f"take {self.piece} off the map (beside the board)"


def empty_game(source: str = "dashboard") -> CoalitionsPosition:
    """The game a session starts from without a position file: the demo map, round 1, no Generals but the camera's."""
    return position_from_dict({"system": SYSTEM, "board": "demo"}, source)


def coalitions_position(places, roster, system, state: GameState, game: CoalitionsPosition, locate, board=None,
                        rotation_deg: float = 0.0, tokens: dict[str, str] | None = None, fresh=None,
                        expected: dict | None = None):
    """The engine's position from where each pawn and marker stands: the one placement of Coalitions, used live, by
    the recorder and by the replay. `places`: piece id -> anything with x_mm, y_mm (and heading_deg); `locate(x, y)`
    names the area there; `state` holds each pawn's Power and Troops (the camera cannot count them, §13.2), the
    moves the rules ordered (pending until the map shows them: the pawn counts where the rules put it); `game` the
    rest. A roster pawn not on the map is off-map (§2.2); one on a border or in an Impassable Territory is not
    guessed: it stays where the game has it, with a note; Generals of the game that no roster pawn stands for keep
    the game's place.

    The roster's other markers (rules/coalitions/camera.py, read on `board` turned by `rotation_deg`; `tokens` piece
    id -> its token) set what they show (`merge_markers`; `expected` what the rules changed, waiting for the map). A
    token shows one face: when the markers of several of its faces have places, the one seen last wins
    (`fresh(piece id)`: when it was last seen, any increasing number; the face turned down is only not seen any
    more, its last place kept by the tracker); seen together: not read, with a note.
    Returns (position, notes, placements, markers)."""
    s = game.draft()
    placements, notes = {}, []
    marks = [(rp, marker_kind(rp.type), power_of(rp.side)) for rp in roster.pieces if marker_kind(rp.type)]
    pawns = [rp for rp in roster.pieces if not marker_kind(rp.type)]
    playing, bad = in_play(pawns, state, system, "a General (general, napoleon, wellington, ...)")
    notes += bad
    for rp, st, typ, pend in playing:
        power = st.get("power") or power_of(rp.side)
        if power is None:
            notes.append(f"{rp.id}: side {rp.side!r} is no Power ({' '.join(POWERS)}) - not placed")
            continue
        at = None
        if pend is not None:
            at = pend.at
        elif rp.id in places:
            pl = locate(places[rp.id].x_mm, places[rp.id].y_mm)
            placements[rp.id] = pl
            at, why = _territory_at(s.europe, pl)
            if at is None:
                kept = s.generals[rp.id].at if rp.id in s.generals else None
                notes.append(f"{rp.id}: {why} - not placed (kept where the game has it: {kept or 'off-map'})")
                continue
        troops = int(st.get("troops", 0)) if at else 0
        special = None if typ == "general" else typ
        was = game.state.generals.get(rp.id)
        if was is not None and at is not None and was.at is not None and was.troops != troops:
            notes.append(f"{rp.id}: {troops} Troops set by hand, the history of purchases and losses says "
                         f"{was.troops} (§13.2)")
        s.generals[rp.id] = General(rp.id, power, at, troops, special)
    reading = MarkerReading()
    if marks and board is not None:
        shown, more = one_face(places, tokens or {}, fresh or (lambda pid: 0.0))
        notes += more
        reading = read_markers(marks, shown, locate, board, s.europe.territories, rotation_deg, tokens)
        notes += reading.notes + merge_markers(s, reading, expected)
    return freeze(s), notes, placements, reading


def one_face(places, tokens: dict[str, str], fresh) -> tuple[dict, list[str]]:
    """`places` without the faces a token does not show (see `coalitions_position`), and a note per token left
    unread."""
    by_token: dict[str, list[str]] = {}
    for pid, token in tokens.items():
        if pid in places:
            by_token.setdefault(token, []).append(pid)
    out, notes = dict(places), []
    for token, faces in sorted(by_token.items()):
        if len(faces) < 2:
            continue
        last = max(fresh(f) for f in faces)
        now = [f for f in faces if fresh(f) == last]
        for f in faces:
            if f not in now or len(now) > 1:
                out.pop(f, None)
        if len(now) != 1:
            notes.append(f"token {token}: faces {', '.join(sorted(faces))} all on the table - not read")
    return out, notes


def merge_markers(s, reading: MarkerReading, expected: dict[tuple[str, str], Any] | None = None) -> list[str]:
    """Set in the draft state `s` what the markers show (the table is the game, §13.3 step 6): every Garrison once
    a token is on the table, every Fortress once a Fortress is, each Power's track and status whose marker was read,
    the action turn the Wheel's dial shows. What the rules changed last (`expected`, `marker_changes`) waits for the
    map like a pawn's move: until the camera shows it the rules' value counts (with a note); once it does it is
    dropped from `expected`. Control markers and fanned Troops (§13.2) are checked against the rules (control
    from Garrisons and Homes, §3.2; Troops from the history of purchases and losses): a difference is a note.
    Returns the notes."""
    notes: list[str] = []
    seen = _seen_values(s, reading)
    expected = expected if expected is not None else {}
    for key in expected:  # a Garrison or Fortress the rules placed where the table shows none yet
        if key not in seen and (key[0] == "garrison" and reading.kinds & set(TOKEN_FACES)
                                or key[0] == "fortress" and "fortress" in reading.kinds):
            seen[key] = None if key[0] == "garrison" else False
    for key, value in seen.items():
        if key in expected and expected[key] != value:
            notes.append(f"waiting for the map: {_say(key, expected[key])} (the table shows {_say(key, value)})")
            value = expected[key]
        else:
            expected.pop(key, None)
        _set(s, key, value)
    if reading.board_side is not None and reading.board_side != s.side:
        notes.append(f"the table shows the {reading.board_side} side of the board, the game is on the {s.side} side "
                     "(§3.2): start from that side's board and position")
    for tid, power in sorted(reading.control.items()):
        if s.controller(tid) != power:
            notes.append(f"control marker on {tid} says {power}, the rules say {s.controller(tid) or 'nobody'} "
                         "(§3.2: the Garrison's Power, else the Home's)")
    for tid, fan in sorted(reading.fans.items()):
        for power, n in sorted(fan.items()):
            gens = [g for g in s.generals_at(tid) if g.power == power]
            if len(gens) == 1 and gens[0].troops != n:
                notes.append(f"{gens[0].id}: {n} Troops fanned beside it, the history says {gens[0].troops} "
                             "(§13.2: set its troops if the table is right)")
    return notes


def _seen_values(s, reading: MarkerReading) -> dict[tuple[str, str], Any]:
    """Each value the markers show, by key (kind, name): ("garrison", T) a Power or None, ("fortress", T),
    ("morale", P), ("influence", P), ("status", P), ("turn", "")."""
    out: dict[tuple[str, str], Any] = {}
    if reading.kinds & set(TOKEN_FACES):
        for tid in set(s.garrisons) | set(reading.garrisons):
            out[("garrison", tid)] = reading.garrisons.get(tid)
    if "fortress" in reading.kinds:
        for tid in set(s.fortresses) | set(reading.fortresses):
            out[("fortress", tid)] = tid in reading.fortresses
    for track, by in reading.tracks.items():
        out.update({(track, p): v for p, v in by.items()})
    out.update({("status", p): v for p, v in reading.statuses.items()})
    if reading.wheel_turn is not None:
        out[("turn", "")] = reading.wheel_turn
    return out


def marker_changes(before, after) -> dict[tuple[str, str], Any]:
    """What a resolution changed that markers show (the keys of `_seen_values`), with the value after: the states
    `before` and `after` (rules/coalitions/model.py State)."""
    out: dict[tuple[str, str], Any] = {}
    for tid in set(before.garrisons) | set(after.garrisons):
        if before.garrisons.get(tid) != after.garrisons.get(tid):
            out[("garrison", tid)] = after.garrisons.get(tid)
    for tid in before.fortresses ^ after.fortresses:
        out[("fortress", tid)] = tid in after.fortresses
    for track in ("morale", "influence"):
        b, a = getattr(before, track), getattr(after, track)
        out.update({(track, p): a.get(p, 0) for p in POWERS if a.get(p, 0) != b.get(p, 0)})
    out.update({("status", p): v for p, v in after.statuses.items() if before.statuses.get(p) != v})
    if before.turn != after.turn:
        out[("turn", "")] = after.turn
    return out


def _set(s, key: tuple[str, str], value: Any) -> None:
    kind, name = key
    if kind == "garrison":
        if value is None:
            s.garrisons.pop(name, None)
        else:
            s.garrisons[name] = value
    elif kind == "fortress":
        (s.fortresses.add if value else s.fortresses.discard)(name)
    elif kind in ("morale", "influence"):
        getattr(s, kind)[name] = value
    elif kind == "status":
        s.statuses[name] = value
    else:
        s.turn = value


def _say(key: tuple[str, str], value: Any) -> str:
    kind, name = key
    if kind == "garrison":
        return f"{value} Garrison on {name}" if value else f"no Garrison on {name}"
    if kind == "fortress":
        return f"{'a' if value else 'no'} Fortress on {name}"
    if kind == "turn":
        return f"the Wheel at action turn {value}"
    return f"{name}'s {kind} {value}"


def _fresh(s):
    """When a piece was last seen: live, its track's time (seconds); in a record, 1 on the table, 0 missing."""
    tracker = getattr(s, "tracker", None)
    if tracker is not None:
        def seen_at(pid: str) -> float:
            t = tracker.tracks[pid].last_seen_t if pid in tracker.tracks else None
            return -1.0 if t is None else float(t)
        return seen_at
    rs = getattr(s, "record_state", None)
    if rs is not None:
        return lambda pid: 1.0 if pid in rs.pieces and rs.pieces[pid].status == "on" else 0.0
    return None


def marker_lines(st, reading: MarkerReading) -> list[str]:
    """What the markers show, as the headless printout says it: the dial, the tracks, the statuses, the Garrisons."""
    out = []
    if reading.wheel_turn is not None:
        turned = round(reading.wheel_deg or 0.0) % 360
        out.append(f"  the Wheel's dial shows action turn {reading.wheel_turn} (turned {turned} degrees)")
    for track, by in sorted(reading.tracks.items()):
        out.append(f"  {track}: " + ", ".join(f"{p} {v}" for p, v in sorted(by.items())))
    if reading.statuses:
        out.append("  status discs: " + ", ".join(f"{p} {v}" for p, v in sorted(reading.statuses.items())))
    if reading.kinds & set(TOKEN_FACES):
        out.append("  Garrisons: " + (", ".join(f"{t} {p}" for t, p in sorted(st.garrisons.items())) or "none"))
    return out


def _territory_at(europe, placement) -> tuple[str | None, str]:
    if placement.area is None or placement.on_border:
        return None, placement.note or "not in a Territory"
    if placement.area not in europe.territories:
        return None, f"area {placement.area} is no Territory of the map"
    if europe.territories[placement.area].kind == "impassable":
        return None, f"{placement.area} is Impassable (§3.2)"
    return placement.area, ""


STATE_WORDS = {"formation": "troops"}
"""The game panel's generic column as a Coalitions key: its formation column is the troops column
(`CoalitionsLive.state_headers`), the Troops under a pawn the camera cannot count (§13.2)."""


class CoalitionsLive(LiveRules):
    """General pawns located on the map's Territories; the engine's resolutions replace the game and move pawns
    through pending `GeneralMove`s."""

    inputs = (CHOICES,)
    noun = "General"
    roster_keys = ("token",)  # the token a face marker of the roster belongs to (rules/coalitions/camera.py)
    roster_types = ("general", "pawn", "general_pawn", *SPECIALS, *MARKER_KINDS, "status_disc", "dial",
                    "wheel_of_war", "control_marker")  # a General pawn (§8.9 the special ones) or a marker's kind
    type_noun = "Coalitions General or marker kind"
    roster_sides = None  # a pawn's a Power, a board_side marker's a board side, the dial's none (`setup_roster`)
    viewers = POWERS
    viewer_titles = {p: f"{p} player (its own secret choices, §13.2)" for p in POWERS}
    target_headers = ("target", "territory", "steps", "move", "-", "-", "attack", "margin", "-", "note")
    state_headers = ("General", "Power", "type", "Territory", "facing", "troops", "bases", "markers", "seen",
                     "waiting for")
    target_hint = "a Territory (move, battle), a Minor (bid) or the Arbiter (start_movement)"

    def __init__(self, system, setup) -> None:
        super().__init__(system, setup)
        self.game: CoalitionsPosition | None = None
        self.placements: dict[str, Any] = {}
        self.markers = MarkerReading()
        self.expected: dict[tuple[str, str], Any] = {}
        self.tokens: dict[str, str] = dict(getattr(setup, "tokens", None) or {}) if setup is not None else {}

    # ---- the set-up

    @classmethod
    def demo(cls, board=None) -> DemoTable:
        return demo_table(board)

    @classmethod
    def starting_roster(cls):
        """A new table's pawns, tokens and markers: the demo's 1805 set (data/demo_generals.toml).
        Its start is the demo's position (`start_position`)."""
        return data_path("demo_generals.toml")

    @classmethod
    def start_from(cls, system, position, terrain=(), table=None) -> Start:
        """The position file's game (`Setup.game`): statuses, tracks, Troops, Garrisons, the other Generals."""
        return Start(game=position)

    @classmethod
    def setup_roster(cls, system, roster, tables, start, source) -> dict:
        """Every pawn's side a Power (or its short code) and its type a General; every other marker's type one of
        rules/coalitions/camera.py `MARKER_KINDS`, its side a Power (the dial and a Fortress: any). Keeps `tokens`:
        each Troop/Garrison face -> the token it is a face of (the roster key `token`, default its id)."""
        tokens: dict[str, str] = {}
        for rp in roster.pieces:
            kind = marker_kind(rp.type)
            if kind is None and system.piece_type(rp.type) is None:
                raise InputError(f"{source}: piece {rp.id!r}: type {rp.type!r} is no General (general, or a special "
                                 "General: napoleon, wellington, schwarzenberg, blucher, kutuzov, grand_vizier) nor "
                                 f"a marker ({' '.join(MARKER_KINDS)})")
            if kind == "board_side":
                if str(rp.side).strip().lower() not in SIDES:
                    raise InputError(f"{source}: piece {rp.id!r}: a board_side marker's side is the board side it is "
                                     f"printed on ({' '.join(SIDES)}), not {rp.side!r}")
                continue
            if kind not in ("wheel", "fortress") and power_of(rp.side) is None:
                raise InputError(f"{source}: piece {rp.id!r}: side {rp.side!r} is no Power (one of {' '.join(POWERS)}"
                                 f", or {' '.join(sorted(POWER_CODES))})")
            if kind in TOKEN_FACES:
                tokens[rp.id] = str((tables.get(rp.id) or {}).get("token") or rp.id)
        return {"tokens": tokens}

    # ---- start and readings

    def start(self, s) -> None:
        """The set-up's game (else `empty_game`); each pawn's Power and Troops from the game's General of its id."""
        self.game = getattr(self.setup, "game", None) or empty_game()
        st0 = self.game.state
        s.state.turn, s.state.active = st0.round, "britain"
        for rp in s.roster.pieces:
            if marker_kind(rp.type):
                continue
            st = s.state.states.setdefault(rp.id, {})
            g = st0.generals.get(rp.id)
            st.setdefault("type", (g.special or "general") if g is not None else s.system.piece_type(rp.type))
            st.setdefault("power", g.power if g is not None else power_of(rp.side))
            st.setdefault("troops", g.troops if g is not None else 0)

    def position(self, s):
        pose = getattr(s, "board_pose", None)
        pos, notes, self.placements, self.markers = coalitions_position(
            s.committed_places(), s.roster, s.system, s.state, self.game, s.locate, board=getattr(s, "board", None),
            rotation_deg=pose.rotation_deg if pose is not None else 0.0, tokens=self.tokens, fresh=_fresh(s),
            expected=self.expected)
        return pos, notes

    def placed_as(self, s, pose, change) -> bool:
        pl = s.locate(pose.x_mm, pose.y_mm)
        if change.at is None:
            return pl.area is None
        return pl.area == change.at and not pl.on_border

    # ---- the game state

    def check_state(self, s, pid: str, key: str, value: Any) -> tuple[str, str, Any]:
        """A pawn's Troops (the camera cannot count them, §13.2; the game panel's troops column, its generic
        formation column, typed as text) or Power."""
        if s.roster.piece(pid) is None:
            raise InputError(f"no General {pid!r} in the roster")
        key = STATE_WORDS.get(key, key)
        if key not in ("troops", "power"):
            raise InputError(f"a Coalitions General has no {key} (troops, power)")
        if key == "troops" and isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        return pid, key, s.system.check_state("", key, value)

    def look(self, s, view):
        """A pawn with its Troops in the game panel's troops column (the generic formation column)."""
        if "troops" not in view.state:
            return view
        return replace(view, state={**view.state, "formation": str(view.state["troops"])})

    def set_turn(self, s, turn_no: int, active: str | None) -> None:
        s.state.turn = max(1, int(turn_no))
        if active in POWERS:
            s.state.active = active

    def next_phase(self, s) -> None:
        """The action turn ends (engine: turn.end_turn, §4.1): the Wheel turns, or a new round begins."""
        res = turn.end_turn(s.position, self.system.opts)
        for ch in self._take(s, res.after, res.changes):
            s.log(f"waiting for the map: {ch.describe()}")
        for line in res.lines:
            s.log(line)

    @property
    def secrets(self) -> dict[str, dict[str, Any]]:
        """The secret choices sealed in the game (§9.3, §9.6: `State.secrets`, kept in its position file)."""
        return self.game.state.secrets if self.game is not None else {}

    def apply(self, s, outcome) -> list[PendingChange]:
        """Adopt the resolution's position. A secret choice (`choose`, §13.2) moves nothing: it is sealed in the game
        for its Power's view until the reveal (`declare` reveals the statuses, `bid` the bids for its Minor)."""
        res = outcome.resolution
        s.log(f"{res.action}: {outcome.lines[0] if outcome.lines else ''}")
        return self._take(s, res.after, res.changes)

    def _confirmed(self, s, after: CoalitionsPosition, changes=()) -> tuple[CoalitionsPosition, dict[str, Any]]:
        """`after` with every pawn the camera sees moved that the resolution did not move (`changes` name the
        Generals it changed) back where the game has it, and those pawns (id -> the game's Territory)."""
        involved = {ch.get("general") for ch in changes if isinstance(ch, dict)}
        unconfirmed = {gid: was for gid, (was, _) in self.seen_moves(s).items() if gid not in involved}
        if not unconfirmed:
            return after, unconfirmed
        d = after.draft()
        for gid, was in unconfirmed.items():
            if gid in d.generals:
                d.generals[gid].at = was
        return freeze(d), unconfirmed

    def _take(self, s, after: CoalitionsPosition, changes=()) -> list[PendingChange]:
        """Adopt the engine's position: the game now, each pawn's Troops; moves pending until the map matches. A
        pawn the camera sees moved that the resolution did not move (`changes` name the Generals it changed) keeps
        the game's place: a move is the game's once resolved (§13.3), not because another action was."""
        pending: list[PendingChange] = []
        after, unconfirmed = self._confirmed(s, after, changes)
        roster_ids = {rp.id for rp in s.roster.pieces}
        for gid, g in s.position.state.generals.items():
            q = after.state.generals.get(gid)
            if q is None or gid not in roster_ids:
                continue
            if gid in unconfirmed:  # still a move seen, to be confirmed: not one the rules ordered
                continue
            s.state.states.setdefault(gid, {}).update(troops=q.troops, power=q.power)
            if q.at != g.at:
                ch = GeneralMove(gid, at=q.at)
                s.state.pending[gid] = ch
                pending.append(ch)
        self.expected.update(marker_changes(s.position.state, after.state))
        self.game = after
        s.state.turn = after.state.round
        return pending

    # ---- what a viewer sees

    def title(self, s) -> str | None:
        sel = s.selected
        if sel is None:
            return None
        g = s.position.state.generals.get(sel)
        if g is None:
            return f"{sel}: not placed (on a border or not a General)"
        ov = s.selection_overlay()
        reach = f": may move to {', '.join(ov.moves)}" if ov is not None and ov.moves else ""
        return f"<b>{g.id}</b> {g.power} {g.special or 'General'}, {g.troops} Troops in {g.at or 'off-map'}{reach}"

    def describe(self, s) -> list[str]:
        """The round, every Power's action this turn, every pawn with where it stands."""
        pos = s.position
        st = pos.state
        lines = [f"  round {st.round}, turn {st.turn}: " + "; ".join(f"{p} {a}" for p, a in turn.schedule(st).items()),
                 f"  {'General':<10}{'Power':<9}{'troops':<8}{'at':<22}{'status':<10}"]
        for v in s.true_views():
            if marker_kind(v.piece.type):
                continue
            g = st.generals.get(v.piece.id)
            at = (g.at or "off-map") if g is not None else "not placed"
            lines.append(f"  {v.piece.id:<10}{g.power if g else '?':<9}{g.troops if g else '-'!s:<8}{at:<22}"
                         f"{v.status:<10}")
        lines += marker_lines(st, self.markers)
        lines += [f"  note: {n}" for n in s.notes]
        return lines

    def context(self, s) -> dict:
        """Where each pawn was located, and what the rules changed that the map does not show yet (`expected`)."""
        return {"placements": self.placements, "expected": dict(self.expected)}

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        return picture(scene, getattr(s, "board", None))

    def panels(self, s) -> tuple:
        """The Wheel and its actions this turn, tracks and treasury, statuses and Coalitions, battles triggered and
        their eligible supporters (rules/coalitions/panels.py)."""
        return coalitions_panels.panels(s.position, s.position.state.secrets, s.viewer, self.seen_moves(s),
                                        self.system.opts)

    def seen_moves(self, s) -> dict[str, tuple[str | None, str | None]]:
        """The roster's pawns the camera sees in another Territory than the game has them (no move of the rules
        pending): General id -> (the game's Territory, the seen one; None off-map), §13.3."""
        out = {}
        if self.game is None or s.position is None:
            return out
        for rp in s.roster.pieces:
            now, was = s.position.state.generals.get(rp.id), self.game.state.generals.get(rp.id)
            if now is not None and was is not None and now.at != was.at and rp.id not in s.state.pending:
                out[rp.id] = (was.at, now.at)
        return out

    @classmethod
    def report_terms(cls, meta, events):
        return coalitions_panels.report_terms(meta, events)

    def actors(self, s) -> tuple[str, ...]:
        """The Powers act themselves (start a movement, taxation, declare, bid...: §4, §9): the combat panel offers
        them besides the Generals; "any" acts for the whole table (the reveal of the statuses and bids, the end of an
        action turn)."""
        return (*POWERS, "any")

    # ---- the game record

    def record_meta(self, meta: dict) -> dict:
        """The starting game (the position file's form); the map's board as its TOML text."""
        board = getattr(self.setup, "board", None)
        if board is not None and (meta.get("board") or {}).get("demo"):
            meta["board"] = {"toml": board_to_toml(board), "name": board.name}
        game = getattr(self.setup, "game", None)
        if game is not None:
            meta["game"] = position_to_dict(game)
        if self.tokens:
            meta["tokens"] = dict(self.tokens)
        return meta

    @staticmethod
    def _record_start(s) -> CoalitionsPosition:
        """The record's starting game (its `game`, else an empty one)."""
        return position_from_dict(s.meta["game"], "the record's game") if s.meta.get("game") else \
            empty_game("the record")

    def keep(self, s, kept: dict, event) -> None:
        """Of a record's history: the engine's state the last event that made one kept, and what the rules changed
        that markers show, the latest value of each (every engine state against the one before)."""
        if not isinstance(event.data.get("engine"), dict):
            return
        before = kept.get("game") or self._record_start(s)
        after = position_from_dict(event.data["engine"], "the record's engine state")
        kept.setdefault("expected", {}).update(marker_changes(before.state, after.state))
        kept["game"] = after

    def restore(self, s) -> None:
        """The game at a recorded moment: the engine's state kept by the last event that made one, else the record's
        starting game; each pawn's Power and Troops from it. What the rules changed that markers show (every engine
        state against the one before, the latest value of each) counts over the camera's reading, with a note
        where the map does not show it (`merge_markers`)."""
        game = s.kept.get("game") or self._record_start(s)
        self.expected = dict(s.kept.get("expected") or {})
        self.game = game
        self.tokens = {str(k): str(v) for k, v in (s.meta.get("tokens") or {}).items()}
        state = GameState(turn=game.state.round, active="britain", removed=set(s.state.removed))
        for rp in s.roster.pieces:
            if marker_kind(rp.type):
                continue
            g = game.state.generals.get(rp.id)
            state.states[rp.id] = {"type": s.system.piece_type(rp.type), "power": power_of(rp.side),
                                   "troops": g.troops if g is not None else 0}
        s.state = state

    def record_start(self, s) -> None:
        """A record begun at the dashboard starts as it is: a turn input here ends the side's turn."""
        return None

    def record_turn(self, s, inp: dict) -> dict:
        """The action turn ends (engine: turn.end_turn), with the engine's state after; the record counts action
        turns from the game's start (six a round)."""
        res = turn.end_turn(s.position, self.system.opts)
        after = self._confirmed(s, res.after, res.changes)[0]
        q = after.state
        data = {"turn": (q.round - 1) * 6 + q.turn, "active": "britain", "phase": f"round {q.round}, turn {q.turn}",
                "lines": list(res.lines), "engine": position_to_dict(after)}
        if q.winner:
            data["game_winner"] = " and ".join(q.winner)
        return data

    def record_combat(self, s, inp: dict) -> dict:
        """An action resolved by the engine on the recorded position: its changes and the engine's state after."""
        pos = s.position
        frame = inp.get("frame")
        action, attacker, target = inp.get("action"), inp.get("attacker"), inp.get("target")
        if not isinstance(attacker, str) or not attacker:
            raise InputError(f"combat at frame {frame}: {attacker!r}: name the acting General(s) or Power")
        outcome = s.system.resolve(pos, action, attacker, target,
                                   choices={str(k): str(v) for k, v in (inp.get("choices") or {}).items()})
        changes = [{**ch, "piece": ch["general"]} if "general" in ch else dict(ch) for ch in outcome.changes]
        pieces = [p for p in attacker.split(",") if p in pos.by_id]
        data = {"action": action, "pieces": pieces, "target": target, "changes": changes, "lines": outcome.lines,
                "dice": [], "summary": outcome.lines[0] if outcome.lines else str(action),
                "engine": position_to_dict(self._confirmed(s, outcome.after, outcome.changes)[0])}
        winner = outcome.after.state.winner
        if winner:
            data["game_winner"] = " and ".join(winner)
        return data


# ---------------------------------------------------------------------------------------------- the picture

POWER_TONES = {"britain": "#d83a3a", "france": "#3a5fd8", "austria": "#f2f2f2", "prussia": "#303030",
               "russia": "#3a9a4a", "ottoman": "#f08a24"}
"""The Powers' colours (§1): Great Britain red, France blue, Austria white, Prussia black, Russia green, the
Ottoman Empire orange."""


def picture(scene: Scene, board) -> tuple[Item, ...]:
    """The map: each Territory filled in its controller's colour (§3.2; Impassable in red outline), its name; the
    selected General's Territory and where it may move; every pawn in its Power's colour with its Troops; the moves
    the rules ordered that the map does not show yet."""
    pos = scene.position
    if pos is None or board is None:
        return ()
    st = pos.state
    out: list[Item] = []
    for tid, area in board.areas.items():
        poly = (points(on_table(area.polygon, scene.to_table)),)
        terr = st.europe.territories.get(tid)
        if terr is None:
            out += _display_items(st, area, poly, scene) + _waiting_items(area, poly, scene)
            continue
        ctrl = st.controller(tid)
        tip = f"{terr.name}: {terr.kind}, value {terr.value}, controlled by {ctrl or 'nobody'}" + \
            (f", a {st.garrisons[tid]} Garrison" if tid in st.garrisons else "") + \
            (" with a Fortress" if tid in st.fortresses else "")
        tone = "impassable" if terr.kind == "impassable" else POWER_TONES.get(ctrl or "", "area")
        out.append(Area("coalitions-territory", poly, tone, 0.2 if ctrl else 0.0, width=1.0, edge_tone="area",
                        tip=tip, layer=3, data=(tid,)))
        at = on_table([area.centre], scene.to_table)[0]
        out.append(Label("coalitions-name", tuple(at), terr.name, "muted", 6.0, False, tip=terr.name, layer=5,
                         short=abbreviation(terr.name), priority=AREA_PRIORITY, align="centre", leader=False,
                         within=poly[0]))
        out += _waiting_items(area, poly, scene)
    sel = scene.selection
    if sel is not None:
        for tid in sel.moves:
            if tid in board.areas:
                out.append(Area("coalitions-reach", (points(on_table(board.areas[tid].polygon, scene.to_table)),),
                                "reach", 0.25, tip=f"{sel.piece} may move to {tid} (§5.3)", layer=4, data=(tid,)))
    for p in scene.pieces:
        out += _marker(p, scene) if marker_kind(p.roster_type) else _pawn(p, scene, board)
    return tuple(out)


def _marker(p: ScenePiece, scene: Scene) -> list[Item]:
    """A token, track marker, status disc, Fortress or the dial: a dot in its Power's colour with what it is."""
    if p.pose is None:
        return []
    kind = marker_kind(p.roster_type) or "marker"
    power = power_of(p.side) or ""
    tip = f"{p.label}: {power + ' ' if power else ''}{kind}"
    at = (p.pose[0], p.pose[1])
    return [Dot("coalitions-marker", at, POWER_TONES.get(power, "outline"), 4.0, tip=tip, layer=7, piece=p.id,
                z_mm=p.marker_height_mm)]


def _waiting_items(area, poly, scene: Scene) -> list[Item]:
    """A track space, status zone, the Wheel or a Territory where the rules want a marker the table does not show
    there yet (a track marker, a disc, the dial, a Garrison token or Fortress put on or taken off): outlined dashed,
    with what to do (like a pawn's pending move)."""
    expected = (scene.context or {}).get("expected", {}) if isinstance(scene.context, dict) else {}
    kind = area.attribute("kind")
    if ("garrison", area.id) in expected or ("fortress", area.id) in expected:  # a Territory
        what = []
        if ("garrison", area.id) in expected:
            power = expected[("garrison", area.id)]
            what.append(f"put a {power} Garrison token here" if power else "take the Garrison token off")
        if ("fortress", area.id) in expected:
            what.append("put a Fortress here" if expected[("fortress", area.id)] else "take the Fortress off")
        return [Area("coalitions-waiting", poly, "pending", 0.15, pen="dash", width=2.0,
                     tip=f"waiting for the map: {', '.join(what)}", layer=6, data=(area.id,))]
    want = [f"move {name}'s {k} marker here" for (k, name), v in expected.items()
            if (kind == "track" and k == area.attribute("track") and v == area.attribute("value"))
            or (kind == "status" and k == "status" and v == area.attribute("status"))]
    if kind == "wheel" and ("turn", "") in expected:
        want.append(f"turn the dial to action turn {expected[('turn', '')]}")
    if not want:
        return []
    return [Area("coalitions-waiting", poly, "pending", 0.15, pen="dash", width=2.0,
                 tip=f"waiting for the map: {', '.join(sorted(want))}", layer=6, data=(area.id,))]


def _display_items(st, area, poly, scene: Scene) -> list[Item]:
    """A track space, a status zone or the Wheel (rules/coalitions/camera.py areas) as the rules see it now: who
    stands on the space (§9.1), who has the status (§9.2), every Power's action this turn beside the Wheel (§4.2)."""
    kind = area.attribute("kind")
    if kind == "track":
        track, value = area.attribute("track"), area.attribute("value")
        who = [p for p in POWERS if getattr(st, track, {}).get(p, 0) == value]
        tip = f"{track} {value}: {', '.join(who) or 'nobody'}"
        return [Area("coalitions-track", poly, "area", 0.0, width=0.5, edge_tone="area", tip=tip, layer=3,
                     data=(area.id,))]
    if kind == "status":
        status = area.attribute("status")
        who = [p for p in POWERS if st.status(p) == status]
        at = on_table([area.centre], scene.to_table)[0]
        return [Area("coalitions-status", poly, "area", 0.0, width=1.0, edge_tone="area",
                     tip=f"{status}: {', '.join(who) or 'nobody'} (§9.2)", layer=3, data=(area.id,)),
                Label("coalitions-name", tuple(at), status, "muted", 6.0, False, tip=status, layer=5,
                      short=abbreviation(status), priority=AREA_PRIORITY + 1, align="centre", leader=False)]
    if kind == "wheel":
        plan = turn.schedule(st)
        at = on_table([area.centre], scene.to_table)[0]
        lines = [f"{a}: {', '.join(p for p in POWERS if plan[p] == a)}" for a in ACTIONS]
        out: list[Item] = [Area("coalitions-wheel", poly, "reach", 0.1, width=1.5, edge_tone="area",
                                tip=f"round {st.round}, action turn {st.turn}: " + "; ".join(lines) + " (§4.2)",
                                layer=3, data=(area.id,))]
        text = "\n".join([f"round {st.round}, turn {st.turn}", *lines])
        out.append(Label("coalitions-wheel-action", tuple(at), text, "text", 6.0, False, (36.0, -26.0),
                         tip=text.replace("\n", "; "), layer=5, priority=NOTE_PRIORITY,
                         short=f"round {st.round}, turn {st.turn}"))
        return out
    return []


def _pawn(p: ScenePiece, scene: Scene, board) -> list[Item]:
    if p.pose is None:
        return []
    st = scene.position.state
    g = st.generals.get(p.id)
    tone = POWER_TONES.get(g.power if g else "", f"side:{p.side_index}")
    tip = f"{p.label}: " + (f"{g.power} {g.special or 'General'}, {g.troops} Troops in {g.at or 'off-map'}" if g
                            else "not placed")
    label = f"{p.label} ({g.troops})" if g else f"{p.label} ?"
    out = [it for it in base_items(p, scene, "coalitions-pawn", tip, label, fill=0.7, pen_tone="outline")
           if it.kind != "facing"]  # a pawn faces nowhere (§3.5)
    out = [replace(it, tone=tone, layer=7, data=()) if isinstance(it, Area) else it for it in out]
    ch = p.pending
    if ch is not None and getattr(ch, "at", None) in board.areas:
        gx, gy = on_table([map_point(st.europe, ch.at)], scene.to_table)[0]
        out += [it for it in pending_items(p, scene, (gx, gy, 0.0), f"→ {ch.describe()}", ch.describe())
                if it.kind != "pending-move"]
    elif ch is not None:
        out += pending_items(p, scene, None, "off-map", ch.describe())
    return out


LEGEND = (
    LegendEntry("territory", "a Territory in its controller's colour; uncoloured: nobody's",
                (sample_area(POWER_TONES["britain"], 0.2, width=1.0),), marks("coalitions-territory")),
    LegendEntry("reach", "green Territories: where the selected General may move (§5.3)",
                (sample_area("reach", 0.25),), marks("coalitions-reach")),
    LegendEntry("waiting", "cyan dashed: a token or the dial the rules changed; set it on the table (hover: what)",
                (sample_area("pending", 0.15, "dash"),), marks("coalitions-waiting")),
    LegendEntry("marker", "a dot: a token, a status disc or a track marker, in its Power's colour",
                (Dot("sample", (22.0, 10.0), POWER_TONES["britain"], 4.0),), marks("coalitions-marker")),
    LegendEntry("pawn", "a General's pawn with its Troops in brackets: gb-1 (3)",
                (sample_area(POWER_TONES["britain"], 0.7, edge_tone="outline"),), marks("coalitions-pawn")),
)
"""What the Coalitions pictures draw besides the shared marks (rules.picture.LEGEND)."""
CoalitionsLive.legend = LEGEND  # (its tones are the pictures', defined after the class)


__all__ = ["LEGEND", "CoalitionsLive", "GeneralMove", "coalitions_position", "empty_game", "picture", "power_of"]
