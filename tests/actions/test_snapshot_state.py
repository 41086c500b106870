"""The snapshot files' digest: what a run saves and what its up-to-date check compares."""

from __future__ import annotations

import os
from pathlib import Path

from astest_tasks.actions.snapshot_state import SNAPSHOT_STATE, snapshot_state
from astest_tasks.tasks.checks import SnapshotsUnchanged

SNAP = ".as-test/snapshots/math.spec.snap"


def test_the_digest_follows_content_and_tells_an_absent_file_from_an_empty_one(
    tmp_path: Path,
) -> None:
    absent = snapshot_state(tmp_path, [SNAP])
    (tmp_path / SNAP).parent.mkdir(parents=True)
    (tmp_path / SNAP).write_text("")
    empty = snapshot_state(tmp_path, [SNAP])
    (tmp_path / SNAP).write_text('{"math::adds": "2"}')
    written = snapshot_state(tmp_path, [SNAP])
    assert len({absent, empty, written}) == 3
    assert snapshot_state(tmp_path, [SNAP]) == written, "the same content, the same digest"


def test_the_check_compares_the_saved_state_with_the_files_now(tmp_path: Path) -> None:
    check = SnapshotsUnchanged(str(tmp_path), [SNAP])
    saved = {SNAPSHOT_STATE: snapshot_state(tmp_path, [SNAP])}
    assert check(object(), saved) is True
    assert check(object(), {}) is False, "no saved state: the spec has not run yet"
    (tmp_path / SNAP).parent.mkdir(parents=True)
    (tmp_path / SNAP).write_text('{"math::adds": "2"}')
    assert check(object(), saved) is False
    assert str(check) == f"a snapshot file changed since the last run ({SNAP})"


def test_a_snapshot_file_that_is_a_fifo_or_device_is_digested_unread(tmp_path: Path) -> None:
    """A plain read of a FIFO with no writer blocks for ever, one of /dev/zero fills memory: the
    up-to-date check runs on every doit call, so it must read neither."""
    (tmp_path / SNAP).parent.mkdir(parents=True)
    absent = snapshot_state(tmp_path, [SNAP])
    os.mkfifo(tmp_path / SNAP)
    fifo = snapshot_state(tmp_path, [SNAP])
    (tmp_path / SNAP).unlink()
    (tmp_path / SNAP).symlink_to("/dev/zero")
    device = snapshot_state(tmp_path, [SNAP])
    assert fifo == device != absent
