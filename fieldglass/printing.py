"""Printed material at exact physical size: marker sheets, anchor sheets, calibration boards and unit QR cards.

Pages are laid out here as plain items in page millimetres (origin at the paper's top-left corner, y down) and
drawn into a PDF by gui/pdf.py (Qt's QPdfWriter + QPainter, imported only when writing: Qt stays in gui/). A PDF
page is the paper itself (A4 210 x 297 mm or US Letter 215.9 x 279.4 mm, no PDF margins), so printed at 100 % every
millimetre here is a millimetre on paper. Markers are drawn from cv2.aruco.generateImageMarker at one image pixel
per module, scaled to their exact side without smoothing: the edges are as sharp as the printer makes them.

Every page carries a 100 mm scale bar and the words "print at 100%"; `measure_print` checks a printed page from a
photo of it lying next to the table's anchors (`fieldglass check-print`).

Unit cards carry a QR code whose payload is compact JSON (`card_payload`, read back by `parse_card_payload`)::

    {"fieldglass":"unit","unit":"fr-1","pieces":[["fr-1-1","infantry"],["fr-1-2","infantry"]]}
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np

from calibration.intrinsics import BoardSpec, charuco_board
from calibration.layout import TableLayout
from calibration.projection import pixels_to_table
from calibration.registration import estimate_pose
from common.errors import InputError
from common.files import read_toml
from common.outfiles import output_file
from vision.markers import aruco_dictionary, detect_markers
from vision.roster import Piece, Roster

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN_MM = 12.0  # white paper around everything: most printers cannot print the outer 4-6 mm
HEADER_MM = 12.0
FOOTER_MM = 16.0
GAP_MM = 4.0
SCALE_BAR_MM = 100.0
PRINT_NOTE = "print at 100% (actual size, no 'fit to page'): the bar must measure exactly 100 mm"
MAX_CARD_PAYLOAD = 360  # bytes of JSON per QR card; bigger units are split over several cards
CARD_MM = (90.0, 58.0)
CARD_QR_MM = 46.0
QUIET_MODULES = 1.0  # white quiet zone around every marker, in modules (bits); the detector needs half a bit


# ------------------------------------------------------------------------------------------------------------------
# Page items (page mm, y down)
# ------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MarkerItem:
    """An ArUco marker: black square of `side_mm` with its top-left corner at (x_mm, y_mm), top edge up the page."""

    marker: int
    dictionary: str
    x_mm: float
    y_mm: float
    side_mm: float
    label: str = ""
    kind: ClassVar[str] = "marker"  # drawn as an "image" item of its marker (write_pdf)

    def corners_mm(self) -> np.ndarray:
        """(4, 2) page mm in ArUco order: top-left, top-right, bottom-right, bottom-left."""
        x, y, s = self.x_mm, self.y_mm, self.side_mm
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float)


@dataclass(frozen=True)
class RectItem:
    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float
    line_mm: float = 0.0  # 0: no outline
    fill: int | None = None  # grey level 0..255, None: not filled
    dashed: bool = False
    kind: ClassVar[str] = "rect"


@dataclass(frozen=True)
class PolygonItem:
    points: tuple[tuple[float, float], ...]
    fill: int = 0
    kind: ClassVar[str] = "polygon"


@dataclass(frozen=True)
class LineItem:
    x0: float
    y0: float
    x1: float
    y1: float
    line_mm: float = 0.25
    kind: ClassVar[str] = "line"


@dataclass(frozen=True)
class TextItem:
    """Text whose baseline starts at (x_mm, y_mm); `align` "left", "centre" or "right"."""

    x_mm: float
    y_mm: float
    text: str
    pt: float = 7.0
    align: str = "left"
    bold: bool = False
    kind: ClassVar[str] = "text"


@dataclass(frozen=True)
class ImageItem:
    """A grey image (uint8, 0 = black) drawn over the box without smoothing: one image pixel is one module."""

    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float
    image: np.ndarray
    payload: str = ""
    kind: ClassVar[str] = "image"


@dataclass
class Page:
    title: str
    landscape: bool = False
    items: list = field(default_factory=list)

    def markers(self) -> list[MarkerItem]:
        return [i for i in self.items if isinstance(i, MarkerItem)]

    def qr_codes(self) -> list[ImageItem]:
        return [i for i in self.items if isinstance(i, ImageItem) and i.payload]


@dataclass
class Document:
    paper: str
    pages: list[Page]
    notes: list[str] = field(default_factory=list)  # warnings for the user (e.g. a marker that crowds its base)

    def page_size_mm(self, page: Page) -> tuple[float, float]:
        w, h = PAPERS[self.paper]
        return (h, w) if page.landscape else (w, h)


def check_paper(paper: str) -> str:
    key = str(paper).lower()
    if key not in PAPERS:
        raise InputError(f"--paper {paper!r}: use a4 or letter")
    return key


def _modules(dictionary: str) -> int:
    return int(aruco_dictionary(dictionary).markerSize) + 2


COMPACT_MARGIN_MM = 6.0  # calibration boards: the largest board matters more than a generous margin
COMPACT_FOOTER_MM = 13.0


def _content_box(paper: str, landscape: bool = False, compact: bool = False) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) page mm where the page's own material goes (inside margins, header and footer).
    A compact page has narrow margins and no header: its title sits in the footer."""
    w, h = PAPERS[paper]
    if landscape:
        w, h = h, w
    if compact:
        m = COMPACT_MARGIN_MM
        return m, m, w - m, h - m - COMPACT_FOOTER_MM
    return MARGIN_MM, MARGIN_MM + HEADER_MM, w - MARGIN_MM, h - MARGIN_MM - FOOTER_MM


def _frame(page: Page, paper: str, number: int, count: int, subtitle: str = "", compact: bool = False) -> None:
    """Title, page number, the 100 mm scale bar and the print-at-100% note."""
    w, h = PAPERS[paper]
    if page.landscape:
        w, h = h, w
    if compact:
        x0, y0 = COMPACT_MARGIN_MM, h - COMPACT_MARGIN_MM - COMPACT_FOOTER_MM + 3.0
        tx = x0 + SCALE_BAR_MM + 52.0
        page.items.append(TextItem(tx, y0 + 2.6, page.title, 9, bold=True))
        page.items.append(TextItem(tx, y0 + 6.2, subtitle, 6))
    else:
        x0, y0 = MARGIN_MM, h - MARGIN_MM - FOOTER_MM + 6.0
        page.items.append(TextItem(MARGIN_MM, MARGIN_MM + 4.5, page.title, 11, bold=True))
        page.items.append(TextItem(w - MARGIN_MM, MARGIN_MM + 4.5, f"page {number} of {count}", 8, "right"))
        if subtitle:
            page.items.append(TextItem(MARGIN_MM, MARGIN_MM + 9.0, subtitle, 7))
    # Scale bar: 10 blocks of 10 mm, alternately black and outlined, ticks and labels at 0, 50, 100.
    for k in range(10):
        page.items.append(RectItem(x0 + 10 * k, y0, 10.0, 3.0, 0.2, 0 if k % 2 == 0 else None))
    for k in (0, 5, 10):
        page.items.append(LineItem(x0 + 10 * k, y0 - 1.5, x0 + 10 * k, y0 + 3.0, 0.2))
        page.items.append(TextItem(x0 + 10 * k, y0 + 6.5, f"{10 * k} mm" if k else "0", 7, "centre"))
    page.items.append(TextItem(x0 + SCALE_BAR_MM + 10.0, y0 + 2.6, "print at 100%", 10, bold=True))
    page.items.append(TextItem(x0 + SCALE_BAR_MM + 10.0, y0 + 7.0, "(actual size, no 'fit to page')", 6.5))
    if not compact:
        page.items.append(TextItem(x0, y0 + 10.5, PRINT_NOTE, 6.5))


def _finish(doc_pages: list[Page], paper: str, subtitles: Sequence[str] | str = "", compact: bool = False) -> None:
    for n, page in enumerate(doc_pages, 1):
        sub = subtitles if isinstance(subtitles, str) else subtitles[n - 1]
        _frame(page, paper, n, len(doc_pages), sub, compact)


# ------------------------------------------------------------------------------------------------------------------
# Shelf packing of rectangular cells
# ------------------------------------------------------------------------------------------------------------------


def _pack(sizes: Sequence[tuple[float, float]], paper: str, what: Sequence[str], first_top: float = 0.0):
    """Place cells (w, h) on pages in rows, in the given order; returns [(page index, x, y)] (top-left, page mm).

    `first_top` reserves that much of the first page's content height. A cell wider or taller than a page's
    content raises InputError naming it (from `what`)."""
    x0, y0, x1, y1 = _content_box(paper)
    places = []
    page, x, y, row_h = 0, x0, y0 + first_top, 0.0
    for (w, h), name in zip(sizes, what, strict=True):
        if w > x1 - x0 + 1e-9 or h > y1 - y0 + 1e-9:
            raise InputError(
                f"{name}: {w:.0f} x {h:.0f} mm does not fit on a {paper} page ({x1 - x0:.0f} x {y1 - y0:.0f} mm usable)"
            )
        if x + w > x1 + 1e-9:
            x, y, row_h = x0, y + row_h + GAP_MM, 0.0
        if y + h > y1 + 1e-9:
            page, x, y, row_h = page + 1, x0, y0, 0.0
        places.append((page, x, y))
        x += w + GAP_MM
        row_h = max(row_h, h)
    return places


def _arrow(cx: float, tip_y: float, size: float = 3.0) -> PolygonItem:
    """A filled arrow head pointing up the page with its tip at (cx, tip_y)."""
    return PolygonItem(((cx, tip_y), (cx + size * 0.6, tip_y + size), (cx - size * 0.6, tip_y + size)))


# ------------------------------------------------------------------------------------------------------------------
# Marker sheets
# ------------------------------------------------------------------------------------------------------------------

_ARROW_BAND = 4.5  # above each label: the front arrow
_TEXT_BAND = 4.0  # below each label: the piece id


def marker_sheet(roster: Roster, paper: str = "a4") -> Document:
    """Every piece's marker at its marker_mm on a label of its base_mm (cutting outline), front arrow above, id
    below; densely packed over as many pages as needed, biggest bases first."""
    paper = check_paper(paper)
    if not roster.pieces:
        raise InputError("roster: no pieces to print")
    n = _modules(roster.dictionary)
    notes = []
    order = sorted(roster.pieces, key=lambda p: (-p.base_mm[1], -p.base_mm[0]))
    sizes = [(max(p.base_mm[0], 14.0), p.base_mm[1] + _ARROW_BAND + _TEXT_BAND) for p in order]
    places = _pack(sizes, paper, [f"piece {p.id!r} (base {p.base_mm[0]:g} x {p.base_mm[1]:g} mm)" for p in order])
    pages = [Page("Fieldglass marker labels") for _ in range(max(pg for pg, _, _ in places) + 1)]
    for p, (w, _), (pg, x, y) in zip(order, sizes, places, strict=True):
        bw, bd = p.base_mm
        bx = x + (w - bw) / 2
        by = y + _ARROW_BAND
        items = pages[pg].items
        items.append(RectItem(bx, by, bw, bd, 0.15, None, dashed=True))
        cx = bx + bw / 2 + p.marker_offset_mm[0]
        cy = by + bd / 2 - p.marker_offset_mm[1]  # the base's front is up the page
        s = p.marker_mm
        items.append(MarkerItem(p.marker, roster.dictionary, cx - s / 2, cy - s / 2, s, p.id))
        items.append(_arrow(bx + bw / 2, y + 0.5, 3.0))
        items.append(TextItem(bx + bw / 2, by + bd + 3.2, f"{p.id} #{p.marker}", 6, "centre"))
        quiet = QUIET_MODULES * s / n
        if (cx - s / 2 - quiet < bx - 1e-6 or cx + s / 2 + quiet > bx + bw + 1e-6
                or cy - s / 2 - quiet < by - 1e-6 or cy + s / 2 + quiet > by + bd + 1e-6):
            notes.append(
                f"piece {p.id!r}: the {s:g} mm marker and its {quiet:.1f} mm white margin do not fit inside its "
                f"{bw:g} x {bd:g} mm base; the label is cut to the base and the detector may miss the marker"
            )
    _finish(pages, paper, f"{len(order)} pieces, {roster.dictionary}. Cut along the dashed outline (the base) and "
            "glue the label on the base with the arrow toward the base's front.")
    return Document(paper, pages, notes)


# ------------------------------------------------------------------------------------------------------------------
# Anchor sheets
# ------------------------------------------------------------------------------------------------------------------


def anchor_sheet(layout: TableLayout, paper: str = "a4") -> Document:
    """The layout's anchors at their size, each with a cutting outline around its quiet zone, its id, the table
    position where it goes and an arrow for its top edge (+y); a map of the table on the first page."""
    paper = check_paper(paper)
    n = _modules(layout.dictionary)
    x0, y0, x1, y1 = _content_box(paper)
    # The map: the table scaled into the content width, at most 50 mm high.
    scale = min((x1 - x0) / layout.width_mm, 50.0 / layout.depth_mm)
    map_w, map_h = layout.width_mm * scale, layout.depth_mm * scale
    map_top = 8.0
    reserved = map_top + map_h + 10.0
    anchors = sorted(layout.anchors, key=lambda a: a.id)
    papers = [a.size_mm * (n + 2 * QUIET_MODULES) / n for a in anchors]
    sizes = [(max(pm, 40.0), pm + _ARROW_BAND + 2 * _TEXT_BAND) for pm in papers]
    places = _pack(sizes, paper, [f"anchor {a.id} ({a.size_mm:g} mm)" for a in anchors], reserved)
    pages = [Page("Fieldglass table anchors") for _ in range(max(pg for pg, _, _ in places) + 1)]
    m = pages[0].items
    mx = x0 + (x1 - x0 - map_w) / 2
    my = y0 + map_top
    m.append(TextItem(x0, y0 + 5.0, f"Table {layout.width_mm:g} x {layout.depth_mm:g} mm seen from above: x to the "
                      "right, y away from you (the origin is the near-left corner).", 7))
    m.append(RectItem(mx, my, map_w, map_h, 0.3))
    for a in anchors:
        px, py = mx + a.x_mm * scale, my + map_h - a.y_mm * scale
        m.append(RectItem(px - 1.0, py - 1.0, 2.0, 2.0, 0.0, 0))
        m.append(TextItem(px, py - 1.6 if a.y_mm < layout.depth_mm / 2 else py + 4.0, str(a.id), 7, "centre", True))
    for a, pm, (w, _), (pg, x, y) in zip(anchors, papers, sizes, places, strict=True):
        items = pages[pg].items
        ox = x + (w - pm) / 2
        oy = y + _ARROW_BAND
        items.append(RectItem(ox, oy, pm, pm, 0.15, None, dashed=True))
        q = (pm - a.size_mm) / 2
        items.append(MarkerItem(a.id, layout.dictionary, ox + q, oy + q, a.size_mm, f"anchor {a.id}"))
        items.append(_arrow(x + w / 2, y + 0.5, 3.0))
        items.append(TextItem(x + w / 2, oy + pm + 3.4, f"anchor {a.id}: centre at x {a.x_mm:g}, y {a.y_mm:g} mm",
                              6.5, "centre", True))
        block = f", on a block: face {a.z_mm:g} mm above the cloth" if a.z_mm else ""
        items.append(TextItem(x + w / 2, oy + pm + 6.8, f"{a.size_mm:g} mm, arrow toward +y{block}", 6, "centre"))
    _finish(pages, paper, f"{len(anchors)} anchors, {layout.dictionary}. Cut along the dashed outline; glue each flat "
            "on the table (or on its block, if it says one) with its centre at the given position and the arrow "
            "pointing along +y.")
    return Document(paper, pages)


# ------------------------------------------------------------------------------------------------------------------
# Calibration boards
# ------------------------------------------------------------------------------------------------------------------


def board_sheet(board: BoardSpec, paper: str = "a4") -> Document:
    """A chessboard or ChArUco board at its exact square size, centred on one page (landscape when it fits
    better); InputError when it does not fit the paper."""
    paper = check_paper(paper)
    if board.kind == "chessboard":
        cols, rows = board.cols + 1, board.rows + 1  # squares; the spec counts inner corners
    else:
        cols, rows = board.cols, board.rows
    bw, bh = cols * board.square_mm, rows * board.square_mm
    choice = None
    for landscape in (False, True):
        x0, y0, x1, y1 = _content_box(paper, landscape, compact=True)
        if bw <= x1 - x0 + 1e-9 and bh <= y1 - y0 + 1e-9:  # the margin is the board's white border
            choice = landscape
            break
    if choice is None:
        x0, y0, x1, y1 = _content_box(paper, bw > bh, compact=True)
        largest = min((x1 - x0) / cols, (y1 - y0) / rows)
        raise InputError(
            f"board {board}: {bw:g} x {bh:g} mm does not fit on {paper} (at most {x1 - x0:.0f} x {y1 - y0:.0f} mm); "
            f"use squares of at most {math.floor(largest * 2) / 2:g} mm"
        )
    x0, y0, x1, y1 = _content_box(paper, choice, compact=True)
    ox, oy = x0 + (x1 - x0 - bw) / 2, y0 + (y1 - y0 - bh) / 2
    page = Page("Fieldglass calibration board", choice)
    if board.kind == "chessboard":
        for r in range(rows):
            for c in range(cols):
                if (r + c) % 2 == 0:
                    s = board.square_mm
                    page.items.append(RectItem(ox + c * s, oy + r * s, s, s, 0.0, 0))
        what = f"{board}: {board.cols} x {board.rows} inner corners, {board.square_mm:g} mm squares"
    else:
        cv_board = charuco_board(board)
        obj = cv_board.getObjPoints()
        ids = np.asarray(cv_board.getIds()).ravel()
        s = board.square_mm
        white = set()
        for marker_id, pts in zip(ids, obj, strict=True):
            pts = np.asarray(pts).reshape(4, 3)
            c, r = int(pts[:, 0].mean() // s), int(pts[:, 1].mean() // s)
            white.add((r, c))
            page.items.append(MarkerItem(int(marker_id), board.dictionary, ox + pts[0, 0], oy + pts[0, 1],
                                         board.marker_mm))
        for r in range(rows):
            for c in range(cols):
                if (r, c) not in white:
                    page.items.append(RectItem(ox + c * s, oy + r * s, s, s, 0.0, 0))
        what = (f"{board}: {board.cols} x {board.rows} squares of {board.square_mm:g} mm, "
                f"markers {board.marker_mm:g} mm ({board.dictionary})")
    _finish([page], paper, what + ". Glue flat on something rigid.", compact=True)
    return Document(paper, [page])


# ------------------------------------------------------------------------------------------------------------------
# Unit QR cards
# ------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitCard:
    unit: str
    pieces: tuple[tuple[str, str], ...]  # (piece id, type)
    part: int = 1
    parts: int = 1

    @property
    def payload(self) -> str:
        return card_payload(self.unit, self.pieces)


def card_payload(unit: str, pieces: Iterable[tuple[str, str]]) -> str:
    return json.dumps({"fieldglass": "unit", "unit": unit, "pieces": [[i, t] for i, t in pieces]},
                      separators=(",", ":"), ensure_ascii=False)


def parse_card_payload(payload: str) -> tuple[str, list[tuple[str, str]]] | None:
    """(unit, [(piece id, type)]) from a unit card's QR payload; None when it is not a Fieldglass unit card."""
    try:
        data = json.loads(payload)
    except (json.JSONDecodeError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("fieldglass") != "unit" or not isinstance(data.get("pieces"), list):
        return None
    pieces = []
    for entry in data["pieces"]:
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(v, str) for v in entry)):
            return None
        pieces.append((entry[0], entry[1]))
    return str(data.get("unit", "")), pieces


def unit_key(piece: Piece, units: dict[str, str] | None = None) -> str:
    """The piece's unit: the roster's `unit` field if it has one, else its id before the last '-'."""
    if units and piece.id in units:
        return units[piece.id]
    return piece.id.rsplit("-", 1)[0] if "-" in piece.id else piece.id


def roster_units(path: str | Path) -> dict[str, str]:
    """piece id -> `unit` for the roster's pieces that name one (vision.roster.Roster does not keep it)."""
    data = read_toml(path, "roster file")
    out = {}
    for p in data.get("piece", []) if isinstance(data.get("piece"), list) else []:
        if isinstance(p, dict) and isinstance(p.get("id"), str) and "unit" in p:
            if not isinstance(p["unit"], str) or not p["unit"]:
                raise InputError(f"{path} piece {p['id']!r}: 'unit' must be a non-empty text")
            out[p["id"]] = p["unit"]
    return out


def unit_cards(roster: Roster, units: dict[str, str] | None = None) -> list[UnitCard]:
    """One card per unit in roster order; a unit whose payload exceeds MAX_CARD_PAYLOAD bytes is split."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for p in roster.pieces:
        groups.setdefault(unit_key(p, units), []).append((p.id, p.type))
    cards = []
    for unit, members in groups.items():
        chunks: list[list[tuple[str, str]]] = [[]]
        for m in members:
            if chunks[-1] and len(card_payload(unit, [*chunks[-1], m]).encode()) > MAX_CARD_PAYLOAD:
                chunks.append([])
            chunks[-1].append(m)
            if len(card_payload(unit, chunks[-1]).encode()) > MAX_CARD_PAYLOAD:
                raise InputError(f"roster piece {m[0]!r}: its id and type are too long for a unit card's QR code")
        for k, chunk in enumerate(chunks, 1):
            cards.append(UnitCard(unit, tuple(chunk), k, len(chunks)))
    return cards


def qr_image(payload: str) -> np.ndarray:
    """The QR code of `payload` at one pixel per module, 0 = black, without the quiet zone (the card has one)."""
    params = cv2.QRCodeEncoder_Params()
    params.correction_level = cv2.QRCODE_ENCODER_CORRECT_LEVEL_M
    img = cv2.QRCodeEncoder.create(params).encode(payload)
    ys, xs = np.nonzero(img < 128)
    return np.ascontiguousarray(img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def card_sheet(roster: Roster, units: dict[str, str] | None = None, paper: str = "a4") -> Document:
    """One QR card per unit (CARD_MM, cutting outline), the unit's name and its pieces listed beside the code."""
    paper = check_paper(paper)
    cards = unit_cards(roster, units)
    if not cards:
        raise InputError("roster: no pieces to print")
    places = _pack([CARD_MM] * len(cards), paper, [f"card {c.unit}" for c in cards])
    pages = [Page("Fieldglass unit cards") for _ in range(max(pg for pg, _, _ in places) + 1)]
    for card, (pg, x, y) in zip(cards, places, strict=True):
        items = pages[pg].items
        w, h = CARD_MM
        items.append(RectItem(x, y, w, h, 0.15, None, dashed=True))
        img = qr_image(card.payload)
        modules = img.shape[0]
        qr = min(CARD_QR_MM, (h - 6.0) * modules / (modules + 8))  # leave a 4-module quiet zone
        qx, qy = x + 4.0 * qr / modules + 1.0, y + (h - qr) / 2
        items.append(ImageItem(qx, qy, qr, qr, img, card.payload))
        tx = qx + qr + 4.0 * qr / modules + 1.0
        name = card.unit + (f" ({card.part}/{card.parts})" if card.parts > 1 else "")
        items.append(TextItem(tx, y + 7.0, name, 9, bold=True))
        items.append(TextItem(tx, y + 11.0, f"{len(card.pieces)} piece{'s' * (len(card.pieces) != 1)}", 6.5))
        line = 3.0
        room = int((h - 16.0) // line)
        shown = card.pieces if len(card.pieces) <= room else card.pieces[: room - 1]
        for k, (pid, ptype) in enumerate(shown):
            items.append(TextItem(tx, y + 15.5 + k * line, f"{pid}  {ptype}", 6))
        if len(shown) < len(card.pieces):
            items.append(TextItem(tx, y + 15.5 + len(shown) * line, f"... and {len(card.pieces) - len(shown)} more", 6))
    _finish(pages, paper, f"{len(cards)} cards. Hold a card under the camera to add its unit's pieces to the game.")
    return Document(paper, pages)


# ------------------------------------------------------------------------------------------------------------------
# PDF output (drawn by gui/pdf.py)
# ------------------------------------------------------------------------------------------------------------------


def marker_image(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker's black square at one pixel per module (0 = black)."""
    n = _modules(dictionary)
    return cv2.aruco.generateImageMarker(aruco_dictionary(dictionary), int(marker_id), n, borderBits=1)


def drawable_pages(doc: Document) -> list[Page]:
    """The document's pages as gui/pdf.py draws them: every marker an "image" item of its black square over the
    same box (one array per marker, shared, so the PDF embeds each marker once); every other item as it is."""
    images: dict[tuple[str, int], np.ndarray] = {}
    out = []
    for page in doc.pages:
        items = []
        for item in page.items:
            if isinstance(item, MarkerItem):
                key = (item.dictionary, item.marker)
                if key not in images:
                    images[key] = marker_image(*key)
                item = ImageItem(item.x_mm, item.y_mm, item.side_mm, item.side_mm, images[key])
            items.append(item)
        out.append(Page(page.title, page.landscape, items))
    return out


def write_pdf(doc: Document, path: str | Path, inputs: Iterable[str | Path] = ()) -> Path:
    """Write the document as a PDF whose pages are exactly the paper (A4 or Letter), whole or not at all, never
    over one of `inputs` (the files it was made from)."""
    try:
        from gui.pdf import render_pdf  # noqa: PLC0415  (PySide6 is an optional extra: needed only here)
    except ImportError as exc:
        raise InputError(f"printing needs PySide6 (pip install -e '.[gui]'): {exc}") from None
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder, expected a PDF file name")
    if not path.parent.is_dir():
        raise InputError(f"{path}: folder {path.parent} does not exist")
    pages = drawable_pages(doc)
    with output_file(path, inputs) as tmp:  # a PDF that fails half-way leaves nothing behind
        render_pdf(pages, doc.paper, tmp, doc.pages[0].title if doc.pages else "Fieldglass")
        if not tmp.is_file() or tmp.stat().st_size == 0:
            raise InputError(f"{path}: cannot write the PDF")
    return path


# ------------------------------------------------------------------------------------------------------------------
# Checking a print from a photo (no Qt)
# ------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeasuredMarker:
    marker: int
    name: str
    measured_mm: float  # mean side of the black square in table mm, measured on the plane at `height_mm`
    expected_mm: float
    height_mm: float = 0.0  # the height above the cloth it was measured at (a label on its base: marker_height_mm)

    @property
    def scale(self) -> float:
        return self.measured_mm / self.expected_mm


@dataclass(frozen=True)
class PrintCheck:
    markers: tuple[MeasuredMarker, ...]
    anchors_used: tuple[int, ...]
    reprojection_px: float
    tolerance: float

    @property
    def scale(self) -> float | None:
        """Median measured / expected side over the page's markers."""
        return float(np.median([m.scale for m in self.markers])) if self.markers else None

    @property
    def ok(self) -> bool:
        return self.scale is not None and abs(self.scale - 1.0) <= self.tolerance

    def lines(self) -> list[str]:
        out = [f"table pose from anchors {list(self.anchors_used)}, reprojection {self.reprojection_px:.2f} px"]
        out.append(f"  {'marker':>6}  {'what':<16}{'at mm':>6}{'measured mm':>12}{'expected mm':>12}{'scale':>9}")
        for m in self.markers:
            out.append(f"  {m.marker:>6}  {m.name[:16]:<16}{m.height_mm:>6.0f}{m.measured_mm:>12.2f}"
                       f"{m.expected_mm:>12.2f}{100 * m.scale:>8.1f}%")
        s = self.scale
        if s is None:
            out.append("no printed markers found next to the anchors")
        elif self.ok:
            out.append(f"printed at {100 * s:.1f} % of the intended size: OK (within {100 * self.tolerance:g} %)")
        else:
            out.append(f"printed at {100 * s:.1f} % of the intended size: NOT at 100 % - print again at actual size "
                       "(turn off 'fit to page' / 'scale to fit')")
            if any(m.height_mm for m in self.markers):
                out.append("  (each label measured at its height on its base, the roster's marker_height_mm; a sheet "
                           "lying flat on the cloth: --flat)")
        return out


def measure_print(
    image: np.ndarray, camera, layout: TableLayout, expected: dict[int, tuple[str, float, float]],
    tolerance: float = 0.015, dictionary: str | None = None,
) -> PrintCheck:
    """Measure the printed markers in a photo of them beside the table's anchors: labels on their bases, or a page
    lying flat on the table.

    The table pose comes from the layout's anchors (calibration.registration); every other marker in `expected`
    (id -> (name, side mm, height mm)) is mapped onto the plane at its height above the cloth (a label on its base:
    the roster's marker_height_mm; a page lying flat: 0; calibration.projection) and its four sides measured in mm,
    so that what it reads is the printer's scaling alone: a label 25 mm up measured on the cloth reads 2.5 % large
    from a metre. A printed copy of an anchor (same id as a table anchor) is told apart by its size and measured
    too. Raises InputError when fewer than 2 anchors are seen.
    """
    found = detect_markers(image, dictionary or layout.dictionary)
    by_id: dict[int, list[np.ndarray]] = {}
    for m in found:
        by_id.setdefault(m.id, []).append(m.corners)
    anchors = {i: c[0] for i, c in by_id.items() if layout.anchor(i) is not None and len(c) == 1}
    pose = estimate_pose(anchors, layout, camera)
    if pose is None:
        raise InputError(
            f"photo: only {len(anchors)} of the layout's anchors seen once (ids {sorted(anchors)}); need 2 to measure"
        )
    measured = []
    for marker_id in sorted(by_id):
        if marker_id not in expected:
            continue
        name, exp, height = expected[marker_id]
        for corners in by_id[marker_id]:
            anchor = layout.anchor(marker_id)
            if anchor is not None:
                where = pixels_to_table(corners, camera, pose, anchor.z_mm).mean(axis=0)
                if np.hypot(*(where - (anchor.x_mm, anchor.y_mm))) < anchor.size_mm:
                    continue  # the table's own anchor, not a printed copy
            mm = pixels_to_table(corners, camera, pose, height)
            side = float(np.linalg.norm(mm - np.roll(mm, 1, axis=0), axis=1).mean())
            measured.append(MeasuredMarker(marker_id, name, side, exp, height))
    return PrintCheck(tuple(measured), tuple(pose.anchors), float(pose.reprojection_px), tolerance)
