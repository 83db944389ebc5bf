"""Terrain under an element, heights, line of sight, the fire zone and targets (§3.7, §6, §7, §9.2)."""

from __future__ import annotations

import numpy as np

from rules.dbx import geom
from rules.dbx.contact import enemies, in_melee
from rules.dbx.model import DbxPiece, DbxPosition, Terrain, base_size, corners, grown_corners
from rules.dbx.options import DEFAULT, Options
from rules.dbx.tables import (
    BAD_GOING,
    COVER,
    FIRE_BLOCKERS,
    HILLS,
    IMPASSABLE,
    SKIRMISH_RANGE,
    SKIRMISH_TERRAIN,
)

# ---------------------------------------------------------------- terrain under an element (§3.7, §9.2)


def features_under(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> list[Terrain]:
    r = corners(p, pos.scale)
    return [t for t in pos.terrain if t.touches_rect(r, opts.tolerance_mm)]


def bad_going_features(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> list[str]:
    """§3.7 the bad going an element is partly in (partly = wholly); weather §9.2 may make all ground bad."""
    weather = pos.game.weather
    out = []
    for t in features_under(pos, p, opts):
        if t.type in BAD_GOING:
            out.append(t.id)
        elif t.type == "dunes" and p.type != "Km":  # §3.7 dunes bad for all but camels
            out.append(t.id)
        elif t.type == "river" and weather == "E":  # §9.2 ice: frozen rivers count as difficult
            out.append(t.id)
    if weather in ("S", "S+R"):  # §9.2 mud: open ground becomes difficult for all troops
        out.append("weather:mud")
    if weather == "snow":  # §9.2 snow: the whole table is difficult going
        out.append("weather:snow")
    return out


def in_bad_going(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> bool:
    return bool(bad_going_features(pos, p, opts))


def going(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> str:
    return "bad" if in_bad_going(pos, p, opts) else "good"


def on_road(pos: DbxPosition, p: DbxPiece) -> bool:
    """§5.3 moving along a road: the base centre is on a road."""
    return any(t.type == "road" and t.contains((p.x_mm, p.y_mm)) for t in pos.terrain)


def front_edge(pos: DbxPosition, p: DbxPiece) -> tuple[np.ndarray, np.ndarray]:
    r = corners(p, pos.scale)
    return r[0], r[1]


def front_in_river(pos: DbxPosition, p: DbxPiece) -> list[str]:
    """§5.3 / §5.9 rivers the front edge stands in."""
    a, b = front_edge(pos, p)
    out = []
    for t in pos.terrain:
        if t.type == "river" and any(geom.segment_polygon(a, b, q) == 0.0 for q in t.parts):
            out.append(t.id)
    return out


def impassable_under(pos: DbxPosition, rect: np.ndarray, opts: Options = DEFAULT) -> list[str]:
    """§3.7 waterway; §9.2 ice makes steep hills impassable (snow: water is frozen and passable)."""
    out = []
    for t in pos.terrain:
        bad = t.type in IMPASSABLE and pos.game.weather != "snow"
        bad = bad or (t.type == "steep_hill" and pos.game.weather == "E")
        if bad and t.touches_rect(rect, opts.tolerance_mm):
            out.append(t.id)
    return out


def in_cover(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> bool:
    """§8.3 A6 cover: settlement/BUA, wood, oasis, fortress, or defending a camp/BUA."""
    return p.defending in ("bua", "camp", "fortress", "cover") or any(
        t.type in COVER for t in features_under(pos, p, opts))


def height_at(pos: DbxPosition, pt) -> float:
    return max((t.height(pt) for t in pos.terrain if t.type in HILLS), default=0.0)


def front_height(pos: DbxPosition, p: DbxPiece) -> np.ndarray:
    a, b = front_edge(pos, p)
    return np.array([height_at(pos, q) for q in geom.sample_segment(a, b, 7)])


def higher(pos: DbxPosition, a: DbxPiece, b: DbxPiece) -> bool:
    """§3.7 a's front edge is partly higher than b's whole front edge (uphill advantage). Front edges in contact
    lie on one line, so there the bases' own heights decide which one stands uphill."""
    ha, hb = float(front_height(pos, a).max()), float(front_height(pos, b).max())
    if abs(ha - hb) > 1e-6:
        return ha > hb
    mean = [float(np.mean([height_at(pos, q) for q in geom.sample_rect(corners(p, pos.scale))])) for p in (a, b)]
    return mean[0] > mean[1] + 1e-6


def on_hill(pos: DbxPosition, p: DbxPiece) -> bool:
    return float(front_height(pos, p).max()) > 0.0


# ---------------------------------------------------------------- line of sight (§6.2, A5)


def _segment_blockers(pos: DbxPosition, a, b, shooter: DbxPiece, target: DbxPiece, opts: Options,
                      ignore_types: tuple[str, ...] = ()) -> list[str]:
    out = []
    for t in pos.terrain:
        if t.type in FIRE_BLOCKERS:
            for q in t.parts:
                # §6.4 shooting out of / into the feature is skirmish fire, not blocked (A12)
                if geom.point_in_polygon(a, q) or geom.point_in_polygon(b, q):
                    continue
                if geom.segment_through_polygon(a, b, q):
                    out.append(t.id)
                    break
        elif t.type in HILLS and opts.crest_blocks == "always" and t.crest_line is not None and len(t.crest_line) > 1:
            if geom.polyline_cross(a, b, t.crest_line):  # §3.7 hill crests block fire
                out.append(t.id)
    h_shooter = height_at(pos, a)
    for p in pos.pieces:
        if p.id in (shooter.id, target.id) or p.type in ignore_types:
            continue
        r = grown_corners(p, pos.scale, 0.05)  # a line grazing a base's edge is blocked too
        if geom.segment_through_polygon(a, b, r):
            if opts.troops_block_unless_elevated:
                h_p = max(height_at(pos, q) for q in geom.sample_rect(r))
                if h_shooter > h_p + 1e-6:  # §6.2 elevated shooters see over troops
                    continue
            out.append(p.id)
    return out


def line_of_sight(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT,
                  ignore_types: tuple[str, ...] = ()) -> tuple[bool, list[str]]:
    """§6.2 a clear line from some point of a's front edge to some point of b; else the blockers of the best line."""
    fa, fb = front_edge(pos, a)
    src = geom.sample_segment(fa, fb, 5)
    dst = geom.sample_rect(corners(b, pos.scale))
    best: list[str] | None = None
    for s in src:
        for d in dst:
            blk = _segment_blockers(pos, s, d, a, b, opts, ignore_types)
            if not blk:
                return True, []
            if best is None or len(blk) < len(best):
                best = blk
    return False, sorted(set(best or []))


def out_of_sight(pos: DbxPosition, a: DbxPiece, gen: DbxPiece, opts: Options = DEFAULT) -> bool:
    """§5.1 / §6.9 out of the general's sight: terrain between, beyond a hill crest, in or behind wood, oasis, dunes."""
    pa, pg = (a.x_mm, a.y_mm), (gen.x_mm, gen.y_mm)
    for t in pos.terrain:
        if t.type in ("wood", "oasis", "dunes", "settlement"):
            if any(geom.segment_through_polygon(pa, pg, q) for q in t.parts):
                return True
            if t.type != "settlement" and t.touches_rect(corners(a, pos.scale), opts.tolerance_mm):
                return True
        if t.type in HILLS and t.crest_line is not None and len(t.crest_line) > 1:
            if geom.polyline_cross(pa, pg, t.crest_line):
                return True
    return False


# ---------------------------------------------------------------- fire (§6.1, §6.4, §7, §8.2)


def base_range(pos: DbxPosition, p: DbxPiece) -> int:
    """§7 range in paces from the table (a list's own range overrides: Culloden guns 700)."""
    return p.range_paces if p.range_paces is not None else p.ut.range_paces


def skirmish(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> list[str]:
    """§6.4 the woods / BUAs that make p's fire skirmish fire (A12: a front edge partly outside shoots normally)."""
    a, b = front_edge(pos, p)
    pts = geom.sample_segment(a, b, 9)
    out = []
    for t in features_under(pos, p, opts):
        if t.type not in SKIRMISH_TERRAIN:
            continue
        if opts.partly_outside_shoots_normally and not all(t.contains(q) for q in pts):
            continue
        out.append(t.id)
    return out


def fire_range(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT) -> tuple[int, str]:
    """§7 the range in paces this element shoots at now, and why (0 = cannot shoot)."""
    r = base_range(pos, p)
    if r <= 0:
        return 0, f"{p.ut.name} cannot shoot (§7)"
    why = f"{p.ut.name} range {r} paces (§7)"
    if skirmish(pos, p, opts):
        r, why = SKIRMISH_RANGE, "skirmish fire in wood or BUA: 100 paces (§6.4)"
    w = pos.game.weather
    if "R" in w and w != "B" and (opts.rain_affects == "all" or p.type == "Bo"):
        rain = int(pos.scale.paces(opts.rain_range_bb * pos.scale.bb_mm))
        if rain < r:
            r, why = rain, f"rain: no shooting beyond {opts.rain_range_bb} BB (§9.2, A8)"
    return r, why


def fire_zone(pos: DbxPosition, p: DbxPiece, range_paces: float) -> np.ndarray:
    """§6.1 the strip ahead of the front edge, widened by 1 BB each side, reaching to the range."""
    w, d = base_size(p, pos.scale)
    rng = pos.scale.mm(range_paces)
    fwd, _ = geom.directions(p.heading_deg)
    cx, cy = np.array([p.x_mm, p.y_mm]) + fwd * (d / 2 + rng / 2)
    return geom.rectangle(cx, cy, p.heading_deg, w + 2 * pos.scale.bb_mm, rng)


def range_mm(pos: DbxPosition, a: DbxPiece, b: DbxPiece) -> float:
    """§6.1 / A5 range: from the shooter's front edge to the nearest point of the target (360 degrees for a square)."""
    if a.square:
        return geom.polygon_distance(corners(a, pos.scale), corners(b, pos.scale))
    fa, fb = front_edge(pos, a)
    return geom.segment_polygon(fa, fb, corners(b, pos.scale))


def in_fire_zone(pos: DbxPosition, a: DbxPiece, b: DbxPiece, range_paces: float, opts: Options = DEFAULT) -> bool:
    """§6.1 partly (A5 default) or wholly inside the zone; a square shoots all round (§5.11)."""
    if a.square:
        return range_mm(pos, a, b) <= pos.scale.mm(range_paces) + opts.tolerance_mm
    zone = fire_zone(pos, a, range_paces + pos.scale.paces(opts.tolerance_mm))
    rb = corners(b, pos.scale)
    if opts.fire_zone_target == "wholly":
        grown = geom.rectangle(*zone.mean(axis=0), a.heading_deg,
                               float(np.hypot(*(zone[1] - zone[0]))) + 2 * opts.tolerance_mm,
                               float(np.hypot(*(zone[2] - zone[1]))) + 2 * opts.tolerance_mm)
        return all(geom.point_in_polygon(c, grown) for c in rb)
    return geom.penetration(zone, rb) > 0.0


def can_shoot(pos: DbxPosition, p: DbxPiece, opts: Options = DEFAULT, returning: bool = False) -> tuple[bool, str]:
    """§6.12 / §8.2 who shoots at all (`returning`: the target shooting back, for the camp's ammunition)."""
    r, why = fire_range(pos, p, opts)
    if r <= 0:
        return False, why
    if in_melee(pos, p, opts):
        return False, "in melee front to front (§6.12)"
    if p.type == "Ck":  # §5.1 / A24 saved PIPs; never in the enemy's bound
        if pos.game.active and pos.game.active != p.side:
            return False, "clansmen never return fire in the enemy bound (§2.1)"
        if p.saved_pips < opts.clansmen_pips_to_shoot:
            return False, f"clansmen need {opts.clansmen_pips_to_shoot} saved PIP to shoot (§5.1, A24)"
    if p.type == "Camp":
        phase = camp_phase(pos, p, returning)
        if (p.ammo_own if phase == "own" else p.ammo_enemy) >= CAMP_AMMO_PHASES:
            return False, f"the camp guard has used its {CAMP_AMMO_PHASES} {phase} fire phases (§8.8)"
    return True, why


CAMP_AMMO_PHASES = 3  # §8.8 [L63] "Nach 3 eigenen und 3 gegnerischen Beschussphasen geht die Munition aus"


def camp_phase(pos: DbxPosition, camp: DbxPiece, returning: bool = False) -> str:
    """§8.8 whose fire phase the camp shoots in, "own" or "enemy": the active side when the position says,
    otherwise a camp shooting first is in its own bound and one returning fire in the enemy's."""
    if pos.game.active:
        return "own" if pos.game.active == camp.side else "enemy"
    return "enemy" if returning else "own"


def candidates(pos: DbxPosition, a: DbxPiece, opts: Options = DEFAULT) -> list[tuple[float, DbxPiece]]:
    """Enemies inside a's fire zone and range with a clear line, nearest first (range mm, piece)."""
    r, _ = fire_range(pos, a, opts)
    if r <= 0:
        return []
    out = []
    limit = pos.scale.mm(r) + opts.tolerance_mm
    ignore = ("Jä", "Pl") if a.type == "Art" else ()  # §6.3 guns shoot past Jäger
    for e in enemies(pos, a):
        d = range_mm(pos, a, e)
        if d > limit or not in_fire_zone(pos, a, e, r, opts):
            continue
        seen, _ = line_of_sight(pos, a, e, opts, ignore)
        if seen:
            out.append((d, e))
    return sorted(out, key=lambda x: (x[0], x[1].id))


def fire_target_check(pos: DbxPosition, a: DbxPiece, b: DbxPiece, opts: Options = DEFAULT,
                      returning: bool = False) -> tuple[bool, str]:
    """§6.1 / §6.11 b is a's legal target: in zone, in range, seen, and the nearest (guns may pass over Jäger)."""
    ok, why = can_shoot(pos, a, opts, returning)
    if not ok:
        return False, why
    r, rwhy = fire_range(pos, a, opts)
    d = range_mm(pos, a, b)
    if d > pos.scale.mm(r) + opts.tolerance_mm:
        return False, f"out of range: {pos.scale.paces(d):.0f} paces, {rwhy}"
    if not in_fire_zone(pos, a, b, r, opts):
        return False, "not in the fire zone 1 BB either side ahead of the front edge (§6.1)"
    ignore = ("Jä", "Pl") if a.type == "Art" else ()
    seen, blk = line_of_sight(pos, a, b, opts, ignore)
    if not seen:
        return False, f"line of sight blocked by {', '.join(blk)} (§6.2)"
    cands = candidates(pos, a, opts)
    nearer = [e for d2, e in cands if d2 < d - opts.tolerance_mm and e.id != b.id]
    if a.type == "Art":
        nearer = [e for e in nearer if e.type not in ("Jä", "Pl")]  # §6.3
    if nearer:
        return False, f"must shoot at the nearest target {nearer[0].id} (§6.11)"
    return True, rwhy
