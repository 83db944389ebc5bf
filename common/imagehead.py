"""What an image file's header says, read before any decoding: its size, and whether a JPEG is cut short.

Decoding a 20000 x 20000 PNG takes 1.2 GB before anything could refuse it; its header says so in 24 bytes. Reads
PNG, JPEG, BMP, GIF, WebP and PNM (PGM/PPM) headers; other formats (TIFF) are left to the decoder.
"""

from __future__ import annotations

import struct
from pathlib import Path

# The largest image any command decodes: 100 megapixels (an 8K frame is 33). Beyond it a file is refused by its
# header, before a byte of it is decoded.
MAX_IMAGE_PIXELS = 100_000_000
_HEAD = 1 << 18  # bytes read for the header: a JPEG's frame header may follow 64 KB of EXIF and more
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        kind = data[i + 1]
        if kind == 0xFF:  # fill byte
            i += 1
            continue
        if kind in _SOF:
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        if kind in (0xD8, 0x01) or 0xD0 <= kind <= 0xD7:  # markers without a length
            i += 2
            continue
        i += 2 + struct.unpack(">H", data[i + 2:i + 4])[0]
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and len(data) >= 30:
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    return None


def _pnm_size(data: bytes) -> tuple[int, int] | None:
    words: list[bytes] = []
    for line in data[:1024].split(b"\n"):
        words += line.split(b"#", 1)[0].split()
        if len(words) >= 3:
            break
    try:
        return int(words[1]), int(words[2])
    except (IndexError, ValueError):
        return None


JPEG_START = b"\xff\xd8"  # a JPEG's start-of-image marker


def image_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) in pixels from the first bytes of an image file, or None for a format not read here."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
        return struct.unpack(">II", head[16:24])
    if head.startswith(JPEG_START):
        return _jpeg_size(head)
    if head.startswith(b"BM") and len(head) >= 26:
        w, h = struct.unpack("<ii", head[18:26])
        return abs(w), abs(h)
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        return struct.unpack("<HH", head[6:10])
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return _webp_size(head)
    if head[:2] in (b"P2", b"P3", b"P5", b"P6"):
        return _pnm_size(head)
    return None


def image_problem(path: str | Path) -> str | None:
    """Why the image file at `path` must not be decoded (too large by its header, a JPEG cut short), or None.
    Raises OSError when the file cannot be read."""
    with open(path, "rb") as fh:
        head = fh.read(_HEAD)
        fh.seek(0, 2)
        end = fh.tell()
        fh.seek(max(0, end - 64))
        tail = fh.read()
    size = image_size(head)
    if size is not None and size[0] * size[1] > MAX_IMAGE_PIXELS:
        return (f"{size[0]} x {size[1]} pixels is too large (at most {MAX_IMAGE_PIXELS // 1_000_000} megapixels "
                "are decoded)")
    if head.startswith(JPEG_START) and b"\xff\xd9" not in tail.rstrip(b"\x00\r\n "):
        return "the JPEG is cut short (no end marker): part of the picture is missing"
    return None
