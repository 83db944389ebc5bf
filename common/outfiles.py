"""Writing outputs safely: never over one of the command's own inputs, and never half a file.

Every writer (exports, PDFs, screenshots, JSON outputs, a record's repair) goes through `output_file`: the
output is checked against the command's inputs (same file by resolved path or by inode, a record's `-wal` and
`-shm` side files included), written under a temporary name in the same folder, and renamed over the target only
when the writer finished; on any failure (a full disk, an exception) the temporary file is removed and the target
is left as it was. The temporary name keeps the target's suffix, because OpenCV and Qt choose the format by it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from common.errors import InputError

PathLike = str | os.PathLike


def _same(a: Path, b: Path) -> bool:
    try:
        if a.resolve() == b.resolve():
            return True
    except (OSError, RuntimeError):
        pass
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_not_input(out: PathLike, inputs: Iterable[PathLike | None]) -> None:
    """Raise InputError if `out` is one of `inputs` (or a record input's side file)."""
    target = Path(out)
    for given in inputs:
        if given is None:
            continue
        inp = Path(given)
        for side in (inp, Path(str(inp) + "-wal"), Path(str(inp) + "-shm")):
            if _same(target, side):
                raise InputError(f"{target}: is the input {inp} of this command; choose another output")


def check_output(out: PathLike, inputs: Iterable[PathLike | None] = ()) -> None:
    """Before any work: `out` is not an input, not a folder, and its folder exists or can be made, writable."""
    target = Path(out)
    check_not_input(target, inputs)
    if target.is_dir():
        raise InputError(f"{target}: is a folder, expected a file to write")
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"{target}: cannot write there ({folder} is not a folder)")
    if not os.access(folder, os.W_OK):
        raise InputError(f"{target}: cannot write there (the folder {folder} is read-only)")


def _tmp_name(target: Path) -> Path:
    return target.with_name(f".{target.stem}.{os.getpid()}.part{target.suffix}")


def _prepare(target: Path) -> None:
    if target.is_dir():
        raise InputError(f"{target}: is a folder, expected a file to write")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{target}: cannot create its folder ({exc.strerror or exc})") from None
    if not os.access(target.parent, os.W_OK):
        raise InputError(f"{target}: cannot write there (the folder {target.parent} is read-only)")


@contextlib.contextmanager
def output_file(out: PathLike, inputs: Iterable[PathLike | None] = ()) -> Iterator[Path]:
    """A temporary path to write `out` to; renamed over `out` when the block ends without an error.

    Raises InputError (one line naming `out`) if `out` is an input, a folder, or cannot be written; a writer
    that leaves nothing (an OpenCV writer that returned False) also ends in InputError, and `out` is untouched.
    """
    target = Path(out)
    check_not_input(target, inputs)
    _prepare(target)
    tmp = _tmp_name(target)
    try:
        yield tmp
        if not tmp.exists():
            raise InputError(f"{target}: nothing was written")
        os.replace(tmp, target)
    except OSError as exc:
        raise InputError(f"{target}: cannot write ({exc.strerror or exc})") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def write_text(out: PathLike, text: str, inputs: Iterable[PathLike | None] = ()) -> None:
    """Write `text` (UTF-8) to `out` whole or not at all."""
    with output_file(out, inputs) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_bytes(out: PathLike, data: bytes, inputs: Iterable[PathLike | None] = ()) -> None:
    """Write `data` to `out` whole or not at all."""
    with output_file(out, inputs) as tmp:
        tmp.write_bytes(data)


# The image formats screenshots and diagrams are written in (OpenCV and Qt both choose the format by the suffix).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def check_image_name(out: PathLike, inputs: Iterable[PathLike | None] = ()) -> None:
    """Before any work: `out` names an image file (by its suffix) that is not one of `inputs`."""
    target = Path(out)
    if target.suffix.lower() not in IMAGE_SUFFIXES:
        kinds = ", ".join(IMAGE_SUFFIXES)
        raise InputError(f"{target}: an image must be named {kinds}, not {target.suffix or 'without a suffix'!r}")
    check_not_input(target, inputs)
