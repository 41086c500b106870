"""The doit task creator: one build and one run task per (mode, spec), and one summary task.

Task names carry the mode (``astest:build:<mode>:<spec-id>``, ``astest:run:<mode>:<spec-id>``)
because doit keys its state by task name: a mode-less name would thrash when the mode changes.
"""

from __future__ import annotations

import os
import posixpath
import sys
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from doit.task import clean_targets

from astest_tasks.build.build_prefetch import plan_build
from astest_tasks.build.imports import ImportScanCache, scan_imports
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.as_test_version import installed_version, untested_version_warning
from astest_tasks.config.asc_flags import TRY_AS
from astest_tasks.config.changed_specs import (
    ChangedSelection,
    SpecInputs,
    argument_paths,
    project_paths,
    select_changed,
)
from astest_tasks.config.coverage_switch import with_coverage
from astest_tasks.config.discovery import Spec
from astest_tasks.config.git_changes import DEFAULT_REF, changed_files
from astest_tasks.config.layout import SpecFiles, doit_paths, output_root, spec_files
from astest_tasks.config.mode_specs import ModeSpecs, exclusion_note, specs_of_mode
from astest_tasks.config.project_config import (
    ModeSettings,
    ProjectConfig,
    load_config,
    select_modes,
)
from astest_tasks.config.run_rules import RunRules
from astest_tasks.config.run_switches import ShowCoverage
from astest_tasks.config.selection import select_specs
from astest_tasks.config.shards import assign_shards, load_durations, pair_key
from astest_tasks.config.toolchain import (
    Toolchain,
    load_toolchain,
    require_package,
    version_combination_warning,
    warn_once,
)
from astest_tasks.core.errors import UserError
from astest_tasks.core.interrupts import unwind_on_sigterm
from astest_tasks.model.snapshots import SnapshotUpdate, snapshot_candidates
from astest_tasks.output.coverage_summary import CoverageTarget
from astest_tasks.output.fuzz_summary import FuzzEntry
from astest_tasks.output.latest_log import logs_root_of
from astest_tasks.output.summary import SummaryEntry, SummaryPlan
from astest_tasks.run.limits import MEMORY_LIMIT, OUTPUT_LIMIT, TIMEOUT, PerMode, parse_per_mode
from astest_tasks.run.runner_files import default_runner_path, ensure_default_runner
from astest_tasks.run.runtime import Runtime
from astest_tasks.run.runtime_command import resolve_runtime
from astest_tasks.tasks.build_task import compile_task_fields
from astest_tasks.tasks.cache_keys import build_file_deps, run_key
from astest_tasks.tasks.checks import (
    Always,
    BuildUpToDate,
    InputsChanged,
    LastResultPassed,
    NotHandedOver,
    SnapshotsUnchanged,
)
from astest_tasks.tasks.cleaning import (
    remove_files,
    remove_orphaned_crash_records,
    run_leftovers,
    summary_leftovers,
)
from astest_tasks.tasks.fuzz_tasks import (
    FuzzLimits,
    FuzzOptions,
    FuzzPlan,
    fuzz_group,
    fuzz_tasks,
    fuzz_tasks_wanted,
)
from astest_tasks.tasks.options import TaskOptions
from astest_tasks.tasks.output_folders import check_output_folders
from astest_tasks.tasks.pipeline import BASENAME, DEFAULT_PIPELINE, Pipeline
from astest_tasks.tasks.project_lock import lock_project
from astest_tasks.tasks.run_action import run_spec
from astest_tasks.tasks.run_ahead import plan_run
from astest_tasks.tasks.run_request import RunRequest
from astest_tasks.tasks.summary_action import show_summary_from_worker, summarize

PROJECT_LOCK = "cache/project.lock"  # one doit run at a time (project_lock.py)
PROGRESS_COUNTER = "cache/progress.json"  # finished specs, counted across doit's workers
IMPORT_SCAN_CACHE = "cache/import-scan.json"  # under the output root (.as-test by default)


def create_tasks(
    project_root: Path, options: TaskOptions, pipeline: Pipeline = DEFAULT_PIPELINE
) -> Iterator[dict[str, Any]]:
    config_path, requested_modes, update = options.config, options.mode, options.update_snapshots
    features, switches, coverage = options.features, options.switches, options.run_coverage
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
    found = {
        mode.name: _specs_of(project_root, config_path, config, mode, options.spec)
        for mode in modes
    }
    specs_by_mode = {name: mode_specs.specs for name, mode_specs in found.items()}
    _check_outputs_are_separate(project_root, config, specs_by_mode)
    check_output_folders(project_root, config_path, output_root(config), modes)
    lock_project(project_root / output_root(config) / PROJECT_LOCK)
    specs_by_mode = {
        name: select_specs(specs, options.spec, name) for name, specs in specs_by_mode.items()
    }
    runtimes = {
        mode.name: _runtime_of(project_root, config_path, mode, switches.browser, options.headful)
        for mode in modes
    }
    scan_cache = ImportScanCache(project_root / output_root(config) / IMPORT_SCAN_CACHE)
    selection_note = exclusion_note(found)
    if options.changed:
        inputs = _spec_inputs(project_root, modes, specs_by_mode, runtimes, toolchain, scan_cache)
        chosen = _changed_only(project_root, config_path, options.changed, inputs)
        specs_by_mode = {
            name: [spec for spec in specs if chosen.keeps(name, spec)]
            for name, specs in specs_by_mode.items()
        }
        selection_note = "\n".join(note for note in (selection_note, chosen.note) if note)
    suite_pairs = sum(len(specs) for specs in specs_by_mode.values())
    if pipeline.shard is not None:
        if options.fuzz:
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
        limits=_run_limits(options, config),
        session=session,
        update=update,
        progress_file=f"{output_root(config).rstrip('/')}/{counter}",
        pipeline=pipeline,
        as_test_version=toolchain.as_test.version,
        no_snapshot=switches.no_snapshot,
        coverage_detail=switches.show_coverage is not ShowCoverage.NONE,
    )
    for mode in modes:
        for spec in specs_by_mode[mode.name]:
            run_tasks.append(pipeline.task(f"run:{mode.name}:{spec.spec_id}"))
            entries.append(
                SummaryEntry(
                    mode=mode.name,
                    spec_id=spec.spec_id,
                    spec=spec.path,
                    target=mode.target,
                    result=spec_files(mode, spec).result,
                    run_task=run_tasks[-1],
                    command=pipeline.command,
                )
            )
    # A spec's modes one after another, and each build before the previous run: a serial doit
    # then meets every run with the next one built, which the run ahead needs (run_ahead.py),
    # and an edited spec's runs in its modes come next to each other.
    previous_run: dict[str, Any] | None = None
    for place, (mode, spec) in enumerate(_spec_by_spec(modes, specs_by_mode), start=1):
        files = spec_files(mode, spec)
        yield _build_task(project_root, mode, spec, files, toolchain, scan_cache, pipeline)
        if previous_run is not None:
            yield previous_run
        runtime = runtimes[mode.name]
        previous_run = _run_task(
            project_root, mode, spec, files, runtime, invocation, (place, total)
        )
    if previous_run is not None:
        yield previous_run
    fuzzing = _fuzz_plan(project_root, config, modes, toolchain, scan_cache, invocation, options)
    yield from fuzzing.tasks
    if options.fuzz:
        run_tasks += fuzzing.run_tasks
    fuzz_entries = fuzzing.entries if options.fuzz else []
    scan_cache.save()
    coverage_targets = [
        CoverageTarget(
            mode.name,
            mode.coverage_dir,
            replace(mode.coverage_rules, typed_points=rules.typed_coverage_points),
        )
        for mode in modes
        if mode.coverage_enabled
    ]
    yield _summary_task(
        project_root,
        config,
        entries,
        run_tasks,
        session,
        options.suite,
        fuzz_entries=fuzz_entries,
        coverage_targets=coverage_targets,
        pipeline=pipeline,
        suite_pairs=suite_pairs,
        note=selection_note,
        show_coverage=switches.show_coverage,
        test_name_pattern=options.test_name_pattern,
        show_logs=options.show_logs,
        verbose=options.verbose,
    )


def _spec_by_spec(
    modes: Sequence[ModeSettings], specs_by_mode: Mapping[str, Sequence[Spec]]
) -> list[tuple[ModeSettings, Spec]]:
    """Every (mode, spec), each spec in all its modes before the next spec (in the order the
    specs first appear), its modes in the config's order."""
    first_seen: dict[str, int] = {}
    pairs: list[tuple[int, int, ModeSettings, Spec]] = []
    for mode_index, mode in enumerate(modes):
        for spec in specs_by_mode[mode.name]:
            spec_index = first_seen.setdefault(spec.path, len(first_seen))
            pairs.append((spec_index, mode_index, mode, spec))
    pairs.sort(key=lambda pair: pair[:2])
    return [(mode, spec) for _, _, mode, spec in pairs]


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
        runner = project_paths(root, runtimes[mode.name].input_files(root))
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


def _fuzz_plan(
    root: Path,
    config: ProjectConfig,
    modes: Sequence[ModeSettings],
    toolchain: Toolchain,
    scan_cache: ImportScanCache,
    invocation: _Invocation,
    requested: TaskOptions,
) -> FuzzPlan:
    group = fuzz_group(invocation.pipeline.basename)
    if not fuzz_tasks_wanted(requested.fuzz, sys.argv[1:], group):
        return FuzzPlan(tasks=[], run_tasks=[], entries=[])
    # The seed and the runs are read here, with the config's fuzz block that completes them.
    options = replace(
        FuzzOptions.parse(requested.fuzz, requested.fuzz_seed, requested.fuzz_runs, config.fuzz),
        fuzzers=requested.fuzzer,
    )
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


def _specs_of(
    root: Path,
    config_path: str,
    config: ProjectConfig,
    mode: ModeSettings,
    selectors: Sequence[str],
) -> ModeSpecs:
    # as-test: a spec picked by name runs even where the base "input" excludes it.
    found = specs_of_mode(root, config, mode, base_exclusions=not selectors)
    if found.found_none:
        patterns = config.base.input_patterns
        if not config.rules.modes_are_full_configs:
            patterns = mode.input_patterns
        raise UserError(
            f"{config_path}: mode {mode.name!r}: input {list(patterns)} "
            'matches no *.spec.ts file; fix: correct "input" or add a spec under it'
        )
    return found


def _runtime_of(
    root: Path, config_path: str, mode: ModeSettings, chosen: str = "", headful: bool = False
) -> Runtime:
    """The mode's runtime, chosen once: its run tasks carry it whole to their actions."""
    where = "runOptions.runtime.cmd"
    if mode.name != "default":
        where = f"modes.{mode.name}.{where} (or the base {where})"
    # as-test: --browser first (1.8), then an explicit BROWSER in the environment, then
    # runOptions.runtime.browser.
    browser = chosen or os.environ.get("BROWSER") or mode.browser
    field = f"{config_path}: {where}"
    return resolve_runtime(
        mode.runtime_cmd, mode.target, root, field, browser, headful=headful, locate=True
    )


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
            runtime.default_runner_target
            for runtime in runtimes
            if runtime.default_runner_target is not None
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
        runtime=runtime,
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
        task_basename=invocation.pipeline.basename,
        command=invocation.pipeline.command,
        options_command=invocation.pipeline.options_command,
        as_test_version=invocation.as_test_version,
        input_patterns=tuple(mode.input_patterns),
        coverage_detail=invocation.coverage_detail and mode.coverage_enabled,
    )
    plan_run(request, invocation.session)
    file_dep = [files.build_record]  # also orders the run after its build
    file_dep += runtime.input_files(root)
    pipeline = invocation.pipeline
    return {
        "basename": pipeline.basename,
        "name": f"run:{mode.name}:{spec.spec_id}",
        "doc": f"run {spec.path} in mode {mode.name} ({runtime.description})",
        # The request itself, runtime and all: a frozen dataclass that pickles to doit's workers.
        "actions": [(run_spec, [request, invocation.session])],
        "file_dep": doit_paths(root, file_dep),
        "targets": doit_paths(root, [files.result]),
        "setup": list(pipeline.setup),
        "uptodate": [
            InputsChanged("run", _run_inputs(mode, spec, runtime, invocation)),
            LastResultPassed(str(root), files.result),
            SnapshotsUnchanged(str(root), list(request.snapshot_files)),
            NotHandedOver((pipeline.basename, mode.name, spec.spec_id), invocation.session),
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
    if invocation.coverage_detail and mode.coverage_enabled:
        # A result recorded without the points' parents cannot draw the gap tree (as-test 1.8
        # re-runs such a cached spec too); only then, so plain runs keep their key.
        inputs["coverage"] = "detailed points (--show-coverage)"
    return inputs


@dataclass(frozen=True)
class RunLimits:
    timeout_s: PerMode
    memory_mib: PerMode
    output_mib: PerMode


def _run_limits(options: TaskOptions, config: ProjectConfig) -> RunLimits:
    """The limit options (``10,web=30``), read once the config's modes are known."""
    modes = {config.base.name, *config.modes}
    return RunLimits(
        timeout_s=parse_per_mode(options.timeout, TIMEOUT, modes),
        memory_mib=parse_per_mode(options.memory_limit, MEMORY_LIMIT, modes),
        output_mib=parse_per_mode(options.output_limit, OUTPUT_LIMIT, modes),
    )


@dataclass(frozen=True)
class _Invocation:
    """What this doit call asked of every run task."""

    limits: RunLimits
    session: str
    update: SnapshotUpdate
    progress_file: str  # counts finished specs across doit's workers, for the live lines
    pipeline: Pipeline
    as_test_version: str = ""  # the installed as-test: its run-side rules apply (run_rules.py)
    no_snapshot: bool = False  # --no-snapshot: snapshot assertions pass unchecked
    coverage_detail: bool = False  # --show-coverage: detailed coverage points for the gap tree


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
    show_coverage: ShowCoverage = ShowCoverage.NONE,
    test_name_pattern: str = "",
    show_logs: bool = False,
    verbose: bool = False,
) -> dict[str, Any]:
    report_path = posixpath.join(pipeline.report_dir(config), "report.json")
    shard = pipeline.shard
    plan = SummaryPlan(
        project_root=str(root),
        report_path=report_path,
        entries=tuple(entries),
        suite_selectors=tuple(suite_selectors),
        test_name_pattern=test_name_pattern,
        logs_root=logs_root_of(config.base.logs_dir),
        show_logs=show_logs,
        verbose=verbose,
        fuzz_entries=tuple(fuzz_entries),
        coverage=tuple(coverage_targets),
        shard=(shard.index, shard.count, suite_pairs) if shard else None,
        note=note,
        show_coverage=show_coverage is not ShowCoverage.NONE,
        expand_coverage_gaps=show_coverage is ShowCoverage.ALL,
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
            specs = specs_of_mode(root, config, mode).specs
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
