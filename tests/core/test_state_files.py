"""core/state_files.py: our own state files are read only when they are regular files under their
own name and within the cap; anything a pull request could commit in their place reads as absent,
at once, and nothing it points at is read."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from astest_tasks.core.state_files import (
    read_state_file,
    read_state_file_with_status,
    read_state_line,
)
from tests.fifo_guard import fifo_symlink, without_waiting

PACKAGE = Path(__file__).resolve().parents[2] / "astest_tasks"
MARKER = b"SECRET-MARKER-51d2"
READERS = {
    "read_state_file": read_state_file,
    "read_state_file_with_status": read_state_file_with_status,
    "read_state_line": read_state_line,
}


def test_a_regular_file_is_read_whole_or_by_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(b'{"head": 1}\n[]\n')
    assert read_state_file(path) == b'{"head": 1}\n[]\n'
    assert read_state_line(path) == b'{"head": 1}\n'
    read = read_state_file_with_status(path)
    assert read is not None
    assert read[0] == b'{"head": 1}\n[]\n'
    assert read[1].st_ino == path.stat().st_ino


@pytest.mark.parametrize("reader", READERS)
def test_a_missing_file_or_a_folder_is_absent(tmp_path: Path, reader: str) -> None:
    (tmp_path / "folder").mkdir()
    assert READERS[reader](tmp_path / "missing.json") is None
    assert READERS[reader](tmp_path / "folder") is None


@pytest.mark.parametrize("reader", READERS)
def test_a_symlink_to_a_fifo_is_absent_and_never_waited_on(tmp_path: Path, reader: str) -> None:
    link = tmp_path / "cache" / "state.json"
    fifo = fifo_symlink(link)
    assert without_waiting(lambda: READERS[reader](link), fifo) is None


@pytest.mark.parametrize("reader", READERS)
def test_a_fifo_itself_is_absent_and_never_waited_on(tmp_path: Path, reader: str) -> None:
    fifo = tmp_path / "state.json"
    os.mkfifo(fifo)
    assert without_waiting(lambda: READERS[reader](fifo), fifo) is None


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("target", ["outside", "/dev/zero", "/proc/self/environ"])
def test_a_symlink_is_absent_whatever_it_points_at(
    tmp_path: Path, reader: str, target: str
) -> None:
    """Our writes never leave a symlink: one there is not ours, even to a regular file."""
    outside = tmp_path / "secret.json"
    outside.write_bytes(MARKER + b"\n")
    link = tmp_path / "project" / "state.json"
    link.parent.mkdir()
    link.symlink_to(outside if target == "outside" else Path(target))
    assert READERS[reader](link) is None


@pytest.mark.parametrize("reader", READERS)
def test_a_file_over_the_cap_is_absent(tmp_path: Path, reader: str) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(b"x" * 101)
    assert READERS[reader](path, 100) is None
    path.write_bytes(b"x" * 100)
    assert READERS[reader](path, 100) is not None


def test_a_first_line_is_read_without_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "result.jsonl"
    path.write_bytes(b"head\n" + b"x" * 1000)
    assert read_state_line(path, 2000) == b"head\n"
    path.write_bytes(b"no newline at all")
    assert read_state_line(path) == b"no newline at all"


# Modules that read our own state files, and must do so through the door alone: a plain
# read_text, read_bytes or open there would bring back the wait on a FIFO or a symlink.
STATE_READERS = (
    "actions/build_action.py",
    "build/imports.py",
    "commands/watch.py",
    "fuzz/results.py",
    "model/crash_records.py",
    "model/results.py",
    "output/duration_history.py",
    "output/progress.py",
    "output/report_state.py",
    "remote/session.py",
)


def _plain_reads(module: str) -> list[str]:
    """Calls of ``read_text``, ``read_bytes``, ``Path.open`` or ``open`` in ``module``;
    ``os.open`` of a lock file is a write's, and not among them."""
    found: list[str] = []
    for node in ast.walk(ast.parse((PACKAGE / module).read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr in ("read_text", "read_bytes"):
            found.append(f"{module}:{node.lineno}")
        elif isinstance(function, ast.Attribute) and function.attr == "open":
            if not (isinstance(function.value, ast.Name) and function.value.id == "os"):
                found.append(f"{module}:{node.lineno}")
        elif isinstance(function, ast.Name) and function.id == "open":
            found.append(f"{module}:{node.lineno}")
    return found


def test_our_state_files_are_read_through_the_door_alone() -> None:
    assert [found for module in STATE_READERS for found in _plain_reads(module)] == []
