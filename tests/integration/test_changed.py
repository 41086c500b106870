"""``--changed[=REF]`` in a real git repository: only the specs that differ from REF, or that
depend on a file that does, are built and run (real asc, as-test, wasmtime and git)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.integration.conftest import DoitRun, Project

# `--changed` is as-test 1.8's option, and which specs it picks is decided by git and our import
# scanning: run on the 1.8.0 toolchain only.
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.8.0")]

GITIGNORE = """\
node_modules
.doit.db*
__pycache__/
.as-test/*
!.as-test/runners/
!.as-test/snapshots/
"""
# Rewritten without changing what it counts, so that the compiled module differs.
COUNTER = """\
const VOWELS = "aeiou";

export function countVowels(text: string): i32 {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (VOWELS.includes(text.charAt(i).toLowerCase())) n++;
  }
  return n;
}
"""
FRESH_SPEC = """\
import { describe, expect, test } from "as-test";
import { area } from "../lib/geometry";

describe("area of squares", () => {
  test("grows with the square of the side", () => {
    expect(area(3, 3)).toBe(9.0);
    expect(area(4, 4)).toBeGreaterThan(area(3, 3));
  });
});
"""


def git_environment(project: Project) -> dict[str, str]:
    """No system git config, and no repository above the project's folder is looked for."""
    return {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CEILING_DIRECTORIES": str(project.root.parent)}


def git(project: Project, *arguments: str) -> str:
    done = subprocess.run(
        ["git", *arguments],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **git_environment(project)},
    )
    return done.stdout.strip()


def commit_all(project: Project, message: str) -> str:
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", message)
    return git(project, "rev-parse", "HEAD")


def built_ids(run: DoitRun) -> list[str]:
    return sorted(t.rsplit(":", 1)[-1] for t in run.executed if t.startswith("astest:build:"))


def reported_ids(project: Project) -> list[str]:
    return sorted(entry["spec_id"] for entry in project.report()["specs"])


def changed(project: Project, *arguments: str) -> DoitRun:
    return project.doit("astest", "--mode", "wasi", *arguments, env=git_environment(project))


def astest_command(project: Project, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "astest_tasks", *arguments],
        cwd=project.root,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **git_environment(project)},
        timeout=600,
    )


def test_changed_runs_the_specs_that_differ_from_a_git_ref(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    first = project.doit("astest", "--mode", "wasi")
    assert first.exit_code == 0, first.stdout + first.stderr
    (project.root / ".gitignore").write_text(GITIGNORE)
    git(project, "init", "-q")
    git(project, "config", "user.name", "Spec Runner")
    git(project, "config", "user.email", "specs@example.com")
    start = commit_all(project, "the library and its specs")

    # A clean checkout: nothing differs from HEAD, nothing runs, and the run passes.
    nothing = changed(project, "--changed=HEAD")
    assert nothing.exit_code == 0, nothing.stdout + nothing.stderr
    assert "no spec changed since HEAD" in nothing.stdout
    assert [t for t in nothing.executed if ":build:" in t or ":run:" in t] == []
    assert nothing.last_line == "tests: 0 passed, 0 failed, 0 skipped"
    assert reported_ids(project) == []

    # An edited helper: exactly the specs importing it (directly or not) are rebuilt and run.
    (project.root / "assembly" / "lib" / "counter.ts").write_text(COUNTER)
    helper = changed(project, "--changed=HEAD")
    assert helper.exit_code == 0, helper.stdout + helper.stderr
    assert built_ids(helper) == ["right/shared", "snap"]
    ran = sorted(t.rsplit(":", 1)[-1] for t in helper.executed if t.startswith("astest:run:"))
    assert ran == ["right/shared", "snap"], "their modules changed: they run, not cached"
    assert reported_ids(project) == ["right/shared", "snap"]
    assert "--changed=HEAD: 2 of 5 specs differ from HEAD" in helper.stdout
    commit_all(project, "count vowels with a lookup string")

    # An untracked new spec runs alone; the astest command takes --changed bare, as HEAD.
    (project.root / "assembly" / "__tests__" / "fresh.spec.ts").write_text(FRESH_SPEC)
    fresh = astest_command(project, "--changed", "--mode", "wasi")
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert reported_ids(project) == ["fresh"]
    assert "files: 1 passed, 0 failed, 0 skipped" in fresh.stdout.splitlines()

    # Against the first commit: the helper's dependants and the new spec, nothing else.
    since_start = changed(project, f"--changed={start}")
    assert since_start.exit_code == 0, since_start.stdout + since_start.stderr
    assert reported_ids(project) == ["fresh", "right/shared", "snap"]
    assert f"--changed={start}: 3 of 6 specs" in since_start.stdout

    # A ref git does not know: one error line with the fix, nothing built.
    unknown = changed(project, "--changed=origin/main")
    assert unknown.exit_code == 3
    (line,) = unknown.stderr.strip().splitlines()
    assert line.startswith("ERROR: --changed=origin/main: git knows no commit 'origin/main'")
    assert "; fix: " in line
    assert unknown.executed == []


def test_changed_outside_a_git_repository_is_one_error_line(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    run = changed(project, "--changed=HEAD")
    assert run.exit_code == 3
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"ERROR: --changed=HEAD: {project.root} is not inside a git")
    assert "; fix: " in lines[0]
    assert run.executed == []
    assert not (project.root / ".as-test" / "build").exists(), "nothing was built"
