"""Issue 15, records and outputs: nothing lost (cases 1-6), damaged records read and reported (8, 9), check."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import gui.pdf
from common.errors import InputError
from common.outfiles import output_file, write_text
from fieldglass.cli import main
from fieldglass.record import Record, RecordError
from fieldglass.record.store import CHECKPOINT_EVERY
from rules import position as positions
from tests.fieldglass.test_analyze_cli import POSITION
from tests.fieldglass.test_record import META, small_game
from vision.synthetic import demo_files

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def game(tmp_path) -> Path:
    path = tmp_path / "g.fgr"
    rec = Record.create(path, META, snapshot_every=4)
    small_game(rec)
    rec.close()
    return path


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fieldglass: error: "), err
    assert "Traceback" not in err[0]
    return err[0]


def events_of(path: Path) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT seq, type, data FROM events ORDER BY seq").fetchall()


# ---------------------------------------------------------------- case 1: never over an input


@pytest.mark.parametrize("argv", [
    ["export", "{g}", "--format", "report", "--out", "{g}"],
    ["export", "{g}", "--format", "jsonl", "--out", "{g}"],
    ["export", "{g}", "--format", "csv", "--out", "{g}"],
    ["export", "{g}", "--format", "mp4", "--out", "{g}"],
    ["export", "{g}", "--format", "csv", "--out", "{g}-wal"],
    ["stats", "{g}", "--png", "{g}"],
    ["replay", "{g}", "--headless", "--screenshot", "{g}"],
    ["check", "{g}", "--repair", "{g}"],
])
def test_no_command_writes_over_its_own_record(game, capsys, argv):
    before = game.read_bytes()
    assert main([a.format(g=game) for a in argv]) == 2
    assert str(game) in one_error_line(capsys)
    assert game.read_bytes() == before


def test_an_output_named_by_another_path_to_the_same_file_is_refused(game, tmp_path, capsys):
    link = tmp_path / "link.fgr"
    link.symlink_to(game)
    alias = tmp_path / "sub" / ".." / "g.fgr"
    (tmp_path / "sub").mkdir()
    for out in (link, alias):
        assert main(["export", str(game), "--format", "report", "--out", str(out)]) == 2
        assert "is the input" in one_error_line(capsys)
    assert len(events_of(game)) == 10


RESOLVE = ["--action", "fire", "--attacker", "fr-art-1", "--target", "au-ir4-1", "--dice", "6", "--loss-die", "4"]


@pytest.fixture
def position(tmp_path) -> Path:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(POSITION), encoding="utf-8")
    return path


def test_resolve_never_writes_over_its_options_nor_its_position(position, tmp_path, capsys):
    options = tmp_path / "options.toml"
    options.write_text("", encoding="utf-8")
    assert main(["resolve", str(position), *RESOLVE, "--options", str(options), "--out", str(options)]) == 2
    assert "is the input" in one_error_line(capsys)
    assert options.read_text(encoding="utf-8") == ""
    # nor over the position file: the game is played on into a new file, the position before kept as it was
    before = position.read_bytes()
    assert main(["resolve", str(position), *RESOLVE, "--out", str(position)]) == 2
    assert "is the input" in one_error_line(capsys) and position.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "options.toml"]


def test_resolve_checks_its_out_before_the_work_and_makes_missing_folders(position, tmp_path, capsys):
    # case 10: a folder as --out is one line before anything is resolved; a missing folder is made
    assert main(["resolve", str(position), *RESOLVE, "--out", str(tmp_path)]) == 2
    assert "is a folder" in one_error_line(capsys)
    out = tmp_path / "no" / "such" / "dir" / "a.json"
    assert main(["resolve", str(position), *RESOLVE, "--out", str(out)]) == 0
    assert "loss" in capsys.readouterr().out.lower()
    assert positions.load(out).piece("au-ir4-1").bases == 2


# ---------------------------------------------------------------- case 6: whole or not at all


def test_an_output_that_fails_half_way_leaves_the_old_file_and_no_part(tmp_path):
    out = tmp_path / "report.md"
    out.write_text("the old report", encoding="utf-8")
    with pytest.raises(InputError, match="disk full"), output_file(out) as tmp:
        tmp.write_text("half a rep", encoding="utf-8")
        raise OSError(28, "disk full")
    assert out.read_text(encoding="utf-8") == "the old report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_a_full_disk_during_an_export_leaves_no_empty_file(game, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.csv"

    def full(self, *a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    assert main(["export", str(game), "--format", "csv", "--out", str(out)]) == 2
    assert "No space left" in one_error_line(capsys)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["g.fgr"]


def test_outputs_to_a_folder_or_a_missing_folder(game, tmp_path, capsys):
    assert main(["export", str(game), "--format", "report", "--out", str(tmp_path)]) == 2
    assert "is a folder" in one_error_line(capsys)
    deep = tmp_path / "no" / "such" / "dir" / "r.md"
    assert main(["export", str(game), "--format", "report", "--out", str(deep)]) == 0
    assert deep.read_text(encoding="utf-8").startswith("#")


def test_image_outputs_need_an_image_name(game, tmp_path, capsys):
    assert main(["stats", str(game), "--png", str(tmp_path / "x.txt")]) == 2
    assert "x.txt" in one_error_line(capsys)
    assert not (tmp_path / "x.txt").exists()
    assert main(["demo", "--screenshot", str(tmp_path / "x.txt")]) == 2
    assert "x.txt" in one_error_line(capsys)


def test_write_text_replaces_whole(tmp_path):
    out = tmp_path / "a.json"
    write_text(out, "one")
    write_text(out, "two")
    assert out.read_text(encoding="utf-8") == "two" and [p.name for p in tmp_path.iterdir()] == ["a.json"]


# ---------------------------------------------------------------- case 2: read-only media


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder nothing can be written in, even by root: a read-only tmpfs where this test may mount one, else a
    folder without write permission (enough for a user who is not root)."""
    folder = tmp_path / "stick"
    folder.mkdir()
    mounted = False
    if os.geteuid() == 0:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)],
                                 capture_output=True).returncode == 0
        if not mounted:
            pytest.skip("running as root without a way to mount a read-only folder")

    def seal():
        if mounted:
            subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        else:
            for p in folder.iterdir():
                p.chmod(0o444)
            folder.chmod(0o555)

    yield folder, seal
    if mounted:
        subprocess.run(["umount", str(folder)], check=False)
    else:
        folder.chmod(0o755)


def test_a_record_on_read_only_media_is_read(game, read_only_folder, capsys):
    folder, seal = read_only_folder
    copy = folder / "g.fgr"
    shutil.copy(game, copy)
    with contextlib.closing(sqlite3.connect(copy)) as conn:  # as an older Fieldglass left it: in WAL mode
        conn.execute("PRAGMA journal_mode = WAL")
    seal()
    rec = Record.open(copy)
    assert len(rec.events()) == 10 and rec.problems == []
    rec.close()
    assert main(["export", str(copy), "--format", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 10
    assert sorted(p.name for p in folder.iterdir()) == ["g.fgr"]


def test_reading_a_record_changes_nothing_and_leaves_no_side_files(game):
    before = game.read_bytes()
    rec = Record.open(game)
    rec.events()
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        rec.conn.execute("DELETE FROM events")
    rec.close()
    assert game.read_bytes() == before and sorted(p.name for p in game.parent.iterdir()) == ["g.fgr"]


# ---------------------------------------------------------------- case 3: a record cut short


def cut_record(tmp_path) -> tuple[Path, int]:
    path = tmp_path / "h.fgr"
    rec = Record.create(path, META, snapshot_every=1000)
    for i in range(300):
        rec.append("note", float(i), i, data={"text": f"note {i} " + "x" * 100})
    rec.close()
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.truncate(size * 2 // 3)
    return path, 300


def test_a_record_cut_short_gives_up_what_sqlite_can_read(tmp_path, capsys):
    path, n = cut_record(tmp_path)
    rec = Record.open(path)
    evs = rec.events()
    assert 50 < len(evs) < n
    assert all(e.data["text"].startswith(f"note {e.seq - 1} ") for e in evs)
    assert any("cut short" in p and "--repair" in p for p in rec.problems)
    rec.close()
    # check reports it (exit 1) and --repair salvages it into a record that reads whole
    out = tmp_path / "saved.fgr"
    assert main(["check", str(path), "--repair", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"{len(evs)} events salvaged" in text and "damaged" in text
    saved = Record.open(out)
    assert [e.to_json() for e in saved.events()] == [e.to_json() for e in evs]
    assert saved.problems == [] and saved.meta["system"] == "wiener"
    saved.close()
    assert main(["check", str(out)]) == 0


def test_resuming_a_cut_record_says_how_to_salvage_it(tmp_path):
    path, _ = cut_record(tmp_path)
    before = path.read_bytes()
    rec = Record.open(path, writable=True)
    assert rec.problems and "fieldglass check" in rec.problems[0]
    assert not rec.writable
    rec.close()
    assert path.read_bytes() == before  # a damaged record is never written to


# ---------------------------------------------------------------- case 4: one writer per record


def test_a_second_writer_is_refused_while_the_first_writes(tmp_path):
    path = tmp_path / "w.fgr"
    first = Record.create(path, META)
    first.append("note", 1.0, data={"text": "mine"})
    with pytest.raises(RecordError, match="another fieldglass"):
        Record.open(path, writable=True)
    with pytest.raises(RecordError, match="another fieldglass"):
        Record.create(path, META, overwrite=True)
    first.append("note", 2.0, data={"text": "still mine"})
    assert [e.data["text"] for e in Record.open(path).events()] == ["mine", "still mine"]  # readers may read
    first.close()
    second = Record.open(path, writable=True)  # the lock went with the first writer
    second.close()


def test_the_lock_dies_with_its_process(tmp_path):
    path = tmp_path / "k.fgr"
    code = ("import sys, time; from fieldglass.record import Record; "
            f"r = Record.create({str(path)!r}, {{'system': 'wiener', 'roster': []}}); "
            "r.append('note', 1.0, data={'text': 'a'}); print('ready', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        with pytest.raises(RecordError, match="another fieldglass"):
            Record.open(path, writable=True)
    finally:
        proc.kill()
        proc.wait()
    rec = Record.open(path, writable=True)  # killed with -9: its lock is gone, its event kept
    assert [e.data["text"] for e in rec.events()] == ["a"]
    rec.close()


# ---------------------------------------------------------------- case 5: one file


def test_a_record_being_written_is_checkpointed_into_its_file(tmp_path):
    path = tmp_path / "live.fgr"
    rec = Record.create(path, META)
    for i in range(CHECKPOINT_EVERY):
        rec.append("note", float(i), i, data={"text": f"n{i}"})
    copy = tmp_path / "copy" / "live.fgr"
    copy.parent.mkdir()
    shutil.copy(path, copy)  # the record file alone, as a user copies it while the recorder runs
    assert len(Record.open(copy).events()) == CHECKPOINT_EVERY
    rec.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy", "live.fgr"]


# ---------------------------------------------------------------- case 8: a damaged event or roster


@pytest.mark.parametrize("fmt", ["report", "csv", "jsonl", "png", "mp4"])
def test_a_damaged_event_is_skipped_and_named(game, tmp_path, capsys, fmt):
    with contextlib.closing(sqlite3.connect(game)) as conn:
        conn.execute("UPDATE events SET data = '{x' WHERE seq = 5")
        conn.commit()
    out = tmp_path / f"out.{fmt}"
    assert main(["export", str(game), "--format", fmt, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "event 5: damaged" in err and "Traceback" not in err
    assert out.exists()


def test_damaged_roster_metadata_is_reported_and_the_events_kept(game, tmp_path, capsys):
    with contextlib.closing(sqlite3.connect(game)) as conn:
        conn.execute("UPDATE meta SET value = '\"x\"' WHERE key = 'roster'")
        conn.commit()
    assert main(["stats", str(game), "--png", str(tmp_path / "s.png")]) == 0
    assert main(["export", str(game), "--format", "report"]) == 0
    out = capsys.readouterr()
    assert "roster metadata damaged" in out.err and "Traceback" not in out.err
    assert main(["check", str(game)]) == 1
    assert "10 events" in capsys.readouterr().out


def test_every_kind_of_damaged_event_row_is_skipped(game):
    with contextlib.closing(sqlite3.connect(game)) as conn:
        conn.execute("UPDATE events SET data = '[1, 2]' WHERE seq = 2")
        conn.execute("UPDATE events SET t = 'soon' WHERE seq = 3")
        conn.execute("UPDATE events SET type = 'bogus' WHERE seq = 4")
        conn.commit()
    rec = Record.open(game)
    assert [e.seq for e in rec.events()] == [1, 5, 6, 7, 8, 9, 10]
    assert sorted(p.split(":")[0] for p in rec.problems) == ["event 2", "event 3", "event 4"]


# ---------------------------------------------------------------- case 9: a full disk while recording


def test_a_full_disk_while_recording_is_one_line_and_keeps_the_events(tmp_path):
    path = tmp_path / "full.fgr"
    rec = Record.create(path, META)
    small_game(rec)
    pages = rec.conn.execute("PRAGMA page_count").fetchone()[0]
    rec.conn.execute(f"PRAGMA max_page_count = {pages + 1}")  # the disk fills up now
    with pytest.raises(RecordError, match="every event recorded before this one is kept"):
        for i in range(200):
            rec.append("note", 10.0 + i, data={"text": uuid.uuid4().hex * 20})
    rec.close()
    kept = Record.open(path)
    assert [e.seq for e in kept.events()][:10] == list(range(1, 11)) and kept.problems == []


# ---------------------------------------------------------------- fault injection: killed writers, resumed


KILLED_WRITER = """
import os, signal, sys
from fieldglass.record import Record
from tests.fieldglass.test_robust_records import scripted_events
path, start, stop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rec = Record.open(path, writable=True) if start else Record.create(path, {"system": "wiener", "roster": []})
for i, (kind, data) in enumerate(scripted_events()[start:stop], start):
    rec.append(kind, float(i), i, data=data)
os.kill(os.getpid(), signal.SIGKILL)  # no clean stop: no checkpoint, no close
"""


def scripted_events() -> list[tuple[str, dict]]:
    """The events a game writes, in order (notes, turns and bookmarks: enough to tell any two apart)."""
    out = []
    for i in range(120):
        kind = "turn" if i % 17 == 0 else "bookmark" if i % 11 == 0 else "note"
        out.append((kind, {"turn": i // 17 + 1} if kind == "turn" else {"label": f"b{i}"} if kind == "bookmark"
                    else {"text": f"n{i}"}))
    return out


def test_a_writer_killed_at_any_moment_loses_nothing_committed_and_doubles_nothing(tmp_path, capsys):
    moments = [0, 49, 51, 88, 120]  # around the checkpoint every 50 events, and the ends
    path = tmp_path / "killed.fgr"
    for start, stop in zip(moments, moments[1:], strict=False):
        proc = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(path), str(start), str(stop)], cwd=REPO,
                              capture_output=True, text=True)
        assert proc.returncode == -9, proc.stderr
        with Record.open(path) as rec:  # closed at once: a reader left open keeps the record in WAL mode
            assert [e.seq for e in rec.events()] == list(range(1, stop + 1))
    # killed with events only in the side file: check says so, and --repair makes one whole file of them
    assert main(["check", str(path)]) == 0
    assert "side file" in capsys.readouterr().out
    saved = tmp_path / "saved.fgr"
    assert main(["check", str(path), "--repair", str(saved)]) == 0
    capsys.readouterr()
    with Record.open(saved) as rec:
        got = [(e.type, e.data) for e in rec.events()]
    assert got == scripted_events() and sorted(p.name for p in tmp_path.iterdir() if "saved" in p.name) == [
        "saved.fgr"]
    # a writer opening it again folds the side file in: the record is one file after its clean close
    Record.open(path, writable=True).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["killed.fgr", "saved.fgr"]
    with Record.open(path) as rec:
        assert [(e.type, e.data) for e in rec.events()] == scripted_events()


def test_record_and_gui_never_write_over_their_inputs(tmp_path, capsys):
    layout, roster = demo_files()
    mine = tmp_path / "roster.toml"
    shutil.copy(roster, mine)
    before = mine.read_bytes()
    argv = ["record", "--source", "synthetic", "--layout", str(layout), "--roster", str(mine), "--out", str(mine),
            "--overwrite"]
    assert main(argv) == 2
    assert "is the input" in one_error_line(capsys)
    assert mine.read_bytes() == before
    assert main(["gui", "--headless", "--roster", str(mine), "--screenshot", str(mine)]) == 2
    assert str(mine) in one_error_line(capsys)
    assert mine.read_bytes() == before


def test_a_pdf_that_fails_half_way_leaves_nothing(tmp_path, monkeypatch, capsys):
    def half(pages, paper, path, title="Fieldglass"):
        Path(path).write_bytes(b"%PDF-1.4 half a page")
        raise InputError(f"{path}: the printer's ink ran out")

    monkeypatch.setattr(gui.pdf, "render_pdf", half)
    layout, _ = demo_files()
    out = tmp_path / "anchors.pdf"
    assert main(["print", "anchors", "--layout", str(layout), "--out", str(out)]) == 2
    assert "ink ran out" in one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_grid_in_the_record_is_dropped_not_allocated(game, tmp_path, capsys):
    layout = {**META["layout"], "grid": {**META["layout"]["grid"], "cols": 10**8, "rows": 10**8}}
    with contextlib.closing(sqlite3.connect(game)) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'layout'", (json.dumps(layout),))
        conn.commit()
    assert main(["stats", str(game), "--png", str(tmp_path / "s.png")]) == 0
    assert "its grid is damaged" in capsys.readouterr().err


def test_a_systems_own_event_keys_are_kept_as_they_are(tmp_path):
    rec = Record.create(tmp_path / "s.fgr", META)
    rec.append("combat", 1.0, 1, "fr-1", {"action": "step loss", "markers": [10, 30], "area": "3",
                                          "changes": [{"piece": "fr-1", "bases": 2, "strength": 2}]})
    rec.close()
    rec = Record.open(tmp_path / "s.fgr")
    assert rec.events()[0].data["markers"] == [10, 30] and rec.problems == []


@pytest.mark.parametrize("full_after", [1, 30, 75])
def test_a_disk_that_fills_loses_nothing_and_the_recording_goes_on_after(tmp_path, full_after):
    """The disk fills after `full_after` events (SQLite's page limit stands in for it); the failed event is written
    again after the resume: the record equals one written without trouble, nothing lost, nothing doubled."""
    path = tmp_path / "full.fgr"
    script = scripted_events()
    rec = Record.create(path, {"system": "wiener", "roster": []})
    done = 0
    with pytest.raises(RecordError, match="every event recorded before this one is kept"):
        for i, (kind, data) in enumerate(script):
            if i == full_after:
                pages = rec.conn.execute("PRAGMA page_count").fetchone()[0]
                rec.conn.execute(f"PRAGMA max_page_count = {pages}")
            rec.append(kind, float(i), i, data={**data, "pad": "x" * 2000})
            done = i + 1
    rec.close()
    rec = Record.open(path, writable=True)  # room again: go on from the event that failed
    assert [e.seq for e in rec.events()] == list(range(1, done + 1))
    for i, (kind, data) in enumerate(script[done:], done):
        rec.append(kind, float(i), i, data={**data, "pad": "x" * 2000})
    rec.close()
    got = [(e.type, {k: v for k, v in e.data.items() if k != "pad"}) for e in Record.open(path).events()]
    assert got == script


def test_an_event_its_readers_would_drop_as_damaged_is_refused_when_written(tmp_path):
    """A combat whose `fields` names a piece without a field (None) was written, then read back as damaged and left
    out: lost. It is refused at the write, in one line, and the record holds every event before it."""
    from fieldglass.record.store import RecordError  # noqa: PLC0415

    rec = Record.create(tmp_path / "g.fgr", META)
    rec.append("note", 1.0, 0, None, {"text": "before"})
    with pytest.raises(RecordError, match="a combat event cannot be recorded: its 'fields'"):
        rec.append("combat", 2.0, 1, "a", {"action": "fire", "pieces": ["a", "b"], "fields": {"a": "C3", "b": None}})
    rec.close()
    with Record.open(tmp_path / "g.fgr") as again:
        assert [e.type for e in again.events()] == ["note"] and not again.problems
