"""fieldglass print: marker labels, table anchors, calibration boards and unit QR cards as PDFs at exact size."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from calibration.intrinsics import parse_board
from calibration.layout import layout_to_toml, load_layout
from calibration.rig import load_rig_entries
from common.errors import InputError
from common.outfiles import check_output, write_text
from fieldglass.boards import board_layout
from fieldglass.printing import anchor_sheet, board_sheet, card_sheet, marker_sheet, roster_units, unit_cards, write_pdf
from fieldglass.rig_layout import rig_anchor_lines, rig_layout
from fieldglass.setup import read_roster
from rules.board import load_board

EPILOG = """\
examples:
  fieldglass print markers --roster roster.toml --out labels.pdf
  fieldglass print anchors --layout table.toml --out anchors.pdf --paper letter
  fieldglass print anchors --board board.toml --out anchors.pdf   a printed board's own anchors
  fieldglass print anchors --rig rig.toml --layout table.toml --out anchors.pdf --layout-out table-rig.toml
  fieldglass print board chessboard:9x6:25 --out board.pdf
  fieldglass print board charuco:7x5:30:22:DICT_4X4_50 --out board.pdf
  fieldglass print cards --roster roster.toml --out cards.pdf

Pages are A4 (default) or US Letter and must be printed at 100 % ("actual size", no "fit to page"): every page
carries a 100 mm scale bar to check with a ruler, or photograph the page next to the table's anchors and run
`fieldglass check-print`. Marker labels: the dashed outline is the base (cut along it), the arrow points to the
base's front. Unit cards: one QR card per unit (the roster's `unit` field, else the piece id before its last '-');
the QR payload is JSON: {"fieldglass":"unit","unit":NAME,"pieces":[[ID,TYPE],...]}.

Anchors for a rig (--rig RIG.toml, each camera with its footprint_mm, as `fieldglass plan --rig-out` writes it; the
camera files need not exist yet): the anchors are placed anew, 2 at the ends of every overlap strip between
neighbouring cameras and up to 4 in each camera's footprint (corners first), each whole inside them with its quiet
zone. The table, dictionary and grid come from --layout (its own anchors are replaced), or without it the table is
the footprints' bounding box and the dictionary DICT_4X4_250. The placed [[anchor]] entries are printed (with which
camera sees which anchor), --layout-out writes the whole layout with them, and the PDF holds them.

Raised anchors: glue two or four of the anchors on blocks 50-60 mm high along the table's long edges, and give each
its block's height as `z_mm` in the layout (the height of the printed face above the cloth, measured with a ruler).
Anchors at two heights pin the camera's pose down better than flat ones, and let `fieldglass calibrate table` refine
the lens (focal length, optical centre, k1) from a single photo of the table.
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "print",
        help="marker labels, anchors, calibration boards and unit QR cards as exact-size PDFs",
        description="Write printable PDFs at exact physical size (print them at 100 %).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = p.add_subparsers(dest="what", metavar="WHAT", required=True)

    def common(q, out_help: str) -> None:
        q.add_argument("--out", required=True, type=Path, metavar="PDF", help=out_help)
        q.add_argument("--paper", default="a4", type=str.lower, choices=("a4", "letter"), help="paper (default a4)")

    m = which.add_parser("markers", help="every roster piece's marker on a label the size of its base",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    m.add_argument("--roster", required=True, type=Path, metavar="ROSTER.toml")
    common(m, "the PDF to write")
    m.set_defaults(run=run_markers)

    a = which.add_parser("anchors", help="the layout's anchor markers with ids and table positions",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--layout", type=Path, metavar="LAYOUT.toml", help="the table layout (needed without --rig)")
    a.add_argument("--board", type=Path, metavar="BOARD.toml",
                   help="a printed board's anchors (a system on a printed board: the board is the table)")
    a.add_argument("--rig", type=Path, metavar="RIG.toml", help="place the anchors for this rig's camera footprints")
    a.add_argument("--anchor-mm", type=float, metavar="MM",
                   help="--rig: side of the placed anchors' black square (default: the layout's first anchor, else 50)")
    a.add_argument("--layout-out", type=Path, metavar="LAYOUT.toml", help="--rig: write the layout with the anchors")
    common(a, "the PDF to write")
    a.set_defaults(run=run_anchors)

    b = which.add_parser("board", help="a chessboard or ChArUco calibration board that fits the page",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("board", metavar="BOARD", help="chessboard:COLSxROWS:SQUARE_MM or charuco:COLSxROWS:SQ:MK:DICT")
    common(b, "the PDF to write")
    b.set_defaults(run=run_board)

    c = which.add_parser("cards", help="one QR card per unit of the roster",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("--roster", required=True, type=Path, metavar="ROSTER.toml")
    common(c, "the PDF to write")
    c.set_defaults(run=run_cards)


def _write(doc, out: Path, what: str, inputs=()) -> int:
    write_pdf(doc, out, inputs)
    for note in doc.notes:
        print(f"fieldglass: warning: {note}", file=sys.stderr)
    pages = len(doc.pages)
    print(f"{out}: {what} on {pages} {doc.paper.upper() if doc.paper == 'a4' else 'Letter'} page"
          f"{'s' * (pages != 1)}; print at 100 % and check the 100 mm scale bar")
    return 0


def run_markers(args) -> int:
    check_output(args.out, (args.roster,))
    roster = read_roster(args.roster)
    return _write(marker_sheet(roster, args.paper), args.out, f"{len(roster.pieces)} marker labels", (args.roster,))


def run_anchors(args) -> int:
    if args.board is not None:
        if args.layout is not None or args.rig is not None or args.anchor_mm is not None or args.layout_out:
            raise InputError("print anchors --board: prints the board's own anchors; leave out --layout, --rig, "
                             "--anchor-mm and --layout-out")
        check_output(args.out, (args.board,))
        layout = board_layout(load_board(args.board))
        return _write(anchor_sheet(layout, args.paper), args.out, f"{len(layout.anchors)} board anchors",
                      (args.board,))
    if args.rig is None:
        if args.layout is None:
            raise InputError("print anchors: needs --layout LAYOUT.toml (or --rig RIG.toml to place anchors for a rig)")
        if args.anchor_mm is not None or args.layout_out is not None:
            raise InputError("print anchors: --anchor-mm and --layout-out go with --rig")
        check_output(args.out, (args.layout,))
        layout = load_layout(args.layout)
        return _write(anchor_sheet(layout, args.paper), args.out, f"{len(layout.anchors)} anchors", (args.layout,))
    inputs = (args.layout, args.rig)
    check_output(args.out, inputs)
    if args.layout_out is not None:
        check_output(args.layout_out, (*inputs, args.out))
    layout, seen = rig_layout(load_rig_entries(args.rig), load_layout(args.layout) if args.layout else None,
                              args.anchor_mm)
    print("\n".join(rig_anchor_lines(layout, seen)))
    if args.layout_out is not None:
        write_text(args.layout_out, layout_to_toml(layout), inputs)
        print(f"{args.layout_out}: the layout with {len(layout.anchors)} anchors placed for the rig")
    return _write(anchor_sheet(layout, args.paper), args.out, f"{len(layout.anchors)} anchors", inputs)


def run_board(args) -> int:
    board = parse_board(args.board)
    return _write(board_sheet(board, args.paper), args.out, f"calibration board {board}")


def run_cards(args) -> int:
    check_output(args.out, (args.roster,))
    roster = read_roster(args.roster)
    units = roster_units(args.roster)
    return _write(card_sheet(roster, units, args.paper), args.out, f"{len(unit_cards(roster, units))} unit cards",
                  (args.roster,))
