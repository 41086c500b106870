"""The build action records a compile that could not start as the spec's failure, not doit's."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.actions.build_action import build_spec
from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compiler import read_build_record
from astest_tasks.model.results import SpecIdentity


def test_a_project_without_its_packages_gets_a_failed_record_naming_the_fix(
    tmp_path: Path,
) -> None:
    request = BuildRequest(
        project_root=str(tmp_path),
        spec=SpecIdentity("assembly/__tests__/math.spec.ts", "math", "wasi", "wasi"),
        wasm_path=".as-test/build/wasi/math.spec.wasm",
        record_path=".as-test/build/wasi/math.spec.build.json",
    )
    assert build_spec(request) is True, "doit goes on with the other specs"
    record = read_build_record(tmp_path, request.record_path)
    assert record is not None
    assert not record.ok
    assert record.spec == request.spec.path and record.mode == "wasi"
    assert "fix:" in record.diagnostics
