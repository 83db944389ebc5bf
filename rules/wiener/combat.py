"""Fire and melee (§8): who may fire or attack, target priority, every modifier with its cap, the combat value
used for support and simultaneity (§11 A5), and the supporters' conditions (§8.5, §8.6)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from common.fields import field_name
from rules.geometry import (
    Field,
    diagonal_side_fields,
    distance,
    in_front_arc,
    is_neighbour,
    line_fields,
    neighbours,
    on_facing_ray,
    side_fields,
    step,
)
from rules.wiener.model import WienerPiece, WienerPosition
from rules.wiener.movement import IMPASSABLE_OBSTACLES, field_free
from rules.wiener.options import DEFAULT, Options
from rules.wiener.sight import Line, recognition_limit, trace
from rules.wiener.tables import (
    RANGES,
    cap,
    dispersed,
    fires_all_round,
    has_flanks,
    is_artillery,
    is_cavalry,
    is_formed,
    is_skirmisher,
    marker_penalty,
    mounted,
    range_bonus,
    weapon,
)

Modifier = tuple[str, int]


@dataclass
class Check:
    """May the acting piece do this, and with which modifiers (its own roll's)."""

    allowed: bool
    weapon: str | None = None
    reason: str | None = None
    modifiers: list[Modifier] = field(default_factory=list)
    net_modifier: int = 0
    warnings: list[str] = field(default_factory=list)
    blocked_by: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        out = {
            "allowed": self.allowed,
            "weapon": self.weapon,
            "reason": self.reason,
            "modifiers": modifiers_json(self.modifiers),
            "net_modifier": self.net_modifier,
        }
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


_SECTION = re.compile(r"^(.*) \((§[^)]*)\)$")


def modifiers_json(mods: list[Modifier]) -> list[dict]:
    """[{"rule": "range 3-4 LE", "value": 1, "section": "§7"}, ...]"""
    out = []
    for rule, value in mods:
        m = _SECTION.match(rule)
        out.append({"rule": m.group(1), "value": value, "section": m.group(2)} if m else {"rule": rule, "value": value})
    return out


def _no(reason: str, w: str | None = None, blocked=()) -> Check:
    return Check(False, w, reason, blocked_by=list(blocked))


def _own(p: WienerPiece, opts: Options) -> list[Modifier]:
    """Modifiers every roll of this piece carries: own markers (§8.3) and elite (§9)."""
    out: list[Modifier] = []
    pen = marker_penalty(p, opts)
    if pen:
        out.append((f"own markers {'+'.join(m for m in p.markers if m != 'black')} (§8.3)", -pen))
    if p.elite:
        out.append(("elite troops", p.elite))
    return out


# ---------------------------------------------------------------- cover


def _entry_edges(pos: WienerPosition, src: Field, tgt: Field) -> list[tuple[Field, Field]]:
    """The field edges of the target that a line from src enters through (§11 A37)."""
    crossed, corners = line_fields(src, tgt)
    prev = crossed[-1] if crossed else src
    if corners and distance(corners[-1][0], tgt) == 1 and distance(corners[-1][1], tgt) == 1 and (
        not crossed or distance(prev, tgt) > 1
    ):
        prev = (tgt[0] - (1 if tgt[0] > src[0] else -1), tgt[1] - (1 if tgt[1] > src[1] else -1))
    dx, dy = prev[0] - tgt[0], prev[1] - tgt[1]
    if dx and dy:
        return [(tgt, (prev[0], tgt[1])), (tgt, (tgt[0], prev[1]))]
    return [(tgt, prev)]


def cover(pos: WienerPosition, src: Field, target: WienerPiece) -> tuple[int, str | None]:
    """The target's cover against src: the best single value (§8.4 cover table)."""
    s = pos.field_state(target.field)
    best, why = 0, None

    def take(v: int, text: str):
        nonlocal best, why
        if v > best:
            best, why = v, text

    if s.terrain == "town":
        take(max(0, 1 - s.cover_lost), "target in a house (§8.4 cover)")
    elif s.terrain == "church":
        take(max(0, 2 - s.cover_lost), "target in a church: heavy cover (§8.4 cover)")
    elif s.terrain == "wood" and pos.terrain(src) != "wood":
        take(1, "target at a wood edge (§8.4 cover)")  # inside the wood: no cover (§6.4)
    if s.fortification:
        take(1 if s.fortification == "light" else 2, f"target in {s.fortification} fortifications (§8.4 cover)")
    for a, b in _entry_edges(pos, src, target.field):
        e = pos.edge(a, b)
        if e and e.obstacle in ("wall", "barricade"):
            take(1, f"target behind a {e.obstacle} (§8.4 cover, §11 A37)")
    return best, why


# ---------------------------------------------------------------- fire


def weapon_reason(p: WienerPiece, opts: Options) -> str:
    if p.working:
        return "troops at work cannot fight (§5.2)"
    if mounted(p):
        return "mounted cavalry cannot fight a fire combat (§7)"
    if p.type == "heavy_cavalry":
        return "heavy cavalry has no fire combat (§7)"
    if is_artillery(p):
        return "limbered artillery cannot fire (§11 A33)"
    if p.type == "general":
        return "generals do not fire (§7, §11 A36)"
    return "pioneers do not open fire (§7, §11 A36)"


def fire_check(
    pos: WienerPosition,
    shooter: WienerPiece,
    target: WienerPiece,
    opts: Options = DEFAULT,
    supporters: tuple[WienerPiece, ...] = (),
    response: bool = False,
    priority: bool = True,
    main: WienerPiece | None | str = "find",
) -> Check:
    """§8.4 conditions and fire modifiers of `shooter` against `target`. A response (counter-fire, Gegenzug)
    ignores the active-phase limits (moved, road march, already fired)."""
    if shooter.side == target.side:
        return _no("cannot fire at own troops")
    if shooter.black:
        return _no("fleeing (Black): cannot fight (§8.3)")
    w = weapon(shooter, opts)
    if w is None:
        return _no(weapon_reason(shooter, opts))
    why = None if response else _active_fire_reason(shooter)
    if why:
        return _no(why, w)
    d = distance(shooter.field, target.field)
    rng = RANGES[w]
    if d > rng:
        return _no(f"out of range: {d} LE, {w.replace('_', ' ')} reach {rng} LE (§7)", w)
    if not fires_all_round(shooter) and not in_front_arc(shooter.field, shooter.facing, target.field):
        why = "artillery cannot turn in the passive phase; " if response and is_artillery(shooter) else ""
        return _no(f"{why}target outside the front arc (facing +-45 degrees, §3.6)", w)
    line = trace(pos, shooter.field, target.field, shooter, w, opts)
    if not line.clear:
        return _no("fire line blocked: " + "; ".join(line.reasons), w, line.blocked_by)
    lim = recognition_limit(pos, target, d, opts)
    if lim:
        return _no(lim, w)
    warnings = _line_warnings(line)
    msg = _priority_reason(pos, shooter, target, main, opts) if priority and not response else None
    if msg:
        if opts.target_priority == "forbid":
            return _no(msg, w)
        warnings.append(msg)
    mods = fire_modifiers(pos, shooter, target, w, d, supporters, opts)
    return Check(True, w, None, mods, cap(mods, opts), warnings)


def _active_fire_reason(shooter: WienerPiece) -> str | None:
    """The active phase's limits on firing (a response ignores them)."""
    if shooter.road_march:
        return "moved at road speed: may not fire (§5.4)"
    if is_artillery(shooter) and shooter.moved:
        return "artillery either moves or fires (§5.2)"
    if shooter.fired:
        return "has already fired this turn (§5.2 one action per phase)"
    return None


def _line_warnings(line: Line) -> list[str]:
    """Fire that passes over troops (§6.2) or through skirmishers (§6.3) is allowed; the player is told."""
    warnings: list[str] = []
    if line.overshot:
        warnings.append("fires over troops at " + ", ".join(field_name(*f) for f in line.overshot) + " (§6.2)")
    if line.screened:
        warnings.append("fires through skirmishers at " + ", ".join(field_name(*f) for f in line.screened) + " (§6.3)")
    return warnings


def _priority_reason(pos: WienerPosition, shooter: WienerPiece, target: WienerPiece, main: WienerPiece | None | str,
                     opts: Options) -> str | None:
    """§8.4 priority, §11 A29: a target off the facing's own file/diagonal while an enemy stands on it."""
    if on_facing_ray(shooter.field, shooter.facing, target.field):
        return None
    if main == "find":
        main = main_direction_target(pos, shooter, opts)
    if main is None:
        return None
    return f"{main.id} stands in the main direction and must be engaged first (§8.4 priority, §11 A29)"


def fire_modifiers(pos: WienerPosition, shooter: WienerPiece, target: WienerPiece, w: str, d: int,
                   supporters: tuple[WienerPiece, ...], opts: Options) -> list[Modifier]:
    """§8.4 the fire modifiers of `shooter` with weapon `w` against `target` `d` LE away."""
    mods: list[Modifier] = []
    for s in supporters:
        mods.append((f"support by {s.id} (§8.5)", 1))
    rb = range_bonus(w, d, opts)
    if rb:
        band = "3-4 LE" if w == "artillery" and d in (3, 4) else f"{d} LE"
        mods.append((f"range {band} (§7)", rb))
    if target.formation == "square":
        mods.append(("target in square (§8.4)", 1))
    if dispersed(target, opts):
        mods.append(("target skirmishers or dispersed (§8.4)", -1))
    cv, why = cover(pos, shooter.field, target)
    if cv:
        mods.append((why, -cv))
    if opts.cavalry_beyond_4_le_penalty and is_cavalry(target) and d > 4:
        mods.append(("cavalry beyond 4 LE (§8.4, §11 A6)", -1))
    return mods + _own(shooter, opts)


def main_direction_target(pos: WienerPosition, shooter: WienerPiece, opts: Options = DEFAULT) -> WienerPiece | None:
    """The nearest enemy on the facing's own file/diagonal that the shooter may fire at (§8.4, §11 A29)."""
    w = weapon(shooter, opts)
    if w is None:
        return None
    for k in range(1, RANGES[w] + 1):
        f = step(shooter.field, shooter.facing, k)
        for t in pos.occupants.get(f, ()):
            if t.side != shooter.side and fire_check(pos, shooter, t, opts, priority=False).allowed:
                return t
    return None


# ---------------------------------------------------------------- melee


def _diagonal_attack(pos: WienerPosition, a: Field, b: Field, opts: Options) -> str | None:
    sides = diagonal_side_fields(a, b)
    if sides is None:
        return None
    for s in sides:
        if field_free(pos, s, opts):
            e1, e2 = pos.edge(a, s), pos.edge(s, b)
            if not any(e and e.obstacle in IMPASSABLE_OBSTACLES for e in (e1, e2)):
                return None
    return f"diagonal rule: neither {' nor '.join(field_name(*s) for s in sides)} is free (§3.5)"


def attack_reason(pos: WienerPosition, attacker: WienerPiece, target: WienerPiece, opts: Options) -> str | None:
    """Why the attacker may not attack the target in melee (§8.7), or None."""
    if attacker.side == target.side:
        return "cannot attack own troops"
    r = _cannot_attack(attacker)
    if r:
        return r
    if not is_neighbour(attacker.field, target.field):
        return "not adjacent"
    if is_formed(attacker) and not in_front_arc(attacker.field, attacker.facing, target.field):
        return "target outside the front arc (facing +-45 degrees, §3.6)"
    r = _diagonal_attack(pos, attacker.field, target.field, opts)
    if r:
        return r
    e = pos.edge(attacker.field, target.field)
    if e and e.obstacle in IMPASSABLE_OBSTACLES:
        return f"the {e.obstacle.replace('_', ' ')} must be removed before a melee (§5.6)"
    if mounted(attacker):
        t = pos.terrain(target.field)
        if t in ("wood", "town", "church"):
            return f"a cavalry charge is impossible into a {t} (§8.7)"
        if e is not None:
            return f"a cavalry charge is impossible against a target behind a {e.obstacle} (§8.7)"
    return None


def _cannot_attack(attacker: WienerPiece) -> str | None:
    """What in the attacker's own kind or state forbids any attack."""
    if attacker.black:
        return "fleeing (Black): cannot fight (§8.3)"
    if is_skirmisher(attacker):
        return "skirmishers cannot attack (§8.9)"
    if is_artillery(attacker):
        return "artillery fights by fire only (§7)"
    if attacker.type == "general":
        return "a general does not attack on his own (§8.11)"
    if attacker.formation == "square":
        return "a square cannot move to attack (§3.7)"
    if attacker.working:
        return "troops at work cannot fight (§5.2)"
    if attacker.fired:
        return "has fired this turn: no melee (§8.7)"
    if attacker.road_march:
        return "moved at road speed: may not attack (§5.4)"
    return None


def defence_reason(pos: WienerPosition, defender: WienerPiece, attacker: WienerPiece) -> str | None:
    """Why the defender cannot defend (so the melee is undefended), or None (§8.7, §3.6)."""
    if defender.black:
        return "fleeing (Black): no defence (§8.3)"
    if defender.shot_out:
        return "fired in a Gegenzug: shot out, no melee defence (§8.4)"
    if has_flanks(defender) and not in_front_arc(defender.field, defender.facing, attacker.field):
        return "attacked in flank or rear: formed troops cannot respond (§3.6)"
    return None


def massing(pos: WienerPosition, p: WienerPiece, opts: Options) -> int:
    """§8.5 melee cooperation: +1 per base massed in the field (a cavalry column: its bases), §11 A4."""
    if p.type == "general":
        n = 1
    else:
        n = sum(q.bases for q in pos.occupants.get(p.field, ()) if q.side == p.side and q.type != "general")
    return n if opts.massing_counts_acting_base else n - 1


def melee_modifiers(
    pos: WienerPosition,
    p: WienerPiece,
    opp: WienerPiece,
    attacking: bool,
    supporters: tuple[WienerPiece, ...] = (),
    opts: Options = DEFAULT,
) -> list[Modifier]:
    """§8.7 melee modifier table for the rolling piece p against opp."""
    mods: list[Modifier] = []
    guns = (
        not attacking
        and is_artillery(p)
        and opts.artillery_defends_with_guns
        and p.formation != "limbered"
        and in_front_arc(p.field, p.facing, opp.field)
    )
    if guns:  # §11 A21 a battery attacked in its arc defends with canister at 1 LE
        mods.append(("battery defends with its guns at 1 LE (§11 A21)", range_bonus("artillery", 1, opts)))
    else:
        n = massing(pos, p, opts)
        if n:
            mods.append((f"melee cooperation, {n} base(s) (§8.7)", n))
    for s in supporters:
        mods.append((f"fire support by {s.id} (§8.5)", 1))
    if attacking and mounted(p):
        if p.type == "heavy_cavalry" or (p.lancer and not p.charged):
            mods.append(("charge by heavy cavalry (§8.7)" if p.type == "heavy_cavalry"
                         else "lancers' first charge as heavy cavalry (§8.7)", 3))
        else:
            mods.append(("charge by light cavalry (§8.7)", 2))
    if p.formation == "square" and mounted(opp):
        mods.append(("infantry in square against cavalry (§8.7)", 3))
    if pos.height(p.field) > pos.height(opp.field) or p.downhill:
        mods.append(("in or from higher ground (§8.7 downhill)", 1))
    if not attacking:
        e = pos.edge(p.field, opp.field)
        if e and e.obstacle in ("ditch", "stream"):
            mods.append((f"defender behind a {e.obstacle} (§8.7)", 1))
        cv, why = _melee_cover(pos, p, opp)
        if cv:
            mods.append((why, cv))
    mods += _own(p, opts)
    return mods


def _melee_cover(pos: WienerPosition, p: WienerPiece, opp: WienerPiece) -> tuple[int, str]:
    """§8.7 the defender's cover: a house, a church (less what was shot away, §8.4), a wood's edge, or its
    fortifications if better."""
    s = pos.field_state(p.field)
    cv, why = 0, ""
    if s.terrain == "town":
        cv, why = max(0, 1 - s.cover_lost), "defender in cover: house (§8.7)"
    elif s.terrain == "church":
        cv, why = max(0, 2 - s.cover_lost), "defender in heavy cover: church (§8.7)"
    elif s.terrain == "wood" and pos.terrain(opp.field) != "wood":
        cv, why = 1, "defender in cover: wood edge (§8.7)"
    if s.fortification:
        f = 1 if s.fortification == "light" else 2
        if f > cv:
            cv, why = f, f"defender in {s.fortification} fortifications (§8.7)"
    return cv, why


def melee_check(
    pos: WienerPosition,
    attacker: WienerPiece,
    target: WienerPiece,
    opts: Options = DEFAULT,
    supporters: tuple[WienerPiece, ...] = (),
) -> Check:
    r = attack_reason(pos, attacker, target, opts)
    if r:
        return _no(r, "melee")
    mods = melee_modifiers(pos, attacker, target, True, supporters, opts)
    warnings = []
    if is_skirmisher(target) and is_formed(attacker):
        warnings.append("skirmishers attacked by formed troops withdraw to their parent (§8.9)")
    d = defence_reason(pos, target, attacker)
    if d:
        warnings.append(f"no defence: {d}")
    return Check(True, "melee", None, mods, cap(mods, opts), warnings)


# ---------------------------------------------------------------- combat value, support, simultaneity


def kampfwert(pos: WienerPosition, p: WienerPiece, target: WienerPiece, action: str, opts: Options = DEFAULT) -> int:
    """§11 A5 combat value: elite + range bonus to the target - own markers (+ charge bonus in melee)."""
    kw = p.elite - marker_penalty(p, opts)
    w = weapon(p, opts)
    if w is not None:
        kw += range_bonus(w, distance(p.field, target.field), opts)
    if action == "melee" and mounted(p):
        kw += 3 if p.type == "heavy_cavalry" or (p.lancer and not p.charged) else 2
    return kw


def unengaged_reason(p: WienerPiece) -> str | None:
    """§8.5 / §11 A8: a piece that has fought this turn or is fleeing or at work is engaged."""
    if p.black:
        return "is fleeing (Black)"
    if p.fired or p.shot_out:
        return "has fired this turn: engaged (§8.5)"
    if p.working:
        return "is at work"
    return None


def supporter_reasons(
    pos: WienerPosition,
    actor: WienerPiece,
    target: WienerPiece,
    supporters: list[WienerPiece],
    action: str,
    opts: Options = DEFAULT,
) -> list[str]:
    """Every reason the declared supporters cannot support (empty = all may) (§8.5, §11 A5, A7, A9)."""
    out: list[str] = []
    arty_chain = action == "fire" and is_artillery(actor) and opts.artillery_supporters_unlimited
    reach = _battery_chain(actor, supporters) if arty_chain else set()
    limit = None if arty_chain and all(is_artillery(s) for s in supporters) else 2
    if limit is not None and len(supporters) > limit:
        out.append(f"at most {limit} supporters from the side fields (§8.5)")
    ids = set()
    kw_actor = kampfwert(pos, actor, target, action, opts)
    for s in supporters:
        who = f"supporter {s.id}"
        if s.id in ids or s.id in (actor.id, target.id):
            out.append(f"{who}: named twice or is a combatant")
            continue
        ids.add(s.id)
        if s.side != actor.side:
            out.append(f"{who}: is an enemy piece")
            continue
        in_side = s.field in side_fields(actor.field, actor.facing)
        if not in_side and not (arty_chain and s.id in reach):
            out.append(f"{who}: not in a side field (Nebenfeld) of {actor.id} (§8.5)")
        r = unengaged_reason(s)
        if r:
            out.append(f"{who}: {r}")
        r = _cannot_support_against(pos, s, target, action, opts)
        if r:
            out.append(f"{who}: {r}")
        if opts.support_requires_kampfwert and kampfwert(pos, s, target, action, opts) < kw_actor:
            out.append(f"{who}: lower combat value than {actor.id} (§8.5, §11 A5)")
    if opts.support_requires_superiority and supporters:
        flank = side_fields(target.field, target.facing)
        enemy = 1 + sum(1 for f in flank for q in pos.occupants.get(f, ()) if q.side == target.side)
        if 1 + len(supporters) <= enemy:
            out.append("no numerical superiority in the side fields (§8.5, §11 A7 strict)")
    return out


def _battery_chain(actor: WienerPiece, supporters: list[WienerPiece]) -> set[str]:
    """§11 A9 the actor and the supporting batteries that form a chain, each in a Nebenfeld of the next."""
    reach = {actor.id}
    frontier = [actor]
    pool = [s for s in supporters if is_artillery(s)]
    while frontier:
        cur = frontier.pop()
        for s in pool:
            if s.id not in reach and s.field in side_fields(cur.field, cur.facing):
                reach.add(s.id)
                frontier.append(s)
    return reach


def _cannot_support_against(pos: WienerPosition, s: WienerPiece, target: WienerPiece, action: str,
                            opts: Options) -> str | None:
    """§8.5 a supporter must itself be able to fire at the target (in melee too, unless the option makes melee
    support an attack of its own)."""
    if action == "fire" or opts.melee_support_is_fire_support:
        c = fire_check(pos, s, target, opts, priority=False)
        return None if c.allowed else f"cannot fire at {target.id}: {c.reason}"
    r = attack_reason(pos, s, target, opts)
    return f"cannot engage {target.id}: {r}" if r else None


def simultaneity_reasons(
    pos: WienerPosition, pieces: list[WienerPiece], target: WienerPiece, action: str, opts: Options = DEFAULT
) -> list[str]:
    """§8.6 up to 3 unengaged elements in side fields of one another, same or higher combat value than the
    first, may act at the same time."""
    out: list[str] = []
    if len(pieces) > 3:
        out.append("no simultaneity of more than 3 elements (§8.6)")
    if len({p.side for p in pieces}) > 1:
        out.append("simultaneous elements must be of one side")
    for p in pieces:
        r = unengaged_reason(p)
        if r:
            out.append(f"{p.id}: {r}")
    linked = {pieces[0].id} if pieces else set()
    changed = True
    while changed:
        changed = False
        for p in pieces:
            if p.id in linked:
                continue
            if any(q.id in linked and (p.field in side_fields(q.field, q.facing) or q.field in side_fields(
                    p.field, p.facing)) for q in pieces):
                linked.add(p.id)
                changed = True
    for p in pieces:
        if p.id not in linked:
            out.append(f"{p.id}: not in a side field of the others (§8.6)")
    if pieces:
        kw0 = kampfwert(pos, pieces[0], target, action, opts)
        for p in pieces[1:]:
            if kampfwert(pos, p, target, action, opts) < kw0:
                out.append(f"{p.id}: lower combat value than {pieces[0].id} (§8.6)")
    return out


def control_zone(pos: WienerPosition, p: WienerPiece) -> list[Field]:
    """§11 A31 the fields in front of a combat-ready troop: its 3 frontal Nachbarfelder (all 8 if all-round)."""
    if p.black or p.working:
        return []
    ns = [n for n in neighbours(p.field) if pos.on_grid(n)]
    if not has_flanks(p):
        return ns
    return [n for n in ns if in_front_arc(p.field, p.facing, n)]
