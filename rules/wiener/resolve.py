"""The second question of the table: what happens with these dice?

Duels of fire and melee (§8.1) with the results table (§8.2), markers (§8.3), loss tests, flight, follow-up,
domino, capitulation and demoralisation (§8.8), skirmisher withdrawal (§8.9), generals' re-roll (§8.11),
Gegenzug (§8.4), rally (§8.10), firing at structures (§8.4) and work rolls (§8.12).
Every function returns a `Resolution`: the rolls, modifiers, WZ, winner, effect, the changed pieces and the
position after.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from calibration.grid import field_name
from fieldglass.errors import InputError
from rules.dice import Dice
from rules.geometry import Field, distance, facing_towards, in_front_arc, line_fields, neighbours, step, turn
from rules.wiener.combat import (
    Modifier,
    attack_reason,
    defence_reason,
    fire_check,
    melee_check,
    melee_modifiers,
    modifiers_json,
    supporter_reasons,
)
from rules.wiener.model import OBSTACLES, FieldState, WienerPiece, WienerPosition, piece_to_dict, position_to_dict
from rules.wiener.movement import IMPASSABLE_OBSTACLES, edge_crossing, may_enter
from rules.wiener.options import DEFAULT, Options
from rules.wiener.sight import trace
from rules.wiener.tables import (
    RANGES,
    add_marker,
    cap,
    effect_of,
    is_artillery,
    is_formed,
    is_skirmisher,
    marker_penalty,
    range_bonus,
    weapon,
)


@dataclass
class Choices:
    """The players' decisions the rules leave open (§11 A15): flight distance, follow-up, domino or
    capitulation, which side demands its attached general's re-roll."""

    flight_distance: int | None = None
    follow_up: bool | None = None  # None: only when the rules demand it
    sweep: bool | None = None
    reroll: tuple[str, ...] = ()  # "attacker" / "defender"


@dataclass
class Roller:
    roll: int
    modifiers: list[Modifier]
    wz: int
    first_roll: int | None = None  # before a general's re-roll

    def as_dict(self, piece: str, **extra) -> dict:
        out = {"piece": piece, "roll": self.roll}
        if self.first_roll is not None:
            out["first_roll"] = self.first_roll
        out.update({"modifiers": modifiers_json(self.modifiers), "net_modifier": self.wz - self.roll, "wz": self.wz})
        out.update(extra)
        return out


@dataclass
class Resolution:
    action: str
    before: WienerPosition
    after: WienerPosition
    attacker: dict | None = None
    defender: dict | None = None
    winner: str | None = None
    effect: str = "none"
    loss_test: dict | None = None
    notes: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    why: dict[str, list[str]] = field(default_factory=dict)

    def changes(self) -> list[dict]:
        """Every piece whose state differs after the action, with the reasons."""
        old = self.before.by_id
        new = self.after.by_id
        out = []
        for pid, p in old.items():
            q = new.get(pid)
            entry: dict = {"piece": pid}
            if q is None:
                entry["removed"] = True
            else:
                a, b = piece_to_dict(p), piece_to_dict(q)
                for k in sorted(set(a) | set(b), key=_order):
                    if a.get(k) != b.get(k):
                        entry[k] = b.get(k, _DEFAULTS.get(k))
            if len(entry) > 1:
                if pid in self.why:
                    entry["why"] = self.why[pid]
                out.append(entry)
        return out

    def as_dict(self) -> dict:
        out: dict = {"action": self.action}
        if self.attacker is not None:
            out["attacker"] = self.attacker
        if self.defender is not None:
            out["defender"] = self.defender
        out["winner"] = self.winner
        out["effect"] = self.effect
        out["loss_test"] = self.loss_test
        out.update(self.extra)
        out["changes"] = self.changes()
        out["notes"] = self.notes
        out["position"] = position_to_dict(self.after)
        return out


_KEYS = ("field", "facing", "formation", "bases", "marker")
_DEFAULTS = {"marker": "none", "fired": False, "shot_out": False, "fought": False, "rerolled": False}


def _order(k: str) -> tuple[int, str]:
    return (_KEYS.index(k) if k in _KEYS else len(_KEYS), k)


class _State:
    """The pieces while an action is applied; ends as a new position."""

    def __init__(self, pos: WienerPosition, opts: Options):
        self.pos = pos
        self.opts = opts
        self.pieces: dict[str, WienerPiece] = dict(pos.by_id)
        self.fields: dict[Field, FieldState] = dict(pos.fields)
        self.edges = list(pos.edges)
        self.why: dict[str, list[str]] = {}

    def note(self, pid: str, text: str) -> None:
        self.why.setdefault(pid, []).append(text)

    def get(self, pid: str) -> WienerPiece | None:
        return self.pieces.get(pid)

    def set(self, p: WienerPiece, text: str | None = None, **kw) -> WienerPiece:
        q = replace(p, **kw)
        self.pieces[p.id] = q
        if text:
            self.note(p.id, text)
        return q

    def remove(self, p: WienerPiece, text: str) -> None:
        self.pieces.pop(p.id, None)
        self.note(p.id, text)
        # an attached general goes with his troop's fate only if he stands with it; skirmishers lose their parent
        for q in list(self.pieces.values()):
            if q.attached_to == p.id:
                self.pieces[q.id] = replace(q, attached_to=None)
            if q.parent == p.id:
                self.pieces[q.id] = replace(q, parent=None)

    def mark(self, p: WienerPiece, marker: str, text: str) -> WienerPiece:
        return self.set(p, text, markers=add_marker(p, marker, self.opts))

    def at(self, f: Field) -> list[WienerPiece]:
        return [p for p in self.pieces.values() if p.field == f]

    def position(self) -> WienerPosition:
        order = [p.id for p in self.pos.pieces if p.id in self.pieces]
        return replace(
            self.pos, pieces=tuple(self.pieces[i] for i in order), fields=self.fields, edges=tuple(self.edges)
        )

    def view(self) -> WienerPosition:
        """The current state as a position (for terrain and occupancy questions mid-action)."""
        return self.position()


# ---------------------------------------------------------------- dice helpers


def _roll(dice: Dice, general: WienerPiece | None, reroll: bool) -> tuple[int, int | None, bool]:
    """(roll used, first roll if re-rolled, re-roll used). §8.11: the re-roll replaces the first roll."""
    first = dice.d6()
    if reroll and general is not None:
        return dice.d6(), first, True
    return first, None, False


def attached_general(pos_or_state, p: WienerPiece) -> WienerPiece | None:
    pieces = pos_or_state.pieces.values() if isinstance(pos_or_state, _State) else pos_or_state.pieces
    for g in pieces:
        if g.type == "general" and g.attached_to == p.id and not g.rerolled:
            return g
    return None


def _wz(roll: int, mods: list[Modifier], opts: Options) -> int:
    return roll + cap(mods, opts)  # §8.1 WZ = D6 + capped factors


# ---------------------------------------------------------------- results (§8.2) and loss test


def apply_effect(st: _State, loser: WienerPiece, effect: str, dice: Dice, loss_die: int | None, res: Resolution):
    """Apply a results-table band to the loser only, never its supporters (§8.1, §8.2)."""
    if effect in ("red", "grey"):
        st.mark(loser, effect, f"WZ {effect_band(effect)}: {effect.capitalize()} marker (§8.2)")
    elif effect == "loss_test":
        roll = loss_die if loss_die is not None else dice.d6()
        lost = roll >= loser.loss_test
        res.loss_test = {"roll": roll, "needed": loser.loss_test, "base_lost": lost}
        if lost:
            lose_base(st, loser, f"loss test {roll} >= {loser.loss_test}: one base lost (§8.2)")
        elif st.opts.failed_loss_test_marker == "grey":
            st.mark(loser, "grey", f"loss test {roll} < {loser.loss_test}: only shaken, Grey (§8.2, §11 A2)")
        else:
            st.note(loser.id, f"loss test {roll} < {loser.loss_test}: no base lost (§8.2)")


def effect_band(effect: str) -> str:
    return {"red": "4", "grey": "5", "loss_test": "6+"}.get(effect, "1-3")


def lose_base(st: _State, p: WienerPiece, text: str) -> None:
    """§8.2 one base lost; the remaining bases in the field or formation get Grey."""
    p = st.get(p.id)
    if p.bases <= 1:
        st.remove(p, text + "; the piece is gone")
    else:
        p = st.set(p, text, bases=p.bases - 1)
        st.mark(p, "grey", "remaining bases disorganised: Grey (§8.2)")
    for q in list(st.pieces.values()):
        if q.id != p.id and q.side == p.side and q.type != "general" and (
            q.field == p.field or (p.unit is not None and q.unit == p.unit)
        ):
            st.mark(q, "grey", f"in the field or formation of {p.id} when it lost a base: Grey (§8.2)")


# ---------------------------------------------------------------- flight (§8.8)


def flee(st: _State, p: WienerPiece, direction: str, dist: int, sweep: bool, seen: set[str] | None = None) -> None:
    """Forced move of p: dist LE in direction, Black, figures turned around; domino, absorption, capitulation."""
    seen = seen if seen is not None else set()
    seen.add(p.id)
    p = st.get(p.id)
    if p is None:
        return
    if is_artillery(p) or p.type == "pioneers":
        st.remove(p, "loses its equipment in the flight: removed (§8.2)")
        return
    if is_skirmisher(p) and p.parent and st.get(p.parent):
        parent = st.get(p.parent)
        if sum(q.bases for q in st.at(parent.field) if q.type == "infantry") < 3:
            st.set(parent, f"skirmisher {p.id} rejoined as the rearmost base (§8.9)", bases=parent.bases + 1)
            st.remove(p, f"withdrew into its parent {parent.id}, markers not passed on (§8.9)")
            return
    cur = p.field
    pos = st.view()
    for _ in range(dist):
        nxt = step(cur, direction)
        reason = may_enter(pos, p, nxt, flight=True)
        if reason is None and abs(nxt[0] - cur[0]) + abs(nxt[1] - cur[1]) == 1:
            e = pos.edge(cur, nxt)
            if e and e.obstacle in IMPASSABLE_OBSTACLES:
                reason = f"a {e.obstacle} blocks the way"
        if reason is None and nxt[0] != cur[0] and nxt[1] != cur[1]:
            sides = [(nxt[0], cur[1]), (cur[0], nxt[1])]
            if all(any(q.side != p.side for q in st.at(s)) or pos.terrain(s) in ("water", "mountain") for s in sides):
                reason = "the diagonal is closed (§3.5)"
        if reason is None and any(q.side != p.side for q in st.at(nxt)):
            reason = f"enemy troops at {field_name(*nxt)}"
        if reason:
            st.remove(p, f"flight impossible ({reason}): capitulates (§8.8)")
            return
        own = [q for q in st.at(nxt) if q.id not in seen]
        if own:
            inf = [q for q in own if q.type == "infantry" and not is_skirmisher(q)]
            if (
                st.opts.absorb_fleeing_base
                and p.type == "infantry"
                and p.bases == 1
                and len(inf) == len(own)
                and sum(q.bases for q in inf) <= 2
            ):  # §11 A16 absorbed: no domino, markers pass on
                host = inf[0]
                passed = tuple(m for m in p.markers if m != "black")
                st.set(host, f"absorbed fleeing {p.id}" + (", took its markers" if passed else "") + " (§11 A16)",
                       bases=host.bases + 1, markers=host.markers + passed)
                st.remove(p, f"fled into {host.id} and was absorbed (§11 A16)")
                return
            if not sweep:
                st.remove(p, f"own troops at {field_name(*nxt)} refuse passage: capitulates (§8.8)")
                return
            for q in own:  # §8.8 domino: swept along, Black
                st.note(q.id, f"swept along by fleeing {p.id} (§8.8 domino)")
                flee(st, q, direction, dist, sweep, seen)
            pos = st.view()
        cur = nxt
    st.set(p, f"flees {dist} LE to {field_name(*cur)}, Black, figures turned (§8.8)", field=cur, facing=direction,
           markers=add_marker(st.get(p.id), "black", st.opts))


def demoralise(st: _State, loser: WienerPiece, around: list[Field], exclude: set[str]) -> None:
    """§8.8 / §11 A17: the loser's own troops in the Nachbarfelder get Red."""
    done = set()
    for f in around:
        for n in neighbours(f):
            for q in st.at(n):
                if q.side == loser.side and q.id not in exclude and q.id not in done:
                    done.add(q.id)
                    st.mark(q, "red", f"demoralised by the lost combat of {loser.id} nearby (§8.8)")


# ---------------------------------------------------------------- fire (§8.4)


def _supporters(pos: WienerPosition, ids: list[str], actor: WienerPiece, target: WienerPiece, action: str,
                opts: Options) -> tuple[WienerPiece, ...]:
    sups = [pos.piece(i) for i in ids]
    problems = supporter_reasons(pos, actor, target, sups, action, opts)
    if problems:
        raise InputError(problems[0])
    return tuple(sups)


def resolve_fire(
    pos: WienerPosition,
    attacker_id: str,
    target_id: str,
    dice: Dice,
    supporters: list[str] = (),
    defender_supporters: list[str] = (),
    choices: Choices | None = None,
    loss_die: int | None = None,
    opts: Options = DEFAULT,
    gegenzug: bool = False,
) -> Resolution:
    """§8.4 a fire duel: the shooter rolls, the target counter-fires if able; the loser takes the effect."""
    choices = choices or Choices()
    a, t = pos.piece(attacker_id), pos.piece(target_id)
    sups = _supporters(pos, list(supporters), a, t, "fire", opts)
    chk = fire_check(pos, a, t, opts, sups, response=gegenzug)
    if not chk.allowed:
        raise InputError(f"{a.id} cannot fire at {t.id}: {chk.reason}")
    counter = fire_check(pos, t, a, opts, response=True)
    dsups: tuple[WienerPiece, ...] = ()
    if counter.allowed and defender_supporters:
        dsups = _supporters(pos, list(defender_supporters), t, a, "fire", opts)
        counter = fire_check(pos, t, a, opts, dsups, response=True)
    st = _State(pos, opts)
    res = Resolution("gegenzug" if gegenzug else "fire", pos, pos)
    ga = attached_general(pos, a)
    roll, first, used = _roll(dice, ga, "attacker" in choices.reroll)
    if used:
        st.set(ga, f"re-roll for {a.id} used (§8.11)", rerolled=True)
    att = Roller(roll, chk.modifiers, _wz(roll, chk.modifiers, opts), first)
    res.attacker = att.as_dict(a.id, weapon=chk.weapon)
    res.notes += chk.warnings
    if counter.allowed:
        gd = attached_general(pos, t)
        droll, dfirst, dused = _roll(dice, gd, "defender" in choices.reroll)
        if dused:
            st.set(gd, f"re-roll for {t.id} used (§8.11)", rerolled=True)
        dfn = Roller(droll, counter.modifiers, _wz(droll, counter.modifiers, opts), dfirst)
        res.defender = dfn.as_dict(t.id, responded=True, weapon=counter.weapon)
        if att.wz > dfn.wz:
            res.winner, loser, wz = "attacker", t, att.wz
        elif dfn.wz > att.wz:
            res.winner, loser, wz = "defender", a, dfn.wz
        else:
            res.winner, loser, wz = "draw", None, att.wz  # §8.1 equal WZ: a draw, no effect
    else:
        res.defender = {"piece": t.id, "responded": False, "reason": counter.reason}
        res.winner, loser, wz = "attacker", t, att.wz  # §11 A39 no counter-fire: the shooter's WZ applies
    st.set(st.get(a.id), None, fired=not gegenzug or a.fired, shot_out=gegenzug or a.shot_out, fought=True)
    if counter.allowed:
        st.set(st.get(t.id), None, fought=True)
    if loser is not None:
        res.effect = effect_of(wz, opts)
        apply_effect(st, st.get(loser.id), res.effect, dice, loss_die, res)
    res.notes.append("fire never displaces a unit (§8.4)")
    res.after = st.position()
    res.why = st.why
    return res


def resolve_gegenzug(
    pos: WienerPosition,
    reactor_id: str,
    mover_id: str,
    path: list[Field],
    at: Field | None,
    dice: Dice,
    supporters: list[str] = (),
    choices: Choices | None = None,
    loss_die: int | None = None,
    opts: Options = DEFAULT,
) -> Resolution:
    """§8.4 Gegenzug: reaction fire at a unit moving more than 1 LE within 4 LE, at the moment the passive side
    chooses (a field of the path). The reactor is then shot out: no melee defence."""
    r, m = pos.piece(reactor_id), pos.piece(mover_id)
    spots = gegenzug_spots(pos, r, m, path, opts)
    if at is None:
        ok = [s for s in spots if s["allowed"]]
        if not ok:
            why = spots[0]["reason"] if spots else "no path given"
            raise InputError(f"{r.id} has no Gegenzug against {m.id}: {why}")
        at = ok[0]["at"]
    else:
        spot = next((s for s in spots if s["at"] == at), None)
        if spot is None:
            raise InputError(f"Gegenzug: {field_name(*at)} is not on the path of {m.id}")
        if not spot["allowed"]:
            raise InputError(f"{r.id} has no Gegenzug at {field_name(*at)}: {spot['reason']}")
    moved = pos.with_pieces(replace(q, field=at) if q.id == m.id else q for q in pos.pieces)
    res = resolve_fire(moved, r.id, m.id, dice, supporters, (), choices, loss_die, opts, gegenzug=True)
    res.before = pos
    res.extra["gegenzug_at"] = field_name(*at)
    res.notes.append(f"{r.id} fired in a Gegenzug: shot out, no melee defence this turn (§8.4)")
    return res


def gegenzug_spots(pos: WienerPosition, r: WienerPiece, m: WienerPiece, path: list[Field], opts: Options = DEFAULT):
    """For each field of the mover's path: may the reactor fire a Gegenzug there? (§8.4, §11 A30)"""
    out = []
    if len(path) <= 1:
        return [{"at": f, "allowed": False, "reason": "the mover moves only 1 LE (§8.4 Gegenzug)"} for f in path]
    for f in path:
        d = distance(r.field, f)
        moved = pos.with_pieces(replace(q, field=f) if q.id == m.id else q for q in pos.pieces)
        reason = None
        if d > 4:
            reason = f"{d} LE away: Gegenzug only within 4 LE (§8.4)"
        else:
            c = fire_check(moved, r, moved.piece(m.id), opts, response=True)
            if not c.allowed and (opts.gegenzug_requires_weapon_range or not c.reason.startswith("out of range")):
                reason = c.reason
        out.append({"at": f, "allowed": reason is None, "reason": reason})
    return out


# ---------------------------------------------------------------- melee (§8.7, §8.8)


def resolve_melee(
    pos: WienerPosition,
    attacker_id: str,
    target_id: str,
    dice: Dice,
    supporters: list[str] = (),
    defender_supporters: list[str] = (),
    choices: Choices | None = None,
    loss_die: int | None = None,
    opts: Options = DEFAULT,
) -> Resolution:
    choices = choices or Choices()
    a, t = pos.piece(attacker_id), pos.piece(target_id)
    r = attack_reason(pos, a, t, opts)
    if r:
        raise InputError(f"{a.id} cannot attack {t.id}: {r}")
    sups = _supporters(pos, list(supporters), a, t, "melee", opts)
    chk = melee_check(pos, a, t, opts, sups)
    st = _State(pos, opts)
    res = Resolution("melee", pos, pos)
    attack_dir = facing_towards(a.field, t.field)
    st.set(a, None, fought=True, charged=a.charged or (a.lancer and a.type == "light_cavalry"))

    if is_skirmisher(t) and is_formed(a):  # §8.9 skirmishers must withdraw, no Red, no melee
        res.attacker = {"piece": a.id, "roll": None}
        res.defender = {"piece": t.id, "responded": False, "reason": "skirmishers withdraw before formed troops"}
        res.winner, res.effect = "draw", "none"
        parent = st.get(t.parent) if t.parent else None
        if parent is not None and sum(q.bases for q in st.at(parent.field) if q.type == "infantry") < 3:
            st.set(parent, f"skirmisher {t.id} withdrew and rejoined as the rearmost base (§8.9)",
                   bases=parent.bases + 1)
            st.remove(t, f"withdrew into {parent.id} before the attack, no Red (§8.9)")
        else:
            flee_to = step(t.field, attack_dir)
            if may_enter(st.view(), t, flee_to) is None and not st.at(flee_to):
                st.set(t, f"withdrew to {field_name(*flee_to)} before the attack, no Red (§8.9)", field=flee_to)
            else:
                st.remove(t, "could not withdraw: captured (§8.8)")
        res.notes.append("the melee is avoided (§8.7 evasion)")
        res.after, res.why = st.position(), st.why
        return res

    ga = attached_general(pos, a)
    roll, first, used = _roll(dice, ga, "attacker" in choices.reroll)
    if used:
        st.set(ga, f"re-roll for {a.id} used (§8.11)", rerolled=True)
    att = Roller(roll, chk.modifiers, _wz(roll, chk.modifiers, opts), first)
    res.attacker = att.as_dict(a.id)
    no_defence = defence_reason(pos, t, a)
    if no_defence is None:
        dsups = _supporters(pos, list(defender_supporters), t, a, "melee", opts) if defender_supporters else ()
        dmods = melee_modifiers(pos, t, a, False, dsups, opts)
        gd = attached_general(pos, t)
        droll, dfirst, dused = _roll(dice, gd, "defender" in choices.reroll)
        if dused:
            st.set(gd, f"re-roll for {t.id} used (§8.11)", rerolled=True)
        dfn = Roller(droll, dmods, _wz(droll, dmods, opts), dfirst)
        res.defender = dfn.as_dict(t.id, responded=True)
        st.set(st.get(t.id), None, fought=True)
        if att.wz > dfn.wz:
            res.winner, winner, loser, wz = "attacker", a, t, att.wz
        elif dfn.wz > att.wz:
            res.winner, winner, loser, wz = "defender", t, a, dfn.wz
        else:
            res.winner, res.effect = "draw", "none"  # §8.1 tie: a draw, nobody moves
            res.after, res.why = st.position(), st.why
            return res
    else:
        res.defender = {"piece": t.id, "responded": False, "reason": no_defence}
        if not opts.undefended_melee_attacker_wins:  # §11 A20 alternative: WZ applied as in fire
            res.winner = "attacker"
            res.effect = effect_of(att.wz, opts)
            apply_effect(st, st.get(t.id), res.effect, dice, loss_die, res)
            res.after, res.why = st.position(), st.why
            return res
        res.winner, winner, loser, wz = "attacker", a, t, att.wz  # §11 A20 undefended: the attacker wins

    # §8.2 note: the loser of a melee flees whatever the WZ; 6+ also a loss test first
    res.effect = effect_of(wz, opts)
    loser_field = loser.field
    if res.effect == "loss_test":
        apply_effect(st, st.get(loser.id), "loss_test", dice, loss_die, res)
    dist = choices.flight_distance or opts.flight_distance
    sweep = opts.sweep_own_troops if choices.sweep is None else choices.sweep
    flight_dir = attack_dir if loser.id == t.id else turn(attack_dir, 4)  # §11 A15
    fleeing = [q for q in st.at(loser_field) if q.side == loser.side]
    for q in fleeing:
        if q.id != loser.id:
            st.note(q.id, f"in the field of {loser.id}: flees with it (§8.8)")
    seen: set[str] = set()
    for q in fleeing:
        flee(st, q, flight_dir, dist, sweep, seen)
    exclude = {q.id for q in fleeing} | seen
    around = [loser_field]
    survivor = st.get(loser.id)
    if opts.demoralise_along_flight_path and survivor is not None:
        around.append(survivor.field)
    demoralise(st, loser, around, exclude)

    # §8.8 follow-up: may (must when undefended) move into the loser's field
    if winner.id == a.id:
        must = no_defence is not None
        follow = must or bool(choices.follow_up)
        if follow and not st.at(loser_field):
            w = st.get(a.id)
            text = "must follow up into" if must else "follows up into"
            w = st.set(w, f"{text} {field_name(*loser_field)} (§8.8)", field=loser_field)
            t_now = st.pos.terrain(loser_field)
            if is_formed(w) and t_now in ("wood", "town", "church"):
                st.mark(w, "red", f"entered the {t_now} after winning: Red (§8.7)")
            elif is_formed(w) and edge_crossing(st.pos, w, a.field, loser_field)[1]:
                st.mark(w, "red", "crossed the obstacle following up: Red (§8.7)")
        elif follow:
            res.notes.append(f"{field_name(*loser_field)} is still occupied: no follow-up")
    res.after, res.why = st.position(), st.why
    return res


# ---------------------------------------------------------------- rally (§8.10)


def resolve_rally(pos: WienerPosition, piece_id: str, dice: Dice, opts: Options = DEFAULT) -> Resolution:
    """§8.10 at the end of its own active phase: 4+ (3+ with a general in a Nachbarfeld) removes every marker."""
    p = pos.piece(piece_id)
    if not p.markers:
        raise InputError(f"{p.id} carries no marker to rally from")
    st = _State(pos, opts)
    res = Resolution("rally", pos, pos)
    gens = [g for g in pos.pieces if g.type == "general" and g.side == p.side and g.id != p.id
            and distance(g.field, p.field) == 1 and g.attached_to is None and not g.black]
    need = p.rally - (1 if gens else 0)
    roll = dice.d6()
    mods = [(f"general {gens[0].id} in a Nachbarfeld (§8.10)", 1)] if gens else []
    res.attacker = {"piece": p.id, "roll": roll, "needed": need, "modifiers": modifiers_json(mods)}
    if roll >= need:
        res.winner, res.effect = "attacker", "rallied"
        facing = turn(p.facing, 4) if p.black else p.facing  # a fleeing troop faces the enemy again
        st.set(p, f"rallied on {roll} (needed {need}+): all markers removed (§8.10)", markers=(), facing=facing)
    else:
        res.winner, res.effect = "defender", "failed"
        if p.black:
            res.notes.append(f"{p.id} must continue its flight at the start of its next active phase (§8.8)")
    res.after, res.why = st.position(), st.why
    return res


def general_replaced(roll: int) -> bool:
    """§8.11 a lost general is replaced on a 6, rolled each turn, at the rear table edge."""
    return roll == 6


# ---------------------------------------------------------------- structures (§8.4) and work (§8.12)


def _structure(pos: WienerPosition, target_field: Field | None, edge: tuple[Field, Field] | None):
    """(kind, resistance, label) of a building, bridge or edge obstacle."""
    if edge is not None:
        e = pos.edge(*edge)
        if e is None:
            raise InputError(f"no obstacle on the edge {field_name(*edge[0])}-{field_name(*edge[1])}")
        return "obstacle", 1 if e.obstacle in ("wall", "barricade") else 0, e.obstacle
    s = pos.field_state(target_field)
    name = field_name(*target_field)
    if s.bridge:
        return "bridge", 1 if s.bridge == "wood" else 2, f"{s.bridge} bridge at {name}"
    if s.terrain in ("town", "church"):
        return "building", max(0, (1 if s.terrain == "town" else 2) - s.cover_lost), f"{s.terrain} at {name}"
    raise InputError(f"{name} holds no building, bridge or obstacle to fire at")


def resolve_bombard(
    pos: WienerPosition,
    battery_id: str,
    target_field: Field | None,
    edge: tuple[Field, Field] | None,
    dice: Dice,
    supporters: list[str] = (),
    incendiary: bool = False,
    opts: Options = DEFAULT,
) -> Resolution:
    """§8.4 announced fire at a building, bridge or obstacle: WZ 6+ counting its resistance, then 4+."""
    b = pos.piece(battery_id)
    if weapon(b, opts) != "artillery":
        raise InputError(f"{b.id}: only artillery fires at buildings, bridges and obstacles (§8.4)")
    if b.moved or b.fired:
        raise InputError(f"{b.id}: has moved or fired this turn (§5.2)")
    kind, resistance, label = _structure(pos, target_field, edge)
    aim = target_field if target_field is not None else edge[0]
    if edge is not None and distance(b.field, edge[1]) < distance(b.field, edge[0]):
        aim = edge[1]
    d = distance(b.field, aim)
    if d > RANGES["artillery"]:
        raise InputError(f"{b.id}: {label} is {d} LE away, artillery reaches 8 LE (§7)")
    if d and not in_front_arc(b.field, b.facing, aim):
        raise InputError(f"{b.id}: {label} is outside the front arc (§3.6)")
    line = trace(pos, b.field, aim, b, "artillery", opts)
    if d and not line.clear:
        raise InputError(f"{b.id}: fire line to {label} blocked: {'; '.join(line.reasons)}")
    sups = [pos.piece(i) for i in supporters]
    for s in sups:
        if s.side != b.side or not is_artillery(s):
            raise InputError(f"supporter {s.id}: only own batteries can combine fire at {label} (§8.4)")
    mods: list[Modifier] = [(f"support by {s.id} (§8.5)", 1) for s in sups]
    rb = range_bonus("artillery", d, opts)
    if rb:
        mods.append((f"range {d} LE (§7)", rb))
    if resistance:
        mods.append((f"resistance of the {label} (§8.4)", -resistance))
    pen = marker_penalty(b, opts)
    if pen:
        mods.append(("own markers (§8.3)", -pen))
    if b.elite:
        mods.append(("elite troops", b.elite))
    roll = dice.d6()
    wz = _wz(roll, mods, opts)
    st = _State(pos, opts)
    st.set(b, None, fired=True)
    res = Resolution("bombard", pos, pos, attacker={"piece": b.id, "roll": roll,
                                                   "modifiers": modifiers_json(mods), "wz": wz})
    res.extra["target"] = label
    if wz < 6:
        res.effect = "none"
        res.notes.append(f"WZ {wz}: below 6, no effect on the {label} (§8.4)")
    else:
        second = dice.d6()
        res.loss_test = {"roll": second, "needed": 4, "destroyed": second >= 4}
        if second < 4:
            res.effect = "none"
        elif incendiary:
            if kind == "obstacle" or (kind == "bridge" and pos.field_state(target_field).bridge == "stone"):
                raise InputError(f"the {label} cannot burn (§9)")
            res.effect = "burning"
            st.fields[target_field] = replace(pos.field_state(target_field), burning=True)
        elif kind == "building":
            res.effect = "cover_lost"
            s = pos.field_state(target_field)
            st.fields[target_field] = replace(s, cover_lost=min(2, s.cover_lost + 1))
        elif kind == "bridge":
            res.effect = "bridge_damaged"
            st.fields[target_field] = replace(pos.field_state(target_field), damaged=True)
        else:
            res.effect = "obstacle_removed"
            st.edges = [e for e in st.edges if frozenset(e.fields) != frozenset(edge)]
    res.winner = "attacker" if res.effect != "none" else "defender"
    res.after, res.why = st.position(), st.why
    return res


WORKS = ("remove_obstacle", "make_passable", "build_barricade", "arson", "extinguish", "repair_bridge",
         "demolition", "build_bridge")


def defile(pos: WienerPosition, f: Field) -> bool:
    """§5.6 a field with impassable or difficult terrain on both sides (W and E, or N and S)."""
    hard = ("wood", "town", "church", "swamp", "water", "mountain")

    def h(g: Field) -> bool:
        return pos.on_grid(g) and pos.terrain(g) in hard

    x, y = f
    return (h((x - 1, y)) and h((x + 1, y))) or (h((x, y - 1)) and h((x, y + 1)))


def resolve_work(
    pos: WienerPosition,
    worker_id: str,
    work: str,
    target_field: Field | None,
    edge: tuple[Field, Field] | None,
    dice: Dice,
    objector_id: str | None = None,
    obstacle: str = "barricade",
    opts: Options = DEFAULT,
) -> Resolution:
    """§8.12 work from a Nachbarfeld: D6 with negative factors only, 4+; an adjacent unengaged enemy base may
    object and spoils the work with an equal or higher roll."""
    w = pos.piece(worker_id)
    if work not in WORKS:
        raise InputError(f"unknown work {work!r} (one of {' '.join(WORKS)})")
    if w.black:
        raise InputError(f"{w.id}: fleeing troops cannot work (§8.3)")
    if work in ("demolition", "build_bridge") and w.type != "pioneers":
        raise InputError(f"{w.id}: {work.replace('_', ' ')} needs pioneers (§8.12)")
    site = [edge[0], edge[1]] if edge is not None else [target_field]
    if site[0] is None:
        raise InputError(f"{work}: name the field (--field) or the edge (--edge)")
    if not any(distance(w.field, s) <= 1 for s in site):
        raise InputError(f"{w.id}: work is done from a Nachbarfeld of the site (§8.12)")
    st = _State(pos, opts)
    res = Resolution("work", pos, pos)
    res.extra["work"] = work
    e = pos.edge(*edge) if edge is not None else None
    s = pos.field_state(target_field) if target_field is not None else None
    if work in ("remove_obstacle", "make_passable") and e is None:
        raise InputError(f"{work}: no obstacle on that edge")
    if work == "make_passable" and e.obstacle not in ("ditch", "stream"):
        raise InputError("make_passable: only ditches and streams are made passable; remove other obstacles")
    if work == "build_barricade":
        if edge is None:
            raise InputError("build_barricade: name the edge (--edge)")
        if e is not None:
            raise InputError("build_barricade: that edge already carries an obstacle")
        if obstacle not in OBSTACLES:
            raise InputError(f"unknown obstacle {obstacle!r}")
        if not (defile(pos, edge[0]) or defile(pos, edge[1])):
            raise InputError("barricades are built only in defiles (§5.6, §8.12)")
    if work in ("arson", "extinguish"):
        if s is None or (s.terrain not in ("town", "church") and not (s.bridge == "wood")):
            raise InputError(f"{work}: name a building or wooden bridge field (--field)")
        if work == "extinguish" and not s.burning:
            raise InputError("extinguish: nothing burns there")
        if work == "arson" and pos.occupants.get(target_field):
            res.effect = "none"
            res.notes.append("troops inside the object prevent the fire without a roll (§9)")
            return res
    if work == "repair_bridge":
        if s is None or not s.bridge or not s.damaged:
            raise InputError("repair_bridge: name a damaged bridge field (--field)")
        if w.moved or w.fired or w.fought:
            raise InputError(f"{w.id}: a bridge is repaired only by troops that have not moved or fought (§9)")
    mods: list[Modifier] = []
    pen = marker_penalty(w, opts)
    if pen:
        mods.append(("own markers (§8.12 negative factors only)", -pen))
    roll = dice.d6()
    wz = roll + max(-4, -pen)
    res.attacker = {"piece": w.id, "roll": roll, "modifiers": modifiers_json(mods), "wz": wz, "needed": 4}
    ok = wz >= 4
    if objector_id:
        o = pos.piece(objector_id)
        if o.side == w.side:
            raise InputError(f"objector {o.id}: must be an enemy piece")
        if not any(distance(o.field, x) <= 1 for x in site):
            raise InputError(f"objector {o.id}: must stand in a Nachbarfeld of the work (§11 A38)")
        if o.black or o.fired or o.working:
            raise InputError(f"objector {o.id}: must be an unengaged base (§8.12)")
        open_ = marker_penalty(o, opts)
        oroll = dice.d6()
        owz = oroll - min(4, open_)
        res.defender = {"piece": o.id, "roll": oroll, "wz": owz, "responded": True,
                        "modifiers": modifiers_json([("own markers", -open_)] if open_ else [])}
        if owz >= wz:
            ok = False
            res.notes.append(f"objection {owz} >= {wz}: the work fails this turn (§8.12)")
    res.winner = "attacker" if ok else "defender"
    res.effect = "done" if ok else "failed"
    st.set(w, None, working=True)
    if ok:
        if work == "remove_obstacle":
            st.edges = [x for x in st.edges if frozenset(x.fields) != frozenset(edge)]
        elif work == "make_passable":
            st.edges = [replace(x, crossing=True) if frozenset(x.fields) == frozenset(edge) else x for x in st.edges]
        elif work == "build_barricade":
            from rules.wiener.model import Edge

            st.edges.append(Edge(edge, obstacle))
        elif work == "arson":
            st.fields[target_field] = replace(s, burning=True)
        elif work == "extinguish":
            st.fields[target_field] = replace(s, burning=False)
        elif work == "repair_bridge":
            st.fields[target_field] = replace(s, damaged=False)
        elif work == "demolition":
            if s is None or not s.bridge:
                raise InputError("demolition: name a bridge field (--field)")
            st.fields[target_field] = replace(s, damaged=True)
        elif work == "build_bridge":
            if s is None or s.terrain != "water":
                raise InputError("build_bridge: name a water field (--field)")
            st.fields[target_field] = replace(s, bridge="wood", damaged=False)
    res.after, res.why = st.position(), st.why
    return res


def line_summary(a: Field, b: Field) -> dict:
    crossed, corners = line_fields(a, b)
    return {"crossed": [field_name(*f) for f in crossed],
            "corners": [[field_name(*p), field_name(*q)] for p, q in corners]}
