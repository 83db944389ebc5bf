"""The set-up of a live session, for every game system: what a session needs besides frames, read from the files or
brought by the synthetic table.

`load_setup(system, source, ...)` names no system. What differs comes from the system (rules/system.py,
rules/live.py): its `LiveRules` says what table it shows with `--source synthetic` (`demo`, plain data this module
renders with vision's synthetic table), what a position file gives a new session (`start_from`) and what it checks
and keeps of the roster (`setup_roster`); its `GameSystem.table` says what the kind of table needs: a system on a
printed board (`"board"`) reads `--board` and needs no layout (the board's anchors register the camera), a grid
system (`"grid"`) needs the layout's grid and a position of its size.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.board import BoardPose, TurnedAnchor
from calibration.camera import CameraIntrinsics, load_camera
from calibration.layout import TableLayout, load_layout, paper_mm
from common.errors import InputError
from common.files import read_toml
from fieldglass.boards import board_layout, board_scene
from fieldglass.session import Session
from fieldglass.setup_checks import check_roster
from rules.board import load_board
from rules.live import DemoTable, LiveRules, Start
from rules.system import GameSystem, game_system, game_systems
from vision.roster import Roster, check_against_layout, load_roster
from vision.synthetic import PlacedPiece, SyntheticScene, TerrainPiece, demo_files, demo_scene


@dataclass(frozen=True)
class Setup:
    """Everything a session needs besides frames: the files, or the synthetic table's own camera and demo files.

    `camera` is None when the source brings its own (the synthetic table); `ground` is the rules system's terrain
    (fields, edges; None: its empty ground), `terrain` the synthetic table's templates (for drawing), `scene` the
    synthetic table itself (vision.synthetic.SyntheticScene, for --source synthetic), `initial_states` each piece's
    state the camera cannot see, `game` what the system keeps of the position it starts from (its `LiveRules`
    reads it: a template without pieces, a starting position), `options` the rules options file. A system on a
    printed board has its `board` (rules.board.Board): `board_on_table` when the board itself is the table (its
    anchors register the camera), else the board lies on a table registered by `layout` and is found from its own
    anchors every frame; `surfaces` holds the boards of its other surfaces. `extra` is what the system's
    `setup_roster` hook keeps, each also read as an attribute (`setup.blocks`)."""

    source: str
    camera: CameraIntrinsics | None
    layout: TableLayout
    roster: Roster
    system: str
    ground: Mapping | None = None
    initial_states: Mapping[str, dict] = field(default_factory=dict)
    terrain: tuple = ()
    names: Mapping[str, str] = field(default_factory=dict)  # what each file was, for the title and messages
    join_by_cards: bool = False  # start with no unit in the game; each joins when its QR card is shown
    board: Any = None  # rules.board.Board, for a system on a printed board
    board_on_table: bool = True
    scene: Any = None
    game: Any = None
    options: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    surfaces: Mapping[str, Any] = field(default_factory=dict)
    """The boards of the surfaces besides `board` by name (rules/live.py `LiveRules.surfaces`: a battle board
    beside a map), each lying on the table and registered from its own anchors."""
    rig: tuple = ()
    """A rig (several cameras over the table): (name, CameraIntrinsics, source) per camera in the rig file's order,
    each source a camera index, video file, folder of frames or URL; empty for one camera (`source`, `camera`)."""
    refine_lens: bool = True
    """Read with the lens refined from the table where measurably better (vision/table_lens.py `StreamLens`); False
    (`--no-refine-lens`): the camera file's as it is."""
    read_dice: bool = True
    """The dashboard reads thrown dice into the combat panel (the layout's dice tray, else anywhere off the bases),
    for a system that rolls dice; False (`--no-dice`): players type them."""

    def __getattr__(self, name: str) -> Any:
        extra = self.__dict__.get("extra") or {}
        if name.startswith("__") or name not in extra:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return extra[name]

    def make_session(self) -> Session:
        """The live model for this set-up: the dashboard (gui/app.py) is handed the set-up and calls this, so it
        never imports the model."""
        return Session(self)

    def open_recording(self, path, resume: bool = False, **kw):
        """The dashboard's record of a game on this set-up (fieldglass/table_recording.py `TableRecording`): a new
        record at `path`, or with `resume` the existing one (checked as `fieldglass record --resume` checks it);
        InputError, one line, when it cannot be opened."""
        from fieldglass.table_recording import open_table_recording  # noqa: PLC0415  (the dashboard's, on demand)

        return open_table_recording(self, path, resume, **kw)


def load_setup(system: str, source: str, camera: str | None = None, layout: str | None = None,
               roster: str | None = None, game: str | None = None, board: str | None = None,
               options: str | None = None) -> Setup:
    """Read the files a session of `system` needs; InputError (one line, naming the file) on any problem.

    With `source == "synthetic"` the synthetic table brings its camera; without a layout and a roster the system's
    demo table (`demo`) brings them and the board left out, and the scene rendered is the demo's; with the player's
    own layout and roster (a grid or free table) the scene is their table (`own_scene`: their anchors, their pieces
    where `game` puts them or in their deployment zones), never the demo's, and one of the two alone is refused in
    one line; on a printed board (the board is the table) the demo places the pieces of the player's roster it
    knows, and a layout of the player's own is refused. `game` is a position file of the
    system (terrain, the pieces' state the camera cannot see, the game state), `board` a printed board's file (a
    system on a printed board; synthetic: the demo's board), `options` the rules options file."""
    gs = game_system(system)
    if gs.live is None:  # a system whose engine works on position files, but has no live rules yet
        raise InputError(f"--system {system}: {gs.title} has no live table yet (camera, dashboard and recorder need "
                         "its live rules); fieldglass analyze, resolve and view work on its position files")
    live = gs.live
    synthetic = source == "synthetic"
    # --source synthetic with the player's own files draws the player's table, never the demo's (issue 26)
    own = synthetic and bool(layout or roster) and gs.table != "board"
    names = {"source": source}

    brd = None
    if gs.table == "board":
        brd = load_board(board) if board else None
    demo = live.demo(brd) if synthetic and not own else None
    if gs.table == "board":
        brd = brd or (demo.board if demo is not None else None)
        if brd is None:
            raise InputError(f"source {source!r}: --system {system} needs --board BOARD.toml (only --source "
                             "synthetic brings the demo board)")
        names["board"] = str(board) if board else (demo.names.get("board") or "demo board")
    surfaces = live.surface_boards(brd) if gs.table == "board" else {}
    scene, terrain, demo_layout, demo_roster = None, (), None, None
    if synthetic and not own:
        scene, demo_layout, demo_roster, terrain = _synthetic(demo, brd, surfaces)

    cam, lay, ros, layout_path = _files(system, source, camera, layout, roster, scene, brd, demo_layout, demo_roster,
                                        own)
    brought = demo.names if demo is not None else {}  # what the demo calls the files it brings
    names.update(camera=str(camera or "synthetic camera"),
                 layout=str(layout or brought.get("layout") or layout_path or "the board's anchors"),
                 roster=str(roster or brought.get("roster") or demo_roster))

    adapter = gs.adapter(options)
    position = _start_position(game, demo, gs, brd, lay)
    if game:
        names["game"] = str(game)
    start: Start = live.start_from(adapter, position, terrain, lay)
    extra = live.setup_roster(adapter, ros, piece_tables(roster or demo_roster), start, names["roster"])
    if synthetic and gs.table == "board" and layout:
        raise InputError(f"--source synthetic draws {gs.title}'s board as the whole table: it cannot lay it on your "
                         f"own table ({layout}); leave out --layout to rehearse on the board, or film your table")
    if synthetic and gs.table == "board" and roster:  # your pieces where the demo puts them on the board
        scene = _synthetic(demo, brd, surfaces, ros, str(roster))[0]
    if own:
        scene = own_scene(gs, lay, ros, position)
    return Setup(source, cam, lay, ros, system, start.ground, dict(start.states), terrain, names, board=brd,
                 board_on_table=brd is None or not layout, scene=scene, game=start.game, options=options,
                 extra=dict(extra), surfaces=dict(surfaces))


def _files(system: str, source: str, camera, layout, roster, scene, brd, demo_layout, demo_roster, own: bool):
    """The camera, layout and roster a set-up reads (or the demo's scene brings): (camera, layout, roster, what the
    layout is called); InputError for a file missing, and for only one of the player's own files with --source
    synthetic (their table needs both), once the one given is read and checked."""
    gs = game_system(system)
    synthetic = source == "synthetic"
    layout_path = layout or (str(demo_layout) if demo_layout is not None else None)
    missing = [n for n, v in (("--layout", layout_path or gs.table == "board"), ("--roster", roster or demo_roster))
               if not v]
    if camera is None and not synthetic:
        missing.insert(0, "--camera")
    if missing and not own:
        raise InputError(f"source {source!r} needs {' and '.join(missing)} (only --source synthetic brings its own)")
    cam = load_camera(camera) if camera else None
    if layout:
        lay = load_layout(layout)
    elif scene is not None:  # the table as drawn (the other surfaces' anchors too: they lie still on it)
        lay = scene.layout
    else:  # a printed board and no layout: the board is the table, its anchors register the camera
        lay = board_layout(brd) if brd is not None else None
    if gs.table == "grid" and lay is not None and lay.grid is None:
        raise InputError(f"{layout_path}: the layout has no [grid]; the {system} rules need a square grid")
    ros = read_roster(roster, system) if roster else scene.roster if scene is not None else None
    if missing:  # the player's own table drawn: both of its files are needed
        given = " and ".join(f"--{k} {v}" for k, v in (("layout", layout), ("roster", roster)) if v)
        raise InputError(f"--source synthetic with {given} draws your own table: it needs {' and '.join(missing)} "
                         "too (or neither, for the demo table)")
    if roster:
        check_against_layout(ros, lay, str(roster))
    return cam, lay, ros, layout_path


def read_roster(path, system: str | None = None) -> Roster:
    """A roster file read with the keys of its game system (`system`, else any registered system's), each piece's
    type and side checked against the system the roster names or `system` (fieldglass/setup_checks.py); InputError,
    one line naming the file, the piece and the key, with the nearest valid value."""
    roster = load_roster(path, roster_keys(system))
    return check_roster(roster, str(path), system)


def own_scene(gs: GameSystem, layout: TableLayout, roster: Roster, position=None) -> SyntheticScene:
    """The player's own table for --source synthetic: their layout's anchors and grid, their roster's pieces where
    the position file puts them (the system's `LiveRules.position_places`), the others spread in their side's
    deployment zone (`LiveRules.deployment`; on a grid one piece per field). InputError, one line, when a zone
    cannot hold its side's pieces."""
    placed: dict[str, tuple[float, float, float]] = {}
    if position is not None:
        for p in gs.live.position_places(position, layout):
            if roster.piece(p.id) is not None:
                placed[p.id] = (float(p.x_mm), float(p.y_mm), float(p.heading_deg))
    rest = [p for p in roster.pieces if p.id not in placed]
    sides = list(dict.fromkeys(p.side for p in roster.pieces))
    zones = {z.side: z for z in gs.live.deployment(layout.width_mm, layout.depth_mm, sides)}
    for side in dict.fromkeys(p.side for p in rest):
        zone = zones.get(side)
        pieces = [p for p in rest if p.side == side]
        if zone is None:
            raise InputError(f"{gs.name}: no deployment zone for side {side!r}; give a position file (--game) that "
                             "places its pieces")
        spots = deployment_spots(zone, pieces, layout)
        if len(spots) < len(pieces):
            raise InputError(f"side {side!r}: its deployment zone ({zone.x1 - zone.x0:.0f} x {zone.y1 - zone.y0:.0f} "
                             f"mm) holds {len(spots)} of its {len(pieces)} pieces; give a position file (--game) that "
                             "places them, or a larger table")
        placed.update({p.id: spot for p, spot in zip(pieces, spots, strict=False)})
    placements = tuple(PlacedPiece(p, *placed[p.id]) for p in roster.pieces)
    return SyntheticScene(layout, roster, placements)


_GAP_MM = 10.0


def deployment_spots(zone, pieces, layout: TableLayout) -> list[tuple[float, float, float]]:
    """Places (x_mm, y_mm, heading_deg) for `pieces` in `zone`, front rank first (the edge toward the enemy), each
    base whole on the table and clear of the anchors' papers: on a grid the centres of the fields wholly in the zone
    (one piece a field), else a lattice of the largest base and a gap."""
    grid = layout.grid
    heading = zone.heading_deg
    toward = 1.0 if math.cos(math.radians(heading)) >= 0 else -1.0  # facing north: the front is the zone's top
    if grid is not None:
        step_x = step_y = grid.field_mm
        x0, y0 = grid.origin_x_mm, grid.origin_y_mm
        cols = [x0 + (c + 0.5) * step_x for c in range(grid.cols)]
        rows = [y0 + (r + 0.5) * step_y for r in range(grid.rows)]
        xs = [x for x in cols if zone.x0 <= x - step_x / 2 and x + step_x / 2 <= zone.x1]
        ys = [y for y in rows if zone.y0 <= y - step_y / 2 and y + step_y / 2 <= zone.y1]
    else:
        width = max(max(p.base_mm) for p in pieces) + _GAP_MM
        step_x = step_y = width
        nx, ny = int((zone.x1 - zone.x0) // step_x), int((zone.y1 - zone.y0) // step_y)
        xs = [zone.x0 + (zone.x1 - zone.x0 - nx * step_x) / 2 + (k + 0.5) * step_x for k in range(nx)]
        ys = [zone.y0 + (zone.y1 - zone.y0 - ny * step_y) / 2 + (k + 0.5) * step_y for k in range(ny)]
    ys.sort(key=lambda y: -toward * y)  # the front rank first
    papers = [(a.x_mm, a.y_mm, paper_mm(layout.dictionary, a.size_mm) / 2.0) for a in layout.anchors]
    reach = max(max(p.base_mm) for p in pieces) / 2.0
    spots = []
    for y in ys:
        for x in sorted(xs, key=lambda v: abs(v - (zone.x0 + zone.x1) / 2)):  # from the zone's middle out
            if not (reach <= x <= layout.width_mm - reach and reach <= y <= layout.depth_mm - reach):
                continue
            if any(abs(x - ax) < half + reach and abs(y - ay) < half + reach for ax, ay, half in papers):
                continue
            spots.append((x, y, heading))
            if len(spots) == len(pieces):
                return spots
    return spots


def _start_position(game: str | None, demo: DemoTable | None, gs: GameSystem, board, lay: TableLayout):
    """The position a session starts from: the position file `game`, else the demo's (None: neither); a grid
    system's must be the size of the layout's grid."""
    position = None
    if game:
        position = read_position(game, gs, board)
    elif demo is not None and demo.game is not None:
        position = _position(demo.game, "the demo's position", gs, board)
    if position is not None and gs.table == "grid" and (position.cols, position.rows) != (lay.grid.cols,
                                                                                         lay.grid.rows):
        raise InputError(f"{game or 'the demo'}: grid {position.cols}x{position.rows} differs from the layout's "
                         f"{lay.grid.cols}x{lay.grid.rows}")
    return position


def read_position(path: str, gs: GameSystem, board=None):
    """A position file of system `gs` (a system on a printed board reads it on `board`); InputError naming the file
    when it cannot be read or is another system's."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the position file ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: a position file must hold a JSON object")
    if data.get("system") != gs.name:
        raise InputError(f"{path}: a {data.get('system')!r} position, but --system is {gs.name!r}")
    return _position(data, str(path), gs, board)


def _position(data: Mapping, source: str, gs: GameSystem, board):
    return gs.from_dict(data, source, **({"board": board} if gs.table == "board" else {}))


def synthetic_scene(system: str, board=None):
    """The table `system` shows with --source synthetic, rendered as vision's synthetic scene (its layout, roster,
    pieces and terrain); `board` a printed board to show it on (a system on a printed board; default its demo's)."""
    gs = game_system(system)
    live = gs.live or LiveRules
    demo = live.demo(board)
    return _synthetic(demo, board if board is not None else getattr(demo, "board", None))[0]


def demo_roster(system: str, board=None) -> Roster:
    """The roster of `system`'s demo table (in the markers of the table it stands on)."""
    return synthetic_scene(system, board).roster


def _synthetic(demo: DemoTable | None, board, surfaces: Mapping[str, Any] | None = None, roster: Roster | None = None,
               roster_name: str = "") -> tuple[Any, Path | None, Path | None, tuple]:
    """A demo table rendered: (the synthetic scene, its layout file, its roster file, the terrain templates on its
    cloth). `demo` None: the synthetic table's own demo, or on a printed board the board alone; `surfaces` the
    boards of the system's other surfaces, drawn where the demo puts them (`DemoTable.surfaces`). `roster` the
    player's own (on a printed board): the demo places those of its pieces it knows, and draws no other."""
    if demo is None and board is not None:
        return board_scene(board, roster or Roster(board.dictionary, ()), ()), None, None, ()
    if demo is None:
        lay_path, ros_path = demo_files()
        scene = demo_scene()
        return scene, lay_path, ros_path, tuple(scene.terrain)
    ros = roster if roster is not None else load_roster(demo.roster)
    if board is not None:
        lay = board_layout(board)
    else:
        lay = load_layout(demo.layout)
    if ros.dictionary != lay.dictionary and roster is None:  # the demo's pieces wear the table's markers
        ros = dataclasses.replace(ros, dictionary=lay.dictionary)
    pieces = demo.pieces
    if roster is not None:
        pieces = tuple(p for p in demo.pieces if ros.piece(p.id) is not None)
        if not pieces:
            raise InputError(f"{roster_name}: the synthetic table places the demo's pieces ({demo.pieces[0].id}, ...) "
                             "and your roster has none of them; film your table, or rehearse on the demo without "
                             "--roster")
    missing = [p.id for p in pieces if ros.piece(p.id) is None]
    if missing:
        raise InputError(f"{demo.roster}: the demo places {', '.join(missing)}, not in this roster")
    terrain = _terrain(demo)
    if board is not None:
        scene = board_scene(board, ros, [(p.id, p.x_mm, p.y_mm, p.heading_deg) for p in pieces])
        scene = dataclasses.replace(scene, terrain=scene.terrain + terrain)
        return _with_surfaces(scene, demo, surfaces or {}), None, demo.roster, terrain
    placed = tuple(PlacedPiece(ros.piece(p.id), float(p.x_mm), float(p.y_mm), float(p.heading_deg))
                   for p in pieces)
    return SyntheticScene(lay, ros, placed, terrain), demo.layout, demo.roster, terrain


def _with_surfaces(scene, demo: DemoTable, surfaces: Mapping[str, Any]):
    """The board scene with the other surfaces lying where the demo puts them."""
    return with_surfaces(scene, surfaces, demo.surfaces)


def with_surfaces(scene, surfaces: Mapping[str, Any], poses: Mapping[str, tuple[float, float, float]]):
    """A board scene (vision.synthetic.SyntheticScene, the main board's) with the other surfaces (`surfaces`: name
    -> rules.board.Board) lying at `poses` (name -> x_mm, y_mm, rotation_deg counter-clockwise: the surface's origin
    on the table): each one's anchors (turned with it) and its areas drawn on a table grown to hold it."""
    lay, terrain = scene.layout, list(scene.terrain)
    anchors, width, depth = list(lay.anchors), lay.width_mm, lay.depth_mm
    for name, (x, y, rot) in poses.items():
        brd = surfaces.get(name)
        if brd is None:
            continue
        pose = BoardPose(float(rot), float(x), float(y))
        for a in board_layout(brd).anchors:
            ax, ay = pose.board_to_table([(a.x_mm, a.y_mm)])[0]
            anchors.append(TurnedAnchor(a.id, float(ax), float(ay), a.size_mm,
                                        (getattr(a, "heading_deg", 0.0) - float(rot)) % 360.0))
        for area in brd.areas.values():
            terrain.append(TerrainPiece("field", pose.board_to_table(np.asarray(area.polygon, float))))
        corners = pose.board_to_table([(0, 0), (brd.width_mm, 0), (brd.width_mm, brd.depth_mm), (0, brd.depth_mm)])
        width, depth = max(width, float(corners[:, 0].max()) + 40.0), max(depth, float(corners[:, 1].max()) + 40.0)
    lay = dataclasses.replace(lay, width_mm=width, depth_mm=depth, anchors=tuple(anchors))
    return dataclasses.replace(scene, layout=lay, terrain=tuple(terrain))


def _terrain(demo: DemoTable) -> tuple:
    return tuple(TerrainPiece(t.kind, np.asarray(t.polygon_mm, float), float(t.height_mm)) for t in demo.terrain)


def roster_keys(system: str | None = None) -> tuple[str, ...]:
    """The roster piece keys the game systems read besides the roster's own (`LiveRules.roster_keys`): one system's,
    or every registered one's for a command that reads a roster for any system (print, locate)."""
    games = [game_system(system)] if system else list(game_systems().values())
    return tuple(sorted({k for g in games if g.live is not None for k in g.live.roster_keys}))


def piece_tables(path: str | None) -> dict[str, dict]:
    """Each [[piece]] table of a roster file by id, with every key (those a system defines too)."""
    if not path:
        return {}
    data = read_toml(path, "roster file")
    return {p["id"]: p for p in data.get("piece", []) if isinstance(p, dict) and isinstance(p.get("id"), str)}


__all__ = ["Setup", "demo_roster", "deployment_spots", "load_setup", "own_scene", "piece_tables", "read_position",
           "read_roster", "roster_keys", "synthetic_scene"]
