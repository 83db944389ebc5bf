"""The acceptance test of Coalitions' record (issue 13): the scripted round (rules/coalitions/scripted_round.py: the
statuses revealed, a Movement with its Arbiter, a march, one battle with the cards entered at the reveal, the end of
the action turn) rendered into frames of the demo table (pawns, Garrison tokens, the track markers, status discs and
the Wheel's dial), recorded with `fieldglass record` from the folder of frames, and its committed events compared
with the script's truth; the replay and the report in the game's terms.

A handful of frames at 1920x1080 (the track markers are 12 mm), two per change (2 frames a second, settling in
0.5 s): the pieces are put down at once, no hand (tests/fieldglass/test_nie_campaign.py has the hands).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import pytest

from calibration.camera import save_camera
from fieldglass.cli import main as cli_main
from fieldglass.commands import record as record_cmd
from fieldglass.record import Record
from fieldglass.replay_session import ReplaySession
from fieldglass.scripted_board import BoardFrame, ScriptedBoardGame
from fieldglass.setup import demo_roster
from rules import system as rules_system
from rules.board import board_to_toml
from rules.coalitions import GAME as COALITIONS
from rules.coalitions import scripted_round as r
from rules.coalitions.board import demo_board
from rules.coalitions.camera import WHEEL_STEP_DEG, status_point, track_point, wheel_point
from rules.coalitions.demo import demo, token_spot
from rules.coalitions.model import POWERS, load_europe
from vision.roster import roster_to_toml

FR5_MARKER = 82
RESOLUTION = (1920, 1080)
FPS = 2.0
EUROPE = load_europe("demo")


@pytest.fixture(scope="module", autouse=True)
def registered():
    rules_system.register(COALITIONS)
    yield


class Builder:
    """The script's steps as frames and inputs: the demo table, each `move` put down at once."""

    def __init__(self):
        self.board = demo_board()
        roster = demo_roster("coalitions", self.board)
        gen = roster.piece("fr-3")
        # fr-5 (Lombardia, 1 Troop in the 1805 set-up) joins the demo's pawns: it marches in the script
        roster = replace(roster, pieces=(*roster.pieces, replace(gen, id="fr-5", marker=FR5_MARKER)))
        self.game = ScriptedBoardGame(self.board, {}, roster, fps=FPS)
        self.places = {p.id: (p.x_mm, p.y_mm, p.heading_deg) for p in demo().pieces}
        self.places["fr-5"] = self.spot("fr-5", "lombardia")

    def spot(self, pid: str, where: str) -> tuple[float, float, float]:
        """Where a piece is put: "TRACK:VALUE", "status:STATUS", "wheel:TURN" (the demo roster's ids name the Power
        by its first two letters: mor-fr, st-pr) or a Territory (a free spot in its cell)."""
        kind, _, value = where.partition(":")
        power = next((p for p in POWERS if p[:2] == pid.split("-")[-1]), None)
        if kind in ("morale", "influence"):
            return (*track_point(kind, int(value), power), 0.0)
        if kind == "status":
            return (*status_point(value, power), 0.0)
        if kind == "wheel":
            return (*wheel_point(), WHEEL_STEP_DEG * (int(value) - 1))
        taken = [(x, y) for q, (x, y, _) in self.places.items() if q != pid]
        return (*token_spot(self.board, EUROPE, where, taken), 0.0)

    def frame(self) -> BoardFrame:
        return BoardFrame({pid: ("", x, y, h, 0.0) for pid, (x, y, h) in self.places.items()}, {})

    def build(self) -> ScriptedBoardGame:
        for step in r.STEPS:
            if "still" in step:
                self.game.add(self.frame(), step["still"])
            if "input" in step:
                self.game.input(step["input"])
            if "move" in step:
                for pid, where in step["move"].items():
                    self.places[pid] = self.spot(pid, where)
                self.game.add(self.frame(), 2)
        return self.game


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    b = Builder()
    game = b.build()
    root = tmp_path_factory.mktemp("coalitions-round")
    game.write_frames(root / "frames", RESOLUTION)
    files = {"inputs": game.write_inputs(root / "inputs.jsonl"), "camera": root / "cam.json",
             "roster": root / "roster.toml", "board": root / "map.toml", "game": root / "game.json"}
    save_camera(game.camera(RESOLUTION).intrinsics, files["camera"])
    files["roster"].write_text(roster_to_toml(game.roster), encoding="utf-8")
    files["board"].write_text(board_to_toml(b.board), encoding="utf-8")
    files["game"].write_text(json.dumps(r.game()), encoding="utf-8")
    out = root / "round.fgr"
    parser = argparse.ArgumentParser()
    record_cmd.add_parser(parser.add_subparsers())
    args = parser.parse_args(["record", "--system", "coalitions", "--source", str(root / "frames"), "--fps", str(FPS),
                              "--settle", "0.5",
                              *(x for k in ("camera", "roster", "board", "game", "inputs") for x in (f"--{k}",
                                                                                                    str(files[k]))),
                              "--out", str(out)])
    assert args.run(args) == 0
    return out, b


def as_truth(events) -> list[dict]:
    """The record's events in the script's terms: the moves of one frame by piece id."""
    out: list[dict] = []
    batch: list[tuple[float, str]] = []
    for e in events:
        if e.type == "move":
            batch.append((e.t, e.piece))
            continue
        out += [{"type": "move", "piece": pid} for _, pid in sorted(batch)]
        batch = []
        if e.type == "combat":
            out.append({"type": "combat", "action": e.data["action"]})
        elif e.type == "turn":
            out.append({"type": "turn", "action": None})
        else:
            out.append({"type": e.type, "piece": e.piece})
    return out + [{"type": "move", "piece": pid} for _, pid in sorted(batch)]


def test_the_record_holds_the_round_as_scripted(recorded):
    out, b = recorded
    with Record.open(out) as rec:
        events = rec.events(clean=True)
    got = as_truth(events)
    start = [g["piece"] for g in got if g["type"] == "appeared"]
    assert sorted(start) == sorted(b.places)  # every piece on the table was seen at the start
    assert got == r.truth(start)


def test_the_replay_shows_the_engine_after_each_step(recorded):
    out, _ = recorded
    with Record.open(out) as rec:
        rs = ReplaySession(rec)
        for k, e in enumerate(rs.timeline):
            step = next((s for s in r.STEPS if s.get("input") and e.type == s["input"]["type"]
                         and e.data.get("action") == s["input"].get("action")), None)
            if step is None or "expect" not in step:
                continue
            rs.seek(k + 1)
            st = rs.position.state
            want = step["expect"]
            assert all(st.statuses[p] == v for p, v in want.get("status", {}).items())
            assert all(st.morale[p] == v for p, v in want.get("morale", {}).items())
            assert all(st.influence[p] == v for p, v in want.get("influence", {}).items())
            assert "turn" not in want or st.turn == want["turn"]
            # a pawn the rules moved: the engine's state has it there; the replay where the camera saw it then
            engine = {p["id"]: p["area"] for p in e.data["engine"]["pieces"]}
            assert all(engine[g] == v for g, v in want.get("at", {}).items())
            for p, v in want.get("morale", {}).items():  # the rules' Morale counts before its marker is moved
                assert any(n.startswith(f"waiting for the map: {p}'s morale {v}") for n in rs.game.notes)
        rs.to_end()
        st = rs.position.state
        assert st.round == 2 and st.turn == 2 and st.generals["fr-5"].at == "paris" and st.morale["france"] == 10
        assert not [n for n in rs.game.notes if "waiting for the map" in n]  # every change shown on the table


def test_the_report_speaks_of_action_turns_battles_and_statuses(recorded, tmp_path):
    out, _ = recorded
    md = tmp_path / "round.md"
    assert cli_main(["export", str(out), "--format", "report", "--out", str(md)]) == 0
    text = md.read_text(encoding="utf-8")
    assert "Round 2, action turn 1" in text and "Round 2, action turn 2" in text
    assert "Round 2, action turn 1: battle: battle in tyrol: france attack austria (§8.1); the defender wins (§8.6)" \
        in text
    assert "declare: prussia: neutral -> french (§9.3)" in text
    assert "ottoman's Morale marker moved to 3 (mor-ot)" in text and "prussia's status disc moved to french" in text
    assert "the Wheel of War's dial turned (dial)" in text
