from __future__ import annotations

import base64

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.remote.settings import RemoteMode, parse_settings, redact_url


def test_the_urls_credentials_become_a_basic_header_and_leave_the_url() -> None:
    settings = parse_settings("https://ci:p%40ss@cache.example:8443/astest/")
    assert settings.base_url == "https://cache.example:8443/astest"
    assert settings.headers == {"Authorization": "Basic " + base64.b64encode(b"ci:p@ss").decode()}
    assert "p@ss" not in repr(settings) and "Basic" not in repr(settings)


def test_the_timeouts_default_to_two_and_ten_seconds_and_can_be_set() -> None:
    default = parse_settings("http://cache:8080")
    assert (default.connect_timeout, default.request_timeout) == (2.0, 10.0)
    assert default.mode is RemoteMode.READ_WRITE
    custom = parse_settings("http://cache:8080", connect_timeout=0.5, request_timeout=30)
    assert (custom.connect_timeout, custom.request_timeout) == (0.5, 30)


def test_a_header_is_sent_as_given() -> None:
    settings = parse_settings("http://cache:8080", header="Authorization: Bearer t0ken")
    assert settings.headers == {"Authorization": "Bearer t0ken"}
    assert "Bearer t0ken" in settings.secrets


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"url": "cache.example/astest"}, "not an http or https URL"),
        ({"url": "ftp://u:secret@host/x"}, "not an http or https URL"),
        ({"url": "http://host", "header": "no colon"}, "expected 'Name: value'"),
        ({"url": "http://host", "request_timeout": 0}, "request timeout: 0 is not positive"),
    ],
)
def test_bad_settings_say_what_and_how_to_fix(options: dict[str, object], message: str) -> None:
    with pytest.raises(UserError, match=message) as caught:
        parse_settings(**options)  # type: ignore[arg-type]
    assert "fix:" in str(caught.value)
    assert "secret" not in str(caught.value)


def test_redacting_hides_user_password_and_query() -> None:
    assert redact_url("http://u:pw@host:1/p?token=x") == "http://***@host:1/p"


def test_modes_parse_and_name_the_source() -> None:
    assert RemoteMode.parse("read", "ASTEST_REMOTE_CACHE_MODE") is RemoteMode.READ
    with pytest.raises(UserError, match="ASTEST_REMOTE_CACHE_MODE: unknown remote cache mode"):
        RemoteMode.parse("write", "ASTEST_REMOTE_CACHE_MODE")
