"""The options of the cache shared across machines: declared here (core/option_declarations.py
says how, remote/settings.py holds the defaults and the environment's names) and read whole, as
``TaskOptions.remote``, into the call's remote settings (plan/planning.py)."""

from __future__ import annotations

from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import OptionDoc, option, seconds
from astest_tasks.remote.settings import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_REQUEST_TIMEOUT,
    RemoteMode,
    parse_settings,
)


def _remote_cache_url(text: str) -> str:
    url = text.strip()
    if url:
        parse_settings(url, source="--remote-cache")  # a bad URL stops here, never printed whole
    return url


def _remote_cache_mode(text: str) -> RemoteMode:
    return RemoteMode.parse(text.strip() or RemoteMode.READ_WRITE.value, "--remote-cache-mode")


@frozen
class RemoteCacheOptions:
    """Where the shared cache is, whether this call may write to it, and how long to wait."""

    # Not as-test.config.json keys: as-test 1.8 refuses unknown keys there, and where the cache
    # is (and who may write to it) is the machine's business, not the project's.
    remote_cache: str = option(
        "",
        "URL of a cache shared across machines (Bazel's HTTP remote-cache protocol: nginx "
        "WebDAV, bazel-remote), e.g. `https://cache.example/astest`; builds and passing runs "
        "found there are not done again (docs: Sharing a cache across machines)",
        parse=_remote_cache_url,
        doc=OptionDoc(
            flag="`--remote-cache=URL`",
            env="`ASTEST_REMOTE_CACHE`",
            default="none",
            meaning=(
                "a cache shared across machines, spoken to with Bazel's HTTP remote-cache "
                "protocol (nginx WebDAV, bazel-remote): builds and passing runs found there "
                "are not done again, and this run's are uploaded (see [Sharing a cache across "
                "machines](remote-cache.md)). A user and password in the URL are sent as HTTP "
                "Basic; `ASTEST_REMOTE_CACHE_HEADER` (`Name: value`) adds a header such as a "
                "bearer token, and `ASTEST_REMOTE_CACHE_SIGNING_KEY` signs and checks the "
                "entries; without a signing key, entries are trusted by design, as Bazel "
                "trusts its cache: whoever can write to it can hand every machine a passing "
                "result. A query in the URL (`?token=...`) is sent with every request. No "
                "secret is ever printed or stored; nothing of it goes into "
                "`as-test.config.json`"
            ),
        ),
    )
    remote_cache_mode: RemoteMode = option(
        RemoteMode.READ_WRITE.value,
        "`read-write` looks up and uploads; `read` only looks up (a pull request's CI) "
        "[default: %(default)s]",
        parse=_remote_cache_mode,
        doc=OptionDoc(
            flag="`--remote-cache-mode=read`",
            env="`ASTEST_REMOTE_CACHE_MODE`",
            default="`read-write`",
            meaning=(
                "`read` only looks up, for a pull request's CI; `read-write` also uploads (as "
                "in Bazel)"
            ),
        ),
    )
    remote_cache_connect_timeout: float = option(
        f"{DEFAULT_CONNECT_TIMEOUT:g}",
        "seconds to wait for a connection to the remote cache before running without it "
        "[default: %(default)s]",
        parse=seconds("remote-cache-connect-timeout"),
        doc=OptionDoc(
            flag="`--remote-cache-connect-timeout=S`",
            env="`ASTEST_REMOTE_CACHE_CONNECT_TIMEOUT`",
            default="`2`",
            meaning=(
                "seconds to wait for a connection to the remote cache; a server that is "
                "slower, down or answers garbage costs one warning, and the run goes on "
                "without it"
            ),
        ),
    )
    remote_cache_request_timeout: float = option(
        f"{DEFAULT_REQUEST_TIMEOUT:g}",
        "seconds one request to the remote cache may take before running without it "
        "[default: %(default)s]",
        parse=seconds("remote-cache-request-timeout"),
        doc=OptionDoc(
            flag="`--remote-cache-request-timeout=S`",
            env="`ASTEST_REMOTE_CACHE_REQUEST_TIMEOUT`",
            default="`10`",
            meaning="seconds one request to the remote cache may take, the same way",
        ),
    )
