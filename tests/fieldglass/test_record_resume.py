"""`fieldglass record --resume` checks the same things for every rules system (fieldglass/recording.py
`open_record`): the record must exist, must not be damaged, and must have been made with the same system, roster,
layout, board, blocks, starting position and rules options; --resume and --overwrite exclude each other, and an
existing record is replaced only with --overwrite.

Each system's record is made by the command itself on its synthetic table (one frame); the records it must refuse
are that record's metadata with one thing changed, so that the set-up given on the command line differs from it in
exactly that."""

from __future__ import annotations

import shutil

import pytest

from fieldglass.cli import main
from fieldglass.record import Record

SYSTEMS = ("wiener", "marengo", "dbx")
OPTIONS = {"wiener": "loss_test_from_wz = 5\n", "marengo": 'defensive_fire = "per_artillery"\n',
           "dbx": "tolerance_mm = 2.0\n"}


def record(system: str, out, *extra) -> list[str]:
    return ["record", "--system", system, "--source", "synthetic", "--out", str(out), *extra]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """system -> a record the command made of one frame of its synthetic table."""
    folder = tmp_path_factory.mktemp("resume")
    out = {}
    for system in SYSTEMS:
        path = folder / f"{system}.fgr"
        assert main(record(system, path, "--frames", "1")) == 0
        out[system] = path
    return out


def fails(argv, capsys) -> str:
    """The command's one line on stderr (exit 2)."""
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def variant(src, dst, change) -> None:
    """A record made like `src` but for `change(meta)`."""
    meta = dict(Record.open(src).meta)
    change(meta)
    Record.create(dst, meta).close()


@pytest.mark.parametrize("system", SYSTEMS)
def test_resume_goes_on_after_the_last_frame_read(system, made, tmp_path, capsys):
    path = tmp_path / "copy.fgr"
    shutil.copy(made[system], path)
    capsys.readouterr()
    assert main(record(system, path, "--frames", "3", "--resume")) == 0
    assert "resumed at frame 1" in capsys.readouterr().out
    rec = Record.open(path)
    assert rec.progress["frame"] == 2 and rec.meta["system"] == system
    rec.close()


@pytest.mark.parametrize("system", SYSTEMS)
def test_resume_needs_the_record(system, tmp_path, capsys):
    err = fails(record(system, tmp_path / "none.fgr", "--frames", "2", "--resume"), capsys)
    assert "none.fgr: no record to resume" in err
    assert not (tmp_path / "none.fgr").exists()


@pytest.mark.parametrize("system", SYSTEMS)
def test_resume_and_overwrite_exclude_each_other(system, made, capsys):
    before = made[system].read_bytes()
    err = fails(record(system, made[system], "--frames", "2", "--resume", "--overwrite"), capsys)
    assert "--resume and --overwrite exclude each other" in err
    assert made[system].read_bytes() == before


@pytest.mark.parametrize("system", SYSTEMS)
def test_an_existing_record_is_replaced_only_with_overwrite(system, made, tmp_path, capsys):
    path = tmp_path / "old.fgr"
    shutil.copy(made[system], path)
    with Record.open(path, writable=True) as rec:
        rec.append("note", 0.0, 0, data={"text": "from the first game"})
    err = fails(record(system, path, "--frames", "1"), capsys)
    assert "already exists (use --resume" in err
    assert main(record(system, path, "--frames", "1", "--overwrite")) == 0
    with Record.open(path) as rec:
        assert not [e for e in rec.events() if e.type == "note"] and rec.meta["system"] == system


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_damaged_record_is_not_resumed(system, made, tmp_path, capsys):
    path = tmp_path / "damaged.fgr"
    rec = Record.create(path, dict(Record.open(made[system]).meta), snapshot_every=1000)
    for i in range(400):
        rec.append("note", float(i), i, data={"text": f"note {i} " + "x" * 200})
    rec.close()
    data = bytearray(path.read_bytes())
    page = 4096
    victim = len(data) // page // 2
    data[victim * page: (victim + 1) * page] = b"\x5a" * page
    path.write_bytes(bytes(data))
    err = fails(record(system, path, "--frames", "2", "--resume"), capsys)
    assert "damaged.fgr: cannot resume a damaged record" in err


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_record_of_another_system_is_not_resumed(system, made, tmp_path, capsys):
    other = SYSTEMS[(SYSTEMS.index(system) + 1) % len(SYSTEMS)]
    path = tmp_path / "other.fgr"
    shutil.copy(made[other], path)
    err = fails(record(system, path, "--frames", "2", "--resume"), capsys)
    assert f"a {other} record, but --system is {system}" in err


def drop_last_piece(meta):
    meta["roster"] = meta["roster"][:-1]


def other_marker(meta):
    meta["roster"] = [dict(meta["roster"][0], marker=meta["roster"][0]["marker"] + 100)] + meta["roster"][1:]


def wider_table(meta):
    lay = dict(meta["layout"])
    lay["toml"] = lay["toml"].replace(f"width_mm = {lay['width_mm']:g}", f"width_mm = {lay['width_mm'] + 100:g}", 1)
    assert lay["toml"] != meta["layout"]["toml"]
    lay["width_mm"] += 100
    meta["layout"] = lay


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("change, why", [(drop_last_piece, "another roster (not in the record: "),
                                         (other_marker, "another roster ("),
                                         (wider_table, "another table layout")])
def test_a_record_made_with_another_roster_or_layout_is_not_resumed(system, change, why, made, tmp_path, capsys):
    path = tmp_path / "changed.fgr"
    variant(made[system], path, change)
    err = fails(record(system, path, "--frames", "2", "--resume"), capsys)
    assert "changed.fgr: cannot resume: the record was made with " + why in err
    assert Record.open(path).events() == []  # nothing written


def test_a_marengo_record_made_on_another_board_or_with_other_blocks_is_not_resumed(made, tmp_path, capsys):
    path = tmp_path / "board.fgr"
    variant(made["marengo"], path, lambda m: m.update(board={"toml": "[board]\n", "name": "other.toml"}))
    err = fails(record("marengo", path, "--frames", "2", "--resume"), capsys)
    assert "the record was made with another board" in err
    path = tmp_path / "blocks.fgr"

    def other_blocks(meta):
        unit = next(iter(meta["blocks"]))
        meta["blocks"] = {**meta["blocks"], unit: {**meta["blocks"][unit], "markers": {"1": 99}}}

    variant(made["marengo"], path, other_blocks)
    assert "other blocks for its units" in fails(record("marengo", path, "--frames", "2", "--resume"), capsys)


def test_a_dbx_record_made_from_another_starting_position_is_not_resumed(made, tmp_path, capsys):
    path = tmp_path / "game.fgr"
    variant(made["dbx"], path, lambda m: m.update(game={**m["game"], "terrain": []}))
    assert "another starting position (--game)" in fails(record("dbx", path, "--frames", "2", "--resume"), capsys)
    path = tmp_path / "states.fgr"
    variant(made["dbx"], path, lambda m: m.update(piece_states={"b1": {"type": "Li", "quality": "Gr"}}))
    assert "another starting position (--game)" in fails(record("dbx", path, "--frames", "2", "--resume"), capsys)


@pytest.mark.parametrize("system", SYSTEMS)
def test_resume_with_other_rules_options_is_refused(system, made, tmp_path, capsys):
    path = tmp_path / "copy.fgr"
    shutil.copy(made[system], path)
    opts = tmp_path / "options.toml"
    opts.write_text(OPTIONS[system])
    err = fails(record(system, path, "--frames", "2", "--resume", "--options", str(opts)), capsys)
    assert "the record was made with other rules options (--options)" in err
