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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, cast

from doit import task_params
from doit.exceptions import InvalidDodoFile, InvalidTask
from doit.tools import config_changed

from astest_tasks.actions import (
    RunRequest,
    build_spec,
    last_run_passed,
    run_spec,
    show_summary_from_worker,
    snapshots_unchanged,
    summarize,
)
from astest_tasks.browser_session import find_chromium
from astest_tasks.cache_keys import build_file_deps, build_key, run_key
from astest_tasks.compiler import BuildRequest
from astest_tasks.config import ModeSettings, ProjectConfig, load_config, select_modes
from astest_tasks.coverage_summary import CoverageTarget
from astest_tasks.coverage_switch import parse_coverage_switch, with_coverage
from astest_tasks.discovery import Spec, discover_specs
from astest_tasks.errors import UserError
from astest_tasks.fuzz_summary import FuzzEntry
from astest_tasks.fuzz_tasks import (
    FuzzLimits,
    FuzzOptions,
    FuzzPlan,
    fuzz_tasks,
    fuzz_tasks_wanted,
)
from astest_tasks.imports import ImportScanCache, scan_imports
from astest_tasks.interrupts import unwind_on_sigterm
from astest_tasks.layout import SpecFiles, doit_paths, output_root, spec_files
from astest_tasks.limits import MEMORY_LIMIT, OUTPUT_LIMIT, TIMEOUT, PerMode, parse_per_mode
from astest_tasks.output_folders import check_output_folders
from astest_tasks.project_lock import lock_project
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
from astest_tasks.selection import select_specs, split_selectors
from astest_tasks.snapshots import SnapshotUpdate, snapshot_candidates
from astest_tasks.state_file import check_state_file, state_file_from_argv
from astest_tasks.summary import SummaryEntry, SummaryPlan
from astest_tasks.toolchain import (
    Toolchain,
    load_toolchain,
    version_combination_warning,
    warn_once,
)

BASENAME = "astest"
PROJECT_LOCK = "cache/project.lock"  # one doit run at a time (project_lock.py)
PROGRESS_COUNTER = "cache/progress.json"  # finished specs, counted across doit's workers
IMPORT_SCAN_CACHE = "cache/import-scan.json"  # under the output root (.as-test by default)
DEFAULT_CONFIG = "as-test.config.json"

# One definition drives the command line (`doit astest --timeout 30`), the environment
# (`ASTEST_TIMEOUT=30 doit`), doit's config files ([tool.doit.tasks.astest]) and `doit help astest`.
TASK_PARAMS: list[dict[str, Any]] = [
    {
        "name": "mode",
        "long": "mode",
        "type": str,
        "default": "",
        "env_var": "ASTEST_MODE",
        "help": "comma-separated modes to run (default: the config's default modes)",
    },
    {
        "name": "timeout",
        "long": "timeout",
        "type": str,
        "default": f"{TIMEOUT.default:g}",
        "env_var": TIMEOUT.env_var,
        "help": (
            "wall-clock seconds a spec may run before it is stopped and failed; `mode=S` entries "
            "set one mode's, e.g. `--timeout=10,web=30` [default: %(default)s]"
        ),
    },
    {
        "name": "memory_limit",
        "long": "memory-limit",
        "type": str,
        "default": f"{MEMORY_LIMIT.default:g}",
        "env_var": MEMORY_LIMIT.env_var,
        "help": (
            "MiB of memory a spec's wasm may grow to (wasi and bindings); `mode=MIB` entries set "
            "one mode's [default: %(default)s]"
        ),
    },
    {
        "name": "output_limit",
        "long": "output-limit",
        "type": str,
        "default": f"{OUTPUT_LIMIT.default:g}",
        "env_var": OUTPUT_LIMIT.env_var,
        "help": (
            "MiB a spec may write to stdout, frames included, before it is stopped and failed; "
            "`mode=MIB` entries set one mode's [default: %(default)s]"
        ),
    },
    {
        "name": "spec",
        "long": "spec",
        "type": str,
        "default": "",
        "env_var": "ASTEST_SPEC",
        "help": (
            "comma-separated spec names (or parts of them) or globs to run, e.g. `math,nested/*` "
            "(default: every spec of the selected modes)"
        ),
    },
    {
        "name": "suite",
        "long": "suite",
        "type": str,
        "default": "",
        "env_var": "ASTEST_SUITE",
        "help": (
            "comma-separated suites to report, as as-test's --suite: a path of slugified "
            "descriptions (`parent/child`) or a bare leaf name; specs still run whole"
        ),
    },
    {
        "name": "update_snapshots",
        "long": "update-snapshots",
        "type": str,
        "default": "",
        "env_var": "ASTEST_UPDATE_SNAPSHOTS",
        "help": (
            "write snapshots while running: `create` stores missing ones, `overwrite` also "
            "replaces mismatching ones (as-test's --create-snapshots / --overwrite-snapshots)"
        ),
    },
    {
        "name": "headful",
        "long": "headful",
        "type": bool,
        "default": False,
        "env_var": "ASTEST_HEADFUL",
        "help": (
            "show the browser window while web specs run (headless by default; without a "
            "display they run headless and say so)"
        ),
    },
    {
        "name": "fuzz",
        "long": "fuzz",
        "type": bool,
        "default": False,
        "env_var": "ASTEST_FUZZ",
        "help": (
            "run the fuzz targets too (`doit astest:fuzz` runs only them); `fuzz = true` under "
            "[tool.doit.tasks.astest] in pyproject.toml makes it the project's default"
        ),
    },
    {
        "name": "fuzz_seed",
        "long": "fuzz-seed",
        "type": str,
        "default": "",
        "env_var": "ASTEST_FUZZ_SEED",
        "help": (
            "pin the fuzz seed to replay a campaign (default: the config's fuzz.seed, else a "
            "random seed per doit call, which is never cached)"
        ),
    },
    {
        "name": "fuzz_runs",
        "long": "fuzz-runs",
        "type": str,
        "default": "",
        "env_var": "ASTEST_FUZZ_RUNS",
        "help": "override each fuzzer's run count: 500 sets, 1.5x scales, +100000 or +10%% adds",
    },
    {
        "name": "coverage",
        "long": "coverage",
        "type": str,
        "default": "",
        "env_var": "ASTEST_COVERAGE",
        "help": (
            "`on` or `off` to build and run with or without coverage this time, over the "
            'config\'s "coverage" (default: the config decides)'
        ),
    },
    {
        "name": "config",
        "long": "config",
        "type": str,
        "default": DEFAULT_CONFIG,
        "env_var": "ASTEST_CONFIG",
        "help": "path of the as-test config file [default: %(default)s]",
    },
]


TaskCreator = Callable[..., Iterator[dict[str, Any]]]  # takes TASK_PARAMS by name


def make_astest_tasks(project_dir: str | Path = ".") -> TaskCreator:
    """A task creator for the as-test project in ``project_dir`` (relative to the dodo's folder).

    Bind it to ``task_astest`` in a dodo.py: doit names the tasks after the variable.
    """
    try:
        # Runs while doit imports the dodo file, just before doit opens its state file.
        check_state_file(Path(state_file_from_argv(sys.argv[1:])))
    except UserError as exc:
        raise InvalidDodoFile(str(exc)) from None

    def task_astest(
        mode: str,
        timeout: str,
        memory_limit: str,
        output_limit: str,
        spec: str,
        suite: str,
        update_snapshots: str,
        headful: bool,
        fuzz: bool,
        fuzz_seed: str,
        fuzz_runs: str,
        config: str,
        coverage: str = "",
    ) -> Iterator[dict[str, Any]]:
        """Build and run the as-test specs (asc + embedded wasmtime), then summarise."""
        root = (Path.cwd() / project_dir).resolve()
        try:
            update = SnapshotUpdate.parse(update_snapshots)
            selection = (split_selectors(spec), split_selectors(suite))
            modes = _split_modes(mode)
            limits = RequestedLimits(timeout, memory_limit, output_limit)
            fuzzing = RequestedFuzz(fuzz, fuzz_seed, fuzz_runs)
            coverage_switch = parse_coverage_switch(coverage)
            tasks = list(
                create_tasks(
                    root,
                    config,
                    modes,
                    limits,
                    update,
                    *selection,
                    headful=headful,
                    fuzz=fuzzing,
                    coverage=coverage_switch,
                )
            )
        except UserError as exc:
            # doit prints InvalidTask as one "ERROR: ..." line and exits 3, with no traceback.
            raise InvalidTask(str(exc)) from None
        yield from tasks

    # doit's decorator only attaches the parameter definitions; it is untyped, hence the cast.
    return cast(TaskCreator, task_params(TASK_PARAMS)(task_astest))


task_astest = make_astest_tasks()


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
) -> Iterator[dict[str, Any]]:
    unwind_on_sigterm()  # doit's -n workers inherit it when they are forked from here
    config = load_config(project_root / config_path, project_root)
    for warning in config.warnings:
        warn_once(warning)
    modes = [with_coverage(mode, coverage) for mode in select_modes(config, requested_modes)]
    if not modes:
        raise UserError(
            f'{config_path}: every mode has "default": false, so a plain run selects none; '
            "fix: choose modes with `doit astest --mode NAME` or ASTEST_MODE=NAME"
        )
    toolchain = load_toolchain(project_root, need_wasi_shim=any(m.target == "wasi" for m in modes))
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
    runtimes = {mode.name: _runtime_of(project_root, config_path, mode) for mode in modes}
    yield from _runner_tasks(project_root, runtimes.values())
    scan_cache = ImportScanCache(project_root / output_root(config) / IMPORT_SCAN_CACHE)
    entries: list[SummaryEntry] = []
    run_tasks: list[str] = []
    total = sum(len(specs) for specs in specs_by_mode.values())
    invocation = _Invocation(
        limits=requested_limits.parse(config),
        session=session,
        update=update,
        progress_file=f"{output_root(config).rstrip('/')}/{PROGRESS_COUNTER}",
        headful=headful,
    )
    for mode in modes:
        for spec in specs_by_mode[mode.name]:
            files = spec_files(mode, spec)
            runtime = runtimes[mode.name]
            yield _build_task(project_root, mode, spec, files, toolchain, scan_cache)
            place = (len(run_tasks) + 1, total)
            yield _run_task(project_root, mode, spec, files, runtime, invocation, place)
            run_tasks.append(f"{BASENAME}:run:{mode.name}:{spec.spec_id}")
            entries.append(
                SummaryEntry(
                    mode=mode.name,
                    spec_id=spec.spec_id,
                    spec=spec.path,
                    target=mode.target,
                    result=files.result,
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
    )


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
    if not fuzz_tasks_wanted(requested.with_tests, sys.argv[1:]):
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
        root, config.fuzz, modes, toolchain, scan_cache, limits_of, options, invocation.session
    )


def _build_task(
    root: Path,
    mode: ModeSettings,
    spec: Spec,
    files: SpecFiles,
    toolchain: Toolchain,
    scan_cache: ImportScanCache,
) -> dict[str, Any]:
    request = BuildRequest(
        project_root=str(root),
        spec_path=spec.path,
        spec_id=spec.spec_id,
        mode=mode.name,
        target=mode.target,
        wasm_path=files.wasm,
        record_path=files.build_record,
        asconfig=mode.asconfig,
        build_args=tuple(mode.build_args),
        build_cmd=mode.build_cmd,
        build_env=dict(mode.build_env),
    )
    scan = scan_imports(root, spec.path, scan_cache)
    targets = [files.build_record, files.wasm]
    if mode.target == "bindings":
        stem = files.wasm.removesuffix(".wasm")
        targets += [f"{stem}.js", f"{stem}.d.ts"]
    return {
        "name": f"build:{mode.name}:{spec.spec_id}",
        "doc": f"compile {spec.path} for mode {mode.name} ({mode.target})",
        "actions": [(build_spec, [asdict(request)])],
        "file_dep": doit_paths(root, build_file_deps(root, mode, scan, toolchain)),
        "targets": doit_paths(root, targets),
        "uptodate": [config_changed(build_key(mode, spec, toolchain))],
        "clean": True,
    }


def _specs_of(root: Path, config_path: str, mode: ModeSettings) -> list[Spec]:
    specs = discover_specs(root, mode.input_patterns)
    if not specs:
        raise UserError(
            f"{config_path}: mode {mode.name!r}: input {list(mode.input_patterns)} matches no "
            '*.spec.ts file; fix: correct "input" or add a spec under it'
        )
    return specs


def _runtime_of(root: Path, config_path: str, mode: ModeSettings) -> Runtime:
    where = "runOptions.runtime.cmd"
    if mode.name != "default":
        where = f"modes.{mode.name}.{where} (or the base {where})"
    # as-test: an explicit BROWSER in the environment wins over runOptions.runtime.browser.
    browser = os.environ.get("BROWSER") or mode.browser
    runtime = resolve_runtime(
        mode.runtime_cmd, mode.target, root, f"{config_path}: {where}", browser
    )
    if isinstance(runtime, BrowserRuntime):
        # Without a Chromium, each web spec fails with the reason when it runs; the rest go on.
        with contextlib.suppress(UserError):
            runtime = replace(runtime, executable=find_chromium(runtime.browser))
    return runtime


def _runner_tasks(root: Path, runtimes: Iterable[Runtime]) -> Iterator[dict[str, Any]]:
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
        yield {
            "name": f"runner:{target}",
            "doc": f"create {runner} from its template if it is missing (never overwritten)",
            "actions": [(ensure_default_runner, [str(root), target])],
            "targets": doit_paths(root, [runner]),
            # Up to date whenever the file exists: doit runs a task whose target is missing.
            "uptodate": [True],
            # No "clean": the runner is the user's file from the moment it exists.
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
        snapshot_files=tuple(snapshot_candidates(spec.path, mode.snapshot_dir)),
        runner_script=runtime.runner if isinstance(runtime, InProcessRuntime) else "",
        external_tokens=runtime.tokens if isinstance(runtime, ExternalRuntime) else (),
        # The executable found when the tasks were made, which is the one in the run key; the
        # name as asked when none was found, so the run can say why.
        browser=(runtime.executable or runtime.browser)
        if isinstance(runtime, BrowserRuntime)
        else "",
        headful=invocation.headful or (isinstance(runtime, BrowserRuntime) and runtime.headful),
    )
    file_dep = [files.build_record]  # also orders the run after its build
    file_dep += _runtime_files(root, runtime)
    return {
        "name": f"run:{mode.name}:{spec.spec_id}",
        "doc": f"run {spec.path} in mode {mode.name} ({runtime.description})",
        "actions": [(run_spec, [asdict(request), invocation.session])],
        "file_dep": doit_paths(root, file_dep),
        "targets": doit_paths(root, [files.result]),
        "uptodate": [
            config_changed(run_key(mode, spec, (timeout_s, memory_mib, output_mib), runtime)),
            (last_run_passed, [str(root), files.result]),
            (snapshots_unchanged, [str(root), list(request.snapshot_files)]),
            # An update run asks every spec again: only a run can tell what is missing.
            update is SnapshotUpdate.NONE,
        ],
        "clean": True,
    }


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


def _summary_task(
    root: Path,
    config: ProjectConfig,
    entries: list[SummaryEntry],
    run_tasks: list[str],
    session: str,
    suite_selectors: Sequence[str],
    fuzz_entries: Sequence[FuzzEntry] = (),
    coverage_targets: Sequence[CoverageTarget] = (),
) -> dict[str, Any]:
    plan = SummaryPlan(
        project_root=str(root),
        report_path=posixpath.join(output_root(config), "report.json"),
        entries=tuple(entries),
        suite_selectors=tuple(suite_selectors),
        fuzz_entries=tuple(fuzz_entries),
        coverage=tuple(coverage_targets),
    )
    return {
        "name": "summary",
        "doc": "print every spec's result (fresh or cached) and fail if any failed",
        "actions": [(summarize, [plan.to_dict(), session])],
        "teardown": [(show_summary_from_worker, [plan.to_dict(), session])],
        "task_dep": run_tasks,
        "uptodate": [False],  # always shows results, cached ones included
        "verbosity": 2,  # our output is the point: never let doit capture it
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
