"""The build action records a compile that could not start as the spec's failure, not doit's."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.actions.build_action import build_spec
from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compiler import read_build_record
from astest_tasks.model.results import SpecIdentity
from tests.fifo_guard import fifo_symlink, without_waiting


def _request(root: Path) -> BuildRequest:
    return BuildRequest(
        project_root=str(root),
        spec=SpecIdentity("assembly/__tests__/math.spec.ts", "math", "wasi", "wasi"),
        wasm_path=".as-test/build/wasi/math.spec.wasm",
        record_path=".as-test/build/wasi/math.spec.build.json",
    )


def test_a_project_without_its_packages_gets_a_failed_record_naming_the_fix(
    tmp_path: Path,
) -> None:
    request = _request(tmp_path)
    assert build_spec(request) is True, "doit goes on with the other specs"
    record = read_build_record(tmp_path, request.record_path)
    assert record is not None
    assert not record.ok
    assert record.spec == request.spec.path and record.mode == "wasi"
    assert "fix:" in record.diagnostics


def test_a_record_linked_to_a_fifo_is_not_waited_on_and_is_replaced(tmp_path: Path) -> None:
    """The record before the build is read to tell doit whether it changed: a committed symlink
    to a FIFO (or to /proc/self/fd/1, stdout piped in CI) there waited for ever."""
    request = _request(tmp_path)
    fifo = fifo_symlink(tmp_path / request.record_path)
    assert without_waiting(lambda: build_spec(request), fifo) is True
    assert not (tmp_path / request.record_path).is_symlink()
    assert read_build_record(tmp_path, request.record_path) is not None
