"""Fuzz run overrides, seeds and the fuzz:config answer, against as-test's own arithmetic."""

from __future__ import annotations

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.fuzz.runs import (
    MAX_SEED,
    FuzzCampaign,
    OverrideKind,
    RunsOverride,
    parse_runs_override,
    parse_seed,
    random_seed,
)


@pytest.mark.parametrize(
    ("text", "kind", "value", "text_back"),
    [
        ("500", OverrideKind.SET, 500, "500"),
        ("1.5x", OverrideKind.SCALE, 1.5, "1.5x"),
        ("2X", OverrideKind.SCALE, 2, "2x"),
        ("+100000", OverrideKind.ADD, 100000, "+100000"),
        ("-20", OverrideKind.ADD, -20, "-20"),
        ("+10%", OverrideKind.PERCENT_ADD, 10, "+10%"),
        ("-12.5%", OverrideKind.PERCENT_ADD, -12.5, "-12.5%"),
        ("", OverrideKind.NONE, 0, ""),
    ],
)
def test_each_form_parses_and_reads_back(
    text: str, kind: OverrideKind, value: float, text_back: str
) -> None:
    override = parse_runs_override(text)
    assert (override.kind, override.value) == (kind, value)
    assert override.text == text_back


@pytest.mark.parametrize("text", ["abc", "0", "0x", "1.5", "10%", "x2", "+", "1e3"])
def test_nonsense_is_a_user_error_with_the_forms(text: str) -> None:
    with pytest.raises(UserError) as raised:
        parse_runs_override(text)
    assert "500, 1.5x, +10% or +100000" in str(raised.value)


@pytest.mark.parametrize(
    ("override", "base", "expected"),
    [
        (RunsOverride(OverrideKind.SET, 7), 1000, 7),
        (RunsOverride(OverrideKind.SCALE, 1.5), 200, 300),
        (RunsOverride(OverrideKind.ADD, 50), 200, 250),
        (RunsOverride(OverrideKind.ADD, -500), 200, 1),  # never below one run
        (RunsOverride(OverrideKind.PERCENT_ADD, 10), 50, 55),
        (RunsOverride(), 50, 50),
    ],
)
def test_apply_matches_the_guest(override: RunsOverride, base: int, expected: int) -> None:
    assert override.apply(base) == expected


def test_the_reply_carries_runs_seed_kind_and_value() -> None:
    plain = FuzzCampaign(runs=200, seed=42, seed_is_random=False)
    assert plain.reply() == b"200\n42\n0\n0"
    scaled = FuzzCampaign(200, 42, False, RunsOverride(OverrideKind.SCALE, 1.5))
    assert scaled.reply() == b"200\n42\n2\n1.5"
    # as-test sends a set count as the base runs as well as the override
    fixed = FuzzCampaign(200, 42, False, RunsOverride(OverrideKind.SET, 1))
    assert fixed.reply() == b"1\n42\n1\n1"


def test_seeds() -> None:
    assert parse_seed("") is None
    assert parse_seed(" 1337 ") == 1337
    with pytest.raises(UserError, match="whole number"):
        parse_seed("-1")
    drawn = {random_seed() for _ in range(20)}
    assert len(drawn) > 1 and all(0 <= seed <= MAX_SEED for seed in drawn)
