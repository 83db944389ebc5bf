"""The rig file (TOML): several cameras over one table, each with its own lens file.

::

    [[camera]]
    name = "west"                   # how readings name this camera's view
    intrinsics = "west.json"        # a camera file from `fieldglass calibrate camera`, relative to this file
    source = 0                      # optional: camera index, video file or stream URL
    footprint_mm = [0, 0, 1250, 1200]   # optional: the part of the table it must see, x0, y0, x1, y1 (table mm)
    [[camera]]
    name = "east"
    intrinsics = "east.json"

Each camera is registered to the table on its own, from the layout's anchors it sees; anchors in the overlaps tie
their views together. `footprint_mm` (written by `fieldglass plan --rig-out`) is used only to place those anchors
(`fieldglass print anchors --rig`): registration never assumes where a camera looks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from calibration.camera import CameraIntrinsics, load_camera
from common.errors import InputError
from common.files import check_keys, number, read_toml, toml_string

Footprint = tuple[float, float, float, float]
"""A part of the table as (x0, y0, x1, y1), table mm, x0 < x1 and y0 < y1."""

_TOP_KEYS = ("camera",)
_CAMERA_KEYS = ("name", "intrinsics", "source", "footprint_mm")
MAX_CAMERAS = 16  # more than any table needs; a larger count is a mistake in the file


@dataclass(frozen=True)
class RigCamera:
    """One camera of the rig: its name, its lens (intrinsics at its calibrated resolution), the path of its camera
    file, and its source (camera index, video file or URL; None when only photos are given)."""

    name: str
    intrinsics: CameraIntrinsics
    intrinsics_path: Path
    source: int | str | None = None
    footprint_mm: Footprint | None = None  # the part of the table it must see (anchor placement only)


@dataclass(frozen=True)
class RigEntry:
    """One [[camera]] table as written, before its camera file is read (the file may not exist yet when anchors
    are placed): name, camera file path, source and footprint."""

    name: str
    intrinsics_path: Path
    source: int | str | None
    footprint_mm: Footprint | None


@dataclass(frozen=True)
class Rig:
    """The cameras of a rig, in the file's order (the order photos are given in)."""

    cameras: tuple[RigCamera, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.cameras)


def _text(table: dict, key: str, where: str) -> str:
    value = table.get(key)
    if value is None:
        raise InputError(f"{where}: missing {key!r}")
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: {key!r} must be a non-empty text, not {value!r}")
    return value.strip()


def _source(table: dict, where: str) -> int | str | None:
    value = table.get("source")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str) or (isinstance(value, int) and value < 0) \
            or (isinstance(value, str) and not value.strip()):
        raise InputError(f"{where}: 'source' must be a camera index >= 0, a video file or a URL, not {value!r}")
    return value


def _footprint(table: dict, where: str) -> Footprint | None:
    value = table.get("footprint_mm")
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 4:
        raise InputError(f"{where}: 'footprint_mm' must be [x0, y0, x1, y1] in table mm, not {value!r}")
    x0, y0, x1, y1 = (number({"footprint_mm": v}, "footprint_mm", where) for v in value)
    if not (x0 < x1 and y0 < y1):
        raise InputError(f"{where}: 'footprint_mm' must be [x0, y0, x1, y1] with x0 < x1 and y0 < y1, not {value!r}")
    return (x0, y0, x1, y1)


def parse_rig_entries(data: dict, where: str, folder: Path) -> tuple[RigEntry, ...]:
    """The rig's [[camera]] tables checked (names, keys, sources, footprints) without reading any camera file;
    camera paths are relative to `folder`. Every error names `where` and the key at fault."""
    check_keys(data, _TOP_KEYS, where)
    raw = data.get("camera")
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}: needs [[camera]] tables, one per camera")
    if len(raw) > MAX_CAMERAS:
        raise InputError(f"{where}: {len(raw)} cameras, at most {MAX_CAMERAS}")
    entries: list[RigEntry] = []
    for i, cam in enumerate(raw, 1):
        w = f"{where} camera {i}"
        if not isinstance(cam, dict):
            raise InputError(f"{w}: must be a [[camera]] table")
        check_keys(cam, _CAMERA_KEYS, w)
        name = _text(cam, "name", w)
        if name in (c.name for c in entries):
            raise InputError(f"{w}: name {name!r} is used by another camera")
        entries.append(RigEntry(name, folder / _text(cam, "intrinsics", w), _source(cam, w), _footprint(cam, w)))
    return tuple(entries)


def parse_rig(data: dict, where: str, folder: Path, load=load_camera) -> Rig:
    """Build a Rig from parsed TOML; camera files are read relative to `folder`. Every error names `where` and the
    key at fault (`load` reads one camera file; its own errors name that file)."""
    return Rig(tuple(RigCamera(e.name, load(e.intrinsics_path), e.intrinsics_path, e.source, e.footprint_mm)
                     for e in parse_rig_entries(data, where, folder)))


def load_rig_entries(path: str | Path) -> tuple[RigEntry, ...]:
    """Read a rig file's cameras without their camera files (for placing anchors before the cameras are
    calibrated); InputError naming the file on any problem."""
    path = Path(path)
    return parse_rig_entries(read_toml(path, "rig file"), str(path), path.parent)


def load_rig(path: str | Path) -> Rig:
    """Read a rig file and every camera file it names; InputError naming the file on any problem."""
    path = Path(path)
    return parse_rig(read_toml(path, "rig file"), str(path), path.parent)


def rig_to_toml(rig: Rig, folder: Path | None = None) -> str:
    """The rig as TOML text that `load_rig` reads back (camera paths relative to `folder` when they lie in it)."""
    lines: list[str] = []
    for cam in rig.cameras:
        path = cam.intrinsics_path
        if folder is not None and path.is_relative_to(folder):
            path = path.relative_to(folder)
        lines += ["[[camera]]", f"name = {toml_string(cam.name)}", f"intrinsics = {toml_string(path.as_posix())}"]
        if cam.source is not None:
            source = cam.source if isinstance(cam.source, int) else toml_string(cam.source)
            lines.append(f"source = {source}")
        if cam.footprint_mm is not None:
            lines.append(footprint_line(cam.footprint_mm))
        lines.append("")
    return "\n".join(lines)


def footprint_overlap(a: Footprint, b: Footprint) -> Footprint | None:
    """The part of the table two footprints share, or None when they share no area."""
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


def footprint_line(footprint: Footprint) -> str:
    """The `footprint_mm = [...]` line of a [[camera]] table (whole mm where they are whole)."""
    return "footprint_mm = [" + ", ".join(f"{v:g}" for v in footprint) + "]"


