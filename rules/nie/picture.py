"""What a Napoleon in Europe strategic map shows, in the drawing language of rules/picture.py (table mm, no toolkit).

Every region filled in its owner's colour (a neutral minor left plain; §2.1, §9.3) and outlined in the colour of a
nation whose land figures occupy it without owning it (occupation never changes ownership, §9.3); the sea areas in
water blue; each area's name; the selected figure's area and the regions a land move takes it to this turn (the
engine's entry rights, §5.1); every figure in its nation's colour with its id and kind; the moves the rules ordered
that the map does not show yet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from rules.board_picture import on_table
from rules.nie.board import battle_zones, map_point
from rules.picture import (
    AREA_PRIORITY,
    NOTE_PRIORITY,
    Area,
    Item,
    Label,
    LegendEntry,
    Line,
    Scene,
    ScenePiece,
    abbreviation,
    arrow,
    base_items,
    marks,
    pending_items,
    points,
    sample_area,
    sample_line,
    sample_text,
)

NATION_TONES = {"france": "#3c64dc", "britain": "#dc3232", "prussia": "#8c3cb4", "russia": "#329646",
                "ottoman": "#d2be8c", "austria": "#a0a0a0", "spain": "#f0d228", "minor": "#8cc8f0"}
"""§2.1's figure and homeland colours: France blue, Britain red, Prussia purple, Russia green, the Ottoman Empire
beige, Austria grey, Spain yellow; a resisting minor's army light blue."""
SEA_TONE = "terrain:water"


@dataclass(frozen=True)
class BattleSurface:
    """The battle board and how it lies: `to_table` its board mm -> table mm (None while it is not registered)."""

    board: Any
    to_table: Any = None


FORWARD_BEARING = {"A": 0.0, "B": 180.0}
"""Each side's front on the battle board, a compass bearing in its frame (rules/nie/live.py FORWARD_DEG)."""


def nation_tone(nation: str | None, index: int = 0) -> str:
    return NATION_TONES.get(nation or "", f"side:{index}")


def _poly(board, area: str, to_table) -> tuple:
    return (points(on_table(board.areas[area].polygon, to_table)),)


def map_items(pos, board, to_table) -> list[Item]:
    """The regions by owner and occupier, the sea areas, and each area's name at its centre."""
    out: list[Item] = []
    europe = pos.europe
    for aid in board.areas:
        if aid in europe.seas:
            out.append(Area("nie-sea", _poly(board, aid, to_table), SEA_TONE, 0.12, width=1.0, edge_tone="area",
                            tip=f"sea area {europe.seas[aid].name}", layer=3, data=(aid,)))
            continue
        r = europe.regions.get(aid)
        if r is None:
            continue
        owner = pos.owner(aid)
        occupiers = sorted({u.nation for u in pos.units_at(aid) if u.kind.army and u.nation != owner})
        tip = f"{r.name}: " + (f"owned by {owner}" if owner else "a neutral minor") + \
            (f", capital of {r.home}" if r.capital else "") + (f"; occupied by {', '.join(occupiers)}" if occupiers
                                                               else "")
        out.append(Area("nie-region", _poly(board, aid, to_table), nation_tone(owner) if owner else "area",
                        0.22 if owner else 0.0, width=1.0, edge_tone="area", tip=tip, layer=3, data=(aid,)))
        for k, n in enumerate(occupiers):
            out.append(Area("nie-occupied", _poly(board, aid, to_table), nation_tone(n), 0.0, "dash", 3.0 + k,
                            nation_tone(n), tip=f"{r.name} occupied by {n}", layer=3.5, data=(aid,)))
    for aid, a in board.areas.items():
        name = europe.regions[aid].name if aid in europe.regions else europe.seas[aid].name if aid in europe.seas \
            else aid
        at = on_table([a.centre], to_table)[0]
        out.append(Label("nie-area-name", tuple(at), name, "muted", 6.0, False, tip=name, layer=5,
                         short=abbreviation(name), priority=AREA_PRIORITY, align="centre", leader=False,
                         within=_poly(board, aid, to_table)[0]))
    return out


def selection_items(sel, board, to_table) -> list[Item]:
    """The selected figure's area and the regions its land move reaches (adapter NieSelection)."""
    if sel is None:
        return []
    out: list[Item] = []
    here = sel.where.removeprefix("port:")
    if here in board.areas:
        out.append(Area("nie-select", _poly(board, here, to_table), "select", 0.27, width=1.0,
                        tip=f"{sel.piece} in {sel.where}", layer=4))
    for r in sel.moves:
        if r in board.areas:
            out.append(Area("nie-reach", _poly(board, r, to_table), "reach", 0.27,
                            tip=f"{sel.piece} may move to {r} (§5.1)", layer=4, data=(r,)))
    return out


def figure_items(p: ScenePiece, scene: Scene, board, surface: BattleSurface | None = None) -> list[Item]:
    """A figure where the camera sees it, in its nation's colour with its id and kind, a warning when it is not
    placed (on a border, a land figure at sea), and the move the rules ordered (on the battle board: the zone and
    the way it must face, `surface`)."""
    if p.pose is None or p.status == "removed" and p.pending is None:
        return []
    nation = p.state.get("nation") if isinstance(p.state, dict) else None
    pos = scene.position
    u = pos.units.get(p.id) if pos is not None else None
    nation = u.nation if u is not None else nation
    placements = (scene.context or {}).get("placements", {})
    pl = placements.get(p.id)
    where = u.at if u is not None else f"not placed ({pl.note if pl is not None else 'not located'})"
    label = f"{p.label} {p.type or '?'}"
    tip = f"{p.label}: {nation or p.side} {p.type}, {p.status}; {where}"
    tone = nation_tone(nation, p.side_index)
    out = [it for it in base_items(p, scene, "nie-figure", tip, label, fill=0.7, pen_tone="outline")
           if it.kind != "facing"]  # a figure's facing means nothing on the strategic map
    out = [replace(it, tone=tone, layer=7, data=()) if isinstance(it, Area) else it for it in out]
    x, y, _ = p.pose
    if u is None and pl is not None:
        out.append(Label("nie-unplaced", (x - p.base_mm[0] / 2, y + p.base_mm[1] / 2 + 14), "not placed?",
                         "ambiguous", 7.5, offset_px=(0.0, 14.0), tip=tip))
    ch = p.pending
    if ch is not None:
        if ch.removed:
            out += pending_items(p, scene, None, "take off", ch.describe())
        elif getattr(ch, "zone", None) is not None:
            out += zone_pending_items(p, scene, ch, surface)
        elif ch.at is not None and ch.at.removeprefix("port:") in board.areas:
            area = ch.at.removeprefix("port:")
            gx, gy = on_table([_standing(pos, board, area)], scene.to_table)[0]
            out += [it for it in pending_items(p, scene, (gx, gy, 0.0), f"→ {ch.describe()}", ch.describe())
                    if it.kind != "pending-move"]
    return out


def zone_pending_items(p: ScenePiece, scene: Scene, ch, surface: BattleSurface | None) -> list[Item]:
    """A change on the battle board the figure does not show yet: a ghost base in the zone it must stand in (the
    zone's centre, or where it stands when only its formation changes), turned as it must face: toward the enemy,
    or sideways in square (§8.5, §13.1)."""
    pos = scene.position
    battle = pos.battle if pos is not None else None
    if surface is None or surface.to_table is None or battle is None or p.pose is None:
        return []
    zones = battle_zones(surface.board, battle.major)
    u = pos.units.get(p.id)
    side = battle.side_of_nation(u.nation) if u is not None else None
    if ch.zone not in zones or side is None:
        return []
    pts = on_table([(0.0, 0.0), (0.0, 1.0)], surface.to_table)
    up = math.degrees(math.atan2(pts[1][0] - pts[0][0], pts[1][1] - pts[0][1]))  # the board's +y as a table bearing
    heading = (FORWARD_BEARING[side] + (90.0 if ch.square else 0.0) + up) % 360.0
    if ch.moved:
        gx, gy = on_table([zones[ch.zone].mean(0)], surface.to_table)[0]
    else:
        gx, gy = p.pose[0], p.pose[1]
    return pending_items(p, scene, (float(gx), float(gy), heading), f"→ {ch.describe()}", ch.describe())


def _standing(pos, board, area: str) -> tuple[float, float]:
    """Where a figure ordered into `area` should stand: the map's centre of it when that lies in it, else the area's
    centre."""
    europe = pos.europe
    if area in europe.regions or area in europe.seas:
        xy = map_point(europe, area)
        if board.locate(*xy).area == area:
            return xy
    return board.areas[area].centre


def picture(scene: Scene, board, surface: BattleSurface | None = None) -> tuple[Item, ...]:
    """The whole map picture on `board` (the map's areas, rules.board.Board): regions and seas, the selection's
    reach, then every figure on top (its pending change on the battle board drawn through `surface`)."""
    pos = scene.position
    if pos is None or board is None:
        return ()
    out = map_items(pos, board, scene.to_table) + selection_items(scene.selection, board, scene.to_table)
    for p in scene.pieces:
        out += figure_items(p, scene, board, surface)
    return tuple(out)


def _battle_title(battle) -> str:
    if battle is None:
        return "battle board: no battle"
    kind = "major battle" if battle.major else "skirmish"
    screen = ", set-up behind the screen (§4.2)" if battle.phase == "setup" else ""
    return f"{kind} in {battle.region}, round {battle.round}, {battle.phase}{screen}"


def _battle_short(battle) -> str:
    return "no battle" if battle is None else f"battle in {battle.region}, round {battle.round}"


def battle_items(scene: Scene, board, to_table, hidden: set[str] | frozenset[str] = frozenset()) -> list[Item]:
    """The battle board's zones through its own pose (`to_table`: its board mm -> table mm; None while it is not
    registered: nothing drawn), each named, and filled in the colour of the nation whose figures of the current
    battle stand in it (§3.3); a skirmish's zones are its merged rows (A-line, M, B-line); the figures `hidden`
    from the viewer (behind the set-up's screen, §4.2) neither colour nor name a zone; a square is named in its
    zone's tip."""
    pos = scene.position
    if to_table is None or pos is None:
        return []
    battle = pos.battle
    held: dict[str, list[str]] = {}
    if battle is not None:
        for uid, bu in battle.units.items():
            if uid not in hidden:
                held.setdefault(bu.zone.name(battle.major), []).append(uid + (" (square)" if bu.square else ""))
    title = _battle_title(battle)
    out: list[Item] = []
    for zid, poly in battle_zones(board, battle.major if battle is not None else True).items():
        ids = held.get(zid, [])
        nations = sorted({pos.units[u.split(" ")[0]].nation for u in ids if u.split(" ")[0] in pos.units})
        tone = nation_tone(nations[0]) if len(nations) == 1 else "area"
        tip = f"{title}: zone {zid}" + (f" holds {', '.join(sorted(ids))}" if ids else "")
        out.append(Area("nie-zone", (points(on_table(poly, to_table)),), tone, 0.22 if nations else 0.0,
                        width=1.0, edge_tone="area", tip=tip, layer=3, data=(zid,)))
        at = on_table([poly.mean(0)], to_table)[0]
        out.append(Label("nie-zone-name", tuple(at), zid, "muted", 6.0, False, tip=tip, layer=5,
                         priority=AREA_PRIORITY + 1, align="centre", leader=False))
    corner = on_table([(0.0, board.depth_mm)], to_table)[0]
    out.append(Label("nie-battle-title", tuple(corner), title, "text", 7.0, True, (0.0, -3.0), tip=title, layer=5,
                     priority=NOTE_PRIORITY, align="bottom-left", short=_battle_short(battle)))
    return out


@dataclass(frozen=True)
class Threat:
    """One attack the rules allow now on the battle board: `shooter` may `kind` ("fire" or "charge") at `target`;
    `note` what it needs (§8.3, §8.4)."""

    shooter: str
    target: str
    kind: str
    note: str = ""


THREAT_TONES = {"fire": ("fire", "solid"), "charge": ("melee", "dash")}
"""How a threat is drawn: fire a solid line in the fire colour, a charge dashed in the melee colour."""


def threat_items(battle, threats, board, to_table) -> list[Item]:
    """Who may fire or charge at whom (§8.3, §8.4: only straight ahead, in the same column): a line from the
    shooter's zone to its target's zone for each allowed attack, with an arrow head at the target; several shooters
    of one zone fan out so that each line stays visible."""
    if battle is None or to_table is None or not threats:
        return []
    centres = {zid: poly.mean(0) for zid, poly in battle_zones(board, battle.major).items()}
    out: list[Item] = []
    fan: dict[str, int] = {}
    for t in threats:
        a, b = battle.units[t.shooter].zone.name(battle.major), battle.units[t.target].zone.name(battle.major)
        if a not in centres or b not in centres:
            continue
        k = fan.get(a, 0)
        fan[a] = k + 1
        dx = (k - 1.5) * 8.0 + (4.0 if t.kind == "charge" else 0.0)
        start, end = centres[a] + (dx, 0.0), centres[b] + (dx, 0.0)
        (sx, sy), (ex, ey) = on_table([start, end], to_table)
        heading = math.degrees(math.atan2(ex - sx, ey - sy)) % 360.0
        length = math.hypot(ex - sx, ey - sy)
        tone, pen = THREAT_TONES.get(t.kind, ("attack", "solid"))
        paths = arrow((float(sx), float(sy)), heading, length, head_mm=7.0)
        tip = f"{t.shooter} may {t.kind} at {t.target}" + (f" ({t.note})" if t.note else "")
        out.append(Line(f"nie-{t.kind}", (paths[0],), tone, pen, 2.0, tip, layer=6, piece=t.shooter,
                        data=(t.target,)))
        out.append(Line(f"nie-{t.kind}-head", (paths[1],), tone, "solid", 2.0, tip, layer=6, piece=t.shooter))
    return out


__all__ = ["NATION_TONES", "THREAT_TONES", "BattleSurface", "Threat", "battle_items", "nation_tone", "picture",
           "threat_items", "zone_pending_items"]


LEGEND = (
    LegendEntry("region", "a region in its owner's colour; uncoloured: a neutral minor",
                (sample_area(NATION_TONES["france"], 0.22),), marks("nie-region")),
    LegendEntry("fire", "an arrow on the battle board: who may fire (solid) or charge (dashed) at whom, straight "
                "ahead (§8.3, §8.4)", (sample_line(THREAT_TONES["fire"][0]),), marks("nie-fire", "nie-charge")),
    LegendEntry("occupied", "a dashed outline in a nation's colour: its armies occupy the region",
                (sample_area(NATION_TONES["britain"], 0.0, "dash", 3.0),), marks("nie-occupied")),
    LegendEntry("sea", "blue-grey: a sea area", (sample_area(SEA_TONE, 0.12, width=1.0),), marks("nie-sea")),
    LegendEntry("select", "cyan: the selected figure's region", (sample_area("select", 0.27, width=1.0),),
                marks("nie-select")),
    LegendEntry("reach", "green regions: where its land move reaches (§5.1)", (sample_area("reach", 0.27),),
                marks("nie-reach")),
    LegendEntry("zone", "the battle board's zones, in the colour of the nation whose figures hold them (§3.3)",
                (sample_area("area", 0.0, width=1.0),), marks("nie-zone")),
    LegendEntry("unplaced", '"not placed?": a figure on a border, or a land figure at sea: not located',
                (sample_text("not placed?", "ambiguous"),), marks("nie-unplaced")),
)
"""What the Napoleon in Europe pictures draw besides the shared marks (rules.picture.LEGEND)."""
