"""A project whose specs send lone UTF-16 surrogates (test names, log() lines, values, snapshot
keys, plain stdout and abort messages) runs to the end under doit: every output is written and
parses, the spec after them runs, and the verdicts and counts agree with as-test 1.0.7's own CLI.

The fixture, tests/fixtures/utf16, is a small JSON-string library whose specs use
``String.fromCharCode(0xd800)`` as real serialization tests do: ``escape`` has one known bug (a
failing test), ``decode`` aborts on purpose with the surrogate in its message and its stdout,
``snapshot`` asserts snapshots under a test name with a lone surrogate, and ``wellformed`` (all
plain text) comes last and must still run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import junitparser
import pytest
from tap.parser import Parser as TapParser

from tests.integration.conftest import Project, copy_project
from tests.output.formats.test_ctrf import validated_ctrf

pytestmark = pytest.mark.integration

MODES = ("wasi", "bindings")
SPECS = ("decode", "escape", "snapshot", "wellformed")
SNAPSHOT_SPEC = "assembly/__tests__/snapshot.spec.ts"
SNAPSHOT_FILE = ".as-test/snapshots/snapshot.spec.snap"
# "Suites:  6 failed, 0 skipped, 10 total" (as-test 1.0.7 prints failed, skipped and total)
AS_TEST_COUNT = re.compile(r"^(Suites|Tests):\s+(\d+) failed,\s+(\d+) skipped,\s+(\d+) total", re.M)
AS_TEST_FILE = re.compile(r"^ (PASS|FAIL)  (\S+)\.spec\.ts ", re.M)


def as_test(
    project: Project, *args: str, spec: str | None = None, modes: tuple[str, ...] = MODES
) -> subprocess.CompletedProcess[str]:
    """``npx ast test`` on the project, each mode through as-test's stock Node runner for its
    target (as-test 1.0.7 would run every mode with the base runtime otherwise)."""
    config_path = project.root / "as-test.config.json"
    config = json.loads(config_path.read_text())
    for mode in config["modes"].values():
        target = mode["buildOptions"]["target"]
        runner = f"node ./.as-test/runners/default.{target}.js <file>"
        mode["runOptions"] = {"runtime": {"cmd": runner}}
    if spec is not None:
        config["input"] = [spec]
    config_path.write_text(json.dumps(config))
    return subprocess.run(
        ["npx", "--no-install", "ast", "test", "--mode", ",".join(modes), *args],
        cwd=project.root,
        capture_output=True,
        text=True,
        errors="replace",  # its wasi runner passes the spec's raw WTF-8 through
        timeout=600,
        env={**os.environ, "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
    )


def spec_entry(report: dict[str, Any], spec_id: str, mode: str) -> dict[str, Any]:
    for entry in report["specs"]:
        if entry["result"]["spec_id"] == spec_id and entry["mode"] == mode:
            assert isinstance(entry, dict)
            return entry
    raise AssertionError(f"{spec_id} [{mode}] is not in report.json")


def test_lone_surrogates_reach_every_output_and_counts_agree_with_as_test(
    tmp_path: Path,
) -> None:
    ours = copy_project("utf16", tmp_path / "ours")
    # An ASCII stdout in a pipe, under the C locale: the summary must still be printed whole.
    run = ours.doit(env={"PYTHONIOENCODING": "ascii", "LC_ALL": "C", "LANG": "C"})
    everything = run.stdout + run.stderr
    assert run.exit_code == 1, everything  # a test failed: 1, never doit's 2
    assert "Traceback" not in everything and "Error" not in run.stderr, everything
    assert run.last_line == "tests: 24 passed, 8 failed, 0 skipped", everything
    assert "toWellFormed > replaces a lone low surrogate \\udc00#1" in run.stdout
    assert 'decoding "\\udbff\\ud8"' in run.stdout  # the crashed spec's stdout
    for mode in MODES:
        assert f"astest:run:{mode}:wellformed" in run.executed, "the spec after them ran"
        assert f"PASS  {mode}  wellformed" in run.stderr  # its live line

    # report.json keeps every surrogate exactly (as a JSON escape).
    raw_report = (ours.root / ".as-test/report.json").read_bytes()
    raw_report.decode("utf-8")  # strict: valid UTF-8, the surrogates are JSON escapes
    report = json.loads(raw_report)
    escape = spec_entry(report, "escape", "wasi")["result"]
    titles = [failure["title"] for failure in escape["failures"]]
    assert titles == ["toWellFormed > replaces a lone low surrogate \udc00#1"]
    assert escape["failures"][0]["actual"] == '"a\\udc00"'  # as-test's serialised value
    logs = [log for suite in escape["suites"] for child in suite["suites"] for log in child["logs"]]
    assert "known bug #41: \udc00 slips through" in logs
    assert "raw value: \ud800x\udc00" in logs
    for mode in MODES:
        assert spec_entry(report, "wellformed", mode)["verdict"] == "passed"
        # The result file of the crashed spec holds what it printed, surrogate included.
        decode = spec_entry(report, "decode", mode)["result"]
        assert decode["output"] == 'decoding "\udbff\\ud8"\n'

    # JUnit XML: junitparser reads it; lone surrogates are spelled \udXXX (XML cannot hold them).
    junit = junitparser.JUnitXml.fromfile(str(ours.root / ".as-test/junit.xml"))
    cases = [case for suite in junit for case in suite]
    names = [case.name for case in cases]
    assert "toWellFormed > replaces a lone low surrogate \\udc00" in names
    assert junit.failures == sum(1 for case in cases if not case.is_passed and not case.is_skipped)
    assert junit.failures == 8

    # TAP: tap.py reads every line, and the failures' YAML keeps the surrogates exactly.
    tap_text = (ours.root / ".as-test/reports/report.tap").read_text(encoding="utf-8")
    lines = list(TapParser().parse_text(tap_text))
    assert not [line.text for line in lines if line.category == "unknown" and line.text.strip()]
    tests = [line for line in lines if line.category == "test"]
    assert lines[1].category == "plan" and lines[1].expected_tests == len(tests)
    assert sum(1 for line in tests if not line.ok) == 8
    messages = [t.yaml_block["message"] for t in tests if t.yaml_block is not None]
    assert any('abort: malformed \\u escape in "\udbff\\ud8"' in m for m in messages), messages

    # CTRF: valid UTF-8 and valid CTRF, the surrogates kept exactly (as JSON escapes).
    ctrf_path = ours.root / ".as-test/report.ctrf.json"
    ctrf_path.read_bytes().decode("utf-8")  # strict
    ctrf_tests = validated_ctrf(ctrf_path)["results"]["tests"]
    assert "toWellFormed > replaces a lone low surrogate \udc00" in [t["name"] for t in ctrf_tests]
    assert sum(1 for test in ctrf_tests if test["status"] == "failed") == 8

    # Readable logs and crash records: valid UTF-8, the surrogates spelled \udXXX.
    for mode in MODES:
        log = (ours.root / f".as-test/logs/{mode}/escape.spec.log").read_bytes().decode("utf-8")
        assert "known bug #41: \\udc00 slips through" in log
        crash = ours.root / ".as-test/crashes"
        record = json.loads((crash / f"decode.spec.{mode}.json").read_text(encoding="utf-8"))
        assert record["stdout"] == 'decoding "\udbff\\ud8"\n'
        assert (
            "running when it stopped: unquote > stops at a truncated escape after \udbff"
            in (record["error"])
        )
        crash_log = (crash / f"decode.spec.{mode}.log").read_bytes().decode("utf-8")
        assert 'decoding "\\udbff\\ud8"' in crash_log

    # as-test 1.0.7 on the same fixture: the same totals, and the same verdict for every file.
    theirs = copy_project("utf16", tmp_path / "theirs")
    proc = as_test(theirs)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    their_counts = {
        kind: (int(f), int(s), int(t)) for kind, f, s, t in AS_TEST_COUNT.findall(proc.stdout)
    }
    counts = [spec_entry(report, spec, mode)["counts"] for spec in SPECS for mode in MODES]
    for kind, key in (("Suites", "suites"), ("Tests", "tests")):
        failed = sum(c[f"{key}_failed"] for c in counts)
        skipped = sum(c[f"{key}_skipped"] for c in counts)
        total = failed + skipped + sum(c[f"{key}_passed"] for c in counts)
        assert their_counts[kind] == (failed, skipped, total), (kind, proc.stdout)
    their_files = dict((spec, verdict) for verdict, spec in AS_TEST_FILE.findall(proc.stdout))
    our_files = {
        spec: "FAIL"
        if any(spec_entry(report, spec, mode)["verdict"] == "failed" for mode in MODES)
        else "PASS"
        for spec in SPECS
    }
    assert their_files == our_files, proc.stdout


def test_a_snapshot_with_lone_surrogates_is_created_then_matched(tmp_path: Path) -> None:
    ours = copy_project("utf16", tmp_path / "ours")
    config_path = ours.root / "as-test.config.json"
    config = json.loads(config_path.read_text())
    config["input"] = [SNAPSHOT_SPEC]
    config_path.write_text(json.dumps(config))

    created = ours.doit("astest", "--update-snapshots=create")
    assert created.exit_code == 0, created.stdout + created.stderr
    snapshot = (ours.root / SNAPSHOT_FILE).read_bytes()
    # Keys as Node writes a lone surrogate (U+FFFD); the values as as-test serialised them.
    assert (
        b'=== serialized \xef\xbf\xbd ids > raw value \xef\xbf\xbd ===\n"id-\\ud800"\n' in snapshot
    )

    tasks = [f"astest:run:{mode}:snapshot" for mode in MODES]
    assert ours.doit("forget", *tasks).exit_code == 0
    matched = ours.doit()
    assert matched.exit_code == 0, matched.stdout + matched.stderr
    assert set(tasks) <= set(matched.executed), "the specs really ran again"
    report = json.loads((ours.root / ".as-test/report.json").read_text(encoding="utf-8"))
    for mode in MODES:
        snapshots = spec_entry(report, "snapshot", mode)["result"]["snapshots"]
        assert (snapshots["matched"], snapshots["missing"], snapshots["created"]) == (2, 0, 0)

    # as-test 1.0.7 writes the same bytes, but cannot match them again: the key it looks up
    # still holds the surrogate, the file's has U+FFFD (docs/differences.md). One mode only: with
    # two, its second mode misses the first one's entries and appends them a second time.
    theirs = copy_project("utf16", tmp_path / "theirs")
    first = as_test(theirs, "--create-snapshots", spec=SNAPSHOT_SPEC, modes=("wasi",))
    assert first.returncode == 0, first.stdout + first.stderr
    theirs_text = (theirs.root / SNAPSHOT_FILE).read_bytes().decode("utf-8")
    assert theirs_text == snapshot.decode("utf-8")
    again = as_test(theirs, spec=SNAPSHOT_SPEC, modes=("wasi",))
    assert again.returncode == 1 and "missing snapshot" in again.stdout, again.stdout
