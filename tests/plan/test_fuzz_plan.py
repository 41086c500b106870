"""Which fuzz tasks exist and what a campaign is told, without building anything."""

from __future__ import annotations

import pytest

from astest_tasks.config.project_config import FuzzSettings
from astest_tasks.core.errors import UserError
from astest_tasks.fuzz.fuzz_options import FuzzCallOptions
from astest_tasks.fuzz.runs import OverrideKind
from astest_tasks.plan.command_line import CommandLine
from astest_tasks.plan.fuzz_plan import FuzzOptions, fuzz_tasks_wanted


def _given(seed: str, runs: str) -> FuzzCallOptions:
    return FuzzCallOptions(fuzz_seed=seed, fuzz_runs=runs)


@pytest.mark.parametrize(
    ("with_tests", "argv", "wanted"),
    [
        (False, [], False),  # a plain doit must not fuzz
        (False, ["astest"], False),
        (True, [], True),  # --fuzz
        (False, ["astest:fuzz"], True),
        (False, ["list", "--all"], True),  # visible to doit's own commands
        (False, ["clean"], True),
    ],
)
def test_fuzz_tasks_exist_only_when_wanted(with_tests: bool, argv: list[str], wanted: bool) -> None:
    assert fuzz_tasks_wanted(with_tests, CommandLine("doit", tuple(argv)), "astest:fuzz") is wanted


def test_the_seed_comes_from_the_parameter_then_the_config_then_chance() -> None:
    pinned_in_config = FuzzSettings(seed=7)
    assert FuzzOptions.parse(_given("42", ""), pinned_in_config).seed == 42
    from_config = FuzzOptions.parse(_given("", ""), pinned_in_config)
    assert (from_config.seed, from_config.seed_is_random) == (7, False)
    drawn = [FuzzOptions.parse(_given("", ""), FuzzSettings()) for _ in range(5)]
    assert all(option.seed_is_random for option in drawn)
    assert len({option.seed for option in drawn}) > 1


def test_runs_and_seed_errors_are_user_errors() -> None:
    assert FuzzOptions.parse(_given("", "+10%"), FuzzSettings()).override.kind == (
        OverrideKind.PERCENT_ADD
    )
    with pytest.raises(UserError, match="--fuzz-runs"):
        FuzzOptions.parse(_given("", "lots"), FuzzSettings())
    with pytest.raises(UserError, match="--fuzz-seed"):
        FuzzOptions.parse(_given("x", ""), FuzzSettings())


def test_a_modes_own_seed_wins_over_the_bases_but_not_over_the_parameter() -> None:
    base, own = FuzzSettings(seed=7), FuzzSettings(seed=9)
    from_config = FuzzOptions.parse(_given("", ""), base)
    assert from_config.seed_of(own) == (9, False)
    assert from_config.seed_of(base) == (7, False)
    assert FuzzOptions.parse(_given("42", ""), base).seed_of(own) == (42, False)
    drawn = FuzzOptions.parse(_given("", ""), FuzzSettings())
    assert drawn.seed_of(FuzzSettings()) == (drawn.seed, True)
