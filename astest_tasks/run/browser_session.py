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
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FuturesTimeout
from multiprocessing import util as multiprocessing_util
from typing import Any, TypeVar

from astest_tasks.core.errors import UserError
from astest_tasks.run.browser_choice import (
    CHROMIUM_FLAGS,
    INSTALL_HINT,
    BrowserChoice,
    first_line,
)

# A call on the browser's thread that takes longer is given up: opening the page and starting a
# worker take well under a second, and a spec's own time is measured apart.
CALL_TIMEOUT_S = 30.0

_T = TypeVar("_T")


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

    def call(self, work: Callable[[Any], _T], timeout_s: float = CALL_TIMEOUT_S) -> _T:
        """Run ``work(browser)`` on the browser's thread; raises TimeoutError past
        ``timeout_s`` (the work may still finish later) and RuntimeError if the thread is gone."""
        future: Future[_T] = Future()
        self._work.put((work, future))
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                return future.result(timeout=min(1.0, max(0.0, deadline - time.monotonic())))
            except FuturesTimeout:
                # Never wait on a thread that is gone: its queue has no one to serve it.
                if not self._thread.is_alive() and not future.done():
                    raise RuntimeError("the browser's thread has ended") from None
                if time.monotonic() >= deadline:
                    raise TimeoutError(
                        f"the browser did not answer within {timeout_s:g} s"
                    ) from None

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
            self._started.set_exception(
                UserError(
                    f"could not start {self.choice.executable} as Chromium: "
                    f"{first_line(exc) or repr(exc)}; fix: {INSTALL_HINT}"
                )
            )
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


_sessions: dict[BrowserChoice, BrowserSession] = {}
_failed_launches: dict[BrowserChoice, UserError] = {}  # a browser that would not start
_sessions_pid = os.getpid()
_sessions_lock = threading.Lock()
_closers_registered = False


def shared_session(choice: BrowserChoice) -> BrowserSession:
    """This process's browser session for ``choice``, started on first use.

    One per choice, so two web modes with different browsers (or one headful) each keep theirs
    and never close one that another thread is using. A browser that failed to start is not
    tried again for every spec: each gets the same error at once.
    """
    global _sessions_pid, _closers_registered
    with _sessions_lock:
        if _sessions_pid != os.getpid():
            # Inherited through fork: the threads and browsers are the parent's.
            _sessions.clear()
            _failed_launches.clear()
            _sessions_pid = os.getpid()
        if choice in _failed_launches:
            raise _failed_launches[choice]
        session = _sessions.get(choice)
        if session is None:
            try:
                session = BrowserSession(choice)
            except UserError as exc:
                _failed_launches[choice] = exc
                raise
            _sessions[choice] = session
            if not _closers_registered:
                atexit.register(close_shared_sessions)
                # doit's -n workers leave through os._exit, skipping atexit; these finalizers run.
                multiprocessing_util.Finalize(None, close_shared_sessions, exitpriority=10)
                _closers_registered = True
        return session


def close_shared_sessions() -> None:
    with _sessions_lock:
        if _sessions_pid == os.getpid():
            for session in _sessions.values():
                session.close()
        _sessions.clear()
