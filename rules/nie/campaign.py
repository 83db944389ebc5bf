"""A scripted short Napoleon in Europe campaign, as plain data: the acceptance test of the recorder on both surfaces
(tests/fieldglass/test_nie_campaign.py renders it into frames of the synthetic table and records them with
`fieldglass record`; tests/rules/test_nie_campaign.py plays its inputs through the engine alone).

February to April 1805, France against Russia (the players' two nations, France first, §4.1), on the demo map
(data/europe_demo.toml, INVENTED geometry) with the battle board beside it:

* February, France: its army of six marches from Lithuania into Moscow (`land_move`, §5.1) and attacks the six
  Russians there (`start_battle`: six army units a side, a major battle, §8.2). The battle board is straightened
  first (moved and turned: the camera finds it again from its own anchors). The set-up is declared (`deploy`, §4.2)
  and both armies go onto the battle board into their zones; the cavalry phase passes, the French artillery in
  A-centre fires over the empty M-centre at the Russian infantry in B-centre (§8.3: 9 needed, 5+4 hits, effect 2
  eliminates) and the Russian line is broken (§8.7): France wins (+1 PAP, §9.7). The Russians retreat to Ukraine,
  the French stay in Moscow (§8.9), and every figure goes back to the map.
* February, Russia: its infantry in St. Petersburg marches to Lithuania.
* March, France: an infantry from Moscow marches into St. Petersburg; Russia passes.
* The end of March brings the production round (§4.1: +1 PAP each); in its production turn France totals its PP
  (its income added to the 20 it saved, §9.4) and buys an infantry in Paris (§9.5), whose figure is then put on the
  map.

`STEPS` is the script: what the players do (`input`: a line of `fieldglass record --inputs`, without its frame) and
what happens on the cloth (`move`: figures carried to a region of the map, `battle:ZONE` on the battle board, or off
the table; `surface`: the battle board laid down somewhere else), with what the engine must answer (`expect`).
`truth` lists the events the record must hold, in order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from rules.board import distance_to_outline, points_in_polygon
from rules.nie.live import FORWARD_DEG

MAP, BATTLE = "map", "battle"

GAME = {
    "system": "nie", "board": "demo", "year": 1805, "month": 2, "round": 1, "start_nation": "france",
    "active": "france", "players": {"france": "anna", "russia": "ivan"},
    "relations": [{"nations": ["france", "russia"], "status": "war", "declared_by": ["france"]}],
    "pp": {"france": 20, "russia": 15}, "units": [],
}
"""The game the camera cannot see (the position file's form, without units: the camera places the figures)."""

FIGURES = (
    # id, nation, roster type, marker, where it stands at the start (None: in the box, bought later)
    ("fr-inf-1", "france", "infantry", 30, "lithuania"),
    ("fr-inf-2", "france", "infantry", 31, "lithuania"),
    ("fr-inf-3", "france", "infantry", 32, "lithuania"),
    ("fr-inf-4", "france", "infantry", 33, "lithuania"),
    ("fr-cav-1", "france", "cavalry", 34, "lithuania"),
    ("fr-art-1", "france", "artillery", 35, "lithuania"),
    ("ru-inf-1", "russia", "infantry", 40, "moscow"),
    ("ru-inf-2", "russia", "infantry", 41, "moscow"),
    ("ru-inf-3", "russia", "infantry", 42, "moscow"),
    ("ru-inf-4", "russia", "infantry", 43, "moscow"),
    ("ru-cav-1", "russia", "cav", 44, "moscow"),  # bound at set-up: a plain Russian "cavalry" is asked (§13.2)
    ("ru-art-1", "russia", "artillery", 45, "moscow"),
    ("ru-inf-5", "russia", "infantry", 46, "st_petersburg"),
    ("france-inf-1", "france", "infantry", 36, None),  # the engine names a bought unit NATION-TYPE-N (§9.5)
)
BASE_MM, MARKER_MM, MARKER_HEIGHT_MM = 24.0, 20.0, 12.0
"""Each figure's base, its marker's side and the marker's height above the cloth (mm)."""

BATTLE_AT = (1040.0, 150.0, 0.0)
"""Where the battle board lies at the start, beside the map (whose origin is the table's): its origin's table mm and
its rotation (degrees, counter-clockwise)."""
BATTLE_MOVED = (1055.0, 230.0, 3.0)
"""Where it lies after it is straightened before the battle: 80 mm further north (more than a zone's depth) and
turned, so that a figure located with the old pose would land in the wrong zone."""

FRENCH = ("fr-inf-1", "fr-inf-2", "fr-inf-3", "fr-inf-4", "fr-cav-1", "fr-art-1")
RUSSIANS = ("ru-inf-1", "ru-inf-2", "ru-inf-3", "ru-inf-4", "ru-cav-1", "ru-art-1")
ZONES = {
    "fr-inf-1": "A-left", "fr-art-1": "A-centre", "fr-inf-2": "A-right",
    "fr-cav-1": "A-reserve", "fr-inf-3": "A-reserve", "fr-inf-4": "A-reserve",
    "ru-inf-1": "B-left", "ru-inf-2": "B-centre", "ru-inf-3": "B-right",
    "ru-cav-1": "B-reserve", "ru-art-1": "B-reserve", "ru-inf-4": "B-reserve",
}
"""The set-up on the battle board (§4.2): every line zone held, the rest in reserve."""
SURVIVORS = tuple(r for r in RUSSIANS if r != "ru-inf-2")


def _combat(action: str, attacker: str, target: str | None = None, dice=(), **choices: str) -> dict:
    inp = {"type": "combat", "action": action, "attacker": attacker}
    if target is not None:
        inp["target"] = target
    if dice:
        inp["dice"] = list(dice)
    if choices:
        inp["choices"] = {k.replace("__", "."): v for k, v in choices.items()}
    return inp


END_TURN = {"type": "turn"}
FRANCE_INCOME = 10 + 5 * 2
"""France's PP income in the April 1805 production round (§9.4): its homeland on the demo map, Paris 10 (the
capital's value, A2's best reading) and Picardy, Vendée, Burgundy, Gascony and Provence 2 each; Moscow, which its
army holds, is occupied, not owned (§9.3)."""

STEPS: tuple[dict, ...] = (
    {"still": 6},
    # February 1805, France moves (§4.1)
    {"input": _combat("land_move", ",".join(FRENCH), "moscow", path="moscow"),
     "expect": {"at": dict.fromkeys(FRENCH, "moscow")}},
    {"move": dict.fromkeys(FRENCH, "moscow"), "carry": "fr-cav-1"},
    {"input": _combat("start_battle", "france", "moscow", **{"from": "lithuania"}),
     "expect": {"battle": "moscow", "major": True, "phase": "setup"}},
    {"surface": {BATTLE: BATTLE_MOVED}},
    # the set-up is declared (§4.2) with the zones the figures are then put into: the camera reads them there
    {"input": _combat("deploy", "any", **{f"zone__{pid}": z for pid, z in ZONES.items()}),
     "expect": {"phase": "cavalry", "zones": ZONES}},
    {"move": {pid: f"battle:{ZONES[pid]}" for pid in FRENCH + RUSSIANS}},
    {"input": _combat("end_phase", "any"), "expect": {"phase": "cavalry", "acting": "B"}},
    {"input": _combat("end_phase", "any"), "expect": {"phase": "artillery", "acting": "A"}},
    # §8.3: artillery at 2 zones needs 9 (the option cell fire_art_inf_2): 5+4 hits, effect 2 eliminates
    {"input": _combat("fire", "fr-art-1", "ru-inf-2", dice=(5, 4, 2)),
     "expect": {"removed": ["ru-inf-2"], "phase": "pursuit", "loser": "B"}},
    {"move": {"ru-inf-2": None}},
    {"input": _combat("end_battle", "any", **{"retreat__*": "ukraine"}),
     "expect": {"at": dict.fromkeys(SURVIVORS, "ukraine"), "phase": "over"}},
    {"move": {**dict.fromkeys(FRENCH, "moscow"), **dict.fromkeys(SURVIVORS, "ukraine")}},
    {"input": END_TURN, "expect": {"month": 2, "round": 1, "active": "russia"}},
    # February, Russia moves
    {"input": _combat("land_move", "ru-inf-5", "lithuania", path="lithuania"),
     "expect": {"at": {"ru-inf-5": "lithuania"}}},
    {"move": {"ru-inf-5": "lithuania"}, "carry": "ru-inf-5"},
    {"input": END_TURN, "expect": {"month": 3, "round": 2, "active": "france"}},
    # March: France moves, Russia passes; the production round follows (§4.1)
    {"input": _combat("land_move", "fr-inf-4", "st_petersburg", path="st_petersburg"),
     "expect": {"at": {"fr-inf-4": "st_petersburg"}}},
    {"move": {"fr-inf-4": "st_petersburg"}, "carry": "fr-inf-4"},
    {"input": END_TURN, "expect": {"month": 3, "round": 2, "active": "russia"}},
    # +1 PAP each before the production round (§4.1); France has 1 more for winning a major battle (§9.7)
    {"input": END_TURN, "expect": {"month": 4, "round": 3, "active": "france", "production": True,
                                   "pap": {"france": 2, "russia": 1}}},
    {"input": _combat("production", "france"), "expect": {"pp": {"france": 20 + FRANCE_INCOME}}},
    {"input": _combat("purchase", "france", buy="inf:1", place="paris"),
     "expect": {"at": {"france-inf-1": "paris"}, "pp": {"france": 20 + FRANCE_INCOME - 6}}},  # infantry: 6 PP (§8.1)
    {"move": {"france-inf-1": "paris"}, "carry": "france-inf-1"},
)
"""The script, in order (see the module's docstring)."""


def start_places() -> dict[str, str]:
    """Where each figure on the table stands at the start: figure id -> region."""
    return {fid: at for fid, _, _, _, at in FIGURES if at is not None}


def place_of(where: str) -> tuple[str, str]:
    """A script's destination as (surface, area): a region of the map or `battle:ZONE`."""
    if where.startswith(f"{BATTLE}:"):
        return BATTLE, where.split(":", 1)[1]
    return MAP, where


def facing(place: tuple[str, str]) -> float:
    """The compass bearing, in its surface's own frame, a figure standing at `place` (surface, area) faces: on the
    battle board the enemy (its zone's side's front, rules/nie/live.py FORWARD_DEG: an infantry turned away from it
    would be read in square, §13.1), on the map north (a heading means nothing there)."""
    surface, area = place
    return FORWARD_DEG.get(area[:1], 0.0) if surface == BATTLE else 0.0


def truth() -> list[dict]:
    """The events the record must hold, in order: each figure's appearance where it starts (surface, area), the
    battle board's poses, every move (from and to: surface, area), each action the players resolved (with the
    figures it removed) and each end of a turn (the date and the nation to move after it)."""
    out: list[dict] = [{"type": "surface", "surface": BATTLE, "at": BATTLE_AT}]
    where: dict[str, tuple[str, str] | None] = {}
    for fid, at in start_places().items():
        where[fid] = (MAP, at)
        out.append({"type": "appeared", "piece": fid, "to": (MAP, at)})
    for step in STEPS:
        if "surface" in step:
            out += [{"type": "surface", "surface": name, "at": tuple(pose)} for name, pose in step["surface"].items()]
        for fid, dest in (step.get("move") or {}).items():
            if dest is None:  # taken off: the rules removed it, the record says so in the combat
                where[fid] = None
                continue
            to = place_of(dest)
            if where.get(fid) is None:
                out.append({"type": "appeared", "piece": fid, "to": to})
            else:
                out.append({"type": "move", "piece": fid, "from": where[fid], "to": to})
            where[fid] = to
        inp = step.get("input")
        if inp is None:
            continue
        if inp["type"] == "turn":
            e = step["expect"]
            out.append({"type": "turn", "month": e["month"], "round": e["round"], "active": e["active"]})
        else:
            out.append({"type": "combat", "action": inp["action"],
                        "removed": sorted(step["expect"].get("removed", []))})
    return out


# ---- where the figures stand on the cloth


def spots(polygon: Iterable, n: int, taken: Iterable[tuple[float, float]] = (), spacing_mm: float = 32.0,
          margin_mm: float = 14.0, step_mm: float = 4.0) -> list[tuple[float, float]]:
    """`n` standing points in an area (`polygon`: its outline, mm), each as far inside it as it can be (at least
    `margin_mm` from its outline: a figure's base stays inside, its marker point off the border) and at least
    `spacing_mm` from the others and from the points `taken` by figures already there (several figures in one region
    or zone stand side by side); fewer when it is too small."""
    poly = np.array([(float(x), float(y)) for x, y in polygon], float)
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    gx, gy = np.meshgrid(_steps(lo[0] + step_mm / 2, hi[0], step_mm), _steps(lo[1] + step_mm / 2, hi[1], step_mm))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    grid = grid[points_in_polygon(grid, poly)]
    dist = distance_to_outline(grid, poly)
    cands = [(float(d), float(x), float(y)) for d, (x, y) in zip(dist, grid, strict=True) if d >= margin_mm]
    cands.sort(key=lambda c: (-round(c[0], 1), c[2], c[1]))
    out: list[tuple[float, float]] = []
    busy = list(taken)
    for _, x, y in cands:
        if all(math.hypot(x - a, y - b) >= spacing_mm for a, b in busy):
            out.append((x, y))
            busy.append((x, y))
            if len(out) == n:
                break
    return out


def _steps(start: float, stop: float, step: float) -> list[float]:
    """start, start + step, ... below stop, each added as a loop adds it (the spots do not move with rounding)."""
    out, v = [], start
    while v < stop:
        out.append(v)
        v += step
    return out


def stands(areas: Mapping[str, Mapping[str, object]], places: Mapping[str, tuple[str, str]],
           before: Mapping[str, tuple[str, float, float]] | None = None) -> dict[str, tuple[str, float, float]]:
    """Where each figure stands on its surface: figure id -> (surface, x_mm, y_mm in that surface's mm). `areas`:
    surface -> area id -> outline; `places`: figure id -> (surface, area); `before`: where they stood (a figure that
    stays in its area keeps its spot). The figures arriving in an area stand beside those already there."""
    before = before or {}
    out, arriving = {}, {}
    for fid in sorted(places):
        surface, area = places[fid]
        old = before.get(fid)
        if old is not None and old[0] == surface and points_in_polygon(np.array([old[1:3]], float),
                                                                          np.array(list(areas[surface][area]),
                                                                                   float))[0]:
            out[fid] = old
        else:
            arriving.setdefault(places[fid], []).append(fid)
    for (surface, area), fids in arriving.items():
        taken = [(x, y) for fid, (s, x, y) in out.items() if places[fid] == (surface, area) and s == surface]
        pts = spots(areas[surface][area], len(fids), taken)
        if len(pts) < len(fids):
            raise ValueError(f"{area} on the {surface}: no room for {len(fids)} more figures")
        out.update({fid: (surface, *pt) for fid, pt in zip(fids, pts, strict=False)})
    return out


__all__ = ["BATTLE", "BATTLE_AT", "BATTLE_MOVED", "FIGURES", "FRANCE_INCOME", "GAME", "MAP", "STEPS", "ZONES",
           "facing", "place_of", "spots", "stands", "start_places", "truth"]
