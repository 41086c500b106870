"""``astest doctor``'s checks of a remote cache, against the real nginx of tests/nginx_cache.py."""

from __future__ import annotations

import pytest

from astest_tasks.core.setup_checks import Level
from astest_tasks.remote.doctor_checks import remote_cache_checks
from tests.nginx_cache import PASSWORD, TOKEN, CacheServer, free_port

TIMEOUTS = (2.0, 10.0)
SIGNED = {"ASTEST_REMOTE_CACHE_SIGNING_KEY": "team key"}  # no word on unsigned entries then


def levels(url: str, mode: str = "", **environ: str) -> list[tuple[Level, str, str]]:
    return [(c.level, c.detail, c.fix) for c in remote_cache_checks(url, mode, environ, TIMEOUTS)]


def test_no_remote_cache_no_check() -> None:
    assert remote_cache_checks("", "", {}, TIMEOUTS) == []


def test_a_cache_that_reads_and_writes_is_ok(cache_server: CacheServer) -> None:
    checks = levels(cache_server.url(), **SIGNED)
    assert [level for level, _, _ in checks] == [Level.OK, Level.OK]
    assert "answers lookups (read-write mode)" in checks[0][1]
    assert "stores blobs and entries" in checks[1][1]
    assert (cache_server.stored / "ac").is_dir() and (cache_server.stored / "cas").is_dir()


def test_a_read_write_cache_without_a_signing_key_is_said_to_be_trusted(
    cache_server: CacheServer,
) -> None:
    """Unsigned entries are trusted by design (as Bazel trusts its cache); doctor says so
    where it matters, a cache this machine writes to without a key, and nowhere else."""
    *working, (level, detail, fix) = levels(cache_server.url())
    assert [level for level, _, _ in working] == [Level.OK, Level.OK]
    assert level is Level.WARN
    assert "unsigned and trusted by design (as Bazel trusts its cache)" in detail
    assert "ASTEST_REMOTE_CACHE_SIGNING_KEY" in fix
    assert not any("unsigned" in d for _, d, _ in levels(cache_server.url("readonly"), "read"))


def test_read_mode_only_reads(cache_server: CacheServer) -> None:
    assert [level for level, *_ in levels(cache_server.url("readonly"), "read")] == [Level.OK]
    assert not (cache_server.stored / "cas").exists()  # no probe in read mode


def test_a_read_only_server_in_read_write_mode_names_read_mode_as_the_fix(
    cache_server: CacheServer,
) -> None:
    (level_read, _, _), (level, detail, fix) = levels(cache_server.url("readonly"), **SIGNED)
    assert (level_read, level) == (Level.OK, Level.ERROR)
    assert "refuses writing a blob (HTTP 403)" in detail
    assert "--remote-cache-mode=read" in fix


def test_a_full_server_is_a_warning(cache_server: CacheServer) -> None:
    (_, (level, detail, _)) = levels(cache_server.url("full"), **SIGNED)
    assert level is Level.WARN and "is full (HTTP 507)" in detail


@pytest.mark.parametrize("with_password", [False, True])
def test_credentials_are_checked_and_never_shown(
    cache_server: CacheServer, with_password: bool
) -> None:
    user = f"ci:{PASSWORD if with_password else 'wrong'}@"
    url = f"http://{user}127.0.0.1:{cache_server.port}/private"
    checks = levels(url, **SIGNED)
    text = repr(checks)
    assert PASSWORD not in text and "wrong" not in text
    if with_password:
        assert [level for level, *_ in checks] == [Level.OK, Level.OK]
    else:
        ((level, detail, fix),) = checks
        assert level is Level.ERROR and "refuses reading (HTTP 401)" in detail
        assert "ASTEST_REMOTE_CACHE_HEADER" in fix


def test_a_server_that_is_down_or_not_one_is_an_error_with_a_fix(
    cache_server: CacheServer,
) -> None:
    ((level, detail, fix),) = levels(f"http://127.0.0.1:{free_port()}/astest")
    assert level is Level.ERROR and "cannot be reached" in detail and "start the server" in fix
    ((level, detail, fix),) = levels(cache_server.url("broken"))
    assert level is Level.ERROR and "HTTP 500" in detail and "ac/ and cas/" in fix
    ((level, detail, fix),) = levels("ftp://ci:hunter2@host/x")
    assert level is Level.ERROR and "hunter2" not in detail and fix


@pytest.mark.parametrize(
    "url", ["http://ci:hunter2@cache:notaport/x", "http://cache:99999", "http://ci:hunter2@[::1"]
)
def test_a_malformed_url_is_an_error_with_a_fix(url: str) -> None:
    ((level, detail, fix),) = levels(url)
    assert level is Level.ERROR and "is no URL: its " in detail
    assert "hunter2" not in detail and fix.startswith("give the cache's address")


def test_a_query_in_the_url_is_sent_and_never_shown(cache_server: CacheServer) -> None:
    checks = levels(f"{cache_server.url('tokened')}?token={TOKEN}")
    assert [level for level, _, _ in checks][:2] == [Level.OK, Level.OK]
    assert TOKEN not in repr(checks)


def test_a_header_with_a_line_break_is_an_error_that_never_shows_it(
    cache_server: CacheServer,
) -> None:
    """http.client refused it at the first request with a ValueError quoting the value: a
    traceback that printed the secret."""
    header = "X-Token: s3cret-t0ken\r\nX-Other: 1"
    ((level, detail, fix),) = levels(cache_server.url(), ASTEST_REMOTE_CACHE_HEADER=header)
    assert level is Level.ERROR and "value printable ASCII on one line" in detail
    assert "ASTEST_REMOTE_CACHE_HEADER=" in fix
    assert "s3cret" not in detail + fix
