"""The JSON every command prints (common/jsonout.py): indented, short number lists on one line, any other value as
its text."""

from __future__ import annotations

import json
from pathlib import Path

from common import jsonout


def test_number_lists_stay_on_one_line_and_other_values_are_written_as_text():
    text = jsonout.dumps({"corners": [[1, 2.5], [-3, 4e-05]], "file": Path("a/b.fgr"), "name": "Marengo ✓"})
    assert '"corners": [\n    [1, 2.5],\n    [-3, 4e-05]\n  ]' in text
    assert json.loads(text) == {"corners": [[1, 2.5], [-3, 4e-05]], "file": "a/b.fgr", "name": "Marengo ✓"}
