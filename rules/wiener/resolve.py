"""The second question of the table: what happens with these dice?

Duels of fire and melee (§8.1) with the results table (§8.2), markers (§8.3), loss tests, flight, follow-up,
domino, capitulation and demoralisation (§8.8), skirmisher withdrawal (§8.9), generals' re-roll (§8.11),
Gegenzug (§8.4), rally (§8.10), firing at structures (§8.4) and work rolls (§8.12).
Every function returns a `Resolution`: the rolls, modifiers, WZ, winner, effect, the changed pieces and the
position after.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from common.dice import Dice
from common.errors import InputError
from common.fields import field_name
from rules.geometry import Field, distance, facing_towards, in_front_arc, neighbours, step, turn
from rules.wiener.combat import (
    Modifier,
    attack_reason,
    control_zone,
    defence_reason,
    fire_check,
    melee_check,
    melee_modifiers,
    modifiers_json,
    simultaneity_reasons,
    supporter_reasons,
)
from rules.wiener.model import OBSTACLES, Edge, FieldState, WienerPiece, WienerPosition, piece_to_dict, position_to_dict
from rules.wiener.movement import (
    IMPASSABLE_OBSTACLES,
    check_move,
    diagonal_step,
    edge_crossing,
    may_enter,
    stacking_problems,
)
from rules.wiener.options import DEFAULT, Options
from rules.wiener.sight import trace
from rules.wiener.tables import (
    RANGES,
    add_marker,
    all_round,
    cap,
    effect_of,
    is_artillery,
    is_formed,
    is_skirmisher,
    marker_penalty,
    range_bonus,
    speed,
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
    evade: int | None = None  # the target evades the attack by this many LE (§5.5, §8.7)


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
        for pid, q in new.items():
            if pid not in old:
                out.append({"piece": pid, "added": True, **piece_to_dict(q), "why": self.why.get(pid, [])})
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
_DEFAULTS = {"marker": "none", "fired": False, "shot_out": False, "fought": False, "rerolled": False,
             "moved": False, "gegenzug": []}


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
        order += [pid for pid in self.pieces if pid not in self.pos.by_id]
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


def _rejoins_parent(st: _State, p: WienerPiece) -> bool:
    """§8.9 a fleeing skirmisher withdraws into its parent as its rearmost base, if the field has room."""
    if not (is_skirmisher(p) and p.parent and st.get(p.parent)):
        return False
    parent = st.get(p.parent)
    if sum(q.bases for q in st.at(parent.field) if q.type == "infantry") >= 3:
        return False
    st.set(parent, f"skirmisher {p.id} rejoined as the rearmost base (§8.9)", bases=parent.bases + 1)
    st.remove(p, f"withdrew into its parent {parent.id}, markers not passed on (§8.9)")
    return True


def _flight_blocked(st: _State, pos: WienerPosition, p: WienerPiece, cur: Field, nxt: Field) -> str | None:
    """Why the fleeing p cannot go on from cur into nxt (it capitulates, §8.8), or None."""
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
    return reason


def _absorbed(st: _State, p: WienerPiece, own: list[WienerPiece]) -> bool:
    """§11 A16 a single fleeing infantry base that runs into at most 2 bases of own line infantry is absorbed:
    no domino, its markers pass on."""
    inf = [q for q in own if q.type == "infantry" and not is_skirmisher(q)]
    if not (
        st.opts.absorb_fleeing_base
        and p.type == "infantry"
        and p.bases == 1
        and len(inf) == len(own)
        and sum(q.bases for q in inf) <= 2
    ):
        return False
    host = inf[0]
    passed = tuple(m for m in p.markers if m != "black")
    st.set(host, f"absorbed fleeing {p.id}" + (", took its markers" if passed else "") + " (§11 A16)",
           bases=host.bases + 1, markers=host.markers + passed)
    st.remove(p, f"fled into {host.id} and was absorbed (§11 A16)")
    return True


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
    if _rejoins_parent(st, p):
        return
    cur = p.field
    pos = st.view()
    for _ in range(dist):
        nxt = step(cur, direction)
        reason = _flight_blocked(st, pos, p, cur, nxt)
        if reason:
            st.remove(p, f"flight impossible ({reason}): capitulates (§8.8)")
            return
        own = [q for q in st.at(nxt) if q.id not in seen]
        if own:
            if _absorbed(st, p, own):
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
    retreat: list[Field] | None = None,
) -> Resolution:
    """§8.4 a fire duel: the shooter rolls, the target counter-fires if able; the loser takes the effect.
    With `retreat` (the fields moved through, backwards): infantry fires, then retreats with Red (§5.5, §11 A18)."""
    choices = choices or Choices()
    a, t = pos.piece(attacker_id), pos.piece(target_id)
    if retreat is not None:
        _retreat_allowed(pos, a, gegenzug, opts)
    st = _State(pos, opts)
    res = Resolution("gegenzug" if gegenzug else "fire", pos, pos)
    duel = _fire_duel(pos, st, a, t, supporters, defender_supporters, dice, choices, opts, gegenzug)
    res.attacker, res.defender, res.winner = duel.attacker, duel.defender, duel.winner
    res.notes += duel.notes
    if duel.loser is not None:
        res.effect = effect_of(duel.wz, opts)
        apply_effect(st, st.get(duel.loser.id), res.effect, dice, loss_die, res)
    res.notes.append("fire never displaces a unit (§8.4)")
    if retreat is not None:
        _retreat_after_fire(st, a, retreat, res)
    res.after = st.position()
    res.why = st.why
    return res


@dataclass
class _FireDuel:
    attacker: dict
    defender: dict
    winner: str
    loser: WienerPiece | None
    wz: int
    notes: list[str]


def _fire_duel(pos: WienerPosition, st: _State, a: WienerPiece, t: WienerPiece, supporters, defender_supporters,
               dice: Dice, choices: Choices, opts: Options, gegenzug: bool = False) -> _FireDuel:
    """§8.4 conditions, both rolls on `pos` as it stood, the winner (§8.1); sets the per-turn flags in st."""
    sups = _supporters(pos, list(supporters), a, t, "fire", opts)
    chk = fire_check(pos, a, t, opts, sups, response=gegenzug)
    if not chk.allowed:
        raise InputError(f"{a.id} cannot fire at {t.id}: {chk.reason}")
    counter = fire_check(pos, t, a, opts, response=True)
    if counter.allowed and defender_supporters:
        dsups = _supporters(pos, list(defender_supporters), t, a, "fire", opts)
        counter = fire_check(pos, t, a, opts, dsups, response=True)
    ga = attached_general(st, a)
    roll, first, used = _roll(dice, ga, "attacker" in choices.reroll)
    if used:
        st.set(ga, f"re-roll for {a.id} used (§8.11)", rerolled=True)
    att = Roller(roll, chk.modifiers, _wz(roll, chk.modifiers, opts), first)
    attacker = att.as_dict(a.id, weapon=chk.weapon)
    if counter.allowed:
        gd = attached_general(st, t)
        droll, dfirst, dused = _roll(dice, gd, "defender" in choices.reroll)
        if dused:
            st.set(gd, f"re-roll for {t.id} used (§8.11)", rerolled=True)
        dfn = Roller(droll, counter.modifiers, _wz(droll, counter.modifiers, opts), dfirst)
        defender = dfn.as_dict(t.id, responded=True, weapon=counter.weapon)
        if att.wz > dfn.wz:
            winner, loser, wz = "attacker", t, att.wz
        elif dfn.wz > att.wz:
            winner, loser, wz = "defender", a, dfn.wz
        else:
            winner, loser, wz = "draw", None, att.wz  # §8.1 equal WZ: a draw, no effect
    else:
        defender = {"piece": t.id, "responded": False, "reason": counter.reason}
        winner, loser, wz = "attacker", t, att.wz  # §11 A39 no counter-fire: the shooter's WZ applies
    cur = st.get(a.id)
    st.set(cur, None, fired=not gegenzug or cur.fired, shot_out=gegenzug or cur.shot_out, fought=True)
    if counter.allowed and st.get(t.id) is not None:
        st.set(st.get(t.id), None, fought=True)
    return _FireDuel(attacker, defender, winner, loser, wz, list(chk.warnings))


def _retreat_allowed(pos: WienerPosition, a: WienerPiece, gegenzug: bool, opts: Options) -> None:
    """§5.5 [L:Rückzugsgefecht], §11 A18: only infantry-type troops fire and then retreat, in the active phase."""
    if not opts.infantry_fire_then_retreat:
        raise InputError(f"{a.id}: a retreat cannot be combined with fire under these options (§5.2, §11 A18)")
    if gegenzug:
        raise InputError(f"{a.id}: a retreat is an active-phase move, not part of a Gegenzug (§5.5)")
    if not (a.type == "infantry" or (a.type == "light_cavalry" and a.formation == "dismounted")):
        raise InputError(f"{a.id}: only infantry (and dismounted troops) fire and then retreat (§5.5, §11 A18)")


def _retreat_after_fire(st: _State, a: WienerPiece, path: list[Field], res: Resolution) -> None:
    """The movement comes after the fire: about-face, march, about-face, faces toward the enemy, Red (§5.2 item 5)."""
    p = st.get(a.id)
    if p is None:
        res.notes.append(f"{a.id} is gone: no retreat")
        return
    chk = check_move(st.view(), p, path, opts=st.opts)
    if not chk.legal:
        raise InputError(f"{a.id} cannot retreat along {','.join(field_name(*f) for f in path)}: {chk.reasons[0]}")
    if is_formed(p) and not any("moved back" in r for r in chk.red):
        raise InputError(f"{a.id}: a retreat moves straight back against the facing (§5.2 item 5)")
    p = st.set(p, f"retreated after firing to {field_name(*path[-1])}, facing kept (§5.5, §11 A18)",
               field=path[-1], moved=True)
    st.mark(p, "red", "fire and retreat: Red (§5.5 Rückzugsgefecht)")
    for pid in chk.interpenetrated:
        st.mark(st.get(pid), "red", f"{a.id} retreated through it: Red for both (§5.5)")
    res.extra["retreat"] = [field_name(*f) for f in path]


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
    # §8.4 one Gegenzug per unit per target: remembered in the reactor's per-turn record
    res.after = res.after.with_pieces(replace(q, gegenzug=q.gegenzug + (m.id,)) if q.id == r.id else q
                                      for q in res.after.pieces)
    res.why.setdefault(r.id, []).append(f"fired its Gegenzug at {m.id}: no second one at it this turn (§8.4)")
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
        if m.id in r.gegenzug:
            reason = f"{r.id} already fired a Gegenzug at {m.id} this turn: one per unit per target (§8.4)"
        elif d > 4:
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
    """§8.7 a melee duel and its consequences (§8.8): flight, loss test, domino, demoralisation, follow-up; the
    passive side may evade (§5.5, §8.7 step 2); a fleeing target is pursued (§8.8 item 9)."""
    choices = choices or Choices()
    a, t = pos.piece(attacker_id), pos.piece(target_id)
    r = attack_reason(pos, a, t, opts)
    if r:
        raise InputError(f"{a.id} cannot attack {t.id}: {r}")
    sups = _supporters(pos, list(supporters), a, t, "melee", opts)
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

    if choices.evade:  # §5.5 / §8.7 step 2: evasion by faster troops that recognise the attack
        evade(st, a, t, attack_dir, choices.evade)
        res.attacker = {"piece": a.id, "roll": None}
        res.defender = {"piece": t.id, "responded": False, "reason": "evaded the attack"}
        res.winner, res.effect = "draw", "none"
        res.extra["evaded"] = True
        res.notes.append(f"{t.id} evaded: the melee is avoided (§8.7 evasion)")
        res.after, res.why = st.position(), st.why
        return res

    if t.black:  # §8.8 item 9 pursuit of a fleeing troop
        return _pursuit(st, res, a, t, sups, attack_dir, dice, choices, loss_die, opts)

    duel = _melee_duel(pos, st, a, t, sups, defender_supporters, dice, choices, opts)
    res.attacker, res.defender = duel.attacker, duel.defender
    if duel.winner == "draw":
        res.winner, res.effect = "draw", "none"  # §8.1 tie: a draw, nobody moves
        res.after, res.why = st.position(), st.why
        return res
    if duel.winner == "fire_rule":  # §11 A20 alternative: an undefended melee's WZ applied as in fire
        res.winner = "attacker"
        res.effect = effect_of(duel.wz, opts)
        apply_effect(st, st.get(t.id), res.effect, dice, loss_die, res)
        res.after, res.why = st.position(), st.why
        return res
    res.winner = duel.winner
    winner, loser = (a, t) if duel.winner == "attacker" else (t, a)
    _melee_consequences(st, res, a, winner, loser, duel.wz, attack_dir, duel.no_defence is not None, dice, choices,
                        loss_die, opts)
    res.after, res.why = st.position(), st.why
    return res


@dataclass
class _Duel:
    attacker: dict
    defender: dict
    winner: str  # attacker | defender | draw | fire_rule (§11 A20 alternative)
    wz: int  # the winner's WZ
    no_defence: str | None


def _melee_duel(pos, st: _State, a: WienerPiece, t: WienerPiece, sups, defender_supporters, dice: Dice,
                choices: Choices, opts: Options) -> _Duel:
    """§8.7 both roll with the melee modifiers; the higher WZ wins (§8.1). Rolls on `pos` as it stood."""
    chk = melee_check(pos, a, t, opts, sups)
    ga = attached_general(st, a)
    roll, first, used = _roll(dice, ga, "attacker" in choices.reroll)
    if used:
        st.set(ga, f"re-roll for {a.id} used (§8.11)", rerolled=True)
    att = Roller(roll, chk.modifiers, _wz(roll, chk.modifiers, opts), first)
    no_defence = defence_reason(pos, t, a)
    if no_defence is not None:
        winner = "attacker" if opts.undefended_melee_attacker_wins else "fire_rule"
        return _Duel(att.as_dict(a.id), {"piece": t.id, "responded": False, "reason": no_defence}, winner, att.wz,
                     no_defence)
    dsups = _supporters(pos, list(defender_supporters), t, a, "melee", opts) if defender_supporters else ()
    dmods = melee_modifiers(pos, t, a, False, dsups, opts)
    gd = attached_general(st, t)
    droll, dfirst, dused = _roll(dice, gd, "defender" in choices.reroll)
    if dused:
        st.set(gd, f"re-roll for {t.id} used (§8.11)", rerolled=True)
    dfn = Roller(droll, dmods, _wz(droll, dmods, opts), dfirst)
    if st.get(t.id) is not None:
        st.set(st.get(t.id), None, fought=True)
    if att.wz > dfn.wz:
        winner, wz = "attacker", att.wz
    elif dfn.wz > att.wz:
        winner, wz = "defender", dfn.wz
    else:
        winner, wz = "draw", att.wz
    return _Duel(att.as_dict(a.id), dfn.as_dict(t.id, responded=True), winner, wz, None)


def _melee_consequences(st: _State, res: Resolution, a: WienerPiece, winner: WienerPiece, loser: WienerPiece,
                        wz: int, attack_dir: str, undefended: bool, dice: Dice, choices: Choices,
                        loss_die: int | None, opts: Options, flight: int | None = None) -> None:
    """§8.8: the loser flees whatever the WZ (6+ also a loss test first), domino, demoralisation, follow-up."""
    res.effect = effect_of(wz, opts)
    loser_field = loser.field
    if res.effect == "loss_test":
        apply_effect(st, st.get(loser.id), "loss_test", dice, loss_die, res)
    elif flight is not None and res.effect in ("red", "grey"):  # §8.8 item 9: pursued, it accepts any effect
        apply_effect(st, st.get(loser.id), res.effect, dice, loss_die, res)
    dist = flight or choices.flight_distance or opts.flight_distance
    sweep = opts.sweep_own_troops if choices.sweep is None else choices.sweep
    flight_dir = attack_dir if loser.id != a.id else turn(attack_dir, 4)  # §11 A15
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
    if winner.id == a.id:
        _follow_up(st, res, a, loser_field, undefended, choices)


def _follow_up(st: _State, res: Resolution, a: WienerPiece, loser_field: Field, must: bool, choices: Choices) -> None:
    """§8.8 item 4: the winner may (must when undefended) move into the loser's field."""
    follow = must or bool(choices.follow_up)
    if follow and not st.at(loser_field):
        w = st.get(a.id)
        text = "must follow up into" if must else "follows up into"
        start = w.field
        w = st.set(w, f"{text} {field_name(*loser_field)} (§8.8)", field=loser_field)
        t_now = st.pos.terrain(loser_field)
        if is_formed(w) and t_now in ("wood", "town", "church"):
            st.mark(w, "red", f"entered the {t_now} after winning: Red (§8.7)")
        elif is_formed(w) and edge_crossing(st.pos, w, start, loser_field)[1]:
            st.mark(w, "red", "crossed the obstacle following up: Red (§8.7)")
    elif follow:
        res.notes.append(f"{field_name(*loser_field)} is still occupied: no follow-up")


def _pursuit(st: _State, res: Resolution, a: WienerPiece, t: WienerPiece, sups, attack_dir: str, dice: Dice,
             choices: Choices, loss_die: int | None, opts: Options) -> Resolution:
    """§8.8 item 9: a fleeing troop attacked by superior speed capitulates; otherwise it accepts the attacker's
    effect without defence and continues its flight by 1 LE."""
    pos = res.before
    res.extra["pursuit"] = True
    fast, slow = speed(a, pos.night)["field"], speed(t, pos.night)["field"]
    if fast > slow:
        res.attacker = {"piece": a.id, "roll": None}
        res.defender = {"piece": t.id, "responded": False, "reason": "fleeing (Black): no defence (§8.3)"}
        res.winner, res.effect = "attacker", "capitulated"
        field_ = t.field
        for q in [q for q in st.at(field_) if q.side == t.side]:
            st.remove(q, f"fleeing, caught by the faster {a.id} ({fast} against {slow} LE): capitulates (§8.8 pursuit)")
        _follow_up(st, res, a, field_, True, choices)
        res.after, res.why = st.position(), st.why
        return res
    chk = melee_check(pos, a, t, opts, sups)
    ga = attached_general(st, a)
    roll, first, used = _roll(dice, ga, "attacker" in choices.reroll)
    if used:
        st.set(ga, f"re-roll for {a.id} used (§8.11)", rerolled=True)
    att = Roller(roll, chk.modifiers, _wz(roll, chk.modifiers, opts), first)
    res.attacker = att.as_dict(a.id)
    res.defender = {"piece": t.id, "responded": False, "reason": "fleeing (Black): no defence (§8.3)"}
    res.winner = "attacker"
    res.notes.append(f"pursued at equal speed: {t.id} accepts the effect without defence and flees on 1 LE (§8.8)")
    _melee_consequences(st, res, a, a, t, att.wz, attack_dir, True, dice, choices, loss_die, opts, flight=1)
    res.after, res.why = st.position(), st.why
    return res


def evade(st: _State, a: WienerPiece, t: WienerPiece, direction: str, dist: int) -> None:
    """§5.5 / §8.7 step 2 / §11 A35: the target withdraws up to its speed away from the attack, faces kept toward
    the enemy, Red (skirmishers: none). Only troops faster than the attacker that recognise the attack."""
    pos = st.pos
    why = None
    fast, slow = speed(t, pos.night)["field"], speed(a, pos.night)["field"]
    if t.black or t.working:
        why = "fleeing or working troops cannot react (§4)"
    elif fast <= slow:
        why = f"only troops with superior speed evade ({fast} LE against {slow} LE, §5.5)"
    elif not (all_round(t) or in_front_arc(t.field, t.facing, a.field)):
        why = "the attack comes from flank or rear: it is not recognised (§3.6, §5.5)"
    elif not 1 <= dist <= fast:
        why = f"evasion is 1 to {fast} LE, its speed (§11 A35)"
    cur = t.field
    if why is None:
        for _ in range(dist):
            nxt = step(cur, direction)
            why = may_enter(pos, t, nxt)
            if why is None and nxt[0] != cur[0] and nxt[1] != cur[1]:
                why = diagonal_step(pos, t, cur, nxt)[0]
            elif why is None:
                why = edge_crossing(pos, t, cur, nxt)[0]
            if why is None and st.at(nxt):
                why = f"{field_name(*nxt)} is occupied: an evasion does not pass through troops (§5.5)"
            if why:
                break
            cur = nxt
    if why:
        raise InputError(f"{t.id} cannot evade {a.id}: {why}")
    text = f"evaded {dist} LE to {field_name(*cur)}, facing kept (§5.5, §8.7)"
    t = st.set(t, text, field=cur)
    if not is_skirmisher(t):
        st.mark(t, "red", "withdrew before the attack: Red (§8.7)")


# ---------------------------------------------------------------- simultaneity (§8.6), counter-attack (§8.7)

_STRENGTH = {"none": 0, "red": 1, "grey": 2, "loss_test": 3}


def _simultaneous_duels(pos: WienerPosition, st: _State, action: str, actors: list[WienerPiece], t: WienerPiece,
                        dice: Dice, choices: Choices, opts: Options) -> list:
    """§8.6 every actor's duel with the target, each rolled on the position as it stood before any of them."""
    if action != "melee":
        return [_fire_duel(pos, st, a, t, (), (), dice, choices, opts) for a in actors]
    for a in actors:
        r = attack_reason(pos, a, t, opts)
        if r:
            raise InputError(f"{a.id} cannot attack {t.id}: {r}")
        st.set(st.get(a.id), None, fought=True, charged=a.charged or (a.lancer and a.type == "light_cavalry"))
    return [_melee_duel(pos, st, a, t, (), (), dice, choices, opts) for a in actors]


def _hit(st: _State, res: Resolution, who: WienerPiece, wz: int, dice: Dice, ld: int | None,
         opts: Options) -> tuple[str, int | None]:
    """A WZ's results band applied to `who` if still there (§8.2): (the band, the loss die still unused)."""
    eff = effect_of(wz, opts)
    if st.get(who.id) is not None:
        apply_effect(st, st.get(who.id), eff, dice, ld, res)
        if eff == "loss_test":
            ld = None
    return eff, ld


def _simultaneous_fire_results(st: _State, res: Resolution, t: WienerPiece, won: list, lost: list, dice: Dice,
                               ld: int | None, opts: Options) -> list[str]:
    """Each fire duel's result on its loser, in the declared order; the bands of the winning side's hits."""
    effects: list[str] = []
    for d, a in won + lost:
        who = t if d.winner == "attacker" else a
        eff, ld = _hit(st, res, who, d.wz, dice, ld, opts)
        if (who is t) == bool(won):
            effects.append(eff)
    return effects


def _simultaneous_melee_results(st: _State, res: Resolution, t: WienerPiece, won: list, lost: list, dice: Dice,
                                choices: Choices, ld: int | None, opts: Options) -> list[str]:
    """§8.8 each actor that lost its duel flees itself; the target flees once, from the winner with the highest
    WZ; a duel won under the fire rule (§11 A20) applies its WZ as in fire, no flight."""
    effects: list[str] = []
    for d, a in lost:
        if st.get(a.id) is not None:
            _melee_consequences(st, res, a, t, st.get(a.id), d.wz, facing_towards(a.field, t.field), False,
                                dice, choices, ld, opts)
            ld = None if res.loss_test else ld
            effects.append(res.effect)
    best = [(d, a) for d, a in won if d.winner == "attacker"]
    for d, _a in won:
        if d.winner == "fire_rule":
            eff, ld = _hit(st, res, t, d.wz, dice, ld, opts)
            effects.insert(0, eff)
    if best and st.get(t.id) is not None:
        d, a = max(best, key=lambda x: x[0].wz)
        effects = []
        _melee_consequences(st, res, a, a, st.get(t.id), d.wz, facing_towards(a.field, t.field),
                            d.no_defence is not None, dice, choices, ld, opts)
        effects.append(res.effect)
    return effects


def resolve_simultaneous(
    pos: WienerPosition,
    action: str,
    actor_ids: list[str],
    target_id: str,
    dice: Dice,
    choices: Choices | None = None,
    loss_die: int | None = None,
    opts: Options = DEFAULT,
) -> Resolution:
    """§8.6 up to 3 unengaged elements, in side fields of one another, with the first one's combat value or more,
    act together against one target. Every duel is rolled on the position as it stood before any of them (that is
    what makes them simultaneous); the target responds in each, one reaction per action (§4); then all results
    apply together, in the declared order. In melee the target flees once, from the winner with the highest WZ."""
    choices = choices or Choices()
    if action not in ("fire", "melee"):
        raise InputError(f"simultaneity is for fire or melee, not {action!r} (§8.6)")
    actors = [pos.piece(i) for i in actor_ids]
    t = pos.piece(target_id)
    problems = simultaneity_reasons(pos, actors, t, action, opts)
    if problems:
        raise InputError(problems[0])
    if len(actors) == 1 or (action == "melee" and (t.black or choices.evade or is_skirmisher(t))):
        # one element, or a target that evades, withdraws or is pursued: no duels to combine
        one = resolve_fire if action == "fire" else resolve_melee
        res = one(pos, actors[0].id, t.id, dice, choices=choices, loss_die=loss_die, opts=opts)
        res.extra["simultaneous"] = [a.id for a in actors]
        return res
    st = _State(pos, opts)
    res = Resolution(action, pos, pos)
    res.extra["simultaneous"] = [a.id for a in actors]
    duels = _simultaneous_duels(pos, st, action, actors, t, dice, choices, opts)
    res.extra["duels"] = [{"attacker": d.attacker, "defender": d.defender, "winner": d.winner} for d in duels]
    res.attacker, res.defender = duels[0].attacker, duels[0].defender
    won = [(d, a) for d, a in zip(duels, actors, strict=True) if d.winner in ("attacker", "fire_rule")]
    lost = [(d, a) for d, a in zip(duels, actors, strict=True) if d.winner == "defender"]
    res.winner = "attacker" if won else "defender" if lost else "draw"
    if action == "fire":
        effects = _simultaneous_fire_results(st, res, t, won, lost, dice, loss_die, opts)
        res.notes += [n for d in duels for n in d.notes] + ["fire never displaces a unit (§8.4)"]
    else:
        effects = _simultaneous_melee_results(st, res, t, won, lost, dice, choices, loss_die, opts)
    res.effect = max(effects, key=lambda e: _STRENGTH.get(e, 0)) if effects else "none"
    res.after, res.why = st.position(), st.why
    return res


def combat_ready(p: WienerPiece) -> bool:
    """§8.7 step 3: not fleeing, not at work, not shot out by a Gegenzug."""
    return not (p.black or p.working or p.shot_out)


def resolve_counterattack(
    pos: WienerPosition,
    reactor_id: str,
    mover_id: str,
    at: Field,
    dice: Dice,
    against: str | None = None,
    path: list[Field] | None = None,
    supporters: list[str] = (),
    choices: Choices | None = None,
    loss_die: int | None = None,
    opts: Options = DEFAULT,
) -> Resolution:
    """§8.7 step 3 Gegenangriff: the passive side pre-empts the action with its own attack when the fields in front of
    a combat-ready troop (its control zone, §3.9, §11 A31) are used as the starting field of an attack against a troop
    that is not combat-ready (`against`), or for an offensive move past it (`path`, Vorbeiziehen). The mover stands
    at `at` and the melee is resolved there, the reactor attacking."""
    r, m = pos.piece(reactor_id), pos.piece(mover_id)
    where = field_name(*at)
    if r.side == m.side:
        raise InputError(f"{r.id} and {m.id} are on the same side")
    if not combat_ready(r) or r.fired:
        raise InputError(f"{r.id} is not combat-ready (fleeing, at work or has fired): no counter-attack (§8.7)")
    if at not in control_zone(pos, r):
        raise InputError(f"{where} is not in the control zone of {r.id}, the fields in front of it (§3.9, §11 A31)")
    if any(q.id != m.id for q in pos.occupants.get(at, ())):
        raise InputError(f"{where} is occupied: {m.id} cannot stand there")
    if against is not None:
        v = pos.piece(against)
        if v.side != r.side:
            raise InputError(f"{v.id}: the attacked troop must be of {r.id}'s side")
        if distance(at, v.field) != 1:
            raise InputError(f"{where} is no starting field for an attack on {v.id}: not a Nachbarfeld (§8.7)")
        if combat_ready(v):
            raise InputError(f"{v.id} is combat-ready: an attack on it allows no counter-attack (§8.7 step 3)")
        why = f"{m.id} uses {where}, in front of {r.id}, to attack {v.id}, which is not combat-ready"
    elif path is not None and at in path and len(path) > 1 and at != path[-1]:
        why = f"{m.id} moves past {r.id} through {where} (Vorbeiziehen)"
    else:
        raise InputError("a counter-attack needs the attacked troop (--against) or the mover's path past the "
                         "reacting troop (--path, the field --at not its last) (§8.7 step 3)")
    moved = pos.with_pieces(replace(q, field=at) if q.id == m.id else q for q in pos.pieces)
    res = resolve_melee(moved, r.id, m.id, dice, supporters, (), choices, loss_die, opts)
    res.action, res.before = "counterattack", pos
    res.extra["counterattack_at"] = where
    res.notes.insert(0, f"counter-attack: {why} (§8.7 step 3)")
    return res


# ---------------------------------------------------------------- continued flight (§8.8), mounting (§4)


def resolve_continued_flight(
    pos: WienerPosition, piece_id: str, turn_eighths: int = 0, choices: Choices | None = None, opts: Options = DEFAULT
) -> Resolution:
    """§8.8 item 8 / §4 step 1: a fleeing troop that failed to rally continues its flight at the start of its next
    active phase, away from the enemy (its figures face away), up to 45 degrees off, 1-2 LE; domino, absorption and
    capitulation as in the first flight."""
    choices = choices or Choices()
    p = pos.piece(piece_id)
    if not p.black:
        raise InputError(f"{p.id} is not fleeing (no Black marker): nothing to continue (§8.8)")
    if turn_eighths not in (-1, 0, 1):
        raise InputError("a continued flight may change its direction by at most 45 degrees (§8.8)")
    direction = turn(p.facing, turn_eighths)
    dist = choices.flight_distance or opts.flight_distance
    sweep = opts.sweep_own_troops if choices.sweep is None else choices.sweep
    st = _State(pos, opts)
    res = Resolution("flight", pos, pos)
    st.note(p.id, f"failed to rally: continues its flight {direction} at the start of its active phase (§8.8)")
    flee(st, p, direction, dist, sweep)
    after = st.get(p.id)
    if after is not None and opts.demoralise_along_flight_path:
        demoralise(st, p, [after.field], {p.id})  # §8.7 a fleeing troop in a Nachbarfeld, §11 A17
    res.winner = None
    res.effect = "fled" if after is not None else "capitulated"
    res.after, res.why = st.position(), st.why
    return res


def fleeing_at_phase_start(pos: WienerPosition, side: str) -> list[str]:
    """§4 step 1: the side's fleeing troops, which must first continue their flight."""
    return [p.id for p in pos.pieces if p.side == side and p.black]


def resolve_mount(pos: WienerPosition, piece_id: str, mount: bool, opts: Options = DEFAULT) -> Resolution:
    """§4 step 1 [L:Ab- und Aufsitzen]: light cavalry mounts or dismounts, announced, at the start of its active
    phase before any movement or combat (it may still fight afterwards, as dismounted troops with small arms)."""
    p = pos.piece(piece_id)
    want = "mounted" if mount else "dismounted"
    if p.type != "light_cavalry":
        raise InputError(f"{p.id}: only light cavalry mounts and dismounts (§2.1, §4)")
    if p.formation == want:
        raise InputError(f"{p.id} is already {want}")
    if p.black or p.working:
        raise InputError(f"{p.id}: fleeing or working troops cannot {'mount' if mount else 'dismount'} (§4)")
    if p.moved or p.road_march or p.fired or p.fought:
        raise InputError(f"{p.id}: mounting and dismounting come at the start of the active phase, before it moved "
                         f"or fought (§4)")
    if mount:
        why = may_enter(pos, replace(p, formation="mounted"), p.field)
        if why:
            raise InputError(f"{p.id} cannot mount here: {why}")
    st = _State(pos, opts)
    st.set(p, f"{want} at the start of the active phase (§4)", formation=want)
    res = Resolution("mount" if mount else "dismount", pos, pos, effect=want)
    res.after, res.why = st.position(), st.why
    return res


def resolve_general_replacement(
    pos: WienerPosition, general_id: str, side: str, at: Field, dice: Dice, opts: Options = DEFAULT
) -> Resolution:
    """§8.11: a lost general is replaced by higher command on a D6 roll of 6, rolled each turn; the replacement
    arrives at the rear table edge. Neither the moment of the roll (§4) nor which edge is a side's rear is given, so
    the player rolls once per turn and names the arrival field, which must lie on a table edge."""
    if general_id in pos.by_id:
        raise InputError(f"{general_id} is still on the table: only a lost general is replaced (§8.11)")
    where = field_name(*at)
    if not (at[0] in (0, pos.cols - 1) or at[1] in (0, pos.rows - 1)):
        raise InputError(f"{where} is not on a table edge: the replacement arrives at the rear edge (§8.11)")
    if any(q.side != side for q in pos.occupants.get(at, ())):
        raise InputError(f"{where} holds enemy troops")
    roll = dice.d6()
    res = Resolution("replace_general", pos, pos, attacker={"piece": general_id, "roll": roll, "needed": 6})
    st = _State(pos, opts)
    if general_replaced(roll):
        centre = (pos.cols // 2, pos.rows // 2)
        g = WienerPiece(general_id, side, "general", at, facing_towards(at, centre))
        st.pieces[g.id] = g
        st.note(g.id, f"replaced on a 6: arrives at {where} (§8.11)")
        problems = stacking_problems(st.view(), at, opts=opts)
        if problems:
            raise InputError(problems[0])
        res.winner, res.effect = "attacker", "replaced"
    else:
        res.winner, res.effect = "defender", "none"
        res.notes.append(f"rolled {roll}: no replacement this turn, roll again next turn (§8.11)")
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


def _bombard_distance(pos: WienerPosition, b: WienerPiece, target_field: Field | None,
                      edge: tuple[Field, Field] | None, label: str, opts: Options) -> int:
    """The battery's distance to the structure (an edge's nearer field), which must be in range (§7), in its
    front arc (§3.6) and on a clear fire line."""
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
    return d


def _bombard_modifiers(pos: WienerPosition, b: WienerPiece, supporters: list[str], d: int, resistance: int,
                       label: str, opts: Options) -> list[Modifier]:
    """§8.4 own batteries combining fire, the range, the structure's resistance, own markers and elite."""
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
    return mods


def _bombard_hit(pos: WienerPosition, st: _State, kind: str, label: str, target_field: Field | None,
                 edge: tuple[Field, Field] | None, incendiary: bool) -> str:
    """§8.4 / §9 a structure hit: set on fire (incendiary), a building's cover shot away, a bridge damaged or an
    obstacle removed; the effect's name."""
    if incendiary:
        if kind == "obstacle" or (kind == "bridge" and pos.field_state(target_field).bridge == "stone"):
            raise InputError(f"the {label} cannot burn (§9)")
        st.fields[target_field] = replace(pos.field_state(target_field), burning=True)
        return "burning"
    if kind == "building":
        s = pos.field_state(target_field)
        st.fields[target_field] = replace(s, cover_lost=min(2, s.cover_lost + 1))
        return "cover_lost"
    if kind == "bridge":
        st.fields[target_field] = replace(pos.field_state(target_field), damaged=True)
        return "bridge_damaged"
    st.edges = [e for e in st.edges if frozenset(e.fields) != frozenset(edge)]
    return "obstacle_removed"


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
    d = _bombard_distance(pos, b, target_field, edge, label, opts)
    mods = _bombard_modifiers(pos, b, supporters, d, resistance, label, opts)
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
        else:
            res.effect = _bombard_hit(pos, st, kind, label, target_field, edge, incendiary)
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


def _check_worker(w: WienerPiece, work: str) -> None:
    if work not in WORKS:
        raise InputError(f"unknown work {work!r} (one of {' '.join(WORKS)})")
    if w.black:
        raise InputError(f"{w.id}: fleeing troops cannot work (§8.3)")
    if work in ("demolition", "build_bridge") and w.type != "pioneers":
        raise InputError(f"{w.id}: {work.replace('_', ' ')} needs pioneers (§8.12)")


def _check_edge_work(pos: WienerPosition, work: str, e: Edge | None, edge: tuple[Field, Field] | None,
                     obstacle: str) -> None:
    """Work on an edge: an obstacle to remove, a ditch or stream to make passable, a barricade in a defile (§5.6)."""
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


def _check_field_work(w: WienerPiece, work: str, s: FieldState | None) -> None:
    """Work on a field: fire set to or put out in a building or wooden bridge, a damaged bridge repaired (§9)."""
    if work in ("arson", "extinguish"):
        if s is None or (s.terrain not in ("town", "church") and not (s.bridge == "wood")):
            raise InputError(f"{work}: name a building or wooden bridge field (--field)")
        if work == "extinguish" and not s.burning:
            raise InputError("extinguish: nothing burns there")
    if work == "repair_bridge":
        if s is None or not s.bridge or not s.damaged:
            raise InputError("repair_bridge: name a damaged bridge field (--field)")
        if w.moved or w.fired or w.fought:
            raise InputError(f"{w.id}: a bridge is repaired only by troops that have not moved or fought (§9)")


def _objection(pos: WienerPosition, w: WienerPiece, objector_id: str, site: list[Field], wz: int, dice: Dice,
               res: Resolution, opts: Options) -> bool:
    """§8.12 an adjacent unengaged enemy base objects: True if its roll (less its markers) spoils the work."""
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
        res.notes.append(f"objection {owz} >= {wz}: the work fails this turn (§8.12)")
        return True
    return False


def _work_done(st: _State, work: str, s: FieldState | None, target_field: Field | None,
               edge: tuple[Field, Field] | None, obstacle: str) -> None:
    """The site after the work succeeded (§8.12, §9)."""
    if work == "remove_obstacle":
        st.edges = [x for x in st.edges if frozenset(x.fields) != frozenset(edge)]
    elif work == "make_passable":
        st.edges = [replace(x, crossing=True) if frozenset(x.fields) == frozenset(edge) else x for x in st.edges]
    elif work == "build_barricade":
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
    _check_worker(w, work)
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
    _check_edge_work(pos, work, e, edge, obstacle)
    _check_field_work(w, work, s)
    if work == "arson" and pos.occupants.get(target_field):
        res.effect = "none"
        res.notes.append("troops inside the object prevent the fire without a roll (§9)")
        return res
    mods: list[Modifier] = []
    pen = marker_penalty(w, opts)
    if pen:
        mods.append(("own markers (§8.12 negative factors only)", -pen))
    roll = dice.d6()
    wz = roll + max(-4, -pen)
    res.attacker = {"piece": w.id, "roll": roll, "modifiers": modifiers_json(mods), "wz": wz, "needed": 4}
    ok = wz >= 4
    if objector_id and _objection(pos, w, objector_id, site, wz, dice, res, opts):
        ok = False
    res.winner = "attacker" if ok else "defender"
    res.effect = "done" if ok else "failed"
    st.set(w, None, working=True)
    if ok:
        _work_done(st, work, s, target_field, edge, obstacle)
    res.after, res.why = st.position(), st.why
    return res
