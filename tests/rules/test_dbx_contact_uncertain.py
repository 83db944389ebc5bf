"""§13 borderline contacts: a contact the camera measured within its uncertainty of the tolerance is flagged
uncertain (not silently decided); without an uncertainty every answer is as before."""

from __future__ import annotations

import json

from fieldglass.cli import main
from rules.dbx.adapter import DbxSystem
from rules.dbx.analysis import analyze_from, analyze_pair
from rules.dbx.combat import melee_check
from rules.dbx.contact import contact, pair_sigma_mm
from rules.dbx.live import contacts_of, dbx_position, empty_template
from rules.dbx.model import dumps, position_from_dict
from rules.dbx.options import DEFAULT
from rules.dbx.picture import selection_items
from rules.live import GameState
from tests.rules.test_dbx_helpers import el, make

# a (Li, 40 x 20 mm, facing north at y=100) and e (Li facing south): fronts 1.2 mm apart, just inside 1.5 mm
GAP = 1.2


def _pair(gap: float = GAP, sigma_a=None, sigma_e=None):
    kw_a = {} if sigma_a is None else {"uncertainty_mm": sigma_a}
    kw_e = {} if sigma_e is None else {"uncertainty_mm": sigma_e}
    return make(el("a", "b", "Li", 100, 100, **kw_a), el("e", "r", "Li", 100, 120 + gap, 180, **kw_e))


def test_just_inside_the_tolerance_with_a_large_uncertainty_is_uncertain():
    pos = _pair(sigma_a=0.4, sigma_e=0.4)  # 2 sigma of the pair = 1.13 mm: 1.2 mm could be 2.3 mm
    c = contact(pos, pos.piece("a"), pos.piece("e"))
    assert c.kind == "front" and c.valid  # still classified as measured
    assert c.uncertain
    assert analyze_pair(pos, "a", "e", DEFAULT)["contact_uncertain"]
    m = melee_check(pos, pos.piece("a"), pos.piece("e"))
    assert m["contact_uncertain"] and m["reason"].startswith("contact uncertain")


def test_a_small_uncertainty_leaves_a_clear_contact_certain():
    pos = _pair(sigma_a=0.05, sigma_e=0.05)
    assert not contact(pos, pos.piece("a"), pos.piece("e")).uncertain
    pos = _pair(gap=0.0, sigma_a=0.2, sigma_e=0.2)  # flush: 2 sigma = 0.57 mm, well inside 1.5 mm
    assert not contact(pos, pos.piece("a"), pos.piece("e")).uncertain


def test_just_outside_the_tolerance_with_a_large_uncertainty_is_listed_as_uncertain():
    pos = _pair(gap=1.8, sigma_a=0.3, sigma_e=0.3)
    c = contact(pos, pos.piece("a"), pos.piece("e"))
    assert c.kind is None and c.uncertain
    assert [x["piece"] for x in analyze_from(pos, "a", DEFAULT)["contacts"]] == ["e"]
    assert contacts_of(pos, "a", DEFAULT) == ["e apart (contact uncertain)"]
    far = _pair(gap=10.0, sigma_a=0.3, sigma_e=0.3)
    assert not contact(far, far.piece("a"), far.piece("e")).uncertain


def test_without_uncertainty_every_answer_is_as_before():
    for gap in (0.0, 1.2, 1.6, 5.0):
        plain, zero = _pair(gap), _pair(gap, 0.0, 0.0)
        for pos in (plain, zero):
            c = contact(pos, pos.piece("a"), pos.piece("e"))
            assert not c.uncertain
        assert analyze_pair(plain, "a", "e", DEFAULT) == analyze_pair(zero, "a", "e", DEFAULT)
        assert contact(plain, plain.piece("a"), plain.piece("e")) == contact(zero, zero.piece("a"), zero.piece("e"))
    assert pair_sigma_mm(plain.piece("a"), plain.piece("e")) == 0.0


def test_the_position_file_keeps_the_uncertainty_and_equality_ignores_it():
    pos = _pair(sigma_a=0.4)
    text = dumps(pos)
    assert '"uncertainty_mm": 0.4' in text
    again = position_from_dict(json.loads(text), "again")
    assert again.piece("a").uncertainty_mm == 0.4 and again == _pair()


class _Place:
    def __init__(self, x, y, h, sigma=None):
        self.x_mm, self.y_mm, self.heading_deg, self.uncertainty_mm = x, y, h, sigma


class _Roster:
    def __init__(self, pieces):
        self.pieces = pieces


class _RP:
    def __init__(self, pid, side, ptype):
        self.id, self.side, self.type = pid, side, ptype


def test_the_live_placement_carries_each_place_uncertainty():
    roster = _Roster([_RP("a", "b", "Li"), _RP("e", "r", "Li")])
    places = {"a": _Place(100, 100, 0, 0.4), "e": _Place(100, 121.2, 180, 0.4)}
    pos, notes = dbx_position(places, roster, DbxSystem(), GameState(), empty_template(600, 600))
    assert not notes and pos.piece("a").uncertainty_mm == 0.4
    assert contacts_of(pos, "a", DEFAULT) == ["e front (contact uncertain)"]
    places = {"a": _Place(100, 100, 0), "e": _Place(100, 121.2, 180)}
    pos, _ = dbx_position(places, roster, DbxSystem(), GameState(), empty_template(600, 600))
    assert contacts_of(pos, "a", DEFAULT) == ["e front"]


def test_analyze_all_marks_the_uncertain_contact(tmp_path, capsys):
    path = tmp_path / "dbx.json"
    path.write_text(dumps(_pair(sigma_a=0.4, sigma_e=0.4)))
    assert main(["analyze", str(path), "--all", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["pairs"]
    assert [r["contact_uncertain"] for r in rows] == [True, True]
    assert main(["analyze", str(path), "--all"]) == 0
    assert "contact front (uncertain, confirm it: §13)" in capsys.readouterr().out


def test_the_selection_marks_and_the_picture_say_contact_uncertain():
    system = DbxSystem()
    unsure = _pair(sigma_a=0.4, sigma_e=0.4)
    sel = system.selection(unsure, "a")
    assert [(c.piece, c.kind, c.uncertain) for c in sel.contacts] == [("e", "front", True)]
    labels = [i for i in selection_items(sel, unsure, DEFAULT) if i.kind == "dbx-contact-label"]
    assert len(labels) == 1 and "contact uncertain" in labels[0].text and labels[0].tone == "ambiguous"
    apart = _pair(gap=1.8, sigma_a=0.3, sigma_e=0.3)  # apart as measured, touching within the uncertainty
    assert [(c.kind, c.uncertain) for c in system.selection(apart, "a").contacts] == [("apart", True)]
    sure = _pair()
    sel = system.selection(sure, "a")
    assert [(c.kind, c.uncertain) for c in sel.contacts] == [("front", False)]
    labels = [i for i in selection_items(sel, sure, DEFAULT) if i.kind == "dbx-contact-label"]
    assert labels[0].tone == "contact-front" and "uncertain" not in labels[0].text
    assert system.selection(_pair(gap=1.8), "a").contacts == ()
