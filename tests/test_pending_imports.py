"""Pending imports leave the file_dep once doit knows nothing will make them."""

from __future__ import annotations

from pathlib import Path

import pytest

from astest_tasks.pending_imports import drop_missing_imports


class FakeTask:
    def __init__(self, file_dep: set[str]) -> None:
        self.file_dep = file_dep


def test_a_generated_module_stays_a_dependency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gen.ts").write_text("export const A = 1;\n")
    task = FakeTask({"spec.ts", "gen.ts"})
    assert drop_missing_imports(task, {}, ["gen.ts"]) is None  # no opinion: files decide
    assert task.file_dep == {"spec.ts", "gen.ts"}


def test_a_broken_import_is_dropped_and_the_build_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    task = FakeTask({"spec.ts", "gone.ts"})
    assert drop_missing_imports(task, {}, ["gone.ts"]) is False
    assert task.file_dep == {"spec.ts"}
