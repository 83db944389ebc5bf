"""`fieldglass analyze` and `fieldglass resolve` for Marengo positions (handed over by fieldglass.commands.systems).

analyze --from X --to Y: X and Y are areas or blocks: adjacency and approaches, road connection, legal actions and
their command cost. resolve --action thrust|bombard|assault|move|road|rally|pontoon|advance|start_turn|end_turn
--attacker ID[,ID] [--supporters ID,ID] [--target AREA|BLOCK] [--choice KEY=VALUE ...] [--out FILE]:

  choices: push=ID,ID (defender's push-in)  into_approach=yes (stopped thrust)  path=A,B,C (road move)
           approach=AREA (move into an approach)  phase=announce|execute  hit=ID (bombarded block)
           lead=ID[,ID]  def_lead=ID[,ID]  fire=yes|no  fire_target=ID  counter=ID[,ID]  (assault)
           retreat.ID=AREA  loss.ID=N  advance=ID:AREA[,ID:AREA]  return_disc=AREA (end_turn)
"""

from __future__ import annotations

from collections.abc import Callable

from common import jsonout
from common.choices import choices as parse_choices
from common.choices import split_ids
from common.errors import InputError
from rules import position as positions
from rules.marengo import analysis, engine
from rules.marengo.model import MarengoPosition
from rules.marengo.options import load_options


def _load(args) -> MarengoPosition:
    pos = positions.load(args.position)
    if not isinstance(pos, MarengoPosition):
        raise InputError(f"{args.position}: not a Marengo position")
    return pos




def _yes(v: str | None) -> bool | None:
    if v is None:
        return None
    if v.lower() in ("yes", "true", "1", "y"):
        return True
    if v.lower() in ("no", "false", "0", "n"):
        return False
    raise InputError(f"--choice: {v!r} is not yes or no")


def analyze(args) -> int:
    pos = _load(args)
    opts = load_options(getattr(args, "options", None))
    a, b = getattr(args, "from_id", None), getattr(args, "to_id", None)
    if not a or not b:
        raise InputError(f"{args.position}: Marengo analyze needs --from and --to (two areas or two blocks)")
    if a in pos.blocks_by_id and b in pos.blocks_by_id:
        out = analysis.analyze_blocks(pos, a, b, opts)
    elif a in pos.board.areas and b in pos.board.areas:
        out = analysis.analyze_areas(pos, a, b, opts)
    else:
        raise InputError(f"{args.position}: --from {a} and --to {b} must both be areas or both be blocks")
    if getattr(args, "json", False):
        print(jsonout.dumps(out))
    else:
        print(_text(out))
    return 0


def _text(out: dict) -> str:
    lines = []
    if "blocks" in out:
        for bid, v in out["blocks"].items():
            lines.append(f"{bid}: {v['side']} {v['type']} {v['strength']} at {v['position']} in {v['area']}")
    if "adjacent" in out:
        lines.append(f"areas {out['from']} -> {out['to']}: {'adjacent' if out['adjacent'] else 'not adjacent'}"
                     f" ({', '.join(out['connections']) or 'no connection'})")
        for role, ap in out.get("approaches", {}).items():
            attrs = [k for k in ("art_penalty", "cav_obstacle", "impassable") if ap[k]]
            attrs += [f"{k} {ap[k]}" for k in ("inf_penalty", "cav_penalty") if ap[k]]
            lines.append(f"  {role} approach {ap['id']}: {ap['width']}, {ap['blocked']} blocked"
                         f"{', ' + ', '.join(attrs) if attrs else ''}")
        for r in out.get("road_paths", []):
            lines.append(f"  road {' -> '.join(r['path'])}{' (main road, free)' if r['free'] else ''}")
    for act in out.get("actions", []):
        if act.get("legal"):
            lines.append(f"  {act['action']} {','.join(act['blocks'])}: legal, {act['cost']} command(s)")
        else:
            lines.append(f"  {act['action']} {','.join(act['blocks'])}: not legal - {'; '.join(act['reasons'])}")
    return "\n".join(lines)


def resolve(args) -> int:
    pos = _load(args)
    opts = load_options(getattr(args, "options", None))
    ch = parse_choices(args)
    ids = split_ids(args.attacker) + split_ids(getattr(args, "supporters", None))
    action = args.action
    target = getattr(args, "target", None)
    if target and target in pos.blocks_by_id:
        target = pos.block(target).area
    elif target and target not in pos.board.areas:
        raise InputError(f"--target {target!r}: neither a block nor an area of the board {pos.board.name!r}")
    if getattr(args, "dice", None):  # the game has no dice (README): a roll given would be silently ignored
        raise InputError("--dice: Marengo rolls no dice; its actions take choices (--choice KEY=VALUE)")
    handler = _ACTION_HANDLERS.get(action)
    if handler is None:
        raise InputError(f"--action {action!r}: Marengo knows {' '.join(_ACTION_HANDLERS)}")
    out = handler(pos, ids, target, ch, opts)
    if out.legal and getattr(args, "out", None):
        positions.save(out.position, args.out)
    if getattr(args, "json", False):
        print(jsonout.dumps(out.to_json()))
    else:
        print(f"{action}: {'legal' if out.legal else 'NOT LEGAL'}, {out.cost} command(s)")
        for line in out.events + out.reasons:
            print("  " + line)
    return 0 if out.legal else 1


# Each action's handler takes (position, acting block ids, target area or None, choices, options).


def _thrust(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    return engine.thrust(pos, ids, _need(target, "thrust"), opts, push=split_ids(ch.get("push")),
                         into_approach=bool(_yes(ch.get("into_approach"))), choices=ch)


def _bombard(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    """Announced first (--choice phase=announce, the default), executed on a later call (phase=execute)."""
    if ch.get("phase", "announce") == "announce":
        return engine.announce_bombardment(pos, ids[0], opts)
    return engine.execute_bombardment(pos, ids[0], ch.get("hit"), opts)


def _assault(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    b0 = pos.block(ids[0])
    if b0.approach is None:
        raise InputError(f"{ids[0]}: an assault starts from an approach (§8.3)")
    return engine.assault(pos, b0.area, b0.approach, ids, split_ids(ch.get("lead")) or ids[:1],
                          split_ids(ch.get("def_lead")), _yes(ch.get("fire")), ch.get("fire_target"),
                          split_ids(ch.get("counter")), opts, ch)


def _move(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    return engine.standard_move(pos, ids, _need(target, "move"), ch.get("approach"), opts)


def _road(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    return engine.road_move(pos, ids[0], split_ids(ch.get("path")) or [_need(target, "road")], opts,
                            push=split_ids(ch.get("push")), choices=ch)


def _rally(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    return engine.rally(pos, ids, opts)


def _pontoon(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    return engine.pontoon(pos, ids[0], opts)


def _advance(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    moves = dict(item.split(":", 1) for item in split_ids(ch.get("advance")))
    return engine.cavalry_advance(pos, ids, moves)


def _start_turn(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    return engine.start_turn(pos, opts)


def _end_turn(pos: MarengoPosition, ids: list[str], target: str | None, ch: dict, opts):
    return engine.end_turn(pos, opts, ch.get("return_disc"))


_ACTION_HANDLERS: dict[str, Callable] = {
    "thrust": _thrust,
    "bombard": _bombard,
    "assault": _assault,
    "move": _move,
    "road": _road,
    "rally": _rally,
    "pontoon": _pontoon,
    "advance": _advance,
    "start_turn": _start_turn,
    "end_turn": _end_turn,
}


def _need(target: str | None, what: str) -> str:
    if not target:
        raise InputError(f"--action {what} needs --target AREA (or a block in it)")
    return target
