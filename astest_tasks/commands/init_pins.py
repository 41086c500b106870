"""Which as-test (and assemblyscript) ``astest init`` pins: the newest the user's registry serves
within the range astest-tasks is tested with.

A new project should start on today's as-test, not on the oldest one we test. npm is asked
which as-test versions the user's registry has (``npm view as-test versions --json``, with the
user's own npm config); the newest one from ``OLDEST_TESTED`` to ``NEWEST_TESTED`` wins, and the
assemblyscript pinned with it is the one that as-test generation works with: 0.28.14 before
as-test 1.0.13 (whose transform breaks silently on 0.28.17+), 0.28.20 from it (1.0.13 moved to
``^0.28.17``). When npm cannot answer (offline, refused, missing, garbled), the newest pair the
repository itself installs from the registry is pinned, and init says so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable

from astest_tasks.config.as_test_version import NEWEST_TESTED, OLDEST_TESTED, AsTestVersion
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json

WASI_SHIM = ("@assemblyscript/wasi-shim", "0.1.0")
NEW_ASSEMBLYSCRIPT_FROM = "1.0.13"  # as-test's package.json: assemblyscript ^0.28.17
OLD_ASSEMBLYSCRIPT = "0.28.14"  # the newest before 0.28.17 shifted the AST node numbers
NEW_ASSEMBLYSCRIPT = "0.28.20"
# Offline: the pair this repository's own package.json installs from the registry.
FALLBACK_AS_TEST = OLDEST_TESTED
NPM_TIMEOUT_S = 20.0


@frozen
class Pins:
    as_test: str
    assemblyscript: str
    note: str  # how they were chosen, one line for init to print

    @property
    def npm_packages(self) -> tuple[tuple[str, str], ...]:
        return (WASI_SHIM, ("as-test", self.as_test), ("assemblyscript", self.assemblyscript))


def assemblyscript_for(as_test: str) -> str:
    if AsTestVersion.parse(as_test).at_least(NEW_ASSEMBLYSCRIPT_FROM):
        return NEW_ASSEMBLYSCRIPT
    return OLD_ASSEMBLYSCRIPT


def newest_tested(served: Iterable[str]) -> str | None:
    """The newest plain release in the tested range among ``served``; None when none is."""
    low, high = AsTestVersion.parse(OLDEST_TESTED), AsTestVersion.parse(NEWEST_TESTED)
    candidates = [
        AsTestVersion.parse(text)
        for text in served
        if text.replace(".", "").isdigit() and text.count(".") == 2  # no pre-releases
    ]
    in_range = [v for v in candidates if low <= v <= high]
    return max(in_range).text if in_range else None


def choose_pins(served: list[str] | None, why_not: str = "") -> Pins:
    """The pins for ``served`` (npm's answer; None when there was none, ``why_not`` says why)."""
    if served is None:
        return _fallback(f"npm did not say which as-test versions your registry has ({why_not})")
    chosen = newest_tested(served)
    if chosen is None:
        return _fallback(
            f"your registry has no as-test from {OLDEST_TESTED} to {NEWEST_TESTED}, the versions "
            "astest-tasks is tested with"
        )
    return Pins(
        chosen,
        assemblyscript_for(chosen),
        f"as-test {chosen}: the newest your registry has of those astest-tasks is tested with "
        f"({OLDEST_TESTED} to {NEWEST_TESTED})",
    )


def _fallback(reason: str) -> Pins:
    return Pins(
        FALLBACK_AS_TEST,
        assemblyscript_for(FALLBACK_AS_TEST),
        f"as-test {FALLBACK_AS_TEST}: {reason}; change package.json to pin another",
    )


def served_versions() -> tuple[list[str] | None, str]:
    """npm's list of as-test versions, or None and why not."""
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm is not on PATH"
    try:
        done = subprocess.run(
            [npm, "view", "as-test", "versions", "--json"],
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"npm view failed: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"npm view exited {done.returncode}: {last}"
    try:
        answer = parse_json(done.stdout)
    except json.JSONDecodeError:
        return None, "npm view's answer is not JSON"
    versions = [answer] if isinstance(answer, str) else answer
    if not isinstance(versions, list) or not all(isinstance(v, str) for v in versions):
        return None, "npm view's answer is not a list of versions"
    return versions, ""


def pins_from_registry() -> Pins:
    served, why_not = served_versions()
    return choose_pins(served, why_not)
