"""Crash records: as-test's files and fields, one entry per spec and mode."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from astest_tasks.model.crash_records import (
    CrashCommands,
    crash_entry,
    orphaned_crash_records,
    remove_crash_record,
    write_crash_record,
)
from astest_tasks.model.guest_report import Counts, FailureDetail
from astest_tasks.model.results import SpecResult, Stage, Status
from tests.conftest import make_spec_result
from tests.fifo_guard import fifo_symlink, without_waiting

COMMANDS = CrashCommands(cwd="/p", build="node asc.js x", run="doit astest:run:wasi:x", repro="r")


def crashed(stage: Stage) -> SpecResult:
    return make_spec_result(
        "x",
        Status.FAILED,
        stage=stage,
        counts=Counts(0, 1, 0, 0, 1, 0, 0.0),
        failure_list=(FailureDetail("t", "", "", None, None, "wasm trap: unreachable"),),
        duration_s=0.1,
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


def test_a_record_keeps_as_tests_keys_in_its_order(tmp_path: Path) -> None:
    write_crash_record(tmp_path, "crashes", crashed(Stage.RUN), COMMANDS)
    record = json.loads((tmp_path / "crashes/x.spec.wasi.json").read_text())
    assert list(record) == [
        "timestamp",
        "kind",
        "stage",
        "file",
        "mode",
        "cwd",
        "buildCommand",
        "runCommand",
        "reproCommand",
        "error",
        "stdout",
    ]


def test_a_record_with_a_field_that_is_not_a_string_is_not_ours(tmp_path: Path) -> None:
    gone = replace(crashed(Stage.RUN), spec="assembly/__tests__/gone.spec.ts")
    write_crash_record(tmp_path, "crashes", gone, COMMANDS)
    path = tmp_path / "crashes/x.spec.wasi.json"
    assert list(orphaned_crash_records(tmp_path, "crashes")) == [
        "crashes/x.spec.wasi.json",
        "crashes/x.spec.wasi.log",
    ]
    path.write_text(json.dumps({**json.loads(path.read_text()), "stdout": None}))
    assert list(orphaned_crash_records(tmp_path, "crashes")) == []


def test_a_build_failure_is_a_build_stage_record(tmp_path: Path) -> None:
    write_crash_record(tmp_path, "crashes", crashed(Stage.BUILD), COMMANDS)
    assert json.loads((tmp_path / "crashes/x.spec.wasi.json").read_text())["stage"] == "build"


def test_a_run_that_needs_no_record_removes_the_old_one(tmp_path: Path) -> None:
    write_crash_record(tmp_path, ".as-test/crashes", crashed(Stage.RUN), COMMANDS)
    other = replace(crashed(Stage.RUN), mode="bindings")
    write_crash_record(tmp_path, ".as-test/crashes", other, COMMANDS)
    remove_crash_record(tmp_path, ".as-test/crashes", "x", "wasi")
    remove_crash_record(tmp_path, ".as-test/crashes", "x", "wasi")  # nothing left: no error
    left = sorted(p.name for p in (tmp_path / ".as-test/crashes").iterdir())
    assert left == ["x.spec.bindings.json", "x.spec.bindings.log"], "other modes keep theirs"


def test_orphaned_records_are_ours_whose_spec_file_is_gone(tmp_path: Path) -> None:
    crashes = tmp_path / ".as-test/crashes"
    (tmp_path / "assembly/__tests__").mkdir(parents=True)
    (tmp_path / "assembly/__tests__/kept.spec.ts").write_text("// still here")
    gone = replace(crashed(Stage.RUN), spec="assembly/__tests__/nested/gone.spec.ts")
    kept = replace(crashed(Stage.RUN), spec="assembly/__tests__/kept.spec.ts", spec_id="kept")
    write_crash_record(tmp_path, ".as-test/crashes", replace(gone, spec_id="nested/gone"), COMMANDS)
    write_crash_record(tmp_path, ".as-test/crashes", kept, COMMANDS)
    record = json.loads((crashes / "nested/gone.spec.wasi.json").read_text())
    # Not ours, though alike: a user's notes, a record renamed by hand, a log of another record.
    (crashes / "notes.json").write_text(json.dumps({**record, "note": "keep"}))
    (crashes / "renamed.json").write_text(json.dumps(record))
    (crashes / "renamed.log").write_text("my own log")
    (crashes / "notes.log").write_text("my own log")
    (crashes / "broken.json").write_text("{not json")
    assert list(orphaned_crash_records(tmp_path, ".as-test/crashes")) == [
        ".as-test/crashes/nested/gone.spec.wasi.json",
        ".as-test/crashes/nested/gone.spec.wasi.log",
    ]
    assert list(orphaned_crash_records(tmp_path, ".as-test/no-such-folder")) == []


def test_a_record_or_log_linked_to_a_fifo_or_elsewhere_is_not_ours_and_never_waited_on(
    tmp_path: Path,
) -> None:
    """The clean-up reads every record in the crash folder: a symlink there is left alone."""
    gone = replace(crashed(Stage.RUN), spec="assembly/__tests__/gone.spec.ts")
    write_crash_record(tmp_path, "elsewhere", gone, COMMANDS)
    crashes = tmp_path / "crashes"
    crashes.mkdir()
    (crashes / "x.spec.wasi.json").symlink_to(tmp_path / "elsewhere/x.spec.wasi.json")
    fifo = fifo_symlink(crashes / "y.spec.wasi.json")
    assert without_waiting(lambda: list(orphaned_crash_records(tmp_path, "crashes")), fifo) == []
    write_crash_record(tmp_path, "ours", replace(gone, spec_id="z"), COMMANDS)
    log = tmp_path / "ours/z.spec.wasi.log"
    log.unlink()
    fifo = fifo_symlink(log)
    found = without_waiting(lambda: list(orphaned_crash_records(tmp_path, "ours")), fifo)
    assert found == ["ours/z.spec.wasi.json"], "the record alone: its log is not ours"
