"""The rig file (TOML): several cameras over one table, each with its own lens file.

::

    [[camera]]
    name = "west"                   # how readings name this camera's view
    intrinsics = "west.json"        # a camera file from `fieldglass calibrate camera`, relative to this file
    source = 0                      # optional: camera index, video file or stream URL
    [[camera]]
    name = "east"
    intrinsics = "east.json"

Each camera is registered to the table on its own, from the layout's anchors it sees; the rig file says nothing
about where the cameras stand (anchors in the overlaps tie their views together).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from calibration.camera import CameraIntrinsics, load_camera
from common.errors import InputError
from common.files import check_keys, read_toml

_TOP_KEYS = ("camera",)
_CAMERA_KEYS = ("name", "intrinsics", "source")
MAX_CAMERAS = 16  # more than any table needs; a larger count is a mistake in the file


@dataclass(frozen=True)
class RigCamera:
    """One camera of the rig: its name, its lens (intrinsics at its calibrated resolution), the path of its camera
    file, and its source (camera index, video file or URL; None when only photos are given)."""

    name: str
    intrinsics: CameraIntrinsics
    intrinsics_path: Path
    source: int | str | None = None


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


def parse_rig(data: dict, where: str, folder: Path, load=load_camera) -> Rig:
    """Build a Rig from parsed TOML; camera files are read relative to `folder`. Every error names `where` and the
    key at fault (`load` reads one camera file; its own errors name that file)."""
    check_keys(data, _TOP_KEYS, where)
    raw = data.get("camera")
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}: needs [[camera]] tables, one per camera")
    if len(raw) > MAX_CAMERAS:
        raise InputError(f"{where}: {len(raw)} cameras, at most {MAX_CAMERAS}")
    cameras = []
    for i, cam in enumerate(raw, 1):
        w = f"{where} camera {i}"
        if not isinstance(cam, dict):
            raise InputError(f"{w}: must be a [[camera]] table")
        check_keys(cam, _CAMERA_KEYS, w)
        name = _text(cam, "name", w)
        if name in (c.name for c in cameras):
            raise InputError(f"{w}: name {name!r} is used by another camera")
        path = folder / _text(cam, "intrinsics", w)
        cameras.append(RigCamera(name, load(path), path, _source(cam, w)))
    return Rig(tuple(cameras))


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
        lines += ["[[camera]]", f"name = {_quoted(cam.name)}", f"intrinsics = {_quoted(path.as_posix())}"]
        if cam.source is not None:
            lines.append(f"source = {cam.source}" if isinstance(cam.source, int) else f"source = {_quoted(cam.source)}")
        lines.append("")
    return "\n".join(lines)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
