"""Atomic writes: whole files only, ordinary permissions, nothing left behind on failure."""

from __future__ import annotations

import itertools
import os
import pickle
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import pytest

from astest_tasks.core import atomic
from astest_tasks.core.atomic import (
    create_staged,
    create_text_atomic,
    install_staged,
    staging_name,
    write_bytes_atomic,
    write_text_atomic,
)

_T = TypeVar("_T")


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


def test_a_write_sweeps_old_temporaries_that_a_killed_write_left_and_keeps_recent_ones(
    tmp_path: Path,
) -> None:
    target = tmp_path / "x.spec.snap"
    stale = tmp_path / ".x.spec.snap.abcd1234.tmp"
    recent = tmp_path / ".x.spec.snap.efgh5678.tmp"
    other = tmp_path / ".y.spec.snap.abcd1234.tmp"
    for leftover in (stale, recent, other):
        leftover.write_text("half a snapshot")
    two_hours_ago = time.time() - 7200
    os.utime(stale, (two_hours_ago, two_hours_ago))
    os.utime(other, (two_hours_ago, two_hours_ago))
    write_text_atomic(target, "whole")
    assert target.read_text() == "whole"
    assert not stale.exists(), "an hour-old temporary of this file is a killed write's"
    assert recent.exists(), "a recent one may be a write in progress"
    assert other.exists(), "another file's temporaries are not ours to judge here"


def _interrupted_at(instant: int, write: Callable[[], object]) -> bool:
    """Run ``write`` with a KeyboardInterrupt raised at its ``instant``-th bytecode, in whatever
    function it is (as Ctrl-C does: Python raises it between any two bytecodes); True if the
    write was interrupted, False if it finished first."""
    executed = 0

    def count(frame: FrameType, event: str, _arg: Any) -> Any:  # sys.settrace's TraceFunction
        nonlocal executed
        frame.f_trace_opcodes = True
        if event == "opcode":
            executed += 1
            if executed == instant:
                raise KeyboardInterrupt
        return count

    sys.settrace(count)
    try:
        write()
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def _every_instant_of(write: Callable[[], object], check: Callable[[bool], None]) -> int:
    """Interrupt ``write`` at each of its bytecodes in turn, calling ``check(interrupted)`` after
    each; returns how many instants were interrupted."""
    write()  # warm the caches (compiled glob patterns) so the instants repeat run after run
    for instant in itertools.count(1):
        if not _interrupted_at(instant, write):
            check(False)
            return instant - 1
        check(True)
    raise AssertionError("unreachable")


def _in_a_forked_child(body: Callable[[], _T]) -> _T:
    """``body()``'s value, computed in a forked child; its failure fails the test.

    Why a child: an exception raised from a trace function while Python unwinds an ``except``
    block leaves the thread's handled exception set (Python 3.11), so every later test of the
    same worker would see a stale ``sys.exc_info()`` and chain it into its own tracebacks."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child's coverage is not collected)
        os.close(read_end)
        try:
            outcome: tuple[bool, object] = (True, body())
        except BaseException:
            outcome = (False, traceback.format_exc())
        with os.fdopen(write_end, "wb") as out:
            pickle.dump(outcome, out)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as received:
        data = received.read()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and data, "the child died before reporting"
    finished, value = pickle.loads(data)
    if not finished:
        pytest.fail(f"in the forked child:\n{value}")
    return value  # type: ignore[no-any-return]


def test_ctrl_c_at_any_instant_of_a_write_leaves_the_old_or_the_new_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "fsync", lambda _fd: None)  # thousands of writes: keep them fast
    target = tmp_path / "big.spec.snap"

    def interrupt_every_instant() -> tuple[int, set[str]]:
        outcomes: set[str] = set()

        def check(interrupted: bool) -> None:
            left = sorted(p.name for p in tmp_path.iterdir())
            assert left == ["big.spec.snap"], f"a temporary file outlived the write: {left}"
            outcomes.add(target.read_text())
            assert interrupted or target.read_text() == "new"
            target.write_text("old")

        target.write_text("old")
        # A fresh Path each time: an interrupt inside pathlib can leave that object half-made
        # (its cached string unset), which a real Ctrl-C never lets anyone use again.
        write = lambda: write_text_atomic(Path(str(target)), "new")  # noqa: E731
        return _every_instant_of(write, check), outcomes

    interrupted, outcomes = _in_a_forked_child(interrupt_every_instant)
    assert interrupted > 100, "the write must have been interrupted at its every bytecode"
    assert outcomes == {"old", "new"}, "interrupts landed both before and after the rename"


def test_ctrl_c_at_any_instant_of_a_create_leaves_no_file_or_the_whole_one_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "fsync", lambda _fd: None)
    target = tmp_path / "default.wasi.py"

    def interrupt_every_instant() -> tuple[int, set[str | None]]:
        outcomes: set[str | None] = set()

        def check(interrupted: bool) -> None:
            left = sorted(p.name for p in tmp_path.iterdir())
            assert set(left) <= {"default.wasi.py"}, f"a temporary outlived the write: {left}"
            outcomes.add(target.read_text() if target.exists() else None)
            assert interrupted or target.read_text() == "runner"
            target.unlink(missing_ok=True)

        create = lambda: create_text_atomic(Path(str(target)), "runner")  # noqa: E731
        return _every_instant_of(create, check), outcomes

    interrupted, outcomes = _in_a_forked_child(interrupt_every_instant)
    assert interrupted > 100
    assert outcomes == {None, "runner"}


def test_the_interrupts_leave_no_handled_exception_in_the_tests_process(tmp_path: Path) -> None:
    target = tmp_path / "big.spec.snap"
    write = lambda: write_text_atomic(Path(str(target)), "new")  # noqa: E731
    interrupted = _in_a_forked_child(lambda: _every_instant_of(write, lambda _interrupted: None))
    assert interrupted > 100
    assert sys.exc_info() == (None, None, None), "a stale exception would chain into later tests"


def test_stop_writing_lets_the_write_under_way_end_whole_and_begins_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic, "_WRITING", None)
    atomic.guard_writes()  # as the run ahead's helper does when it starts
    real_create = atomic._create_and_write
    inside, go_on = threading.Event(), threading.Event()

    def slow_create(temporary: Path, data: bytes, mode: int) -> None:
        real_create(temporary, data, mode)
        inside.set()
        go_on.wait()

    monkeypatch.setattr(atomic, "_create_and_write", slow_create)
    target = tmp_path / "result.json"
    writer = threading.Thread(target=write_text_atomic, args=(target, "whole"))
    writer.start()
    assert inside.wait(60)
    seen: list[list[str]] = []

    def stop_then_look() -> None:
        atomic.stop_writing()  # what the run ahead's helper does before os._exit
        seen.append(sorted(p.name for p in tmp_path.iterdir()))

    stopper = threading.Thread(target=stop_then_look)
    stopper.start()
    go_on.set()
    stopper.join(60)
    writer.join(60)
    # Once stop_writing returns, the write is installed and its temporary file gone.
    assert seen == [["result.json"]]
    assert target.read_text() == "whole"


def test_a_staged_file_takes_the_place_and_mode_of_the_file_and_replaces_a_symlink(
    tmp_path: Path,
) -> None:
    """What a download writes piece by piece: owner-only while it is written, then in place
    with the mode a write of that name gives; a symlink there is replaced, its target untouched."""
    kept = tmp_path / "runner.sh"
    kept.write_bytes(b"old")
    kept.chmod(0o755)
    target = tmp_path / "elsewhere.txt"
    target.write_bytes(b"not ours")
    link = tmp_path / "linked.wasm"
    link.symlink_to(target)
    for path in (kept, link):
        temporary = staging_name(path)
        assert temporary.parent == path.parent and temporary.name.endswith(".tmp")
        with create_staged(temporary) as file:
            file.write(b"new")
        assert stat.S_IMODE(temporary.stat().st_mode) == 0o600
        install_staged(temporary, path)
        assert path.read_bytes() == b"new" and not temporary.exists()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o755
    assert not link.is_symlink() and target.read_bytes() == b"not ours"
    with pytest.raises(FileExistsError):
        create_staged(kept)  # never opens a file that exists


def test_a_write_replaces_a_symlink_and_never_writes_through_it(tmp_path: Path) -> None:
    """Snapshots, reports and records are written over whatever is at their name: a symlink
    there (to a file outside the project) is replaced, its target left as it was."""
    target = tmp_path / "outside.txt"
    target.write_bytes(b"not ours")
    link = tmp_path / "project" / "file.snap"
    link.parent.mkdir()
    link.symlink_to(target)
    write_text_atomic(link, "ours\n")
    assert not link.is_symlink() and link.read_text() == "ours\n"
    assert target.read_bytes() == b"not ours"


def test_a_write_over_a_symlink_takes_a_new_files_mode_not_its_targets(tmp_path: Path) -> None:
    """The mode kept is our own file's: a symlink committed in its place, to a world-writable
    file (or a pipe), must not make our record or result writable by anyone."""
    target = tmp_path / "outside.txt"
    target.write_bytes(b"not ours")
    target.chmod(0o777)
    link = tmp_path / "project" / "record.json"
    link.parent.mkdir()
    link.symlink_to(target)
    write_text_atomic(link, "ours\n")
    assert stat.S_IMODE(link.stat().st_mode) == atomic._NEW_FILE_MODE
    assert stat.S_IMODE(target.stat().st_mode) == 0o777 and target.read_bytes() == b"not ours"
