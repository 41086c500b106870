"""The doit tasks of one (mode, spec) pair, and of the default runners they use.

Task names carry the mode (``astest:build:<mode>:<spec-id>``, ``astest:run:<mode>:<spec-id>``)
because doit keys its state by task name: a mode-less name would thrash when the mode changes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doit.task import clean_targets

from astest_tasks.actions.doors import remove_run_leftovers, run_spec
from astest_tasks.build.imports import ImportScanCache
from astest_tasks.config.layout import doit_paths, spec_identity
from astest_tasks.config.pipeline import Pipeline, task_doc
from astest_tasks.config.toolchain import Toolchain
from astest_tasks.model.snapshot_paths import snapshot_candidates
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.plan.cache_keys import run_key
from astest_tasks.plan.planning import PlannedSpec
from astest_tasks.plan.run_settings import RunSettings
from astest_tasks.remote.remote_use import RemoteUse
from astest_tasks.run.run_request import Progress, RunRequest, SnapshotChoice
from astest_tasks.run.runner_files import default_runner_path, ensure_default_runner
from astest_tasks.run.runtime import Runtime
from astest_tasks.schedule.scheduler import Scheduler
from astest_tasks.tasks.build_task import build_request, compile_task_fields
from astest_tasks.tasks.checks import (
    Always,
    BuildUpToDate,
    InputsChanged,
    LastResultPassed,
    NotHandedOver,
    SnapshotsUnchanged,
)

if TYPE_CHECKING:  # only a call with a remote cache keys its tasks (issue 40)
    from astest_tasks.remote.task_keys import RemoteTask


def build_task(
    root: Path,
    planned: PlannedSpec,
    toolchain: Toolchain,
    scan_cache: ImportScanCache,
    pipeline: Pipeline,
    planner: Scheduler,
    remote: RemoteUse | None = None,
) -> dict[str, Any]:
    mode, spec, files = planned.mode, planned.spec, planned.files
    request = build_request(root, mode, spec, files.wasm, files.build_record)
    fields, shared = compile_task_fields(root, request, mode, spec, toolchain, scan_cache, remote)
    # The order of the builds, for compiling ahead of a serial doit (build_prefetch.py).
    # os.path, not Path: doit_paths' answers are normalised and relative, so joining them is
    # Path's answer too (but for ".", which Path drops), without parsing each one again: every
    # build of every call (issue 40).
    cwd = os.getcwd()
    inputs = [os.path.join(cwd, dep) if dep != "." else cwd for dep in fields["file_dep"]]
    planner.plan_build(pipeline.basename, request, inputs)
    if shared is not None:  # a build the remote cache holds is not compiled ahead
        planner.plan_remote_build(request, shared)
    return {
        "basename": pipeline.basename,
        "name": f"build:{mode.name}:{spec.spec_id}",
        "doc": task_doc(f"compile {spec.path} for mode {mode.name} ({mode.target})"),
        **fields,
        "task_dep": list(pipeline.task_dep),
        "meta": pipeline.meta(
            "build", mode=mode.name, spec=spec.path, spec_id=spec.spec_id, target=mode.target
        ),
    }


def run_request(root: Path, planned: PlannedSpec, settings: RunSettings, total: int) -> RunRequest:
    mode, spec, files = planned.mode, planned.spec, planned.files
    rules = settings.as_test.run
    snapshot_layout = (root, mode.input_patterns) if rules.snapshot_input_layout else None
    return RunRequest(
        project_root=str(root),
        spec=spec_identity(mode, spec),
        files=files,
        runtime=planned.runtime,
        limits=settings.limits.of_mode(mode.name),
        run_env=dict(mode.run_env),
        snapshots=SnapshotChoice(
            directory=mode.snapshot_dir,
            files=tuple(snapshot_candidates(spec.path, mode.snapshot_dir, snapshot_layout)),
            update=settings.switches.update,
            no_snapshot=settings.switches.no_snapshot,
            input_patterns=tuple(mode.input_patterns),
        ),
        progress=Progress(planned.place, total, settings.progress_file),
        crash_dir=mode.crash_dir,
        logs_dir=mode.logs_dir,
        pipeline=settings.pipeline,
        as_test=settings.as_test,
        coverage_detail=settings.switches.coverage_detail and mode.coverage_enabled,
    )


def remote_run(
    root: Path, planned: PlannedSpec, settings: RunSettings, request: RunRequest
) -> RemoteTask | None:
    """The run's remote key: what its local check tracks, files and inputs alike."""
    if settings.remote is None:
        return None
    from astest_tasks.remote.task_keys import RemoteKeyInputs, RemoteTask

    snapshots = request.snapshots.files
    files = (planned.files.build_record, *planned.runtime.input_files(root), *snapshots)
    return RemoteTask(settings.remote, RemoteKeyInputs("run", run_inputs(planned, settings), files))


def run_task(
    root: Path, planned: PlannedSpec, settings: RunSettings, total: int, planner: Scheduler
) -> dict[str, Any]:
    mode, spec, runtime = planned.mode, planned.spec, planned.runtime
    request = run_request(root, planned, settings, total)
    remote = remote_run(root, planned, settings, request)
    extra = (remote,) if remote is not None else ()
    # The order of the runs, for the run ahead, whose helper runs the action as doit would.
    planner.plan_run(request, settings.session, extra)
    file_dep = [planned.files.build_record]  # also orders the run after its build
    file_dep += runtime.input_files(root)
    pipeline = settings.pipeline
    return {
        "basename": pipeline.basename,
        "name": f"run:{mode.name}:{spec.spec_id}",
        "doc": task_doc(f"run {spec.path} in mode {mode.name} ({runtime.description})"),
        # The request itself, runtime and all: a frozen dataclass that pickles to doit's workers.
        "actions": [(run_spec, [request, settings.session, *extra])],
        "file_dep": doit_paths(root, file_dep),
        "targets": doit_paths(root, [planned.files.result]),
        "setup": list(pipeline.setup),
        "uptodate": _run_checks(root, planned, settings, request),
        # The result, and what the run left beside it: its crash record and readable log.
        "clean": [clean_targets, (remove_run_leftovers, [str(root), request])],
        "meta": pipeline.meta(
            "run", mode=mode.name, spec=spec.path, spec_id=spec.spec_id, target=mode.target
        ),
    }


def _run_checks(
    root: Path, planned: PlannedSpec, settings: RunSettings, request: RunRequest
) -> list[Any]:
    """When a run is up to date: all of these agree."""
    mode, spec, update = planned.mode, planned.spec, settings.switches.update
    basename = settings.pipeline.basename
    # So that `doit info`, `doit list --status` and `doit -s` see an imported module's edit too.
    # A plain run has just settled the build, so there it would only repeat doit's check of the
    # build (about a third of a million instructions a spec: issue 40).
    build = f"{basename}:build:{mode.name}:{spec.spec_id}"
    build_checks = [] if settings.builds_checked_first else [BuildUpToDate(build)]
    return [
        InputsChanged("run", run_inputs(planned, settings)),
        LastResultPassed(str(root), planned.files.result),
        SnapshotsUnchanged(str(root), list(request.snapshots.files)),
        NotHandedOver((basename, mode.name, spec.spec_id), settings.session),
        *build_checks,
        # An update run asks every spec again: only a run can tell what is missing.
        Always(
            update is SnapshotUpdate.NONE,
            f"--update-snapshots={update.value} asks every spec again",
        ),
    ]


def run_inputs(planned: PlannedSpec, settings: RunSettings) -> dict[str, Any]:
    mode = planned.mode
    limits = settings.limits.of_mode(mode.name).as_key()
    inputs = run_key(mode, planned.spec, limits, planned.runtime, settings.as_test.version)
    if settings.switches.no_snapshot:
        # Only then, so that plain runs keep their key: a pass with unchecked snapshots is not
        # a plain run's pass, and the next plain run runs the spec again.
        inputs["snapshots"] = "not checked (--no-snapshot)"
    if settings.switches.coverage_detail and mode.coverage_enabled:
        # A result recorded without the points' parents cannot draw the gap tree (as-test 1.8
        # re-runs such a cached spec too); only then, so plain runs keep their key.
        inputs["coverage"] = "detailed points (--show-coverage)"
    return inputs


def runner_tasks(
    root: Path, runtimes: Iterable[Runtime], pipeline: Pipeline, planner: Scheduler
) -> Iterator[dict[str, Any]]:
    """One task per default runner in use: creates it when missing, never touches it otherwise;
    made by the first task creator of the process that uses it (``Scheduler.runner_makers``)."""
    targets = sorted(
        {
            runtime.default_runner_target
            for runtime in runtimes
            if runtime.default_runner_target is not None
        }
    )
    for target in targets:
        runner = default_runner_path(target)
        maker = planner.runner_makers.setdefault(str(root / runner), pipeline.basename)
        if maker != pipeline.basename:
            continue
        yield {
            "basename": pipeline.basename,
            "name": f"runner:{target}",
            "doc": f"create {runner} from its template if it is missing (never overwritten)",
            "actions": [(ensure_default_runner, [str(root), target])],
            "targets": doit_paths(root, [runner]),
            # Up to date whenever the file exists: doit runs a task whose target is missing.
            "uptodate": [True],
            # No "clean": the runner is the user's file from the moment it exists.
            "meta": pipeline.meta("runner", target=target),
        }
