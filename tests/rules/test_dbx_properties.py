"""Property tests on the DBX table geometry (§3): symmetry, invariance under moving both bases, the tolerance."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dbx.contact import contact, distance_mm
from rules.dbx.options import DEFAULT
from tests.rules.test_dbx_helpers import el, make

TYPES = st.sampled_from(["Li", "Kü", "Art", "Gen", "Hu", "El"])
COORD = st.floats(100, 500, allow_nan=False)
HEAD = st.floats(0, 359.9, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(TYPES, TYPES, COORD, COORD, HEAD, COORD, COORD, HEAD)
def test_distance_is_symmetric(ta, tb, xa, ya, ha, xb, yb, hb):
    pos = make(el("a", "b", ta, xa, ya, ha), el("e", "r", tb, xb, yb, hb), width=1000, depth=1000)
    a, e = pos.piece("a"), pos.piece("e")
    assert math.isclose(distance_mm(pos, a, e), distance_mm(pos, e, a), abs_tol=1e-6)


def _pair_in_contact(ta, tb, kind):
    """Two bases in a known contact: front to front, flank (front corner at front corner), or rear."""
    if kind == "front":
        return el("a", "b", ta, 0, 0, 0), el("e", "r", "Li", 0, _d(ta) / 2 + 10, 180)
    if kind == "flank":
        return el("a", "b", "Li", 30, _d(tb) / 2 - 20, 270), el("e", "r", tb, 0, 0, 0)
    return el("a", "b", "Li", 0, -10 - _d(tb) / 2, 0), el("e", "r", tb, 0, 0, 0)


def _d(code):
    return {"Li": 20, "Kü": 30, "Art": 40, "Hu": 30, "El": 40}[code]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Li", "Kü", "Art", "Hu"]), st.sampled_from(["Li", "Kü", "Art", "Hu"]),
       st.sampled_from(["front", "flank", "rear"]), COORD, COORD, HEAD)
def test_contact_invariant_under_moving_both_bases_together(ta, tb, kind, dx, dy, rot):
    """Rotate and translate the pair as one: the contact type stays."""
    a, e = _pair_in_contact(ta, tb, kind)

    def place(d):
        r = math.radians(rot)
        x, y = d["x_mm"], d["y_mm"]
        d = dict(d)
        d["x_mm"] = dx + x * math.cos(r) + y * math.sin(r)
        d["y_mm"] = dy - x * math.sin(r) + y * math.cos(r)
        d["heading_deg"] = (d["heading_deg"] + rot) % 360
        return d

    pos = make(place(a), place(e), width=1000, depth=1000)
    c = contact(pos, pos.piece("a"), pos.piece("e"))
    assert c.kind == kind and c.valid


@settings(max_examples=60, deadline=None)
@given(st.floats(0.0, 4.0), HEAD, st.floats(0.5, 3.0))
def test_tolerance_respected(gap, rot, tol):
    """A front-to-front pair pulled `gap` mm apart touches exactly when gap <= tolerance."""
    if abs(gap - tol) < 1e-3:
        return
    r = math.radians(rot)
    fwd = (math.sin(r), math.cos(r))
    a = el("a", "b", "Li", 300, 300, rot)
    e = el("e", "r", "Li", 300 + fwd[0] * (20 + gap), 300 + fwd[1] * (20 + gap), (rot + 180) % 360)
    pos = make(a, e, width=1000, depth=1000)
    opts = DEFAULT.with_values({"tolerance_mm": tol})
    c = contact(pos, pos.piece("a"), pos.piece("e"), opts)
    assert (c.kind == "front") == (gap <= tol)
    assert math.isclose(distance_mm(pos, pos.piece("a"), pos.piece("e")), gap, abs_tol=1e-6)
