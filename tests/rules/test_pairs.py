"""The whole-position fast path (rules/wiener/pairs.py) against the per-pair reference rules (analysis._pair).

The fast path re-implements §6 lines, §6.4/§6.5 recognition and the §8.4 fire modifiers with numpy; these tests make
sure it can never silently diverge: on random dense positions, with random rules options, every column of every pair
must equal what `analyze_pair` says, fresh and after pieces moved.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from common.fields import FACINGS, field_name
from rules.wiener import DEFAULT
from rules.wiener.analysis import _pair, analyze_pair
from rules.wiener.pairs import COLUMNS, analyze_all

from .util import make, piece

COLS, ROWS = 11, 9
cells_ = st.tuples(st.integers(0, COLS - 1), st.integers(0, ROWS - 1))
KINDS = [("infantry", "line"), ("infantry", "column"), ("infantry", "square"), ("infantry", "skirmish"),
         ("infantry", "buildings"), ("heavy_cavalry", None), ("light_cavalry", "mounted"),
         ("light_cavalry", "dismounted"), ("artillery", "unlimbered"), ("artillery", "limbered"),
         ("horse_artillery", None), ("pioneers", None), ("general", None)]
OPTION_CHOICES = {
    "cap_mode": ["net"], "target_priority": ["forbid"], "overshoot_enemy_troops": [False],
    "artillery_fires_through_skirmishers": [False], "artillery_overshoot_free_field_at_firer": [False],
    "edge_visibility_only_unfought": [False], "cavalry_beyond_4_le_penalty": [False],
    "small_arms_point_blank_bonus": [0], "dispersed_target_penalty": ["skirmishers_and_generals"],
    "marker_stacking": ["worst"], "pioneers_fire": [True], "diagonal_blocked_by_impassable": [False],
}
FLAGS = ("fired", "moved", "road_march", "fought", "working", "shot_out")


@st.composite
def dense_positions(draw):
    """Crowded little tables: most lines cross troops, terrain, heights or corners; walls and fortifications."""
    cells = draw(st.lists(cells_, min_size=2, max_size=22, unique=True))
    terrain = draw(st.dictionaries(cells_, st.sampled_from(
        ["wood", "town", "church", "swamp", "road", "mountain", "water", "open"]), max_size=14))
    heights = draw(st.dictionaries(cells_, st.integers(1, 3), max_size=14))
    spec: dict = {}
    for f, t in terrain.items():
        spec.setdefault(field_name(*f), {})["terrain"] = t
    for f, h in heights.items():
        spec.setdefault(field_name(*f), {})["height"] = h
    for f in draw(st.lists(cells_, max_size=3)):
        spec.setdefault(field_name(*f), {})["fortification"] = draw(st.sampled_from(["light", "heavy"]))
    for f in draw(st.lists(cells_, max_size=2)):
        spec.setdefault(field_name(*f), {})["cover_lost"] = 1
    edges, seen = [], set()
    for (x, y), vertical in draw(st.lists(st.tuples(cells_, st.booleans()), max_size=6)):
        other = (x, y + 1) if vertical else (x + 1, y)
        if other[0] < COLS and other[1] < ROWS and frozenset(((x, y), other)) not in seen:
            seen.add(frozenset(((x, y), other)))
            edges.append((field_name(x, y), field_name(*other),
                          draw(st.sampled_from(["wall", "barricade", "ditch", "fence"]))))
    pcs = []
    for n, f in enumerate(cells):
        side = "FR" if draw(st.booleans()) else "AU"
        ptype, form = draw(st.sampled_from(KINDS))
        extra = {k: True for k in draw(st.lists(st.sampled_from(FLAGS), max_size=2, unique=True))}
        p = piece(f"p{n}", side, ptype, field_name(*f), draw(st.sampled_from(FACINGS)), bases=draw(st.integers(1, 3)),
                  marker=draw(st.sampled_from(["none", "red", "grey", "black", ["red", "grey"]])),
                  elite=draw(st.integers(-1, 1)), **extra)
        if form:
            p["formation"] = form
        pcs.append(p)
        if ptype == "infantry" and draw(st.integers(0, 4)) == 0:  # an attached general shares the field
            pcs.append(piece(f"g{n}", side, "general", field_name(*f), p["facing"], attached_to=p["id"]))
    opts = DEFAULT.with_values({k: draw(st.sampled_from(v)) for k, v in OPTION_CHOICES.items()
                                if draw(st.integers(0, 3)) == 0})
    night = draw(st.integers(0, 9)) == 0
    return make(*pcs, fields=spec, edges=edges, night=night, cols=COLS, rows=ROWS), opts


def reference_row(pos, a, b, opts) -> dict:
    ref = _pair(pos, a, b, opts, "find")
    return {
        "from": a.id, "to": b.id, "distance": ref["distance"], "adjacent": ref["adjacent"],
        "side_field": ref["side_field"], "target_in_arc": ref["target_in_arc"],
        "attacker_in_target_arc": ref["attacker_in_target_arc"], "sees_all_round": ref["sees_all_round"],
        "line_of_sight": ref["line_of_sight"], "recognised": ref["recognised"],
        "fire_allowed": ref["fire"]["allowed"], "fire_net": ref["fire"]["net_modifier"],
        "counter_fire": None if ref["counter_fire"] is None else ref["counter_fire"]["allowed"],
        "melee_allowed": ref["melee"]["allowed"], "melee_net": ref["melee"]["net_modifier"],
        "melee_defence": None if ref["melee_defence"] is None else ref["melee_defence"]["allowed"],
    }


def assert_equals_reference(table) -> None:
    pos, opts = table.position, table.opts
    enemies = [(a, b) for a in pos.pieces for b in pos.pieces if a.side != b.side]
    assert len(table) == len(enemies)
    for k in range(len(table)):
        a, b = pos.pieces[table.src[k]], pos.pieces[table.dst[k]]
        assert table.row(k) == reference_row(pos, a, b, opts), (a.id, b.id)


SETTINGS = settings(max_examples=120, deadline=None)


@SETTINGS
@given(dense_positions())
def test_fast_pair_table_equals_the_per_pair_reference(case):
    pos, opts = case
    assert_equals_reference(analyze_all(pos, opts))


@SETTINGS
@given(dense_positions(), st.data())
def test_fast_pair_table_after_a_move_equals_a_fresh_one_and_the_reference(case, data):
    pos, opts = case
    table = analyze_all(pos, opts)
    for _ in range(data.draw(st.integers(1, 3))):
        mover = data.draw(st.sampled_from(pos.pieces))
        free = [(x, y) for x in range(COLS) for y in range(ROWS)
                if all(q.side == mover.side for q in pos.occupants.get((x, y), ()))]
        kw = {"field": data.draw(st.sampled_from(free)), "facing": data.draw(st.sampled_from(FACINGS))}
        if data.draw(st.booleans()):
            kw["markers"] = data.draw(st.sampled_from([(), ("red",), ("black",)]))
        if data.draw(st.booleans()):
            kw["fired"] = not mover.fired
        pos = pos.with_pieces(replace(q, **kw) if q.id == mover.id else q for q in pos.pieces)
        table = analyze_all(pos, opts, previous=table)
        fresh = analyze_all(pos, opts)
        for c in COLUMNS:
            assert np.array_equal(getattr(table, c), getattr(fresh, c)), c
    assert_equals_reference(table)


def test_unchanged_position_returns_the_same_table_and_details_are_the_reference():
    pos = make(piece("art", "FR", "artillery", "C3", "N"), piece("inf", "AU", "infantry", "C6", "S"),
               piece("cav", "AU", "heavy_cavalry", "D4", "S"))
    table = analyze_all(pos)
    assert analyze_all(pos, previous=table) is table
    assert analyze_all(make(*[piece("art", "FR", "artillery", "C3", "N"), piece("inf", "AU", "infantry", "C6", "S"),
                              piece("cav", "AU", "heavy_cavalry", "D4", "S")]), previous=table) is table
    assert table.details("art", "inf") == analyze_pair(pos, "art", "inf")
    k = table.index("art", "inf")
    assert table.row(k)["fire_allowed"] and table.row(k)["fire_net"] == 1  # range 3-4 LE (§7)
    assert [table.row(k)["to"] for k in table.targets("art")] == ["cav", "inf"]  # nearest first
    moved = pos.with_pieces(replace(p, field=(2, 3)) if p.id == "cav" else p for p in pos.pieces)
    after = analyze_all(moved, previous=table)
    assert after is not table and not after.row(after.index("art", "inf"))["line_of_sight"]  # C4 now blocks


def test_fast_artillery_line_passes_a_corner_screened_by_skirmishers():
    """§6.3 / §3.5: at the corner between B1 (wood) and A2 (skirmishers) artillery fires through the screen."""
    pcs = [piece("art", "FR", "artillery", "A1", "NE"), piece("t", "AU", "infantry", "C3", "SW"),
           piece("s", "AU", "infantry", "A2", "S", formation="skirmish"), piece("x", "AU", "infantry", "B2", "S")]
    pos = make(*pcs, fields={"B1": {"terrain": "wood"}})
    table = analyze_all(pos)
    assert_equals_reference(table)
    assert table.row(table.index("art", "x"))["fire_allowed"]
    off = DEFAULT.with_values({"artillery_fires_through_skirmishers": False})
    no_screen = analyze_all(pos, off)
    assert_equals_reference(no_screen)
    assert not no_screen.row(no_screen.index("art", "x"))["fire_allowed"]
