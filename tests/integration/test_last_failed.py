"""``--last-failed`` with real asc, as-test and wasmtime: only the specs whose last result
failed, crashed or did not build run again, until none did; then every spec runs (cached where
it passed) and the summary says so. On both toolchains: what counts as a failure (a crash, a
compile error) is recorded from each as-test's own report and build."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.integration.conftest import DoitRun, Project, _doit_environment

pytestmark = pytest.mark.integration

SPECS = "assembly/__tests__"
PASSING_IDS = ["geometry", "left/shared", "right/shared", "skips", "snap"]
WRONG = """\
import { describe, expect, test } from "as-test";

describe("wrong", () => {
  test("adds", () => {
    expect(2 + 2).toBe(5);
  });
});
"""
CRASH = """\
import { describe, expect, test } from "as-test";

describe("crash", () => {
  test("throws", () => {
    throw new Error("kaboom");
  });
});
"""
BROKEN = """\
import { describe, expect, test } from "as-test";

describe("broken", () => {
  test("does not compile", () => {
    const n: i32 = "not a number";
    expect(n).toBe(1);
  });
});
"""
FIXED = """\
import { describe, expect, test } from "as-test";

describe("fixed", () => {
  test("adds", () => {
    expect(2 + 2).toBe(4);
  });
});
"""


def ran(run: DoitRun) -> list[str]:
    """The spec ids whose run task doit executed (not the up-to-date ones)."""
    return sorted(
        task.rsplit(":", 1)[-1] for task in run.executed if task.startswith("astest:run:")
    )


def built(run: DoitRun) -> list[str]:
    return sorted(t.rsplit(":", 1)[-1] for t in run.executed if t.startswith("astest:build:"))


def reported(project: Project) -> dict[str, str]:
    return {spec_id: verdict for (spec_id, _), verdict in project.verdicts().items()}


def astest_command(project: Project, *arguments: str) -> DoitRun:
    done = subprocess.run(
        [sys.executable, "-m", "astest_tasks", *arguments],
        cwd=project.root,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=_doit_environment(None),
        timeout=600,
    )
    return DoitRun(done.returncode, done.stdout, done.stderr)


def last_failed(project: Project, env: dict[str, str] | None = None) -> DoitRun:
    if env:  # the option from the environment alone
        return project.doit("astest", "--mode", "wasi", env=env)
    return project.doit("astest", "--mode", "wasi", "--last-failed")


def test_last_failed_reruns_the_failures_until_none_is_left(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    for name, text in (("wrong", WRONG), ("crash", CRASH), ("broken", BROKEN)):
        (project.root / SPECS / f"{name}.spec.ts").write_text(text)
    everything = sorted([*PASSING_IDS, "broken", "crash", "wrong"])

    # Nothing ran yet: every spec runs, and the summary says why.
    first = last_failed(project)
    assert first.exit_code == 1, first.stdout + first.stderr
    assert ran(first) == everything
    assert "--last-failed: no earlier results: running all 8" in first.stdout.splitlines()
    assert {reported(project)[i] for i in ("wrong", "crash", "broken")} == {"failed"}

    # Nothing fixed: exactly the three failures run again (the spec that did not compile is
    # compiled again, its wasm being missing), and the passing specs stay out of the run.
    again = last_failed(project)
    assert again.exit_code == 1, again.stdout + again.stderr
    assert ran(again) == ["broken", "crash", "wrong"] and built(again) == ["broken"]
    assert reported(project) == {"broken": "failed", "crash": "failed", "wrong": "failed"}
    note = (
        "--last-failed: 3 of 8 spec runs failed, crashed or did not build last time: only they run"
    )
    assert note in again.stdout.splitlines()

    # Two fixed: the three run (and the two rebuild); only the crash is left failing.
    (project.root / SPECS / "wrong.spec.ts").write_text(FIXED)
    (project.root / SPECS / "broken.spec.ts").write_text(FIXED)
    two_fixed = last_failed(project)
    assert two_fixed.exit_code == 1, two_fixed.stdout + two_fixed.stderr
    assert ran(two_fixed) == ["broken", "crash", "wrong"]
    assert built(two_fixed) == ["broken", "wrong"]
    assert reported(project) == {"broken": "passed", "crash": "failed", "wrong": "passed"}

    # The astest command takes it too: the crash alone runs.
    crash_only = astest_command(project, "--last-failed", "--mode", "wasi")
    assert crash_only.exit_code == 1, crash_only.stdout + crash_only.stderr
    assert ran(crash_only) == ["crash"]
    assert reported(project) == {"crash": "failed"}

    # The last one fixed: it runs alone, and passes.
    (project.root / SPECS / "crash.spec.ts").write_text(FIXED)
    fixed = last_failed(project)
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    assert ran(fixed) == ["crash"] and reported(project) == {"crash": "passed"}

    # None failed: every spec is selected, and each is up to date, so none runs again.
    none_failed = last_failed(project, env={"ASTEST_LAST_FAILED": "1"})
    assert none_failed.exit_code == 0, none_failed.stdout + none_failed.stderr
    assert ran(none_failed) == [] and built(none_failed) == []
    assert "--last-failed: no spec run failed last time: running all 8" in (
        none_failed.stdout.splitlines()
    )
    assert sorted(reported(project)) == everything
    assert set(reported(project).values()) <= {"passed", "skipped"}
