"""A Napoleon in Europe record's after-action report in the game's own terms (rules/live.py `report_terms`, NiE's in
rules/nie/panels.py): rounds headed by their month, a battle with its region, sides and winner, a purchase and a
political action, from a small record made with the one recorder (readings fed by hand: each figure's marker point at
the map's centre of its area)."""

from __future__ import annotations

import copy
import io
from dataclasses import replace

import pytest

from fieldglass.boards import board_layout
from fieldglass.record import Record
from fieldglass.record.export import export_csv, export_report, report_terms
from fieldglass.recording import GameRecorder, system_meta
from fieldglass.setup import Setup, demo_roster
from rules.live import LiveRules, ReportTerms
from rules.nie.board import demo_board, map_point
from rules.nie.demo import DEMO_BATTLE_UNITS, DEMO_FIGURES, demo_game
from rules.nie.model import load_europe, position_from_dict
from rules.nie.panels import round_date
from vision.pieces import PiecePose, TableReading
from vision.tracking import TrackerConfig

EUROPE = load_europe("demo")
WHERE = {**{fid: area for fid, _, _, area in DEMO_FIGURES}, **{uid: "bohemia" for uid, _, _ in DEMO_BATTLE_UNITS}}


def _game_after_the_battle() -> dict:
    """The demo's game with its battle in Bohemia fought out: Austria (B) has lost, its infantry eliminated, the
    pursuit done (§8.8): only the end of the battle (§8.9) is left; a production round under way with France's
    production turn left (§4.1 step 4: a scenario starting mid-quarter brings it sooner), its PP totalled already."""
    g = copy.deepcopy(demo_game())
    g["production"] = {"nations": ["france"], "totalled": {"france": 0}}
    g["units"] = [u for u in g["units"] if u["id"] != "au-inf-2"]
    b = g["battle"]
    b["units"] = {k: v for k, v in b["units"].items() if k != "au-inf-2"}
    b.update(phase="pursuit", loser="B", end_reason="line broken",
             eliminated=[{"id": "au-inf-2", "nation": "austria", "type": "inf", "how": "fire by fr-inf-3"}])
    return g


@pytest.fixture()
def record(tmp_path):
    return make_record(tmp_path)


def make_record(folder) -> Record:
    """A small NiE record in `folder`: the demo's figures seen on the map, the battle in Bohemia ended, a purchase,
    the production round's end, three turns' ends (into February 1805) and a declaration of war."""
    board = demo_board()
    game = position_from_dict(_game_after_the_battle(), "the test")
    roster = demo_roster("nie", board)
    roster = replace(roster, pieces=tuple(p for p in roster.pieces if p.id != "au-inf-2"))
    setup = Setup("by hand", None, board_layout(board), roster, "nie", board=board, game=game)
    path = folder / "n.fgr"
    rec = Record.create(path, system_meta("nie", None, setup.roster, setup=setup))
    recorder = GameRecorder.start(rec, config=TrackerConfig(settle_s=0.0))
    markers = {p.id: p.marker for p in setup.roster.pieces}
    count: dict[str, int] = {}
    poses = []
    for fid in markers:
        k = count.get(WHERE[fid], 0)
        count[WHERE[fid]] = k + 1
        x, y = map_point(EUROPE, WHERE[fid])
        poses.append(PiecePose(fid, markers[fid], x + 14.0 * k, y, 0.0))
    for i, t in enumerate((0.0, 0.5)):
        recorder.feed(TableReading(object(), tuple(poses), (), ()), t, i)
    frame = 2
    for inp in ({"type": "combat", "action": "end_battle", "attacker": "any", "choices": {"retreat.*": "vienna"}},
                {"type": "combat", "action": "purchase", "attacker": "france",
                 "choices": {"buy": "inf:1", "place": "paris"}},
                {"type": "turn"}, {"type": "turn"}, {"type": "turn"}, {"type": "turn"},
                {"type": "combat", "action": "declare_war", "attacker": "france", "target": "prussia"}):
        recorder.apply(inp, 1.0 + frame, frame)
        frame += 1
    rec.close()
    return Record.open(path)


def test_the_report_speaks_of_months_nations_battles_and_purchases(record):
    events = record.events(clean=True)
    terms = report_terms(record.meta, events)
    assert terms.turn_titles == {0: "Set-up, round 1: 1805-01", 1: "Round 1: 1805-01", 2: "Round 2: 1805-02"}
    battle = dict(terms.sections)["Battles"]
    assert battle == ("1805-01: battle in bohemia (major), france attacking austria: won by france; units lost: "
                      "austria 1",)
    assert dict(terms.sections)["Production and purchases"] == ("Purchase (1805-01): 1 Infantry at paris (6 PP each)",)
    war = dict(terms.sections)["Political actions"]
    assert len(war) == 1 and war[0].startswith("Declaration of war (1805-02): france declares war on prussia")
    assert dict(terms.sections)["Months"] == ("1805-01 to 1805-02 (2 month(s))",)
    text = export_report(record, "bohemia")
    assert "## Round 1: 1805-01" in text and "## Round 2: 1805-02" in text and "## Turn 1" not in text
    assert "- 00:00 fr-cav-1 stands in picardy" in text  # a figure seen on the map: in its area, not at mm
    assert "End of turn: round 1 (1805-01) ends: the date marker moves to 1805-02 (§4.1)" in text
    assert "**Battle in bohemia (france v austria), end_battle**:" in text
    assert "## Battles" in text and "won by france" in text and "Losses (bases)" not in text
    out = io.StringIO()
    export_csv(record, out)
    assert "Purchase (1805-01): 1 Infantry at paris (6 PP each)" in out.getvalue()  # the CSV's summaries too


def test_a_round_is_a_month_from_the_records_start():
    meta = {"game": {"year": 1805, "month": 11, "round": 3}}
    assert [round_date(meta, r) for r in (3, 4, 5)] == ["1805-11", "1805-12", "1806-01"]  # §4.1: a month a round
    assert round_date({}, 1) == "1805-01"  # a record without a starting game: the empty game's January 1805


def test_other_systems_keep_the_generic_report():
    assert LiveRules.report_terms({"system": "x"}, []) == ReportTerms()
    assert report_terms({"system": "no-such-system"}, []) == ReportTerms()
