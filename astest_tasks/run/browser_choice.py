"""Which Chromium a web mode runs in: the executable found for the name asked, and whether it
shows a window. Planning needs this (a run task's key names the executable) without the
browser session itself (browser_session.py), which brings threads and Playwright's plumbing.
"""

from __future__ import annotations

import os
import shutil

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen

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
    "(`pip install 'astest-tasks[web]'`), or point runOptions.runtime.browser at a Chromium "
    "executable; a BROWSER environment variable wins over the config, so unset it or set it to "
    "chromium if it names another browser"
)


@frozen
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


def first_line(value: object) -> str:
    """The first line of a message: Playwright's errors go on with a multi-line call log."""
    text = str(value).strip()
    return text.splitlines()[0] if text else ""


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
