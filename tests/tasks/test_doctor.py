"""The doctor task's request (tasks/doctor.py): a bad remote-cache timeout is named, not skipped."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.core.option_declarations import seconds
from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.tasks.doctor import DoctorRequest, RemoteCacheAsGiven


def _given(**texts: str) -> RemoteCacheAsGiven:
    as_given = {
        "remote_cache": "",
        "remote_cache_mode": "read-write",
        "remote_cache_connect_timeout": "2",
        "remote_cache_request_timeout": "30",
    }
    return RemoteCacheAsGiven(**{**as_given, **texts})


@pytest.mark.parametrize("text", ["abc", "0", "-1", "nan", "", " "])
@pytest.mark.parametrize("option", ["connect", "request"])
def test_a_bad_timeout_is_an_error_with_the_message_and_fix_a_run_stops_with(
    option: str, text: str
) -> None:
    # A run stops on it with or without a cache, so the doctor names it even with none set.
    name = f"remote-cache-{option}-timeout"
    with pytest.raises(UserError) as run:
        seconds(name)(text)
    message, _, fix = str(run.value).partition("; fix: ")
    checks = _given(**{f"remote_cache_{option}_timeout": text}).checks()
    assert checks == [Check(Level.ERROR, "remote", message, fix)]
    assert message.startswith(f"--{name}: {text!r}")


def test_timeouts_given_well_add_no_check() -> None:
    assert _given().checks() == []
    assert (
        _given(remote_cache_connect_timeout="0.5", remote_cache_request_timeout="2.0").checks()
        == []
    )


def test_the_doctor_prints_the_bad_timeout_and_exits_1(tmp_path: Path) -> None:
    values = {
        "config": "as-test.config.json",
        "mode": "",
        "remote_cache_connect_timeout": "2",
        "remote_cache_request_timeout": "abc",
    }
    printed = io.StringIO()
    assert DoctorRequest.from_values(values).report(tmp_path, printed) == 1
    assert "--remote-cache-request-timeout: 'abc' is not a number of seconds > 0" in (
        printed.getvalue()
    )
