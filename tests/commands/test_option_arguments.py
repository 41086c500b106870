"""Subcommand flags generated from the task options' declarations."""

from __future__ import annotations

import argparse

import pytest

from astest_tasks.commands.option_arguments import add_option_arguments, option_values


def test_a_help_with_a_percent_sign_shows_it_once_with_its_variable() -> None:
    parser = argparse.ArgumentParser(prog="probe")
    add_option_arguments(parser, ["fuzz_runs", "timeout"])
    text = parser.format_help()
    assert "+10% adds (environment: ASTEST_FUZZ_RUNS)" in " ".join(text.split())
    assert "[default: 300]" in text  # the declaration's %(default)s, rendered as doit does


def test_values_join_a_repeated_flag_and_fall_back_to_environment_then_default() -> None:
    parser = argparse.ArgumentParser(prog="probe")
    add_option_arguments(parser, ["spec", "timeout"], repeatable=["spec"])
    parsed = parser.parse_args(["--spec", "math", "--spec", "nested/*"])
    values = option_values(parsed, ["spec", "timeout"], {"ASTEST_TIMEOUT": "9"})
    assert values == {"spec": "math,nested/*", "timeout": "9"}
    assert option_values(parser.parse_args([]), ["timeout"], {}) == {"timeout": "300"}


@pytest.mark.parametrize(
    ("name", "message"),
    [("no_such_option", "not options of the astest tasks: no_such_option"), ("list", "--list")],
)
def test_what_cannot_be_generated_is_refused_by_name(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        add_option_arguments(argparse.ArgumentParser(prog="probe"), [name])
