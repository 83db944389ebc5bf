"""The DBX 18th century set-up for the one live session (fieldglass/session.py): the files, or the synthetic DBX
table, read into a `DbxSetup` whose `game` is the template position (terrain, scale, table, game state).

The session's DBX part (placement, element states, resolutions, text) is rules/dbx/live.py `DbxLive`; what stays
here reads files and builds the synthetic demo scene (vision, calibration).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from common.errors import InputError
from fieldglass.session import Setup
from rules.dbx.adapter import STATE_KEYS, DbxSystem
from rules.dbx.live import empty_template

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
    state; None: an empty table of the layout's size), `scene` the synthetic DBX table for --source synthetic,
    `options` the rules options file. Its session is the generic `Session` (`make_session`), DBX's part `DbxLive`."""

    scene: Any = None
    game: Any = None
    options: str | None = None

    def __post_init__(self) -> None:
        if self.game is None:  # no position file: an empty table of the layout's size, the default scale and game
            object.__setattr__(self, "game", empty_template(self.layout.width_mm, self.layout.depth_mm))


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
    bad = [rp.id for rp in ros.pieces if rp.id not in states and DbxSystem().piece_type(rp.type) is None]
    if bad and len(bad) == len(ros.pieces):
        raise InputError(f"{roster}: no roster type is a DBX element code or a known word "
                         f"(e.g. {ros.pieces[0].type!r}); use §2.1 codes such as Li, Kü, Art, Gen")
    return DbxSetup(source, cam, lay, ros, "dbx", None, states, tuple(scene.terrain) if scene else (), names,
                    scene=scene, game=template, options=options)


__all__ = ["DEMO_GAME", "DbxSetup", "demo_dbx_scene", "load_dbx_setup"]
