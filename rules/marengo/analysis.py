"""What the board says about two areas or two blocks: adjacency, approaches, roads, legal actions and costs."""

from __future__ import annotations

from dataclasses import asdict

from rules.marengo import engine
from rules.marengo.model import MarengoPosition, other
from rules.marengo.options import DEFAULT, Options


def road_paths(p: MarengoPosition, a: str, b: str, most: int = 3) -> list[list[str]]:
    """Road paths from a to b crossing at most `most` approaches (§5.3), shortest first."""
    graph = p.board.road_graph()
    out, todo = [], [[a]]
    while todo:
        path = todo.pop(0)
        if path[-1] == b and len(path) > 1:
            out.append(path[1:])
            continue
        if len(path) > most:
            continue
        for nxt, _ in graph.get(path[-1], []):
            if nxt not in path and nxt in p.board.areas:
                todo.append(path + [nxt])
    return out


def _approach_info(p: MarengoPosition, area: str, to: str) -> dict:
    ap = p.board.approach(area, to)
    d = asdict(ap)
    d["blocked"] = engine.blocking(p, area, to)
    d["blocks"] = [x.id for x in p.at(area, to)]
    d["forbidden"] = ap.id in p.turn.forbidden
    return d


def analyze_areas(p: MarengoPosition, a: str, b: str, opts: Options = DEFAULT) -> dict:
    """§3: adjacency and approaches, road connection, and what the side to move may do from a toward b."""
    board = p.board
    board.area(a)
    board.area(b)
    out: dict = {"from": a, "to": b, "adjacent": board.adjacent(a, b), "connections": board.connected(a, b),
                 "occupant": {a: p.occupant(a), b: p.occupant(b)}}
    if board.adjacent(a, b):
        out["approaches"] = {"attacker": _approach_info(p, a, b), "defender": _approach_info(p, b, a)}
        out["passable"] = engine.can_cross(p, a, b, opts)
    out["roads"] = [{"road": r.id, "class": r.road_class} for r in board.roads_between(a, b)]
    paths = road_paths(p, a, b)
    out["road_paths"] = [{"path": path, "free": _all_main(p, a, path)} for path in paths]
    out["actions"] = legal_actions(p, a, b, opts)
    return out


def _all_main(p: MarengoPosition, a: str, path: list[str]) -> bool:
    prev = a
    for nxt in path:
        if "main" not in engine._crossing_road_classes(p, prev, nxt):
            return False
        prev = nxt
    return True


def legal_actions(p: MarengoPosition, a: str, b: str, opts: Options = DEFAULT, only: list[str] | None = None
                  ) -> list[dict]:
    """Every action of the side to move by blocks in area a toward area b, tried on the engine: legal or why not."""
    side = p.side
    mine = [x for x in p.in_area(a) if x.side == side and (only is None or x.id in only)]
    res = []

    def add(kind: str, ids: list[str], out: engine.Outcome, **extra) -> None:
        res.append({"action": kind, "blocks": ids, "legal": out.legal, "cost": out.cost if out.legal else None,
                    "reasons": out.reasons, **({"events": out.events} if out.legal else {}), **extra})

    reserve = [x.id for x in mine if x.approach is None]
    in_app = [x.id for x in mine if x.approach == b]
    enemy = p.occupant(b) == other(side)
    if reserve:
        group = reserve[:3]
        if not enemy:
            add("standard_move", group, engine.standard_move(p, group, b, None, opts))
            for path in road_paths(p, a, b):
                for bid in reserve:
                    add("road_move", [bid], engine.road_move(p, bid, path, opts), path=path)
        else:
            add("defensive_move", group[:1], engine.standard_move(p, group[:1], a, b, opts))
            add("thrust", group, engine.thrust(p, group, b, opts), note="if the defender pushes no block in")
            if p.board.approach(a, b) and p.board.approach(a, b).width == "wide" and len(p.in_area(b)) > 0:
                add("thrust_against_push", group, engine.thrust(p, group, b, opts, push=[
                    x.id for x in p.at(b, None)][: len(group)]), note="if the defender pushes as many as it may")
    if in_app:
        group = in_app[:3]
        if enemy:
            add("thrust", group, engine.thrust(p, group, b, opts))
            arts = [x.id for x in mine if x.approach == b and x.type == "artillery"]
            for art in arts:
                add("announce_bombardment", [art], engine.announce_bombardment(p, art, opts))
            lead = [x.id for x in mine if x.approach == b and x.strength >= 2][:1]
            if lead and engine.blocking(p, b, a) != "none":
                add("assault", group, engine.assault(p, a, b, group, lead, opts=opts),
                    note=f"lead {lead[0]}, no defender lead, no fire, no counter-attack")
        add("standard_move_to_reserve", group, engine.standard_move(p, group, a, None, opts))
    if side == "FR":
        unready = [x.id for x in mine if not x.ready]
        if unready:
            add("rally", unready[:1], engine.rally(p, unready[:1], opts))
    return res


def analyze_blocks(p: MarengoPosition, x: str, y: str, opts: Options = DEFAULT) -> dict:
    """Two blocks: their areas and positions, the areas' relation, and x's legal actions toward y's area."""
    bx, by = p.block(x), p.block(y)
    out = {"blocks": {x: _block_view(bx), y: _block_view(by)}}
    if bx.on_map and by.on_map and bx.area != by.area:
        out.update(analyze_areas(p, bx.area, by.area, opts))
        out["actions"] = legal_actions(p, bx.area, by.area, opts, only=[x])
    elif bx.box and by.on_map:
        out["road_paths"] = [path for path in road_paths(p, bx.box, by.area)]
        out["actions"] = [{"action": "road_move", "blocks": [x], "path": path,
                           **engine.road_move(p, x, path, opts).to_json()} for path in out["road_paths"]]
    return out


def _block_view(b) -> dict:
    return {"side": b.side, "type": b.type, "strength": b.strength, "position": b.position, "area": b.area,
            "ready": b.ready, "acted": b.acted}
