"""A serial doit running the next spec in its helper process (run_ahead.py): the same results as
one process, in doit's order, fully cached afterwards, and no helper left behind by a stop.

Real asc, as-test and wasmtime, on copies of the passing fixture. ``ASTEST_RUN_AHEAD=always``
hands runs over from the first one on, so that what is handed over does not depend on how long
a spec takes on the machine of the day.
"""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

import pytest

from astest_tasks.schedule.run_ahead import SWITCH_VARIABLE
from tests.integration.conftest import Project, copy_project
from tests.integration.pausing import PausePoint, start_paused, stop
from tests.integration.test_interruptions import assert_every_json_file_is_whole
from tests.integration.toolchains import Toolchain
from tests.schedule.test_run_helper import ended

# The run ahead is our own machinery around the run task's action, the same for any as-test.
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.8.0")]

# The default runner, plus a line per spec naming the process that ran it, and a print of its
# own (which doit shows with -v 2).
RUNNER = """
import os

from astest_tasks.runner import instantiate

with open(os.environ["RUNNER_LOG"], "a") as log:
    log.write(f"{os.environ['AS_TEST_WASM_PATH']} {os.getpid()}\\n")
print(f"runner ran {os.environ['AS_TEST_WASM_PATH'].split('/build/')[1]}")

instance = instantiate({})
instance.start()
"""


def project_with_logging_runners(tmp_path: Path, toolchain: Toolchain, name: str) -> Project:
    project = copy_project("passing", tmp_path / name, toolchain)
    runners = project.root / ".as-test" / "runners"
    runners.mkdir(parents=True)
    for target in ("wasi", "bindings"):
        (runners / f"default.{target}.py").write_text(RUNNER)
    return project


def ran_by(log: Path) -> dict[str, int]:
    """Which process ran each spec: its module's path and the pid."""
    pairs = (line.rsplit(" ", 1) for line in log.read_text().splitlines())
    return {wasm: int(pid) for wasm, pid in pairs}


def outcomes(project: Project) -> list[tuple[str, str, str, dict[str, float]]]:
    """Each spec's verdict and counts, without the guest's own time."""
    return [
        (entry["file"], entry["mode"], entry["verdict"], {**entry["counts"], "time_ms": 0})
        for entry in project.report()["specs"]
    ]


def test_a_serial_run_hands_every_other_spec_to_the_helper_with_the_same_results(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    ahead = project_with_logging_runners(tmp_path, toolchain, "ahead")
    alone = project_with_logging_runners(tmp_path, toolchain, "alone")
    log = tmp_path / "ahead.log"

    run = ahead.doit("-v", "2", env={SWITCH_VARIABLE: "always", "RUNNER_LOG": str(log)})
    assert run.exit_code == 0, run.stdout + run.stderr
    pids = ran_by(log)
    assert len(pids) == 10
    # doit ran the first spec itself and handed the next to the helper, then the same again.
    by_process = sorted(list(pids.values()).count(pid) for pid in set(pids.values()))
    assert by_process == [5, 5]

    # Each spec's prints and live line come when doit reaches its run, in doit's order.
    run_tasks = [task for task in run.executed if task.startswith("astest:run:")]
    assert len(run_tasks) == 10
    printed = re.findall(r"^runner ran (\S+)$", run.stdout, re.MULTILINE)
    # (astest:run:wasi:left/shared ran .as-test/build/wasi/left/shared.spec.wasm)
    assert [name.removesuffix(".spec.wasm") for name in printed] == [
        "/".join(task.split(":")[2:]) for task in run_tasks
    ]
    live = re.findall(r"^\[(\d+)/10\]", run.stderr, re.MULTILINE)
    assert live == [str(n) for n in range(1, 11)]

    plain = alone.doit(env={SWITCH_VARIABLE: "0", "RUNNER_LOG": str(tmp_path / "alone.log")})
    assert plain.exit_code == 0, plain.stdout + plain.stderr
    assert len(set(ran_by(tmp_path / "alone.log").values())) == 1
    assert outcomes(ahead) == outcomes(alone)
    assert run.last_line == plain.last_line

    # doit saved the handed-over runs as its own: the next run has nothing to do.
    again = ahead.doit(env={SWITCH_VARIABLE: "always", "RUNNER_LOG": str(log)})
    assert again.exit_code == 0, again.stdout
    assert [t for t in again.executed if ":run:" in t or ":build:" in t] == []
    assert "(10 cached)" in again.stdout


def test_an_edited_spec_runs_in_both_modes_at_once(tmp_path: Path, toolchain: Toolchain) -> None:
    project = project_with_logging_runners(tmp_path, toolchain, "edited")
    log = tmp_path / "edited.log"
    env = {SWITCH_VARIABLE: "always", "RUNNER_LOG": str(log)}
    assert project.doit(env=env).exit_code == 0
    spec = project.root / "assembly" / "__tests__" / "geometry.spec.ts"
    # A new expectation, so the module changes in both modes (a comment gives the same bytes).
    edit = 'describe("edited", () => {\n  test("area of a square", () => {\n'
    edit += "    expect(area(2, 2)).toBe(4.0);\n  });\n});\n"
    spec.write_text(spec.read_text() + edit)
    log.unlink()

    run = project.doit(env=env)
    assert run.exit_code == 0, run.stdout + run.stderr
    assert [t for t in run.executed if ":run:" in t] == [
        "astest:run:wasi:geometry",
        "astest:run:bindings:geometry",
    ]
    # Its result existed, but its new build record is an input that doit runs it again for.
    pids = ran_by(log)
    assert len(pids) == 2 and len(set(pids.values())) == 2, pids
    again = project.doit(env=env)
    assert [t for t in again.executed if ":run:" in t or ":build:" in t] == []


# Without ASTEST_RUN_AHEAD=always: geometry's wasi run waits (a minute at most) until its
# bindings run has started, which only a hand-over lets happen meanwhile. The wait is an event,
# so the run lasts past the limit however long the helper takes to start.
WAITING_WASI_RUNNER = """
import os, select

from astest_tasks.runner import instantiate

with open(os.environ["RUNNER_LOG"], "a") as log:
    log.write(f"{os.environ['AS_TEST_WASM_PATH']} {os.getpid()}\\n")
fifo = os.environ.get("HANDED_OVER_FIFO")
if fifo and os.environ["AS_TEST_WASM_PATH"].endswith("geometry.spec.wasm"):
    reading = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    select.select([reading], [], [], 60)
    os.close(reading)
instance = instantiate({})
instance.start()
"""
SIGNALLING_BINDINGS_RUNNER = """
import os

from astest_tasks.runner import instantiate

with open(os.environ["RUNNER_LOG"], "a") as log:
    log.write(f"{os.environ['AS_TEST_WASM_PATH']} {os.getpid()}\\n")
fifo = os.environ.get("HANDED_OVER_FIFO")
if fifo and os.environ["AS_TEST_WASM_PATH"].endswith("geometry.spec.wasm"):
    try:
        writing = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # nobody waits: the wasi run is over
        pass
    else:
        os.write(writing, b"started")
        os.close(writing)
instance = instantiate({})
instance.start()
"""


def test_a_long_run_hands_the_next_over_and_so_does_a_spec_whose_last_run_was_long(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    project = copy_project("passing", tmp_path / "auto", toolchain)
    runners = project.root / ".as-test" / "runners"
    runners.mkdir(parents=True)
    (runners / "default.wasi.py").write_text(WAITING_WASI_RUNNER)
    (runners / "default.bindings.py").write_text(SIGNALLING_BINDINGS_RUNNER)
    fifo = tmp_path / "handed-over"
    os.mkfifo(fifo)
    log = tmp_path / "auto.log"
    geometry = {
        ".as-test/build/wasi/geometry.spec.wasm",
        ".as-test/build/bindings/geometry.spec.wasm",
    }

    # The first run task is geometry's wasi one; it goes past 0.3 s, so the next one, geometry
    # in bindings, goes to the helper.
    run = project.doit(env={"RUNNER_LOG": str(log), "HANDED_OVER_FIFO": str(fifo)})
    assert run.exit_code == 0, run.stdout + run.stderr
    pids = {os.path.relpath(wasm, project.root): pid for wasm, pid in ran_by(log).items()}
    assert len({pids[wasm] for wasm in geometry}) == 2, pids

    # Edited, geometry runs again in both modes. Its wasi run no longer waits, but its last
    # result says it took long: the bindings run goes to the helper from the start.
    spec = project.root / "assembly" / "__tests__" / "geometry.spec.ts"
    edit = 'describe("edited", () => {\n  test("area of a square", () => {\n'
    edit += "    expect(area(2, 2)).toBe(4.0);\n  });\n});\n"
    spec.write_text(spec.read_text() + edit)
    log.unlink()
    again = project.doit(env={"RUNNER_LOG": str(log)})
    assert again.exit_code == 0, again.stdout + again.stderr
    pids = {os.path.relpath(wasm, project.root): pid for wasm, pid in ran_by(log).items()}
    assert set(pids) == geometry
    assert len(set(pids.values())) == 2, pids


def helper_of(doit_pid: int) -> int:
    """The run ahead's helper among the children of the doit process."""
    children: list[int] = []
    for task in Path(f"/proc/{doit_pid}/task").iterdir():
        children += [int(pid) for pid in _proc_text(task / "children").split()]
    helpers = [pid for pid in children if "run_helper" in _proc_text(Path(f"/proc/{pid}/cmdline"))]
    assert len(helpers) == 1, children
    return helpers[0]


def _proc_text(path: Path) -> str:
    """A /proc file's text, or "" when its thread or process ended since it was listed (one of
    doit's threads, a compile that finished): that race is not the test's subject."""
    try:
        return path.read_bytes().decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_doit_stopped_while_the_helper_runs_a_spec_leaves_no_helper_and_loses_nothing(
    tmp_path: Path, toolchain: Toolchain, sig: signal.Signals
) -> None:
    project = project_with_logging_runners(tmp_path, toolchain, "stopped")
    log = tmp_path / "stopped.log"
    env = {SWITCH_VARIABLE: "always", "RUNNER_LOG": str(log)}
    # doit waits for the first spec it handed over.
    point = PausePoint("call", "astest_tasks.schedule.run_ahead:HandedOver.outcome")
    paused = start_paused(project, point, env=env)
    helper = helper_of(paused.proc.pid)
    assert stop(paused, sig) != 0, "a stopped run never reports success"
    assert ended(helper), "the helper outlived doit"

    assert_every_json_file_is_whole(project)
    assert not list((project.root / ".as-test").rglob("*.tmp")), "no temporary file is left"
    finished = project.doit(env=env)
    assert finished.exit_code == 0, finished.stdout + finished.stderr
    assert {entry["verdict"] for entry in project.report()["specs"]} == {"passed"}
    assert json.loads((project.root / ".as-test" / "report.json").read_text())["totals"]
