"""as-test 1.8's flags on the astest command line, end to end: --jobs becomes doit's worker
pool, --no-cache runs everything again, --suites is --suite."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.integration.conftest import REPO, Project, require_toolchain
from tests.integration.test_standalone import astest
from tests.integration.toolchains import AS_TEST_1_8

pytestmark = pytest.mark.integration


def test_jobs_no_cache_and_suites_work_as_in_as_test(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    (project.root / "dodo.py").unlink()  # the astest command, not a dodo
    first = astest(project, "--jobs", "2", "--mode", "wasi")
    assert first.exit_code == 0, first.stdout + first.stderr
    runs = sorted(task for task in first.executed if task.startswith("astest:run:"))
    assert runs, first.stdout
    again = astest(project, "--no-cache", "--mode", "wasi")
    assert sorted(task for task in again.executed if task.startswith("astest:run:")) == runs
    cached = astest(project, "--mode", "wasi", "--suites", "points")
    assert cached.exit_code == 0, cached.stdout + cached.stderr
    assert not [task for task in cached.executed if task.startswith("astest:run:")]
    assert " geometry " in cached.stdout and " snap " not in cached.stdout, cached.stdout


HELP_FLAG = re.compile(r'"\s+(--[a-z][a-z-]*)(?:, (-[a-z]))?[ \[<=]')
KNOWN_FLAG = re.compile(r'^\s+"(--?[a-z][a-z-]*)",$', re.MULTILINE)
SHORTHAND = re.compile(r'^\s+"(-[a-z])": "--[a-z-]+",$', re.MULTILINE)  # expandShorthands


def test_every_flag_of_as_test_18_has_a_row_in_the_differences_table() -> None:
    require_toolchain(AS_TEST_1_8)
    source = (AS_TEST_1_8.node_modules / "as-test" / "bin" / "index.js").read_text()
    flags = {flag for pair in HELP_FLAG.findall(source) for flag in pair if flag}
    flags |= set(KNOWN_FLAG.findall(source))  # warnUnknownFlags' list: the hidden ones too
    flags |= set(SHORTHAND.findall(source))
    assert {"--create-snapshots", "--show-logs", "--dry-run", "-w", "-p", "--fuzzers"} <= flags
    docs = (REPO / "docs" / "differences.md").read_text()
    table = docs.split("### Every command and flag of as-test 1.8.0", 1)[1].split("\n### ", 1)[0]
    missing = sorted(flag for flag in flags if f"`{flag}" not in table and f" {flag}" not in table)
    assert not missing, f"as-test 1.8 flags without a row in docs/differences.md: {missing}"
