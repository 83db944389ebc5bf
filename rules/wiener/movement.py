"""Movement (§5): allowances by type, road, woods and night; who may enter which terrain and cross which edge
(§5.6); the diagonal rule for moves (§3.5); stacking (§3.8); self-inflicted Red markers (§8.7)."""

from __future__ import annotations

from dataclasses import dataclass, field

from common.fields import FACINGS, field_name
from rules.geometry import Field, diagonal_side_fields, distance, facing_towards, is_neighbour
from rules.wiener.model import WienerPiece, WienerPosition
from rules.wiener.options import DEFAULT, Options
from rules.wiener.tables import BLOCKING_TERRAIN, BUILT_UP, is_artillery, is_formed, is_skirmisher, mounted, speed

IMPASSABLE_OBSTACLES = ("wall", "fence", "barricade", "chevaux_de_frise")
CROSSABLE_OBSTACLES = ("ditch", "stream")
DIFFICULT = ("wood", "town", "church", "swamp")  # §5.6 [L:Schwieriges Gelände]


def may_enter(pos: WienerPosition, p: WienerPiece, f: Field, flight: bool = False) -> str | None:
    """Why the piece may not enter field f, or None (§5.6 terrain table)."""
    if not pos.on_grid(f):
        return "that field is off the table: troops leaving it are lost (§5.6)"
    s = pos.field_state(f)
    name = field_name(*f)
    if s.terrain == "water" and not (s.bridge and not s.damaged):
        return f"{name} is water: impassable without a usable bridge (§5.6)"
    if s.terrain == "mountain" and not s.road:
        return f"{name} is a mountain field: impassable except on a road (§5.6)"
    if s.terrain == "wood" and not s.has_road:
        if is_artillery(p) or p.type == "heavy_cavalry" or (p.type == "light_cavalry" and mounted(p)):
            return f"{name} is wood: no artillery, heavy or mounted cavalry (§5.6)"
    if s.terrain in BUILT_UP:
        if is_artillery(p) or p.type == "heavy_cavalry" or (p.type == "light_cavalry" and mounted(p)):
            return f"{name} is a {s.terrain}: no artillery, heavy or mounted cavalry (§5.6)"
    if s.terrain == "swamp" and not s.has_road and p.type not in ("infantry", "pioneers"):
        return f"{name} is swamp: foot troops only (§5.6)"
    if flight and p.type in ("light_cavalry", "heavy_cavalry") and s.terrain in DIFFICULT:
        return f"{name}: fleeing cavalry may not enter difficult terrain (§5.6)"
    return None


def edge_crossing(pos: WienerPosition, p: WienerPiece, a: Field, b: Field) -> tuple[str | None, bool]:
    """(why the edge a|b cannot be crossed, whether crossing it gives Red) for orthogonal neighbours (§5.6)."""
    e = pos.edge(a, b)
    if e is None:
        return None, False
    where = f"{field_name(*a)}-{field_name(*b)}"
    if e.obstacle in IMPASSABLE_OBSTACLES:
        return f"a {e.obstacle.replace('_', ' ')} on {where} must first be removed (§5.6)", False
    if e.crossing:  # fords and fixed crossings count as roads
        return None, False
    if is_artillery(p):
        return f"artillery needs a crossing over the {e.obstacle} on {where} (§5.6)", False
    return None, is_formed(p)  # formed troops get Red, skirmishers are not hindered


def field_free(pos: WienerPosition, f: Field, opts: Options = DEFAULT) -> bool:
    """§3.5 a free field: no troops and no hindering terrain (§11 A12)."""
    if not pos.on_grid(f) or pos.occupants.get(f):
        return False
    t = pos.terrain(f)
    if t in BLOCKING_TERRAIN:
        return False
    return not (opts.diagonal_blocked_by_impassable and t in ("water", "swamp", "mountain"))


def diagonal_step(pos: WienerPosition, p: WienerPiece, a: Field, b: Field, opts: Options = DEFAULT):
    """For a diagonal step a -> b: (why not, own pieces interpenetrated) (§3.5 diagonal rule).

    One of the two fields forming the diagonal must be free; in the active phase a unit may instead pass own
    troops there (interpenetration: Red for both)."""
    sides = diagonal_side_fields(a, b)
    if sides is None:
        return None, ()
    for s in sides:
        if field_free(pos, s, opts) and not edge_crossing(pos, p, a, s)[0] and not edge_crossing(pos, p, s, b)[0]:
            return None, ()
    for s in sides:
        troops = pos.occupants.get(s, ())
        if troops and all(t.side == p.side for t in troops) and pos.terrain(s) not in BLOCKING_TERRAIN:
            return None, tuple(t.id for t in troops)
    names = " and ".join(field_name(*s) for s in sides)
    return f"diagonal {field_name(*a)}-{field_name(*b)}: neither {names} is free (§3.5)", ()


def stacking_problems(pos: WienerPosition, f: Field, pieces=None, opts: Options = DEFAULT) -> list[str]:
    """§3.8 space: up to 3 formed infantry bases per field; skirmishers, cavalry, artillery, pioneers and
    generals need a whole field (an attached general may share, §11 A26); buildings hold 3 infantry bases or
    1 light-cavalry base."""
    ps = list(pieces if pieces is not None else pos.occupants.get(f, ()))
    name = field_name(*f)
    out = []
    if len({p.side for p in ps}) > 1:
        out.append(f"{name} holds pieces of both sides")
    others = [p for p in ps if not (p.type == "general" and p.attached_to and opts.general_may_share_field)]
    inf = [p for p in others if p.type == "infantry" and not is_skirmisher(p)]
    whole = [p for p in others if p not in inf]
    if whole and len(others) > 1:
        out.append(f"{name}: {', '.join(p.id for p in whole)} needs a whole field (§3.8)")
    if sum(p.bases for p in inf) > 3:
        out.append(f"{name}: more than 3 infantry bases in one field (§3.8)")
    t = pos.terrain(f)
    if t in BUILT_UP:
        lc = [p for p in others if p.type == "light_cavalry"]
        if lc and (len(others) > 1 or sum(p.bases for p in lc) > 1):
            out.append(f"{name}: a house holds 1 light-cavalry base (§3.8)")
    return out


@dataclass
class MoveCheck:
    legal: bool
    le: int
    allowance: int | None
    reasons: list[str] = field(default_factory=list)
    red: list[str] = field(default_factory=list)  # why the mover gets Red (§8.7 self-inflicted)
    interpenetrated: list[str] = field(default_factory=list)  # own pieces that also get Red
    facing: str | None = None


def _step(pos: WienerPosition, p: WienerPiece, cur: Field, f: Field, last: bool,
          opts: Options) -> tuple[str | None, list[str], list[str]]:
    """One field of a move, cur -> f: (why it may not be entered, the Red it earns, the pieces it passes through)."""
    red: list[str] = []
    inter: list[str] = []
    if not is_neighbour(cur, f):
        return f"{field_name(*f)} is not next to {field_name(*cur)}: move one field at a time (§5.3)", red, inter
    r = may_enter(pos, p, f)
    if r:
        return r, red, inter
    if abs(f[0] - cur[0]) + abs(f[1] - cur[1]) == 1:
        r, gives_red = edge_crossing(pos, p, cur, f)
        if r:
            return r, red, inter
        if gives_red:
            red.append(f"crossed the {pos.edge(cur, f).obstacle} (§5.6)")
    else:
        r, through = diagonal_step(pos, p, cur, f, opts)
        if r:
            return r, red, inter
        if through:
            inter += list(through)
    occupants = pos.occupants.get(f, ())
    if any(o.side != p.side for o in occupants):
        return f"{field_name(*f)} holds enemy troops: attack instead (§8.7)", red, inter
    if occupants and not last:
        inter += [o.id for o in occupants]  # §5.5 interpenetration: Red for both
    return None, red, inter


def _terrain_red(pos: WienerPosition, cur: Field, f: Field) -> list[str]:
    """§5.6 formed troops take Red entering or leaving woods and buildings, and entering a swamp."""
    red = []
    leaving_diff = pos.terrain(cur) in ("wood", "town", "church")
    entering_diff = pos.terrain(f) in ("wood", "town", "church")
    if entering_diff and not leaving_diff:
        red.append(f"entered the {pos.terrain(f)} at {field_name(*f)} (§5.6)")
    if leaving_diff and not entering_diff:
        red.append(f"left the {pos.terrain(cur)} at {field_name(*cur)} (§5.6)")
    if pos.terrain(f) == "swamp" and pos.terrain(cur) != "swamp" and not pos.occupants.get(f, ()):
        red.append(f"entered the swamp at {field_name(*f)} (§5.6)")
    return red


def _allowance(pos: WienerPosition, p: WienerPiece, on_road: bool, difficult: bool, inter: list[str]) -> int | None:
    """§5.1 the move's allowance in LE: by road (§5.4 only in column or skirmish order; other types carry no
    line/column in the file), in the field, or in woods and buildings; 2 for a 1-LE troop interpenetrating (§5.5)."""
    sp = speed(p, pos.night)
    road_ok = on_road and (p.type != "infantry" or p.formation in ("column", "skirmish"))
    allowance = sp["road"] if road_ok else sp["field"]
    if difficult:
        allowance = sp["wood"]
    if inter and allowance == 1:
        allowance = 2  # §5.5 a 1-LE troop may move 2 LE when interpenetrating
    return allowance


def _direction(kinds: list[int]) -> tuple[list[str], list[str]]:
    """Formed troops' steps relative to their facing (0 ahead .. 4 back, in eighths): (why not, the Red it earns)."""
    if all(k == 4 for k in kinds):
        return [], ["moved back against its facing (§5.2 retreat)"]
    if len(kinds) == 1 and kinds[0] in (2, 6):
        return [], ["moved sideways (§5.3)"]
    if any(k not in (0, 1, 7) for k in kinds):
        return ["formed troops move straight ahead or diagonally forward (§5.3)"], []
    return [], []


def _turns_45(facing: str, final_facing: str) -> bool:
    """§5.2 a facing change at the end of a move: at most 45 degrees (a column on a road turns freely)."""
    return (FACINGS.index(final_facing) - FACINGS.index(facing)) % 8 in (0, 1, 7)


def check_move(
    pos: WienerPosition, p: WienerPiece, path: list[Field], final_facing: str | None = None,
    opts: Options = DEFAULT,
) -> MoveCheck:
    """Is moving piece p along path (the fields entered, in order) legal this active phase? (§5)"""
    reasons: list[str] = []
    red: list[str] = []
    inter: list[str] = []
    if p.black:
        reasons.append("a fleeing (Black) troop only continues its flight (§8.8)")
    if p.formation == "square":
        reasons.append("a square cannot move (§3.7)")
    cur = p.field
    facing = p.facing
    formed = is_formed(p)
    kinds = []
    on_road = pos.field_state(cur).has_road
    difficult = False
    for i, f in enumerate(path):
        r, step_red, step_inter = _step(pos, p, cur, f, i == len(path) - 1, opts)
        red += step_red
        inter += step_inter
        if r:
            reasons.append(r)
            break
        step_dir = facing_towards(cur, f)
        rel = (FACINGS.index(step_dir) - FACINGS.index(facing)) % 8
        kinds.append(rel)
        if formed and rel in (1, 7):
            facing = step_dir  # §5.3 facing change of 45 degrees per field moved
        if formed:
            red += _terrain_red(pos, cur, f)
        difficult = difficult or pos.terrain(f) in ("wood", "town", "church")
        on_road = on_road and pos.field_state(f).has_road
        cur = f
    le = len(path)
    allowance = _allowance(pos, p, on_road, difficult, inter)
    if formed and kinds:
        why, r = _direction(kinds)
        reasons += why
        red += r
    if allowance is None:
        reasons.append(f"a {p.type.replace('_', ' ')} may not move in woods or buildings (§5.1)")
    elif le > allowance:
        reasons.append(f"{le} LE is more than the allowance of {allowance} LE (§5.1)")
    if inter:
        red.append("passed through own troops (§5.5 interpenetration)")
    if path and not reasons:
        dest = path[-1]
        moved = [q for q in pos.pieces if q.id != p.id and q.field == dest]
        reasons += stacking_problems(pos, dest, moved + [p], opts)
    if final_facing and formed and not (p.formation == "column" and on_road) and not _turns_45(facing, final_facing):
        reasons.append("a facing change of more than 45 degrees takes a whole turn (§5.2)")
    return MoveCheck(not reasons, le, allowance, reasons, red, sorted(set(inter)), final_facing or facing)


def movement_allowance(pos: WienerPosition, p: WienerPiece) -> dict[str, int | None]:
    """§5.1 table (night: infantry speed for all)."""
    return speed(p, pos.night)


def distance_le(a: Field, b: Field) -> int:
    return distance(a, b)
