"""JSON for people and tools alike: indented, with short lists of numbers (corners, points) kept on one line."""

from __future__ import annotations

import json
import re

# Only lists json.dumps spread over lines: a JSON string never holds a raw newline, so text is never touched.
_NUMBER_LIST = re.compile(r"\[\n\s*(-?[\d.eE+-]+(?:,\n\s*-?[\d.eE+-]+)*)\n\s*\]")


def dumps(obj, indent: int = 2, default=str) -> str:
    """`json.dumps(obj, indent=indent)` with every list of plain numbers written as `[x, y]` on one line; a value
    JSON has no type for is written as `default(value)` (its text)."""
    text = json.dumps(obj, indent=indent, ensure_ascii=False, default=default)
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]", text)
