"""External runtimes end to end: as-test 1.0.7's stock Node runners and a runner of our own give
the same verdicts and counts as the in-process runners on the same specs."""

from __future__ import annotations

import json
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import Project, copy_project
from tests.integration.toolchains import AS_TEST_1_0, Toolchain

pytestmark = pytest.mark.integration

SPECS = [
    "assembly/__tests__/geometry.spec.ts",
    "assembly/__tests__/skips.spec.ts",
    "assembly/__tests__/snap.spec.ts",
]

# The test's own runtime: Node's WASI with nothing of as-test's, taking the wasm from <file>.
OWN_WASI_RUNNER = """\
import { readFileSync } from "node:fs";
import { WASI } from "node:wasi";

const file = process.argv[2];
const wasi = new WASI({ version: "preview1", args: [file], env: {}, preopens: {} });
const module = new WebAssembly.Module(readFileSync(file));
wasi.start(new WebAssembly.Instance(module, wasi.getImportObject()));
"""


@pytest.fixture(scope="module")
def stock_runners(stock_runner_scripts: Callable[[Toolchain], Path]) -> Path:
    """as-test 1.0.7's own runner scripts, written by its `ast init`."""
    return stock_runner_scripts(AS_TEST_1_0)


def configure(project: Project, modes: dict[str, Any]) -> None:
    config = {"input": SPECS, "output": ".as-test/", "modes": modes}
    (project.root / "as-test.config.json").write_text(json.dumps(config, indent=2))


def mode(target: str, cmd: str | None = None) -> dict[str, Any]:
    settings: dict[str, Any] = {"buildOptions": {"target": target}}
    if cmd is not None:
        settings["runOptions"] = {"runtime": {"cmd": cmd}}
    return settings


def outcomes(project: Project, mode_name: str) -> dict[str, tuple[str, dict[str, Any]]]:
    result = {}
    for entry in project.report()["specs"]:
        if entry["mode"] == mode_name:
            counts = {k: v for k, v in entry["counts"].items() if k != "time_ms"}
            result[entry["file"]] = (entry["verdict"], counts)
    return result


def test_external_runtimes_agree_with_the_in_process_ones(
    tmp_path: Path, stock_runners: Path
) -> None:
    project = copy_project("passing", tmp_path)
    shutil.copytree(stock_runners, project.root / ".as-test" / "runners", dirs_exist_ok=True)
    (project.root / "own-runner.mjs").write_text(OWN_WASI_RUNNER)
    configure(
        project,
        {
            "wasi": mode("wasi"),
            "bindings": mode("bindings"),
            "nodewasi": mode("wasi", "node .as-test/runners/default.wasi.js <file>"),
            "nodebindings": mode("bindings", "node ./.as-test/runners/default.bindings.js <file>"),
            "ownwasi": mode("wasi", "node ./own-runner.mjs <file>"),
        },
    )
    run = project.doit()
    assert run.exit_code == 0, run.stdout + run.stderr
    in_process_wasi = outcomes(project, "wasi")
    assert sorted(in_process_wasi) == SPECS
    assert all(verdict == "passed" for verdict, _ in in_process_wasi.values())
    assert outcomes(project, "nodewasi") == in_process_wasi
    assert outcomes(project, "ownwasi") == in_process_wasi
    assert outcomes(project, "nodebindings") == outcomes(project, "bindings")
    # Editing an external runner script re-runs its mode's specs, and only those.
    own = project.root / "own-runner.mjs"
    own.write_text(own.read_text() + "\n// tuned\n")
    again = project.doit()
    assert sorted(t for t in again.executed if t.startswith("astest:run:")) == sorted(
        f"astest:run:ownwasi:{Path(spec).name.removesuffix('.spec.ts')}" for spec in SPECS
    )


def test_a_missing_runtime_executable_fails_its_specs_clearly_and_others_run(
    tmp_path: Path,
) -> None:
    project = copy_project("passing", tmp_path)
    configure(
        project,
        {"ghost": mode("wasi", "no-such-runtime-xyz run <file>"), "wasi": mode("wasi")},
    )
    run = project.doit()
    assert run.exit_code == 1
    for spec in SPECS:
        ghost = project.spec_report(spec, "ghost")
        assert ghost["verdict"] == "failed"
        assert "'no-such-runtime-xyz' was not found" in json.dumps(ghost)
        assert project.spec_report(spec, "wasi")["verdict"] == "passed"
    assert "no-such-runtime-xyz" in run.stdout


# Hangs the first time, until it is stopped; a later start (the check that the interrupted run
# is not cached) ends at once with a failure, rather than sleeping out its two minutes.
STUBBORN_RUNTIME = """\
#!/bin/sh
[ -e runtime.pid ] && exit 1
echo $$ > runtime.pid
exec sleep 120
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
def test_a_signal_to_doit_stops_a_running_external_runtime(
    tmp_path: Path, sig: signal.Signals
) -> None:
    project = copy_project("passing", tmp_path)
    script = project.root / "stubborn.sh"
    script.write_text(STUBBORN_RUNTIME)
    script.chmod(0o755)
    configure(
        project,
        {
            "wasi": {
                "buildOptions": {"target": "wasi"},
                "runOptions": {"runtime": {"cmd": "./stubborn.sh <file>"}},
            }
        },
    )
    assert project.doit("astest:build:wasi:geometry").exit_code == 0
    proc = project.start_doit("astest:run:wasi:geometry", env={"ASTEST_TIMEOUT": "120"})
    pid_file = project.root / "runtime.pid"
    try:
        deadline = time.monotonic() + 60
        while not pid_file.is_file() or not pid_file.read_text().strip():
            assert time.monotonic() < deadline, "the runtime never started"
            time.sleep(0.05)
        runtime_pid = int(pid_file.read_text())
        proc.send_signal(sig)  # SIGKILL: doit can do nothing; the kernel ends the runtime
        assert proc.wait(30) != 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 10
    while _alive(runtime_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(runtime_pid), "the runtime outlived doit"
    # and the interrupted run is not a cached pass
    assert "astest:run:wasi:geometry" in project.doit("astest:run:wasi:geometry").executed


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its exit status waits to be collected
