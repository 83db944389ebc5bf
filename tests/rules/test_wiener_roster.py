"""Roster words -> Wiener troop types: one map (rules/wiener/roster.py) for the dashboard, the recorder and the
replay. The words the two former maps read differently are settled by the digest (§2.1): heavy cavalry is the
cuirassiers, every other horse (hussars, lancers, dragoons) light cavalry."""

from __future__ import annotations

import pytest

from common.errors import InputError
from fieldglass.record import BoardState
from rules.wiener.adapter import WienerSystem
from rules.wiener.live import wiener_position
from rules.wiener.model import TYPES
from rules.wiener.roster import piece_type

GRID = {"origin_x_mm": 0.0, "origin_y_mm": 0.0, "field_mm": 60.0, "cols": 20, "rows": 10}

SETTLED = [
    # the words only the dashboard knew (the recorder refused them)
    ("lancers", "light_cavalry"),  # §2.1: Ulanen count as light cavalry
    ("Uhlans", "light_cavalry"),
    ("battery", "artillery"),
    ("horse artillery", "horse_artillery"),
    ("pioneer", "pioneers"),
    ("engineers", "pioneers"),
    ("commander", "general"),
    ("light cavalry", "light_cavalry"),
    ("Heavy  Cavalry", "heavy_cavalry"),
    # the dashboard made dragoons heavy cavalry; §2.1 heavy cavalry is the cuirassiers ("mit Kürass")
    ("dragoons", "light_cavalry"),
    # both agreed
    ("infantry", "infantry"),
    ("Cavalry", "light_cavalry"),
    ("hussars", "light_cavalry"),
    ("cuirassiers", "heavy_cavalry"),
    ("guns", "artillery"),
]


@pytest.mark.parametrize("word, kind", SETTLED + [(t, t) for t in TYPES])
def test_one_map_for_dashboard_and_recorder(word, kind):
    assert piece_type(word) == kind
    assert WienerSystem().piece_type(word) == kind
    state = BoardState.initial([{"id": "p", "side": "FR", "type": word}])
    state.pieces["p"].set_place({"x_mm": 90.0, "y_mm": 90.0, "heading_deg": 0.0, "cell": "B2", "facing": "N"})
    state.pieces["p"].status = "on"
    assert wiener_position(state, GRID).by_id["p"].type == kind


@pytest.mark.parametrize("word", ["Li", "block", ""])
def test_other_words_name_no_troop_type(word):
    assert piece_type(word) is None and WienerSystem().piece_type(word) is None
    state = BoardState.initial([{"id": "p", "side": "FR", "type": word}])
    state.pieces["p"].set_place({"x_mm": 90.0, "y_mm": 90.0, "heading_deg": 0.0, "cell": "B2", "facing": "N"})
    state.pieces["p"].status = "on"
    with pytest.raises(InputError, match="is not a Wiener Napoleon troop type"):
        wiener_position(state, GRID)
