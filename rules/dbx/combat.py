"""Combat (§8): combat factors, every fire and melee modifier, who may fight whom, and the results table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from common.errors import InputError
from rules.dbx import geom
from rules.dbx.contact import (
    CONTACT_UNCERTAIN,
    behind_line,
    contact,
    directly_behind,
    enemies,
    flank_touching,
    friends,
    front_enemies,
    in_melee,
    overlaps_on,
)
from rules.dbx.model import DbxPiece, DbxPosition
from rules.dbx.options import DEFAULT, Options
from rules.dbx.sight import (
    base_range,
    can_shoot,
    fire_range,
    fire_target_check,
    front_edge,
    front_in_river,
    higher,
    in_bad_going,
    in_cover,
    in_fire_zone,
    line_of_sight,
    range_mm,
    skirmish,
)
from rules.dbx.tables import ART_CLOSE, FOOT, MOUNTED

LIGHT_CAV = ("LR", "Hu", "Ul")  # §8.5 A3 hussars and uhlans use the light cavalry rows
SKIRMISHERS = ("Jä", "Pl")


@dataclass(frozen=True)
class Modifier:
    value: int
    rule: str
    section: str

    def as_dict(self) -> dict:
        return {"value": self.value, "rule": self.rule, "section": self.section}


@dataclass
class Side:
    """One side of a combat: its piece, combat factor and modifiers."""

    piece: DbxPiece
    cf: int
    modifiers: list[Modifier] = field(default_factory=list)

    @property
    def net(self) -> int:
        return sum(m.value for m in self.modifiers)

    def total(self, die: int) -> int:
        """§8.1 no factor below zero: max(0, KF + modifiers) + die."""
        return max(0, self.cf + self.net) + die


def cls(p: DbxPiece) -> str:
    return p.ut.cls


def light_foot(p: DbxPiece, opts: Options) -> bool:
    """§11 A15 light foot: Pl, Jä, Hi, early dragoons (and guerrillas as an option)."""
    codes = ("Pl", "Jä", "Hi", "DrI") + (("Gu",) if opts.light_foot == "with_gu" else ())
    return p.type in codes


def combat_factor(p: DbxPiece, opp: DbxPiece, phase: str, opts: Options = DEFAULT, skirmish_fire: bool = False) -> int:
    """§8.1 the factor against the opponent's class; Art 2 in melee; skirmish fire 2 (A14); the general A3."""
    if p.type == "Gen":
        return opts.general_cf
    cf = p.ut.cf_foot if cls(opp) == FOOT else p.ut.cf_mounted
    if phase == "melee" and p.ut.melee_cf is not None:
        cf = p.ut.melee_cf
    if skirmish_fire:
        cf = 2 if opts.skirmish_fire_factor == "becomes_2" else cf + 2
    return cf


def _quality(p: DbxPiece, phase: str) -> list[Modifier]:
    out = []
    if p.quality == "Gr" and phase == "melee":
        out.append(Modifier(1, "grenadiers", "§8.1"))
    if p.quality == "Fr":
        out.append(Modifier(-1, "militia / free corps", "§8.1"))
    return out


def _rear_support(pos: DbxPosition, p: DbxPiece, opts: Options) -> list[Modifier]:
    """§8.3 / §8.4 line infantry supported by 1 line infantry element directly behind, in good going."""
    if p.type != "Li" or p.square:
        return []
    s = directly_behind(pos, p, opts)
    if s is not None and s.type == "Li" and not in_bad_going(pos, p, opts) and not in_bad_going(pos, s, opts):
        return [Modifier(1, f"supported by line infantry {s.id} behind", "§8.4")]
    return []


def shoots_back(pos: DbxPosition, target: DbxPiece, shooter: DbxPiece, opts: Options = DEFAULT) -> bool:
    """§8.2 the target is itself shooting at the shooter (an exchange of fire, A7)."""
    if target.type == "Ck":  # §2.1 clansmen never return fire in the enemy bound
        return False
    return fire_target_check(pos, target, shooter, opts, returning=True)[0]


def fire_sides(pos: DbxPosition, a: DbxPiece, t: DbxPiece, supporters: list[DbxPiece] = (),
               opts: Options = DEFAULT) -> tuple[Side, Side, bool]:
    """§8.2 / §8.3 (shooter side, target side, target shoots back)."""
    skir_a = bool(skirmish(pos, a, opts))
    back = shoots_back(pos, t, a, opts)
    skir_t = back and bool(skirmish(pos, t, opts))
    sa = Side(a, combat_factor(a, t, "fire", opts, skir_a))
    st = Side(t, combat_factor(t, a, "fire", opts, skir_t))
    if skir_a:
        sa.modifiers.append(Modifier(0, "skirmish fire: ranged factor 2 (A14)", "§8.2"))
    if behind_line(pos, a, t, opts) and not t.square:
        sa.modifiers.append(Modifier(2, "flank fire: shooter behind the line of the target's front", "§8.3"))
    if a.type == "Art":
        d = pos.scale.paces(range_mm(pos, a, t))
        if d <= ART_CLOSE:
            sa.modifiers.append(Modifier(1, "guns with target within 300 paces", "§8.3"))
        if d > base_range(pos, a) / 2:
            sa.modifiers.append(Modifier(-1, "guns with target beyond half range", "§8.3"))
        if t.square:
            st.modifiers.append(Modifier(-1, "square under artillery fire", "§8.3"))
    if cls(t) == MOUNTED:
        if opts.mounted_target_bonus_to == "shooter":
            sa.modifiers.append(Modifier(1, "target is mounted", "§8.3"))
        else:
            st.modifiers.append(Modifier(1, "mounted target (A6 alternative)", "§8.3"))
    if back and opts.fire_exchange == "one":
        if in_cover(pos, a, opts):
            sa.modifiers.append(Modifier(1, "in cover, fire exchanged", "§8.3"))
        if in_cover(pos, t, opts):
            st.modifiers.append(Modifier(1, "in cover, fire exchanged", "§8.3"))
    for i, s in enumerate(list(supporters)[:2]):
        st.modifiers.append(Modifier(-1, f"{'2nd' if i == 0 else '3rd'} enemy element shooting ({s.id})", "§8.3"))
    if pos.game.fog and opts.fog_fire_modifier:
        sa.modifiers.append(Modifier(opts.fog_fire_modifier, "fog or blizzard hinders shooting (A8)", "§9.2"))
    sa.modifiers += _quality(a, "fire") + _rear_support(pos, a, opts)
    st.modifiers += _quality(t, "fire") + _rear_support(pos, t, opts)
    return sa, st, back


def fire_check(pos: DbxPosition, a: DbxPiece, t: DbxPiece, opts: Options = DEFAULT) -> dict:
    """May a shoot at t, and with what (§6, §7, §8.2, §8.3)."""
    ok, why = fire_target_check(pos, a, t, opts)
    out: dict = {"allowed": ok, "reason": why, "modifiers": [], "net_modifier": 0}
    if a.ut.range_paces <= 0 and a.range_paces is None:
        return out
    sa, st, back = fire_sides(pos, a, t, (), opts)
    out.update(modifiers=[m.as_dict() for m in sa.modifiers], net_modifier=sa.net, factor=sa.cf,
               target_factor=st.cf, target_modifiers=[m.as_dict() for m in st.modifiers], target_net=st.net,
               target_shoots_back=back, range_paces=fire_range(pos, a, opts)[0])
    return out


# ---------------------------------------------------------------- melee (§8.4)


def _defender(pos: DbxPosition, p: DbxPiece, opp: DbxPiece, opts: Options) -> str | None:
    """§8.4 +1 defender of elevated positions, in cover, of river banks, of a BUA (one +1)."""
    if p.charged:
        return None
    if higher(pos, p, opp):
        return "defending uphill (front edge higher)"
    if p.defending in ("bua", "fortress", "camp"):
        return f"defending a {p.defending}"
    if in_cover(pos, p, opts):
        return "defending in cover"
    if (p.defending == "bank" or _defends_bank(pos, p, opts)) and pos.game.river in ("slow", "torrent") \
            and front_in_river(pos, opp):
        return "defending a river bank"
    return None


def _defends_bank(pos: DbxPosition, p: DbxPiece, opts: Options) -> bool:
    """§3.7 / A20 an element on land defends the bank when both front corners (or its whole front) touch the river."""
    a, b = front_edge(pos, p)
    pts = [a, b] if opts.river_bank_touch == "corners" else list(geom.sample_segment(a, b, 5))
    for t in pos.terrain:
        if t.type == "river" and all(min(0.0 if geom.point_in_polygon(pt, q) else geom.boundary_distance(pt, q)
                                         for q in t.parts) <= opts.tolerance_mm for pt in pts):
            return True
    return False


def melee_side(pos: DbxPosition, p: DbxPiece, opp: DbxPiece, opts: Options = DEFAULT) -> Side:
    """§8.4 one side of a melee: KF against the opponent's class and every melee factor."""
    s = Side(p, combat_factor(p, opp, "melee", opts))
    m = s.modifiers
    for f in friends(pos, p):  # +1 own general in flank contact
        if f.type == "Gen" and (not p.command or not f.command or f.command == p.command) \
                and flank_touching(pos, p, f, opts):
            m.append(Modifier(1, f"own general {f.id} in flank contact", "§8.4"))
            break
    m += _rear_support(pos, p, opts)
    why = _defender(pos, p, opp, opts)
    if why:
        m.append(Modifier(1, why, "§8.4"))
    if p.charged and p.ut.cavalry:
        m.append(Modifier(p.ut.charge_bonus, f"attacking {'uhlans' if p.type == 'Ul' else 'cavalry'} in the 1st round",
                          "§8.4"))
    sides_seen: set[str] = set()
    for e, c in overlaps_on(pos, p, opts):
        if e.id == opp.id:
            continue
        if c.kind == "rear":
            m.append(Modifier(-1, f"enemy {e.id} in rear contact", "§8.4"))
        else:
            side = c.edge or "?"
            if side in sides_seen:  # §3.5 per flank only one overlap or one flank contact
                continue
            sides_seen.add(side)
            what = "overlapping" if c.kind == "overlap" else "in flank contact"
            m.append(Modifier(-1, f"enemy {e.id} {what} on the {side}", "§8.4"))
        if c.kind in ("flank", "rear") and p.type == "Art" and cls(e) == MOUNTED:
            m.append(Modifier(-1, f"artillery attacked in {c.kind} by mounted {e.id}", "§8.4"))
        if c.kind == "rear" and cls(p) == FOOT and cls(e) == MOUNTED:
            m.append(Modifier(-2, f"foot attacked from the rear by mounted {e.id}", "§8.4"))
    if in_bad_going(pos, p, opts) and not light_foot(p, opts) and p.type != "St":
        m.append(Modifier(-2, "in bad going", "§8.4"))
    m += _quality(p, "melee")
    dem = pos.game.demoralised
    if (p.command in dem or p.side in dem) and p.defending != "fortress":
        m.append(Modifier(-2, "element of a demoralised command", "§9.6"))
    return s


def melee_check(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT) -> dict:
    """May a fight b in melee now, and with what (§3.5, §5.7, §8.4, §8.7)."""
    c = contact(pos, a, b, opts)
    back = contact(pos, b, a, opts)
    allowed, why = False, ""
    if c.intersect:
        why = "the bases overlap each other; place them edge to edge (§3.6)"
    elif c.kind == "front" or back.kind == "front":
        ok = c.valid if c.kind == "front" else back.valid
        if ok:
            allowed, why = True, "front to front contact (§3.5)"
        else:
            why = "fronts do not meet exactly full width to full width: no melee this bound (§3.5)"
    elif c.kind in ("flank", "rear"):
        if not c.valid:
            why = f"{c.kind} contact without a front corner at the target's corner is not legal (§3.5)"
        elif b.square and cls(a) == MOUNTED:
            why = "mounted cannot attack a square's flank (§8.7)"
        elif front_enemies(pos, b, opts):
            why = f"{b.id} fights the enemy in front; this {c.kind} contact counts -1 against it (§3.5)"
        else:
            allowed, why = True, f"{c.kind} contact: {b.id} turns to face at the end of the movement phase (§3.5)"
    elif c.kind == "overlap":
        why = f"overlap: -1 to {b.id} when it fights (§3.5); may pivot onto its flank free if it is in melee (§5.4)"
    elif c.kind == "corner":
        why = "corner contact only: no melee (§3.5)"
    else:
        why = "not in contact"
        if not a.ut.can_contact:
            why += f"; {a.ut.name} may not move into contact (§5.7)"
    if allowed and b.square and cls(a) == MOUNTED:
        others = [e for e in enemies(pos, b) if e.id != a.id and cls(e) == MOUNTED and contact(pos, e, b, opts).kind]
        if others:
            allowed, why = False, f"only 1 cavalry element fights a square ({others[0].id} already does) (§8.7)"
    if allowed and b.type == "Camp" and not (c.kind == "front" and c.valid):
        allowed, why = False, "a camp must be attacked in full front contact (§3.5)"
    sa = melee_side(pos, a, b, opts)
    sb = melee_side(pos, b, a, opts)
    unsure = c.uncertain or back.uncertain
    return {"allowed": allowed, "reason": uncertain_reason(why, unsure), "contact_uncertain": unsure,
            "modifiers": [m.as_dict() for m in sa.modifiers], "net_modifier": sa.net, "factor": sa.cf,
            "target_factor": sb.cf, "target_modifiers": [m.as_dict() for m in sb.modifiers], "target_net": sb.net}


def uncertain_reason(why: str, uncertain: bool) -> str:
    """§13 a borderline contact is said, not silently decided: the reason as measured, with the doubt in front."""
    return f"{CONTACT_UNCERTAIN} (§13); as measured: {why}" if uncertain else why


# ---------------------------------------------------------------- results (§8.5)


def band(loser_total: int, winner_total: int) -> int:
    """§8.5 0: no effect (ties, A3), 1: lower but more than half, 2: half or less."""
    if loser_total >= winner_total:
        return 0
    return 2 if 2 * loser_total <= winner_total else 1


@dataclass(frozen=True)
class _Bout:
    """What a row of the §8.5 results table asks: who won, in which phase, and the going."""

    loser: DbxPiece
    winner: DbxPiece
    melee: bool
    gg: bool  # the element whose going counts (option results_going_of) is in good going
    opts: Options

    @property
    def by(self) -> str:
        """The winner's type ("destroyed by X" means the winner is an X)."""
        return self.winner.type

    @property
    def fire(self) -> bool:
        return not self.melee

    @property
    def sg(self) -> bool:
        return not self.gg

    @property
    def by_mounted(self) -> bool:
        return cls(self.winner) == MOUNTED

    @property
    def by_foot(self) -> bool:
        return cls(self.winner) == FOOT

    @property
    def by_art_fire(self) -> bool:
        """Shot by artillery."""
        return self.by == "Art" and self.fire

    @property
    def by_art_melee(self) -> bool:
        """Beaten by artillery in base contact."""
        return self.by == "Art" and self.melee

    @property
    def by_tribal_outside_bua(self) -> bool:
        """By tribal warriors "who are not manning a BUA or camp" (whose BUA: option tribal_bua_exemption_of)."""
        holder = self.loser if self.opts.tribal_bua_exemption_of == "loser" else self.winner
        return self.by == "St" and holder.defending not in ("bua", "camp")


# A row of the results table: (when, result, row text) in the order the rulebook reads them; `when` None is the
# row's "otherwise".
_Row = tuple[tuple[Callable[[_Bout], bool] | None, str, str], ...]

_CAMP: _Row = (  # A21
    (lambda f: f.melee, "destroyed", "camp: sacked when its guard loses a melee (A21)"),
    (None, "none", "camp under fire: no effect (A21)"),
)

# §8.5 band 1: the loser's total is lower than the winner's, but more than half of it.
RESULTS_BAND1: dict[str, _Row] = {
    "camp": _CAMP,
    "square": (
        (lambda f: f.by_foot and f.melee, "destroyed", "square: destroyed by foot in base contact"),
        (None, "none", "square: otherwise no effect"),
    ),
    "general's element": (
        (None, "flee", "general's element flees"),
    ),
    "line infantry": (
        (lambda f: (f.by in ("Kü", "Ck") and f.gg) or f.by == "St", "destroyed",
         "line infantry: destroyed by cuirassiers or clansmen in GG, or tribal warriors"),
        (None, "recoil", "line infantry: otherwise recoil"),
    ),
    "tribal warriors, guerrillas": (
        (lambda f: (f.by == "El" and (f.gg or f.opts.tribal_gg_applies_to == "cuirassiers"))
         or (f.by == "Kü" and f.gg), "destroyed",
         "tribal warriors, guerrillas: destroyed by elephants or cuirassiers in GG"),
        (lambda f: f.by_art_fire, "flee", "tribal warriors, guerrillas: flee if shot by artillery"),
        (None, "recoil", "tribal warriors, guerrillas: otherwise recoil"),
    ),
    "Jäger, skirmishers": (
        (lambda f: f.by == "Kü" and f.gg, "destroyed", "Jäger, skirmishers: destroyed by cuirassiers in GG"),
        (lambda f: f.by_art_fire, "flee", "Jäger, skirmishers: flee if shot by artillery"),
        (None, "recoil", "Jäger, skirmishers: otherwise recoil"),
    ),
    "clansmen": (
        (lambda f: f.by_mounted and f.gg, "destroyed", "clansmen: destroyed by mounted in GG"),
        (None, "recoil", "clansmen: otherwise recoil"),
    ),
    "auxiliaries": (
        (lambda f: f.by == "Kü" and f.gg, "destroyed", "auxiliaries: destroyed by cuirassiers in GG"),
        (None, "recoil", "auxiliaries: otherwise recoil"),
    ),
    "archers": (
        (lambda f: f.by_mounted, "destroyed", "archers: destroyed by mounted"),
        (None, "recoil", "archers: otherwise recoil"),
    ),
    "dragoons before 1720": (
        (lambda f: f.fire and f.by_foot, "flee", "dragoons before 1720: flee if shot by foot"),
        (None, "recoil", "dragoons before 1720: otherwise recoil"),
    ),
    "artillery": (
        (lambda f: f.melee, "destroyed", "artillery: destroyed in base contact"),
        (None, "none", "artillery: otherwise no effect"),
    ),
    "cuirassiers": (
        (lambda f: f.by in LIGHT_CAV or f.by_art_melee or f.sg, "destroyed",
         "cuirassiers: destroyed by light cavalry, artillery in contact, or in SG"),
        (None, "recoil", "cuirassiers: otherwise recoil"),
    ),
    "light cavalry": (
        (None, "recoil", "light cavalry: recoil"),
    ),
    "elephants": (
        (lambda f: f.by in SKIRMISHERS + ("Hi",) + LIGHT_CAV or f.by_art_fire, "destroyed",
         "elephants: destroyed by skirmishers, auxiliaries, light cavalry, artillery fire"),
        (None, "recoil", "elephants: otherwise recoil"),
    ),
    "other mounted": (  # DrK, Re, Km
        (lambda f: f.by_art_melee, "destroyed", "other mounted: destroyed by artillery in base contact"),
        (lambda f: f.sg, "flee", "other mounted: flee if in SG"),
        (None, "recoil", "other mounted: otherwise recoil"),
    ),
    "other foot": (  # Sh, Kl, Pk
        (lambda f: f.by == "El" or (f.by == "Kü" and f.gg) or f.by_tribal_outside_bua, "destroyed",
         "other foot: destroyed by elephants, cuirassiers in GG, or tribal warriors"),
        (None, "recoil", "other foot: otherwise recoil"),
    ),
}

# §8.5 band 2: the loser's total is half the winner's or less.
RESULTS_BAND2: dict[str, _Row] = {
    "camp": _CAMP,
    "light cavalry": (
        (lambda f: f.by_mounted or f.by_art_melee or f.sg, "destroyed",
         "light cavalry: destroyed by mounted, artillery in contact, or in SG"),
        (None, "flee", "light cavalry: otherwise flee"),
    ),
    "Jäger, skirmishers": (
        (lambda f: (f.by_mounted and f.by != "El" and f.gg) or f.by in ("Hi",) + SKIRMISHERS, "destroyed",
         "Jäger, skirmishers: destroyed by mounted (not El) in GG, auxiliaries, skirmishers"),
        (None, "flee", "Jäger, skirmishers: otherwise flee"),
    ),
    "dragoons before 1720": (
        (lambda f: f.by_foot, "flee", "dragoons before 1720: flee from foot"),
        (None, "destroyed", "dragoons before 1720: otherwise destroyed"),
    ),
    "general's element": (
        (lambda f: f.by_art_fire, "destroyed", "general's element: destroyed by artillery fire"),
        (None, "flee", "general's element: otherwise flees"),
    ),
    "other troops": (  # squares and artillery too
        (lambda f: f.by_art_melee, "recoil", "other troops: recoil if beaten by artillery in melee"),
        (None, "destroyed", "other troops: otherwise destroyed"),
    ),
}

RESULTS = {1: RESULTS_BAND1, 2: RESULTS_BAND2}

# The row each troop type reads, where it has one of its own (§8.5 A3: hussars and uhlans read light cavalry's).
_RESULTS_ROW = {
    "Camp": "camp",
    "Gen": "general's element",
    "Li": "line infantry",
    "St": "tribal warriors, guerrillas",
    "Gu": "tribal warriors, guerrillas",
    "Ck": "clansmen",
    "Hi": "auxiliaries",
    "Bo": "archers",
    "DrI": "dragoons before 1720",
    "Art": "artillery",
    "Kü": "cuirassiers",
    "El": "elephants",
    **{t: "Jäger, skirmishers" for t in SKIRMISHERS},
    **{t: "light cavalry" for t in LIGHT_CAV},
}


def results_row(loser: DbxPiece, b: int) -> str:
    """The row of the band `b` results table (§8.5) that `loser` reads."""
    table = RESULTS[b]
    if b == 1 and loser.square and loser.type != "Camp":
        return "square"
    row = _RESULTS_ROW.get(loser.type)
    if row in table:
        return row
    if b == 2:
        return "other troops"
    return "other mounted" if cls(loser) == MOUNTED else "other foot"


def outcome(pos: DbxPosition, loser: DbxPiece, winner: DbxPiece, phase: str, loser_total: int, winner_total: int,
            opts: Options = DEFAULT) -> tuple[str, str]:
    """§8.5 the loser's result: "none", "recoil", "flee", "destroyed" (and the table row used)."""
    b = band(loser_total, winner_total)
    if b == 0:
        return "none", "totals equal or higher: no effect (§8.5, A3)"
    goer = loser if opts.results_going_of == "loser" else winner
    bout = _Bout(loser, winner, phase == "melee", not in_bad_going(pos, goer, opts), opts)
    result, row = next((res, row) for when, res, row in RESULTS[b][results_row(loser, b)]
                       if when is None or when(bout))
    return result, f"band {b} ({'lower' if b == 1 else 'half or less'}), {row} (§8.5)"


def fire_eligible_supporters(pos: DbxPosition, target: DbxPiece, shooter: DbxPiece, ids: list[str],
                             opts: Options = DEFAULT) -> list[DbxPiece]:
    """§8.2 up to 2 more ranged elements that could shoot at the same target."""
    out = []
    for sid in ids:
        s = pos.piece(sid)
        if s.side != shooter.side or s.id == shooter.id:
            raise InputError(f"supporter {sid!r}: must be another element of {shooter.side}")
        ok, why = can_shoot(pos, s, opts)
        r, _ = fire_range(pos, s, opts)
        if ok and range_mm(pos, s, target) > pos.scale.mm(r) + opts.tolerance_mm:
            ok, why = False, "target out of its range"
        if ok and not in_fire_zone(pos, s, target, r, opts):
            ok, why = False, "target not in its fire zone"
        if ok and not line_of_sight(pos, s, target, opts)[0]:
            ok, why = False, "no line of sight"
        if not ok:
            raise InputError(f"supporter {sid!r} cannot shoot at {target.id}: {why} (§8.2)")
        out.append(s)
    if len(out) > 2:
        raise InputError("at most 2 additional elements may join in shooting (§8.2)")
    return out


def engaged(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> bool:
    return in_melee(pos, p, opts)
