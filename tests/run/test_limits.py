"""parse_per_mode: one limit for every mode, with `mode=value` overrides."""

from __future__ import annotations

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.run.limits import MEMORY_LIMIT, TIMEOUT, PerMode, parse_per_mode

MODES = {"wasi", "bindings", "web"}


def test_a_plain_number_applies_to_every_mode() -> None:
    limits = parse_per_mode("30", TIMEOUT, MODES)
    assert limits == PerMode(30.0, {})
    assert limits.for_mode("web") == 30.0


def test_mode_entries_override_the_default_which_may_be_omitted() -> None:
    limits = parse_per_mode("web=60, wasi=2.5", TIMEOUT, MODES)
    assert limits.for_mode("web") == 60.0
    assert limits.for_mode("wasi") == 2.5
    assert limits.for_mode("bindings") == TIMEOUT.default


def test_an_empty_value_is_the_default() -> None:
    assert parse_per_mode("", MEMORY_LIMIT, MODES) == PerMode(MEMORY_LIMIT.default, {})


def test_an_unknown_mode_names_the_modes_there_are() -> None:
    with pytest.raises(UserError, match=r"no mode 'wbe' \(modes: bindings, wasi, web\)"):
        parse_per_mode("10,wbe=30", TIMEOUT, MODES)


@pytest.mark.parametrize("value", ["0", "-1", "abc", "inf", "nan", "1e9", "web=0"])
def test_a_bad_number_says_what_is_wanted_and_how(value: str) -> None:
    with pytest.raises(UserError) as error:
        parse_per_mode(value, TIMEOUT, MODES)
    assert "is not a number of seconds above 0 and at most 86400" in str(error.value)
    assert "ASTEST_TIMEOUT=300" in str(error.value)  # the default (Bazel's medium test size)
