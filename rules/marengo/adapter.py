"""The Triomphe à Marengo adapter for the dashboard (Qt-free): blocks on a printed board of areas.

Like `rules.wiener.adapter.WienerSystem` it only gathers the engine's answers (rules/marengo) into plain descriptions:
the selected block's area, the areas it can reach this action with their command cost, the attack options with the
engine's outcome, the pair analysis, and resolutions of thrusts, bombardments and assaults with the player's choices
(push, lead, fire, counter, retreat...: the same KEY=VALUE choices as `fieldglass resolve`). Marengo has no dice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from common.choices import split_ids
from common.errors import InputError
from rules.marengo import analysis, engine, model
from rules.marengo.commands import _text
from rules.marengo.model import SIDES, TYPES
from rules.marengo.options import DEFAULT, load_options
from rules.system import CombatOutcome, TargetRow

CHOICE_HELP = ("push=ID,ID  into_approach=yes  approach=AREA  path=A,B  phase=announce|execute  hit=ID  "
               "lead=ID  def_lead=ID  fire=yes|no  fire_target=ID  counter=ID  retreat.ID=AREA  loss.ID=N")
ATTACKS = ("thrust", "thrust_against_push", "assault", "announce_bombardment")


@dataclass(frozen=True)
class AreaOption:
    """One neighbouring area as the selected block sees it: every legal action with its cost and the outcome."""

    area: str
    attack: bool
    actions: tuple[tuple[str, int, str], ...]  # (action, command cost, outcome text)

    @property
    def text(self) -> str:
        return ", ".join(f"{a} {c}" + (f": {o}" if o else "") for a, c, o in self.actions)


@dataclass(frozen=True)
class MarengoSelection:
    piece: str
    area: str | None
    position: str | None
    options: tuple[AreaOption, ...]
    shades: tuple = ()  # nothing for the grid views
    lines: tuple = ()
    arc: None = None


@dataclass
class MarengoResolution:
    action: str
    before: object
    after: object
    outcome: object
    blocks: list[str] = field(default_factory=list)


def parse_roster_type(text: str) -> tuple[str | None, int | None]:
    """"infantry 3" / "cavalry:2" / "artillery" -> (type, strength or None)."""
    bits = text.replace(":", " ").replace("-", " ").lower().split()
    typ = next((b for b in bits if b in TYPES), None)
    if typ is None:
        short = {"inf": "infantry", "cav": "cavalry", "art": "artillery", "guns": "artillery"}
        typ = short.get(bits[0] if bits else "")
    strength = next((int(b) for b in bits if b.isdigit()), None)
    return typ, strength


class MarengoSystem:
    """Triomphe à Marengo (rules/marengo) on a printed board."""

    name = "marengo"
    actions = ("thrust", "bombard", "assault", "move", "road", "rally")
    single_piece_actions = frozenset({"rally"})
    choice_help = CHOICE_HELP

    def __init__(self, options=None):
        self.model = model
        self.opts = load_options(options) if isinstance(options, str) else (options or DEFAULT)
        self.types = model.TYPES
        self.markers = ()
        self.flags = ()

    # ---- vocabulary

    def piece_type(self, roster_type: str) -> str | None:
        return parse_roster_type(roster_type)[0]

    def formations(self, piece_type: str) -> tuple[str, ...]:
        return ()

    def default_state(self, piece_type: str) -> dict:
        return {"strength": {"infantry": 3, "cavalry": 2, "artillery": 2}.get(piece_type, 2)}

    def piece_state(self, block) -> dict:
        keys = ("strength", "ready", "acted", "rallied", "revealed", "began_in_reserve", "bombard", "bombard_round")
        return {k: getattr(block, k) for k in keys}

    def check_state(self, piece_type: str, key: str, value):
        if key in ("strength", "bases"):
            try:
                n = int(value)
            except (TypeError, ValueError):
                raise InputError(f"strength {value!r}: a whole number 1..4") from None
            if not 1 <= n <= 4:
                raise InputError(f"strength {n}: a whole number 1..4")
            return n
        if key == "type":
            if value not in self.types:
                raise InputError(f"type {value!r}: one of {' '.join(self.types)}")
            return value
        if key in ("ready", "revealed", "acted", "rallied"):
            return bool(value)
        raise InputError(f"{key!r} is not part of a Marengo block's state (strength, ready, revealed, acted)")

    def empty_ground(self):
        return {}

    # ---- one block selected

    def selection(self, pos, bid: str) -> MarengoSelection:
        """The block's area and, for every neighbouring area, the legal actions of this block with cost and outcome."""
        b = pos.block(bid)
        if not b.on_map:
            return MarengoSelection(bid, None, b.position, ())
        opts = []
        for nb in pos.board.neighbours(b.area):
            acts = [a for a in analysis.legal_actions(pos, b.area, nb, self.opts, only=[bid]) if a["legal"]]
            if not acts:
                continue
            rows = []
            for a in acts:
                word = ""
                if a["action"] in ATTACKS:
                    word = _engine_outcome(pos, a, self.opts)
                rows.append((a["action"], a["cost"], word))
            opts.append(AreaOption(nb, any(a["action"] in ATTACKS for a in acts), tuple(rows)))
        return MarengoSelection(bid, b.area, b.position, tuple(opts))

    def targets(self, pos, bid: str) -> list[TargetRow]:
        """One row per legal action toward a neighbouring area (the target: an enemy block there, else the area)."""
        sel = self.selection(pos, bid)
        rows = []
        for opt in sel.options:
            enemy = [x.id for x in pos.in_area(opt.area) if x.side != pos.block(bid).side]
            for action, cost, word in opt.actions:
                attack = action in ATTACKS
                rows.append(TargetRow(enemy[0] if enemy else opt.area, opt.area, 1, action, True, cost, attack,
                                      None, True, word))
        return rows

    # ---- two blocks

    def pair(self, pos, a: str, b: str) -> tuple[dict, list[str]]:
        out = analysis.analyze_blocks(pos, a, b, self.opts)
        return out, _text(out).splitlines()

    # ---- combat

    def supporter_candidates(self, pos, attacker: str, target: str, action: str) -> list[str]:
        """Blocks of the same side in the attacker's position (reserve or the same approach): up to 3 act together."""
        if action in self.single_piece_actions or action == "bombard":
            return []
        a = pos.block(attacker)
        return [x.id for x in pos.blocks if x.id != a.id and x.side == a.side and x.area == a.area
                and x.approach == a.approach and x.area is not None]

    def combat_modifiers(self, pos, attacker: str, target: str, action: str, supporters: Sequence[str] = (),
                         choices: Mapping[str, str] | None = None) -> tuple[list[str], list[str]]:
        """The engine's answer before committing: legal or why not, its cost and the events (the outcome); the
        defender's side: the approach facing the attacker, its width and how blocked it is."""
        try:
            out = self._run(pos, action, attacker, target, supporters, dict(choices or {}))
        except InputError as exc:
            return [f"not allowed: {exc}"], []
        if out.legal:
            att = [f"legal, {out.cost} command(s) of {pos.commands}"] + out.events
        else:
            att = ["not legal: " + "; ".join(out.reasons)]
        a = pos.block(attacker)
        dfn = []
        area = self._target_area(pos, target)
        if a.on_map and area and pos.board.adjacent(a.area, area):
            ap = pos.board.approach(area, a.area)
            n = len(pos.at(area, a.area))
            dfn.append(f"approach {ap.id}: {ap.width}, {engine.blocking(pos, area, a.area)} blocked "
                       f"({n} block(s) in it)")
            attrs = [k.replace("_", " ") for k in ("art_penalty", "cav_obstacle", "impassable") if getattr(ap, k)]
            attrs += [f"{k.replace('_', ' ')} {getattr(ap, k)}" for k in ("inf_penalty", "cav_penalty")
                      if getattr(ap, k)]
            if attrs:
                dfn.append("terrain: " + ", ".join(attrs))
            dfn.append(f"{len(pos.in_area(area))} block(s) in area {area}; morale {pos.morale.level(a.side)} "
                       f"(attacker) / {pos.morale.level(_other(a.side))} (defender)")
        return att, dfn

    @staticmethod
    def _target_area(pos, target: str | None) -> str | None:
        if target and target in pos.blocks_by_id:
            return pos.block(target).area
        return target if target in pos.board.areas else None

    def _run(self, pos, action: str, attacker: str, target: str | None, supporters: Sequence[str], ch: dict):
        ids = [attacker, *[s for s in supporters if s != attacker]]
        area = self._target_area(pos, target)

        def need() -> str:
            if not area:
                raise InputError(f"{action} needs a target area (or an enemy block in it)")
            return area

        def ids_of(key: str) -> list[str]:
            return split_ids(ch.get(key))

        def yes(key: str) -> bool | None:
            v = ch.get(key)
            return None if v is None else v.lower() in ("yes", "true", "1", "y")

        if action == "thrust":
            return engine.thrust(pos, ids, need(), self.opts, push=ids_of("push"),
                                 into_approach=bool(yes("into_approach")), choices=ch)
        if action == "bombard":
            if ch.get("phase", "announce" if pos.block(attacker).bombard != "announced" else "execute") == "announce":
                return engine.announce_bombardment(pos, attacker, self.opts)
            return engine.execute_bombardment(pos, attacker, ch.get("hit"), self.opts)
        if action == "assault":
            b0 = pos.block(attacker)
            if b0.approach is None:
                raise InputError(f"{attacker}: an assault starts from an approach (§8.3)")
            return engine.assault(pos, b0.area, b0.approach, ids, ids_of("lead") or ids[:1], ids_of("def_lead"),
                                  yes("fire"), ch.get("fire_target"), ids_of("counter"), self.opts, ch)
        if action == "move":
            return engine.standard_move(pos, ids, need(), ch.get("approach"), self.opts)
        if action == "road":
            return engine.road_move(pos, attacker, ids_of("path") or [need()], self.opts, push=ids_of("push"),
                                    choices=ch)
        if action == "rally":
            return engine.rally(pos, ids, self.opts)
        raise InputError(f"action {action!r}: one of {' '.join(self.actions)}")

    def resolve(self, pos, action: str, attacker: str, target: str | None, *, supporters: Sequence[str] = (),
                choices: Mapping[str, str] | None = None, **_dice) -> CombatOutcome:
        """Resolve on the engine (no dice in Marengo); InputError when the rules forbid it."""
        out = self._run(pos, action, attacker, target, supporters, dict(choices or {}))
        if not out.legal:
            raise InputError(f"{action} not legal: " + "; ".join(out.reasons))
        before = {b.id: b for b in pos.blocks}
        after = {b.id: b for b in out.position.blocks}
        changes = []
        for bid, b in before.items():
            q = after.get(bid)
            if q is None:
                changes.append({"piece": bid, "removed": True})
                continue
            diff = {k: getattr(q, k) for k in ("area", "approach", "strength", "ready", "revealed", "bombard")
                    if getattr(q, k) != getattr(b, k)}
            if diff:
                changes.append({"piece": bid, **diff})
        lines = [f"{action}: legal, {out.cost} command(s)"] + out.events
        for c in changes:
            lines.append(f"{c['piece']}: " + ", ".join(f"{k} {v}" for k, v in c.items() if k != "piece"))
        res = MarengoResolution(action, pos, out.position, out, [attacker, *supporters])
        return CombatOutcome(res, [], None, lines, changes)

    # ---- turns

    def next_phase(self, turn: int, active: str, sides: Sequence[str]) -> tuple[int, str]:
        return (turn, _other(active)) if active == SIDES[0] else (turn + 1, _other(active))

    def phase_reset(self) -> dict:
        return {"acted": False, "rallied": False}


def _other(side: str) -> str:
    return SIDES[1] if side == SIDES[0] else SIDES[0]


def _engine_outcome(pos, act: dict, opts) -> str:
    """The outcome of an attack option as the engine resolved it with no choices (legal_actions tried it)."""
    events = act.get("events", [])
    text = " ".join(events)
    if act["action"].startswith("thrust"):
        return "succeeds" if ": succeeds" in text else "stopped" if ": stopped" in text else ""
    if act["action"] == "announce_bombardment":
        return "revealed, fires next turn"
    for e in events:
        low = e.lower()
        if any(w in low for w in ("wins", "repulsed", "captur", "result")):
            return e[:70]
    return events[-1][:70] if events else ""


__all__ = ["AreaOption", "MarengoResolution", "MarengoSelection", "MarengoSystem", "parse_roster_type"]
