"""doit's incremental behaviour on our tasks: nothing re-runs without a reason, and every real
change (a spec, a helper it imports, a failing result) re-runs exactly what it affects."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.conftest import DoitRun, Project, clone_project

# doit's up-to-date checks on our tasks and our import scanning decide what re-runs; no as-test
# version changes that: one toolchain, the one real projects use, covers it.
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.8.0")]

MODES = ("wasi", "bindings")


def tasks_for(kind: str, *spec_ids: str) -> set[str]:
    return {f"astest:{kind}:{mode}:{spec_id}" for mode in MODES for spec_id in spec_ids}


def executed(run: DoitRun, kind: str) -> set[str]:
    return {name for name in run.executed if name.startswith(f"astest:{kind}:")}


def test_first_run_builds_and_runs_everything(built_passing: tuple[Project, DoitRun]) -> None:
    _, run = built_passing
    every = ("geometry", "skips", "snap", "left/shared", "right/shared")
    assert executed(run, "build") == tasks_for("build", *every)
    assert executed(run, "run") == tasks_for("run", *every)
    assert "astest:summary" in run.executed


def test_nothing_changed_means_no_build_and_no_run(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    run = project.doit()
    assert run.exit_code == 0
    assert run.executed == ["astest:summary"]
    assert "files: 10 passed, 0 failed, 0 skipped (10 cached)" in run.stdout


# What a run with nothing to do must not load (issue 40): each is only for a run that writes
# reports, talks to a cache, runs a spec or checks the setup. Python names each module it imports
# with -X importtime (PYTHONPROFILEIMPORTTIME), so the list is read off the real run, not timed.
NOT_FOR_A_NO_CHANGE_RUN = (
    "urllib3",
    "http.client",
    "ssl",
    "xml.etree.ElementTree",
    "jinja2",
    "wasmtime",
    "playwright",
    "watchfiles",
    "wcmatch",  # only for a config whose input has ! patterns, which this one has not
    "astest_tasks.remote.http_cache",
    "astest_tasks.remote.doctor_checks",
    "astest_tasks.output.doctor_report",
    "astest_tasks.output.html",
    "astest_tasks.run.wasm_host",
    # Nothing is built or run: the actions that would, and what only they use (issue 40).
    "astest_tasks.actions.build_action",
    "astest_tasks.actions.run_action",
    "astest_tasks.actions.remote_actions",
    "astest_tasks.actions.fuzz_actions",
    "astest_tasks.tasks.fuzz_tasks",
    "astest_tasks.build.compiler",
    "astest_tasks.build.compile_server",
    "astest_tasks.build.module_check",
    "astest_tasks.schedule.compile_pool",
    "astest_tasks.schedule.compile_ahead",
    "astest_tasks.schedule.shared_compiler",
    "astest_tasks.schedule.run_helper",
    "astest_tasks.model.crash_records",
    "astest_tasks.fuzz.crash_records",
    # What only a running spec, a fuzz campaign, a balanced shard, an unmatched selector or a
    # remote cache uses (issue 40: each was imported at module level by a module every call
    # loads).
    "astest_tasks.run.browser_session",
    "astest_tasks.run.channel",
    "astest_tasks.model.snapshots",
    "astest_tasks.fuzz.runs",
    "astest_tasks.fuzz.results",
    "astest_tasks.fuzz.fuzzer_report",
    "astest_tasks.fuzz.fuzzer_selection",
    "statistics",
    "difflib",
    "uuid",
    "platform",
    "decimal",
    # The doctor (only listed or named) and the remote cache's session and counters (only a call
    # with a cache): each was loaded by every call.
    "astest_tasks.tasks.doctor",
    "astest_tasks.remote.session",
    "astest_tasks.remote.counters",
    # colorama's Windows console support (ctypes among it) for a few constant colour codes:
    # output/ansi.py holds the codes, and colorama is imported on Windows alone.
    "colorama",
    "ctypes",
    # What only GitHub Actions (annotations, the step summary) or a full disk needs.
    "astest_tasks.output.github_actions",
    "astest_tasks.output.step_summary",
    "astest_tasks.model.locations",
    "astest_tasks.actions.task_failure",
    # What only --changed, --last-failed or a shard reading published durations plans with.
    "astest_tasks.config.changed_specs",
    "astest_tasks.config.git_changes",
    "astest_tasks.config.last_failed",
    "astest_tasks.remote.shard_durations",
    # The report formats and what makes their input: the reports are up to date.
    "astest_tasks.output.formats.report_json",
    "astest_tasks.output.formats.junit",
    "astest_tasks.output.formats.tap",
    "astest_tasks.output.formats.ctrf",
    "astest_tasks.output.formats.html_report",
    "astest_tasks.output.report_input",
    "astest_tasks.output.ci_reports",
    # --verbose's tree, coverage's lines and files, --show-coverage's listing, an env file.
    "astest_tasks.output.verbose_tree",
    "astest_tasks.output.coverage_console",
    "astest_tasks.output.coverage_gaps",
    "astest_tasks.coverage.cobertura",
    "astest_tasks.coverage.files",
    "astest_tasks.config.envfile",
    # What running a spec needs beyond choosing its runtime: nothing runs.
    "astest_tasks.run.runner_script",
    "astest_tasks.run.guest_run",
    "astest_tasks.run.wasm_compiler",
    "astest_tasks.run.runtime_env",
    "astest_tasks.core.process_env",
    # The clean actions (doit clean), a result's rows and test cases (a result read whole, the
    # reports), and the filters of --suite and --test-name-pattern (not given).
    "astest_tasks.actions.cleaning",
    "astest_tasks.model.report_rows",
    "astest_tasks.model.test_cases",
    "astest_tasks.model.counting",
    "astest_tasks.output.suite_filter",
    "astest_tasks.output.test_name_filter",
    # The durations' history (a rewrite of the reports), the runner template (a runner that is
    # missing), a mode name's fix (an unknown mode), whose thread runs ahead (a build or a run).
    "astest_tasks.output.duration_history",
    "astest_tasks.run.templating",
    "astest_tasks.config.mode_hint",
    "astest_tasks.core.process_role",
    # --version's and --list's answer, and a failure's length caps in the printout.
    "astest_tasks.plan.plan_listing",
    "astest_tasks.output.text_caps",
    # A mode name's Unicode categories past ASCII, and the utf-8-sig codec the config was read
    # with (a leading byte-order mark is dropped without it).
    "unicodedata",
    "encodings.utf_8_sig",
    # How a task is keyed in the remote cache: there is none.
    "astest_tasks.remote.task_keys",
    "astest_tasks.remote.portable_keys",
    "astest_tasks.remote.entries",
    # A temporary file's or a session's random name (os.urandom, as secrets does it), and the
    # quoting of a failure's command line.
    "secrets",
    "hmac",
    "shlex",
)


def imported_modules(stderr: str) -> set[str]:
    """The modules ``-X importtime`` lists ("import time: self | cumulative | name")."""
    rows = (line.split("|") for line in stderr.splitlines() if line.startswith("import time:"))
    return {row[2].strip() for row in rows if len(row) == 3 and not row[0].endswith("[us]")}


def test_a_no_change_run_loads_nothing_it_does_not_use(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    assert project.doit().executed == ["astest:summary"]
    # Outside GitHub Actions, also when the suite itself runs there (only a runner step loads
    # what annotates).
    run = project.doit(env={"PYTHONPROFILEIMPORTTIME": "1", "GITHUB_ACTIONS": ""})
    assert run.exit_code == 0
    assert run.executed == ["astest:summary"]
    loaded = imported_modules(run.stderr)
    assert "astest_tasks.tasks.factory" in loaded  # the listing is read
    unwanted = sorted(
        name
        for name in loaded
        for banned in NOT_FOR_A_NO_CHANGE_RUN
        if name == banned or name.startswith(banned + ".")
    )
    assert unwanted == [], f"a run with nothing to do loaded {unwanted}"


def test_editing_a_spec_rebuilds_and_reruns_only_that_spec(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    spec = project.root / "assembly/__tests__/geometry.spec.ts"
    spec.write_text(spec.read_text().replace("expect(area(0, 3)).toBe(0.0);", ""))
    run = project.doit()
    assert run.exit_code == 0
    assert executed(run, "build") == tasks_for("build", "geometry")
    assert executed(run, "run") == tasks_for("run", "geometry")
    assert (
        project.spec_report("assembly/__tests__/geometry.spec.ts", "wasi")["counts"]["tests_passed"]
        == 5
    )


def test_editing_a_helper_reruns_exactly_the_specs_that_import_it(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    helper = project.root / "assembly/lib/counter.ts"
    helper.write_text(helper.read_text() + "\nexport const UNUSED: i32 = 1;\n")
    run = project.doit()
    assert run.exit_code == 0
    # snap.spec.ts and right/shared.spec.ts import lib/counter.ts; the others do not.
    assert executed(run, "build") == tasks_for("build", "snap", "right/shared")


def test_a_rebuilt_but_identical_wasm_does_not_rerun_its_test(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    (project.root / ".as-test/build/wasi/skips.spec.wasm").unlink()
    run = project.doit()
    assert executed(run, "build") == {"astest:build:wasi:skips"}
    assert executed(run, "run") == set()
    assert (project.root / ".as-test/build/wasi/skips.spec.wasm").is_file()


def test_a_changed_snapshot_file_reruns_its_spec(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    snap = project.root / ".as-test/snapshots/snap.spec.snap"
    snap.write_text(snap.read_text().replace('"count=2"', '"count=3"'))
    run = project.doit()
    assert executed(run, "build") == set()
    assert executed(run, "run") == tasks_for("run", "snap")
    assert run.exit_code == 1
    assert 'expected: "count=3"' in run.stdout


def test_failing_specs_rerun_every_time_until_they_pass(
    built_failing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_failing[0], tmp_path)
    failing = ("abort", "assertions", "broken", "hang", "snapshots")
    again = project.doit(env={"ASTEST_TIMEOUT": "2"})
    assert again.exit_code == 1
    assert executed(again, "run") == tasks_for("run", *failing)
    # Only the spec that never compiled is compiled again.
    assert executed(again, "build") == tasks_for("build", "broken")

    spec = project.root / "assembly/__tests__/assertions.spec.ts"
    spec.write_text(
        spec.read_text().replace("toBe(5)", "toBe(4)").replace('"right-value"', '"left-value"')
    )
    fixed = project.doit(env={"ASTEST_TIMEOUT": "2"})
    assert (
        project.spec_report("assembly/__tests__/assertions.spec.ts", "wasi")["verdict"] == "passed"
    )
    assert executed(fixed, "run") == tasks_for("run", *failing)

    after = project.doit(env={"ASTEST_TIMEOUT": "2"})
    assert "astest:run:wasi:assertions" not in after.executed
    assert "astest:run:bindings:assertions" not in after.executed
    assert executed(after, "run") == tasks_for("run", "abort", "broken", "hang", "snapshots")
