"""How fuzz results read: failing seeds, the one-run replay, and the totals line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from astest_tasks.fuzz.results import FuzzResult, write_fuzz_result
from astest_tasks.output.fuzz_summary import (
    MAX_SEEDS_SHOWN,
    FuzzEntry,
    ShownFuzz,
    fuzz_totals,
    load_fuzz_results,
    render_fuzz,
)
from astest_tasks.output.terminal import Palette
from tests.fuzz.test_results import result


def test_a_failing_fuzzer_shows_its_seeds_input_and_replay() -> None:
    text = render_fuzz([ShownFuzz(result(), cached=False)], Palette(enabled=False))
    assert " FAIL  fuzz wasi  clamp  2 fuzzers, 250 runs, seed 790229808 (random)" in text
    assert "failing seeds: 18446744073709551615, 790229826" in text
    assert "first failing input: [98]" in text
    assert (
        "repro (one run): ASTEST_FUZZ_SEED=18446744073709551615 ASTEST_FUZZ_RUNS=1 "
        "doit astest:fuzz:wasi:clamp"
    ) in text
    assert "crash record: .as-test/crashes/wasi/clamp.fuzz.wasi.x.log" in text
    assert text.rstrip().splitlines()[-1] == "fuzz: 0 passed, 1 failed, 250 runs"
    assert "\x1b[" not in text


def test_a_crashed_campaign_shows_the_replay_of_the_whole_campaign() -> None:
    crashed = result(fuzzers=(), error="the campaign crashed (the module trapped: x)")
    text = render_fuzz([ShownFuzz(crashed, cached=True)], Palette(enabled=False))
    assert "clamp  no fuzzer report, seed 790229808" in text and "(cached)" in text
    assert "the campaign crashed (the module trapped: x)" in text
    assert "replay: ASTEST_FUZZ_SEED=790229808 ASTEST_FUZZ_RUNS=+10% doit" in text


def test_many_failing_seeds_are_cut_short() -> None:
    outcome = result().fuzzers[0]
    many = replace(outcome, failures=outcome.failures[:1] * (MAX_SEEDS_SHOWN + 5))
    text = render_fuzz([ShownFuzz(result(fuzzers=(many,)), False)], Palette(enabled=False))
    assert "and 5 more" in text


def test_a_missing_result_fails_and_says_how_to_run_it(tmp_path: Path) -> None:
    entries = [
        FuzzEntry("wasi", "clamp", "a.fuzz.ts", "r/clamp.json"),
        FuzzEntry("wasi", "ok", "b.fuzz.ts", "r/ok.json"),
    ]
    write_fuzz_result(tmp_path / "r/ok.json", result(passed=True, session="now"))
    shown = load_fuzz_results(tmp_path, entries, "now")
    assert not shown[0].result.passed and "doit astest:fuzz:wasi:clamp" in shown[0].result.error
    assert shown[1].result.passed and not shown[1].cached
    assert fuzz_totals(shown) == "fuzz: 1 passed, 1 failed, 250 runs"


def test_a_fuzzers_name_values_and_file_from_the_spec_stay_on_their_lines() -> None:
    hostile = "::error::x\n##[group]y\x1b]0;title\x07"

    def with_text(text: str) -> FuzzResult:
        plain = result()
        fuzzers = tuple(
            replace(
                fuzzer,
                name=text,
                assertion=replace(fuzzer.assertion, message=text, left=text, right=text),
            )
            for fuzzer in plain.fuzzers
        )
        return replace(plain, file=text, file_id=text, fuzzers=fuzzers)

    def lines(item: FuzzResult) -> list[str]:
        return render_fuzz([ShownFuzz(item, cached=False)], Palette(enabled=False)).splitlines()

    shown = lines(with_text(hostile))
    assert len(shown) == len(lines(with_text("plain")))
    assert "::error::x\\n##[group]y\\x1b]0;title\\x07" in shown[0]
    assert not any(character in "\x1b\x07" for character in "".join(shown))


def test_a_campaign_stopped_at_a_limit_is_not_said_to_have_crashed() -> None:
    limit = "the campaign's output passed the limit of 0.1 MiB\nit wrote more than 0.1 MiB ..."
    stopped = result(fuzzers=(), error=limit)
    text = render_fuzz([ShownFuzz(stopped, cached=False)], Palette(enabled=False))
    assert "crashed" not in text
    assert "clamp  no fuzzer report, seed" in text
    assert "the campaign's output passed the limit of 0.1 MiB" in text
