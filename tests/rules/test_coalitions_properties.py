"""Coalitions invariants over generated positions (hypothesis): moves never break the stacking limits (§3.6) or enter
an Impassable Territory (§3.2); a battle leaves no enemies sharing its Territory (§8.6, §3.6); the Wheel gives every
Power a different action each turn and every action once a round (§4.2); position files round-trip."""

from __future__ import annotations

import json

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from common.errors import InputError
from rules.coalitions import battle, diplomacy, movement, turn
from rules.coalitions.model import ACTIONS, POWERS, STATUSES, dumps, load_europe, position_from_dict, state_to_dict
from rules.coalitions.movement import Move

EUROPE = load_europe()
PLACES = sorted(t for t, v in EUROPE.territories.items() if v.kind != "impassable")


@st.composite
def positions(draw):
    statuses = {p: draw(st.sampled_from(STATUSES)) for p in ("austria", "prussia", "russia", "ottoman")}
    pieces, used = [], set()
    for power in POWERS:
        for i in range(draw(st.integers(0, 3))):
            at = draw(st.sampled_from(PLACES))
            if (power, at) in used:
                continue
            used.add((power, at))
            pieces.append({"id": f"{power[:2]}-{i}", "side": power, "area": at, "troops": draw(st.integers(0, 3))})
    garrisons = {t: draw(st.sampled_from(POWERS)) for t in draw(st.lists(st.sampled_from(PLACES), max_size=8))}
    morale = {p: draw(st.integers(0, 15)) for p in POWERS}
    return position_from_dict({"system": "coalitions", "statuses": statuses, "pieces": pieces,
                               "garrisons": garrisons, "morale": morale})


@settings(max_examples=60, deadline=None)
@given(positions(), st.sampled_from(POWERS), st.data())
def test_moves_keep_the_stacking_limits(p, power, data):
    arbiters = movement.eligible_arbiters(p, power)
    try:
        p = movement.start_movement(p, power, arbiters[0] if arbiters else None).position
    except InputError:
        return
    moves = []
    for g in sorted(p.state.generals.values(), key=lambda g: g.id):
        if g.power != power:
            continue
        kind = data.draw(st.sampled_from(("march", "strategic", "sea")))
        dest = data.draw(st.sampled_from(PLACES))
        moves.append(Move(g.id, kind, [dest], data.draw(st.lists(st.sampled_from([g.at, dest]), max_size=1))))
    try:
        r = movement.move_turn(p, moves)
    except InputError:
        return
    s = r.position.state
    mine = [g.at for g in s.generals.values() if g.power == power and g.at]
    assert len(mine) == len(set(mine))
    assert all(EUROPE.territories[g.at].kind != "impassable" for g in s.generals.values() if g.at)
    assert all(0 <= g.troops <= 3 for g in s.generals.values())
    for tid in mine:  # where the mover stands beside pieces it is not allied with, a battle is due (§8.1)
        if any(not diplomacy.allied(s, power, q) for q in diplomacy.powers_on(s, tid)):
            assert tid in r.data["battles"]


@settings(max_examples=60, deadline=None)
@given(positions(), st.data())
def test_a_battle_leaves_no_enemies_together(p, data):
    s = p.state
    fights = [(t, g.power) for t in PLACES for g in s.generals_at(t)
              if any(diplomacy.can_attack(s, g.power, q, t) for q in diplomacy.powers_on(s, t))]
    if not fights:
        return
    tid, attacker = data.draw(st.sampled_from(fights))
    # before the attacker's Generals entered, non-allied Powers never stood together there, the attacker's own
    # Garrison included (§2: a battle or a board update follows)
    before = {g.power for g in s.generals_at(tid) if g.power != attacker} | (
        {s.garrisons[tid]} if tid in s.garrisons else set())
    assume(all(diplomacy.allied(s, a, b) for a in before for b in before))
    try:
        sd = battle.sides(s, tid, attacker)
    except InputError:
        return
    cards = {gid: data.draw(st.lists(st.integers(1, 6), max_size=min(1, s.general(gid).troops)))
             for gid in sd.generals("attacker") + sd.generals("defender")}
    try:
        r = battle.fight(p, tid, attacker, cards=cards, ch={"retreat": "off"})
    except InputError:
        return
    after = r.position.state
    here = diplomacy.powers_on(after, tid)
    assert all(diplomacy.allied(after, a, b) or not diplomacy.can_attack(after, a, b, tid) for a in here
               for b in here)
    assert all(0 <= g.troops <= 3 for g in after.generals.values())
    assert all(0 <= m <= 15 for m in after.morale.values())


@given(st.permutations(POWERS))
def test_the_wheel_gives_each_power_each_action_once_a_round(dial):
    p = position_from_dict({"system": "coalitions", "dial": list(dial)})
    for t in range(1, 7):
        assert sorted(turn.action_of(p, q, t) for q in POWERS) == sorted(ACTIONS)
    for q in POWERS:
        assert sorted(turn.action_of(p, q, t) for t in range(1, 7)) == sorted(ACTIONS)
    assert turn.action_of(p, "britain", 1) == "drill"


@settings(max_examples=60, deadline=None)
@given(positions())
def test_position_files_round_trip(p):
    text = dumps(p)
    assert dumps(position_from_dict(json.loads(text))) == text


@settings(max_examples=60, deadline=None)
@given(positions(), st.fixed_dictionaries({p: st.sampled_from(STATUSES) for p in ("austria", "prussia", "russia",
                                                                                    "ottoman")}))
def test_the_board_update_leaves_only_allies_together(p, chosen):
    """After the status reveal and the board update (§9.4) no Territory holds pieces of Powers that are not allies,
    and no Power's piece stands on the Home Territory of a Neutral Power but its own."""
    d = p.draft()
    d.round, d.phase = 2, "diplomacy"
    try:
        after = diplomacy.declare(position_from_dict(state_to_dict(d)), chosen).position.state
    except InputError as exc:
        assert "rock-paper-scissors" in str(exc)
        return
    for tid in PLACES:
        here = diplomacy.powers_on(after, tid)
        assert all(diplomacy.allied(after, a, b) for a in here for b in here), (tid, here)
        terr = EUROPE.territories[tid]
        if terr.is_home and after.status(terr.home) == "neutral":
            assert set(here) <= {terr.home} | {q for q in here if after.major_of(q) == after.major_of(terr.home)}
    assert all(0 <= g.troops <= 3 for g in after.generals.values())
