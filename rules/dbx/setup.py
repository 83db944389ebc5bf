"""Around the battle: §4.1 set-up, §3.7 terrain sizes, §9.1 terrain counts, §9.5 big-battle PIPs, §5.1 rally."""

from __future__ import annotations

from common.errors import InputError
from rules.dbx import geom
from rules.dbx.model import DbxPosition, corners
from rules.dbx.tables import AREA_KINDS, DEPLOY_DEPTH, HOME_TERRAIN, SIDE_EDGE_CLEAR

EDGES = ("south", "east", "north", "west")  # south = y 0, north = y depth


def aggression(rolls: dict[str, int], factors: dict[str, int | None]) -> dict:
    """§4.1 both roll 1D6, adding aggression factors only if both armies have one; the lower is the defender."""
    sides = sorted(rolls)
    if len(sides) != 2:
        raise InputError("aggression: two sides roll")
    use = all(factors.get(s) is not None for s in sides)
    total = {s: rolls[s] + ((factors.get(s) or 0) if use else 0) for s in sides}
    if total[sides[0]] == total[sides[1]]:
        return {"totals": total, "defender": None, "rule": "equal: roll again (§4.1)"}
    defender = min(sides, key=lambda s: total[s])
    return {"totals": total, "defender": defender, "attacker": max(sides, key=lambda s: total[s]), "rule": "§4.1"}


def base_edge(numbered: dict[int, str], die: int) -> str:
    """§4.1 the attacker numbers three edges 1, 2, 3 and its preferred edge 4, 5, 6, then rolls."""
    return numbered[die]


def deployment_problems(pos: DbxPosition, side: str, edge: str) -> list[str]:
    """§4.1 within 600 paces of the base edge, none within 300 paces of the side edges."""
    if edge not in EDGES:
        raise InputError(f"deployment: edge must be one of {' '.join(EDGES)}")
    depth = pos.scale.mm(DEPLOY_DEPTH)
    side_clear = pos.scale.mm(SIDE_EDGE_CLEAR)
    out = []
    for p in pos.pieces:
        if p.side != side:
            continue
        r = corners(p, pos.scale)
        xs, ys = r[:, 0], r[:, 1]
        back = {"south": ys.max(), "north": pos.depth_mm - ys.min(), "west": xs.max(), "east": pos.width_mm - xs.min()}
        if back[edge] > depth + 1e-6:
            out.append(f"{p.id}: more than {DEPLOY_DEPTH} paces from the {edge} edge (§4.1)")
        if edge in ("south", "north"):
            lo, hi = xs.min(), pos.width_mm - xs.max()
        else:
            lo, hi = ys.min(), pos.depth_mm - ys.max()
        if min(lo, hi) < side_clear - 1e-6:
            out.append(f"{p.id}: within {SIDE_EDGE_CLEAR} paces of a side edge (§4.1)")
    return out


def terrain_problems(pos: DbxPosition, home: str | None = None, big_battle: bool = False) -> list[str]:
    """§3.7 sizes (no narrower than 1 BB, length + width <= 9 BB, length <= 2 x width except marsh and rough) and
    §9.1 counts (at most 3 of a kind; one waterway, oasis, settlement; rivers; the home terrain's compulsory one)."""
    kinds = [t.type for t in pos.terrain]
    out = _size_problems(pos) + _count_problems(kinds, big_battle)
    if home is not None:
        out += _home_terrain_problems(home, kinds)
    return out


def _size_problems(pos: DbxPosition) -> list[str]:
    """§3.7 the sizes of area features."""
    bb = pos.scale.bb_mm
    out = []
    for t in pos.terrain:
        if t.type not in AREA_KINDS or not t.polygon:
            continue
        poly = t.parts[0]
        length, width = _extent(poly)
        if width < bb - 1e-6:
            out.append(f"{t.id}: narrower than 1 BB (§3.7)")
        if length + width > 9 * bb + 1e-6:
            out.append(f"{t.id}: length + width over 9 BB (§3.7)")
        if t.type not in ("marsh", "rough") and length > 2 * width + 1e-6:
            out.append(f"{t.id}: longer than twice its width (§3.7)")
    return out


def _count_problems(kinds: list[str], big_battle: bool) -> list[str]:
    """§9.1 at most 3 of a kind, one waterway, oasis and settlement (and river in a big battle), 2 rivers."""
    out = []
    for k in set(kinds):
        if kinds.count(k) > 3:
            out.append(f"more than 3 {k} features (§9.1)")
    singles = ("waterway", "oasis", "settlement") + (("river",) if big_battle else ())
    for k in singles:
        if kinds.count(k) > 1:
            out.append(f"only 1 {k} (§9.1)")
    if kinds.count("river") > 2:
        out.append("at most 2 rivers (§9.1)")
    return out


def _home_terrain_problems(home: str, kinds: list[str]) -> list[str]:
    """§9.1 the home terrain's compulsory features, and no feature it does not allow."""
    if home not in HOME_TERRAIN:
        raise InputError(f"home terrain {home!r}: one of {' '.join(HOME_TERRAIN)}")
    need, allowed = HOME_TERRAIN[home]
    out = []
    for k in need:
        if k not in kinds:
            out.append(f"{home}: needs {k} (§9.1)")
    for k in set(kinds) - set(need) - set(allowed) - {"road", "fortress", "beach"}:
        if not (k in ("gentle_hill", "steep_hill") and ("gentle_hill" in allowed or "steep_hill" in allowed)):
            out.append(f"{home}: {k} is not a feature of this home terrain (§9.1)")
    return out


def _extent(poly) -> tuple[float, float]:
    """Length and width of the smallest-area bounding rectangle (over the polygon's edge directions)."""
    best = None
    for a, b in geom.edges(poly):
        u = b - a
        n = float((u @ u) ** 0.5)
        if n < 1e-9:
            continue
        u = u / n
        v = [-u[1], u[0]]
        pu, pv = poly @ u, poly @ v
        l1, l2 = float(pu.max() - pu.min()), float(pv.max() - pv.min())
        if best is None or l1 * l2 < best[0] * best[1]:
            best = (max(l1, l2), min(l1, l2))
    return best or (0.0, 0.0)


def big_battle_pips(rolls: list[int], high: str, low: str, middle: str, allied: dict[str, int] | None = None) -> dict:
    """§9.5 the secretly chosen commands take the highest and lowest of the three dice, the third the middle one;
    allied commands use their own dice."""
    if len(rolls) != 3:
        raise InputError("big battle PIPs: three dice, one per non-allied command")
    lo, mid, hi = sorted(rolls)
    out = {high: hi, middle: mid, low: lo}
    out.update(allied or {})
    return out
