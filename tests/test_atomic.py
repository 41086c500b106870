"""Atomic writes: whole files only, ordinary permissions, nothing left behind on failure."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from astest_tasks import atomic
from astest_tasks.atomic import create_text_atomic, write_bytes_atomic, write_text_atomic


def test_new_file_gets_the_umask_permissions_not_owner_only(tmp_path: Path) -> None:
    old_mask = os.umask(0o022)
    try:
        target = tmp_path / "report.json"
        write_text_atomic(target, "{}")
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE(target.stat().st_mode) == atomic._NEW_FILE_MODE
    assert stat.S_IMODE(target.stat().st_mode) & 0o044, "group and others must be able to read"


def test_replacing_a_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "runner.py"
    target.write_text("old")
    target.chmod(0o755)
    write_text_atomic(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o755


def test_creates_missing_parent_folders(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c.bin"
    write_bytes_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "math.snap"
    target.write_text("old contents")

    def refuse(_src: object, _dst: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C between writing and renaming

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(target, "new contents")
    assert target.read_text() == "old contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["math.snap"]


def test_exclusive_create_works_without_hard_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(_src: object, _dst: object) -> None:
        raise PermissionError("operation not permitted")  # e.g. some network filesystems

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "runners" / "default.wasi.py"
    assert create_text_atomic(target, "first")
    assert not create_text_atomic(target, "second")
    assert target.read_text() == "first"
    assert sorted(p.name for p in target.parent.iterdir()) == ["default.wasi.py"]
