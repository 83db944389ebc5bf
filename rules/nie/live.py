"""Napoleon in Europe's part of the live session (rules/live.py): figures on the strategic map, located to its regions
and sea areas like Marengo's blocks to areas, and on the battle board, located to the battle's zones.

The session (fieldglass/session.py) registers the map as a printed board (rules/nie/board.py: the demo map's cells,
or a board file whose area ids are the map's region and sea ids) and locates a table point on it (`s.locate`). Each
roster piece is one figure: its roster `type` word is a unit kind (rules/nie/model.py TYPE_WORDS), its `side` a Great
Nation (or a short code, `NATION_CODES`). `nie_position` places every figure in the area its marker point lies in
(a squadron in a port region is in its port, `port:REGION`; a land figure at sea or a figure on a border is left out
with a note, not guessed): it is the one placement of NiE, used live, by the recorder and by the replay. What the
camera cannot see (date, turn order, players, relations, PP and PAP, owners, uprisings, the figures that moved this
month, a battle) is the game: the engine's position without units, replaced by the position after each resolution
the players apply. The moves and removals a resolution orders wait as `FigureMove`s until the map shows them.

The battle board is the table's second surface (`surfaces`, §13.3: registered from its own anchors every frame, so it
may be moved): a figure standing on it is in the current battle's region, in the zone it is seen in (§3.3; in a
skirmish each row's zones read as one), an infantry figure in square when it is turned more than `square_turn_deg`
from facing the enemy (§13.1, §8.5). The camera's reading wins; a zone or formation the rules change (a move, a rout,
a rally, a square formed against a charge, leaving square) waits as a `FigureMove` until the figure stands so.

Nothing on the strategic map is hidden; each nation has a player view (`viewers`) in which, while a battle is set up
behind the screen (§4.2, §13.2), the other side's figures on the battle board are not shown at all; each side
confirms with the engine's `deploy` (the zones the camera sees), and once both have the screen is removed. What the
camera cannot see (§13.2: a unit's subtype, a light-blue figure's nation) is asked at set-up: such a figure is not
placed until the game panel binds it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from common.errors import InputError
from rules.board import board_to_toml
from rules.live import DICE, ActionInput, DemoTable, GameState, LiveRules, PendingChange, Start, in_play
from rules.nie import panels as nie_panels
from rules.nie import turn
from rules.nie.board import battle_board, skirmish_zone
from rules.nie.demo import data_path
from rules.nie.demo import demo as demo_table
from rules.nie.model import (
    INFANTRY,
    MINOR,
    NATIONS,
    NAVAL,
    SYSTEM,
    TYPE_WORDS,
    UNIT_TYPES,
    BattleUnit,
    NiePosition,
    Unit,
    parse_zone,
    position_from_dict,
    position_to_dict,
    with_changes,
)
from rules.nie.options import DEFAULT
from rules.nie.picture import LEGEND as NIE_LEGEND
from rules.nie.picture import BattleSurface, Threat, battle_items, picture, threat_items
from rules.picture import Item, Scene
from rules.system import UMPIRE

CHOICES = ActionInput("choices", "choices", "choices",
                      "path=R1,R2 route=SEA,SEA buy=inf:2 place=REGION ... (as for fieldglass resolve --choice)")

NATION_CODES = {"fr": "france", "gb": "britain", "pr": "prussia", "ru": "russia", "ot": "ottoman", "au": "austria",
                "sp": "spain", "es": "spain", "tr": "ottoman"}
"""Short roster sides for the nations, besides their names."""


LIGHT_BLUE = ("lightblue", "light-blue", "light blue", "light_blue")
"""Roster sides of light-blue figures, whose nation the camera cannot tell (§13.2: French allies in a historical game,
a resisting minor's army): asked at set-up (the game panel's `nation`)."""
ASKED_TYPES = ("?", "unknown", "")
"""Roster types that name no unit kind: the kind is asked at set-up (the game panel's `type`, §13.2)."""
IRREGULAR_NATIONS = ("russia", "ottoman")
"""The nations with irregular cavalry (§8.1, §9.5): their plain "cavalry" may be irregular, whose marker lies under
the figure (§13.2), so it is asked."""


def nation_of(side: str) -> str | None:
    """The Great Nation a roster side names (its name or short code, any case), None when it names none."""
    s = side.strip().lower()
    return s if s in NATIONS else NATION_CODES.get(s)


def light_blue(side: str) -> bool:
    return side.strip().lower() in LIGHT_BLUE


def asked_type(roster_type: str, nation: str | None) -> str | None:
    """Why the roster's type word does not decide the figure's unit kind (§13.2: the fiducial id is bound to a unit
    type at set-up), None when it does: no kind at all ("?", "unknown"), or a plain "cavalry" of a nation that
    fields irregular cavalry (its marker lies under the figure). Every other roster word keeps its kind."""
    t = roster_type.strip().lower()
    if t in ASKED_TYPES:
        return f"its roster type {roster_type!r} names no unit kind"
    if TYPE_WORDS.get(t) == "cav" and nation in IRREGULAR_NATIONS:
        return f"plain cavalry of {nation} may be irregular cavalry (its marker is under the figure)"
    return None


def asked(rp, st: dict) -> str | None:
    """What the set-up must still be told about a figure before it is placed (§13.2), None when nothing: its unit
    kind (game panel `type`) or a light-blue figure's nation (game panel `nation`)."""
    if not st.get("type"):
        why = asked_type(rp.type, st.get("nation") or nation_of(rp.side))
        if why is not None:
            return f"asked at set-up (§13.2): {why}; set its type in the game panel ({' '.join(UNIT_TYPES)})"
    if not st.get("nation") and light_blue(rp.side):
        return ("asked at set-up (§13.2): a light-blue figure (a French ally or a resisting minor); set its nation in "
                f"the game panel ({' '.join(NATIONS)} or {MINOR})")
    return None


@dataclass
class FigureMove(PendingChange):
    """A figure the rules moved (`at`: a region, a sea area or `port:REGION`) or removed, shown until the camera
    sees it there. On the battle board (`zone` set, §3.3) the figure must stand in that zone of the current battle,
    an infantry figure turned sideways when `square` (§8.5) or facing the enemy when not (None: not infantry);
    `moved` and `turned` say which of the two the rules changed."""

    at: str | None = None
    zone: str | None = None
    square: bool | None = None
    moved: bool = False
    turned: bool = False

    def describe(self) -> str:
        if self.removed:
            return f"take {self.piece} off the map"
        if self.zone is None:
            return f"move {self.piece} to {self.at}"
        turn_to = "turned sideways (square)" if self.square else "facing the enemy (out of square)"
        if self.moved:
            return f"move {self.piece} to zone {self.zone}" + (f", {turn_to}" if self.turned else "")
        return f"turn {self.piece} sideways (square)" if self.square else \
            f"turn {self.piece} to face the enemy (out of square)"


def figure_change(u: Unit, q: Unit, before, after) -> FigureMove | None:
    """The change the rules made to a figure (`u` before, `q` after; `before`, `after` the battles): another area
    of the map (a battle's figure, once the battle is over: back onto the map, in its region), or on the battle
    board another zone or formation (§5.5, §8.4 routs, §8.5 squares, §8.6 rallies); None when it stands as it did."""
    if q.at != u.at:
        return FigureMove(u.id, at=q.at)
    if before is None or u.id not in before.units:
        return None
    if before.phase != "over" and (after is None or after.phase == "over" or u.id not in after.units):
        return FigureMove(u.id, at=q.at)  # the battle is over: its figures go back onto the map (§8.9)
    if after is None or u.id not in after.units:
        return None
    b0, b1 = before.units[u.id], after.units[u.id]
    moved, turned = b0.zone != b1.zone, b0.square != b1.square
    if not (moved or turned):
        return None
    return FigureMove(u.id, at=q.at, zone=b1.zone.name(after.major),
                      square=b1.square if q.kind.base == INFANTRY else None, moved=moved, turned=turned)


def empty_game(source: str = "dashboard", board=None) -> NiePosition:
    """The game a session or a record starts from without a position file: the demo map (or the table's `board`
    when it is a digitised map, rules/nie/model.py `europe_from_board`), January 1805, France to move, no players,
    no relations, no units (they come from the camera)."""
    return position_from_dict({"system": SYSTEM, "board": "demo"}, source, board=board)


def without_units(pos: NiePosition) -> NiePosition:
    """The game the camera cannot see: the position without its units (a battle's zones are kept)."""
    return with_changes(pos, units={})


def area_at(europe, placement, unit_type: str) -> tuple[str | None, str]:
    """Where a figure located at `placement` (rules.board.Placement) stands for the engine: a region, a sea area or
    (a squadron in a port region) `port:REGION`; (None, why) when it cannot stand there."""
    if placement.area is None or placement.on_border:
        return None, placement.note or "not in an area"
    area = placement.area
    naval = UNIT_TYPES[unit_type].base == NAVAL
    if area in europe.seas:
        return (area, "") if naval else (None, f"a land figure in sea area {area} (armies cross by amphibious move)")
    if area not in europe.regions:
        return None, f"area {area} is no region or sea area of the map {europe.source}"
    if not naval:
        return area, ""
    if europe.regions[area].port:
        return f"port:{area}", ""
    return None, f"a squadron in {area}, a region without a port"


BATTLE = "battle"
"""The battle board's surface (`NieLive.surfaces`: the strategic map first)."""
FORWARD_DEG = {"A": 0.0, "B": 180.0}
"""Each side's front on the battle board, a compass bearing in the board's frame (0 = +y: from the attacker's rout
zone toward the defender's, §3.3): side A faces B's zones, B faces A's."""


def turned_deg(heading_deg: float, rotation_deg: float, side: str) -> float:
    """How far (degrees, 0..180) a figure is turned from facing the enemy: `heading_deg` its compass bearing in the
    table frame (0 = +y, 90 = +x), the battle board lying turned by `rotation_deg` (board mm -> table mm is a
    counter-clockwise rotation by it, calibration.board.BoardPose), so a bearing on the board is the table's plus
    `rotation_deg`; `side` "A" or "B" (`FORWARD_DEG`)."""
    on_board = heading_deg + rotation_deg
    return abs((on_board - FORWARD_DEG[side] + 180.0) % 360.0 - 180.0)


def square_seen(place, unit_type: str, board_pose, side: str | None, max_deg: float) -> bool | None:
    """Whether an infantry figure on the battle board stands in square (§13.1: marker rotation relative to the board's
    forward axis, more than `max_deg` from facing the enemy; §8.5 "turned sideways or backwards"); None when the
    camera cannot say: not infantry (rotation means nothing else, §13.3), no heading (a record's) or no pose."""
    heading = getattr(place, "heading_deg", None)
    if UNIT_TYPES[unit_type].base != INFANTRY or heading is None or board_pose is None or side is None:
        return None
    return turned_deg(float(heading), float(board_pose.rotation_deg), side) > max_deg


def _skirmish_border(placement) -> bool:
    """Whether a point on the border between zones of one merged skirmish row lies inside that one zone (§3.3): the
    board names the areas of the border (rules.board.Board.locate's note "on the border of areas X and Y, Z")."""
    note = placement.note or ""
    if placement.area is None or not note.startswith("on the border of areas "):
        return False
    names = note.removeprefix("on the border of areas ").replace(" and ", ", ").split(", ")
    return len({skirmish_zone(n) for n in names}) == 1


def on_battle_board(battle, placement, pid: str, nation: str) -> tuple[Any, str]:
    """The zone of the current battle (rules/nie/model.py `Zone`) a figure located on the battle board stands in;
    (None, why) when it cannot stand there: no battle, on a border, not one of the battle's units (while the
    battle is set up, §4.2: not of its nations), or in a zone of the other side. In a skirmish (§3.3) the three
    zones of a line row and of the middle row read as one (`skirmish_zone`: A-line, M, B-line)."""
    if battle is None:
        return None, "on the battle board, but there is no battle"
    skirmish_inside = not battle.major and _skirmish_border(placement)
    if placement.area is None or (placement.on_border and not skirmish_inside):
        return None, f"on the battle board, {placement.note or 'in no zone'}"
    setting_up = battle.phase == "setup" and battle.side_of_nation(nation) is not None
    if pid not in battle.units and not setting_up:
        return None, f"on the battle board, but not in the battle in {battle.region}"
    name = placement.area if battle.major else skirmish_zone(placement.area)
    try:
        zone = parse_zone(name, battle.major, f"{pid} on the battle board")
    except InputError as exc:
        return None, str(exc)
    if zone.side not in (None, battle.side_of_nation(nation)):
        return None, f"in zone {name} of the other side"
    return zone, ""


def _battle_seen(battle, units: list[Unit], seen: dict, notes: list[str]):
    """The game's battle with each figure seen on the battle board (`seen`: id -> (zone, square or None)) in the
    zone it stands in and, an infantry figure, in the formation its rotation shows (the camera wins, §13.1); while
    the battle is set up (§4.2) a figure placed behind the screen joins it. None (noted) while one of its units is
    neither on the battle board nor on the map."""
    if battle is None:
        return None
    missing = sorted(set(battle.units) - {u.id for u in units})
    if missing:  # the engine's battle needs every unit of it
        notes.append(f"the battle in {battle.region} is left out until its figures are on the map or the battle "
                     f"board: {', '.join(missing)} missing")
        return None
    if not seen:
        return battle
    bunits = dict(battle.units)
    for uid, (zone, square) in seen.items():
        old = bunits.get(uid) or BattleUnit(zone)
        bunits[uid] = replace(old, zone=zone, square=old.square if square is None else square)
    return replace(battle, units=bunits)


def _locate_figure(pl, rp, typ: str, nation: str, game: NiePosition, seen: dict) -> tuple[str | None, str]:
    """Where a figure located at `pl` stands for the engine: on the battle board, the battle's region (its zone
    kept in `seen`); on the map, its area (`area_at`)."""
    if pl.surface != BATTLE:
        return area_at(game.europe, pl, typ)
    zone, why = on_battle_board(game.battle, pl, rp.id, nation)
    if zone is None:
        return None, why
    seen[rp.id] = (zone, None)
    return game.battle.region, ""


def _asked_apart(pieces, state: GameState) -> tuple[list, list[str]]:
    """The roster's figures whose kind and nation are known, and a note for each still asked (`asked`)."""
    known, notes = [], []
    for rp in pieces:
        why = None if rp.id in state.removed else asked(rp, state.states.get(rp.id, {}))
        if why is None:
            known.append(rp)
        else:
            notes.append(f"{rp.id}: {why} - not placed")
    return known, notes


def nie_position(places, roster, system, state: GameState, game: NiePosition, locate, surface_pose=None):
    """The engine's position from where each figure stands: the one placement of Napoleon in Europe, used live
    (`NieLive.position`), by the recorder (fieldglass/recording.py) and by the replay (the record hooks below).

    `places`: figure id -> anything with x_mm, y_mm (a tracking Place, a record's PieceState); `locate(x, y)` names
    the surface and the area there (rules.board.Placement: on the battle board a zone of the current battle, on
    the map a region or sea area); `state` (rules.live.GameState) holds each figure's type and nation (else its
    roster type and side), the figures the rules removed and the moves they ordered (pending until the map shows
    them: the figure counts where the rules put it); `game` the game without units. A figure on the battle board
    stands in the battle's region, in the zone it is seen in; a battle of the game whose units are neither on the
    map nor on the battle board is left out of the position (noted).

    `surface_pose(name)` gives a surface's calibration BoardPose (`rotation_deg`; None while it is not registered):
    an infantry figure on the battle board whose heading (`heading_deg`, a compass bearing in the table frame; None
    in a record: the game's formation stays) is turned more than the option `square_turn_deg` from facing the enemy
    is in square (§13.1, §8.5); rotation means nothing anywhere else. A figure with a pending change counts as the
    rules put it (on the battle board: the game's zone and formation). A figure whose kind or nation the set-up
    must still be told (§13.2, `asked`) is not placed. Returns (position, notes, placements)."""
    units, placements, seen = [], {}, {}
    board_pose = surface_pose(BATTLE) if surface_pose is not None else None
    max_deg = getattr(getattr(system, "opts", None), "square_turn_deg", DEFAULT.square_turn_deg)
    known, notes = _asked_apart(roster.pieces, state)
    playing, more = in_play(known, state, system, "a NiE unit kind (infantry, cavalry, squadron, ...)")
    notes += more
    for rp, st, typ, pend in playing:
        nation = st.get("nation") or nation_of(rp.side)
        if nation is None:
            notes.append(f"{rp.id}: side {rp.side!r} is no Great Nation ({' '.join(NATIONS)}) - not placed")
            continue
        if pend is not None and not pend.removed:
            at = pend.at
        elif rp.id in places:
            place = places[rp.id]
            pl = locate(place.x_mm, place.y_mm)
            placements[rp.id] = pl
            at, why = _locate_figure(pl, rp, typ, nation, game, seen)
            if at is None:
                notes.append(f"{rp.id}: {why} - not placed")
                continue
            if rp.id in seen:
                side = game.battle.side_of_nation(nation)
                seen[rp.id] = (seen[rp.id][0], square_seen(place, typ, board_pose, side, max_deg))
        else:
            continue
        units.append(Unit(rp.id, nation, typ, at))
    battle = _battle_seen(game.battle, units, seen, notes)
    pos = with_changes(game, units={u.id: u for u in units}, round=max(state.turn, 1),
                       active=state.active if state.active in NATIONS else game.active, battle=battle)
    return pos, notes, placements


def battle_threats(system, pos: NiePosition, hidden=frozenset(), selected: str | None = None) -> list[Threat]:
    """Who may fire or charge at whom now (the adapter's targets: §8.3 fire, §8.4 charge, straight ahead only): the
    selected figure's attacks when it stands in the battle, else those of every figure of the side to act; none
    during the set-up (§4.2) or for a figure hidden from the viewer."""
    battle = pos.battle
    if system is None or battle is None or battle.phase == "setup":
        return []
    if selected in battle.units:
        shooters = [selected]
    else:
        shooters = [uid for uid in sorted(battle.units) if uid in pos.units
                    and battle.side_of_nation(pos.units[uid].nation) == battle.acting]
    out = []
    for uid in shooters:
        if uid in hidden:
            continue
        for row in system.targets(pos, uid):
            if row.target in hidden:
                continue
            if row.fire:
                out.append(Threat(uid, row.target, "fire", f"needs {row.fire_net}" if row.fire_net else ""))
            if row.melee:
                out.append(Threat(uid, row.target, "charge", f"needs {row.melee_net}" if row.melee_net else ""))
    return out


def figure_nation(s, rp) -> str | None:
    """The nation a roster figure fights for: the position's unit of its id, else the live game state's (set at the
    table), else its roster side (a replay keeps no live game state)."""
    u = s.position.units.get(rp.id) if s.position is not None else None
    if u is not None:
        return u.nation
    states = getattr(getattr(s, "state", None), "states", None)
    return (states or {}).get(rp.id, {}).get("nation") or nation_of(rp.side)


def spare_figure(s, nation: str, kind: str, taken=frozenset()) -> str | None:
    """The roster figure a unit bought (or placed) by the rules takes (§9.5: new units come from the box): one of
    `nation` that is not in the game now (not in the position, not seen on the table, no change pending), whose
    roster type is this kind or is still to be asked; a figure never used before the one taken off the table.
    None when the roster holds none."""
    seen = {p.piece for p in s.reading.pieces} if getattr(s, "reading", None) is not None else set()
    fits = []
    for rp in s.roster.pieces:
        if rp.id in taken or rp.id in s.position.units or rp.id in seen or rp.id in s.state.pending:
            continue
        st = s.state.states.get(rp.id, {})
        if (st.get("nation") or nation_of(rp.side)) != nation:
            continue
        if (st.get("type") or s.system.piece_type(rp.type)) not in (kind, None):
            continue
        fits.append((rp.id in s.state.removed, rp.id))
    return min(fits)[1] if fits else None


class NieLive(LiveRules):
    """Figures located on the strategic map's regions and sea areas; the engine's resolutions replace the game and
    move or remove figures through pending `FigureMove`s.

    Besides the hooks: `game` (the engine's position without units: everything the camera cannot see) and
    `placements` (where each figure was located in the last position: rules.board.Placement)."""

    legend = NIE_LEGEND

    def dice_wanted(self, s, action, attacker, target):
        """A throw's dice by action (`THROWS`, as rules/nie/battle.py, strategic.py and politics.py roll them); any
        other action's dice (sea crossings, a neutral attacked...) as many as are thrown."""
        return self.THROWS.get(action)

    inputs = (DICE, CHOICES)
    THROWS = {"fire": ("fire", "fire", "hit effect (if hit)"),  # battle: 2D6 to hit, 1D6 for the effect
              "charge": ("charge", "charge", "defence", "defence"),  # 2D6 each side
              "rally": ("rally", "rally"), "pursue": ("pursuit",),
              "c_test": ("2d6", "2d6"), "sudden_death": ("2d6", "2d6"),
              "diplomacy": ("2d6", "2d6"), "suppress": ("2d6", "2d6"), "annex": ("annex",),
              "sea_battle": ("side A", "side A", "side B", "side B")}
    viewers = NATIONS
    """Each nation's player view: behind the screen of a battle's set-up (§4.2) a player sees only the battle
    board's figures of his own side; the umpire sees all."""
    noun = "figure"
    surfaces = ("map", BATTLE)
    target_headers = ("target", "zone", "zones", "action", "fire", "needs", "charge", "net", "frontal", "note")
    state_headers = ("figure", "nation", "type", "region", "facing", "formation", "bases", "markers", "seen",
                     "waiting for")
    target_hint = "a region (land_move, amphibious, annex...), a nation (declare_war...) or an enemy figure"

    roster_types = (*UNIT_TYPES, *TYPE_WORDS)
    open_types = ASKED_TYPES  # §13.2: the set-up asks the kind
    roster_sides = (*NATIONS, *NATION_CODES, *LIGHT_BLUE)
    type_noun = "NiE unit kind"

    def __init__(self, system, setup) -> None:
        super().__init__(system, setup)
        self.game: NiePosition | None = None
        self.placements: dict[str, Any] = {}

    # ---- the set-up

    @classmethod
    def demo(cls, board=None) -> DemoTable:
        """The demo figures on the demo map, or on the board given (rules/nie/demo.py)."""
        return demo_table(board)

    @classmethod
    def surface_boards(cls, board) -> dict:
        """The battle board beside the map (data/battle_board_demo.toml, INVENTED: the zones of §3.3)."""
        return {BATTLE: battle_board()}

    @classmethod
    def starting_roster(cls):
        """A new table's figures: the demo's (data/demo_figures.toml, `DEMO_FIGURES` and the battle's four).
        Its start is the demo's position (`start_position`)."""
        return data_path("demo_figures.toml")

    @classmethod
    def start_from(cls, system, position, terrain=(), table=None) -> Start:
        """The position file's game (`Setup.game`): date, turn order, players, relations, PP, owners..."""
        return Start(game=position)

    @classmethod
    def setup_roster(cls, system, roster, tables, start, source) -> dict:
        """Every figure's side a Great Nation (or its short code) and its type a unit kind, else InputError."""
        for rp in roster.pieces:
            if nation_of(rp.side) is None and not light_blue(rp.side):
                raise InputError(f"{source}: piece {rp.id!r}: side {rp.side!r} is no Great Nation (one of "
                                 f"{' '.join(NATIONS)}, or {' '.join(sorted(NATION_CODES))}, or lightblue)")
            if system.piece_type(rp.type) is None and rp.type.strip().lower() not in ASKED_TYPES:
                raise InputError(f"{source}: piece {rp.id!r}: type {rp.type!r} is no NiE unit kind (one of "
                                 f"{' '.join(UNIT_TYPES)}, or a word such as infantry, cavalry, squadron; "
                                 "? when the set-up asks it)")
        return {}

    # ---- start and readings

    def start(self, s) -> None:
        """The set-up's game (else `empty_game`); each figure's type and nation from the position's unit of its id,
        else from its roster type and side (left unset when the roster cannot tell it: `asked`, §13.2)."""
        game = getattr(self.setup, "game", None) or empty_game(board=getattr(s, "board", None))
        self.game = without_units(game)
        s.state.turn, s.state.active = self.game.round, self.game.active
        for rp in s.roster.pieces:
            st = s.state.states.setdefault(rp.id, {})
            u = game.units.get(rp.id)
            nation = u.nation if u is not None else nation_of(rp.side)
            bound = u is not None or asked_type(rp.type, nation) is None
            st.setdefault("type", (u.type if u is not None else s.system.piece_type(rp.type)) if bound else None)
            st.setdefault("nation", nation)

    def position(self, s):
        pos, notes, self.placements = nie_position(s.committed_places(), s.roster, s.system, s.state, self.game,
                                                   s.locate, surface_pose=getattr(s, "surface_pose", None))
        return pos, notes

    def placed_as(self, s, pose, change) -> bool:
        """On the map: in the area (a squadron: in the port's region) the rules moved the figure to. On the battle
        board: in the zone of the battle the rules put it in, an infantry figure turned as its formation wants
        (§13.1)."""
        pl = s.locate(pose.x_mm, pose.y_mm)
        if change.zone is None:
            want = (change.at or "").removeprefix("port:")
            return pl.surface != BATTLE and pl.area == want and not pl.on_border
        battle = self.game.battle if self.game is not None else None
        if pl.surface != BATTLE or battle is None:
            return False
        nation = s.state.states.get(change.piece, {}).get("nation") or ""
        zone, _ = on_battle_board(battle, pl, change.piece, nation)
        if zone is None or zone.name(battle.major) != change.zone:
            return False
        if change.square is None:
            return True
        board_pose = s.surface_pose(BATTLE) if hasattr(s, "surface_pose") else None
        max_deg = getattr(s.system, "opts", DEFAULT).square_turn_deg
        return square_seen(pose, "inf", board_pose, battle.side_of_nation(nation), max_deg) == change.square

    # ---- the game state

    def check_state(self, s, pid: str, key: str, value: Any) -> tuple[str, str, Any]:
        """A figure's type or nation (the game panel: what the set-up asks, §13.2; a light-blue figure's nation may
        be `minor`, a resisting minor's army); a NiE figure has no other state (a square is read from its rotation).
        `pid` is the figure's id (the session resolves a screened figure's label)."""
        if s.roster.piece(pid) is None:
            raise InputError(f"no figure {pid!r} in the roster")
        if key not in ("type", "nation"):
            raise InputError(f"a NiE figure has no {key} (type, nation; a square is the figure turned sideways)")
        if key == "nation" and str(value).strip().lower() == MINOR:
            return pid, key, MINOR
        return pid, key, s.system.check_state("", key, value)

    def set_turn(self, s, turn_no: int, active: str | None) -> None:
        s.state.turn = max(1, int(turn_no))
        if active in NATIONS:
            s.state.active = active

    def next_phase(self, s) -> None:
        """The active nation's turn ends (engine: turn.end_turn, §4.1): the next nation, or the next month."""
        res = turn.end_turn(s.position, self.system.opts)
        for ch in self._take(s, res.after):
            s.log(f"waiting for the map: {ch.describe()}")
        for line in res.lines:
            s.log(line)

    def apply(self, s, outcome) -> list[PendingChange]:
        res = outcome.resolution
        s.log(f"{res.action}: {outcome.lines[0] if outcome.lines else ''}")
        return self._take(s, res.after)

    def _take(self, s, after: NiePosition) -> list[PendingChange]:
        """Adopt the engine's position: the game now, each figure's type and nation; moves, removals and a battle
        figure's new zone or formation pending until the table matches (the rules' word meanwhile: the camera's
        reading wins again once the figure stands so); a unit the engine placed that no roster figure stands for (a
        purchase) is named."""
        pending: list[PendingChange] = []
        for u in s.position.units.values():
            q = after.units.get(u.id)
            if q is None:
                s.state.removed.add(u.id)
                ch = FigureMove(u.id, removed=True)
            else:
                s.state.states.setdefault(u.id, {}).update(type=q.type, nation=q.nation)
                ch = figure_change(u, q, s.position.battle, after.battle)
                if ch is None:
                    continue
            s.state.pending[u.id] = ch
            pending.append(ch)
        taken: set[str] = set()
        for q in after.units.values():
            if q.id in s.position.units:
                continue
            fid = spare_figure(s, q.nation, q.type, taken)
            if fid is None:
                s.log(f"{q.id}: a new {q.nation} {q.kind.name} in {q.at}: no spare {q.nation} figure in the roster - "
                      "put a figure there and add it to the roster")
                continue
            taken.add(fid)  # the bought unit is this figure from now on (its id the figure's, §9.5)
            s.state.removed.discard(fid)
            s.state.states.setdefault(fid, {}).update(type=q.type, nation=q.nation)
            ch = FigureMove(fid, at=q.at)
            s.state.pending[fid] = ch
            pending.append(ch)
            s.log(f"{q.id}: a new {q.nation} {q.kind.name} in {q.at} is figure {fid} (a spare figure of the roster)")
        left_out = s.position.battle is None and after.battle is None  # a battle the placement left out stays
        self.game = with_changes(without_units(after), battle=self.game.battle if left_out else after.battle)
        s.state.turn, s.state.active = after.round, after.active
        return pending

    # ---- what a viewer sees

    def screened(self, s) -> dict[str, str]:
        """The figures the current viewer may not see, each with the label it knows them by: while a battle is set up
        behind the screen (§4.2, §13.2: "hide each side's deployment until both players confirm screen removed"),
        every figure on the battle board (or of the battle) whose side is not the viewer's; the umpire sees all."""
        pos = s.position
        battle = pos.battle if pos is not None else None
        viewer = getattr(s, "viewer", UMPIRE)
        if viewer == UMPIRE or battle is None or battle.phase != "setup":
            return {}
        mine = battle.side_of_nation(viewer)
        out: dict[str, str] = {}
        count: dict[str, int] = {}
        for rp in s.roster.pieces:
            pl = self.placements.get(rp.id)
            if rp.id not in battle.units and (pl is None or pl.surface != BATTLE):
                continue
            side = battle.side_of_nation(figure_nation(s, rp) or "")
            if side is None or side == mine:
                continue
            count[side] = count.get(side, 0) + 1
            out[rp.id] = f"{side}-hidden-{count[side]}"
        return out

    def look(self, s, view):
        """A figure behind the set-up's screen is not shown to this viewer at all (None: the session leaves it out);
        a figure in square says so in the game panel's formation column."""
        if view.piece.id in self.screened(s):
            return None
        pos = s.position
        bu = pos.battle.units.get(view.piece.id) if pos is not None and pos.battle is not None else None
        if bu is None:
            return view
        return replace(view, state={**view.state, "formation": "square" if bu.square else "",
                                    "zone": bu.zone.name(pos.battle.major)})

    def visible_id(self, s, pid: str) -> str:
        return self.screened(s).get(pid, pid)

    def resolve_id(self, s, pid: str) -> str | None:
        """A screened figure's label -> the figure; a zone or area name is no figure (None)."""
        for uid, label in self.screened(s).items():
            if label == pid:
                return uid
        boards = [getattr(s, "board", None), *(getattr(s, "surface_boards", None) or {}).values()]
        if any(b is not None and pid in b.areas for b in boards):
            return None
        return pid

    def title(self, s) -> str | None:
        sel = s.selected
        if sel is None:
            return None
        hidden = self.screened(s).get(sel)
        if hidden is not None:
            return f"{hidden}: behind the screen of the battle's set-up (§4.2)"
        if not s.in_position(sel):
            return f"{sel}: not on the map now (not seen, on a border, at sea on land, or removed)"
        u = s.position.unit(sel)
        ov = s.selection_overlay()
        reach = f": a land move reaches {', '.join(ov.moves)}" if ov is not None and ov.moves else ""
        battle = s.position.battle
        bu = battle.units.get(sel) if battle is not None else None
        if bu is not None:
            reach = f", zone {bu.zone.name(battle.major)}" + (" in square" if bu.square else "") + reach
        return f"<b>{u.id}</b> {u.nation} {u.kind.name} in {u.at}{reach}"

    def _at_text(self, s, pid: str) -> str:
        """Where a figure stands for the describe table: its area, on the battle board its zone and formation."""
        pos = s.position
        u = pos.units.get(pid)
        pl = self.placements.get(pid)
        if u is None:
            return f"? {pl.note}" if pl and (pl.on_border or pl.area is None) else (pl.area if pl else "-")
        bu = pos.battle.units.get(pid) if pos.battle is not None else None
        if bu is None:
            return u.at
        return f"{u.at}, zone {bu.zone.name(pos.battle.major)}" + (", square" if bu.square else "")

    def describe(self, s) -> list[str]:
        """The date and the nation to move, every figure the viewer may see with where it stands (on the battle board
        its zone and formation), the notes (none about a screened figure), the selection's reach."""
        pos = s.position
        hidden = self.screened(s)
        lines = [f"  {pos.year}-{pos.month:02d}, round {pos.round}, {pos.active} to move, view: {s.viewer}",
                 f"  {'figure':<12}{'nation':<9}{'type':<8}{'at':<34}{'status':<10}"]
        for v in s.true_views():
            pid = v.piece.id
            if pid in hidden:
                continue
            st = s.state.states.get(pid, {})
            lines.append(f"  {pid:<12}{st.get('nation') or '?':<9}{v.type or '?':<8}{self._at_text(s, pid):<34}"
                         f"{v.status:<10}")
        if hidden:
            lines.append(f"  behind the screen (§4.2): {len(hidden)} figure(s) of the other side")
        lines += [f"  note: {n}" for n in s.notes if n.split(":")[0] not in hidden]
        sel = s.selection_overlay()
        if sel is not None and sel.piece not in hidden:
            lines.append(f"selected {sel.piece} in {sel.where}: a land move reaches "
                         f"{', '.join(sel.moves) or 'no region'}")
        return lines

    def context(self, s) -> dict:
        return {"placements": self.placements}

    def picture(self, s, scene: Scene) -> tuple[Item, ...]:
        """The map picture on the session's (or the replay's) board, and the battle board's zones through its own
        pose while it is registered (a skirmish's merged rows; the figures behind the set-up's screen left out for
        a player's view)."""
        boards = getattr(s, "surface_boards", None) or {}
        surface = BattleSurface(boards[BATTLE], s.surface_to_table(BATTLE)) if BATTLE in boards else None
        out = picture(scene, getattr(s, "board", None), surface)
        if surface is not None and scene.position is not None:
            hidden = set(self.screened(s))
            out += tuple(battle_items(scene, surface.board, surface.to_table, hidden))
            threats = battle_threats(getattr(s, "system", None), scene.position, hidden, scene.selected)
            out += tuple(threat_items(scene.position.battle, threats, surface.board, surface.to_table))
        return out

    # ---- the game record

    def record_meta(self, meta: dict) -> dict:
        """The starting game (the position file's form, without units but its battle's); the map's board as its TOML
        text (a record's `{"demo": true}` board is the generic demo board, not this map's cells)."""
        board = getattr(self.setup, "board", None)
        if board is not None and (meta.get("board") or {}).get("demo"):
            meta["board"] = {"toml": board_to_toml(board), "name": board.name}
        game = getattr(self.setup, "game", None)
        if game is not None:  # a battle's units stay, so that its battle reads back (a battle names its units)
            fighting = set(game.battle.units) if game.battle is not None else set()
            meta["game"] = position_to_dict(with_changes(game, units={u: q for u, q in game.units.items()
                                                                      if u in fighting}))
        return meta

    def keep(self, s, kept: dict, event) -> None:
        """Of a record's history the game needs only the engine's state the last event that made one kept."""
        if isinstance(event.data.get("engine"), dict):
            kept["engine"] = event.data["engine"]

    def restore(self, s) -> None:
        """The game at a recorded moment: the engine's state kept by the last event that made one (else the
        record's starting game), each figure's type and nation from the game's unit of its id, else from its roster
        type and side (unset when the set-up asks it, §13.2: a `piece_state` event of the record binds it)."""
        kept = s.kept.get("engine")
        if kept is not None:
            game = position_from_dict(kept, "the record's engine state", board=getattr(s, "board", None))
        elif s.meta.get("game"):
            game = position_from_dict(s.meta["game"], "the record's game", board=getattr(s, "board", None))
        else:
            game = empty_game("the record", getattr(s, "board", None))
        self.game = without_units(game)
        state = GameState(turn=game.round, active=game.active, removed=set(s.state.removed))
        for rp in s.roster.pieces:  # as `start` binds them; what players set later is applied by the record
            u = game.units.get(rp.id)
            nation = u.nation if u is not None else nation_of(rp.side)
            bound = u is not None or asked_type(rp.type, nation) is None
            state.states[rp.id] = {"type": (u.type if u is not None else s.system.piece_type(rp.type)) if bound
                                   else None, "nation": nation}
        s.state = state

    def record_start(self, s) -> None:
        """A record begun at the dashboard starts as it is: a turn input here ends the side's turn."""
        return None

    def record_turn(self, s, inp: dict) -> dict:
        """The active nation's turn ends (engine: turn.end_turn, §4.1): the round, the nation to move, the date, whether
        a production round follows, with the engine's state after."""
        res = turn.end_turn(s.position, self.system.opts)
        q = res.after
        phase = f"{q.active}'s production turn" if q.production is not None else f"{q.active} to move"
        return {"turn": q.round, "active": q.active, "phase": phase, "year": q.year, "month": q.month,
                "production": bool(res.data.get("production")), "lines": list(res.lines),
                "engine": position_to_dict(q)}

    def hidden_ids(self, s, events) -> list[str]:
        """The figures behind a battle's set-up screen for the replay's viewer (§4.2, `screened`), longest id first."""
        return sorted(self.screened(s), key=len, reverse=True)

    def replay_views(self, s, views: list, events, over: bool) -> tuple[list, dict[str, str]]:
        """The replay's figures less those behind a battle's set-up screen for its viewer (§4.2: a nation sees its
        own side's deployment, the public neither until the screen is removed; all once the game has ended)."""
        hidden = {} if over else self.screened(s)
        return [v for v in views if v.piece.id not in hidden], {}

    def record_combat(self, s, inp: dict) -> dict:
        """An action resolved by the engine on the recorded position: its changes (each with `piece`; a unit the engine
        took off `removed`) and the engine's state after (its units too: a replay places the figures from the camera,
        `restore` keeps the rest)."""
        pos = s.position
        frame = inp.get("frame")
        action, attacker, target = inp.get("action"), inp.get("attacker"), inp.get("target")
        if not isinstance(attacker, str) or not attacker:
            raise InputError(f"combat at frame {frame}: {attacker!r}: name the acting figure(s) or nation")
        outcome = s.system.resolve(pos, action, attacker, target, dice=list(inp.get("dice") or []),
                                   seed=inp.get("seed"),
                                   choices={str(k): str(v) for k, v in (inp.get("choices") or {}).items()})
        changes = [{**ch, "piece": ch["unit"]} if "unit" in ch else dict(ch) for ch in outcome.changes]
        # every unit the engine took off (eliminated by fire, a charge, a pursuit, interception...) is `removed`:
        # the recorder expects its figure off the table, and the record's state takes it off
        gone = set(pos.units) - set(outcome.after.units)
        for ch in changes:
            if ch.get("piece") in gone:
                ch["removed"] = True
        changes += [{"piece": uid, "removed": True} for uid in sorted(gone - {ch.get("piece") for ch in changes})]
        pieces = [p for p in (*attacker.split(","), *((target,) if target in pos.units else ())) if p in pos.units]
        data = {"action": action, "pieces": pieces, "target": target, "changes": changes, "lines": outcome.lines,
                "dice": list(outcome.rolled), "summary": outcome.lines[0] if outcome.lines else str(action),
                "engine": position_to_dict(outcome.after)}
        if outcome.seed is not None:
            data["seed"] = outcome.seed
        return data

    # ---- the game-state panels and the report (rules/nie/panels.py)

    def actors(self, s) -> tuple[str, ...]:
        return nie_panels.ACTORS

    def panels(self, s) -> tuple:
        return nie_panels.panels(s.position if s.position is not None else self.game, self.system.opts)

    @classmethod
    def report_terms(cls, meta, events):
        return nie_panels.report_terms(meta, events)


__all__ = ["BATTLE", "FORWARD_DEG", "FigureMove", "NieLive", "area_at", "asked", "asked_type", "battle_threats",
           "empty_game", "figure_change", "figure_nation", "light_blue", "nation_of", "nie_position",
           "on_battle_board", "spare_figure", "square_seen", "turned_deg", "without_units"]
