"""The one wording of a run stopped at a limit, for a spec and for a fuzz campaign."""

from __future__ import annotations

import pytest

from astest_tasks.run.limit_messages import (
    LimitedRun,
    LimitMessage,
    memory_exhausted,
    output_flooded,
    timed_out,
)
from astest_tasks.run.limits import MEMORY_LIMIT, OUTPUT_LIMIT, TIMEOUT, LimitSpec

SPEC = LimitedRun("the spec", "doit astest")
CAMPAIGN = LimitedRun(
    "the campaign",
    "doit astest",
    tasks="astest:fuzz",
    shorter_run="run fewer iterations with ASTEST_FUZZ_RUNS",
)


def test_a_spec_stopped_at_the_timeout_reads_as_it_always_has() -> None:
    assert timed_out(SPEC, 0.5) == LimitMessage(
        "test runtime timed out after 0.5 s (limit: --timeout / ASTEST_TIMEOUT)",
        "the spec was stopped after 0.5 s of wall-clock time; if it is merely slow, raise the "
        "limit with `doit astest --timeout SECONDS` or ASTEST_TIMEOUT",
    )


def test_a_timeout_compares_with_the_last_passing_run_when_there_was_one() -> None:
    assert timed_out(SPEC, 300, last_pass_s=19.24).title == (
        "test runtime timed out after 300 s "
        "(limit: --timeout / ASTEST_TIMEOUT; it passed in 19.2 s last time)"
    )


def test_a_spec_that_floods_its_output_reads_as_it_always_has() -> None:
    assert output_flooded(SPEC, 0.25) == LimitMessage(
        "the spec's output passed the limit of 0.25 MiB",
        "it wrote more than 0.25 MiB to stdout (frames and plain output) and was stopped there; "
        "if it really needs more, raise the limit with `doit astest --output-limit MIB` or "
        "ASTEST_OUTPUT_LIMIT",
    )


def test_a_spec_out_of_memory_reads_as_it_always_has() -> None:
    assert memory_exhausted(SPEC, 16) == LimitMessage(
        "the spec ran out of memory at the limit of 16 MiB",
        "its memory could not grow past the limit of 16 MiB, and it failed there; if it really "
        "needs more, raise the limit with `doit astest --memory-limit MIB` or ASTEST_MEMORY_LIMIT",
    )


def test_a_campaign_is_named_and_its_hints_run_the_fuzz_group_after_the_options() -> None:
    """doit drops an option written after a task name, so the group comes last."""
    assert timed_out(CAMPAIGN, 10) == LimitMessage(
        "test runtime timed out after 10 s (limit: --timeout / ASTEST_TIMEOUT)",
        "the campaign was stopped after 10 s of wall-clock time; if it is merely slow, raise the "
        "limit with `doit astest --timeout SECONDS astest:fuzz` or ASTEST_TIMEOUT, or run fewer "
        "iterations with ASTEST_FUZZ_RUNS",
    )
    flood = output_flooded(CAMPAIGN, 1)
    assert flood.title == "the campaign's output passed the limit of 1 MiB"
    assert flood.details.endswith(
        "raise the limit with `doit astest --output-limit MIB astest:fuzz` or ASTEST_OUTPUT_LIMIT"
    )
    memory = memory_exhausted(CAMPAIGN, 256)
    assert memory.title == "the campaign ran out of memory at the limit of 256 MiB"
    assert "`doit astest --memory-limit MIB astest:fuzz` or ASTEST_MEMORY_LIMIT" in memory.details


def test_the_shorter_run_is_offered_only_for_the_time_limit() -> None:
    """Fewer iterations end sooner; they do not print less per iteration or need less memory."""
    assert "ASTEST_FUZZ_RUNS" in timed_out(CAMPAIGN, 10).details
    assert "ASTEST_FUZZ_RUNS" not in output_flooded(CAMPAIGN, 1).details
    assert "ASTEST_FUZZ_RUNS" not in memory_exhausted(CAMPAIGN, 256).details


@pytest.mark.parametrize(
    ("options_command", "tasks", "hint"),
    [
        ("astest", "", "`astest --timeout SECONDS` or ASTEST_TIMEOUT"),
        ("astest", "astest:fuzz", "`astest --timeout SECONDS astest:fuzz` or ASTEST_TIMEOUT"),
        ("doit web", "web:fuzz", "`doit web --timeout SECONDS web:fuzz` or ASTEST_TIMEOUT"),
    ],
)
def test_the_hint_is_written_with_the_command_that_takes_our_options(
    options_command: str, tasks: str, hint: str
) -> None:
    run = LimitedRun("the spec", options_command, tasks=tasks)
    assert timed_out(run, 5).details.endswith(f"raise the limit with {hint}")


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        (TIMEOUT, timed_out(SPEC, 1)),
        (OUTPUT_LIMIT, output_flooded(SPEC, 1)),
        (MEMORY_LIMIT, memory_exhausted(SPEC, 1)),
    ],
)
def test_each_hint_names_the_declared_option_and_environment_variable(
    limit: LimitSpec, message: LimitMessage
) -> None:
    assert f"{limit.option} {limit.unit.upper()}`" in message.details
    assert message.details.endswith(f" or {limit.env_var}")
