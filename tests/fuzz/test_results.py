"""Fuzz result files: what a cached campaign shows must be what the run wrote."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.fuzz.fuzzer_report import parse_fuzz_report
from astest_tasks.fuzz.results import FuzzResult, read_fuzz_result, write_fuzz_result
from tests.fuzz.test_fuzzer_report import REPORT


def result(**changes: object) -> FuzzResult:
    values: dict[str, object] = {
        "file": "assembly/__fuzz__/clamp.fuzz.ts",
        "file_id": "clamp",
        "mode": "wasi",
        "passed": False,
        "stage": "run",
        "seed": 790229808,
        "seed_is_random": True,
        "runs_override": "+10%",
        "fuzzers": parse_fuzz_report(REPORT),
        "duration_s": 0.25,
        "session": "abc",
        "build_command": "node asc.js …",
        "error": "",
        "output": "printed ✓",
        "crash_records": (".as-test/crashes/wasi/clamp.fuzz.wasi.x.log",),
    }
    values.update(changes)
    return FuzzResult(**values)  # type: ignore[arg-type]


def test_write_then_read_gives_the_same_result(tmp_path: Path) -> None:
    written = result()
    write_fuzz_result(tmp_path / "r.json", written)
    assert read_fuzz_result(tmp_path / "r.json") == written
    assert written.runs == 250
    assert [fuzzer.name for fuzzer in written.failed_fuzzers] == ["clamp keeps values"]


def test_missing_torn_or_foreign_files_read_as_none(tmp_path: Path) -> None:
    assert read_fuzz_result(tmp_path / "absent.json") is None
    (tmp_path / "torn.json").write_text(result().to_json()[:40])
    assert read_fuzz_result(tmp_path / "torn.json") is None
    (tmp_path / "other.json").write_text('{"format": 99}')
    assert read_fuzz_result(tmp_path / "other.json") is None
