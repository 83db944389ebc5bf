"""Coalitions at the rules' edges (issue 27): unknown names answered as unknown with the valid ones, and the secret
choices (statuses §9.3, bids §9.6) kept sealed per Power in the position file. Each test is written from the
digest's words (the section in its name and comment), not from the engine's output, and run through the real
`fieldglass resolve / view` where the issue found the gap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from common.errors import InputError
from rules import position as positions
from rules.coalitions import diplomacy, economy, movement, turn
from rules.coalitions.model import dumps, freeze, position_from_dict
from tests.rules.test_coalitions_commands import EXAMPLE, cli, registered  # noqa: F401  (registered: a fixture)

POWERS = "one of britain france austria prussia russia ottoman"


def diplomacy_game(tmp_path, **extra) -> Path:
    """The example's 1805 set-up in round 2's Diplomacy phase (§4.1: none in round 1), the Ottomans a Minor Power
    controlled by Russia (§9.6) unless `extra` says otherwise."""
    data = {**json.loads(EXAMPLE.read_text()), "round": 2, "phase": "diplomacy", "minors": {"ottoman": "russia"},
            **extra}
    path = tmp_path / "round2.json"
    path.write_text(json.dumps(data))
    return path


# ---------------------------------------------------------------------------------------------- unknown names


@pytest.mark.parametrize(("line", "says"), [
    ("--action taxation --attacker narnia", f"--attacker: unknown Power 'narnia' ({POWERS})"),
    ("--action move --attacker narnia --target holland", "move: --attacker: unknown General 'narnia' (one of at-1 "),
    ("--action start_movement --attacker france --target narnia", f"Arbiter (--target): unknown Power 'narnia' "
                                                                  f"({POWERS})"),
    ("--action move --attacker fr-1 --target hollnd", "unknown Territory 'hollnd'; did you mean holland? (one of "),
    ("--action subsidies --attacker britain --choice offer.narnia=3", f"unknown Power 'narnia' ({POWERS})"),
    ("--action mobilisation --attacker france --choice troops.zz=1", "troops.zz: unknown General 'zz' (one of "),
])
def test_an_unknown_name_is_named_as_unknown_with_the_valid_ones(capsys, line, says):
    """Bad input of any kind: a one-line error naming the thing and what is wrong, listing the valid values."""
    code, _, err = cli(capsys, f"resolve {EXAMPLE} {line}")
    assert code == 2 and says in err and err.count("\n") == 1, err


@pytest.mark.parametrize(("line", "says"), [
    ("--action declare --attacker any --choice status.spain=french", f"status.spain: unknown Power 'spain' "
                                                                       f"({POWERS})"),
    ("--action declare --attacker any --choice expel.spain=neutral", f"expel.spain: unknown Power 'spain' ({POWERS})"),
    ("--action bid --attacker any --target narnia --choice bid.austria=1", f"unknown Power 'narnia' ({POWERS})"),
    ("--action bid --attacker any --target ottoman --choice bid.narnia=1", "bid.narnia: unknown Power 'narnia'"),
    ("--action choose --attacker austria --choice bid.narnia=1", f"bid.narnia: unknown Power 'narnia' ({POWERS})"),
    ("--action declare --attacker any --choice status.austria=french --choice to.zz=off",
     "--choice to.zz: unknown General 'zz' (one of "),
    ("--action declare --attacker any --choice status.austria=french --choice rps.narnia=austria",
     "--choice rps.narnia (empire side of the map): unknown Territory 'narnia'"),
])
def test_an_unknown_power_in_the_diplomacy_phase_is_named_as_unknown(capsys, tmp_path, line, says):  # §9.3, §9.6
    code, _, err = cli(capsys, f"resolve {diplomacy_game(tmp_path)} {line}")
    assert code == 2 and says in err and err.count("\n") == 1, err


def test_a_known_power_that_chooses_no_status_still_says_why(capsys, tmp_path):  # §9.2
    """§9.2: "Only Austria, Prussia, Russia and the Ottoman Empire choose a status"."""
    code, _, err = cli(capsys, f"resolve {diplomacy_game(tmp_path)} --action declare --attacker any "
                               "--choice status.britain=neutral")
    assert code == 2 and "britain chooses no status (Britain and France lead their Coalitions, §9.2)" in err


def test_analyze_names_an_unknown_from_as_unknown(capsys):
    code, _, err = cli(capsys, f"analyze {EXAMPLE} --from hollnd")
    assert code == 2 and "--from: unknown Power, Territory, General or wheel 'hollnd'; did you mean holland?" in err


# ---------------------------------------------------------------------------------------------- secret choices


def _resolve(capsys, game: Path, out: Path, line: str) -> str:
    code, text, err = cli(capsys, f"resolve {game} {line} --out {out}")
    assert code == 0, err
    return text


def _view(capsys, game: Path, viewer: str) -> dict:
    code, text, err = cli(capsys, f"view {game} --as {viewer} --json")
    assert code == 0, err
    return json.loads(text)


def test_secret_choices_are_sealed_in_the_file_and_each_power_sees_only_its_own(capsys, tmp_path):  # §9.3, §9.6
    """§9.3: "each Power other than GB and France secretly places one of its four status choice tokens face down.
    All tokens are revealed simultaneously." §9.6: "All players simultaneously and secretly bid 0 or more Morale of
    their Major Power ... in a closed fist." The choices are made through `resolve` one file after another (a saved
    game), and `view --as POWER` shows a Power its own and only that the others chose."""
    game = diplomacy_game(tmp_path)
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    text = _resolve(capsys, game, a, "--action choose --attacker austria --choice status=french")
    assert "austria has chosen its status: secret until the reveal (§9.3)" in text and "french" not in text
    _resolve(capsys, a, b, "--action choose --attacker prussia --choice status=expansionist")
    _resolve(capsys, b, c, "--action choose --attacker austria --choice bid.ottoman=2")
    assert json.loads(c.read_text())["secrets"] == {"austria": {"status": "french", "bids": {"ottoman": 2}},
                                                    "prussia": {"status": "expansionist"}}
    assert _view(capsys, c, "austria")["secrets"] == {"austria": {"status": "french", "bids": {"ottoman": 2}},
                                                      "prussia": {"status": "sealed"}}
    assert _view(capsys, c, "prussia")["secrets"] == {"austria": {"status": "sealed", "bids": {"ottoman": "sealed"}},
                                                      "prussia": {"status": "expansionist"}}
    assert _view(capsys, c, "russia")["secrets"] == {"austria": {"status": "sealed", "bids": {"ottoman": "sealed"}},
                                                     "prussia": {"status": "sealed"}}
    assert _view(capsys, c, "umpire")["secrets"] == json.loads(c.read_text())["secrets"]
    code, text, _ = cli(capsys, f"view {c} --as russia")  # the table form prints the pieces, never a choice
    assert code == 0 and "french" not in text and "expansionist" not in text

    # the reveal turns every sealed token face up (§9.3): given no statuses, the sealed ones are used
    d = tmp_path / "d.json"
    text = _resolve(capsys, c, d, "--action declare --attacker any")
    assert "revealed sealed status tokens: austria french, prussia expansionist (§9.3)" in text
    after = json.loads(d.read_text())
    assert after["statuses"]["austria"] == "french" and after["statuses"]["prussia"] == "expansionist"
    assert after["secrets"] == {"austria": {"bids": {"ottoman": 2}}}  # the bid waits for its own reveal (§9.6)
    e = tmp_path / "e.json"
    text = _resolve(capsys, d, e, "--action bid --attacker any --target ottoman")
    assert "revealed sealed bids for ottoman: austria 2 (§9.6)" in text
    assert "austria wins ottoman with 2 Morale" in text and "secrets" not in json.loads(e.read_text())


def test_a_choice_given_at_the_reveal_must_be_the_sealed_one(capsys, tmp_path):  # §9.3
    game = diplomacy_game(tmp_path)
    a = tmp_path / "a.json"
    _resolve(capsys, game, a, "--action choose --attacker austria --choice status=french")
    code, _, err = cli(capsys, f"resolve {a} --action declare --attacker any --choice status.austria=neutral")
    assert code == 2 and "status.austria=neutral: austria's sealed choice is another" in err
    code, out, err = cli(capsys, f"resolve {a} --action declare --attacker any --choice status.austria=french "
                                 "--choice status.prussia=neutral --json")
    assert code == 0 and json.loads(out)["statuses"]["austria"] == "french"


def test_a_minor_power_does_not_bid(capsys, tmp_path):  # §9.6
    """§9.6: "All players simultaneously and secretly bid 0 or more Morale of their Major Power"."""
    code, _, err = cli(capsys, f"resolve {diplomacy_game(tmp_path, minors={'ottoman': 'russia', 'prussia': 'russia'})}"
                               " --action choose --attacker prussia --choice bid.ottoman=1")
    assert code == 2 and "prussia is a Minor Power; only the Major Powers bid (§9.6)" in err


def test_sealed_choices_in_a_file_are_checked_and_old_files_have_none(tmp_path):
    assert positions.load(EXAMPLE).state.secrets == {}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"system": "coalitions", "secrets": {"britain": {"status": "neutral"}}}))
    with pytest.raises(InputError, match="secrets britain: britain chooses no status"):
        positions.load(bad)


def test_a_game_saved_with_sealed_choices_gives_the_same_answers_when_read_back(tmp_path):  # §9.3, §9.6
    p = positions.load(diplomacy_game(tmp_path))
    p = diplomacy.choose(p, "austria", "french").position
    p = diplomacy.choose(p, "russia", None, {"ottoman": 3}).position
    again = position_from_dict(json.loads(dumps(p)), "saved")
    assert again == p
    for q in (p, again):
        out = diplomacy.declare(q, {})
        assert out.position.state.statuses["austria"] == "french"
        won = diplomacy.bid(out.position, "ottoman", {})
        assert won.data["controller"] == "russia" and won.position.state.morale["russia"] == 0
    assert diplomacy.declare(p, {}).lines == diplomacy.declare(again, {}).lines


# ---------------------------------------------------------------------------------------------- once a round (§4.2)


def test_every_action_once_per_round_kept_in_the_file(capsys, tmp_path):  # §4.2, §9.5
    """§4.2: "every Power does a different action in every turn, and every action once per round": a second
    Taxation in the same round (which would double its Money) is refused, also from the saved file; off its place on
    the Wheel it is only noted (the players may be catching up)."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    _resolve(capsys, EXAMPLE, a, "--action taxation --attacker austria")
    assert json.loads(a.read_text())["done"] == {"austria": ["taxation"]}
    code, _, err = cli(capsys, f"resolve {a} --action taxation --attacker austria")
    assert code == 2 and "taxation: austria has already done it this round (round 1; every action once per round" \
        in err
    _resolve(capsys, a, b, "--action drill --attacker austria")  # another action is fine
    assert json.loads(b.read_text())["done"] == {"austria": ["taxation", "drill"]}


def test_a_new_round_clears_the_actions_done():  # §4.2
    p = positions.load(EXAMPLE)
    p = economy.taxation(p, "austria").position
    d = p.draft()
    d.turn = 6
    p = turn.end_turn(freeze(d)).position  # round 2 begins (with its Diplomacy phase)
    assert p.state.round == 2 and p.state.done == {}


def test_subsidies_and_movement_once_a_round():  # §5.1, §9.5
    d = positions.load(EXAMPLE).draft()
    d.money["britain"] = 10
    p = freeze(d)
    once = economy.subsidies(p, {"austria": 3}, ["austria"]).position
    with pytest.raises(InputError, match="subsidies: britain has already done it this round"):
        economy.subsidies(once, {"austria": 3}, ["austria"])
    moved = movement.end_movement(movement.start_movement(p, "france", "austria").position).position
    with pytest.raises(InputError, match="movement: france has already done it this round"):
        movement.start_movement(moved, "france", "prussia")
