"""``--last-failed``: run only the (mode, spec) pairs whose last result did not pass, as pytest's
``--lf``.

A pair's last outcome comes from the records its earlier tasks left in its output folder: the
result record (``model/results.py``) and the build record. It failed when the result says so (a
failing test, a crash, a trap, a timeout, a failed compile: the run task records each as the
spec's failure), or when its build record says its last compile failed. Those records are files
anyone can edit, so a record we cannot read, or one that names another spec or mode, counts as
failed too: when unsure, select, as ``--changed`` does; running a spec too many costs seconds.

When no candidate failed (every one passed, or none ran yet), every candidate runs, as pytest's
``--lf`` does with "no previously failed tests, not deselecting items"; ``note`` says which.
The candidates are what the other selections (``--mode``, ``--spec``, ``--changed``, the shard)
left: ``--last-failed`` narrows them further, as pytest's ``--lf`` given a path does.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from astest_tasks.config.discovery import Spec
from astest_tasks.core.frozen import frozen
from astest_tasks.model.results import SpecResult, Status


class LastOutcome(Enum):
    PASSED = "passed"  # passed, or skipped every test
    FAILED = "failed"  # failed, crashed, did not build, or its record cannot be trusted
    NOT_RUN = "not run"  # no record: the pair never ran here (or its records were cleaned)


class BuildState(Enum):
    """What the pair's build record says of its last compile."""

    NONE = "none"  # no record
    BUILT = "built"
    FAILED = "failed"  # the compile failed, or the record is unreadable


@frozen
class StoredRecords:
    """What a pair's output folder holds, as its readers found it."""

    result_stored: bool  # a result file is there
    result: SpecResult | None  # its head; None when missing or unreadable
    build: BuildState


def last_outcome(mode: str, spec: Spec, records: StoredRecords) -> LastOutcome:
    if records.build is BuildState.FAILED:
        return LastOutcome.FAILED  # whatever an older result says, it cannot pass as built
    if not records.result_stored:
        return LastOutcome.NOT_RUN
    result = records.result
    if result is None or result.mode != mode or result.spec != spec.path:
        return LastOutcome.FAILED  # unreadable, or edited to name another pair
    return LastOutcome.FAILED if result.status is Status.FAILED else LastOutcome.PASSED


@frozen
class LastFailedSelection:
    failed: frozenset[tuple[str, str]]  # (mode, spec path)
    candidates: int  # the pairs it chose from
    any_outcome: bool  # some candidate has an earlier result

    def keeps(self, mode: str, spec: Spec) -> bool:
        return not self.failed or (mode, spec.path) in self.failed

    @property
    def note(self) -> str:
        """One line for the summary: what --last-failed chose, and why."""
        if not self.candidates:
            return ""  # another selection left nothing; its own note says so
        if self.failed:
            return (
                f"--last-failed: {len(self.failed)} of {self.candidates} spec runs failed, "
                "crashed or did not build last time: only they run"
            )
        if self.any_outcome:
            return f"--last-failed: no spec run failed last time: running all {self.candidates}"
        return f"--last-failed: no earlier results: running all {self.candidates}"


def select_last_failed(outcomes: Mapping[tuple[str, str], LastOutcome]) -> LastFailedSelection:
    """``outcomes`` by (mode, spec path), one per candidate pair."""
    failed = frozenset(pair for pair, outcome in outcomes.items() if outcome is LastOutcome.FAILED)
    return LastFailedSelection(
        failed=failed,
        candidates=len(outcomes),
        any_outcome=any(outcome is not LastOutcome.NOT_RUN for outcome in outcomes.values()),
    )
