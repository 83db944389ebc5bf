"""fieldglass init: a new table's set-up files, asked for or given as flags: the layout, the roster, the sheets to
print at exact size and GAME.md with the next commands."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from calibration.layout import layout_to_toml
from common.errors import InputError
from common.files import MAX_MM
from common.outfiles import write_text
from common.text import name_list
from fieldglass.commands.init_ask import _Asker, _given, _positive, ask_camera
from fieldglass.commands.init_board import run_board
from fieldglass.new_table import (
    FOV_DEG,
    RESOLUTION,
    Answers,
    army_pieces,
    check_system,
    default_armies,
    game_md,
    kinds_of,
    make_table,
)
from fieldglass.planning import parse_pair
from fieldglass.printing import anchor_sheet, board_sheet, marker_sheet, write_pdf
from fieldglass.setup import own_scene
from rules.system import default_system, game_system, registered_names
from vision.roster import roster_to_toml

NAMES = {"layout": "table.toml", "roster": "roster.toml", "game": "GAME.md", "markers": "markers.pdf",
         "anchors": "anchors.pdf", "board": "board.pdf"}

EPILOG = """\
examples:
  fieldglass init mytable                       asks each answer, the default in brackets
  fieldglass init mytable --yes --system wiener --table 1800x1200
  fieldglass init mytable --yes --system wiener --table 1800x1200 --camera-resolution 3840x2160 --fov 78 \\
      --height 1500 --army FR=french-brigade --army AU=infantry:6,heavy_cavalry:2,artillery:1,general:1
  fieldglass init dbx-game --yes --system dbx --army blue=napoleonic/Preussen --army red=napoleonic/Frankreich
  fieldglass init --list-armies --system dbx    the armies a system knows

Asks, or takes as flags (--yes takes the default of every answer not given): the game system (fieldglass systems),
the table's width x depth in mm, the grid's field side (or none; a grid system needs one), the camera (resolution,
field of view, height above the table: as `fieldglass plan` takes them; the default height is the lowest from which
it sees the whole table straight down) and each side's army: a list the system knows (--list-armies) or counts per
type, TYPE:N,TYPE:N.

Writes into DIR (made if missing; default the current folder): table.toml (8 anchors at the corners and edge
midpoints, the grid), roster.toml (the system named, one piece per base with its system's base, markers after the
anchors' ids, each the largest its base holds, checked against what the camera reads everywhere on the table),
markers.pdf, anchors.pdf and board.pdf (the calibration board) to print at 100 %, and GAME.md with the next commands.
It never writes over a file: one that exists already is said in one line (exit 2) and nothing is written. Each file
is written under a temporary name and linked into place whole.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "init",
        help="a new table's files: layout, roster, the sheets to print and GAME.md, asked for or as flags",
        description="Write a new table's set-up files from a few answers (asked, or given as flags).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("dir", nargs="?", default=".", type=Path, metavar="DIR", help="the folder to write (default .)")
    p.add_argument("--yes", "-y", action="store_true", help="take the default of every answer not given as a flag")
    p.add_argument("--system", metavar="NAME", help=f"game system: {', '.join(registered_names())}")
    p.add_argument("--table", metavar="WxD", help="table width x depth in mm, e.g. 1800x1200")
    p.add_argument("--grid", metavar="MM|none", help="the grid's field side in mm, or none")
    p.add_argument("--camera-resolution", metavar="WxH", help=f"image size in px (default {RESOLUTION[0]}x"
                   f"{RESOLUTION[1]})")
    p.add_argument("--fov", type=float, metavar="DEG", help=f"field of view in degrees (default {FOV_DEG:g})")
    p.add_argument("--fov-kind", default="diagonal", choices=("diagonal", "horizontal", "vertical"))
    p.add_argument("--height", type=float, metavar="MM", help="camera height above the table (default: the lowest "
                   "that sees all of it)")
    p.add_argument("--army", action="append", metavar="SIDE=ARMY", help="a side and its army: a list's name or "
                   "counts TYPE:N,TYPE:N (once per side)")
    p.add_argument("--base", action="append", metavar="TYPE=WxD", help="a kind's base in mm instead of the system's")
    p.add_argument("--raised", type=float, default=0.0, metavar="MM",
                   help="anchors 4 and 6 (the long edges' midpoints) on blocks this high (default 0: all flat)")
    p.add_argument("--paper", default="a4", type=str.lower, choices=("a4", "letter"), help="paper (default a4)")
    p.add_argument("--board", metavar="shipped|none|BOARD.toml", help="a system on a printed board: the board "
                   "that is the table (default shipped: the system's own; none: digitise yours first)")
    p.add_argument("--list-armies", action="store_true", help="list the armies --system knows and stop")
    p.set_defaults(run=run)


def _bases(items) -> dict[str, tuple[float, float]]:
    out = {}
    for item in items or ():
        t, _, size = item.partition("=")
        if not t.strip() or not size:
            raise InputError(f"--base {item!r}: expected TYPE=WxD in mm, e.g. infantry=40x30")
        out[t.strip()] = parse_pair(size, f"--base {t.strip()}")
    return out


def _grid(gs):
    def read(text: str):
        text = str(text).strip().lower()
        if text in ("none", "no", "0", ""):
            if gs.table == "grid":
                raise InputError(f"--grid none: the {gs.name} rules are played on a square grid; give its field side "
                                 f"in mm (e.g. {gs.live.grid_field_mm:g})")
            return None
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"--grid {text!r}: a field side in mm (e.g. 60) or none") from None
        if not 5.0 <= value <= 1000.0:
            raise InputError(f"--grid {value:g}: a field side between 5 and 1000 mm")
        return value

    return read


def _table(text: str) -> tuple[float, float]:
    w, d = parse_pair(text, "--table")
    if max(w, d) > MAX_MM:
        raise InputError(f"--table {text}: at most {MAX_MM:g} mm a side")
    return w, d


def _armies(args, gs, ask, kinds):
    """(side, ((type, count), ...)) per side, from --army or asked."""
    if args.army:
        out = []
        for item in args.army:
            side, _, army = item.partition("=")
            if not side.strip() or not army.strip():
                raise InputError(f"--army {item!r}: expected SIDE=ARMY, e.g. FR=french-demo or FR=infantry:8")
            out.append((side.strip(), army_pieces(gs, army, kinds, f"--army {side.strip()}")))
        sides = [s for s, _ in out]
        if len(set(sides)) != len(sides):
            raise InputError(f"--army: side {next(s for s in sides if sides.count(s) > 1)!r} given twice")
        return tuple(out)
    defaults = dict(default_armies(gs))

    def read_sides(text: str):
        sides = [s.strip() for s in text.split(",") if s.strip()]
        if not 2 <= len(sides) <= 7 or len(set(sides)) != len(sides):
            raise InputError(f"sides {text!r}: 2 to 7 different names, comma-separated")
        return sides

    sides = ask("Sides, comma-separated", ", ".join(defaults), read_sides, "--army SIDE=ARMY")
    names = [a.name for a in gs.live.armies()]
    hint = f"a list ({name_list(names, 2)}: --list-armies) or" if names else ""
    out = []
    for k, side in enumerate(sides):
        default = defaults.get(side) or list(defaults.values())[k % len(defaults)]
        def read(text, side=side):
            return army_pieces(gs, text, kinds, f"army of {side}")

        out.append((side, ask(f"Army of {side}: {hint} counts like {next(iter(kinds))}:4", default, read,
                              f"--army {side}=ARMY")))
    return tuple(out)


def ask_system(args, ask) -> str:
    return _given(args.system, lambda t: check_system(game_system(t.strip())).name, ask,
                  f"Game system ({', '.join(registered_names())})", default_system(), "--system")


def answers_of(args, ask=None, system: str | None = None) -> Answers:
    """Every answer: the flag's, else asked (the default in brackets), else with --yes the default."""
    ask = ask or _Asker(args.yes)
    system = system or ask_system(args, ask)
    gs = game_system(system)
    live = gs.live
    table = _given(args.table, _table, ask, "Table width x depth in mm", f"{live.table_mm[0]:g}x{live.table_mm[1]:g}",
                   "--table")
    grid_q = "Grid field side in mm" + ("" if gs.table == "grid" else ", or none")
    field_mm = _given(args.grid, _grid(gs), ask, grid_q, f"{live.grid_field_mm:g}" if gs.table == "grid" else "none",
                      "--grid")
    resolution, fov, height = ask_camera(args, ask, table, "table")
    kinds = kinds_of(gs, _bases(args.base))
    armies = _armies(args, gs, ask, kinds)
    raised = _positive("--raised", 0.0, 500.0)(args.raised)
    return Answers(system, table, field_mm, resolution, fov, height, armies, args.fov_kind, _bases(args.base), raised)


def _list_armies(args) -> int:
    gs = game_system(args.system or default_system())
    armies = gs.live.armies() if gs.live is not None else ()
    if not armies:
        print(f"{gs.name} knows no army lists: give each side's counts, --army SIDE=TYPE:N,TYPE:N")
    for a in armies:
        print(f"{a.name:<34} {a.title}" + (f" (side {a.side})" if a.side else ""))
    kinds = ", ".join(k.type for k in gs.live.piece_kinds()) if gs.live is not None else ""
    if kinds:
        print(f"kinds of piece (for counts): {kinds}")
    return 0


def _write_new(path: Path, write) -> None:
    """`write(tmp)` then the file linked into place under its name: never over a file that appeared meanwhile."""
    tmp = path.with_name(f".{path.stem}.init-{os.getpid()}{path.suffix}")
    try:
        write(tmp)
        os.link(tmp, path)
    except FileExistsError:
        raise InputError(f"{path}: already exists; fieldglass init never writes over a file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def run(args) -> int:
    if args.list_armies:
        return _list_armies(args)
    folder: Path = args.dir
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder}: is a file, expected a folder to write the table's files into")
    ask = _Asker(args.yes)
    system = ask_system(args, ask)
    if game_system(system).table == "board":
        return run_board(args, game_system(system), ask, folder, _write_new)
    for flag in ("board",):
        if getattr(args, flag) is not None:
            raise InputError(f"--{flag}: goes with a system on a printed board, not {system}")
    targets = {k: folder / v for k, v in NAMES.items()}
    for path in targets.values():
        if path.exists():
            raise InputError(f"{path}: already exists; fieldglass init never writes over a file (choose another "
                             "folder, or move it away)")
    answers = answers_of(args, ask, system)
    gs = game_system(answers.system)
    table = make_table(gs, answers)
    try:  # the rehearsal table (gui --source synthetic) spreads the armies in their deployment zones
        own_scene(gs, table.layout, table.roster)
    except InputError as exc:
        print(f"fieldglass: warning: the rehearsal table cannot deploy every piece: {exc}", file=sys.stderr)
    docs = {"markers": marker_sheet(table.roster, args.paper), "anchors": anchor_sheet(table.layout, args.paper),
            "board": board_sheet(table.board, args.paper)}
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{folder}: cannot make the folder ({exc.strerror or exc})") from None
    for key, doc in docs.items():
        _write_new(targets[key], lambda tmp, doc=doc: write_pdf(doc, tmp))
    _write_new(targets["layout"], lambda tmp: write_text(tmp, _header(gs, "layout") + layout_to_toml(table.layout)))
    _write_new(targets["roster"], lambda tmp: write_text(tmp, _header(gs, "roster") + roster_to_toml(table.roster)))
    _write_new(targets["game"], lambda tmp: write_text(tmp, game_md(gs, answers, table, NAMES)))
    _report(folder, gs, answers, table, docs)
    return 0


def _header(gs, what: str) -> str:
    word = {"layout": "The table layout", "roster": "The roster"}[what]
    return f"# {word} of a {gs.name} table, written by `fieldglass init` (see GAME.md).\n"


def _report(folder: Path, gs, answers: Answers, table, docs) -> None:
    lay, ros = table.layout, table.roster
    g = lay.grid
    print(f"{folder / NAMES['layout']}: {lay.width_mm:g} x {lay.depth_mm:g} mm, {len(lay.anchors)} anchors of "
          f"{lay.anchors[0].size_mm:g} mm" + (f", a {g.cols} x {g.rows} grid of {g.field_mm:g} mm" if g else ""))
    sides = ", ".join(f"{s} {sum(p.side == s for p in ros.pieces)}" for s in dict.fromkeys(p.side for p in ros.pieces))
    sizes = sorted({p.marker_mm for p in ros.pieces})
    print(f"{folder / NAMES['roster']}: {len(ros.pieces)} {gs.name} pieces ({sides}), markers "
          f"{', '.join(f'{s:g}' for s in sizes)} mm; the camera reads "
          f"{_half_up(table.plan.smallest_marker_mm):g} mm everywhere")
    for key, doc in docs.items():
        for note in doc.notes:
            print(f"fieldglass: warning: {note}", file=sys.stderr)
        print(f"{folder / NAMES[key]}: {len(doc.pages)} page(s) to print at 100 %")
    print(f"{folder / NAMES['game']}: what to do next, starting with: fieldglass gui --source synthetic --layout "
          f"{NAMES['layout']} --roster {NAMES['roster']}")


def _half_up(v: float) -> float:
    return -(-v * 2 // 1) / 2
