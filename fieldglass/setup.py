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
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.board import BoardPose, TurnedAnchor
from calibration.camera import CameraIntrinsics, load_camera
from calibration.layout import TableLayout, load_layout
from common.errors import InputError
from common.files import read_toml
from fieldglass.boards import board_layout, board_scene
from fieldglass.session import Session
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

    With `source == "synthetic"` the synthetic table brings its camera, and the system's demo table (`demo`) the
    layout, roster and board left out: the scene rendered is the demo's. `game` is a position file of the system
    (terrain, the pieces' state the camera cannot see, the game state), `board` a printed board's file (a system on
    a printed board; synthetic: the demo's board), `options` the rules options file."""
    gs = game_system(system)
    if gs.live is None:  # a system whose engine works on position files, but has no live rules yet
        raise InputError(f"--system {system}: {gs.title} has no live table yet (camera, dashboard and recorder need "
                         "its live rules); fieldglass analyze, resolve and view work on its position files")
    live = gs.live
    synthetic = source == "synthetic"
    names = {"source": source}

    brd = None
    if gs.table == "board":
        brd = load_board(board) if board else None
    demo = live.demo(brd) if synthetic else None
    if gs.table == "board":
        brd = brd or (demo.board if demo is not None else None)
        if brd is None:
            raise InputError(f"source {source!r}: --system {system} needs --board BOARD.toml (only --source "
                             "synthetic brings the demo board)")
        names["board"] = str(board) if board else (demo.names.get("board") or "demo board")
    surfaces = live.surface_boards(brd) if gs.table == "board" else {}
    scene, terrain, demo_layout, demo_roster = None, (), None, None
    if synthetic:
        scene, demo_layout, demo_roster, terrain = _synthetic(demo, brd, surfaces)

    layout_path = layout or (str(demo_layout) if demo_layout is not None else None)
    missing = [n for n, v in (("--layout", layout_path or gs.table == "board"), ("--roster", roster or demo_roster))
               if not v]
    if camera is None and not synthetic:
        missing.insert(0, "--camera")
    if missing:
        raise InputError(f"source {source!r} needs {' and '.join(missing)} (only --source synthetic brings its own)")
    cam = load_camera(camera) if camera else None
    if layout:
        lay = load_layout(layout)
    elif scene is not None:  # the table as drawn (the other surfaces' anchors too: they lie still on it)
        lay = scene.layout
    else:  # a printed board and no layout: the board is the table, its anchors register the camera
        lay = board_layout(brd)
    ros = load_roster(roster, roster_keys(system)) if roster else scene.roster
    if roster:
        check_against_layout(ros, lay, str(roster))
    if gs.table == "grid" and lay.grid is None:
        raise InputError(f"{layout_path}: the layout has no [grid]; the {system} rules need a square grid")
    brought = demo.names if demo is not None else {}  # what the demo calls the files it brings
    names.update(camera=str(camera or "synthetic camera"),
                 layout=str(layout or brought.get("layout") or layout_path or "the board's anchors"),
                 roster=str(roster or brought.get("roster") or demo_roster))

    adapter = gs.adapter(options)
    position = _start_position(game, demo, gs, brd, lay)
    if game:
        names["game"] = str(game)
    start: Start = live.start_from(adapter, position, terrain, lay)
    extra = live.setup_roster(adapter, ros, _piece_tables(roster or demo_roster), start, names["roster"])
    return Setup(source, cam, lay, ros, system, start.ground, dict(start.states), terrain, names, board=brd,
                 board_on_table=brd is None or not layout, scene=scene, game=start.game, options=options,
                 extra=dict(extra), surfaces=dict(surfaces))


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


def _synthetic(demo: DemoTable | None, board, surfaces: Mapping[str, Any] | None = None
               ) -> tuple[Any, Path | None, Path | None, tuple]:
    """A demo table rendered: (the synthetic scene, its layout file, its roster file, the terrain templates on its
    cloth). `demo` None: the synthetic table's own demo, or on a printed board the board alone; `surfaces` the
    boards of the system's other surfaces, drawn where the demo puts them (`DemoTable.surfaces`)."""
    if demo is None and board is not None:
        return board_scene(board, Roster(board.dictionary, ()), ()), None, None, ()
    if demo is None:
        lay_path, ros_path = demo_files()
        scene = demo_scene()
        return scene, lay_path, ros_path, tuple(scene.terrain)
    ros = load_roster(demo.roster)
    if board is not None:
        lay = board_layout(board)
    else:
        lay = load_layout(demo.layout)
    if ros.dictionary != lay.dictionary:  # the demo's pieces wear the markers of the table they stand on
        ros = dataclasses.replace(ros, dictionary=lay.dictionary)
    missing = [p.id for p in demo.pieces if ros.piece(p.id) is None]
    if missing:
        raise InputError(f"{demo.roster}: the demo places {', '.join(missing)}, not in this roster")
    terrain = _terrain(demo)
    if board is not None:
        scene = board_scene(board, ros, [(p.id, p.x_mm, p.y_mm, p.heading_deg) for p in demo.pieces])
        scene = dataclasses.replace(scene, terrain=scene.terrain + terrain)
        return _with_surfaces(scene, demo, surfaces or {}), None, demo.roster, terrain
    placed = tuple(PlacedPiece(ros.piece(p.id), float(p.x_mm), float(p.y_mm), float(p.heading_deg))
                   for p in demo.pieces)
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


def _piece_tables(path: str | None) -> dict[str, dict]:
    """Each [[piece]] table of a roster file by id, with every key (those a system defines too)."""
    if not path:
        return {}
    data = read_toml(path, "roster file")
    return {p["id"]: p for p in data.get("piece", []) if isinstance(p, dict) and isinstance(p.get("id"), str)}


__all__ = ["Setup", "demo_roster", "load_setup", "read_position", "roster_keys", "synthetic_scene"]
