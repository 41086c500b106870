"""Default runner scripts: created from the templates when missing, never overwritten."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from astest_tasks.run.runner_files import (
    RUNNER_TARGETS,
    default_runner_source,
    ensure_default_runner,
)


@pytest.mark.parametrize("target", RUNNER_TARGETS)
def test_default_runner_is_short_valid_python_calling_instantiate(target: str) -> None:
    source = default_runner_source(target)
    tree = ast.parse(source)
    assert "from astest_tasks.runner import instantiate" in source
    assert "instantiate(IMPORTS)" in source
    assert f"{target} target" in source
    assert len(source.splitlines()) < 40
    assert ast.get_docstring(tree)


def test_a_missing_runner_is_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ensure_default_runner(str(tmp_path), "wasi")
    runner = tmp_path / ".as-test/runners/default.wasi.py"
    assert runner.read_text() == default_runner_source("wasi")
    assert "created .as-test/runners/default.wasi.py" in capsys.readouterr().err


def test_an_existing_runner_is_never_overwritten(tmp_path: Path) -> None:
    runner = tmp_path / ".as-test/runners/default.bindings.py"
    runner.parent.mkdir(parents=True)
    runner.write_text("# my own runner\n")
    assert ensure_default_runner(str(tmp_path), "bindings")
    assert runner.read_text() == "# my own runner\n"
    assert sorted(p.name for p in runner.parent.iterdir()) == ["default.bindings.py"]
