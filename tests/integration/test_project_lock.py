"""Two doit processes on one project: the second is told the first holds it, and reading
commands still work meanwhile; a doit that is gone, however it went, holds nothing."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.integration.conftest import (
    DoitRun,
    Project,
    clone_project,
    copy_project,
    edit_every_spec,
)
from tests.integration.pausing import PausePoint, start_paused
from tests.process_tree import command_line, descendants, wait_until_ended

pytestmark = pytest.mark.integration


def test_a_second_doit_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    project = copy_project("failing", tmp_path)
    config_path = project.root / "as-test.config.json"
    config = json.loads(config_path.read_text())
    config["input"] = ["assembly/__tests__/hang.spec.ts"]
    config_path.write_text(json.dumps(config))
    assert project.doit("astest:build:wasi:hang").exit_code == 0
    first = project.start_doit("astest", "--mode", "wasi", env={"ASTEST_TIMEOUT": "60"})
    try:
        lock = project.root / ".as-test/cache/project.lock"
        deadline = time.monotonic() + 60
        while not (lock.is_file() and lock.read_text() == f"pid {first.pid}"):
            assert time.monotonic() < deadline, "the first doit never took the lock"
            time.sleep(0.05)
        second = project.doit("astest", "--mode", "wasi")
        assert second.exit_code == 3
        assert f"another doit (pid {first.pid}) is running in this project" in second.stderr
        listing = project.doit("list")
        assert listing.exit_code == 0 and "astest" in listing.stdout
    finally:
        first.terminate()
        first.wait(30)
    after = project.doit("astest", "--mode", "wasi", env={"ASTEST_TIMEOUT": "1"})
    assert after.exit_code == 1  # the project is free again; the hanging spec times out
    assert "timed out after 1 s" in after.stdout


@pytest.mark.toolchains("1.0.7")  # how processes end is ours, whatever asc and as-test
def test_a_doit_killed_mid_run_leaves_no_process_and_no_lock_behind(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    edit_every_spec(project)  # ten builds and runs to do
    # On two cores doit's main process starts the compile server its workers share (the Node
    # process whose stdin the workers hold), and a worker stops mid-write of its first result.
    two_cores = set(sorted(os.sched_getaffinity(0))[:2])
    paused = start_paused(
        project, PausePoint("fsync", "*/.*.result.jsonl.*.tmp"), "-n", "2", cpus=two_cores
    )
    try:
        started = descendants(paused.proc.pid)
        commands = {pid: command_line(pid) for pid in started}
    finally:
        paused.proc.send_signal(signal.SIGKILL)  # whatever happens: no doit left paused
        paused.proc.wait()
    servers = [pid for pid, command in commands.items() if "asc_server.mjs" in command]
    workers = [pid for pid, command in commands.items() if "run_module('doit'" in command]
    assert len(servers) == 1 and len(workers) == 2, commands
    left = wait_until_ended(started)
    assert not left, f"still running after doit was killed: {[commands[p] for p in left]}"

    after = project.doit("-n", "2")
    assert after.exit_code == 0, after.stdout + after.stderr
    assert "another doit" not in after.stderr
    verdicts = project.verdicts()
    assert len(verdicts) == 10 and set(verdicts.values()) == {"passed"}, verdicts
