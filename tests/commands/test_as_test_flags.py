"""as_test_flags.py: as-test 1.8's spellings on the astest command line become ours or doit's."""

from __future__ import annotations

import os

import pytest

from astest_tasks.commands.as_test_flags import from_as_test_flags
from astest_tasks.core.errors import UserError


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        (["-w"], ["--watch"]),
        (["--suites", "a,b"], ["--suite", "a,b"]),
        (["--suites=a"], ["--suite=a"]),
        (
            ["astest:fuzz", "--runs", "5", "--seed=7"],
            ["astest:fuzz", "--fuzz-runs", "5", "--fuzz-seed=7"],
        ),
        (["--no-cache"], ["--always-execute"]),
        (["--cache", "--clean", "--mode", "wasi"], ["--mode", "wasi"]),
        (["--jobs", "2"], ["-n", "2"]),
        (["--build-jobs=3", "--run-jobs", "1"], ["-n", "3"]),
        (["list", "--jobs", "2"], ["list"]),  # only a run has workers
        (["run", "--jobs", "2"], ["run", "-n", "2"]),  # doit reads options after its command
        (["--", "-w"], ["--", "-w"]),
    ],
)
def test_as_tests_spellings_become_ours(given: list[str], meant: list[str]) -> None:
    assert from_as_test_flags(given) == meant


def test_parallel_is_a_worker_per_core() -> None:
    assert from_as_test_flags(["-p"]) == ["-n", str(os.cpu_count() or 1)]
    assert from_as_test_flags(["--parallel"]) == ["-n", str(os.cpu_count() or 1)]


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_bad_job_count_is_a_user_error_with_a_fix(value: str) -> None:
    with pytest.raises(UserError, match=r"--jobs takes a whole number.*fix: "):
        from_as_test_flags(["--jobs", value])
