"""The local HTTP server behind web specs: serves the session's page, the worker, and each
spec's wasm and bindings helper from 127.0.0.1 on an ephemeral port, and relays each spec's
stdout and stdin to its WIPC channel.

Each run is known by an unguessable token, and its URLs live under ``/run/<token>/``. A worker
left over from a run that timed out finds its token gone and can no longer reach the next run's
channel.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import StderrBuffer

# A guest writes its frames one request each; anything near this is a flood, not a frame.
MAX_REQUEST_BYTES = 64 * 1024 * 1024
_ASSETS = {
    "/": ("page.html", "text/html; charset=utf-8"),
    "/worker.js": ("worker.js", "text/javascript"),
}


@dataclass
class WebExit:
    code: int
    kind: str  # "" (a clean end), "error" (a JS error, abort included) or "trap"
    message: str


@dataclass
class WebRun:
    """One spec's conversation with its page; the request threads and the run task share it."""

    wasm: Path
    helper: Path
    channel: ProtocolChannel
    stderr: StderrBuffer = field(default_factory=StderrBuffer)
    finished: threading.Event = field(default_factory=threading.Event)
    exit: WebExit | None = None
    problem: str | None = None  # what went wrong on our side of the relay, if anything
    lock: threading.Lock = field(default_factory=threading.Lock)

    def end(self, outcome: WebExit) -> None:
        with self.lock:
            if self.exit is None:
                self.exit = outcome
        self.finished.set()


class HarnessServer:
    """A threaded HTTP server on 127.0.0.1 that knows the runs currently in progress."""

    def __init__(self) -> None:
        self._runs: dict[str, WebRun] = {}
        self._runs_lock = threading.Lock()
        handler = type("_BoundHandler", (_Handler,), {"harness": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="astest-web-server", daemon=True
        )
        self._thread.start()

    @property
    def origin(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def register(self, run: WebRun) -> str:
        """Make the run reachable; returns the path its URLs start with (``/run/<token>``)."""
        token = secrets.token_urlsafe(16)
        with self._runs_lock:
            self._runs[token] = run
        return f"/run/{token}"

    def forget(self, base: str) -> None:
        token = base.rsplit("/", 1)[-1]
        with self._runs_lock:
            self._runs.pop(token, None)

    def run_for(self, token: str) -> WebRun | None:
        with self._runs_lock:
            return self._runs.get(token)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Handler(BaseHTTPRequestHandler):
    harness: HarnessServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out as two writes; with Nagle's algorithm the body then waits for a
    # delayed ACK, about 40 ms per request, and a spec makes one request per frame.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        pass  # a request log per frame would bury doit's output

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path in _ASSETS:
            name, content_type = _ASSETS[path]
            self._send(HTTPStatus.OK, _asset(name), content_type)
            return
        found = self._run_and_action(path)
        if found is None:
            return
        run, action = found
        if action == "spec.wasm":
            self._send_file(run.wasm, "application/wasm")
        elif action == "helper.js":
            self._send_file(run.helper, "text/javascript")
        else:
            self._send(HTTPStatus.NOT_FOUND, b"", "text/plain")

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        found = self._run_and_action(parts.path)
        body = self._read_body()
        if found is None or body is None:
            return
        run, action = found
        query = parse_qs(parts.query)
        reply = b""
        over_limit = False
        with run.lock:
            if action == "stdout":
                run.channel.write_stdout(body)
                over_limit = run.channel.over_limit
            elif action == "stderr":
                run.stderr.write(body)
            elif action == "stdin":
                reply = run.channel.read_stdin(max(0, _int(query.get("max", ["0"])[0])))
            elif action != "exit":
                self._send(HTTPStatus.NOT_FOUND, b"", "text/plain")
                return
        if over_limit:  # the verdict names the limit; the refused request stops the worker
            run.end(WebExit(1, "limit", "the output limit was passed"))  # outside run.lock
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, b"", "text/plain")
            return
        if action == "exit":
            kind = query.get("kind", [""])[0]
            message = body.decode("utf-8", errors="replace")
            run.end(WebExit(_int(query.get("code", ["1"])[0], default=1), kind, message))
        self._send(HTTPStatus.OK, reply, "application/octet-stream")

    # -- helpers ---------------------------------------------------------------------------------
    def _run_and_action(self, path: str) -> tuple[WebRun, str] | None:
        pieces = path.split("/")
        # "/run/<token>/<action>" splits into "", "run", token, action
        if len(pieces) == 4 and pieces[1] == "run":
            run = self.harness.run_for(pieces[2])
            if run is not None:
                return run, pieces[3]
        self.close_connection = True  # a POST body may still be unread
        self._send(HTTPStatus.GONE, b"no such run (it may have timed out)", "text/plain")
        return None

    def _read_body(self) -> bytes | None:
        length = _int(self.headers.get("Content-Length", "0"))
        if length > MAX_REQUEST_BYTES:
            self.close_connection = True  # its body stays unread: the connection cannot go on
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, b"", "text/plain")
            return None
        return self.rfile.read(length) if length > 0 else b""

    def _send_file(self, path: Path, content_type: str) -> None:
        try:
            data = path.read_bytes()
        except OSError:
            self._send(HTTPStatus.NOT_FOUND, b"", "text/plain")
            return
        self._send(HTTPStatus.OK, data, content_type)

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


def _asset(name: str) -> bytes:
    return resources.files("astest_tasks.run").joinpath("web_assets", name).read_bytes()


def _int(text: str, default: int = 0) -> int:
    try:
        return int(text)
    except ValueError:
        return default
