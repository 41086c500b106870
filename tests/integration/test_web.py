"""The web target end to end: real asc builds run in a real Chromium driven by Playwright, with
results compared against the bindings target on the same specs."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.run.browser_choice import BrowserChoice, find_chromium
from astest_tasks.run.browser_session import (
    BrowserSession,
    close_shared_sessions,
    shared_session,
)
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.web_runtime import run_in_browser
from tests.integration.conftest import DoitRun, Project, copy_project

# One worker runs the whole module (pytest-xdist's loadgroup): its module-scoped projects are
# built once, not once per worker.
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("web")]

LAUNCH_LINE = "astest: started Chromium"


def with_web_mode(project: Project, *, only_web: bool = False, spec: str | None = None) -> None:
    path = project.root / "as-test.config.json"
    config = json.loads(path.read_text())
    web = {"buildOptions": {"target": "web"}}
    config["modes"] = {"web": web} if only_web else {**config["modes"], "web": web}
    if spec is not None:
        config["input"] = [spec]
    path.write_text(json.dumps(config))


# Marks the browsers this test process starts, directly or through a doit it runs: both inherit
# its environment. Other test processes (parallel workers, other checkouts) start their own.
BROWSER_OWNER = f"ASTEST_TESTS_BROWSER_OWNER={os.getpid()}-{time.monotonic_ns()}"
os.environ["ASTEST_TESTS_BROWSER_OWNER"] = BROWSER_OWNER.split("=", 1)[1]


def chromium_processes() -> set[int]:
    """Browsers that Playwright launched (it always passes --remote-debugging-pipe) for this test
    process."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                if b"chrom" not in cmdline or b"--remote-debugging-pipe" not in cmdline:
                    continue
                environment = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if BROWSER_OWNER.encode() in environment:
                found.add(int(entry.name))
    return found


@pytest.fixture(scope="module")
def web_passing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, DoitRun]:
    project = copy_project("passing", tmp_path_factory.mktemp("web-passing"))
    with_web_mode(project)
    return project, project.doit()


@pytest.fixture(scope="module")
def web_failing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, DoitRun]:
    project = copy_project("failing", tmp_path_factory.mktemp("web-failing"))
    with_web_mode(project)
    # Short, for the hanging spec, but long enough for the others in a browser on a loaded
    # machine (one took over 0.5 s in CI).
    return project, project.doit(env={"ASTEST_TIMEOUT": "5"})


def by_mode(project: Project, mode: str) -> dict[str, dict[str, Any]]:
    return {e["spec_id"]: e for e in project.report()["specs"] if e["mode"] == mode}


@pytest.mark.parametrize("fixture", ["web_passing", "web_failing"])
def test_web_gives_the_same_verdicts_and_counts_as_bindings(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    project, run = request.getfixturevalue(fixture)
    web, bindings = by_mode(project, "web"), by_mode(project, "bindings")
    assert web.keys() == bindings.keys() and len(web) == 5, run.stdout + run.stderr
    for spec_id, ours in web.items():
        assert ours["verdict"] == bindings[spec_id]["verdict"], spec_id
        assert ours["counts"] | {"time_ms": 0} == bindings[spec_id]["counts"] | {"time_ms": 0}, (
            spec_id
        )


def test_one_browser_serves_every_web_spec_of_a_doit_process(
    web_passing: tuple[Project, DoitRun], web_failing: tuple[Project, DoitRun]
) -> None:
    for _, run in (web_passing, web_failing):
        assert run.stderr.count(LAUNCH_LINE) == 1, run.stderr


def test_a_spec_that_hangs_in_the_page_times_out_and_the_next_spec_still_runs(
    web_failing: tuple[Project, DoitRun],
) -> None:
    project, run = web_failing
    web = by_mode(project, "web")
    assert web["hang"]["verdict"] == "failed"
    assert "timed out after 5 s" in json.dumps(web["hang"])
    # snapshots.spec runs after hang.spec, in the same browser (one launch, above)
    assert web["snapshots"]["counts"]["tests_passed"] > 0
    assert run.stdout.index("web       hang") < run.stdout.index("web       snapshots")


def test_snapshots_created_in_the_browser_match_the_ones_as_test_wrote(tmp_path: Path) -> None:
    project = copy_project("passing", tmp_path)
    with_web_mode(project, only_web=True, spec="assembly/__tests__/snap.spec.ts")
    snap = project.root / ".as-test/snapshots/snap.spec.snap"
    recorded = snap.read_bytes()  # as written by as-test 1.0.7 for this spec
    assert project.doit().exit_code == 0, "the browser run must match the stored snapshots"
    snap.unlink()
    missing = project.doit()
    assert missing.exit_code == 1
    created = project.doit("astest", "--update-snapshots=create")
    assert created.exit_code == 0, created.stdout + created.stderr
    assert snap.read_bytes() == recorded


def test_a_headful_request_without_a_display_runs_headless_and_says_so(tmp_path: Path) -> None:
    project = copy_project("passing", tmp_path)
    with_web_mode(project, only_web=True, spec="assembly/__tests__/geometry.spec.ts")
    env = {"ASTEST_HEADFUL": "1", "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    run = project.doit(env=env)
    assert run.exit_code == 0, run.stdout + run.stderr
    assert "there is no display" in run.stdout
    assert "(headless)" in run.stderr


def test_without_chromium_web_specs_fail_with_how_to_install_it_and_the_rest_run(
    tmp_path: Path,
) -> None:
    project = copy_project("passing", tmp_path)
    with_web_mode(project)
    run = project.doit(env={"BROWSER": str(tmp_path / "no-such-chromium")})
    assert run.exit_code == 1
    assert "apt-get install chromium" in run.stdout
    specs = project.report()["specs"]
    assert {e["verdict"] for e in specs if e["mode"] == "web"} == {"failed"}
    assert {e["verdict"] for e in specs if e["mode"] != "web"} == {"passed"}


@pytest.mark.parametrize("run_ahead", ["always", "0"])
def test_one_browser_launch_serves_a_run_of_web_specs_with_or_without_the_run_ahead(
    tmp_path: Path, run_ahead: str
) -> None:
    # Every process that could start Chromium (doit, the run ahead's helper) is counted: the
    # browser it starts is a script that notes each start, then is the real one.
    starts = tmp_path / "chromium-starts.log"
    browser = tmp_path / "chromium-counting"
    real = shlex.quote(find_chromium(""))
    browser.write_text(f'#!/bin/sh\necho started >> {shlex.quote(str(starts))}\nexec {real} "$@"\n')
    browser.chmod(0o755)
    project = copy_project("passing", tmp_path)
    with_web_mode(project)  # web specs beside wasi and bindings ones, which the helper may take
    run = project.doit(env={"ASTEST_RUN_AHEAD": run_ahead, "BROWSER": str(browser)})
    assert run.exit_code == 0, run.stdout[-3000:] + run.stderr[-3000:]
    web_runs = [task for task in run.executed if task.startswith("astest:run:web:")]
    assert len(web_runs) >= 5, run.executed
    assert starts.read_text().splitlines() == ["started"]


@pytest.mark.parametrize("parallel", [[], ["-n", "2"], ["-n", "2", "-P", "thread"]])
def test_no_browser_outlives_the_doit_process(tmp_path: Path, parallel: list[str]) -> None:
    before = chromium_processes()
    project = copy_project("passing", tmp_path)
    with_web_mode(project, only_web=True)
    run = project.doit(*parallel)
    assert run.exit_code == 0, run.stdout + run.stderr
    launches = run.stderr.count(LAUNCH_LINE)
    assert 1 <= launches <= (2 if parallel[:2] == ["-n", "2"] and "thread" not in parallel else 1)
    assert chromium_processes() - before == set()


def test_web_modes_need_no_runner_script(web_passing: tuple[Project, DoitRun]) -> None:
    project, run = web_passing
    assert run.exit_code == 0
    assert not (project.root / ".as-test/runners/default.web.py").exists()
    assert "astest:runner:web" not in run.stdout


def wait_for(condition: Callable[[], bool], seconds: float = 30) -> bool:
    """Poll until ``condition`` holds; False if it still does not after ``seconds`` (a limit
    for a broken run, far beyond what a loaded machine needs)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill_browsers_of_this_process(known: set[int]) -> int:
    killed = 0
    for pid in chromium_processes() - known:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed


@pytest.fixture
def browser_litter_folder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A browser killed on purpose cannot remove its profile and socket folders: Playwright's
    driver and Chromium make them here, removed after the test, rather than in the machine's
    temp folder. A short folder of that temp folder, not ``tmp_path``: Chromium puts a Unix
    socket in it, whose path must stay under 108 bytes (an xdist worker's ``tmp_path`` does not)."""
    folder = Path(tempfile.mkdtemp(prefix="astest-web-"))
    monkeypatch.setenv("TMPDIR", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.usefixtures("browser_litter_folder")
def test_a_browser_that_dies_is_restarted_once() -> None:
    others = chromium_processes()
    chromium = find_chromium("")
    session = BrowserSession(BrowserChoice(chromium, headless=True))
    try:
        assert session.call(lambda browser: browser.version)
        assert kill_browsers_of_this_process(others) > 0
        page_title = session.call(lambda browser: browser.new_page().title())
        assert page_title == ""  # a fresh browser answered
        assert session.launches == 2
        assert kill_browsers_of_this_process(others) > 0
        with pytest.raises(Exception, match=r"(?i)closed|crash|disconnect"):
            session.call(lambda browser: browser.new_page())
        assert session.launches == 2, "restarted once, not again"
    finally:
        session.close()
    assert chromium_processes() - others == set()


@pytest.mark.parametrize("whole_group", [True, False], ids=["ctrl-c", "sigint-to-doit-alone"])
def test_ctrl_c_during_a_web_run_leaves_no_browser_behind(
    tmp_path: Path, whole_group: bool
) -> None:
    project = copy_project("failing", tmp_path)
    with_web_mode(project, only_web=True, spec="assembly/__tests__/hang.spec.ts")
    assert project.doit("astest:build:web:hang").exit_code == 0
    others = chromium_processes()
    # Its own process group, as a terminal gives it.
    proc = project.start_doit(
        env={"ASTEST_TIMEOUT": "60"}, stderr=subprocess.PIPE, new_session=True
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the hanging spec is running once the browser is up
            if LAUNCH_LINE in line:
                break
        assert wait_for(lambda: bool(chromium_processes() - others)), "no browser is running"
        if whole_group:  # a terminal's Ctrl-C reaches every process of the group
            os.killpg(proc.pid, signal.SIGINT)
        else:  # only doit hears it: closing the browser is up to us
            proc.send_signal(signal.SIGINT)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
    wait_for(lambda: not chromium_processes() - others)
    assert chromium_processes() - others == set()
    assert proc.returncode != 0


def test_after_the_page_crashes_the_next_spec_gets_a_fresh_page(tmp_path: Path) -> None:
    project = copy_project("passing", tmp_path)
    with_web_mode(project, only_web=True, spec="assembly/__tests__/geometry.spec.ts")
    assert project.doit("astest:build:web:geometry").exit_code == 0
    wasm = project.root / ".as-test/build/web/geometry.spec.wasm"
    choice = BrowserChoice(find_chromium(""), headless=True)

    def run_geometry() -> ProtocolChannel:
        channel = ProtocolChannel(None)
        run = run_in_browser(wasm, channel, 20.0, choice)
        assert run.exit_code == 0 and not run.timed_out, run
        return channel

    try:
        first = run_geometry()
        session = shared_session(choice)
        crashed_page = session.call(lambda browser: browser.contexts[0].pages[0])
        with contextlib.suppress(Exception):  # the renderer dies under Playwright's feet
            session.call(lambda _browser: crashed_page.goto("chrome://crash"))
        second = run_geometry()
        assert first.report_payload is not None and second.report_payload is not None
        assert second.report_payload.count(b'"verdict"') == first.report_payload.count(b'"verdict"')
        fresh_page = session.call(lambda browser: browser.contexts[0].pages[-1])
        assert fresh_page is not crashed_page
        assert session.launches == 1, "a crashed page must not cost a new browser"
    finally:
        close_shared_sessions()


@pytest.mark.usefixtures("browser_litter_folder")
def test_a_browser_that_cannot_be_restarted_fails_calls_and_never_hangs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    others = chromium_processes()
    session = BrowserSession(BrowserChoice(find_chromium(""), headless=True))
    try:
        assert session.call(lambda browser: browser.version)

        def launch_fails(manager: object) -> object:
            session.launches += 1
            raise RuntimeError("no Chromium this time")

        monkeypatch.setattr(session, "_launch", launch_fails)
        assert kill_browsers_of_this_process(others) > 0
        with pytest.raises(UserError, match="Chromium died and could not be restarted"):
            session.call(lambda browser: browser.new_page())
        with pytest.raises(Exception, match=r"(?i)closed|crash|disconnect"):
            session.call(lambda browser: browser.new_page())  # given up: a clear error again
    finally:
        session.close()


def test_a_web_spec_that_floods_its_output_is_stopped_at_the_output_limit(tmp_path: Path) -> None:
    project = copy_project("limits", tmp_path)
    with_web_mode(project, only_web=True, spec="assembly/__tests__/flood.spec.ts")
    run = project.doit("astest", "--output-limit", "0.25", env={"ASTEST_TIMEOUT": "60"})
    assert run.exit_code == 1
    assert "the spec's output passed the limit of 0.25 MiB" in run.stdout
    report = project.spec_report("assembly/__tests__/flood.spec.ts", "web")
    assert report["duration_s"] < 30, "stopped at the limit, not at the timeout"


SPEC_LIMIT_S = 5.0
SLOW_START_S = SPEC_LIMIT_S + 1


def test_starting_chromium_does_not_count_against_the_first_specs_timeout(
    tmp_path: Path,
) -> None:
    project = copy_project("passing", tmp_path)
    with_web_mode(project, only_web=True, spec="assembly/__tests__/geometry.spec.ts")
    # A browser whose start alone outlasts the whole timeout: were the start counted, the spec
    # would time out. The spec itself gets the whole limit, which it needs under load (on a busy
    # 2-core machine a 0.5 s limit was not enough for the spec alone).
    slow_chromium = tmp_path / "slow-chromium"
    slow_chromium.write_text(
        f'#!/bin/sh\nsleep {SLOW_START_S:g}\nexec {shlex.quote(find_chromium(""))} "$@"\n'
    )
    slow_chromium.chmod(0o755)
    run = project.doit(env={"ASTEST_TIMEOUT": f"{SPEC_LIMIT_S:g}", "BROWSER": str(slow_chromium)})
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.stderr.count(LAUNCH_LINE) == 1
    assert str(slow_chromium) in run.stderr, "the slow browser is the one that started"
    assert project.spec_report("assembly/__tests__/geometry.spec.ts", "web")["verdict"] == "passed"
