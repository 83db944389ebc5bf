"""The headless recorder's inputs file gets what every other input gets (issue 25): each line checked before a
record is made, every error naming the file, the line and what would be valid, no file left by a recording that
failed before its first event, and one that failed later continued with --resume once the line is fixed."""

from __future__ import annotations

import pytest

from common.errors import InputError
from fieldglass.cli import main
from fieldglass.inputs import KINDS, help_text, load_inputs
from fieldglass.record import Record

PIECES = {"fr-a-1", "au-a-1", "au-cav-1"}


def _file(tmp_path, *lines: str):
    path = tmp_path / "inputs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("line", "said"), [
    ('{"frame": 3, "type": "trun"}', "inputs.jsonl:2: unknown input type 'trun'; did you mean 'turn'?"),
    ('{"frame": 3, "type": "marker", "piece": "au-cav-9", "markers": []}',
     "inputs.jsonl:2: no piece 'au-cav-9' in the roster; did you mean 'au-cav-1'? (pieces: au-a-1, au-cav-1, fr-a-1)"),
    ('{"frame": 3, "type": "marker", "markers": []}', "inputs.jsonl:2: a marker input needs 'piece'"),
    ('{"frame": -1, "type": "turn"}', "inputs.jsonl:2: needs a whole 'frame' number from 0 on"),
    ('{"type": "turn"}', "inputs.jsonl:2: needs a whole 'frame' number"),
    ('{"frame": 3, "type": "place", "piece": "fr-a-1"}', "inputs.jsonl:2: a place input needs 'field' or both"),
    ('{"frame": 3, "type": "undo", "count": 0}', "inputs.jsonl:2: 'count' must be a whole number from 1 on"),
    ('[1, 2]', "inputs.jsonl:2: not a JSON object"),
    ('{"frame": 3, "type": "turn"', "inputs.jsonl:2: not JSON"),
])
def test_every_bad_line_is_one_line_naming_the_file_the_line_and_what_is_valid(tmp_path, line, said):
    path = _file(tmp_path, "# the players' inputs", line)
    with pytest.raises(InputError) as err:
        load_inputs(path, PIECES)
    assert said in str(err.value) and "\n" not in str(err.value)


def test_good_lines_are_read_by_frame_with_where_they_came_from(tmp_path):
    path = _file(tmp_path, *(k.example for k in KINDS))
    inputs = load_inputs(path, {"fr-a-1", "au-1-1", "fr-1-1", "fr-1-2"})
    got = [inp for frame in sorted(inputs) for inp in inputs[frame]]
    assert [i["type"] for i in got] == [k.type for k in KINDS]
    assert got[0]["_where"].endswith("inputs.jsonl:1") and got[0]["_id"] == "line1"


def test_the_help_shows_one_example_per_kind():
    text = help_text()
    for k in KINDS:
        assert k.example[:30] in text
    assert max(len(line) for line in text.splitlines()) <= 120


def test_a_typo_leaves_no_record_and_a_refused_input_leaves_one_resume_continues(tmp_path, capsys):
    out = tmp_path / "g.fgr"
    bad = _file(tmp_path, '{"frame": 3, "type": "marker", "piece": "au-cav-9", "markers": []}')
    assert main(["record", "--source", "synthetic", "--frames", "16", "--inputs", str(bad), "--out", str(out)]) == 2
    assert "inputs.jsonl:1: no piece 'au-cav-9'" in capsys.readouterr().err
    assert not out.exists()  # nothing left to block the next try
    refused = _file(tmp_path, '{"frame": 3, "type": "turn"}',
                    '{"frame": 12, "type": "combat", "action": "fire", "attacker": "fr-a-1", "target": "fr-1-1"}')
    assert main(["record", "--source", "synthetic", "--frames", "16", "--inputs", str(refused), "--out",
                 str(out)]) == 2
    err = capsys.readouterr().err
    assert "inputs.jsonl:2:" in err and "own troops" in err and "--resume" in err
    with Record.open(out) as record:
        kept = len(record.events())
        assert kept >= 25  # the pieces and the turn before the refused line
    _file(tmp_path, '{"frame": 3, "type": "turn"}',
          '{"frame": 12, "type": "combat", "action": "fire", "attacker": "fr-a-1", "target": "au-a-1", "dice": [6, 2]}')
    assert main(["record", "--source", "synthetic", "--frames", "16", "--inputs", str(refused), "--out", str(out),
                 "--resume"]) == 0
    with Record.open(out) as record:
        kinds = [e.type for e in record.events()]
    assert kinds.count("turn") == 1 and kinds.count("combat") == 1 and len(kinds) == kept + 1
