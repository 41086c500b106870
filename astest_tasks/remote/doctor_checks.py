"""What ``astest doctor`` checks of the remote cache: it answers, it lets us read, and in
read-write mode it lets us write blobs and our own entries, each with the fix when it does not.

The write probes store a blob named by its own digest and an entry under a key no build or run
can have (the digest of a fixed text), so they leave nothing anyone reads by mistake.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import urllib3

from astest_tasks.core.errors import UserError
from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.remote.entries import Entry, encode_entry
from astest_tasks.remote.settings import (
    RemoteMode,
    RemoteSettings,
    redact_url,
    settings_with_secrets,
)

SCOPE = "remote"
PROBE_BLOB = b"astest doctor: a write probe\n"
PROBE_KEY = hashlib.sha256(b"astest doctor: the probe entry's key, no task's").hexdigest()
_AUTH_FIX = (
    "check the user:password in the URL or ASTEST_REMOTE_CACHE_HEADER ('Name: value', e.g. "
    "'Authorization: Bearer <token>')"
)


def remote_cache_checks(
    url: str, mode_text: str, environ: Mapping[str, str], timeouts: tuple[float, float]
) -> list[Check]:
    """The checks of ``--remote-cache=url``; none when no remote cache is set."""
    if not url.strip():
        return []
    try:
        settings = settings_with_secrets(
            url,
            mode_text,
            environ,
            connect_timeout=timeouts[0],
            request_timeout=timeouts[1],
            mode_source="mode",
        )
    except UserError as exc:
        return [Check(Level.ERROR, SCOPE, str(exc).partition("; fix: ")[0], _fix_of(str(exc)))]
    http = urllib3.PoolManager(
        headers=dict(settings.headers),
        timeout=urllib3.Timeout(connect=settings.connect_timeout, total=settings.request_timeout),
        retries=False,
    )
    try:
        return _checks(http, settings)
    finally:
        http.clear()


def _fix_of(message: str) -> str:
    return message.partition("; fix: ")[2]


def _checks(http: urllib3.PoolManager, settings: RemoteSettings) -> list[Check]:
    where = redact_url(settings.base_url)
    try:
        read = http.request("GET", settings.url(f"ac/{PROBE_KEY}"))
    except urllib3.exceptions.HTTPError as exc:
        return [
            Check(
                Level.ERROR,
                SCOPE,
                f"{where} cannot be reached ({type(exc).__name__})",
                "start the server, or correct --remote-cache / ASTEST_REMOTE_CACHE; runs go on "
                "without the cache meanwhile",
            )
        ]
    if read.status in (401, 403):
        refused = f"{where} refuses reading (HTTP {read.status})"
        return [Check(Level.ERROR, SCOPE, refused, _AUTH_FIX)]
    if read.status not in (200, 404):
        return [
            Check(
                Level.ERROR,
                SCOPE,
                f"{where} answers HTTP {read.status} to a lookup, not 200 or 404",
                "point the URL at the folder that holds ac/ and cas/ on a server of Bazel's HTTP "
                "remote-cache protocol (nginx WebDAV, bazel-remote)",
            )
        ]
    checks = [Check(Level.OK, SCOPE, f"{where} answers lookups ({settings.mode.value} mode)")]
    if settings.mode is RemoteMode.READ:
        return checks
    checks.append(_write_check(http, settings, where))
    if settings.signing_key is None:
        checks.append(_trust_check(where))
    return checks


def _trust_check(where: str) -> Check:
    """Unsigned entries are trusted by design, as Bazel trusts its cache: a read-write cache
    without a signing key is worth one line saying so, since whoever can write there decides
    what every machine's results say."""
    return Check(
        Level.WARN,
        SCOPE,
        f"entries on {where} are unsigned and trusted by design (as Bazel trusts its cache): "
        "whoever can write there can hand every machine a passing result",
        "set ASTEST_REMOTE_CACHE_SIGNING_KEY to a secret shared by the machines you trust: "
        "they sign what they store and take only entries so signed; if everyone who can write "
        "there is trusted, nothing to do",
    )


def _write_check(http: urllib3.PoolManager, settings: RemoteSettings, where: str) -> Check:
    digest = hashlib.sha256(PROBE_BLOB).hexdigest()
    entry = encode_entry(PROBE_KEY, Entry(blobs={"probe": digest}, meta={}), settings.signing_key)
    probes = ((f"cas/{digest}", PROBE_BLOB, "a blob"), (f"ac/{PROBE_KEY}", entry, "an entry"))
    for path, body, what in probes:
        try:
            status = http.request("PUT", settings.url(path), body=body).status
        except urllib3.exceptions.HTTPError as exc:
            return Check(Level.ERROR, SCOPE, f"storing {what} failed ({type(exc).__name__})", "")
        if status in (200, 201, 204):
            continue
        if status in (413, 507):
            return Check(
                Level.WARN,
                SCOPE,
                f"{where} is full (HTTP {status}): nothing will be uploaded",
                "free space on the server, or let it evict (bazel-remote --max_size)",
            )
        if status in (401, 403, 405):
            return Check(
                Level.ERROR,
                SCOPE,
                f"{where} refuses writing {what} (HTTP {status}) in read-write mode",
                "use --remote-cache-mode=read on machines that may not write (pull requests); "
                f"where they may: {_AUTH_FIX}, and on nginx `dav_methods PUT; "
                "create_full_put_path on;`",
            )
        ours = path.startswith("ac/")  # bazel-remote checks /ac/ entries unless told not to
        fix = "start bazel-remote with --disable_http_ac_validation" if ours else ""
        return Check(Level.ERROR, SCOPE, f"{where} refuses {what} (HTTP {status})", fix)
    return Check(Level.OK, SCOPE, f"{where} stores blobs and entries")
