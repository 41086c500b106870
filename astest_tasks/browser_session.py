"""One Chromium per doit process, started by the first web spec and kept for the rest.

Playwright's synchronous API must be used from the thread that started it, while doit may run
tasks on several threads (``-P thread``); so the browser lives on a thread of its own, and other
threads hand it work through a queue. It is closed when the process ends: at exit in doit's own
process, and through multiprocessing's finalizers in its ``-n`` worker processes, which skip
atexit. Should the process die without either, Playwright's driver sees its pipe close and takes
the browser down with it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import shutil
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import dataclass
from multiprocessing import util as multiprocessing_util
from typing import Any, TypeVar

from astest_tasks.errors import UserError

# Flags from the machine notes: without the background-networking ones, Chromium tries to reach
# Google's hosts at every start, which a closed network refuses many times over.
CHROMIUM_FLAGS = (
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-gpu",
)
KNOWN_CHROMIUMS = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
)
OTHER_BROWSERS = ("firefox", "webkit", "safari")
INSTALL_HINT = (
    "install Chromium (Debian/Ubuntu: `sudo apt-get install chromium`) and Playwright for Python "
    "(`pip install 'astest-tasks[web]'`), or point runOptions.runtime.browser or BROWSER at a "
    "Chromium executable"
)
PAGE_CLOSE_TIMEOUT_MS = 5000

_T = TypeVar("_T")


@dataclass(frozen=True)
class BrowserChoice:
    executable: str
    headless: bool


def find_chromium(requested: str) -> str:
    """The Chromium executable for ``requested`` (a name, a path or "" for the default)."""
    name = requested.strip()
    lowered = name.lower().split(":", 1)[0]
    if lowered in OTHER_BROWSERS:
        raise UserError(
            f"web specs run in Chromium; {name!r} is not supported (Playwright's Firefox and "
            "WebKit need browser builds of their own); fix: set runOptions.runtime.browser or "
            "BROWSER to chromium or a Chromium executable"
        )
    if lowered in ("", "chromium", "chrome", "chromium-browser", "google-chrome"):
        for candidate in KNOWN_CHROMIUMS:
            found = shutil.which(candidate)
            if found:
                return found
        raise UserError(f"no Chromium found on PATH for the web target; fix: {INSTALL_HINT}")
    found = shutil.which(name) or (name if os.access(name, os.X_OK) else None)
    if found is None:
        raise UserError(f"the browser {name!r} is not an executable; fix: {INSTALL_HINT}")
    return found


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class BrowserSession:
    """A browser on its own thread; ``call`` runs a function there with the browser at hand."""

    def __init__(self, choice: BrowserChoice) -> None:
        self.choice = choice
        self.pid = os.getpid()
        self.launches = 0
        # State its users keep with the session (such as their page); browser thread only.
        self.extras: dict[str, Any] = {}
        self._work: queue.Queue[tuple[Callable[[Any], Any], Future[Any]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, name="astest-browser", daemon=True)
        self._started = Future[None]()
        self._thread.start()
        self._started.result()  # raises what the launch raised

    def call(self, work: Callable[[Any], _T]) -> _T:
        future: Future[_T] = Future()
        self._work.put((work, future))
        while True:
            try:
                return future.result(timeout=1.0)
            except FuturesTimeout:
                # Never wait on a thread that is gone: its queue has no one to serve it.
                if not self._thread.is_alive() and not future.done():
                    raise RuntimeError("the browser's thread has ended") from None

    def close(self) -> None:
        if self._thread.is_alive():
            self._work.put(None)
            self._thread.join(10)

    # -- the browser's thread --------------------------------------------------------------------
    def _serve(self) -> None:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            self._started.set_exception(
                UserError(f"Playwright for Python is not installed; fix: {INSTALL_HINT}")
            )
            return
        try:
            manager = sync_playwright().start()
            browser = self._launch(manager)
        except Exception as exc:  # Playwright's errors are plain Exceptions with a message
            self._started.set_exception(UserError(f"could not start Chromium: {exc}"))
            return
        self._started.set_result(None)
        try:
            while (item := self._work.get()) is not None:
                work, future = item
                try:
                    future.set_result(work(browser))
                except BaseException as exc:  # handed to the caller's thread
                    # Playwright learns that the browser died only when a call fails.
                    if browser.is_connected() or self.launches >= 2:
                        future.set_exception(exc)
                        continue
                    relaunched = self._relaunch(manager, future)  # once, then given up
                    if relaunched is not None:
                        browser = relaunched
                        self._retry(work, browser, future)
        finally:
            for shutdown in (browser.close, manager.stop):
                with contextlib.suppress(Exception):  # closing down: a dead browser is fine
                    shutdown()

    def _launch(self, manager: Any) -> Any:
        self.launches += 1
        browser = manager.chromium.launch(
            executable_path=self.choice.executable,
            headless=self.choice.headless,
            # root has no user namespace sandbox in containers; Playwright adds --no-sandbox
            # only in headless mode.
            chromium_sandbox=False,
            args=list(CHROMIUM_FLAGS),
        )
        how = "headless" if self.choice.headless else "with a window"
        again = " again" if self.launches > 1 else ""
        # One line per launch on stderr: shows that the session is shared, and which browser ran.
        sys.stderr.write(
            f"astest: started Chromium {browser.version}{again} ({how}) for the web specs of "
            f"this process: {self.choice.executable}\n"
        )
        sys.stderr.flush()
        return browser

    @staticmethod
    def _retry(work: Callable[[Any], Any], browser: Any, future: Future[Any]) -> None:
        try:
            future.set_result(work(browser))
        except BaseException as exc:
            future.set_exception(exc)

    def _relaunch(self, manager: Any, waiting: Future[Any]) -> Any:
        try:
            return self._launch(manager)
        except Exception as exc:
            waiting.set_exception(UserError(f"Chromium died and could not be restarted: {exc}"))
            return None


_session: BrowserSession | None = None
_session_lock = threading.Lock()


def shared_session(choice: BrowserChoice) -> BrowserSession:
    """This process's browser session, started on first use; a different choice replaces it."""
    global _session
    with _session_lock:
        if _session is not None and _session.pid != os.getpid():
            _session = None  # inherited through fork: its thread and browser are the parent's
        if _session is not None and _session.choice != choice:
            _session.close()
            _session = None
        if _session is None:
            _session = BrowserSession(choice)
            atexit.register(close_shared_session)
            # doit's -n workers leave through os._exit, skipping atexit; these finalizers run.
            multiprocessing_util.Finalize(None, close_shared_session, exitpriority=10)
        return _session


def close_shared_session() -> None:
    global _session
    with _session_lock:
        if _session is not None and _session.pid == os.getpid():
            _session.close()
            _session = None
