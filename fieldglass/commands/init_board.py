"""fieldglass init for a system on a printed board: the board (the system's shipped one, the player's own file, or
none yet), the camera, and the pieces the system ships; writes the roster, the board file, the start position, the
sheets and GAME.md (fieldglass/new_board_table.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from common.errors import InputError
from common.outfiles import write_text
from fieldglass.boards import board_layout
from fieldglass.commands.init_ask import _given, ask_camera
from fieldglass.new_board_table import (
    NONE_YET,
    SHIPPED,
    BoardTable,
    choose_board,
    make_board_table,
    shipped_board,
    table_extent,
)
from fieldglass.new_table import BOARD, Answers
from fieldglass.new_table import type_counts as _count
from fieldglass.planning import parse_pair
from fieldglass.printing import anchor_sheet, board_sheet, marker_sheet, write_pdf
from rules.system import GameSystem
from vision.roster import roster_to_toml

NAMES = {"roster": "roster.toml", "game": "GAME.md", "markers": "markers.pdf", "anchors": "anchors.pdf",
         "calibration": "calibration-board.pdf", "board_file": "board.toml", "start": "start.json"}


def _unused(args, gs: GameSystem) -> None:
    for flag, value in (("--grid", args.grid), ("--army", args.army), ("--base", args.base)):
        if value:
            raise InputError(f"{flag}: {gs.name} is played on its printed board with the pieces its package ships "
                             f"(fieldglass init --system {gs.name} takes --board, the camera and --height)")
    if args.raised:
        raise InputError(f"--raised: the anchors of {gs.name}'s board are printed on it, flat")


def board_answers(args, gs: GameSystem, ask):
    """(Answers, board, the player's board path): the board, then the camera as `plan` takes it."""
    _unused(args, gs)
    board, path = _given(args.board, lambda t: choose_board(gs, t), ask,
                         f"Board: {SHIPPED} (the one {gs.name} ships), your board file, or {NONE_YET} (digitise it "
                         "first)",
                         SHIPPED, "--board")
    if board is not None:
        if args.table:
            raise InputError(f"--table: the board is the table ({board.width_mm:g} x {board.depth_mm:g} mm); leave it "
                             f"out, or give --board {NONE_YET} to plan for a board not digitised yet")
        extent = table_extent(gs, board, gs.live.surface_boards(board))
    else:
        ship = shipped_board(gs)
        default = table_extent(gs, ship, gs.live.surface_boards(ship))
        extent = _given(args.table, lambda t: parse_pair(t, "--table"), ask,
                        "Your board's width x depth in mm (with what lies beside it)",
                        f"{default[0]:g}x{default[1]:g}", "--table")
    resolution, fov, height = ask_camera(args, ask, extent, "board")
    answers = Answers(gs.name, extent, None, resolution, fov, height, (), args.fov_kind)
    return answers, board, path


def run_board(args, gs: GameSystem, ask, folder: Path, write_new) -> int:
    answers, board, path = board_answers(args, gs, ask)
    table = make_board_table(gs, answers, board, path)
    names = _names(table)
    surfaces = table.surfaces if board is not None else {}
    targets = {k: folder / v for k, v in names.items()}
    for target in targets.values():
        if target.exists():
            raise InputError(f"{target}: already exists; fieldglass init never writes over a file (choose another "
                             "folder, or move it away)")
    docs = {"markers": marker_sheet(table.roster, args.paper)}
    if board is not None:
        docs["anchors"] = anchor_sheet(board_layout(board), args.paper)
        for name, other in surfaces.items():
            docs[f"anchors:{name}"] = anchor_sheet(board_layout(other), args.paper)
    docs["calibration"] = board_sheet(table.calibration, args.paper)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{folder}: cannot make the folder ({exc.strerror or exc})") from None
    for key, doc in docs.items():
        write_new(targets[key], lambda tmp, doc=doc: write_pdf(doc, tmp))
    header = f"# The roster of a {gs.name} table on its printed board, written by `fieldglass init` (see GAME.md).\n"
    write_new(targets["roster"], lambda tmp: write_text(tmp, header + roster_to_toml(table.roster, table.extra)))
    if "board_file" in targets:
        write_new(targets["board_file"], lambda tmp: write_text(
            tmp, f"# {gs.title}'s board as the package ships it, written by `fieldglass init` (see GAME.md).\n"
                 + table.board_toml))
    if "start" in targets:
        write_new(targets["start"], lambda tmp: write_text(tmp, json.dumps(table.start, indent=1) + "\n"))
    write_new(targets["game"], lambda tmp: write_text(tmp, board_game_md(gs, answers, table, names)))
    _report(gs, table, docs, targets, names)
    return 0


def _names(table: BoardTable) -> dict[str, str]:
    """The files to write: the board file only for the shipped board, the start only where the system has one,
    an anchors sheet per surface on the table (none before the board is digitised)."""
    names = dict(NAMES)
    if table.board is None or table.board_path is not None:
        del names["board_file"]
    if table.start is None:
        del names["start"]
    if table.board is None:
        del names["anchors"]
    else:
        names.update({f"anchors:{name}": f"anchors-{name}.pdf" for name in table.surfaces})
    return names


def _report(gs: GameSystem, table: BoardTable, docs, targets, names) -> None:
    for note in (*table.notes, *(n for doc in docs.values() for n in doc.notes)):
        print(f"fieldglass: warning: {note}", file=sys.stderr)
    ros = table.roster
    sides = ", ".join(f"{s or '(none)'} {sum(p.side == s for p in ros.pieces)}"
                      for s in dict.fromkeys(p.side for p in ros.pieces))
    print(f"{targets['roster']}: {len(ros.pieces)} {gs.name} pieces ({sides}), markers "
          f"{min(p.marker for p in ros.pieces)}-{max(p.marker for p in ros.pieces)} of "
          f"{', '.join(f'{s:g}' for s in sorted({p.marker_mm for p in ros.pieces}))} mm; the camera reads "
          f"{_half_up(table.plan.smallest_marker_mm):g} mm everywhere")
    for key in ("board_file", "start", *docs):
        if key in targets and key != "roster":
            print(f"{targets[key]}: written")
    print(f"{targets['game']}: what to do next, starting with: {_next(gs, names, table.board_path)}")


def _half_up(v: float) -> float:
    return -(-v * 2 // 1) / 2


def _board_arg(names, path) -> str:
    return names.get("board_file") or path or ""


def _next(gs: GameSystem, names, path) -> str:
    board = _board_arg(names, path)
    if not board:
        return "digitise your board: fieldglass gui, Tools > Board editor"
    game = f" --game {names['start']}" if "start" in names else ""
    return f"fieldglass gui --system {gs.name} --source synthetic --board {board} --roster {names['roster']}{game}"


def board_game_md(gs: GameSystem, answers: Answers, table: BoardTable, names) -> str:
    """GAME.md for a table on a printed board: what was written and the next commands."""
    ros = table.roster
    board = _board_arg(names, table.board_path)
    rw, rh = answers.resolution
    w, d = answers.table_mm
    need = _half_up(table.plan.smallest_marker_mm)
    sides: dict[str, list] = {}
    for pc in ros.pieces:
        sides.setdefault(pc.side or "(no side)", []).append(pc)
    R, M, C = names["roster"], names["markers"], names["calibration"]
    sheets = [f"`{M}`"] + [f"`{v}`" for k, v in names.items() if k.startswith("anchors")] + [f"`{C}`"]
    if table.board is None:
        board_line = (f"- No board yet: digitise yours first in the dashboard (`fieldglass gui`, Tools > Board "
                      f"editor): its areas, and its anchors away from markers {min(p.marker for p in ros.pieces)}-"
                      f"{max(p.marker for p in ros.pieces)} of {ros.dictionary}; save it as `board.toml` here, then "
                      f"print its anchors: `fieldglass print anchors --board board.toml --out anchors.pdf`.")
    elif table.board_path is None:
        board_line = (f"- `{board}`: {gs.title}'s board as the package ships it, {table.board.width_mm:g} x "
                      f"{table.board.depth_mm:g} mm, its {len(table.board.anchors)} anchors "
                      f"({', '.join(str(a.id) for a in table.board.anchors)}) register the camera.")
    else:
        board_line = (f"- Your board `{board}`: {table.board.width_mm:g} x {table.board.depth_mm:g} mm, its "
                      f"{len(table.board.anchors)} anchors register the camera.")
    lines = [
        f"# {gs.title}: your table",
        "",
        f"Written by `fieldglass init`. The printed board is the table: its own anchors register the camera. The "
        f"camera: {rw}x{rh} ({answers.fov_deg:g} deg {answers.fov_kind} field of view), {answers.height_mm:g} mm "
        f"above the board's centre, looking straight down, seeing {w:g} x {d:g} mm"
        + (f" (the board and the {', '.join(table.surfaces)} beside it, where the demo lays them)"
           if table.surfaces and table.board is not None else "") + ". Run the commands below in this folder.",
        "",
        board_line,
        f"- `{R}`: {len(ros.pieces)} pieces of `{gs.name}` (the set the package ships), markers "
        f"{min(p.marker for p in ros.pieces)}-{max(p.marker for p in ros.pieces)} (none is an anchor of the board) "
        f"of {', '.join(f'{s:g}' for s in sorted({p.marker_mm for p in ros.pieces}))} mm, the largest each base "
        f"holds; this camera reads {need:g} mm everywhere.",
        *(f"  - {side}: {len(ps)}: {', '.join(f'{n} {t}' for t, n in _count(ps))}" for side, ps in sides.items()),
        (f"- `{names['start']}`: the position the game starts from (`--game`), the system's own start."
         if "start" in names else "- No start position: the game starts from where the camera sees the pieces."),
        f"- {', '.join(sheets)}: the marker labels, " + ("the board's anchors (one sheet per surface) and "
                                                         if table.board is not None else "")
        + f"the calibration board ({BOARD}).",
        "",
        "## Next",
        "",
    ]
    game = f" --game {names['start']}" if "start" in names else ""
    brd = f" --board {board}" if board else " --board board.toml"
    steps = []
    if table.board is None:
        steps.append("Digitise your board (above), then run `fieldglass check-setup --roster "
                     f"{R} --board board.toml --system {gs.name}`.")
    steps += [
        f"Print {', '.join(sheets)} at 100 % (\"actual size\", no \"fit to page\"): each page's scale bar must "
        "measure 100 mm.",
        "Glue each label on its piece, the arrow toward its front; glue each anchor on the board where the anchors "
        "sheet says, its arrow toward the board's top edge; glue the calibration board on card.",
        f"Rehearse before the camera comes: `fieldglass gui --system {gs.name} --source synthetic{brd} --roster {R}"
        f"{game}`.",
        f"Calibrate the camera from 10-20 sharp photos of the calibration board at the resolution you play at: "
        f"`fieldglass calibrate camera shots/*.jpg --board {BOARD} --out cam.json`.",
        f"Mount the camera {answers.height_mm:g} mm above the board, straight down, and check: `fieldglass "
        f"check-setup --system {gs.name} --roster {R}{brd} --camera cam.json --height {answers.height_mm:g}`.",
        f"Play and record: `fieldglass gui --system {gs.name} --source 0 --camera cam.json{brd} --roster {R}{game} "
        f"--record game.fgr` (or headless: `fieldglass record --system {gs.name} --source 0 --camera cam.json{brd} "
        f"--roster {R}{game} --out game.fgr`), then `fieldglass replay game.fgr`.",
    ]
    lines += [f"{n}. {s}" for n, s in enumerate(steps, 1)]
    return "\n".join(lines) + "\n"

