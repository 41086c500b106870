"""Where the remote cache is and how to talk to it; the URL's secrets are split off here once, so
no later message can print them."""

from __future__ import annotations

import base64
import enum
from collections.abc import Mapping
from dataclasses import field
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.lazy_pattern import LazyPattern

DEFAULT_CONNECT_TIMEOUT = 2.0
DEFAULT_REQUEST_TIMEOUT = 10.0
# The environment a shared cache is given by, named once for every door that sets one up (a run,
# `astest doctor`, `astest merge`). The options' own ASTEST_* names follow from their declarations
# (remote/cache_options.py); the header and the signing key have no option, so doit never stores
# them.
URL_VARIABLE = "ASTEST_REMOTE_CACHE"
MODE_VARIABLE = "ASTEST_REMOTE_CACHE_MODE"
HEADER_VARIABLE = "ASTEST_REMOTE_CACHE_HEADER"
SIGNING_KEY_VARIABLE = "ASTEST_REMOTE_CACHE_SIGNING_KEY"
SECRET_VARIABLES = frozenset({URL_VARIABLE, HEADER_VARIABLE, SIGNING_KEY_VARIABLE})


class RemoteMode(enum.Enum):
    """``read`` only looks up (a pull request's CI); ``read-write`` also uploads (Bazel's
    default)."""

    READ = "read"
    READ_WRITE = "read-write"

    @classmethod
    def parse(cls, text: str, source: str) -> RemoteMode:
        for mode in cls:
            if mode.value == text:
                return mode
        raise UserError(
            f"{source}: unknown remote cache mode {text!r}; fix: use 'read' or 'read-write'"
        )


@frozen
class RemoteSettings:
    """A remote cache as the client uses it: ``base_url`` carries no user or password, the
    credentials travel only in ``headers``."""

    base_url: str
    mode: RemoteMode = RemoteMode.READ_WRITE
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    # The URL's query (e.g. ``token=...`` for a server that checks one), sent with every
    # request and never printed: ``base_url`` is what messages show.
    query: str = field(default="", repr=False)
    signing_key: bytes | None = field(default=None, repr=False)
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every text that must never reach a message (header values, signing key)."""
        found = [value for value in self.headers.values() if value]
        if self.query:
            found.append(self.query)
        if self.signing_key:
            found.append(self.signing_key.decode("utf-8", "replace"))
        return tuple(found)

    def url(self, path: str) -> str:
        """The address of ``path`` (``cas/<digest>``, ``ac/<key>``) on the server, with the
        URL's query."""
        return f"{self.base_url}/{path}" + (f"?{self.query}" if self.query else "")


def parse_settings(
    url: str,
    *,
    mode: RemoteMode = RemoteMode.READ_WRITE,
    header: str | None = None,
    signing_key: str | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    source: str = "--remote-cache",
) -> RemoteSettings:
    """Split ``http[s]://user:password@host/path`` into a clean base URL and a Basic
    ``Authorization`` header; ``header`` (``Name: value``, e.g. a bearer token) is added as is."""
    parts = _split_url(url, source)
    headers: dict[str, str] = {}
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    if header:
        name, value = _split_header(header, source)
        headers[name] = value
    for what, seconds in (("connect", connect_timeout), ("request", request_timeout)):
        if not seconds > 0:
            raise UserError(
                f"{source} {what} timeout: {seconds} is not positive; fix: give seconds > 0"
            )
    assert parts.hostname is not None  # _split_url refuses a URL without one
    netloc = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
    if ":" in parts.hostname:  # an IPv6 literal keeps its brackets
        netloc = f"[{parts.hostname}]" + ("" if parts.port is None else f":{parts.port}")
    base = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    return RemoteSettings(
        base_url=base,
        mode=mode,
        headers=headers,
        query=parts.query,
        signing_key=signing_key.encode("utf-8") if signing_key else None,
        connect_timeout=connect_timeout,
        request_timeout=request_timeout,
    )


def settings_with_secrets(
    url: str,
    mode_text: str,
    environ: Mapping[str, str],
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    mode_source: str = "--remote-cache-mode",
) -> RemoteSettings:
    """The cache at ``url`` in ``mode_text``'s mode (read-write when empty), with the header and
    the signing key of the environment: the one way every door sets a cache up."""
    mode = RemoteMode.parse(mode_text.strip() or RemoteMode.READ_WRITE.value, mode_source)
    return parse_settings(
        url,
        mode=mode,
        header=environ.get(HEADER_VARIABLE) or None,
        signing_key=environ.get(SIGNING_KEY_VARIABLE) or None,
        connect_timeout=connect_timeout,
        request_timeout=request_timeout,
    )


# An HTTP header's name is a token (RFC 9110, 5.1); its value here is printable ASCII, since a
# line break would end the header (and start another) and http.client refuses the rest.
_HEADER_NAME = LazyPattern(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE = LazyPattern(r"[\x20-\x7e\t]+")


def _split_header(header: str, source: str) -> tuple[str, str]:
    """``Name: value`` as its two parts; the message never shows the value (a secret)."""
    name, colon, value = (part.strip() for part in header.partition(":"))
    fix = "fix: e.g. ASTEST_REMOTE_CACHE_HEADER='Authorization: Bearer <token>'"
    if not colon or not name or not value:
        raise UserError(f"{source} header: expected 'Name: value'; {fix}")
    if not _HEADER_NAME.fullmatch(name) or not _HEADER_VALUE.fullmatch(value):
        raise UserError(
            f"{source} header: its name must be one word and its value printable ASCII on one "
            f"line (no line break or control character); {fix}"
        )
    return name, value


def _split_url(url: str, source: str) -> SplitResult:
    """The URL's parts, once it is known to name an http(s) server: a port that is no number
    from 1 to 65535, or an IPv6 address without its closing bracket, is the user's to fix."""
    fix = "fix: give the cache's address, e.g. http://cache.example:8080/astest"
    if any(char.isspace() or not char.isprintable() for char in url.strip()):
        # It would reach the server as another request line, and the terminal in messages.
        raise UserError(
            f"{source}: {redact_url(url)!r} is no URL: it holds a space, a line break or a "
            f"control character; {fix}"
        )
    try:
        parts = urlsplit(url.strip())
        port = parts.port  # urllib checks the port only when asked for it
    except ValueError as exc:
        # urllib's own words would quote the URL's text; ours say what is wrong, not where.
        wrong = "its IPv6 address lacks the closing ']'" if "IPv6" in str(exc) else _BAD_PORT
        raise UserError(f"{source}: {redact_url(url)!r} is no URL: {wrong}; {fix}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{source}: {redact_url(url)!r} is not an http or https URL; {fix}")
    if port == 0:
        raise UserError(f"{source}: {redact_url(url)!r} is no URL: {_BAD_PORT}; {fix}")
    return parts


_BAD_PORT = "its port is not a number from 1 to 65535"


def redact_url(url: str) -> str:
    """The URL with any user and password replaced by ``***``, and no query (tokens hide there);
    a URL too malformed to split shows no more than its scheme."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        scheme = url.strip().partition("://")[0]
        return f"{scheme}://..." if scheme.isalpha() else "..."
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
