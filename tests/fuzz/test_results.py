"""Fuzz result files: what a cached campaign shows must be what the run wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.fuzz.fuzzer_report import FuzzAssertion, FuzzFailure, parse_fuzz_report
from astest_tasks.fuzz.results import FuzzResult, read_fuzz_result, write_fuzz_result
from tests.fifo_guard import fifo_symlink, without_waiting
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


# A fuzz result as the version before this codec wrote it: it must still load, and be written
# again byte for byte.
PREVIOUS_VERSION = {
    "format": 1,
    "file": "a.fuzz.ts",
    "file_id": "a",
    "mode": "wasi",
    "passed": False,
    "stage": "run",
    "seed": 7,
    "seed_is_random": True,
    "runs_override": "+10%",
    "fuzzers": [
        {
            "name": "clamp",
            "runs": 2,
            "passed": 1,
            "failed": 1,
            "crashed": 0,
            "skipped": 0,
            "time_ms": 50.5,
            "failure": {"instr": "toBe", "left": "89", "right": "98", "message": ""},
            "failures": [{"run": 17, "seed": 18446744073709551615, "input": "[98]"}],
        }
    ],
    "duration_s": 0.25,
    "session": "s",
    "build_command": "node asc.js",
    "error": "",
    "output": "✓",
    "crash_records": ["c.log"],
    "run_command": "doit astest:fuzz:wasi:a",
}


def test_a_fuzz_result_of_the_previous_version_loads_and_is_written_the_same(
    tmp_path: Path,
) -> None:
    text = json.dumps(PREVIOUS_VERSION, indent=1, ensure_ascii=False) + "\n"
    (tmp_path / "a.fuzz.result.json").write_text(text, encoding="utf-8")
    loaded = read_fuzz_result(tmp_path / "a.fuzz.result.json")
    assert loaded is not None
    (fuzzer,) = loaded.fuzzers
    assert fuzzer.assertion == FuzzAssertion("toBe", "89", "98", "")
    assert fuzzer.failures == (FuzzFailure(17, 2**64 - 1, "[98]"),)
    assert (loaded.seed, loaded.crash_records, loaded.output) == (7, ("c.log",), "✓")
    assert loaded.to_json() == text


def test_a_fuzz_result_with_a_field_of_the_wrong_type_reads_as_none(tmp_path: Path) -> None:
    wrong = {**PREVIOUS_VERSION, "seed": "7"}
    (tmp_path / "r.json").write_text(json.dumps(wrong), encoding="utf-8")
    assert read_fuzz_result(tmp_path / "r.json") is None
    with pytest.raises(ValueError, match=r"^seed: should be an integer, not a string$"):
        FuzzResult.from_json(json.dumps(wrong))


def test_a_result_linked_to_a_fifo_or_elsewhere_is_none_and_never_waited_on(
    tmp_path: Path,
) -> None:
    """None: the campaign runs again, and replaces what was there."""
    write_fuzz_result(tmp_path / "elsewhere.json", result())
    fifo = fifo_symlink(tmp_path / "fifo.json")
    assert without_waiting(lambda: read_fuzz_result(tmp_path / "fifo.json"), fifo) is None
    (tmp_path / "linked.json").symlink_to(tmp_path / "elsewhere.json")
    assert read_fuzz_result(tmp_path / "linked.json") is None
