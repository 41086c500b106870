"""create_tasks asks the installed as-test for its rules: the version warning and try-as."""

from __future__ import annotations

import gc
import json
import os
import pickle
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from doit.exceptions import InvalidTask, TaskFailed

from astest_tasks.config import git_changes, toolchain
from astest_tasks.config.git_changes import ChangedFiles
from astest_tasks.core import project_lock
from astest_tasks.core.errors import UserError
from astest_tasks.core.records import decode, encode
from astest_tasks.model.results import (
    Stage,
    Status,
    read_result,
    read_result_head,
    write_result,
)
from astest_tasks.output.summary import SummaryPlan
from astest_tasks.plan.command_line import CommandLine
from astest_tasks.plan.options import TaskOptions
from astest_tasks.schedule.scheduler import Scheduler
from astest_tasks.tasks import creator
from astest_tasks.tasks.checks import (
    Always,
    BuildUpToDate,
    InputsChanged,
    LastResultPassed,
    NotHandedOver,
    SnapshotsUnchanged,
)
from astest_tasks.tasks.creator import create_tasks
from astest_tasks.tasks.factory import make_astest_tasks
from tests.conftest import (
    ProjectBuilder,
    make_build_failure,
    make_crashed_result,
    make_spec_result,
    write_project,
)
from tests.output.github_commands import runner_commands

SPEC = "assembly/__tests__/math.spec.ts"
# What a terminal acts on (guest_text.py): C0 but tab, DEL and C1; and Unicode's line breaks.
TERMINAL_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


@pytest.fixture(autouse=True)
def fresh_process_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "_warned", set())
    monkeypatch.setattr(project_lock, "_held", {})


def project(root: Path, as_test: str, config: dict[str, object]) -> Path:
    """A project with the packages' manifests (nothing is compiled) and one spec."""
    spec = 'import { expect } from "as-test";\nexpect(1).toBe(1);\n'
    return write_project(root, config, as_test=as_test, files={SPEC: spec})


def make(root: Path) -> list[dict[str, object]]:
    return list(create_tasks(root, TaskOptions()))


def test_an_untested_as_test_is_named_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "1.9.0", {})
    make(root)
    make(root)
    warnings = [line for line in capsys.readouterr().err.splitlines() if "1.9.0" in line]
    assert warnings == [
        "WARNING: as-test 1.9.0 is newer than the versions astest-tasks is tested with "
        "(1.0.7 to 1.8.0); its rules may differ from what we follow; fix: "
        "`npm install --save-dev as-test@1.8.0` (or 1.0.7)"
    ]


def test_a_tested_as_test_gets_no_version_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(project(tmp_path, "1.8.0", {}))
    assert "tested with" not in capsys.readouterr().err


def test_the_try_as_feature_needs_the_try_as_package(tmp_path: Path) -> None:
    root = project(tmp_path, "1.8.0", {"features": ["try-as"]})
    with pytest.raises(UserError, match=r"npm package try-as is not installed.*fix: run"):
        make(root)


def test_the_build_task_of_a_1_8_project_carries_its_features(tmp_path: Path) -> None:
    root = project(tmp_path, "1.8.0", {"features": ["simd"]})
    build = next(task for task in make(root) if str(task["name"]).startswith("build:"))
    _action, (request,) = build["actions"][0]  # type: ignore[index]
    assert request.features == ("simd",)
    assert request.build_env["AS_TEST_MODE_NAME"] == "default"


CALC = "assembly/lib/calc.ts"
TEXT_SPEC = "assembly/__tests__/text.spec.ts"


def changed_project(root: Path) -> Path:
    """Two specs: math imports lib/calc, text imports nothing local; a transform is named by
    the build arguments."""
    project(
        root,
        "1.8.0",
        {"buildOptions": {"target": "wasi", "args": ["--transform ./transform/index.js"]}},
    )
    (root / SPEC).write_text('import { add } from "../lib/calc";\nexpect(add(1, 1)).toBe(2);\n')
    (root / CALC).parent.mkdir(parents=True)
    (root / CALC).write_text("export function add(a: i32, b: i32): i32 { return a + b; }\n")
    (root / TEXT_SPEC).write_text('expect("a".length).toBe(1);\n')
    (root / "transform").mkdir()
    (root / "transform" / "index.js").write_text("export default class Transform {}\n")
    return root


def built_with_changes(
    root: Path, monkeypatch: pytest.MonkeyPatch, changed: set[str]
) -> tuple[list[str], str]:
    """The specs that get a build task when git reports ``changed``, and the summary's note."""

    def report(project_root: Path, ref: str) -> ChangedFiles:
        assert project_root == root and ref == "origin/main"
        return ChangedFiles(ref=ref, paths=frozenset(changed))

    monkeypatch.setattr(git_changes, "changed_files", report)  # read when --changed plans
    made = list(create_tasks(root, TaskOptions.with_values(changed="origin/main")))
    names = [str(task["name"]) for task in made]
    builds = sorted(name.rsplit(":", 1)[-1] for name in names if name.startswith("build:"))
    summary = next(task for task in made if task["name"] == "summary")
    _action, (plan, _session) = summary["actions"][0]
    return builds, plan.note


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        ({CALC}, ["math"]),
        ({TEXT_SPEC}, ["text"]),
        ({".as-test/snapshots/math.spec.snap"}, ["math"]),
        ({".as-test/runners/default.wasi.py"}, ["math", "text"]),
        ({"transform/index.js"}, ["math", "text"]),
        ({"as-test.config.json"}, ["math", "text"]),
        ({"README.md"}, []),
    ],
)
def test_changed_creates_tasks_only_for_the_specs_a_changed_file_affects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: set[str], expected: list[str]
) -> None:
    root = changed_project(tmp_path)
    built, note = built_with_changes(root, monkeypatch, changed)
    assert built == expected
    if not expected:
        assert note.startswith("no spec changed since origin/main")
    else:
        assert note.startswith("--changed=origin/main: ")


def _task(tasks: list[dict[str, object]], prefix: str) -> dict[str, object]:
    return next(task for task in tasks if str(task["name"]).startswith(prefix))


def test_feature_switches_reach_the_build_and_try_as_still_needs_its_package(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, "1.8.0", {"features": ["simd"]})
    tasks = list(create_tasks(root, TaskOptions.with_values(enable="threads", disable="simd")))
    _action, (request,) = _task(tasks, "build:")["actions"][0]  # type: ignore[index]
    assert request.features == ("threads",)
    with pytest.raises(UserError, match=r"npm package try-as is not installed"):
        list(create_tasks(root, TaskOptions.with_values(enable="try-as")))


def test_a_no_snapshot_run_has_a_key_of_its_own_and_a_plain_run_keeps_its_key(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, "1.8.0", {})
    plain = _task(make(root), "run:")
    unchecked = _task(list(create_tasks(root, TaskOptions.with_values(no_snapshot=True))), "run:")
    plain_key = plain["uptodate"][0].config  # type: ignore[index]
    unchecked_key = unchecked["uptodate"][0].config  # type: ignore[index]
    assert "snapshots" not in plain_key
    assert unchecked_key == {**plain_key, "snapshots": "not checked (--no-snapshot)"}
    _action, (request, _session) = unchecked["actions"][0]  # type: ignore[index]
    assert request.snapshots.no_snapshot is True


def test_browser_wins_over_the_browser_variable_and_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = {"buildOptions": {"target": "web"}, "runOptions": {"runtime": {"browser": "a"}}}
    root = project(tmp_path, "1.8.0", config)
    monkeypatch.setenv("BROWSER", str(tmp_path / "from-the-variable"))
    chosen = str(tmp_path / "from-the-option")
    tasks = list(create_tasks(root, TaskOptions.with_values(browser=chosen)))
    _action, (request, _session) = _task(tasks, "run:")["actions"][0]  # type: ignore[index]
    assert request.runtime.browser == chosen


# -- the task graph of a small project: two specs in two modes (tests/conftest.py) -----------------

Task = dict[str, Any]


def created(root: Path, **options: str) -> list[Task]:
    """The tasks of ``root`` for the given option values, as doit gets them from a dodo.py."""
    return list(make_astest_tasks(root)(**options))


def spec_task_names(tasks: Sequence[Task]) -> list[str]:
    """Every task's name but the runner-making ones (tested on their own below)."""
    return [str(t["name"]) for t in tasks if not str(t["name"]).startswith("runner:")]


def named(tasks: Sequence[Task], name: str) -> Task:
    (task,) = [t for t in tasks if t["name"] == name]
    return task


def test_each_spec_of_each_mode_gets_a_build_and_a_run_and_one_summary_closes(
    tmp_project: ProjectBuilder,
) -> None:
    tasks = created(tmp_project())
    # Spec by spec, each build before the previous run (run_ahead.py).
    assert spec_task_names(tasks) == [
        "build:wasi:counter",
        "build:bindings:counter",
        "run:wasi:counter",
        "build:wasi:geometry",
        "run:bindings:counter",
        "build:bindings:geometry",
        "run:wasi:geometry",
        "run:bindings:geometry",
        "summary",
    ]
    assert {t["basename"] for t in tasks} == {"astest"}
    assert named(tasks, "summary")["task_dep"] == [
        "astest:run:wasi:counter",
        "astest:run:wasi:geometry",
        "astest:run:bindings:counter",
        "astest:run:bindings:geometry",
    ]


@pytest.mark.parametrize("settled_first", [True, False])
def test_a_run_asks_for_its_builds_status_itself_unless_doit_settles_the_build_first(
    tmp_project: ProjectBuilder, settled_first: bool
) -> None:
    # doit_call.py reads what doit decided; doit's `info`, `list --status` and `-s` settle none.
    line = CommandLine().settling_builds(settled_first)
    tasks = list(create_tasks(tmp_project(), TaskOptions(), command_line=line))
    checks = named(tasks, "run:wasi:counter")["uptodate"]
    assert any(isinstance(check, BuildUpToDate) for check in checks) is not settled_first
    assert [type(check) for check in checks if not isinstance(check, BuildUpToDate)] == [
        InputsChanged,
        LastResultPassed,
        SnapshotsUnchanged,
        NotHandedOver,
        Always,
    ]


def test_the_plan_is_made_with_the_cyclic_collector_paused(
    tmp_project: ProjectBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    collecting: list[bool] = []

    def make_plan(*args: object, **kwargs: object) -> None:
        collecting.append(gc.isenabled())
        raise UserError("stop here")

    monkeypatch.setattr(creator, "make_plan", make_plan)
    assert gc.isenabled()
    with pytest.raises(UserError):
        list(create_tasks(tmp_project(), TaskOptions()))
    assert collecting == [False]
    assert gc.isenabled()


def test_a_build_depends_on_its_spec_and_the_library_it_imports_and_nothing_else_of_ours(
    tmp_project: ProjectBuilder,
) -> None:
    tasks = created(tmp_project())
    build = named(tasks, "build:wasi:geometry")
    project_files = {p for p in build["file_dep"] if not p.startswith("node_modules/")}
    assert project_files == {"assembly/__tests__/geometry.spec.ts", "assembly/lib/geometry.ts"}
    # The compiler's version is part of what a build depends on.
    assert "node_modules/assemblyscript/package.json" in build["file_dep"]
    assert set(build["targets"]) >= {".as-test/build/wasi/geometry.spec.wasm"}
    # A bindings build also writes the JavaScript glue its run loads.
    bindings = named(tasks, "build:bindings:geometry")
    assert set(bindings["targets"]) >= {
        ".as-test/build/bindings/geometry.spec.wasm",
        ".as-test/build/bindings/geometry.spec.js",
    }


def test_a_call_forgets_the_result_heads_the_last_call_read(
    tmp_project: ProjectBuilder, tmp_path: Path
) -> None:
    """watch mode makes one call per cycle in one process: no head outlives its call."""
    result = tmp_path / "kept.json"
    write_result(result, make_spec_result())
    kept = read_result_head(result)
    assert kept is read_result_head(result)
    created(tmp_project())
    assert kept is not read_result_head(result)


def test_the_compile_ahead_gets_each_builds_inputs_as_absolute_paths(
    tmp_project: ProjectBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    planned: dict[str, list[str]] = {}

    def plan_build(_scheduler: object, basename: str, request: Any, inputs: Any) -> None:
        planned[f"{request.spec.mode}:{request.spec.spec_id}"] = list(inputs)

    monkeypatch.setattr(Scheduler, "plan_build", plan_build)
    tasks = created(tmp_project())
    builds = [t for t in tasks if str(t["name"]).startswith("build:")]
    assert sorted(planned) == sorted(str(t["name"]).removeprefix("build:") for t in builds)
    for build in builds:
        expected = [str(Path.cwd() / dep) for dep in build["file_dep"]]
        assert planned[str(build["name"]).removeprefix("build:")] == expected


def test_an_edit_to_a_spec_or_its_import_reaches_only_that_specs_builds(
    tmp_project: ProjectBuilder,
) -> None:
    tasks = created(tmp_project())
    depending = sorted(
        str(t["name"]) for t in tasks if "assembly/lib/counter.ts" in t.get("file_dep", [])
    )
    assert depending == ["build:bindings:counter", "build:wasi:counter"]


def test_a_run_waits_for_its_own_build_and_no_other_and_writes_its_result(
    tmp_project: ProjectBuilder,
) -> None:
    tasks = created(tmp_project())
    builds = [t for t in tasks if str(t["name"]).startswith("build:")]
    for run in (t for t in tasks if str(t["name"]).startswith("run:")):
        pair = str(run["name"]).removeprefix("run:")
        # doit orders a task after every task whose target it depends on.
        awaited = [str(b["name"]) for b in builds if set(run["file_dep"]) & set(b["targets"])]
        assert awaited == [f"build:{pair}"]
        mode, spec = pair.split(":")
        assert run["targets"] == [f".as-test/build/{mode}/{spec}.result.jsonl"]


def test_every_file_a_run_depends_on_exists_or_is_made_by_a_task(
    tmp_project: ProjectBuilder,
) -> None:
    root = tmp_project()
    tasks = created(root)
    made = {target for t in tasks for target in t.get("targets", [])}
    for run in (t for t in tasks if str(t["name"]).startswith("run:")):
        for path in run["file_dep"]:
            assert path in made or (root / path).is_file(), f"{run['name']}: {path}"


@pytest.mark.parametrize(
    ("options", "expected", "spec_by_spec"),
    [
        ({"mode": "bindings"}, ["bindings:counter", "bindings:geometry"], None),
        ({"spec": "geometry"}, ["wasi:geometry", "bindings:geometry"], None),
        ({"mode": "wasi", "spec": "counter"}, ["wasi:counter"], None),
        (
            {"mode": "bindings,wasi"},
            ["bindings:counter", "bindings:geometry", "wasi:counter", "wasi:geometry"],
            ["bindings:counter", "wasi:counter", "bindings:geometry", "wasi:geometry"],
        ),
    ],
)
def test_mode_and_spec_options_keep_only_the_pairs_they_name(
    tmp_project: ProjectBuilder,
    options: dict[str, str],
    expected: list[str],
    spec_by_spec: list[str] | None,
) -> None:
    tasks = created(tmp_project(), **options)
    runs = [n.removeprefix("run:") for n in spec_task_names(tasks) if n.startswith("run:")]
    builds = [n.removeprefix("build:") for n in spec_task_names(tasks) if n.startswith("build:")]
    # The tasks go spec by spec, modes in the order given; the summary lists them mode by mode.
    assert runs == (spec_by_spec or expected)
    assert builds == (spec_by_spec or expected)
    assert named(tasks, "summary")["task_dep"] == [f"astest:run:{pair}" for pair in expected]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mode": "web"}, r'unknown mode "web" \(did you mean "wasi"\?\); fix: '),
        ({"spec": "nothing"}, r"no spec of mode 'wasi' matches --spec nothing; .*fix: "),
    ],
)
def test_a_selection_that_names_nothing_is_one_error_line_with_the_fix(
    tmp_project: ProjectBuilder, options: dict[str, str], message: str
) -> None:
    with pytest.raises(InvalidTask, match=message) as error:
        created(tmp_project(), **options)
    assert "\n" not in str(error.value)


def test_each_runner_in_use_is_made_by_one_task_that_never_overwrites_it(
    tmp_project: ProjectBuilder,
) -> None:
    tasks = created(tmp_project(), mode="wasi")
    runners = [t for t in tasks if str(t["name"]).startswith("runner:")]
    assert [t["name"] for t in runners] == ["runner:wasi"]
    (runner,) = runners
    assert runner["targets"] == [".as-test/runners/default.wasi.py"]
    assert runner["uptodate"] == [True], "up to date whenever the file exists"
    assert "clean" not in runner, "the runner is the user's file once it exists"
    assert all(
        ".as-test/runners/default.wasi.py" in named(tasks, f"run:wasi:{spec}")["file_dep"]
        for spec in ("counter", "geometry")
    )


def test_every_spec_task_carries_meta_that_names_it_for_reporters(
    tmp_project: ProjectBuilder,
) -> None:
    tasks = created(tmp_project(), mode="wasi", spec="geometry")
    assert named(tasks, "run:wasi:geometry")["meta"] == {
        "astest": {
            "kind": "run",
            "creator": "astest",
            "mode": "wasi",
            "spec": "assembly/__tests__/geometry.spec.ts",
            "spec_id": "geometry",
            "target": "wasi",
        }
    }
    assert named(tasks, "build:wasi:geometry")["meta"]["astest"]["kind"] == "build"


# -- the summary task, run on result records laid where the run tasks write them ------------------


def run_action(task: Task) -> object:
    """Call the task's first action as doit would: ``(callable, args[, kwargs])``."""
    function, args, *rest = task["actions"][0]
    kwargs: dict[str, Any] = rest[0] if rest else {}
    return function(*args, **kwargs)


def failed(outcome: object) -> bool:
    """doit's reading of an action's return value: False or a TaskFailed fails the task."""
    return outcome is False or isinstance(outcome, TaskFailed)


def test_the_summary_task_passes_on_passed_and_skipped_results_and_counts_them(
    tmp_project: ProjectBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_project()
    tasks = created(root, mode="wasi")
    write_result(root / named(tasks, "run:wasi:counter")["targets"][0], make_spec_result("counter"))
    write_result(
        root / named(tasks, "run:wasi:geometry")["targets"][0],
        make_spec_result("geometry", Status.SKIPPED),
    )
    outcome = run_action(named(tasks, "summary"))
    assert not failed(outcome)
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3:] == [
        "files: 1 passed, 0 failed, 1 skipped (2 cached)",
        "suites: 1 passed, 0 failed, 1 skipped",
        "tests: 1 passed, 0 failed, 1 skipped",
    ]
    assert (root / ".as-test" / "report.json").is_file()


def test_the_summary_task_fails_on_a_failure_a_crash_or_a_missing_result(
    tmp_project: ProjectBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_project()
    tasks = created(root)
    results = {
        "run:wasi:counter": make_spec_result("counter"),
        "run:wasi:geometry": make_crashed_result("geometry"),
        "run:bindings:counter": make_build_failure("counter", mode="bindings"),
        # run:bindings:geometry left no result
    }
    for name, result in results.items():
        write_result(root / named(tasks, name)["targets"][0], result)
    assert failed(run_action(named(tasks, "summary")))
    out = capsys.readouterr().out
    assert out.splitlines()[-3] == "files: 1 passed, 3 failed, 0 skipped (3 cached)"
    assert "wasm trap: unreachable" in out
    assert "ERROR TS2304" in out
    assert (
        "no result at .as-test/build/bindings/geometry.result.jsonl; "
        "run `doit astest:run:bindings:geometry`" in out
    )


def test_a_run_whose_build_never_ran_records_why_and_the_summary_fails(
    tmp_project: ProjectBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_project()
    tasks = created(root, mode="wasi", spec="geometry")
    run = named(tasks, "run:wasi:geometry")
    run_action(run)
    result = read_result(root / run["targets"][0])
    assert result is not None
    assert (result.status, result.stage, result.error) == (Status.FAILED, Stage.BUILD, "not built")
    assert [f.message for f in result.failures] == [
        "no build record at .as-test/build/wasi/geometry.build.json; "
        "build it with `doit astest:build:wasi:geometry`"
    ]
    assert failed(run_action(named(tasks, "summary")))
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith(" FAIL  wasi  geometry  build failed") for line in lines)
    assert lines[-1] == "tests: 0 passed, 1 failed, 0 skipped"


def test_no_task_doc_carries_what_a_terminal_or_a_runner_acts_on(
    tmp_project: ProjectBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """doit prints a doc as it is (``doit list --all``, ``doit info``), and a doc names the
    spec's path, which the spec's author chose."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    odd = "osc\x1b]0;pwn\x07\x9b2J##[error]y"
    spec = 'import { expect } from "as-test";\nexpect(1).toBe(1);\n'
    files = {f"assembly/__tests__/{odd}.spec.ts": spec, f"assembly/__fuzz__/{odd}.fuzz.ts": spec}
    docs = [str(t["doc"]) for t in created(tmp_project(files=files), fuzz="true")]
    shown = [doc for doc in docs if "osc\\x1b]0;pwn\\x07\\x9b2J##\\[error]y" in doc]

    assert len(shown) == 8, "build and run, spec and fuzz target, in both modes"
    assert not [doc for doc in docs if TERMINAL_CONTROL.search(doc) or runner_commands(doc)]


def test_a_runner_script_committed_as_a_link_to_a_fifo_stops_the_call_before_doit_reads_it(
    tmp_project: ProjectBuilder,
) -> None:
    root = tmp_project()
    runner = root / ".as-test/runners/default.wasi.py"
    runner.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(root / "elsewhere")
    runner.symlink_to(root / "elsewhere")
    with pytest.raises(InvalidTask, match=r"^\.as-test/runners/default\.wasi\.py is not a regular"):
        created(root)


def test_the_summary_task_hands_its_plan_as_a_record_that_pickles_for_doits_workers(
    tmp_path: Path,
) -> None:
    """The plan goes to the action, and to a ``doit -n`` worker, as the record itself: pickled
    whole, and the same record the codec would have carried (the reports' digest encodes it)."""
    root = project(tmp_path, "1.8.0", {"coverage": True})
    summary = next(task for task in make(root) if task["name"] == "summary")
    _action, (plan, _session) = summary["actions"][0]  # type: ignore[index]
    assert isinstance(plan, SummaryPlan)
    assert pickle.loads(pickle.dumps(plan)) == plan
    assert decode(SummaryPlan, json.loads(json.dumps(encode(plan)))) == plan
    assert [entry.spec for entry in plan.entries] == [SPEC]
