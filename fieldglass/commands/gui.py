"""fieldglass gui: the dashboard (PySide6) over the camera, or headless without a display."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

from calibration.projector import load_projector
from calibration.rig import load_rig
from common.errors import InputError
from common.outfiles import check_image_name, check_not_input
from fieldglass.commands.demo import _resolution
from fieldglass.rig_recording import rig_sources
from fieldglass.setup import load_setup
from fieldglass.setup_report import rehearsal_resolution
from fieldglass.web.server import spectators
from rules.system import default_system, registered_names

EPILOG = """\
examples:
  fieldglass gui                                           the synthetic demo table, its own camera and files
  fieldglass gui --source 0 --camera cam.json --layout table.toml --roster roster.toml
  fieldglass gui --source game.mp4 --camera cam.json --layout table.toml --roster roster.toml --game start.json
  fieldglass gui --system NAME                             that system's demo table (fieldglass systems lists them)
  fieldglass gui --source synthetic --layout table.toml --roster roster.toml    your own table, rendered
  fieldglass gui --headless --frames 5 --screenshot out/gui.png --select fr-a-1
  fieldglass gui --rig rig.toml --layout table.toml --roster roster.toml
                                      two or more cameras: each camera's source from the rig file
  fieldglass gui --rig rig.toml --source west.mp4 --source east.mp4 --layout table.toml --roster roster.toml
  fieldglass gui --source 0 --camera cam.json --layout table.toml --roster roster.toml --record game.fgr
                                      play and record the game: every move, combat, turn, note and correction
  fieldglass gui ... --record game.fgr --resume        go on with a record (after a crash, or another evening)
  fieldglass gui ... --record game.fgr --serve 127.0.0.1:8765   spectators watch it in their browsers

--source is a camera index (0), a video or image file (or a glob), a stream URL, or 'synthetic' (the built-in
table with the system's demo, which needs no --camera, --layout, --roster or --board; with your own --layout and
--roster, your table: your anchors, your pieces where --game puts them or in their deployment zones, a rehearsal
before the camera comes; on a printed board the demo places the pieces of your roster it knows). --game reads a
position file of the system for the terrain and the pieces' state the camera cannot see (markers, formations,
bases...). A system on a printed board reads --board (its anchors register the camera; --layout only when it lies
on a table with anchors of its own).

With --rig (a rig file: `fieldglass plan --rig-out`, README "Rig") every camera of the rig is read at once, one
capture thread each: the dashboard shows each camera's live view side by side, with the pieces drawn as that
camera sees them, and one board view of the whole table composed from all of them. The pieces are read as one
table (each camera registered from the anchors it sees, pieces two cameras see fused); a hand any camera sees
over a piece holds it where it was, and a camera that stalls or ends is said in the status bar while the others go
on. --source, given once per camera in the rig file's order, overrides the rig file's sources.

With --record (or File > New record, Ctrl+R) the dashboard records the game as `fieldglass record` does, in the
same crash-safe .fgr: the camera's committed moves, and every player's action as it is made (a combat resolved
and applied in the combat panel, Next phase, a marker or formation set in the game-state panel, a system's own
panel actions, a note M, a bookmark B, a piece placed by hand E, a missing piece confirmed, the end Ctrl+E);
Ctrl+Z / Ctrl+Shift+Z undo and redo the record's last event. The status bar shows the record, its events and the
last committed move; questions the recorder cannot decide (a piece missing, a move onto a field's edge) wait
above the views without stopping the game. Game > End game writes the report and the HTML replay.

Dice: for a system that rolls dice, throw them in the layout's [dice_tray] (or anywhere off the bases without one).
When they have lain still for a moment their values fill the combat panel's dice for the selected action, left to
right along the table, with a picture of the throw numbered the same; a new throw replaces them, and you may type
over them. The record keeps the dice as read and whether they were taken or typed over. With --rig the dice are
watched through the camera that sees the tray (else the table) largest. --no-dice turns it off.

Without a display (no DISPLAY or WAYLAND_DISPLAY, QT_QPA_PLATFORM unset), or with --headless, the dashboard runs
offscreen: it processes --frames frames, prints the pieces it sees with their fields and the targets of one piece,
saves a screenshot of the window to --screenshot and exits.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "gui",
        help="the dashboard: live table, fire lines, ranges, combat and game state",
        description="Open the Fieldglass dashboard on a camera, a video, photos or the synthetic table.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--source", action="append", metavar="SOURCE",
                   help="camera index, file, glob, folder of frames, URL or 'synthetic' (default); with --rig, once "
                        "per camera in the rig file's order (default: the rig file's sources)")
    p.add_argument("--rig", metavar="RIG.toml", help="several cameras over the table (a rig file: each camera's lens "
                   "file and source); excludes --camera")
    p.add_argument("--camera", metavar="CAM.json", help="camera file (not needed for synthetic)")
    p.add_argument("--layout", metavar="LAYOUT.toml", help="table layout (synthetic: the demo layout)")
    p.add_argument("--roster", metavar="ROSTER.toml", help="roster (synthetic: the demo roster)")
    p.add_argument("--system", metavar="NAME",
                   help=f"rules system: {', '.join(registered_names())} (default: the registry's default system)")
    p.add_argument("--game", metavar="POSITION.json", help="position file: terrain and the pieces' game state")
    p.add_argument("--board", metavar="BOARD.toml",
                   help="printed board (a system on a printed board; synthetic: its demo board)")
    p.add_argument("--options", metavar="RULES.toml", help="rules options (default: the digest's readings)")
    p.add_argument("--no-refine-lens", action="store_true",
                   help="read with the camera file's lens as it is (by default the lens is refined from the table "
                        "where that is measurably better, once from the first frame that allows it)")
    p.add_argument("--no-dice", action="store_true",
                   help="do not read thrown dice (by default, for a system that rolls dice, a throw that settles in "
                        "the layout's [dice_tray], else anywhere off the bases, fills the combat panel's dice)")
    p.add_argument("--projector", metavar="PROJECTOR.json",
                   help="a projector file (fieldglass calibrate projector): draw the selected piece's arcs, ranges "
                        "and fire lines onto the cloth, full screen on the projector's display")
    p.add_argument("--headless", action="store_true", help="run offscreen even with a display")
    p.add_argument("--frames", type=int, default=None, metavar="N",
                   help="stop after N frames (headless default 3)")
    p.add_argument("--screenshot", type=Path, default=Path("out/gui.png"), metavar="PNG",
                   help="headless: where to save the window (default out/gui.png)")
    p.add_argument("--select", metavar="ID", help="select this piece at start")
    p.add_argument("--resolution", type=_resolution, default=None, metavar="WxH",
                   help="synthetic source resolution (default 1920x1080; your own table's: the first of 1920x1080 "
                        "and 3840x2160 that reads its markers)")
    p.add_argument("--hand", action="store_true", help="synthetic: a hand reaches over the table now and then")
    p.add_argument("--record", metavar="GAME.fgr", help="record the game into this file (a new one; with --resume "
                   "the existing one goes on)")
    p.add_argument("--resume", action="store_true", help="with --record: go on with an existing record")
    p.add_argument("--serve", metavar="HOST:PORT", help="with --record: show the game live to spectators' browsers "
                   "(as `fieldglass serve GAME.fgr`)")
    p.add_argument("--join-by-cards", action="store_true",
                   help="start with no unit in the game: each joins when its QR card (fieldglass print cards) is "
                        "held under the camera")
    p.set_defaults(run=run)


def load_gui_setup(args):
    """The set-up for --system (its files read; InputError, one line, on any problem): the dashboard is handed it
    and makes its live session from it (`setup.make_session()`)."""
    rig = getattr(args, "rig", None)
    camera = str(load_rig(rig).cameras[0].intrinsics_path) if rig else args.camera
    setup = load_setup(args.system, args.source, camera, args.layout, args.roster, args.game,
                       getattr(args, "board", None), getattr(args, "options", None))
    if rig:
        setup = _rig_setup(args, setup)
    if getattr(args, "join_by_cards", False):
        setup = dataclasses.replace(setup, join_by_cards=True)
    if getattr(args, "no_refine_lens", False):
        setup = dataclasses.replace(setup, refine_lens=False)
    if getattr(args, "no_dice", False):
        setup = dataclasses.replace(setup, read_dice=False)
    return setup


def _rig_setup(args, setup):
    """The set-up over a rig: each camera's name, lens and source (its --source, else the rig file's)."""
    rig = load_rig(args.rig)
    sources = rig_sources(rig, args.rig, args.sources)
    return dataclasses.replace(setup, rig=tuple((c.name, c.intrinsics, src)
                                                for c, src in zip(rig.cameras, sources, strict=True)))


def _check_sources(args) -> None:
    """--source once (or none: the synthetic table) without --rig; --rig with neither --camera nor synthetic."""
    args.sources = list(args.source or [])
    if args.rig:
        if args.camera:
            raise InputError("--rig and --camera: a rig's cameras are its own lens files; give one or the other")
        if "synthetic" in args.sources:
            raise InputError("--rig: --source synthetic is one rendered camera; a rig reads videos, folders of "
                             "frames or cameras")
        args.source = args.rig
        return
    if len(args.sources) > 1:
        raise InputError(f"--source given {len(args.sources)} times: one source without --rig (several cameras "
                         "over the table need a rig file, --rig RIG.toml)")
    args.source = args.sources[0] if args.sources else "synthetic"


def _check_record(args) -> None:
    """--resume and --serve go with --record; a record never over one of the inputs."""
    record = getattr(args, "record", None)
    if record is None:
        for flag in ("resume", "serve"):
            if getattr(args, flag, None):
                raise InputError(f"--{flag} goes with --record GAME.fgr")
        return
    if not str(record).endswith(".fgr"):
        raise InputError(f"--record {record}: a game record is a .fgr file")
    check_not_input(record, (*args.sources, args.rig, args.camera, args.layout, args.roster, args.game,
                             getattr(args, "board", None), getattr(args, "options", None)))


def run(args) -> int:
    """Build the set-up from the files and hand it to the dashboard (gui/app.py), headless without a display."""
    if args.frames is not None and args.frames < 1:
        raise InputError(f"--frames {args.frames}: must be at least 1")
    _check_sources(args)
    _check_record(args)
    check_image_name(args.screenshot, (*args.sources, args.rig, args.camera, args.layout, args.roster, args.game,
                                       getattr(args, "board", None), getattr(args, "options", None)))
    args.system = args.system or default_system()
    projector = load_projector(args.projector) if getattr(args, "projector", None) else None
    try:
        from gui import app as dashboard  # noqa: PLC0415  (PySide6: the command line starts without Qt)
        from gui import qtapp  # noqa: PLC0415  (PySide6: the command line starts without Qt)
    except ImportError as exc:
        raise InputError(f"the dashboard needs PySide6: pip install 'fieldglass[gui]' ({exc})") from None
    reason = qtapp.headless_reason(bool(args.headless))
    headless = reason is not None
    if args.frames is None and headless:
        args.frames = 3
    if headless:
        print(f"{reason}: running headless with QT_QPA_PLATFORM={os.environ['QT_QPA_PLATFORM']}, "
              f"{args.frames} frame(s), then a screenshot")
    qtapp.application()  # first: a bad file becomes a message box on a display
    record = getattr(args, "record", None)
    try:
        setup = load_gui_setup(args)
        recording = setup.open_recording(record, args.resume) if record is not None else None
    except InputError as exc:
        if headless:
            raise
        dashboard.error_dialog(str(exc))  # on a display: a message box, and the line on the terminal
        print(f"fieldglass: error: {exc}", file=sys.stderr)
        return 2
    if args.resolution is None:  # the player's own table is rendered sharp enough to read every marker
        own = args.source == "synthetic" and (args.layout or args.roster) and setup.scene is not None
        args.resolution = rehearsal_resolution(setup.scene) if own else (1920, 1080)
    if recording is None:
        return dashboard.show_dashboard(setup, headless=headless, frames=args.frames, select=args.select,
                                        screenshot=args.screenshot, projector=projector,
                                        source_options={"resolution": args.resolution, "hand": args.hand})
    print(f"recording {record}" + (" (resumed)" if args.resume else ""), flush=True)
    with spectators(record, args.serve):
        return dashboard.show_dashboard(setup, headless=headless, frames=args.frames, select=args.select,
                                        screenshot=args.screenshot, recording=recording, projector=projector,
                                        source_options={"resolution": args.resolution, "hand": args.hand})
