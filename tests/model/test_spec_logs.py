"""Readable per-spec logs: where they go and what a reader finds in them."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.model.guest_report import Counts, FailureDetail, Suite, Verdict
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.model.spec_logs import readable_log, spec_log_path, write_spec_log
from tests.conftest import make_spec_result


def logged_result() -> SpecResult:
    inner = Suite("adds", "test", 1, Verdict.FAIL, 0.0, 1.0, (), (), ("x is 4",))
    outer = Suite("math", "describe", 0, Verdict.FAIL, 0.0, 1.0, (inner,), (), ("starting",))
    return make_spec_result(
        "nested/math",
        Status.FAILED,
        counts=Counts(0, 1, 0, 1, 1, 0, 2.0),
        failure_list=(FailureDetail("math > adds#1", "8:5", "toBe", "5", "4", "off by one"),),
        suites=(outer,),
        duration_s=0.0125,
        build_command="node asc.js math",
        output="plain output line\n",
    )


def test_log_paths_follow_as_test() -> None:
    assert spec_log_path(".as-test/logs/wasi", "assembly/__tests__/nested/math.spec.ts") == (
        ".as-test/logs/wasi/nested/math.spec.log"
    )
    assert spec_log_path("logs/default", "src/a.spec.ts") == "logs/default/a.spec.log"


def test_the_log_holds_verdict_failures_logs_and_output() -> None:
    text = readable_log(logged_result(), "doit astest:run:wasi:nested/math")
    assert text.startswith("Mode: wasi\nBuild: node asc.js math\nRun: doit astest:run:wasi:")
    assert "FAIL  assembly/__tests__/nested/math.spec.ts" in text
    assert "Tests: 1 passed, 1 failed, 0 skipped" in text
    assert "FAIL  math > adds#1 (assembly/__tests__/nested/math.spec.ts:8:5)" in text
    assert "  Expected: 5\n  Received: 4\n  Message: off by one" in text
    assert "[math] starting" in text and "[math > adds] x is 4" in text
    assert text.endswith("Output:\nplain output line\n")


def test_writing_creates_the_folders(tmp_path: Path) -> None:
    path = write_spec_log(tmp_path, ".as-test/logs/wasi", logged_result(), "run")
    assert (tmp_path / path).read_text().startswith("Mode: wasi")
