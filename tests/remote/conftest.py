"""The real nginx WebDAV server of the remote-cache tests (tests/nginx_cache.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.nginx_cache import CacheServer, NginxMissing, running_nginx


@pytest.fixture
def cache_server(tmp_path: Path) -> Iterator[CacheServer]:
    try:
        with running_nginx(tmp_path / "nginx") as server:
            yield server
    except NginxMissing as exc:
        pytest.fail(str(exc))
