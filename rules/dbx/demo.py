"""The DBX demo table, shown by `fieldglass gui --system dbx --source synthetic` and filmed by `fieldglass record
--system dbx --source synthetic`, as plain data (the wiring renders it with vision's synthetic table).

A Li line in front contact with red, an overlap, guns and cavalry at range, Jäger, generals (the game of
tests/vision/test_dbx_camera.py) on a 600 x 600 mm table with a wood and a gentle hill: `DEMO_GAME` and
`DEMO_TERRAIN` here, the table's anchors in data/demo_layout.toml, each element's marker and base in
data/demo_roster.toml.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from rules.dbx import geom
from rules.dbx.model import position_from_dict
from rules.live import DemoPiece, DemoTable, DemoTerrain

DEMO_GAME = (
    # id, side, §2.1 code, x mm, y mm, heading
    ("b1", "blue", "Li", 260, 200, 0), ("b2", "blue", "Li", 300, 200, 0), ("b3", "blue", "Art", 150, 150, 0),
    ("b4", "blue", "Hu", 470, 150, 0), ("bg", "blue", "Gen", 330, 140, 0),
    ("r1", "red", "Li", 300, 220, 180), ("r2", "red", "Li", 340, 220, 180), ("r3", "red", "Kü", 170, 330, 180),
    ("r4", "red", "Jä", 420, 300, 200), ("rg", "red", "Gen", 300, 470, 180),
)
DEMO_TERRAIN = (("w1", "wood", (460, 420, 60, 35)), ("h1", "gentle_hill", (150, 450, 70, 40)))
"""id, terrain type, oval (centre x, centre y, semi-axes in mm)."""
DEMO_TABLE_MM = 600.0

LOOKS = {"wood": "wood", "gentle_hill": "hill", "steep_hill": "hill", "settlement": "town", "river": "river",
         "fields": "field"}
"""How the synthetic table draws each DBX terrain type."""


def data_path(name: str) -> Path:
    return Path(str(resources.files("rules.dbx").joinpath("data", name)))


def demo_dict(pieces: bool = True) -> dict:
    """The demo as a DBX position file's JSON object: the table, the terrain and (`pieces`) the elements."""
    terrain = [{"id": i, "type": k, "polygon": geom.oval(*ov).round(2).tolist()} for i, k, ov in DEMO_TERRAIN]
    out = {"system": "dbx", "table": {"width_mm": DEMO_TABLE_MM, "depth_mm": DEMO_TABLE_MM}, "terrain": terrain,
           "pieces": []}
    if pieces:
        out["pieces"] = [{"id": i, "side": s, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h}
                         for i, s, t, x, y, h in DEMO_GAME]
    return out


def demo_position():
    """The demo's true position (a DbxPosition): every element where the demo stands it."""
    return position_from_dict(demo_dict(), "demo")


def demo(board=None) -> DemoTable:
    """The demo table (`DbxLive.demo`): its files, the elements' places, the terrain drawn on the cloth, and the
    game a session starts from: the demo's position without its elements (terrain, scale, table; the camera places
    the elements)."""
    truth = demo_position()
    return DemoTable(
        roster=data_path("demo_roster.toml"),
        layout=data_path("demo_layout.toml"),
        pieces=tuple(DemoPiece(p.id, p.x_mm, p.y_mm, p.heading_deg) for p in truth.pieces),
        terrain=tuple(DemoTerrain(LOOKS.get(t.type, t.type), tuple((float(x), float(y)) for x, y in t.parts[0]))
                      for t in truth.terrain),
        game=demo_dict(pieces=False),
        names={"layout": "synthetic DBX table", "roster": "DBX demo elements"},
    )


__all__ = ["DEMO_GAME", "DEMO_TABLE_MM", "DEMO_TERRAIN", "demo", "demo_dict", "demo_position"]
