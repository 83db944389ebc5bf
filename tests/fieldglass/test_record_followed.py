"""A record followed read-only while another connection writes it (fieldglass.record.store.FollowedRecord): the web
live feed and the archive follower both watch a recording this way."""

from __future__ import annotations

import os

from fieldglass.record import Record
from fieldglass.record.store import FollowedRecord
from fieldglass.scripted_feed import scripted_feed


def test_a_followed_record_tells_each_commit_and_follows_a_file_made_anew(tmp_path):
    path = tmp_path / "game.fgr"
    meta = scripted_feed().meta
    followed = FollowedRecord(path)
    assert followed.version() is None and followed.record is None  # nothing there yet
    (tmp_path / "game.fgr").write_bytes(b"")  # created, not written through yet
    assert followed.version() is None
    os.remove(path)
    with Record.create(path, meta) as rec:
        first = followed.version()
        assert first is not None and followed.version() == first  # nothing new
        rec.append("bookmark", 1.0, 1, None, {"label": "one"})
        second = followed.version()
        assert second != first and second[0] == first[0]  # a commit, the same file
    with Record.create(path, meta, overwrite=True):  # `record --overwrite`: another file under the same name
        third = followed.version()
        assert third is not None and third[0] != first[0]
        with Record.open(path) as again:
            assert [e.type for e in followed.record.events()] == [e.type for e in again.events()]
    followed.close()
    assert followed.record is None
