"""DBX 18th century: the troop-type table and the other lookup tables (digest §2.1, §3.7, §5.3, §7, §8.1, §9.1, §9.2).

All distances here are in paces (§3.1); `rules.dbx.model.Scale` converts them to table mm.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.errors import InputError

FOOT, MOUNTED = "foot", "mounted"


@dataclass(frozen=True)
class UnitType:
    """One row of the troop-type table [L329-L352] (§2.1, §5.3, §7, §8.1)."""

    code: str
    name: str
    cls: str  # §2.1 foot / mounted
    light: bool  # §2.1 light troops (A15)
    depth_cm: float  # §2.1 base depth at 15 mm (the "Basen" column)
    mv_good: int  # §5.3 paces in good going
    mv_bad: int  # §5.3 paces in bad going
    mv_road: int  # §5.3 paces along a road
    cf_foot: int  # §8.1 combat factor against foot ("Inf.")
    cf_mounted: int  # §8.1 combat factor against mounted ("Kav.")
    range_paces: int = 0  # §7, 0 = cannot shoot
    melee_cf: int | None = None  # §8.1 Art: 2 in melee [L31]
    impetuous: bool = False  # §8.6 pursuers
    charge_bonus: int = 0  # §8.4 attacking cavalry in the 1st round: Ul +2, other cavalry +1
    extra_pip: bool = False  # §5.1 elephants (and hordes, per element)
    can_contact: bool = True  # §5.7 artillery and generals may not move into contact
    cavalry: bool = False  # §8.4 "cavalry" for the charge bonus


_T = UnitType
# §5.3 / §7 / §8.1, numbers exactly as the table [L331-L352]
UNIT_TYPES: dict[str, UnitType] = {
    t.code: t
    for t in (
        _T("Li", "line infantry", FOOT, False, 2, 200, 100, 300, 4, 4, range_paces=200),
        _T("Ck", "clansmen", FOOT, False, 2, 200, 200, 300, 3, 2, range_paces=200, impetuous=True),
        _T("Jä", "Jäger", FOOT, True, 2, 300, 300, 300, 2, 2, range_paces=200),
        _T("Pl", "skirmishers", FOOT, True, 2, 300, 300, 300, 2, 2, range_paces=200),
        _T("Gu", "guerrillas", FOOT, False, 2, 300, 300, 300, 3, 3, range_paces=200, impetuous=True),
        _T("Sh", "Schützen", FOOT, False, 2, 200, 200, 300, 3, 4, range_paces=200),
        _T("Bo", "archers", FOOT, False, 2, 200, 200, 300, 2, 4, range_paces=200),
        _T("St", "tribal warriors", FOOT, False, 2, 300, 300, 300, 3, 2, impetuous=True),
        _T("Hi", "auxiliaries", FOOT, True, 2, 300, 300, 300, 3, 2),
        _T("Kl", "blades", FOOT, False, 2, 200, 200, 300, 3, 3),
        _T("Pk", "pikes", FOOT, False, 2, 200, 200, 300, 3, 4),
        # §2.1 / A26 dragoons: "Dr" is resolved per element to DrI (<=1720, mounted infantry) or DrK (>1720, cavalry)
        _T("DrI", "dragoons (mounted infantry)", FOOT, True, 4, 400, 300, 400, 3, 3, range_paces=200),
        _T("DrK", "dragoons (cavalry)", MOUNTED, False, 3, 400, 300, 400, 3, 3, charge_bonus=1, cavalry=True),
        _T("Kü", "cuirassiers", MOUNTED, False, 3, 300, 200, 400, 4, 4, impetuous=True, charge_bonus=1, cavalry=True),
        _T("Hu", "hussars", MOUNTED, True, 3, 500, 400, 500, 2, 2, charge_bonus=1, cavalry=True),
        _T("Ul", "uhlans", MOUNTED, True, 3, 500, 400, 500, 2, 2, charge_bonus=2, cavalry=True),
        _T("LR", "light cavalry", MOUNTED, True, 3, 500, 400, 500, 2, 2, charge_bonus=1, cavalry=True),
        _T("Re", "irregular cavalry", MOUNTED, False, 3, 400, 300, 500, 3, 3, charge_bonus=1, cavalry=True),
        _T("Km", "camel riders", MOUNTED, False, 3, 400, 300, 400, 2, 4, charge_bonus=1, cavalry=True),
        _T("El", "elephants", MOUNTED, False, 4, 300, 200, 400, 4, 5, extra_pip=True),
        _T("Art", "artillery", FOOT, False, 4, 300, 100, 400, 3, 3, range_paces=1000, melee_cf=2, can_contact=False),
        # §8.8 camp guard KF 3/3, range "*" = the period's musket range (A21); immovable
        _T("Camp", "camp", FOOT, False, 4, 0, 0, 0, 3, 3, range_paces=200, can_contact=False),
        # §2.2 / §8.9 general: 20 x 40 mm turned 90 degrees, no KF of its own (A3: 0), 500 everywhere (A27)
        _T("Gen", "general", MOUNTED, False, 4, 500, 500, 500, 0, 0, can_contact=False),
    )
}

# §2.1 list-only codes [my reading] and the A25 OCR readings
ALIASES = {"Lw": "Li", "Pa": "Jä", "LH": "LR", "Kä": "Kü", "Pi": "Pl", "Gr": "Li", "Fr": "Li", "Ja": "Jä", "Ku": "Kü"}
QUALITIES = ("Gr", "Fr")  # §8.1 grenadiers +1 melee; militia -1 fire and melee

# §6.4 / §7 skirmish fire range in woods / BUA, artillery band edges
SKIRMISH_RANGE = 100
ART_CLOSE = 300  # §8.3 guns +1 within 300 paces
SQUARE_MOVE = 100  # §5.11
RIVER_MOVE = 100  # §5.3 text list: 100 paces while the front edge is in a non-shallow river
GEN_FAR, GEN_NEAR = 1200, 600  # §5.1
DEPLOY_DEPTH, SIDE_EDGE_CLEAR = 600, 300  # §4.1
C_IN_C_RALLY = 600  # §5.1

# §3.7 terrain kinds
AREA_KINDS = ("gentle_hill", "steep_hill", "wood", "marsh", "rough", "dunes", "oasis", "fields", "settlement")
LINEAR_KINDS = ("river", "road", "waterway")
OTHER_KINDS = ("fortress", "beach")
TERRAIN_KINDS = AREA_KINDS + LINEAR_KINDS + OTHER_KINDS
BAD_GOING = ("steep_hill", "wood", "marsh", "rough", "settlement", "oasis")  # §3.7; dunes: all but Km
HILLS = ("gentle_hill", "steep_hill")
FIRE_BLOCKERS = ("wood", "oasis", "settlement")  # §3.7 / §6.2 (A5); crests handled separately
SKIRMISH_TERRAIN = ("wood", "oasis", "settlement")  # §6.4 "in woods and BUAs"
COVER = ("settlement", "wood", "oasis", "fortress")  # §8.3 A6 default "cover"
GENERAL_HIDES = ("fortress", "oasis", "settlement", "wood", "marsh")  # §5.1 item 3
SIGHT_BLOCKERS = ("wood", "oasis", "dunes", "settlement")  # §5.1 out of sight of the general
IMPASSABLE = ("waterway",)  # §3.7

# §9.2 weather table: zone -> results for the modified roll 1..8
WEATHER_TABLE: dict[str, tuple[str, ...]] = {
    "western_central_europe": ("G", "G", "G", "B", "G", "R", "S+R", "E"),
    "mediterranean": ("G", "G", "G", "G", "G", "G", "R", "R"),
    "north_africa_middle_east": ("G", "G", "G", "G", "G", "B", "G", "R"),
    "north_east_asia": ("G", "G", "G", "G", "S+R", "B", "E", "E"),
    "sahel_south_asia_americas": ("S+R", "S+R", "R", "G", "G", "G", "G", "G"),
}
SEASON_BONUS = {"summer": 0, "spring": 1, "autumn": 1, "winter": 2}  # §9.2
WEATHERS = ("G", "R", "B", "S", "S+R", "E", "snow")

# §9.1 home terrain: compulsory, optional features
HOME_TERRAIN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Ackerland": (("fields",), ("river", "gentle_hill", "steep_hill", "wood", "road", "waterway", "settlement")),
    "Waldland": (("wood",), ("river", "marsh", "gentle_hill", "rough")),
    "Bergland": (("steep_hill",), ("river", "wood", "settlement", "rough", "road")),
    "Steppe": (("gentle_hill",), ("river", "rough", "settlement")),
    "Wüste": (("rough",), ("dunes", "rough", "oasis", "settlement")),
    "Tropen": (("wood",), ("river", "marsh", "rough", "settlement", "road")),
    "Küste": (("waterway",), ("gentle_hill", "steep_hill", "marsh", "wood", "dunes", "settlement", "river")),
}


def weather_roll(zone: str, season: str, die: int) -> str:
    """§9.2: 1D6 +1 spring/autumn, +2 winter, read in the zone's row."""
    if zone not in WEATHER_TABLE:
        raise InputError(f"weather: unknown zone {zone!r} (known: {' '.join(WEATHER_TABLE)})")
    if season not in SEASON_BONUS:
        raise InputError(f"weather: unknown season {season!r} (known: {' '.join(SEASON_BONUS)})")
    return WEATHER_TABLE[zone][die + SEASON_BONUS[season] - 1]


def river_type(die: int) -> str:
    """§5.9 the first off-road crossing attempt decides the river for the whole game."""
    return "shallow" if die <= 2 else ("slow" if die <= 5 else "torrent")


def torrent_crossing(die: int) -> bool:
    """§5.9 a raging torrent is crossed on 3+; on 1-2 the move ends at the bank and crossings stop this bound."""
    return die >= 3
