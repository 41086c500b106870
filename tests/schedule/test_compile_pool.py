"""Which server serves a build: reuse, retry once, time limit, fallback, threads, fork and exit.

Driven against the fake server in tests/fakes; its argv[0] says how to behave.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from astest_tasks.build.compile_route import ServedCompile
from astest_tasks.build.compile_server import CompileOutput, time_limit_message
from astest_tasks.schedule import scheduler
from astest_tasks.schedule.compile_pool import (
    DISABLE_VARIABLE,
    CompilePool,
    can_serve,
    server_flags,
    server_key,
    server_node_options,
)
from tests.fakes import FAKE_SERVER, is_running, require_node, wait_until_gone

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def pool() -> Iterator[CompilePool]:
    created = CompilePool(script=FAKE_SERVER)
    yield created
    created.close()


def run(pool: CompilePool, root: Path, what: str, limit_s: float = 10.0) -> CompileOutput:
    output = pool.compile(require_node(), root / "asc", [what], root, dict(os.environ), limit_s)
    assert output is not None
    return output


def pid_of(output: CompileOutput) -> int:
    text = output.stdout.decode()
    assert text.startswith("pid="), output
    return int(text.split()[0].removeprefix("pid="))


def test_one_server_serves_every_compile_of_a_process(pool: CompilePool, tmp_path: Path) -> None:
    first = run(pool, tmp_path, "ok")
    second = run(pool, tmp_path, "ok")
    assert pid_of(first) == pid_of(second)
    assert pool.server_pids == [pid_of(first)]


@pytest.mark.parametrize(
    "argv",
    [
        ["a.spec.ts", "-o", "a.wasm"],
        ["a.spec.ts", "--debug", "--noAssert", "--use", "ASC_OPTIMIZE=1"],
    ],
)
def test_a_build_that_does_not_optimise_runs_binaryen_on_v8s_baseline_tier_only(
    argv: list[str],
) -> None:
    assert server_flags(argv) == ("--always-sparkplug", "--liftoff-only")


@pytest.mark.parametrize(
    "option",
    [
        ["-O"],
        ["-O3"],
        ["-Os"],
        ["-O3z"],
        ["--optimize"],
        ["--optimizeLevel", "2"],
        ["--optimizeLevel=0"],
        ["--shrinkLevel", "1"],
        ["--converge"],
        ["--runPasses", "dce"],
    ],
)
def test_a_build_that_optimises_keeps_v8s_optimising_tier(option: list[str]) -> None:
    assert server_flags(["a.spec.ts", *option, "-o", "a.wasm"]) == ("--always-sparkplug",)


def test_the_compile_that_starts_a_server_chooses_its_v8_flags(
    pool: CompilePool, tmp_path: Path
) -> None:
    node, env = require_node(), dict(os.environ)
    first = pool.compile(node, tmp_path / "asc", ["ok"], tmp_path, env, 10)
    optimised = pool.compile(node, tmp_path / "asc", ["ok", "-O3"], tmp_path, env, 10)
    assert first is not None and optimised is not None
    # The second compile is served by the same server, flags and all: it is as correct there.
    assert pid_of(first) == pid_of(optimised)
    assert first.stdout.decode().endswith(" flags=--always-sparkplug,--liftoff-only")
    assert optimised.stdout.decode().endswith(" flags=--always-sparkplug,--liftoff-only")
    other = CompilePool(script=FAKE_SERVER)
    try:
        started_optimised = other.compile(node, tmp_path / "asc", ["ok", "-O3"], tmp_path, env, 10)
    finally:
        other.close()
    assert started_optimised is not None
    assert started_optimised.stdout.decode().endswith(" flags=--always-sparkplug")


def node_command_line(pid: int) -> list[str]:
    return [word.decode() for word in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")]


def test_a_server_starts_with_a_young_generation_four_times_v8s_default(
    pool: CompilePool, tmp_path: Path
) -> None:
    env = {key: value for key, value in os.environ.items() if key != "NODE_OPTIONS"}
    output = pool.compile(require_node(), tmp_path / "asc", ["ok"], tmp_path, env, 10)
    assert output is not None and output.exit_code == 0
    words = node_command_line(pid_of(output))
    # Node's own option, before the script: V8 sizes its heap before any script runs.
    assert words.index("--max-semi-space-size=64") < words.index(str(FAKE_SERVER))


@pytest.mark.parametrize("user_option", ["--max-semi-space-size=8", "--max_semi_space_size=8"])
def test_a_node_options_that_sizes_the_young_generation_is_the_users_choice(
    pool: CompilePool, tmp_path: Path, user_option: str
) -> None:
    env = {**os.environ, "NODE_OPTIONS": f"--no-warnings {user_option}"}
    assert server_node_options(env) == ()
    output = pool.compile(require_node(), tmp_path / "asc", ["ok"], tmp_path, env, 10)
    assert output is not None and output.exit_code == 0
    assert not any("semi" in word for word in node_command_line(pid_of(output)))


def test_other_node_options_leave_our_young_generation_in_place() -> None:
    assert server_node_options({"NODE_OPTIONS": "--max-old-space-size=4096"}) == (
        "--max-semi-space-size=64",
    )
    assert server_node_options({}) == ("--max-semi-space-size=64",)


def test_a_compile_whose_server_dies_is_retried_once_in_a_new_server(
    pool: CompilePool, tmp_path: Path
) -> None:
    first_pid = pid_of(run(pool, tmp_path, "ok"))
    output = run(pool, tmp_path, f"die-once:{tmp_path / 'marker'}")
    assert output.exit_code == 0
    assert pid_of(output) != first_pid
    assert wait_until_gone(first_pid)
    assert pool.server_pids == [pid_of(output)]


def test_a_compile_that_kills_two_servers_is_a_failed_build_saying_why(
    pool: CompilePool, tmp_path: Path
) -> None:
    output = run(pool, tmp_path, "die")
    assert output.exit_code == -1
    assert "fake server: last words" in output.diagnostics
    assert "again when the compile was retried" in output.diagnostics
    assert f"{DISABLE_VARIABLE}=0" in output.diagnostics
    assert pool.server_pids == []
    # The next build starts afresh.
    assert run(pool, tmp_path, "ok").exit_code == 0


def test_a_server_found_dead_between_builds_is_replaced_without_spending_the_retry(
    pool: CompilePool, tmp_path: Path
) -> None:
    first_pid = pid_of(run(pool, tmp_path, "ok"))
    os.kill(first_pid, signal.SIGKILL)
    assert wait_until_gone(first_pid)
    # The replacement dies once more; the retry is still available, so the build succeeds.
    output = run(pool, tmp_path, f"die-once:{tmp_path / 'marker'}")
    assert output.exit_code == 0


def test_a_compile_over_the_time_limit_fails_and_its_server_is_killed(
    pool: CompilePool, tmp_path: Path
) -> None:
    first_pid = pid_of(run(pool, tmp_path, "ok"))
    output = run(pool, tmp_path, "hang", limit_s=0.5)
    assert output.exit_code == -1
    assert output.diagnostics == time_limit_message(0.5)
    assert wait_until_gone(first_pid)
    assert pid_of(run(pool, tmp_path, "ok")) != first_pid


def test_a_server_asking_to_be_retired_is_not_reused(pool: CompilePool, tmp_path: Path) -> None:
    retired = pid_of(run(pool, tmp_path, "recycle"))
    assert wait_until_gone(retired)
    assert pid_of(run(pool, tmp_path, "ok")) != retired


def test_a_server_that_cannot_start_means_spawn_with_one_warning(
    pool: CompilePool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    node = require_node()
    env = dict(os.environ)
    assert pool.compile(node, tmp_path / "not-ready", ["ok"], tmp_path, env, 10) is None
    assert pool.compile(node, tmp_path / "not-ready", ["ok"], tmp_path, env, 10) is None
    warnings = capsys.readouterr().err
    assert warnings.count("WARNING:") == 1
    assert "fake asc is too old" in warnings
    assert "one asc process per spec" in warnings


def test_concurrent_threads_get_servers_of_their_own(pool: CompilePool, tmp_path: Path) -> None:
    outputs: list[CompileOutput] = []
    barrier = threading.Barrier(2)

    def build() -> None:
        barrier.wait()
        outputs.append(run(pool, tmp_path, "sleep:700"))

    threads = [threading.Thread(target=build) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outputs) == 2
    assert pid_of(outputs[0]) != pid_of(outputs[1])
    assert sorted(pool.server_pids) == sorted(pid_of(o) for o in outputs)


def test_ctrl_c_during_a_compile_kills_the_busy_server(pool: CompilePool, tmp_path: Path) -> None:
    server_pid = pid_of(run(pool, tmp_path, "ok"))

    def interrupt(signum: int, frame: types.FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            run(pool, tmp_path, "hang", limit_s=30)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert wait_until_gone(server_pid)
    assert pool.server_pids == []


def test_close_ends_every_server_and_later_builds_spawn(pool: CompilePool, tmp_path: Path) -> None:
    server_pid = pid_of(run(pool, tmp_path, "ok"))
    pool.close()
    assert wait_until_gone(server_pid)
    node = require_node()
    assert pool.compile(node, tmp_path / "asc", ["ok"], tmp_path, {}, 10) is None


def test_a_forked_child_leaves_the_parents_servers_alone(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    server_pid = pid_of(run(process_pool, tmp_path, "ok"))
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status
        fresh = scheduler.scheduler().compile_pool
        os._exit(0 if fresh is not process_pool and fresh.server_pids == [] else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert is_running(server_pid)
    assert pid_of(run(process_pool, tmp_path, "ok")) == server_pid


def test_the_childs_copy_of_the_pipes_does_not_keep_the_parents_server_alive(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    server_pid = pid_of(run(process_pool, tmp_path, "ok"))
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - stays alive until the parent has checked
        os.close(writer)
        os.read(reader, 1)
        os._exit(0)
    os.close(reader)
    try:
        # The parent goes away (closes its end of the server's stdin) while the child lives on:
        # the server must see end of file, which it only does if the child dropped its copy.
        for server in process_pool.idle_servers():
            server.begin_close()
        assert wait_until_gone(server_pid, timeout_s=5)
    finally:
        os.close(writer)
        os.waitpid(child, 0)


def test_the_scheduler_declines_to_serve_when_disabled_or_given_node_flags(
    tmp_path: Path,
) -> None:
    node = require_node()
    disabled = {**os.environ, DISABLE_VARIABLE: "0"}
    planner = scheduler.Scheduler(server_script=FAKE_SERVER)
    served = ServedCompile(node, tmp_path, ["x.ts"], disabled)
    assert planner.compile_in_server(served, tmp_path, 10) is None
    assert not can_serve(["x.ts", "--", "--stack-size=4000"], {})
    assert can_serve(["x.ts"], {})


def test_servers_are_kept_apart_by_what_node_and_asc_read_at_start(tmp_path: Path) -> None:
    base = server_key("node", tmp_path, {"PATH": "/bin"})
    assert server_key("node", tmp_path, {"PATH": "/usr/bin"}) == base
    assert server_key("node", tmp_path, {"PATH": "/bin", "CI": "1"}) != base
    assert server_key("node", tmp_path, {"NODE_OPTIONS": "--x"}) != base
    assert server_key("other-node", tmp_path, {"PATH": "/bin"}) != base


EXIT_SCRIPT = """
import os, sys
from pathlib import Path
sys.path.insert(0, {repo!r})
from astest_tasks.schedule import scheduler
from tests.fakes import FAKE_SERVER

def build():
    scheduler._current = scheduler.Scheduler(server_script=FAKE_SERVER)
    root = Path({root!r})
    pool = scheduler.scheduler().compile_pool
    output = pool.compile({node!r}, root, ["ok"], root, dict(os.environ), 10)
    return output.stdout.decode().split()[0].removeprefix("pid=")

how = sys.argv[1]
if how == "worker":
    import multiprocessing
    queue = multiprocessing.Queue()
    worker = multiprocessing.Process(target=lambda: queue.put(build()))
    worker.start()
    pid = queue.get()
    worker.join()
    print(pid, flush=True)
    # doit's workers leave through os._exit: the server must already be gone.
    print("running" if Path(f"/proc/{{pid}}").exists() and
          Path(f"/proc/{{pid}}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
          else "gone", flush=True)
else:
    print(build(), flush=True)
    if how == "killed":
        os.kill(os.getpid(), 9)
    if how == "error":
        raise SystemExit("a failing build run")
"""


@pytest.mark.parametrize("how", ["normal", "error", "killed"])
def test_no_server_outlives_the_python_process(tmp_path: Path, how: str) -> None:
    script = EXIT_SCRIPT.format(repo=str(REPO), node=require_node(), root=str(tmp_path / "asc"))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), how],
        capture_output=True,
        text=True,
        timeout=60,
    )
    server_pid = int(proc.stdout.split()[0])
    assert wait_until_gone(server_pid, timeout_s=5), proc.stderr


def test_no_server_outlives_a_doit_style_worker_process(tmp_path: Path) -> None:
    script = EXIT_SCRIPT.format(repo=str(REPO), node=require_node(), root=str(tmp_path / "asc"))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), "worker"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = proc.stdout.split()
    assert len(lines) == 2, proc.stderr
    assert lines[1] == "gone"
