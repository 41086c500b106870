"""A task that cannot do its work (a full disk) says so in one ``ERROR:`` line and fails its doit
task without doit's banner (actions/task_failure.py)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from astest_tasks.actions.task_failure import failed_task
from astest_tasks.core.disk_space import DiskFull, disk_full


def test_a_full_disk_is_one_error_line_and_a_quiet_task_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".as-test").mkdir()
    failure = failed_task(disk_full(tmp_path / ".as-test", "writing report.json"))
    printed = capsys.readouterr()
    assert printed.out == ""
    assert printed.err.startswith("ERROR: the disk holding .as-test (the filesystem mounted at ")
    assert printed.err.count("\n") == 1 and "fix: free space" in printed.err
    assert failure.report is False, "doit's banner would repeat it with a traceback"
    assert failure.message == printed.err.removeprefix("ERROR: ").rstrip("\n")


def test_control_characters_in_a_path_are_escaped_not_sent_to_the_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    failed_task(DiskFull("the disk holding spec\x1b[2J\r\nnext is full"))
    assert capsys.readouterr().err == "ERROR: the disk holding spec\\x1b[2J\\r\\nnext is full\n"


def test_a_disk_full_error_crosses_a_process_boundary_whole() -> None:
    """doit's ``-n N`` workers and the run ahead's helper send exceptions back pickled."""
    error = DiskFull("the disk holding .as-test is full; fix: free space")
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, DiskFull) and isinstance(copy, OSError)
    assert str(copy) == str(error) and copy.errno == error.errno
