"""Crash records: as-test's files and fields, one entry per spec and mode."""

from __future__ import annotations

import json
from pathlib import Path

from astest_tasks.crash_records import CrashCommands, crash_entry, write_crash_record
from astest_tasks.report import Counts, FailureDetail
from astest_tasks.results import SpecResult, Stage, Status

COMMANDS = CrashCommands(cwd="/p", build="node asc.js x", run="doit astest:run:wasi:x", repro="r")


def crashed(stage: Stage) -> SpecResult:
    return SpecResult(
        spec="assembly/__tests__/x.spec.ts",
        spec_id="x",
        mode="wasi",
        target="wasi",
        status=Status.FAILED,
        stage=stage,
        counts=Counts(0, 1, 0, 0, 1, 0, 0.0),
        failures=(FailureDetail("t", "", "", None, None, "wasm trap: unreachable"),),
        suites=(),
        duration_s=0.1,
        session="s",
        build_command="node asc.js x",
        error="test runtime failed with exit code 1",
        output="printed before the crash",
    )


def test_entry_names_follow_as_test_and_keep_modes_apart() -> None:
    assert crash_entry(".as-test/crashes/default", "math", "default") == (
        ".as-test/crashes/default/math.spec"
    )
    assert (
        crash_entry(".as-test/crashes", "nested/a", "wasi") == ".as-test/crashes/nested/a.spec.wasi"
    )


def test_a_record_has_as_tests_fields_and_a_readable_log(tmp_path: Path) -> None:
    log = write_crash_record(tmp_path, ".as-test/crashes", crashed(Stage.RUN), COMMANDS)
    assert log == ".as-test/crashes/x.spec.wasi.log"
    record = json.loads((tmp_path / ".as-test/crashes/x.spec.wasi.json").read_text())
    assert record["kind"] == "test"
    assert record["stage"] == "run"
    assert record["file"] == "assembly/__tests__/x.spec.ts"
    assert record["reproCommand"] == "r"
    assert record["timestamp"].endswith("Z")
    assert "exit code 1" in record["error"] and "unreachable" in record["error"]
    assert record["stdout"] == "printed before the crash"
    text = (tmp_path / log).read_text()
    assert "stage: run" in text and "repro: r" in text and "[error]" in text and "[stdout]" in text


def test_a_build_failure_is_a_build_stage_record(tmp_path: Path) -> None:
    write_crash_record(tmp_path, "crashes", crashed(Stage.BUILD), COMMANDS)
    assert json.loads((tmp_path / "crashes/x.spec.wasi.json").read_text())["stage"] == "build"
