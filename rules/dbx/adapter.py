"""The DBX 18th-century adapter for the dashboard (Qt-free): elements on rectangular bases on a free-measured table.

Like `rules.wiener.adapter.WienerSystem` it only gathers the engine's answers (rules/dbx) into plain descriptions in
table mm: the selected element's zone of control (§3.4), its fire zone and range (§6.1, §7), the area its move
allowance reaches (§5.3), a line to every enemy it may shoot at or fight with the distance in paces, its contacts and
overlaps with their type (§3.5); the target rows of the targets panel; both sides' combat factors and modifiers; fire,
melee and the flank turn resolved by rules/dbx/resolve.py with typed or seeded dice.

Roster types: a §2.1 code ("Li", "Kü", "Art", "Gen", ... and the list aliases "Lw", "Gr", ...) is taken as it is;
otherwise `ROSTER_TYPES` maps the usual words (documented in rules/dbx/live.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from common.dice import Dice
from common.errors import InputError
from rules.dbx import geom, model, movement
from rules.dbx.analysis import analyze_from, analyze_pair
from rules.dbx.combat import fire_check, fire_eligible_supporters, fire_sides, melee_check, melee_side
from rules.dbx.commands import _pair_text, resolution_lines
from rules.dbx.contact import contact, distance_mm, friends, zoc_rect
from rules.dbx.model import DEFENDING, base_size, corners, resolve_type
from rules.dbx.movement import allowance, reachable
from rules.dbx.options import DEFAULT, load_options
from rules.dbx.resolve import resolve_fire, resolve_melee, resolve_river, resolve_simple
from rules.dbx.sight import fire_zone, front_edge
from rules.dbx.tables import ALIASES, UNIT_TYPES
from rules.system import CombatOutcome, PositionMemo, TargetRow

# Roster words -> §2.1 element codes. A generic "cavalry" is battle cavalry (Kü, cuirassiers: the line cavalry of the
# period, KF 4/4, impetuous); "light cavalry" / hussars are Hu; dragoons stay "Dr" (cavalry after 1720, A26).
ROSTER_TYPES = {
    "infantry": "Li", "line infantry": "Li", "line_infantry": "Li", "foot": "Li", "musketeers": "Li",
    "grenadiers": "Gr", "militia": "Fr", "light infantry": "Jä", "light_infantry": "Jä", "jaeger": "Jä",
    "jäger": "Jä", "jager": "Jä", "skirmishers": "Pl", "cavalry": "Kü", "heavy cavalry": "Kü", "heavy_cavalry": "Kü",
    "cuirassiers": "Kü", "light cavalry": "Hu", "light_cavalry": "Hu", "hussars": "Hu", "uhlans": "Ul",
    "lancers": "Ul", "dragoons": "Dr", "artillery": "Art", "guns": "Art", "battery": "Art", "horse_artillery": "Art",
    "general": "Gen", "commander": "Gen", "camp": "Camp",
}


def _state_keys() -> tuple[str, ...]:
    """The position file's piece keys besides id, side, type and pose: what the camera cannot see."""
    return tuple(k for k in getattr(model, "_PIECE", ()) if k not in ("id", "side", "type", "x_mm", "y_mm",
                                                                       "heading_deg"))


STATE_KEYS = _state_keys()
CHOICE_HELP = "fire: supporters ticked below; melee: flank-contacted targets turn first (§3.5); turn: target turns"


@dataclass(frozen=True)
class TargetLine:
    """From the acting element's front edge to the nearest point of an enemy: `kind` fire (a legal target), melee
    (may fight it now), candidate (in zone and range but not the nearest, §6.11), zoc (it stands in its ZOC)."""

    target: str
    start: tuple[float, float]
    end: tuple[float, float]
    paces: float
    kind: str
    text: str


@dataclass(frozen=True)
class ContactMark:
    """A touching enemy or friend: where the bases meet, the contact type (front, flank, rear, corner, overlap) and
    whether it is a legal contact (§3.5); `by` is the element that touches (the selected one, or the other)."""

    piece: str
    kind: str
    edge: str | None
    valid: bool
    at: tuple[float, float]
    by: str
    side: str
    uncertain: bool = False
    """§13 within the measuring uncertainty of the tolerance either way (contact.py): for the user to confirm; such
    a pair the tolerance calls apart has kind "apart"."""


@dataclass(frozen=True)
class DbxSelection:
    piece: str
    base: np.ndarray
    zoc: np.ndarray | None
    fire_zone: np.ndarray | None
    fire_range_paces: int
    fire_reason: str
    reach: np.ndarray
    allowance_paces: int
    allowance_reason: str
    lines: tuple[TargetLine, ...]
    contacts: tuple[ContactMark, ...]
    zoc_of: tuple[str, ...]
    analysis: dict = field(default_factory=dict, compare=False)
    shades: tuple = ()  # nothing for the grid views
    arc: None = None


@dataclass
class DbxResolution:
    """A DBX resolution with the position before (the dashboard's apply compares before and after)."""

    action: str
    before: object
    after: object
    result: object
    winner: str | None = None
    effect: str = ""


def roster_code(text: str) -> str | None:
    """A roster type as a §2.1 code: the code itself (any case of the first letter), else `ROSTER_TYPES`."""
    t = text.strip()
    codes = set(UNIT_TYPES) | set(ALIASES) | {"Dr"}
    if t in codes:
        return t
    for c in codes:
        if c.lower() == t.lower():
            return c
    code = ROSTER_TYPES.get(t.lower())
    if code is None:
        return None
    resolve_type(code, None, "roster")
    return code


def _nearest_points(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closest pair of points between polyline `a` (open) and polygon `b` (closed), by dense sampling."""
    def dense(poly, closed):
        pts = np.vstack([poly, poly[:1]]) if closed else poly
        return np.vstack([p + (q - p) * np.linspace(0, 1, 24, endpoint=False)[:, None]
                          for p, q in zip(pts[:-1], pts[1:], strict=True)] + [pts[-1:]])

    pa, pb = dense(np.asarray(a, float), False), dense(np.asarray(b, float), True)
    d = np.linalg.norm(pa[:, None, :] - pb[None, :, :], axis=2)
    i, j = np.unravel_index(int(np.argmin(d)), d.shape)
    return pa[i], pb[j]


def _meeting_point(ra: np.ndarray, rb: np.ndarray, tol: float) -> tuple[float, float]:
    """Where two touching bases meet: the mean of the corners of each lying on (or in) the other."""
    pts = []
    for p, q in ((ra, rb), (rb, ra)):
        for c in p:
            if geom.point_in_polygon(c, q) or min(geom.point_segment(c, a, b) for a, b in geom.edges(q)) <= tol + 1:
                pts.append(c)
    if not pts:
        a, b = _nearest_points(ra, rb)
        return float((a[0] + b[0]) / 2), float((a[1] + b[1]) / 2)
    m = np.mean(pts, axis=0)
    return float(m[0]), float(m[1])


def _near(pos, p, allowance_paces: float, opts):
    """The position with only the elements that could stop p's move (within its allowance plus both bases'
    diagonals): the same reachable area as the whole table, much faster (rules.dbx.movement.reachable tests every
    element at every step). The whole position when pruning would change p's allowance."""
    def diag(q) -> float:
        w, d = base_size(q, pos.scale)
        return float(np.hypot(w, d))

    reach = pos.scale.mm(allowance_paces) + diag(p) + opts.tolerance_mm + 1.0
    keep = [q for q in pos.pieces if q.id == p.id or np.hypot(q.x_mm - p.x_mm, q.y_mm - p.y_mm) <= reach + diag(q)]
    near = pos.with_pieces(keep)
    return near if allowance(near, near.piece(p.id), opts) == allowance(pos, p, opts) else pos


def _target_line(pos, r: dict, front: np.ndarray, cands: set[str]) -> TargetLine | None:
    """The selection's line to one enemy of rules.dbx.analysis's `targets` (None when it is neither a target, a
    fire candidate nor in the zone of control); `front` is the acting element's front edge."""
    e = pos.piece(r["to"])
    fire, melee = r["fire"], r["melee"]
    if fire["allowed"]:
        kind = "fire"
    elif melee["allowed"]:
        kind = "melee"
    elif e.id in cands:
        kind = "candidate"
    elif r["in_zone_of_control"]:
        kind = "zoc"
    else:
        return None
    a, b = _nearest_points(front, corners(e, pos.scale))
    paces = r["range_paces"] if kind in ("fire", "candidate") else r["distance_paces"]
    if kind == "fire":
        text = f"{e.id} {paces:.0f} p, fire {fire['net_modifier']:+d}"
    elif kind == "melee":
        text = f"{e.id} melee ({r['contact']}) {melee['net_modifier']:+d}"
    elif kind == "candidate":
        text = f"{e.id} {paces:.0f} p: {fire['reason']}"
    else:
        text = f"{e.id} {paces:.0f} p: in its zone of control"
    return TargetLine(e.id, (float(a[0]), float(a[1])), (float(b[0]), float(b[1])), float(paces), kind, text)


def _contact_mark(pos, p, q, base: np.ndarray, opts) -> ContactMark | None:
    """The contact between the selected element p (its corners `base`) and enemy q, either way round; None if none."""
    mine = contact(pos, p, q, opts)
    theirs = contact(pos, q, p, opts)
    c, by = (mine, p.id) if mine.kind else (theirs, q.id)
    uncertain = mine.uncertain or theirs.uncertain  # §13 shown for the user to confirm, never silently dropped
    if not c.kind and not uncertain:
        return None
    if mine.kind == "overlap" or theirs.kind == "overlap":  # show the overlap whichever way it reads
        c, by = (mine, p.id) if mine.kind == "overlap" else (theirs, q.id)
    at = _meeting_point(base, corners(q, pos.scale), opts.tolerance_mm)
    return ContactMark(q.id, c.kind or "apart", c.edge, bool(c.valid), at, by, q.side, uncertain)


class DbxSystem:
    """DBX 18th century (rules/dbx) on the free-measured table."""

    name = "dbx"
    actions = ("fire", "melee", "turn", "square", "unform", "swap", "river")
    # one element, no target: §5.11 form / unform a square, §5.10 Li <-> 2 Jäger, §5.9 the river rolls
    single_piece_actions = frozenset({"square", "unform", "swap", "river"})
    choice_help = CHOICE_HELP

    def __init__(self, options=None):
        self.opts = load_options(options) if isinstance(options, str) else (options or DEFAULT)
        self._memo = PositionMemo()  # analyze_from by (position, element id)
        self.types = tuple(t for t in UNIT_TYPES if t not in ("DrI", "DrK")) + ("Dr",)
        self.markers = ()
        self.flags = ("charged", "english", "c_in_c", "ally")

    # ---- vocabulary

    def piece_type(self, roster_type: str) -> str | None:
        try:
            return roster_code(roster_type)
        except InputError:
            return None

    def formations(self, piece_type: str) -> tuple[str, ...]:
        return ("", "Gr", "Fr")  # the "formation" column holds the quality (§8.1)

    def default_state(self, piece_type: str) -> dict:
        return {}

    def piece_state(self, p) -> dict:
        """What the camera cannot see of an element; the game panel's columns: formation = quality, markers =
        square markers (§5.11)."""
        st = {k: getattr(p, k) for k in STATE_KEYS if hasattr(p, k) and getattr(p, k) not in (None, "", 0, False)}
        st["formation"] = p.quality or ""
        st["bases"] = 1
        st["markers"] = (f"square {p.square}",) if p.square else ()
        return st

    def check_state(self, piece_type: str, key: str, value):
        check = _STATE_CHECKS.get(key)
        if check is not None:
            return check(self, key, value)
        if key in self.flags:
            return bool(value)
        if key in STATE_KEYS:  # range_paces, depth_mm and anything newer: as the position file reads it
            return value
        raise InputError(f"{key!r} is not part of a DBX element's state ({' '.join(('type',) + STATE_KEYS)})")

    def empty_ground(self):
        return {}

    # ---- one element selected

    def _analysis(self, pos, pid: str) -> dict:
        """rules.dbx.analysis.analyze_from, remembered for the last few (position, element): the selection overlay
        and the targets panel ask the same question of the same position."""
        return self._memo.get(pos, pid, lambda: analyze_from(pos, pid, self.opts))

    def selection(self, pos, pid: str) -> DbxSelection:
        opts = self.opts
        p = pos.piece(pid)
        out = self._analysis(pos, pid)
        base = corners(p, pos.scale)
        zoc = zoc_rect(pos, p, opts) if p.type not in ("Camp",) else None
        rng = int(out["fire_range_paces"]) if out["can_shoot"] or out["fire_range_paces"] else 0
        zone = fire_zone(pos, p, rng) if rng > 0 else None
        reach = np.array(reachable(_near(pos, p, out["move_allowance_paces"], opts), pid, opts, n=24), float)
        fa, fb = front_edge(pos, p)
        front = np.array([fa, fb], float)
        cands = {t["piece"] for t in out["fire_targets"]}
        lines = [line for r in out["targets"] if (line := _target_line(pos, r, front, cands)) is not None]
        enemies = [q for q in pos.pieces if q.side != p.side]  # friends side by side are a group (§3.3), not a contact
        marks = [mark for q in enemies if (mark := _contact_mark(pos, p, q, base, opts)) is not None]
        return DbxSelection(pid, base, zoc, zone, rng, out["shoot_reason"], reach, int(out["move_allowance_paces"]),
                            out["move_allowance_reason"], tuple(lines), tuple(marks),
                            tuple(out["in_zone_of_control_of"]), out)

    def targets(self, pos, pid: str) -> list[TargetRow]:
        """Every enemy, nearest first: contact type, distance in paces, fire / melee with the net modifier."""
        rows = []
        for r in self._analysis(pos, pid)["targets"]:
            fire, melee = r["fire"], r["melee"]
            if fire["allowed"]:
                weapon, note = f"fire {r['range_paces']:.0f} p", fire["reason"]
            elif melee["allowed"]:
                weapon, note = "melee", melee["reason"]
            else:
                weapon = ""
                note = melee["reason"] if r["contact"] else fire["reason"]
            if r["in_zone_of_control"]:
                note = f"in its ZOC; {note}"
            contact = r["contact"] or ("-" if not r["in_zone_of_control"] else "ZOC")
            rows.append(TargetRow(r["to"], contact, int(round(r["distance_paces"])), weapon, fire["allowed"],
                                  fire["net_modifier"] if fire["allowed"] else None, melee["allowed"],
                                  melee["net_modifier"] if melee["allowed"] else None, bool(r["line_of_sight"]), note))
        return rows

    # ---- two elements

    def pair(self, pos, a: str, b: str) -> tuple[dict, list[str]]:
        out = analyze_pair(pos, a, b, self.opts)
        return out, _pair_text(pos, out).splitlines()

    # ---- combat

    def supporter_candidates(self, pos, attacker: str, target: str, action: str) -> list[str]:
        """Fire: other elements of the side that could shoot at the same target (§8.2); melee has none."""
        if action != "fire":
            return []
        out = []
        a, t = pos.piece(attacker), pos.piece(target)
        for s in pos.pieces:
            if s.side != a.side or s.id == a.id:
                continue
            try:
                fire_eligible_supporters(pos, t, a, [s.id], self.opts)
            except InputError:
                continue
            out.append(s.id)
        return out

    def combat_modifiers(self, pos, attacker: str, target: str, action: str, supporters: Sequence[str] = (),
                         choices: Mapping[str, str] | None = None) -> tuple[list[str], list[str]]:
        if action in self.single_piece_actions:
            return _single_hint(pos, attacker, action, self.opts), []
        a, t = pos.piece(attacker), pos.piece(target)
        if a.side == t.side:
            return [f"{attacker} and {target} are on the same side"], []
        opts = self.opts
        if action == "turn":
            c = contact(pos, a, t, opts)
            ok = c.kind in ("flank", "rear") and c.valid
            return ([f"{attacker} touches {target}'s {c.edge or 'nothing'}: {c.kind or 'no contact'}"],
                    [f"{target} turns to face {attacker} (§3.5)" if ok else "no flank or rear contact to turn to"])
        if action == "fire":
            chk = fire_check(pos, a, t, opts)
            try:
                sups = fire_eligible_supporters(pos, t, a, list(supporters), opts)
            except InputError as exc:
                return [f"not allowed: {exc}"], []
            sa, st, back = fire_sides(pos, a, t, sups, opts)
            head = f"may fire: {chk['reason']}" if chk["allowed"] else f"not allowed: {chk['reason']}"
            dfn_head = "shoots back" if back else "does not shoot back: adverse results for the shooter ignored (§8.2)"
        else:
            chk = melee_check(pos, a, t, opts)
            sa, st = melee_side(pos, a, t, opts), melee_side(pos, t, a, opts)
            head = f"may fight: {chk['reason']}" if chk["allowed"] else f"not allowed: {chk['reason']}"
            dfn_head = "fights back"
        att = [head, f"factor {sa.cf}"] + [f"{m.value:+d}  {m.rule}  ({m.section})" for m in sa.modifiers]
        att.append(f"net {sa.net:+d}: total max(0, {sa.cf} {sa.net:+d}) + die")
        dfn = [dfn_head, f"factor {st.cf}"] + [f"{m.value:+d}  {m.rule}  ({m.section})" for m in st.modifiers]
        dfn.append(f"net {st.net:+d}: total max(0, {st.cf} {st.net:+d}) + die")
        return att, dfn

    def resolve(self, pos, action: str, attacker: str, target: str | None, *, dice: Sequence[int] = (),
                seed: int | None = None, supporters: Sequence[str] = (), **_ignored) -> CombatOutcome:
        if action not in self.actions:
            raise InputError(f"action {action!r}: one of {' '.join(self.actions)}")
        if not target and action not in self.single_piece_actions:
            raise InputError(f"{action} needs a target")
        d = Dice(list(dice), seed)
        if action in self.single_piece_actions:
            res = _resolve_single(pos, action, attacker, d, self.opts)
        elif action == "fire":
            res = resolve_fire(pos, attacker, target, d, list(supporters), self.opts)
        elif action == "melee":
            res = resolve_melee(pos, attacker, target, d, self.opts)
        else:
            after = movement.turn_to_face(pos, target, attacker, self.opts)
            res = resolve_simple(pos, "turn", after, attacker, target,
                                 "turns to face its flank or rear attacker at the end of the movement phase (§3.5)",
                                 self.opts)
        out = res.as_dict()
        lines = resolution_lines(out)
        o = res.outcome
        winner = None
        if o.get("loser"):
            winner = target if o["loser"] == attacker else attacker
        wrap = DbxResolution(action, pos, res.after, res, winner, o.get("result", ""))
        return CombatOutcome(wrap, list(d.rolled), d.seed if d.generated else None, lines, list(res.changes))

    # ---- turns

    def next_phase(self, turn: int, active: str, sides: Sequence[str]) -> tuple[int, str]:
        """§4 bounds alternate: each side one bound per turn, in roster order."""
        if not sides:
            return turn + 1, active
        i = sides.index(active) if active in sides else -1
        return (turn + 1, sides[0]) if i + 1 >= len(sides) else (turn, sides[i + 1])

    def phase_reset(self) -> dict:
        return {"moves": 0, "charged": False}


def _check_type(system: DbxSystem, key: str, value) -> str:
    code = roster_code(str(value))
    if code is None:
        raise InputError(f"type {value!r}: a §2.1 code ({' '.join(system.types)})")
    return code


def _check_quality(system: DbxSystem, key: str, value) -> str:
    if value in (None, "", "none"):
        return ""
    if value not in ("Gr", "Fr"):
        raise InputError(f"quality {value!r}: Gr (grenadiers), Fr (militia) or empty (§8.1)")
    return value


def _check_count(system: DbxSystem, key: str, value) -> int:
    """A whole number: moves, saved PIPs, ammunition, or square markers (0..5)."""
    if key == "markers":  # the game panel's column as it shows it ("square 2"), a number, or nothing
        words = " ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        nums = [w for w in words.replace("+", " ").split() if w.isdigit()]
        value = nums[-1] if nums else 0
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise InputError(f"{key} {value!r}: a whole number") from None
    if key in ("square", "markers") and not 0 <= n <= 5:
        raise InputError(f"square markers {n}: 0..5 (§5.11)")
    return n


def _check_mode(system: DbxSystem, key: str, value) -> str | None:
    if value not in ("cavalry", "mounted_infantry", "horde", None, ""):
        raise InputError(f"mode {value!r}: cavalry, mounted_infantry or horde")
    return value or None


def _check_defending(system: DbxSystem, key: str, value):
    if value not in DEFENDING:
        raise InputError(f"defending {value!r}: one of {' '.join(DEFENDING[1:])}")
    return value


def _check_command(system: DbxSystem, key: str, value) -> str:
    return str(value)


# DbxSystem.check_state's checks by key; the flags (bool) and the other STATE_KEYS (as read) need none of their own
_STATE_CHECKS = {
    "type": _check_type,
    "formation": _check_quality,  # the game panel's column holds the quality (§8.1)
    "quality": _check_quality,
    "square": _check_count,
    "markers": _check_count,
    **{k: _check_count for k in STATE_KEYS if k.startswith(("moves", "saved_", "ammo_"))},
    "mode": _check_mode,
    "defending": _check_defending,
    "command": _check_command,
}


_SINGLE_RULES = {
    "square": "forms a 1-element square (1 marker) for 1 PIP (§5.11)",
    "unform": "leaves its square: the markers go, the bases stay where they are (§5.11, A11)",
    "swap": "exchanges line infantry and 2 Jäger for 1 PIP (§5.10)",
    "river": "rolls for the river: its type on the first crossing, 3+ to cross a torrent (§5.9)",
}


def _single_hint(pos, pid: str, action: str, opts) -> list[str]:
    """What a single-element action would do, before it is resolved (the panel's attacker box)."""
    p = pos.piece(pid)
    lines = [f"{pid} ({p.type}) {_SINGLE_RULES[action]}"]
    if action == "unform" and not p.square:
        lines.append("not allowed: it is not in a square (§5.11)")
    elif action == "square" and p.square:
        lines.append(f"already in a square ({p.square} markers) (§5.11)")
    elif action == "river":
        g = pos.game
        stopped = ", crossings stopped" if g.crossing_stopped else ""
        lines.append(f"river: {g.river or 'type not yet rolled'}{stopped}")
    return lines


def unform_square(pos, pid: str, opts):
    """§5.11 a square unforms: its markers go (the element and its back-to-back partner); the bases then leave by
    single-element moves within their move distances (A11), so nothing moves here."""
    p = pos.piece(pid)
    if not p.square:
        raise InputError(f"{pid}: not in a square (§5.11)")
    mates = {q.id for q in friends(pos, p) if q.square and distance_mm(pos, p, q) <= opts.tolerance_mm
             and abs((q.heading_deg - p.heading_deg) % 360.0 - 180.0) < 1.0}
    return pos.with_pieces([replace(q, square=0) if q.id == pid or q.id in mates else q for q in pos.pieces])


def _resolve_single(pos, action: str, pid: str, dice, opts):
    if action == "river":  # §5.9
        return resolve_river(pos, pid, dice, opts)
    if action == "square":  # §5.11
        after = movement.form_square(pos, pid, None, None, opts)
    elif action == "unform":  # §5.11 / A11
        after = unform_square(pos, pid, opts)
    else:  # §5.10
        after = movement.swap_line_jaeger(pos, pid, None, opts)
    return resolve_simple(pos, action, after, pid, None, _SINGLE_RULES[action], opts)




__all__ = ["ContactMark", "DbxResolution", "DbxSelection", "DbxSystem", "ROSTER_TYPES", "TargetLine", "roster_code"]
