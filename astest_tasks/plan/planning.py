"""Plan a doit call: what the options and the config ask for, decided before any task is made.

``make_plan`` reads the project (the installed as-test, the config, the toolchain's manifests,
the specs, git for ``--changed``) and changes nothing: no lock, no file written, no compile
server started. It knows no doit, so it is tested without doit or Node.js; creator.py turns the
plan into doit's task dicts and takes the project's lock first.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.build.imports import ImportScanCache
from astest_tasks.config.as_test import AsTest
from astest_tasks.config.as_test_version import installed_version, untested_version_warning
from astest_tasks.config.asc_flags import TRY_AS
from astest_tasks.config.coverage_switch import with_coverage
from astest_tasks.config.discovery import Spec
from astest_tasks.config.layout import SpecFiles, output_root, spec_files
from astest_tasks.config.mode_specs import exclusion_note
from astest_tasks.config.pipeline import BASENAME, DEFAULT_PIPELINE, Pipeline
from astest_tasks.config.project_config import (
    ModeSettings,
    ProjectConfig,
    load_config,
    select_modes,
)
from astest_tasks.config.run_switch_options import RunSwitchOptions
from astest_tasks.config.selection import select_specs
from astest_tasks.config.shards import ShardPart
from astest_tasks.config.toolchain import (
    Toolchain,
    load_toolchain,
    require_package,
    version_combination_warning,
)
from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.fuzz.fuzz_options import FuzzCallOptions
from astest_tasks.output.coverage_summary import CoverageTarget
from astest_tasks.plan.command_line import CommandLine
from astest_tasks.plan.fuzz_plan import FuzzOptions, fuzz_group, fuzz_tasks_wanted
from astest_tasks.plan.options import TaskOptions
from astest_tasks.plan.output_folders import (
    IMPORT_SCAN_CACHE,
    PROGRESS_COUNTER,
    PROJECT_LOCK,
    REMOTE_STATE,
    check_output_folders,
    moved_outputs_note,
)
from astest_tasks.plan.plan_specs import (
    changed_only,
    check_outputs_are_separate,
    last_failed_only,
    shard_of,
    spec_by_spec,
    spec_inputs,
    specs_of,
)
from astest_tasks.plan.run_settings import RunLimits, RunSettings
from astest_tasks.remote.cache_options import RemoteCacheOptions
from astest_tasks.remote.remote_use import RemoteUse
from astest_tasks.remote.settings import RemoteSettings, settings_with_secrets
from astest_tasks.run.runtime import Runtime
from astest_tasks.run.runtime_command import resolve_runtime

if TYPE_CHECKING:  # only shards with a remote cache read the published durations (issue 40)
    from astest_tasks.remote.shard_durations import SharedDurations

Warn = Callable[[str], None]


@frozen
class PlannedSpec:
    """One (mode, spec) pair, with its files and its runtime, at its place among the runs."""

    mode: ModeSettings
    spec: Spec
    files: SpecFiles
    runtime: Runtime
    place: int  # 1-based, among ``Plan.specs``


@frozen
class Plan:
    root: Path
    options: TaskOptions
    pipeline: Pipeline
    config: ProjectConfig
    as_test: AsTest  # the installed as-test and its rules, made once (config/as_test.py)
    modes: tuple[ModeSettings, ...]
    toolchain: Toolchain
    runtimes: Mapping[str, Runtime]  # per mode name, chosen once: run tasks carry it whole
    specs_by_mode: Mapping[str, tuple[Spec, ...]]  # after --spec, --changed, --shard, --last-failed
    specs: tuple[PlannedSpec, ...]  # spec by spec: each spec in all its modes, then the next
    settings: RunSettings
    suite_pairs: int  # the pairs before sharding, for the shard's summary line
    shard: ShardPart | None  # with --shard: this shard's part, as its report records it
    note: str  # what the summary says about the selection (exclusions, --changed, --last-failed)
    # The call's fuzz parameters (seed drawn or pinned, runs, fuzzers), read with the config's
    # fuzz block; None when no fuzz task is made (fuzz_plan.fuzz_tasks_wanted).
    fuzz: FuzzOptions | None
    scan_cache: ImportScanCache  # the import scans, shared by the builds and --changed

    @property
    def with_fuzz_tasks(self) -> bool:
        return self.fuzz is not None

    @property
    def lock_path(self) -> Path:
        return self.root / output_root(self.config) / PROJECT_LOCK

    @property
    def coverage_targets(self) -> list[CoverageTarget]:
        typed = self.as_test.config.typed_coverage_points
        return [
            CoverageTarget(
                mode.name, mode.coverage_dir, replace(mode.coverage_rules, typed_points=typed)
            )
            for mode in self.modes
            if mode.coverage_enabled
        ]


@frozen
class _Project:
    """The project as this call sees it: its rules, config, modes and toolchain."""

    as_test: AsTest
    config: ProjectConfig
    modes: tuple[ModeSettings, ...]
    toolchain: Toolchain


def make_plan(
    root: Path,
    options: TaskOptions,
    pipeline: Pipeline = DEFAULT_PIPELINE,
    command_line: CommandLine | None = None,
    warn: Warn = lambda _: None,
) -> Plan:
    """The plan of a doit call; ``warn`` receives each warning as soon as it is known, so one
    printed before an error still shows."""
    command_line = command_line or CommandLine()
    project = _load_project(root, options, pipeline, warn)
    chosen = _choose_specs(root, options, pipeline, project, warn)
    runtimes = chosen.runtimes
    pairs = spec_by_spec(project.modes, chosen.specs_by_mode)
    return Plan(
        root=root,
        options=options,
        pipeline=pipeline,
        config=project.config,
        as_test=project.as_test,
        modes=project.modes,
        toolchain=project.toolchain,
        runtimes=runtimes,
        specs_by_mode={name: tuple(specs) for name, specs in chosen.specs_by_mode.items()},
        specs=tuple(
            PlannedSpec(mode, spec, spec_files(mode, spec), runtimes[mode.name], place)
            for place, (mode, spec) in enumerate(pairs, start=1)
        ),
        settings=_run_settings(root, options, project, pipeline, command_line),
        suite_pairs=chosen.suite_pairs,
        shard=chosen.shard,
        note=chosen.note,
        fuzz=_fuzz_options(options.fuzzing, project.config, command_line, pipeline),
        scan_cache=chosen.scan_cache,
    )


@frozen
class _Chosen:
    specs_by_mode: dict[str, list[Spec]]
    suite_pairs: int
    note: str
    scan_cache: ImportScanCache
    runtimes: dict[str, Runtime]
    shard: ShardPart | None


def _choose_specs(
    root: Path, options: TaskOptions, pipeline: Pipeline, project: _Project, warn: Warn
) -> _Chosen:
    """Every mode's specs, narrowed by --spec, --changed, --shard and --last-failed
    (plan_specs.py)."""
    config, modes, selection = project.config, project.modes, options.selection
    found = {
        mode.name: specs_of(root, selection.config, config, mode, selection.spec) for mode in modes
    }
    specs_by_mode = {name: list(mode_specs.specs) for name, mode_specs in found.items()}
    check_outputs_are_separate(root, config, specs_by_mode)
    check_output_folders(root, selection.config, output_root(config), modes)
    specs_by_mode = {
        name: select_specs(specs, selection.spec, name) for name, specs in specs_by_mode.items()
    }
    runtimes = {
        mode.name: _runtime_of(root, selection.config, options.run_switches, mode) for mode in modes
    }
    scan_cache = ImportScanCache(root / output_root(config) / IMPORT_SCAN_CACHE)
    note = "\n".join(
        part for part in (moved_outputs_note(root, config), exclusion_note(found)) if part
    )
    if selection.changed:
        inputs = spec_inputs(
            root, modes, specs_by_mode, runtimes, project.toolchain, project.as_test, scan_cache
        )
        changed = changed_only(root, selection.config, selection.changed, inputs)
        specs_by_mode = {
            name: [spec for spec in specs if changed.keeps(name, spec)]
            for name, specs in specs_by_mode.items()
        }
        note = "\n".join(part for part in (note, changed.note) if part)
    suite_pairs = sum(len(specs) for specs in specs_by_mode.values())
    shard = None
    if pipeline.shard is not None:
        _check_no_fuzz_in_shards(options.fuzzing)
        shared = _shared_durations(root, selection.config, options.remote, project, pipeline)
        specs_by_mode, shard = shard_of(root, specs_by_mode, pipeline, shared, warn)
        if selection.spec or selection.changed or selection.last_failed:
            shard = replace(shard, narrowed=True)
    if selection.last_failed:
        # After the shard: which pairs a shard holds must not depend on one machine's records.
        last = last_failed_only(root, modes, specs_by_mode)
        kept = {
            name: [spec for spec in specs if last.keeps(name, spec)]
            for name, specs in specs_by_mode.items()
        }
        if shard is not None and kept != specs_by_mode:
            shard = replace(shard, kept_all=False)  # the merge cannot count the suite's pairs
        specs_by_mode = kept
        note = "\n".join(part for part in (note, last.note) if part)
    return _Chosen(specs_by_mode, suite_pairs, note, scan_cache, runtimes, shard)


def _fuzz_options(
    options: FuzzCallOptions, config: ProjectConfig, command_line: CommandLine, pipeline: Pipeline
) -> FuzzOptions | None:
    if not fuzz_tasks_wanted(options.fuzz, command_line, fuzz_group(pipeline.basename)):
        return None
    return FuzzOptions.parse(options, config.fuzz)


def _load_project(root: Path, options: TaskOptions, pipeline: Pipeline, warn: Warn) -> _Project:
    version = installed_version(root)
    untested = untested_version_warning(version) if version else None
    if untested:
        warn(untested)
    as_test = AsTest.of(version)  # made here once, and carried whole (config/as_test.py)
    rules = as_test.config
    config = load_config(root / options.selection.config, root, rules)
    for warning in config.warnings:
        warn(warning)
    options.features.check_supported(rules)
    modes = tuple(
        with_coverage(options.features.apply(mode), options.run_coverage)
        for mode in select_modes(config, options.selection.mode)
    )
    if not modes:
        raise UserError(
            f'{options.selection.config}: every mode has "default": false, so a plain run '
            f"selects none; fix: choose modes with `{pipeline.options_command} --mode NAME` or "
            "ASTEST_MODE=NAME"
        )
    toolchain = load_toolchain(root, need_wasi_shim=any(m.target == "wasi" for m in modes))
    if any(TRY_AS in mode.features for mode in modes):
        require_package(root, TRY_AS)  # as-test: "try-as ... is not installed"
    combination = version_combination_warning(
        toolchain.as_test.version, toolchain.assemblyscript.version
    )
    if combination:
        warn(combination)
    return _Project(as_test, config, modes, toolchain)


def _run_settings(
    root: Path,
    options: TaskOptions,
    project: _Project,
    pipeline: Pipeline,
    command_line: CommandLine,
) -> RunSettings:
    counter = PROGRESS_COUNTER
    if pipeline.basename != BASENAME:
        counter = counter.replace(".json", f".{pipeline.basename}.json")
    switches = options.switches
    # secrets.token_hex(16) itself (os.urandom, as hex), without loading secrets and hmac
    session = os.urandom(16).hex()
    return RunSettings(
        limits=RunLimits.parse(options.limits, project.config),
        session=session,
        switches=switches,
        progress_file=f"{output_root(project.config).rstrip('/')}/{counter}",
        pipeline=pipeline,
        as_test=project.as_test,
        remote=remote_use(root, options.remote, project.config, pipeline.basename, session),
        builds_checked_first=command_line.settles_builds_first,
    )


def remote_settings(options: RemoteCacheOptions) -> RemoteSettings | None:
    """The shared cache this call asks (--remote-cache), with its secrets from the environment:
    they never pass through doit's options, so doit never stores or prints them."""
    if not options.remote_cache:
        return None
    return settings_with_secrets(
        options.remote_cache,
        options.remote_cache_mode.value,
        os.environ,
        connect_timeout=options.remote_cache_connect_timeout,
        request_timeout=options.remote_cache_request_timeout,
    )


def remote_use(
    root: Path, options: RemoteCacheOptions, config: ProjectConfig, basename: str, session: str
) -> RemoteUse | None:
    """The shared cache of this call's build and run tasks, and their state folder."""
    settings = remote_settings(options)
    if settings is None:
        return None
    state = REMOTE_STATE if basename == BASENAME else f"{REMOTE_STATE}.{basename}"
    state_dir = os.path.abspath(root / output_root(config) / state)
    return RemoteUse(settings=settings, state_dir=state_dir, session=session)


def _shared_durations(
    root: Path,
    config_path: str,
    options: RemoteCacheOptions,
    project: _Project,
    pipeline: Pipeline,
) -> SharedDurations | None:
    """Where a shard reads the durations a merge published, with --remote-cache: under the
    key of this project's config, task creator and modes (remote/shard_durations.py)."""
    settings = remote_settings(options)
    if settings is None:
        return None
    from astest_tasks.remote.shard_durations import SharedDurations, durations_key
    from astest_tasks.remote.task_keys import NotPortable, portable_name

    try:
        config = portable_name(root, config_path)
    except NotPortable:  # a config outside the project: its name is all that travels
        config = Path(config_path).name
    modes = [mode.name for mode in project.modes]
    return SharedDurations(settings, durations_key(config, pipeline.basename, modes))


def _check_no_fuzz_in_shards(options: FuzzCallOptions) -> None:
    if options.fuzz:
        raise UserError(
            "--fuzz with --shard: fuzz campaigns are not split into shards, and every shard "
            "would run them all; fix: run `doit astest:fuzz` in one CI job of its own"
        )


def _runtime_of(
    root: Path, config_path: str, options: RunSwitchOptions, mode: ModeSettings
) -> Runtime:
    """The mode's runtime, chosen once: its run tasks carry it whole to their actions."""
    where = "runOptions.runtime.cmd"
    if mode.name != "default":
        where = f"modes.{mode.name}.{where} (or the base {where})"
    # as-test: --browser first (1.8), then an explicit BROWSER in the environment, then
    # runOptions.runtime.browser.
    browser = options.switches.browser or os.environ.get("BROWSER") or mode.browser
    field = f"{config_path}: {where}"
    return resolve_runtime(
        mode.runtime_cmd,
        mode.target,
        root,
        field,
        browser,
        headful=options.headful,
        locate=True,
    )
