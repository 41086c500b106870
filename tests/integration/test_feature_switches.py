"""--enable / --disable on real projects: as-test 1.8's feature switches, rebuilt and cached."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.conftest import Project
from tests.integration.test_as_test_versions import both_copies, read_logs
from tests.integration.toolchains import AS_TEST_1_8, Toolchain

pytestmark = pytest.mark.integration


def _build_commands(project: Project, mode: str) -> dict[str, str]:
    records = sorted((project.root / ".as-test" / "build" / mode).rglob("*.build.json"))
    assert records, f"no build records in mode {mode}"
    return {str(path): json.loads(path.read_text())["command"] for path in records}


def test_an_enabled_feature_rebuilds_stays_cached_and_goes_with_the_switch(
    fresh_project: Callable[[str], Project], toolchain: Toolchain
) -> None:
    project = fresh_project("passing")
    switched = project.doit("astest", "--mode", "wasi", "-e", "simd")
    if not toolchain.is_1_8:
        # as-test 1.0.7 has no features: one line that names the config fix, nothing built.
        assert switched.exit_code == 3, switched.stdout + switched.stderr
        assert "ERROR: --enable simd: as-test 1.0.7 has no features" in switched.stderr
        assert '"buildOptions": { "args": ["--enable", "simd"] }' in switched.stderr
        assert not (project.root / ".as-test" / "build").exists()
        return
    assert switched.exit_code == 0, switched.stdout + switched.stderr
    commands = _build_commands(project, "wasi")
    assert all(" --enable simd " in command for command in commands.values()), commands

    again = project.doit("astest", "--mode", "wasi", "-e", "simd")
    assert again.exit_code == 0 and again.executed == ["astest:summary"], again.stdout

    plain = project.doit("astest", "--mode", "wasi")
    assert plain.exit_code == 0, plain.stdout + plain.stderr
    rebuilt = [name for name in plain.executed if name.startswith("astest:build:wasi:")]
    assert len(rebuilt) == len(commands)
    assert not any("--enable simd" in c for c in _build_commands(project, "wasi").values())


def test_enable_coverage_turns_coverage_on_for_one_run(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    run = project.doit("astest", "--mode", "wasi", env={"ASTEST_ENABLE": "coverage"})
    assert run.exit_code == 0, run.stdout + run.stderr
    assert "Coverage" in run.stdout and "coverage" in project.report()
    off = project.doit("astest", "--mode", "wasi", env={"ASTEST_DISABLE": "coverage"})
    assert off.exit_code == 0, off.stdout + off.stderr
    assert "coverage" not in project.report()


def _as_test(project: Project, *args: str) -> None:
    argv = ["node", "node_modules/as-test/bin/index.js", "test", *args]
    proc = subprocess.run(argv, cwd=project.root, capture_output=True, text=True, timeout=900)
    # Both switches below make a spec's mode gate fail, so the exit code says nothing here.
    assert "Tests:" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("mode", "switch"),
    [("scalar", ("--enable", "simd")), ("node:wasi", ("--disable", "simd"))],
    ids=["enable-over-empty-features", "disable-over-configured-features"],
)
def test_switches_build_and_verdicts_agree_with_as_test_1_8(
    tmp_path: Path, mode: str, switch: tuple[str, str]
) -> None:
    # features18 has "features": ["simd"] in the base and [] in the "scalar" mode; its
    # modes.spec.ts checks lanes() against each mode's configured features, so switching them
    # fails exactly that test in both tools.
    theirs, ours = both_copies("features18", tmp_path, AS_TEST_1_8)
    _as_test(theirs, "--mode", mode, *switch)
    reference = read_logs(theirs.root / ".as-test" / "logs")

    run = ours.doit("astest", "--mode", mode, *switch)
    assert run.exit_code == 1, run.stdout + run.stderr
    results = read_logs(ours.root / ".as-test" / "logs")

    assert sorted(results) == sorted(reference)
    for key, expected in reference.items():
        got = results[key]
        assert (got.verdict, got.asc_args, got.tests) == (
            expected.verdict,
            expected.asc_args,
            expected.tests,
        ), key
    assert {r.verdict for r in results.values()} == {"passed", "failed"}
