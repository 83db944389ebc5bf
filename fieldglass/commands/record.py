"""fieldglass record: watch the table (or a filmed game) headless and write the game record."""

from __future__ import annotations

import argparse
import copy
import math
import sys
from pathlib import Path

from calibration.camera import load_camera
from calibration.layout import load_layout
from common.errors import InputError
from common.outfiles import check_not_input
from fieldglass.archive.store import following
from fieldglass.inputs import help_text as inputs_help
from fieldglass.inputs import load_inputs
from fieldglass.recording import (
    GameRecorder,
    RecordingPlan,
    check_timing,
    open_frames,
    options_and_players,
    record_game,
    system_meta,
    table_reader,
)
from fieldglass.rig_recording import rig_plan
from fieldglass.setup import load_setup, read_roster
from fieldglass.setup_report import rehearsal_resolution
from fieldglass.web.server import spectators
from rules.system import default_system, game_system, game_systems, system_names
from vision.roster import check_against_layout
from vision.scripted import scripted_game
from vision.synthetic import SyntheticSource, VirtualCamera, demo_scene

EPILOG = """\
examples:
  fieldglass record --source 0 --camera cam.json --layout table.toml --roster roster.toml --out game.fgr
  fieldglass record --source game.mp4 --camera cam.json --layout table.toml --roster roster.toml --out game.fgr
  fieldglass record --source frames/ --fps 5 --inputs inputs.jsonl ... --out game.fgr     a folder of frames
  fieldglass record --source game.mp4 ... --out game.fgr --resume      go on after a crash or a stop
  fieldglass record --source scripted --out game.fgr                   the built-in scripted game (no files)
  fieldglass record --system marengo --source synthetic --frames 40 --out m.fgr   the demo board, standing still
  fieldglass record --system marengo --board board.toml --source 0 --camera cam.json --roster blocks.toml \\
      --inputs inputs.jsonl --out m.fgr        a Marengo game: block moves, step losses, resolutions, the winner
  fieldglass record --system dbx --source synthetic --frames 40 --inputs inputs.jsonl --out d.fgr
                                           the DBX demo table; combats resolved by the DBX engine
  fieldglass record --rig rig.toml --layout table.toml --roster roster.toml --out game.fgr
                                           two or more cameras, each from the rig file's `source`
  fieldglass record --rig rig.toml --source west.mp4 --source east.mp4 ... --out game.fgr
                                           the same rig filmed: one --source per camera, in the rig file's order

Every registered game system records the same way (`fieldglass systems` lists them): the camera's committed places
become the system's position as the live dashboard places them, and the players' combats are resolved by its
engine. --source synthetic films the demo table of the system's kind of table (a grid, a free table, a printed
board), or with your own --layout and --roster your table (as `gui --source synthetic` draws it); --source
scripted is the scripted game on the grid.

A move is committed when the piece has stood still at its new place for --settle seconds with the view of its old
and new places clear; a piece unseen for --missing-after seconds is reported missing (never removed silently).
Every event is written at once in its own transaction: a crash loses at most the event being written, and
--resume goes on from the last frame read, with a record made with the same system, roster, layout, board,
starting position and rules options (--overwrite replaces a record instead). --inputs reads the players' inputs
from a JSON Lines file (below); every line is checked before the record is made, so a typo leaves no file behind,
and an input the engine refuses during the recording stops it with FILE:LINE and why: the record keeps every event
before it, and --resume goes on once the line is fixed. A game played at the dashboard needs no such file:
`fieldglass gui ... --record GAME.fgr` records every action as it is made.

With --rig every camera of the rig file is read at once, each by a capture worker of its own: frame i of each
video or folder of frames is one instant (a live camera gives its newest frame); each camera is registered to the
table from the anchors it sees, and the cameras' readings are fused into one table (a piece seen by two cameras is
placed once, at their weighted mean). A hand seen by any camera over a piece holds that piece where it stood, even
while another camera still sees it. A camera whose frames stop (its video ends early, a frame cannot be read, no
frame for 2 s) is said once in one line and left out; the others go on, and the pieces only it could see keep
their places without being counted unseen (none is reported missing because its camera is gone).
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Names the registered systems only when the help is shown (finding them loads every system)."""

    def _expand_help(self, action):
        if "%(systems)s" in (action.help or ""):
            action = copy.copy(action)
            action.help = action.help.replace("%(systems)s", _systems_help().replace("%", "%%"))
        return super()._expand_help(action)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "record",
        help="record a game headless: frames -> pieces -> committed moves -> game record (.fgr)",
        description="Run the live pipeline without a window and record the game: every committed move, "
        "appearance, missing piece, combat, turn and note, in a crash-safe SQLite file.",
        epilog=EPILOG + "\n" + inputs_help(),
        formatter_class=_Formatter,
    )
    p.add_argument("--source", action="append", help="camera index, video file, folder or glob of frames, "
                   "'synthetic' or 'scripted'; with --rig, once per camera in the rig file's order (default: the "
                   "rig file's sources)")
    p.add_argument("--camera", metavar="CAM.json", help="camera file (not needed for synthetic/scripted)")
    p.add_argument("--rig", metavar="RIG.toml", help="several cameras over the table (a rig file: each camera's "
                   "lens file and source); excludes --camera")
    p.add_argument("--layout", metavar="LAYOUT.toml", help="table layout (not needed for synthetic/scripted)")
    p.add_argument("--roster", metavar="ROSTER.toml", help="roster (not needed for synthetic/scripted)")
    p.add_argument("--system", help="game system, one of the registered: %(systems)s")
    p.add_argument("--board", metavar="BOARD.toml", help="a system on a printed board: the board file (synthetic: the "
                   "demo board)")
    p.add_argument("--game", metavar="GAME.json", help="the position at the start (the state the camera cannot "
                   "see: a round, morale, blocks' flags; terrain, scale, elements' quality...), for a free table or "
                   "a printed board")
    p.add_argument("--options", metavar="FILE", help="rules options (TOML) stored with the record")
    p.add_argument("--players", metavar="NAME,NAME", help="the players' names")
    p.add_argument("--out", required=True, metavar="GAME.fgr", help="the record to write")
    p.add_argument("--resume", action="store_true", help="go on with an existing record after its last frame")
    p.add_argument("--overwrite", action="store_true", help="replace an existing record")
    p.add_argument("--inputs", metavar="INPUTS.jsonl", help="the players' inputs by frame (JSON Lines)")
    p.add_argument("--fps", type=float, help="frames per second of a folder of frames (default 10) or the "
                   "synthetic sources; videos use their own")
    p.add_argument("--frames", type=int, metavar="N", help="stop after frame N-1")
    p.add_argument("--settle", type=float, default=1.0, metavar="S", help="settle time of a move (default 1 s)")
    p.add_argument("--missing-after", type=float, default=10.0, metavar="S",
                   help="report a piece missing after S seconds unseen (default 10)")
    p.add_argument("--events", action="store_true", help="print every event as it is written")
    p.add_argument("--no-refine-lens", action="store_true",
                   help="read with the camera file's lens as it is (by default the lens is refined from the table "
                        "where that is measurably better, as `locate` does, once from the first frame that allows it)")
    p.add_argument("--serve", metavar="HOST:PORT", help="also show the game live to spectators' browsers, public "
                   "view (as `fieldglass serve GAME.fgr --address HOST:PORT`, which can show other views)")
    p.add_argument("--archive", metavar="URL", help="also push each committed event to the club archive on "
                   "PostgreSQL (as `fieldglass archive push GAME.fgr --db URL --follow`)")
    p.set_defaults(run=run)


def _setup(args):
    """(layout, roster, camera intrinsics, frame stream factory, scripted inputs or None)."""
    if args.source == "scripted":
        game = scripted_game(args.fps or 5.0)
        cam = game.camera()

        def frames(start):
            stop = args.frames
            return game.render(start=start, stop=stop), len(game.frames)

        inputs = {}
        for k, inp in enumerate(game.inputs):
            inputs.setdefault(inp["frame"], []).append({**inp, "_id": f"script{k}"})
        return game.layout, game.roster, cam.intrinsics, frames, inputs, "scripted"
    if args.source == "synthetic":
        # the player's own table when their files are given (never the demo's beside them), else the demo's
        scene = (load_setup(args.system, "synthetic", None, args.layout, args.roster, getattr(args, "game", None),
                            getattr(args, "board", None), getattr(args, "options", None)).scene
                 if args.layout or args.roster else None)  # on a printed board: the player's board, else the demo's
        if scene is not None:
            return _filmed(args, scene)
        scene = demo_scene()
        lay = scene.layout
        cam = VirtualCamera.looking_at_table(lay.width_mm, lay.depth_mm, (1920, 1080))
        layout, roster, intr = lay, scene.roster, cam.intrinsics
    else:
        missing = [n for n in ("camera", "layout", "roster") if not getattr(args, n)]
        if missing:
            raise InputError(f"--source {args.source}: needs " + ", ".join(f"--{n}" for n in missing))
        intr, layout = load_camera(args.camera), load_layout(args.layout)
        roster = read_roster(args.roster, args.system)
        check_against_layout(roster, layout, args.roster)  # issue 15 case 16 (robust branch)

    def frames(start):
        stream = open_frames(args.source, args.fps, start, args.frames)
        return stream.frames, stream.total

    return layout, roster, intr, frames, None, args.source


def _filmed(args, scene):
    """`_setup`'s answer for a synthetic scene of the player's own table, filmed standing still (as the demo is: a
    hand reaching in now and then) at a resolution that reads its markers."""
    n = args.frames if args.frames is not None else 100
    rate = args.fps or 10.0
    src = SyntheticSource(scene, frames=n, hand_period=max(2, int(rate * 4)), resolution=rehearsal_resolution(scene))

    def frames(start):
        return ((i, i / rate, img) for i, img in src if i >= start), n

    return scene.layout, scene.roster, src.camera.intrinsics, frames, None, "synthetic"


def _systems_help() -> str:
    """The registered systems with their kind of table, the default first."""
    try:
        systems = game_systems()
    except InputError as exc:  # a broken plugin: say so in the help rather than fail to build it
        return str(exc)
    default = default_system()
    names = sorted(systems, key=lambda n: (n != default, n))
    return ", ".join(f"{n} ({systems[n].table}{', the default' if n == default else ''})" for n in names)


def _table_setup(args, game):
    """The set-up of a system on a free table or a printed board, by its kind of table (today's loaders), and its
    synthetic frames: (set-up, intrinsics, frames(start), the board's path or None)."""
    source = args.source
    if source == "scripted":
        raise InputError(f"--source scripted is the scripted game on a grid: {game.name} is played on a "
                         f"{game.table} table, use 'synthetic' or a camera")
    board = getattr(args, "board", None) if game.table == "board" else None
    layout = None if game.table == "board" else args.layout  # a board's own anchors register the camera
    if source == "synthetic" and game.table == "board" and args.layout:
        raise InputError(f"--source synthetic films {game.title}'s demo board: leave out --layout {args.layout}")
    # synthetic: the player's own table with their files (load_setup draws it), else the demo's
    setup = load_setup(game.name, source, args.camera, layout, args.roster, getattr(args, "game", None), board,
                       getattr(args, "options", None))
    resolution = {"resolution": (1280, 720)} if game.table == "board" else {}
    if source == "synthetic" and args.roster and setup.scene is not None:
        # the player's own table: filmed sharp enough to read every marker, as the dashboard's rehearsal is
        resolution = {"resolution": rehearsal_resolution(setup.scene)}
    if source == "synthetic":
        n = args.frames if args.frames is not None else 100
        rate = args.fps or 10.0
        src = SyntheticSource(setup.scene, frames=n, **resolution)
        intr = src.camera.intrinsics

        def frames(start):
            return ((i, i / rate, img) for i, img in src if i >= start), n
    else:
        intr = setup.camera

        def frames(start):
            stream = open_frames(source, args.fps, start, args.frames)
            return stream.frames, stream.total
    return setup, intr, frames, getattr(args, "board", None) if game.table == "board" else None


def plan(args):
    """What `fieldglass record --system NAME` records, for every registered system: the set-up (by the system's
    kind of table), the metadata the system keeps (`system_meta`), the frames, the reader, the players' inputs and
    the one recorder."""
    game = game_system(args.system)
    opts, players = options_and_players(args)
    if game.table == "grid":
        layout, roster, intr, frames, script_inputs, source = _setup(args)
        setup, board_path = None, None
    else:
        setup, intr, frames, board_path = _table_setup(args, game)
        layout, roster, source, script_inputs = setup.layout, setup.roster, args.source, None
    meta = system_meta(args.system, layout, roster, intr, opts, players, source, setup, board_path)
    # every line's form checked now, its pieces against the record's roster before it is made (`record_game`)
    inputs = script_inputs if script_inputs is not None and not args.inputs else load_inputs(args.inputs)

    def start(record, config, on_event):
        return GameRecorder.start(record, None, config, intr, on_event=on_event)

    def summary(record):
        return f"; game over: {record.meta.get('winner')} wins" if record.meta.get("game_over") else ""

    name = Path(args.camera).name if args.camera else f"the {source} camera"
    reader = table_reader(layout, roster, intr, source, refine_lens=not getattr(args, "no_refine_lens", False),
                          camera_name=name,
                          say=lambda line: print(line, flush=True))
    return RecordingPlan(meta, frames, reader, inputs, start, summary)


def run(args) -> int:
    args.system = args.system or default_system()
    if args.system not in system_names():
        raise InputError(f"--system {args.system!r}: unknown rules system (known: {' '.join(system_names())})")
    check_sources(args)
    check_timing(args)
    check_counts(args)
    inputs = (*args.sources, args.rig, args.camera, args.layout, args.roster, args.board, args.game, args.options,
              args.inputs)
    check_not_input(args.out, inputs)  # --overwrite never deletes a video, a roster or another input
    with spectators(args.out, args.serve), following(args.out, args.archive, _archive_log):
        return record_game(args, rig_plan(args) if args.rig is not None else plan(args))


def check_sources(args) -> None:
    """One --source for one camera; with --rig, one per camera or none (the rig file's): `args.sources` the list,
    `args.source` what messages name (the one source, or the rig file)."""
    args.sources = list(args.source or [])
    args.rig = getattr(args, "rig", None)
    if args.rig is not None:
        if args.camera is not None:
            raise InputError("record: --camera and --rig exclude each other (--camera for one camera, --rig for "
                             "several)")
        args.source = str(args.rig)
        return
    if not args.sources:
        raise InputError("record: needs --source (one camera) or --rig RIG.toml (several cameras)")
    if len(args.sources) > 1:
        raise InputError(f"record: --source given {len(args.sources)} times; several cameras need --rig RIG.toml "
                         "(then one --source per camera)")
    args.source = args.sources[0]


def _archive_log(message: str) -> None:
    print(f"archive: {message}", file=sys.stderr, flush=True)


def check_counts(args) -> None:
    """Before any record is made: a frame rate and a number of frames that can be recorded (issue 15 case 17)."""
    if args.fps is not None and not (math.isfinite(args.fps) and 0 < args.fps <= 1000):
        raise InputError(f"--fps {args.fps:g}: frames per second must be a number in 0 < fps <= 1000")
    if args.frames is not None and args.frames <= 0:
        raise InputError(f"--frames {args.frames}: the number of frames to record must be positive")
