"""A real HTTP cache server for the remote-cache tests and the remote-cache benchmark: Debian's
nginx with WebDAV, the set-up docs/remote-cache.md shows users, on a free loopback port in a
folder of the caller's, stopped by its pid. nginx runs as one process (``master_process off``) in
the foreground, so it never changes user and nothing of it outlives the test (or the bench)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

NGINX = Path("/usr/sbin/nginx")
START_TIMEOUT = 10.0
PASSWORD = "s3cret-pa55"
TOKEN = "qu3ry-t0ken"

# /cache/: reads and writes; /readonly/: the same files, writes refused as for a pull request;
# /tokened/: the same files, every request without the query ``token=TOKEN`` answered 403;
# /full/: writes answered 507 as by a full WebDAV disk; /small/: bodies over 1 kB answered
# 413; /private/: reads and writes for the user ``ci`` with ``PASSWORD`` only; /broken/: every
# answer a 500; /garbage/: every answer 200 with bytes that are no entry or blob.
_CONFIG = """\
daemon off;
master_process off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log {root}/access.log;
    client_body_temp_path {root}/temp/body;
    proxy_temp_path {root}/temp/proxy;
    fastcgi_temp_path {root}/temp/fastcgi;
    uwsgi_temp_path {root}/temp/uwsgi;
    scgi_temp_path {root}/temp/scgi;
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 0;
        root {root}/data;
        location /cache/ {{
            dav_methods PUT;
            create_full_put_path on;
        }}
        location /readonly/ {{
            alias {root}/data/cache/;
            limit_except GET HEAD {{ deny all; }}
        }}
        location /full/ {{
            alias {root}/data/cache/;
            if ($request_method = PUT) {{ return 507; }}
        }}
        location /small/ {{
            alias {root}/data/cache/;
            dav_methods PUT;
            client_max_body_size 1k;
        }}
        location /private/ {{
            alias {root}/data/cache/;
            dav_methods PUT;
            create_full_put_path on;
            auth_basic "astest cache";
            auth_basic_user_file {root}/htpasswd;
        }}
        location /tokened/ {{
            alias {root}/data/cache/;
            dav_methods PUT;
            create_full_put_path on;
            if ($arg_token != "{token}") {{ return 403; }}
        }}
        location /broken/ {{ return 500; }}
        location /garbage/ {{ return 200 "not what you asked for"; }}
    }}
}}
"""


@dataclass(frozen=True)
class CacheServer:
    root: Path
    port: int
    pid: int

    def url(self, location: str = "cache") -> str:
        return f"http://127.0.0.1:{self.port}/{location}"

    @property
    def stored(self) -> Path:
        """Where nginx keeps the files of ``/cache/`` (and ``/readonly/``)."""
        return self.root / "data" / "cache"

    def access_log(self, until: str) -> list[str]:
        """The access log's lines once one holds ``until`` (e.g. ``"GET /cache/ac/"``): nginx
        writes a request's line just after sending the answer, so the client may read the log
        before that. Being one process, nginx has logged every earlier request by then."""
        log = self.root / "access.log"
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
            if any(until in line for line in lines):
                return lines
            time.sleep(0.01)
        raise AssertionError(f"nginx logged no request {until!r} within {START_TIMEOUT} s")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_listening(process: subprocess.Popen[bytes], port: int, root: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log = (root / "error.log").read_text(encoding="utf-8", errors="replace")
            raise RuntimeError(f"nginx exited with {process.returncode}:\n{log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)  # polling the port: nginx gives no other sign that it listens
    raise RuntimeError(f"nginx did not listen on port {port} within {START_TIMEOUT} s")


class NginxMissing(RuntimeError):
    """Debian's nginx is not installed here; the message says how to get it."""


def nginx_binary() -> str:
    if NGINX.exists():
        return str(NGINX)
    found = shutil.which("nginx")
    if found is None:
        raise NginxMissing(
            "the remote-cache tests need Debian's nginx (/usr/sbin/nginx); "
            "fix: run .ci/run, which installs it, or `apt-get install -y nginx`"
        )
    return found


@contextmanager
def running_nginx(root: Path) -> Iterator[CacheServer]:
    """nginx serving the locations above from ``root`` (made here), until the block ends."""
    binary = nginx_binary()
    for folder in ("data/cache", "temp"):
        (root / folder).mkdir(parents=True)
    (root / "htpasswd").write_text(f"ci:{{PLAIN}}{PASSWORD}\n", encoding="utf-8")
    port = free_port()
    config = root / "nginx.conf"
    config.write_text(_CONFIG.format(root=root, port=port, token=TOKEN), encoding="utf-8")
    # -e: the error log before the config is read (the default is /var/log/nginx, not ours).
    process = subprocess.Popen(
        [binary, "-p", str(root), "-c", str(config), "-e", str(root / "error.log")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_until_listening(process, port, root)
        yield CacheServer(root=root, port=port, pid=process.pid)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
