"""as-test 1.8's own spellings on the ``astest`` command line, turned into ours or doit's.

``astest`` takes every option of the ``astest`` tasks and every doit option; as-test users also
type the flags of ``ast test``/``ast fuzz``. Those with a meaning here are rewritten before doit
reads the line (docs/differences.md lists every 1.8 flag and what it becomes):

- ``-w`` is ``--watch``; ``--suites`` is ``--suite``; ``--fuzzers`` is ``--fuzzer``;
  ``--runs``/``--seed`` (``ast fuzz``'s)
  are ``--fuzz-runs``/``--fuzz-seed``;
- ``--jobs N``, ``--build-jobs N``, ``--run-jobs N`` and ``-p``/``--parallel`` become doit's
  ``-n N``: one doit pool runs builds and runs alike, so the largest count given is the pool's
  size, and ``--parallel`` is one worker per core, as as-test's automatic count;
- ``--no-cache`` is doit's ``--always-execute`` (every task runs, nothing is read from the
  cache), ``--cache`` asks for what doit always does;
- ``--clean`` (no in-place updates), ``--headless`` and ``--show-warnings`` ask for what
  this output always is: lines never rewritten in place, a headless browser unless
  ``--headful``, every warning in full.

A doit task parameter cannot take these (short options are doit's, and a doit option of its own
cannot be an alias), so ``doit astest`` takes only our spellings.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from astest_tasks.core.errors import UserError
from astest_tasks.plan.doit_argv import doit_command

RENAMED = {
    "-w": "--watch",
    "--suites": "--suite",
    "--fuzzers": "--fuzzer",
    "--runs": "--fuzz-runs",
    "--seed": "--fuzz-seed",
    "--no-cache": "--always-execute",
}
# What this output, doit's cache and our browser always do: no in-place rewrites, a cache,
# a headless browser (unless --headful), every warning shown.
ALWAYS_SO = frozenset({"--cache", "--clean", "--headless", "--show-warnings"})
JOB_COUNTS = frozenset({"--jobs", "--build-jobs", "--run-jobs"})
PARALLEL = frozenset({"-p", "--parallel"})


def from_as_test_flags(arguments: Sequence[str]) -> list[str]:
    """``arguments`` with as-test's spellings replaced; words after ``--`` are left alone."""
    rewritten: list[str] = []
    jobs: list[int] = []
    index = 0
    while index < len(arguments):
        word = arguments[index]
        index += 1
        if word == "--":
            rewritten += arguments[index - 1 :]
            break
        name, has_value, value = word.partition("=")
        if name in JOB_COUNTS:
            if not has_value and index < len(arguments):
                value, index = arguments[index], index + 1
            jobs.append(_job_count(name, value))
        elif word in PARALLEL:
            jobs.append(os.cpu_count() or 1)
        elif word in ALWAYS_SO:
            continue
        elif name in RENAMED:
            rewritten.append(RENAMED[name] + (f"={value}" if has_value else ""))
        else:
            rewritten.append(word)
    if jobs and doit_command(rewritten) == "run":
        # After the command word when there is one: a leading option hides it from doit.
        at = 1 if rewritten[:1] == ["run"] else 0
        rewritten[at:at] = ["-n", str(max(jobs))]
    return rewritten


def _job_count(flag: str, value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise UserError(
            f"{flag} takes a whole number of workers, got {value!r}; fix: e.g. `{flag} 2` "
            "(it becomes doit's -n 2)"
        )
    return int(value)
