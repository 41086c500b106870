"""latest_log.py: as-test's renderCollectedLogs, block by block."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.output.latest_log import (
    CollectedLogs,
    SpecLogLines,
    collect,
    display_path,
    write_latest_log,
)

A = "assembly/__tests__/nested/a.spec.ts"
B = "assembly/__tests__/b.spec.ts"


def test_modes_with_the_same_lines_share_a_block_and_count_once() -> None:
    collected = collect(
        [
            SpecLogLines(A, "wasi", ('"x"', '"y"')),
            SpecLogLines(A, "bindings", ('"x"', '"y"')),
            SpecLogLines(B, "default", ('"only"',)),
            SpecLogLines(B, "wasi", ('"other"',)),
            SpecLogLines(B, "bindings", ()),
        ]
    )
    assert collected.count == 4
    assert collected.text == (
        '[LOG] b.spec.ts:\n\n"only"\n\n'
        '[LOG] b.spec.ts (wasi):\n\n"other"\n\n'
        '[LOG] nested/a.spec.ts (bindings, wasi):\n\n"x"\n"y"\n'
    )


def test_a_spec_outside_a_tests_folder_shows_its_path() -> None:
    assert display_path("specs/c.spec.ts") == "specs/c.spec.ts"
    assert display_path(A) == "nested/a.spec.ts"


def test_nothing_logged_removes_the_file_and_none_writes_none(tmp_path: Path) -> None:
    write_latest_log(tmp_path, ".as-test/logs", CollectedLogs("[LOG] b.spec.ts:\n\nx\n", 1))
    latest = tmp_path / ".as-test/logs/latest.log"
    assert latest.read_text() == "[LOG] b.spec.ts:\n\nx\n"
    write_latest_log(tmp_path, ".as-test/logs", CollectedLogs("", 0))
    assert not latest.exists()
    write_latest_log(tmp_path, None, CollectedLogs("[LOG] b.spec.ts:\n\nx\n", 1))
    assert not latest.exists()
