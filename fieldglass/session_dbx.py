"""The dashboard's model for DBX 18th century (Qt-free): elements measured freely in table mm, no grid.

`DbxSession` is a `fieldglass.session.Session` whose position is the DBX engine's (rules/dbx): every element stands
where the camera measured its base centre (`PiecePose.x_mm`, `y_mm`) facing the compass bearing it measured
(`heading_deg`, 0 = +y), exactly the position-file convention of rules/dbx/README.md. Its type is the roster's
`type` read as a §2.1 element code; the usual words are mapped (rules/dbx/adapter.py `ROSTER_TYPES`):

    infantry, line infantry, foot, musketeers -> Li      grenadiers -> Gr (Li, quality Gr)   militia -> Fr
    light infantry, jaeger -> Jä    skirmishers -> Pl    cavalry, heavy cavalry, cuirassiers -> Kü
    light cavalry, hussars -> Hu    uhlans, lancers -> Ul    dragoons -> Dr (cavalry, A26)
    artillery, guns, battery -> Art    general, commander -> Gen    camp -> Camp

A generic "cavalry" becomes Kü, the period's battle cavalry; set the exact code in the roster (or the game panel's
type column) when it is something else. The terrain, the scale, the table size, each element's state the camera
cannot see (quality, dragoon mode, square markers, charged, defending, command...) and the game state (bound,
weather, river, losses) come from an optional DBX position file (`--game`): its pieces' poses are ignored, the
camera places them. Resolutions (rules/dbx/resolve.py) change the game state at once; recoils, flights and
destroyed elements wait as pending changes until the camera sees the table match (3 mm, 5 degrees).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, replace
from typing import Any

from common.errors import InputError
from fieldglass.session import Session, Setup
from rules.dbx.adapter import STATE_KEYS, DbxSystem
from rules.live import PendingChange

SETTLE_MM = 3.0
SETTLE_DEG = 5.0

# the synthetic demo: a Li line in front contact with red, an overlap, guns and cavalry at range, Jäger, generals
# (the game of tests/vision/test_dbx_camera.py): id, side, §2.1 code, x mm, y mm, heading
DEMO_GAME = (
    ("b1", "blue", "Li", 260, 200, 0), ("b2", "blue", "Li", 300, 200, 0), ("b3", "blue", "Art", 150, 150, 0),
    ("b4", "blue", "Hu", 470, 150, 0), ("bg", "blue", "Gen", 330, 140, 0),
    ("r1", "red", "Li", 300, 220, 180), ("r2", "red", "Li", 340, 220, 180), ("r3", "red", "Kü", 170, 330, 180),
    ("r4", "red", "Jä", 420, 300, 200), ("rg", "red", "Gen", 300, 470, 180),
)
DEMO_TERRAIN = (("w1", "wood", (460, 420, 60, 35)), ("h1", "gentle_hill", (150, 450, 70, 40)))
DEMO_TABLE_MM = 600.0


@dataclass(frozen=True)
class DbxSetup(Setup):
    """A Setup for DBX: `game` the template DbxPosition (terrain, scale, table, game state; pieces only for their
    state), `scene` the synthetic DBX table for --source synthetic, `options` the rules options file."""

    scene: Any = None
    game: Any = None
    options: str | None = None

    def make_session(self) -> DbxSession:
        return DbxSession(self)


def _template(width: float, depth: float, terrain=()):
    from rules.dbx.model import position_from_dict

    return position_from_dict({"system": "dbx", "table": {"width_mm": width, "depth_mm": depth},
                               "terrain": list(terrain), "pieces": []}, "dashboard")


def demo_dbx_scene():
    """The synthetic DBX table: 600 x 600 mm, 8 anchors, no grid, a wood and a gentle hill as ovals, and DEMO_GAME's
    elements on bases of their type's size. Returns (scene, template position)."""
    from rules.dbx import geom
    from rules.dbx.model import base_size, position_from_dict
    from vision.roster import Piece, Roster
    from vision.synthetic import PlacedPiece, SyntheticScene, TerrainPiece, standard_layout

    layout = dataclasses.replace(standard_layout(DEMO_TABLE_MM, DEMO_TABLE_MM, anchor_mm=40), grid=None)
    terrain = [{"id": i, "type": k, "polygon": geom.oval(*ov).round(2).tolist()} for i, k, ov in DEMO_TERRAIN]
    truth = position_from_dict({"system": "dbx", "table": {"width_mm": DEMO_TABLE_MM, "depth_mm": DEMO_TABLE_MM},
                                "terrain": terrain,
                                "pieces": [{"id": i, "side": s, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h}
                                           for i, s, t, x, y, h in DEMO_GAME]}, "demo")
    roster, placed = [], []
    for k, p in enumerate(truth.pieces):
        w, d = base_size(p, truth.scale)
        rp = Piece(p.id, 20 + k, p.side, p.code or p.type, (w, d), min(w, d) - 4.0, 3.0)
        roster.append(rp)
        placed.append(PlacedPiece(rp, p.x_mm, p.y_mm, p.heading_deg))
    kinds = {"wood": "wood", "gentle_hill": "hill", "steep_hill": "hill", "settlement": "town", "river": "river",
             "fields": "field"}
    scene = SyntheticScene(layout, Roster(layout.dictionary, tuple(roster)), tuple(placed),
                           tuple(TerrainPiece(kinds.get(t.type, t.type), t.parts[0]) for t in truth.terrain))
    return scene, truth.with_pieces(())


def load_dbx_setup(source: str, camera: str | None = None, layout: str | None = None, roster: str | None = None,
                   game: str | None = None, options: str | None = None) -> DbxSetup:
    """Files for `fieldglass gui --system dbx`: --layout (anchors; no grid needed), --roster (types as §2.1 codes or
    the mapped words), --camera; --game a DBX position file for terrain, scale and state. --source synthetic brings
    the demo DBX table and needs none of them."""
    from calibration.camera import load_camera
    from calibration.layout import load_layout
    from vision.roster import load_roster

    names = {"source": source}
    scene, template = None, None
    if source == "synthetic" and not (layout or roster):
        scene, template = demo_dbx_scene()
        names.update(layout="synthetic DBX table", roster="DBX demo elements")
    else:
        missing = [n for n, v in (("--layout", layout), ("--roster", roster)) if not v]
        if camera is None and source != "synthetic":
            missing.insert(0, "--camera")
        if missing:
            raise InputError(f"source {source!r} needs {' and '.join(missing)} "
                             "(only --source synthetic brings its own)")
    lay = load_layout(layout) if layout else scene.layout
    ros = load_roster(roster) if roster else scene.roster
    cam = load_camera(camera) if camera else None
    names["camera"] = str(camera or "synthetic camera")
    if layout:
        names.update(layout=str(layout), roster=str(roster))
    states: dict[str, dict] = {}
    if game:
        from rules.dbx.model import DbxPosition, piece_to_dict, position_from_dict

        try:
            data = json.loads(open(game, encoding="utf-8").read())
        except (OSError, ValueError) as exc:
            raise InputError(f"{game}: cannot read the position ({exc})") from None
        if not isinstance(data, dict) or data.get("system") != "dbx":
            raise InputError(f"{game}: not a DBX position (\"system\": \"dbx\")")
        pos = position_from_dict(data, str(game))
        assert isinstance(pos, DbxPosition)
        for p in pos.pieces:
            d = piece_to_dict(p)
            st = {k: d[k] for k in STATE_KEYS if k in d}
            st["type"] = d["type"]
            states[p.id] = st
        template = pos.with_pieces(())
        names["game"] = str(game)
    if template is None:
        template = _template(lay.width_mm, lay.depth_mm)
    bad = [rp.id for rp in ros.pieces if rp.id not in states and DbxSystem().piece_type(rp.type) is None]
    if bad and len(bad) == len(ros.pieces):
        raise InputError(f"{roster}: no roster type is a DBX element code or a known word "
                         f"(e.g. {ros.pieces[0].type!r}); use §2.1 codes such as Li, Kü, Art, Gen")
    return DbxSetup(source, cam, lay, ros, "dbx", None, states, tuple(scene.terrain) if scene else (), names,
                    scene=scene, game=template, options=options)


@dataclass
class PoseChange(PendingChange):
    """An element the rules moved (recoil, flight, pursuit, turn) or destroyed, shown until the camera sees it."""

    x_mm: float = 0.0
    y_mm: float = 0.0
    heading_deg: float = 0.0
    text: str = ""

    def describe(self) -> str:
        if self.removed:
            return f"take {self.piece} off the table" + (f" ({self.text})" if self.text else "")
        return (f"move {self.piece} to {self.x_mm:.0f},{self.y_mm:.0f} mm facing {self.heading_deg:.0f}°"
                + (f" ({self.text})" if self.text else ""))


def dbx_position(places, roster, system: DbxSystem, state, template):
    """The engine's DbxPosition from where the camera (or a pending change) places each roster element: `places`
    maps piece id -> an object with x_mm, y_mm, heading_deg (a PiecePose or tracking Place). Returns (position,
    notes): notes name every element left out and why."""
    from rules.dbx.model import position_from_dict

    specs, notes = [], []
    for rp in roster.pieces:
        if rp.id in state.removed:
            continue
        st = state.states.get(rp.id, {})
        code = st.get("type") or system.piece_type(rp.type)
        if code is None:
            notes.append(f"{rp.id}: roster type {rp.type!r} is not a DBX element code (Li, Jä, Kü, Art, Gen, ...) "
                         "or a known word; set its type in the game state")
            continue
        pend = state.pending.get(rp.id)
        if pend is not None and not pend.removed:
            x, y, h = pend.x_mm, pend.y_mm, pend.heading_deg
        elif rp.id in places:
            pl = places[rp.id]
            x, y, h = pl.x_mm, pl.y_mm, pl.heading_deg
        else:
            continue
        # to the precision a game record keeps a place (0.1 mm, 0.1 degree: vision/tracking.py Place.to_json), far
        # finer than the camera measures, so that the live, recorded and replayed positions are the same
        spec = {"id": rp.id, "side": rp.side, "type": code, "x_mm": round(float(x), 1), "y_mm": round(float(y), 1),
                "heading_deg": round(float(h), 1) % 360.0}
        for k in STATE_KEYS:
            v = st.get(k)
            if v not in (None, "", 0, False):
                spec[k] = v
        specs.append(spec)
    try:
        pos = position_from_dict({"system": "dbx", "pieces": specs,
                                  "scale": {"mm_per_pace": template.scale.mm_per_pace, "bb_mm": template.scale.bb_mm},
                                  "table": {"width_mm": template.width_mm, "depth_mm": template.depth_mm}},
                                 "the camera's table")
    except InputError as exc:
        notes.append(str(exc))
        pos = template
    return replace(template, pieces=pos.pieces), notes


def adopt_element_state(st: dict, before, after) -> dict:
    """An element's state the camera cannot see (`st`, changed in place and returned) after a resolution took it
    from `before` to `after` (DbxPiece): the live session's and the recorder's one way to take the engine's state."""
    for k in STATE_KEYS:
        if not hasattr(after, k):  # e.g. a dragoon's mode: read into its type, kept as it was
            continue
        v = getattr(after, k)
        if v not in (None, "", 0, False):
            st[k] = v
        else:
            st.pop(k, None)
    if after.type != before.type:  # §5.10 Li <-> Jäger: the element changes its type, the base stays
        st["type"] = after.type
    return st


def dbx_turn(template, sides) -> tuple[int, str]:
    """The bound and the active side a DBX game starts with: the position file's, else the roster's first side."""
    g = template.game
    return max(1, g.bound), g.active if g.active in sides else (sides[0] if sides else "")


class DbxSession(Session):
    """The live model for DBX: readings in (table mm), the engine's DbxPosition out."""


    def __init__(self, setup: DbxSetup, system=None, settle_s: float = 1.0):
        self.template = setup.game if setup.game is not None else _template(setup.layout.width_mm,
                                                                             setup.layout.depth_mm)
        super().__init__(setup, system or DbxSystem(setup.options), settle_s)
        self.state.turn, self.state.active = dbx_turn(self.template, self.sides)
        self._rebuild(force=True)

    # ---- readings

    def _placed_as(self, pose, change) -> bool:
        """Within SETTLE_MM and SETTLE_DEG of where the rules put it: a hand never places a base exactly."""
        dh = abs((pose.heading_deg - change.heading_deg + 180.0) % 360.0 - 180.0)
        return math.hypot(pose.x_mm - change.x_mm, pose.y_mm - change.y_mm) <= SETTLE_MM and dh <= SETTLE_DEG

    def _rebuild(self, force: bool = False) -> None:
        if not hasattr(self, "template"):
            return
        game = replace(self.template.game, bound=self.state.turn, active=self.state.active or "")
        tmpl = replace(self.template, game=game)
        pos, notes = dbx_position(self.committed_places(), self.roster, self.system, self.state, tmpl)
        self.notes = notes
        if force or pos != self.position:
            self.position = pos
            self._cache.clear()
            self.events.position.emit(pos)

    # ---- game state

    def set_piece_state(self, pid: str, key: str, value: Any) -> None:
        key = {"formation": "quality", "markers": "square"}.get(key, key)
        if key == "bases":
            raise InputError("a DBX element is one base")
        super().set_piece_state(pid, key, value)

    def set_turn(self, turn: int, active: str | None = None) -> None:
        super().set_turn(turn, active)
        self._rebuild()

    # ---- combat

    def apply(self, outcome) -> list[PendingChange]:
        """The engine's position after: element states and the game (losses) at once; recoils, flights, pursuits,
        turns and destroyed elements become pending until the camera sees the table match."""
        before, after = outcome.resolution.before, outcome.after
        text = {}
        for c in outcome.changes:
            text.setdefault(c["piece"], []).append(c.get("text", c.get("change", "")))
        pending = []
        for p in before.pieces:
            q = after.by_id.get(p.id)
            why = tuple(text.get(p.id, ()))
            if q is None:
                self.state.removed.add(p.id)
                ch = PoseChange(p.id, removed=True, why=why, text="; ".join(why))
            else:
                adopt_element_state(self.state.states.setdefault(p.id, {}), p, q)
                if math.hypot(q.x_mm - p.x_mm, q.y_mm - p.y_mm) < 0.05 and \
                        abs((q.heading_deg - p.heading_deg + 180) % 360 - 180) < 0.05:
                    continue
                ch = PoseChange(p.id, why=why, x_mm=q.x_mm, y_mm=q.y_mm, heading_deg=q.heading_deg,
                                text="; ".join(why))
            self.state.pending[p.id] = ch
            pending.append(ch)
        for q in after.pieces:  # §5.10 the second Jäger: a new base the roster does not know yet
            if q.id not in before.by_id:
                self._log(f"place a new {q.type} element {q.id} at {q.x_mm:.0f},{q.y_mm:.0f} mm "
                          "(add it to the roster to track it)")
        self.template = replace(self.template, game=after.game)
        res = outcome.resolution
        self._log(f"{res.action}: {'; '.join(outcome.lines[1:3])}")
        for ch in pending:
            self._log(f"waiting for the table: {ch.describe()}")
        self.events.state.emit()
        self._rebuild()
        return pending

    # ---- text

    def title(self) -> str:
        return self.selection_title()

    def selection_title(self) -> str:
        s = self.selected
        if not self.in_position(s):
            return f"{s}: not on the table now (not seen, or removed)"
        p = self.position.piece(s)
        sel = self.selection_overlay()
        if sel is None:
            return f"<b>{p.id}</b>"
        n = sum(1 for ln in sel.lines if ln.kind in ("fire", "melee"))
        a = sel.analysis
        return (f"<b>{p.id}</b> {p.side} {p.ut.name}{' ' + p.quality if p.quality else ''} at {p.x_mm:.0f},"
                f"{p.y_mm:.0f} mm facing {p.heading_deg:.0f}°: {a['going']} going, moves {sel.allowance_paces} p, "
                f"{'fires ' + str(sel.fire_range_paces) + ' p' if a['can_shoot'] else 'does not shoot'}; "
                f"{n} target(s) it may fire at or fight; {len(sel.contacts)} contact(s)")

    def contacts_of(self, pid: str) -> list[str]:
        """Every enemy contact of an element as "other kind" (the type as the element sees the edge it touches)."""
        from rules.dbx.contact import contact

        pos = self.position
        p = pos.piece(pid)
        out = []
        for q in pos.pieces:
            if q.id == pid or q.side == p.side:
                continue
            c = contact(pos, p, q, self.system.opts)
            if c.kind:
                out.append(f"{q.id} {c.kind}{'' if c.valid or c.kind in ('corner', 'overlap') else ' (not valid)'}")
        return out

    def describe_lines(self) -> list[str]:
        """The headless printout: every element with where it stands and its contacts, then the selection."""
        pos = self.position
        lines = [f"  bound {self.state.turn} ({self.state.active} active), scale {pos.scale.mm_per_pace} mm/pace, "
                 f"BB {pos.scale.bb_mm:g} mm, terrain: {', '.join(f'{t.id} {t.type}' for t in pos.terrain) or 'none'}",
                 f"  {'element':<9}{'side':<6}{'type':<7}{'x,y mm':<14}{'facing':<8}{'status':<10}contacts"]
        for v in self.piece_views():
            e = pos.by_id.get(v.piece.id)
            where = f"{e.x_mm:.1f},{e.y_mm:.1f}" if e else "-"
            fac = f"{round(e.heading_deg) % 360}°" if e else "-"
            con = ", ".join(self.contacts_of(e.id)) if e else ""
            lines.append(f"  {v.piece.id:<9}{v.piece.side:<6}{(v.type or '?'):<7}{where:<14}{fac:<8}{v.status:<10}"
                         f"{con or '-'}")
        for n in self.notes:
            lines.append(f"  note: {n}")
        sel = self.selection_overlay()
        if sel is not None:
            p = pos.piece(sel.piece)
            a = sel.analysis
            lines.append(f"selected {p.id} ({p.ut.name}, {a['going']} going): moves {sel.allowance_paces} paces "
                         f"({sel.allowance_reason}), fire range {sel.fire_range_paces} paces ({sel.fire_reason})")
            if sel.zoc_of:
                lines.append(f"  stands in the zone of control of {', '.join(sel.zoc_of)}")
            for c in sel.contacts:
                who = f"{c.by} touches" if c.by != p.id else "touches"
                lines.append(f"  contact {c.piece:<6}{c.kind:<8}{who} the {c.edge or '?'} edge"
                             f"{'' if c.valid or c.kind in ('corner', 'overlap') else ' (not a legal contact)'}")
            for t in self.targets():
                if t.fire or t.melee:
                    net = t.fire_net if t.fire else t.melee_net
                    lines.append(f"  -> {t.target:<6}{t.distance:>5} p  {t.weapon:<12} net {net:+d}  {t.field}")
                else:
                    lines.append(f"  .  {t.target:<6}{t.distance:>5} p  {t.field:<8} {t.note[:80]}")
        return lines


__all__ = ["DEMO_GAME", "DbxSession", "DbxSetup", "PoseChange", "adopt_element_state", "dbx_position", "dbx_turn",
           "demo_dbx_scene", "load_dbx_setup"]
