"""--last-failed's rule: which stored records make a (mode, spec) pair count as failed, and which
pairs run then."""

from __future__ import annotations

from dataclasses import replace

import pytest

from astest_tasks.config.discovery import Spec
from astest_tasks.config.last_failed import (
    BuildState,
    LastOutcome,
    StoredRecords,
    last_outcome,
    select_last_failed,
)
from astest_tasks.model.results import Stage, Status
from tests.conftest import make_spec_result

MATH = Spec("assembly/__tests__/math.spec.ts", "math")
TEXT = Spec("assembly/__tests__/text.spec.ts", "text")


def records(
    status: Status | None = Status.PASSED, build: BuildState = BuildState.BUILT
) -> StoredRecords:
    result = None if status is None else make_spec_result("math", status, mode="wasi")
    return StoredRecords(result_stored=status is not None, result=result, build=build)


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        (records(Status.PASSED), LastOutcome.PASSED),
        (records(Status.SKIPPED), LastOutcome.PASSED),  # skipping is not failing, as in pytest
        (records(Status.FAILED), LastOutcome.FAILED),
        (records(None, BuildState.NONE), LastOutcome.NOT_RUN),
        (records(None, BuildState.BUILT), LastOutcome.NOT_RUN),  # built, never run
        (records(None, BuildState.FAILED), LastOutcome.FAILED),  # did not build, never run
        # A failed compile after a pass: the spec cannot pass as it is built now.
        (records(Status.PASSED, BuildState.FAILED), LastOutcome.FAILED),
        # A result file is there but cannot be read (edited by hand, cut short): not trusted.
        (StoredRecords(True, None, BuildState.BUILT), LastOutcome.FAILED),
    ],
)
def test_a_pair_failed_when_its_records_say_it_did_not_pass(
    stored: StoredRecords, expected: LastOutcome
) -> None:
    assert last_outcome("wasi", MATH, stored) is expected


def test_a_result_that_names_another_spec_or_mode_counts_as_failed() -> None:
    passed = records(Status.PASSED)
    assert passed.result is not None
    assert last_outcome("wasi", MATH, passed) is LastOutcome.PASSED
    other_mode = replace(passed, result=replace(passed.result, mode="bindings"))
    assert last_outcome("wasi", MATH, other_mode) is LastOutcome.FAILED
    other_spec = replace(passed, result=replace(passed.result, spec=TEXT.path))
    assert last_outcome("wasi", MATH, other_spec) is LastOutcome.FAILED


def test_a_build_failure_recorded_by_the_run_counts_as_failed() -> None:
    failed_build = make_spec_result("math", Status.FAILED, mode="wasi", stage=Stage.BUILD)
    stored = StoredRecords(True, failed_build, BuildState.FAILED)
    assert last_outcome("wasi", MATH, stored) is LastOutcome.FAILED


def test_only_the_failed_pairs_run_when_some_failed() -> None:
    selection = select_last_failed(
        {
            ("wasi", MATH.path): LastOutcome.FAILED,
            ("bindings", MATH.path): LastOutcome.PASSED,
            ("wasi", TEXT.path): LastOutcome.NOT_RUN,  # new since: not run, as pytest's --lf
            ("bindings", TEXT.path): LastOutcome.FAILED,
        }
    )
    kept = [
        (m, s.spec_id) for m in ("wasi", "bindings") for s in (MATH, TEXT) if selection.keeps(m, s)
    ]
    assert kept == [("wasi", "math"), ("bindings", "text")]
    assert selection.note == (
        "--last-failed: 2 of 4 spec runs failed, crashed or did not build last time: only they run"
    )


def test_every_pair_runs_when_none_failed_and_the_note_says_why() -> None:
    passed = select_last_failed(
        {("wasi", MATH.path): LastOutcome.PASSED, ("wasi", TEXT.path): LastOutcome.NOT_RUN}
    )
    assert passed.keeps("wasi", MATH) and passed.keeps("wasi", TEXT)
    assert passed.note == "--last-failed: no spec run failed last time: running all 2"
    never = select_last_failed({("wasi", MATH.path): LastOutcome.NOT_RUN})
    assert never.keeps("wasi", MATH)
    assert never.note == "--last-failed: no earlier results: running all 1"


def test_no_candidates_add_no_note() -> None:
    # --changed (or a shard) left nothing: its own note says so, this one would only repeat it.
    empty = select_last_failed({})
    assert empty.note == "" and empty.candidates == 0
