"""The game record file: events, snapshots, undo, crash safety, migration, damaged files, replay, exports, stats."""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import sqlite3

import cv2
import pytest

from calibration.camera import save_camera
from common.errors import InputError
from fieldglass.cli import main
from fieldglass.commands import export as export_cmd
from fieldglass.commands import stats as stats_cmd
from fieldglass.record import SCHEMA_VERSION, Record, RecordError, Replay, write_v1_record
from fieldglass.record.export import compute_stats, export_report, stats_text
from rules.picture import rgb
from vision.synthetic import VirtualCamera, demo_files

GRID = {"origin_x_mm": 0.0, "origin_y_mm": 0.0, "field_mm": 60.0, "cols": 20, "rows": 10}
META = {
    "system": "wiener",
    "layout": {"width_mm": 1200.0, "depth_mm": 600.0, "grid": GRID},
    "roster": [{"id": "fr-1", "side": "FR", "type": "infantry", "base_mm": [40, 30]},
               {"id": "fr-2", "side": "FR", "type": "artillery", "base_mm": [40, 40]},
               {"id": "au-1", "side": "AU", "type": "infantry", "base_mm": [40, 30]}],
    "players": ["Anna", "Ben"],
}


def place(cell, x, y, heading=0.0, facing="N"):
    return {"x_mm": x, "y_mm": y, "heading_deg": heading, "cell": cell, "facing": facing}


def small_game(rec: Record) -> None:
    """Set-up, two turns, a move, a combat with a loss, a bookmark and a note."""
    rec.append("appeared", 1.0, 5, "fr-1", {"to": place("F3", 330, 150)})
    rec.append("appeared", 1.0, 5, "fr-2", {"to": place("J3", 570, 150)})
    rec.append("appeared", 1.0, 5, "au-1", {"to": place("J6", 570, 330, 180, "S")})
    rec.append("turn", 2.0, 10, data={"turn": 1, "phase": "movement"})
    rec.append("move", 4.0, 20, "fr-1", {"from": place("F3", 330, 150), "to": place("F4", 330, 210, 45, "NE"),
                                         "turned_deg": 45})
    rec.append("phase", 5.0, 25, data={"phase": "fire"})
    rec.append("combat", 6.0, 30, "fr-2", {"action": "fire", "pieces": ["fr-2", "au-1"],
                                           "sides": {"fr-2": "FR", "au-1": "AU"},
                                           "fields": {"fr-2": "J3", "au-1": "J6"}, "dice": [6, 6],
                                           "winner": "attacker", "effect": "loss_test",
                                           "changes": [{"piece": "au-1", "removed": True}]},
               thumbnail=b"\xff\xd8fakejpeg")
    rec.append("bookmark", 7.0, 35, data={"label": "first blood"})
    rec.append("turn", 8.0, 40, data={"turn": 2})
    rec.append("note", 9.0, 45, data={"text": "quiet", "by": "Anna"})


@pytest.fixture
def rec_path(tmp_path):
    path = tmp_path / "game.fgr"
    rec = Record.create(path, META, snapshot_every=4)
    small_game(rec)
    rec.close()
    return path


def test_a_record_holds_metadata_and_ordered_events_with_turn_phase_and_frame(rec_path):
    rec = Record.open(rec_path)
    assert rec.meta["system"] == "wiener" and rec.meta["players"] == ["Anna", "Ben"] and rec.meta["start_time"]
    evs = rec.events()
    assert [e.seq for e in evs] == list(range(1, 11))
    move = evs[4]
    assert (move.type, move.piece, move.turn, move.phase, move.frame) == ("move", "fr-1", 1, "movement", 20)
    assert evs[6].phase == "fire" and evs[9].turn == 2 and evs[9].phase is None
    # written in WAL mode; a clean close leaves one file in rollback-journal mode (issue 15, case 5)
    assert rec.conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert sorted(p.name for p in rec_path.parent.iterdir()) == ["game.fgr"]
    assert rec.problems == []


def test_the_state_follows_the_events(rec_path):
    st = Record.open(rec_path).state()
    assert st.pieces["fr-1"].cell == "F4" and st.pieces["fr-1"].facing == "NE"
    assert st.pieces["au-1"].status == "removed" and st.turn == 2


def test_snapshots_every_n_events_give_the_same_positions_as_replaying_from_the_start(rec_path):
    rec = Record.open(rec_path, writable=True)  # writable: the test doctors a snapshot below
    seqs = [r[0] for r in rec.conn.execute("SELECT seq FROM snapshots ORDER BY seq")]
    assert seqs == [4, 8]
    replay = Replay(rec)
    for k in range(len(replay) + 1):
        from_scratch = rec.initial_state()
        for e in replay.events[:k]:
            from_scratch.apply(e)
        assert replay.position_at(k).to_json() == from_scratch.to_json()
    # the snapshot is really used: a doctored snapshot shows through
    rec.conn.execute("UPDATE snapshots SET state = json_set(state, '$.turn', 99) WHERE seq = 8")
    assert Replay(rec).position_at(8).turn == 99


def test_replay_timeline_and_time_queries(rec_path):
    replay = Replay(Record.open(rec_path))
    kinds = [(m.kind, m.label) for m in replay.markers()]
    assert kinds[0] == ("turn", "turn 1") and ("bookmark", "first blood") in kinds
    assert any(k == "combat" and "fr-2 vs au-1" in label for k, label in kinds)
    assert len(replay.events_until(4.0)) == 5 and replay.index_at(0.5) == 0
    assert replay.position_at_time(4.0).pieces["fr-1"].cell == "F4"
    assert replay.position_at_time(3.9).pieces["fr-1"].cell == "F3"
    assert replay.turn_starts() == {1: 3, 2: 8}
    assert replay.thumbnail_for(7) == b"\xff\xd8fakejpeg"


def test_undo_keeps_events_marked_and_the_clean_view_hides_them(rec_path):
    rec = Record.open(rec_path, writable=True)
    undone = rec.undo(2, tag="u1")
    assert [e.seq for e in undone] == [10, 9]
    assert len(rec.events()) == 10 and [e.seq for e in rec.events() if e.undone] == [9, 10]
    assert [e.seq for e in rec.events(clean=True)][-1] == 8
    assert rec.state().turn == 1
    assert rec.undo_tags() == {"u1"}
    ev = rec.append("note", 10.0, 50, data={"text": "after undo"})
    assert ev.seq == 11 and ev.turn == 1
    rec.close()
    again = Record.open(rec_path)
    assert [e.undone for e in again.events()][-3:] == [True, True, False]
    lines = [json.loads(x) for x in export_cmd_text(rec_path, "jsonl").splitlines()]
    assert [x["undone"] for x in lines][-3:] == [True, True, False]


def test_undo_drops_snapshots_made_after_the_undone_event(tmp_path):
    rec = Record.create(tmp_path / "g.fgr", META, snapshot_every=2)
    small_game(rec)
    rec.undo(6)  # back to after event 4
    assert [r[0] for r in rec.conn.execute("SELECT seq FROM snapshots")] == [2, 4]
    assert Replay(rec).position_at(4).pieces["fr-1"].cell == "F3"


def test_an_existing_record_is_not_overwritten_by_accident(rec_path):
    with pytest.raises(RecordError, match="already exists"):
        Record.create(rec_path, META)


def test_a_version_1_record_is_migrated_forward_and_reads_like_a_new_one(tmp_path):
    old = tmp_path / "old.fgr"
    write_v1_record(old, {"system": "wiener", "layout": META["layout"], "roster": META["roster"]}, [
        {"type": "appeared", "t": 1.0, "frame": 5, "piece": "fr-1", "data": {"to": place("F3", 330, 150)}},
        {"type": "turn", "t": 2.0, "turn": 1, "frame": 10, "data": {"turn": 1}},
        {"type": "move", "t": 3.0, "turn": 1, "frame": 15, "piece": "fr-1",
         "data": {"from": place("F3", 330, 150), "to": place("F5", 330, 270)}},
    ])
    conn = sqlite3.connect(old)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "piece" not in [r[1] for r in conn.execute("PRAGMA table_info(events)")]
    conn.close()
    rec = Record.open(old)
    assert rec.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    evs = rec.events()
    assert [(e.type, e.piece, e.undone) for e in evs] == [("appeared", "fr-1", False), ("turn", None, False),
                                                          ("move", "fr-1", False)]
    assert "piece" not in evs[2].data and evs[2].data["to"]["cell"] == "F5"
    assert rec.state().pieces["fr-1"].cell == "F5"
    rec.close()
    # migrated in place: it can now be written to, with snapshots and thumbnails
    rec = Record.open(old, writable=True)
    rec.append("note", 4.0, 20, data={"text": "new"}, thumbnail=b"x")
    assert rec.undo(1)[0].type == "note"


def test_a_read_only_old_record_is_migrated_in_memory(tmp_path):
    old = tmp_path / "old.fgr"
    write_v1_record(old, {"system": "wiener", "roster": META["roster"]},
                    [{"type": "note", "t": 1.0, "data": {"text": "hi"}}])
    old.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        rec = Record.open(old)
        assert rec.events()[0].data["text"] == "hi"
    finally:
        tmp_path.chmod(0o755)
        old.chmod(0o644)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"hello, this is a text file\n" * 10, "not a Fieldglass game record (not an SQLite file)"),
        (None, "not a Fieldglass game record (an SQLite file without its tables)"),
        ("other-meta", "not a Fieldglass game record (no fieldglass metadata)"),
        ("newer", "written by a newer Fieldglass"),
    ],
)
def test_files_that_are_not_records_get_one_clear_line(tmp_path, content, message):
    path = tmp_path / "x.fgr"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content == "newer":
        Record.create(path, META).close()
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA user_version = 7")
        conn.commit()
        conn.close()
    else:
        conn = sqlite3.connect(path)
        if content is None:
            conn.execute("CREATE TABLE foo (a)")
        elif content == "other-meta":
            conn.execute("CREATE TABLE meta (key, value)")
            conn.execute("CREATE TABLE events (seq)")
            conn.execute("INSERT INTO meta VALUES ('format', '\"something else\"')")
        conn.commit()
        conn.close()
    with pytest.raises(RecordError) as err:
        Record.open(path)
    assert message in str(err.value) and "\n" not in str(err.value) and str(path) in str(err.value)
    assert isinstance(err.value, InputError)


def test_a_missing_record_is_named(tmp_path):
    with pytest.raises(RecordError, match="record not found"):
        Record.open(tmp_path / "nope.fgr")


def test_a_damaged_record_reads_what_it_can(tmp_path):
    path = tmp_path / "big.fgr"
    rec = Record.create(path, META, snapshot_every=1000)
    for i in range(400):
        rec.append("note", float(i), i, data={"text": f"note {i} " + "x" * 200})
    rec.close()  # the last connection checkpoints the WAL into the file
    assert not (tmp_path / "big.fgr-wal").exists() or (tmp_path / "big.fgr-wal").stat().st_size == 0
    data = bytearray(path.read_bytes())
    page = 4096
    pages = len(data) // page
    victim = pages // 2
    data[victim * page: victim * page + page] = b"\x5a" * page  # one events page scrambled
    path.write_bytes(bytes(data))
    rec = Record.open(path)
    assert rec.problems and "damaged" in rec.problems[0]
    evs = rec.events()
    assert 300 < len(evs) < 400
    assert all(e.data["text"].startswith(f"note {e.t:.0f} ") for e in evs)
    assert any("unreadable" in p for p in rec.problems)
    # the command line warns in one line per problem and still exports
    out = export_cmd_text(path, "jsonl")
    assert len(out.splitlines()) == len(evs)


# ---------------------------------------------------------------------------------------------------- exports


def export_cmd_text(path, fmt, *extra) -> str:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    export_cmd.add_parser(sub)
    args = parser.parse_args(["export", str(path), "--format", fmt, *extra])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert args.run(args) == 0
    return buf.getvalue()


def test_export_jsonl_has_the_keys_and_moves_in_field_names(rec_path):
    lines = [json.loads(x) for x in export_cmd_text(rec_path, "jsonl").splitlines()]
    assert len(lines) == 10
    for x in lines:
        assert {"seq", "type", "turn", "frame", "undone"} <= set(x)
    move = lines[4]
    assert (move["piece"], move["from"], move["to"]) == ("fr-1", "F3", "F4")
    assert (move["x_mm"], move["y_mm"], move["heading_deg"]) == (330, 210, 45)
    combat = lines[6]
    assert combat["dice"] == [6, 6] and combat["changes"] == [{"piece": "au-1", "removed": True}]


def test_export_jsonl_without_a_grid_gives_millimetres(tmp_path):
    meta = {**META, "layout": {"width_mm": 1200.0, "depth_mm": 600.0, "grid": None}}
    rec = Record.create(tmp_path / "g.fgr", meta)
    rec.append("move", 1.0, 1, "fr-1", {"from": {"x_mm": 10, "y_mm": 20, "heading_deg": 0},
                                        "to": {"x_mm": 110, "y_mm": 20, "heading_deg": 90}})
    rec.close()
    (line,) = [json.loads(x) for x in export_cmd_text(tmp_path / "g.fgr", "jsonl").splitlines()]
    assert line["from"] == "(10, 20)" and line["to"] == "(110, 20)" and line["x_mm"] == 110


def test_export_csv_and_report(rec_path):
    rows = list(csv.DictReader(io.StringIO(export_cmd_text(rec_path, "csv"))))
    assert len(rows) == 10 and rows[4]["from"] == "F3" and rows[4]["to"] == "F4" and rows[4]["undone"] == "0"
    report = export_report(Record.open(rec_path), "game")
    assert report.startswith("# After-action report: game")
    assert "## Turn 1" in report and "## Turn 2" in report and "### Fire" in report
    assert "fr-1 F3 -> F4, N -> NE" in report
    assert "**fire**" in report and "dice 6, 6" in report and "au-1 removed" in report
    turn1 = report.split("## Turn 1")[1].split("## Turn 2")[0]
    assert "Losses (bases): AU 1, FR 0" in turn1


def bgr(tone: str) -> tuple[int, int, int]:
    r, g, b = rgb(tone)
    return b, g, r


def test_export_png_per_turn_with_move_arrows(rec_path, tmp_path):
    out = tmp_path / "png"
    export_cmd_text(rec_path, "png", "--out", str(out))
    names = sorted(p.name for p in out.iterdir())
    assert names == ["turn-00.png", "turn-01.png", "turn-02.png"]
    t1 = cv2.imread(str(out / "turn-01.png"))
    t2 = cv2.imread(str(out / "turn-02.png"))
    move, fire = bgr("pending"), bgr("fire")  # the marks' tones (fieldglass/record/marks.py), as on every view
    arrow = (t1 == move).all(axis=2).sum()  # the move's arrow: turn 1 has a move, turn 2 none
    assert arrow > 30 and (t2 == move).all(axis=2).sum() == 0
    assert (t1 == fire).all(axis=2).sum() > 10  # the fire line


def test_export_mp4_plays_back_every_event(rec_path, tmp_path):
    out = tmp_path / "game.mp4"
    export_cmd_text(rec_path, "mp4", "--out", str(out), "--fps", "5")
    cap = cv2.VideoCapture(str(out))
    assert cap.isOpened()
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    assert n == 11 * 3  # start + 10 events, each held 0.6 s at 5 fps
    ok, frame = cap.read()
    assert ok and frame.shape[1] >= 900


def test_stats_losses_combats_and_heatmap(rec_path, tmp_path, capsys):
    stats = compute_stats(Record.open(rec_path))
    assert stats.lost == {1: {"AU": 1}}
    assert stats.won == {"AU": 0, "FR": 1} and stats.combats == 1
    assert stats.heat[2, 9] == 1 and stats.heat[5, 9] == 1 and stats.heat.sum() == 2
    text = stats_text(stats)
    assert "combats: 1; won: AU 0, FR 1" in text
    parser = argparse.ArgumentParser()
    stats_cmd.add_parser(parser.add_subparsers())
    png = tmp_path / "s.png"
    args = parser.parse_args(["stats", str(rec_path), "--png", str(png)])
    assert args.run(args) == 0
    assert "bases lost per side per turn" in capsys.readouterr().out
    img = cv2.imread(str(png))
    assert img is not None and img.shape[0] > 500


def test_a_source_that_never_opens_leaves_no_record_behind(tmp_path, capsys):
    """A video that cannot be read: one line, exit 2, and no empty record to block the next try."""
    junk = tmp_path / "game.mp4"
    junk.write_bytes(b"not a video")
    save_camera(VirtualCamera.looking_at_table(2400, 1200, (1280, 720), 1700.0, 15.0).intrinsics, tmp_path / "c.json")
    layout, roster = demo_files()
    out = tmp_path / "game.fgr"
    argv = ["record", "--source", str(junk), "--camera", str(tmp_path / "c.json"), "--layout", str(layout),
            "--roster", str(roster), "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "game.mp4" in err and len(err.splitlines()) == 1
    assert not out.exists() and not list(tmp_path.glob("game.fgr*"))
