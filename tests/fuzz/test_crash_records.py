"""Fuzz crash records: as-test's names and fields, with every failing input kept."""

from __future__ import annotations

import json
from pathlib import Path

from astest_tasks.fuzz.crash_records import FuzzCrash, entry_stem, slug, write_fuzz_crash_record
from astest_tasks.fuzz.fuzzer_report import parse_fuzz_report
from tests.fuzz.test_fuzzer_report import REPORT

CRASH = FuzzCrash(
    file="assembly/__fuzz__/nested/clamp.fuzz.ts",
    file_id="nested/clamp",
    mode="wasi",
    seed=5,
    error="fuzz failure",
    stdout="out",
    stderr="",
    cwd="/p",
    build_command="node asc.js",
    repro_command="ASTEST_FUZZ_SEED=5 ASTEST_FUZZ_RUNS=1 doit astest:fuzz:wasi:nested/clamp",
)


def test_names_follow_as_test_and_keep_nested_files_apart() -> None:
    assert slug("Clamp keeps values < 100!") == "clamp-keeps-values-100"
    assert slug("***") == "fuzzer"
    assert entry_stem("c", "clamp", "default") == "c/clamp.fuzz.default"
    assert entry_stem("c", "nested/clamp", "wasi", "A b") == "c/nested__clamp.fuzz.wasi.a-b"


def test_a_failing_fuzzer_leaves_its_inputs_and_the_replay(tmp_path: Path) -> None:
    fuzzer = parse_fuzz_report(REPORT)[0]
    log = write_fuzz_crash_record(tmp_path, ".as-test/crashes/wasi", CRASH, fuzzer)
    assert log == ".as-test/crashes/wasi/nested__clamp.fuzz.wasi.clamp-keeps-values.log"
    record = json.loads((tmp_path / log.replace(".log", ".json")).read_text())
    assert record["kind"] == "fuzz" and record["seed"] == 2**64 - 1
    assert record["failures"][0] == {"run": 17, "seed": 2**64 - 1, "input": [98]}
    assert record["failure"]["right"] == "98"
    text = (tmp_path / log).read_text()
    assert "input: [98]" in text and f"repro: {CRASH.repro_command}" in text


def test_a_crashed_campaign_leaves_one_record_without_fuzzers(tmp_path: Path) -> None:
    log = write_fuzz_crash_record(tmp_path, "crashes", CRASH, None)
    assert log == "crashes/nested__clamp.fuzz.wasi.log"
    record = json.loads((tmp_path / "crashes/nested__clamp.fuzz.wasi.json").read_text())
    assert record["seed"] == 5 and "failures" not in record
