"""fuzzer_selection.py: --fuzzer cuts a campaign's result down to the named fuzzers."""

from __future__ import annotations

from dataclasses import replace

from astest_tasks.fuzz.fuzzer_report import FuzzAssertion, FuzzerOutcome
from astest_tasks.fuzz.fuzzer_selection import select_fuzzers, slug
from astest_tasks.fuzz.results import FuzzResult


def fuzzer(name: str, runs: int, failed: int = 0) -> FuzzerOutcome:
    return FuzzerOutcome(
        name, runs, runs - failed, failed, 0, 0, 1.0, FuzzAssertion("", "", "", ""), ()
    )


RESULT = replace(
    FuzzResult.without_outcomes(
        file="assembly/__fuzz__/math.fuzz.ts", file_id="math", mode="wasi", run_command="",
        session="s", error="",
    ),
    fuzzers=(fuzzer("Addition is commutative", 30), fuzzer("abs never negative", 50, failed=2)),
    passed=False,
)  # fmt: skip


def test_the_named_fuzzers_decide_the_campaign_and_its_runs() -> None:
    assert slug("  Addition is commutative! ") == "addition-is-commutative"
    kept = select_fuzzers(RESULT, ["addition-is-commutative"])
    assert [f.name for f in kept.fuzzers] == ["Addition is commutative"]
    assert kept.passed and kept.runs == 30
    assert not select_fuzzers(RESULT, ["abs never negative"]).passed
    assert select_fuzzers(RESULT, []) is RESULT


def test_a_name_no_fuzzer_has_fails_the_campaign_naming_the_ones_there_are() -> None:
    missing = select_fuzzers(RESULT, ["--", "nope"])  # an empty slug is passed over
    assert not missing.passed and not missing.fuzzers
    assert missing.error.startswith('No fuzz targets matched "nope" in math.fuzz.ts.')
    assert "abs-never-negative" in missing.error
