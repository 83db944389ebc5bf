"""The strategic turn sequence (digest §4.1 [R-SEQ]): player turns in the map's clockwise order from the scenario's
start nation, the month advancing after the last, a production round after March, June, September and December
(every player nation gains 1 PAP before it, then each in turn order has its production turn), the campaign's end
after July 1815."""

from __future__ import annotations

from rules.nie import politics
from rules.nie.battle import Result
from rules.nie.model import NATIONS, NiePosition, Production, with_changes
from rules.nie.options import DEFAULT, Options

PRODUCTION_MONTHS = (3, 6, 9, 12)


def turn_order(pos: NiePosition) -> list[str]:
    """§3.2/§4.1: clockwise from the start nation; only player-controlled nations act (neutral Great Nations are
    inactive, §9.6); with no players listed, all seven."""
    i = NATIONS.index(pos.start_nation)
    order = list(NATIONS[i:] + NATIONS[:i])
    return [n for n in order if n in pos.players] if pos.players else order


def end_turn(pos: NiePosition, opts: Options = DEFAULT) -> Result:
    """The active nation's player turn ends (§4.1 c): its uprisings with its units there are due a suppression roll;
    the next nation in turn order acts; after the last, the date marker advances one month and, after March, June,
    September and December, the production round follows with +1 PAP for every player nation first, opened on the
    first nation's production turn (`production_turn_end` walks it). `moved` is cleared only with the month: allies
    move together in either ally's turn but not in both (§4.1, §9.6); the port attacks (§5.3) and suppression rolls
    (§9.9) of the turn are cleared with every turn."""
    if pos.production is not None:
        return production_turn_end(pos, opts)
    order = turn_order(pos)
    lines = []
    due = sorted(r for r in pos.uprisings if pos.owner(r) == pos.active
                 and any(u.nation == pos.active and u.kind.army for u in pos.units_at(r)))
    for r in due:
        lines.append(f"{pos.active} rolls to suppress the uprising in {r} (§9.9: action suppress)")
    forced = forced_fights(pos)
    for rid, a, b in forced:
        lines.append(f"{rid}: {a} and {b} share it, neither allied nor granted passage: they must fight (§9.8)")
    i = order.index(pos.active) if pos.active in order else -1
    data = {"suppress": due, "production": False, "production_turn": None, "campaign_over": False,
            "forced_fights": forced}
    turn_clear = {"port_attacks": {}, "suppressed": frozenset()}
    if i + 1 < len(order):
        nxt = order[i + 1]
        lines.append(f"{pos.active}'s turn ends; {nxt} moves (§4.1)")
        return Result("end_turn", with_changes(pos, active=nxt, **turn_clear), lines, data=data)
    month, year = pos.month, pos.year
    ended = f"{year}-{month:02d}"
    month, year = (1, year + 1) if month == 12 else (month + 1, year)
    changes = {"active": order[0], "moved": frozenset(), "month": month, "year": year, "round": pos.round + 1,
               **turn_clear}
    lines.append(f"round {pos.round} ({ended}) ends: the date marker moves to {year}-{month:02d} (§4.1)")
    if pos.month in PRODUCTION_MONTHS:
        pap = dict(pos.pap)
        for n in order:
            pap[n] = pap.get(n, 0) + 1
        changes["pap"] = pap
        changes["production"] = Production(tuple(order))
        data["production"] = True
        data["production_turn"] = order[0]
        lines.append(f"production round: +1 PAP to {', '.join(order)}; in turn order each totals PP, may buy PAP "
                     "(10 PP each), buys and places units (§4.1, §9.4, §9.5)")
        lines.append(f"{order[0]}'s production turn (production, buy_pap, purchase; end_turn ends it, §4.1)")
    if (pos.year, pos.month) >= (1815, 7):
        data["campaign_over"] = True
        lines.append("a campaign game ends after the round of July 1815 (§9.2)")
    return Result("end_turn", with_changes(pos, **changes), lines, data=data)


def production_turn_end(pos: NiePosition, opts: Options = DEFAULT) -> Result:
    """The active nation's production turn ends (§4.1 step 4): a nation that did not total its PP has them totalled
    now (§9.4: PP are computed in every production round, and saved if not spent); the next nation of the round's
    turn order has its production turn; after the last the production round is over and the month's player turns
    begin with the first nation (§4.1)."""
    pr = pos.production
    lines: list[str] = []
    after = pos
    if pos.active in pr.nations and pos.active not in pr.totalled:
        res = politics.total_production(pos, pos.active, opts)
        after = res.position
        lines.append(f"{pos.active} did not total its PP this production turn: totalled now (§4.1, §9.4)")
        lines += res.lines[:1]
    i = pr.nations.index(pos.active) if pos.active in pr.nations else -1
    clear = {"port_attacks": {}, "suppressed": frozenset()}
    data = {"suppress": [], "production": True, "production_turn": None, "campaign_over": False,
            "forced_fights": []}
    if i + 1 < len(pr.nations):
        nxt = pr.nations[i + 1]
        data["production_turn"] = nxt
        lines.append(f"{pos.active}'s production turn ends; {nxt}'s production turn (§4.1 step 4)")
        return Result("end_turn", with_changes(after, active=nxt, **clear), lines, data=data)
    first = turn_order(after)[0]
    data["production"] = False
    lines.append(f"the production round ends; round {pos.round} ({pos.year}-{pos.month:02d}): {first} moves (§4.1)")
    return Result("end_turn", with_changes(after, active=first, production=None, **clear), lines, data=data)


def forced_fights(pos: NiePosition) -> list[tuple[str, str, str]]:
    """§9.8: at the end of a turn, land units of two nations that share a region while neither allied, at war nor
    granted passage (an alliance broken, a passage revoked) must fight, with no declaration of war."""
    out = []
    for rid in pos.europe.regions:
        nations = sorted({u.nation for u in pos.units_at(rid) if u.kind.army and u.nation in NATIONS})
        for i, a in enumerate(nations):
            for b in nations[i + 1:]:
                if pos.allied(a, b) or pos.at_war(a, b) or (a, b) in pos.passage or (b, a) in pos.passage:
                    continue
                out.append((rid, a, b))
    return out
