"""Property tests: distance is a metric, neighbourhood, line symmetry, caps, exact position round trip."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from common.fields import FACINGS, field_name
from rules import position as positions
from rules.geometry import distance, in_front_arc, is_neighbour, line_fields, neighbours, side_fields
from rules.wiener import DEFAULT
from rules.wiener.combat import fire_check, melee_check, melee_modifiers
from rules.wiener.sight import trace
from rules.wiener.tables import cap

from .util import make, piece

COLS, ROWS = 12, 10
fields_ = st.tuples(st.integers(0, COLS - 1), st.integers(0, ROWS - 1))
facings = st.sampled_from(FACINGS)
FAST = settings(max_examples=150, deadline=None)


@st.composite
def positions_(draw):
    cells = draw(st.lists(fields_, min_size=2, max_size=14, unique=True))
    terrain = draw(st.dictionaries(fields_, st.sampled_from(["wood", "town", "swamp", "road", "open"]), max_size=10))
    heights = draw(st.dictionaries(fields_, st.integers(1, 2), max_size=8))
    spec = {}
    for f, t in terrain.items():
        spec.setdefault(field_name(*f), {})["terrain"] = t
    for f, h in heights.items():
        spec.setdefault(field_name(*f), {})["height"] = h
    kinds = [("infantry", "line"), ("infantry", "column"), ("infantry", "square"), ("infantry", "skirmish"),
             ("heavy_cavalry", None), ("light_cavalry", "mounted"), ("artillery", None), ("general", None)]
    pcs = []
    for i, f in enumerate(cells):
        ptype, form = draw(st.sampled_from(kinds))
        p = piece(f"p{i}", "FR" if i % 2 else "AU", ptype, field_name(*f), draw(facings),
                  bases=draw(st.integers(1, 3)), marker=draw(st.sampled_from(["none", "red", "grey", "black"])))
        if form:
            p["formation"] = form
        pcs.append(p)
    return make(*pcs, fields=spec, cols=COLS, rows=ROWS)


@FAST
@given(fields_, fields_, fields_)
def test_distance_is_a_metric(a, b, c):
    assert distance(a, b) == distance(b, a) >= 0
    assert (distance(a, b) == 0) == (a == b)
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@FAST
@given(fields_, facings)
def test_a_field_is_never_its_own_neighbour_or_side_field(f, facing):
    assert f not in neighbours(f) and not is_neighbour(f, f)
    assert len(set(neighbours(f))) == 8 and all(is_neighbour(f, n) for n in neighbours(f))
    assert all(is_neighbour(f, s) for s in side_fields(f, facing))
    assert not any(in_front_arc(f, facing, s) for s in side_fields(f, facing))


@FAST
@given(fields_, fields_)
def test_line_fields_are_symmetric_and_between_the_ends(a, b):
    ca, ka = line_fields(a, b)
    cb, kb = line_fields(b, a)
    assert set(ca) == set(cb)
    assert {frozenset(k) for k in ka} == {frozenset(k) for k in kb}
    assert a not in ca and b not in ca
    assert all(distance(a, f) < distance(a, b) or distance(b, f) < distance(a, b) for f in ca)


@FAST
@given(positions_(), fields_, fields_)
def test_line_of_sight_is_symmetric_without_an_observer(pos, a, b):
    assert trace(pos, a, b).clear == trace(pos, b, a).clear


@FAST
@given(positions_(), st.data())
def test_sight_between_equal_heights_is_symmetric(pos, data):
    a, b = data.draw(st.sampled_from(pos.pieces)), data.draw(st.sampled_from(pos.pieces))
    if pos.height(a.field) == pos.height(b.field):
        assert trace(pos, a.field, b.field, a).clear == trace(pos, b.field, a.field, b).clear


@FAST
@given(st.lists(st.tuples(st.just("x"), st.integers(-6, 6)), max_size=12), st.sampled_from(["separate", "net"]))
def test_caps_always_hold(mods, mode):
    opts = DEFAULT.with_values({"cap_mode": mode})
    assert -4 <= cap(mods, opts) <= 4
    assert -4 <= cap(mods, opts) - cap([m for m in mods if m[1] < 0], opts) <= 4 or mode == "net"


@FAST
@given(positions_(), st.data())
def test_net_modifiers_of_every_check_within_caps(pos, data):
    a, b = data.draw(st.sampled_from(pos.pieces)), data.draw(st.sampled_from(pos.pieces))
    for chk in (fire_check(pos, a, b), melee_check(pos, a, b)):
        assert -4 <= chk.net_modifier <= 4
        if chk.allowed:
            assert chk.net_modifier == cap(chk.modifiers)
    assert -4 <= cap(melee_modifiers(pos, a, b, False)) <= 4


@FAST
@given(positions_())
def test_position_round_trips_exactly(pos):
    text = positions.dumps(pos)
    again = positions.loads(text)
    assert again == pos and positions.dumps(again) == text
