"""A DBX game recorded by `fieldglass record --system dbx` on the synthetic DBX table (camera and detection included):
combat inputs are resolved by the DBX engine through DbxSystem.resolve on the position the camera placed, with given
dice or a stored seed, and the replay, the exports and the statistics show them."""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest

from common.dice import Dice
from common.errors import InputError
from fieldglass.cli import main
from fieldglass.record import Record
from fieldglass.record.export import compute_stats, export_csv, export_jsonl, export_report
from fieldglass.recording import GameRecorder, system_meta
from fieldglass.replay_session import ReplaySession
from fieldglass.setup import load_setup
from rules.dbx.adapter import DbxSystem
from rules.dbx.demo import DEMO_GAME
from vision.pieces import PiecePose, TableReading
from vision.tracking import TrackerConfig

INPUTS = [
    {"frame": 11, "type": "combat", "action": "melee", "attacker": "b2", "target": "r1", "dice": [6, 1]},
    {"frame": 12, "type": "combat", "action": "fire", "attacker": "b3", "target": "r3", "seed": 7},
    {"frame": 12, "type": "turn", "turn": 2, "active": "red"},
]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dbx")
    inputs = folder / "inputs.jsonl"
    inputs.write_text("".join(json.dumps(x) + "\n" for x in INPUTS))
    out = folder / "dbx.fgr"
    assert main(["record", "--system", "dbx", "--source", "synthetic", "--frames", "14", "--inputs", str(inputs),
                 "--out", str(out)]) == 0
    return out


def combats(rec):
    return [e for e in rec.events() if e.type == "combat"]


def test_combats_are_the_engines_resolution_on_the_recorded_position(recorded):
    rec = Record.open(recorded)
    assert rec.meta["system"] == "dbx" and rec.meta["game"]["terrain"]  # the demo table's wood and hill
    assert sum(1 for e in rec.events() if e.type == "appeared") == 10
    melee, fire = combats(rec)
    replay = ReplaySession(rec)
    for e, dice, seed in ((melee, [6, 1], None), (fire, [], 7)):
        before = replay.position_at(replay.index_of(e.seq))
        assert before is not None and not replay.problems
        a, t = e.data["pieces"]
        expected = DbxSystem().resolve(before, e.data["action"], a, t, dice=dice, seed=seed)
        out = expected.resolution.result.as_dict()
        assert e.data["outcome"] == json.loads(json.dumps(out["outcome"]))
        assert [{k: v for k, v in c.items() if k != "removed"} for c in e.data["changes"]] == \
            json.loads(json.dumps(out["changes"]))
        assert e.data["dice"] == expected.rolled
        assert e.data["lines"] == expected.lines
        loser = out["outcome"].get("loser")
        assert e.data["winner"] == ("attacker" if loser == t else "defender" if loser == a else "draw")
    # the typed dice are the melee's; the fire rolled its own from the seed, which is stored to replay it
    assert melee.data["dice"] == [6, 1] and "seed" not in melee.data
    assert fire.data["seed"] == 7
    seeded = Dice([], 7)
    assert fire.data["dice"] == [seeded.d6() for _ in fire.data["dice"]]
    # a 6 against a 1 in front contact: r1 loses; destroyed elements leave the record's table
    assert melee.data["outcome"]["loser"] == "r1"
    gone = {c["piece"] for c in melee.data["changes"] if c.get("removed")}
    assert gone <= {"r1"}
    for pid in gone:
        assert rec.state().pieces[pid].status == "removed"
        assert pid not in replay.position_at(len(replay)).by_id
        assert melee.data["game"]["lost"] == {"red": 1}
    rec.close()


def test_the_turn_names_the_active_side_for_the_engine(recorded):
    rec = Record.open(recorded)
    replay = ReplaySession(rec)
    pos = replay.position_at(len(replay))
    assert (pos.game.bound, pos.game.active) == (2, "red")
    rec.close()


def test_exports_and_stats_show_the_combats(recorded):
    rec = Record.open(recorded)
    melee, fire = combats(rec)
    buf = io.StringIO()
    export_jsonl(rec, buf)
    lines = [json.loads(x) for x in buf.getvalue().splitlines()]
    exported = [x for x in lines if x["type"] == "combat"]
    assert [x["seq"] for x in exported] == [melee.seq, fire.seq]
    assert exported[0]["outcome"] == melee.data["outcome"] and exported[0]["dice"] == [6, 1]
    assert exported[1]["seed"] == 7
    buf = io.StringIO()
    export_csv(rec, buf)
    rows = [r for r in csv.DictReader(io.StringIO(buf.getvalue())) if r["type"] == "combat"]
    assert rows[0]["summary"] == melee.data["summary"]
    assert rows[0]["summary"].startswith("melee b2 -> r1: r1 ") and "(dice 6, 1)" in rows[0]["summary"]
    report = export_report(rec)
    for e in (melee, fire):
        head, tail = e.data["summary"].split(":", 1)
        assert f"**{head}**:{tail}" in report
    stats = compute_stats(rec)
    assert stats.combats == 2
    won, draws = {"blue": 0, "red": 0}, 0
    for e in (melee, fire):
        w = e.data["winner"]
        if w == "draw":
            draws += 1
        else:
            won[e.data["sides"][e.data["pieces"][0 if w == "attacker" else 1]]] += 1
    assert won["blue"] >= 1  # the melee
    assert stats.won == won and stats.draws == draws
    rec.close()


def test_resuming_applies_no_input_twice(recorded, tmp_path, capsys):
    path = tmp_path / "again.fgr"
    shutil.copy(recorded, path)
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("".join(json.dumps(x) + "\n" for x in INPUTS))
    assert main(["record", "--system", "dbx", "--source", "synthetic", "--frames", "15", "--inputs", str(inputs),
                 "--out", str(path), "--resume"]) == 0
    with Record.open(path) as rec:
        assert len(combats(rec)) == 2


@pytest.mark.parametrize("inp, message", [
    ({"action": "melee", "attacker": "b2", "target": "r1", "dice": [7, 1]}, "7 is not a D6 roll"),
    ({"action": "melee", "attacker": "b2", "target": "r1", "dice": "6 1"}, "a list of die rolls"),
    ({"action": "melee", "attacker": "zz", "target": "r1"}, "'zz' is not an element on the table"),
    ({"action": "charge", "attacker": "b2", "target": "r1"}, "action 'charge': one of fire melee"),
])
def test_a_bad_combat_input_is_one_line(inp, message, tmp_path):
    """Straight to the recorder (the camera replaced by the demo's true places): bad input, one InputError."""
    setup = load_setup("dbx", "synthetic")
    markers = {p.id: p.marker for p in setup.roster.pieces}
    poses = tuple(PiecePose(pid, markers[pid], x, y, h) for pid, _, _, x, y, h in DEMO_GAME)
    rec = Record.create(tmp_path / "bad.fgr", system_meta("dbx", setup.layout, setup.roster, setup=setup))
    recorder = GameRecorder.start(rec, setup.roster, TrackerConfig(settle_s=0.5))
    for i in range(5):
        recorder.feed(TableReading(object(), poses, (), ()), i * 0.2, i)
    with pytest.raises(InputError, match=message) as exc:
        recorder.apply({"frame": 5, "type": "combat", **inp}, 1.0, 5)
    assert "\n" not in str(exc.value)
    assert not [e for e in rec.events() if e.type == "combat"]
    rec.close()
