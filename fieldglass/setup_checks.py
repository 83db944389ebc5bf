"""Every value of a set-up checked where it is read, each bad one said in one line naming the file, the key and the
nearest valid value (difflib, common/text.py `nearest_name`).

A roster's types and sides are checked against its game system: the one the roster names (`system = "NAME"`,
as `fieldglass init` writes it), else the command's `--system`; the valid words come from the system's own package
(`LiveRules.roster_types`, `open_types`, `roster_sides`, `type_noun`: rules/live.py), so nothing here names a
system. A roster for no system in particular (`print`, `locate` without either) is checked against every registered
system: a type no system reads is an error. The camera's check (fieldglass/setup_report.py `camera_findings`) is
the planner's (fieldglass/planning.py): a marker smaller than the camera reads at the worst place is an error.

The readers raise the first error (`check_roster`); `fieldglass check-setup` gathers every finding (`Finding`) of
the layout, the roster, the board and the camera and prints them at once, errors first (fieldglass/setup_report.py).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cache

from calibration.layout import marker_modules
from common.errors import InputError
from common.text import name_list, nearest_name
from rules.system import GameSystem, game_system, game_systems
from vision.roster import Piece, Roster

ERROR, WARNING = "error", "warning"
LEVELS = (ERROR, WARNING)
"""Worst first: an error stops the commands that read the file; a warning is a risk worth a look."""


@dataclass(frozen=True)
class Finding:
    level: str
    text: str

    def line(self) -> str:
        return f"{self.level}: {self.text}"


def worst_first(findings) -> list[Finding]:
    """The findings, errors before warnings, each level in the order found (file by file)."""
    return sorted(findings, key=lambda f: LEVELS.index(f.level))


# ---------------------------------------------------------------------------------------------- rosters


def _norm(word: str) -> str:
    """A type word as the systems compare them: any case, spaces and hyphens for underscores."""
    return "_".join(str(word).replace("-", " ").split()).lower()


@cache
def adapter_of(name: str):
    return game_system(name).adapter(None)


def roster_system(roster: Roster, where: str, system: str | None = None) -> GameSystem | None:
    """The game system a roster is checked against: the one it names, else `system` (a command's --system), else
    None (any). InputError when the roster names an unknown system or another than --system."""
    if roster.system:
        known = game_systems()
        if roster.system not in known:
            near = nearest_name(roster.system, known)
            hint = f"did you mean {near!r}? " if near else ""
            raise InputError(f"{where}: system {roster.system!r} is not a game system; {hint}Systems: "
                             f"{name_list(sorted(known))}")
        if system and system != roster.system:
            raise InputError(f"{where}: a {roster.system} roster (its system key), but --system is {system!r}")
        return known[roster.system]
    return game_system(system) if system else None


def type_valid(gs: GameSystem, word: str) -> bool:
    """Whether system `gs` reads `word` as a roster type (its words, its open words, or its adapter's map)."""
    live = gs.live
    if live is None or not live.roster_types:
        return True
    valid = {_norm(w) for w in (*live.roster_types, *live.open_types)}
    return _norm(word) in valid or word.strip().lower() in live.open_types or adapter_of(gs.name).piece_type(word) \
        is not None


def type_problem(gs: GameSystem, piece: Piece) -> str | None:
    """What is wrong with a piece's type for system `gs` (a line without the file), None when it reads it."""
    if type_valid(gs, piece.type):
        return None
    words = gs.live.roster_types
    near = nearest_name(piece.type, words) or nearest_name(_norm(piece.type), words)
    hint = f"; did you mean {near!r}?" if near else ";"
    return f"type {piece.type!r} is not a {gs.live.type_noun}{hint} Types: {name_list(words, 24)}"


def _any_type_problem(piece: Piece) -> str | None:
    """A type no registered system reads (a roster for any system: print, locate), with the nearest of all."""
    systems = [g for g in game_systems().values() if g.live is not None and g.live.roster_types]
    if not systems or any(type_valid(g, piece.type) for g in systems):
        return None
    words = sorted({w for g in systems for w in g.live.roster_types})
    near = nearest_name(piece.type, words) or nearest_name(_norm(piece.type), words)
    hint = ""
    if near:
        readers = ", ".join(sorted(g.name for g in systems if type_valid(g, near)))
        hint = f"did you mean {near!r} ({readers})? "
    return (f"type {piece.type!r} is no game system's type; {hint}Name the roster's system (system = \"NAME\") to "
            "list its types")


def _side_match(gs: GameSystem, side: str) -> bool:
    sides = gs.live.roster_sides
    if gs.live.sides_ignore_case:
        return side.strip().lower() in {s.lower() for s in sides}
    return side in sides


def side_problems(gs: GameSystem | None, pieces) -> dict[str, str]:
    """piece id -> what is wrong with its side: not one of the system's sides, or (a system of any armies) missing,
    or one side spelt two ways in the roster (the less used spelling is the error)."""
    live = gs.live if gs is not None else None
    out = {}
    if live is not None and live.roster_sides:
        for p in pieces:
            if not _side_match(gs, p.side):
                near = nearest_name(p.side, live.roster_sides) or nearest_name(p.side.lower(), live.roster_sides)
                hint = f"; did you mean {near!r}?" if near else ";"
                out[p.id] = f"side {p.side!r} is not a {gs.name} side{hint} Sides: {name_list(live.roster_sides, 24)}"
        return out
    if live is not None and live.roster_sides is None:
        return out  # the system checks its sides itself (setup_roster)
    counts = Counter(p.side for p in pieces)
    spellings: dict[str, list[str]] = {}
    for side in counts:
        spellings.setdefault(_norm(side), []).append(side)
    for p in pieces:
        if not p.side.strip():
            if gs is not None:  # a system of any armies: the side is the army
                named = [s for s in counts if s.strip()]
                # the side its id begins with ("fr-2-1": FR), else the most common
                guess = next((s for s in named if p.id.lower().startswith(_norm(s) + "-")), None) or (
                    max(named, key=lambda s: counts[s]) if named else None)
                hint = f"; did you mean side = {guess!r}?" if guess else ""
                out[p.id] = f"has no side (every piece plays for one){hint}"
            continue
        same = spellings[_norm(p.side)]
        best = max(same, key=lambda s: (counts[s], s == p.side))
        if best != p.side:
            out[p.id] = (f"side {p.side!r} is spelt {best!r} on {counts[best]} other piece(s); did you mean "
                         f"{best!r}?")
    return out


def roster_problems(roster: Roster, where: str, system: str | None = None) -> list[str]:
    """Every piece whose type or side its game system (`roster_system`) does not read, one line each naming
    `where` (the roster file), the piece, the key and a suggestion."""
    gs = roster_system(roster, where, system)
    out = []
    sides = side_problems(gs, roster.pieces)
    for p in roster.pieces:
        problem = type_problem(gs, p) if gs is not None else _any_type_problem(p)
        if problem:
            out.append(f"{where} piece {p.id!r}: {problem}")
        if p.id in sides:
            out.append(f"{where} piece {p.id!r}: {sides[p.id]}")
    return out


def check_roster(roster: Roster, where: str, system: str | None = None) -> Roster:
    """`roster` itself when its game system reads every piece's type and side; else InputError, the first
    problem in one line."""
    problems = roster_problems(roster, where, system)
    if problems:
        raise InputError(problems[0])
    return roster


def fit_problems(roster: Roster, where: str) -> list[str]:
    """Warnings: pieces whose marker and its quiet zone do not fit inside the base (`fieldglass print` cuts the
    label to the base; the detector may miss it)."""
    n = marker_modules(roster.dictionary)
    out = []
    for p in roster.pieces:
        side = p.marker_mm * (n + 2) / n
        room = min(p.base_mm[0] - 2 * abs(p.marker_offset_mm[0]), p.base_mm[1] - 2 * abs(p.marker_offset_mm[1]))
        if side > room + 1e-6:
            out.append(f"{where} piece {p.id!r}: marker_mm {p.marker_mm:g} and its white margin need {side:.1f} mm, "
                       f"more than its {p.base_mm[0]:g} x {p.base_mm[1]:g} mm base holds; did you mean marker_mm = "
                       f"{largest_marker(p.base_mm, roster.dictionary, p.marker_offset_mm):g}?")
    return out


def largest_marker(base_mm, dictionary: str, offset_mm=(0.0, 0.0), margin_mm: float = 1.0) -> float:
    """The largest marker (black square, mm, a multiple of 0.5) whose quiet zone fits inside the base with
    `margin_mm` to spare on each side."""
    n = marker_modules(dictionary)
    room = min(base_mm[0] - 2 * abs(offset_mm[0]), base_mm[1] - 2 * abs(offset_mm[1])) - 2 * margin_mm
    return max(0.0, math.floor(room * n / (n + 2) * 2.0 + 1e-9) / 2.0)


__all__ = ["ERROR", "WARNING", "Finding", "adapter_of", "check_roster", "fit_problems", "largest_marker",
           "roster_problems", "roster_system", "side_problems", "type_problem", "type_valid", "worst_first"]
