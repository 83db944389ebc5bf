"""Scenario set-ups (§9.7, §9.9) from data/scenarios.toml, for 3-6 players (§9.6), and the L'Empereur set-up (§9.8).

The 1809 set-up is damaged in the rulebook's text (A5): it is refused here, and the players enter it by hand as a
position file. Generals get ids like "fr-1"; the board's territories are the map file's.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

from common.errors import InputError
from rules.coalitions.diplomacy import minor_powers
from rules.coalitions.model import (
    ABBR,
    DATA,
    GENERALS,
    POWERS,
    CoalitionsPosition,
    General,
    State,
    freeze,
    load_europe,
)
from rules.coalitions.options import DEFAULT, Options

SCENARIOS = ("1792", "1798", "1805", "1806", "1809", "1812", "1813")
DIFFICULTY = {"logre": 5, "usurpateur": 10, "empereur": 15}
"""L'Empereur's difficulty: France's starting Influence (§9.8)."""
FRENCH_HOMES_ORDER = ("lorraine", "picardie", "provence", "normandie_bretagne", "languedoc", "aquitaine")
DECK = 40


def _table(name: str) -> Mapping[str, Any]:
    with open(DATA / "scenarios.toml", "rb") as fh:
        data = tomllib.load(fh)
    if name not in SCENARIOS:
        raise InputError(f"scenario {name!r}: one of {' '.join(SCENARIOS)} (§9.9)")
    return data[f"s{name}"]


def setup(name: str, players: int = 6, third_minor: str = "russia", napoleon: str | None = None,
          opts: Options = DEFAULT, board: str = "demo") -> CoalitionsPosition:
    """A scenario's starting position (§9.7, §9.9): statuses, Morale, Start IP, Generals with Troops, Garrisons,
    the Ottoman Fortress, off-map Generals, starting cards and Money; Minors for 3-5 players (no Money, no IP,
    uncontrolled until their first Drill, §9.6). `napoleon` names the French General who is Napoleon when the
    scenario lets the players choose. Round 1 has no Diplomacy phase (§9.7)."""
    t = _table(name)
    if t.get("damaged"):
        raise InputError(f"scenario {name}: the rulebook's set-up is damaged (A5: Britain, Russia and the Ottomans "
                         "missing, France garbled); enter it by hand as a position file (scenarios.template_1809 "
                         "gives what the text has)")
    s = State(load_europe(board, t["side"]), board, t["side"], name)
    minors = minor_powers(players, third_minor)
    s.minors = {m: None for m in minors}
    s.statuses = dict(t["statuses"])
    s.morale = {p: (opts.france_morale_1805 if v < 0 else v) for p, v in t["morale"].items()}
    s.spain_open = not t.get("spain_closed", False)
    s.armee_dorient = bool(t.get("armee_dorient", False))
    for p in POWERS:
        _place(s, p, t[p])
        if p not in minors:
            s.influence[p] = t["ip"]
    _napoleon(s, t["napoleon"], napoleon)
    s.deck = DECK - sum(s.hands.values())
    return freeze(s)


MISSING_1809 = ("britain's set-up is missing", "russia's set-up is missing", "the ottomans' set-up is missing",
                "france: Lombardia's Troops are unreadable (0 here) and 2 Generals may be lost",
                "france: Bavaria's Troops read as 2 from \"(z)\"")
"""What the players must complete in the 1809 template (A5)."""


def template_1809(players: int = 6, opts: Options = DEFAULT) -> tuple[CoalitionsPosition, list[str]]:
    """The 1809 set-up as far as the text has it (A5), to be completed by hand, and the list of what is missing:
    Britain, Russia and the Ottomans have no Generals, Garrisons or cards; France's Lombardia Troops are unknown."""
    t = _table("1809")
    s = State(load_europe("demo", t["side"]), "demo", t["side"], "1809")
    s.minors = {m: None for m in minor_powers(players)}
    s.statuses = dict(t["statuses"])
    s.morale = dict(t["morale"])
    for p in POWERS:
        _place(s, p, t[p])
        if p not in s.minors:
            s.influence[p] = t["ip"]
    _napoleon(s, t["napoleon"], None)
    return freeze(s), list(MISSING_1809)


def _place(s: State, power: str, row: Mapping[str, Any]) -> None:
    n = 0
    for tid, troops in row.get("generals", []):
        n += 1
        s.europe.territory(tid, f"scenario {s.scenario}: {power}")
        s.generals[f"{ABBR[power]}-{n}"] = General(f"{ABBR[power]}-{n}", power, tid, troops)
    for _ in range(row.get("off", 0)):
        n += 1
        s.generals[f"{ABBR[power]}-{n}"] = General(f"{ABBR[power]}-{n}", power)
    if n > GENERALS[power]:
        raise InputError(f"scenario {s.scenario}: {power} has {n} Generals, the game {GENERALS[power]} (§2.1)")
    for tid in row.get("garrisons", []):
        s.garrisons[tid] = power
    s.fortresses.update(row.get("fortresses", []))
    s.hands[power] = row.get("cards", 0)
    if power not in s.minors:  # Minors start with no Money (§9.6)
        s.money[power] = row.get("money", 0)


def _napoleon(s: State, rule: str, chosen: str | None) -> None:
    french = [g for g in sorted(s.generals.values(), key=lambda g: int(g.id.split("-")[1])) if g.power == "france"]
    if rule == "off":
        pick = next(g for g in french if g.at is None)
    elif rule != "any":
        pick = next(g for g in french if g.at == rule)
    elif chosen:
        pick = next((g for g in french if g.id == chosen), None)
        if pick is None:
            raise InputError(f"napoleon={chosen}: one of the French Generals {', '.join(g.id for g in french)}")
    else:
        pick = french[0]
    if chosen and pick.id != chosen:
        raise InputError(f"napoleon={chosen}: in {s.scenario} Napoleon must be {pick.id} (§9.9)")
    pick.special = "napoleon"


def lempereur(difficulty: str = "usurpateur", opts: Options = DEFAULT) -> CoalitionsPosition:
    """The L'Empereur set-up (§9.8): the 1805 set-up, France an automa with no cards, no status discs (the other five
    are one Grand Coalition), only France's Influence marker (5, 10 or 15), a French Garrison on every French Home
    Territory, no General Napoleon."""
    if difficulty not in DIFFICULTY:
        raise InputError(f"difficulty {difficulty!r}: one of {' '.join(DIFFICULTY)} (§9.8)")
    s = setup("1805", 6, opts=opts).draft()
    s.mode = "lempereur"
    s.statuses = {p: "british" for p in POWERS if p not in ("britain", "france")}
    s.influence = {"france": DIFFICULTY[difficulty]}
    s.hands["france"] = 0
    s.deck = DECK - sum(s.hands.values())
    for g in s.generals.values():
        g.special = None
    for tid in s.europe.homes("france"):
        s.garrisons[tid] = "france"
    return freeze(s)
