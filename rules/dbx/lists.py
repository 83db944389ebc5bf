"""§9.7 army lists: parse the printed compositions and check an army against one (12 elements + the general)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from common.errors import InputError
from rules.dbx.armies import ARMY_LISTS

_FROM = re.compile(r"^(?:from|ab)\s+(\d{4})\s+(.+)$")
_EXCHANGE = re.compile(r'^"?(\w+) X (\w+)"?')  # Maori "St X Kl": the list before it with Kl for St
_ITEM = re.compile(r"^(?:(\d+)(?:-(\d+))?)?\s*(?:x\d?)?\s*(.+?)$")
_CODES = ("Li", "Ck", "Jä", "Pl", "Gu", "Sh", "Bo", "St", "Hi", "Kl", "Pk", "Dr", "Kü", "Hu", "Ul", "LR", "Re",
          "Km", "El", "Art", "Lw", "Pa", "LH", "Kä", "Pi", "Gr", "Fr")
ARMY_SIZE = 12  # §9.7 / §4.1 12 elements plus the general


@dataclass(frozen=True)
class Entry:
    lo: int
    hi: int
    types: tuple[str, ...]  # the alternatives ("o" = or); "Li/Jä" counts as its first code
    from_year: int | None = None  # "from 1813 2xLw" / "ab 1813": only in armies of that year or later


@dataclass(frozen=True)
class ArmyList:
    group: str
    name: str
    home: str | None
    aggression: int | None
    entries: tuple[Entry, ...]
    note: str
    unparsed: tuple[str, ...]


def _code(word: str) -> str | None:
    word = word.strip().split("(")[0].split("/")[0].strip()
    word = re.sub(r"^x\d", "", word).strip()
    return word if word in _CODES else None


def parse_composition(text: str) -> tuple[tuple[Entry, ...], tuple[str, ...]]:
    """'5-10Li(1-2 Grenadiere), 0-2Kü o Dr, Art' -> entries; pieces of text that are not entries are returned."""
    entries, bad = [], []
    depth, cur, parts = 0, "", []
    for ch in text:  # split on commas outside parentheses
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for raw in (p.strip() for p in parts if p.strip()):
        year = None
        dated = _FROM.match(raw)
        if dated:  # §9.7 Bayern 1778-1815 "ab 1813 2xLw"
            year, raw = int(dated.group(1)), dated.group(2)
        m = _ITEM.match(raw)
        body = m.group(3) if m else raw
        lo = int(m.group(1)) if m and m.group(1) else 1
        hi = int(m.group(2)) if m and m.group(2) else lo
        body = body[1:-1] if body.startswith("(") and body.endswith(")") else re.sub(r"\(.*?\)", "", body)
        alts = [_code(re.sub(r"^\d+", "", w.strip())) for w in re.split(r"\s+o\s+|\s*\+\s*", body)]
        if not alts or any(a is None for a in alts):
            bad.append(raw)
            continue
        entries.append(Entry(lo, hi, tuple(dict.fromkeys(a for a in alts if a)), year))
    return tuple(entries), tuple(bad)


@lru_cache(maxsize=1)
def army_lists() -> tuple[ArmyList, ...]:
    out: list[ArmyList] = []
    for group, name, home, af, comp, note in ARMY_LISTS:
        swap = _EXCHANGE.match(comp)
        if swap and out:  # §9.7 [L523] "Maori: St X Kl" printed right after "Polynesier, Melanesier: ... 8-12St,
            # 0-3Pl": read as that list with Kl allowed in place of St (each St element may be Kl instead)
            old, new = swap.groups()
            prev = out[-1]
            entries = tuple(Entry(e.lo, e.hi, e.types + (new,) if old in e.types else e.types, e.from_year)
                            for e in prev.entries)
            why = f'printed "{old} X {new}": the list {prev.name} with {new} in place of {old}'
            out.append(ArmyList(group, name, home, af, entries, "; ".join(x for x in (note, why) if x), ()))
            continue
        entries, bad = parse_composition(comp)
        out.append(ArmyList(group, name, home, af, entries, note, bad))
    return tuple(out)


def find_list(name: str, group: str | None = None) -> ArmyList:
    hits = [a for a in army_lists() if a.name.split(" (")[0] == name and (group is None or a.group == group)]
    if not hits:
        raise InputError(f"army list {name!r}{f' in {group}' if group else ''}: not found (§9.7)")
    return hits[0]


_NORMAL = {"Lw": "Li", "Gr": "Li", "Fr": "Li", "Kä": "Kü", "LH": "LR", "Pa": "Jä", "Pi": "Pl"}


def check_army(army: ArmyList, types: list[str], year: int | None = None) -> list[str]:
    """§9.7 problems fitting `types` (element codes, without the general) to the list; [] when it fits. An entry
    "from YEAR" counts as printed in armies of that year or later, not before, and as optional when no year is
    given."""
    problems = []
    if len(types) != ARMY_SIZE:
        problems.append(f"an army has {ARMY_SIZE} elements plus the general, not {len(types)} (§9.7)")
    need: dict[str, int] = {}
    for t in types:
        need[t] = need.get(t, 0) + 1
    keys = sorted(need)
    entries = tuple(e if e.from_year is None or (year is not None and year >= e.from_year)
                    else Entry(0, 0 if year is not None else e.hi, e.types) for e in army.entries)

    @cache
    def fit(i: int, rest: tuple[int, ...]) -> bool:
        if i == len(entries):
            return not any(rest)
        e = entries[i]
        idx = [k for k, t in enumerate(keys) if t in e.types or _NORMAL.get(t) in e.types
               or any(_NORMAL.get(x) == t for x in e.types)]

        def spread(j: int, left: int, r: list[int], used: int) -> bool:
            if j == len(idx):
                return e.lo <= used and fit(i + 1, tuple(r))
            k = idx[j]
            for n in range(0, min(r[k], left) + 1):
                r[k] -= n
                if spread(j + 1, left - n, r, used + n):
                    r[k] += n
                    return True
                r[k] += n
            return False

        return spread(0, e.hi, list(rest), 0)

    if not fit(0, tuple(need[k] for k in keys)):
        problems.append(f"the elements do not fit the list {army.name} (§9.7)")
    if army.group == "seven_years_war" and need.get("Kü", 0) > need.get("Dr", 0):  # §9.7 [L475]
        problems.append("Seven Years' War: cuirassiers only with at least as many dragoons (§9.7)")
    return problems



def composition(army: ArmyList) -> tuple[tuple[str, int], ...] | None:
    """One army of ARMY_SIZE elements the list allows, as element codes with counts in the list's order: each
    entry's least of its first code, then one more element per entry with room in turn until the army is whole (a
    mixed army, not the most of the first entry), with the first of an entry's alternatives ("Kü o Dr"), then with
    the last (the Seven Years' War wants dragoons beside cuirassiers); failing both, the entries filled in order.
    An entry "from YEAR" is left out (optional without a year). None when nothing fits the list (`check_army`,
    §9.7)."""
    entries = [e for e in army.entries if e.from_year is None]
    for pick, turns in ((0, True), (-1, True), (0, False), (-1, False)):
        counts = [e.lo for e in entries]
        left = ARMY_SIZE - sum(counts)
        while left > 0:
            open_ = [k for k, e in enumerate(entries) if counts[k] < e.hi]
            if not open_:
                break
            for k in open_ if turns else open_[:1]:
                if left == 0:
                    break
                add = 1 if turns else min(entries[k].hi - counts[k], left)
                counts[k] += add
                left -= add
        if left != 0:
            continue
        total: dict[str, int] = {}
        for e, n in zip(entries, counts, strict=True):
            if n:
                total[e.types[pick]] = total.get(e.types[pick], 0) + n
        if not check_army(army, [c for c, n in total.items() for _ in range(n)]):
            return tuple(total.items())
    return None
