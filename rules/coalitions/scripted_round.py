"""A scripted Coalitions action turn, as plain data: the acceptance test of the recorder (issue 13;
tests/fieldglass/test_coalitions_round.py renders it into frames of the demo table and records them with `fieldglass
record`, its committed events compared with `truth`).

Round 2 of the 1805 demo game (data/europe_demo.toml, INVENTED geometry), its Diplomacy phase first:

* The statuses are revealed (`declare`, §9.3): Prussia leaves Neutrality for the French Coalition; its disc is then
  moved onto the French zone.
* Action turn 1 (the default dial: France over Movement, §4.2): France starts its Movement with the Ottomans as
  Arbiter (+1 Morale, §5.2), whose Morale marker is moved; fr-5 marches from Lombardia into Tyrol (§5.3), Austria's
  Home where at-2 stands: a battle (§8.1). The cards are entered at the reveal (§8.4, §13.2): fr-5 plays a 4, at-2 a
  2 (+3 on a Territory Austria controls, §8.5), at-1 supports the defender (§8.3). Austria wins: fr-5 goes to Paris,
  France and Austria lose 1 Morale for their cards, Austria gains 2 IP (§8.6); the pawn and the markers are moved.
* France's Movement ends, the action turn ends and the Wheel's dial is turned one space (§4.1).

`STEPS` is the script: what the players enter (`input`: a line of `fieldglass record --inputs` without its frame)
and what is then done on the table (`move`: a piece id -> a Territory, or "TRACK:VALUE", "status:STATUS",
"wheel:TURN" for the markers), with what the engine must have afterwards (`expect`).
"""

from __future__ import annotations

from rules.coalitions.demo import demo_game


def _combat(action: str, attacker: str, target: str | None = None, choices: dict | None = None) -> dict:
    inp: dict = {"type": "combat", "action": action, "attacker": attacker}
    if target is not None:
        inp["target"] = target
    if choices:
        inp["choices"] = dict(choices)
    return inp


def game() -> dict:
    """The game the camera cannot see at the start: the 1805 demo game in round 2's Diplomacy phase."""
    return {**demo_game(), "round": 2, "turn": 1, "phase": "diplomacy", "players": {"france": "anna",
                                                                                    "austria": "karl"}}


STEPS: tuple[dict, ...] = (
    {"still": 2},
    {"input": _combat("declare", "any", None, {"status.austria": "british", "status.prussia": "french",
                                               "status.russia": "british", "status.ottoman": "expansionist"}),
     "expect": {"status": {"prussia": "french"}, "phase": "action"}},
    {"move": {"st-pr": "status:french"}},
    {"input": _combat("start_movement", "france", "ottoman"), "expect": {"morale": {"ottoman": 3}}},
    {"move": {"mor-ot": "morale:3"}},
    {"input": _combat("move", "fr-5", "tyrol"), "expect": {"at": {"fr-5": "tyrol"}, "battles": ["tyrol"]}},
    {"move": {"fr-5": "tyrol"}},
    {"input": _combat("battle", "france", "tyrol", {"cards.fr-5": "4", "cards.at-2": "2", "support.at-1": "defender"}),
     "expect": {"at": {"fr-5": "paris"}, "morale": {"france": 10, "austria": 8}, "influence": {"austria": 2}}},
    {"move": {"fr-5": "paris", "mor-fr": "morale:10", "mor-au": "morale:8", "inf-au": "influence:2"}},
    {"input": _combat("end_movement", "france")},
    {"input": {"type": "turn"}, "expect": {"turn": 2}},
    {"move": {"dial": "wheel:2"}},
    {"still": 1},
)


def truth(start: list[str]) -> list[dict]:
    """The events the record must hold, in order: every piece of `start` (the ids on the table at the start, in the
    order the record writes them) appearing, then each input and the moves of each step (by piece id)."""
    out: list[dict] = [{"type": "appeared", "piece": pid} for pid in start]
    for step in STEPS:
        if "input" in step:
            inp = step["input"]
            out.append({"type": inp["type"], "action": inp.get("action")})
        out += [{"type": "move", "piece": pid} for pid in sorted(step.get("move", {}))]
    return out


__all__ = ["STEPS", "game", "truth"]
