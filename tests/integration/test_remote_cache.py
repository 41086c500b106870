"""The remote cache end to end: real asc, real as-test, real wasmtime, real doit, and Debian's
nginx with WebDAV as the shared server (tests/nginx_cache.py).

A "second machine" is a fresh copy of the fixture at another path, with an empty HOME and cache
folder, and a ``node`` on PATH that logs every call before running the real one: a build taken
from the cache starts no asc and no compile server, so that log stays empty of them; a run taken
from the cache leaves the very result file the first machine wrote (its session id included),
which a run of its own would not.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from astest_tasks.remote.entries import decode_entry
from tests.integration.conftest import DoitRun, copy_project, passing_tests_line
from tests.integration.toolchains import Toolchain
from tests.nginx_cache import PASSWORD, CacheServer, free_port

PASSING_PAIRS = 10  # the passing fixture: 5 specs in 2 modes
EDITED_SPEC = "assembly/__tests__/geometry.spec.ts"
REMOTE_WARNING = "WARNING: remote cache "
ALL_HITS = f"remote cache: {2 * PASSING_PAIRS} hits, 0 misses, 0 uploaded (0 B)"


class Machine:
    """A project as another machine has it: its own path, HOME and cache folder, and a node
    that logs its calls."""

    def __init__(self, base: Path, toolchain: Toolchain, fixture: str = "passing") -> None:
        base.mkdir(parents=True)
        self.project = copy_project(fixture, base, toolchain)
        self.home = base / "home"
        self.home.mkdir()
        bin_dir = base / "bin"
        bin_dir.mkdir()
        self.node_log = base / "node-calls.log"
        real_node = shutil.which("node")
        assert real_node is not None
        spy = bin_dir / "node"
        spy.write_text(f'#!/bin/sh\necho "$*" >> {self.node_log}\nexec {real_node} "$@"\n')
        spy.chmod(0o755)
        self.environment = {
            "HOME": str(self.home),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        }

    def doit(self, url: str, *args: str, **env: str) -> DoitRun:
        return self.project.doit(*args, env={**self.environment, "ASTEST_REMOTE_CACHE": url, **env})

    def compiler_calls(self) -> list[str]:
        """Every node call but the version checks: asc, or the compile server's start."""
        if not self.node_log.exists():
            return []
        calls = self.node_log.read_text().splitlines()
        return [call for call in calls if call.strip() != "--version"]

    def results(self) -> dict[str, bytes]:
        build = self.project.root / ".as-test" / "build"
        return {
            str(path.relative_to(build)): path.read_bytes()
            for path in sorted(build.rglob("*.result.jsonl"))
        }


def remote_line(run: DoitRun) -> str:
    assert run.last_line.startswith("remote cache: "), run.stdout[-2000:]
    return run.last_line


def remote_warnings(run: DoitRun) -> list[str]:
    return [line for line in run.stderr.splitlines() if line.startswith(REMOTE_WARNING)]


def puts(server: CacheServer) -> list[str]:
    log = server.root / "access.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [line for line in lines if '"PUT ' in line]


def summary_lines(run: DoitRun) -> list[str]:
    return [line for line in run.stdout.splitlines() if line.startswith((" PASS ", " FAIL "))]


TIME_AND_MARK = re.compile(r"\s+[0-9.]+ m?s( \((cached|remote)\))?$")


def verdict_lines(run: DoitRun) -> list[str]:
    """The summary's spec lines without their times and marks: what must not change."""
    return [TIME_AND_MARK.sub("", line) for line in summary_lines(run)]


def test_a_second_machine_takes_every_build_and_run_from_the_cache(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    url = cache_server.url()
    first = Machine(tmp_path / "alice" / "src", toolchain)
    cold = first.doit(url)
    assert cold.exit_code == 0, cold.stdout[-3000:] + cold.stderr[-3000:]
    assert remote_line(cold).startswith(f"remote cache: 0 hits, {2 * PASSING_PAIRS} misses, ")
    assert f" {2 * PASSING_PAIRS} uploaded (" in remote_line(cold)
    assert puts(cache_server), "the cold run uploaded nothing"
    assert first.compiler_calls(), "the node spy saw no compile: it proves nothing"

    second = Machine(tmp_path / "ci-runner" / "build" / "checkout", toolchain)
    warm = second.doit(url)
    assert warm.exit_code == 0, warm.stdout[-3000:] + warm.stderr[-3000:]
    assert second.compiler_calls() == []  # no asc, and no compile server started
    assert remote_line(warm) == ALL_HITS
    # Byte for byte the first machine's results, session id included: no spec ran here.
    assert second.results() == first.results() and len(second.results()) == PASSING_PAIRS
    assert all(line.endswith("(remote)") for line in summary_lines(warm))
    assert len(summary_lines(warm)) == PASSING_PAIRS
    assert verdict_lines(warm) == verdict_lines(cold)
    assert second.project.verdicts() == first.project.verdicts()
    assert warm.stdout.splitlines()[-2] == passing_tests_line(toolchain)
    assert cold.stdout.splitlines()[-2] == passing_tests_line(toolchain)
    assert f"files: {PASSING_PAIRS} passed, 0 failed, 0 skipped ({PASSING_PAIRS} remote)" in (
        warm.stdout
    )

    again = second.doit(url)
    assert again.exit_code == 0
    assert again.executed == ["astest:summary"]  # doit recorded the remote hits as done
    assert remote_line(again) == "remote cache: 0 hits, 0 misses, 0 uploaded (0 B)"
    assert all(line.endswith("(cached)") for line in summary_lines(again))


@pytest.mark.toolchains("1.8.0")  # the run ahead is our own machinery, the same for any as-test
def test_runs_handed_to_the_run_aheads_helper_use_the_cache_too(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    """A serial doit hands runs to its helper process (run_ahead.py): the helper must store a
    passing run it made, and a second machine's helper take one from the cache."""
    url = cache_server.url()
    machines = [Machine(tmp_path / name, toolchain) for name in ("alice", "ci-runner")]
    for machine in machines:
        project_runners = machine.project.root / ".as-test" / "runners"
        project_runners.mkdir(parents=True)
        for target in ("wasi", "bindings"):
            (project_runners / f"default.{target}.py").write_text(LOGGING_RUNNER)
    first, second = machines
    first_log, second_log = tmp_path / "alice-runs.log", tmp_path / "ci-runner-runs.log"
    cold = first.doit(url, ASTEST_RUN_AHEAD="always", RUNNER_LOG=str(first_log))
    assert cold.exit_code == 0, cold.stdout[-3000:] + cold.stderr[-3000:]
    pids = {line.rsplit(" ", 1)[1] for line in first_log.read_text().splitlines()}
    assert len(pids) > 1, "no run was handed to the helper: the test proves nothing"
    assert f" {2 * PASSING_PAIRS} uploaded (" in remote_line(cold), "the helper stored nothing"

    warm = second.doit(url, ASTEST_RUN_AHEAD="always", RUNNER_LOG=str(second_log))
    assert warm.exit_code == 0, warm.stdout[-3000:] + warm.stderr[-3000:]
    assert remote_line(warm) == ALL_HITS
    assert not second_log.exists(), "a spec ran on the second machine"
    assert second.results() == first.results()


# The default runner, writing a line per spec with the process that ran it.
LOGGING_RUNNER = """
import os
from astest_tasks.runner import instantiate
with open(os.environ["RUNNER_LOG"], "a") as log:
    log.write(f"{os.environ['AS_TEST_WASM_PATH']} {os.getpid()}\\n")
instance = instantiate({})
instance.start()
"""


@pytest.mark.toolchains("1.0.7")
def test_an_edited_spec_misses_and_only_it_is_built_and_run(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    url = cache_server.url()
    first = Machine(tmp_path / "first", toolchain)
    assert first.doit(url).exit_code == 0
    second = Machine(tmp_path / "second", toolchain)
    spec = second.project.root / EDITED_SPEC
    spec.write_text(spec.read_text() + '\ntest("added", () => { expect(1).toBe(1); });\n')
    run = second.doit(url)
    assert run.exit_code == 0, run.stdout[-3000:]
    # The edited spec in its two modes: a build and a run each.
    assert remote_line(run).startswith(f"remote cache: {2 * PASSING_PAIRS - 4} hits, 4 misses, ")
    assert " 4 uploaded (" in remote_line(run)
    changed = {name for name, data in second.results().items() if first.results()[name] != data}
    assert changed == {"wasi/geometry.result.jsonl", "bindings/geometry.result.jsonl"}
    fresh = [line for line in summary_lines(run) if not line.endswith("(remote)")]
    assert [line.split()[2] for line in fresh] == ["geometry", "geometry"]
    assert second.compiler_calls(), "the edited spec was not compiled"


@pytest.mark.toolchains("1.0.7")
def test_read_mode_looks_up_but_uploads_nothing(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    url = cache_server.url()
    first = Machine(tmp_path / "main-branch", toolchain)
    assert first.doit(url).exit_code == 0
    before = len(puts(cache_server))
    pull_request = Machine(tmp_path / "pull-request", toolchain)
    spec = pull_request.project.root / EDITED_SPEC
    spec.write_text(spec.read_text() + '\ntest("added", () => { expect(1).toBe(1); });\n')
    run = pull_request.doit(url, ASTEST_REMOTE_CACHE_MODE="read")
    assert run.exit_code == 0
    assert remote_line(run).startswith(f"remote cache: {2 * PASSING_PAIRS - 4} hits, 4 misses, ")
    assert remote_line(run).endswith(" 0 uploaded (0 B)")
    cache_server.access_log(until="GET /cache/ac/")
    assert len(puts(cache_server)) == before  # not one PUT from the read-only run
    assert before > 0


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel does) but never answers a request."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield listener.getsockname()[1]


@pytest.mark.toolchains("1.0.7")
@pytest.mark.parametrize("server", ["refused", "silent", "garbage", "broken"])
def test_a_server_that_fails_costs_one_warning_and_changes_no_outcome(
    tmp_path: Path,
    toolchain: Toolchain,
    cache_server: CacheServer,
    silent_port: int,
    server: str,
) -> None:
    url = {
        "refused": f"http://127.0.0.1:{free_port()}/astest",
        "silent": f"http://127.0.0.1:{silent_port}/astest",
        "garbage": cache_server.url("garbage"),
        "broken": cache_server.url("broken"),
    }[server]
    without = copy_project("failing", tmp_path / "without", toolchain).doit(
        env={"ASTEST_TIMEOUT": "2"}
    )
    machine = Machine(tmp_path / "with", toolchain, fixture="failing")
    run = machine.doit(url, ASTEST_TIMEOUT="2", ASTEST_REMOTE_CACHE_REQUEST_TIMEOUT="0.5")
    assert run.exit_code == without.exit_code != 0
    assert verdict_lines(run) == verdict_lines(without)
    warnings = remote_warnings(run)
    assert len(warnings) == 1, run.stderr[-3000:]
    assert "running without it for the rest of this run" in warnings[0]
    assert run.stdout.splitlines()[-2] == without.last_line  # the tests line, then the cache's


@pytest.mark.toolchains("1.0.7")
def test_a_tampered_blob_is_a_miss_with_one_warning(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    url = cache_server.url()
    first = Machine(tmp_path / "first", toolchain)
    cold = first.doit(url)
    assert cold.exit_code == 0
    modules = [
        path
        for path in (cache_server.stored / "cas").iterdir()
        if path.read_bytes()[:4] == b"\0asm"
    ]
    assert len(modules) == PASSING_PAIRS
    modules[0].write_bytes(modules[0].read_bytes() + b"\0")  # nginx keeps whatever it is given
    second = Machine(tmp_path / "second", toolchain)
    run = second.doit(url)
    assert run.exit_code == 0
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and "does not hash to its name" in warnings[0], run.stderr
    assert remote_line(run).startswith(f"remote cache: {2 * PASSING_PAIRS - 1} hits, 1 miss, ")
    assert second.compiler_calls()  # that one spec was compiled here
    assert verdict_lines(run) == verdict_lines(cold)
    # the wrong blob streamed into a temporary file beside the module, which is gone
    assert not list(second.project.root.rglob("*.tmp"))


@pytest.mark.toolchains("1.0.7")
def test_entries_signed_with_another_key_are_misses(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    url = cache_server.url()
    first = Machine(tmp_path / "first", toolchain)
    assert first.doit(url, ASTEST_REMOTE_CACHE_SIGNING_KEY="main branch key").exit_code == 0
    planted = Machine(tmp_path / "second", toolchain)
    # Read mode: a writer with another key would replace the entries with its own.
    run = planted.doit(
        url, ASTEST_REMOTE_CACHE_SIGNING_KEY="a key of its own", ASTEST_REMOTE_CACHE_MODE="read"
    )
    assert run.exit_code == 0
    assert remote_line(run).startswith(f"remote cache: 0 hits, {2 * PASSING_PAIRS} misses, ")
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and "signature does not match" in warnings[0], run.stderr
    assert "key" not in warnings[0].replace("signing key", "")
    assert planted.compiler_calls()
    trusted = Machine(tmp_path / "third", toolchain)
    hit = trusted.doit(url, ASTEST_REMOTE_CACHE_SIGNING_KEY="main branch key")
    assert remote_line(hit).startswith(f"remote cache: {2 * PASSING_PAIRS} hits, 0 misses")


@pytest.mark.toolchains("1.0.7")
def test_two_runs_uploading_at_once_leave_whole_entries(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    url = cache_server.url()
    machines = [Machine(tmp_path / name, toolchain) for name in ("one", "two")]
    started = [
        m.project.start_doit(env={**m.environment, "ASTEST_REMOTE_CACHE": url}) for m in machines
    ]
    assert [process.wait(timeout=600) for process in started] == [0, 0]
    entries = sorted((cache_server.stored / "ac").iterdir())
    assert len(entries) == 2 * PASSING_PAIRS
    for path in entries:
        entry = decode_entry(path.name, path.read_bytes(), None)
        assert all((cache_server.stored / "cas" / d).is_file() for d in entry.blobs.values())
    # A third machine with doit's workers (-n 2): their counts reach the summary too.
    third = Machine(tmp_path / "three", toolchain)
    run = third.doit(url, "-n", "2")
    assert run.exit_code == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert remote_line(run) == ALL_HITS


@pytest.mark.toolchains("1.0.7")
def test_a_failing_spec_is_never_served_from_the_cache(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    url = cache_server.url()
    first = Machine(tmp_path / "first", toolchain, fixture="failing")
    cold = first.doit(url, ASTEST_TIMEOUT="2")
    assert cold.exit_code != 0
    second = Machine(tmp_path / "second", toolchain, fixture="failing")
    run = second.doit(url, ASTEST_TIMEOUT="2")
    assert run.exit_code == cold.exit_code
    assert verdict_lines(run) == verdict_lines(cold)
    failed = [line for line in summary_lines(run) if line.startswith(" FAIL ")]
    assert failed and not any(line.endswith("(remote)") for line in failed)
    mine, theirs = second.results(), first.results()
    passed = 0
    for name, data in mine.items():
        head = json.loads(data.split(b"\n")[0])
        served = data == theirs[name]
        assert served == (head["status"] == "passed"), name
        passed += head["status"] == "passed"
    # What the first machine stored: a run entry per pass only, and the builds that compiled.
    kinds = [
        decode_entry(path.name, path.read_bytes(), None).meta["kind"]
        for path in (cache_server.stored / "ac").iterdir()
    ]
    assert kinds.count("run") == passed
    assert kinds.count("build") > 0
    hits = int(remote_line(run).split()[2])
    assert hits == kinds.count("build") + passed  # every stored entry served, nothing else


@pytest.mark.toolchains("1.0.7")
def test_no_secret_reaches_the_output_the_files_or_doits_database(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    token = "bearer-token-7d1f"
    signing_key = "signing-key-9c2e"
    url = f"http://ci:{PASSWORD}@127.0.0.1:{cache_server.port}/private"
    machine = Machine(tmp_path / "first", toolchain)
    secrets = {
        PASSWORD,
        token,
        signing_key,
        base64.b64encode(f"ci:{PASSWORD}".encode()).decode(),
    }
    runs = [
        machine.doit(
            url,
            ASTEST_REMOTE_CACHE_HEADER=f"X-Team-Token: {token}",
            ASTEST_REMOTE_CACHE_SIGNING_KEY=signing_key,
        ),
        machine.doit(url, "info", "astest:run:wasi:geometry"),
        machine.doit(url, "-v", "2"),
    ]
    assert runs[0].exit_code == 0 and puts(cache_server)
    assert " uploaded (" in remote_line(runs[0]) and " 0 uploaded " not in remote_line(runs[0])
    for run in runs:
        for secret in secrets:
            assert secret not in run.stdout and secret not in run.stderr
    written = [p for p in machine.project.root.rglob("*") if p.is_file() and not p.is_symlink()]
    assert any(path.name.startswith(".doit.db") for path in written)
    for path in written:
        data = path.read_bytes()
        for secret in secrets:
            assert secret.encode() not in data, f"{secret!r} in {path}"


@pytest.mark.toolchains("1.0.7")
def test_astest_doctor_and_the_doctor_task_check_the_remote_cache(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    machine = Machine(tmp_path / "pull-request", toolchain)
    command = [sys.executable, "-m", "astest_tasks", "doctor", "--remote-cache"]
    readonly = subprocess.run(
        [*command, cache_server.url("readonly")],
        cwd=machine.project.root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert readonly.returncode == 1
    assert "refuses writing a blob (HTTP 403) in read-write mode" in readonly.stdout
    assert "fix: use --remote-cache-mode=read" in readonly.stdout
    # read-write without a signing key: said to trust unsigned entries, as Bazel does
    assert re.search(
        r"^WARN +remote +entries on .* are unsigned and trusted by design", readonly.stdout, re.M
    )
    read_mode = {"ASTEST_REMOTE_CACHE_MODE": "read"}
    task = machine.doit(cache_server.url("readonly"), "astest:doctor", **read_mode)
    assert task.exit_code == 0, task.stdout
    assert "answers lookups (read mode)" in task.stdout


def command_in(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "astest_tasks", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.toolchains("1.0.7")
@pytest.mark.parametrize(
    "url", ["http://ci:hunter2@cache:notaport/x", "http://cache:99999/x", "http://[::1/x"]
)
def test_a_malformed_url_is_one_error_line_on_every_route(
    tmp_path: Path, toolchain: Toolchain, url: str
) -> None:
    """These URLs made urllib raise a ValueError that reached the user as a traceback, from a
    run and from `astest doctor` alike. Every way in: doit's environment variable, the `astest`
    command's option, a dodo.py that pins the cache, and doctor."""
    machine = Machine(tmp_path / "first", toolchain)
    root = machine.project.root
    run = machine.doit(url)
    command = command_in(root, "--remote-cache", url)
    doctor = command_in(root, "doctor", "--remote-cache", url)
    (root / "dodo.py").write_text(
        "from astest_tasks import make_astest_tasks\n\n"
        f"task_astest = make_astest_tasks(remote_cache={url!r})\n"
        'DOIT_CONFIG = {"backend": "sqlite3"}\n'
    )
    pinned = machine.project.doit(env=machine.environment)
    outputs = [(out.stdout, out.stderr) for out in (run, command, pinned)]
    assert [run.exit_code, command.returncode, pinned.exit_code] == [3, 3, 3]
    for _, stderr in outputs:
        (error,) = [line for line in stderr.splitlines() if line.startswith("ERROR: ")]
        assert "is no URL: its " in error and "; fix: give the cache's address" in error
    assert doctor.returncode == 1
    assert re.search(r"^ERROR +remote +--remote-cache: .* is no URL: its ", doctor.stdout, re.M)
    for stdout, stderr in [*outputs, (doctor.stdout, doctor.stderr)]:
        assert "Traceback" not in stdout + stderr and "hunter2" not in stdout + stderr
    assert machine.compiler_calls() == []  # refused before any work


@pytest.mark.toolchains("1.0.7")
def test_a_header_with_a_line_break_is_one_error_line_not_a_silent_miss(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    """A header value with a line break (an environment variable can hold one) raised in
    http.client at the first request: every lookup of a run missed without a word, and doctor
    printed a traceback quoting the value."""
    machine = Machine(tmp_path / "first", toolchain)
    header = {"ASTEST_REMOTE_CACHE_HEADER": "X-Token: s3cret-t0ken\r\nX-Other: 1"}
    run = machine.doit(cache_server.url(), **header)
    doctor = subprocess.run(
        [sys.executable, "-m", "astest_tasks", "doctor", "--remote-cache", cache_server.url()],
        cwd=machine.project.root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **machine.environment, **header},
    )
    assert run.exit_code == 3 and doctor.returncode == 1
    (error,) = [line for line in run.stderr.splitlines() if line.startswith("ERROR: ")]
    assert "header: its name must be one word and its value printable ASCII" in error
    assert re.search(r"^ERROR +remote +.*header: its name must be one word", doctor.stdout, re.M)
    for output in (run.stdout, run.stderr, doctor.stdout, doctor.stderr):
        assert "Traceback" not in output and "s3cret" not in output
    assert machine.compiler_calls() == [] and not puts(cache_server)
