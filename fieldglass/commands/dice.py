"""fieldglass dice: the dice in photos of the table, each die's value read from the pips on its top face."""

from __future__ import annotations

import argparse

from calibration.camera import load_camera
from calibration.layout import load_layout
from calibration.pose import estimate_pose
from common import jsonout
from common.errors import InputError
from vision.dice import DiceOptions, DieReading, dice_on_table, options_for_table
from vision.dice_both import read_dice_both
from vision.markers import detect_markers
from vision.pieces import camera_for_frame
from vision.sources import expand_paths, read_image

EPILOG = """\
examples:
  fieldglass dice throw.jpg
  fieldglass dice 'throws/*.jpg' --json
  fieldglass dice throw.jpg --camera cam.json --layout table.toml

Every die whose top face shows is listed with its value (1-6), its top face's centre and side in pixels and a
confidence (0-1). A die whose face cannot be read for sure (a face half hidden, blurred, merged with a side face) is
listed as unreadable (value null), never guessed. Dice of 12-20 mm, white, cream or coloured, with black, white,
red or blue pips, on cloth, felt, wood or a printed map; several touching; seen from above or obliquely (only the top
face's pips count). Without a camera the faces may be 14-160 px a side (--min-side-px, --max-side-px); with
--camera and --layout the sizes follow from 12-20 mm dice on that table (the photo must show 2 of the layout's
anchors) and each die's place is given in table mm as well (x, y of its top face's centre; side_mm its size).

JSON (--json): a list with one entry per image:
  {"image": PATH, "dice": [{"value": N or null, "centre_px": [x, y], "side_px": S, "confidence": C}]}
with a camera and layout each die also has "table_mm": [x, y] and "side_mm": S.

At the table, the dashboard (fieldglass gui) reads each throw itself once the dice lie still, in the layout's
[dice_tray] or anywhere off the bases, and puts the values into the combat panel (README "Dice thrown at the
table").
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "dice",
        help="the dice in photos: each die's value, where it lies, how sure",
        description="Read the dice in photos of the table: the value on each top face, counted from its pips.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("images", nargs="+", metavar="PHOTO", help="photos (globs allowed)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--camera", metavar="CAMERA.json", help="camera file: dice placed in table mm (with --layout)")
    p.add_argument("--layout", metavar="LAYOUT.toml", help="table layout with its anchors (with --camera)")
    p.add_argument("--min-side-px", type=float, default=DiceOptions.min_side_px, metavar="PX",
                   help=f"smallest top face, px (default {DiceOptions.min_side_px:g}; ignored with --camera)")
    p.add_argument("--max-side-px", type=float, default=DiceOptions.max_side_px, metavar="PX",
                   help=f"largest top face, px (default {DiceOptions.max_side_px:g}; ignored with --camera)")
    p.set_defaults(run=run)


def _die_json(d: DieReading, table: tuple[float, float, float] | None) -> dict:
    out = {"value": d.value, "centre_px": [round(d.centre_px[0], 2), round(d.centre_px[1], 2)],
           "side_px": round(d.side_px, 2), "confidence": round(d.confidence, 3)}
    if table is not None:
        out["table_mm"] = [round(table[0], 1), round(table[1], 1)]
        out["side_mm"] = round(table[2], 1)
    return out


def format_image(path: str, dice: list[DieReading], table) -> str:
    read = sum(d.value is not None for d in dice)
    lines = [f"{path}: {len(dice)} di{'e' if len(dice) == 1 else 'ce'}, {read} read"
             + (f", {len(dice) - read} unreadable" if read < len(dice) else "")]
    if dice:
        lines.append(f"  {'value':>5}{'centre x':>10}{'centre y':>10}{'side px':>9}{'conf':>6}"
                     + (f"{'x mm':>9}{'y mm':>9}{'side mm':>9}" if table else ""))
    for i, d in enumerate(dice):
        value = "?" if d.value is None else str(d.value)
        line = f"  {value:>5}{d.centre_px[0]:>10.1f}{d.centre_px[1]:>10.1f}{d.side_px:>9.1f}{d.confidence:>6.2f}"
        if table:
            line += f"{table[i][0]:>9.1f}{table[i][1]:>9.1f}{table[i][2]:>9.1f}"
        lines.append(line)
    if dice:
        values = " ".join("?" if d.value is None else str(d.value) for d in dice)
        lines.append(f"  dice: {values}" + (f"  (total {sum(d.value for d in dice if d.value)})" if read else ""))
    return "\n".join(lines)


def run(args) -> int:
    if (args.camera is None) != (args.layout is None):
        raise InputError("--camera and --layout go together: both, to place the dice in table mm, or neither")
    if not 0 < args.min_side_px <= args.max_side_px:
        raise InputError(f"--min-side-px {args.min_side_px:g} / --max-side-px {args.max_side_px:g}: expected "
                         "0 < min <= max")
    camera = load_camera(args.camera) if args.camera else None
    layout = load_layout(args.layout) if args.layout else None
    # every photo read before printing, so a bad one fails the run cleanly instead of cutting the JSON short
    results = []
    for path in expand_paths(args.images):
        image = read_image(path)
        if camera is None:
            dice = read_dice_both(image, DiceOptions(args.min_side_px, args.max_side_px))
            results.append((path, dice, None))
            continue
        lens = camera_for_frame(camera, image, path)
        markers = detect_markers(image, layout.dictionary)
        anchors = {m.id: m.corners for m in markers if m.id in layout.anchor_ids}
        pose = estimate_pose(anchors, layout, lens)
        if pose is None:
            ids = ", ".join(str(i) for i in sorted(layout.anchor_ids))
            raise InputError(f"{path}: {len(anchors)} anchor marker(s) seen, at least 2 needed to place the dice "
                             f"(the layout's anchors are {ids})")
        dice = read_dice_both(image, options_for_table(lens, pose, layout.width_mm, layout.depth_mm))
        results.append((path, dice, dice_on_table(dice, lens, pose)))
    if args.json:
        print(jsonout.dumps([{"image": p, "dice": [_die_json(d, t[i] if t else None) for i, d in enumerate(ds)]}
                             for p, ds, t in results]))
    else:
        print("\n\n".join(format_image(p, ds, t) for p, ds, t in results))
    return 0
