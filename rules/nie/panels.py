"""Napoleon in Europe's game-state panels and its after-action report, as plain data (rules/live.py `Panel`,
`ReportTerms`): what the camera cannot see (§13.2), laid out from the engine's position.

Every number comes from the engine (politics.py, turn.py): the PP a nation's regions give (§9.4), what it may buy
(§9.5), whether a political action is allowed now (§9.8). An action's legality is the engine's own answer: the
action is tried on a copy of the position with seeded dice and its outcome thrown away; an action the engine refuses
is shown with the engine's reason, not hidden. The only numbers kept here are the PAP costs of §9.8's table, shown
beside each action.

Panels: **Date** (date, round, turn order, the next production round, the game's end), **Production** (PP saved,
income, PAP, what may be bought and where), **Diplomacy** (relations, truces, passage, C and diplomacy values),
**Political actions** (PAP per nation, each action with its cost and whether the active nation may take it now).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from common.dice import Dice
from common.errors import InputError
from rules.live import Panel, PanelAction, ReportTerms
from rules.nie import politics, turn
from rules.nie.adapter import BATTLE_ACTIONS, MAP_ACTIONS
from rules.nie.model import NATIONS, UNIT_TYPES, NiePosition
from rules.nie.options import DEFAULT, Options

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
CAMPAIGN_END = (1815, 7)
"""§9.2: a campaign game ends after the July 1815 round."""
PAP_COSTS = {"declare_war": "1", "sue_for_peace": "2", "armistice": "1 each", "break_alliance": "1",
             "passage": "0", "diplomacy": "2", "annex": "1", "uprising": "1", "congress_annex": "1 / 2 homeland",
             "liberate": "1/2 a region"}
"""§9.8's table of political actions' PAP costs (shown beside each action; the engine charges them)."""
TRIAL_SEED = 1
"""The seed of the dice an action is tried with (its outcome is thrown away: only whether the engine allows it)."""


def date_text(year: int, month: int) -> str:
    """A game month as the report and the panels write it: 1805-01."""
    return f"{year}-{month:02d}"


def add_months(year: int, month: int, n: int) -> tuple[int, int]:
    """The date `n` months (rounds, §4.1: one round a month) after year-month."""
    k = year * 12 + (month - 1) + n
    return k // 12, k % 12 + 1


def _nations(pos: NiePosition) -> list[str]:
    """The nations the panels list: the player nations in turn order (all seven without players), then the rest."""
    order = turn.turn_order(pos)
    return order + [n for n in NATIONS if n not in order]


def _try(fn: Callable[[], Any]) -> str:
    """'' when the engine allows the action (its outcome thrown away), else the engine's reason."""
    try:
        fn()
    except InputError as exc:
        return str(exc)
    return ""


def _act(label: str, action: str, attacker: str, target: str = "", choices: Sequence[tuple[str, str]] = (),
         why: str = "") -> PanelAction:
    return PanelAction(label, action, attacker, target, tuple(choices), allowed=not why, why=why)


# ---------------------------------------------------------------------------------------------- Date (§4.1, §9.2)


def months_to_production(month: int) -> int:
    """Rounds left before the next production round (§4.1: it follows the March, June, September and December
    rounds): 0 when it follows this month's round."""
    return min(pm - month for pm in turn.PRODUCTION_MONTHS if pm >= month)


def _game_end(pos: NiePosition, opts: Options) -> list[str]:
    """§9.2: the campaign's last round, the suggested lengths with the end number where sudden death is rolled, and a
    historical game's end (§9.1)."""
    left = (CAMPAIGN_END[0] * 12 + CAMPAIGN_END[1]) - (pos.year * 12 + pos.month)
    lines = [f"campaign: ends after the July 1815 round ({left} round(s) after this one, §9.2)" if left >= 0
             else "campaign: the July 1815 round has passed: the game is over (§9.2)"]
    lengths = []
    for name in ("short", "medium", "long"):
        n = politics.game_rounds(name, opts)
        if pos.round >= n:
            lengths.append(f"{name} {n}: sudden death, 2d6 >= {politics.end_number(pos.round, n)} ends it")
        else:
            lengths.append(f"{name} {n}: {n - pos.round} round(s) to go")
    lines.append("agreed length (§9.2, rounds): " + "; ".join(lengths))
    if pos.historical:
        allies = {n for n in NATIONS if pos.allied("france", n)}
        result = politics.historical_result(pos, set(pos.sued), allies)
        lines.append("historical game: " + (f"over: {result} win(s) (§9.1)" if result else
                                            f"ends when France or all its opponents have sued for peace (sued: "
                                            f"{', '.join(sorted(pos.sued)) or 'none'}, §9.1)"))
    elif pos.sued:
        lines.append(f"sued for peace: {', '.join(sorted(pos.sued))}")
    return lines


def date_panel(pos: NiePosition, opts: Options = DEFAULT) -> Panel:
    """Year and month, round, the nation to move and the turn order, rounds to the next production round (§4.1), the
    game's end (§9.2); the turn order as rows; the action that ends the active nation's turn."""
    pr = pos.production
    order = list(pr.nations) if pr is not None else turn.turn_order(pos)
    wait = months_to_production(pos.month)
    prod = add_months(pos.year, pos.month, wait)
    if pr is not None:
        now = (f"production round (§4.1 step 4): {pos.active}'s production turn; turn order: {', '.join(order)}",
               "then the month's player turns begin (§4.1)")
    else:
        now = (f"{pos.active} to move; turn order (§4.1): {', '.join(order)}",
               ("production round after this month's round" if wait == 0 else
                f"production round after the {date_text(*prod)} round, in {wait} month(s)")
               + " (+1 PAP to every player nation first, §4.1)")
    lines = (f"{MONTHS[pos.month - 1]} {pos.year} ({date_text(pos.year, pos.month)}), round {pos.round}", *now,
             *_game_end(pos, opts))
    i = order.index(pos.active) if pos.active in order else -1
    doing = "producing" if pr is not None else "moving"
    rows = tuple((n, pos.players.get(n, "-"), doing if j == i else ("done" if j < i else "to come"),
                  str(sum(1 for u in pos.units.values() if u.nation == n and u.id in pos.moved)))
                 for j, n in enumerate(order))
    actions = (_act(f"End {pos.active}'s {'production ' if pr is not None else ''}turn", "end_turn", "any"),)
    return Panel("date", "Date", lines, ("nation", "player", "this month", "units moved"), rows, actions)


# ---------------------------------------------------------------------------------------------- Production (§9.4-9.5)


def income(pos: NiePosition, nation: str, opts: Options) -> tuple[str, list[str]]:
    """The nation's PP income as text (§9.4) and its notes (filled-in capital values); "?" with the option to set
    when a capital's value is unknown (A2)."""
    try:
        pp = politics.production_points(pos, nation, opts)
    except InputError as exc:
        return "?", [f"{nation}: {exc}"]
    lost = sum(1 for _, v, why in pp["regions"] if why)
    text = f"{pp['pp']} ({len(pp['regions']) - lost} regions" + (f", {lost} yielding none" if lost else "") + ")"
    return text, [f"{nation}: {n}" for n in pp["notes"]]


def buyable(pos: NiePosition, nation: str, opts: Options) -> list[str]:
    """Each unit kind the nation may buy one of now, with its cost (§9.5: the engine's purchase_reasons)."""
    return [f"{k} {politics.unit_cost(k, opts)}" for k in UNIT_TYPES
            if not politics.purchase_reasons(pos, nation, {k: 1}, opts)]


def production_panel(pos: NiePosition, opts: Options = DEFAULT) -> Panel:
    """Per nation: PP saved, PP income from its owned regions not occupied or in uprising (§9.3-9.4), PAP, what it may
    buy now and its cost, where new units go (§9.5); the active nation's production, purchase and PAP purchase."""
    rows, notes = [], []
    for n in _nations(pos):
        inc, more = income(pos, n, opts)
        notes += more
        rows.append((n, str(pos.pp.get(n, 0)), inc, str(pos.pap.get(n, 0)), ", ".join(buyable(pos, n, opts)) or "-",
                     ", ".join(politics.placement_regions(pos, n)) or "-"))
    a = pos.active
    pr = pos.production
    if pr is None:
        now = "no production round now: units and PAP are bought in the production round (§4.1, §9.5)"
    else:
        done = ", ".join(f"{n} +{v}" for n, v in pr.totalled.items()) or "nobody yet"
        bought = "; ".join(f"{n} " + ", ".join(f"{k} {v}" for k, v in row.items())
                           for n, row in pr.built.items() if row) or "nothing yet"
        now = (f"production round: {a}'s production turn (§4.1 step 4); PP totalled: {done}; bought this round: "
               f"{bought}")
    lines = [f"production rounds follow the March, June, September and December rounds (§4.1); {a}: "
             f"{pos.pp.get(a, 0)} PP saved", now,
             "costs (PP, §9.5): " + ", ".join(f"{k} {politics.unit_cost(k, opts)}" for k in UNIT_TYPES)]
    lines += [f"note: {x}" for x in dict.fromkeys(notes)]
    return Panel("production", "Production", tuple(lines),
                 ("nation", "PP saved", "PP income", "PAP", "may buy (PP)", "places in"), tuple(rows),
                 _production_actions(pos, opts))


def _production_actions(pos: NiePosition, opts: Options) -> tuple[PanelAction, ...]:
    """The active nation's: total its PP, buy one of the cheapest kind it may buy, buy 1 PAP for 10 PP (§9.5)."""
    a = pos.active
    out = [_act(f"{a}: total PP", "production", a)]
    places = politics.placement_regions(pos, a)
    kinds = sorted((politics.unit_cost(k, opts), k) for k in UNIT_TYPES
                   if not politics.purchase_reasons(pos, a, {k: 1}, opts))
    land = [k for _, k in kinds if k != "ship"]
    if land and places:
        k = land[0]
        out.append(_act(f"{a}: buy 1 {k} at {places[0]}", "purchase", a, "", (("buy", f"{k}:1"), ("place", places[0]))))
    else:
        why = "; ".join(politics.purchase_reasons(pos, a, {"inf": 1}, opts)) or "nothing to buy"
        out.append(_act(f"{a}: buy units", "purchase", a, "", (("buy", "inf:1"),), why=why))
    out.append(_act(f"{a}: buy 1 PAP (10 PP)", "buy_pap", a, "", (("n", "1"),),
                    why=_try(lambda: politics.buy_pap(pos, a, 1, opts))))
    return tuple(out)


# ---------------------------------------------------------------------------------------------- Diplomacy (§9.6, §9.10)


def c_text(pos: NiePosition, nation: str, opts: Options) -> str:
    """A nation's C value and where it comes from (§9.10, §9.12): the position, an option filled in (§11), or
    unknown (scenario data not in the rules)."""
    if nation in pos.c_values:
        return f"{pos.c_values[nation]} (position)"
    try:
        v = politics.c_value(pos, nation, opts)
    except InputError:
        return f"unknown: set c_{nation} (options) or c_values (position)"
    return f"{v} (option c_{nation} filled in, §11)"


def diplomacy_panel(pos: NiePosition, opts: Options = DEFAULT) -> Panel:
    """The diplomacy table between the Great Nations (war, alliance, neutral: §9.6), truces and rights of passage
    (§9.8), the declarers in order, the C values (§9.10) and diplomacy values (§9.8), each saying where it comes
    from."""
    rows = []
    for n in _nations(pos):
        war = [m for m in NATIONS if pos.at_war(n, m)]
        allied = [m for m in NATIONS if m != n and pos.allied(n, m)]
        status = "player" if n in pos.players else ("inactive neutral" if pos.inactive(n) else "no player")
        dv = pos.diplomacy_values.get(n, {})
        rows.append((n, pos.players.get(n, status if n not in pos.players else "-"), ", ".join(war) or "-",
                     ", ".join(allied) or "-", c_text(pos, n, opts),
                     ", ".join(f"{m} {v}" for m, v in dv.items()) or "-"))
    lines = ["relations not listed are neutral (§9.6); diplomacy values are scenario data (§9.8), none filled in"]
    for target, declarers in pos.declarations.items():
        if declarers:
            lines.append(f"war declared on {target} by {', '.join(declarers)} (first on top, §9.6)")
    for victor, loser, until in pos.truces:
        if pos.round <= until:
            lines.append(f"truce: {victor} may not declare war on {loser} until after round {until} (§9.8)")
    for guest, host in sorted(pos.passage):
        lines.append(f"passage: {guest} may pass through {host}'s regions (§9.8)")
    for region, annexer in pos.resisting.items():
        lines.append(f"{region} resists {annexer}'s annexation (at war with it, §9.8)")
    for c in pos.congresses:
        lines.append(f"congress after {c.loser}'s war: {c.turn}'s turn to annex, liberate or pass (victors in order "
                     f"of declaration: {', '.join(c.victors)}, §9.8)")
    return Panel("diplomacy", "Diplomacy", tuple(lines),
                 ("nation", "player", "at war with", "allied with", "C value", "diplomacy values"), tuple(rows))


# ------------------------------------------------------------------------------------------ Political actions (§9.8)


def _trial_dice() -> Dice:
    """Fresh dice for one try of an action (seeded: the same answer every time)."""
    return Dice((), TRIAL_SEED)


def _minors_with_units(pos: NiePosition, nation: str) -> list[str]:
    """Neutral minor regions where the nation has a land unit (annexation needs one, §9.8)."""
    return sorted({u.at for u in pos.units.values() if u.nation == nation and u.at in pos.europe.regions
                   and pos.europe.regions[u.at].home is None and pos.owner(u.at) is None})


def _uprising_candidates(pos: NiePosition, nation: str) -> list[str]:
    """The regions of the nation's enemies an uprising could be caused in (§9.9: not a homeland region, except
    Ireland, Vendée and Don Basin), not yet in uprising; the engine judges each."""
    out = []
    for rid, r in pos.europe.regions.items():
        owner = pos.owner(rid)
        if owner is None or not pos.at_war(nation, owner) or rid in pos.uprisings:
            continue
        if r.home is None or r.uprising_homeland:
            out.append(rid)
    return sorted(out)


def political_actions(pos: NiePosition, opts: Options = DEFAULT) -> tuple[PanelAction, ...]:
    """The active nation's political actions on every nation or region they may concern, each tried with the engine
    (seeded dice; the outcome thrown away): allowed now, or the engine's reason why not (§9.8)."""
    a = pos.active
    d = _trial_dice
    out: list[PanelAction] = []
    others = [n for n in NATIONS if n != a]
    for n in others:
        if pos.at_war(a, n):
            out.append(_act(f"armistice with {n}", "armistice", a, n,
                            why=_try(lambda n=n: politics.armistice(pos, a, n))))
        else:
            out.append(_act(f"declare war on {n}", "declare_war", a, n,
                            why=_try(lambda n=n: politics.declare_war(pos, a, n, d()))))
    out.append(_act("sue for peace", "sue_for_peace", a, why=_try(lambda: politics.sue_for_peace(pos, a, opts))))
    for n in others:
        if n in pos.players:
            if pos.relation(a, n) == "neutral":
                out.append(_act(f"offer {n} an alliance", "diplomacy", a, n, (("accepted", "yes"),),
                                why=_try(lambda n=n: politics.diplomatic_offer(pos, a, n, True))))
            elif pos.allied(a, n):
                out.append(_act(f"break the alliance with {n}", "break_alliance", a, n,
                                why=_try(lambda n=n: politics.break_alliance(pos, a, n))))
        elif pos.relation(a, n) != "war":
            out.append(_act(f"diplomatic offensive on neutral {n}", "diplomacy", a, n,
                            why=_try(lambda n=n: politics.diplomatic_offensive_neutral(pos, a, n, d()))))
    for r in _minors_with_units(pos, a):
        out.append(_act(f"annex {r}", "annex", a, r, why=_try(lambda r=r: politics.annex_minor(pos, a, r, d()))))
        out.append(_act(f"diplomatic offensive on {r}", "diplomacy", a, r,
                        why=_try(lambda r=r: politics.diplomatic_offensive_minor(pos, a, r, d()))))
    for r in _uprising_candidates(pos, a):
        out.append(_act(f"cause an uprising in {r}", "uprising", a, r,
                        why=_try(lambda r=r: politics.cause_uprising(pos, a, r))))
    for r in sorted(pos.uprisings):
        if pos.owner(r) == a:
            out.append(_act(f"suppress the uprising in {r}", "suppress", a, r,
                            why=_try(lambda r=r: politics.suppress_uprising(pos, r, d()))))
    return tuple(out)


def political_panel(pos: NiePosition, opts: Options = DEFAULT) -> Panel:
    """PAP per nation and the active nation's political actions with their cost and whether it may take them now
    (§9.7-9.8); the rows list every action, allowed or with the engine's reason."""
    acts = political_actions(pos, opts)
    rows = tuple((x.label, PAP_COSTS.get(x.action, "-"), "yes" if x.allowed else "no", x.why) for x in acts)
    lines = ("PAP (§9.7): " + ", ".join(f"{n} {pos.pap.get(n, 0)}" for n in _nations(pos)),
             f"{pos.active} to act; political actions may be taken at any time with the PAP, annexing a minor in the "
             "nation's own turn, congress annexation and liberation at the congress after a war (§4.1, §9.8)",
             "an uprising elsewhere: action uprising, target any non-homeland region (or Ireland, Vendee, Don "
             "Basin), 1 PAP (§9.9)")
    return Panel("political", "Political actions", lines, ("action", "PAP", "now", "why not"), rows,
                 tuple(x for x in acts if x.allowed))


def panels(pos: NiePosition | None, opts: Options = DEFAULT) -> tuple[Panel, ...]:
    """Every NiE panel for the position (none without one)."""
    if pos is None:
        return ()
    return (date_panel(pos, opts), production_panel(pos, opts), diplomacy_panel(pos, opts),
            political_panel(pos, opts))


ACTORS = (*NATIONS, "any")
"""The names besides figures that act in NiE's actions: a nation (production, politics), `any` (end_turn...)."""


# ---------------------------------------------------------------------------------------------- the report


WORDS = {"purchase": "Purchase", "buy_pap": "PAP bought", "give_pp": "PP given", "production": "Production",
         "declare_war": "Declaration of war", "sue_for_peace": "Peace", "annex": "Annexation",
         "diplomacy": "Diplomacy", "uprising": "Uprising", "suppress": "Suppression",
         "congress_annex": "Congress annexation", "liberate": "Liberation", "armistice": "Armistice",
         "break_alliance": "Alliance broken", "passage": "Right of passage", "c_test": "C-value test",
         "sudden_death": "Sudden death", "victory": "Victory level", "end_turn": "End of turn"}
"""A political or production action's name in the report."""
PRODUCTION = ("production", "purchase", "buy_pap", "give_pp")


def _start_date(meta: Mapping[str, Any]) -> tuple[int, int, int]:
    """(year, month, round) the record's game starts from (the empty game: January 1805, round 1)."""
    g = meta.get("game") or {}
    return int(g.get("year", 1805)), int(g.get("month", 1)), int(g.get("round", 1))


def round_date(meta: Mapping[str, Any], round_no: int) -> str:
    """The month of a round of the record's game (§4.1: one round a month)."""
    y, m, r0 = _start_date(meta)
    return date_text(*add_months(y, m, round_no - r0))


class _Battles:
    """The battles a record's engine states show, each from its start to its end: region, sides, size, winner,
    the units eliminated."""

    def __init__(self) -> None:
        self.current: dict | None = None
        self.when = ""
        self.done: list[str] = []

    def see(self, engine: Mapping[str, Any] | None, when: str) -> None:
        b = (engine or {}).get("battle") if engine is not None else None
        if b and (self.current is None or self.current.get("region") != b.get("region")):
            self.close()
            self.when = when
        if b:
            self.current = b
        elif engine is not None and self.current is not None:
            self.close()

    def close(self) -> None:
        b = self.current
        if b is None:
            return
        loser = b.get("loser")
        winner = {"A": b.get("attacker"), "B": b.get("defender")}.get("B" if loser == "A" else "A") if loser else None
        lost: dict[str, int] = {}
        for x in b.get("eliminated", []):
            lost[x.get("nation", "?")] = lost.get(x.get("nation", "?"), 0) + 1
        self.done.append(
            f"{self.when}: battle in {b.get('region')} ({'major' if b.get('major') else 'skirmish'}), "
            f"{', '.join(b.get('attacker', []))} attacking {', '.join(b.get('defender', []))}: "
            + (f"won by {', '.join(winner or [])}" if loser else "not ended in the record")
            + (f"; units lost: {', '.join(f'{n} {k}' for n, k in lost.items())}" if lost else ""))
        self.current = None


def _event_line(e, when: str, battle: dict | None) -> str | None:
    """A combat event's line in the game's terms: the action's name, the acting nation, the engine's summary; a
    battle's action with its region and sides."""
    d = e.data
    action = d.get("action", "")
    summary = d.get("summary") or action
    if action in BATTLE_ACTIONS:
        where = (battle or (d.get("engine") or {}).get("battle") or {})
        sides = f"{', '.join(where.get('attacker', []))} v {', '.join(where.get('defender', []))}" if where else ""
        return f"Battle in {where.get('region', d.get('target') or '?')} ({sides}), {action}: {summary}"
    if action in MAP_ACTIONS:
        return f"{action.replace('_', ' ').capitalize()} ({when}): {summary}"
    if action in WORDS:
        return f"{WORDS[action]} ({when}): {summary}"
    return None


def _other_line(e) -> str | None:
    """A turn's end (the engine's lines: the next nation, the month, a production round) or a figure seen in an
    area of the map, in the game's terms; None: the generic line."""
    d = e.data
    if e.type == "turn" and d.get("lines"):
        return "End of turn: " + "; ".join(str(x) for x in d["lines"])
    if e.type in ("move", "appeared") and d.get("area"):
        return f"{e.piece} {'moves to' if e.type == 'move' else 'stands in'} {d['area']}"
    return None


def report_terms(meta: Mapping[str, Any], events) -> ReportTerms:
    """A NiE record's report in the game's terms: each round headed by its month (round 2: 1805-02), each action by
    its name and month (a battle's with its region and sides), and sections of the battles (region, sides, winner,
    losses), the purchases and the political actions, and the months the record spans."""
    titles: dict[int, str] = {}
    lines: dict[int, str] = {}
    battles = _Battles()
    purchases: list[str] = []
    politics_done: list[str] = []
    first = _start_date(meta)[2]
    for e in events:
        rnd = int(e.turn) if e.turn else first  # turn 0: before the first turn event, the game's starting round
        when = round_date(meta, rnd)
        titles.setdefault(int(e.turn or 0), f"{'Round' if e.turn else 'Set-up, round'} {rnd}: {when}")
        if e.type != "combat":
            if e.type == "turn" and isinstance(e.data.get("engine"), dict):
                battles.see(e.data["engine"], when)
            text = _other_line(e)
            if text is not None:
                lines[e.seq] = text
            continue
        before = battles.current
        engine = e.data.get("engine") if isinstance(e.data.get("engine"), dict) else None
        battles.see(engine, when)
        text = _event_line(e, when, battles.current or before)
        if text is None:
            continue
        lines[e.seq] = text
        action = e.data.get("action")
        if action in PRODUCTION:
            purchases.append(text)
        elif action in WORDS and action != "end_turn":
            politics_done.append(text)
    battles.close()
    months = sorted({round_date(meta, int(e.turn) if e.turn else first) for e in events})
    span = f"{months[0]} to {months[-1]} ({len(months)} month(s))" if months else "nothing recorded"
    sections = (("Months", (span,)), ("Battles", tuple(battles.done) or ("none",)),
                ("Production and purchases", tuple(purchases) or ("none",)),
                ("Political actions", tuple(politics_done) or ("none",)))
    return ReportTerms(titles, lines, sections, losses=False)


__all__ = ["ACTORS", "CAMPAIGN_END", "PAP_COSTS", "add_months", "buyable", "c_text", "date_panel",
           "date_text", "diplomacy_panel", "income", "months_to_production", "panels", "political_actions",
           "political_panel", "production_panel", "report_terms", "round_date"]
