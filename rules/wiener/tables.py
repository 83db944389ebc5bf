"""The Wiener Napoleon tables and troop classes: speeds (§5.1), ranges and range bonuses (§7), the results
table (§8.2), cover (§8.4), markers (§8.3), formed / unformed troops and arcs (§3.6, §3.7)."""

from __future__ import annotations

from rules.wiener.model import MARKER_PENALTY, WienerPiece
from rules.wiener.options import DEFAULT, Options

# §5.1 movement in LE per turn: (cross-country in formation, road march, woods/buildings; None = not allowed)
SPEEDS: dict[str, tuple[int, int, int | None]] = {
    "infantry": (1, 2, 1),
    "heavy_cavalry": (2, 3, None),
    "light_cavalry": (3, 4, 1),
    "artillery": (1, 2, None),
    "horse_artillery": (2, 3, None),
    "pioneers": (1, 2, 1),
    "general": (3, 4, 1),
}

# §7 ranges in LE
MELEE_RANGE = 1
RANGES = {"small_arms": 2, "artillery": 8}

CAVALRY = ("light_cavalry", "heavy_cavalry")
ARTILLERY = ("artillery", "horse_artillery")
BLOCKING_TERRAIN = ("wood", "town", "church", "mountain")  # §6.1, §11 A12
BUILT_UP = ("town", "church")


def range_bonus(weapon: str, d: int, opts: Options = DEFAULT) -> int:
    """§7 "each halving of the firing range +1": artillery 8-5 LE 0, 4-3 +1, 2 +2, 1 +3; small arms 1 LE +1."""
    if weapon == "artillery":
        return 3 if d <= 1 else 2 if d == 2 else 1 if d <= 4 else 0
    if weapon == "small_arms":
        return opts.small_arms_point_blank_bonus if d <= 1 else 0
    return 0


def effect_of(wz: int, opts: Options = DEFAULT) -> str:
    """§8.2 results table, applied to the loser: 6+ loss test (§11 A1), 5 grey, 4 red, 1-3 nothing."""
    if wz >= opts.loss_test_from_wz:
        return "loss_test"
    if wz >= 5:
        return "grey"
    if wz == 4:
        return "red"
    return "none"


def cap(modifiers: list[tuple[str, int]], opts: Options = DEFAULT) -> int:
    """§8.1 [L:Deckelung]: positive factors capped at +4 and negative at -4 (separately, §11 A3), or the net."""
    pos = sum(v for _, v in modifiers if v > 0)
    neg = sum(v for _, v in modifiers if v < 0)
    if opts.cap_mode == "net":
        return max(-4, min(4, pos + neg))
    return min(pos, 4) + max(neg, -4)


def marker_penalty(p: WienerPiece, opts: Options = DEFAULT) -> int:
    """§8.3 own markers: Red -1, Grey -2; several add up (§11 A22) or the worst counts."""
    vals = [MARKER_PENALTY[m] for m in p.markers if m in MARKER_PENALTY]
    if not vals:
        return 0
    return sum(vals) if opts.marker_stacking == "sum" else max(vals)


def add_marker(p: WienerPiece, marker: str, opts: Options = DEFAULT) -> tuple[str, ...]:
    """The piece's markers after receiving one more (§8.3, §11 A22). Black stays until a rally."""
    if marker == "black":
        return tuple(m for m in p.markers if m != "black") + ("black",)
    if opts.marker_stacking == "worst":
        worst = max([MARKER_PENALTY.get(m, 0) for m in p.markers] + [MARKER_PENALTY[marker]])
        kept = tuple(m for m in p.markers if m == "black")
        return ({1: ("red",), 2: ("grey",)}[worst]) + kept
    return p.markers + (marker,)


# ---------------------------------------------------------------- troop classes


def is_cavalry(p: WienerPiece) -> bool:
    return p.type in CAVALRY


def is_artillery(p: WienerPiece) -> bool:
    return p.type in ARTILLERY


def mounted(p: WienerPiece) -> bool:
    return p.type == "heavy_cavalry" or (p.type == "light_cavalry" and p.formation == "mounted")


def is_skirmisher(p: WienerPiece) -> bool:
    return p.type == "infantry" and p.formation == "skirmish"


def is_formed(p: WienerPiece) -> bool:
    """§3.7 formed troops: line, column, square; cavalry. Unformed: skirmishers, buildings, artillery,
    pioneers, generals, troops at work."""
    if p.working:
        return False
    if p.type == "infantry":
        return p.formation in ("line", "column", "square")
    return is_cavalry(p)


def has_flanks(p: WienerPiece) -> bool:
    """§3.6 formed troops have flank and rear; squares, skirmishers, buildings do not."""
    return is_formed(p) and p.formation != "square"


def all_round(p: WienerPiece) -> bool:
    """§3.6 all-round sight: unformed troops, squares, troops in buildings."""
    return not is_formed(p) or p.formation == "square"


def fires_all_round(p: WienerPiece) -> bool:
    """§8.4 Wirkungsbereich: all-round for skirmishers, squares and buildings; artillery only barrel +-45."""
    return p.type == "infantry" and p.formation in ("skirmish", "square", "buildings")


def dispersed(p: WienerPiece, opts: Options = DEFAULT) -> bool:
    """§8.4 target is skirmishers or dispersed troops (-1 to the shooter), §11 A24; generals count as
    skirmishers for resilience (§8.11)."""
    if is_skirmisher(p) or p.type == "general":
        return True
    if opts.dispersed_target_penalty == "skirmishers_and_generals":
        return False
    return not is_formed(p)


def weapon(p: WienerPiece, opts: Options = DEFAULT) -> str | None:
    """§7 who can fire: artillery (unlimbered), infantry, dismounted light cavalry; not mounted cavalry,
    generals, or pioneers (§11 A36)."""
    if p.working:
        return None
    if is_artillery(p):
        return "artillery" if p.formation != "limbered" else None
    if p.type == "infantry":
        return "small_arms"
    if p.type == "light_cavalry" and p.formation == "dismounted":
        return "small_arms"
    if p.type == "pioneers" and opts.pioneers_fire:
        return "small_arms"
    return None


def speed(p: WienerPiece, night: bool = False) -> dict[str, int | None]:
    """§5.1 allowances in LE per turn; at night every troop moves at infantry speed (§5.1, §9)."""
    field_, road, wood = SPEEDS[p.type]
    if night:
        field_, road = SPEEDS["infantry"][0], SPEEDS["infantry"][1]
        wood = None if wood is None else min(wood, 1)
    return {"field": field_, "road": road, "wood": wood}
