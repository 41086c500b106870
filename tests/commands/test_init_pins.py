"""init_pins.py: the newest as-test the registry has within the tested range, and the
assemblyscript that works with it; a fallback that says why when npm cannot tell."""

from __future__ import annotations

from astest_tasks.commands.init_pins import (
    FALLBACK_AS_TEST,
    assemblyscript_for,
    choose_pins,
    newest_tested,
    served_versions,
)


def test_the_newest_release_within_the_tested_range_wins() -> None:
    served = ["0.4.1", "1.0.7", "1.0.13", "1.8.0", "1.9.0-beta.1", "2.0.0", "1.10.0"]
    assert newest_tested(served) == "1.8.0"  # 1.10.0 and 2.0.0 are newer than we test
    assert newest_tested(["0.5.4", "1.0.7"]) == "1.0.7"
    assert newest_tested(["0.5.4", "3.0.0"]) is None


def test_each_as_test_gets_the_assemblyscript_its_transform_works_with() -> None:
    assert assemblyscript_for("1.0.7") == "0.28.14"
    assert assemblyscript_for("1.0.12") == "0.28.14"
    assert assemblyscript_for("1.0.13") == "0.28.20"
    assert assemblyscript_for("1.8.0") == "0.28.20"


def test_without_an_answer_the_fallback_says_why() -> None:
    pins = choose_pins(None, "npm is not on PATH")
    assert (pins.as_test, pins.assemblyscript) == (FALLBACK_AS_TEST, "0.28.14")
    assert "npm is not on PATH" in pins.note and "package.json" in pins.note
    none_in_range = choose_pins(["3.0.0"])
    assert none_in_range.as_test == FALLBACK_AS_TEST and "no as-test from" in none_in_range.note
    chosen = choose_pins(["1.0.7", "1.8.0"])
    assert (chosen.as_test, chosen.assemblyscript) == ("1.8.0", "0.28.20")
    assert dict(chosen.npm_packages)["@assemblyscript/wasi-shim"] == "0.1.0"


def test_the_real_npm_answers_with_versions_or_says_why_not() -> None:
    served, why_not = served_versions()
    if served is None:  # offline or refused: the reason is said, never an empty one
        assert why_not
    else:
        assert "1.0.7" in served, served  # the version this repository installs from there
        assert choose_pins(served).as_test in served
