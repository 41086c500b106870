"""The web runtime: each spec of a web mode in a worker of this process's browser session,
relayed to a WIPC channel.

The session's page (``web_assets/page.html``) starts a worker per spec, which loads the spec's
wasm and its raw bindings helper; the spec's stdout and stdin travel as requests to
``web_server``. A spec that hangs is stopped by terminating its worker, and one that crashes the
page fails, the next spec getting a fresh page; either way the browser stays up.

The harness server (``web_server``, which needs ``http.server``) is imported when a spec runs:
the tasks of a no-op doit name this runtime but run nothing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.run.browser_choice import BrowserChoice, find_chromium, first_line, has_display
from astest_tasks.run.runtime import RuntimeDefaults
from astest_tasks.run.runtime_request import RuntimeRequest

if TYPE_CHECKING:
    from astest_tasks.run.channel import ProtocolChannel
    from astest_tasks.run.guest_run import GuestRun
    from astest_tasks.run.runtime import RunnableSpec, SpecLimits
    from astest_tasks.run.web_server import HarnessServer, WebRun

# How often a waiting run asks whether its page is still alive (Playwright reports a crashed
# page only when asked).
LIVENESS_PROBE_S = 0.5
PROBE_TIMEOUT_S = 5.0  # a page that takes longer to answer "1" is treated as hung
NO_DISPLAY_NOTE = (
    "a headful browser was asked for, but there is no display (DISPLAY and WAYLAND_DISPLAY are "
    "unset), so the spec ran headless; run under a desktop session or xvfb-run to see the window"
)

_server: HarnessServer | None = None
_server_pid = 0
_server_lock = threading.Lock()


@frozen
class BrowserRuntime(RuntimeDefaults):
    """The web target: each spec in a page of the Chromium that the run task's process keeps."""

    browser: str  # --browser, BROWSER or runOptions.runtime.browser; "" = the default Chromium
    headful: bool  # --headful, or as-test's stock web command without --headless: show a window
    executable: str = ""  # the Chromium that `browser` found when the tasks were made

    @classmethod
    def claim(cls, request: RuntimeRequest) -> BrowserRuntime | None:
        """A web mode with no command, or with as-test's stock web runner named where its file is
        missing (as-test would write it; this is our equivalent). Located when asked: the run
        tasks' key names the executable."""
        if request.target != "web":
            return None
        if not request.has_command:
            runtime = cls(request.browser, headful=request.headful)
        elif request.names_missing_stock_runner:
            # as-test opens a window unless told --headless; we keep its meaning.
            headful = request.headful or "--headless" not in request.tokens[2:]
            runtime = cls(request.browser, headful=headful)
        else:
            return None
        return runtime.located() if request.locate else runtime

    @property
    def description(self) -> str:
        return f"browser {self.browser or 'chromium'} ({self.executable or 'not found'})"

    @property
    def cache_key(self) -> str:
        # Which executable runs the specs is in the key, so switching browsers re-runs them;
        # headful or headless does not change a result and stays out.
        return self.description

    @property
    def runs_in_any_process(self) -> bool:
        return False  # its warm browser belongs to the run task's process (browser_session.py)

    def input_files(self, project_root: Path) -> list[str]:
        return []  # the page and worker ship with astest-tasks, whose version is in the key

    def located(self) -> BrowserRuntime:
        """This runtime with the executable its browser names on this machine. Without one it
        stays unfound: each web spec then fails with the reason when it runs, the rest go on."""
        with contextlib.suppress(UserError):
            return replace(self, executable=find_chromium(self.browser))
        return self

    def doctor_checks(self, project_root: Path, scope: str) -> list[Check]:
        """The browser is found, and Playwright, which drives it, is installed."""
        try:
            checks = [Check(Level.OK, scope, f"runtime: browser {find_chromium(self.browser)}")]
        except UserError as exc:
            detail, _, fix = str(exc).partition("; fix: ")
            checks = [Check(Level.ERROR, scope, detail, fix)]
        if importlib.util.find_spec("playwright") is None:
            checks.append(
                Check(
                    Level.ERROR,
                    scope,
                    "web modes drive Chromium through Playwright, which is not installed",
                    "pip install 'astest-tasks[web]'",
                )
            )
        else:
            checks.append(Check(Level.OK, scope, "Playwright is installed"))
        return checks

    def run(self, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits) -> GuestRun:
        # What running needs loads when a spec runs, not with every call's runtimes (issue 40).
        from astest_tasks.run.guest_run import GuestRun

        started = time.perf_counter()
        try:
            # The executable found when the tasks were made, which is the one in the run key; the
            # name as asked when none was found, so the run can say why.
            executable = find_chromium(self.executable or self.browser)
        except UserError as exc:
            return GuestRun.not_started(str(exc), started)
        choice, note = browser_choice(executable, self.headful)
        if note is not None:
            channel.warnings.append(note)
        wasm = spec.project_root / spec.wasm_path
        return run_in_browser(wasm, channel, limits.timeout_s, choice)


def browser_choice(executable: str, headful: bool) -> tuple[BrowserChoice, str | None]:
    """The browser to use, and a note when a headful request falls back to headless."""
    if headful and not has_display():
        return BrowserChoice(executable, headless=True), NO_DISPLAY_NOTE
    return BrowserChoice(executable, headless=not headful), None


def run_in_browser(
    wasm: Path, channel: ProtocolChannel, timeout_s: float, choice: BrowserChoice
) -> GuestRun:
    # The session and its server are the run's, loaded when a web spec runs, not when one is
    # planned.
    from astest_tasks.run.browser_session import shared_session
    from astest_tasks.run.guest_run import GuestRun
    from astest_tasks.run.web_server import WebExit, WebRun

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
    host = _spec_host(session, server.origin)
    run = WebRun(wasm=wasm, helper=helper, channel=channel)
    base = server.register(run)
    page: Any = None
    # The spec's time starts once its worker does: starting Chromium, or waiting for the browser
    # thread behind other specs, is not the spec's to pay for.
    spec_started = started
    try:
        page = session.call(lambda browser: host.start(browser, base))
        spec_started = time.perf_counter()
        finished = _wait(run, session, page, spec_started + timeout_s)
    except Exception as exc:  # Playwright raises plain Exceptions
        run.end(WebExit(1, "crash", f"the spec's page failed: {first_line(exc)}"))
        finished = True
    finally:
        server.forget(base)  # a worker left running can no longer reach this channel
    if page is not None and (not finished or run.exit is None or run.exit.code != 0):
        _stop_worker(session, host, page, base)
    return _guest_run(run, finished, time.perf_counter() - spec_started)


START_SPEC = "base => window.astestStart(base)"
STOP_SPEC = "base => window.astestStop(base)"


class _SpecHost:
    """The page of a browser session in which each spec runs, in a worker of its own.

    One page for every spec saves opening one per spec (about 0.2 s each). A page that crashes
    is replaced by a fresh one, and only the specs that ran on it fail: each run remembers its
    page. Touched on the browser's thread only.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._page: Any = None

    def start(self, browser: Any, base: str) -> Any:
        """Start the spec's worker; returns the page it runs on."""
        page = self._current(browser)
        try:
            page.evaluate(START_SPEC, base)
        except Exception:
            # A page that crashed after the last spec is not closed, just dead: the first call
            # tells. Its successor gets one try.
            self.discard(page)
            page = self._current(browser)
            page.evaluate(START_SPEC, base)
        return page

    def discard(self, page: Any) -> None:
        """Drop a broken page, unless a fresh one has replaced it already."""
        if page is self._page:
            self._page = None
        with contextlib.suppress(Exception):  # a crashed page is closed already
            page.close(run_before_unload=False)

    def _current(self, browser: Any) -> Any:
        page = self._page
        if page is None or page.is_closed() or page.context.browser is not browser:
            page = browser.new_page()
            page.goto(self.url)
            self._page = page
        return page


def _spec_host(session: Any, origin: str) -> _SpecHost:
    host = session.extras.get("spec_host")
    if not isinstance(host, _SpecHost) or host.url != origin + "/":
        host = _SpecHost(origin + "/")
        session.extras["spec_host"] = host
    return host


def _wait(run: WebRun, session: Any, page: Any, deadline: float) -> bool:
    """Wait for the spec's exit until the deadline, checking that its page is alive."""
    from astest_tasks.run.web_server import WebExit

    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return False
        if run.finished.wait(min(LIVENESS_PROBE_S, remaining)):
            return True
        try:
            session.call(lambda _browser: page.evaluate("1"), timeout_s=PROBE_TIMEOUT_S)
        except TimeoutError:
            continue  # a slow answer is not a crash; the deadline still applies
        except Exception as exc:
            run.end(WebExit(1, "crash", f"the spec's page crashed: {first_line(exc)}"))
            return True


def _stop_worker(session: Any, host: _SpecHost, page: Any, base: str) -> None:
    """Terminate a worker that may still be running (it hangs, or it failed half-way)."""
    try:
        session.call(lambda _browser: page.evaluate(STOP_SPEC, base), timeout_s=PROBE_TIMEOUT_S)
    except Exception:  # the page itself is broken: the next spec gets a fresh one
        with contextlib.suppress(Exception):
            session.call(lambda _browser: host.discard(page), timeout_s=PROBE_TIMEOUT_S)


def _guest_run(run: WebRun, finished: bool, elapsed: float) -> GuestRun:
    from astest_tasks.run.guest_run import GuestRun
    from astest_tasks.run.web_server import WebExit

    stderr = run.stderr.text
    if not finished:
        return GuestRun(exit_code=1, stderr=stderr, elapsed_s=elapsed, timed_out=True)
    outcome = run.exit or WebExit(1, "crash", "the page ended without a word")
    if outcome.code == 0:
        return GuestRun(exit_code=0, stderr=stderr, elapsed_s=elapsed)
    if outcome.kind == "trap":
        return GuestRun(
            exit_code=1, stderr=stderr, elapsed_s=elapsed, trap=first_line(outcome.message)
        )
    text = outcome.message if outcome.message.endswith("\n") else outcome.message + "\n"
    return GuestRun(exit_code=outcome.code or 1, stderr=stderr + text, elapsed_s=elapsed)


def _shared_server() -> HarnessServer:
    global _server, _server_pid
    from astest_tasks.run.web_server import HarnessServer

    with _server_lock:
        if _server is None or _server_pid != os.getpid():
            _server = HarnessServer()
            _server_pid = os.getpid()
        return _server
