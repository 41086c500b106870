"""Run one web spec: a fresh page of this process's browser session, relayed to a WIPC channel.

The page loads the spec's wasm and its raw bindings helper in a worker (``web_assets``); the
spec's stdout and stdin travel as requests to ``web_server``. A spec that hangs is stopped by
closing its page, and one that crashes its page fails; either way the browser stays up for the
next spec.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path
from typing import Any

from astest_tasks.browser_session import BrowserChoice, has_display, shared_session
from astest_tasks.channel import ProtocolChannel
from astest_tasks.errors import UserError
from astest_tasks.guest_run import GuestRun
from astest_tasks.web_server import HarnessServer, WebExit, WebRun

# How often a waiting run asks whether its page is still alive (Playwright reports a crashed
# page only when asked).
LIVENESS_PROBE_S = 0.5
NO_DISPLAY_NOTE = (
    "a headful browser was asked for, but there is no display (DISPLAY and WAYLAND_DISPLAY are "
    "unset), so the spec ran headless; run under a desktop session or xvfb-run to see the window"
)

_server: HarnessServer | None = None
_server_pid = 0
_server_lock = threading.Lock()


def browser_choice(executable: str, headful: bool) -> tuple[BrowserChoice, str | None]:
    """The browser to use, and a note when a headful request falls back to headless."""
    if headful and not has_display():
        return BrowserChoice(executable, headless=True), NO_DISPLAY_NOTE
    return BrowserChoice(executable, headless=not headful), None


def run_in_browser(
    wasm: Path, channel: ProtocolChannel, timeout_s: float, choice: BrowserChoice
) -> GuestRun:
    started = time.perf_counter()
    helper = wasm.with_suffix(".js")
    if not helper.is_file():
        return GuestRun.not_started(
            f"the bindings helper {helper.name} that asc writes beside the wasm is missing; "
            "rebuild the spec",
            started,
        )
    try:
        session = shared_session(choice)
    except UserError as exc:
        return GuestRun.not_started(str(exc), started)
    server = _shared_server()
    run = WebRun(wasm=wasm, helper=helper, channel=channel)
    url = server.register(run)
    page: Any = None
    try:
        page = session.call(lambda browser: _open_page(browser, url))
        finished = _wait(run, session, page, started + timeout_s)
    except Exception as exc:  # Playwright raises plain Exceptions
        run.end(WebExit(1, "crash", f"the spec's page failed: {exc}"))
        finished = True
    finally:
        server.forget(url)  # a page left running can no longer reach this channel
        if page is not None:
            _close_quietly(session, page)
    elapsed = time.perf_counter() - started
    return _guest_run(run, finished, elapsed)


def _open_page(browser: Any, url: str) -> Any:
    page = browser.new_page()
    page.goto(url, wait_until="commit")
    return page


def _wait(run: WebRun, session: Any, page: Any, deadline: float) -> bool:
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return False
        if run.finished.wait(min(LIVENESS_PROBE_S, remaining)):
            return True
        try:
            session.call(lambda _browser: page.evaluate("1"))
        except Exception as exc:
            run.end(WebExit(1, "crash", f"the spec's page crashed: {_first_line(exc)}"))
            return True


def _close_quietly(session: Any, page: Any) -> None:
    # A crashed page, or a dead browser, is already closed.
    with contextlib.suppress(Exception):
        session.call(lambda _browser: page.close(run_before_unload=False))


def _guest_run(run: WebRun, finished: bool, elapsed: float) -> GuestRun:
    stderr = run.stderr.text
    if not finished:
        return GuestRun(exit_code=1, stderr=stderr, elapsed_s=elapsed, timed_out=True)
    outcome = run.exit or WebExit(1, "crash", "the page ended without a word")
    if outcome.code == 0:
        return GuestRun(exit_code=0, stderr=stderr, elapsed_s=elapsed)
    if outcome.kind == "trap":
        return GuestRun(
            exit_code=1, stderr=stderr, elapsed_s=elapsed, trap=_first_line(outcome.message)
        )
    text = outcome.message if outcome.message.endswith("\n") else outcome.message + "\n"
    return GuestRun(exit_code=outcome.code or 1, stderr=stderr + text, elapsed_s=elapsed)


def _first_line(value: object) -> str:
    text = str(value).strip()
    return text.splitlines()[0] if text else ""


def _shared_server() -> HarnessServer:
    global _server, _server_pid
    with _server_lock:
        if _server is None or _server_pid != os.getpid():
            _server = HarnessServer()
            _server_pid = os.getpid()
        return _server
