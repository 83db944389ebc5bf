"""fieldglass record: watch the table (or a filmed game) headless and write the game record."""

from __future__ import annotations

import argparse

from common.errors import InputError

EPILOG = """\
examples:
  fieldglass record --source 0 --camera cam.json --layout table.toml --roster roster.toml --out game.fgr
  fieldglass record --source game.mp4 --camera cam.json --layout table.toml --roster roster.toml --out game.fgr
  fieldglass record --source frames/ --fps 5 --inputs inputs.jsonl ... --out game.fgr     a folder of frames
  fieldglass record --source game.mp4 ... --out game.fgr --resume      go on after a crash or a stop
  fieldglass record --source scripted --out game.fgr                   the built-in scripted game (no files)
  fieldglass record --system marengo --source synthetic --frames 40 --out m.fgr   the demo board, standing still
  fieldglass record --system marengo --board board.toml --source 0 --camera cam.json --roster blocks.toml \
      --inputs inputs.jsonl --out m.fgr        a Marengo game: block moves, step losses, resolutions, the winner
  fieldglass record --system dbx --source synthetic --frames 40 --inputs inputs.jsonl --out d.fgr
                                           the DBX demo table; combats resolved by the DBX engine

A move is committed when the piece has stood still at its new place for --settle seconds with the view of its old
and new places clear; a piece unseen for --missing-after seconds is reported missing (never removed silently).
Every event is written at once in its own transaction: a crash loses at most the event being written, and
--resume goes on from the last frame read, with a record made with the same system, roster, layout, board,
starting position and rules options (--overwrite replaces a record instead). --inputs reads the players' inputs
(turns, phases, combats, answers to missing reports, notes, bookmarks, undo) from a JSON Lines file, one object
per line with the frame it follows.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "record",
        help="record a game headless: frames -> pieces -> committed moves -> game record (.fgr)",
        description="Run the live pipeline without a window and record the game: every committed move, "
        "appearance, missing piece, combat, turn and note, in a crash-safe SQLite file.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--source", required=True, help="camera index, video file, folder or glob of frames, "
                   "'synthetic' or 'scripted'")
    p.add_argument("--camera", metavar="CAM.json", help="camera file (not needed for synthetic/scripted)")
    p.add_argument("--layout", metavar="LAYOUT.toml", help="table layout (not needed for synthetic/scripted)")
    p.add_argument("--roster", metavar="ROSTER.toml", help="roster (not needed for synthetic/scripted)")
    p.add_argument("--system", default="wiener", help="rule system: wiener (default), marengo (blocks on a "
                   "printed board: fieldglass/recording_marengo.py) or dbx (free-measured: "
                   "fieldglass/recording_dbx.py)")
    p.add_argument("--board", metavar="BOARD.toml", help="marengo: the board file (synthetic: the demo board)")
    p.add_argument("--game", metavar="GAME.json", help="marengo, dbx: the position at the start (the state the "
                   "camera cannot see: round, morale, blocks' flags; DBX terrain, scale, elements' quality...)")
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
    p.set_defaults(run=run)


def _setup(args):
    """(layout, roster, camera intrinsics, frame stream factory, scripted inputs or None)."""
    from calibration.camera import load_camera
    from calibration.layout import load_layout
    from fieldglass.recording import open_frames
    from vision.roster import load_roster

    if args.source == "scripted":
        from vision.scripted import scripted_game

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
        from vision.synthetic import VirtualCamera, demo_scene

        scene = demo_scene()
        lay = scene.layout
        cam = VirtualCamera.looking_at_table(lay.width_mm, lay.depth_mm, (1920, 1080))
        layout, roster, intr = lay, scene.roster, cam.intrinsics
    else:
        missing = [n for n in ("camera", "layout", "roster") if not getattr(args, n)]
        if missing:
            raise InputError(f"--source {args.source}: needs " + ", ".join(f"--{n}" for n in missing))
        intr, layout, roster = load_camera(args.camera), load_layout(args.layout), load_roster(args.roster)

    def frames(start):
        stream = open_frames(args.source, args.fps, start, args.frames)
        return stream.frames, stream.total

    return layout, roster, intr, frames, None, args.source


def wiener_plan(args):
    """The Wiener Napoleon recording (and the scripted game): pieces on the square grid, combats by rules/wiener."""
    from fieldglass.recording import (
        GameRecorder,
        RecordingPlan,
        load_inputs,
        options_and_players,
        record_meta,
        table_reader,
    )

    layout, roster, intr, frames, script_inputs, source = _setup(args)
    inputs = script_inputs if script_inputs is not None else load_inputs(args.inputs)
    if args.inputs and script_inputs is not None:
        inputs = load_inputs(args.inputs)
    opts, players = options_and_players(args)
    meta = record_meta(args.system, layout, roster, intr, opts, players, source)

    def start(record, config, on_event):
        return GameRecorder.start(record, roster, config, intr, on_event=on_event)

    return RecordingPlan(meta, frames, table_reader(layout, roster, intr, source), inputs, start)


def run(args) -> int:
    from fieldglass.recording import check_timing, record_game
    from rules.system import system_names

    if args.system not in system_names():
        raise InputError(f"--system {args.system!r}: unknown rules system (known: {' '.join(system_names())})")
    check_timing(args)
    if args.system == "marengo":
        from fieldglass.recording_marengo import marengo_plan

        plan = marengo_plan(args)
    elif args.system == "dbx":
        from fieldglass.recording_dbx import dbx_plan

        plan = dbx_plan(args)
    else:
        plan = wiener_plan(args)
    return record_game(args, plan)
