"""Test doubles and process helpers shared by the compile server tests."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

FAKE_SERVER = Path(__file__).with_name("fake_asc_server.mjs")


def require_node() -> str:
    """The compile server is a Node program: without Node these tests cannot say anything."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; the compile server tests need Node.js", pytrace=False)
    return node


def is_running(pid: int) -> bool:
    """Alive and not a zombie (an exited child nobody reaped yet has stopped running)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    if state not in {"Z", "X"}:
        return True
    # A killed multi-threaded process (Node) shows its leader as a zombie while its other threads
    # are still exiting; until they are gone it cannot be reaped, and its pipes are still open.
    try:
        return len(list(Path(f"/proc/{pid}/task").iterdir())) > 1
    except OSError:
        return False


def wait_until_gone(pid: int, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not is_running(pid):
            return True
        time.sleep(0.02)
    return not is_running(pid)


def processes_mentioning(text: str) -> list[int]:
    """Running processes whose command line contains ``text`` (a test's unique tmp path)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline and is_running(int(entry.name)):
            found.append(int(entry.name))
    return found
