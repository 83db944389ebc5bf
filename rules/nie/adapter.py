"""The Napoleon in Europe adapter of the system contract (rules/system.py TableSystem), Qt-free.

It only gathers the engine's answers (rules/nie battle, strategic, politics) into plain descriptions: a unit's
zone or region and where it may go, the enemies it may fire at or charge with the number it needs, the pair
analysis, and every action resolved with the player's dice and `--choice KEY=VALUE` choices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from common.choices import split_ids
from common.dice import Dice
from common.errors import InputError
from rules.nie import battle as bt
from rules.nie import politics, strategic, turn
from rules.nie.model import NATIONS, TYPE_WORDS, UNIT_TYPES, NiePosition, known_nation, parse_zone, unknown, zones
from rules.nie.options import DEFAULT, Options
from rules.system import AreaSelection, CombatOutcome, TargetRow

BATTLE_ACTIONS = ("start_battle", "deploy", "move", "fire", "charge", "leave_square", "rally", "end_phase",
                  "retreat", "pursue", "end_battle")
MAP_ACTIONS = ("land_move", "amphibious", "naval_move", "intercept", "sea_battle")
POLITICAL_ACTIONS = ("production", "purchase", "buy_pap", "give_pp", "declare_war", "sue_for_peace", "annex",
                     "diplomacy", "uprising", "suppress", "congress_annex", "congress_pass", "liberate", "armistice",
                     "break_alliance", "passage", "c_test", "sudden_death", "victory", "end_turn")
ACTIONS = BATTLE_ACTIONS + MAP_ACTIONS + POLITICAL_ACTIONS

CHOICE_HELP = """\
  start_battle  --attacker NATION[,NATION] --target REGION  [from=REGION | from.ID=REGION] [amphibious=yes]
  deploy        --attacker any|A|B|NATION|UNIT  [zone.ID=ZONE ...] [side=A|B]  (every unit of the side(s); no
                zones: those the battle holds, the camera's; hidden until both)
  move          --attacker UNIT --target ZONE          (battle board)
  fire          --attacker UNIT --target UNIT  [leader=ID]      dice: 2d6 then the hit's 1d6
  charge        --attacker UNIT --target UNIT  [square=yes] [abort=yes] [evade=yes]   dice: 2d6 att, 2d6 def
  leave_square  --attacker UNIT
  rally         --attacker LEADER --target UNIT        dice: 2d6
  end_phase     --attacker any
  retreat       --attacker A|B|UNIT
  pursue        --attacker UNIT --target UNIT          dice: 1d6
  end_battle    --attacker any  [retreat.ID=REGION | retreat.*=REGION]
  land_move     --attacker ID[,ID] --target REGION  [path=R1,R2]
  amphibious    --attacker ID[,ID] --target REGION route=SEA,SEA   dice: 1d6 per unit per enemy sea area
  naval_move    --attacker SQ[,SQ] path=SEA,SEA|port:REGION
  intercept     --attacker NATION [want.A=yes|no] [want.B=yes|no] [left_port=yes] [strait=yes]   dice: 1d6
  sea_battle    --attacker NATION[,NATION] --target SEA|port:REGION defender=NATION[,NATION]
                [lose.A=ID,..] [lose.B=ID,..] [attackers=ID,ID (a port attack)]   dice: 2d6, 2d6
  production    --attacker NATION
  purchase      --attacker NATION buy=inf:2,cav:1 place=REGION [place.TYPE=REGION]
  buy_pap       --attacker NATION n=1
  give_pp       --attacker britain --target NATION n=N
  declare_war   --attacker NATION --target NATION [controllers=NATION,..]  dice: 1d6 if several may take a neutral
  sue_for_peace --attacker NATION
  annex         --attacker NATION --target REGION [give_to=NATION]   dice: 1d6 (+ army 1d6 x3 if it resists)
  diplomacy     --attacker NATION --target REGION|NATION [accepted=yes|no third=NATION (a player nation)]
                dice: 2d6 (a minor or a neutral Great Nation)
  uprising      --attacker NATION --target REGION
  suppress      --attacker NATION --target REGION  [lose=ID]   dice: 2d6
  congress_annex --attacker VICTOR --target REGION loser=NATION   (in its congress turn, §9.8)
  congress_pass --attacker VICTOR loser=NATION          (passes its congress turn)
  liberate      --attacker VICTOR regions=R1,R2 [loser=NATION]   (in its congress turn)
  armistice     --attacker NATION --target NATION
  break_alliance --attacker NATION --target NATION
  passage       --attacker HOST --target GUEST grant=yes|no
  c_test        --attacker NATION                     dice: 2d6
  sudden_death  --attacker any round=N first=N        dice: 2d6
  victory       --attacker NATION|PLAYER   (a player: every nation he controlled, clean, dirty or ultimate, §9.1)
  end_turn      --attacker any                       (next nation; month, production round, PAP)"""


NieSelection = AreaSelection
"""A selected figure: its area, where a move takes it, whom it may attack (rules.system.AreaSelection)."""


def _yes(v: str | None) -> bool:
    if v is None:
        return False
    if v.lower() in ("yes", "true", "1", "y"):
        return True
    if v.lower() in ("no", "false", "0", "n"):
        return False
    raise InputError(f"--choice: {v!r} is not yes or no")


def _int(v: str | None, what: str) -> int:
    try:
        return int(v or "")
    except ValueError:
        raise InputError(f"--choice {what}=N: a whole number, not {v!r}") from None


def _prefixed(choices: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix):]: v for k, v in choices.items() if k.startswith(prefix)}


class NieSystem:
    """Napoleon in Europe (rules/nie): a strategic map of regions and sea areas and a tactical battle board."""

    name = "nie"
    actions = ACTIONS
    single_piece_actions = frozenset({"leave_square", "end_phase", "retreat", "production", "sue_for_peace",
                                      "c_test", "sudden_death", "victory", "naval_move", "intercept", "buy_pap",
                                      "end_turn", "congress_pass"})
    choice_help = CHOICE_HELP
    types = tuple(UNIT_TYPES)
    markers = ()
    flags = ()

    def __init__(self, options: Options | None = None):
        self.opts = options or DEFAULT

    # ---- vocabulary

    def piece_type(self, roster_type: str) -> str | None:
        t = roster_type.strip().lower().replace("_", " ").replace("-", " ")
        if t in UNIT_TYPES:
            return t
        return TYPE_WORDS.get(t)

    def default_state(self, piece_type: str) -> dict:
        return {"square": False, "used": 0} if piece_type in ("inf", "elite", "militia") else {"used": 0}

    def piece_state(self, piece) -> dict:
        return {"type": piece.type, "at": piece.at}

    def check_state(self, piece_type: str, key: str, value):
        if key == "type":
            t = self.piece_type(str(value))
            if t is None:
                raise InputError(f"type {value!r}: one of {' '.join(UNIT_TYPES)}")
            return t
        if key == "square":
            if piece_type not in ("inf", "elite", "militia"):
                raise InputError("only infantry forms square (§8.5)")
            return bool(value)
        if key == "nation":
            if value not in NATIONS:
                raise InputError(f"nation {value!r}: one of {' '.join(NATIONS)}")
            return value
        raise InputError(f"{key!r} is not part of a Napoleon in Europe unit's state (type, nation, square)")

    def empty_ground(self):
        return {}

    # ---- questions

    def _in_battle(self, pos: NiePosition, pid: str) -> bool:
        return pos.battle is not None and pid in pos.battle.units

    def selection(self, pos: NiePosition, pid: str) -> NieSelection:
        u = pos.unit(pid)
        if self._in_battle(pos, pid):
            b = pos.battle
            moves = tuple(z.name(b.major) for z in zones(b.major) if not bt.move_reasons(pos, pid, z, self.opts))
            tg = tuple(t.target for t in self.targets(pos, pid) if t.fire or t.melee)
            return NieSelection(pid, b.units[pid].zone.name(b.major), moves, tg)
        if u.kind.base == "naval" or u.at not in pos.europe.regions:
            return NieSelection(pid, u.at, (), ())
        near = sorted(pos.europe.region(u.at).neighbours)
        moves = tuple(r for r in near if not strategic.entry_reasons(pos, u.nation, r))
        return NieSelection(pid, u.at, moves, ())

    def targets(self, pos: NiePosition, pid: str) -> list[TargetRow]:
        if not self._in_battle(pos, pid):
            return []
        b = pos.battle
        u = pos.unit(pid)
        side = bt.side_of(b, u)
        rows = []
        for tid, tu in sorted(b.units.items()):
            t = pos.units[tid]
            if bt.side_of(b, t) == side:
                continue
            d = bt.frontal_distance(b.units[pid].zone, tu.zone, side)
            fire = melee = False
            fire_net = melee_net = None
            notes = []
            try:
                pv = bt.fire_preview(pos, pid, tid, self.opts)
                fire, fire_net = True, pv["needs_raw"]
            except InputError as exc:
                notes.append(str(exc).split(": ", 1)[-1])
            try:
                cv = bt.charge_preview(pos, pid, tid, self.opts)
                melee = True
                melee_net = sum(m for m, _ in cv["attacker_modifiers"]) - sum(m for m, _ in cv["defender_modifiers"])
            except InputError as exc:
                notes.append(str(exc).split(": ", 1)[-1])
            rows.append(TargetRow(tid, tu.zone.name(b.major), d or 0, "fire" if fire else ("charge" if melee else ""),
                                  fire, fire_net, melee, melee_net, d is not None, "; ".join(dict.fromkeys(notes))))
        return rows

    def pair(self, pos: NiePosition, a: str, b: str) -> tuple[dict, list[str]]:
        out: dict = {"from": a, "to": b}
        lines = []
        if self._in_battle(pos, a) and self._in_battle(pos, b):
            for key, fn in (("fire", bt.fire_preview), ("charge", bt.charge_preview)):
                try:
                    out[key] = fn(pos, a, b, self.opts)
                    lines.append(f"{key}: allowed; " + _describe(out[key]))
                except InputError as exc:
                    out[key] = None
                    out[f"{key}_refused"] = str(exc)
                    lines.append(f"{key}: not allowed - {exc}")
            return out, lines
        ua, ub = pos.unit(a), pos.unit(b)
        out["regions"] = [ua.at, ub.at]
        out["adjacent"] = pos.europe.adjacent(ua.at, ub.at)
        out["at_war"] = pos.at_war(ua.nation, ub.nation)
        lines.append(f"{a} ({ua.nation} {ua.kind.name}) in {ua.at}; {b} ({ub.nation} {ub.kind.name}) in {ub.at}; "
                     f"{'neighbouring' if out['adjacent'] else 'not neighbouring'}; "
                     f"{'at war' if out['at_war'] else pos.relation(ua.nation, ub.nation)}")
        return out, lines

    def supporter_candidates(self, pos, attacker, target, action) -> list[str]:
        return []

    def combat_modifiers(self, pos: NiePosition, attacker: str, target: str, action: str, supporters=(), **_inputs):
        if action == "fire":
            pv = bt.fire_preview(pos, attacker, target, self.opts)
            return ([f"needs {pv['table']} on 2d6 (§8.3)"] + [f"{m:+d} {w}" for m, w in pv["modifiers"]]), []
        if action == "charge":
            cv = bt.charge_preview(pos, attacker, target, self.opts)
            return ([f"{m:+d} {w}" for m, w in cv["attacker_modifiers"]],
                    [f"{m:+d} {w}" for m, w in cv["defender_modifiers"]])
        return [], []

    # ---- resolving

    def resolve(self, pos: NiePosition, action: str, attacker: str, target: str | None = None, *,
                dice: Sequence[int] = (), seed: int | None = None, choices: Mapping[str, str] | None = None,
                **_inputs) -> CombatOutcome:
        ch = dict(choices or {})
        d = Dice(dice, seed)
        res = self._run(pos, action, attacker, target, d, ch)
        if d.given:
            raise InputError(f"{action}: {len(d.given)} die/dice given but not used ({', '.join(map(str, d.given))})")
        lines = list(res.lines) + [f"note: {n}" for n in dict.fromkeys(res.notes)]
        if d.generated:
            lines.append(f"dice rolled by the app (seed {d.seed}): {', '.join(map(str, d.rolled))}")
        return CombatOutcome(res, list(d.rolled), d.seed if d.generated else None, lines, res.changes)

    def _run(self, pos: NiePosition, action: str, attacker: str, target: str | None, d: Dice, ch: dict):
        handler = _HANDLERS.get(action)
        if handler is None:
            raise InputError(f"--action {action!r}: Napoleon in Europe knows {' '.join(ACTIONS)}")
        return handler(_Call(pos, action, split_ids(attacker), target, d, ch, self.opts))

    # ---- turns

    def next_phase(self, turn: int, active: str, sides: Sequence[str]):
        """§4.1: the nations move in turn order; after the last the month (round) ends."""
        order = list(sides) or list(NATIONS)
        i = order.index(active) if active in order else -1
        return (turn + 1, order[0]) if i + 1 >= len(order) else (turn, order[i + 1])

    def phase_reset(self) -> dict:
        return {"used": 0}


@dataclass(frozen=True)
class _Call:
    """One action's inputs as its handler reads them: `ids` the --attacker's ids, `ch` the choices, `o` the options."""

    pos: NiePosition
    action: str
    ids: list[str]
    target: str | None
    d: Dice
    ch: dict
    o: Options

    def need(self, what: str) -> str:
        """The --target, which this action cannot do without."""
        if not self.target:
            raise InputError(f"--action {self.action} needs --target {what}")
        return self.target

    @property
    def nation(self) -> str:
        """The --attacker as the one Great Nation acting (an unknown name is answered as unknown, with the seven)."""
        if len(self.ids) != 1:
            raise InputError(f"--action {self.action}: --attacker must be one nation ({' '.join(NATIONS)})")
        return known_nation(self.ids[0], f"--action {self.action}: --attacker")

    @property
    def nations(self) -> list[str]:
        """The --attacker as one or more nations (a resisting minor's army among them, §9.8)."""
        if not self.ids:
            raise InputError(f"--action {self.action}: --attacker must name the nation(s) ({' '.join(NATIONS)})")
        return [known_nation(n, f"--action {self.action}: --attacker", True) for n in self.ids]

    def target_nation(self) -> str:
        return known_nation(self.need("NATION"), f"--action {self.action}: --target")

    def choice_nation(self, key: str, default: str | None = None) -> str:
        """A choice naming a Great Nation (`loser=`, `give_to=`...): required unless `default`."""
        value = self.ch.get(key, default)
        if value is None:
            raise InputError(f"--action {self.action}: give --choice {key}=NATION ({' '.join(NATIONS)})")
        return known_nation(value, f"--action {self.action}: --choice {key}")

    def choice_nations(self, key: str) -> list[str]:
        return [known_nation(n, f"--action {self.action}: --choice {key}", True) for n in split_ids(self.ch.get(key))]


# ---- the battle board (§7)

def _start_battle(c: _Call):
    region = c.need("REGION")
    nations = c.nations
    came = {u.id: c.ch.get(f"from.{u.id}", c.ch.get("from", "")) for u in c.pos.units_at(region)
            if u.nation in nations}
    came = {k: v for k, v in came.items() if v}
    return bt.start(c.pos, region, nations, came, _yes(c.ch.get("amphibious")))


def _deploy_side(c: _Call) -> str | None:
    """The side a `deploy` sets up: `side=`, else the --attacker when it names one (A, B, a nation of the battle or
    one of its units), else None (both)."""
    if c.ch.get("side"):
        return c.ch["side"]
    b = c.pos.battle
    who = c.ids[0] if c.ids and b is not None else "any"
    if who in ("A", "B"):
        return who
    if who in c.pos.units:
        return b.side_of_nation(c.pos.units[who].nation)
    return b.side_of_nation(who) if b is not None else None


def _deploy(c: _Call):
    """§4.2 set-up: the zones given (`zone.ID=ZONE`), else the zones the position's battle already holds for the
    deploying side's units (on the live table: where the camera sees them on the battle board)."""
    side = _deploy_side(c)
    zones = _prefixed(c.ch, "zone.")
    b = c.pos.battle
    if not zones and b is not None:
        zones = {uid: bu.zone.name(b.major) for uid, bu in b.units.items()
                 if uid in c.pos.units and side in (None, b.side_of_nation(c.pos.units[uid].nation))}
    return bt.deploy(c.pos, zones, side)


def _charge(c: _Call):
    ch = c.ch
    return bt.charge(c.pos, c.ids[0], c.need("UNIT"), c.d, c.o, _yes(ch.get("square")), _yes(ch.get("abort")),
                     _yes(ch.get("evade")), ch.get("leader"))


def _retreat(c: _Call):
    ids, pos = c.ids, c.pos
    side = ids[0] if ids and ids[0] in ("A", "B") else bt.side_of(pos.battle_copy(), pos.unit(ids[0]))
    return bt.retreat(pos, side)


# ---- the map (§5, §6)

def _land_move(c: _Call):
    path = split_ids(c.ch.get("path")) or [c.need("REGION")]
    return strategic.land_move(c.pos, c.ids, path, c.o)


def _intercept(c: _Call):
    ch, pos = c.ch, c.pos
    wants = (_yes(ch.get("want.A", "yes")), _yes(ch.get("want.B", "no")))
    one = wants[0] != wants[1]
    r = strategic.interception(c.d.d6() if one else None, _yes(ch.get("left_port")), _yes(ch.get("strait")), wants)
    verdict = "caught, a sea battle follows" if r["caught"] else "escapes"
    if r["roll"] is None:
        return bt.Result("intercept", pos, [f"interception: {r['why']}: "
                                            + ("a sea battle follows" if r["caught"] else "no battle")],
                         data={"caught": r["caught"]})
    return bt.Result("intercept", pos, [f"interception: rolled {r['roll']}, needs {r['need']}+ "
                                        f"({r['why']}): {verdict}"],
                     [{"what": "interception", "dice": [r["roll"]], "raw": r["roll"], "modifiers": [],
                       "total": r["roll"], "threshold": r["need"]}], data={"caught": r["caught"]})


def _sea_battle(c: _Call):
    ch = c.ch
    lose = {"A": split_ids(ch.get("lose.A")), "B": split_ids(ch.get("lose.B")),
            "attackers": split_ids(ch.get("attackers"))}
    port = c.need("SEA").startswith("port:")
    if lose["attackers"] and not port:
        raise InputError("sea_battle: attackers=ID,ID names the squadrons attacking a port (--target port:REGION, "
                         "§5.3); at sea every squadron there fights (§8.10)")
    return strategic.sea_battle(c.pos, c.target, c.nations, c.choice_nations("defender"), c.d,
                                port_defender="B" if port else None, lose=lose)


# ---- politics (§9)

def _production(c: _Call):
    return politics.total_production(c.pos, c.nation, c.o)


def _purchase(c: _Call):
    ch = c.ch
    basket = {}
    for item in split_ids(ch.get("buy")):
        k, _, n = item.partition(":")
        basket[k.strip()] = _int(n or "1", "buy")
    where = _prefixed(ch, "place.")
    if "place" in ch:
        where["*"] = ch["place"]
    return politics.purchase(c.pos, c.nation, basket, where, c.o)


def _diplomacy(c: _Call):
    pos, ch, actor = c.pos, c.ch, c.nation
    t = c.need("REGION or NATION")
    if t not in NATIONS and t not in pos.europe.regions:
        raise unknown("region or nation", t, (*NATIONS, *pos.europe.regions), "--action diplomacy: --target")
    if t in NATIONS and t in pos.players:
        third = c.choice_nation("third") if "third" in ch else None
        return politics.diplomatic_offer(pos, actor, t, _yes(ch.get("accepted")), third)
    if t in NATIONS:
        return politics.diplomatic_offensive_neutral(pos, actor, t, c.d)
    return politics.diplomatic_offensive_minor(pos, actor, t, c.d)


def _c_test(c: _Call):
    nation, pos = c.nation, c.pos
    r = politics.c_test(pos, nation, c.d, c.o)
    return bt.Result("c_test", pos, [f"{nation} C-value test: rolled {r['roll']['raw']} against C "
                                     f"{r['c_value']}: " + ("greater: it must sue for peace (§9.10)"
                                                            if r["sues_for_peace"] else "holds (§9.10)")],
                     [r["roll"]], data={"sues_for_peace": r["sues_for_peace"]})


def _suppress(c: _Call):
    """§9.9: the region's owner rolls (the --attacker, when it names a nation, must be that owner)."""
    region = c.need("REGION")
    owner = c.pos.owner(c.pos.europe.region(region, "--action suppress: --target").id)
    if c.ids and c.ids != ["any"] and c.nation != owner:
        raise InputError(f"--action suppress: --attacker {c.nation}: the uprising in {region} is its owner "
                         f"{owner}'s to suppress (§9.9)")
    return politics.suppress_uprising(c.pos, region, c.d, c.ch.get("lose"))


def _sudden_death(c: _Call):
    ch = c.ch
    r = politics.sudden_death(c.d, _int(ch.get("round"), "round"), _int(ch.get("first"), "first"))
    return bt.Result("sudden_death", c.pos, [f"sudden death: rolled {r['roll']['raw']}, end number "
                                             f"{r['end_number']}: " + ("the game ends (§9.2)" if r["ends"]
                                                                       else "the game goes on (§9.2)")],
                     [r["roll"]], data={"ends": r["ends"]})


def _level_line(v: dict) -> str:
    return (f"{v['nation']}: level {v['level']} {v['name']} ({v['regions']} regions, homeland {v['homeland']}, "
            f"fleet {v['fleet']}; §9.1)")


def _victory(c: _Call):
    """A nation's victory level (§9.1); a player's (the attacker a player's name) with every nation he controlled:
    clean, dirty or the ultimate result."""
    who = c.ids[0] if len(c.ids) == 1 else None
    if who in set(c.pos.players.values()) and who not in NATIONS:
        r = politics.player_result(c.pos, who)
        lines = [f"{who}: {r['result']} with {r['own']}" + (f", gained {', '.join(r['gained'])}" if r["gained"]
                                                             else "") + " (§9.1)"]
        return bt.Result("victory", c.pos, lines + [_level_line(v) for v in r["levels"].values()], data=r)
    if who not in NATIONS:
        raise unknown("nation or player", who, (*NATIONS, *c.pos.players.values()), "--action victory: --attacker")
    v = politics.victory_level(c.pos, who)
    return bt.Result("victory", c.pos, [_level_line(v)], data=v)


# Every action's handler: one line where the rules module's function takes the inputs as they come.
_HANDLERS = {
    "start_battle": _start_battle,
    "deploy": _deploy,
    "move": lambda c: bt.move(c.pos, c.ids[0], c.need("ZONE"), c.o),
    "fire": lambda c: bt.fire(c.pos, c.ids[0], c.need("UNIT"), c.d, c.o, c.ch.get("leader")),
    "charge": _charge,
    "leave_square": lambda c: bt.leave_square(c.pos, c.ids[0], c.o),
    "rally": lambda c: bt.rally(c.pos, c.ids[0], c.target, c.d, c.o),
    "end_phase": lambda c: bt.end_phase(c.pos, c.o),
    "retreat": _retreat,
    "pursue": lambda c: bt.pursue(c.pos, c.ids[0], c.need("UNIT"), c.d, c.o),
    "end_battle": lambda c: bt.end_battle(c.pos, _prefixed(c.ch, "retreat."), c.o),
    "land_move": _land_move,
    "amphibious": lambda c: strategic.amphibious(c.pos, c.ids, split_ids(c.ch.get("route")), c.need("REGION"), c.d,
                                                 c.o),
    "naval_move": lambda c: strategic.naval_move(c.pos, c.ids, split_ids(c.ch.get("path")) or [c.need("SEA")]),
    "intercept": _intercept,
    "sea_battle": _sea_battle,
    "production": _production,
    "purchase": _purchase,
    "buy_pap": lambda c: politics.buy_pap(c.pos, c.nation, _int(c.ch.get("n", "1"), "n"), c.o),
    "give_pp": lambda c: politics.give_pp(c.pos, c.nation, c.target_nation(), _int(c.ch.get("n", "0"), "n")),
    "declare_war": lambda c: politics.declare_war(c.pos, c.nation, c.target_nation(), c.d,
                                                  c.choice_nations("controllers")),
    "sue_for_peace": lambda c: politics.sue_for_peace(c.pos, c.nation, c.o),
    "annex": lambda c: politics.annex_minor(c.pos, c.nation, c.need("REGION"), c.d,
                                            c.choice_nation("give_to") if "give_to" in c.ch else None),
    "diplomacy": _diplomacy,
    "uprising": lambda c: politics.cause_uprising(c.pos, c.nation, c.need("REGION")),
    "suppress": _suppress,
    "congress_annex": lambda c: politics.congress_annex(c.pos, c.nation, c.choice_nation("loser"), c.need("REGION")),
    "congress_pass": lambda c: politics.congress_pass(c.pos, c.nation, c.choice_nation("loser")),
    "liberate": lambda c: politics.liberate(c.pos, c.nation, split_ids(c.ch.get("regions")),
                                            c.choice_nation("loser") if "loser" in c.ch else None),
    "armistice": lambda c: politics.armistice(c.pos, c.nation, c.target_nation()),
    "break_alliance": lambda c: politics.break_alliance(c.pos, c.nation, c.target_nation()),
    "passage": lambda c: politics.passage(c.pos, c.nation, c.target_nation(), _yes(c.ch.get("grant", "yes"))),
    "c_test": _c_test,
    "sudden_death": _sudden_death,
    "end_turn": lambda c: turn.end_turn(c.pos, c.o),
    "victory": _victory,
}


def _describe(pv: dict) -> str:
    if "table" in pv:
        mods = ", ".join(f"{m:+d} {w}" for m, w in pv["modifiers"]) or "no modifiers"
        return f"{pv['distance']} zone(s), table {pv['table']}, {mods}: needs {pv['needs_raw']} on 2d6"
    att = ", ".join(f"{m:+d} {w}" for m, w in pv["attacker_modifiers"]) or "none"
    dfn = ", ".join(f"{m:+d} {w}" for m, w in pv["defender_modifiers"]) or "none"
    return f"attacker {att}; defender {dfn}"


def zone_of(pos: NiePosition, pid: str) -> str | None:
    if pos.battle is None or pid not in pos.battle.units:
        return None
    return pos.battle.units[pid].zone.name(pos.battle.major)


__all__ = ["ACTIONS", "NieSystem", "parse_zone", "zone_of"]
