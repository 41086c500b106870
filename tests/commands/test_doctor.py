"""`astest doctor`'s flags, generated from the task options' declarations (plan/options.py),
and the same options as the `astest:doctor` task reads (tasks/doctor.py)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from astest_tasks.cli import _parser
from astest_tasks.commands.doctor import doctor_values
from astest_tasks.plan.options import option_specs
from astest_tasks.tasks.doctor import DoctorRequest

SPECS = {spec.name: spec for spec in option_specs()}


def _doctor_subparser() -> argparse.ArgumentParser:
    commands = next(
        action
        for action in _parser("doctor")._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    doctor: argparse.ArgumentParser = commands.choices["doctor"]
    return doctor


def _doctor_flags() -> dict[str, argparse.Action]:
    return {
        action.dest: action
        for action in _doctor_subparser()._actions
        if not isinstance(action, argparse._HelpAction)
    }


def _values(*flags: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    return doctor_values(_parser("doctor").parse_args(["doctor", *flags]), environ or {})


class _RecordedValues(Mapping[str, Any]):
    """doit's option values, recording which ones are read."""

    def __init__(self) -> None:
        self.given = {spec.name: spec.default for spec in SPECS.values()}
        self.read: set[str] = set()

    def __getitem__(self, name: str) -> Any:
        self.read.add(name)
        return self.given[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.given)

    def __len__(self) -> int:
        return len(self.given)


def test_each_doctor_flag_is_its_declared_option_with_its_help_and_variable() -> None:
    flags = _doctor_flags()
    assert flags, "the doctor takes options"
    for name, action in flags.items():
        spec = SPECS[name]  # a flag that is no task option fails here
        short = [f"-{spec.short}"] if spec.short else []
        assert action.option_strings == [*short, f"--{spec.long}"]
        shown = str(action.help).replace("%%", "%")
        assert shown.startswith(spec.help % {"default": spec.default}), name
        assert f"(environment: {spec.env_var})" in shown, name


def test_an_option_not_given_takes_its_declared_default_as_doit_does() -> None:
    values = _values()
    assert values == {name: str(SPECS[name].default) for name in _doctor_flags()}
    assert values["config"] == "as-test.config.json"
    assert values["remote_cache_mode"] == "read-write"


def test_a_flag_beats_its_environment_variable_which_beats_the_default() -> None:
    environ = {"ASTEST_CONFIG": "env.json", "ASTEST_REMOTE_CACHE": "http://cache.test:8080/x"}
    from_env = _values(environ=environ)
    assert from_env["config"] == "env.json"
    assert from_env["remote_cache"] == "http://cache.test:8080/x"
    given = _values("-c", "flag.json", "--remote-cache", "", environ=environ)
    assert given["config"] == "flag.json"
    assert given["remote_cache"] == "", "an empty flag still beats the environment"


def test_mode_is_repeatable_and_comma_separated() -> None:
    values = _values("-m", "wasi,web", "--mode", "web, bindings")
    assert DoctorRequest.from_values(values).modes == ["wasi", "web", "bindings"]
    default = DoctorRequest.from_values(_values(environ={"ASTEST_MODE": "wasi"}))
    assert default.modes == ["wasi"]


def test_the_doctor_task_and_astest_doctor_take_the_same_options() -> None:
    task_values = _RecordedValues()
    DoctorRequest.from_values(task_values)  # what tasks/factory.py hands the doctor task
    assert task_values.read == set(_doctor_flags())


def test_the_command_asks_the_same_as_the_task_for_the_same_values() -> None:
    environ = {"ASTEST_REMOTE_CACHE_CONNECT_TIMEOUT": "0.5"}
    values = _values("-c", "x.json", "-m", "web", "--remote-cache-mode", "read", environ=environ)
    task_values = {**{spec.name: spec.default for spec in SPECS.values()}, **values}
    assert DoctorRequest.from_values(values) == DoctorRequest.from_values(task_values)
    assert DoctorRequest.from_values(values).remote.remote_cache_connect_timeout == "0.5"


def test_a_bad_flag_is_argparse_s_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        _parser("doctor").parse_args(["doctor", "--no-such-flag"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --no-such-flag" in capsys.readouterr().err
