"""The ``astest merge`` command: the shards' reports merged (output/merge_reports.py) and, with a
shared cache, every pair's duration published for the next workflow's shards
(remote/shard_durations.py).

The cache is ``--remote-cache``, else ``ASTEST_REMOTE_CACHE``, with its header and signing key
from the environment as for a run. Publishing only ever helps: a cache that is down, read-only
or refuses costs one line, never the merge's exit code.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from astest_tasks.core.errors import UserError
from astest_tasks.core.guest_text import for_stream
from astest_tasks.output.merge_reports import Publish, merge_reports
from astest_tasks.remote.settings import (
    MODE_VARIABLE,
    URL_VARIABLE,
    RemoteMode,
    RemoteSettings,
    settings_with_secrets,
)
from astest_tasks.remote.shard_durations import publish_durations


def merge_command(
    reports: list[Path], output: Path, remote_cache: str | None, remote_cache_mode: str | None
) -> int:
    """3 on reports that do not add up or a bad cache setting, else the merged run's code."""
    try:
        settings = _settings(remote_cache, remote_cache_mode)
        return merge_reports(reports, output, _publisher(settings) if settings else None)
    except UserError as exc:
        print(for_stream(f"ERROR: {exc}", sys.stderr), file=sys.stderr)
        return 3


def _settings(url: str | None, mode: str | None) -> RemoteSettings | None:
    environ = os.environ
    url = url if url is not None else environ.get(URL_VARIABLE, "")
    if not url.strip():
        return None
    return settings_with_secrets(url, mode or environ.get(MODE_VARIABLE, ""), environ)


def _publisher(settings: RemoteSettings) -> Publish:
    def publish(key: str, durations: Mapping[str, float]) -> None:
        _publish(settings, key, durations)

    return publish


def _publish(settings: RemoteSettings, key: str, durations: Mapping[str, float]) -> None:
    """Store the durations under ``key`` and wait for the upload; one line says what came of it
    (on stderr: stdout's last line stays the summary's)."""
    if not key:
        _say(
            "shard durations not published: the shards did not all run with --remote-cache "
            "(their reports name no one place to publish them); fix: give every shard the "
            "same --remote-cache"
        )
        return
    if settings.mode is RemoteMode.READ:
        _say("shard durations not published: the remote cache is open in read mode")
        return
    from astest_tasks.remote.http_cache import RemoteCache  # only when publishing

    with RemoteCache(settings, warn=_warn) as cache:
        try:
            digest = publish_durations(cache, key, durations)
        except ValueError as exc:  # too many pairs for one blob
            _warn(f"shard durations not published: {exc}")
            return
        cache.flush()
        stored = cache.counts().uploaded > 0
    if stored:
        _say(f"shard durations of {len(durations)} pairs published ({digest[:12]})")


def _say(text: str) -> None:
    print(for_stream(text, sys.stderr), file=sys.stderr)


def _warn(text: str) -> None:
    print(for_stream(f"WARNING: {text}", sys.stderr), file=sys.stderr)
