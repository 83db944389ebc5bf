"""Triomphe à Marengo rules as pure functions: position in, `Outcome` (with the new position) out.

Every rule cites its digest section (`shared/rules/triomphe-a-marengo.md`), e.g. `# §8.1`. Choices the players
make (the defender's push-in, leads, loss sharing, retreat destinations) are arguments; where a choice is left out
the engine takes a stated default and says so in the events.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from common.errors import InputError
from rules.board import Approach, approach_id
from rules.marengo.model import COMMANDS, ROUNDS, Block, MarengoPosition, Turn, other
from rules.marengo.options import DEFAULT, Options


@dataclass
class Outcome:
    """What an action does: legal or why not, its command cost, the events, and the position after."""

    legal: bool
    cost: int = 0
    reasons: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    position: MarengoPosition | None = None
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"legal": self.legal, "cost": self.cost, "reasons": self.reasons, "events": self.events,
                **self.details}


def _no(*reasons: str) -> Outcome:
    return Outcome(False, 0, list(reasons))


# ---------------------------------------------------------------- board questions (§3)


def approach(p: MarengoPosition, area: str, to: str) -> Approach | None:
    return p.board.approach(area, to)


def blocking(p: MarengoPosition, area: str, to: str) -> str:
    """§3.2: "none", "partial" (1 block in a wide approach) or "full" (narrow >= 1, wide >= 2)."""
    ap = approach(p, area, to)
    n = len(p.at(area, to))
    if n == 0:
        return "none"
    return "full" if n >= ap.full_at else "partial"


def can_cross(p: MarengoPosition, a: str, b: str, opts: Options = DEFAULT) -> bool:
    """§3.3 impassable; §11.11: a symbol on either side closes the border (option)."""
    ap, back = approach(p, a, b), approach(p, b, a)
    if ap is None:
        return False
    if ap.impassable:
        return False
    return not (opts.impassable_either_side and back is not None and back.impassable)


def capacity_ok(p: MarengoPosition, area: str, side: str, adding: int) -> bool:
    """§3.2: own blocks in the area may not exceed its capacity (none = unlimited, §11.12)."""
    cap = p.board.areas[area].capacity
    if cap is None:
        return True
    return sum(1 for b in p.in_area(area) if b.side == side) + adding <= cap


def protected_entry(p: MarengoPosition, area: str, side: str) -> str | None:
    """§5.6: the entry area of a box that still holds enemy blocks; returns the box id."""
    for bx in p.board.box_of_entry(area):
        if any(b.box == bx.id and b.side != side for b in p.blocks):
            return bx.id
    return None


def crossing_forbidden(p: MarengoPosition, a: str, b: str) -> bool:
    """§8.3 step 9: the approach of a lost assault may not be crossed this turn (either way)."""
    return approach_id(a, b) in p.turn.forbidden or approach_id(b, a) in p.turn.forbidden


def ready_blocks(p: MarengoPosition, side: str, on_map_only: bool = True) -> list[Block]:
    return [b for b in p.blocks if b.side == side and b.ready and (b.on_map or not on_map_only)]


def _set(p: MarengoPosition, blocks: Iterable[Block]) -> MarengoPosition:
    new = {b.id: b for b in blocks}
    return p.with_blocks(new.get(b.id, b) for b in p.blocks)


def _remove(p: MarengoPosition, ids: Iterable[str]) -> MarengoPosition:
    gone = set(ids)
    return p.with_blocks(b for b in p.blocks if b.id not in gone)


def _leave(b: Block, **kw) -> Block:
    """A block changing position: a bombardment is cancelled when the artillery leaves its position (§8.2)."""
    new = replace(b, **kw)
    if b.bombard == "announced" and (new.area, new.approach) != (b.area, b.approach):
        new = replace(new, bombard=None, bombard_round=None, revealed=False)
    return new


def _occupy(p: MarengoPosition, area: str, side: str) -> MarengoPosition:
    """§11.17: remember who was in an area last; §5.4 contamination of ready and unready French."""
    p = replace(p, last_occupant={**p.last_occupant, area: side})
    if side == "FR":
        here = [b for b in p.in_area(area) if b.side == "FR"]
        if any(not b.ready for b in here) and any(b.ready for b in here):
            p = _set(p, (replace(b, ready=False) for b in here))  # §5.4 contamination
    return p


def _check_actors(p: MarengoPosition, ids: list[str], most: int = 3) -> tuple[list[Block], list[str]]:
    reasons = []
    blocks = [p.block(i) for i in ids]
    if not 1 <= len(blocks) <= most:
        reasons.append(f"an action takes 1 to {most} blocks, not {len(blocks)} (§5.1)")
    for b in blocks:
        if b.side != p.side:
            reasons.append(f"block {b.id} is not {p.side}'s, whose turn it is (§4)")
        if b.acted:
            reasons.append(f"block {b.id} has already taken part in an action this turn (§5.1)")
    if len({(b.area, b.approach, b.box) for b in blocks}) > 1:
        reasons.append("the blocks of one action must start in the same position (§5.2)")
    return blocks, reasons


def _acted(blocks: Iterable[Block]) -> list[Block]:
    return [replace(b, acted=True, rallied=False) for b in blocks]


def _pay(p: MarengoPosition, cost: int) -> MarengoPosition:
    return replace(p, commands=p.commands - cost)


# ---------------------------------------------------------------- moves (§5.2, §5.3)


def _into_approach(p: MarengoPosition, blocks: list[Block], dest_area: str, dest_approach: str) -> tuple[str, int]:
    """§5.2 from the reserve into an approach of its own area facing an enemy area: (why not, cost); the
    defensive standard move that does not over-fill the approach is free."""
    b0 = blocks[0]
    side, here = b0.side, b0.area
    if b0.approach is not None or dest_area != here:
        return "a block moves into an approach only from the reserve of the same area (§5.2)", 1
    ap = approach(p, here, dest_approach)
    if ap is None:
        return f"area {here} has no approach toward {dest_approach}", 1
    if p.occupant(dest_approach) != other(side):
        return f"area {dest_approach} opposite the approach is not enemy-occupied (§5.2)", 1
    if ap.impassable:
        return f"approach {ap.id} is impassable: no block may stand in it (§3.3)", 1
    if side == "FR" and p.round == 1:
        return "in round 1 (6h) the French cannot block any approach (§4, §5.4)", 1
    if len(p.at(here, dest_approach)) + len(blocks) <= ap.full_at:
        return "", 0  # §5.2 defensive standard move
    return "", 1


def _into_area(p: MarengoPosition, blocks: list[Block], dest_area: str, opts: Options) -> str:
    """§5.2 into a reserve: its own from an approach, or an adjacent one that is not the enemy's; why not."""
    b0 = blocks[0]
    side, here = b0.side, b0.area
    if dest_area == here:
        return "the blocks are already in that reserve" if b0.approach is None else ""
    src_ap = b0.approach
    if src_ap is not None and dest_area != src_ap:
        return f"from approach {b0.position} a block moves only to its own reserve or area {src_ap}"
    if not p.board.adjacent(here, dest_area):
        return f"areas {here} and {dest_area} are not adjacent (§3.2)"
    if p.occupant(dest_area) == other(side):
        return f"area {dest_area} is enemy-occupied: a move may not enter it (§5.2)"
    if not can_cross(p, here, dest_area, opts):
        return f"the border {here}|{dest_area} is impassable (§3.3)"
    if crossing_forbidden(p, here, dest_area):
        return f"the approach {here}|{dest_area} is forbidden after a lost assault (§8.3)"
    if not capacity_ok(p, dest_area, side, len(blocks)):
        return f"area {dest_area} has capacity {p.board.areas[dest_area].capacity} (§3.2)"
    box = protected_entry(p, dest_area, side)
    if box:
        return f"area {dest_area} is the entry of box {box}, which still holds enemy blocks (§5.6)"
    unready = [b.id for b in blocks if not b.ready]
    if unready:
        return f"unready block(s) {', '.join(unready)} may not leave their area (§5.4)"
    return ""


def standard_move(p: MarengoPosition, ids: list[str], dest_area: str, dest_approach: str | None = None,
                  opts: Options = DEFAULT) -> Outcome:
    """§5.2: reserve -> adjacent reserve or own approach; approach -> own or opposite reserve. Up to 3 blocks."""
    blocks, reasons = _check_actors(p, ids)
    if reasons:
        return _no(*reasons)
    b0 = blocks[0]
    if not b0.on_map:
        return _no(f"block {b0.id} is in a box: it enters by road move or the pontoon (§5.6)")
    side, here = b0.side, b0.area
    if dest_approach is not None:
        why, cost = _into_approach(p, blocks, dest_area, dest_approach)
    else:
        why, cost = _into_area(p, blocks, dest_area, opts), 1
    if why:
        return _no(why)
    if cost > p.commands:
        return _no(f"needs {cost} command, {p.commands} left (§5.1)")
    moved = [_leave(b, area=dest_area, approach=dest_approach, acted=True, rallied=False) for b in blocks]
    q = _pay(_set(p, moved), cost)
    q = _occupy(q, dest_area, side)
    kind = "defensive standard move (free)" if dest_approach is not None and cost == 0 else "standard move"
    where = f"approach {here}>{dest_approach}" if dest_approach else f"reserve of {dest_area}"
    return Outcome(True, cost, [], [f"{kind}: {', '.join(ids)} to {where}"], q)


def _crossing_road_classes(p: MarengoPosition, a: str, b: str) -> set[str]:
    return {r.road_class for r in p.board.roads if (a, b) in r.crossings() or (b, a) in r.crossings()}


def plan_road_steps(p: MarengoPosition, start: str, path: list[str]) -> tuple[list[int], str]:
    """§5.3 traffic limit: the earliest legal step for each crossing (rising, one per step number, 3 per crossing).

    Returns the steps for as many crossings as can be made, and why it stopped ("" if the whole path fits).
    """
    steps, prev, last = [], start, 0
    for nxt in path:
        key, back = f"{prev}>{nxt}", f"{nxt}>{prev}"
        if p.turn.crossings.get(back):
            return steps, f"crossing {prev}|{nxt} is used in the other direction this turn (§5.3)"
        used = p.turn.crossings.get(key, ())
        if len(used) >= 3:
            return steps, f"3 blocks have crossed {prev}|{nxt} this turn (§5.3 traffic limit)"
        s = max(last, max(used, default=0)) + 1
        if s > 3:
            return steps, f"no step left to cross {prev}|{nxt} (steps used there: {list(used)}) (§5.3 traffic limit)"
        steps.append(s)
        last, prev = s, nxt
    return steps, ""


def _road_start(p: MarengoPosition, b: Block, opts: Options) -> tuple[str, str]:
    """Where a road move starts (a box for the reinforcement entry, §5.6; else the area's reserve, §5.3), and
    why it may not start ("" when it may)."""
    if b.box is not None:  # §5.6 reinforcement
        box = p.board.boxes[b.box]
        if p.round < box.round:
            return box.id, f"box {box.id} opens in round {box.round} (§5.6)"
        if b.side == "AU" and b.type == "artillery" and p.round < 2:
            return box.id, "Austrian artillery enters from 7h (round 2) (§5.6)"
        return box.id, ""
    if b.approach is not None:
        return b.area, "a road move starts in reserve (§5.3)"
    if not b.began_in_reserve and not opts.pushed_back_may_road_move:
        return b.area, f"block {b.id} did not begin its turn in reserve (§5.3, §11.6)"
    if not b.ready:
        return b.area, f"unready block {b.id} may not leave its area (§5.4)"
    return b.area, ""


def _road_cost(p: MarengoPosition, start: str, path: list[str]) -> tuple[int, str]:
    """§5.3 the command cost of a road move (wholly on a main road is free), or why no road carries it."""
    prev, classes = start, set()
    for nxt in path:
        cls = _crossing_road_classes(p, prev, nxt)
        if not cls:
            return 0, f"no road crosses from {prev} to {nxt} (§5.3)"
        classes.add("main" if "main" in cls else "secondary")
        prev = nxt
    return (0 if classes == {"main"} else 1), ""


def _road_step_refused(p: MarengoPosition, q: MarengoPosition, b: Block, prev: str, nxt: str, opts: Options) -> str:
    """Why the road move may not cross from `prev` into `nxt` in position `q` ("" if it may)."""
    side, key = b.side, f"{prev}>{nxt}"
    if nxt in q.turn.no_road_entry:
        return f"area {nxt} was captured by assault this turn: no road move may enter it (§8.3)"
    if crossing_forbidden(q, prev, nxt) or (prev in p.board.areas and not can_cross(q, prev, nxt, opts)):
        return f"the crossing {prev}|{nxt} is impassable or forbidden (§3.3, §8.3)"
    box_ = protected_entry(q, nxt, side)
    if box_:
        return f"area {nxt} is the entry of box {box_}, which still holds enemy blocks (§5.6)"
    if q.occupant(nxt) == other(side):
        if b.type != "cavalry" or prev not in p.board.areas:
            return f"area {nxt} is enemy-occupied: only cavalry may thrust during a road move (§5.3)"
        if key in q.turn.road_thrusts:
            return f"crossing {prev}|{nxt} has already carried a road-move thrust this turn (§5.3, §11.24)"
    elif not capacity_ok(q, nxt, side, 1):
        return f"area {nxt} has capacity {p.board.areas[nxt].capacity} (§3.2)"
    return ""


def _road_thrust(q: MarengoPosition, b: Block, prev: str, nxt: str, step: int, crossings: dict,
                 opts: Options, push: Iterable[str], choices: Mapping[str, str] | None) -> Outcome:
    """§5.3 cavalry thrusting into an enemy area on its road (§8.1); the crossing counts as used either way."""
    key = f"{prev}>{nxt}"
    crossings[key] = (*crossings.get(key, ()), step)
    q = replace(q, turn=replace(q.turn, crossings=crossings, road_thrusts=q.turn.road_thrusts | {key}))
    q = _set(q, [replace(q.block(b.id), area=prev, box=None, approach=None)])
    return thrust(replace(q, commands=q.commands + 1), [b.id], nxt, opts, push=push, choices=choices,
                  road_move=True)


def road_move(p: MarengoPosition, block_id: str, path: list[str], opts: Options = DEFAULT,
              push: Iterable[str] = (), choices: Mapping[str, str] | None = None) -> Outcome:
    """§5.3 road move of 1 block along a road (3 steps, traffic limit); from a box it is the reinforcement entry
    (§5.6); cavalry may thrust into an enemy area on its road (§5.3, §8.1)."""
    blocks, reasons = _check_actors(p, [block_id], most=1)
    if reasons:
        return _no(*reasons)
    b = blocks[0]
    side = b.side
    if not path:
        return _no("a road move needs the areas it enters, in order")
    if len(path) > 3:
        return _no("a road move enters at most 3 areas (§5.3)")
    start, why = _road_start(p, b, opts)
    if why:
        return _no(why)
    cost, why = _road_cost(p, start, path)
    if why:
        return _no(why)
    if cost > p.commands:
        return _no(f"needs {cost} command, {p.commands} left (§5.1)")
    steps, why = plan_road_steps(p, start, path)
    if len(steps) < len(path):
        reach = path[len(steps) - 1] if steps else start
        return _no(why, f"the traffic limit lets {b.id} reach only {reach}")
    q, events, prev = p, [], start
    crossings = dict(p.turn.crossings)
    details: dict = {"steps": {}}
    final = prev
    for nxt, s in zip(path, steps, strict=True):
        why = _road_step_refused(p, q, b, prev, nxt, opts)
        if why:
            return _no(why)
        if q.occupant(nxt) == other(side):
            t = _road_thrust(q, b, prev, nxt, s, crossings, opts, push, choices)
            if not t.legal:
                return _no(*t.reasons)
            events += t.events
            q = replace(t.position, commands=q.commands)
            details["thrust"] = t.details
            if not t.details.get("success"):
                final = prev
                break
            final = nxt
            if choices and choices.get("advance"):
                break  # §5.5 advancing after a road-move thrust ends the road move
            prev = nxt
            continue
        key = f"{prev}>{nxt}"
        crossings[key] = (*crossings.get(key, ()), s)
        details["steps"][key] = s
        q = replace(q, turn=replace(q.turn, crossings=crossings))
        q = _set(q, [_leave(q.block(b.id), area=nxt, approach=None, box=None)])
        q = _occupy(q, nxt, side)
        final = nxt
        if side == "FR" and not q.block(b.id).ready and b.ready:
            events.append(f"{b.id} joined unready blocks in {nxt}: it is unready and its road move ends (§5.4)")
            break
        prev = nxt
    q = _pay(_set(q, _acted([q.block(b.id)])), cost)
    events.insert(0, f"road move{' (main road, free)' if cost == 0 else ''}: {b.id} {start} -> {final} "
                     f"(steps {', '.join(f'{k}@{v}' for k, v in details['steps'].items()) or '-'})")
    details["to"] = final
    return Outcome(True, cost, [], events, q, details)


def pontoon(p: MarengoPosition, block_id: str, opts: Options = DEFAULT) -> Outcome:
    """§5.6: 1 Austrian block per round over the pontoon into its entry area's reserve; no command (§11.23)."""
    blocks, reasons = _check_actors(p, [block_id], most=1)
    if reasons:
        return _no(*reasons)
    b = blocks[0]
    area = p.board.pontoon_area
    if b.side != "AU" or b.box is None:
        return _no("only an Austrian block in a box crosses the pontoon (§5.6)")
    if area is None:
        return _no("this board has no pontoon")
    if p.turn.pontoon_used:
        return _no("the pontoon has carried its 1 block this round (§5.6)")
    if b.type == "artillery" and p.round < 2:
        return _no("Austrian artillery enters from 7h (round 2) (§5.6)")
    if p.occupant(area) == "FR":
        return _no(f"area {area} is enemy-occupied (§11.23)")
    if not capacity_ok(p, area, "AU", 1):
        return _no(f"area {area} is full (§3.2)")
    nb = replace(b, box=None, area=area, approach=None, acted=opts.pontoon_is_action)
    q = _occupy(_set(p, [nb]), area, "AU")
    q = replace(q, turn=replace(q.turn, pontoon_used=True))
    return Outcome(True, 0, [], [f"{b.id} crosses the pontoon into {area} (free)"], q)


def rally(p: MarengoPosition, ids: list[str], opts: Options = DEFAULT) -> Outcome:
    """§5.4: French only, 1 command; readies 1 block (2 if France already has 3+ ready blocks in play);
    all or nothing per area; a rallied block may take one more action."""
    blocks = [p.block(i) for i in ids]
    if p.side != "FR" or any(b.side != "FR" for b in blocks):
        return _no("only the French rally, in their own turn (§5.4)")
    if any(b.ready or not b.on_map for b in blocks):
        return _no("only unready French blocks on the map are rallied (§5.4)")
    ready = [b for b in ready_blocks(p, "FR", opts.rally_ready_count == "map") if b.id not in ids]
    allowed = 2 if len(ready) >= 3 else 1
    if not 1 <= len(blocks) <= allowed:
        return _no(f"with {len(ready)} ready blocks in play one rally readies {allowed} block(s) (§5.4, §11.7)")
    if p.commands < 1:
        return _no("needs 1 command (§5.4)")
    q = _pay(_set(p, [replace(b, ready=True, rallied=True, acted=False) for b in blocks]), 1)
    # all or nothing per area: the rest of each area must be rallied this turn with the commands left
    left = {a: [b for b in q.in_area(a) if b.side == "FR" and not b.ready] for a in {b.area for b in blocks}}
    ready_after = len(ready) + len(blocks)
    need = sum(math.ceil(len(v) / (2 if ready_after >= 3 else 1)) for v in left.values())
    if need > q.commands:
        return _no(f"all blocks of an area must be rallied in the same turn: {need} more rallies needed, "
                   f"{q.commands} command(s) left (§5.4)")
    q = replace(q, turn=replace(q.turn, rally_areas=q.turn.rally_areas | set(left)))
    ev = [f"rally: {', '.join(ids)} ready"] + [f"area {a} still has unready {', '.join(b.id for b in v)}: "
                                               "rally them this turn (§5.4)" for a, v in left.items() if v]
    return Outcome(True, 1, [], ev, q, {"still_to_rally": {a: [b.id for b in v] for a, v in left.items() if v}})


def advance_cost(end_positions: Iterable[str]) -> int:
    """§5.5, §11.15: extra commands = distinct end positions of the blocks activated together - 1."""
    return max(0, len(set(end_positions)) - 1)


def cavalry_advance(p: MarengoPosition, group: list[str], moves: Mapping[str, str],
                    allowed: Iterable[str] | None = None) -> Outcome:
    """§5.5: cavalry of the finished action moves from reserve into an approach facing an enemy area.

    `moves` maps block -> neighbour area; `allowed` limits the approaches (road used, attacker's approach)."""
    allowed = None if allowed is None else set(allowed)
    new = []
    for bid, to in moves.items():
        b = p.block(bid)
        if bid not in group:
            return _no(f"{bid} did not take part in the action (§5.5)")
        if b.type != "cavalry":
            return _no(f"only cavalry advances; {bid} is {b.type} (§5.5)")
        if b.approach is not None:
            return _no(f"{bid} is already in an approach")
        if approach(p, b.area, to) is None or p.occupant(to) != other(b.side):
            return _no(f"{bid} may advance only into an approach facing an enemy area (§5.5)")
        if allowed is not None and approach_id(b.area, to) not in allowed:
            return _no(f"{bid} may advance only into {', '.join(sorted(allowed))} (§5.5)")
        if b.side == "FR" and p.round == 1:
            return _no("in round 1 the French cannot block any approach (§11.28)")
        new.append(replace(b, approach=to, revealed=False))
    ends = [moves.get(i, p.block(i).approach or "reserve") for i in group]
    extra = advance_cost(ends)
    if extra > p.commands:
        return _no(f"splitting the group costs {extra} more command(s), {p.commands} left (§5.5)")
    q = _pay(_set(p, new), extra)
    ev = [f"cavalry advance: {b.id} into {b.position} (shown briefly)" for b in new]
    return Outcome(True, extra, [], ev, q)


# ---------------------------------------------------------------- losses and morale (§8.6)


def share_losses(blocks: list[Block], n: int) -> dict[str, int]:
    """§11.22: losses spread by count, differing by at most 1; a destroyed block stops absorbing.
    Returns block -> losses taken; losses that find no strength are left out (ignored)."""
    taken = {b.id: 0 for b in blocks}
    left = {b.id: b.strength for b in blocks}
    for _ in range(n):
        alive = [b for b in blocks if left[b.id] > 0]
        if not alive:
            break
        pick = min(alive, key=lambda b: (taken[b.id], -left[b.id]))
        taken[pick.id] += 1
        left[pick.id] -= 1
    return {k: v for k, v in taken.items() if v}


def apply_losses(p: MarengoPosition, losses: Mapping[str, int]) -> tuple[MarengoPosition, list[str]]:
    """§2.1, E1: a loss swaps a block for the next-lower one of its type; at 0 it is removed."""
    events, new, gone = [], [], []
    for bid, n in losses.items():
        b = p.block(bid)
        s = b.strength - n
        if s <= 0:
            gone.append(bid)
            events.append(f"{bid} ({b.type} {b.strength}) destroyed")
        else:
            new.append(replace(b, strength=s))
            events.append(f"{bid} ({b.type} {b.strength}) -> {b.type} {s}: replaced, both shown (§2.1)")
    return _remove(_set(p, new), gone), events


def _demoralised(p: MarengoPosition, side: str, opts: Options) -> MarengoPosition:
    if p.winner is None and p.morale.level(side) <= 0:
        return replace(p, winner=other(side), victory="decisive")  # §9.2
    return p


def lose_discs(p: MarengoPosition, side: str, n: int, opts: Options = DEFAULT,
               from_areas: Iterable[str] = ()) -> tuple[MarengoPosition, list[str]]:
    """§8.6: discs lost from the pool first, then committed discs the opponent picks (default: area order)."""
    if n <= 0:
        return p, []
    pool = dict(p.morale.pool)
    committed = {a: dict(c) for a, c in p.morale.committed.items()}
    take = min(n, pool.get(side, 0))
    pool[side] = pool.get(side, 0) - take
    rest = n - take
    order = list(from_areas) + sorted(a for a in committed if a not in set(from_areas))
    for a in order:
        while rest and committed.get(a, {}).get(side, 0) > 0:
            committed[a][side] -= 1
            rest -= 1
    q = replace(p, morale=replace(p.morale, pool=pool, committed=committed))
    q = _demoralised(q, side, opts)
    ev = [f"{side} loses {n - rest} morale disc(s) (§8.6), morale {q.morale.level(side)}"]
    if q.winner and not p.winner:
        ev.append(f"{side} is demoralised: {q.winner} wins a decisive victory (§9.2)")
    return q, ev


def commit_discs(p: MarengoPosition, side: str, area: str, n: int, cover: bool = True
                 ) -> tuple[MarengoPosition, list[str]]:
    """§8.6: discs from the pool into an area; a shortfall the opponent may cover from other areas (default yes)."""
    if n <= 0:
        return p, []
    pool = dict(p.morale.pool)
    committed = {a: dict(c) for a, c in p.morale.committed.items()}
    take = min(n, pool.get(side, 0))
    pool[side] = pool.get(side, 0) - take
    committed.setdefault(area, {})
    committed[area][side] = committed[area].get(side, 0) + take
    moved = 0
    if cover:
        for a in sorted(committed):
            while a != area and take + moved < n and committed[a].get(side, 0) > 0:
                committed[a][side] -= 1
                committed[area][side] += 1
                moved += 1
    q = replace(p, morale=replace(p.morale, pool=pool, committed=committed))
    ev = [f"{side} commits {take + moved} disc(s) to area {area} (§8.6)" + (
        f", {moved} moved there from other areas by {other(side)}" if moved else "")]
    return q, ev


# ---------------------------------------------------------------- retreat (§8.4)


def _retreat_losses(p: MarengoPosition, area: str, blocks: list[Block], via_wide: bool, n_entering: int,
                    opts: Options, choices: Mapping[str, str]) -> tuple[list[str], dict[str, int], int, list[str]]:
    """§8.4 step 1, losses by position: (artillery destroyed, losses of the others, morale losses, events)."""
    events, destroyed, morale_losses = [], [], 0
    for b in blocks:
        if b.type == "artillery":  # §8.4 step 1.1
            destroyed.append(b.id)
            events.append(f"artillery {b.id} destroyed in the retreat (§8.4)")
            if opts.destroyed_artillery_counts:
                morale_losses += b.strength  # §11.3
    rest = [b for b in blocks if b.type != "artillery"]
    losses: dict[str, int] = {}
    for to in sorted({b.approach for b in rest if b.approach is not None}):
        here = [b for b in rest if b.approach == to]
        n = 1 if approach(p, area, to).width == "narrow" else 2  # §8.4 step 1.2
        losses.update(_chosen_share(choices, here, n))
    reserve_inf = [b for b in rest if b.approach is None and b.type == "infantry"]
    n = 2 if via_wide and n_entering > 1 else 1  # §8.4 step 1.3; cavalry in reserve never (1.4)
    losses.update(_chosen_share(choices, reserve_inf, n))
    return destroyed, losses, morale_losses + sum(losses.values()), events


def _retreat_destinations(p: MarengoPosition, q: MarengoPosition, b: Block, side: str, area: str,
                          attacker_area: str, opts: Options, choices: Mapping[str, str]) -> list[str]:
    """§8.4 step 2 where block `b` may retreat to, in the order tried: the player's pick, else every adjacent
    reserve not the attacker's nor the enemy's (and no protected entry, §11.25), along an arrow only if no other
    (§11.10)."""
    options_ = []
    for nb in p.board.neighbours(area):
        if nb == attacker_area or q.occupant(nb) == other(side) or not can_cross(q, area, nb, opts):
            continue
        if not opts.retreat_into_protected_entry and protected_entry(q, nb, side):
            continue  # §11.25
        options_.append(nb)
    free = [a for a in options_ if not _arrow_restricted(p, side, area, a)]
    pick = choices.get(f"retreat.{b.id}")
    allowed_ = free or options_  # §8.4 arrows: only if no other choice
    if pick is not None and pick not in allowed_:
        raise InputError(f"retreat.{b.id}={pick}: not a legal retreat (legal: {', '.join(allowed_) or 'none'})")
    return [pick] if pick else allowed_


def retreat(p: MarengoPosition, area: str, attacker_area: str, via_wide: bool, n_entering: int,
            opts: Options = DEFAULT, choices: Mapping[str, str] | None = None
            ) -> tuple[MarengoPosition, list[str], dict]:
    """§8.4: all the defender's blocks leave `area`: losses by position, then each to an adjacent reserve."""
    choices = choices or {}
    blocks = p.in_area(area)
    if not blocks:
        return p, [], {"losses": 0}
    side = blocks[0].side
    events = [f"{side} retreats from {area}: all its blocks there are revealed (§8.4)"]
    destroyed, losses, morale_losses, ev = _retreat_losses(p, area, blocks, via_wide, n_entering, opts, choices)
    events += ev
    q = _remove(p, destroyed)
    q, ev = apply_losses(q, losses)
    events += ev
    survivors = [b for b in q.in_area(area)]
    moved, killed = [], []
    for b in survivors:
        for dest in _retreat_destinations(p, q, b, side, area, attacker_area, opts, choices):
            if capacity_ok(q, dest, side, 1):
                q = _set(q, [_leave(q.block(b.id), area=dest, approach=None)])
                q = _occupy(q, dest, side)
                moved.append((b.id, dest))
                break
        else:
            killed.append(b.id)
    q = _remove(q, killed)
    for bid in killed:
        events.append(f"{bid} cannot retreat and is destroyed (§8.4)")
        if opts.no_retreat_destruction_counts:
            morale_losses += p.block(bid).strength  # §11.3 option
    events += [f"{bid} retreats to {dest}" for bid, dest in moved]
    q, ev = lose_discs(q, side, morale_losses, opts)  # §8.4 step 3
    events += ev
    if side == "AU" and moved:
        q, ev = commit_discs(q, "AU", area, len(moved))  # §8.4 step 3: Austrian breakout pressure
        events += ev
    return q, events, {"losses": losses, "morale_losses": morale_losses, "moved": dict(moved), "destroyed":
                       destroyed + killed}


def _arrow_restricted(p: MarengoPosition, side: str, frm: str, to: str) -> bool:
    """§8.4 east-west arrows (§11.10): Austrians may not retreat along an arrow, French not against it,
    unless they have no other choice."""
    if side == "AU":
        return (frm, to) in p.board.arrows
    return (to, frm) in p.board.arrows


def _chosen_share(choices: Mapping[str, str], blocks: list[Block], n: int) -> dict[str, int]:
    """The owner's loss sharing from choices `loss.<block>=N`, else even (§11.22); unabsorbed losses ignored."""
    given = {b.id: int(choices[f"loss.{b.id}"]) for b in blocks if f"loss.{b.id}" in choices}
    if not given:
        return share_losses(blocks, n)
    if sum(given.values()) > n:
        raise InputError(f"loss choices give {sum(given.values())} losses where {n} are due")
    return {k: min(v, next(b.strength for b in blocks if b.id == k)) for k, v in given.items() if v}


# ---------------------------------------------------------------- thrust (§8.1)


def thrust_result(width: str, defenders: int, thrusters: int, first: bool) -> str:
    """§8.1 decision table: "succeeds" or "stopped"."""
    if width == "narrow":
        return "stopped" if defenders >= 1 else "succeeds"
    if defenders >= 2:
        return "stopped"
    if defenders == 1 and thrusters == 1 and first:
        return "stopped"
    return "succeeds"


def _thrust_refused(p: MarengoPosition, blocks: list[Block], target: str, opts: Options) -> str:
    """§8.1 why a thrust into `target` may not be declared ("" if it may)."""
    b0 = blocks[0]
    side, here = b0.side, b0.area
    if not b0.on_map:
        return "a thrust starts on the map"
    if b0.approach is not None and b0.approach != target:
        return f"from approach {b0.position} a thrust goes only into area {b0.approach} (§8.1)"
    if not p.board.adjacent(here, target):
        return f"areas {here} and {target} are not adjacent (§3.2)"
    if p.occupant(target) != other(side):
        return f"area {target} is not enemy-occupied (§8.1)"
    unready = [b.id for b in blocks if not b.ready]
    if unready:
        return f"unready block(s) {', '.join(unready)} may not attack (§5.4)"
    dap = approach(p, target, here)
    if not can_cross(p, here, target, opts):
        return f"the border {here}|{target} is impassable (§3.3)"
    if dap.id in p.turn.forbidden:
        return f"approach {dap.id} is forbidden after a lost assault (§8.3)"
    box = protected_entry(p, target, side)
    if box:
        return f"area {target} is the entry of box {box}, which still holds enemy blocks (§5.6)"
    if dap.cav_obstacle and not any(b.type == "infantry" for b in blocks):
        return f"approach {dap.id} is a cavalry obstacle: infantry must take part (§8.1)"
    if blocking(p, target, here) == "full":
        return f"approach {dap.id} is fully blocked: no thrust may be declared (§8.1)"
    if not capacity_ok(p, target, side, len(blocks)):
        return f"area {target} has capacity {p.board.areas[target].capacity} (§3.2)"
    return ""


def _push_refused(p: MarengoPosition, blocks: list[Block], target: str, push: list[str]) -> str:
    """§8.1 step 2 why the defender may not push these blocks into the approach ("" if it may)."""
    b0 = blocks[0]
    if b0.approach is not None:
        return "a thrust from an approach allows no push-in (§8.1)"
    if len(push) > len(blocks):
        return f"the defender may push at most {len(blocks)} block(s) (§8.1)"
    if other(b0.side) == "FR" and p.round == 1:
        return "in round 1 the French cannot block any approach (§5.4)"
    for bid in push:
        d = p.block(bid)
        if d.area != target or d.approach is not None:
            return f"{bid} is not in the reserve of {target}"
    return ""


def _thrust_stopped(p: MarengoPosition, q: MarengoPosition, blocks: list[Block], ids: list[str], target: str,
                    dap: Approach, first: bool, into_approach: bool) -> tuple[MarengoPosition, list[str], dict]:
    """§8.1 steps 4-5 a stopped thrust: the defender commits discs; the thrusters stay, or (from a reserve, on
    request) move into the attacker's approach."""
    b0 = blocks[0]
    side, here = b0.side, b0.area
    n_discs = 2 if dap.width == "wide" and len(blocks) >= 2 and first else 1  # §8.1 step 5
    q, events = commit_discs(q, other(side), target, n_discs)
    stay = {}
    if b0.approach is None and into_approach:
        stay = {"approach": target}
        if side == "FR" and p.round == 1:
            stay = {}
    q = _set(q, [_leave(q.block(i), acted=True, rallied=False, **stay) for i in ids])
    if stay:
        events.append(f"the thrusters move into the attacker's approach {here}>{target} (§8.1 step 4)")
    return q, events, {"discs_committed": n_discs}


def thrust(p: MarengoPosition, ids: list[str], target: str, opts: Options = DEFAULT, push: Iterable[str] = (),
           into_approach: bool = False, choices: Mapping[str, str] | None = None, road_move: bool = False) -> Outcome:
    """§8.1: into an adjacent enemy area across an unblocked or partially blocked approach."""
    choices = choices or {}
    blocks, reasons = _check_actors(p, ids)
    if reasons and not (road_move and all("already taken part" in r for r in reasons)):
        return _no(*reasons)
    why = _thrust_refused(p, blocks, target, opts)
    if why:
        return _no(why)
    b0 = blocks[0]
    side, here = b0.side, b0.area
    dap = approach(p, target, here)
    cost = 0 if road_move else 1
    if cost > p.commands:
        return _no("needs 1 command (§5.1)")
    push = list(push)
    why = _push_refused(p, blocks, target, push) if push else ""
    if why:
        return _no(why)
    q = _set(p, [replace(p.block(i), approach=here) for i in push])
    first = p.turn.thrusts.get(dap.id, 0) == 0
    d_n = len(q.at(target, here))
    result = thrust_result(dap.width, d_n, len(blocks), first)
    thrusts = {**q.turn.thrusts, dap.id: q.turn.thrusts.get(dap.id, 0) + 1}
    q = _pay(replace(q, turn=replace(q.turn, thrusts=thrusts)), cost)
    events = [f"thrust by {', '.join(ids)} from {b0.position} into {target} across {dap.id} ({dap.width}); "
              f"defender pushed {len(push)}, {d_n} in the approach, {'first' if first else 'not first'} thrust: "
              f"{result} (§8.1)"]
    if dap.cav_obstacle:
        events.append("one thrusting infantry block is shown (cavalry obstacle, §8.1)")
    details = {"success": result == "succeeds", "defender_approach": dap.id, "defenders_in_approach": d_n,
               "first": first, "pushed": push}
    if result == "succeeds":
        q, ev, rd = retreat(q, target, here, dap.width == "wide", len(blocks), opts, choices)
        events += ev
        details["retreat"] = rd
        q = _set(q, [_leave(q.block(i), area=target, approach=None, acted=True, rallied=False) for i in ids])
        q = _occupy(q, target, side)
    else:
        q, ev, more = _thrust_stopped(p, q, blocks, ids, target, dap, first, into_approach)
        events += ev
        details.update(more)
    return Outcome(True, cost, [], events, q, details)


# ---------------------------------------------------------------- bombardment (§8.2)


def announce_bombardment(p: MarengoPosition, art_id: str, opts: Options = DEFAULT) -> Outcome:
    """§8.2: artillery in an approach names the opposite area and is revealed; free, an action."""
    blocks, reasons = _check_actors(p, [art_id], most=1)
    if reasons:
        return _no(*reasons)
    a = blocks[0]
    if a.type != "artillery":
        return _no(f"{art_id} is {a.type}: only artillery bombards (§8.2)")
    if a.approach is None:
        return _no("artillery bombards only from an approach (§8.2)")
    if not a.ready:
        return _no("unready blocks may not attack (§5.4)")
    if a.bombard == "announced":
        return _no("a bombardment is already announced")
    if a.bombard == "executed" and a.bombard_round == p.round and opts.bombardment_cadence == "strict":
        return _no("strict cadence: it executed this turn (§11.4)")
    if approach(p, a.approach, a.area).art_penalty:
        return _no(f"approach {a.approach}>{a.area} opposite the artillery has an artillery penalty (§8.2)")
    q = _set(p, [replace(a, bombard="announced", bombard_round=p.round, revealed=True, acted=True)])
    return Outcome(True, 0, [], [f"{art_id} announces a bombardment of area {a.approach}: revealed (§8.2)"], q)


def execute_bombardment(p: MarengoPosition, art_id: str, target_block: str | None = None,
                        opts: Options = DEFAULT) -> Outcome:
    """§8.2: the owner's next turn; the defender picks 1 block by priority (opposite approach, reserve, any)."""
    a = p.block(art_id)
    if a.side != p.side:
        return _no(f"{art_id} is not {p.side}'s")
    if a.bombard != "announced":
        return _no(f"{art_id} has no announced bombardment (§8.2)")
    if a.bombard_round != p.round - 1:
        return _no("a bombardment is executed in the owner's next turn (§8.2, §11.4)")
    if a.acted and opts.bombardment_cadence == "strict":
        return _no(f"{art_id} has already acted this turn (§11.4)")
    area = a.approach
    defenders = [b for b in p.in_area(area) if b.side != a.side]
    q = p
    events = [f"{art_id} fires on area {area} (§8.2)"]
    if defenders:
        tiers = [[b for b in defenders if b.approach == a.area], [b for b in defenders if b.approach is None],
                 defenders]
        tier = next(t for t in tiers if t)
        if target_block is None:
            target = max(tier, key=lambda b: (b.strength, b.id))
            events.append(f"default defender choice: {target.id}")
        else:
            target = p.block(target_block)
            if target not in tier:
                return _no(f"the defender must pick from {', '.join(b.id for b in tier)} first (§8.2 priority)")
        q, ev = apply_losses(q, {target.id: 1})
        events += ev
        q, ev = lose_discs(q, target.side, 1, opts)  # §8.6
        events += ev
    else:
        events.append("no enemy block in the target area: no effect")
    q = _set(q, [replace(q.block(art_id), bombard="executed", bombard_round=p.round, acted=True)])
    return Outcome(True, 0, [], events, q)


# ---------------------------------------------------------------- assault (§8.3)


def assault_outcome(att_lead: list[tuple[str, int]], def_lead: list[tuple[str, int]],
                    counter: list[tuple[str, int]], inf_penalty: int = 0, cav_penalty: int = 0) -> dict:
    """§8.3 steps 6-7, the fixed formulas, on (type, strength) after the step-4/5 losses.

    result = attacker lead - penalties matching its type - defender lead - surviving counter-attackers;
    losses: each side 1 per opposing lead block; attacker +1 per surviving counter-attacking cavalry;
    a beaten attacker with |result| >= its lead strength +1 (lead of 1) or +2 (lead of 2)."""
    lead_type = att_lead[0][0]
    a = sum(s for _, s in att_lead)
    pen = inf_penalty if lead_type == "infantry" else cav_penalty if lead_type == "cavalry" else 0
    alive = [(t, s) for t, s in counter if s > 0]
    result = a - pen - sum(s for _, s in def_lead) - sum(s for _, s in alive)
    attacker_wins = result > 0
    att_losses = len(def_lead) + sum(1 for t, _ in alive if t == "cavalry")
    extra = len(att_lead) if not attacker_wins and abs(result) >= a else 0
    return {"result": result, "attacker_wins": attacker_wins, "penalty": pen, "attacker_losses": att_losses + extra,
            "extra_losses": extra, "defender_losses": len(att_lead)}


def _lead_ok(blocks: list[Block], width: str, who: str, obstacle: bool, attacker: bool) -> str | None:
    if not blocks:
        return None
    most = 1 if width == "narrow" else 2
    if len(blocks) > most:
        return f"{who}: at most {most} block(s) across a {width} approach (§8.3)"
    if len({b.type for b in blocks}) > 1:
        return f"{who}: 2 blocks must be of the same type (§8.3)"
    if obstacle and any(b.type == "cavalry" for b in blocks):
        return f"{who}: no cavalry across a cavalry obstacle (§8.3)"
    if attacker and any(b.strength < 2 for b in blocks):
        return f"{who}: no strength-1 blocks (§8.3)"
    return None


def _assault_refused(p: MarengoPosition, blocks: list[Block], att_area: str, toward: str) -> str:
    """§8.3 steps 1-2 why no assault may be declared from `att_area`'s approach toward `toward` ("" if it may)."""
    side = p.side
    aap, dap = approach(p, att_area, toward), approach(p, toward, att_area)
    if aap is None:
        return f"areas {att_area} and {toward} are not adjacent"
    if any(b.area != att_area or b.approach != toward for b in blocks):
        return f"attacking blocks must stand in approach {aap.id} (§8.3)"
    if blocking(p, toward, att_area) == "none" or p.occupant(toward) != other(side):
        return f"approach {dap.id} is not blocked by the enemy: thrust instead (§8.3)"
    if dap.id in p.turn.forbidden:
        return f"approach {dap.id} is forbidden after a lost assault this turn (§8.3)"
    box = protected_entry(p, toward, side)
    if box:
        return f"area {toward} is the entry of box {box}, which still holds enemy blocks (§5.6)"
    if any(not b.ready for b in blocks):
        return "unready blocks may not attack (§5.4)"
    if not capacity_ok(p, toward, side, len(blocks)):
        return f"area {toward} has capacity {p.board.areas[toward].capacity} (§3.2)"
    if p.commands < 1:
        return "needs 1 command (§5.1)"
    return ""


def _leads_refused(aap: Approach, dap: Approach, defending: list[Block], attackers: list[str], al: list[Block],
                   dl: list[Block], ca: list[Block], opts: Options) -> str:
    """§8.3 step 3 why these leads and counter-attackers may not fight ("" if they may)."""
    if any(b not in defending for b in dl + ca):
        return f"the defender's lead and counter-attackers must stand in {dap.id} (§8.3)"
    if any(b.id not in attackers for b in al) or not al:
        return "the attacker's lead is 1 or 2 of the attacking blocks (§8.3)"
    if {b.id for b in dl} & {b.id for b in ca}:
        return "lead blocks cannot counter-attack (§8.3)"
    if not opts.unready_may_defend and any(not b.ready for b in dl + ca):
        return "unready blocks may not defend actively (§11.20 option)"
    wa = aap.width if opts.lead_width == "own" else dap.width  # §11.5
    wd = dap.width
    for err in (_lead_ok(dl, wd, "defender's lead", dap.cav_obstacle, False),
                _lead_ok(al, wa, "attacker's lead", dap.cav_obstacle, True),
                _lead_ok(ca, wd, "counter-attack", dap.cav_obstacle, True)):
        if err:
            return err
    if aap.width == "narrow" and len(al) != 1 and opts.lead_width == "own":
        return "attacker's lead across a narrow approach: exactly 1 block (§8.3)"
    return ""


def _defensive_fires(p: MarengoPosition, aap: Approach, defending: list[Block], def_lead: list[str],
                     defensive_fire: bool | None, opts: Options) -> tuple[int, str]:
    """§8.3 step 4 how many times the defender's artillery in the approach (not in its lead, not bombarding
    since its last turn) fires: (fires, why the requested fire is refused)."""
    prev_def_round = p.round - 1 if other(p.side) == "FR" else p.round
    eligible = [b for b in defending if b.type == "artillery" and b.id not in def_lead
                and not (b.bombard and b.bombard_round == prev_def_round)]
    if eligible and not aap.art_penalty:
        if defensive_fire is False:
            return 0, ""
        return (1 if opts.defensive_fire == "once" else len(eligible)), ""
    if defensive_fire:
        return 0, ("no defensive fire: no eligible artillery, or the attacker's approach has an artillery penalty "
                   "(§8.3 step 4)")
    return 0, ""


def _spread_assault_losses(q: MarengoPosition, lead_ids: list[str], others: list[Block], n: int,
                           choices: Mapping[str, str]) -> dict[str, int]:
    """§8.3 step 8 the owner's sharing from choices `loss.<block>=N`, else the lead first, then the other
    attacking/defending blocks; the rest are ignored."""
    lead_alive = [q.block(i) for i in lead_ids if i in q.blocks_by_id]
    given = {b.id: int(choices[f"loss.{b.id}"]) for b in lead_alive + others if f"loss.{b.id}" in choices}
    if given:
        return given
    taken = share_losses(lead_alive, n)
    rest = n - sum(taken.values())
    if rest:
        more = share_losses([b for b in others if b.id not in taken], rest)
        taken.update(more)
    return taken


def _assault_won(q: MarengoPosition, side: str, att_area: str, toward: str, dap: Approach, attackers: list[str],
                 taken_def: int, opts: Options, choices: Mapping[str, str]) -> tuple[MarengoPosition, list[str], dict]:
    """§8.3 steps 9-10 the attacker wins: the defender loses discs and retreats; the attackers take the area,
    which no road move may enter this turn."""
    q, events = lose_discs(q, other(side), taken_def, opts)  # §8.3 step 10 loser
    q, ev, rd = retreat(q, toward, att_area, dap.width == "wide", len([i for i in attackers
                                                                    if i in q.blocks_by_id]), opts, choices)
    events += ev
    movers = [i for i in attackers if i in q.blocks_by_id]
    q = _set(q, [_leave(q.block(i), area=toward, approach=None, acted=True, rallied=False) for i in movers])
    q = _occupy(q, toward, side)
    q = replace(q, turn=replace(q.turn, no_road_entry=q.turn.no_road_entry | {toward}))
    events.append(f"the attackers take {toward}; no road move may enter it this turn (§8.3 step 9)")
    return q, events, {"retreat": rd}


def _assault_lost(q: MarengoPosition, side: str, toward: str, dap: Approach, attackers: list[str], dl: list[Block],
                  ca: list[Block], taken_att: int, opts: Options) -> tuple[MarengoPosition, list[str], dict]:
    """§8.3 steps 9-10 the defender wins: the attacker loses discs, the defender commits one per active block;
    the attackers stay and the approach is forbidden for the rest of the turn."""
    q, events = lose_discs(q, side, taken_att, opts)
    n_commit = len(dl) + len(ca)
    if not opts.commit_counts_destroyed:
        n_commit = sum(1 for b in dl + ca if b.id in q.blocks_by_id)
    q, ev = commit_discs(q, other(side), toward, n_commit)
    events += ev
    q = replace(q, turn=replace(q.turn, forbidden=q.turn.forbidden | {dap.id}))
    q = _set(q, [replace(q.block(i), acted=True, rallied=False) for i in attackers if i in q.blocks_by_id])
    events.append(f"the blocks stay; approach {dap.id} is forbidden for the rest of the turn (§8.3 step 9)")
    return q, events, {"discs_committed": n_commit}


def assault(p: MarengoPosition, att_area: str, toward: str, attackers: list[str], att_lead: list[str],
            def_lead: Iterable[str] = (), defensive_fire: bool | None = None, fire_target: str | None = None,
            counter: Iterable[str] = (), opts: Options = DEFAULT, choices: Mapping[str, str] | None = None
            ) -> Outcome:
    """§8.3 steps 1-10: from the attacker's approach against the blocked opposite approach."""
    choices = choices or {}
    def_lead, counter = list(def_lead), list(counter)
    blocks, reasons = _check_actors(p, attackers)
    if reasons:
        return _no(*reasons)
    why = _assault_refused(p, blocks, att_area, toward)
    if why:
        return _no(why)
    aap, dap = approach(p, att_area, toward), approach(p, toward, att_area)
    defending = p.at(toward, att_area)
    dl = [p.block(i) for i in def_lead]
    al = [p.block(i) for i in att_lead]
    ca = [p.block(i) for i in counter]
    why = _leads_refused(aap, dap, defending, attackers, al, dl, ca, opts)
    if why:
        return _no(why)
    events = [f"assault from {aap.id} on {dap.id}: attackers {', '.join(attackers)}, lead {', '.join(att_lead)}; "
              f"defender's lead {', '.join(def_lead) or 'none'} (revealed)"]
    q = _pay(p, 1)
    before = {b.id: b.strength for b in dl + al + ca}
    fires, why = _defensive_fires(p, aap, defending, def_lead, defensive_fire, opts)  # step 4
    if why:
        return _no(why)
    pending = {"att": {}, "def": {}}  # losses taken before the result: morale only for the loser
    for _ in range(fires):
        tgt = q.block(fire_target) if fire_target else max((q.block(i) for i in att_lead), key=lambda b: b.strength)
        if tgt.id not in att_lead:
            return _no("defensive fire hits a block of the attacker's lead (§8.3 step 4)")
        q, ev = apply_losses(q, {tgt.id: 1})
        events += ["defensive artillery fire (artillery shown): " + e for e in ev]
        pending["att"][tgt.id] = pending["att"].get(tgt.id, 0) + 1
    # step 5: counter-attack
    if ca:
        share = share_losses([q.block(i) for i in counter], len(al))
        q, ev = apply_losses(q, share)
        events += ["counter-attack: " + e for e in ev]
        pending["def"] = dict(share)
    now = {i: (q.blocks_by_id[i].strength if i in q.blocks_by_id else 0) for i in before}
    use = now if opts.assault_strengths == "after" else before  # §11.9
    out = assault_outcome([(p.block(i).type, use[i]) for i in att_lead], [(p.block(i).type, use[i]) for i in def_lead],
                          [(p.block(i).type, now[i] if opts.assault_strengths == "after" else before[i])
                           for i in counter], dap.inf_penalty, dap.cav_penalty)
    events.append(f"result {out['result']} (penalty {out['penalty']}): "
                  f"{'attacker' if out['attacker_wins'] else 'defender'} wins (§8.3 step 6)")
    # step 8: sharing out
    att_others = [q.block(i) for i in attackers if i not in att_lead and i in q.blocks_by_id]
    def_others = [b for b in q.at(toward, att_area) if b.id not in def_lead]
    la = _spread_assault_losses(q, att_lead, att_others, out["attacker_losses"], choices)
    ld = _spread_assault_losses(q, def_lead, def_others, out["defender_losses"], choices)
    q, ev = apply_losses(q, {**la, **ld})
    events += ev
    taken_att = sum(la.values()) + sum(pending["att"].values())
    taken_def = sum(ld.values()) + sum(pending["def"].values())
    details = {**out, "attacker_losses_taken": taken_att, "defender_losses_taken": taken_def, "fires": fires}
    if out["attacker_wins"]:
        q, ev, more = _assault_won(q, p.side, att_area, toward, dap, attackers, taken_def, opts, choices)
    else:
        q, ev, more = _assault_lost(q, p.side, toward, dap, attackers, dl, ca, taken_att, opts)
    events += ev
    details.update(more)
    q = _set(q, [replace(b, revealed=False) for b in q.blocks if b.revealed and b.bombard != "announced"])
    return Outcome(True, 1, [], events, q, details)


# ---------------------------------------------------------------- the turn (§4) and victory (§9.2)


def start_turn(p: MarengoPosition, opts: Options = DEFAULT) -> Outcome:
    """§4 phases 1-2: receive discs from the track; push back approach blocks facing no enemy (R16)."""
    side = p.side
    events = []
    track = {r: dict(c) for r, c in p.morale.track.items()}
    got = track.get(p.round, {}).pop(side, 0)
    pool = dict(p.morale.pool)
    pool[side] = pool.get(side, 0) + got
    q = replace(p, morale=replace(p.morale, pool=pool, track=track), phase=3, commands=COMMANDS, turn=Turn())
    if got:
        events.append(f"{side} receives {got} morale disc(s) (§4 phase 1)")
    new = []
    for b in q.blocks:
        nb = replace(b, acted=False, rallied=False, began_in_reserve=b.approach is None)
        if b.side == side and b.approach is not None and q.occupant(b.approach) != other(side):
            nb = _leave(nb, approach=None)
            events.append(f"{b.id} pushed back to the reserve of {b.area} (§4 phase 2)")
        new.append(nb)
    q = q.with_blocks(new)
    if not opts.demoralise_on_fall_only and q.morale.level(side) <= 0:  # §11.16 alternative: any 0 counts
        q = _demoralised(q, side, opts)
        events.append(f"{side} has morale 0: {q.winner} wins a decisive victory (§9.2, §11.16 option)")
    return Outcome(True, 0, [], events, q)


def end_turn(p: MarengoPosition, opts: Options = DEFAULT, return_disc: str | None = None) -> Outcome:
    """§4 phase 4 (§8.6 check of committed discs), then the other side's turn; after round 16: victory."""
    side = p.side
    events = []
    committed = {a: dict(c) for a, c in p.morale.committed.items()}
    pool = dict(p.morale.pool)
    lost = 0
    for a, c in committed.items():
        n = c.get(side, 0)
        if not n:
            continue
        occ = p.occupant(a)
        if occ == other(side) or (occ is None and p.last_occupant.get(a) == other(side)):
            c[side] = 0  # step 1
            lost += n
            events.append(f"{side} loses {n} disc(s) committed in {a} (§8.6 step 1)")
        elif all(p.occupant(nb) != other(side) for nb in p.board.neighbours(a)):
            c[side] = 0  # step 2
            pool[side] = pool.get(side, 0) + n
            events.append(f"{side}'s {n} disc(s) in {a} return to the pool (§8.6 step 2)")
    if return_disc is not None:
        if side != "FR" or p.round > opts.disc_return_last_round:
            return _no("only France, before 16h, returns a committed disc (§8.6 step 3, §11.1)")
        if committed.get(return_disc, {}).get("FR", 0) < 1:
            return _no(f"no French disc committed in {return_disc}")
        committed[return_disc]["FR"] -= 1
        pool["FR"] = pool.get("FR", 0) + 1
        events.append(f"France returns 1 disc from {return_disc} to the pool (§8.6 step 3)")
    q = replace(p, morale=replace(p.morale, pool=pool, committed=committed), phase=4)
    if lost:
        q = _demoralised(q, side, opts)
    q = _set(q, [replace(b, revealed=False) for b in q.blocks if b.revealed and b.bombard == "executed"
                 and b.side == side])
    if side == "AU":
        q = replace(q, side="FR", phase=1)
    elif p.round < ROUNDS:
        q = replace(q, side="AU", phase=1, round=p.round + 1)
    else:
        q = final_victory(q)
        events.append(f"game over after 9h: {q.winner} wins a {q.victory} victory (§9.2)")
    return Outcome(True, 0, [], events, q)


def final_victory(p: MarengoPosition) -> MarengoPosition:
    """§9.2: Austria wins narrowly with 3+ blocks beyond the objective line, else France."""
    if p.winner:
        return p
    beyond = sum(1 for b in p.blocks if b.side == "AU" and b.on_map and p.board.areas[b.area].beyond_objective)
    return replace(p, winner="AU" if beyond >= 3 else "FR", victory="marginal")
