"""Real projects build and run as the as-test they have installed builds and runs them.

Each test runs as-test's own CLI (``node node_modules/as-test/bin/index.js test``) in one copy
of a fixture and ``doit`` in another, then compares mode by mode and file by file: which modes
ran, each file's verdict and counts, and the asc command line each build used. as-test's side
is read from the readable per-spec logs it writes (``.as-test/logs/<mode>/<spec>.log``: mode,
build line, verdict, suite and test counts), which both 1.0.7 and 1.8.0 write.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.conftest import ANSI, Project, copy_project
from tests.integration.toolchains import AS_TEST_1_0, AS_TEST_1_8, Toolchain

pytestmark = pytest.mark.integration

COUNTS = re.compile(r"^(Suites|Tests): (\d+) passed, (\d+) failed, (\d+) skipped$", re.MULTILINE)
VERDICT = re.compile(r"^(PASS|FAIL|SKIP)  (\S+)$", re.MULTILINE)
SHIM_CONFIG = "<wasi-shim asconfig>"


@dataclass(frozen=True)
class FileResult:
    verdict: str
    suites: tuple[int, int, int]  # passed, failed, skipped
    tests: tuple[int, int, int]
    asc_args: tuple[str, ...]  # after asc.js, without -o and with the shim's path neutral


def as_test_results(project: Project, modes: list[str]) -> dict[tuple[str, str], FileResult]:
    """Run as-test's own CLI once per ``--mode`` (none: a plain run) and read its logs."""
    for mode in modes or [""]:
        argv = ["node", "node_modules/as-test/bin/index.js", "test"]
        argv += ["--mode", mode] if mode else []
        proc = subprocess.run(
            argv, cwd=project.root, capture_output=True, text=True, timeout=900, check=False
        )
        assert proc.returncode == 0, f"as-test {argv}: {proc.stdout}{proc.stderr}"
    return read_logs(project.root / ".as-test" / "logs")


def our_results(project: Project, modes: list[str]) -> dict[tuple[str, str], FileResult]:
    run = project.doit(env={"ASTEST_MODE": ",".join(modes)} if modes else None)
    assert run.exit_code == 0, run.stdout + run.stderr
    results = read_logs(project.root / ".as-test" / "logs")
    report = {(e["mode"], e["file"]): e for e in project.report()["specs"]}
    assert set(report) == set(results), "every spec we ran has its readable log"
    for key, entry in report.items():
        counts = entry["counts"]
        assert results[key].verdict == entry["verdict"]
        assert results[key].tests == tuple(
            counts[f"tests_{outcome}"] for outcome in ("passed", "failed", "skipped")
        )
    return results


def read_logs(logs: Path) -> dict[tuple[str, str], FileResult]:
    results: dict[tuple[str, str], FileResult] = {}
    for log in sorted(logs.glob("*/*.log")):
        text = ANSI.sub("", log.read_text(encoding="utf-8"))
        mode = text.splitlines()[0].removeprefix("Mode: ")
        build = next(line for line in text.splitlines() if line.startswith("Build: "))
        verdict = VERDICT.search(text)
        assert verdict is not None, text
        counts = {kind: tuple(int(n) for n in rest) for kind, *rest in COUNTS.findall(text)}
        results[(mode, verdict.group(2))] = FileResult(
            verdict={"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}[verdict.group(1)],
            suites=counts["Suites"],  # type: ignore[arg-type]
            tests=counts["Tests"],  # type: ignore[arg-type]
            asc_args=asc_arguments(build.removeprefix("Build: ")),
        )
    return results


def asc_arguments(line: str) -> tuple[str, ...]:
    tokens = shlex.split(line)
    args = tokens[next(i for i, t in enumerate(tokens) if t.endswith("asc.js")) + 1 :]
    out: list[str] = []
    skip = False
    for index, token in enumerate(args):
        if skip:
            skip = False
        elif token == "-o":
            skip = True  # artifact names differ by design (docs/design/host-contract.md §3.4)
        elif token.endswith("wasi-shim/asconfig.json") and args[index - 1] == "--config":
            out.append(SHIM_CONFIG)
        else:
            out.append(token)
    return tuple(out)


def both_copies(name: str, tmp_path: Path, toolchain: Toolchain) -> tuple[Project, Project]:
    theirs = copy_project(name, tmp_path / "as-test", toolchain)
    ours = copy_project(name, tmp_path / "ours", toolchain)
    return theirs, ours


def test_as_test_1_0_7_modes_append_their_args_to_the_base_args(tmp_path: Path) -> None:
    # The base args carry a local transform the specs depend on; the simd mode adds
    # --enable simd. as-test 1.0.7 builds the mode with both, and a plain run runs every mode.
    theirs, ours = both_copies("simdmodes", tmp_path, AS_TEST_1_0)

    reference = as_test_results(theirs, [])
    results = our_results(ours, [])

    assert sorted(results) == sorted(reference)
    assert {mode for mode, _ in results} == {"simd", "naive"}
    for key, expected in reference.items():
        assert results[key] == expected, key
    simd_build = results[("simd", "assembly/__tests__/simd.spec.ts")].asc_args
    assert simd_build[:5] == (
        "assembly/__tests__/simd.spec.ts",
        *("--transform", "./transform/index.js", "--enable", "simd"),
    )
    # the SIMD path really ran in the simd mode only (more assertions there)
    assert (
        reference[("simd", "assembly/__tests__/simd.spec.ts")].tests[0]
        > (reference[("naive", "assembly/__tests__/simd.spec.ts")].tests[0])
    )


@pytest.mark.parametrize("modes", [[], ["scalar"]], ids=["plain-run", "manual-mode"])
def test_as_test_1_8_features_default_flags_and_mode_names_are_followed(
    tmp_path: Path, modes: list[str]
) -> None:
    # "features": ["simd"] builds with --enable simd; the "scalar" mode has "default": false
    # (a plain run skips it and the base config alike) and "features": [] (no simd); a spec
    # gates tests on mode(), which needs AS_TEST_MODE_NAME in the build env.
    theirs, ours = both_copies("features18", tmp_path, AS_TEST_1_8)

    reference = as_test_results(theirs, modes)
    results = our_results(ours, modes)

    assert sorted(results) == sorted(reference)
    assert {mode for mode, _ in results} == set(modes or ["node:wasi"])
    for key, expected in reference.items():
        got = results[key]
        assert (got.verdict, got.asc_args) == (expected.verdict, expected.asc_args), key
        assert got.tests == expected.tests, key
        assert got.suites == expected.suites, key  # 1.4's counting: every block is a suite
