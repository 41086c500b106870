from __future__ import annotations

import base64

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.core.process_env import WITHHELD_FROM_CHILDREN
from astest_tasks.remote.settings import (
    HEADER_VARIABLE,
    SECRET_VARIABLES,
    SIGNING_KEY_VARIABLE,
    RemoteMode,
    parse_settings,
    redact_url,
    settings_with_secrets,
)


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


@pytest.mark.parametrize(
    ("url", "wrong"),
    [
        ("http://cache:notaport/astest", "its port is not a number from 1 to 65535"),
        ("http://ci:secret@cache:99999", "its port is not a number from 1 to 65535"),
        ("http://cache:0/astest", "its port is not a number from 1 to 65535"),
        ("http://ci:secret@[::1/astest", "its IPv6 address lacks the closing ']'"),
        ("http://cache/as test", "it holds a space, a line break or a control character"),
        ("http://cache/a\r\nX: 1", "it holds a space, a line break or a control character"),
        ("http://cache/\x1b[2Jastest", "it holds a space, a line break or a control character"),
    ],
)
def test_a_malformed_url_is_one_error_with_its_fix(url: str, wrong: str) -> None:
    """urllib raises a bare ValueError on these (the port only when asked for it), which
    reached the user as a traceback."""
    with pytest.raises(UserError) as caught:
        parse_settings(url, source="ASTEST_REMOTE_CACHE")
    message = str(caught.value)
    assert message.startswith("ASTEST_REMOTE_CACHE: ") and f"is no URL: {wrong}; fix: " in message
    assert "secret" not in message
    assert message.isprintable()  # no line break or escape sequence of the URL's reaches a terminal


@pytest.mark.parametrize(
    "header",
    [
        "X-Token: s3cret\r\nX-Other: 1",  # would add a header of its own, or split the request
        "X-Token: s3cret\x1b[2J",
        "X Token: s3cret",
        "X-Token: s3cr€t",  # http.client encodes latin-1 only, and raised at the first request
    ],
)
def test_a_header_that_is_not_one_line_of_printable_ascii_is_refused(header: str) -> None:
    """http.client raised a ValueError quoting the value (a secret) at the first request: a
    traceback in doctor, and a silent miss on every lookup of a run."""
    with pytest.raises(UserError) as caught:
        parse_settings("http://cache", header=header)
    message = str(caught.value)
    assert "value printable ASCII on one line" in message and "fix: " in message
    assert "s3cr" not in message and message.isprintable()


def test_a_query_is_sent_with_every_request_and_kept_out_of_what_prints() -> None:
    settings = parse_settings("https://cache.example/astest/?token=t0k3n&team=a")
    assert settings.base_url == "https://cache.example/astest"
    assert settings.url(f"ac/{'0' * 64}") == (
        f"https://cache.example/astest/ac/{'0' * 64}?token=t0k3n&team=a"
    )
    assert settings.url("cas/x").endswith("/cas/x?token=t0k3n&team=a")
    assert "t0k3n" not in repr(settings)
    assert "token=t0k3n&team=a" in settings.secrets
    assert parse_settings("http://cache/astest").url("cas/x") == "http://cache/astest/cas/x"


def test_redacting_hides_user_password_and_query() -> None:
    assert redact_url("http://u:pw@host:1/p?token=x") == "http://***@host:1/p"
    assert redact_url("http://u:pw@[::1/p") == "http://..."  # too broken to split: no part of it


def test_modes_parse_and_name_the_source() -> None:
    assert RemoteMode.parse("read", "ASTEST_REMOTE_CACHE_MODE") is RemoteMode.READ
    with pytest.raises(UserError, match="ASTEST_REMOTE_CACHE_MODE: unknown remote cache mode"):
        RemoteMode.parse("write", "ASTEST_REMOTE_CACHE_MODE")


def test_every_door_sets_a_cache_up_with_the_environments_header_and_key() -> None:
    environ = {HEADER_VARIABLE: "Authorization: Bearer t0k", SIGNING_KEY_VARIABLE: "s3cret"}
    settings = settings_with_secrets("http://cache.example:8080/ac", "", environ)
    assert settings.mode is RemoteMode.READ_WRITE  # an empty mode is read-write
    assert settings.headers == {"Authorization": "Bearer t0k"}
    assert settings.signing_key == b"s3cret"
    assert (settings.connect_timeout, settings.request_timeout) == (2.0, 10.0)
    read_only = settings_with_secrets("http://cache.example/", " read ", {})
    assert read_only.mode is RemoteMode.READ and read_only.signing_key is None


def test_the_secrets_withheld_from_children_are_the_caches_own() -> None:
    assert WITHHELD_FROM_CHILDREN == SECRET_VARIABLES
