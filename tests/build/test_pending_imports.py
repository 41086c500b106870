"""Pending imports leave the file_dep once doit knows nothing will make them."""

from __future__ import annotations

from pathlib import Path

import pytest

from astest_tasks.build.pending_imports import PendingImports


class FakeTask:
    def __init__(self, file_dep: set[str]) -> None:
        self.file_dep = file_dep


def test_a_generated_module_stays_a_dependency_and_its_other_candidate_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen/index.ts").write_text("export const A = 1;\n")
    task = FakeTask({"spec.ts", "gen.ts", "gen/index.ts"})
    check = PendingImports([["gen.ts", "gen/index.ts"]])
    assert check(task, {}) is None  # no opinion: the file checks decide
    assert task.file_dep == {"spec.ts", "gen/index.ts"}


def test_a_broken_import_is_dropped_and_the_build_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    task = FakeTask({"spec.ts", "gone.ts", "gone/index.ts"})
    check = PendingImports([["gone.ts", "gone/index.ts"]])
    assert check(task, {}) is False
    assert task.file_dep == {"spec.ts"}
    assert str(check) == "an import resolves to no file: gone.ts"
