"""astest doctor on hand-made projects: each problem once, with its fix, and the exit code."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.output.doctor_report import diagnose, render, run_doctor
from astest_tasks.output.terminal import Palette

SPEC = 'import { describe, expect, test } from "as-test";\n'


def make_project(
    root: Path,
    config: Mapping[str, object] | None,
    packages: dict[str, str],
    specs: tuple[str, ...] = ("assembly/__tests__/math.spec.ts",),
    dodo: str | None = 'DOIT_CONFIG = {"backend": "sqlite3"}\n',
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (root / "as-test.config.json").write_text(json.dumps(config))
    for name, version in packages.items():
        folder = root / "node_modules" / name
        folder.mkdir(parents=True)
        (folder / "package.json").write_text(json.dumps({"name": name, "version": version}))
    for spec in specs:
        (root / spec).parent.mkdir(parents=True, exist_ok=True)
        (root / spec).write_text(SPEC)
    if dodo is not None:
        (root / "dodo.py").write_text(dodo)
    return root


HEALTHY_1_8 = {
    "as-test": "1.8.0",
    "assemblyscript": "0.28.20",
    "@assemblyscript/wasi-shim": "0.1.0",
}
CONFIG: dict[str, object] = {
    "input": ["assembly/__tests__/*.spec.ts"],
    "buildOptions": {"target": "wasi"},
}


def problems(checks: list[Check]) -> list[Check]:
    return [check for check in checks if check.level is not Level.OK]


def test_a_healthy_project_has_no_problem_and_exits_0(tmp_path: Path) -> None:
    root = make_project(tmp_path / "ok", CONFIG, HEALTHY_1_8)
    checks = diagnose(root, "as-test.config.json", [])
    assert problems(checks) == []
    details = " | ".join(check.detail for check in checks)
    assert "as-test 1.8.0 rules" in details
    assert "matches 1 spec(s)" in details
    assert "default.wasi.py (made from its template on first run)" in details
    out = io.StringIO()
    assert run_doctor(root, "as-test.config.json", [], out) == 0
    assert out.getvalue().endswith("doctor: 0 error(s), 0 warning(s), 11 check(s)\n")


def test_a_broken_project_names_each_problem_once_with_its_fix_and_exits_1(
    tmp_path: Path,
) -> None:
    config: dict[str, object] = {
        "input": ["assembly/tests/*.spec.ts"],  # the specs live in __tests__
        "buildOptions": {"target": "wasi"},
        "runOptions": {"runtime": {"cmd": "wasmtime-not-installed <file>"}},
    }
    root = make_project(tmp_path / "broken", config, {}, dodo="DOIT_CONFIG = {}\n")
    checks = problems(diagnose(root, "as-test.config.json", []))
    summary = [(c.level, c.detail.split(" ")[0]) for c in checks]
    assert summary == [
        (Level.ERROR, "as-test"),
        (Level.ERROR, "assemblyscript"),
        (Level.ERROR, "@assemblyscript/wasi-shim"),
        (Level.ERROR, "runtime"),
        (Level.WARN, "input"),
        (Level.WARN, "dodo.py's"),
    ]
    assert all(check.fix for check in checks), checks
    assert "npm install --save-dev as-test@" in checks[0].fix
    assert "wasmtime-not-installed was not found on PATH" in checks[3].detail
    assert "assembly/tests/*.spec.ts matches no spec file" in checks[4].detail
    assert run_doctor(root, "as-test.config.json", [], io.StringIO()) == 1


@pytest.mark.parametrize(
    ("as_test", "expected"),
    [("0.9.2", "older than the versions"), ("2.0.0", "newer than the versions")],
)
def test_an_as_test_outside_the_tested_range_warns_naming_the_range(
    tmp_path: Path, as_test: str, expected: str
) -> None:
    packages = {**HEALTHY_1_8, "as-test": as_test}
    root = make_project(tmp_path / "range", CONFIG, packages)
    warnings = [
        c for c in problems(diagnose(root, "as-test.config.json", [])) if expected in c.detail
    ]
    assert len(warnings) == 1
    assert "1.0.7 to 1.8.0" in warnings[0].detail


def test_as_test_1_0_with_a_newer_compiler_is_the_known_trap(tmp_path: Path) -> None:
    packages = {**HEALTHY_1_8, "as-test": "1.0.7", "assemblyscript": "0.28.20"}
    root = make_project(tmp_path / "trap", CONFIG, packages)
    (trap,) = problems(diagnose(root, "as-test.config.json", []))
    assert trap.level is Level.WARN
    assert "no source location" in trap.detail and "assemblyscript@0.28.14" in trap.fix


def test_as_test_1_8_with_an_older_compiler_is_an_error(tmp_path: Path) -> None:
    packages = {**HEALTHY_1_8, "assemblyscript": "0.28.14"}
    root = make_project(tmp_path / "old-asc", CONFIG, packages)
    (error,) = problems(diagnose(root, "as-test.config.json", []))
    assert error.level is Level.ERROR and "needs assemblyscript 0.28.17 or newer" in error.detail


def test_a_bad_config_and_an_unknown_mode_are_errors_with_fixes(tmp_path: Path) -> None:
    root = make_project(tmp_path / "bad", {"input": 5}, HEALTHY_1_8)
    (error,) = [c for c in diagnose(root, "as-test.config.json", []) if c.level is Level.ERROR]
    assert "input" in error.detail and error.fix
    good = make_project(tmp_path / "good", CONFIG, HEALTHY_1_8)
    (unknown,) = problems(diagnose(good, "as-test.config.json", ["wsai"]))
    assert unknown.level is Level.ERROR and 'unknown mode "wsai"' in unknown.detail


def test_a_missing_config_falls_back_to_defaults_with_a_warning(tmp_path: Path) -> None:
    root = make_project(tmp_path / "none", None, HEALTHY_1_8)
    (warning,) = problems(diagnose(root, "as-test.config.json", []))
    assert "not found" in warning.detail and "astest init" in warning.fix


def test_the_report_is_plain_in_a_pipe_and_coloured_on_a_terminal() -> None:
    checks = [Check(Level.ERROR, "npm", "as-test is not installed", "npm ci")]
    plain = render(checks, Palette(False))
    assert plain.splitlines()[:2] == [
        "ERROR  npm  as-test is not installed",
        "            fix: npm ci",
    ]
    assert "\x1b[" not in plain
    assert "\x1b[" in render(checks, Palette(True))
