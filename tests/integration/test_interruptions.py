"""SIGTERM at many points of a run: every file stays whole, and the next doit finishes the job
with the right verdicts: nothing interrupted is ever served as a cached pass."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from astest_tasks.model.results import read_stored
from tests.integration.conftest import FIXTURES, DoitRun, Project, clone_project, edit_every_spec
from tests.integration.pausing import END_LIMIT_S, REACH_LIMIT_S, PausePoint, start_paused, stop
from tests.process_tree import descendants, wait_until_ended

# Every stop point is in our own code (the import scan, the compile server's reader, our atomic
# writes, the protocol channel, the summary), and what is checked after the stop (whole files,
# untouched snapshots, the next run's verdicts) is ours too: no as-test version changes how a
# stopped doit leaves its files, so one toolchain covers it (the 1.8 half doubled the cost).
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.0.7")]

# Where doit is stopped: while loading, compiling, running, summarising. Named points, reached
# whatever the machine's load (seconds into the run all landed in the first compile on a busy one).
STOP_POINTS = {
    "loading, mid-write of the import scan": PausePoint("fsync", "*/.import-scan.json.*.tmp"),
    "waiting for asc": PausePoint(
        "call", "astest_tasks.build.compile_server:CompileServer._read_line"
    ),
    "mid-write of a build record": PausePoint("fsync", "*/.shared.build.json.*.tmp"),
    "while a spec's wasm runs": PausePoint(
        "call", "astest_tasks.run.channel:ProtocolChannel.write_stdout"
    ),
    "mid-write of a spec log": PausePoint("fsync", "*/.*.spec.log.*.tmp"),
    "mid-write of a result": PausePoint("fsync", "*/.*.result.jsonl.*.tmp"),
    "mid-write of the last result": PausePoint("fsync", "*/.*.result.jsonl.*.tmp", nth=4),
    "summarising, mid-write of the report": PausePoint("fsync", "*/.report.json.*.tmp"),
}
BROKEN = ("snap", "right/shared")  # the specs that import lib/counter.ts


def break_the_helper(project: Project) -> None:
    helper = project.root / "assembly/lib/counter.ts"
    helper.write_text(helper.read_text().replace("return n;", "return n + 1;"))


def assert_every_json_file_is_whole(project: Project) -> None:
    output = project.root / ".as-test"
    for path in output.rglob("*.result.jsonl"):
        # A spec's result is three lines of JSON (results.py): whole when all three read.
        assert read_stored(path) is not None, f"{path} is torn"
    for path in output.rglob("*.json"):
        try:
            json.loads(path.read_text())
        except ValueError as exc:
            raise AssertionError(f"{path} is torn: {exc}") from None


@pytest.mark.parametrize("stop_at", STOP_POINTS)
def test_a_run_stopped_at_any_point_loses_nothing_and_serves_nothing_stale(
    built_passing: tuple[Project, DoitRun], tmp_path: Path, stop_at: str
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    snapshots = {p: p.read_bytes() for p in (project.root / ".as-test/snapshots").iterdir()}
    break_the_helper(project)
    paused = start_paused(project, STOP_POINTS[stop_at])
    assert stop(paused, signal.SIGTERM) != 0, "a stopped run never reports success"

    assert_every_json_file_is_whole(project)
    assert {p: p.read_bytes() for p in snapshots} == snapshots, "snapshots are never touched"
    assert not list((project.root / ".as-test").rglob("*.tmp")), "no temporary file is left"

    finished = project.doit()
    assert finished.exit_code == 1, finished.stdout
    verdicts = project.verdicts()
    for (spec_id, mode), verdict in verdicts.items():
        expected = "failed" if spec_id in BROKEN else "passed"
        assert verdict == expected, f"{spec_id} [{mode}] after a stop {stop_at}"
    assert len(verdicts) == 10
    # and the run after that has nothing left to do, apart from re-running the failing specs
    again = project.doit()
    assert {t for t in again.executed if t.startswith("astest:build:")} == set()
    assert os.path.exists(project.root / ".as-test/report.json")


# Ctrl-C in a terminal reaches every process of the foreground group; a CI cancel signals doit.
SIGNALLED = {
    "Ctrl-C (SIGINT to the process group)": (signal.SIGINT, True),
    "SIGTERM to doit": (signal.SIGTERM, False),
}


@pytest.mark.parametrize("how", SIGNALLED)
def test_an_interrupted_parallel_run_says_so_in_one_line_without_a_traceback(
    built_passing: tuple[Project, DoitRun], tmp_path: Path, how: str
) -> None:
    sig, to_group = SIGNALLED[how]
    project = clone_project(built_passing[0], tmp_path)
    edit_every_spec(project)
    paused = start_paused(
        project, STOP_POINTS["mid-write of a result"], "-n", "2", new_session=to_group
    )
    started = descendants(paused.proc.pid)  # read from /proc: nothing here fails before the stop
    exit_code = stop(paused, sig, to_group)

    output = paused.output.read_text()
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1 and "interrupted" in errors[0] and "fix: " in errors[0], output
    assert exit_code == -signal.SIGINT  # as Python ends any interrupted doit: status 130
    assert not wait_until_ended(started), "a worker or server outlived the interrupted doit"


def cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has spent itself (its threads, not its children), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def written_since(folder: Path, moment_ns: int) -> list[Path]:
    """The result files written after ``moment_ns``, read while doit runs: a build's scratch
    folder (``.asc-*``) may vanish between listing it and looking into it, which os.walk skips
    (where ``Path.rglob`` raised FileNotFoundError), as may a file before its ``stat``."""
    written = []
    for parent, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".result.jsonl") and _modified_after(Path(parent, name), moment_ns):
                written.append(Path(parent, name))
    return written


def _modified_after(path: Path, moment_ns: int) -> bool:
    try:
        return path.stat().st_mtime_ns > moment_ns
    except FileNotFoundError:
        return False


def wait_for(condition: Callable[[], bool], what: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + REACH_LIMIT_S
    while not condition():
        assert proc.poll() is None, f"doit ended (exit {proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"not {what} within {REACH_LIMIT_S:.0f} s"
        time.sleep(0.05)


def test_specs_that_finished_before_a_stop_during_a_guest_are_not_run_again(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    edit_every_spec(project)  # ten builds and runs to do again, none like the last run's
    results = project.root / ".as-test/build"
    before = time.time_ns()
    hang = project.root / "assembly/__tests__/zz_hang.spec.ts"  # its runs come last
    shutil.copy(FIXTURES / "failing/assembly/__tests__/hang.spec.ts", hang)
    env = {"ASTEST_TIMEOUT": "300"}  # the same in both runs: the limit is in every run's key
    output = tmp_path / "stopped.out"
    with output.open("w") as sink:
        proc = project.start_doit(env=env, stdout=sink, stderr=sink)
    try:
        finished = lambda: len(written_since(results, before)) == 10  # noqa: E731
        wait_for(finished, "the ten passing specs had finished", proc)
        # Then only the hanging spec's guest burns CPU in doit's process: a second of it means
        # the signal lands while wasm runs, where Python runs no handler until the guest stops.
        spent = cpu_seconds(proc.pid)
        wait_for(lambda: cpu_seconds(proc.pid) > spent + 1.0, "spinning in the guest", proc)
        proc.send_signal(signal.SIGTERM)
        exit_code = proc.wait(END_LIMIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stopped = output.read_text()
    assert not list(results.rglob("zz_hang.result.jsonl")), "no verdict for the stopped spec"

    hang.unlink()
    again = project.doit(env=env)
    assert again.exit_code == 0, again.stdout + again.stderr
    assert [task for task in again.executed if task.startswith("astest:run:")] == []
    assert len(project.verdicts()) == 10
    # and the stop itself was an interrupted run's: one line, status 130
    assert "Traceback" not in stopped and "ERROR: the run was interrupted" in stopped, stopped
    assert exit_code == -signal.SIGINT, stopped
