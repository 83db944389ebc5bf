"""fieldglass init's questions: each answer from its flag, else asked with the default in brackets, else (--yes)
the default; a bad answer is said and asked again."""

from __future__ import annotations

import sys

from common.errors import InputError
from fieldglass.new_table import FOV_DEG, RESOLUTION, lowest_height_mm
from fieldglass.planning import parse_pair


class _Asker:
    """input() with the default in brackets; a bad answer is said and asked again, a closed input is an error."""

    def __init__(self, yes: bool):
        self.yes = yes

    def __call__(self, question: str, default: str, read, flag: str):
        if self.yes:
            return read(default)
        for _ in range(5):
            try:
                answer = input(f"{question} [{default}]: ").strip()
            except EOFError:
                raise InputError(f"init: no answer for {flag} (the input closed); give {flag}, or --yes for every "
                                 "default") from None
            try:
                return read(answer or default)
            except InputError as exc:
                print(f"  {exc}", file=sys.stderr)
        raise InputError(f"init: no valid answer for {flag} in 5 tries")


def _given(value, read, ask, question: str, default: str, flag: str):
    return read(value) if value is not None else ask(question, default, read, flag)


def _positive(flag: str, low: float, high: float):
    def read(text):
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise InputError(f"{flag} {text!r}: expected a number") from None
        if not low <= value < high:
            raise InputError(f"{flag} {value:g}: expected {low:g} to below {high:g}")
        return value

    return read


def ask_camera(args, ask, extent: tuple[float, float], what: str) -> tuple[tuple[int, int], float, float]:
    """The camera's resolution, field of view and height above `what` (the table, the board), each its flag or
    asked, the height's default the lowest that sees the whole `extent` (mm)."""
    resolution = _given(args.camera_resolution, lambda t: parse_pair(t, "--camera-resolution", integer=True), ask,
                        "Camera resolution", f"{RESOLUTION[0]}x{RESOLUTION[1]}", "--camera-resolution")
    fov = _given(args.fov, _positive("--fov", 1.0, 179.0), ask, f"Camera field of view, {args.fov_kind} degrees",
                 f"{FOV_DEG:g}", "--fov")
    lowest = lowest_height_mm(extent, resolution, fov, args.fov_kind)
    height = _given(args.height, _positive("--height", 50.0, 20000.0), ask,
                    f"Camera height above the {what} in mm (the lowest that sees it all)", f"{lowest:g}", "--height")
    return resolution, fov, height
