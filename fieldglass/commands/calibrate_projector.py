"""fieldglass calibrate projector: the map from table mm to a projector's pixels, fitted from marker patterns it shows
as the camera sees them on the table (issue 30), saved as a projector file for `fieldglass gui --projector`."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import load_camera
from calibration.layout import load_layout
from calibration.projector import RaisedSurface, save_projector
from common.errors import InputError
from common.outfiles import check_output
from fieldglass.projector_setup import SIM_OPTIONS, calibrate_live, calibrate_simulated, measured, simulated_table
from vision.sources import open_source
from vision.synthetic import RenderOptions, render_table
from vision.synthetic_projector import light, true_projector

PROJECTOR_DESCRIPTION = """\
Calibrate a projector hanging over the table, so the dashboard can draw ranges, arcs and fire lines onto the cloth.

The projector shows, full screen on display --screen, first black (the camera registers the table from its anchors),
then four grids of markers one after another; the camera reads them on the table and the projector's map (a pinhole
run backwards: its focal length, optical centre, a little radial distortion and its pose) is fitted to them. The
projector is taken to be fixed to the camera: when the table moves and the camera registers it again, the projected
image follows it.

A raised surface the projector lights (a hill, a battle board lying on the map) is given with --raised
X0,Y0,X1,Y1:HEIGHT (table mm, repeatable): markers seen on it are placed at its height, which also fixes the
projector's optical centre, so the map is exact at any height. Without one the map is exact on the cloth.

Prints the fit's error in table mm (RMS and worst, of the marker corners kept). --source synthetic calibrates
against a simulated projector over the synthetic table (a hill 40 mm high on it) and prints how far the fitted map
puts its light from the truth, over the whole table and on the hill; with --screen N as well, the patterns are shown
full screen on display N as a real calibration shows them, and the simulated projector throws what that display
shows (a test of the windows on a second display of one X server).
"""

PROJECTOR_EXAMPLES = """\
examples:
  fieldglass calibrate projector --screen 1 --camera cam.json --layout table.toml --out projector.json
  fieldglass calibrate projector --screen 1 --camera cam.json --layout table.toml --source 0 --raised 400,300,900,700:40
  fieldglass calibrate projector --source synthetic --json
  fieldglass calibrate projector --source synthetic --screen 1 --out projector.json   (patterns on display 1)
"""


def add_projector_parser(what) -> None:
    p = what.add_parser(
        "projector",
        help="the map from table mm to a projector's pixels, from marker patterns it shows on the table",
        description=PROJECTOR_DESCRIPTION,
        epilog=PROJECTOR_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--source", metavar="SOURCE", default=None,
                   help="the camera: an index (default 0), a URL, or 'synthetic' (a simulated projector)")
    p.add_argument("--screen", type=int, metavar="N", help="the projector's display (0 = the first)")
    p.add_argument("--camera", metavar="CAM.json", help="camera file")
    p.add_argument("--layout", metavar="LAYOUT.toml", help="table layout (its anchors register the table)")
    p.add_argument("--raised", action="append", default=[], metavar="X0,Y0,X1,Y1:H",
                   help="a raised surface the projector lights: its rectangle (table mm) and height (mm)")
    p.add_argument("--out", metavar="PROJECTOR.json",
                   help="projector file to write (default projector.json; synthetic: none unless given)")
    p.add_argument("--json", action="store_true", help="print the error as JSON")
    p.set_defaults(run=run_projector)


_RAISED = re.compile(r"^\s*([-\d.]+),([-\d.]+),([-\d.]+),([-\d.]+):([-\d.]+)\s*$")


def parse_raised(text: str) -> RaisedSurface:
    """'X0,Y0,X1,Y1:H' -> the raised rectangle; InputError on anything else."""
    m = _RAISED.match(text)
    try:
        x0, y0, x1, y1, h = (float(v) for v in m.groups()) if m else ()
    except ValueError:
        m = None
    if not m or not (x1 > x0 and y1 > y0 and 0 < h < 1000):
        raise InputError(f"--raised {text!r}: expected X0,Y0,X1,Y1:HEIGHT in mm with X1 > X0, Y1 > Y0 and "
                         f"0 < HEIGHT < 1000, e.g. 400,300,900,700:40")
    return RaisedSurface(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]), h)


def run_projector(args) -> int:
    raised = [parse_raised(r) for r in args.raised]
    if args.source == "synthetic" and args.screen is None:
        return _run_synthetic(args, raised)
    if args.source == "synthetic":  # the patterns on a real display, thrown by the simulated projector
        return _run_synthetic_on_screen(args, raised)
    missing = [o for o, v in (("--screen", args.screen), ("--camera", args.camera), ("--layout", args.layout))
               if v is None]
    if missing:
        raise InputError(f"calibrate projector: {', '.join(missing)} required with a real camera "
                         f"(or --source synthetic)")
    out = Path(args.out or "projector.json")
    check_output(out, [args.camera, args.layout])
    camera = load_camera(args.camera)
    layout = load_layout(args.layout)
    model = calibrate_on_screen(args.screen, args.source or "0", camera, layout, raised)
    _save(model, out, [args.camera, args.layout])
    _report(args, {"rms_mm": model.rms_mm, "max_mm": model.max_mm, "points": model.points,
                   "heights_mm": list(model.heights_mm)},
            [f"projector on screen {args.screen} ({model.image_size[0]}x{model.image_size[1]} px): "
             f"{model.points} marker corners at heights {', '.join(f'{h:g}' for h in model.heights_mm)} mm",
             f"error on the table: RMS {model.rms_mm:.2f} mm, worst {model.max_mm:.2f} mm",
             f"saved projector file {out}"])
    return 0


def calibrate_on_screen(screen: int, source: str, camera, layout, raised):
    """Show the patterns full screen on display `screen` and read them with the camera `source`."""
    try:
        from gui.projector import PatternScreen, screen_geometry  # noqa: PLC0415  (PySide6 only here)
        from gui.qtapp import application  # noqa: PLC0415  (PySide6 only here)
    except ImportError as exc:
        raise InputError(f"calibrate projector needs PySide6 to show its patterns ({exc})") from None
    application()
    size = screen_geometry(screen).geometry().size()
    window = PatternScreen(screen, (size.width(), size.height()))
    frames = open_source(source)
    try:
        return calibrate_live(window.show_pattern, (f for _, f in frames), camera, layout,
                              (size.width(), size.height()), raised, screen)
    finally:
        window.close()
        getattr(frames, "close", lambda: None)()


def _run_synthetic_on_screen(args, raised) -> int:
    """Show the patterns full screen on display --screen, as a real calibration does, and have the simulated
    projector throw what that display shows onto the synthetic table, seen by its camera: the windowing tested end
    to end with no projector (on a second display of one X server)."""
    if raised:
        raise InputError("--raised: not with --source synthetic (its table has its own hill)")
    try:
        from gui.projector import PatternScreen, grab_screen, screen_geometry  # noqa: PLC0415  (PySide6 only here)
        from gui.qtapp import application  # noqa: PLC0415  (PySide6 only here)
    except ImportError as exc:
        raise InputError(f"calibrate projector needs PySide6 to show its patterns ({exc})") from None
    application()
    geometry = screen_geometry(args.screen).geometry()
    size = (geometry.width(), geometry.height())
    out = Path(args.out) if args.out else None
    if out is not None:
        check_output(out)
    table = simulated_table(projector_size=size)
    window = PatternScreen(args.screen, size)

    def frames():
        for k in range(1000):
            shown = grab_screen(args.screen)
            yield render_table(table.scene, table.camera, RenderOptions(
                **SIM_OPTIONS, seed=k, projection=light(table.projector, cv2.resize(shown, size))))[0]

    try:
        model = calibrate_live(window.show_pattern, frames(), table.camera.intrinsics, table.scene.layout, size,
                               [table.raised], args.screen, settle_frames=0)
    finally:
        window.close()
    fit = measured(model, true_projector(table.projector, table.camera.pose), table, ())
    if out is not None:
        _save(model, out, [])
    _report(args, {"rms_mm": fit.rms_mm, "max_mm": fit.max_mm, "raised_rms_mm": fit.raised_rms_mm,
                   "raised_max_mm": fit.raised_max_mm, "fit_rms_mm": model.rms_mm, "fit_max_mm": model.max_mm,
                   "screen": args.screen, "image_size": list(size)},
            [f"patterns shown on screen {args.screen} ({size[0]}x{size[1]} px), thrown by the simulated projector: "
             f"{model.points} corners kept",
             f"fit residual on the table: RMS {model.rms_mm:.2f} mm, worst {model.max_mm:.2f} mm",
             f"projected points against the truth, whole table: RMS {fit.rms_mm:.2f} mm, worst {fit.max_mm:.2f} mm",
             f"on the hill: RMS {fit.raised_rms_mm:.2f} mm, worst {fit.raised_max_mm:.2f} mm"]
            + ([f"saved projector file {out}"] if out is not None else []))
    return 0


def _run_synthetic(args, raised) -> int:
    if raised:
        raise InputError("--raised: not with --source synthetic (its table has its own hill)")
    out = Path(args.out) if args.out else None
    if out is not None:
        check_output(out)
    fit = calibrate_simulated()
    if out is not None:
        _save(fit.model, out, [])
    lines = [f"simulated projector ({fit.model.image_size[0]}x{fit.model.image_size[1]} px): markers read "
             f"{'/'.join(map(str, fit.seen))} in the 4 patterns, {fit.model.points} corners kept",
             f"fit residual on the table: RMS {fit.model.rms_mm:.2f} mm, worst {fit.model.max_mm:.2f} mm",
             f"projected points against the truth, whole table: RMS {fit.rms_mm:.2f} mm, worst {fit.max_mm:.2f} mm",
             f"on the hill ({fit.model.heights_mm[-1]:g} mm high): RMS {fit.raised_rms_mm:.2f} mm, "
             f"worst {fit.raised_max_mm:.2f} mm"]
    if out is not None:
        lines.append(f"saved projector file {out}")
    _report(args, {"rms_mm": fit.rms_mm, "max_mm": fit.max_mm, "raised_rms_mm": fit.raised_rms_mm,
                   "raised_max_mm": fit.raised_max_mm, "fit_rms_mm": fit.model.rms_mm,
                   "fit_max_mm": fit.model.max_mm}, lines)
    return 0


def _save(model, out: Path, inputs) -> None:
    try:
        save_projector(model, out, inputs)
    except OSError as exc:
        raise InputError(f"{out}: cannot write projector file ({exc.strerror or exc})") from None


def _report(args, figures: dict, lines: list[str]) -> None:
    if args.json:
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items()}))
    else:
        for line in lines:
            print(line)
    sys.stdout.flush()
