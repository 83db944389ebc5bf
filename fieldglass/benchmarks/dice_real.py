"""`fieldglass bench dice --real [DIR]`: dice read from real photos of thrown dice against their hand-checked truth.

DIR (default: each of tests/data/dice_real, dice_real2 and dice_real3 in turn) holds the photos and a truth.json: per
image its file, licence, source, view ("overhead" or "oblique") and its dice, each {"value": 1-6 or null,
"centre_px": [x, y], "side_px": S} in the image's pixels. A die whose value is null is not readable for sure by a
person: it counts neither right nor wrong, and a reading on it is no phantom. An image with no dice is an empty
table: every reading there is a phantom.

The photos come without a camera file or layout, so the face sizes `fieldglass dice` would derive from them are
derived here from the truth instead: per photo 0.6 x its smallest top face's side to 1.3 x its largest (as 12-20 mm
dice give 0.6 x 12 mm to 1.3 x 20 mm); on an empty photo the range of the other photos from the same source.
Matching and counting are the synthetic bench's (`tally_photo`, `DiceTally`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common.errors import InputError
from fieldglass.benchmarks import dice as synthetic
from vision.dice import DiceOptions
from vision.dice_both import read_dice_both
from vision.sources import read_image

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "dice_real"
DEFAULT_DIRS = (DEFAULT_DIR, DEFAULT_DIR.with_name("dice_real2"), DEFAULT_DIR.with_name("dice_real3"))
# webcam photos of white dice; overhead and coloured dice; webcam close-ups and oblique throws
VIEWS = ("overhead", "oblique")


@dataclass(frozen=True)
class TruthDie:
    """One die of a real photo in the shape `tally_photo` matches against: a die with value None is passed as not
    visible, so it is left out of the count and a reading on it is not a phantom."""

    value: int | None
    centre_px: tuple[float, float]
    side_px: float

    @property
    def visible(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class RealPhoto:
    file: Path
    view: str
    source: str
    dice: tuple[TruthDie, ...]


def load_truth(folder: Path) -> list[RealPhoto]:
    """The photos of `folder`/truth.json, checked: raises InputError naming the file and what is wrong."""
    path = Path(folder) / "truth.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        photos = []
        for k, entry in enumerate(doc["images"]):
            where = f"{path}: image {k} ({entry.get('file', '?')})"
            if entry["view"] not in VIEWS:
                raise InputError(f"{where}: view {entry['view']!r} is not one of {', '.join(VIEWS)}")
            if not entry.get("licence") or not entry.get("source"):
                raise InputError(f"{where}: no licence or source")
            dice = []
            for d in entry["dice"]:
                value, (x, y), side = d["value"], d["centre_px"], float(d["side_px"])
                if value is not None and value not in range(1, 7):
                    raise InputError(f"{where}: die value {value!r} is not 1-6 or null")
                if side <= 0:
                    raise InputError(f"{where}: die side {side} px is not positive")
                dice.append(TruthDie(value, (float(x), float(y)), side))
            src = entry["source"]
            photos.append(RealPhoto(Path(folder) / entry["file"], entry["view"],
                                    src.get("repo", "?") if isinstance(src, dict) else str(src), tuple(dice)))
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a dice truth file ({type(exc).__name__}: {exc})") from None
    return photos


def photo_options(photo: RealPhoto, photos: list[RealPhoto]) -> DiceOptions:
    """The face sizes to look for in `photo`, from its truth's sides (an empty photo: its source's other photos)."""
    sides = [d.side_px for d in photo.dice] or [d.side_px for p in photos if p.source == photo.source for d in p.dice]
    if not sides:
        sides = [d.side_px for p in photos for d in p.dice]
    return DiceOptions(min_side_px=0.6 * min(sides), max_side_px=1.3 * max(sides))


def measure_real(folder: Path, out=print, reader=read_dice_both, per_source: dict | None = None,
                 ) -> tuple[synthetic.DiceTally, dict[str, synthetic.DiceTally]]:
    """Read every photo, print one line per photo, return the whole tally and one per view (`per_source`, if
    given, gets one per source repository too)."""
    photos = load_truth(folder)
    tally, per_view = synthetic.DiceTally(), {v: synthetic.DiceTally() for v in VIEWS}
    per_source = {} if per_source is None else per_source
    for photo in photos:
        image = read_image(str(photo.file))
        options = photo_options(photo, photos)
        t0 = time.perf_counter()
        readings = reader(image, options)
        seconds = time.perf_counter() - t0
        one = synthetic.DiceTally()
        for t in (tally, per_view[photo.view], per_source.setdefault(photo.source, synthetic.DiceTally()), one):
            t.seconds.append(seconds)
            if photo.dice:
                t.photos += 1
                synthetic.tally_photo(t, photo.dice, readings)
            else:
                t.empty_photos += 1
                t.empty_phantoms += len(readings)
        sizes = f"faces {options.min_side_px:.0f}-{options.max_side_px:.0f} px"
        if photo.dice:
            out(f"  {photo.file.name:28s} {photo.view:8s} {sizes}: dice {one.dice}, right {one.right}, wrong"
                f" {one.wrong} (sure {one.wrong_sure}), unreadable {one.unreadable}, not found {one.missed},"
                f" phantoms {one.phantoms}")
        else:
            out(f"  {photo.file.name:28s} {photo.view:8s} {sizes}: empty table, phantom dice {one.empty_phantoms}")
    return tally, per_view


def run_real(folder: Path | None, reader: str = "both") -> int:
    folders = (Path(folder),) if folder else DEFAULT_DIRS
    for k, f in enumerate(folders):
        if k:
            print()
        _run_folder(f, reader)
    return 0


def _run_folder(folder: Path, reader: str) -> None:
    print(f"fieldglass bench dice --real {folder} (reader: {reader})")
    print(f"  face sizes per photo from its truth (0.6 x smallest to 1.3 x largest side), as a camera file and layout"
          f" give them; a wrong value at confidence >= {synthetic.SURE} is counted apart")
    per_source: dict[str, synthetic.DiceTally] = {}
    tally, per_view = measure_real(folder, reader=synthetic.READERS[reader], per_source=per_source)
    for name, t in [*per_view.items(), *(per_source.items() if len(per_source) > 1 else ())]:
        if t.photos or t.empty_photos:
            print(f"\n{name}")
            for line in t.lines():
                print("  " + line)
    print(f"\nall real photos of {folder.name}")
    for line in tally.lines():
        print("  " + line)
    s = np.array(tally.seconds) * 1000.0
    print(f"  time per photo: median {np.median(s):.1f} ms")


def add_parser(which) -> None:
    """The synthetic bench's `dice` parser with --real added (registered from here, so that the synthetic bench
    does not import this module, which imports it)."""
    synthetic.add_parser(which)
    p = which.choices["dice"]
    p.add_argument("--real", nargs="?", const="", default=None, metavar="DIR",
                   help="real photos and their truth.json instead (default: tests/data/dice_real, dice_real2 and"
                        " dice_real3 in turn)")
    p.set_defaults(run=run)


def run(args) -> int:
    return run_real(args.real or None, args.reader) if args.real is not None else synthetic.run(args)
