"""The Coalitions adapter of the system contract (rules/system.py TableSystem), Qt-free.

It gathers the engine's answers into plain descriptions: a General's Territory and where it may move, the battles it
could start, a pair's relation, and every action resolved with the choices the camera cannot see (§13.2): Battle
cards, secret statuses and bids, consents, the Arbiter's answer, where a defeated General goes. No dice: the game has
none, and dice given are refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from common.choices import split_ids
from common.errors import InputError
from rules.coalitions import automa, battle, diplomacy, economy, movement, turn
from rules.coalitions.model import POWERS, SPECIALS, CoalitionsPosition, Result, freeze, known_power
from rules.coalitions.movement import Move
from rules.coalitions.options import DEFAULT, Options, get_options
from rules.system import AreaSelection, CombatOutcome, TargetRow

MOVEMENT_ACTIONS = ("start_movement", "move", "battle", "ask_turn", "end_movement")
WHEEL_ACTIONS = ("drill", "taxation", "leadership", "subsidies", "mobilisation", "influence", "end_turn")
DIPLOMACY_ACTIONS = ("choose", "declare", "bid")
AUTOMA_ACTIONS = ("napoleon_card", "race_to_paris", "automa_battle", "mobilise_france")
ACTIONS = MOVEMENT_ACTIONS + WHEEL_ACTIONS + DIPLOMACY_ACTIONS + AUTOMA_ACTIONS

CHOICE_HELP = """\
  start_movement --attacker POWER [--target ARBITER] [disband=T,T] [napoleon=yes]
  move          --attacker GEN[,GEN] [--target TERRITORY] [to.GEN=TERRITORY] [kind.GEN=march|sea|strategic|orient]
                [path.GEN=T,T] [garrison.GEN=T,T] [consent.GEN=yes] [stay.GEN=HOME]   (kind inferred when omitted)
                [from.GEN=T|off]   (its start, when the camera already shows it at the end)
  battle        --attacker POWER|any --target TERRITORY [support.GEN=attacker|defender] [cards.GEN=4,4]
                [to.GEN=capital|off|TERRITORY] [retreat=TERRITORY|off] [garrison=no] [kutuzov=T] [vizier=T]
  ask_turn      --attacker POWER agree=yes|no          (the Arbiter's answer)
  end_movement  --attacker POWER
  drill | taxation | influence   --attacker POWER
  leadership    --attacker POWER option=generals|draw|morale [place.GEN=TERRITORY] [remove=GEN,GEN]
  subsidies     --attacker britain offer.POWER=N [accepted=POWER,POWER]
  mobilisation  --attacker POWER [troops.GEN=N] [cards=N] [morale=N] [fortress=T,T]
  end_turn      --attacker any
  choose        --attacker POWER [status=STATUS] [bid.MINOR=N]   (a secret choice before the reveal, §13.2)
  declare       --attacker any status.POWER=british|french|neutral|expansionist [expel.POWER=STATUS]
                [to.GEN=T|off] [stay.GEN=no] [rps.TERRITORY=POWER]
  bid           --attacker any --target MINOR bid.POWER=N [to.GEN=T|off] [rps.TERRITORY=POWER]
  napoleon_card --attacker france attacked=T,T [uncoloured=T,T] [lowest=POWER] [from.T=GEN]
  race_to_paris --attacker france [adjacent=T] [from.T=GEN]
  automa_battle --attacker france|coalition --target TERRITORY drawn=V,V [cards.GEN=V,V] [support=GEN,GEN]
                [french_support=GEN,GEN] [hopeless=N] [retreat.GEN=T|off]
  mobilise_france --attacker france [order=GEN,GEN]"""


CoalitionsSelection = AreaSelection
"""A selected figure: its area, where a move takes it, whom it may attack (rules.system.AreaSelection)."""


def _yes(v: str | None, what: str) -> bool:
    if v is None:
        return False
    if v.lower() in ("yes", "true", "1", "y"):
        return True
    if v.lower() in ("no", "false", "0", "n"):
        return False
    raise InputError(f"--choice {what}: {v!r} is not yes or no")


def _int(v: str | None, what: str) -> int:
    try:
        n = int(v or "0")
    except ValueError:
        raise InputError(f"--choice {what}=N: a whole number, not {v!r}") from None
    if n < 0:
        raise InputError(f"--choice {what}={n}: not below 0")
    return n


def _prefixed(ch: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix):]: v for k, v in ch.items() if k.startswith(prefix)}


def _values(text: str, what: str) -> list[int]:
    return [_int(v, what) for v in split_ids(text)]


class CoalitionsSystem:
    """Coalitions (rules/coalitions): Generals with Troops on a map of Territories; no dice."""

    name = "coalitions"
    actions = ACTIONS
    single_piece_actions = frozenset({"start_movement", "ask_turn", "end_movement", "drill", "taxation",
                                      "leadership", "subsidies", "mobilisation", "influence", "end_turn", "choose",
                                      "declare", "napoleon_card", "race_to_paris", "mobilise_france"})
    choice_help = CHOICE_HELP
    types = ("general", *SPECIALS)
    markers = ()
    flags = ()

    def __init__(self, options: Options | None = None):
        self.opts = options or DEFAULT

    # ---- vocabulary

    def piece_type(self, roster_type: str) -> str | None:
        t = roster_type.strip().lower().replace(" ", "_").replace("-", "_").replace("ü", "u")
        if t in ("general", "pawn", "general_pawn"):
            return "general"
        return t if t in SPECIALS else None

    def default_state(self, piece_type: str) -> dict:
        return {"troops": 0}

    def piece_state(self, piece) -> dict:
        return {"troops": piece.troops, "at": piece.at}

    def check_state(self, piece_type: str, key: str, value):
        if key == "troops":
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
                raise InputError(f"troops {value!r}: a General commands 0 to 3 Troops (§3.6)")
            return value
        if key == "power":
            if value not in POWERS:
                raise InputError(f"power {value!r}: one of {' '.join(POWERS)}")
            return value
        raise InputError(f"{key!r} is not part of a Coalitions General's state (troops, power)")

    def empty_ground(self):
        return {}

    # ---- questions

    def selection(self, pos: CoalitionsPosition, pid: str) -> CoalitionsSelection:
        g = pos.state.general(pid)
        dest = movement.destinations(pos, pid, self.opts)
        moves = tuple(dict.fromkeys(dest["march"] + dest["strategic"] + dest["sea"]))
        targets = tuple(t.target for t in self.targets(pos, pid))
        return CoalitionsSelection(pid, g.at or "off-map", moves, targets)

    def targets(self, pos: CoalitionsPosition, pid: str) -> list[TargetRow]:
        """The Territories this General could attack by a March or a Sea Move, with the Strength there (§8.2)."""
        s = pos.state
        g = s.general(pid)
        if g.at is None:
            return []
        dest = movement.destinations(pos, pid, self.opts)
        rows = []
        for kind in ("march", "sea"):
            for tid in dest[kind]:
                enemies = [p for p in diplomacy.powers_on(s, tid) if not diplomacy.allied(s, g.power, p)]
                if not enemies:
                    continue
                theirs = sum(diplomacy.strength_on(s, p, tid) for p in enemies)
                mine = 1 + g.troops
                rows.append(TargetRow(tid, tid, 1, kind, False, None, True, mine - theirs, True,
                                      f"{', '.join(enemies)} Strength {theirs} against {mine} before cards (§8.2)"))
        return rows

    def pair(self, pos: CoalitionsPosition, a: str, b: str) -> tuple[dict, list[str]]:
        s = pos.state
        ga, gb = s.general(a), s.general(b)
        out = {"from": a, "to": b, "at": [ga.at, gb.at], "relation": diplomacy.relation(s, ga.power, gb.power),
               "adjacent": bool(ga.at and gb.at and s.europe.adjacent(ga.at, gb.at)),
               "sea_route": bool(ga.at and gb.at and gb.at in s.europe.routes[ga.at])}
        out["may_attack"] = bool(gb.at) and diplomacy.can_attack(s, ga.power, gb.power, gb.at)
        lines = [f"{a} ({ga.power}, {ga.troops} Troops) in {ga.at or 'off-map'}; {b} ({gb.power}, {gb.troops} Troops)"
                 f" in {gb.at or 'off-map'}: {out['relation']}; "
                 f"{'adjacent' if out['adjacent'] else 'a direct Sea Route' if out['sea_route'] else 'not adjacent'}"
                 f"; {a} {'may' if out['may_attack'] else 'may not'} attack {b} there (§9.2)"]
        return out, lines

    def supporter_candidates(self, pos: CoalitionsPosition, attacker: str, target: str, action: str) -> list[str]:
        s = pos.state
        g = s.general(attacker)
        try:
            pv = battle.preview(pos, target, g.power, opts=self.opts)
        except InputError:
            return []
        return pv["support_candidates"]["attacker"]

    def combat_modifiers(self, pos: CoalitionsPosition, attacker: str, target: str, action: str, supporters=(),
                         **_inputs):
        """Before the cards (§8.2-§8.4): each side's Strength on the Territory, its Generals with their card slots and
        who may support it. The attacker is a General or a Power (the combat panel's actors); an action that is no
        battle has none."""
        if action not in ("battle", "move"):
            return [f"{action}: no Strength to compare (the engine's lines say what it does)"], []
        power = attacker if attacker in POWERS else pos.state.general(attacker).power
        pv = battle.preview(pos, target, power, {x: "attacker" for x in supporters}, self.opts)
        return tuple([f"Strength {pv['base'][side]} on the Territory (§8.2)"]
                     + [f"{g}: {pv['card_slots'][g]} card(s) (§8.4)" for g in pv["sides"][side]]
                     + [f"may support: {', '.join(pv['support_candidates'][side]) or 'nobody'} (§8.3)"]
                     for side in ("attacker", "defender"))

    # ---- resolving

    def resolve(self, pos: CoalitionsPosition, action: str, attacker: str, target: str | None = None, *,
                dice: Sequence[int] = (), seed: int | None = None, choices: Mapping[str, str] | None = None,
                **_inputs) -> CombatOutcome:
        if dice:
            raise InputError("--dice: Coalitions has no dice (§1); give the cards with --choice cards.GEN=V,V")
        handler = _HANDLERS.get(action)
        if handler is None:
            raise InputError(f"--action {action!r}: Coalitions knows {' '.join(ACTIONS)}")
        call = _Call(pos, action, split_ids(attacker), target, dict(choices or {}), self.opts)
        _check_named(call)
        res: Result = handler(call)
        res.notes += _out_of_turn(call)
        lines = list(res.lines) + [f"note: {n}" for n in dict.fromkeys(res.notes)]
        return CombatOutcome(res, [], None, lines, res.changes)

    # ---- turns

    def next_phase(self, turn_no: int, active: str, sides: Sequence[str]):
        """Every Power acts in every action turn (§4.1): the next phase is the next turn."""
        return turn_no + 1, (list(sides) or list(POWERS))[0]

    def phase_reset(self) -> dict:
        return {}


@dataclass(frozen=True)
class _Call:
    pos: CoalitionsPosition
    action: str
    ids: list[str]
    target: str | None
    ch: dict
    o: Options

    def need(self, what: str) -> str:
        if not self.target:
            raise InputError(f"--action {self.action} needs --target {what}")
        return self.target

    @property
    def power(self) -> str:
        """The --attacker as the one Power acting; an unknown name is answered as unknown, with the six."""
        if len(self.ids) != 1:
            raise InputError(f"--action {self.action}: --attacker must be one Power ({' '.join(POWERS)})")
        return known_power(self.ids[0], f"--action {self.action}: --attacker")


WHEEL_OF = {"drill": "drill", "taxation": "taxation", "leadership": "leadership", "subsidies": "leadership",
            "mobilisation": "mobilisation", "influence": "influence", "start_movement": "movement"}
"""The Wheel's action (§4.2) each resolve action belongs to."""


def _out_of_turn(c: _Call) -> list[str]:
    """A note when a Power acts off its place on the Wheel (§4.2); the engine does not refuse it (the players may
    be catching up or correcting), the result says so."""
    wheel = WHEEL_OF.get(c.action)
    if wheel is None or len(c.ids) != 1 or c.ids[0] not in POWERS or (c.action == "start_movement"
                                                                      and c.ch.get("napoleon")):
        return []
    now = turn.action_of(c.pos, c.ids[0])
    return [] if now == wheel else [f"{c.ids[0]}'s symbol is over {now} this turn, not {wheel} (§4.2)"]


GENERAL_KEYS = {"move": ("to", "kind", "path", "garrison", "consent", "stay", "from"),
                "battle": ("support", "cards", "to"), "declare": ("to", "stay"), "bid": ("to", "stay"),
                "automa_battle": ("cards", "retreat")}
"""The `KEY.GEN=` choices of each action that name a General."""


def _check_named(c: _Call) -> None:
    """Every `KEY.GEN=` choice names a General of the position and every `rps.TERRITORY=POWER` a Territory and a
    Power: an unknown name is answered as unknown (with the valid ones), not silently ignored."""
    s = c.pos.state
    for key, value in c.ch.items():
        head, _, name = key.partition(".")
        if name and head in GENERAL_KEYS.get(c.action, ()):
            s.general(name, f"--choice {key}")
        if head == "rps" and name:
            s.europe.territory(name, f"--choice {key}")
            known_power(value, f"--choice {key}")


def _start_movement(c: _Call) -> Result:
    return movement.start_movement(c.pos, c.power, c.target, split_ids(c.ch.get("disband")),
                                   _yes(c.ch.get("napoleon"), "napoleon"), c.o)


def infer_kind(pos: CoalitionsPosition, gid: str, dest: str, opts: Options = DEFAULT, consent: bool = False
               ) -> tuple[str, list[str], list[str]]:
    """The move a General made from its start to `dest` when only the two are seen (§13.2): a March if adjacent,
    else a Strategic Move, else a Sea Move; returns (kind, path, the other kinds that would also fit)."""
    fits = []
    for kind in ("march", "strategic", "sea", "orient"):
        try:
            path = movement.shortest_path(pos, gid, kind, dest, opts)
        except InputError:
            continue
        if not movement.path_reasons(pos.state, Move(gid, kind, path, consent=consent), opts):
            fits.append((kind, path))
    if not fits:
        raise InputError(f"move {gid} -> {dest}: no March, Strategic or Sea Move gets there (§5.3)")
    return fits[0][0], fits[0][1], [k for k, _ in fits[1:]]


def seen_from(pos: CoalitionsPosition, starts: Mapping[str, str]) -> CoalitionsPosition:
    """The position with each General of `starts` back where it stood before the move (a Territory or "off"): the
    camera may already show it at its end (two snapshots, §13.3), the move is checked from its start."""
    if not starts:
        return pos
    s = pos.draft()
    for gid, at in starts.items():
        g = s.general(gid)
        if at != "off" and at not in s.europe.territories:
            raise InputError(f"from.{gid}={at}: no Territory of the map (or off)")
        g.at = None if at == "off" else at
    return freeze(s)


def _move(c: _Call) -> Result:
    moves, notes = [], []
    c = _Call(seen_from(c.pos, _prefixed(c.ch, "from.")), c.action, c.ids, c.target, c.ch, c.o)
    for gid in c.ids:
        c.pos.state.general(gid, "move: --attacker")
        dest = c.ch.get(f"to.{gid}") or (c.target if len(c.ids) == 1 else None)
        if dest is None:
            raise InputError(f"move: give --choice to.{gid}=TERRITORY")
        c.pos.europe.territory(dest, f"move {gid}: to")
        consent = _yes(c.ch.get(f"consent.{gid}", c.ch.get("consent")), "consent")
        kind = c.ch.get(f"kind.{gid}")
        path = split_ids(c.ch.get(f"path.{gid}"))
        if kind is None:
            kind, auto, others = infer_kind(c.pos, gid, dest, c.o, consent)
            path = path or auto
            if others:
                notes.append(f"{gid}: also a {', '.join(others)} move; read as {kind} (kind.{gid}=...)")
        elif not path:
            path = movement.shortest_path(c.pos, gid, kind, dest, c.o)
        moves.append(Move(gid, kind, path, split_ids(c.ch.get(f"garrison.{gid}")), consent))
    res = movement.move_turn(c.pos, moves, _prefixed(c.ch, "stay."), c.o)
    res.notes += notes
    return res


def _battle(c: _Call) -> Result:
    att = None if not c.ids or c.ids == ["any"] else c.power
    cards = {g: _values(v, f"cards.{g}") for g, v in _prefixed(c.ch, "cards.").items()}
    return battle.fight(c.pos, c.need("TERRITORY"), att, _prefixed(c.ch, "support."), cards, c.ch, c.o)


def _ask_turn(c: _Call) -> Result:
    if "agree" not in c.ch:
        raise InputError("ask_turn: give the Arbiter's answer with --choice agree=yes|no (§5.2)")
    return movement.ask_turn(c.pos, _yes(c.ch["agree"], "agree"), c.o)


def _leadership(c: _Call) -> Result:
    return economy.leadership(c.pos, c.power, c.ch.get("option", ""), _prefixed(c.ch, "place."),
                              split_ids(c.ch.get("remove")))


def _subsidies(c: _Call) -> Result:
    offers = {p: _int(v, f"offer.{p}") for p, v in _prefixed(c.ch, "offer.").items()}
    return economy.subsidies(c.pos, offers, split_ids(c.ch.get("accepted")))


def _mobilisation(c: _Call) -> Result:
    troops = {g: _int(v, f"troops.{g}") for g, v in _prefixed(c.ch, "troops.").items()}
    return economy.mobilisation(c.pos, c.power, troops, _int(c.ch.get("cards"), "cards"),
                                _int(c.ch.get("morale"), "morale"), split_ids(c.ch.get("fortress")), c.o)


def _declare(c: _Call) -> Result:
    return diplomacy.declare(c.pos, _prefixed(c.ch, "status."), _prefixed(c.ch, "expel."), c.ch, c.o)


def _choose(c: _Call) -> Result:
    bids = {m: _int(v, f"bid.{m}") for m, v in _prefixed(c.ch, "bid.").items()}
    return diplomacy.choose(c.pos, c.power, c.ch.get("status"), bids)


def _bid(c: _Call) -> Result:
    bids = {p: _int(v, f"bid.{p}") for p, v in _prefixed(c.ch, "bid.").items()}
    return diplomacy.bid(c.pos, c.need("MINOR"), bids, c.ch, c.o)


def _napoleon_card(c: _Call) -> Result:
    return automa.napoleon_card(c.pos, split_ids(c.ch.get("attacked")), split_ids(c.ch.get("uncoloured")), c.ch, c.o)


def _automa_battle(c: _Call) -> Result:
    cards = {g: _values(v, f"cards.{g}") for g, v in _prefixed(c.ch, "cards.").items()}
    ch = {**c.ch, "attacker": "france" if c.ids == ["france"] else "coalition"}
    return automa.automa_battle(c.pos, c.need("TERRITORY"), cards, _values(c.ch.get("drawn", ""), "drawn"),
                                split_ids(c.ch.get("support")), split_ids(c.ch.get("french_support")), ch, c.o)


_HANDLERS: dict[str, Callable[[_Call], Result]] = {
    "start_movement": _start_movement,
    "move": _move,
    "battle": _battle,
    "ask_turn": _ask_turn,
    "end_movement": lambda c: movement.end_movement(c.pos),
    "drill": lambda c: economy.drill(c.pos, c.power),
    "taxation": lambda c: economy.taxation(c.pos, c.power),
    "leadership": _leadership,
    "subsidies": _subsidies,
    "mobilisation": _mobilisation,
    "influence": lambda c: economy.expand_influence(c.pos, c.power),
    "end_turn": lambda c: turn.end_turn(c.pos, c.o),
    "choose": _choose,
    "declare": _declare,
    "bid": _bid,
    "napoleon_card": _napoleon_card,
    "race_to_paris": lambda c: automa.race_to_paris(c.pos, c.ch),
    "automa_battle": _automa_battle,
    "mobilise_france": lambda c: automa.mobilise_france(c.pos, split_ids(c.ch.get("order")), c.o),
}


def adapter(options=None) -> CoalitionsSystem:
    """The TableSystem with a group's options (a TOML path, a record's values, an Options or None)."""
    return CoalitionsSystem(get_options(options))
