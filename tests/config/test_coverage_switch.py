"""coverage_switch.py: the --coverage / ASTEST_COVERAGE parameter over the config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.config.coverage_switch import parse_coverage_switch, with_coverage
from astest_tasks.config.project_config import load_config
from astest_tasks.core.errors import UserError


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", None),
        ("  ", None),
        ("on", True),
        ("ON", True),
        ("true", True),
        ("1", True),
        ("yes", True),
        ("off", False),
        ("False", False),
        ("0", False),
        ("no", False),
    ],
)
def test_switch_values(value: str, expected: bool | None) -> None:
    assert parse_coverage_switch(value) is expected


def test_an_unknown_switch_names_the_parameter_and_the_fix() -> None:
    with pytest.raises(UserError) as caught:
        parse_coverage_switch("maybe")
    message = str(caught.value)
    assert "ASTEST_COVERAGE" in message and "'maybe'" in message and "fix: use on or off" in message


def test_forcing_coverage_changes_the_build_env_and_keeps_the_rules(tmp_path: Path) -> None:
    config = {
        "coverage": {"enabled": False, "include": ["src/**"]},
        "buildOptions": {"env": {"A": "1"}},
    }
    (tmp_path / "as-test.config.json").write_text(json.dumps(config))
    mode = load_config(Path("as-test.config.json"), tmp_path).base

    on = with_coverage(mode, True)
    assert on.coverage_enabled is True
    assert on.build_env == {
        "A": "1",
        "AS_TEST_COVERAGE_ENABLED": "1",
        "AS_TEST_MODE_NAME": "default",  # no as-test installed here: 1.8's rules
    }
    assert on.coverage_rules.include == ("src/**",)
    off = with_coverage(on, False)
    assert off.build_env["AS_TEST_COVERAGE_ENABLED"] == "0" and off.coverage_enabled is False
    assert with_coverage(mode, None) is mode
