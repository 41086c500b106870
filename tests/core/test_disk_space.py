"""A full disk, on a real tmpfs the test mounts: our atomic writes fail with one error naming
the folder and keep the file they would have replaced; the disk is told full when it is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from astest_tasks.core.atomic import create_text_atomic, write_bytes_atomic, write_text_atomic
from astest_tasks.core.disk_space import NEARLY_FULL_BYTES, DiskFull, is_full
from tests.tmpfs import fill, mounted_tmpfs

SIZE = 1024 * 1024


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)  # the error names the folder relative to the project
    with mounted_tmpfs(tmp_path / "disk", SIZE) as folder:
        yield folder


def test_a_write_that_finds_no_space_raises_disk_full_and_keeps_the_earlier_file(
    disk: Path,
) -> None:
    earlier = disk / "results" / "math.result.jsonl"
    write_text_atomic(earlier, "the earlier result\n")
    filler = fill(disk, leave_bytes=0)
    with pytest.raises(DiskFull) as raised:
        write_bytes_atomic(earlier, b"x" * 64 * 1024)
    message = str(raised.value)
    mounted = f"(the filesystem mounted at {disk.resolve()})"
    assert message.startswith(f"the disk holding disk/results {mounted} is full"), message
    assert "writing math.result.jsonl" in message and "fix: free space" in message
    assert "\n" not in message, "one line"
    assert earlier.read_text() == "the earlier result\n"
    assert sorted(p.name for p in earlier.parent.iterdir()) == ["math.result.jsonl"]
    filler.unlink()
    write_bytes_atomic(earlier, b"x" * 64 * 1024)  # space back: the write goes through
    assert earlier.read_bytes() == b"x" * 64 * 1024


def test_creating_a_file_on_a_full_disk_raises_disk_full_and_creates_nothing(disk: Path) -> None:
    fill(disk, leave_bytes=0)
    runner = disk / "runner.py"
    with pytest.raises(DiskFull, match=r"^the disk holding disk \(the filesystem mounted at "):
        create_text_atomic(runner, "print('hello')\n" * 1000)
    assert not runner.exists()
    assert [p.name for p in disk.iterdir()] == ["filler"]


def test_a_folder_is_full_when_almost_nothing_is_left(disk: Path) -> None:
    assert not is_full(disk)
    filler = fill(disk, leave_bytes=2 * NEARLY_FULL_BYTES)
    assert not is_full(disk)
    filler.unlink()
    fill(disk, leave_bytes=NEARLY_FULL_BYTES // 2)
    assert is_full(disk)


def test_a_folder_that_cannot_be_asked_is_not_called_full(tmp_path: Path) -> None:
    assert not is_full(tmp_path / "missing")
