"""The doit task creator: one build and one run task per (mode, spec), and one summary task.

Task names carry the mode (``astest:build:<mode>:<spec-id>``, ``astest:run:<mode>:<spec-id>``)
because doit keys its state by task name: a mode-less name would thrash when the mode changes.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import sys
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from doit.task import clean_targets

from astest_tasks.actions import (
    RunRequest,
    run_spec,
    show_summary_from_worker,
    summarize,
)
from astest_tasks.as_test_rules import AsTestRules
from astest_tasks.as_test_version import installed_version, untested_version_warning
from astest_tasks.asc_flags import TRY_AS
from astest_tasks.browser_session import find_chromium
from astest_tasks.build_prefetch import plan_build
from astest_tasks.build_task import compile_task_fields
from astest_tasks.cache_keys import build_file_deps, run_key
from astest_tasks.changed_specs import (
    ChangedSelection,
    SpecInputs,
    argument_paths,
    project_paths,
    select_changed,
)
from astest_tasks.cleaning import (
    remove_files,
    remove_orphaned_crash_records,
    run_leftovers,
    summary_leftovers,
)
from astest_tasks.config import ModeSettings, ProjectConfig, load_config, select_modes
from astest_tasks.coverage_summary import CoverageTarget
from astest_tasks.coverage_switch import with_coverage
from astest_tasks.discovery import Spec, discover_specs
from astest_tasks.errors import UserError
from astest_tasks.feature_switches import NO_FEATURE_SWITCHES, FeatureSwitches
from astest_tasks.fuzz_summary import FuzzEntry
from astest_tasks.fuzz_tasks import (
    FuzzLimits,
    FuzzOptions,
    FuzzPlan,
    fuzz_group,
    fuzz_tasks,
    fuzz_tasks_wanted,
)
from astest_tasks.git_changes import DEFAULT_REF, changed_files
from astest_tasks.imports import ImportScanCache, scan_imports
from astest_tasks.interrupts import unwind_on_sigterm
from astest_tasks.layout import SpecFiles, doit_paths, output_root, spec_files
from astest_tasks.limits import MEMORY_LIMIT, OUTPUT_LIMIT, TIMEOUT, PerMode, parse_per_mode
from astest_tasks.output_folders import check_output_folders
from astest_tasks.pipeline import BASENAME, DEFAULT_PIPELINE, Pipeline
from astest_tasks.project_lock import lock_project
from astest_tasks.run_rules import RunRules
from astest_tasks.run_switches import NO_RUN_SWITCHES, RunSwitches, ShowCoverage
from astest_tasks.runner_files import ensure_default_runner
from astest_tasks.runtime_command import (
    RUNNERS_DIR,
    BrowserRuntime,
    ExternalRuntime,
    InProcessRuntime,
    Runtime,
    default_runner_path,
    resolve_runtime,
)
from astest_tasks.selection import select_specs
from astest_tasks.shards import assign_shards, load_durations, pair_key
from astest_tasks.snapshots import SnapshotUpdate, snapshot_candidates
from astest_tasks.summary import SummaryEntry, SummaryPlan
from astest_tasks.task_checks import (
    Always,
    BuildUpToDate,
    InputsChanged,
    LastResultPassed,
    SnapshotsUnchanged,
)
from astest_tasks.toolchain import (
    Toolchain,
    load_toolchain,
    require_package,
    version_combination_warning,
    warn_once,
)

PROJECT_LOCK = "cache/project.lock"  # one doit run at a time (project_lock.py)
PROGRESS_COUNTER = "cache/progress.json"  # finished specs, counted across doit's workers
IMPORT_SCAN_CACHE = "cache/import-scan.json"  # under the output root (.as-test by default)


def create_tasks(
    project_root: Path,
    config_path: str,
    requested_modes: Sequence[str],
    requested_limits: RequestedLimits,
    update: SnapshotUpdate = SnapshotUpdate.NONE,
    spec_selectors: Sequence[str] = (),
    suite_selectors: Sequence[str] = (),
    headful: bool = False,
    fuzz: RequestedFuzz | None = None,
    coverage: bool | None = None,
    pipeline: Pipeline = DEFAULT_PIPELINE,
    changed_since: str = "",
    features: FeatureSwitches = NO_FEATURE_SWITCHES,
    switches: RunSwitches = NO_RUN_SWITCHES,
) -> Iterator[dict[str, Any]]:
    unwind_on_sigterm()  # doit's -n workers inherit it when they are forked from here
    version = installed_version(project_root)
    untested = untested_version_warning(version) if version else None
    if untested:
        warn_once(untested)
    rules = AsTestRules.for_version(version)
    config = load_config(project_root / config_path, project_root, rules)
    for warning in config.warnings:
        warn_once(warning)
    features.check_supported(rules)
    modes = [
        with_coverage(features.apply(mode), coverage)
        for mode in select_modes(config, requested_modes)
    ]
    if not modes:
        raise UserError(
            f'{config_path}: every mode has "default": false, so a plain run selects none; '
            f"fix: choose modes with `{pipeline.options_command} --mode NAME` or ASTEST_MODE=NAME"
        )
    toolchain = load_toolchain(project_root, need_wasi_shim=any(m.target == "wasi" for m in modes))
    if any(TRY_AS in mode.features for mode in modes):
        require_package(project_root, TRY_AS)  # as-test: "try-as ... is not installed"
    combination = version_combination_warning(
        toolchain.as_test.version, toolchain.assemblyscript.version
    )
    if combination:
        warn_once(combination)

    session = uuid.uuid4().hex  # marks results written by this doit invocation as fresh
    specs_by_mode = {mode.name: _specs_of(project_root, config_path, mode) for mode in modes}
    _check_outputs_are_separate(project_root, config, specs_by_mode)
    check_output_folders(project_root, config_path, output_root(config), modes)
    lock_project(project_root / output_root(config) / PROJECT_LOCK)
    specs_by_mode = {
        name: select_specs(specs, spec_selectors, name) for name, specs in specs_by_mode.items()
    }
    runtimes = {
        mode.name: _runtime_of(project_root, config_path, mode, switches.browser) for mode in modes
    }
    scan_cache = ImportScanCache(project_root / output_root(config) / IMPORT_SCAN_CACHE)
    selection_note = ""
    if changed_since:
        inputs = _spec_inputs(project_root, modes, specs_by_mode, runtimes, toolchain, scan_cache)
        chosen = _changed_only(project_root, config_path, changed_since, inputs)
        specs_by_mode = {
            name: [spec for spec in specs if chosen.keeps(name, spec)]
            for name, specs in specs_by_mode.items()
        }
        selection_note = chosen.note
    suite_pairs = sum(len(specs) for specs in specs_by_mode.values())
    if pipeline.shard is not None:
        if fuzz is not None and fuzz.with_tests:
            raise UserError(
                "--fuzz with --shard: fuzz campaigns are not split into shards, and every shard "
                "would run them all; fix: run `doit astest:fuzz` in one CI job of its own"
            )
        specs_by_mode = _shard_of(project_root, specs_by_mode, pipeline)
    yield from _runner_tasks(project_root, runtimes.values(), pipeline)
    entries: list[SummaryEntry] = []
    run_tasks: list[str] = []
    total = sum(len(specs) for specs in specs_by_mode.values())
    counter = PROGRESS_COUNTER
    if pipeline.basename != BASENAME:
        counter = counter.replace(".json", f".{pipeline.basename}.json")
    invocation = _Invocation(
        limits=requested_limits.parse(config),
        session=session,
        update=update,
        progress_file=f"{output_root(config).rstrip('/')}/{counter}",
        headful=headful,
        pipeline=pipeline,
        as_test_version=toolchain.as_test.version,
        no_snapshot=switches.no_snapshot,
    )
    for mode in modes:
        for spec in specs_by_mode[mode.name]:
            files = spec_files(mode, spec)
            runtime = runtimes[mode.name]
            yield _build_task(project_root, mode, spec, files, toolchain, scan_cache, pipeline)
            place = (len(run_tasks) + 1, total)
            yield _run_task(project_root, mode, spec, files, runtime, invocation, place)
            run_tasks.append(pipeline.task(f"run:{mode.name}:{spec.spec_id}"))
            entries.append(
                SummaryEntry(
                    mode=mode.name,
                    spec_id=spec.spec_id,
                    spec=spec.path,
                    target=mode.target,
                    result=files.result,
                    run_task=run_tasks[-1],
                    command=pipeline.command,
                )
            )
    fuzzing = _fuzz_plan(project_root, config, modes, toolchain, scan_cache, invocation, fuzz)
    yield from fuzzing.tasks
    if fuzz is not None and fuzz.with_tests:
        run_tasks += fuzzing.run_tasks
    fuzz_entries = fuzzing.entries if fuzz is not None and fuzz.with_tests else []
    scan_cache.save()
    coverage_targets = [
        CoverageTarget(mode.name, mode.coverage_dir, mode.coverage_rules)
        for mode in modes
        if mode.coverage_enabled
    ]
    yield _summary_task(
        project_root,
        config,
        entries,
        run_tasks,
        session,
        suite_selectors,
        fuzz_entries=fuzz_entries,
        coverage_targets=coverage_targets,
        pipeline=pipeline,
        suite_pairs=suite_pairs,
        note=selection_note,
        show_coverage=switches.show_coverage is not ShowCoverage.NONE,
    )


def _spec_inputs(
    root: Path,
    modes: Sequence[ModeSettings],
    specs_by_mode: dict[str, list[Spec]],
    runtimes: dict[str, Runtime],
    toolchain: Toolchain,
    scan_cache: ImportScanCache,
) -> list[SpecInputs]:
    """What decides each (mode, spec) pair's result: the files of its build (the spec, its
    imports, the asconfig), its snapshots, its runner, and what its build arguments name."""
    rules = RunRules.for_version(toolchain.as_test.version)
    inputs: list[SpecInputs] = []
    for mode in modes:
        runner = project_paths(root, _runtime_files(root, runtimes[mode.name]))
        named_files, named_folders = argument_paths(root, [*mode.build_args, mode.build_cmd])
        layout = (root, mode.input_patterns) if rules.snapshot_input_layout else None
        for spec in specs_by_mode[mode.name]:
            scan = scan_imports(root, spec.path, scan_cache)
            build = build_file_deps(root, mode, scan, toolchain)
            snapshots = snapshot_candidates(spec.path, mode.snapshot_dir, layout)
            files = project_paths(root, [*build, *snapshots]) | runner | named_files
            inputs.append(SpecInputs(mode.name, spec, files, named_folders))
    return inputs


def _changed_only(
    root: Path, config_path: str, ref: str, inputs: Sequence[SpecInputs]
) -> ChangedSelection:
    """``--changed=REF``: the pairs that a file differing from REF in git may affect."""
    changed = changed_files(root, ref or DEFAULT_REF)
    config = next(iter(project_paths(root, [config_path])))
    return select_changed(inputs, changed.paths, changed.ref, config)


def _shard_of(
    root: Path, specs_by_mode: dict[str, list[Spec]], pipeline: Pipeline
) -> dict[str, list[Spec]]:
    """Only the (mode, spec) pairs of this shard (shards.py)."""
    assert pipeline.shard is not None
    durations = {}
    if pipeline.shard_durations:
        durations = load_durations(root / pipeline.shard_durations)
    keys = [pair_key(mode, spec.spec_id) for mode, specs in specs_by_mode.items() for spec in specs]
    assigned = assign_shards(keys, pipeline.shard.count, durations)
    return {
        mode: [s for s in specs if assigned[pair_key(mode, s.spec_id)] == pipeline.shard.index]
        for mode, specs in specs_by_mode.items()
    }


@dataclass(frozen=True)
class RequestedFuzz:
    """The fuzz options as given, checked once the config's fuzz block is known."""

    with_tests: bool = False
    seed: str = ""
    runs: str = ""


def _fuzz_plan(
    root: Path,
    config: ProjectConfig,
    modes: Sequence[ModeSettings],
    toolchain: Toolchain,
    scan_cache: ImportScanCache,
    invocation: _Invocation,
    requested: RequestedFuzz | None,
) -> FuzzPlan:
    requested = requested or RequestedFuzz()
    group = fuzz_group(invocation.pipeline.basename)
    if not fuzz_tasks_wanted(requested.with_tests, sys.argv[1:], group):
        return FuzzPlan(tasks=[], run_tasks=[], entries=[])
    options = FuzzOptions.parse(requested.with_tests, requested.seed, requested.runs, config.fuzz)
    limits = invocation.limits
    limits_of = {
        mode.name: FuzzLimits(
            limits.timeout_s.for_mode(mode.name),
            limits.memory_mib.for_mode(mode.name),
            limits.output_mib.for_mode(mode.name),
        )
        for mode in modes
    }
    return fuzz_tasks(
        root,
        config.fuzz,
        modes,
        toolchain,
        scan_cache,
        limits_of,
        options,
        invocation.session,
        invocation.pipeline,
    )


def _build_task(
    root: Path,
    mode: ModeSettings,
    spec: Spec,
    files: SpecFiles,
    toolchain: Toolchain,
    scan_cache: ImportScanCache,
    pipeline: Pipeline,
) -> dict[str, Any]:
    fields = compile_task_fields(
        root, mode, spec, files.wasm, files.build_record, toolchain, scan_cache
    )
    (_, (request,)) = fields["actions"][0]
    plan_build(pipeline.basename, request, [str(Path.cwd() / dep) for dep in fields["file_dep"]])
    return {
        "basename": pipeline.basename,
        "name": f"build:{mode.name}:{spec.spec_id}",
        "doc": f"compile {spec.path} for mode {mode.name} ({mode.target})",
        **fields,
        "task_dep": list(pipeline.task_dep),
        "meta": pipeline.meta(
            "build", mode=mode.name, spec=spec.path, spec_id=spec.spec_id, target=mode.target
        ),
    }


def _specs_of(root: Path, config_path: str, mode: ModeSettings) -> list[Spec]:
    specs = discover_specs(root, mode.input_patterns)
    if not specs:
        raise UserError(
            f"{config_path}: mode {mode.name!r}: input {list(mode.input_patterns)} matches no "
            '*.spec.ts file; fix: correct "input" or add a spec under it'
        )
    return specs


def _runtime_of(root: Path, config_path: str, mode: ModeSettings, chosen: str = "") -> Runtime:
    where = "runOptions.runtime.cmd"
    if mode.name != "default":
        where = f"modes.{mode.name}.{where} (or the base {where})"
    # as-test: --browser first (1.8), then an explicit BROWSER in the environment, then
    # runOptions.runtime.browser.
    browser = chosen or os.environ.get("BROWSER") or mode.browser
    runtime = resolve_runtime(
        mode.runtime_cmd, mode.target, root, f"{config_path}: {where}", browser
    )
    if isinstance(runtime, BrowserRuntime):
        # Without a Chromium, each web spec fails with the reason when it runs; the rest go on.
        with contextlib.suppress(UserError):
            runtime = replace(runtime, executable=find_chromium(runtime.browser))
    return runtime


# Which task creator of this process makes each default runner: two instances for one project
# would otherwise both target the same file, which doit refuses. The other instance's runs
# still wait for it, through their file_dep on the runner.
_RUNNER_MAKERS: dict[str, str] = {}


def _runner_tasks(
    root: Path, runtimes: Iterable[Runtime], pipeline: Pipeline
) -> Iterator[dict[str, Any]]:
    """One task per default runner in use: creates it when missing, never touches it otherwise."""
    targets = sorted(
        {
            runtime.runner.removeprefix(f"{RUNNERS_DIR}/default.").removesuffix(".py")
            for runtime in runtimes
            if isinstance(runtime, InProcessRuntime) and runtime.is_default
        }
    )
    for target in targets:
        runner = default_runner_path(target)
        maker = _RUNNER_MAKERS.setdefault(str(root / runner), pipeline.basename)
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


def _run_task(
    root: Path,
    mode: ModeSettings,
    spec: Spec,
    files: SpecFiles,
    runtime: Runtime,
    invocation: _Invocation,
    place: tuple[int, int],
) -> dict[str, Any]:
    update = invocation.update
    timeout_s = invocation.limits.timeout_s.for_mode(mode.name)
    memory_mib = invocation.limits.memory_mib.for_mode(mode.name)
    output_mib = invocation.limits.output_mib.for_mode(mode.name)
    rules = RunRules.for_version(invocation.as_test_version)
    snapshot_layout = (root, mode.input_patterns) if rules.snapshot_input_layout else None
    request = RunRequest(
        project_root=str(root),
        spec_path=spec.path,
        spec_id=spec.spec_id,
        mode=mode.name,
        target=mode.target,
        wasm_path=files.wasm,
        build_record_path=files.build_record,
        result_path=files.result,
        snapshot_dir=mode.snapshot_dir,
        timeout_s=timeout_s,
        memory_limit_mib=memory_mib,
        output_limit_mib=output_mib,
        run_env=dict(mode.run_env),
        position=place[0],
        total=place[1],
        progress_file=invocation.progress_file,
        crash_dir=mode.crash_dir,
        logs_dir=mode.logs_dir,
        update_snapshots=update.value,
        no_snapshot=invocation.no_snapshot,
        snapshot_files=tuple(snapshot_candidates(spec.path, mode.snapshot_dir, snapshot_layout)),
        runner_script=runtime.runner if isinstance(runtime, InProcessRuntime) else "",
        external_tokens=runtime.tokens if isinstance(runtime, ExternalRuntime) else (),
        # The executable found when the tasks were made, which is the one in the run key; the
        # name as asked when none was found, so the run can say why.
        browser=(runtime.executable or runtime.browser)
        if isinstance(runtime, BrowserRuntime)
        else "",
        headful=invocation.headful or (isinstance(runtime, BrowserRuntime) and runtime.headful),
        task_basename=invocation.pipeline.basename,
        command=invocation.pipeline.command,
        options_command=invocation.pipeline.options_command,
        as_test_version=invocation.as_test_version,
        input_patterns=tuple(mode.input_patterns),
    )
    file_dep = [files.build_record]  # also orders the run after its build
    file_dep += _runtime_files(root, runtime)
    pipeline = invocation.pipeline
    return {
        "basename": pipeline.basename,
        "name": f"run:{mode.name}:{spec.spec_id}",
        "doc": f"run {spec.path} in mode {mode.name} ({runtime.description})",
        "actions": [(run_spec, [asdict(request), invocation.session])],
        "file_dep": doit_paths(root, file_dep),
        "targets": doit_paths(root, [files.result]),
        "setup": list(pipeline.setup),
        "uptodate": [
            InputsChanged("run", _run_inputs(mode, spec, runtime, invocation)),
            LastResultPassed(str(root), files.result),
            SnapshotsUnchanged(str(root), list(request.snapshot_files)),
            # So that `doit info` and `doit list --status` see an imported module's edit too.
            BuildUpToDate(f"{pipeline.basename}:build:{mode.name}:{spec.spec_id}"),
            # An update run asks every spec again: only a run can tell what is missing.
            Always(
                update is SnapshotUpdate.NONE,
                f"--update-snapshots={update.value} asks every spec again",
            ),
        ],
        # The result, and what the run left beside it: its crash record and readable log.
        "clean": [clean_targets, (remove_files, [str(root), run_leftovers(request)])],
        "meta": pipeline.meta(
            "run", mode=mode.name, spec=spec.path, spec_id=spec.spec_id, target=mode.target
        ),
    }


def _run_inputs(
    mode: ModeSettings, spec: Spec, runtime: Runtime, invocation: _Invocation
) -> dict[str, Any]:
    limits = invocation.limits
    inputs = run_key(
        mode,
        spec,
        (
            limits.timeout_s.for_mode(mode.name),
            limits.memory_mib.for_mode(mode.name),
            limits.output_mib.for_mode(mode.name),
        ),
        runtime,
        invocation.as_test_version,
    )
    if invocation.no_snapshot:
        # Only then, so that plain runs keep their key: a pass with unchecked snapshots is not
        # a plain run's pass, and the next plain run runs the spec again.
        inputs["snapshots"] = "not checked (--no-snapshot)"
    return inputs


@dataclass(frozen=True)
class RunLimits:
    timeout_s: PerMode
    memory_mib: PerMode
    output_mib: PerMode


@dataclass(frozen=True)
class RequestedLimits:
    """The limit options as given (``10,web=30``), read once the config's modes are known."""

    timeout: str | float = TIMEOUT.default
    memory_limit: str | float = MEMORY_LIMIT.default
    output_limit: str | float = OUTPUT_LIMIT.default

    def parse(self, config: ProjectConfig) -> RunLimits:
        modes = {config.base.name, *config.modes}
        return RunLimits(
            timeout_s=parse_per_mode(str(self.timeout), TIMEOUT, modes),
            memory_mib=parse_per_mode(str(self.memory_limit), MEMORY_LIMIT, modes),
            output_mib=parse_per_mode(str(self.output_limit), OUTPUT_LIMIT, modes),
        )


@dataclass(frozen=True)
class _Invocation:
    """What this doit call asked of every run task."""

    limits: RunLimits
    session: str
    update: SnapshotUpdate
    progress_file: str  # counts finished specs across doit's workers, for the live lines
    headful: bool  # show the browser window of web specs
    pipeline: Pipeline
    as_test_version: str = ""  # the installed as-test: its run-side rules apply (run_rules.py)
    no_snapshot: bool = False  # --no-snapshot: snapshot assertions pass unchecked


def _summary_task(
    root: Path,
    config: ProjectConfig,
    entries: list[SummaryEntry],
    run_tasks: list[str],
    session: str,
    suite_selectors: Sequence[str],
    fuzz_entries: Sequence[FuzzEntry] = (),
    coverage_targets: Sequence[CoverageTarget] = (),
    pipeline: Pipeline = DEFAULT_PIPELINE,
    suite_pairs: int = 0,
    note: str = "",
    show_coverage: bool = False,
) -> dict[str, Any]:
    report_path = posixpath.join(pipeline.report_dir(config), "report.json")
    shard = pipeline.shard
    plan = SummaryPlan(
        project_root=str(root),
        report_path=report_path,
        entries=tuple(entries),
        suite_selectors=tuple(suite_selectors),
        fuzz_entries=tuple(fuzz_entries),
        coverage=tuple(coverage_targets),
        shard=(shard.index, shard.count, suite_pairs) if shard else None,
        note=note,
        show_coverage=show_coverage,
    )
    coverage_dirs = [t.directory for t in coverage_targets if t.directory is not None]
    crash_dirs = sorted({mode.crash_dir for mode in (config.base, *config.modes.values())})
    return {
        "basename": pipeline.basename,
        "name": "summary",
        "doc": "print every spec's result (fresh or cached) and fail if any failed",
        "actions": [(summarize, [plan.to_dict(), session])],
        "teardown": [(show_summary_from_worker, [plan.to_dict(), session])],
        "task_dep": run_tasks,
        "uptodate": [Always(False, "the summary always runs: it shows cached results too")],
        "verbosity": 2,  # our output is the point: never let doit capture it
        "clean": [
            (remove_files, [str(root), summary_leftovers(report_path, coverage_dirs)]),
            (remove_orphaned_crash_records, [str(root), crash_dirs]),
        ],
        "meta": pipeline.meta("summary", report=report_path),
    }


def _runtime_files(root: Path, runtime: Runtime) -> list[str]:
    """The runner's files, whose content decides the run: editing one re-runs its specs."""
    if isinstance(runtime, ExternalRuntime):
        return list(runtime.scripts)
    if isinstance(runtime, BrowserRuntime):
        return []  # the page and worker ship with astest-tasks, whose version is in the key
    if runtime.is_default or (root / runtime.runner).is_file():
        return [runtime.runner]  # a default one is created by its runner task first
    return []  # a missing custom runner fails its specs with a clear message instead


def _check_outputs_are_separate(
    root: Path, config: ProjectConfig, selected: dict[str, list[Spec]]
) -> None:
    """Two modes writing to one folder would overwrite each other's artifacts and results.

    Checked over every declared mode, not only the selected ones: a mode run on its own later
    would otherwise replace files whose cached state still claims to be another mode's.
    """
    declared = list(config.modes.values()) or [config.base]
    owners: dict[str, str] = {}
    for mode in declared:
        specs = selected.get(mode.name)
        if specs is None:
            specs = discover_specs(root, mode.input_patterns)
        for spec in specs:
            files = spec_files(mode, spec)
            owner = f"mode {mode.name!r} spec {spec.path}"
            for path in (files.wasm, files.build_record, files.result):
                previous = owners.setdefault(path, owner)
                if previous != owner:
                    raise UserError(
                        f"{previous} and {owner} would both write {path}; fix: give each mode "
                        'its own "outDir" (or drop it to use the per-mode default)'
                    )


def _split_modes(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]
