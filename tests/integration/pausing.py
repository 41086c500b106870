"""Start doit so that it stops at an exact point of its run, for tests that signal it there.

Sending a signal some seconds into a run hits whatever the process happens to be doing on the
machine of the day; these tests instead name the point and wait for the process to report that it
is there (pause_hook/sitecustomize.py does the stopping).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.integration.conftest import Project

HOOK = Path(__file__).resolve().parent / "pause_hook"
# Ceilings for a broken test, not timings a test relies on.
REACH_LIMIT_S = 600.0
END_LIMIT_S = 120.0


@dataclass(frozen=True)
class PausePoint:
    """``kind`` "fsync": mid-write of the ``nth`` file whose path matches the glob ``target``
    (after its data is synced to the temporary file, before the rename); ``kind`` "call": on
    entering the ``nth`` call of ``target``, "module:Class.method"."""

    kind: str
    target: str
    nth: int = 1

    def __str__(self) -> str:
        return f"{self.kind} {self.target} #{self.nth}"


@dataclass(frozen=True)
class Paused:
    proc: subprocess.Popen[str]
    output: Path  # doit's stdout and stderr


def start_paused(
    project: Project,
    point: PausePoint,
    *args: str,
    env: dict[str, str] | None = None,
    cpus: set[int] | None = None,
    new_session: bool = False,
) -> Paused:
    """doit in the background, returned once it waits at ``point``; fails the test if the run
    ends without reaching it. ``cpus``, ``new_session``: as ``Project.start_doit``'s."""
    marker = project.root.parent / f".paused-{project.root.name}"
    marker.unlink(missing_ok=True)
    description = {"kind": point.kind, "target": point.target, "nth": point.nth}
    hooked = {
        "ASTEST_TEST_PAUSE": json.dumps({**description, "marker": str(marker)}),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HOOK), os.environ.get("PYTHONPATH")])),
    }
    output = project.root.parent / f"paused-{project.root.name}.out"
    with output.open("w") as sink:
        proc = project.start_doit(
            *args,
            env={**(env or {}), **hooked},
            stdout=sink,
            stderr=sink,
            cpus=cpus,
            new_session=new_session,
        )
    deadline = time.monotonic() + REACH_LIMIT_S
    while not marker.exists():
        if proc.poll() is not None:
            raise AssertionError(
                f"doit ended (exit {proc.returncode}) before reaching {point}:\n"
                + output.read_text()
            )
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise AssertionError(f"doit did not reach {point} in {REACH_LIMIT_S:.0f} s")
        time.sleep(0.05)
    return Paused(proc, output)


def stop(paused: Paused, sig: int, to_group: bool = False) -> int:
    """Send ``sig`` (to the process group it leads, as a terminal's Ctrl-C: ``to_group``; it
    was started in a session of its own) and wait for the process to end; returns its exit
    code. One that does not end is asked for its threads' stacks (pause_hook registers them on
    SIGUSR1), then killed."""
    proc = paused.proc
    if to_group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    try:
        return proc.wait(END_LIMIT_S)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)
        raise AssertionError(
            f"doit did not end within {END_LIMIT_S:.0f} s of {signal.Signals(sig).name}:\n"
            + paused.output.read_text()
        ) from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
