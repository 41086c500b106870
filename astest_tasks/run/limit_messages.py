"""How a run stopped at one of its limits is worded: which limit, its value, and how to raise it.

The one wording for a spec's run (``outcome.py``) and a fuzz campaign (``actions/fuzz_actions.py``),
so that the two never drift apart again; what genuinely differs between them (who was stopped,
what the hint's command line runs, a way out other than a higher limit) is a ``LimitedRun``. The
options and environment variables named come from their declarations in ``limits.py``.
"""

from __future__ import annotations

from astest_tasks.core.frozen import frozen
from astest_tasks.run.limits import MEMORY_LIMIT, OUTPUT_LIMIT, TIMEOUT, LimitSpec


@frozen
class LimitedRun:
    """What stopped at a limit, and how a hint to raise the limit is written for it."""

    subject: str  # who was stopped: "the spec", "the campaign"
    options_command: str  # how a hint gives one of our options: `doit astest`, or `astest`
    # The tasks the hint's command line runs after the options: the fuzz group (`doit astest
    # --timeout SECONDS astest:fuzz`), as doit drops options written after a task name. "" runs
    # the creator's default tasks, the specs.
    tasks: str = ""
    # Another way to a run that ends in time, for a run whose length is the user's choice
    # ("run fewer iterations with ASTEST_FUZZ_RUNS"); "" when there is none.
    shorter_run: str = ""


@frozen
class LimitMessage:
    title: str  # one line: which limit stopped the run, and its value
    details: str  # what the run did at the limit, and how to raise it


def timed_out(run: LimitedRun, timeout_s: float, last_pass_s: float | None = None) -> LimitMessage:
    """A run stopped at ``--timeout``; ``last_pass_s`` (how long its last passing run took) says
    whether it was slowed down (it passed in 19 s last time) or probably hangs."""
    note = f"limit: {TIMEOUT.option} / {TIMEOUT.env_var}"
    if last_pass_s is not None:
        note += f"; it passed in {last_pass_s:.1f} s last time"
    fix = f"raise the limit with {_raise(run, TIMEOUT)}"
    if run.shorter_run:
        fix += f", or {run.shorter_run}"
    return LimitMessage(
        f"test runtime timed out after {timeout_s:g} s ({note})",
        f"{run.subject} was stopped after {timeout_s:g} s of wall-clock time; if it is merely "
        f"slow, {fix}",
    )


def output_flooded(run: LimitedRun, limit_mib: float) -> LimitMessage:
    """A run stopped as its stdout passed ``--output-limit``."""
    return LimitMessage(
        f"{run.subject}'s output passed the limit of {limit_mib:g} MiB",
        f"it wrote more than {limit_mib:g} MiB to stdout (frames and plain output) and was "
        f"stopped there; if it really needs more, raise the limit with {_raise(run, OUTPUT_LIMIT)}",
    )


def memory_exhausted(run: LimitedRun, limit_mib: float) -> LimitMessage:
    """A run that failed as its memory could not grow past ``--memory-limit``."""
    return LimitMessage(
        f"{run.subject} ran out of memory at the limit of {limit_mib:g} MiB",
        f"its memory could not grow past the limit of {limit_mib:g} MiB, and it failed there; "
        f"if it really needs more, raise the limit with {_raise(run, MEMORY_LIMIT)}",
    )


def _raise(run: LimitedRun, limit: LimitSpec) -> str:
    """The option and the environment variable that raise ``limit``: "`doit astest --timeout
    SECONDS` or ASTEST_TIMEOUT"."""
    words = [run.options_command, limit.option, limit.unit.upper(), run.tasks]
    return f"`{' '.join(word for word in words if word)}` or {limit.env_var}"
